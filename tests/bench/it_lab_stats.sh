#!/bin/sh
# SPDX-License-Identifier: MIT
# it_lab_stats.sh — the arithmetic behind the lab's tables: buckets.py's quantile rule on hand-computed
# cases, lab_versions.py's sampling (the "one process" column) against a full multinomial, and how
# lab_versions.py merges the OUTDIRs of one release: runs of a point from each, counted only where both
# sides ran, and a point whose device differs by more than its seed, or with no model file, refused (exit
# 2, one line naming it); --points picks and orders the rows.
set -u
HERE=$(cd "$(dirname "$0")/../.." && pwd)
. "$HERE/tests/lib/assert.sh"
command -v python3 > /dev/null || { echo "it_lab_stats: skipped: python3 not installed"; exit 77; }
T=$(mktemp -d /tmp/it_lab_stats.XXXXXX)
trap 'rm -rf "$T"' EXIT

out=$(python3 "$HERE/bench/buckets.py" self-check 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "buckets.py: self-check ok" ] && ok "buckets.py self-check" \
  || fail "buckets.py self-check: exit $rc: $out"
out=$(python3 "$HERE/bench/lab_versions.py" self-check 2>&1); rc=$?
[ $rc = 0 ] && [ "$out" = "lab_versions.py: self-check ok" ] && ok "lab_versions.py self-check" \
  || fail "lab_versions.py self-check: exit $rc: $out"

# run OUTDIR RUN SIDE WAL BE [POINT]: one side's result of load s at POINT (default p)
run() {
  mkdir -p "$1/${6:-p}/$2/$3-s"
  printf 'loadavg=0.5\nwal_p99=%s\nbe_p99=%s\n' "$4" "$5" > "$1/${6:-p}/$2/$3-s/result.env"
}
for d in a b c; do mkdir -p "$T/$d/p"; echo 3.5.30 > "$T/$d/etcd_version"; done
echo "median=1ms,stall_every=2s,stall_jitter=1,seed=6" > "$T/a/p/model"
echo "stall_jitter=1,median=1ms,stall_every=2s,seed=9" > "$T/b/p/model"
echo "median=2ms,stall_every=2s,stall_jitter=1,seed=6" > "$T/c/p/model"
run "$T/a" run1 etcd 4 20; run "$T/a" run1 ours 4 22
run "$T/b" run1 etcd 4 30; run "$T/b" run1 ours 4 30
run "$T/b" run2 etcd 4 99                        # ours did not run: not a run of the cell
python3 "$HERE/bench/lab_versions.py" "$T/a" "$T/b" > "$T/ab" 2> "$T/ab.err"; rc=$?
expect_rc 0 $rc "two OUTDIRs of one release whose point differs by its seed alone"
has "$T/ab" "| p | s | 4.00 / 4.00 (x1.00) | 25.00 / 26.00 (x1.04) | f/f?, 2, 0.5 |" \
  "one column group, two runs (the run ours lacks left out), medians over both OUTDIRs"
[ "$(grep -c '^| point' "$T/ab")" = 1 ] && ok "one table (no edge table without histograms)" \
  || fail "tables: $(grep -c '^| point' "$T/ab")"
mkdir -p "$T/a/q"; echo "median=4ms,seed=1" > "$T/a/q/model"
run "$T/a" run1 etcd 16 40 q; run "$T/a" run1 ours 15 36 q
python3 "$HERE/bench/lab_versions.py" --points=q,p "$T/a" > "$T/qp" 2> "$T/qp.err"; rc=$?
expect_rc 0 $rc "--points=q,p"
[ "$(grep -o '^| [pq] |' "$T/qp" | tr -d '| \n')" = qp ] && ok "--points: those points, in that order" \
  || fail "--points=q,p rows: $(grep -o '^| [pq] |' "$T/qp" | tr '\n' ' ')"
python3 "$HERE/bench/lab_versions.py" --points=zz "$T/a" > /dev/null 2> "$T/zz.err"; rc=$?
expect_rc 2 $rc "--points naming a point no OUTDIR holds"
has "$T/zz.err" "--points: zz in none of the OUTDIRs" "the refusal names the point"
python3 "$HERE/bench/lab_versions.py" "$T/a" "$T/c" > "$T/ac" 2> "$T/ac.err"; rc=$?
expect_rc 2 $rc "a point on another device in an OUTDIR of the same release"
has "$T/ac.err" "point p is median=1ms,stall_every=2s,stall_jitter=1 in $T/a but median=2ms,stall_every=2s,stall_jitter=1 in $T/c" \
  "the refusal names the point, both devices and both OUTDIRs"
[ -s "$T/ac" ] && fail "a table printed beside the refusal" || ok "no table beside the refusal"
python3 "$HERE/bench/lab_versions.py" "$T/a" --points=p > "$T/late" 2>&1; rc=$?
expect_rc 2 $rc "an option after the OUTDIRs is refused, not taken for an OUTDIR"
mkdir -p "$T/d/p/run1"; echo 3.5.30 > "$T/d/etcd_version"
python3 "$HERE/bench/lab_versions.py" "$T/d" > /dev/null 2> "$T/d.err"; rc=$?
expect_rc 2 $rc "a point with runs and no model file"
has "$T/d.err" "$T/d/p: runs but no model file" "the refusal names the point's directory"
finish it_lab_stats
