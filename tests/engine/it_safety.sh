#!/bin/sh
# SPDX-License-Identifier: MIT
# it_safety.sh — proof that the engine never touches etcd's data. A fake etcd data dir (member/wal/*.wal,
# member/wal/0.tmp, member/snap/db, member/snap/*.snap) is checksummed; fio + libetcdwal.so run in it (WAL
# and backend modes, DIR = the data dir and = member/), traced with strace; fio is also killed mid-run
# with SIGINT (as Ctrl-C), SIGTERM (as kill/systemd) — both to fio's main process, which then ends its
# jobs (fio puts each job process in its own session, so a terminal's Ctrl-C reaches only the main one) —
# and SIGKILL to the main and every job process (a crash or the OOM killer). Asserts: every checksum and
# the file list unchanged; no write-mode open/creat/truncate/rename/unlink of anything under DIR outside
# the engine's private etcd-fio.<pid>.<job>.<n> directory;
# private directory gone after each run and after SIGINT/SIGTERM; after SIGKILL the next run removes the
# stale directory (our exact name, its lock file free) but leaves alone one whose lock is held (though its
# pid is dead), one without a lock file, foreign names, kept runs, a stale directory holding a file that
# is not the engine's, and one whose lock file is a symlink (its target untouched).
. "$(dirname "$0")/../lib/lib.sh"
command -v sha256sum >/dev/null 2>&1 || { echo "skip: sha256sum missing"; exit 77; }
need_built "$ENGINE"
HAVE_STRACE=1
command -v strace >/dev/null 2>&1 || { HAVE_STRACE=0; echo "SKIP: strace missing: the open-mode checks"; }
if [ $HAVE_STRACE = 1 ] && ! strace -f -qq -o /dev/null true 2>/dev/null; then
  HAVE_STRACE=0; echo "SKIP: strace cannot trace here (ptrace not permitted): the open-mode checks"
fi

WORK=$(mktemp -d /var/tmp/it-safety.XXXXXX) || exit 1
SLEEPER=""
cleanup() {
  [ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# ---- the fake data dir ----
D=$WORK/etcd
snapshot() { etcd_state "$D"; }
fake_etcd_ready "$D" "$WORK/before"

check_unchanged() {  # LABEL
  snapshot > "$WORK/after"
  cmp -s "$WORK/before" "$WORK/after" || { fail "$1: etcd's files changed:"; diff "$WORK/before" "$WORK/after" | head; }
}
privdirs() { ls -A "$1" | grep -E '^etcd-fio\.[0-9]+\.' ; }

# Every write-ish syscall touching DIR must stay inside an etcd-fio.* private directory. strace -y prints
# each fd as its path, -ff keeps every thread in its own file (no <unfinished ...> splits).
check_trace() {  # LABEL PREFIX
  for t in "$2".*; do
    [ -f "$t" ] || continue
    awk -v D="$D/" '
      index($0, D) == 0 { next }
      {
        w = 0
        if ($0 ~ /^(creat|rename|renameat|renameat2|unlink|unlinkat|truncate|ftruncate|mkdir|mkdirat|rmdir)\(/) w = 1
        if ($0 ~ /^(open|openat|openat2)\(/ && $0 ~ /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/) w = 1
        if (!w) next
        res = $0; sub(/.*\) = /, "", res)
        if (res ~ /^[0-9]+</) { if (res !~ /\/etcd-fio\.[0-9]+\./) print; next }
        if ($0 !~ /etcd-fio\.[0-9]+\./) print
      }' "$t"
  done > "$WORK/violations"
  if [ -s "$WORK/violations" ]; then fail "$1: write access under DIR outside the private directory:"; head -n 5 "$WORK/violations"; fi
  # Reading is not harm, but the engine has no reason to open etcd's files at all: report it.
  if grep -hE '(member/wal/|member/snap/)[^<>]*(\.wal|\.tmp|db|\.snap)' "$2".* 2>/dev/null | grep -v 'etcd-fio\.' |
     grep -qE '^(open|openat|openat2)\('; then
    fail "$1: one of etcd's files was opened"; grep -hE '^(open|openat)\(.*member/(wal|snap)/' "$2".* | grep -v 'etcd-fio\.' | head -n 3
  fi
}

WALARGS="--rw=write --bs=2300 --fdatasync=1 --etcd_segment_bytes=1000000"
BEARGS="--rw=write --bs=4096 --fdatasync=4 --etcd_mode=backend"

# ---- 1. complete runs: WAL and backend, DIR = data dir and member/ ----
runs=0
for mode in wal backend; do
  for sub in "" member; do
    dir=$D${sub:+/$sub}
    args=$WALARGS
    [ $mode = backend ] && args=$BEARGS
    label="$mode run in ${sub:-data dir}"
    tr=$WORK/trace-$mode-${sub:-top}
    # shellcheck disable=SC2086
    if [ $HAVE_STRACE = 1 ]; then
      (cd "$WORK" && timeout -k 5 90 strace -ff -y -qq -o "$tr" \
        -e trace=open,openat,creat,rename,renameat,renameat2,unlink,unlinkat,truncate,ftruncate,mkdir,mkdirat,rmdir \
        "$FIO" --name=$mode --ioengine=external:"$ENGINE" --directory="$dir" $args --size=3m > "$tr.out" 2>&1)
    else
      (cd "$WORK" && timeout -k 5 90 "$FIO" --name=$mode --ioengine=external:"$ENGINE" --directory="$dir" $args \
        --size=3m > "$tr.out" 2>&1)
    fi
    rc=$?
    runs=$((runs + 1))
    [ $rc -eq 0 ] || { fail "$label: fio exited $rc"; tail -n 5 "$tr.out"; }
    grep -q 'err= 0' "$tr.out" || fail "$label: the job reported an error"
    check_unchanged "$label"
    [ -z "$(privdirs "$dir")" ] || fail "$label: private directory left behind: $(privdirs "$dir")"
    [ $HAVE_STRACE = 1 ] && check_trace "$label" "$tr"
    # The trace must show the engine really worked in DIR (else the checks above prove nothing).
    if [ $HAVE_STRACE = 1 ] && ! cat "$tr".* |
       grep -qE "^rename(at2?)?\(.*$dir/etcd-fio\.[0-9]+\.$mode\.tmp-[A-Za-z0-9]{6}\".*$dir/etcd-fio\.[0-9]+\.$mode\.0\""; then
      fail "$label: trace shows no private directory created (staged, then renamed) in $dir"
    fi
  done
done

# ---- 2. killed mid-run ----
# start_long MODE DIR: fio running far longer than the test waits; sets PID (main) and KIDS (jobs).
start_long() {
  args=$WALARGS
  [ "$1" = backend ] && args=$BEARGS
  # shellcheck disable=SC2086
  "$FIO" --name="$1" --ioengine=external:"$ENGINE" --directory="$2" $args --size=1g --time_based \
    --runtime=60 > "$WORK/kill-$1.out" 2>&1 &
  PID=$!
  i=0
  while [ $i -lt 600 ] && [ -z "$(privdirs "$2")" ]; do sleep 0.1; i=$((i + 1)); done
  [ -n "$(privdirs "$2")" ] || { fail "$1: no private directory appeared within 60 s"; return 1; }
  if [ "$1" = wal ]; then  # syncs in flight, a rollover done: the second segment exists
    while [ $i -lt 600 ] && ! ls "$2"/etcd-fio.*/0000000000000001-* > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
  else
    sleep 1   # commits in flight
  fi
  KIDS=$(ps -o pid= --ppid "$PID" | tr -d ' ')
}
alive() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
wait_gone() {  # PIDS…: all must exit within 30 s of the signal (zombies are reaped by init meanwhile)
  i=0
  while alive "$@" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  if alive "$@"; then fail "fio ($*) still running 30 s after the signal"; kill -KILL "$@" 2>/dev/null; fi
  wait "$PID" 2>/dev/null
}

for sig in INT TERM; do
  for mode in wal backend; do
    start_long $mode "$D" || continue
    kill -$sig "$PID"
    # shellcheck disable=SC2086
    wait_gone "$PID" $KIDS
    sleep 0.2
    check_unchanged "SIG$sig during $mode run"
    left=$(privdirs "$D")
    [ -z "$left" ] || { fail "SIG$sig during $mode run: private directory left: $left"; rm -rf "$D"/etcd-fio.*; }
  done
done

# SIGKILL: nothing can clean up; the stale directory must be reaped by the next run, and only it.
start_long wal "$D/member" && {
  # shellcheck disable=SC2086
  kill_frozen "$PID" $KIDS
  # shellcheck disable=SC2086
  wait_gone "$PID" $KIDS
  check_unchanged "SIGKILL during wal run"
  stale=$(privdirs "$D/member")
  if [ -z "$stale" ]; then
    fail "SIGKILL: no private directory left to reap (the kill came too late?)"
  else
    stalepid=$(echo "$stale" | head -n 1 | cut -d. -f2)
    # The killed job process is a zombie until init reaps it; a real rerun comes later than that.
    i=0
    while kill -0 "$stalepid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$stalepid" 2>/dev/null && fail "SIGKILL: pid $stalepid of $stale still alive after 30 s"
    # Decoys the reaper must leave alone.
    sh -c 'exit 0' & deadpid=$!; wait $deadpid
    M=$D/member
    mkdir "$M/etcd-fio.$deadpid.wal.3" "$M/etcd-fio.$deadpid.wal.4" "$M/etcd-fio.$deadpid.wal.7" \
          "$M/etcd-fio.$deadpid.wal.8" "$M/etcd-fio.notapid.wal.0" "$M/etcd-fio.$deadpid.wal" \
          "$M/etcd-fio-kept.$deadpid.wal.0"
    for n in 3 4 7 8; do echo x > "$M/etcd-fio.$deadpid.wal.$n/0.tmp"; done
    : > "$M/etcd-fio.$deadpid.wal.3/lock"                        # dead pid, but its lock is held:
    python3 -c 'import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
print("locked", flush=True)
time.sleep(300)' "$M/etcd-fio.$deadpid.wal.3/lock" > "$WORK/locker.out" 2>&1 & SLEEPER=$!
    i=0; while [ $i -lt 300 ] && ! grep -q locked "$WORK/locker.out"; do sleep 0.1; i=$((i + 1)); done
    grep -q locked "$WORK/locker.out" || fail "could not hold an OFD lock from python3: $(cat "$WORK/locker.out")"
    : > "$M/etcd-fio.$deadpid.wal.7/lock"                        # lock free, but ...
    echo "operator notes" > "$M/etcd-fio.$deadpid.wal.7/notes.txt" # ... holds a file not ours
    echo "victim" > "$WORK/victim"
    ln -s "$WORK/victim" "$M/etcd-fio.$deadpid.wal.8/lock"       # a symlink where the lock file goes
    (cd "$WORK" && timeout -k 5 60 "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$D/member" \
      $WALARGS --size=200k > "$WORK/reap.out" 2>&1) || fail "run after SIGKILL failed: $(tail -n 3 "$WORK/reap.out")"
    for s in $stale; do [ ! -e "$D/member/$s" ] || fail "SIGKILL: stale $s was not removed by the next run"; done
    for keep in "etcd-fio.$deadpid.wal.3/0.tmp" "etcd-fio.$deadpid.wal.4/0.tmp" etcd-fio.notapid.wal.0 \
                "etcd-fio.$deadpid.wal" "etcd-fio-kept.$deadpid.wal.0" "etcd-fio.$deadpid.wal.7/notes.txt" \
                "etcd-fio.$deadpid.wal.7/0.tmp" "etcd-fio.$deadpid.wal.8/0.tmp"; do
      [ -e "$M/$keep" ] || fail "reaper removed $keep, which is not a stale directory of ours"
    done
    [ "$(cat "$WORK/victim")" = victim ] || fail "the symlinked lock file's target was changed"
    kill "$SLEEPER" 2>/dev/null; wait "$SLEEPER" 2>/dev/null; SLEEPER=""
    rm -rf "$M"/etcd-fio.* "$M"/etcd-fio-kept.*
    check_unchanged "run after SIGKILL"
  fi
}

# SIGKILL of a backend run in the data dir itself: its stale directory (holding db) goes with the next run.
start_long backend "$D" && {
  # shellcheck disable=SC2086
  kill_frozen "$PID" $KIDS
  # shellcheck disable=SC2086
  wait_gone "$PID" $KIDS
  stale=$(privdirs "$D")
  [ -n "$stale" ] || fail "SIGKILL (backend): no private directory left to reap"
  (cd "$WORK" && timeout -k 5 60 "$FIO" --name=backend --ioengine=external:"$ENGINE" --directory="$D" \
    $BEARGS --size=400k > "$WORK/reap-be.out" 2>&1) || fail "backend run after SIGKILL failed"
  for s in $stale; do [ ! -e "$D/$s" ] || fail "SIGKILL (backend): stale $s was not removed by the next run"; done
  check_unchanged "backend run after SIGKILL"
}

finish it_safety "data safety: $runs traced runs, SIGINT/SIGTERM (wal, backend), SIGKILL + reaping (wal, backend): etcd's files untouched"
