# SPDX-License-Identifier: MIT
# lab_lib.sh — the slow-disk lab's shared parts (sourced by lab.sh and lab_trace.sh after lib.sh): mounting
# labfs on a private tmpfs backing dir, and one part each for real etcd, the profile and the classic job.
# Callers set SECS, CPU_E, CPU_L, LABFS. The machine is shared and the lab is to measure the simulated disk,
# not the queue for a CPU. With chrt (root): etcd, etcdctl and fio run at SCHED_RR 1 and labfs, which only
# wakes to pass a request on or to end a sync at its finish time, at SCHED_FIFO 2, so that the other
# users of the machine wait for them rather than the other way round (the kernel still keeps 5 % of each
# CPU for normal tasks). Without chrt: nice -20 (then a busy machine adds milliseconds to every sync:
# at a load average of 10, a 0.5 ms device showed a WAL p99 of 5-15 ms). LAB_RT=0 forces nice.
NICE="nice -n -20"; RT="nice -n -20"
if [ "${LAB_RT:-1}" = 1 ] && chrt -r 1 true 2>/dev/null; then NICE="chrt -r 1"; RT="chrt -f 2"; fi
SHM=/dev/shm; [ -d "$SHM" ] && [ -w "$SHM" ] || SHM=${TMPDIR:-/tmp}

MNT=""; BACK=""; FS_PID=""; ETCD_PID=""
umount_lab() {
  etcd_stop
  if [ -n "$MNT" ]; then
    fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
  fi
  if [ -n "$FS_PID" ]; then
    # A mount namespace cloned while the lab was mounted (a container build, unshare) keeps a copy of the
    # mount, and labfs would serve it until that namespace ends: after 5 s it is told to stop (SIGTERM).
    w=0
    while kill -0 "$FS_PID" 2>/dev/null && [ $w -lt 50 ]; do sleep 0.1; w=$((w + 1)); done
    kill -0 "$FS_PID" 2>/dev/null && kill -TERM "$FS_PID" 2>/dev/null
    wait "$FS_PID" 2>/dev/null
  fi
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
  $RT taskset -c "$CPU_L" "$LABFS" "$MNT" -f -o "$opts" > "$2.log" 2>&1 &
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
  ETCD_WRAP="$NICE taskset -c $CPU_E"
  if etcd_start "$1/etcd-data" "$3/etcd.log"; then
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.before"
    # The "after" scrape is taken while the load still runs (SECS < check perf's 60 s): etcdctl 3.5
    # answers the interrupt by deleting every key it wrote (check.go attemptCleanup), one commit of
    # ~1 MB at load s that is no part of the load (etcdctl 3.4 exits without it).
    $NICE taskset -c "$CPU_L" etcdctl --endpoints="$ETCD_EP" check perf --load="$2" > "$3/checkperf.out" 2>&1 &
    cp=$!
    sleep "$SECS"
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.after"
    kill -INT "$cp" 2>/dev/null
    wait "$cp"
    etcd_stop
    for m in wal:etcd_disk_wal_fsync_duration_seconds be:etcd_disk_backend_commit_duration_seconds; do
      set -- "$1" "$2" "$3" $($BUCKETS prom "$3/metrics.before" "$3/metrics.after" "${m#*:}" --count)
      echo "${m%%:*}_p99=${4:-nan}" >> "$3/result.env"; echo "${m%%:*}_n=${5:-0}" >> "$3/result.env"
    done
  fi
  rm -rf "$1/etcd-data"
}

# engine_file DIR: DIR/engine.fio.orig (etcd-fio job's) as DIR/engine.fio, each job writing its stats to
# DIR/{wal,backend}.stats.json; the engine follows etcd 3.5 unless told the release is 3.4 (its bbolt never
# grows in a commit)
engine_file() {
  v=""; case "${ETCD_VERSION:-}" in 3.4.*) v="\\
etcd_version=3.4" ;; esac
  sed -e "s|^etcd_mode=wal\$|&\\
etcd_stats_file=$1/wal.stats.json|" -e "s|^etcd_mode=backend\$|&\\
etcd_stats_file=$1/backend.stats.json$v|" "$1/engine.fio.orig" > "$1/engine.fio"
  rm -f "$1/wal.stats.json" "$1/backend.stats.json"
}

part_ours() { # DIR LOAD OUT
  mkdir -p "$3" "$1/engine"; : > "$3/result.env"
  echo "loadavg=$(loadavg)" >> "$3/result.env"
  "$ETCD_FIO" job --load "$2" --dir "$1/engine" --runtime "$SECS" --engine "$ENGINE_SO" > "$3/engine.fio.orig" || return
  engine_file "$3"
  if $NICE taskset -c "$CPU_E" "$FIO" --output-format=json+ --output="$3/engine.json" "$3/engine.fio" > "$3/fio.log" 2>&1; then
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
  if $NICE taskset -c "$CPU_E" "$FIO" --name=classic --directory="$1/classic" --ioengine=sync --rw=write --fdatasync=1 \
       --bs=2300 --size=22m --runtime="$SECS" --output-format=json+ --output="$2/classic.json" > "$2/fio.log" 2>&1; then
    set -- "$1" "$2" $($BUCKETS fio "$2/classic.json" --job classic --count)
    echo "wal_p99=${3:-nan}" >> "$2/result.env"; echo "wal_n=${4:-0}" >> "$2/result.env"
  fi
  rm -rf "$1/classic"
}

