#!/bin/sh
# SPDX-License-Identifier: MIT
# mutate.sh NAME… — the aggregation and end rules must each fail a test when loosened (issue 21): for each
# mutation NAME (a1: result.c counts a host with nothing judged as PASS; a2: the library's rule does;
# b: the same-jobs tolerance of text beside JSON at 10 % instead of 1 %; c: check's end drops the guard
# where the bound and the library's judgement disagree), a scratch clone of HEAD gets the change, is built,
# and runs the unit tests, it_verdict and it_compare; prints which failed ("failing: " empty = survived).
# Not part of make check (it builds the tree once per mutation): run it by hand, FIO_SRC as for make.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/etcdfio-mutate.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
git clone -q "$TOP" "$W/t" || exit 1
for m in "$@"; do
cd "$W/t" && git checkout -q -- . || exit 1
case $m in
a1) python3 - <<'PY'
p='tools/result.c'; s=open(p).read()
old='''fior_verdict result_jobs_verdict(const result_host *h)
{
'''
new='''fior_verdict result_jobs_verdict(const result_host *h)
{
    int judged = 0;
    for (size_t i = 0; i < h->njobs; i++)
        judged |= h->jobs[i].verdict != FIOR_NOT_JUDGED;
    if (!judged)
        return FIOR_PASS; /* MUTATION: a host with nothing judged counted as PASS */
'''
assert old in s; open(p,'w').write(s.replace(old,new))
PY
;;
a2) sed -i 's/return fail ? FIOR_FAIL : unknown || !pass ? FIOR_UNKNOWN : FIOR_PASS;/return fail ? FIOR_FAIL : unknown ? FIOR_UNKNOWN : FIOR_PASS;/' libreport/judge/aggregate.c ;;
b) sed -i 's#return d <= m / 100 + 1000;#return d <= m / 10 + 1000;#' libreport/read/readers.c ;;
c) sed -i 's/if ((ov == FIOR_DEC_PASS) != (lib == FIOR_PASS)) {/if (0) {/' libreport/monitor/monitor_end.c ;;
*) echo "unknown mutation $m"; exit 2 ;;
esac
make -j2 ${FIO_SRC:+FIO_SRC=$FIO_SRC} tests > "$W/build.log" 2>&1 || { echo "$m: build failed"; tail -5 "$W/build.log"; exit 1; }
failed=""
for t in $(ls build/tests/*/test_* | grep -v '\.d$'); do $t > /dev/null 2>&1 || failed="$failed $(basename $t)"; done
for t in it_verdict it_compare; do BUILD=build sh tests/cli/$t.sh > /dev/null 2>&1 || failed="$failed $t"; done
echo "mutation $m: failing:$failed"
done
