#!/bin/sh
# SPDX-License-Identifier: MIT
# full_check.sh — time to verdict of `etcd-fio check` (both criteria) and `check --wal-only` on this tree's
# disk, against the backend's floor: the library's first possible PASS of the backend p99 (fior_first_pass_
# samples, via build/bench/seq_replay --first-pass) at etcd's 10 commits/s. Two builds may be compared
# (FC_OLD: another etcd-fio binary, e.g. one built from main): the runs alternate old/new so that both see the
# same load on this shared machine; the 1-minute load average is recorded with each run. For each run: the
# verdict, wall seconds from start to verdict, how phase 1 ended, the probe, which phase decided, the
# backend commits at the decision. The deciding phase's stream is kept (ARTIFACT_DIR/*.keep, check
# --keep-output) for bench/seq_replay.c to judge again by another build's rule, on the same data.
# Nothing is asserted: a TSV on stdout and records in $RESULTS.
# Usage: full_check.sh [ARTIFACT_DIR]   env: BUILD, FC_RUNS=3, FC_OLD=PATH (optional), FC_MODES="full wal-only",
#        FC_DIR (default $TOP/build: a directory on the disk to measure)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
RESULTS=${RESULTS:-/dev/null}
ART=${1:-$BUILD/bench/full_check}
mkdir -p "$ART" && ART=$(cd "$ART" && pwd)
RUNS=${FC_RUNS:-3}
MODES=${FC_MODES:-full wal-only}
OLD=${FC_OLD:-}
REPLAY=$BUILD/bench/seq_replay
[ -x "$ETCD_FIO" ] || { bench_log "full_check: $ETCD_FIO not built"; exit 2; }
[ -x "$REPLAY" ] || { bench_log "full_check: $REPLAY not built (make $REPLAY)"; exit 2; }
work=$(mktemp -d "${FC_DIR:-$TOP/build}/fc.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP PIPE
floor=$("$REPLAY" --first-pass 0.95)
export ETCD_FIO_ENGINE="${ETCD_FIO_ENGINE:-$ENGINE_SO}"

now() { date +%s.%N; }
rows="$work/rows.tsv"; : > "$rows"
one() { # LABEL BINARY MODE N
  out="$ART/$1-$3-$4"
  mkdir -p "$work/d"
  flag=""; [ "$3" = wal-only ] && flag=--wal-only
  load=$(cut -d' ' -f1 /proc/loadavg)
  rm -rf "$out.keep" && mkdir -m 700 "$out.keep"
  t0=$(now)
  "$2" check $flag --json --force --keep-output "$out.keep" "$work/d" > "$out.json" 2> "$out.err"
  t1=$(now)
  rmdir "$work/d" 2>/dev/null
  $PY - "$1" "$3" "$out.json" "$t0" "$t1" "$load" "$floor" >> "$rows" <<'PY'
import json, sys
label, mode, path, t0, t1, load, floor = sys.argv[1:]
secs = float(t1) - float(t0)
try:
    d = json.load(open(path))
except Exception:
    print(f"{label}\t{mode}\terror\t{secs:.1f}\t-\t-\t-\t-\t-\t{load}"); sys.exit()
det = d.get("details") or {}
ph = det.get("phases") or {}
p1 = ph.get("phase1") or {}
pr = ph.get("probe")
probe = "-" if not pr else ("confirmed" if pr.get("ok") else "refused: " + pr.get("why", "")[:60])
b = next((j for h in d["hosts"] for j in h["jobs"] if j["role"] == "backend"), {})
ratio = secs / (int(floor) / 10) if mode == "full" else float("nan")
print(f"{label}\t{mode}\t{d['verdict']}\t{secs:.1f}\t{ratio:.2f}\t{p1.get('end', '-')} ({p1.get('seconds') or 0:.1f} s)"
      f"\t{probe}\t{ph.get('decided_by', '-')}\t{(det.get('run') or {}).get('syncs_at_decision') or '-'} syncs, "
      f"backend {b.get('samples') or 0}\t{load}")
PY
}
n=0
while [ $n -lt "$RUNS" ]; do
  n=$((n + 1))
  for mode in $MODES; do
    [ -n "$OLD" ] && one old "$OLD" "$mode" $n
    one new "$ETCD_FIO" "$mode" $n
  done
done
printf 'floor: %s backend commits at 10/s = %s s (fior_first_pass_samples, 95 %%)\n' "$floor" \
  "$($PY -c "print($floor / 10)")"
printf 'build\tmode\tverdict\ts to verdict\tx floor\tphase 1\tprobe\tdecided by\tat decision\tload1\n'
cat "$rows"
while IFS="$(printf '\t')" read -r b mode v s x p1 pr by at load; do
  bench_record full_check "$b check $mode" "$s" "s" "verdict $v, x$x floor $floor/10 s, phase 1 $p1, probe $pr, $by, $at, load $load"
done < "$rows"
