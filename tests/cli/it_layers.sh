#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=loop
# it_layers.sh — check measures the disk, not a layer that lies (issue 27), with the real tools (root: loop
# devices, mounts, FUSE, zram, a memory cgroup; a part the machine does not allow prints SKIP):
#   refused before fio starts, naming the layer: ext4 on a loop device whose backing file is on tmpfs,
#   fuse-overlayfs with -o fsync=0 and without, bindfs (plain "fuse"), a zram device, a brd RAM disk, a
#   full-inode ext4 ("no free inodes"), a read-only mount ("read-only filesystem");
#   judged (not refused), with what is seen in the result: ext4 on a loop over a file on this disk mounted
#   nobarrier,data=writeback (the weak options as a detail and the unsafe-mount why:), btrfs on a loop
#   (named "btrfs on /dev/loopN", its device chain), and a run in a 30 MB memory cgroup (the memory detail
#   under pressure and the memory-pressure why:). Verdicts of the judged runs are not asserted.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI"
[ "$(id -u)" = 0 ] || { echo "skip: needs root (loop devices, mounts)"; exit 77; }
for t in losetup mkfs.ext4 jq; do command -v $t >/dev/null 2>&1 || { echo "skip: $t missing"; exit 77; }; done
L=$(mktemp -d /var/tmp/it_layers.XXXXXX) || exit 1
loops="" mounts="" zram="" cg=""
cleanup() {
  for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  for d in $loops; do losetup -d "$d" 2>/dev/null; done
  # a zram device just unmounted may still be busy for a moment: retry until it is gone (up to 30 s)
  i=0
  while [ -n "$zram" ] && [ -e "/sys/block/zram$zram" ] && [ $i -lt 300 ]; do
    echo 1 > "/sys/block/zram$zram/reset" 2>/dev/null
    echo "$zram" > /sys/class/zram-control/hot_remove 2>/dev/null || sleep 0.1
    i=$((i + 1))
  done
  [ -n "$zram" ] && [ -e "/sys/block/zram$zram" ] && echo "FAIL: zram$zram could not be removed" >&2
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null
  rm -rf "$L"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
SHORT="--faithful --max-time 7 --min-syncs 20 --accept-point-estimate"
# the judged runs: --force, as a loop device is another device than this node's /var/lib/etcd (when it exists)
FORCE=""; for e in /var/lib/etcd /var/lib/rancher/rke2/server/db/etcd; do [ -d "$e" ] && FORCE=--force; done
# refused NAME DIR PATTERN…: check exits 2 at once, its message matches every pattern, DIR is as before
refused() {
  n=$1 d=$2
  shift 2
  before=$(ls -A "$d")
  "$CLI" check $SHORT "$d" > "$L/$n.out" 2> "$L/$n.err"
  rc=$?
  [ $rc -eq 2 ] || fail "$n: exit $rc, want 2 (refused)"
  for p; do grep -q -- "$p" "$L/$n.err" || { fail "$n: message lacks '$p'"; sed 's/^/    | /' "$L/$n.err"; }; done
  [ "$(ls -A "$d")" = "$before" ] || fail "$n: left behind: $(ls -A "$d")"
}
loop_on() {  # loop_on FILE SIZE: a loop device over FILE (created sparse), its name on stdout
  truncate -s "$2" "$1" && dev=$(losetup -f --show "$1") && echo "$dev"
}

# A. ext4 on a loop device whose backing file is on tmpfs
mkdir -p "$L/tmpfs" "$L/a"
if mount -t tmpfs -o size=64m tmpfs "$L/tmpfs"; then
  mounts="$L/tmpfs $mounts"
  if la=$(loop_on "$L/tmpfs/img" 1g); then
    loops="$loops $la"
    mkfs.ext4 -q -F "$la" && mount "$la" "$L/a" && mounts="$L/a $mounts"
    refused loop-tmpfs "$L/a" "refusing:" "backing file $L/tmpfs/img" "is on tmpfs"
  else
    echo "SKIP part A: no loop device"
  fi
else
  echo "SKIP part A: cannot mount tmpfs"
fi

# B. fuse-overlayfs, with -o fsync=0 (answers every fsync at once) and without; C. bindfs (type "fuse")
if command -v fuse-overlayfs >/dev/null 2>&1 && [ -c /dev/fuse ]; then
  for v in nofsync fsync; do
    mkdir -p "$L/ov-$v/l" "$L/ov-$v/u" "$L/ov-$v/w" "$L/ov-$v/m"
    o="lowerdir=$L/ov-$v/l,upperdir=$L/ov-$v/u,workdir=$L/ov-$v/w"
    [ $v = nofsync ] && o="$o,fsync=0"
    if fuse-overlayfs -o "$o" "$L/ov-$v/m" 2>/dev/null; then
      mounts="$L/ov-$v/m $mounts"
      refused "fuse-overlayfs-$v" "$L/ov-$v/m" "refusing:" "fuse.fuse-overlayfs" "FUSE filesystem"
    else
      echo "SKIP part B ($v): fuse-overlayfs cannot mount here"
    fi
  done
else
  echo "SKIP part B: fuse-overlayfs or /dev/fuse missing"
fi
if command -v bindfs >/dev/null 2>&1 && [ -c /dev/fuse ]; then
  mkdir -p "$L/bsrc" "$L/bind"
  if bindfs "$L/bsrc" "$L/bind" 2>/dev/null; then
    mounts="$L/bind $mounts"
    refused bindfs "$L/bind" "refusing:" "is on fuse on " "FUSE filesystem"
  else
    echo "SKIP part C: bindfs cannot mount here"
  fi
else
  echo "SKIP part C: bindfs missing"
fi

# D. zram; E. brd (/dev/ramN: only where the kernel has it)
if [ -r /sys/class/zram-control/hot_add ] && z=$(cat /sys/class/zram-control/hot_add 2>/dev/null) && [ -n "$z" ]; then
  zram=$z
  mkdir -p "$L/z"
  if echo 1G > "/sys/block/zram$z/disksize" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/zram$z" &&
     mount "/dev/zram$z" "$L/z"; then
    mounts="$L/z $mounts"
    refused zram "$L/z" "refusing:" "/dev/zram$z is a zram device"
  else
    echo "SKIP part D: zram$z cannot be set up"
  fi
else
  echo "SKIP part D: no zram in this kernel"
fi
if [ -b /dev/ram0 ] && mkdir -p "$L/r" && mkfs.ext4 -q -F /dev/ram0 2>/dev/null && mount /dev/ram0 "$L/r"; then
  mounts="$L/r $mounts"
  refused brd "$L/r" "refusing:" "RAM disk"
else
  echo "SKIP part E: no brd RAM disk (/dev/ram0) in this kernel"
fi

# H. out of inodes; I. read-only
mkdir -p "$L/h"
if lh=$(loop_on "$L/h.img" 16m); then
  loops="$loops $lh"
  mkfs.ext4 -q -F -N 64 "$lh" && mount "$lh" "$L/h" && mounts="$L/h $mounts"
  i=0; while [ $i -lt 100000 ] && touch "$L/h/f$i" 2>/dev/null; do i=$((i + 1)); done
  refused inodes "$L/h" "no free inodes (0 of "
  rm -f "$L"/h/f*
  rmdir "$L/h/lost+found" 2>/dev/null
  mount -o remount,ro "$L/h" && refused readonly "$L/h" "read-only filesystem"
fi

# F. ext4 nobarrier,data=writeback on a loop over a file on this disk; G. btrfs on a loop; M. 30 MB memory
# cgroup: three judged runs at once
pids=""
mkdir -p "$L/f" "$L/g" "$L/m"
if lf=$(loop_on "$L/f.img" 1g); then
  loops="$loops $lf"
  if mkfs.ext4 -q -F "$lf" && mount -o nobarrier,data=writeback "$lf" "$L/f"; then
    mounts="$L/f $mounts"
    "$CLI" check $FORCE $SHORT --json "$L/f" > "$L/f.json" 2> "$L/f.err" & pids="$pids $!"
  fi
fi
lg=""
if command -v mkfs.btrfs >/dev/null 2>&1 && lg=$(loop_on "$L/g.img" 1g); then
  loops="$loops $lg"
  if mkfs.btrfs -q -f "$lg" > /dev/null && mount -o nobarrier "$lg" "$L/g"; then
    mounts="$L/g $mounts"
    "$CLI" check $FORCE $SHORT --json "$L/g" > "$L/g.json" 2> "$L/g.err" & pids="$pids $!"
  else
    lg=""
  fi
fi
[ -n "$lg" ] || echo "SKIP part G: no btrfs (btrfs-progs, kernel)"
mem=""
lim=30M   # the first-segment fill alone writes ~60 MB through the page cache: the limit is hit either way
[ "${ASAN_BUILD:-}" = 1 ] && lim=64M  # ASan's etcd-fio and fio are larger: no OOM kill mid-run
for base in /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
  rel=$(awk -F: -v v1="$([ "$base" = /sys/fs/cgroup/memory ] && echo 1)" '(v1 && $2 ~ /(^|,)memory(,|$)/) || (!v1 && $1 == "0") {print $3; exit}' /proc/self/cgroup)
  [ -n "$rel" ] || continue
  c="$base$rel/it-layers.$$"
  if mkdir "$c" 2>/dev/null; then
    if echo $lim > "$c/memory.limit_in_bytes" 2>/dev/null || echo $lim > "$c/memory.max" 2>/dev/null; then
      cg=$c mem=1
      break
    fi
    rmdir "$c"
  fi
done
if [ -n "$mem" ]; then
  sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" check $3 --json "$4"' sh "$cg" "$CLI" "$SHORT" "$L/m" \
    > "$L/m.json" 2> "$L/m.err" & pids="$pids $!"
else
  echo "SKIP part M: no memory cgroup can be made here"
fi
for p in $pids; do wait "$p"; done
judged() {  # judged NAME: the run was judged, not refused, and left nothing
  jq -e '.hosts[0].status == "judged"' "$L/$1.json" > /dev/null ||
    { fail "$1: not judged"; sed 's/^/    | /' "$L/$1.err"; head -c 400 "$L/$1.json"; }
}
if [ -s "$L/f.json" ] || [ -n "$lf" ]; then
  judged f
  jq -e '.details.mount_options.weak | index("nobarrier") and index("data=writeback")' "$L/f.json" > /dev/null ||
    fail "nobarrier ext4: mount_options detail missing"
  jq -e '[.explain[].rule] | index("unsafe-mount")' "$L/f.json" > /dev/null || fail "nobarrier ext4: no unsafe-mount why:"
  jq -e --arg f "$L/f.img" '.details.filesystem.layers | contains("backing file " + $f)' "$L/f.json" > /dev/null ||
    fail "ext4 on loop: the backing file is not in the result"
  [ -z "$(ls -A "$L/f" | grep -v '^lost+found$')" ] || fail "f: left behind"
fi
if [ -n "$lg" ]; then
  judged g
  jq -e --arg d "$lg" '.details.filesystem.type == "btrfs" and .details.filesystem.device == $d and
       (.details.filesystem.dev | startswith("0:") | not)' "$L/g.json" > /dev/null ||
    { fail "btrfs: not identified"; jq -c .details.filesystem "$L/g.json"; }
  jq -e '[.explain[].rule] | index("unsafe-mount")' "$L/g.json" > /dev/null || fail "btrfs nobarrier: no unsafe-mount why:"
fi
if [ -n "$mem" ]; then
  jq -e '.details.memory.pressure and .details.memory.limit_events > 0' "$L/m.json" > /dev/null ||
    { fail "$lim cgroup: no memory pressure reported"; jq -c .details.memory "$L/m.json"; sed 's/^/    | /' "$L/m.err"; }
  # the memory-pressure why: explains a slow result; a pass has none to explain, so it never says it there
  if jq -e '.verdict == "pass"' "$L/m.json" > /dev/null; then
    jq -e '[.explain[].rule] | index("memory-pressure") | not' "$L/m.json" > /dev/null ||
      fail "$lim cgroup: a memory-pressure why: on a pass"
  else
    jq -e '[.explain[].rule] | index("memory-pressure")' "$L/m.json" > /dev/null ||
      fail "$lim cgroup: no memory-pressure why: on a $(jq -r .verdict "$L/m.json")"
  fi
  echo "memory cgroup: $(jq -r .details.memory "$L/m.json" | tr -d '\n ')"
fi
for f in f g m; do
  [ -s "$L/$f.json" ] && python3 - "$TOP/doc/etcd-fio.schema.json" "$L/$f.json" <<'PY' || fail "$f: JSON does not match the schema"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
done
[ $bad -eq 0 ] || exit 1
echo "layers: refused tmpfs loop, FUSE, zram/brd, no inodes, read-only; judged and explained nobarrier, btrfs, memory pressure"
