#!/bin/sh
# SPDX-License-Identifier: MIT
# soak.sh — issue 24's proof that `etcd-fio check` run inside a live etcd's data directory loses none of
# etcd's data and stops before it hurts it. A real etcd 3.4.23 (127.0.0.1 only, private ports, stopped by
# pid) has its data directory on a slow-disk lab device (bench/labfs with ctl=, rke's layout: member/wal,
# member/snap/db) and serves a steady put load from bench/putload (etcd's own clientv3) that records every
# acknowledged key. Then `etcd-fio check --etcd URL` runs in that data directory SOAK_RUNS times in a row
# (each under strace, so that every file it and its fio open is known): every third one is SIGKILLed at a
# random point, and the runs in SOAK_SLOW get the device slowed under them once the watch has its baseline,
# so that the guard must fire. After the runs: the load is stopped, etcd is stopped and started again on the
# same device, and
#   - every acknowledged key is read back with its value (from the restarted etcd: from its disk);
#   - `etcdctl endpoint hashkv --rev R` of the restarted etcd equals the one read before the restart;
#   - etcd's log has no error-level line, nor any about its WAL or backend;
#   - no file under member/ was opened, created, renamed or removed by etcd-fio or its fio (strace);
#   - nothing of ours is left (no etcd-fio* in the data directory or our TMPDIR, no fio running);
#   - the guard fired in each slowed run, and otherwise exactly when an independent observer (this script
#     scraping etcd every second and applying the bucket rule to the same 100-fsync windows) saw etcd's WAL
#     fsync p99 cross 10 ms — the check's own load can do that on a shared device, and then it must stop.
# Prints one row per run and the summary (bench/README.md "Soak"). Not a test: run it under the suite lock.
#
# Usage: soak.sh OUTDIR      env: BUILD, SOAK_RUNS=20, SOAK_SLOW="4 10 16", SOAK_MAXTIME=15,
#        SOAK_RATE=200 (puts/s), SOAK_FAST / SOAK_SLOWMODEL (labdev.h specs), SOAK_SEED
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: soak.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RUNS=${SOAK_RUNS:-20}; SLOW=${SOAK_SLOW:-4 10 16}; MAXT=${SOAK_MAXTIME:-15}; RATE=${SOAK_RATE:-200}
FAST=${SOAK_FAST:-median=0.2ms:sigma=0.3:seed=1}; SLOWM=${SOAK_SLOWMODEL:-median=20ms:sigma=0.2:seed=2}
SEED=${SOAK_SEED:-$$}
LABFS=${LABFS:-$BUILD/bench/labfs}; PUTLOAD=$BUILD/bench/putload
export ETCDCTL_API=3
for t in etcd etcdctl go strace jq fusermount3; do
  command -v "$t" >/dev/null || { echo "soak: $t not installed (sh mk/deps.sh bench)" >&2; exit 2; }
done
[ -x "$ETCD_FIO" ] || { echo "soak: $ETCD_FIO not built (make)" >&2; exit 2; }
[ -c /dev/fuse ] || { echo "soak: no /dev/fuse" >&2; exit 2; }
if [ ! -x "$LABFS" ] || [ "$BENCH_DIR/labfs.c" -nt "$LABFS" ] || [ "$BENCH_DIR/labdev.c" -nt "$LABFS" ]; then
  mkdir -p "$(dirname "$LABFS")"
  # shellcheck disable=SC2046
  ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE $(pkg-config --cflags fuse3) -I"$BENCH_DIR" -o "$LABFS" "$BENCH_DIR/labfs.c" \
    "$BENCH_DIR/labdev.c" $(pkg-config --libs fuse3) -lpthread -lm > "$OUT/build.log" 2>&1 ||
    { echo "soak: building labfs failed: $OUT/build.log" >&2; exit 2; }
fi
# the binaries under test, copied: a rebuild of the tree during the soak does not change them
mkdir -p "$OUT/bin" && cp "$ETCD_FIO" "$OUT/bin/etcd-fio" && cp "$ENGINE_SO" "$OUT/bin/libetcdwal.so" || exit 2
ETCD_FIO=$OUT/bin/etcd-fio; export ETCD_FIO_ENGINE="$OUT/bin/libetcdwal.so"
echo "soak of $(cd "$TOP" && git describe --always --dirty 2>/dev/null)" > "$OUT/version"
mkdir -p "$BUILD/bench/gopath" "$BUILD/bench/gocache"
(cd "$BENCH_DIR/putload" && GO111MODULE=off GOPATH="$BUILD/bench/gopath:/usr/share/gocode" GOCACHE="$BUILD/bench/gocache" \
  GOFLAGS= go build -o "$PUTLOAD" .) || { echo "soak: building bench/putload failed" >&2; exit 2; }

RT=""; FIFO=""
if chrt -r 1 true 2>/dev/null; then RT="chrt -r 1"; FIFO="chrt -f 2"; fi
SHM=/dev/shm; [ -d "$SHM" ] && [ -w "$SHM" ] || SHM=${TMPDIR:-/tmp}
BACK=$(mktemp -d "$SHM/etcd-fio-soak.back.XXXXXX") && MNT=$(mktemp -d /tmp/etcd-fio-soak.mnt.XXXXXX) &&
  OURTMP=$(mktemp -d /tmp/etcd-fio-soak.tmp.XXXXXX) || exit 2
FS_PID=""; ETCD_PID=""; LOAD_PID=""; CK=""; OBS_PID=""
cleanup() {
  [ -n "$CK" ] && kill -KILL "$CK" 2>/dev/null
  [ -n "$OBS_PID" ] && kill "$OBS_PID" 2>/dev/null
  [ -n "$LOAD_PID" ] && { kill -TERM "$LOAD_PID" 2>/dev/null; wait "$LOAD_PID" 2>/dev/null; }
  [ -n "$ETCD_PID" ] && { kill -TERM "$ETCD_PID" 2>/dev/null; wait "$ETCD_PID" 2>/dev/null; }
  mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"; }
  [ -n "$FS_PID" ] && { kill -TERM "$FS_PID" 2>/dev/null; wait "$FS_PID" 2>/dev/null; }
  rmdir "$MNT" 2>/dev/null; rm -rf "$BACK" "$OURTMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "soak: $*" >&2; }

echo "$FAST" > "$OUT/model"
$FIFO "$LABFS" "$MNT" -f -o "passthrough=$BACK,model=$FAST,ctl=$OUT/model" > "$OUT/labfs.log" 2>&1 &
FS_PID=$!
i=0
until mountpoint -q "$MNT"; do
  kill -0 "$FS_PID" 2>/dev/null && [ $i -lt 100 ] || { log "labfs did not mount: $(head -n 2 "$OUT/labfs.log")"; exit 2; }
  sleep 0.1; i=$((i + 1))
done
set_model() { # SPEC: the device from now on; waits for labfs to say so
  sm_n=$(grep -c "model now" "$OUT/labfs.log"); echo "$1" > "$OUT/model"; kill -USR1 "$FS_PID"
  sm_i=0
  until [ "$(grep -c "model now" "$OUT/labfs.log")" -gt "$sm_n" ] || [ $sm_i -ge 100 ]; do sleep 0.05; sm_i=$((sm_i + 1)); done
}

set -- $(bench_free_ports); EP=http://127.0.0.1:$1; PEER=http://127.0.0.1:$2
DATA=$MNT/var/lib/etcd   # rke's --data-dir; etcd makes member/wal and member/snap/db in it
mkdir -p "$DATA" && chmod 700 "$DATA"
start_etcd() {
  $RT etcd --name soak --data-dir "$DATA" --listen-client-urls "$EP" --advertise-client-urls "$EP" \
    --listen-peer-urls "$PEER" --initial-advertise-peer-urls "$PEER" --initial-cluster "soak=$PEER" \
    --backend-batch-interval 10ms --logger zap --log-outputs stderr >> "$OUT/etcd.log" 2>&1 &
  ETCD_PID=$!
  i=0
  until etcdctl --endpoints="$EP" --dial-timeout=1s endpoint health > /dev/null 2>&1; do
    i=$((i + 1)); kill -0 "$ETCD_PID" 2>/dev/null && [ $i -lt 60 ] || { log "etcd did not start: $(tail -n 3 "$OUT/etcd.log")"; exit 2; }
    sleep 0.5
  done
}
start_etcd
: > "$OUT/acked"
$RT "$PUTLOAD" -endpoints "$EP" -clients 4 -rate "$RATE" -duration 10h -warmup 0s -prefix soak/ -key-size 16 \
  -val-size 64 -record "$OUT/acked" > "$OUT/putload.json" 2> "$OUT/putload.err" &
LOAD_PID=$!
etcd_files() { (cd "$DATA" && find . -name 'etcd-fio*' -prune -o -print | LC_ALL=C sort); }
ours() { { (cd "$DATA" && find . -name 'etcd-fio*'); ls -A "$OURTMP"; pgrep -f "$OURTMP/etcd-fio-check" ; } 2>/dev/null | head -n 5; }
# etcd's first seconds (its own start-up syncs) are not the steady state the checks see
sleep 10
log "etcd pid $ETCD_PID at $EP, data $DATA (labfs $FAST), putload pid $LOAD_PID at $RATE/s; $RUNS runs, slowed: $SLOW"

# the trace: every call that names a file, in etcd-fio and every process it starts (-f), with paths of fds
TRACE="open,openat,openat2,creat,truncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,link,linkat,symlink,symlinkat,chmod,fchmodat,chown,fchownat"
SEEDV=$SEED
# KEY N: 0..N-1, reproducible: the (3 x run + KEY)-th draw of one seeded sequence (srand with nearby seeds
# gives nearby first draws)
rnd() { awk -v s="$SEED" -v n="$n" -v k="$1" -v m="$2" 'BEGIN { srand(s); for (i = 0; i < 3 * n + k; i++) rand(); print int(rand() * m) }'; }
# the independent observer: etcd's /metrics every second during a check (scrape.T files), then every
# window ending at a scrape that is the shortest holding 100 WAL fsyncs, judged with the bucket rule: the
# highest lower edge of the bucket holding the p99, and whether it is at or above 10 ms (the guard's rule,
# computed here without etcd-fio)
observe() { # DIR FLAG: scrapes into DIR until FLAG is gone
  python3 - "$EP/metrics" "$1" "$2" <<'PY' &
import os, sys, time, urllib.request
url, out, flag = sys.argv[1:4]
while os.path.exists(flag):
    t = time.monotonic()
    try:
        body = urllib.request.urlopen(url, timeout=2).read()
        open(os.path.join(out, "scrape.%.3f" % t), "wb").write(body)
    except OSError:
        pass
    time.sleep(max(0.0, t + 1.0 - time.monotonic()))
PY
  OBS_PID=$!
}
judge_observed() { # DIR: "MAXLO_MS CROSSED" over the scrapes in DIR
  python3 - "$1" <<'PY'
import glob, os, re, sys
def hist(text):
    b = {}
    for m in re.finditer(r'^etcd_disk_wal_fsync_duration_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M):
        b[float(m.group(1))] = float(m.group(2))
    return b
sc = sorted((float(f.rsplit(".", 2)[-2] + "." + f.rsplit(".", 1)[-1]), hist(open(f).read()))
            for f in glob.glob(os.path.join(sys.argv[1], "scrape.*")))
worst = None
for j in range(1, len(sc)):
    for i in range(j - 1, -1, -1):
        a, b = sc[i][1], sc[j][1]
        if not a or not b or set(a) != set(b):
            break
        n = b[float("inf")] - a[float("inf")]
        if n >= 100:
            les = sorted(b)
            want, lo = 0.99 * n, 0.0
            for k, le in enumerate(les):
                if b[le] - a[le] >= want:
                    lo = les[k - 1] if k else 0.0
                    break
            worst = lo if worst is None or lo > worst else worst
            break
print("%s %s" % ("-" if worst is None else "%g" % (worst * 1000), "yes" if worst is not None and worst >= 0.010 else "no"))
PY
}
printf 'run\tkind\tload1\texit\tstatus\tguard\tguard_at_s\tseconds\twal_before\twal_during\tobserved\tcrossed\tleft\tverdict/reason\n' > "$OUT/runs.tsv"
n=1
while [ $n -le "$RUNS" ]; do
  kind=normal
  [ $((n % 3)) = 0 ] && kind=killed
  case " $SLOW " in *" $n "*) [ $kind = normal ] && kind=slowed ;; esac
  R=$OUT/run$n; mkdir -p "$R"
  load1=$(cut -d' ' -f1 /proc/loadavg)
  touch "$R/observing"; observe "$R" "$R/observing"
  t0=$(date +%s.%N)
  TMPDIR=$OURTMP strace -f -qq -y --seccomp-bpf -e trace=$TRACE -o "$R/strace" \
    "$ETCD_FIO" check --full --force --accept-point-estimate --min-syncs 50 --max-time "$MAXT" --json --etcd "$EP" "$DATA" > "$R/out.json" 2> "$R/err" &
  SP=$!
  i=0; CK=""
  until [ -n "$CK" ] || [ $i -ge 50 ]; do CK=$(pgrep -P $SP -x etcd-fio); sleep 0.1; i=$((i + 1)); done
  note=""
  case $kind in
    killed)
      at=$(( $(rnd 1 190) + 10 ))   # 1.0 .. 19.9 s after the start: the baseline, the run or its end
      sleep "$(echo "$at" | sed 's/.$/.&/')"
      kill -KILL "$CK" 2>/dev/null; note="SIGKILL at $(echo "$at" | sed 's/.$/.&/') s" ;;
    slowed)
      i=0
      until grep -q "watching etcd" "$R/err" 2>/dev/null || [ $i -ge 200 ] || ! kill -0 $SP 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
      if grep -q "watching etcd.*before the check, WAL fsync p99 [^(]* (pass" "$R/err"; then
        sleep "$(( $(rnd 2 4) + 1 ))"; set_model "$SLOWM"; ts=$(date +%s.%N); note="slowed"
      else
        note="baseline not below 10 ms: guard cannot watch"; kind=slowed-nobase
      fi ;;
  esac
  wait $SP; rc=$?
  t1=$(date +%s.%N)
  CK=""
  rm -f "$R/observing"; wait "$OBS_PID"; OBS_PID=""
  set -- $(judge_observed "$R"); obs_lo=$1 crossed=$2
  [ "$kind" = slowed ] && { set_model "$FAST"; note="slowed; the check ended $(awk "BEGIN { printf \"%.1f\", $t1 - $ts }") s later"; }
  # what a SIGKILLed check left: its fio ends on its parent's death (proc.c: pdeathsig); wait for it
  i=0; while pgrep -f "$OURTMP/etcd-fio-check" > /dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  st=$(jq -r '.hosts[0].status // "-"' "$R/out.json" 2>/dev/null); st=${st:--}
  g=$(jq -r '.details.etcd.guard.fired | if . == null then "-" else tostring end' "$R/out.json" 2>/dev/null); g=${g:--}
  ga=$(jq -r '.details.etcd.guard.at_s // "-" | if type == "number" then (. * 10 | round / 10) else . end' "$R/out.json" 2>/dev/null)
  wb=$(jq -r '.details.etcd.before.wal | if . == null then "-" else "\(.p99_lo_ns / 1e6)-\(if .p99_hi_ns == null then "inf" else .p99_hi_ns / 1e6 end)ms" end' "$R/out.json" 2>/dev/null)
  wd=$(jq -r '.details.etcd.during.wal | if . == null then "-" else "\(.p99_lo_ns / 1e6)-\(if .p99_hi_ns == null then "inf" else .p99_hi_ns / 1e6 end)ms" end' "$R/out.json" 2>/dev/null)
  vr=$(jq -r '"\(.verdict): \(.reason)"' "$R/out.json" 2>/dev/null | cut -c1-110)
  [ -n "$vr" ] || vr="$note; $(tail -n 1 "$R/err" | cut -c1-80)"
  left=$(ours | wc -l)   # a SIGKILLed check's temp dir stays until the next check reaps it
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$kind" "$load1" "$rc" "$st" "$g" "${ga:--}" \
    "$(awk "BEGIN { print $t1 - $t0 }")" "${wb:--}" "${wd:--}" ">=${obs_lo}ms" "$crossed" "$left" "$vr" >> "$OUT/runs.tsv"
  log "run $n ($kind${note:+, $note}): exit $rc, status $st, guard $g; $left of ours present"
  # etcd must be healthy before the next check; after a slowdown, let its backlog drain
  i=0; until etcdctl --endpoints="$EP" --dial-timeout=1s endpoint health > /dev/null 2>&1 || [ $i -ge 60 ]; do sleep 0.5; i=$((i + 1)); done
  [ "$kind" = slowed ] && sleep 3
  n=$((n + 1))
done

# ---- after the runs ----
kill -TERM "$LOAD_PID"; wait "$LOAD_PID"; LOAD_PID=""
REV=$(etcdctl --endpoints="$EP" endpoint status -w json | jq -r '.[0].Status.header.revision')
etcdctl --endpoints="$EP" endpoint hashkv --rev "$REV" -w json > "$OUT/hashkv.before" 2>&1
H1=$(jq -r '.[0].HashKV.hash' "$OUT/hashkv.before")
kill -TERM "$ETCD_PID"; wait "$ETCD_PID"; ETCD_PID=""
etcd_files > "$OUT/etcd-files.txt"
start_etcd   # the control: etcd again on the same device, reading what is on its disk
etcdctl --endpoints="$EP" endpoint hashkv --rev "$REV" -w json > "$OUT/hashkv.after" 2>&1
H2=$(jq -r '.[0].HashKV.hash' "$OUT/hashkv.after")
# every acknowledged key with its value, read from the restarted etcd through its gateway
python3 - "$EP" "$OUT/acked" > "$OUT/keys.txt" <<'PY'
import base64, json, sys, urllib.request
ep, acked = sys.argv[1], sys.argv[2]
want = {}
for line in open(acked, encoding="ascii"):
    k, rev, v = line.rstrip("\n").split("\t")
    want[k] = v
b = lambda s: base64.b64encode(s.encode()).decode()
body = json.dumps({"key": b("soak/"), "range_end": b("soak0")}).encode()
resp = json.load(urllib.request.urlopen(urllib.request.Request(ep + "/v3/kv/range", body), timeout=120))
have = {base64.b64decode(kv["key"]).decode(): base64.b64decode(kv.get("value", "")).decode() for kv in resp.get("kvs", [])}
lost = [k for k in want if k not in have]
wrong = [k for k in want if k in have and have[k] != want[k]]
print("acked=%d read=%d lost=%d wrong=%d" % (len(want), len(have), len(lost), len(wrong)))
for k in (lost + wrong)[:10]:
    print("  bad:", k)
PY
kill -TERM "$ETCD_PID"; wait "$ETCD_PID"; ETCD_PID=""

# etcd's log: error-level lines, and any line about its WAL or backend at warn or worse
errs=$(grep -c '"level":"\(error\|dpanic\|panic\|fatal\)"' "$OUT/etcd.log")
walbe=$(grep '"level":"\(warn\|error\|dpanic\|panic\|fatal\)"' "$OUT/etcd.log" | grep -ci 'wal\|backend\|bbolt\|snap\|corrupt')
slowf=$(grep -c 'slow fdatasync' "$OUT/etcd.log")
# strace: a file under member/ named by any traced call (directories opened O_DIRECTORY to list are counted apart)
python3 - "$DATA" "$OUT"/run*/strace > "$OUT/strace.txt" <<'PY'
import re, sys, os
data = sys.argv[1].rstrip("/")
member = data + "/member"
bad, lists, calls = [], 0, 0
call = re.compile(r'^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)')
strs = re.compile(r'(?:(AT_FDCWD|\d+)<([^>]*)>|AT_FDCWD)?,?\s*"((?:[^"\\]|\\.)*)"')
for f in sys.argv[2:]:
    for line in open(f, errors="replace"):
        m = call.match(line)
        if not m:
            continue
        calls += 1
        name, args = m.group(1), m.group(2)
        paths = []
        for dm in re.finditer(r'(?:(?:AT_FDCWD|\d+)<([^>]*)>|AT_FDCWD),\s*"((?:[^"\\]|\\.)*)"|(?<![<\w])"((?:[^"\\]|\\.)*)"', args):
            base, rel, plain = dm.group(1), dm.group(2), dm.group(3)
            p = rel if rel is not None else plain
            if p is None:
                continue
            if not p.startswith("/"):
                p = os.path.join(base or "", p) if base else p
            paths.append(os.path.normpath(p))
        for p in paths:
            if p == member or p.startswith(member + "/"):
                if name.startswith("open") and "O_DIRECTORY" in args:
                    lists += 1
                else:
                    bad.append(line.strip())
print("calls=%d member_files=%d member_dir_listings=%d" % (calls, len(bad), lists))
for l in bad[:10]:
    print("  touched:", l)
PY
left=$(ours | wc -l)
{
  echo "soak: $RUNS runs, --max-time $MAXT, etcd at $RATE puts/s on labfs $FAST (slowed: $SLOWM), seed $SEED"
  column -t -s "$(printf '\t')" "$OUT/runs.tsv"
  echo "keys: $(head -n 1 "$OUT/keys.txt")"
  echo "hashkv at rev $REV: before restart $H1, after restart $H2 ($( [ "$H1" = "$H2" ] && [ -n "$H1" ] && echo equal || echo DIFFERENT))"
  echo "etcd log: $errs error-level lines, $walbe warn+ lines about WAL/backend/snap, $slowf 'slow fdatasync'"
  echo "strace: $(head -n 1 "$OUT/strace.txt")"
  echo "left of ours: $left"
  # the guard should fire in a run it watched to its end (not killed) when the observer saw etcd's WAL p99
  # cross 10 ms, and in no other; the slowed runs are where it must have
  awk -F'\t' 'NR > 1 && $2 != "killed" { e = ($12 == "yes"); f = ($6 == "true"); s = ($2 == "slowed");
      if (e && f) ok++; else if (e && !f) missed++; else if (!e && f) extra++; else quiet++;
      if (s) { slowed++; if (f) sfired++ } else if (f) ofired++ }
      END { printf "guard: fired in %d of %d slowed runs and in %d others; against the observer: fired in %d of the %d runs where etcd crossed 10 ms, missed %d, fired in %d where it did not, quiet in %d\n",
            sfired, slowed, ofired, ok, ok + missed, missed, extra, quiet }' "$OUT/runs.tsv"
} | tee "$OUT/summary.txt"
