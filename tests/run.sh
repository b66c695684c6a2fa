#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs each test (cmocka binary or integration script) with a time limit and prints one closing line
# "check: N passed, N failed, N skipped". Exit status 77 from a test means skipped (reason printed by it);
# a test that ran but could not run a part of itself prints a line starting "SKIP" for that part: those
# are counted and listed after the closing line, so a part that never runs is seen, not taken for a pass.
set -u
pass=0; fail=0; skip=0; failed=""; parts=0; partlist=""
LIMIT=${TEST_TIMEOUT:-600}
log=$(mktemp /tmp/etcdfio-run.XXXXXX) || exit 1
trap 'rm -f "$log" "$log.rc"' EXIT
for t in "$@"; do
  echo "=== $t"
  t0=$(date +%s)
  {
    case "$t" in
      *.sh) timeout -k 10 "$LIMIT" sh "$t" ;;
      *)    timeout -k 10 "$LIMIT" "$t" ;;
    esac
    echo $? > "$log.rc"
  } 2>&1 | tee "$log"
  rc=$(cat "$log.rc")
  echo "--- $t: $(( $(date +%s) - t0 )) s"
  case $rc in
    0) pass=$((pass+1))
       n=$(grep -c '^SKIP' "$log")
       [ "$n" -gt 0 ] && { parts=$((parts+n)); partlist="$partlist $(basename "$t")($n)"; } ;;
    77) skip=$((skip+1)); echo "--- skipped: $t" ;;
    *) fail=$((fail+1)); failed="$failed $t"; echo "--- FAILED ($rc): $t" ;;
  esac
done
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ $parts -gt 0 ] && echo "check: $parts skipped parts (SKIP lines) in passed tests:$partlist"
[ "$fail" -eq 0 ]
