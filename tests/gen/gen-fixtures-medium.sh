#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures-medium.sh — real fio outputs of syncs whose medium is RAM or nothing (tmpfs, a symlink to
# tmpfs, a zram device, a loop device whose file is on tmpfs, /dev/null with async engines) and their twins on
# the disk, into tests/fixtures/medium/. The tests read the committed files and never run this script. Needs
# root (mount, losetup), fio, mkfs.ext4 and /sys/class/zram-control (zram loaded); each part it cannot make
# says SKIP and goes on. The etcd-fio profile part needs a built tree (BUILD=build).
#     sh tests/gen/gen-fixtures-medium.sh
set -eu
FIO=${FIO:-fio}
HERE=$(cd "$(dirname "$0")/.." && pwd)
OUT=$HERE/fixtures/medium
BUILD=${BUILD:-$HERE/../build}
WORK=$(mktemp -d /tmp/etcd-fio-medium.XXXXXX)   # ext4 on this machine: the disk twins
FS=$(mktemp -d /tmp/etcd-fio-medium-fs.XXXXXX)  # mount points
LOOP=""; ZRAM=""
cleanup() {
  umount "$FS/loopmnt" 2>/dev/null || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  umount "$FS/tmpfs" 2>/dev/null || true
  [ -n "$ZRAM" ] && echo "$ZRAM" > /sys/class/zram-control/hot_remove 2>/dev/null || true
  rm -rf "$WORK" "$FS"
}
trap cleanup EXIT INT TERM
mkdir -p "$OUT" "$FS/tmpfs" "$FS/loopmnt"
C="--rw=write --bs=2300 --size=1m"

run() { # MODE OUTFILE FIO-ARGS: json: stdout only; text: 2>&1
  m=$1; f=$2; shift 2
  if [ "$m" = json ]; then "$FIO" --output-format=json "$@" > "$OUT/$f" 2> "$WORK/stderr"
  else "$FIO" "$@" > "$OUT/$f" 2>&1; fi
  rm -f "$WORK"/t.* "$FS"/tmpfs/t.* "$FS"/loopmnt/t.* 2>/dev/null || true
}

mount -t tmpfs -o size=600m none "$FS/tmpfs"
T=$FS/tmpfs
# tmpfs (as /tmp is on Fedora, Arch, Debian 13): plain sync, io_uring iodepth 4, posixaio iodepth 32
run json tmpfs-sync.json --name=t --directory="$T" $C --ioengine=sync --fdatasync=1
run text tmpfs-sync.txt --name=t --directory="$T" $C --ioengine=sync --fdatasync=1
run json tmpfs-iouring.json --name=t --directory="$T" $C --ioengine=io_uring --iodepth=4 --fdatasync=1
run text tmpfs-iouring.txt --name=t --directory="$T" $C --ioengine=io_uring --iodepth=4 --fdatasync=1
run json tmpfs-posixaio.json --name=t --directory="$T" $C --ioengine=posixaio --iodepth=32 --fdatasync=1
# a symlink on the disk to a directory on tmpfs (fio refuses a directory= that is itself a symlink: one below)
ln -s "$T" "$WORK/link"; mkdir -p "$T/sub"
run json symlink-tmpfs-iouring.json --name=t --directory="$WORK/link/sub" $C --ioengine=io_uring --iodepth=4 --fdatasync=1
rm -f "$WORK/link"; rm -rf "$T/sub"

# /dev/null: every fdatasync fails (EINVAL), fio 3.33 still times it and reports err=0
run json devnull-iouring.json --name=t --filename=/dev/null $C --ioengine=io_uring --iodepth=32 --fdatasync=1
run text devnull-iouring.txt --name=t --filename=/dev/null $C --ioengine=io_uring --iodepth=32 --fdatasync=1
run json devnull-posixaio.json --name=t --filename=/dev/null $C --ioengine=posixaio --iodepth=32 --fdatasync=1
run text devnull-posixaio.txt --name=t --filename=/dev/null $C --ioengine=posixaio --iodepth=32 --fdatasync=1

# a loop device whose file is on tmpfs, ext4 on it
if truncate -s 300m "$T/loop.img" && LOOP=$(losetup -f --show "$T/loop.img") && mkfs.ext4 -q "$LOOP" &&
   mount "$LOOP" "$FS/loopmnt"; then
  run json loop-on-tmpfs.json --name=t --directory="$FS/loopmnt" $C --ioengine=sync --fdatasync=1
  run text loop-on-tmpfs.txt --name=t --directory="$FS/loopmnt" $C --ioengine=sync --fdatasync=1
  run json loopdev-iouring.json --name=t --filename="$LOOP" $C --ioengine=io_uring --iodepth=4 --fdatasync=1
else
  echo "SKIP: no loop device on tmpfs"
fi

# zram: a compressed RAM block device
if [ -w /sys/class/zram-control/hot_add ] && ZRAM=$(cat /sys/class/zram-control/hot_add) &&
   echo 64M > "/sys/block/zram$ZRAM/disksize"; then
  run json zram-sync.json --name=t --filename="/dev/zram$ZRAM" $C --ioengine=sync --fdatasync=1
  run text zram-sync.txt --name=t --filename="/dev/zram$ZRAM" $C --ioengine=sync --fdatasync=1
else
  echo "SKIP: no zram (modprobe zram)"
fi

# the disk twins: the same jobs in a directory on the disk
run json disk-sync.json --name=t --directory="$WORK" $C --ioengine=sync --fdatasync=1
run text disk-sync.txt --name=t --directory="$WORK" $C --ioengine=sync --fdatasync=1
run json disk-iouring.json --name=t --directory="$WORK" $C --ioengine=io_uring --iodepth=4 --fdatasync=1
run text disk-iouring.txt --name=t --directory="$WORK" $C --ioengine=io_uring --iodepth=4 --fdatasync=1

# the etcd-fio engine (needs a built tree): on tmpfs it refuses the job; on the disk its line names the
# filesystem; two jobs of one name (one WAL, one backend) are told apart by the pid in its lines
if [ -e "$BUILD/libetcdwal.so" ] && [ -x "$BUILD/etcd-fio" ]; then
  E="--ioengine=external:$(cd "$BUILD" && pwd)/libetcdwal.so --rw=write --bs=2300 --size=1m"
  "$BUILD/etcd-fio" job --dir "$T" > "$WORK/p.fio"
  sed -i 's/^runtime=60/runtime=3/' "$WORK/p.fio"
  "$FIO" "$WORK/p.fio" > "$OUT/profile-tmpfs.txt" 2>&1 || true
  "$FIO" --name=etcd $E --directory="$WORK" --etcd_mode=wal --fdatasync=1 \
         --name=etcd $E --directory="$WORK" --etcd_mode=backend --fdatasync=4 > "$OUT/profile-disk-same-name.txt" 2>&1
else
  echo "SKIP: the etcd-fio engine (no $BUILD/libetcdwal.so)"
fi
for f in "$OUT"/*; do sed -i "s#$WORK#/tmp/etcd-fio-medium#g; s#$FS#/tmp/etcd-fio-medium-fs#g" "$f"; done
echo "made: $(ls "$OUT" | wc -l) files in $OUT"
