#!/bin/sh
# SPDX-License-Identifier: MIT
# it_fuse_cleanup.sh — the engine on a FUSE file system (bench/labfs, the lab's passthrough, built here
# from its source with libfuse3) leaves nothing behind: FUSE (like NFS) renames a file unlinked while
# still open to .fuse_hiddenXXXX, which keeps the private directory from being removed ("rmdir: Directory
# not empty"), so the engine closes every file before it unlinks it. WAL run (with rollovers, so a spare is open at the end), backend run, and a SIGKILLed run whose
# directory the next run reaps (the lock works through FUSE).
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE"
pkg-config --exists fuse3 2>/dev/null || { echo "skip: libfuse3-dev missing (mk/deps.sh bench)"; exit 77; }
command -v fusermount3 >/dev/null 2>&1 && [ -c /dev/fuse ] || { echo "skip: no fusermount3 or /dev/fuse"; exit 77; }
WORK=$(mktemp -d /tmp/it-fuse.XXXXXX) || exit 1
MNT=$WORK/mnt
FS=""
cleanup() {
  mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"; }
  [ -n "$FS" ] && { kill "$FS" 2>/dev/null; wait "$FS" 2>/dev/null; }
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# shellcheck disable=SC2046
${CC:-cc} -std=c11 -O1 -D_GNU_SOURCE $(pkg-config --cflags fuse3) -I"$TOP/bench" -o "$WORK/labfs" \
  "$TOP/bench/labfs.c" "$TOP/bench/labdev.c" $(pkg-config --libs fuse3) -lpthread -lm 2> "$WORK/cc.err" ||
  { echo "FAIL: cannot build bench/labfs: $(head -n 3 "$WORK/cc.err")"; exit 1; }
mkdir -p "$MNT" "$WORK/back"
"$WORK/labfs" "$MNT" -f -o "passthrough=$WORK/back,model=median=0.05ms" > "$WORK/labfs.log" 2>&1 &
FS=$!
i=0
while ! mountpoint -q "$MNT"; do
  kill -0 "$FS" 2>/dev/null || { echo "skip: labfs did not mount: $(head -n 2 "$WORK/labfs.log")"; exit 77; }
  [ $i -lt 300 ] || { echo "FAIL: labfs still not mounted after 30 s: $(head -n 2 "$WORK/labfs.log")"; exit 1; }
  sleep 0.1; i=$((i + 1))
done

left() { (cd "$WORK/back" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' '); }
WAL="--rw=write --bs=2300 --fdatasync=1 --etcd_segment_bytes=1000000"
BE="--rw=write --bs=4096 --fdatasync=4 --etcd_mode=backend"
for mode in wal backend; do
  args=$WAL; [ $mode = backend ] && args=$BE
  # shellcheck disable=SC2086
  timeout -k 5 60 "$FIO" --name=$mode --ioengine=external:"$ENGINE" --directory="$MNT" $args --size=2m \
    > "$WORK/$mode.out" 2>&1 || fail "$mode run on FUSE exited non-zero: $(grep etcdwal "$WORK/$mode.out" | head -n 2)"
  grep -q 'rmdir' "$WORK/$mode.out" && fail "$mode: $(grep rmdir "$WORK/$mode.out")"
  [ -z "$(left)" ] || fail "$mode run on FUSE left: $(left)"
done
grep -q "etcdwal: wal: [2-9] segments" "$WORK/wal.out" || fail "the WAL run did not roll over (no spare open at the end)"

# SIGKILL: the lock held through FUSE is dropped with the process; the next run reaps the directory.
# shellcheck disable=SC2086
"$FIO" --name=killed --ioengine=external:"$ENGINE" --directory="$MNT" $WAL --size=1g --time_based --runtime=30 \
  > "$WORK/killed.out" 2>&1 &
P=$!
i=0
while [ $i -lt 600 ] && ! ls "$MNT"/etcd-fio.*.killed.0/0000000000000001-* > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
KIDS=$(ps -o pid= --ppid "$P")
# shellcheck disable=SC2086
kill_frozen "$P" $KIDS
wait "$P" 2>/dev/null
# the job process must be gone (its lock with it) before the next run looks: wait for that, not a fixed time
# (a zombie has closed its files already)
gone() { [ ! -d "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
for k in $KIDS; do i=0; while ! gone "$k" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; done
stale=$(ls -A "$MNT" | grep '^etcd-fio\.[0-9]*\.killed\.0$')
[ -n "$stale" ] || fail "SIGKILL: no directory left to reap"
# shellcheck disable=SC2086
timeout -k 5 60 "$FIO" --name=after --ioengine=external:"$ENGINE" --directory="$MNT" $WAL --size=200k \
  > "$WORK/after.out" 2>&1 || fail "run after SIGKILL on FUSE failed"
[ -z "$(left)" ] || fail "after SIGKILL + next run, FUSE holds: $(left)"

finish it_fuse_cleanup "it_fuse_cleanup: WAL and backend runs on FUSE leave nothing; a SIGKILLed run's directory is reaped through FUSE"
