#!/bin/sh
# SPDX-License-Identifier: MIT
# it_handover.sh — real fio 3.33 outputs as operators hand them over (tests/fixtures/handover/, made by
# tests/gen/gen-fixtures-handover.sh): a failing run reads as the same FAIL, with the same p99, through every
# prefix and encoding (kubectl --timestamps, CRI logs with partial records, journalctl, GitHub Actions,
# mail quoting of any depth, UTF-16LE/BE and UTF-8 BOMs, CRLF, trailing blanks, tabs); runs pasted
# together are never merged on a guess; syncs fio counted but did not time, and fio's option values
# cut at ',' or ':', are never a PASS; fio's job errors in fio's own words.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
FX=$(cd "$(dirname "$0")/.." && pwd)/fixtures/handover
[ -x "$BIN" ] || { echo "it_handover: $BIN not built"; exit 1; }
command -v jq >/dev/null || { echo "it_handover: skipped: jq not installed"; exit 77; }
T=$(mktemp -d /tmp/it_handover.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails+1)); }

# verdict FILE: exit status in $rc, JSON in $T/out.json
verdict() { "$BIN" verdict --json "$1" > "$T/out.json" 2> "$T/err"; rc=$?; }
# jq over the last verdict's JSON (an empty output fails)
q() { [ -s "$T/out.json" ] && jq -e "$@" "$T/out.json" > /dev/null; }

# the plain runs: the failing one fails, the passing ones pass (so a combination that passes hides a FAIL)
verdict "$FX/fio-3.33-slow.txt"
P99=$(jq -r '.hosts[0].jobs[0].p99_ns' "$T/out.json")
[ $rc = 1 ] && [ "$P99" -ge 10000000 ] && ok "slow run: FAIL, p99 $P99 ns" || bad "slow run: exit $rc, p99 $P99"
for f in fio-3.33-fast.txt fio-3.33-pidns-fast.txt; do
  verdict "$FX/$f"; [ $rc = 0 ] && ok "$f: PASS alone" || bad "$f: exit $rc"
done

# every hand-over form of the failing run: FAIL, job slowdisk, the same p99
for f in hand-kubectl-ts.txt hand-cri.log hand-journalctl.txt hand-gha.txt hand-quoted-gtgt.txt hand-utf16le.txt \
         hand-utf16be.txt hand-trailing-blanks.txt hand-crlf.txt hand-tabs.txt; do
  verdict "$FX/$f"
  if [ $rc = 1 ] && q --argjson p "$P99" '[.hosts[].jobs[]] | length == 1 and .[0].name == "slowdisk"
        and .[0].p99_ns == $p and .[0].verdict == "fail"'; then ok "$f: the same FAIL"; else bad "$f: exit $rc"; fi
done
# JSON handed over: kubectl timestamps, UTF-16LE (PowerShell 5), UTF-8 BOM (PowerShell 7): the JSON's FAIL
verdict "$FX/fio-3.33-slow.json"
JP=$(jq -r '.hosts[0].jobs[0].p99_ns' "$T/out.json")
for f in hand-kubectl-ts.json hand-utf16le.json hand-utf8bom.json; do
  verdict "$FX/$f"
  if [ $rc = 1 ] && q --argjson p "$JP" '.hosts[0].jobs[0].p99_ns == $p'; then ok "$f: the JSON's FAIL"
  else bad "$f: exit $rc: $(head -c 200 "$T/err")"; fi
done
# two outputs in one hand-over: the failing one is read as a run of its own and fails the whole
for f in hand-mail-reply.txt hand-mail-reply2.txt hand-kubectl-prefix.txt hand-pidns-pasted.txt hand-pidns-blocks.txt; do
  verdict "$FX/$f"
  if [ $rc = 1 ] && q '[.hosts[].jobs[]] | length == 2 and (map(.verdict) | sort == ["fail", "pass"])
        and (.[0].run != .[1].run)'; then ok "$f: two runs, FAIL"; else bad "$f: exit $rc"; fi
done
# syncs fio counted but did not time (gtod_reduce=1), appended to a passing run: UNKNOWN, never PASS
verdict "$FX/hand-fast-then-untimed.txt"
if [ $rc = 2 ] && q '[.hosts[].jobs[] | select(.name == "untimed")][0] | .verdict == "unknown"
      and (.reason | test("fio counted [0-9]+ syncs of this job but timed none"))'; then ok "untimed syncs: UNKNOWN"
else bad "untimed syncs: exit $rc"; fi
# sync= values fio cuts at ',' / ':' (parse.c opt_len): read as O_SYNC / O_DSYNC, from the JSON's options
for f in sync-dsync-comma:O_DSYNC sync-1-comma:O_SYNC sync-sync-colon:O_SYNC sync-1-colon0:O_SYNC; do
  verdict "$FX/fio-3.33-${f%%:*}.json"
  if [ $rc = 2 ] && q --arg w "${f#*:}" '.hosts[0].jobs[0].syncs == "fdatasync after \($w) writes"'; then
    ok "${f%%:*}: ${f#*:}"; else bad "${f%%:*}: exit $rc, syncs $(jq -c '.hosts[0].jobs[0].syncs' "$T/out.json")"; fi
done
verdict "$FX/fio-3.33-fdatasync-0-comma.json"
[ $rc = 2 ] && q '.hosts[0].jobs[0].syncs == "none"' && ok "fdatasync=0,1 is 0" || bad "fdatasync=0,1: exit $rc"
verdict "$FX/fio-3.33-fsync-on-close.json"
q '.hosts[0].jobs[0].reason | startswith("fsync_on_close=1 makes one fsync as each file is closed")' &&
  ok "fsync_on_close=1 named as itself" || bad "fsync_on_close: $(jq -c '.hosts[0].jobs[0].reason' "$T/out.json")"
# a job error in fio's words (err=25 ENOTTY of trim on a file), in text and JSON
for f in fio-3.33-trim-error.txt fio-3.33-trim-error.json; do
  verdict "$FX/$f"
  if [ $rc = 2 ] && q '.hosts[0].jobs[0].reason | test("err=25 \\(Inappropriate ioctl for device")
        and (test("died|killed|got signal") | not)'; then ok "$f: fio's error text"; else bad "$f: exit $rc"; fi
done
# a job that failed before any result: fio's own error line, not "output cut short"
"$BIN" verdict "$FX/fio-3.33-libaio-null-error.txt" > /dev/null 2> "$T/err"; rc=$?
if [ $rc = 2 ] && grep -q "fio-3.33-libaio-null-error.txt:6: fio stopped the job on its error before any result: .*error=Invalid argument" "$T/err"
then ok "libaio on /dev/null: fio's error line"; else bad "libaio on /dev/null: exit $rc: $(cat "$T/err")"; fi
[ $fails = 0 ] || { echo "it_handover: $fails failed"; exit 1; }
echo "it_handover: all ok"
