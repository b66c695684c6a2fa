#!/bin/sh
# SPDX-License-Identifier: MIT
# it_verdict.sh — `etcd-fio verdict` end to end on the seed fixtures and the committed fio outputs:
# exit statuses (0 PASS, 1 FAIL, 2 cannot judge/error), the table, --json, options, stdin, bad input; runs fio
# did not finish and syncs that reached no disk (issues 25, 26), older fio and etcd-perf logs (issue 22).
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
HERE=$(cd "$(dirname "$0")/.." && pwd)
FX=$HERE/fixtures/fio
SEEDS=$HERE/fixtures/seeds
[ -x "$BIN" ] || { echo "it_verdict: $BIN not built"; exit 1; }
[ -d "$SEEDS" ] || { echo "it_verdict: skipped: shared fixtures $SEEDS missing"; exit 77; }
command -v jq >/dev/null || { echo "it_verdict: skipped: jq not installed (make deps)"; exit 77; }
T=$(mktemp -d /tmp/it_verdict.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0

# expect RC DESCRIPTION -- ARGS... ; stdout in $T/out, stderr in $T/err
expect() {
  want=$1; what=$2; shift 3
  COLUMNS=400 "$BIN" verdict -v "$@" > "$T/out" 2> "$T/err"  # every reason, unwrapped
  rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: exit $rc, want $want"; sed 's/^/  | /' "$T/out" "$T/err"; fails=$((fails+1))
  else
    echo "ok: $what (exit $rc)"
  fi
}
has() {  # has FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else echo "FAIL: $3: no '$2' in:"; sed 's/^/  | /' "$1"; fails=$((fails+1)); fi
}

expect 0 "fio-3.23 seed passes" -- "$SEEDS/fio-3.23-normal-rke.txt"
has "$T/out" "p99 2.54 ms < 10 ms (WAL fdatasync)" "fio-3.23 reason"
has "$T/out" "pass: WAL p99 2.54 ms < 10 ms" "fio-3.23 first line"
expect 1 "fio-3.7 msec seed fails" -- "$SEEDS/fio-3.7-normal-msec.txt"
has "$T/out" "159 ms" "fio-3.7 p99 with unit"
has "$T/out" "fail: WAL p99 159 ms >= 10 ms" "fio-3.7 first line"
head -n1 "$T/out" | grep -q "^fail: " && echo "ok: verdict is the first line" || { echo "FAIL: first line"; fails=$((fails+1)); }
# etcd-perf prints the p99 only: without a sample count there is no proof (issue 11.3)
expect 2 "etcd-perf log (no sample count) is unknown" -- "$SEEDS/etcd-perf-container.log"
has "$T/out" "number of sync samples is not in the input" "etcd-perf reason names the missing count"
# a real 10-write normal output: 9 fdatasyncs counted from "issued rwts: … short=9", too few
expect 2 "10 writes in normal output are too few" -- "$FX/fio-3.33-ten-writes.txt"
has "$T/out" "only 9 sync samples (need 100)" "ten-writes reason"
# [global] etcd_mode=backend does not make a sync job a backend job (issue 11.4): its 20 ms p99 fails 10 ms
expect 1 "a sync job under [global] etcd_mode=backend is judged as WAL" -- "$FX/fio-3.33-global-backend.json"
grep -E '^ +plain .* 10 ms +fail' "$T/out" >/dev/null && echo "ok: plain job against 10 ms" \
  || { echo "FAIL: plain job not judged against 10 ms"; cat "$T/out"; fails=$((fails+1)); }
# the input cap (issue 11.12): /dev/zero stops at the cap with the file and byte named
expect 2 "--max-input stops /dev/zero" -- --max-input 4K /dev/zero
has "$T/err" "/dev/zero: byte 4097: input larger than the cap of 4096 bytes" "cap message names file and byte"
expect 2 "--max-input refuses a bad size" -- --max-input 0 "$SEEDS/fio-3.23-normal-rke.txt"
expect 0 "--max-input=... as large as the file" -- --max-input "$(wc -c < "$SEEDS/fio-3.23-normal-rke.txt")" \
  "$SEEDS/fio-3.23-normal-rke.txt"
expect 1 "one failing input fails the lot" -- "$SEEDS/fio-3.23-normal-rke.txt" "$SEEDS/fio-3.7-normal-msec.txt"
expect 2 "missing percentile is unknown, never pass" -- "$FX/fio-3.33-nopct.json"
has "$T/out" "unknown: " "nopct verdict"
expect 2 "libaio garbage is unknown" -- "$FX/hand-libaio-garbage.txt"
expect 2 "nothing judged" -- "$FX/fio-3.33-nosync.json"
has "$T/out" "not judged" "nosync row"
expect 2 "unknown beats pass" -- "$SEEDS/fio-3.23-normal-rke.txt" "$FX/fio-3.33-nopct.json"

# --json: the result model (doc/etcd-fio.schema.json), one host per host:port of the inputs
expect 0 "--json" -- --json "$SEEDS/fio-3.23-normal-rke.txt" "$FX/fio-3.33-client.json"
if jq -e '.schema == 1 and .command == "verdict" and .verdict == "pass" and .exit_status == 0 and (.hosts | length) == 2
          and .hosts[0].host == "" and .hosts[0].port == null
          and .hosts[0].jobs[0].p99_ns == 2540000 and .hosts[0].jobs[0].judged_ns == 2540000
          and .hosts[0].jobs[0].threshold_ns == 10000000 and .hosts[0].jobs[0].samples == 45590
          and .hosts[0].jobs[0].role == "wal" and .hosts[0].jobs[0].verdict == "pass" and .hosts[0].jobs[0].name == "mytest"
          and (.hosts[0].jobs[0].reason | startswith("p99 2.54 ms"))
          and .hosts[1].host == "127.0.0.1" and .hosts[1].port == 18765 and .hosts[1].jobs[0].samples == 911
          and .criteria.percentile == 99 and .criteria.min_samples == 100' \
     "$T/out" > /dev/null; then echo "ok: --json content"; else echo "FAIL: --json content"; cat "$T/out"; fails=$((fails+1)); fi
cp "$T/out" "$T/v1.json"
expect 2 "--json unknown" -- --json "$FX/fio-3.33-nopct.json"
jq -e '.verdict == "unknown" and .hosts[0].jobs[0].judged_ns == null' "$T/out" > /dev/null && echo "ok: --json null value" \
  || { echo "FAIL: --json null value"; fails=$((fails+1)); }
cp "$T/out" "$T/v2.json"
expect 2 "--json nothing judged" -- --json "$FX/fio-3.33-nosync.json"
jq -e '.verdict == "unknown" and .hosts[0].jobs[0].verdict == "not judged"' "$T/out" > /dev/null && echo "ok: lower-case not judged" \
  || { echo "FAIL: not judged"; fails=$((fails+1)); }
cp "$T/out" "$T/v3.json"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
  /usr/bin/python3 "$HERE/lib/validate_json.py" "$T"/v*.json && echo "ok: verdict --json matches doc/etcd-fio.schema.json" \
    || { echo "FAIL: schema"; fails=$((fails+1)); }
else
  echo "FAIL: python3-jsonschema missing (make deps-test)"; fails=$((fails+1))
fi

# options
expect 1 "--wal-ms 2 makes 2.54 ms fail" -- --wal-ms 2 "$SEEDS/fio-3.23-normal-rke.txt"
expect 0 "--percentile 1 on the msec run (3 ms)" -- --percentile 1 "$SEEDS/fio-3.7-normal-msec.txt"
has "$T/out" "P1 " "percentile column header"
expect 1 "--percentile 50 on the msec run (22 ms)" -- --percentile 50 "$SEEDS/fio-3.7-normal-msec.txt"
expect 0 "--backend-ms does not change WAL jobs" -- --backend-ms 1 "$SEEDS/fio-3.23-normal-rke.txt"
expect 2 "--min-samples above the count" -- --min-samples 100000 "$FX/fio-3.33-json.json"
expect 0 "--help" -- --help
has "$T/out" "Exit status: 0 PASS, 1 FAIL, 2" "--help documents exit status"
has "$T/out" "--backend-ms" "--help documents options"
expect 2 "unknown option" -- --bogus "$SEEDS/fio-3.23-normal-rke.txt"
expect 2 "percentile out of range" -- --percentile 100 "$SEEDS/fio-3.23-normal-rke.txt"
expect 2 "missing option value" -- --wal-ms
# one option parser: options after the files, --opt=value, -- ends options
expect 0 "options after the file, --opt=value" -- "$SEEDS/fio-3.23-normal-rke.txt" --json --min-samples=5
jq -e '.criteria.min_samples == 5' "$T/out" > /dev/null && echo "ok: --min-samples=5" || { echo "FAIL: --min-samples=5"; fails=$((fails+1)); }
expect 2 "-- ends the options" -- --json -- --min-samples=5
has "$T/err" "--min-samples=5: cannot open" "file named like an option after --"
"$BIN" help verdict > "$T/out" 2>&1 && has "$T/out" "--backend-ms" "etcd-fio help verdict"

# stdin
"$BIN" verdict - < "$SEEDS/fio-3.7-normal-msec.txt" > /dev/null 2>&1; rc=$?
[ "$rc" = 1 ] && echo "ok: '-' reads stdin" || { echo "FAIL: stdin exit $rc"; fails=$((fails+1)); }
"$BIN" verdict < "$SEEDS/fio-3.23-normal-rke.txt" > /dev/null 2>&1; rc=$?
[ "$rc" = 0 ] && echo "ok: no FILE reads stdin" || { echo "FAIL: no-FILE stdin exit $rc"; fails=$((fails+1)); }

# unreadable / unparseable: exit 2 with one line naming the file and line/byte
expect 2 "truncated JSON" -- "$FX/hand-truncated.json"
has "$T/err" "hand-truncated.json: byte 1501: expected" "truncated JSON message"
[ "$(wc -l < "$T/err")" = 1 ] && echo "ok: one-line error" || { echo "FAIL: error not one line"; fails=$((fails+1)); }
expect 2 "truncated normal" -- "$FX/hand-truncated-normal.txt"
has "$T/err" "hand-truncated-normal.txt:24: expected" "truncated normal message"
expect 2 "corrupted normal" -- "$FX/hand-corrupt-normal.txt"
expect 2 "missing file" -- "$T/nope.txt"
has "$T/err" "nope.txt: cannot open" "missing file message"
expect 2 "a directory" -- "$T"
expect 2 "binary input" -- "$SEEDS/../etcd-wal/etcd-3.4.23-seg0-head.wal"
: > "$T/empty"
expect 2 "empty input" -- "$T/empty"

# No input exits 0 unless every judged job has a real p99 below its threshold, a known count of at least the
# minimum, from a run that reached its end (proven or inferred), from fsync/fdatasync samples on an engine
# that does I/O, without O_SYNC/O_DSYNC, with a median at or above the physical floor (issues 11, 25, 26).
npass=0
for f in "$SEEDS"/*.txt "$SEEDS"/*.log "$FX"/* "$HERE"/fixtures/fio-3.*/*; do
  case "$f" in *.md) continue ;; esac
  "$BIN" verdict --json "$f" > "$T/j" 2>/dev/null; rc=$?
  [ "$rc" = 0 ] || continue
  npass=$((npass+1))
  if ! jq -e '.verdict == "pass" and all(.hosts[].jobs[]; .verdict == "not judged" or (.verdict == "pass"
        and .judged_ns != null and .judged_ns < .threshold_ns and .samples != null and .samples >= $min
        and (.end == "proven" or .end == "inferred")
        and (.syncs | test("^(fdatasync|fsync|fsync and fdatasync|fsync/fdatasync)$"))
        and (.ioengine == null or (.ioengine | test("^(null|cpuio|exec|net|netsplice|rdma)$") | not))
        and (.p50_ns == null or .p50_ns >= $floor)))
        and any(.hosts[].jobs[]; .verdict == "pass")' \
       --argjson min "$(jq '.criteria.min_samples' "$T/j")" --argjson floor "$(jq '.criteria.floor_ns' "$T/j")" \
       "$T/j" > /dev/null; then
    echo "FAIL: $f exits 0 without a proven p99 from a finished run of real flushes"; jq -c '.hosts[].jobs[]' "$T/j"
    fails=$((fails+1))
  fi
done
[ "$npass" -ge 10 ] && echo "ok: every exit 0 ($npass inputs) carries a p99 below the threshold, enough samples, a run that ended and syncs that reached a disk" \
  || { echo "FAIL: only $npass inputs pass: the invariant would hold vacuously"; fails=$((fails+1)); }

# runs fio did not finish (issue 25): unknown with what happened, in every format; their twins still judged
verdict_is() { # RC FILE TEXT
  expect "$1" "$(basename "$2")" -- "$2"
  has "$T/out" "$3" "$(basename "$2"): $3"
}
verdict_is 2 "$FX/fio-3.33-sigint.json" "fio was stopped by signal 2 (SIGINT) after 36.1 of 100 MiB, 2.75 s: the syncs still in flight"
verdict_is 2 "$FX/fio-3.33-sigint-jsonplus.json" "fio was stopped by signal 2 (SIGINT)"
verdict_is 2 "$FX/fio-3.33-sigint.txt" "fio was stopped by signal 2 (SIGINT) after 39.6 MiB"
verdict_is 2 "$FX/fio-3.33-sigint-normal-json.txt" "fio was stopped by signal 2 (SIGINT)"
verdict_is 2 "$FX/fio-3.33-sigterm.json" "fio was stopped by signal 15 (SIGTERM)"
verdict_is 2 "$FX/fio-3.33-timeout.txt" "fio was stopped by signal 15 (SIGTERM)"
verdict_is 2 "$FX/fio-3.33-time-based-cut.json" "of its 30 s runtime"
verdict_is 2 "$FX/fio-3.33-io-size-cut.json" "after 47.5 of 100 MiB"
verdict_is 2 "$FX/fio-3.33-status-kill.json" "the input ends with an interim --status-interval report"
verdict_is 2 "$FX/fio-3.33-status-kill.txt" "one status interval (1 s) after the one before"
verdict_is 2 "$FX/fio-3.33-status-sigint.json" "fio was stopped by signal 2 (SIGINT)"
verdict_is 2 "$FX/fio-3.33-status-sigint.txt" "fio was stopped by signal 2 (SIGINT)"
verdict_is 0 "$FX/fio-3.33-time-based.json" "p99 220 us < 10 ms"
verdict_is 0 "$FX/fio-3.33-io-size.json" "p99 171 us < 10 ms"
verdict_is 0 "$FX/fio-3.33-status-interval.txt" "pass: WAL p99 "
one_job() { # FILE DESCRIPTION: the verdict of FILE has exactly one job
  if [ "$("$BIN" verdict --json "$1" | jq '[.hosts[].jobs[]] | length')" = 1 ]; then echo "ok: $2"
  else echo "FAIL: $2: not one job"; fails=$((fails+1)); fi
}
one_job "$FX/fio-3.33-status-interval.txt" "status-interval: one job"
"$BIN" verdict --json "$FX/fio-3.33-sigint.json" "$FX/fio-3.33-time-based.json" "$FX/fio-3.33-normal.txt" > "$T/e.json"
jq -e '[.hosts[].jobs[].end] == ["stopped", "proven", "inferred"]
       and (.hosts[0].jobs[0].end_reason | startswith("fio was stopped by signal 2"))
       and .hosts[0].jobs[1].end_reason == "the job ran its runtime of 2 s"' "$T/e.json" > /dev/null \
  && echo "ok: --json says whether the end was proven or inferred" || { echo "FAIL: --json end"; cat "$T/e.json"; fails=$((fails+1)); }
# what made the samples (issue 26): unknown with the option or sign that says so, in every format
verdict_is 2 "$FX/fio-3.33-null.json" "ioengine=null does no I/O"
verdict_is 2 "$FX/fio-3.33-null.txt" "ioengine=null does no I/O"
verdict_is 2 "$FX/fio-3.33-sfr.json" "sync_file_range only starts writeback"
verdict_is 2 "$FX/fio-3.33-sfr.txt" "sync_file_range only starts writeback"
verdict_is 2 "$FX/fio-3.33-osync.json" "sync=1 opens the files O_SYNC"
verdict_is 2 "$FX/fio-3.33-odsync.json" "sync=dsync opens the files O_DSYNC"
verdict_is 2 "$FX/fio-3.33-osync.txt" "the flush happened in the write"
verdict_is 0 "$FX/fio-3.33-bs8m.json" "p99 4.11 ms < 10 ms"
for f in job-killed.json job-killed.txt job-killed-group.json job-killed-group.txt client-job-killed.json \
         client-job-killed.txt; do
  verdict_is 2 "$FX/fio-3.33-$f" "the job's process died"
done
verdict_is 2 "$FX/fio-3.33-shm.json" "these fdatasyncs did not reach a disk: their median is 241 ns, below the 5 us"
verdict_is 2 "$FX/fio-3.33-shm.txt" "did not reach a disk"
verdict_is 2 "$FX/fio-3.33-end-fsync.json" "end_fsync=1 makes one fsync when the job ends, which fio does not time"
jq -e '.criteria.floor_ns == 5000' "$T/e.json" > /dev/null && echo "ok: the floor in --json" \
  || { echo "FAIL: criteria.floor_ns"; fails=$((fails+1)); }
# the reader on older fio (issue 22): 3.4-3.17 JSON has no "N"; fio < 3.4 never timed syncs; etcd-perf lines
verdict_is 0 "$HERE/fixtures/fio-3.16/fdatasync.json" "p99 4.11 ms < 10 ms"
verdict_is 0 "$HERE/fixtures/fio-3.7/fsync.json" "p99 561 us < 10 ms"
verdict_is 2 "$FX/hand-fio-3.1-fsync.json" "fio-3.1 does not time fsync/fdatasync"
verdict_is 2 "$FX/hand-etcdperf-trailing-blank.log" "number of sync samples is not in the input"
verdict_is 2 "$FX/hand-etcdperf-damaged-json.log" "as its fio JSON does not read"
verdict_is 0 "$FX/fio-3.33-etcdperf-container.log" "p99 1.04 ms < 10 ms"

# two fio outputs in one file are two runs, each judged and told apart (11.2): a failing run first, then a
# passing one, must fail, and the table and the JSON must say which run is which
cat "$FX/fio-3.33-global-backend.json" "$FX/fio-3.33-json.json" > "$T/both.json"
expect 1 "fail.json + pass.json in one file fails" -- "$T/both.json"
has "$T/out" "both.json#1:" "first run named FILE#1 in the table"
has "$T/out" "both.json#2:mytest" "second run named FILE#2 in the table"
"$BIN" verdict --json "$T/both.json" > "$T/both.out"
if [ -s "$T/both.out" ] && jq -e '[.hosts[].jobs[] | .run] | (min == 1 and max == 2)' "$T/both.out" > /dev/null &&
   jq -e '[.hosts[].jobs[] | select(.run == 2)] | length == 1 and .[0].verdict == "pass"' "$T/both.out" > /dev/null &&
   jq -e '[.hosts[].jobs[] | select(.run == 1 and .verdict == "fail")] | length >= 1' "$T/both.out" > /dev/null; then
  echo "ok: --json gives each job its run (1: fail, 2: pass)"
else
  echo "FAIL: --json runs"; cat "$T/both.out"; fails=$((fails+1))
fi
# normal text beside JSON is dropped only when it is the JSON's own run (fio's normal,json): a failing text
# run of the same job name and count beside a passing JSON run is a run of its own, in either order
sed -e 's/max=7662/max=27662/' -e 's/99.00th=\[ 7570\], 99.50th=\[ 7570\], 99.90th=\[ 7635\], 99.95th=\[ 7635\]/99.00th=[27570], 99.50th=[27570], 99.90th=[27635], 99.95th=[27635]/' -e 's/99.99th=\[ 7635\]/99.99th=[27635]/' \
    "$FX/fio-3.33-normal.txt" > "$T/nfail.txt"
expect 1 "a failing normal-text run alone" -- "$T/nfail.txt"
cat "$FX/fio-3.33-json.json" "$T/nfail.txt" > "$T/jt.txt"; cat "$T/nfail.txt" "$FX/fio-3.33-json.json" > "$T/tj.txt"
expect 1 "passing JSON + failing text fails" -- "$T/jt.txt"
expect 1 "failing text + passing JSON fails" -- "$T/tj.txt"
cat "$FX/fio-3.33-json.json" "$FX/hand-truncated-normal.txt" > "$T/jtrunc.txt"
expect 2 "passing JSON + truncated text is an error" -- "$T/jtrunc.txt"
expect 0 "fio's own normal,json output is one run" -- "$FX/fio-3.33-normal-json.txt"
has "$T/out" "pass: WAL p99 " "normal,json: a pass"
one_job "$FX/fio-3.33-normal-json.txt" "normal,json: the text part is the JSON's jobs"
# a run cut short (fio interrupted before any job result) beside a complete one: an error, in either order
cat "$FX/fio-3.33-normal.txt" "$FX/real-interrupted-layout.txt" > "$T/ci.txt"
cat "$FX/real-interrupted-layout.txt" "$FX/fio-3.33-normal.txt" > "$T/ic.txt"
expect 2 "complete + cut-short normal run" -- "$T/ci.txt"
has "$T/err" "in the last fio run (output cut short?)" "complete + cut-short: says the last run was cut short"
expect 2 "cut-short + complete normal run" -- "$T/ic.txt"
has "$T/err" "ic.txt:13: expected a job result" "cut-short + complete: names the line after the cut run"
# a password in a URL never reaches an error, whatever the scheme's case, nor compare's (which takes files)
for u in 'HTTP://op:s3cret-pw@127.0.0.1:1/metrics' 'Https://op:s3cret-pw@127.0.0.1:1/metrics'; do
  expect 2 "unreachable $u" -- "$u"
  if grep -q "s3cret-pw" "$T/out" "$T/err" || ! grep -q "op:REDACTED@" "$T/err"; then
    echo "FAIL: password shown for $u:"; cat "$T/err"; fails=$((fails+1))
  else echo "ok: password redacted for an upper-case scheme"; fi
done
"$BIN" compare 'http://op:s3cret-pw@127.0.0.1:1/metrics' "$FX/fio-3.33-json.json" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 2 ] && ! grep -q "s3cret-pw" "$T/out" "$T/err" && grep -q "compare reads saved files" "$T/err"; then
  echo "ok: compare refuses a URL without showing its password"
else echo "FAIL: compare with a URL: exit $rc"; cat "$T/err"; fails=$((fails+1)); fi
expect 0 "one run: no run mark" -- "$FX/fio-3.33-json.json"
if grep -q "json#1:" "$T/out"; then echo "FAIL: run mark on a single run"; fails=$((fails+1)); else echo "ok: no run mark on a single run"; fi

[ "$fails" = 0 ] || { echo "it_verdict: $fails failure(s)"; exit 1; }
echo "it_verdict: all ok"
