#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs each test (cmocka binary or integration script) with a time limit and prints one closing line
# "check: N passed, N failed, N skipped". Exit status 77 from a test means skipped (reason printed by it);
# a test that ran but could not run a part of itself prints a line starting "SKIP" for that part: those
# are counted and listed after the closing line, so a part that never runs is seen, not taken for a pass.
#
# Tests run TEST_JOBS at a time (default 2): the integration tests spend most of their time waiting for
# fio's runs (the whole suite uses ~3 min of CPU in ~10 min), so two lanes halve the wall time on 2 cores.
# Each test's output is printed whole when it ends, so outputs never interleave. A script declares in a
# comment line what it must not share:
#   # run.sh: alone        nothing else runs beside it (a timing a neighbour's load would blur, or an etcd
#                          of its own, or a WAL lock, that a neighbour's check would see as a live etcd)
#   # run.sh: lock=A,B     no other test holding A or B runs beside it (ports picked by pid, loop devices)
# Those marked alone run first; TEST_JOBS=1 runs every test one after another.
set -u
pass=0; fail=0; skip=0; failed=""; parts=0; partlist=""
LIMIT=${TEST_TIMEOUT:-600}
JOBS=${TEST_JOBS:-2}
case $JOBS in ''|*[!0-9]*|0) echo "run.sh: TEST_JOBS must be a whole number >= 1, not '$JOBS'" >&2; exit 2 ;; esac
dir=$(mktemp -d /tmp/etcdfio-run.XXXXXX) || exit 1
declare -A test_of_pid=() start_of_pid=() lock_of_pid=() held=()
running=0
cleanup() {
  for p in "${!test_of_pid[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# What a script asks for: "alone", "lock=NAME" or nothing.
wants() {
  case "$1" in *.sh) sed -n 's/^# run\.sh: *\(alone\|lock=[A-Za-z0-9_,-]*\) *$/\1/p' "$1" | head -n1 ;; esac
}

start() {  # start test $1 as number $2 in the background, in its own process group
  local t=$1 n=$2
  set -m
  (
    case "$t" in
      *.sh) timeout -k 10 "$LIMIT" sh "$t" ;;
      *)    timeout -k 10 "$LIMIT" "$t" ;;
    esac > "$dir/$n.out" 2>&1
    echo $? > "$dir/$n.rc"
  ) &
  set +m
  local p=$!
  test_of_pid[$p]="$n $t"; start_of_pid[$p]=$(date +%s); running=$((running + 1))
}

reap() {  # wait for any running test, print it, count it
  local p n t rc log
  wait -n -p p 2>/dev/null
  [ -n "${p:-}" ] && [ -n "${test_of_pid[$p]:-}" ] || return 0
  n=${test_of_pid[$p]%% *}; t=${test_of_pid[$p]#* }; log="$dir/$n.out"
  rc=$(cat "$dir/$n.rc" 2>/dev/null || echo 1)
  echo "=== $t"
  cat "$log"
  echo "--- $t: $(( $(date +%s) - ${start_of_pid[$p]} )) s"
  case $rc in
    0) pass=$((pass+1))
       local k; k=$(grep -c '^SKIP' "$log")
       [ "$k" -gt 0 ] && { parts=$((parts+k)); partlist="$partlist $(basename "$t")($k)"; } ;;
    77) skip=$((skip+1)); echo "--- skipped: $t" ;;
    *) fail=$((fail+1)); failed="$failed $t"; echo "--- FAILED ($rc): $t" ;;
  esac
  local l; for l in ${lock_of_pid[$p]:-}; do unset "held[$l]"; done
  unset "test_of_pid[$p]" "start_of_pid[$p]" "lock_of_pid[$p]"
  running=$((running - 1))
}

busy() { local l; for l in "$@"; do [ -n "${held[$l]:-}" ] && return 0; done; return 1; }

# The tests that must run alone go first, while nothing else has started: no lane waits idle for them.
declare -A want=()
order=(); rest=()
for t in "$@"; do
  want[$t]=$(wants "$t")
  if [ "${want[$t]}" = alone ]; then order+=("$t"); else rest+=("$t"); fi
done
order+=("${rest[@]}")
n=0
for t in "${order[@]}"; do
  n=$((n + 1))
  w=${want[$t]}
  case $w in
    alone) while [ $running -gt 0 ]; do reap; done
           start "$t" $n; reap; continue ;;
    lock=*) locks=$(echo "${w#lock=}" | tr ',' ' ')
            while busy $locks || [ $running -ge "$JOBS" ]; do reap; done
            start "$t" $n; lock_of_pid[$!]=$locks
            for l in $locks; do held[$l]=1; done; continue ;;
  esac
  while [ $running -ge "$JOBS" ]; do reap; done
  start "$t" $n
done
while [ $running -gt 0 ]; do reap; done

[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ $parts -gt 0 ] && echo "check: $parts skipped parts (SKIP lines) in passed tests:$partlist"
[ "$fail" -eq 0 ]
