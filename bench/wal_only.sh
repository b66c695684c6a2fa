#!/bin/sh
# SPDX-License-Identifier: MIT
# wal_only.sh — the classic question, WAL fdatasync p99 < 10 ms, asked two ways on each disk: `etcd-fio
# check --wal-only` (etcd's write pattern, rollover and pacing; stops as soon as the WAL is decided) and the
# classic job (fio --rw=write --ioengine=sync --fdatasync=1 --bs=2300 --size=22m, capped at WO_CLASSIC_S
# seconds and projected to its 10,029 syncs when capped). Wall-clock seconds of each, from start to
# verdict, with the classic job's fdatasync median (the issue's bar: --wal-only <= classic wherever that
# median is >= 0.2 ms) and the 1-minute load average. Disks: the tree's; a loop ext4 throttled to 60 write
# IOPS (root, cgroup v1 blkio; as tests/cli/it_check_throttled.sh); the lab's 0.5, 2 and 4 ms devices (labfs,
# bench/lab_lib.sh; needs `make build/bench/labfs` and /dev/fuse). Also the full check's time on the tree's
# disk against the floor the backend needs: its first possible PASS (fior_first_pass_samples, 411 commits at
# 95 %; build/bench/seq_replay --first-pass) at etcd's 10/s (bench/full_check.sh measures it in more runs).
# Nothing is asserted: numbers only (a TSV on stdout and records in $RESULTS).
# Usage: wal_only.sh [ARTIFACT_DIR]   env: BUILD, WO_PARTS="tree throttled lab full", WO_CLASSIC_S=60,
#        WO_RUNS=1 (runs per disk; the median is printed)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
RESULTS=${RESULTS:-/dev/null}
ART=${1:-$BUILD/bench/wal_only}
mkdir -p "$ART" && ART=$(cd "$ART" && pwd)
PARTS=${WO_PARTS:-tree throttled lab full}
CAP=${WO_CLASSIC_S:-60}
RUNS=${WO_RUNS:-1}
LABFS=${LABFS:-$BUILD/bench/labfs}
[ -x "$ETCD_FIO" ] || { bench_log "wal_only: $ETCD_FIO not built"; exit 2; }
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

work=$(mktemp -d "$TOP/build/wo.XXXXXX") || exit 2
cg="/sys/fs/cgroup/blkio/etcd-fio-wo.$$"
cleanup() {
  [ -n "${MNT:-}" ] && umount_lab
  bench_unthrottle "$work" "$cg"
  rm -rf "$work"
}
if has lab; then
  SECS=$CAP; CPU_E=0; CPU_L=1
  . "$BENCH_DIR/lab_lib.sh"
fi
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

now() { date +%s.%N; }
secs() { $PY -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' "$1" "$2"; }
rows="$work/rows.tsv"; : > "$rows"

# walonly LABEL DIR [WRAPPER…]: one `check --wal-only` run, its wall time to the verdict
walonly() {
  label=$1; d=$2; shift 2
  n=0
  while [ $n -lt "$RUNS" ]; do
    n=$((n + 1))
    out="$ART/$(echo "$label" | tr ' /' '__')-walonly-$n"
    mkdir -p "$d/wo"
    t0=$(now)
    "$@" "$ETCD_FIO" check --wal-only --json --force "$d/wo" > "$out.json" 2> "$out.err"
    t1=$(now)
    rmdir "$d/wo" 2>/dev/null
    $PY - "$label" "$out.json" "$(secs "$t0" "$t1")" "$(cut -d' ' -f1 /proc/loadavg)" >> "$rows" <<'PY'
import json, sys
label, path, secs, load = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    print(f"{label}\tcheck --wal-only\terror\t-\t{secs}\t-\t-\t{load}\tno JSON"); sys.exit()
w = next((j for h in d["hosts"] for j in h["jobs"] if j["role"] == "wal"), {})
ph = d["details"].get("phases") or {}
print(f"{label}\tcheck --wal-only\t{d['verdict']}\t{w.get('samples') or 0}\t{secs}\t-\t"
      f"{(w.get('p99_ns') or 0) / 1e6:.2f}\t{load}\tdecided by {ph.get('decided_by', '?')}")
PY
  done
}

# classic LABEL DIR [WRAPPER…]: the classic job, at most CAP seconds, projected to 10,029 syncs
classic() {
  label=$1; d=$2; shift 2
  out="$ART/$(echo "$label" | tr ' /' '__')-classic.json"
  mkdir -p "$d/classic"
  t0=$(now)
  "$@" "$FIO" --name=classic --directory="$d/classic" --ioengine=sync --rw=write --fdatasync=1 --bs=2300 \
    --size=22m --runtime="$CAP" --output-format=json+ --output="$out" > /dev/null 2>&1
  t1=$(now)
  rm -rf "$d/classic"
  $PY - "$label" "$out" "$(secs "$t0" "$t1")" "$(cut -d' ' -f1 /proc/loadavg)" "$CAP" >> "$rows" <<'PY'
import json, sys
label, path, secs, load, cap = sys.argv[1:]
try:
    j = json.load(open(path))["jobs"][0]
except Exception:
    print(f"{label}\tclassic\terror\t-\t{secs}\t-\t-\t{load}\tno JSON"); sys.exit()
lat = j["sync"]["lat_ns"]; pct = lat.get("percentile", {})
n = lat["N"]; p50 = pct.get("50.000000", 0) / 1e6; p99 = pct.get("99.000000", 0) / 1e6
v = "pass" if p99 < 10 else "fail"
note = "full 22 MiB"
if n < 10029:
    note = f"{n} syncs in {cap} s: the full 10,029 would take ~{float(secs) * 10029 / n:.0f} s"
    secs = f"{float(secs) * 10029 / n:.0f}"
print(f"{label}\tclassic\t{v}\t{n}\t{secs}\t{p50:.3f}\t{p99:.2f}\t{load}\t{note}")
PY
}

if has tree; then
  d="$work/tree"; mkdir -p "$d"
  bench_log "wal_only: the tree's disk ($(findmnt -no SOURCE,FSTYPE -T "$d" | tr -s ' '))"
  walonly "this disk" "$d"
  classic "this disk" "$d"
fi

if has throttled; then
  bench_throttle "$work" "$cg"
  why=$BENCH_WHY
  if [ -z "$why" ]; then
    walonly "throttled 60 IOPS" "$THROTTLED_MNT" bench_incg "$cg"
    classic "throttled 60 IOPS" "$THROTTLED_MNT" bench_incg "$cg"
  else
    bench_log "wal_only: throttled disk skipped: $why"
    printf 'throttled 60 IOPS\tskipped\t-\t-\t-\t-\t-\t-\t%s\n' "$why" >> "$rows"
  fi
fi

if has lab; then
  if [ -x "$LABFS" ] && [ -c /dev/fuse ]; then
    for pt in "d0.5=median=0.5ms,sigma=0.5,per_mib=2ms,seed=1" "d2=median=2ms,sigma=0.5,per_mib=2ms,seed=2" \
              "d4=median=4ms,sigma=0.5,per_mib=2ms,seed=3"; do
      name=${pt%%=*}; spec=${pt#*=}
      mount_lab "$spec" "$work/labfs.$name.stats" "" || { bench_log "wal_only: lab $name did not mount"; continue; }
      walonly "lab $name" "$MNT"
      classic "lab $name" "$MNT"
      umount_lab
    done
  else
    bench_log "wal_only: lab skipped: $LABFS not built or no /dev/fuse"
    printf 'lab\tskipped\t-\t-\t-\t-\t-\t-\t%s not built or no /dev/fuse\n' "$LABFS" >> "$rows"
  fi
fi

if has full; then
  d="$work/full"; mkdir -p "$d"
  t0=$(now)
  "$ETCD_FIO" check --json --force "$d" > "$ART/full.json" 2> "$ART/full.err"
  t1=$(now)
  # the floor: the library's first possible PASS of the backend p99 (fior_first_pass_samples)
  n=$("$BUILD/bench/seq_replay" --first-pass 0.95 2>/dev/null || echo 0)
  $PY - "$ART/full.json" "$(secs "$t0" "$t1")" "$(cut -d' ' -f1 /proc/loadavg)" "$n" >> "$rows" <<'PY'
import json, sys
path, secs, load, n = sys.argv[1:]
d = json.load(open(path))
n = int(n)
floor = n / 10 if n else float("nan")
b = next((j for h in d["hosts"] for j in h["jobs"] if j["role"] == "backend"), {})
print(f"this disk\tcheck (full)\t{d['verdict']}\t{b.get('samples') or 0}\t{secs}\t-\t-\t{load}\t"
      f"floor {floor:.1f} s ({n} backend commits at 10/s); {float(secs) / floor:.2f} x the floor")
PY
fi

printf 'disk\trun\tverdict\tWAL syncs (backend for full)\tseconds to verdict\tfdatasync median ms\tWAL p99 ms\tload1\tnote\n'
cat "$rows"
while IFS="$(printf '\t')" read -r disk run verdict n s med p99 load note; do
  bench_record wal_only "$disk: $run" "$s" "s" "verdict $verdict, $n syncs, median $med ms, p99 $p99 ms, load $load; $note"
done < "$rows"
