#!/bin/sh
# SPDX-License-Identifier: MIT
# it_html.sh — the HTML reports in a real headless Chromium (Debian's chromium): `etcd-fio check --html`
# after a short real run with --classic, and `etcd-fio compare --html`. Each page must be self-contained
# (no script, no link, no src= / url() of anything), carry the verdict the JSON says, the job table, the
# latency picture (check), the explain lines and the versions; Chromium must render it (a non-empty PNG
# screenshot) and its DOM must show the verdict text.
# `make examples` (mk/examples.sh report) runs here into a scratch directory as the make target runs it,
# and the committed examples/check-report.* are held to what they show: the banner's word is the JSON's
# verdict, each decided job's bound lies on its verdict's side of the limit, the page has the sections
# this build writes and names this build's version (else: run `make examples`).
set -u
BUILD=${BUILD:-build}
BIN="$BUILD/etcd-fio"
HERE=$(cd "$(dirname "$0")/.." && pwd)
TOP=$(cd "$HERE/.." && pwd)
[ -x "$BIN" ] || { echo "FAIL: $BIN not built"; exit 1; }
command -v "${FIO:-fio}" >/dev/null || { echo "skip: fio not installed"; exit 77; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || { echo "skip: chromium not installed (make deps-test)"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed"; exit 77; }
work=$(mktemp -d "$(pwd)/build/it_html.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_html.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../lib/assert.sh"

# shot HTML PNG: headless Chromium renders the page (mk/examples.sh shot: a fresh profile, no network), then
# its DOM is dumped with the same flags
shot() {
  sh "$TOP/mk/examples.sh" shot "$1" "$2" 1280 1600 > "$work/chrome.log" 2>&1
  HOME="$work" timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile-dom" --dump-dom "file://$1" 2> "$work/chrome.err" > "$2.dom"
  rm -rf "$work/profile-dom"
}
# png_size FILE: "WIDTHxHEIGHT" from the PNG's IHDR
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }'; }
# sides JSON: each decided job whose bound is known lies on its verdict's side of its limit
sides() {
  jq -e '[.hosts[].jobs[] | select(.bound_lo_ns != null and .threshold_ns != null)
          | select((.verdict == "pass" and .bound_hi_ns != null and .bound_hi_ns >= .threshold_ns)
                   or (.verdict == "fail" and .bound_lo_ns < .threshold_ns))] | length == 0' "$1" > /dev/null
}
# sides_decided FILE: a run whose overall verdict rests on a bound (basis "bound") while a point estimate
# was accepted: a job the bound left undecided may rest on its point estimate, but no job's verdict
# contradicts a bound clear of its threshold, a pass has every job's bound below it, and a fail has at
# least one failing job whose bound is above it (the one that decided).
sides_decided() {
  jq -e 'def above: .bound_lo_ns != null and .bound_lo_ns >= .threshold_ns;
         def below: .bound_hi_ns != null and .bound_hi_ns < .threshold_ns;
         [.hosts[].jobs[] | select(.bound_lo_ns != null and .threshold_ns != null)] as $j
         | ($j | map(select((.verdict == "pass" and above) or (.verdict == "fail" and below))) | length == 0)
           and (if .verdict == "pass" then ($j | length > 0 and all(.verdict == "pass" and below))
                elif .verdict == "fail" then ($j | any(.verdict == "fail" and above))
                else false end)' "$1" > /dev/null
}
self_contained() {
  if grep -Eiq '<script|<link|<iframe|<img|src=|url\(' "$1"; then bad "$2: refers to something outside the page"; grep -Eio '<script|<link|<iframe|<img|src=[^ ]*|url\([^)]*' "$1" | head -3
  else ok "$2: self-contained"; fi
}

dir="$work/dir"; mkdir -p "$dir"
# the shortest run check accepts (7 s for 20 samples): the page is the subject here, not the verdict
"$BIN" check "$dir" --force --max-time 7 --min-syncs 20 --accept-point-estimate --classic --json \
  --html "$work/check.html" > "$work/check.json" 2> "$work/check.err"; rc=$?
case $rc in 0|1|2) ;; *) bad "check: exit $rc"; cat "$work/check.err" ;; esac
v=$(jq -r .verdict "$work/check.json")
[ -s "$work/check.html" ] || { echo "FAIL: no HTML written"; cat "$work/check.err"; exit 1; }
grep -q "<h1 class=\"$v\">$v: " "$work/check.html" && ok "banner says $v as the JSON does" || bad "banner vs JSON verdict $v"
for want in '<th>p99</th>' 'etcd-wal' 'etcd-backend' '<svg ' 'WAL fdatasync p99 limit' '<h2>Why</h2>' 'classic' \
            "etcd-fio $(jq -r .tool_version "$work/check.json")"; do
  grep -qF "$want" "$work/check.html" && ok "check.html has $want" || bad "check.html lacks $want"
done
n=$(jq '.explain | length' "$work/check.json")
[ "$(grep -c 'class="why"' "$work/check.html")" = "$n" ] && ok "all $n explain lines" || bad "explain lines != JSON's $n"
self_contained "$work/check.html" check.html
shot "$work/check.html" "$work/check.png"
[ -s "$work/check.png" ] && [ "$(wc -c < "$work/check.png")" -gt 10000 ] && ok "Chromium rendered check.html ($(wc -c < "$work/check.png") bytes)" \
  || { bad "no screenshot"; tail -3 "$work/chrome.log"; }
grep -q ">$v: " "$work/check.png.dom" && grep -q "<svg" "$work/check.png.dom" && ok "Chromium's DOM shows the verdict and the picture" \
  || bad "DOM lacks the verdict/svg"
[ -n "${IT_HTML_KEEP:-}" ] && cp "$work/check.png" "$work/check.html" "$IT_HTML_KEEP/"

# compare --html: a result JSON beside a raw input whose WAL verdict differs from this run's WAL job (a
# busy disk may fail: then a passing run is the other side), so the worst is always fail and the WAL
# verdicts differ
other=$HERE/fixtures/seeds/fio-3.7-normal-msec.txt
[ "$(jq -r '[.hosts[0].jobs[] | select(.role == "wal")][0].verdict' "$work/check.json")" = fail ] &&
  other=$HERE/fixtures/seeds/fio-3.23-normal-rke.txt
"$BIN" compare --html "$work/cmp.html" "$work/check.json" "$other" > /dev/null 2>&1; rc=$?
[ $rc = 1 ] && ok "compare with a failing input: exit 1" || bad "compare: exit $rc"
grep -q '<h1 class="fail">fail: WAL p99 A ' "$work/cmp.html" && grep -q "differs" "$work/cmp.html" \
  && ok "compare.html: fail banner, differing verdicts" || bad "compare.html content"
self_contained "$work/cmp.html" cmp.html
shot "$work/cmp.html" "$work/cmp.png"
[ -s "$work/cmp.png" ] && grep -q "fail: WAL p99 A " "$work/cmp.png.dom" && ok "Chromium rendered cmp.html" || bad "cmp.html render"

# `make examples` as the make target runs it (mk/examples.sh report), into a scratch directory, short
ex="$work/examples"
EXAMPLES_CHECK_ARGS="--force --max-time 7 --min-syncs 20 --accept-point-estimate" \
  sh "$TOP/mk/examples.sh" report "$BUILD" "$ex" > "$work/ex.log" 2>&1 && ok "mk/examples.sh report" ||
  { bad "mk/examples.sh report failed"; cat "$work/ex.log"; }
for f in check-report.json check-report.html check-report.png check-example.svg check-example.png; do
  [ -s "$ex/$f" ] && ok "examples: $f written" || bad "examples: no $f"
done
[ "$(png_size "$ex/check-report.png")" = 1000x1500 ] && [ "$(png_size "$ex/check-example.png")" = 900x560 ] &&
  [ "$(wc -c < "$ex/check-report.png")" -gt 30000 ] && ok "Chromium's screenshots of the report and the picture" ||
  bad "screenshots: $(png_size "$ex/check-report.png") $(png_size "$ex/check-example.png") $(wc -c < "$ex/check-report.png") bytes"
v=$(jq -r .verdict "$ex/check-report.json")
grep -q "<h1 class=\"$v\">$v: " "$ex/check-report.html" && ok "examples: banner says $v as the JSON does" || bad "examples: banner vs JSON $v"
grep -qF /var/lib/etcd "$ex/check-report.html" && ! grep -qF "$(cd "$BUILD" && pwd)/examples." "$ex/check-report.html" "$ex/check-report.json" \
  "$ex/check-example.svg" && ok "examples show /var/lib/etcd, not the run's directory" || bad "examples show the run's directory"

# the committed example: consistent in itself and made by this build's writers
cx="$TOP/examples"
cv=$(jq -r .verdict "$cx/check-report.json")
case $cv in pass|fail|unknown) ok "examples/check-report.json: verdict $cv" ;; *) bad "examples/check-report.json: verdict '$cv'" ;; esac
grep -q "<h1 class=\"$cv\">$cv: " "$cx/check-report.html" && ok "examples/check-report.html: banner says $cv as its JSON does" ||
  bad "examples/check-report.html: banner is not its JSON's verdict $cv"
[ "$(jq -r '.basis' "$cx/check-report.json")" = bound ] &&
  jq -e '[.hosts[].jobs[] | select(.verdict != "pass" and .verdict != "fail")] | length == 0' "$cx/check-report.json" > /dev/null &&
  ok "examples/check-report.json: a default run, every job decided by its bound" ||
  bad "examples/check-report.json: a showcase needs a default run whose jobs are decided (no point estimate)"
sides "$cx/check-report.json" && ok "examples/check-report.json: every bound on its verdict's side" ||
  bad "examples/check-report.json: a job's verdict contradicts its bound"
# (its run accepts a point estimate to be short: a job the bound did not decide may rest on one, its bound
# straddling, even when the overall verdict rests on another job's bound)
if [ "$(jq -r .basis "$ex/check-report.json")" = bound ]; then
  sides_decided "$ex/check-report.json" && ok "this build's report: its verdict rests on a bound, none contradicts one" ||
    { bad "this build's report: a verdict contradicts a bound, or none decided it"
      jq -c '.verdict, [.hosts[].jobs[] | {name, verdict, bound_lo_ns, bound_hi_ns, threshold_ns}]' "$ex/check-report.json"; }
else
  echo "SKIP: this build's report rests on a $(jq -r .basis "$ex/check-report.json"): its bounds' sides not asserted"
fi
[ "$(grep -o '<h2>[^<]*' "$cx/check-report.html")" = "$(grep -o '<h2>[^<]*' "$ex/check-report.html")" ] &&
  [ "$(jq -r .tool_version "$cx/check-report.json")" = "$(jq -r .tool_version "$ex/check-report.json")" ] &&
  ok "examples/check-report.html has this build's sections and version" ||
  bad "examples/check-report.* are not what this build writes: run 'make examples'"
[ "$(png_size "$cx/check-report.png")" = 1000x1500 ] && [ "$(png_size "$cx/check-example.png")" = 900x560 ] &&
  ok "examples/*.png are Chromium screenshots of make examples' size" || bad "examples/*.png: $(png_size "$cx/check-report.png") $(png_size "$cx/check-example.png")"

# a symlinked --html target is refused before fio starts
ln -s /etc/passwd "$work/link.html"
"$BIN" check "$dir" --force --max-time 10 --min-syncs 50 --accept-point-estimate --html "$work/link.html" > /dev/null 2> "$work/e"; rc=$?
[ $rc = 2 ] && grep -q -- "--html" "$work/e" && ok "symlinked --html refused (exit 2)" || { bad "symlink: exit $rc"; cat "$work/e"; }
finish it_html
