#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=loop
# it_check_throttled.sh — end-to-end FAIL: `etcd-fio check` on a loop-mounted ext4 whose writes are throttled
# to 60 IOPS with cgroup v1 blkio.throttle.write_iops_device (etcd-fio and fio run inside that cgroup) must
# exit 1, decided early (about 15 s on an idle machine). Needs root, loop devices, mkfs.ext4 and cgroup v1
# blkio; skipped (77) elsewhere.
# Everything it sets up (mount, loop device, cgroup, image file) is undone in the trap.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/etcd-fio"
CG_ROOT=/sys/fs/cgroup/blkio
skip() { echo "skip: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount, cgroup)"
[ -w "$CG_ROOT/cgroup.procs" ] && [ -e "$CG_ROOT/blkio.throttle.write_iops_device" ] || skip "no cgroup v1 blkio throttling at $CG_ROOT"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || skip "losetup or mkfs.ext4 missing"
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }

work=$(mktemp -d /var/tmp/it_check_throttled.XXXXXX)
loop=""; cg="$CG_ROOT/etcd-fio-it.$$"; mnt="$work/mnt"
cleanup() {
  mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -d "$cg" ] && rmdir "$cg" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap "exit 130" INT TERM HUP PIPE

truncate -s 512M "$work/disk.img"
loop=$(losetup -f --show "$work/disk.img") || skip "no free loop device"
mkfs.ext4 -q -F "$loop" >/dev/null 2>&1 || { echo "FAIL: mkfs.ext4 $loop"; exit 1; }
mkdir -p "$mnt"
mount "$loop" "$mnt" || skip "cannot mount $loop"
mkdir "$cg" || skip "cannot create cgroup $cg"
majmin=$(lsblk -dno MAJ:MIN "$loop" | tr -d ' ')
echo "$majmin 60" > "$cg/blkio.throttle.write_iops_device" || skip "cannot set write_iops_device on $majmin"

# Refusals before anything runs: too little free space for the run (a long --max-time on this 512 MB
# filesystem), and a different device than this node's etcd data directory (when there is one).
"$BIN" check --force --max-time 3000 "$mnt" > /dev/null 2> "$work/e1"; r1=$?
cat "$work/e1"
[ $r1 = 2 ] && grep -q "MiB free on ext4 on $loop" "$work/e1" || { echo "FAIL: space refusal: exit $r1"; exit 1; }
# The reserve a live etcd needs: a run that would leave less than 2 x 64 MB + 5 % of the filesystem
# free is refused before anything is written (here: ~480 MiB free, the run needs ~380 MiB).
"$BIN" check --max-time 200 "$mnt" > /dev/null 2> "$work/e3"; r3=$?
cat "$work/e3"
[ $r3 = 2 ] && grep -q "less than the [0-9]* MiB a live etcd should keep (2 x 64 MB + 5 % of the filesystem)" "$work/e3" \
  && [ "$(wc -l < "$work/e3")" = 1 ] || { echo "FAIL: free-space reserve refusal: exit $r3"; exit 1; }
left=$(ls -A "$mnt" | grep -v '^lost+found$' || true)
[ -z "$left" ] || { echo "FAIL: the refused run wrote to $mnt: $left"; exit 1; }
echo "ok: free-space reserve refused before starting"
for d in /var/lib/etcd /var/lib/rancher/rke2/server/db/etcd; do
  [ -d "$d" ] || continue
  "$BIN" check --max-time 60 "$mnt" > /dev/null 2> "$work/e2"; r2=$?  # short: clear of the reserve
  cat "$work/e2"
  [ $r2 = 2 ] && grep -q "etcd data directory $d is on device" "$work/e2" && grep -q "$loop" "$work/e2" ||
    { echo "FAIL: different-device refusal: exit $r2"; exit 1; }
  break
done

# --force: the loop device is (on purpose) not the device of this node's etcd data directory.
start=$(date +%s)
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
  "$BIN" check --force --json "$mnt" > "$work/out.json" 2> "$work/err.txt"
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$work/out.json" "$work/err.txt"
echo "throttled check: exit $rc after ${elapsed}s"
[ "$rc" = 1 ] || { echo "FAIL: expected exit 1 (FAIL), got $rc"; exit 1; }
# The early stop is asserted from the JSON (details.run.end) below, not from the clock: ~15 s here, but a
# loaded CI under ASan must not turn a speed into a failure (speed claims are bench/'s). The bound is the
# default --max-time: a run that went on to it was not stopped early.
[ "$elapsed" -lt 120 ] || { echo "FAIL: took ${elapsed}s: not stopped before the default --max-time 120"; exit 1; }
python3 - "$work/out.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "fail", d["verdict"]
assert d["basis"] == "bound", d["basis"]
assert d["details"]["run"]["end"] == "decided", "expected an early decision"
w = [j for j in d["hosts"][0]["jobs"] if j["role"] == "wal"][0]
assert w["p99_ns"] > 10_000_000, w
assert d["details"]["filesystem"]["type"] == "ext4", d["details"]["filesystem"]
print("ok: FAIL decided after", d["details"]["run"]["syncs_at_decision"], "syncs; WAL p99", w["p99_ns"] / 1e6, "ms")
PY
# nothing of the run is left on the tested filesystem
left=$(ls -A "$mnt" | grep -v '^lost+found$' || true)
[ -z "$left" ] || { echo "FAIL: left behind in $mnt: $left"; exit 1; }
echo "ok: throttled disk FAILs, decided early (${elapsed} s)"
