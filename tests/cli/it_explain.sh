#!/bin/sh
# SPDX-License-Identifier: MIT
# it_explain.sh — the explain lines of `etcd-fio verdict` on committed inputs: the rules that must fire
# (stalls on a real fio 3.23 run whose p99.9, 45 samples beyond it, is over 10 ms and 23x its p50;
# not-the-disk when etcdctl check perf fails
# beside a passing disk test; too-few-samples on a fresh etcd's scrape), in the JSON ("explain": [...],
# schema-validated) and as "why:" lines in the table; and that explain never changes the verdict.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
HERE=$(cd "$(dirname "$0")/.." && pwd)
FX=$HERE/fixtures
[ -x "$BIN" ] || { echo "it_explain: $BIN not built"; exit 1; }
command -v jq >/dev/null || { echo "it_explain: skipped: jq not installed"; exit 77; }
T=$(mktemp -d /tmp/it_explain.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails+1)); }
# `jq -e` succeeds on an empty file (jq 1.6): an output that is missing must fail the check
jqe() { for last; do :; done; [ -s "$last" ] && jq -e "$@"; }

RKE=$FX/seeds/fio-3.23-normal-rke.txt
CPF=$FX/etcd-metrics/hand-check-perf-fail.txt
SCRAPE=$FX/etcd-metrics/etcd-3.4.23-after-puts.prom

"$BIN" verdict --json "$RKE" > "$T/a.json"; rc=$?
[ $rc = 0 ] && ok "rke seed passes (exit 0) with explain lines" || bad "rke seed: exit $rc"
jqe '[.explain[].rule] == ["stalls", "headroom"]
       and (.explain[0].why | test("the p99 passes, but the p99.9 is 27.1 ms, at or above the 10 ms threshold and 23x the p50 1.16 ms"))
       and (.explain[1].why | test("p99 2.54 ms, 3.9x below the 10 ms threshold"))
       and all(.explain[]; (.advice | length) > 20)' "$T/a.json" >/dev/null \
  && ok "stalls + headroom with the numbers" || { bad "rke explain"; jq .explain "$T/a.json"; }

"$BIN" verdict --json "$RKE" "$CPF" "$SCRAPE" > "$T/b.json"; rc=$?
[ $rc = 1 ] && ok "check perf FAIL fails the lot (exit 1)" || bad "mixed: exit $rc"
jqe '[.explain[].rule] | (index("not-the-disk") != null) and (index("too-few-samples") != null)' "$T/b.json" >/dev/null \
  && ok "not-the-disk and too-few-samples" || { bad "mixed explain"; jq .explain "$T/b.json"; }
jqe '.explain[] | select(.rule == "not-the-disk") | .advice | test("ionice -c2 -n0")' "$T/b.json" >/dev/null \
  && ok "not-the-disk recommends ionice" || bad "not-the-disk advice"
jqe '[.hosts[].jobs[] | select(.role == "check-perf")] | length == 1 and .[0].threshold_ns == null' "$T/b.json" >/dev/null \
  && ok "check perf row: role check-perf, no threshold of ours" || bad "check perf row"
if command -v python3 >/dev/null && python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$T/b.json" "$HERE/../doc/etcd-fio.schema.json" \
    && ok "schema-valid with explain" || bad "schema"
else
  echo "SKIP: python3-jsonschema missing (mk/deps.sh installs it): the schema was not checked"
fi

# the table: the same lines, rule names in brackets, one recommendation each
COLUMNS=400 "$BIN" verdict -v "$RKE" "$CPF" > "$T/t.txt"; rc=$?  # every why: line, unwrapped
[ $rc = 1 ] || bad "table: exit $rc"
grep -q "^  why: WAL fdatasync of job mytest: the p99 passes.*\[stalls\]$" "$T/t.txt" \
  && grep -q "^       -> the verdict stands on the p99" "$T/t.txt" \
  && grep -q "\[not-the-disk\]$" "$T/t.txt" && ok "table why/-> lines" || { bad "table lines"; cat "$T/t.txt"; }

# inputs operators already have: what each proves, what it cannot, and the command for the rest
EPL=$FX/seeds/etcd-perf-container.log
CPP=$FX/etcd-metrics/hand-check-perf-pass.txt
"$BIN" verdict --json "$EPL" > "$T/e.json"; rc=$?
[ $rc = 2 ] && jqe '(.explain[-1].next | startswith("etcd-fio "))
     and ([.explain[] | select(.rule == "no-count")] | length == 2
       and all(.[]; (.why | test("a p99 of [0-9.]+ ms, below the 10 ms threshold, but not how many syncs"))
                    and .next == "etcd-fio check /var/lib/etcd"))' "$T/e.json" >/dev/null \
  && ok "etcd-perf verdict lines: exit 2, each p99 below 10 ms but no count, then the command" \
  || { bad "etcd-perf lines (exit $rc)"; jq .explain "$T/e.json"; }
"$BIN" verdict --json "$CPP" > "$T/p.json"; rc=$?
[ $rc = 2 ] && jqe '.explain | length == 1 and .[0].rule == "check-perf-pass"
       and (.[0].why | test("passed \\(throughput 150 writes/s.*times no fdatasync"))
       and .[0].next == "etcd-fio check /var/lib/etcd"' "$T/p.json" >/dev/null \
  && ok "etcdctl check perf PASS: exit 2, what it shows and cannot, then the command" \
  || { bad "check perf pass (exit $rc)"; jq .explain "$T/p.json"; }
"$BIN" verdict "$CPP" > "$T/p.txt"
grep -q "^       run: etcd-fio check /var/lib/etcd$" "$T/p.txt" && ok "table: the run: line" || { bad "run: line"; cat "$T/p.txt"; }
# a whole etcd-perf log (its fio JSON part carries the counts) is judged like any fio JSON
"$BIN" verdict --json "$FX/fio/fio-3.33-etcdperf-container.log" > "$T/w.json"; rc=$?
[ $rc = 0 ] && jqe '.verdict == "pass" and .hosts[0].jobs[0].samples == 352987' "$T/w.json" >/dev/null \
  && ok "whole etcd-perf log: judged on its 352,987 syncs (exit 0)" || bad "whole etcd-perf log: exit $rc"

# explain is advisory: the verdicts with and without the lines are the same as the library's
for f in "$RKE" "$CPF" "$SCRAPE" "$FX/fio/fio-3.33-json.json" "$FX/fio/fio-3.33-nopct.json"; do
  "$BIN" verdict --json "$f" > "$T/v.json"; rc=$?
  v=$(jq -r .verdict "$T/v.json")
  case "$v:$rc" in pass:0|fail:1|unknown:2) ;; *) bad "$(basename "$f"): verdict $v, exit $rc" ;; esac
done
# terminal manners: colour for the verdict words on a terminal only (script(1) gives a pty), never with
# NO_COLOR, never into a pipe
if command -v script >/dev/null; then
  ESC=$(printf '\033')
  TERM=xterm script -qec "$BIN verdict $RKE" /dev/null > "$T/tty.txt" 2>&1
  grep -q "${ESC}\[32mpass${ESC}\[0m: " "$T/tty.txt" && ok "pty: the verdict word in green" || { bad "pty colour"; od -c "$T/tty.txt" | head -5; }
  NO_COLOR=1 TERM=xterm script -qec "$BIN verdict $RKE" /dev/null > "$T/tty2.txt" 2>&1
  grep -q "$ESC" "$T/tty2.txt" && bad "NO_COLOR: escape codes" || ok "NO_COLOR: no colour"
  "$BIN" verdict "$RKE" | grep -q "$ESC" && bad "pipe: escape codes" || ok "pipe: no colour"
else
  echo "SKIP: script(1) missing (util-linux): the colours on a terminal were not checked"
fi
echo "it_explain: $fails failure(s)"
[ $fails = 0 ]
