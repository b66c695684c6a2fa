#!/bin/sh
# SPDX-License-Identifier: MIT
# it_compare.sh — `etcd-fio compare` on committed inputs: the first line (the verdict and each input's p99
# against its threshold, within 80 columns), the p50..max columns and ratios of two fio runs (values read by
# hand from the fixtures), a result JSON read back the same as its raw input, etcd's histogram as bucket
# ranges, differing verdicts flagged, the exit status (worst verdict) and bad input; runs fio did not finish
# and syncs that reached no disk are unknown there as in verdict.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
HERE=$(cd "$(dirname "$0")/.." && pwd)
FX=$HERE/fixtures
[ -x "$BIN" ] || { echo "it_compare: $BIN not built"; exit 1; }
command -v jq >/dev/null || { echo "it_compare: skipped: jq not installed"; exit 77; }
T=$(mktemp -d /tmp/it_compare.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails+1)); }
# `jq -e` succeeds on an empty file (jq 1.6): an output that is missing must fail the check
jqe() { for last; do :; done; [ -s "$last" ] && jq -e "$@"; }
RKE=$FX/seeds/fio-3.23-normal-rke.txt      # p50 1.16 ms, p99 2.54 ms, p99.9 27.1 ms (usec print), pass
J33=$FX/fio/fio-3.33-json.json             # p99 5.08 ms exact, pass
MSEC=$FX/seeds/fio-3.7-normal-msec.txt     # p99 159 ms, fail
PROM=$FX/etcd-metrics/etcd-3.4.23-after-puts.prom

"$BIN" compare "$RKE" "$J33" > "$T/t.txt"; rc=$?
[ $rc = 0 ] && ok "two passing runs: exit 0" || bad "two passing runs: exit $rc"
grep -Eq '^ +p99 +2\.54 ms +5\.08 ms +2x *$' "$T/t.txt" && ok "p99 row with the ratio 2x" || { bad "p99 row"; cat "$T/t.txt"; }
grep -q "differ" "$T/t.txt" && bad "nothing differs, yet 'differ' printed" || ok "no verdict differs"
# the answer first: the worst verdict and each input's p99 against its threshold, within 80 columns
[ "$(head -1 "$T/t.txt")" = "pass: WAL p99 A 2.54 ms < 10 ms, B 5.08 ms < 10 ms" ] &&
  ok "first line: the verdict and both p99s" || bad "first line: $(head -1 "$T/t.txt")"
F23=$FX/fio-3.23
"$BIN" compare "$F23/profile.json" "$F23/classic.json" "$FX/fio-3.39/profile.json" > "$T/three.txt"
first=$(head -1 "$T/three.txt")
[ "$first" = "fail: worst WAL p99 A 11.7 ms >= 10 ms; backend A 31.3 ms >= 25 ms" ] &&
  ok "three inputs: the worst p99 of each role within 80 columns" || bad "three inputs' first line: $first"
first=$(COLUMNS=40 "$BIN" compare "$RKE" "$J33" | head -1)
[ "$first" = "pass: worst WAL p99 B 5.08 ms < 10 ms" ] && ok "40 columns: the worst p99 alone" ||
  bad "40-column first line: $first"

"$BIN" compare --json "$RKE" "$MSEC" > "$T/d.json"; rc=$?
[ $rc = 1 ] && ok "a failing input: exit 1" || bad "failing input: exit $rc"
jqe '.verdict == "fail" and .roles[0].role == "wal" and .roles[0].verdicts_differ == true
       and .roles[0].inputs[0].verdict == "pass" and .roles[0].inputs[1].verdict == "fail"
       and .roles[0].inputs[1].p99.lo_ns >= 158000000 and .roles[0].inputs[1].p99.hi_ns <= 160000000' "$T/d.json" >/dev/null \
  && ok "differing verdicts in the JSON, msec print resolution as a range" || { bad "compare JSON"; cat "$T/d.json"; }
"$BIN" compare "$RKE" "$MSEC" | grep -q "the wal verdicts differ" && ok "table says the wal verdicts differ" || bad "differ line"

# a result JSON read back gives the same numbers as its raw input
"$BIN" verdict --json "$J33" > "$T/r.json"
"$BIN" compare --json "$T/r.json" "$J33" > "$T/same.json"; rc=$?
jqe '.inputs[0].kind == "verdict result" and .inputs[1].kind == "input"
       and .roles[0].inputs[0].p99 == .roles[0].inputs[1].p99 and .roles[0].inputs[1].p99_ratio_to_first == "1x"
       and .roles[0].verdicts_differ == false' "$T/same.json" >/dev/null \
  && ok "result JSON == raw input (ratio 1x)" || { bad "result JSON read back"; cat "$T/same.json"; }

# what the disk test says vs what etcd saw: bucket ranges
"$BIN" compare --json "$J33" "$PROM" > "$T/p.json"; rc=$?
[ $rc = 2 ] && ok "etcd scrape with too few samples: unknown, exit 2" || bad "scrape compare: exit $rc"
jqe '.roles[0].inputs[1].p99 == {"lo_ns": 1000000, "hi_ns": 2000000} and .roles[1].role == "backend"
       and .roles[0].inputs[1].max == null' "$T/p.json" >/dev/null \
  && ok "histogram p99 as the bucket (1, 2] ms" || { bad "scrape ranges"; cat "$T/p.json"; }

# a run fio did not finish, a dead job process, syncs on tmpfs (issues 25, 26): unknown beside the complete
# run, with the library's reason, in raw inputs and in a verdict result read back
for f in fio-3.33-sigint.json fio-3.33-sigint.txt fio-3.33-timeout.txt fio-3.33-status-kill.json \
         fio-3.33-job-killed.json fio-3.33-client-job-killed.txt fio-3.33-shm.json fio-3.33-null.txt \
         fio-3.33-osync.json; do
  "$BIN" compare --json "$J33" "$FX/fio/$f" > "$T/e.json"; rc=$?
  if [ $rc = 2 ] && jqe '.verdict == "unknown" and .roles[0].inputs[0].verdict == "pass"
         and .roles[0].inputs[1].verdict == "unknown" and .roles[0].verdicts_differ == true' "$T/e.json" >/dev/null; then
    ok "compare: $f is unknown beside a complete run"
  else bad "compare: $f: exit $rc"; cat "$T/e.json"; fi
done
COLUMNS=400 "$BIN" compare "$J33" "$FX/fio/fio-3.33-sigint.json" | grep -q "fio was stopped by signal 2 (SIGINT) after 36.1 of 100 MiB" \
  && ok "compare's table says fio was stopped and how far it got" || bad "compare: stopped reason"
"$BIN" verdict --json "$FX/fio/fio-3.33-status-kill.json" > "$T/k.json"
"$BIN" compare --json "$T/k.json" "$J33" > "$T/kk.json"; rc=$?
[ $rc = 2 ] && jqe '.roles[0].inputs[0].verdict == "unknown"' "$T/kk.json" >/dev/null \
  && ok "a verdict result of a cut stream read back stays unknown" || { bad "cut stream result: exit $rc"; cat "$T/kk.json"; }
# a result whose host is unknown while its jobs say pass (check when its bound and fio's p99 disagree, fleet
# for a host without a WAL job): unknown read back, never the pass of the jobs' words
jq '.verdict = "unknown" | .exit_status = 2 | .hosts[0].verdict = "unknown" | .hosts[0].reason = "no WAL job"' \
  "$T/r.json" > "$T/hu.json"
"$BIN" compare --json "$T/hu.json" "$T/hu.json" > "$T/hu.out"; rc=$?
[ $rc = 2 ] && jqe '.roles[0].inputs[0].verdict == "unknown"' "$T/hu.out" >/dev/null \
  && ok "a host's unknown caps its jobs' pass" || { bad "host unknown, jobs pass: exit $rc"; cat "$T/hu.out"; }
"$BIN" compare "$FX/fio/fio-3.33-time-based.json" "$FX/fio/fio-3.33-io-size.json" > /dev/null; rc=$?
[ $rc = 0 ] && ok "the complete twins still pass" || bad "complete twins: exit $rc"

# refusals
"$BIN" compare "$RKE" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] && grep -q "two inputs" "$T/e" && ok "one input: usage error" || bad "one input: exit $rc"
printf 'hello\n' > "$T/junk.txt"
"$BIN" compare "$RKE" "$T/junk.txt" > "$T/o" 2> "$T/e"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/o" ] && [ "$(wc -l < "$T/e")" = 1 ] && grep -q "junk.txt:1:" "$T/e" \
  && ok "junk input: one line naming it" || { bad "junk: exit $rc"; cat "$T/e"; }
printf '{"schema": 1, "hosts": 3}\n' > "$T/bad.json"
"$BIN" compare "$RKE" "$T/bad.json" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] && grep -q "bad.json: a result JSON of schema 1 with a hosts array" "$T/e" && ok "malformed result JSON refused" \
  || { bad "bad.json: exit $rc"; cat "$T/e"; }
echo "it_compare: $fails failure(s)"
[ $fails = 0 ]
