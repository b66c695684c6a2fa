#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=ports
# it_capacity_quorum.sh — `etcd-fio capacity --member` (three members) on three real `fio --server`s on
# 127.0.0.1 whose directories are plain temp dirs: a small run (two client counts, 1 s each) whose rows are
# the quorum of three members (each member's line, the shared-filesystem note, the JSON against
# doc/etcd-fio.schema.json, nothing left in any member's DIR); one member unreachable and one member's server
# connection killed mid-run leave the rows unknown naming that member, never a ceiling; the largest --rtt
# replays honestly (a put takes at least the round trip); bad --member / --rtt values refused before
# anything runs; SIGINT and SIGKILL of etcd-fio mid-run leave nothing on the members. No timing asserts.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/etcd-fio"
HERE=$(cd "$(dirname "$0")/.." && pwd)
FIO=${FIO:-fio}
. "$HERE/lib/lib.sh"
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }
command -v "$FIO" >/dev/null || { echo "skip: fio not installed"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
tmp=$(mktemp -d "$(pwd)/build/it_capacity_quorum.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_capacity_quorum.XXXXXX)
pids=""   # the servers (lib.sh: stop_pids, kids)
cleanup() {
  trap - EXIT INT TERM HUP PIPE
  # shellcheck disable=SC2086
  stop_pids $pids $(kids)
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
empty() { [ -z "$(ls -A "$1")" ]; }

mkdir -p "$tmp/t" && export TMPDIR="$tmp/t"   # capacity's job files: none may be left behind
SRV=$tmp/fio-server
fio_server_wrapper "$SRV"
base=$((20000 + $$ % 20000))
P1=$(free_port $base); P2=$(free_port $((P1 + 1))); P3=$(free_port $((P2 + 1))); PNONE=$(free_port $((P3 + 1)))
for n in 1 2 3; do
  eval "p=\$P$n"
  mkdir -p "$tmp/d$n"
  "$SRV" --server=ip:127.0.0.1,$p > "$tmp/srv$n.log" 2>&1 &
  pids="$pids $!"
  wait_listen "$p"
done
M="--member ip:127.0.0.1,$P1=$tmp/d1 --member ip:127.0.0.1,$P2=$tmp/d2 --member ip:127.0.0.1,$P3=$tmp/d3"
SHORT="--clients 1,4 --step 1 --max-time 3"

# 1. bad options: refused at once (exit 2), nothing run
for bad in "--rtt -1" "--rtt 1001" "--rtt nan" "--rtt inf"; do
  # shellcheck disable=SC2086
  "$BIN" capacity $SHORT $M $bad > "$tmp/o" 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && grep -q -- '--rtt' "$tmp/e" && ok "$bad refused" || fail "$bad: exit $rc $(cat "$tmp/e")"
done
# shellcheck disable=SC2086
for bad in "--member ip:127.0.0.1,$P1=$tmp/d1 --member ip:127.0.0.1,$P2=$tmp/d2" \
           "$M --member ip:127.0.0.1,$PNONE=$tmp/d3" \
           "--member ip:127.0.0.1,$P1=$tmp/d1 --member ip:127.0.0.1,$P1=$tmp/d2 --member ip:127.0.0.1,$P3=$tmp/d3" \
           "--member ip:127.0.0.1,$P1=rel/dir --member ip:127.0.0.1,$P2=$tmp/d2 --member ip:127.0.0.1,$P3=$tmp/d3" \
           "--member ip:127.0.0.1,$P1= --member ip:127.0.0.1,$P2=$tmp/d2 --member ip:127.0.0.1,$P3=$tmp/d3"; do
  "$BIN" capacity $SHORT $bad > "$tmp/o" 2> "$tmp/e"; rc=$?
  [ $rc = 2 ] && [ -s "$tmp/e" ] && ok "refused: $(head -c 120 "$tmp/e")" || fail "not refused ($rc): $bad"
done

"$BIN" capacity $SHORT --rtt 1 "$tmp/d1" > "$tmp/o" 2> "$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q -- '--rtt: only with three --member' "$tmp/e" && ok "--rtt without --member refused" || fail "--rtt alone: exit $rc"

# 2. a small run on three members: the quorum rows, each member's line, no ceiling without the confirmation
# shellcheck disable=SC2086
"$BIN" capacity $SHORT $M > "$tmp/table.txt" 2> "$tmp/table.err"; rc=$?
cat "$tmp/table.txt"
case $rc in 1|2) ok "three members: exit $rc (no ceiling without the confirmation run)" ;; *) fail "three members: exit $rc"; cat "$tmp/table.err" ;; esac
for c in 1 4; do
  awk -v c=$c '$1 == c && $2 > 0 {f=1} END {exit !f}' "$tmp/table.txt" && ok "quorum row of $c clients" || fail "no quorum row for $c clients"
done
[ "$(grep -c 'member [123].*WAL p99' "$tmp/table.txt")" -ge 6 ] && ok "each member's line under each row" || fail "members' lines"
grep -q 'member 1 (leader)' "$tmp/table.txt" && ok "the first member is the leader" || fail "no leader line"
grep -q 'note: members 1, 2 and 3 share one filesystem' "$tmp/table.txt" && ok "says the three share one filesystem" \
  || fail "no shared-filesystem note"
wait_kids
for n in 1 2 3; do empty "$tmp/d$n" && ok "nothing left in member $n's DIR" || { fail "left in d$n:"; ls -la "$tmp/d$n"; }; done
empty "$tmp/t" && ok "no job file left" || fail "left in TMPDIR: $(ls "$tmp/t")"

# 3. --json against the schema; the largest --rtt: a put takes at least the round trip
# shellcheck disable=SC2086
"$BIN" capacity --clients 1 --step 1 --max-time 3 $M --rtt 1000 --json > "$tmp/cap.json" 2> "$tmp/cap.err"; rc=$?
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
  /usr/bin/python3 "$HERE/lib/validate_json.py" "$tmp/cap.json" && ok "--member --json matches the schema" || fail "schema"
else echo "SKIP: python3-jsonschema not installed: schema not checked"; fi
jq -e '.details.capacity.rtt_ms == 1000 and (.details.capacity.rows[0] | .ran and .latency_p50_ns >= 1000000000
       and .writes_per_s <= 1.01 and (.members | length) == 3 and .members[0].leader and ([.members[] | select(.decides)] | length) == 1)' \
  "$tmp/cap.json" > /dev/null && ok "--rtt 1000: p50 >= 1 s, at most 1 write/s, three members, one decides" \
  || { fail "--rtt 1000 JSON (exit $rc)"; head -c 3000 "$tmp/cap.json"; cat "$tmp/cap.err"; }
wait_kids

# 4. one member unreachable: the rows are unknown and name it, no ceiling
# shellcheck disable=SC2086
"$BIN" capacity $SHORT --member ip:127.0.0.1,$P1=$tmp/d1 --member ip:127.0.0.1,$P2=$tmp/d2 \
  --member ip:127.0.0.1,$PNONE=$tmp/d3 > "$tmp/unr.txt" 2> "$tmp/unr.err"; rc=$?
cat "$tmp/unr.txt"
[ $rc = 2 ] && ok "a member unreachable: exit 2" || fail "a member unreachable: exit $rc"
grep -q "^ *1 .*member 3 (ip:127.0.0.1,$PNONE): no results" "$tmp/unr.txt" && ok "the row names the unreachable member" \
  || fail "row does not name member 3"
grep -q '^unknown: ' "$tmp/unr.txt" && ok "no ceiling" || fail "not unknown"
wait_kids
for n in 1 2; do empty "$tmp/d$n" && ok "nothing left in member $n's DIR" || fail "left in d$n"; done

# 5. member 2's server connection killed mid-run: unknown naming it, nothing left
# shellcheck disable=SC2086
"$BIN" capacity --clients 1 --step 4 --max-time 8 $M > "$tmp/kill.txt" 2> "$tmp/kill.err" &
cap=$!
srv2=$(echo $pids | cut -d' ' -f2)
i=0; while [ -z "$(pgrep -P "$srv2")" ] || empty "$tmp/d2"; do
  i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1; done
child=$(pgrep -P "$srv2" | head -1)
[ -n "$child" ] && kill -KILL "$child"
wait $cap; rc=$?
cat "$tmp/kill.txt"
[ -n "$child" ] && ok "killed member 2's server connection $child mid-run" || fail "member 2's job never started"
[ $rc = 2 ] && ok "a member killed mid-run: exit 2" || fail "a member killed mid-run: exit $rc"
grep -q "member 2 (ip:127.0.0.1,$P2)" "$tmp/kill.txt" && grep -q '^unknown: ' "$tmp/kill.txt" \
  && ok "unknown, naming member 2" || fail "does not name member 2"
wait_kids
i=0; while ! { empty "$tmp/d1" && empty "$tmp/d2" && empty "$tmp/d3"; } && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
for n in 1 2 3; do empty "$tmp/d$n" && ok "nothing left in member $n's DIR after the kill" || { fail "left in d$n"; ls -la "$tmp/d$n"; }; done

# 6. SIGINT, then SIGKILL, of etcd-fio mid-run: exit 2 (SIGINT), and nothing left on any member either way
for sig in INT KILL; do
  # shellcheck disable=SC2086
  "$BIN" capacity --clients 1 --step 6 --max-time 12 $M > "$tmp/sig.txt" 2> "$tmp/sig.err" &
  cap=$!
  i=0; while empty "$tmp/d1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  kill -$sig $cap; wait $cap; rc=$?
  if [ $sig = INT ]; then
    [ $rc = 2 ] && grep -q 'interrupted' "$tmp/sig.txt" && ok "SIGINT mid-run: exit 2, interrupted" || fail "SIGINT: exit $rc $(cat "$tmp/sig.txt")"
  fi
  wait_kids
  i=0; while ! { empty "$tmp/d1" && empty "$tmp/d2" && empty "$tmp/d3"; } && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
  { empty "$tmp/d1" && empty "$tmp/d2" && empty "$tmp/d3"; } && ok "SIG$sig: nothing left on the members" \
    || { fail "SIG$sig: left on a member"; ls -laR "$tmp"/d1 "$tmp"/d2 "$tmp"/d3; }
  [ -z "$(kids)" ] && ok "SIG$sig: no server connection left" || fail "SIG$sig: server connections still running: $(kids)"
  rm -rf "$tmp/t"/*
done

[ $fails = 0 ] && echo "PASS it_capacity_quorum" || { echo "FAIL it_capacity_quorum: $fails"; exit 1; }
