#!/bin/sh
# SPDX-License-Identifier: MIT
# it_capacity.sh — `etcd-fio capacity` on a small real run (two client counts, 1 s each, --max-time too short
# for the confirmation run, so the ceiling is honestly unknown): the table's rows, more entries per Save
# with more clients, the JSON against doc/etcd-fio.schema.json, the HTML page in headless Chromium, nothing
# left in DIR; bad --clients values refused before anything runs; a planted symlink in DIR left alone;
# SIGINT and SIGKILL mid-run clean (fio gone, DIR empty); a filesystem without the room refused.
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/etcd-fio"
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }
command -v "${FIO:-fio}" >/dev/null || { echo "skip: fio not installed"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
work=$(mktemp -d "$(pwd)/build/it_capacity.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_capacity.XXXXXX)
bg=""
cleanup() {
  for p in $bg; do kill -KILL "$p" 2>/dev/null; done
  mountpoint -q "$work/small" 2>/dev/null && umount "$work/small"
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tmp"; export TMPDIR="$work/tmp"   # our fio job files live here: pgrep finds only ours
. "$(dirname "$0")/../lib/assert.sh"
empty() { [ -z "$(ls -A "$1")" ]; }
ours_running() { pgrep -f "$work/tmp/etcd-fio-capacity" >/dev/null; }
SHORT="--clients 1,8 --step 1 --max-time 3 --force"

# 1. a small run: table, then no ceiling — unknown (the confirmation run does not fit in 3 s), or FAIL when
# this disk's WAL p99 is over 10 ms even at one client (a busy CI disk): never a ceiling (exit 0)
dir="$work/dir"; mkdir -p "$dir"
"$BIN" capacity $SHORT "$dir" > "$work/table.txt" 2> "$work/table.err"; rc=$?
case $rc in 1|2) ok "small run: exit $rc (no ceiling without the confirmation run)" ;; *) bad "small run: exit $rc"; cat "$work/table.err" ;; esac
cat "$work/table.txt"
if [ $rc = 2 ]; then
  # the answer is the first line, wrapped at 80 columns: read it whole
  awk 'NR == 1 || (/^  / && !body) { printf "%s ", $0; next } { body = 1 }' "$work/table.txt" | tr -s ' ' \
    | grep -q '^unknown: .*did not fit in --max-time' && ok "says why the ceiling is unknown" || bad "no UNKNOWN line naming --max-time"
else
  grep -q '^fail: even at 1 client' "$work/table.txt" && ok "FAIL says even one client exceeds a threshold" || bad "no FAIL line"
fi
for c in 1 8; do
  awk -v c=$c '$1 == c && $2 > 0 {f=1} END {exit !f}' "$work/table.txt" && ok "row of $c clients with writes/s" || bad "no row for $c clients"
done
empty "$dir" && ok "nothing left in DIR" || { bad "left in DIR:"; ls -la "$dir"; }
ours_running && bad "a fio of ours still runs" || ok "no fio left"

# 2. --json against the schema, and --html in Chromium
"$BIN" capacity $SHORT --json --html "$work/cap.html" "$dir" > "$work/cap.json" 2> "$work/cap.err"; rc=$?
case $rc in 1|2) ok "json run: exit $rc" ;; *) bad "json run: exit $rc"; cat "$work/cap.err" ;; esac
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
  /usr/bin/python3 "$HERE/lib/validate_json.py" "$work/cap.json" && ok "capacity --json matches the schema" || bad "capacity --json does not match the schema"
else echo "SKIP: python3-jsonschema not installed: schema not checked"; fi
jq -e --argjson rc $rc '.command == "capacity" and .exit_status == $rc and .verdict == (if $rc == 2 then "unknown" else "fail" end)
       and (.details.capacity.rows | length) == 2 and .details.capacity.ceiling == null
       and all(.details.capacity.rows[]; .ran and .writes_per_s > 0 and .backend_samples < 100 and .verdict != "pass")' \
  "$work/cap.json" > /dev/null && ok "JSON: two rows that ran, too few backend commits for a PASS, no ceiling" \
  || { bad "JSON content"; jq . "$work/cap.json" | head -60; }
fv=$("${FIO:-fio}" --version 2>/dev/null)
jq -e --arg v "$fv" '.fio_version == $v and .hosts[0].fio_version == $v' "$work/cap.json" > /dev/null \
  && ok "JSON names the fio that ran ($fv)" || bad "JSON: fio_version $(jq -c '[.fio_version, .hosts[0].fio_version]' "$work/cap.json"), not $fv"
e1=$(jq '.details.capacity.rows[0].entries_per_save' "$work/cap.json"); e8=$(jq '.details.capacity.rows[1].entries_per_save' "$work/cap.json")
awk -v a="$e1" -v b="$e8" 'BEGIN {exit !(a >= 1 && b > a)}' && ok "more entries per Save with more clients ($e1 -> $e8)" || bad "entries per Save $e1 -> $e8"
if grep -Eiq '<script|<link|<iframe|<img|src=|url\(' "$work/cap.html"; then bad "HTML refers to something outside the page"
else ok "HTML self-contained"; fi
[ "$(grep -c '<svg ' "$work/cap.html")" -eq 2 ] && ok "HTML has the two charts" || bad "HTML charts missing"
v=$(jq -r .verdict "$work/cap.json")
grep -q "<h1 class=\"$v\">" "$work/cap.html" && ok "HTML banner says $v as the JSON does" || bad "HTML banner vs $v"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ]; then
  HOME="$work" timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --window-size=1280,1600 --screenshot="$work/cap.png" "file://$work/cap.html" > "$work/chrome.log" 2>&1
  HOME="$work" timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --dump-dom "file://$work/cap.html" 2> /dev/null > "$work/cap.dom"
  [ -s "$work/cap.png" ] && ok "Chromium rendered the page" || bad "no screenshot"
  grep -q 'Writes/s against clients' "$work/cap.dom" && grep -q 'polyline' "$work/cap.dom" && ok "Chromium's DOM has the charts" \
    || bad "Chromium's DOM lacks the charts"
else echo "SKIP: chromium not installed: the page was not rendered"; fi

# 3. bad --clients (and friends) refused before anything runs
for a in "--clients 0" "--clients 100001" "--clients abc" "--clients 1,1" "--clients 16,1" "--clients 1,,2" \
         "--clients 1,2," "--clients -1" "--val-size -1" "--key-size 0" "--step 0" "--clients 1,2,3 --step 5 --max-time 10"; do
  # shellcheck disable=SC2086
  "$BIN" capacity $a --force "$dir" > "$work/bad.out" 2> "$work/bad.err"; rc=$?
  if [ $rc = 2 ] && [ -s "$work/bad.err" ] && [ "$(wc -l < "$work/bad.err")" = 1 ] && empty "$dir" && ! ours_running; then ok "refused: $a ($(cat "$work/bad.err"))"
  else bad "$a: exit $rc"; cat "$work/bad.err"; fi
done

# 3b. 100000 clients in a 1 s step: the model's first Ready (every client's put) needs 3.3 s of etcd's CPU, so
# no put is answered: the row says so, there is no ceiling, nothing is left
"$BIN" capacity --clients 100000 --step 1 --max-time 2 --force --json "$dir" > "$work/huge.json" 2> "$work/huge.err"; rc=$?
[ $rc = 2 ] && jq -e '.verdict == "unknown" and (.details.capacity.rows[0] | .ran == false and (.reason | test("no put was answered")))' \
  "$work/huge.json" > /dev/null && empty "$dir" && ok "100000 clients: no put answered in the step, said so" \
  || { bad "100000 clients: exit $rc"; cat "$work/huge.err"; jq .details.capacity.rows "$work/huge.json"; }

# 3c. --html onto a planted symlink, and a DIR fio's job-file parser would cut: refused before fio starts
ln -s "$work/victim-html" "$work/planted.html"
"$BIN" capacity $SHORT --html "$work/planted.html" "$dir" > /dev/null 2> "$work/ph.err"; rc=$?
[ $rc = 2 ] && [ ! -e "$work/victim-html" ] && empty "$dir" && ok "--html onto a symlink refused ($(cat "$work/ph.err"))" \
  || { bad "--html symlink: exit $rc"; cat "$work/ph.err"; }
mkdir -p "$work/a#b"
"$BIN" capacity $SHORT "$work/a#b" > /dev/null 2> "$work/hash.err"; rc=$?
[ $rc = 2 ] && grep -q "#" "$work/hash.err" && empty "$work/a#b" && ok "DIR with '#' refused" || { bad "DIR with #: exit $rc"; cat "$work/hash.err"; }

# 4. a symlink planted in DIR under the name of a private directory: never followed, never removed
mkdir -p "$work/victim"; echo keep > "$work/victim/file"
ln -s "$work/victim" "$dir/etcd-fio.1.etcd-wal.0"
"$BIN" capacity $SHORT "$dir" > /dev/null 2>&1
[ -L "$dir/etcd-fio.1.etcd-wal.0" ] && [ "$(cat "$work/victim/file")" = keep ] && [ "$(ls -A "$work/victim")" = file ] \
  && ok "planted symlink left alone, its target untouched" || bad "planted symlink or its target changed"
rm -f "$dir/etcd-fio.1.etcd-wal.0"

# 5. SIGINT, then SIGKILL, mid-run: wait for the engine's private directory (fio runs), then signal
wait_dir() { i=0; while empty "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; ! empty "$1"; }
wait_gone() { i=0; while { ! empty "$1" || ours_running; } && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; empty "$1" && ! ours_running; }
"$BIN" capacity --clients 1,2,4 --step 5 --max-time 60 --force --json "$dir" > "$work/int.json" 2> "$work/int.err" & p=$!; bg="$bg $p"
if wait_dir "$dir"; then
  kill -INT $p; wait $p; rc=$?
  [ $rc = 2 ] && jq -e '.verdict == "unknown" and (.reason | test("interrupted"))' "$work/int.json" > /dev/null \
    && ok "SIGINT: unknown, interrupted" || { bad "SIGINT: exit $rc"; cat "$work/int.err"; }
  wait_gone "$dir" && ok "SIGINT: fio gone, DIR empty" || { bad "SIGINT: left behind"; ls -la "$dir"; }
else bad "the run never started (no private directory)"; cat "$work/int.err"; fi
"$BIN" capacity --clients 1,2,4 --step 20 --max-time 90 --force "$dir" > /dev/null 2>&1 & p=$!; bg="$bg $p"
if wait_dir "$dir"; then
  kill -KILL $p; wait $p 2>/dev/null
  # fio was started with a parent-death signal (proc.c): it ends its jobs, the engine removes its files
  wait_gone "$dir" && ok "SIGKILL: fio gone, DIR empty" || { bad "SIGKILL: left behind"; ls -la "$dir"; pgrep -af "$work/tmp"; }
else bad "the SIGKILL run never started"; fi

# 6. a filesystem without the room the run needs: refused before fio starts
if [ "$(id -u)" = 0 ] && mkdir -p "$work/small" && mount -t tmpfs -o size=64m tmpfs "$work/small" 2>/dev/null; then
  "$BIN" capacity $SHORT "$work/small" > /dev/null 2> "$work/small.err"; rc=$?
  [ $rc = 2 ] && grep -q "MiB free" "$work/small.err" && empty "$work/small" && ok "no room: refused ($(cat "$work/small.err"))" \
    || { bad "no room: exit $rc"; cat "$work/small.err"; }
  umount "$work/small"
else echo "SKIP: not root (no tmpfs to fill): the no-room refusal was not tried"; fi

"$BIN" capacity --help | grep -q -- "--clients" && ok "--help" || bad "--help"
finish it_capacity
