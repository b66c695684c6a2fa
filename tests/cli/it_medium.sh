#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=loop
# it_medium.sh — no PASS from syncs that reached no disk, with real fio runs made here (root: a tmpfs mount,
# a loop device whose file is on it, a zram device; a part the machine does not allow prints SKIP):
#   plain fio on tmpfs (io_uring iodepth 4: the async hand-off lifts the median over the floor), a symlink
#   on the disk into that tmpfs, filename=/dev/null with io_uring (every fdatasync fails, fio 3.33 times it),
#   ext4 on a loop device over the tmpfs, a zram device: `verdict` is never pass, exit never 0, and the JSON
#   names the medium; the etcd-fio engine on tmpfs refuses its job, and on the disk names its filesystem in
#   its own line, also from four threads at once (thread=1).
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (mount, losetup)"; exit 77; }
W=$(mktemp -d /var/tmp/it_medium.XXXXXX) || exit 1
T=$W/tmpfs loop="" zram="" fails=0
cleanup() {
  umount "$W/loopmnt" 2>/dev/null
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  umount "$T" 2>/dev/null
  i=0
  while [ -n "$zram" ] && [ -e "/sys/block/zram$zram" ] && [ $i -lt 100 ]; do
    echo 1 > "/sys/block/zram$zram/reset" 2>/dev/null
    echo "$zram" > /sys/class/zram-control/hot_remove 2>/dev/null || sleep 0.1
    i=$((i + 1))
  done
  rm -rf "$W"
}
trap cleanup EXIT INT TERM
C="--rw=write --bs=2300 --size=512k --fdatasync=1"

# judged NAME OUT: verdict of fio's output OUT is not pass (exit 2 or 1), and its JSON's first job's medium
judged() {
  "$CLI" verdict "$2" > "$W/v.txt" 2>&1; rc=$?
  [ $rc -ne 0 ] || fail "$1: exit 0: $(head -1 "$W/v.txt")"
  head -1 "$W/v.txt" | grep -q '^pass' && fail "$1: pass"
  "$CLI" verdict --json "$2" > "$W/v.json" 2>/dev/null
  medium=$(jq -r '.hosts[0].jobs[0].medium' "$W/v.json")
  ok "$1: $(head -1 "$W/v.txt" | cut -c1-40) (exit $rc, medium $medium)"
}

mkdir -p "$T" "$W/disk" "$W/loopmnt"
if mount -t tmpfs -o size=600m none "$T"; then
  "$FIO" --output-format=json --name=t --directory="$T" $C --ioengine=io_uring --iodepth=4 > "$W/a.json" 2>/dev/null &&
    judged "tmpfs io_uring" "$W/a.json"
  "$FIO" --name=t --directory="$T" $C --ioengine=sync > "$W/b.txt" 2>&1 && judged "tmpfs sync (text)" "$W/b.txt"
  ln -s "$T" "$W/disk/link" && mkdir -p "$T/sub"
  "$FIO" --output-format=json --name=t --directory="$W/disk/link/sub" $C --ioengine=posixaio --iodepth=8 \
    > "$W/c.json" 2>/dev/null && judged "symlink into tmpfs, posixaio" "$W/c.json"
  # the engine refuses tmpfs, naming it
  "$FIO" --name=e --ioengine="external:$ENGINE" --directory="$T" $C > "$W/e.txt" 2>&1
  grep -q "medium not a disk: .* is on tmpfs" "$W/e.txt" || fail "engine on tmpfs: no refusal line: $(grep etcdwal "$W/e.txt")"
  "$CLI" verdict "$W/e.txt" > /dev/null 2>&1 && fail "engine on tmpfs: verdict exit 0"
  ok "the engine refuses tmpfs"
  if command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null && truncate -s 300m "$T/img" &&
     loop=$(losetup -f --show "$T/img") && mkfs.ext4 -q "$loop" && mount "$loop" "$W/loopmnt"; then
    "$FIO" --output-format=json --name=t --directory="$W/loopmnt" $C --ioengine=sync > "$W/d.json" 2>/dev/null &&
      judged "ext4 on a loop device over tmpfs" "$W/d.json"
    [ "$medium" = "not disk" ] || fail "loop over tmpfs: medium $medium"
    "$FIO" --name=e --ioengine="external:$ENGINE" --directory="$W/loopmnt" $C > "$W/f.txt" 2>&1
    grep -q "medium not a disk: .*backing file" "$W/f.txt" || fail "engine on loop over tmpfs: $(grep etcdwal "$W/f.txt")"
    judged "the engine on a loop device over tmpfs" "$W/f.txt"
  else
    echo "SKIP: no loop device over tmpfs"
  fi
else
  echo "SKIP: cannot mount tmpfs"
fi

"$FIO" --output-format=json --name=t --filename=/dev/null $C --ioengine=io_uring --iodepth=32 > "$W/n.json" 2>/dev/null &&
  judged "/dev/null io_uring" "$W/n.json"
[ "$medium" = "not disk" ] || fail "/dev/null: medium $medium"

if [ -w /sys/class/zram-control/hot_add ] && zram=$(cat /sys/class/zram-control/hot_add) &&
   echo 64M > "/sys/block/zram$zram/disksize"; then
  "$FIO" --name=t --filename="/dev/zram$zram" $C --ioengine=sync > "$W/z.txt" 2>&1 && judged "zram (text)" "$W/z.txt"
  [ "$medium" = "not disk" ] || fail "zram: medium $medium"
else
  zram=""
  echo "SKIP: no zram (modprobe zram)"
fi

# the engine on the disk: its own line names the filesystem, and the JSON says "disk"
"$FIO" --name=e --ioengine="external:$ENGINE" --directory="$W/disk" $C > "$W/g.txt" 2>&1
grep -q "^etcdwal: e: pid=[0-9]*: medium " "$W/g.txt" || fail "engine on the disk: no medium line"
if grep -q "medium disk:" "$W/g.txt"; then
  "$CLI" verdict --json "$W/g.txt" > "$W/g.json" 2>/dev/null
  [ "$(jq -r '.hosts[0].jobs[0].medium' "$W/g.json")" = disk ] || fail "engine on the disk: medium not disk"
  ok "the engine names its disk: $(grep -o 'medium disk: .*' "$W/g.txt" | cut -c1-60)"
else
  echo "SKIP: $W is not on a plain disk here: $(grep -o 'medium .*' "$W/g.txt" | cut -c1-60)"
fi
# thread=1: the jobs' inits run at once on threads of one process; each names its own disk, intact, and
# four WAL jobs on threads end with their files gone
mkdir -p "$W/thr"
"$FIO" --thread --ioengine="external:$ENGINE" --directory="$W/thr" $C --name=t1 --name=t2 --name=t3 --name=t4 \
  > "$W/t.txt" 2>&1 || fail "thread=1: fio exited $?"
n=$(grep -c "^etcdwal: t[1-4]: pid=[0-9]*: medium disk: .* mounted at " "$W/t.txt")
if grep -q "medium disk:" "$W/g.txt"; then
  [ "$n" -eq 4 ] && ok "thread=1: four jobs name their disk" || { fail "thread=1: $n of 4 whole medium lines"; grep medium "$W/t.txt"; }
fi
[ -z "$(ls -A "$W/thr")" ] || fail "thread=1: left in DIR: $(ls -A "$W/thr")"
finish it_medium
