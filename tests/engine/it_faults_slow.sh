#!/bin/sh
# SPDX-License-Identifier: MIT
# it_faults_slow.sh — end-to-end proof that slow syncs are caught: a 15 ms delay injected on every
# fdatasync of the engine's files (tests/lib/faultshim.c) must turn `etcd-fio verdict` on that run's JSON into
# FAIL for both the WAL job (p99 >= 15 ms > 10 ms) and the backend job (two syncs per commit: >= 30 ms >
# 25 ms), and `etcd-fio check` on a directory into FAIL (exit 1). The delays are lower bounds (nanosleep
# never returns early), so the expected FAIL does not depend on the disk.
. "$(dirname "$0")/../lib/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
need_built "$ENGINE" "$SHIM" "$CLI"
# On the tree's own disk, like `make demo` (check may refuse tmpfs).
WORK=$(mktemp -d "$B/it-faults-slow.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
SLOW="FAULT_CALL=fdatasync FAULT_DELAY_MS=15 FAULT_PATH_SUBSTR=etcd-fio."

# 1. fio + engine, WAL and backend jobs side by side (as in the etcd profile), every fdatasync 15 ms late.
mkdir -p "$WORK/d"
# shellcheck disable=SC2086
env LD_PRELOAD="$SHIM${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_LOG="$WORK/shim.log" $SLOW \
  timeout -k 5 120 "$FIO" --output-format=json --output="$WORK/run.json" \
  --ioengine=external:"$ENGINE" --directory="$WORK/d" --rw=write \
  --name=wal --bs=2300 --fdatasync=1 --size=300k \
  --name=backend --etcd_mode=backend --bs=4096 --fdatasync=4 --size=1700k > "$WORK/fio.out" 2>&1
rc=$?
[ $rc -eq 0 ] || { fail "slow run: fio exited $rc"; tail -n 20 "$WORK/fio.out"; }
grep -q 'fdatasync .* -> delay' "$WORK/shim.log" 2>/dev/null || fail "the shim never delayed an fdatasync"

"$CLI" verdict --json "$WORK/run.json" > "$WORK/verdict.json" 2> "$WORK/verdict.err"
vrc=$?
[ $vrc -eq 1 ] || fail "etcd-fio verdict exited $vrc on the slow run (want 1 = FAIL)"
[ "$(jq -r .verdict "$WORK/verdict.json" 2>/dev/null)" = fail ] || fail "verdict --json: overall is not \"fail\""
for spec in "wal 15000000 10000000" "backend 30000000 25000000"; do
  set -- $spec
  row=$(jq -c --arg j "$1" '.hosts[].jobs[] | select(.name == $j)' "$WORK/verdict.json" 2>/dev/null)
  [ -n "$row" ] || { fail "verdict --json has no row for job $1"; continue; }
  v=$(echo "$row" | jq -r .verdict) p99=$(echo "$row" | jq -r .p99_ns) thr=$(echo "$row" | jq -r .threshold_ns)
  echo "$v" | grep -qi '^fail$' || fail "$1: verdict $v (want FAIL): $row"
  [ "$p99" != null ] && [ "$p99" -ge "$2" ] || fail "$1: p99 $p99 ns, expected >= $2 ns with the injected delay"
  [ "$thr" = "$3" ] || fail "$1: threshold $thr ns, expected $3"
done

# 2. etcd-fio check on a directory, the shim inherited by the fio it starts: must say FAIL (exit 1).
# --force: the build tree may be on another disk than this node's /var/lib/etcd (check would refuse it).
# The shim goes into fio only, through a wrapper (FIO and PATH): an ASan-built etcd-fio (check-asan) must
# not get it preloaded ahead of the ASan runtime.
mkdir -p "$WORK/c"
fio_with_shim "$WORK/bin" > /dev/null
# shellcheck disable=SC2086
env PATH="$WORK/bin:$PATH" FIO="$WORK/bin/fio" FAULT_LOG="$WORK/check-shim.log" $SLOW \
  timeout -k 5 150 "$CLI" check --force --max-time 60 "$WORK/c" > "$WORK/check.out" 2> "$WORK/check.err"
crc=$?
[ $crc -eq 1 ] || { fail "etcd-fio check exited $crc under 15 ms fdatasync delays (want 1 = FAIL)";
  head -n 20 "$WORK/check.out" "$WORK/check.err"; }
head -n 1 "$WORK/check.out" | grep -qi "^fail" || fail "etcd-fio check: first line is not the FAIL verdict"
grep -q 'fdatasync .* -> delay' "$WORK/check-shim.log" 2>/dev/null || fail "etcd-fio check: the shim never delayed its fio"
left=$(ls -A "$WORK/c")
[ -z "$left" ] || fail "etcd-fio check left behind: $left"

[ $bad -eq 0 ] || { cat "$WORK/verdict.json" 2>/dev/null; exit 1; }
echo "slow fdatasync (15 ms) is caught: verdict FAIL for WAL and backend"
