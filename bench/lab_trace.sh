#!/bin/sh
# SPDX-License-Identifier: MIT
# lab_trace.sh — real etcd's backend commits beside the engine's, call by call, on one lab device point:
# etcd (pinned like lab.sh, with GODEBUG=gctrace=1 so its GC cycles are logged) under `etcdctl check perf
# --load=L`, traced with strace -f --seccomp-bpf -ttt -T -y -e pwrite64,fdatasync,fsync,ftruncate,mmap for
# SECONDS after 3 s of warm-up; then the profile through fio traced the same way. lab_trace.py prints pages
# and runs per commit, growth, each commit's span, disk time (the calls) and gap (etcd's own time between
# its calls), and the WAL syncs in flight when a backend sync is issued. strace slows every traced call by
# a few microseconds; --seccomp-bpf stops only on the traced calls.
# Usage: lab_trace.sh OUTDIR SPEC [LOAD] [SECONDS]   (BUILD as for lab.sh)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: lab_trace.sh OUTDIR SPEC [LOAD] [SECONDS]}; SPEC=${2:?device model}
LOAD=${3:-s}; SECS=${4:-20}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
LABFS=${LABFS:-$BUILD/bench/labfs}
CPU_E=${LAB_CPU_ETCD:-0}; CPU_L=${LAB_CPU_LOAD:-1}
command -v strace >/dev/null || { echo "lab_trace: strace not installed" >&2; exit 2; }
. "$BENCH_DIR/lab_lib.sh"
TR="strace -f --seccomp-bpf -ttt -T -y -s 0 -e trace=pwrite64,write,fdatasync,fsync,ftruncate,fallocate,mmap"

mount_lab "$SPEC" "$OUT/labfs.stats" "$OUT/labfs.trace" || exit 2
echo "$SPEC" > "$OUT/model"
echo "loadavg $(cat /proc/loadavg)" > "$OUT/loadavg"
ETCD_WRAP="env GODEBUG=gctrace=1 $NICE taskset -c $CPU_E"
if etcd_start "$MNT/etcd-data" "$OUT/etcd.log"; then
  $NICE taskset -c "$CPU_L" timeout -s INT $((SECS + 4)) etcdctl --endpoints="$ETCD_EP" check perf --load="$LOAD" \
    > "$OUT/checkperf.out" 2>&1 &
  cp=$!
  sleep 3
  bench_scrape "$ETCD_EP/metrics" "$OUT/metrics.before"
  timeout -s INT "$SECS" $NICE $TR -o "$OUT/etcd.strace" -p "$ETCD_PID" 2>/dev/null
  bench_scrape "$ETCD_EP/metrics" "$OUT/metrics.after"
  wait $cp
  etcd_stop
fi
rm -rf "$MNT/etcd-data"
mkdir -p "$MNT/engine"
"$ETCD_FIO" job --load "$LOAD" --dir "$MNT/engine" --runtime "$SECS" --engine "$ENGINE_SO" > "$OUT/engine.fio.orig"
engine_file "$OUT"
$NICE taskset -c "$CPU_E" $TR -o "$OUT/ours.strace" "$FIO" --output=/dev/null "$OUT/engine.fio" > /dev/null 2>&1
rm -rf "$MNT/engine"
umount_lab
for m in etcd_disk_backend_commit_duration_seconds etcd_debugging_disk_backend_commit_write_duration_seconds \
         etcd_debugging_disk_backend_commit_spill_duration_seconds etcd_disk_wal_fsync_duration_seconds; do
  echo "etcd $m p50 $($BUCKETS prom "$OUT/metrics.before" "$OUT/metrics.after" $m --q 0.5) p99 $($BUCKETS prom "$OUT/metrics.before" "$OUT/metrics.after" $m --count)"
done > "$OUT/metrics.txt"
echo "ours commit p50 $($BUCKETS engine "$OUT/backend.stats.json" --key commit --q 0.5) p99 $($BUCKETS engine "$OUT/backend.stats.json" --key commit --count)" >> "$OUT/metrics.txt"
# GC cycles etcd logged while traced: count and the wall-clock pauses (gctrace "A+B+C ms clock")
grep -c '^gc ' "$OUT/etcd.log" > "$OUT/gc.txt" 2>/dev/null
cat "$OUT/metrics.txt" "$OUT/gc.txt"
$PY "$BENCH_DIR/lab_trace.py" "etcd=$OUT/etcd.strace" "ours=$OUT/ours.strace" | tee "$OUT/trace.md"
gzip -f "$OUT"/*.strace
