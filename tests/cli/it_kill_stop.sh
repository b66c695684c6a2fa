#!/bin/sh
# SPDX-License-Identifier: MIT
# it_kill_stop.sh — never outlive a kill (issue 27), the cases it_kill.sh does not cover:
#  1. `check --classic` SIGKILLed with its whole group while the classic job (fio's sync engine, with its
#     fdatasync slowed to 5 ms by the fault shim so that it would run ~50 s) writes: no writer and DIR clean
#     soon after. Without the fix its job process (own session) writes on to the end and leaves
#     DIR/etcd-fio-classic.XXXXXX/classic.0.0.
#  2. fio's main process SIGSTOPped, then etcd-fio alone SIGKILLed: no writer and DIR clean soon after.
#     Without the fix the SIGTERM fio gets for etcd-fio's death stays pending on the stopped fio and its job
#     processes write on until their runtime.
#  2c. one job process SIGSTOPped, then etcd-fio's group SIGKILLed: no writer and DIR clean soon after.
#     Without the fix the stopped job keeps its SIGTERM pending and its files in DIR until it is continued.
#  2b. fio SIGKILLed very early — as soon as its first job process exists (waiting at fio's start semaphore,
#     before any engine hook runs in it) and at random moments of its first 0.8 s — and etcd-fio SIGKILLed as
#     soon as its fio's first job exists: no job process survives and DIR is clean. Without the fix a job
#     still waiting at the semaphore when fio dies waits there forever.
#  3. one job process SIGKILLed (as the OOM killer does) while etcd-fio lives: check says unknown, and when it
#     has returned nothing of ours is left in DIR. Without the fix that job's private directory stays (its
#     lock free) until the next run.
# Directories with our names that we did not make stay through all of it. Each end state is polled for (up
# to KILL_POLL_S, default 15 s; the cases without the fix write for 50-60 s) and asserted; how long it took
# is printed (bench/README.md "Kills" has the numbers).
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI" "$SHIM"
for c in setsid jq; do command -v $c >/dev/null 2>&1 || { echo "skip: $c missing"; exit 77; }; done
POLL_S=${KILL_POLL_S:-15}
WORK=$(mktemp -d "$TOP/$BUILD/it_kill_stop.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_kill_stop.XXXXXX) || exit 1
pids=""  # whatever we started that might be left (a stopped fio, orphaned jobs): SIGKILLed at the end
cleanup() {
  for p in $pids; do kill -KILL "$p" 2>/dev/null; done
  for p in $(pgrep -f "$WORK/" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
PLANTS="etcd-fio.99999.etcd-wal.tmp-abcdef etcd-fio-classic.abcdef"

# writers DIR: pids of processes with a file or their cwd in DIR; procs DIR: processes whose command line
# names DIR (fio and its job processes: the jobs keep fio's argv)
writers() {
  find /proc/[0-9]*/fd /proc/[0-9]*/cwd -maxdepth 1 -lname "$1/*" 2>/dev/null | cut -d/ -f3 | sort -u
}
procs() { pgrep -f -- "$1" 2>/dev/null; }
ours() { ls -A "$1" | grep -vxF "$(echo "$PLANTS" | tr ' ' '\n')"; }
mkd() { mkdir -p "$WORK/$1" && for p in $PLANTS; do mkdir -m 0755 "$WORK/$1/$p"; done && echo "$WORK/$1"; }
# settle NAME DIR [PROCS]: poll (20 ms steps, up to POLL_S) for no writer in DIR (with PROCS, no process
# naming DIR either) and nothing of ours in it; prints how long each took (the first /proc scan included)
settle() {
  t0=$(date +%s%N) mw=""
  while [ $(( ($(date +%s%N) - t0) / 1000000000 )) -lt "$POLL_S" ]; do
    [ -z "$(writers "$2")" ] && { [ -z "${3:-}" ] || [ -z "$(procs "$2")" ]; } &&
      { [ -n "$mw" ] || mw=$(( ($(date +%s%N) - t0) / 1000000 )); [ -z "$(ours "$2")" ]; } && break
    sleep 0.02
  done
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  w=$(writers "$2"); [ -n "${3:-}" ] && w="$w $(procs "$2")"
  b0=$bad
  for p in $w; do
    fail "$1: still running after $POLL_S s: $p $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"
    kill -KILL "$p" 2>/dev/null
  done
  [ -z "$(ours "$2")" ] || fail "$1: left in DIR after $POLL_S s: $(ours "$2" | tr '\n' ' ')"
  for p in $PLANTS; do [ -d "$2/$p" ] || fail "$1: the planted $p (not ours) was removed"; done
  if [ $bad = $b0 ]; then echo "$1: no writer ${mw} ms, DIR clean ${ms} ms after the kill"
  elif [ -n "$mw" ]; then echo "$1: no writer ${mw} ms after the kill, but DIR not clean"; fi
  for x in $(ours "$2"); do rm -rf "${2:?}/$x"; done  # the next case in DIR starts clean
}
# until_ls DIR PATTERN PID: wait (up to 60 s, while PID lives) for a name of ours matching the grep -E
# PATTERN in DIR
until_ls() {
  t0=$(date +%s)
  while [ $(($(date +%s) - t0)) -lt 60 ] && kill -0 "$3" 2>/dev/null; do
    ours "$1" | grep -Eq "$2" && return 0
    sleep 0.02
  done
  return 1
}
WALDIR='^etcd-fio\.[0-9]+\.etcd-wal\.[0-9]+$'

# 3 runs beside the others: a check of 10 s whose WAL job is SIGKILLed once it has its directory
d3=$(mkd oom)
# (what DIR holds is listed the moment check returns)
{ "$CLI" check --faithful --force --max-time 15 --min-syncs 50 --accept-point-estimate --json "$d3" \
    > "$WORK/oom.json" 2> "$WORK/oom.err"
  echo $? > "$WORK/oom.rc"; date +%s%N > "$WORK/oom.end"; ours "$d3" > "$WORK/oom.left"; } & c3=$!
pids="$c3"
if until_ls "$d3" "$WALDIR" $c3; then
  job=$(ls "$d3" | grep -E "$WALDIR" | sed 's/^etcd-fio\.\([0-9]*\)\..*/\1/' | head -n1)
  sleep 0.5; kill -KILL "$job"
  k3=$(date +%s%N)
else fail "oom: no WAL directory appeared"; fi

# 1. check --classic, the whole group SIGKILLed while the classic job writes (slowed: ~50 s to its end)
d1=$(mkd classic)
shimfio=$(fio_with_shim "$WORK/shim")
FIO=$shimfio FAULT_CALL=fdatasync FAULT_DELAY_MS=5 FAULT_PATH_SUBSTR=etcd-fio-classic. \
  setsid "$CLI" check --classic --wal-only --force "$d1" > "$WORK/classic.out" 2>&1 & g1=$!
pids="$pids $g1"
if until_ls "$d1" '^etcd-fio-classic\.[A-Za-z0-9]{6}$' $g1 &&
   until_ls "$d1/$(ours "$d1" | grep -E '^etcd-fio-classic\.' | head -n1)" '^classic\.0\.0$' $g1 &&
   sleep 0.5 && [ -n "$(writers "$d1")" ]; then
  env kill -s KILL -- "-$g1"; wait $g1 2>/dev/null
  settle "classic job, group SIGKILLed" "$d1"
else
  env kill -s KILL -- "-$g1" 2>/dev/null; fail "classic: its job did not start writing"; cat "$WORK/classic.out"
fi

# 2. fio's main process stopped, then etcd-fio alone SIGKILLed (as the OOM killer or a kubelet does)
d2=$(mkd stopped)
setsid "$CLI" check --faithful --force --max-time 60 "$d2" > "$WORK/stopped.out" 2>&1 & g2=$!
pids="$pids $g2"
if until_ls "$d2" "$WALDIR" $g2 && f2=$(pgrep -P $g2 | head -n1) && [ -n "$f2" ]; then
  pids="$pids $f2"
  kill -STOP "$f2"; kill -KILL $g2; wait $g2 2>/dev/null
  settle "fio stopped, etcd-fio SIGKILLed" "$d2"
else
  env kill -s KILL -- "-$g2" 2>/dev/null; fail "stopped: no WAL directory appeared"; cat "$WORK/stopped.out"
fi

# 2c. one job process stopped, then etcd-fio's whole group SIGKILLed: the job's pending SIGTERM (its death
# signal) acts once a sibling job, ending, continues it
d5=$(mkd stoppedjob)
setsid "$CLI" check --faithful --force --max-time 60 "$d5" > "$WORK/stoppedjob.out" 2>&1 & g5=$!
pids="$pids $g5"
if until_ls "$d5" "$WALDIR" $g5 && until_ls "$d5" '^etcd-fio\.[0-9]+\.etcd-backend\.[0-9]+$' $g5 &&
   j5=$(ls "$d5" | grep -E "$WALDIR" | sed 's/^etcd-fio\.\([0-9]*\)\..*/\1/' | head -n1) && [ -n "$j5" ]; then
  pids="$pids $j5"
  sleep 0.3; kill -STOP "$j5"; env kill -s KILL -- "-$g5"; wait $g5 2>/dev/null
  settle "a job stopped, etcd-fio's group SIGKILLed" "$d5"
else
  env kill -s KILL -- "-$g5" 2>/dev/null; fail "stopped job: no WAL and backend directories appeared"; cat "$WORK/stoppedjob.out"
fi

# 2b. fio SIGKILLed early: its first job process exists (k = 1, 3, 5) or at a random moment of its first
# 0.8 s; etcd-fio SIGKILLed as soon as its fio's first job exists (k = 7, 8)
d4=$(mkd early)
k=1
while [ $k -le 8 ]; do
  if [ $k -le 6 ]; then
    "$FIO" --ioengine=external:"$ENGINE" --directory="$d4" --rw=write --bs=2300 --size=1g --fdatasync=1 \
      --time_based --runtime=30 --name=etcd-wal --name=etcd-backend --etcd_mode=backend --bs=4096 \
      > /dev/null 2>&1 & p=$!
    victim=$p fio=$p
  else
    setsid "$CLI" check --faithful --force --max-time 60 "$d4" > /dev/null 2>&1 & p=$!
    victim=$p fio=""
  fi
  pids="$pids $p"
  if [ $((k % 2)) = 1 ] || [ $k -ge 7 ]; then
    i=0
    while [ $i -lt 1000 ] && kill -0 $p 2>/dev/null; do
      [ -z "$fio" ] && fio=$(pgrep -P $p | head -n1)
      [ -n "$fio" ] && [ -n "$(pgrep -P "$fio")" ] && break
      sleep 0.005; i=$((i + 1))
    done
    [ -n "$fio" ] && [ -n "$(pgrep -P "$fio")" ] || fail "early $k: no job process appeared"
  else
    sleep "0.$(shuf -i 0-8 -n 1)$(shuf -i 0-9 -n 1)"
  fi
  kill -KILL $victim; wait $p 2>/dev/null
  settle "early $k" "$d4" procs
  k=$((k + 1))
done

# 3. (started first) check returns: unknown, and nothing of ours left at that moment
if [ -n "${k3:-}" ]; then
  wait $c3
  r3=$(cat "$WORK/oom.rc") ms=$(( ($(cat "$WORK/oom.end") - k3) / 1000000 )) left=$(cat "$WORK/oom.left")
  if [ "$r3" = 2 ] && [ -z "$left" ] && [ -z "$(writers "$d3")" ] &&
     jq -e '.verdict == "unknown" and (.reason | test("signal 9"))' "$WORK/oom.json" > /dev/null; then
    echo "one job SIGKILLed: check returned unknown ${ms} ms after the kill, DIR clean at that moment"
  else
    fail "one job SIGKILLed: check exited $r3; left in DIR when it returned: $(echo $left)"
    head -c 2000 "$WORK/oom.err"
  fi
  for p in $PLANTS; do [ -d "$d3/$p" ] || fail "oom: the planted $p (not ours) was removed"; done
fi

[ $bad -eq 0 ] || exit 1
echo "kill: no writer and DIR clean after a group kill during --classic, a kill of etcd-fio beside a stopped fio," \
  "early kills of fio, and one job's SIGKILL; directories we did not make stay"
