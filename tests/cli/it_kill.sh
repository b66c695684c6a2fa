#!/bin/sh
# SPDX-License-Identifier: MIT
# it_kill.sh — never outlive a kill (issue 27): a SIGKILL of etcd-fio's whole process group — fio's job
# processes sit in sessions of their own, so only the engine's PR_SET_PDEATHSIG ends them — leaves no
# process with a file open in DIR and nothing of ours in DIR, at several moments: as the issue did it
# (`timeout -s KILL 8 etcd-fio check`), as soon as the jobs run, during phase 2, and right at the start
# (before or during the write probe: whatever is left then is reaped by the next run). Without the engine's
# PDEATHSIG, 2 and 3 fail (their jobs write on for minutes); 1 may not (a phase-1 job ends at 10 s anyway).
# A directory with our
# name that we did not make (empty etcd-fio.99999.etcd-backend.tmp-abcdef) stays through all of it. The
# end state is polled for (up to 30 s) and asserted; how long it took is printed (the issue asks for 2 s).
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI"
command -v setsid >/dev/null 2>&1 || { echo "skip: setsid missing"; exit 77; }
WORK=$(mktemp -d "$TOP/$BUILD/it_kill.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_kill.XXXXXX) || exit 1
grp=""
trap 'for g in $grp; do env kill -s KILL -- "-$g" 2>/dev/null; done; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
PLANT=etcd-fio.99999.etcd-backend.tmp-abcdef

# writers DIR: pids of processes with a file or their cwd in DIR
writers() {
  for p in /proc/[0-9]*; do
    ls -l "$p/fd" "$p/cwd" 2>/dev/null | grep -q -- "-> $1/" && echo "${p#/proc/}"
  done
}
# ours DIR: what is in DIR besides the planted directory
ours() { ls -A "$1" | grep -vx "$PLANT"; }
# settle NAME DIR: poll (20 ms steps, up to 30 s) for no writer and nothing of ours; prints the time taken
settle() {
  t0=$(date +%s%N) i=0
  while [ $i -lt 1500 ]; do
    [ -z "$(writers "$2")" ] && [ -z "$(ours "$2")" ] && break
    sleep 0.02; i=$((i + 1))
  done
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  w=$(writers "$2")
  [ -z "$w" ] || { fail "$1: still writing in DIR after 30 s: $(for p in $w; do tr '\0' ' ' < /proc/$p/cmdline; echo; done)"; }
  [ -z "$(ours "$2")" ] || fail "$1: left in DIR: $(ours "$2" | tr '\n' ' ')"
  [ -d "$2/$PLANT" ] || fail "$1: the planted $PLANT (not ours) was removed"
  note=""; [ "$ms" -le 2000 ] || note=" (more than the issue's 2 s)"
  echo "$1: no writer and DIR clean ${ms} ms after the kill$note"
}
mkd() { mkdir -p "$WORK/$1" && mkdir -m 0755 "$WORK/$1/$PLANT" && echo "$WORK/$1"; }
# until_dirs DIR N PID: wait (up to 60 s, while PID lives) until private directories of N distinct fio pids
# have been seen (phase 1's are gone before phase 2's appear)
until_dirs() {
  i=0 seen=""
  while [ $i -lt 3000 ] && kill -0 "$3" 2>/dev/null; do
    for p in $(ls "$1" | sed -n 's/^etcd-fio\.\([0-9]*\)\.etcd-wal\.[0-9]*$/\1/p'); do
      case " $seen " in *" $p "*) ;; *) seen="$seen $p" ;; esac
    done
    [ "$(echo $seen | wc -w)" -ge "$2" ] && return 0
    sleep 0.02; i=$((i + 1))
  done
  return 1
}

# 1. as in the issue: timeout kills the whole group after 8 s (timeout leads its own process group)
d1=$(mkd t8)
timeout -s KILL 8 "$CLI" check "$d1" > "$WORK/t8.out" 2>&1 & t8=$!
# 2. as soon as the jobs run (--faithful: one run of --max-time's 120 s, so a job that outlived fio would
# still be writing when the 30 s are up); 3. in phase 2 after phase 1 (a second fio's directories)
d2=$(mkd jobs); d3=$(mkd phase2)
setsid "$CLI" check --faithful "$d2" > "$WORK/jobs.out" 2>&1 & g2=$!
grp="$g2"
if until_dirs "$d2" 1 $g2; then env kill -s KILL -- "-$g2"; wait $g2 2>/dev/null; settle "jobs running" "$d2"
else fail "jobs running: no private directory appeared"; cat "$WORK/jobs.out"; fi
setsid "$CLI" check "$d3" > "$WORK/phase2.out" 2>&1 & g3=$!
grp="$g3"
if until_dirs "$d3" 2 $g3; then env kill -s KILL -- "-$g3"; wait $g3 2>/dev/null; settle "phase 2" "$d3"
else env kill -s KILL -- "-$g3" 2>/dev/null; wait $g3 2>/dev/null; echo "SKIP part 3: no phase 2 within 60 s (phase 1 decided?)"; fi
wait $t8
settle "timeout -s KILL 8" "$d1"

# 4. killed right at the start, several times: before, during or after the write probe and fio's start.
# Whatever a kill leaves (a probe or staging directory) is reaped by the next run, never left for good.
d4=$(mkd start)
for k in 1 2 3 4 5; do
  setsid "$CLI" check "$d4" > /dev/null 2>&1 & g=$!
  grp="$g"
  [ $k -gt 1 ] && sleep 0.0$k  # spread the moments; the assertions do not depend on them
  env kill -s KILL -- "-$g" 2>/dev/null; wait $g 2>/dev/null
done
i=0; while [ $i -lt 1500 ] && [ -n "$(writers "$d4")" ]; do sleep 0.02; i=$((i + 1)); done
[ -z "$(writers "$d4")" ] || fail "start: still writing in DIR"
"$FIO" --name=reap --ioengine=external:"$ENGINE" --directory="$d4" --rw=write --bs=2300 --size=23k --fdatasync=1 \
  > "$WORK/reap.out" 2>&1 || { fail "start: the reaping run failed"; cat "$WORK/reap.out"; }
[ -z "$(ours "$d4")" ] || fail "start: left in DIR after the next run: $(ours "$d4" | tr '\n' ' ')"
[ -d "$d4/$PLANT" ] || fail "start: the planted $PLANT (not ours) was removed"

[ $bad -eq 0 ] || exit 1
echo "kill: no writer and DIR clean after SIGKILLs of the whole group; a directory we did not make stays"
