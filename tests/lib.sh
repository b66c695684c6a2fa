# SPDX-License-Identifier: MIT
# lib.sh — the common start of the engine integration tests (sourced, not run): where the tree and the
# build are, which fio, the artifacts, and a check that they were built. Exit 77 means skipped (run.sh).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
FIO=${FIO:-fio}
ENGINE=$B/libetcdwal.so
SHIM=$B/tests/faultshim.so
CLI=$B/etcd-fio
command -v "$FIO" >/dev/null 2>&1 || { echo "skip: fio not installed"; exit 77; }
# need_built FILE…: fail (not skip) when an artifact of this tree is missing
need_built() {
    for f; do [ -e "$f" ] || { echo "FAIL: $f not built (make tests builds it)"; exit 1; }; done
}
# fake_etcd DIR: a fake etcd data dir as etcd leaves it (member/wal/ with a real segment head and the spare
# 0.tmp, member/snap/db and a .snap), mode 0700; etcd_state DIR: its file list and checksums, leaving out
# anything named etcd-fio* (the engine's own directories), for before/after comparisons.
fake_etcd() {
  mkdir -p "$1/member/wal" "$1/member/snap" && chmod 0700 "$1" &&
  cp "$TOP/tests/fixtures/etcd-wal/etcd-3.4.23-seg0-head.wal" "$1/member/wal/0000000000000000-0000000000000000.wal" &&
  cp "$TOP/tests/fixtures/etcd-wal/etcd-3.4.23-seg1-head.wal" "$1/member/wal/0.tmp" &&
  head -c 1048576 /dev/urandom > "$1/member/snap/db" &&
  head -c 4096 /dev/urandom > "$1/member/snap/0000000000000002-0000000000000010.snap" &&
  chmod 0600 "$1"/member/wal/* "$1"/member/snap/*
}
etcd_state() {
  (cd "$1" && find . -name 'etcd-fio*' -prune -o -print | LC_ALL=C sort | while read -r f; do
    if [ -f "$f" ]; then printf '%s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$f"; else printf 'dir %s\n' "$f"; fi
  done)
}
# hold_wal_lock SEGMENT FLAG: a stand-in for a live etcd, in the background (pid in HOLD): it holds an OFD
# write lock on SEGMENT, as etcd does on its WAL files, until FLAG is removed; returns once it holds it.
hold_wal_lock() {
  python3 - "$1" "$2" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, getattr(fcntl, "F_OFD_SETLK", 37), struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PY
  HOLD=$!
  hw=0
  until [ -e "$2" ] || [ $hw -ge 100 ]; do sleep 0.1; hw=$((hw + 1)); done
}
# fio_with_shim DIR: writes DIR/fio, a fio that runs with the fault shim preloaded, and prints its path.
# The shim goes into fio only (FIO=… and PATH): an ASan-built etcd-fio (check-asan) must not get it
# preloaded ahead of the ASan runtime; under check-asan $FIO is the ASan wrapper, which puts libasan first.
fio_with_shim() {
    mkdir -p "$1"
    printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" exec "%s" "$@"\n' "$SHIM" "$(command -v "$FIO")" > "$1/fio"
    chmod +x "$1/fio"
    echo "$1/fio"
}

