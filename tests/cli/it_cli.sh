#!/bin/sh
# SPDX-License-Identifier: MIT
# it_cli.sh — every subcommand's command line as a careless or hostile user meets it: --help (and
# `etcd-fio help CMD`, the same text) lists the options of its table; an unknown option, an option given
# twice, an empty --opt= and a 100 KB argument each give exit 2, one short line on stderr and nothing on
# stdout. And odd strings from the inputs: a job name with terminal escapes and invalid UTF-8 in a file
# whose name has them too gives valid UTF-8 JSON (the bytes as U+FFFD, the controls escaped, both kept)
# and a table without a control character.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
CLI=$BUILD/etcd-fio
[ -x "$CLI" ] || { echo "FAIL: build $CLI first (make all)"; exit 1; }
command -v python3 >/dev/null || { echo "skip: python3 not installed (mk/deps.sh installs it)"; exit 77; }
tmp=$(mktemp -d /tmp/it_cli.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

cmds=$("$CLI" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ "$(echo $cmds | wc -w)" -ge 6 ] || fail "etcd-fio --help lists only: $cmds"

# refused CMD WHAT ARGS…: exit 2, nothing on stdout, one line on stderr of at most 400 bytes naming the command
refused() {
  c=$1 what=$2; shift 2
  "$CLI" "$c" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null; rc=$?
  if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && [ "$(wc -c < "$tmp/err")" -le 400 ] &&
     grep -q "^etcd-fio $c: " "$tmp/err"; then
    ok "$c $what: exit 2, one line: $(cut -c1-110 "$tmp/err")"
  else
    fail "$c $what: exit $rc, $(wc -c < "$tmp/out") bytes out, stderr $(wc -l < "$tmp/err") lines $(wc -c < "$tmp/err") bytes: $(head -c 300 "$tmp/err")"
  fi
}

long=$(head -c 100000 /dev/zero | tr '\0' 9)
for c in $cmds; do
  "$CLI" "$c" --help > "$tmp/help" 2> "$tmp/help.err"; rc=$?
  "$CLI" help "$c" > "$tmp/help2" 2>&1
  if [ $rc = 0 ] && [ ! -s "$tmp/help.err" ] && head -n 1 "$tmp/help" | grep -q "^usage: etcd-fio $c" &&
     cmp -s "$tmp/help" "$tmp/help2" && grep -q -- "--help" "$tmp/help"; then
    ok "$c --help: usage, $(grep -c '^  --' "$tmp/help") options, the same as 'etcd-fio help $c'"
  else
    fail "$c --help (exit $rc): $(head -n 2 "$tmp/help" "$tmp/help.err")"
  fi
  refused "$c" "--no-such-option" --no-such-option
  refused "$c" "-x" -x
  # a flag and a value option of this command's table, from its own --help
  flag=$(grep -o '^  --[a-z-]* *  ' "$tmp/help" | head -n 1 | tr -d ' ')
  val=$(grep -o '^  --[a-z-]* [A-Z|[][^ ]*' "$tmp/help" | head -n 1 | awk '{print $1}')
  [ -n "$flag" ] && refused "$c" "$flag twice" "$flag" "$flag"
  [ -n "$val" ] && refused "$c" "$val= (empty)" "$val="
  [ -n "$val" ] && refused "$c" "$val with a 100 KB value" "$val=$long"
  [ -n "$val" ] && refused "$c" "$val without its value" "$val"
done
# a value option given twice, each value valid: refused for being twice (no last-one-wins)
twice() {
  refused "$@"
  grep -q "given twice" "$tmp/err" || fail "$1 $2: not refused as given twice: $(cat "$tmp/err")"
}
twice check "--max-time twice" --max-time 30 --max-time=40
twice verdict "--percentile twice" --percentile 99 --percentile=90
twice job "--runtime twice" --runtime 60 --runtime 90
twice fleet "--dir twice" --dir /a --dir /b --ssh h
twice compare "--max-input twice" --max-input 1M --max-input 2M a b
twice capacity "--step twice" --step 3 --step 4
# fleet's host options add a host each: given twice they are two hosts (refused here for no DIR on them)
"$CLI" fleet --client 127.0.0.1,1 --client=127.0.0.1,2 --dir '/a;b' > "$tmp/out" 2> "$tmp/err"
grep -q "given twice" "$tmp/err" && fail "fleet --client twice refused: $(cat "$tmp/err")" || ok "fleet --client may be repeated"
refused verdict "--percentile=100 KB" "--percentile=$long"
refused check "DIR of 100 KB" "/tmp/$long"
refused job "--dir of 100 KB" --dir "/$long"
refused capacity "--clients of 100 KB" --clients "$long"

# odd strings from an input: a job name with ESC sequences, BEL and invalid bytes, in a file named so too
python3 - "$top/tests/fixtures/fio/fio-3.33-json.json" "$tmp" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
new = d.replace(b'"jobname" : "mytest"', b'"jobname" : "my\\u001b[2Jjob\\u0007 \xff\xfe \\"q\\" \xc3\xa9"', 1)
assert new != d
open(sys.argv[2].encode() + b'/in\x01\x1b]0;x\x07\xffput.json', 'wb').write(new)
PY
set -- "$tmp"/in*put.json
[ -f "$1" ] || fail "the odd input was not made"
"$CLI" verdict --json "$1" > "$tmp/odd.json" 2> "$tmp/odd.err"; rc=$?
[ $rc = 0 ] || fail "verdict --json on the odd input: exit $rc: $(cat "$tmp/odd.err")"
python3 - "$tmp/odd.json" <<'PY' && ok "odd strings: valid UTF-8 JSON, invalid bytes as U+FFFD, controls escaped and kept" || fail "odd strings in JSON"
import json, sys
raw = open(sys.argv[1], 'rb').read()
assert b'\x1b' not in raw and b'\x07' not in raw and b'\x01' not in raw, 'a raw control character'
j = json.loads(raw.decode('utf-8'))['hosts'][0]['jobs'][0]
assert j['name'] == 'my\x1b[2Jjob\x07 \ufffd\ufffd "q" \u00e9', repr(j['name'])
assert j['source'].endswith('/in\x01\x1b]0;x\x07\ufffdput.json'), repr(j['source'])
PY
"$CLI" verdict "$1" > "$tmp/odd.txt" 2>&1
if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$tmp/odd.txt"; then
  fail "the table carries a control character from the input: $(grep -m1 job "$tmp/odd.txt" | od -c | head -3)"
else
  grep -q 'my?\[2Jjob? ?? "q" é' "$tmp/odd.txt" && ok "odd strings: the table shows them as '?', é kept" ||
    fail "odd strings in the table: $(grep -m1 'job' "$tmp/odd.txt")"
fi
echo "it_cli: $fails failure(s)"
[ $fails = 0 ]
