#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: alone
# it_check_phases.sh — check's two phases (issue 15.1) end to end with the real fio, on the tree's disk:
#  1. a disk that is slow only when lightly loaded (tests/lib/faultshim.c FAULT_IDLE_MS: every fdatasync that
#     follows more than 4 ms of quiet in its process waits 30 ms — etcd's load has such gaps, phase 1's
#     back-to-back load has none): check must not PASS. If phase 1 passed here, the probe refused it
#     (phases.probe.ok false) and phase 2 decided; either way the verdict is FAIL from phase 2;
#  2. fio SIGKILLed during phase 1: its job processes (setsid, they would write on until their runtime)
#     are adopted and ended by check before phase 2, phase 1's end is "fio-died", phase 2 decides, and no
#     private directory of either phase is left;
#  3. Ctrl-C (SIGINT to check) during phase 1: exit 2, interrupted, no phase 2, nothing left behind;
#  4. --faithful: no phase 1;
#  5. the JSON of every run carries details.phases (schema: doc/etcd-fio.schema.json) and, when the
#     verdict is PASS, at least one WAL rollover.
# No timing is asserted (speed is in bench/fast_check.sh). --force everywhere: where this node's etcd data
# directory (/var/lib/etcd of Debian's etcd-server) is on another disk than the build tree, check would
# (rightly) refuse it; that refusal is it_check_throttled.sh's.
. "$(dirname "$0")/../lib/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
need_built "$ENGINE" "$SHIM" "$CLI"
WORK=$(mktemp -d "$B/it-check-phases.XXXXXX") || exit 1
bg=""   # checks in the background: stopped (they clean up) before $WORK goes
trap 'for p in $bg; do kill "$p" 2>/dev/null; done; wait; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
phase() { jq -r ".details.phases.$1" "$WORK/$2.json" 2>/dev/null; }
nothing_left() { # DIR LABEL
  left=$(ls -A "$1" 2>/dev/null)
  [ -z "$left" ] || fail "$2: left behind in $1: $left"
}

# 1 and 4 run in the background while 2 and 3 run (one run's time for all four): only 1's verdict is
# asserted, and its FAIL comes from injected delays, which other runs on the disk cannot take away; 2, 3
# and 4 assert how the phases went, whatever the disk's verdict.
# 4. --faithful: phase 2 alone (checked below)
mkdir -p "$WORK/d4"
"$CLI" check --force --json --faithful --max-time 10 --min-syncs 50 --accept-point-estimate "$WORK/d4" > "$WORK/faithful.json" 2> "$WORK/faithful.err" &
faithful=$!; bg="$faithful"

# 1. slow only when idle (checked below)
mkdir -p "$WORK/d1"
SFIO=$(fio_with_shim "$WORK/bin")
env PATH="$WORK/bin:$PATH" FIO="$SFIO" FAULT_CALL=fdatasync FAULT_DELAY_MS=30 FAULT_IDLE_MS=4 \
  FAULT_PATH_SUBSTR=etcd-fio. FAULT_LOG="$WORK/shim.log" \
  "$CLI" check --force --json --max-time 60 "$WORK/d1" > "$WORK/idle.json" 2> "$WORK/idle.err" &
idle=$!; bg="$bg $idle"

# 2. fio killed during phase 1: the phase-1 fio is the one whose job file is in etcd-fio-check-phase1.*
mkdir -p "$WORK/d2"
"$CLI" check --force --json --max-time 10 --min-syncs 50 --accept-point-estimate "$WORK/d2" > "$WORK/kill.json" 2> "$WORK/kill.err" &
cpid=$!; bg="$bg $cpid"
killed=""
i=0
while [ $i -lt 600 ] && [ -z "$killed" ] && kill -0 $cpid 2>/dev/null; do   # up to 30 s: ASan, a loaded CI
  for p in $(pgrep -P $cpid 2>/dev/null); do
    if tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -q 'etcd-fio-check-phase1\.'; then
      ls -d "$WORK/d2"/etcd-fio.* >/dev/null 2>&1 || continue   # its jobs have started
      kill -KILL "$p" && killed=$p
    fi
  done
  sleep 0.05; i=$((i + 1))
done
wait $cpid
rc=$?
if [ -z "$killed" ]; then
  echo "SKIP: phase 1 ended before it could be killed (rc $rc): the kill in phase 1 was not tried"
else
  [ "$(phase phase1.end kill)" = "fio-died" ] || fail "killed phase 1: phase1.end is '$(phase phase1.end kill)'"
  [ "$(phase decided_by kill)" = 2 ] || fail "killed phase 1: decided by $(phase decided_by kill)"
  [ "$(phase phase2 kill)" != null ] || fail "killed phase 1: phase 2 did not run"
  # fio's job processes outlive a killed fio (setsid): they end themselves (the engine's PR_SET_PDEATHSIG) or
  # check ends those still running before phase 2 (orphans_ended true); which gets there first is a race (as
  # in it_check.sh), so the field is asserted present and the end state (nothing left in DIR) below
  [ "$(phase phase1.orphans_ended kill)" = true ] || [ "$(phase phase1.orphans_ended kill)" = false ] ||
    fail "killed phase 1: orphans_ended is '$(phase phase1.orphans_ended kill)'"
  echo "ok: fio SIGKILLed in phase 1 (pid $killed): phase 2 decided ($(jq -r .verdict "$WORK/kill.json"), exit $rc)"
fi
nothing_left "$WORK/d2" "fio killed in phase 1"

# 3. Ctrl-C during phase 1
mkdir -p "$WORK/d3"
"$CLI" check --force --json --max-time 10 --min-syncs 50 --accept-point-estimate "$WORK/d3" > "$WORK/int.json" 2> "$WORK/int.err" &
cpid=$!; bg="$bg $cpid"
i=0
while [ $i -lt 600 ] && kill -0 $cpid 2>/dev/null && ! ls -d "$WORK/d3"/etcd-fio.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
kill -INT $cpid
wait $cpid
rc=$?
[ $rc -eq 2 ] || fail "Ctrl-C in phase 1: exit $rc (want 2)"
[ "$(jq -r .verdict "$WORK/int.json")" = unknown ] || fail "Ctrl-C in phase 1: verdict $(jq -r .verdict "$WORK/int.json")"
if [ "$(phase phase1.end int)" = interrupted ]; then
  [ "$(phase phase2 int)" = null ] || fail "Ctrl-C in phase 1: phase 2 ran anyway"
  echo "ok: Ctrl-C in phase 1: unknown, exit 2, no phase 2"
else
  echo "SKIP: Ctrl-C arrived after phase 1 ($(phase phase1.end int)): the stop in phase 1 was not tried"
fi
nothing_left "$WORK/d3" "Ctrl-C in phase 1"

# 1. (started above)
wait $idle
rc=$?
grep -q 'fdatasync .* -> delay' "$WORK/shim.log" 2>/dev/null || fail "idle-slow: the shim never delayed an fdatasync"
[ $rc -eq 1 ] && [ "$(jq -r .verdict "$WORK/idle.json")" = fail ] ||
  fail "idle-slow disk: exit $rc, verdict $(jq -r .verdict "$WORK/idle.json" 2>/dev/null) (want FAIL)"
[ "$(phase decided_by idle)" = 2 ] || fail "idle-slow: decided by $(phase decided_by idle)"
if [ "$(phase phase1.end idle)" = decided ]; then
  [ "$(phase probe.ok idle)" = false ] || fail "idle-slow: phase 1 passed and the probe did not refuse it"
  echo "ok: idle-slow disk: phase 1 passed under its heavy load, the probe refused it ($(phase probe idle | tr -d ' \n'))"
else
  echo "SKIP: idle-slow disk: phase 1 ended '$(phase phase1.end idle)' here (the probe was not needed)"
fi
nothing_left "$WORK/d1" "idle-slow"

# 4. --faithful: phase 2 alone (started above)
wait $faithful
[ "$(phase phase1 faithful)" = null ] || fail "--faithful ran phase 1"
[ "$(phase decided_by faithful)" = 2 ] || fail "--faithful: decided by $(phase decided_by faithful)"
nothing_left "$WORK/d4" "--faithful"

# 5. every JSON: schema, a PASS has crossed a rollover, and a phase-1 PASS was always put to the probe
for r in idle kill int faithful; do
  if [ "$(phase phase1.end $r)" = decided ] && [ "$(phase phase2 $r)" != null ]; then
    [ "$(phase probe $r)" != null ] || fail "$r: phase 1 passed but phase 2 ran without the probe"
  fi
  [ -s "$WORK/$r.json" ] || { fail "$r: no JSON"; continue; }
  if command -v python3 >/dev/null && python3 -c 'import jsonschema' 2>/dev/null; then
    python3 - "$TOP/doc/etcd-fio.schema.json" "$WORK/$r.json" <<'PY' || fail "$r: JSON does not match the schema"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
  else
    echo "SKIP: $r: python3-jsonschema missing (mk/deps.sh installs it): the schema was not checked"
  fi
  if [ "$(jq -r .verdict "$WORK/$r.json")" = pass ]; then
    ro=$(jq -r '.details.engine.rollovers // 0' "$WORK/$r.json")
    [ "$ro" -ge 1 ] || fail "$r: PASS without a WAL rollover"
  fi
done

[ $bad -eq 0 ] && echo "ok: it_check_phases"
exit $((bad > 0))
