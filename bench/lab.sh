#!/bin/sh
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
#      table between the lab markers of FILE.
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
# etcd's WAL p99 spans ~2-40 ms and its backend p99 ~5-100 ms on this machine.
POINTS=${LAB_POINTS:-"d0.5=median=0.5ms,sigma=0.5,per_mib=2ms,seed=1 d2=median=2ms,sigma=0.5,per_mib=2ms,seed=2 d4=median=4ms,sigma=0.5,per_mib=2ms,seed=3 d8=median=8ms,sigma=0.5,per_mib=2ms,seed=4 stall=median=1ms,sigma=0.5,per_mib=2ms,stall_every=5s,stall=40ms,seed=5"}

for t in etcd etcdctl taskset "$FIO" fusermount3; do
  command -v "$t" >/dev/null || { echo "lab: $t not installed (sh mk/deps.sh bench)" >&2; exit 2; }
done
[ -x "$LABFS" ] || { echo "lab: $LABFS not built (make $LABFS, or make lab)" >&2; exit 2; }
[ -x "$ETCD_FIO" ] && [ -f "$ENGINE_SO" ] || { echo "lab: $ETCD_FIO / $ENGINE_SO not built (make)" >&2; exit 2; }
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null
[ -c /dev/fuse ] || { echo "lab: no /dev/fuse: FUSE cannot run here" >&2; exit 2; }
SHM=/dev/shm; [ -d "$SHM" ] && [ -w "$SHM" ] || SHM=${TMPDIR:-/tmp}

MNT=""; BACK=""; FS_PID=""; ETCD_PID=""
umount_lab() {
  etcd_stop
  if [ -n "$MNT" ]; then
    fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
  fi
  [ -n "$FS_PID" ] && wait "$FS_PID" 2>/dev/null
  [ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null
  [ -n "$BACK" ] && rm -rf "$BACK"
  MNT=""; BACK=""; FS_PID=""
}
trap umount_lab EXIT
trap 'exit 130' INT TERM

mount_lab() { # SPEC STATSFILE TRACEFILE
  BACK=$(mktemp -d "$SHM/etcd-fio-lab.back.XXXXXX") && MNT=$(mktemp -d "${TMPDIR:-/tmp}/etcd-fio-lab.mnt.XXXXXX") || return 1
  opts="passthrough=$BACK,model=$(echo "$1" | tr , :),stats=$2"
  [ -n "$3" ] && opts="$opts,trace=$3"
  taskset -c "$CPU_L" "$LABFS" "$MNT" -f -o "$opts" > "$2.log" 2>&1 &
  FS_PID=$!
  w=0
  while ! mountpoint -q "$MNT"; do
    kill -0 "$FS_PID" 2>/dev/null && [ $w -lt 50 ] || { bench_log "labfs did not mount; see $2.log"; return 1; }
    sleep 0.1; w=$((w + 1))
  done
}

loadavg() { cut -d' ' -f1 /proc/loadavg; }

part_etcd() { # DIR LOAD OUT
  mkdir -p "$3"; : > "$3/result.env"
  echo "loadavg=$(loadavg)" >> "$3/result.env"
  ETCD_WRAP="taskset -c $CPU_E"
  if etcd_start "$1/etcd-data" "$3/etcd.log"; then
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.before"
    taskset -c "$CPU_L" timeout -s INT "$SECS" etcdctl --endpoints="$ETCD_EP" check perf --load="$2" > "$3/checkperf.out" 2>&1
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.after"
    etcd_stop
    for m in wal:etcd_disk_wal_fsync_duration_seconds be:etcd_disk_backend_commit_duration_seconds; do
      set -- "$1" "$2" "$3" $($BUCKETS prom "$3/metrics.before" "$3/metrics.after" "${m#*:}" --count)
      echo "${m%%:*}_p99=${4:-nan}" >> "$3/result.env"; echo "${m%%:*}_n=${5:-0}" >> "$3/result.env"
    done
  fi
  rm -rf "$1/etcd-data"
}

part_ours() { # DIR LOAD OUT
  mkdir -p "$3" "$1/engine"; : > "$3/result.env"
  echo "loadavg=$(loadavg)" >> "$3/result.env"
  "$ETCD_FIO" job --load "$2" --dir "$1/engine" --runtime "$SECS" --engine "$ENGINE_SO" > "$3/engine.fio.orig" || return
  sed -e "s|^etcd_mode=wal\$|&\\
etcd_stats_file=$3/wal.stats.json|" -e "s|^etcd_mode=backend\$|&\\
etcd_stats_file=$3/backend.stats.json|" "$3/engine.fio.orig" > "$3/engine.fio"
  rm -f "$3/wal.stats.json" "$3/backend.stats.json"
  if taskset -c "$CPU_E" "$FIO" --output-format=json+ --output="$3/engine.json" "$3/engine.fio" > "$3/fio.log" 2>&1; then
    set -- "$1" "$2" "$3" $($BUCKETS engine "$3/wal.stats.json" --key fdatasync --count)
    echo "wal_p99=${4:-nan}" >> "$3/result.env"; echo "wal_n=${5:-0}" >> "$3/result.env"
    set -- "$1" "$2" "$3" $($BUCKETS engine "$3/backend.stats.json" --key commit --count)
    echo "be_p99=${4:-nan}" >> "$3/result.env"; echo "be_n=${5:-0}" >> "$3/result.env"
  else
    bench_log "fio on the profile failed; see $3/fio.log"
  fi
  rm -rf "$1/engine"
}

part_classic() { # DIR OUT
  mkdir -p "$2" "$1/classic"; : > "$2/result.env"
  echo "loadavg=$(loadavg)" >> "$2/result.env"
  if taskset -c "$CPU_E" "$FIO" --name=classic --directory="$1/classic" --ioengine=sync --rw=write --fdatasync=1 \
       --bs=2300 --size=22m --runtime="$SECS" --output-format=json+ --output="$2/classic.json" > "$2/fio.log" 2>&1; then
    set -- "$1" "$2" $($BUCKETS fio "$2/classic.json" --job classic --count)
    echo "wal_p99=${3:-nan}" >> "$2/result.env"; echo "wal_n=${4:-0}" >> "$2/result.env"
  fi
  rm -rf "$1/classic"
}

has() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

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
$PY "$BENCH_DIR/lab_table.py" "$OUT" ${LAB_README:+--readme "$LAB_README"}
