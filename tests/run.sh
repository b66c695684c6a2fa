#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs each test (cmocka binary or integration script) with a time limit and prints one closing line
# "check: N passed, N failed, N skipped". Exit status 77 from a test means skipped (reason printed by it).
set -u
pass=0; fail=0; skip=0; failed=""
LIMIT=${TEST_TIMEOUT:-600}
for t in "$@"; do
  echo "=== $t"
  t0=$(date +%s)
  case "$t" in
    *.sh) timeout -k 10 "$LIMIT" sh "$t"; rc=$? ;;
    *)    timeout -k 10 "$LIMIT" "$t"; rc=$? ;;
  esac
  echo "--- $t: $(( $(date +%s) - t0 )) s"
  case $rc in
    0) pass=$((pass+1)) ;;
    77) skip=$((skip+1)); echo "--- skipped: $t" ;;
    *) fail=$((fail+1)); failed="$failed $t"; echo "--- FAILED ($rc): $t" ;;
  esac
done
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
