#!/bin/sh
# SPDX-License-Identifier: MIT
# lab.sh — the slow-disk lab: real etcd, etcd-fio's profile and the classic fio job on one controlled slow
# disk. For each point (a device model of labdev.h), it mounts labfs (FUSE passthrough of a private tmpfs
# directory, so the simulated device is the only disk latency) under a mktemp dir, and on that mount, RUNS
# times: real etcd under `etcdctl check perf --load=L` for each load (its /metrics histograms scraped before
# and after and differenced), the profile of `etcd-fio job --load L` through fio (the engine's stats files),
# and the classic job (sync, fdatasync=1, bs=2300, size=22m, capped at SECONDS). Then lab_table.py prints
# one table per point (bench/README.md "Slow-disk lab"). etcd runs on CPU LAB_CPU_ETCD, etcdctl and labfs
# on LAB_CPU_LOAD (taskset), fio on LAB_CPU_ETCD (it plays etcd's part); the 1-min load average is recorded
# at every step. Nothing here is a test; no timing is asserted.
#
# Usage: lab.sh OUTDIR    (make lab = lab.sh $(BUILD)/bench/lab)
# env: BUILD; LAB_POINTS="name=SPEC ..." (labdev.h syntax); LAB_RUNS=3; LAB_SECONDS=30; LAB_LOADS="s m";
#      LAB_ONLY="etcd ours classic" (rerun some parts only: the others' results in OUTDIR are kept);
#      LAB_CPU_ETCD=0 LAB_CPU_LOAD=1; LAB_TRACE=1 keeps labfs's per-sync trace; LAB_README=FILE puts the
#      table between the lab markers of FILE (LAB_MARKER=NAME: the NAME markers); ETCD=/path/to/etcd runs
#      that etcd release (lib.sh; e.g. from etcd_fetch.sh), named in each table's heading.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: lab.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
LABFS=${LABFS:-$BUILD/bench/labfs}
RUNS=${LAB_RUNS:-3}; SECS=${LAB_SECONDS:-30}; LOADS=${LAB_LOADS:-s m}
ONLY=${LAB_ONLY:-etcd ours classic}
CPU_E=${LAB_CPU_ETCD:-0}; CPU_L=${LAB_CPU_LOAD:-1}
# Device models swept (median and shape of the per-sync service time, MiB cost, stalls): chosen so that
# etcd's WAL p99 spans ~2-40 ms and its backend p99 ~5-100 ms on this machine. The stalls fall at a random
# point of their period (stall_jitter=1): a writer whose own period nearly divides a metronome's meets its
# stalls at one phase, every time or never, so periodic stalls compare two periods, not two disk patterns
# (bench/README.md, "Long runs of the points that missed").
POINTS=${LAB_POINTS:-"d0.5=median=0.5ms,sigma=0.5,per_mib=2ms,seed=1 d2=median=2ms,sigma=0.5,per_mib=2ms,seed=2 d4=median=4ms,sigma=0.5,per_mib=2ms,seed=3 d8=median=8ms,sigma=0.5,per_mib=2ms,seed=4 stallj=median=1ms,sigma=0.5,per_mib=2ms,stall_every=5s,stall=40ms,stall_jitter=1,seed=5 stall2j=median=1ms,sigma=0.5,per_mib=2ms,stall_every=2s,stall=40ms,stall_jitter=1,seed=6"}

for t in etcd etcdctl taskset "$FIO" fusermount3; do
  command -v "$t" >/dev/null || { echo "lab: $t not installed (sh mk/deps.sh bench)" >&2; exit 2; }
done
[ -x "$LABFS" ] || { echo "lab: $LABFS not built (make $LABFS, or make lab)" >&2; exit 2; }
[ -x "$ETCD_FIO" ] && [ -f "$ENGINE_SO" ] || { echo "lab: $ETCD_FIO / $ENGINE_SO not built (make)" >&2; exit 2; }
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null
[ -c /dev/fuse ] || { echo "lab: no /dev/fuse: FUSE cannot run here" >&2; exit 2; }
. "$BENCH_DIR/lab_lib.sh"

has() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

has etcd && echo "${ETCD_VERSION:-unknown}" > "$OUT/etcd_version"
for pt in $POINTS; do
  name=${pt%%=*}; spec=${pt#*=}
  P="$OUT/$name"; mkdir -p "$P"
  echo "$spec" > "$P/model"
  tr=""; [ "${LAB_TRACE:-0}" = 1 ] && tr="$P/labfs.trace.$(date +%s)"
  mount_lab "$spec" "$P/labfs.stats.$(date +%s)" "$tr" || { umount_lab; continue; }
  bench_log "lab: point $name ($spec) on $MNT"
  run=1   # not i: lib.sh's etcd_start counts with i
  while [ $run -le "$RUNS" ]; do
    R="$P/run$run"
    for l in $LOADS; do
      has etcd && { bench_log "lab: $name run $run: etcd load $l"; part_etcd "$MNT" "$l" "$R/etcd-$l"; }
      has ours && { bench_log "lab: $name run $run: ours load $l"; part_ours "$MNT" "$l" "$R/ours-$l"; }
    done
    has classic && { bench_log "lab: $name run $run: classic"; part_classic "$MNT" "$R/classic"; }
    run=$((run + 1))
  done
  umount_lab
done
$PY "$BENCH_DIR/lab_table.py" "$OUT" ${LAB_README:+--readme "$LAB_README"} ${LAB_MARKER:+--marker "$LAB_MARKER"}
