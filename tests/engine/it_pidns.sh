#!/bin/sh
# SPDX-License-Identifier: MIT
# it_pidns.sh — the engine in separate pid namespaces (`unshare -pf --mount-proc`, as in a pod, where
# fio's job has the same small pid in every pod) beside runs on the host, all in one fake etcd data dir:
#  1. a host run and a namespaced run at once: neither touches the other's private directory (to the
#     namespaced run the host's pid in the name is dead; before the lock it deleted the host run's files);
#  2. two namespaced runs of one job name at once (etcd-fio.<same pid>.nsx.0 and .1): both finish, neither loses
#     its directory;
#  3. a SIGKILLed namespaced run's directory (a small pid in its name, alive on the host and in every
#     new namespace) is removed by the next run on the host, and another one by the next run in
#     yet another namespace;
# and etcd's files (member/wal/*.wal, 0.tmp, member/snap/db, *.snap) keep their checksums throughout.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE"
command -v unshare >/dev/null 2>&1 || { echo "skip: unshare (util-linux) missing"; exit 77; }
unshare -pf --mount-proc true 2>/dev/null || { echo "skip: cannot create a pid namespace here (needs root)"; exit 77; }

WORK=$(mktemp -d /var/tmp/it-pidns.XXXXXX) || exit 1
BG=""
cleanup() {
  for p in $BG; do pkill -KILL -P "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done  # a namespace's init too
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

D=$WORK/etcd
state() { etcd_state "$D"; }
fake_etcd_ready "$D" "$WORK/before"
unchanged() {
  state > "$WORK/after"
  cmp -s "$WORK/before" "$WORK/after" || { fail "$1: etcd's files changed"; diff "$WORK/before" "$WORK/after" | head -n 5; }
}
privdirs() { ls -A "$D" | grep -E '^etcd-fio\.[0-9]+\.' ; }
# wait_for PATTERN [N]: until N (default 1) private directories matching PATTERN exist (60 s at most: an
# ASan-built engine in a fio on a loaded 2-core CI can take seconds to start)
wait_for() {
  i=0
  while [ $i -lt 600 ]; do
    [ "$(privdirs | grep -cE "$1")" -ge "${2:-1}" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
ARGS="--rw=write --bs=2300 --fdatasync=1 --etcd_segment_bytes=1000000 --size=1g --time_based"
# run NAME RUNTIME [unshare [OUT]]: one fio job in D (in a new pid namespace with a third argument),
# its output in $WORK/OUT.out (default NAME)
run() {
  # shellcheck disable=SC2086
  ${3:+unshare -pf --mount-proc} "$FIO" --name="$1" --ioengine=external:"$ENGINE" --directory="$D" $ARGS \
    --runtime="$2" > "$WORK/${4:-$1}.out" 2>&1
}
ok_run() {  # OUT RC LABEL [SIGNAL]: fio ended normally (or, with SIGNAL, on that signal: fio then exits 128)
  o=$WORK/$1.out
  if [ -n "${4:-}" ]; then
    [ "$2" -eq 128 ] && grep -q "terminating on signal $4" "$o" ||
      fail "$3: fio exited $2 after signal $4: $(grep -E 'etcdwal|error|err=|signal' "$o" | head -n 3)"
  else
    [ "$2" -eq 0 ] || fail "$3: fio exited $2: $(grep -E 'etcdwal|error|err=' "$o" | head -n 3)"
  fi
  grep -q 'err= 0' "$o" || fail "$3: the job reported an error: $(grep etcdwal "$o" | head -n 3)"
  ! grep -qE 'No such file|rmdir|rename\(' "$o" || fail "$3: $(grep -E 'No such file|rmdir|rename\(' "$o" | head -n 2)"
}
# The run that must outlive another one runs long and is ended with SIGINT once the other is done (a fixed
# runtime raced the other's start on a slow machine). stop_run PID: SIGINT to the first fio among PID (the
# background subshell of `run`) and its descendants: fio's main process (in a namespace its init; unshare
# itself blocks SIGINT).
stop_run() {
  q=$1
  while [ -n "$q" ]; do
    set -- $q; q=""
    for p; do
      [ "$(cat "/proc/$p/comm" 2>/dev/null)" = fio ] && { kill -INT "$p"; return 0; }
      q="$q $(pgrep -P "$p" | tr '\n' ' ')"
    done
  done
  fail "no fio to stop under pid $1"
}

# ---- 1. host and namespace side by side ----
run host 120 & HOSTPID=$!; BG="$HOSTPID"
wait_for '\.host\.0$' || fail "host run: no private directory within 60 s"
hostdir=$(privdirs | grep '\.host\.0$')
hostpid=$(echo "$hostdir" | cut -d. -f2)
run ns 2 unshare & NSPID=$!
wait_for '^etcd-fio\.[0-9]+\.ns\.0$' || fail "namespaced run: no private directory within 60 s"
nsdir=$(privdirs | grep '\.ns\.0$')
seen_both=0
[ -d "$D/$hostdir" ] && [ -n "$nsdir" ] && seen_both=1
wait "$NSPID"; ok_run ns $? "namespaced run beside a host run"
[ "$seen_both" = 1 ] || fail "the two runs' directories were never there at once"
# its job's pid: small in the namespace, not the host's
nspid=$(echo "$nsdir" | cut -d. -f2)
[ "$nspid" -lt 100 ] || fail "namespaced run's directory $nsdir does not carry a namespace pid"
[ -f "$D/$hostdir/lock" ] && [ -n "$(ls "$D/$hostdir" | grep '\.wal$')" ] ||
  fail "host run's directory $hostdir lost its files while the namespaced run (to which pid $hostpid is dead) ran"
stop_run "$HOSTPID"
wait "$HOSTPID"; ok_run host $? "host run beside a namespaced run" 2
BG=""
[ -z "$(privdirs)" ] || fail "side by side: left behind: $(privdirs)"
unchanged "host + namespace"

# ---- 2. two namespaces at once, one job name: both directories are etcd-fio.2.nsx.* ----
run nsx 120 unshare a & A=$!; BG="$A"
wait_for '\.nsx\.0$' || fail "namespace A: no directory within 60 s"
run nsx 2 unshare b & B=$!; BG="$A $B"
wait_for '\.nsx\.[01]$' 2 || fail "two namespaces: both directories never there at once: $(privdirs)"
both=$(privdirs | tr '\n' ' ')
echo "two namespaces: $both"
[ "$(privdirs | grep -c '^etcd-fio\.[0-9]\.nsx\.[01]$')" = 2 ] && [ "$(privdirs | cut -d. -f2 | sort -u | wc -l)" = 1 ] ||
  fail "two namespaces: expected etcd-fio.<same small pid>.nsx.0 and .1, got $both"
wait "$B"; ok_run b $? "namespace B beside namespace A"
stop_run "$A"
wait "$A"; ok_run a $? "namespace A beside namespace B" 2
BG=""
[ -z "$(privdirs)" ] || fail "two namespaces: left behind: $(privdirs)"
unchanged "two namespaces"

# ---- 3. SIGKILLed namespaced runs are reaped by the next run, on the host or in a namespace ----
# kill_ns NAME: starts a namespaced run, SIGKILLs its job processes and the namespace's init (the kernel
# kills the rest of it) once the run is past its first rollover — all of it at once (kill_frozen), as a
# pod's cgroup kill does: with only fio's main process killed, its jobs get SIGTERM (the engine's
# PR_SET_PDEATHSIG) and may remove their directory before the namespace goes; prints the directory left.
kill_ns() {
  # shellcheck disable=SC2086
  unshare -pf --mount-proc "$FIO" --name="$1" --ioengine=external:"$ENGINE" --directory="$D" $ARGS \
    --runtime=30 > "$WORK/$1.out" 2>&1 & U=$!
  i=0
  while [ $i -lt 600 ] && ! ls "$D"/etcd-fio.*."$1".0/0000000000000001-* > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
  init=$(ps -o pid= --ppid "$U" | tr -d ' ' | head -n 1)   # the namespace's pid 1 (fio's main process)
  # shellcheck disable=SC2046
  [ -n "$init" ] && kill_frozen $(pgrep -P "$init") "$init"
  wait "$U" 2>/dev/null
  # the kernel kills the rest of the namespace when its init dies: wait until none of it is left
  i=0
  while [ $i -lt 300 ] && pgrep -f -- "--name=$1 " > /dev/null; do sleep 0.1; i=$((i + 1)); done
  pgrep -f -- "--name=$1 " > /dev/null && echo "FAIL: namespace of $1 still running 30 s after its init was killed" >&2
  privdirs | grep "\.$1\.0$"
}
for next in host ns; do
  left=$(kill_ns "killed$next")
  [ -n "$left" ] || { fail "SIGKILL: no directory left by the killed namespaced run (next: $next)"; continue; }
  [ -f "$D/$left/lock" ] || fail "SIGKILL: $left has no lock file"
  lpid=$(echo "$left" | cut -d. -f2)
  # The premise on the host: the small pid in the name is alive there (a real machine's low pids are). In a
  # pid namespace of its own (a build root entered with unshare -p) low pids are free: nothing to prove.
  [ $next = host ] && ! kill -0 "$lpid" 2>/dev/null &&
    echo "SKIP: reaping on the host: pid $lpid of $left is not alive here (this shell's pid namespace is not the machine's: low pids are free), so its removal proves nothing"
  du=$(du -sk "$D/$left" | cut -f1)
  if [ $next = host ]; then run after 1; else run after 1 unshare; fi
  ok_run after $? "run on the $next after a SIGKILLed namespace"
  if [ -e "$D/$left" ]; then fail "SIGKILL: $left (${du} KiB) was not removed by the next run on the $next"
  else echo "SIGKILLed namespace: $left (${du} KiB, pid $lpid) reaped by the next run on the $next"; fi
  unchanged "SIGKILL, reaped on the $next"
done
[ -z "$(privdirs)" ] || fail "left behind at the end: $(privdirs)"

finish it_pidns "it_pidns: host + namespace, two namespaces, SIGKILLed namespaces reaped on the host and in a namespace; etcd's files untouched"
