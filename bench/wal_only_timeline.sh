#!/bin/sh
# SPDX-License-Identifier: MIT
# wal_only_timeline.sh — where the time of `etcd-fio check --wal-only` goes, beside the classic job
# (fio --rw=write --ioengine=sync --fdatasync=1 --bs=2300 --size=22m) on the same disk:
#  1. WOT_ROUNDS rounds (default 5), each running both in alternating order: wall seconds to the verdict,
#     the check's verdict, which phase decided, each phase's seconds, the classic job's p50/p99, and the
#     1-minute load average and io pressure (some avg10) before each run;
#  2. WOT_TRACES runs (default 1) of the check under strace (seccomp-filtered: only execve, fallocate,
#     fdatasync and the exits are stopped; the other syscalls run untraced), turned into a timeline: fio's
#     exec per phase, each job's segment fallocate (the end of fio's start), its first fdatasync (for the
#     WAL job the end of the first segment's fill), the last measured sync, fio's exit, the check's exit.
# Nothing is asserted: a TSV and the timelines on stdout. Usage: wal_only_timeline.sh [ARTIFACT_DIR]
#   env: BUILD, WOT_DIR (default /var/tmp), WOT_ROUNDS, WOT_TRACES
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
ART=${1:-$BUILD/bench/wal_only_timeline}
mkdir -p "$ART" && ART=$(cd "$ART" && pwd)
[ -x "$ETCD_FIO" ] || { bench_log "wal_only_timeline: $ETCD_FIO not built"; exit 2; }
work=$(mktemp -d "${WOT_DIR:-/var/tmp}/etcd-fio-wot.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
export ETCD_FIO_ENGINE="$ENGINE_SO"

now() { date +%s.%N; }
iop() { sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/io 2>/dev/null || echo -; }

one() { # ROUND WHICH
  out="$ART/$2-$1"
  load=$(cut -d' ' -f1 /proc/loadavg); io=$(iop)
  mkdir -p "$work/d"
  t0=$(now)
  if [ "$2" = check ]; then
    "$ETCD_FIO" check --wal-only --json --force "$work/d" > "$out.json" 2> "$out.err"
  else
    "$FIO" --name=classic --directory="$work/d" --ioengine=sync --rw=write --fdatasync=1 --bs=2300 \
      --size=22m --eta=never --output-format=json --output="$out.json" > /dev/null 2>&1
  fi
  t1=$(now)
  rm -rf "$work/d"
  $PY - "$1" "$2" "$out.json" "$t0" "$t1" "$load" "$io" <<'PY'
import json, sys
r, which, path, t0, t1, load, io = sys.argv[1:]
secs = float(t1) - float(t0)
try:
    d = json.load(open(path))
except Exception:
    print(f"{r}\t{which}\t{secs:.2f}\terror\t\t{load}\t{io}"); sys.exit()
if which == "classic":
    p = d["jobs"][0]["sync"]["lat_ns"]["percentile"]
    print(f"{r}\t{which}\t{secs:.2f}\tp50 {p['50.000000'] / 1e6:.2f} ms p99 {p['99.000000'] / 1e6:.2f} ms\t\t{load}\t{io}")
else:
    ph = d["details"].get("phases") or {}
    s = " ".join(f"{k} {v['seconds']:.1f} s {v['end']}" for k, v in ph.items() if isinstance(v, dict) and "seconds" in v)
    print(f"{r}\t{which}\t{secs:.2f}\t{d['verdict']} (decided by phase {ph.get('decided_by', '?')})\t{s}\t{load}\t{io}")
PY
}

printf 'round\twhat\tseconds\tresult\tphases\tload1\tio_some10\n'
r=0
while [ $r -lt "${WOT_ROUNDS:-5}" ]; do
  r=$((r + 1))
  if [ $((r % 2)) = 1 ]; then one $r check; one $r classic; else one $r classic; one $r check; fi
done

t=0
while [ $t -lt "${WOT_TRACES:-1}" ]; do
  t=$((t + 1))
  mkdir -p "$work/d"
  echo "# timeline $t (load1 $(cut -d' ' -f1 /proc/loadavg) before it); seconds from etcd-fio's exec, pid"
  strace -f --seccomp-bpf -ttt -e trace=execve,fallocate,fdatasync,exit_group -o "$ART/trace-$t.txt" \
    "$ETCD_FIO" check --wal-only --json --force "$work/d" > "$ART/trace-$t.json" 2>&1
  rm -rf "$work/d"
  $PY - "$ART/trace-$t.txt" <<'PY'
import collections, re, sys
t0, ev, per = None, [], collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'(\d+)\s+(\d+\.\d+)\s+(.*)', line)
    if not m:
        continue
    pid, t, rest = int(m.group(1)), float(m.group(2)), m.group(3)
    t0 = t if t0 is None else t0
    t -= t0
    if rest.startswith('execve(') and 'ENOENT' not in rest:
        si = re.findall(r'"(--status-interval[^"]*)"', rest)
        ev.append((t, pid, 'exec ' + rest.split('"')[1] + (' ' + si[0] if si else '')))
    elif rest.startswith(('fdatasync', 'fallocate')):
        per[pid].append((t, rest.split('(')[0]))
    elif rest.startswith('+++ exited'):
        ev.append((t, pid, rest))
for pid, l in per.items():
    fs = [t for t, k in l if k == 'fdatasync']
    fa = [t for t, k in l if k == 'fallocate']
    if fa:
        ev.append((fa[0], pid, 'first fallocate (a segment or the db)'))
    if fs:
        ev.append((fs[0], pid, 'first fdatasync (the WAL job: end of the first segment\'s fill)'))
        ev.append((fs[-1], pid, f'last fdatasync ({len(fs)} in all)'))
for t, pid, what in sorted(ev):
    print(f'{t:7.3f}\t{pid}\t{what}')
PY
done
