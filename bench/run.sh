#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh — `make bench`: every measurement of bench/ in one run, then one table (also saved as
# OUTDIR/table.txt). Sections: engine overhead on tmpfs, parser speed, fidelity against real etcd, the
# backend write pattern of etcd vs the engine, and time to verdict (bench/time_to_verdict.sh, when present). Nothing here passes or fails on a timing:
# targets are printed beside the numbers. Exit status is non-zero only when the bench itself breaks.
# Usage: run.sh OUTDIR   (env: BUILD, BENCH_QUICK=1 for a shorter pass, BENCH_ONLY="overhead parser ...")
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:-$BUILD/bench}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RESULTS="$OUT/results.tsv"
export RESULTS BUILD FIO
: > "$RESULTS"
rm -f "$OUT/fidelity.md" "$OUT/time_to_verdict.txt"
ONLY=${BENCH_ONLY:-overhead parser fidelity pattern time_to_verdict fast}
t0=$(date +%s)

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
disk=$(findmnt -no SOURCE,FSTYPE -T "$TOP" | tr -s ' ')
dev=$(lsblk -dno NAME,SIZE,ROTA,MODEL "$(findmnt -no SOURCE -T "$TOP")" 2>/dev/null | tr -s ' ')
bench_record machine "cpus / memory" "$(nproc)" "" "$cpu; $mem; kernel $(uname -r)"
bench_record machine "disk of the tree" "$disk" "" "lsblk NAME SIZE ROTA MODEL: ${dev:-?} (virtio disks say ROTA 1)"
bench_record machine "load average at start" "$(cut -d' ' -f1-3 /proc/loadavg)" "" \
  "other work on this machine makes the numbers noisy; see bench/README.md"
bench_record machine "versions" "$($FIO --version)" "" "$(etcd --version 2>/dev/null | head -n1); quick=${BENCH_QUICK:-0}"

section() { # NAME SCRIPT...
  name=$1; shift
  case " $ONLY " in *" $name "*) ;; *) return 0 ;; esac
  s=$(date +%s)
  bench_log "=== $name"
  "$@" || bench_log "$name: exited $?"
  bench_record time "$name" "$(( $(date +%s) - s )) s" "" ""
}
section overhead sh "$BENCH_DIR/overhead.sh" "$OUT/overhead"
section parser sh "$BENCH_DIR/parser.sh" "$OUT/parser"
section fidelity sh "$BENCH_DIR/fidelity.sh" "$OUT"
if [ "${BENCH_QUICK:-0}" = 1 ]; then export PATTERN_LOADS=${PATTERN_LOADS:-s} PATTERN_SECONDS=${PATTERN_SECONDS:-6}; fi
section pattern sh "$BENCH_DIR/backend_pattern.sh" "$OUT/pattern"
if [ -f "$BENCH_DIR/time_to_verdict.sh" ]; then
  section time_to_verdict sh -c 'sh "$1/time_to_verdict.sh" > "$2/time_to_verdict.txt" 2> "$2/time_to_verdict.err"' \
    sh "$BENCH_DIR" "$OUT"
else
  bench_record time_to_verdict "early-stop numbers" n/a "" "bench/time_to_verdict.sh not present yet"
fi
# check's two phases against the classic job, alternating pairs on this disk (bench/fast_check.sh)
section fast sh -c 'FAST_RUNS=${FAST_RUNS:-3} sh "$1/fast_check.sh" "$2/fast" > "$2/fast_check.txt" 2> "$2/fast_check.err"' \
  sh "$BENCH_DIR" "$OUT"
bench_record time "whole bench" "$(( $(date +%s) - t0 )) s" "< 20 min" \
  "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"

{
  echo "etcd-fio bench, $(date -u '+%Y-%m-%d %H:%M UTC'), BUILD=$BUILD"
  $PY "$BENCH_DIR/summarize.py" report "$RESULTS" "$OUT/fidelity.md"
} > "$OUT/table.txt"
cat "$OUT/table.txt"
