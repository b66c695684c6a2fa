#!/bin/sh
# SPDX-License-Identifier: MIT
# it_engine_safety.sh — the engine inside a fake etcd data dir (member/wal/*.wal, member/wal/0.tmp,
# member/snap/db, member/snap/*.snap): runs with DIR = the data dir and = member/wal (where etcd's own
# segment and spare names live), and runs interrupted by SIGINT and SIGTERM mid-run, leave every
# pre-existing byte unchanged and no new file behind; a stale private directory (lock file free) is
# reaped by the next run while a kept one stays. (tests/engine/it_safety.sh goes further: strace, backend, SIGKILL.)
. "$(dirname "$0")/../lib/lib.sh"
FX=$TOP/tests/fixtures/etcd-wal
need_built "$ENGINE"
WORK=$(mktemp -d /var/tmp/it-engine-safety.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

D=$WORK/etcd
mkdir -p "$D/member/wal" "$D/member/snap"
if [ -f "$FX/etcd-3.4.23-seg0-head.wal" ]; then
  cp "$FX/etcd-3.4.23-seg0-head.wal" "$D/member/wal/0000000000000000-0000000000000000.wal"
else
  head -c 262144 /dev/urandom > "$D/member/wal/0000000000000000-0000000000000000.wal"
fi
head -c 65536 /dev/urandom > "$D/member/wal/0.tmp"
head -c 1048576 /dev/urandom > "$D/member/snap/db"
head -c 4096 /dev/urandom > "$D/member/snap/0000000000000002-0000000000000010.snap"
state() { (cd "$D" && find . -print | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }
state > "$WORK/before"
check() {
  state > "$WORK/after"
  if ! cmp -s "$WORK/before" "$WORK/after"; then
    fail "$1: etcd's data dir changed:"; diff "$WORK/before" "$WORK/after" | head -n 5
  fi
}

ARGS="--rw=write --bs=2300 --fdatasync=1 --etcd_segment_bytes=1000000"
for dir in "$D" "$D/member/wal"; do
  # shellcheck disable=SC2086
  "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$dir" $ARGS --size=3m > "$WORK/out" 2>&1 ||
    { fail "run in $dir exited non-zero"; tail -n 5 "$WORK/out"; }
  grep -q "etcdwal: wal: 4 segments" "$WORK/out" || fail "run in $dir did not roll over 3 times: $(grep etcdwal "$WORK/out")"
  check "run in $dir"
done

# Interrupted runs: the job ends early, the engine's cleanup removes its directory.
for sig in INT TERM; do
  # shellcheck disable=SC2086
  "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$D/member" $ARGS --size=1g --time_based \
    --runtime=60 > "$WORK/sig.out" 2>&1 &
  pid=$!
  # wait (up to 60 s: ASan on a loaded CI) until the run is past its first rollover
  i=0
  while [ $i -lt 600 ] && ! ls "$D"/member/etcd-fio.*/0000000000000001-* > /dev/null 2>&1; do
    sleep 0.1; i=$((i + 1))
  done
  [ $i -lt 600 ] || fail "SIG$sig: the run never rolled over a segment"
  t0=$(date +%s)
  kill -"$sig" "$pid"
  wait "$pid"
  el=$(( $(date +%s) - t0 ))
  [ $el -le 30 ] || fail "SIG$sig: fio took ${el}s to stop (a hang, not a slow machine: it takes well under 1 s)"
  grep -q "etcdwal: wal: .* segments" "$WORK/sig.out" || fail "SIG$sig: no engine summary (cleanup hook not run?)"
  left=$(ls -A "$D/member" | grep etcd-fio)
  [ -z "$left" ] || { fail "SIG$sig: private directory left behind: $left"; rm -rf "$D"/member/etcd-fio.*; }
  check "SIG$sig"
done

# Stale private directories: one whose lock file nobody holds is removed by the next run, whatever the
# pid in its name (here our own shell's, alive); a kept run's is not, nor one made without a lock file.
mkdir "$D/member/etcd-fio.$$.wal.0" "$D/member/etcd-fio-kept.$$.wal.0" "$D/member/etcd-fio.$$.wal.1"
: > "$D/member/etcd-fio.$$.wal.0/lock"
head -c 1000 /dev/zero > "$D/member/etcd-fio.$$.wal.0/0.tmp"
head -c 1000 /dev/zero > "$D/member/etcd-fio.$$.wal.0/0000000000000000-0000000000000000.wal"
head -c 1000 /dev/zero > "$D/member/etcd-fio.$$.wal.1/0.tmp"
# shellcheck disable=SC2086
"$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$D/member" $ARGS --size=100k > "$WORK/out" 2>&1 ||
  fail "run after a crash exited non-zero"
[ -e "$D/member/etcd-fio.$$.wal.0" ] && fail "stale etcd-fio.$$.wal.0 (lock file free) was not reaped"
[ -e "$D/member/etcd-fio-kept.$$.wal.0" ] || fail "a kept directory was reaped"
[ -e "$D/member/etcd-fio.$$.wal.1/0.tmp" ] || fail "a directory without a lock file was reaped"
rm -rf "$D/member/etcd-fio-kept.$$.wal.0" "$D/member/etcd-fio.$$.wal.1"
check "run after a crash"

finish it_engine_safety "etcd data dir untouched: 2 runs, SIGINT, SIGTERM, stale reaping"
