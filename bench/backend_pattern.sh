#!/bin/sh
# SPDX-License-Identifier: MIT
# backend_pattern.sh — how real etcd's bbolt commits write, beside the engine's backend mode: pages per
# commit, contiguous runs of pages per commit (what an IOPS-limited disk pays for) and the share of pages
# appended at the high-water mark. Both are traced with `strace -f -e pwrite64,fdatasync` on this tree's
# disk, etcd under `etcdctl check perf --load=L`. strace slows etcd, so its commits grow with the load: the
# commit rate is recorded beside the numbers (etcd aims at 10 commits/s); load s is barely affected.
# Usage: backend_pattern.sh OUTDIR   (env: BUILD, RESULTS, PATTERN_LOADS="s m", PATTERN_SECONDS=10)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: backend_pattern.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RESULTS=${RESULTS:-$OUT/results.tsv}
LOADS=${PATTERN_LOADS:-s m}; SECS=${PATTERN_SECONDS:-10}
WORK=${BENCH_WORK:-$BUILD/bench-work}
command -v strace >/dev/null && command -v etcd >/dev/null || {
  bench_record pattern "backend write pattern" n/a "" "needs strace and etcd"; exit 0; }
mkdir -p "$WORK" && work=$(mktemp -d "$(cd "$WORK" && pwd)/pattern.XXXXXX") || exit 2
ETCD_PID=""
cleanup() { etcd_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

row() { # WHO LOAD STRACEFILE SECONDS
  set -- "$1" "$2" "$($PY "$BENCH_DIR/summarize.py" pattern "$3")" "$4"
  if [ "$3" = n/a ]; then bench_record pattern "$1 load $2" n/a "" "no commits traced"; return; fi
  # shellcheck disable=SC2086
  set -- "$1" "$2" $3 "$4"
  bench_record pattern "$1 load $2: pages / runs per commit" "$4 / $5" "" \
    "appends $6%; $3 commits in ${7}s ($(( $3 / $7 ))/s)"
}
for l in $LOADS; do
  if etcd_start "$work/etcd-data" "$OUT/etcd-$l.log"; then
    timeout -s INT $((SECS + 4)) etcdctl --endpoints="$ETCD_EP" check perf --load="$l" >/dev/null 2>&1 &
    cp=$!
    sleep 2
    timeout -s INT "$SECS" strace -f -e trace=pwrite64,fdatasync -o "$OUT/etcd-$l.strace" -p "$ETCD_PID" 2>/dev/null
    wait $cp
    etcd_stop
    rm -rf "$work/etcd-data"
    row etcd "$l" "$OUT/etcd-$l.strace" "$SECS"
  fi
  if [ -x "$ETCD_FIO" ] && [ -f "$ENGINE_SO" ] && mkdir -p "$work/engine" &&
     "$ETCD_FIO" job --load "$l" --dir "$work/engine" --runtime "$SECS" --engine "$ENGINE_SO" > "$OUT/engine-$l.fio"; then
    strace -f -e trace=pwrite64,fdatasync -o "$OUT/engine-$l.strace" "$FIO" --output=/dev/null "$OUT/engine-$l.fio" >/dev/null 2>&1
    row "etcd-fio" "$l" "$OUT/engine-$l.strace" "$SECS"
  fi
  rm -rf "$work/engine"
  gzip -f "$OUT"/*.strace 2>/dev/null
done
exit 0
