#!/bin/sh
# SPDX-License-Identifier: MIT
# it_faults_engine.sh — fio + libetcdwal.so under injected disk faults (tests/lib/faultshim.c, LD_PRELOAD, no
# root). For every fault: fio exits non-zero or the job reports the error; the engine's message names the
# call and the file; no hang (each run is bounded by a timeout); the private directory
# etcd-fio.<pid>.<job>.<n> is gone afterwards and nothing else is left. EOPNOTSUPP from fallocate must fall
# back to ftruncate, as etcd does, and the run must succeed.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$SHIM"
WORK=$(mktemp -d /var/tmp/it-faults-engine.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
cases=0
fail() {
  fail "$*"
  [ -f "$out" ] && sed 's/^/    | /' "$out" | grep -vE 'percentiles|\|  |th=\[' | head -n 12
}

WAL="--rw=write --bs=2300 --fdatasync=1 --size=3m --etcd_segment_bytes=1000000"
BACKEND="--rw=write --bs=4096 --fdatasync=4 --size=2m --etcd_mode=backend"

# run_fault NAME CALL MODE_ARGS "FAULT ENV…" — expects the run to fail with a message naming CALL.
run_fault() {
  name=$1 call=$2 args=$3 envs=$4
  cases=$((cases + 1))
  dir=$WORK/$name out=$WORK/$name.out log=$WORK/$name.log
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  env LD_PRELOAD="$SHIM${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_LOG="$log" FAULT_PATH_SUBSTR=etcd-fio. $envs \
    timeout -k 5 60 "$FIO" --name=job --ioengine=external:"$ENGINE" --directory="$dir" $args > "$out" 2>&1
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then fail "$name: fio hung (killed by the 60 s timeout)"; return; fi
  # (the WAL's Save may write with writev: the engine lends fio's buffer to it, engine/pagewriter.h)
  grep -qE " ${call}v? .*-> " "$log" 2>/dev/null || { fail "$name: the shim never injected the $call fault"; return; }
  if [ $rc -eq 0 ] && ! grep -qE 'err= *[1-9]' "$out"; then fail "$name: fio exited 0 and no job reported an error"; fi
  # The engine's own line must name the call and a file in its private directory.
  grep -E "etcdwal:.*$call.*etcd-fio\.[0-9]+\." "$out" >/dev/null ||
    fail "$name: no engine message naming '$call' and the file (etcd-fio.<pid>.…)"
  left=$(ls -A "$dir")
  [ -z "$left" ] || fail "$name: left behind in DIR: $left"
}

# WAL mode.
run_fault wal-fdatasync-eio   fdatasync "$WAL" "FAULT_CALL=fdatasync FAULT_ERRNO=EIO FAULT_SKIP=20"
run_fault wal-fdatasync-first fdatasync "$WAL" "FAULT_CALL=fdatasync FAULT_ERRNO=EIO"
run_fault wal-dirfsync-init   fsync     "$WAL" "FAULT_CALL=fsync FAULT_ERRNO=EIO"
run_fault wal-dirfsync-cut    fsync     "$WAL" "FAULT_CALL=fsync FAULT_ERRNO=EIO FAULT_SKIP=1"
run_fault wal-fallocate-first fallocate "$WAL" "FAULT_CALL=fallocate FAULT_ERRNO=ENOSPC"
run_fault wal-fallocate-spare fallocate "$WAL" "FAULT_CALL=fallocate FAULT_ERRNO=ENOSPC FAULT_SKIP=2"
run_fault wal-write-enospc    write     "$WAL" "FAULT_CALL=write FAULT_AFTER_BYTES=300000"
run_fault wal-rename-exdev    rename    "$WAL" "FAULT_CALL=rename FAULT_ERRNO=EXDEV"
run_fault wal-open-eacces     open      "$WAL" "FAULT_CALL=open FAULT_ERRNO=EACCES"
run_fault wal-open-erofs      open      "$WAL" "FAULT_CALL=open FAULT_ERRNO=EROFS"
run_fault wal-mkdir-erofs     mkdir     "$WAL" "FAULT_CALL=mkdir FAULT_ERRNO=EROFS"
run_fault wal-mkdir-eacces    mkdir     "$WAL" "FAULT_CALL=mkdir FAULT_ERRNO=EACCES"
# Backend (bbolt) mode.
run_fault be-fdatasync-eio    fdatasync "$BACKEND" "FAULT_CALL=fdatasync FAULT_ERRNO=EIO FAULT_SKIP=5"
run_fault be-pwrite-enospc    pwrite    "$BACKEND" "FAULT_CALL=pwrite FAULT_AFTER_BYTES=100000"
run_fault be-grow-ftruncate   ftruncate "$BACKEND" "FAULT_CALL=ftruncate FAULT_ERRNO=EIO"
run_fault be-grow-fsync       fsync     "$BACKEND" "FAULT_CALL=fsync FAULT_ERRNO=EIO"

# fallocate -> EOPNOTSUPP: falls back to ftruncate to the segment size (etcd's Preallocate), run succeeds.
cases=$((cases + 1))
name=wal-fallocate-eopnotsupp dir=$WORK/eop out=$WORK/eop.out log=$WORK/eop.log
mkdir -p "$dir"
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
  TRACE="strace -f -qq -e trace=ftruncate -o $WORK/eop.strace"
else
  TRACE=""; echo "SKIP: $name: strace unavailable or not permitted: the ftruncate fallbacks were not counted"
fi
# shellcheck disable=SC2086
env LD_PRELOAD="$SHIM${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_LOG="$log" FAULT_PATH_SUBSTR=etcd-fio. \
  FAULT_CALL=fallocate FAULT_ERRNO=EOPNOTSUPP \
  timeout -k 5 60 $TRACE "$FIO" --name=job --ioengine=external:"$ENGINE" --directory="$dir" $WAL > "$out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "$name: fio exited $rc (the fallback must make the run succeed)"
grep -q "err= 0" "$out" || fail "$name: the job reported an error"
n=$(grep -c ' fallocate .* -> EOPNOTSUPP' "$log" 2>/dev/null)
[ "${n:-0}" -ge 3 ] || fail "$name: expected EOPNOTSUPP on every preallocation (>= 3 of them), got ${n:-0}"
if [ -n "$TRACE" ]; then
  t=$(grep -c 'ftruncate([0-9]*, 1000000) *= 0' "$WORK/eop.strace")
  [ "$t" -ge "$n" ] || fail "$name: $n failed fallocates but only $t ftruncate(fd, 1000000) fallbacks"
fi
left=$(ls -A "$dir")
[ -z "$left" ] || fail "$name: left behind in DIR: $left"

finish it_faults_engine "engine faults: $cases cases passed (WAL: fdatasync, dir fsync, fallocate, write, rename, open, mkdir;" \
  "backend: fdatasync, pwrite, ftruncate, fsync; fallocate EOPNOTSUPP fallback)"
