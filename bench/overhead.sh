#!/bin/sh
# SPDX-License-Identifier: MIT
# overhead.sh — the engine's own CPU cost: on tmpfs (fdatasync costs almost nothing there, so what is left
# is the engine and fio) fio's psync engine vs etcdwal, both rw=write bs=2300 fdatasync=1 of the same size,
# alternating runs, RUNS each; reports the median IOPS of each and their ratio (target >= 0.95), and the
# user-space instructions per I/O measured by `perf stat -e instructions` where the CPU exposes it, else by
# callgrind as the difference between two run sizes (so fio's start-up cost cancels out).
# Usage: overhead.sh OUTDIR   (env: BUILD, RESULTS, BENCH_QUICK=1 for a shorter pass)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: overhead.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RESULTS=${RESULTS:-$OUT/results.tsv}
RUNS=${OVERHEAD_RUNS:-5}; SIZE=${OVERHEAD_SIZE:-256m}
[ "${BENCH_QUICK:-0}" = 1 ] && { RUNS=${OVERHEAD_RUNS:-3}; SIZE=${OVERHEAD_SIZE:-64m}; }

if [ ! -f "$ENGINE_SO" ]; then
  bench_log "overhead: $ENGINE_SO not built; skipped"
  bench_record overhead "IOPS ratio etcdwal/psync" n/a "" "engine not built"
  exit 0
fi
# A private tmpfs when we may mount one, else /dev/shm (also tmpfs).
T=$(mktemp -d /tmp/etcdfio-overhead.XXXXXX) || exit 2
mounted=0
if mount -t tmpfs -o size=2g etcdfio-bench "$T" 2>/dev/null; then mounted=1
else rmdir "$T"; T=$(mktemp -d /dev/shm/etcdfio-overhead.XXXXXX) || exit 2; fi
cleanup() { rm -rf "${T:?}"/* 2>/dev/null; if [ "$mounted" = 1 ]; then umount "$T"; fi; rmdir "$T" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM
fstype=$(stat -f -c %T "$T")

jobfile() { # ENGINE SIZE -> job file on stdout
  echo "[global]"; echo "directory=$T"; echo "rw=write"; echo "bs=2300"; echo "fdatasync=1"; echo "size=$2"
  echo "thread=1"
  if [ "$1" = psync ]; then printf '[psync]\nioengine=psync\n'
  else printf '[etcdwal]\nioengine=external:%s\netcd_mode=wal\n' "$ENGINE_SO"; fi
}
# IOPS, and CPU time (user+sys) per I/O: on a busy shared machine the wall-clock IOPS of a 1 s run swings
# with what else runs; the CPU seconds fio's job itself spent per I/O swing much less.
iops_of() { $PY -c 'import json,sys
j=json.load(open(sys.argv[1]))["jobs"][0]; n=j["write"]["total_ios"]; rt=j["job_runtime"]/1000.0
print("%.0f %.3f" % (j["write"]["iops"], (j["usr_cpu"]+j["sys_cpu"])/100.0*rt/n*1e6))' "$1"; }

i=1; : > "$OUT/overhead.iops"
while [ $i -le "$RUNS" ]; do
  for e in psync etcdwal; do
    jobfile $e "$SIZE" > "$OUT/overhead-$e.fio"
    if ! "$FIO" --output-format=json --output="$OUT/overhead-$e-$i.json" "$OUT/overhead-$e.fio" > "$OUT/overhead-$e.log" 2>&1; then
      bench_log "overhead: fio $e run $i failed; see $OUT/overhead-$e.log"
      bench_record overhead "IOPS ratio etcdwal/psync" ERR "" "fio $e failed"
      exit 0
    fi
    echo "$i $e $(iops_of "$OUT/overhead-$e-$i.json")" >> "$OUT/overhead.iops"
    rm -rf "${T:?}"/*
  done
  i=$((i + 1))
done
$PY "$BENCH_DIR/summarize.py" overhead "$OUT/overhead.iops" "$RESULTS" \
  "$RUNS alternating runs each, size=$SIZE, bs=2300, fdatasync=1 on $fstype"

# ---- instructions per I/O ---------------------------------------------------------------------------
perf_ok=0
if command -v perf >/dev/null && perf stat -x, -e instructions:u true >/dev/null 2>"$OUT/perf-probe.txt" &&
   grep -q instructions "$OUT/perf-probe.txt" && ! grep -q 'not supported' "$OUT/perf-probe.txt"; then
  perf_ok=1
fi
N1=${OVERHEAD_CG_IOS1:-2000}; N2=${OVERHEAD_CG_IOS2:-8000}
ir_total() { # ENGINE NIOS -> user-space instructions of the whole fio run
  jobfile "$1" "$(($2 * 2300))" > "$OUT/ir-$1.fio"
  if [ $perf_ok = 1 ]; then
    perf stat -x, -e instructions:u -o "$OUT/ir-$1-$2.txt" "$FIO" --output="$OUT/ir-$1-$2.out" "$OUT/ir-$1.fio" >/dev/null 2>&1 || return 1
    awk -F, '/instructions/ { print $1; exit }' "$OUT/ir-$1-$2.txt"
  else
    valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind-$1-$2.out" \
      "$FIO" --output="$OUT/ir-$1-$2.out" "$OUT/ir-$1.fio" >/dev/null 2>"$OUT/callgrind-$1-$2.log" || return 1
    sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$OUT/callgrind-$1-$2.out"
  fi
  rm -rf "${T:?}"/*
}
if [ $perf_ok = 0 ] && ! command -v valgrind >/dev/null; then
  bench_record overhead "instructions per I/O" n/a "" "neither perf instructions nor valgrind available"
  exit 0
fi
tool=$([ $perf_ok = 1 ] && echo "perf stat" || echo "callgrind")
for e in psync etcdwal; do
  a=$(ir_total $e "$N1") && b=$(ir_total $e "$N2") && [ -n "$a" ] && [ -n "$b" ] || {
    bench_record overhead "$e instructions per I/O" ERR "" "$tool run failed (see $OUT)"; continue; }
  per=$(( (b - a) / (N2 - N1) ))
  eval "ir_$e=$per"
  bench_record overhead "$e instructions per I/O" "$per" "" "$tool, user space, ($b - $a) / ($N2 - $N1) I/Os"
done
if [ "$tool" = callgrind ] && [ -n "${ir_etcdwal:-}" ]; then
  # where the engine's instructions go, per I/O (self cost of each function, same difference method)
  bench_record overhead "etcdwal per-I/O instructions by function" "top 6" "" \
    "$($PY "$BENCH_DIR/summarize.py" cgdiff "$OUT/callgrind-etcdwal-$N1.out" "$OUT/callgrind-etcdwal-$N2.out" $((N2 - N1)))"
fi
if [ -n "${ir_psync:-}" ] && [ -n "${ir_etcdwal:-}" ]; then
  bench_record overhead "instructions per I/O etcdwal/psync" "$($PY -c "print('%.2f' % ($ir_etcdwal / $ir_psync))")" "" \
    "+$((ir_etcdwal - ir_psync)) user-space instructions per I/O"
fi
exit 0
