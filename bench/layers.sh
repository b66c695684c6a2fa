#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/layers.sh — issue 27's numbers (bench/README.md "Layers that lie"):
#  1. on a disk throttled to 40 write IOPS (a cgroup v1 blkio / v2 io.max limit on this disk, where one can be
#     made; else the plain disk): the fdatasync p50/p99 of fio's own sync engine (libc's fdatasync) and of
#     the etcdwal engine (raw system calls), each without and under Debian's eatmydata;
#  2. `etcd-fio check` there: plain, under eatmydata (refused), under eatmydata with --force;
#  3. the time from a SIGKILL of check's whole process group to no writer and nothing of ours in DIR (5x).
# Usage: sh bench/layers.sh [DIR] (root for the throttle). Prints a table; asserts nothing.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
CLI=$B/etcd-fio ENGINE=$B/libetcdwal.so FIO=${FIO:-fio}
[ -x "$CLI" ] && [ -f "$ENGINE" ] || { echo "layers: build first (make)"; exit 2; }
command -v eatmydata >/dev/null && command -v jq >/dev/null || { echo "layers: needs eatmydata and jq"; exit 2; }
W=$(mktemp -d "${1:-/var/tmp}/bench-layers.XXXXXX") || exit 2
cg=""
trap '[ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM HUP
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# the throttle: a child of our own blkio (v1) or io (v2) cgroup
dev=$(findmnt -no MAJ:MIN -T "$W" 2>/dev/null | head -n 1)
src=$(findmnt -no SOURCE -T "$W" 2>/dev/null | head -n 1)
[ -b "$src" ] && dev=$(printf '%d:%d' "0x$(stat -c %t "$src")" "0x$(stat -c %T "$src")")
rel=$(awk -F: '$2 ~ /(^|,)blkio(,|$)/ {print $3}' /proc/self/cgroup)
if [ -n "$rel" ] && [ -d "/sys/fs/cgroup/blkio$rel" ] && mkdir "/sys/fs/cgroup/blkio$rel/bench-layers.$$" 2>/dev/null; then
  cg="/sys/fs/cgroup/blkio$rel/bench-layers.$$"
  echo "$dev 40" > "$cg/blkio.throttle.write_iops_device" || { rmdir "$cg"; cg=""; }
fi
disk="plain disk ($src)"
[ -n "$cg" ] && disk="$src throttled to 40 write IOPS (cgroup blkio)"
in_cg() { if [ -n "$cg" ]; then sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"; else "$@"; fi; }

echo "disk: $disk"
echo
echo "| job | eatmydata | fdatasyncs | p50 | p99 |"
echo "|---|---|---|---|---|"
for eng in sync etcdwal; do
  for emd in no yes; do
    d=$W/$eng-$emd; mkdir -p "$d"
    e="--ioengine=sync"; [ $eng = etcdwal ] && e="--ioengine=external:$ENGINE"
    pre=""; [ $emd = yes ] && pre=eatmydata
    # shellcheck disable=SC2086
    in_cg $pre "$FIO" --name=j --directory="$d" $e --rw=write --bs=2300 --size=460k --fdatasync=1 \
      --output-format=json > "$d.json" 2> /dev/null
    label="fio sync engine (libc fdatasync)"; [ $eng = etcdwal ] && label="etcdwal engine"
    jq -r --arg j "$label" --arg e "$emd" '.jobs[0].sync.lat_ns |
      "| \($j) | \($e) | \(.N) | \(.percentile["50.000000"] / 1000 | floor) us | \(.percentile["99.000000"] / 1000 | floor) us |"' "$d.json"
  done
done
echo
echo "| etcd-fio check | exit | result |"
echo "|---|---|---|"
for how in plain eatmydata eatmydata-force; do
  d=$W/check-$how; mkdir -p "$d"
  case $how in
    plain) in_cg "$CLI" check --json "$d" > "$d.json" 2> "$d.err" ;;
    eatmydata) in_cg eatmydata "$CLI" check --json "$d" > "$d.json" 2> "$d.err" ;;
    eatmydata-force) in_cg eatmydata "$CLI" check --force --json "$d" > "$d.json" 2> "$d.err" ;;
  esac
  rc=$?
  if [ -s "$d.json" ]; then
    r=$(jq -r '"\(.verdict): \(.reason)" | .[0:230]' "$d.json")
  else
    r=$(head -c 230 "$d.err")
  fi
  echo "| $how | $rc | $r |"
done
echo
# 3. SIGKILL of the group once the jobs run; then poll (10 ms) for no writer and a clean DIR
writers() { for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -q -- "-> $1/" && echo x; done; }
printf "group SIGKILL -> no writer, DIR clean (ms):"
for k in 1 2 3 4 5; do
  d=$W/kill$k; mkdir -p "$d"
  setsid "$CLI" check --faithful "$d" > /dev/null 2>&1 & g=$!
  i=0; while [ $i -lt 3000 ] && ! ls "$d" | grep -q '^etcd-fio\..*\.etcd-wal\.'; do sleep 0.01; i=$((i + 1)); done
  sleep 1  # the jobs are writing
  t0=$(date +%s%N)
  env kill -s KILL -- "-$g"; wait $g 2>/dev/null
  # at most 30 s (a job that outlives fio writes on until its runtime: then ">30000" and it is ended)
  while [ $(( $(date +%s%N) - t0 )) -lt 30000000000 ] && { [ -n "$(writers "$d")" ] || [ -n "$(ls -A "$d")" ]; }; do
    sleep 0.01
  done
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ $ms -ge 30000 ]; then
    printf " >30000"
    for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -q -- "-> $d/" && kill -TERM "${p#/proc/}"; done
  else
    printf " %d" $ms
  fi
done
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
