#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: alone
# it_check_limits.sh — what check promises when things go wrong around it, with the real
# fio and a fake etcd data directory:
#   A. --max-time is a hard limit with fio and its jobs SIGSTOPped: check ends them, says so, unknown, and
#      leaves nothing (nor any process) behind;
#   S. ... and with a fio deaf to SIGINT and SIGTERM (a stand-in script): ended by SIGKILL;
#   K. the temp directory of a SIGKILLed etcd-fio is reaped by the next run (its lock is the proof), and a
#      look-alike without that proof is never touched;
#   O. user-named outputs (--svg, --prometheus, --html, --keep-output, capacity's --html) inside member/ of
#      an etcd data directory, also through a symlinked parent or as a planted symlink, are refused before
#      fio starts, and so are a DIR or a TMPDIR there;
#   M. a fio that ends without output: one line, no empty "()";
#   L. a live etcd's WAL lock (a stand-in holding an OFD lock on a segment) is reported from this pid
#      namespace (with the holder's pid) and from a new one (by the lock alone) — root only.
# A and S run in the background while the others run. Waits are on events; no timing asserts.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$CLI" "$ENGINE"
command -v jq > /dev/null || { echo "skip: jq missing"; exit 77; }
T=$(mktemp -d /var/tmp/it_check_limits.XXXXXX) || exit 1
PIDS=""
cleanup() {
  [ -s "$T/stuck.pid" ] && kill -KILL "$(cat "$T/stuck.pid")" 2>/dev/null
  for p in $PIDS; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT INT TERM
QUICK="--faithful --max-time 6 --accept-point-estimate --min-syncs 10"
mkdir -p "$T/tmp" "$T/tmpA" "$T/tmpM" "$T/dirK" "$T/dirA" "$T/dirM"
gone() { [ ! -d "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
# wait_run PID DIR: until the check PID has fio running with the engine's private directory in DIR
wait_run() {
  i=0
  until ls -d "$2"/etcd-fio.* > /dev/null 2>&1 || [ $i -ge 300 ] || ! kill -0 "$1" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
  done
  ls -d "$2"/etcd-fio.* > /dev/null 2>&1
}

# ---- S. a fio that ignores SIGINT and SIGTERM (stuck, as one blocked on a dead NFS server is to them): the
# check still ends, by SIGKILL, within --max-time + its margin + two steps; runs beside the cases below ----
printf '#!/bin/sh\n[ "$1" = --version ] && { echo fio-3.33; exit 0; }\ntrap "" INT TERM\necho $$ > "%s"\nexec sleep 600\n' "$T/stuck.pid" > "$T/stuckfio"
chmod +x "$T/stuckfio"
mkdir -p "$T/dirS" "$T/tmpS"
TMPDIR=$T/tmpS FIO=$T/stuckfio "$CLI" check $QUICK --json "$T/dirS" > "$T/S.json" 2> "$T/S.err" &
CS=$!

# ---- K. a SIGKILLed check leaves its temp dir (locked by it while its fio lived); the next run reaps it ----
TMPDIR=$T/tmp "$CLI" check $QUICK "$T/dirK" > /dev/null 2>&1 &
CK=$!
wait_run $CK "$T/dirK" || bad "K: the check did not get fio going"
FK=$(pgrep -P $CK | head -n 1)
JK=$(pgrep -P "$FK" 2>/dev/null)
kill -KILL $CK
wait $CK 2>/dev/null
for p in $FK $JK; do i=0; while ! gone "$p" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; done
left_k=$(ls -d "$T"/tmp/etcd-fio-check.* 2>/dev/null)
[ -n "$left_k" ] && ok "K: the killed check left its temp dir ($left_k)" || bad "K: no temp dir left to reap"
# a look-alike of ours without the proof (no mark, no lock): must stay, with its file
mkdir -m 0700 "$T/tmp/etcd-fio-check.Planted" && echo keep > "$T/tmp/etcd-fio-check.Planted/notes"

# ---- A. fio and its jobs SIGSTOPped: --max-time is still the limit (the next run after K: it reaps K's) ----
TMPDIR=$T/tmp "$CLI" check $QUICK --json "$T/dirA" > "$T/A.json" 2> "$T/A.err" &
CA=$!
PIDS="$CA"
if wait_run $CA "$T/dirA"; then
  FA=$(pgrep -P $CA | head -n 1)
  JA=$(pgrep -P "$FA")
  kill -STOP $FA $JA
  PIDS="$CA $FA $JA"
else
  bad "A: the check did not get fio going: $(cat "$T/A.err")"
fi

# ---- O. outputs among etcd's files: refused before fio starts; etcd's files untouched ----
fake_etcd "$T/etcd"
st0=$(etcd_state "$T/etcd")
ln -s "$T/etcd/member" "$T/innocent"
for o in "--svg $T/etcd/member/x.svg" "--prometheus $T/etcd/member/wal/0000000000000000-0000000000000000.wal" \
         "--html $T/innocent/report.html" "--keep-output $T/etcd/member/keep" "--html $T/etcd/member/snap/db"; do
  # shellcheck disable=SC2086
  "$CLI" check $QUICK $o "$T/etcd" > "$T/o.out" 2> "$T/o.err"; rc=$?
  if [ $rc = 2 ] && grep -q "inside etcd's data directory" "$T/o.err" && [ ! -s "$T/o.out" ] &&
     ! ls -d "$T"/etcd/etcd-fio.* > /dev/null 2>&1; then
    ok "O: check ${o%% *} into member/ refused before fio: $(head -c 160 "$T/o.err")"
  else
    bad "O: check $o: exit $rc: $(cat "$T/o.err")"
  fi
done
# DIR itself, or TMPDIR, among etcd's files (member/wal, member/snap): refused before anything is made there
for d in member/wal member member/snap; do
  FIO=false "$CLI" check $QUICK "$T/etcd/$d" > /dev/null 2> "$T/o.err"; rc=$?
  [ $rc = 2 ] && grep -q "inside etcd's data directory" "$T/o.err" && ok "O: check DIR=$d refused" ||
    bad "O: check in $d: exit $rc: $(cat "$T/o.err")"
done
TMPDIR=$T/etcd/member/snap FIO=false "$CLI" check $QUICK "$T/dirM" > /dev/null 2> "$T/o.err"; rc=$?
[ $rc = 2 ] && grep -q "TMPDIR=.*inside etcd's data directory" "$T/o.err" && ok "O: TMPDIR in member/snap refused" ||
  bad "O: TMPDIR in member/snap: exit $rc: $(cat "$T/o.err")"
# a planted symlink as the output's own name, pointing at etcd's db: refused, never written through
ln -s "$T/etcd/member/snap/db" "$T/report-link.html"
"$CLI" check $QUICK --html "$T/report-link.html" "$T/etcd" > "$T/o.out" 2> "$T/o.err"; rc=$?
[ $rc = 2 ] && grep -q "is a symbolic link; refusing to write through it" "$T/o.err" && [ -L "$T/report-link.html" ] &&
  ok "O: an output name that is a symlink into member/ refused: $(head -c 140 "$T/o.err")" || bad "O: symlink output: exit $rc: $(cat "$T/o.err")"
# a hard link to etcd's db as the output name: the output replaces the name (rename), never the db's data
ln "$T/etcd/member/snap/db" "$T/report-hard.html"
TMPDIR=$T/tmpM FIO=false "$CLI" check $QUICK --html "$T/report-hard.html" "$T/etcd" > /dev/null 2> "$T/o.err"
[ "$(stat -c %h "$T/etcd/member/snap/db")" = 1 ] && grep -q "<html" "$T/report-hard.html" &&
  ok "O: a hard link to etcd's db as the output: replaced by name, the db keeps its data" ||
  bad "O: hard-linked output: links $(stat -c %h "$T/etcd/member/snap/db"): $(cat "$T/o.err")"
"$CLI" capacity --clients 1 --html "$T/innocent/cap.html" "$T/etcd" > /dev/null 2> "$T/o.err"; rc=$?
[ $rc = 2 ] && grep -q "inside etcd's data directory" "$T/o.err" && ok "O: capacity --html into member/ refused" ||
  bad "O: capacity: exit $rc: $(cat "$T/o.err")"
[ "$(etcd_state "$T/etcd")" = "$st0" ] && [ ! -e "$T/etcd/member/keep" ] && ok "O: etcd's files untouched" ||
  bad "O: etcd's files changed"

# ---- M. a fio that ends at once without output ----
mkdir -p "$T/dirM" "$T/tmpM"
TMPDIR=$T/tmpM FIO=false "$CLI" check $QUICK "$T/dirM" > "$T/M.out" 2> "$T/M.err"; rc=$?
if [ $rc = 2 ] && grep -q "no WAL job result in fio's output" "$T/M.err" && ! grep -q "()" "$T/M.err" "$T/M.out" &&
   head -n 1 "$T/M.out" | grep -q "fio exited with status 1"; then
  ok "M: $(head -n 1 "$T/M.err")"
else
  bad "M: exit $rc: $(cat "$T/M.err") / $(head -n 1 "$T/M.out")"
fi

# ---- L. a live etcd's WAL lock, seen from here and from another pid namespace ----
SEG="$T/etcd/member/wal/0000000000000000-0000000000000000.wal"
hold_wal_lock "$SEG" "$T/locked"
TMPDIR=$T/tmpM FIO=false "$CLI" check $QUICK --json "$T/etcd" > "$T/L.json" 2> "$T/L.err"
if jq -e --argjson p $HOLD --arg d "$T/etcd" '.details.live_etcd | .found and .wal_locked and .here and .pid == $p and
        .data_dir == $d' "$T/L.json" > /dev/null && grep -q "warning: a live etcd uses this filesystem" "$T/L.err"; then
  ok "L: the locked WAL and its holder (pid $HOLD) are named"
else
  bad "L: live etcd here: $(jq -c .details.live_etcd "$T/L.json") $(cat "$T/L.err")"
fi
# ... and in the text table and the HTML report too
TMPDIR=$T/tmpM FIO=false "$CLI" check -v $QUICK --html "$T/L.html" "$T/etcd" > "$T/L.txt" 2> /dev/null
if grep -q "live etcd" "$T/L.txt" && grep -q "$T/etcd" "$T/L.txt" && grep -q "live etcd" "$T/L.html" &&
   grep -q "shares the disk\|shared\|slows" "$T/L.html"; then
  ok "L: text and HTML say a live etcd shares the disk: $(grep -m 1 "live etcd" "$T/L.txt" | cut -c1-140)"
else
  bad "L: text/HTML: $(cat "$T/L.txt")"
fi
if unshare --pid --fork --mount-proc true 2>/dev/null; then
  TMPDIR=$T/tmpM FIO=false unshare --pid --fork --mount-proc "$CLI" check $QUICK --json "$T/etcd" > "$T/L2.json" 2> "$T/L2.err"
  if jq -e --arg d "$T/etcd" '.details.live_etcd | .found and .wal_locked and .pid == null and .data_dir == $d and
          (.how | test("not visible here"))' "$T/L2.json" > /dev/null; then
    ok "L: from another pid namespace, by the lock alone: $(jq -r .details.live_etcd.how "$T/L2.json")"
  else
    bad "L: live etcd from a pid namespace: $(jq -c .details.live_etcd "$T/L2.json") $(cat "$T/L2.err")"
  fi
else
  echo "SKIP: L in another pid namespace (unshare --mount-proc needs root, and / a mount point: not in a plain chroot)"
fi
rm -f "$T/locked"
wait $HOLD
[ "$(etcd_state "$T/etcd")" = "$st0" ] || bad "L: etcd's files changed"

# ---- A's end ----
wait $CA; rc=$?
PIDS=""
reason=$(jq -r .reason "$T/A.json" 2>/dev/null)
if [ $rc = 2 ] && echo "$reason" | grep -q "still running after its runtime of 6 s (it was stopped: SIGSTOP"; then
  ok "A: stopped fio ended at --max-time: $(echo "$reason" | cut -c1-150)"
  echo "A: check ended $(jq -r .details.run.seconds "$T/A.json") s after fio started, of --max-time 6"
else
  bad "A: exit $rc: $reason $(cat "$T/A.err")"
fi
for p in $FA $JA; do i=0; while ! gone "$p" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; gone "$p" || bad "A: pid $p still there"; done
[ -z "$(ls -A "$T/dirA")" ] && ok "A: nothing left in DIR" || bad "A: left in DIR: $(ls -A "$T/dirA")"
left=$(ls -A "$T/tmp")
[ "$left" = "etcd-fio-check.Planted" ] && [ -e "$T/tmp/etcd-fio-check.Planted/notes" ] &&
  ok "K: the killed check's temp dir was reaped by the next run; the look-alike without the proof stays" ||
  bad "K: TMPDIR holds: $left"
[ -z "$(ls -A "$T/dirK")" ] || bad "K: the killed check's DIR holds: $(ls -A "$T/dirK")"
[ -z "$(ls -A "$T/tmpM")" ] || bad "M/L: TMPDIR holds: $(ls -A "$T/tmpM")"
# ---- S's end ----
wait $CS; rc=$?
reason=$(jq -r .reason "$T/S.json" 2>/dev/null)
if [ $rc = 2 ] && echo "$reason" | grep -q "^fio was still running after its runtime of 6 s: ended by etcd-fio at --max-time" &&
   [ -s "$T/stuck.pid" ] && ! kill -0 "$(cat "$T/stuck.pid")" 2>/dev/null; then
  ok "S: a fio deaf to SIGINT/SIGTERM ended by SIGKILL after $(jq -r '.details.run.seconds | floor' "$T/S.json") s: $(echo "$reason" | cut -c1-100)"
else
  bad "S: exit $rc: $reason $(cat "$T/S.err")"
fi
[ -z "$(ls -A "$T/dirS")$(ls -A "$T/tmpS")" ] || bad "S: left: $(ls -A "$T/dirS" "$T/tmpS")"
finish it_check_limits
