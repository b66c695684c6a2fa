#!/bin/sh
# SPDX-License-Identifier: MIT
# it_check_fake.sh — check's end cases at the moments a real fio cannot be made to hit on cue, with
# tests/lib/fake-fio.py as FIO (no I/O; its stream passes every bound unless it says otherwise):
#  1. SIGINT, SIGTERM, SIGHUP to check after phase 1's PASS and before phase 2's probe confirmed it:
#     unknown (exit 2) "before phase 2 confirmed phase 1's pass", never phase 1's PASS; a SIGTERM during
#     the probe: unknown, interrupted;
#  2. the same with --stop-on-eof and check's stdin closed there;
#  3. a FAIL of phase 1's heavy load, then a signal: unknown, never phase 1's FAIL;
#  4. the stream cut: fio stopped by check's SIGINT prints its signal line and dies before its final
#     document; fio runs its runtime and its output ends on an interim document taken just short of the
#     end: unknown with a reason that says the final report is missing / the last one is interim — in check
#     and in `verdict` on the output check kept;
#  5. the same fake run to its end is a PASS (the fake is not failing every case by itself), and a phase-1
#     PASS that phase 2's probe confirms is the verdict (decided by phase 1);
#  6. every unknown's explain ends with the command to run next on the directory measured, and no pass is
#     explained by a failing or unknown rule.
. "$(dirname "$0")/../lib/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not installed"; exit 77; }
need_built "$ENGINE" "$CLI"
WORK=$(mktemp -d "$B/it-check-fake.XXXXXX") || exit 1
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
FAKE=$TOP/tests/lib/fake-fio.py
# run NAME MODE CHECK-OPTIONS…: check with the fake in $WORK/NAME.d, JSON in NAME.json, exit in $rc
run() {
  n=$1; m=$2; shift 2
  mkdir -p "$WORK/$n.d"
  FIO=$FAKE FAKE_FIO=$m FAKE_DIR=$WORK "$CLI" check --force --json "$@" "$WORK/$n.d" > "$WORK/$n.json" 2> "$WORK/$n.err" < /dev/null
  rc=$?
}
want() { # NAME RC VERDICT REASON-SUBSTRING
  v=$(jq -r .verdict "$WORK/$1.json" 2>/dev/null)
  r=$(jq -r .reason "$WORK/$1.json" 2>/dev/null)
  if [ "$rc" -ne "$2" ] || [ "$v" != "$3" ]; then
    fail "$1: exit $rc verdict '$v' (want $2 $3): $r"; tail -3 "$WORK/$1.err"; return 1
  fi
  case $r in *"$4"*) ;; *) fail "$1: reason '$r' lacks '$4'"; return 1 ;; esac
  ok "$1: $v ($4)"
}

# 5 first: the fake passes when nothing goes wrong
run clean none
want clean 0 pass "decided at 95 % confidence"

run confirmed p2slow
want confirmed 0 pass "decided at 95 % confidence"
[ "$(jq -r .details.phases.decided_by "$WORK/confirmed.json")" = 1 ] &&
  [ "$(jq -r .details.phases.probe.ok "$WORK/confirmed.json")" = true ] ||
  fail "p2slow: decided by $(jq -r .details.phases.decided_by "$WORK/confirmed.json"), probe $(jq -c .details.phases.probe "$WORK/confirmed.json")"

# --wal-only: the WAL's verdict, the backend not judged; the JSON still matches the schema
run walonly none --wal-only
want walonly 0 pass "WAL fdatasync p99"
[ "$(jq -r '.hosts[0].jobs[] | select(.role == "backend") | .verdict' "$WORK/walonly.json")" = "not judged" ] ||
  fail "--wal-only: the backend was judged"
# the role nobody asked about says what was measured, with no advice to run longer and the one-look bound
jq -e '.hosts[0].jobs[] | select(.role == "backend") | (.reason | test("^backend commit p99 [0-9.]+ [mu]?s from [0-9]+ samples \\(not judged: the WAL alone was asked\\)$")) and .bound_confidence == 0.95' \
  "$WORK/walonly.json" > /dev/null ||
  fail "--wal-only: the backend's line: $(jq -c '.hosts[0].jobs[] | select(.role == "backend") | [.reason, .bound_confidence]' "$WORK/walonly.json")"
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$TOP/doc/etcd-fio.schema.json" "$WORK/walonly.json" <<'PY' || fail "--wal-only: JSON does not match the schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
fi

# 1. a signal between phase 1's PASS and phase 2's confirmation
for s in INT TERM HUP; do
  run "p1pass-$s" "p1pass-$s"
  want "p1pass-$s" 2 unknown "before phase 2 confirmed phase 1's pass"
  [ "$(jq -r .details.phases.phase2 "$WORK/p1pass-$s.json")" = null ] || fail "p1pass-$s: phase 2 ran"
done

# ... and during phase 2's probe
run p2sig p2sig
want p2sig 2 unknown "interrupted"
[ "$(jq -r .details.phases.decided_by "$WORK/p2sig.json")" = 2 ] || fail "p2sig: not phase 2's verdict"

# 2. --stop-on-eof: stdin (a fifo held open here) ends right after phase 1's PASS
mkfifo "$WORK/in"
mkdir -p "$WORK/eof.d"
FIO=$FAKE FAKE_FIO=p1pass-eof FAKE_DIR=$WORK "$CLI" check --force --json --stop-on-eof "$WORK/eof.d" \
  > "$WORK/eof.json" 2> "$WORK/eof.err" < "$WORK/in" &
cpid=$!
exec 3> "$WORK/in"
i=0
while [ ! -e "$WORK/p1done" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
exec 3>&-
touch "$WORK/eofsent"
wait $cpid
rc=$?
# the end may reach check before or after phase 2 started: unknown either way, never phase 1's PASS
want eof 2 unknown "interrupted"

# 3. phase 1's heavy load FAILs, then a signal: not a verdict
run p1fail p1fail-TERM
want p1fail 2 unknown "phase 1's heavy load can only pass"

# 4. the stream cut
run cutsig cut-sigint
want cutsig 2 unknown "the input ends before its final figures"
run cutend cut-runout --full --max-time 7 --min-syncs 20 --accept-point-estimate --keep-output "$WORK/kept"
want cutend 2 unknown "the input ends with an interim --status-interval report"
"$CLI" verdict "$WORK/kept/fio-output.json" > "$WORK/v.out" 2>&1
vrc=$?
[ $vrc -eq 2 ] && grep -q "interim --status-interval report" "$WORK/v.out" &&
  ok "verdict on the cut stream check kept: unknown, interim" ||
  { fail "verdict on the cut stream: exit $vrc"; cat "$WORK/v.out"; }

# 5. check decides on fio's final document and stops a fio that is still ending: the run ran its runtime,
# its final figures are in; a pass, not "the final output is missing"
run latefinal late-final --max-time 15 --accept-point-estimate
want latefinal 0 pass "WAL fdatasync p99"
[ "$(jq -r .details.run.end "$WORK/latefinal.json")" != null ] &&
  ok "latefinal: run end $(jq -r .details.run.end "$WORK/latefinal.json")"

# every unknown ends with the command to run next, on the directory measured; a pass is explained by no
# failing or unknown rule (the environment's lines — a live etcd on the filesystem, memory pressure, the
# mount's options — may stand beside any verdict)
for j in "$WORK"/*.json; do
  n=$(basename "$j" .json)
  case $(jq -r .verdict "$j") in
    unknown)
      jq -e --arg d "$WORK/$n.d" '.explain[-1].next | startswith("etcd-fio check ") and endswith($d)' "$j" > /dev/null &&
        ok "$n: unknown ends with: $(jq -r '.explain[-1].next' "$j" | sed "s|$WORK/||")" ||
        { fail "$n: unknown without the next command"; jq .explain "$j"; } ;;
    pass)
      jq -e '[.explain[].rule] - ["headroom", "thin-margin", "stalls", "rollover", "unsafe-mount", "shared-with-etcd", "memory-pressure"] | length == 0' "$j" \
        > /dev/null || { fail "$n: a pass explained against it"; jq .explain "$j"; } ;;
  esac
done

for d in "$WORK"/*.d; do
  [ -z "$(ls -A "$d")" ] || fail "left behind in $d: $(ls -A "$d")"
done
finish it_check_fake
