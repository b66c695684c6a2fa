#!/bin/sh
# SPDX-License-Identifier: MIT
# flush_floor.sh — how fast can an fdatasync that reaches a block device be on this machine? The
# classic fio job (rw=write, ioengine=sync, fdatasync=1, bs=2300) on the fastest stacks we can build here,
# beside the stacks whose syncs reach no disk at all (tmpfs, ioengine=null). libfioreport's physical floor
# (FIOR_FLOOR_DEFAULT_NS, man/libfioreport.3) must lie well below the first group and above the second.
# Prints one line per stack: min, p1, p50 of the sync latency (ns, from fio's json+), and the load average.
# Needs root for the loop devices (else those lines say "skipped"). Nothing is asserted.
#   usage: sh bench/flush_floor.sh [SIZE]     (SIZE per run, default 16m)
set -u
FIO=${FIO:-fio}
SIZE=${1:-16m}
WORK=$(mktemp -d /tmp/flush-floor.XXXXXX)
SHM=$(mktemp -d /dev/shm/flush-floor.XXXXXX)
LOOPS=""
MNTS=""
cleanup() {
  for m in $MNTS; do umount "$m" 2>/dev/null; done
  for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
  rm -rf "$WORK" "$SHM"
}
trap cleanup EXIT INT TERM

stats() { # JSON file -> "min p1 p50"
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["jobs"][0]["sync"]["lat_ns"]
p=d.get("percentile",{})
print(d["min"], p.get("1.000000","?"), p.get("50.000000","?"), d.get("N","?"))' "$1"
}

run() { # NAME DIR [EXTRA FIO ARGS]
  name=$1; dir=$2; shift 2
  if ! "$FIO" --name=floor --directory="$dir" --rw=write --ioengine=sync --fdatasync=1 --bs=2300 \
       --size="$SIZE" --output-format=json "$@" > "$WORK/$name.json" 2> "$WORK/$name.err"; then
    printf '%-34s fio failed: %s\n' "$name" "$(tail -n1 "$WORK/$name.err")"
    return
  fi
  set -- $(stats "$WORK/$name.json")
  printf '%-34s min %8s  p1 %8s  p50 %8s ns  (%s syncs)\n' "$name" "$1" "$2" "$3" "$4"
  rm -f "$dir"/floor.*
}

loop_dev() { # NAME BACKING-DIR : a loop device (LOOP) over a file in BACKING-DIR; 1 when there is none
  if [ "$(id -u)" != 0 ]; then printf '%-34s skipped: needs root\n' "$1"; return 1; fi
  img="$2/$1.img"
  truncate -s 256M "$img" || return 1
  LOOP=$(losetup -f --show "$img" 2>/dev/null) || { printf '%-34s skipped: no loop device\n' "$1"; return 1; }
  LOOPS="$LOOPS $LOOP"
}

loop_ext4() { # NAME BACKING-DIR [MKFS OPTIONS]: ext4 on a loop device whose file lies in BACKING-DIR
  name=$1; back=$2; shift 2
  loop_dev "$name" "$back" || return
  mnt="$WORK/$name.mnt"
  mkfs.ext4 -q -F "$@" "$LOOP" >/dev/null 2>&1 || { printf '%-34s skipped: mkfs\n' "$name"; return; }
  mkdir -p "$mnt" && mount "$LOOP" "$mnt" || { printf '%-34s skipped: mount\n' "$name"; return; }
  MNTS="$MNTS $mnt"
  run "$name" "$mnt"
}

loop_raw() { # NAME BACKING-DIR: the block device itself (fio's filename=), buffered writes + fdatasync
  loop_dev "$1" "$2" || return
  run "$1" "$WORK" --filename="$LOOP"
}

echo "fio $("$FIO" --version), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "-- syncs that reach a block device"
run ext4-on-vm-disk "$WORK"
loop_ext4 ext4-on-loop-on-tmpfs "$SHM"
loop_ext4 ext4-nojournal-on-loop-on-tmpfs "$SHM" -O ^has_journal
loop_raw raw-loop-on-tmpfs "$SHM"
loop_ext4 ext4-on-loop-on-ext4 "$WORK"
echo "-- syncs that reach no device"
run tmpfs "$SHM"
run null-engine "$WORK" --ioengine=null
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
