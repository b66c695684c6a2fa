#!/bin/sh
# SPDX-License-Identifier: MIT
# it_explain.sh — the explain lines of `etcd-fio verdict` on committed inputs: the rules that must fire
# (stalls on a real fio 3.23 run whose p99.9 is 23x its p50; not-the-disk when etcdctl check perf fails
# beside a passing disk test; too-few-samples on a fresh etcd's scrape), in the JSON ("explain": [...],
# schema-validated) and as "why:" lines in the table; and that explain never changes the verdict.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
HERE=$(cd "$(dirname "$0")" && pwd)
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
       and (.explain[0].why | test("p50 1.16 ms is fine but the p99.9 is 27.1 ms, 23x the p50"))
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
grep -q "^  why: WAL fdatasync of job mytest: p50 1.16 ms is fine.*\[stalls\]$" "$T/t.txt" \
  && grep -q "^       -> give etcd a disk of its own" "$T/t.txt" \
  && grep -q "\[not-the-disk\]$" "$T/t.txt" && ok "table why/-> lines" || { bad "table lines"; cat "$T/t.txt"; }

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
