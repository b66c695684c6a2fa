#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: alone
# it_etcd_metrics.sh — etcd's own metrics judged by `etcd-fio verdict`, against a real etcd (Debian's
# etcd-server) started here on 127.0.0.1 with ports and a data directory of its own:
#   1. a URL with --interval: etcd-fio scrapes, a loop of puts loads etcd, etcd-fio scrapes again and
#      judges the window (libcurl path);
#   2. two saved scrapes around another load: the verdict must be the one the bucket rule gives when
#      computed here independently (python) from the same two files, with the same sample counts;
#   3. etcd restarted between two scrapes: UNKNOWN, never a judgement of a mixed window;
#   4. real `etcdctl endpoint status`/`health` output and a URL nobody answers: one-line errors, exit 2.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/etcd-fio
[ -x "$BIN" ] || { echo "it_etcd_metrics: $BIN not built"; exit 1; }
for t in etcd etcdctl python3 jq; do
  command -v $t >/dev/null || { echo "it_etcd_metrics: skipped: $t not installed (make deps-test)"; exit 77; }
done
export ETCDCTL_API=3
T=$(mktemp -d /var/tmp/it_etcd_metrics.XXXXXX)
EPID=""
stop_etcd() { [ -n "$EPID" ] && kill "$EPID" 2>/dev/null && wait "$EPID" 2>/dev/null; EPID=""; }
trap 'stop_etcd; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib/assert.sh"

# two free loopback ports (both sockets open at once, so they differ)
set -- $(python3 -c 'import socket
a=socket.socket(); a.bind(("127.0.0.1",0)); b=socket.socket(); b.bind(("127.0.0.1",0))
print(a.getsockname()[1], b.getsockname()[1])')
PC=$1 PP=$2
URL=http://127.0.0.1:$PC/metrics
start_etcd() {
  # --backend-batch-interval 10ms: bbolt commits often enough that a few seconds of puts give 100 of them
  etcd --name it --data-dir "$T/data" --listen-client-urls "http://127.0.0.1:$PC" \
       --advertise-client-urls "http://127.0.0.1:$PC" --listen-peer-urls "http://127.0.0.1:$PP" \
       --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "it=http://127.0.0.1:$PP" \
       --backend-batch-interval 10ms >> "$T/etcd.log" 2>&1 &
  EPID=$!
  i=0
  while ! etcdctl --endpoints="127.0.0.1:$PC" --dial-timeout=1s endpoint health >/dev/null 2>&1; do
    i=$((i+1))
    if [ $i -gt 120 ] || ! kill -0 "$EPID" 2>/dev/null; then
      echo "it_etcd_metrics: etcd did not start:"; tail -5 "$T/etcd.log"; exit 1
    fi
    sleep 0.5
  done
}
# load SECONDS MAX OUT: at most MAX puts, one after the other, paced over SECONDS (so that bbolt commits in
# most of its 10 ms batch intervals); the number done goes to OUT. Through etcd's gRPC gateway (/v3/kv/put)
# from one process: a process per put (etcdctl) managed ~20 in 3 s on a loaded 2-core machine.
load() {
  python3 - "$PC" "$1" "$2" "$3" <<'PY'
import base64, http.client, json, sys, time
port, secs, most, out = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
b64 = lambda s: base64.b64encode(s.encode()).decode()
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
t0 = time.monotonic()
n, end = 0, t0 + secs
try:
    while n < most and time.monotonic() < end:
        time.sleep(max(0.0, t0 + n * secs / most - time.monotonic()))
        conn.request("POST", "/v3/kv/put", json.dumps({"key": b64("k%d" % n), "value": b64("v%d" % n)}))
        r = conn.getresponse()
        body = r.read()
        if r.status != 200 or b"header" not in body:
            print("load: put k%d: HTTP %d %s" % (n, r.status, body[:200]))
            break
        n += 1
except OSError as e:
    print("load: put k%d failed: %s" % (n, e))
open(out, "w").write("%d\n" % n)
PY
}
scrape() { python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$URL" > "$1"; }

start_etcd
MIN=50

# ---- 1. the URL, scraped twice by etcd-fio (libcurl) around a load ----
# The load starts only once etcd-fio says its first scrape is done (a fixed sleep raced a slow start under
# ASan), and ends (at most 2 s) well before the second scrape 6 s later.
"$BIN" verdict --json --min-samples $MIN --interval 6 "$URL" > "$T/url.json" 2> "$T/url.err" &
VPID=$!
i=0
until grep -q "window closes in" "$T/url.err" 2>/dev/null || [ $i -ge 200 ] || ! kill -0 $VPID 2>/dev/null; do
  sleep 0.1; i=$((i+1))
done
grep -q "window closes in" "$T/url.err" || bad "URL: no word from etcd-fio that the window opened: $(cat "$T/url.err")"
load 2 400 "$T/n1"
wait $VPID; rc=$?
n1=$(cat "$T/n1")
echo "url window: $n1 puts; etcd-fio exit $rc"
jq -c '.hosts[].jobs[] | {name, samples, p99_ns, verdict, reason}' "$T/url.json" 2>/dev/null || cat "$T/url.err"
want=$(jq -r '.verdict' "$T/url.json" 2>/dev/null)
case "$want:$rc" in pass:0|fail:1|unknown:2) ok "URL: exit $rc matches verdict $want" ;; *) bad "URL: exit $rc, verdict '$want'" ;; esac
if jqe --arg u "$URL" --argjson n "$n1" '([.hosts[].jobs[]] | length) == 2 and all(.hosts[].jobs[]; .source == $u)
      and all(.hosts[].jobs[]; .reason | test("in the window"))
      and ([.hosts[].jobs[] | select(.role == "wal")][0].samples >= $n)' "$T/url.json" >/dev/null; then
  ok "URL: two windowed jobs, WAL fsyncs >= the $n1 puts"
else
  bad "URL: window content"; cat "$T/url.json"
fi
[ "$n1" -ge 20 ] || bad "URL: only $n1 puts in 2 s"

# ---- 2. two saved scrapes: etcd-fio against an independent computation of the bucket rule ----
scrape "$T/before.prom"
load 2 400 "$T/n2"
scrape "$T/after.prom"
n2=$(cat "$T/n2")
"$BIN" verdict --json --min-samples $MIN "$T/before.prom" "$T/after.prom" > "$T/files.json"; rc=$?
python3 - "$T/before.prom" "$T/after.prom" "$T/files.json" $MIN "$n2" <<'EOF'
import json, math, re, sys
def hist(path):
    h = {}
    for line in open(path):
        m = re.match(r'(etcd_disk_(?:wal_fsync|backend_commit)_duration_seconds)_bucket\{le="([^"]+)"\} (\S+)', line)
        if m:
            le = math.inf if m.group(2) == "+Inf" else float(m.group(2))
            h.setdefault(m.group(1), []).append((le, int(float(m.group(3)))))
    return {k: sorted(v) for k, v in h.items()}
before, after = hist(sys.argv[1]), hist(sys.argv[2])
got = {j["name"]: j for h in json.load(open(sys.argv[3]))["hosts"] for j in h["jobs"]}
minn, puts, fails = int(sys.argv[4]), int(sys.argv[5]), 0
for name, T in (("etcd_disk_wal_fsync_duration_seconds", 0.010), ("etcd_disk_backend_commit_duration_seconds", 0.025)):
    win = [(le, a - b) for (le, a), (_, b) in zip(after[name], before[name])]
    n = win[-1][1]
    k = math.ceil(0.99 * n)
    i = next(i for i, (le, c) in enumerate(win) if c >= k) if n else None
    lo = win[i - 1][0] if i else 0.0
    hi = win[i][0] if i is not None else None
    if n < minn:
        want = "unknown"
    elif hi < T:
        want = "pass"
    elif lo >= T:
        want = "fail"
    else:
        want = "unknown"
    j = got[name]
    print(f"{name}: window {n} samples, p99 bucket ({lo*1e3:g}, {hi*1e3 if hi is not None else 0:g}] ms "
          f"-> {want}; etcd-fio: {j['verdict']} ({j['reason']})")
    if j["verdict"] != want or j["samples"] != n:
        print(f"FAIL: {name}: etcd-fio says {j['verdict']} with {j['samples']} samples"); fails += 1
    if name.startswith("etcd_disk_wal") and n < puts:
        print(f"FAIL: {n} WAL fsyncs for {puts} puts"); fails += 1
sys.exit(1 if fails else 0)
EOF
[ $? = 0 ] && ok "files: verdicts and counts as computed independently" || bad "files: verdict differs from the bucket rule"
want=$(jq -r '.verdict' "$T/files.json")
case "$want:$rc" in pass:0|fail:1|unknown:2) ok "files: exit $rc matches $want" ;; *) bad "files: exit $rc, verdict $want" ;; esac

# ---- 3. a restart between two scrapes ----
stop_etcd
sleep 1 # process_start_time_seconds has a 10 ms resolution; make sure it moves
start_etcd
load 2 150 "$T/n3"
scrape "$T/restarted.prom"
"$BIN" verdict --json --min-samples 1 "$T/before.prom" "$T/restarted.prom" > "$T/restart.out" 2>&1; rc=$?
if [ $rc = 2 ] && jqe '[.hosts[].jobs[]] | length == 2 and all(.verdict == "unknown" and
                          (.reason | test("etcd restarted between the scrapes")))' "$T/restart.out" > /dev/null; then
  ok "restart between scrapes: unknown (exit 2)"
else
  bad "restart between scrapes: exit $rc"; cat "$T/restart.out"
fi
# ---- 4. etcdctl's other output is refused clearly, and so is a URL nobody answers ----
for w in table simple json; do
  etcdctl --endpoints="127.0.0.1:$PC" endpoint status -w $w > "$T/status-$w.txt" 2>&1
  "$BIN" verdict "$T/status-$w.txt" > "$T/out" 2> "$T/err"; rc=$?
  if [ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "status-$w.txt:[0-9]*: this is .*etcdctl endpoint status" "$T/err"; then
    ok "endpoint status -w $w refused: $(cat "$T/err")"
  else
    bad "endpoint status -w $w: exit $rc"; cat "$T/status-$w.txt" "$T/err"
  fi
done
etcdctl --endpoints="127.0.0.1:$PC" endpoint health > "$T/health.txt" 2>&1
"$BIN" verdict "$T/health.txt" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "endpoint health" "$T/err" && ok "endpoint health refused" || { bad "endpoint health: exit $rc"; cat "$T/err"; }
"$BIN" verdict --interval 1 "$T/before.prom" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] && ok "--interval without a URL is a usage error" || bad "--interval without a URL: exit $rc"
# a password in the URL (etcd ignores basic auth on /metrics) never reaches the output, nor an error
CURL_PW="http://op:s3cret-pw@127.0.0.1:$PC/metrics"
"$BIN" verdict --json --min-samples 1 "$CURL_PW" > "$T/pw.json" 2> "$T/pw.err"; rc=$?
if [ -s "$T/pw.json" ] && ! grep -q "s3cret-pw" "$T/pw.json" "$T/pw.err" &&
   jqe 'all(.hosts[].jobs[]; .source | test("^http://op:REDACTED@127[.]0[.]0[.]1:[0-9]+/metrics$"))' "$T/pw.json" > /dev/null; then
  ok "a password in the URL is redacted in the report (exit $rc)"
else
  bad "password in the URL: exit $rc"; cat "$T/pw.json" "$T/pw.err"
fi
stop_etcd
"$BIN" verdict "$CURL_PW" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 2 ] && ! grep -q "s3cret-pw" "$T/out" "$T/err" && grep -q "op:REDACTED@" "$T/err"; then
  ok "a password in an unreachable URL is redacted: $(cat "$T/err")"
else
  bad "password in an unreachable URL: exit $rc"; cat "$T/err"
fi
"$BIN" verdict "$URL" > "$T/out" 2> "$T/err"; rc=$?
if [ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -qF "$URL" "$T/err"; then
  ok "a stopped etcd: $(cat "$T/err")"
else
  bad "a stopped etcd: exit $rc"; cat "$T/out" "$T/err"
fi
finish it_etcd_metrics
