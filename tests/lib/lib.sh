# SPDX-License-Identifier: MIT
# lib.sh — what the integration tests share (sourced, not run): where the tree and the build are, which fio,
# the artifacts and a check that they were built; a fake etcd data dir and a stand-in for its WAL lock; a fio
# with the fault shim; fio servers on loopback (start, wait, stop by pid). Exit 77 means skipped (run.sh).
# The checks and the final summary (ok, fail, has, jqe, finish …) are assert.sh's, sourced here.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/assert.sh"
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
# fake_etcd_ready DIR STATE: fake_etcd DIR, then its etcd_state into STATE; the test fails when either did not
# give the four files.
fake_etcd_ready() {
  fake_etcd "$1" || { echo "FAIL: cannot build the fake data dir"; exit 1; }
  etcd_state "$1" > "$2"
  [ "$(grep -c '^[0-9a-f]\{64\} ' "$2")" -eq 4 ] || { echo "FAIL: fake data dir not built"; exit 1; }
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

# kill_frozen PID…: SIGKILL to all of them as one blow, as the OOM killer or a cgroup kill gives it. Killed one
# after the other, the rest could clean up in between when the shell is descheduled: fio's jobs get the
# SIGTERM the engine asks for at fio's death (PR_SET_PDEATHSIG) and remove their directory, and fio's main
# process, seeing a job end, ends and reaps it. Stopped first, none of them runs again.
kill_frozen() { kill -STOP "$@" 2> /dev/null; kill -KILL "$@" 2> /dev/null; }

# ---- fio servers on 127.0.0.1 (it_fleet.sh, it_capacity_quorum.sh). Each is started through the script
# fio_server_wrapper writes, its pid added to the caller's $pids; a server forks one child per connection
# (kids). The caller's trap stops them by pid: stop_pids $pids $(kids). ----
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; } # a zombie is gone
stop_pids() {  # PID…: TERM, up to 5 s each, then KILL
  for p in "$@"; do kill "$p" 2>/dev/null; done
  for p in "$@"; do
    i=0; while alive "$p" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    alive "$p" && kill -9 "$p" 2>/dev/null
  done
}
kids() { for p in $pids; do pgrep -P "$p"; done; }
wait_kids() {  # the run's server children finish their job (and the engine its cleanup) by themselves
  i=0; while [ -n "$(kids)" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
listening() {  # PORT: 0 when something listens on it (from /proc: no ss/netstat needed)
  hex=$(printf '%04X' "$1")
  awk -v h=":$hex" '$2 ~ h"$" && $4 == "0A" {f=1} END {exit !f}' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
wait_listen() {  # PORT: until a server listens there (fails the test after 60 s)
  i=0; while ! listening "$1"; do
    i=$((i + 1)); [ $i -gt 600 ] && { echo "FAIL: fio --server on port $1 did not start within 60 s"; exit 1; }
    sleep 0.1
  done
}
free_port() { p=$1; while listening "$p"; do p=$((p + 1)); done; echo "$p"; }  # the first port >= $1 nobody uses
# fio_server_wrapper PATH: writes PATH, a script that execs $FIO (so the pid stays the server's). Under
# `make check-asan` the engine is linked with the sanitizer runtimes, which must come first in the
# (uninstrumented) fio that loads it: the wrapper preloads them.
fio_server_wrapper() {
  {
    echo '#!/bin/sh'
    if [ "${ASAN_BUILD:-}" = 1 ]; then
      echo "export LD_PRELOAD='$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)'"
      echo "export ASAN_OPTIONS=detect_leaks=0   # fio's own exit-time allocations are not ours"
    fi
    echo "exec '$FIO' \"\$@\""
  } > "$1"
  chmod +x "$1"
}
