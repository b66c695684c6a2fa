#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: alone
# it_etcd_watch.sh — `check --etcd URL` against hostile or broken endpoints (a fake etcd on 127.0.0.1,
# python's http.server, serving a real etcd 3.4.23 scrape from tests/fixtures/etcd-metrics):
#   H. an endpoint that accepts and never answers: check refuses at once (the scrape's timeout), exit 2,
#      before fio starts, nothing left;
#   R. an endpoint that redirects (to a "metrics" elsewhere): not followed, exit 2, the message says so;
#   N. an endpoint that answers, but not with etcd's metrics: exit 2, "not etcd's";
#   W. a URL of another etcd than the one whose WAL lock is held on DIR's filesystem: refused;
#   B. etcd answers before the check, then hangs on /metrics during it: the guard stops the check (a
#      check that cannot watch etcd must not go on loading its disk), unknown, status etcd-guard, the
#      reason says it has not answered; fio ended, nothing of ours left.
# Waits on events (the control file, the processes' ends); no timing asserts.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$CLI" "$ENGINE"
for t in python3 jq; do command -v $t >/dev/null 2>&1 || { echo "skip: $t not installed"; exit 77; }; done
T=$(mktemp -d /var/tmp/it_etcd_watch.XXXXXX) || exit 1
SPID=""
cleanup() { [ -n "$SPID" ] && { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }; rm -rf "$T"; }
trap cleanup EXIT INT TERM

# the fake: its behaviour is the word in $T/mode (ok, hang, redirect, junk), read on every request
echo ok > "$T/mode"
python3 - "$T/mode" "$TOP/tests/fixtures/etcd-metrics/etcd-3.4.23-after-puts.prom" "$T/port" <<'PY' &
import http.server, socketserver, sys, threading, time
mode, prom, portf = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        m = open(mode).read().strip()
        if m == "hang":
            time.sleep(3600); return
        if m == "redirect":
            self.send_response(302); self.send_header("Location", "http://127.0.0.1:9/metrics"); self.end_headers(); return
        body = prom if m == "ok" else b"<html>hello</html>\n"
        self.send_response(200); self.send_header("Content-Type", "text/plain"); self.send_header("Content-Length", str(len(body)))
        self.end_headers(); self.wfile.write(body)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
open(portf + ".new", "w").write("%d\n" % s.server_address[1])
import os; os.replace(portf + ".new", portf)
s.serve_forever()
PY
SPID=$!
i=0; until [ -s "$T/port" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
EP=http://127.0.0.1:$(cat "$T/port")
QUICK="--faithful --accept-point-estimate --min-syncs 10"
mkdir -p "$T/dir" "$T/tmp"
nothing_left() { [ -z "$(ls -A "$T/dir" "$T/tmp" 2>/dev/null | grep -v '^/\|^$')" ]; }

for m in hang redirect junk; do
  echo $m > "$T/mode"
  TMPDIR=$T/tmp "$CLI" check $QUICK --max-time 6 --etcd "$EP" "$T/dir" > "$T/$m.out" 2> "$T/$m.err"; rc=$?
  case $m in
    hang) want="Operation timed out\|timed out" ;;
    redirect) want="a redirect, not followed" ;;
    junk) want="not etcd.s /metrics" ;;
  esac
  if [ $rc = 2 ] && grep -q -- "--etcd" "$T/$m.err" && grep -q "$want" "$T/$m.err" && [ ! -s "$T/$m.out" ] && nothing_left; then
    ok "$m: refused before fio started: $(head -n 1 "$T/$m.err" | cut -c1-160)"
  else
    bad "$m: exit $rc: $(cat "$T/$m.err") / $(ls -A "$T/dir" "$T/tmp")"
  fi
done

# W: a URL of another etcd than the one using DIR's filesystem (a process holding DIR's WAL lock, started
# at another time than the scraped etcd says it was): refused unless --force, before fio starts
fake_etcd "$T/etcd"
echo ok > "$T/mode"
hold_wal_lock "$T/etcd/member/wal/0000000000000000-0000000000000000.wal" "$T/locked"
TMPDIR=$T/tmp "$CLI" check $QUICK --max-time 6 --etcd "$EP" "$T/etcd" > "$T/W.out" 2> "$T/W.err"; rc=$?
if [ $rc = 2 ] && grep -q "it is not the etcd beside the check" "$T/W.err" && ! ls -d "$T"/etcd/etcd-fio* > /dev/null 2>&1; then
  ok "W: another etcd's URL refused: $(grep -o 'that etcd started.*' "$T/W.err" | cut -c1-150)"
else
  bad "W: exit $rc: $(cat "$T/W.err")"
fi
rm -f "$T/locked"; wait $HOLD

# B: answers for the baseline, then hangs once the check's fio runs
echo ok > "$T/mode"
TMPDIR=$T/tmp "$CLI" check $QUICK --full --max-time 60 --json --etcd "$EP" "$T/dir" > "$T/B.json" 2> "$T/B.err" &
CK=$!
i=0
until ls -d "$T"/dir/etcd-fio.* > /dev/null 2>&1 || [ $i -ge 300 ] || ! kill -0 $CK 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
echo hang > "$T/mode"
wait $CK; rc=$?
reason=$(jq -r .reason "$T/B.json" 2>/dev/null)
if [ $rc = 2 ] && echo "$reason" | grep -q "^stopped to protect the live etcd: it has not answered for [0-9]* s during the check" &&
   jq -e '.hosts[0].status == "etcd-guard" and .details.etcd.guard.fired and .details.etcd.failed_scrapes > 0' "$T/B.json" > /dev/null; then
  ok "B: etcd hanging on /metrics stopped the check: $(echo "$reason" | cut -c1-150)"
else
  bad "B: exit $rc: $reason $(tail -n 3 "$T/B.err")"
fi
sec=$(jq -r .details.run.seconds "$T/B.json" 2>/dev/null)
echo "B: the run lasted ${sec:-?} s of its --max-time 60"
nothing_left && ok "B: nothing of ours left" || bad "B: left: $(ls -A "$T/dir" "$T/tmp")"
finish it_etcd_watch
