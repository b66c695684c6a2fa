#!/bin/sh
# SPDX-License-Identifier: MIT
# fleet_scale.sh — `etcd-fio fleet` at scale on this one machine (issue 20): NFIO real `fio --server`s on
# 127.0.0.2.. (one address each) and NSSH ssh hosts (a private sshd on the next addresses, tests/lib/sshd_lib.sh,
# each running this build's `etcd-fio check`) judged in ONE fleet run, every host with its own DIR.
# The fio servers run --runtime R, the remote checks --full --max-time R (phase 2 only), so R is "the run's
# time" for both. Run A: nothing disturbed. Run B: at R/2 one fio server's connection process and one ssh
# host's sshd session are SIGKILLed. Recorded: rows, statuses, wall time against R, etcd-fio's own peak RSS
# (VmHWM, sampled from /proc) and its tree's (/usr/bin/time -v: the largest of etcd-fio and its children),
# and the 1-minute load average before and after. Numbers only: nothing here asserts a timing.
# Usage: flock /tmp/etcdfio-suite.lock sh bench/fleet_scale.sh [OUTDIR]   (R=60 NFIO=50 NSSH=12 by default;
# KILL=0: run A only)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
. "$TOP/tests/lib/sshd_lib.sh"
R=${R:-60}; NFIO=${NFIO:-50}; NSSH=${NSSH:-12}
OUT=${1:-$BUILD/bench/fleet_scale}
mkdir -p "$OUT"
[ -x "$ETCD_FIO" ] || { bench_log "build first ($ETCD_FIO)"; exit 1; }
sshd_usable || { bench_log "needs root and openssh-server (make deps-test)"; exit 77; }
[ -x /usr/bin/time ] || { bench_log "needs /usr/bin/time (make deps-bench)"; exit 77; }
tmp=$(mktemp -d /tmp/fleet_scale.XXXXXX) || exit 1
chmod 755 "$tmp"
srv=""
ours() {  # processes whose command line names $tmp (grep's own does not match the pattern)
  grep -lsE "${tmp%.*}[.]${tmp##*.}" /proc/[0-9]*/cmdline 2>/dev/null | while IFS=/ read -r _ _ p _; do
    [ "$p" = $$ ] || [ "$p" = "${SSHD_PID:-x}" ] || echo "$p"
  done
}
cleanup() {
  trap - EXIT INT TERM HUP
  for p in $srv; do kill $p $(sshd_descendants $p) 2>/dev/null; done
  sshd_stop
  i=0; while [ -n "$(ours)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  left=$(ours); [ -n "$left" ] && kill -9 $left 2>/dev/null
  for p in $srv; do kill -9 $p 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
load1() { cut -d' ' -f1 /proc/loadavg; }

# ---- NFIO fio servers, each on its own address, each with its own DIR ----
last_fio=$((1 + NFIO)); first_ssh=$((last_fio + 1)); last_ssh=$((last_fio + NSSH))
sshd_init "$tmp/ssh" $first_ssh $last_ssh || exit 1
P=$SSHD_PORT   # free on 127.0.0.2 too: the fio servers take the same number
: > "$tmp/clients"
for n in $(seq 2 $last_fio); do
  mkdir -p "$tmp/d$n" "$tmp/srv$n"
  (cd "$tmp/srv$n" && exec "$FIO" --server=ip:127.0.0.$n,$P >"$tmp/srv$n/log" 2>&1) &
  srv="$srv $!"
  echo "127.0.0.$n,$P $tmp/d$n" >> "$tmp/clients"
done
# ---- NSSH ssh hosts ----
mkdir -p "$tmp/bin" "$tmp/rtmp"; chmod 1777 "$tmp/rtmp"
ln -s "$ETCD_FIO" "$tmp/bin/etcd-fio"
: > "$tmp/sshhosts"
for n in $(seq $first_ssh $last_ssh); do
  sshd_env $n "$tmp/bin:/usr/local/bin:/usr/bin:/bin" "TMPDIR=$tmp/rtmp FIO=$FIO"
  mkdir -p "$tmp/s$n"; echo "127.0.0.$n:$tmp/s$n" >> "$tmp/sshhosts"
done
sshd_start || { bench_log "sshd did not start: $(cat "$tmp/ssh/sshd-t.err" "$tmp/ssh/sshd.log")"; exit 1; }
listening_on() { awk -v h="$(printf '%02X%02X%02X%02X:%04X' "$1" 0 0 127 "$P")" '$2 == h && $4 == "0A" {f=1} END {exit !f}' /proc/net/tcp; }
for n in $(seq 2 $last_fio); do
  i=0; while ! listening_on $n; do i=$((i + 1)); [ $i -gt 300 ] && { bench_log "fio server $n did not start"; exit 1; }; sleep 0.1; done
done
bench_log "$NFIO fio servers on 127.0.0.2-$last_fio:$P, $NSSH ssh hosts on 127.0.0.$first_ssh-$last_ssh; R=$R s"

# run NAME [kill]: one fleet run over every host; prints its figures
run() {
  name=$1
  load_before=$(load1)
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$tmp/$name.time" "$ETCD_FIO" fleet --clients "$tmp/clients" --ssh-hosts "$tmp/sshhosts" \
    --ssh-config "$tmp/ssh/config" --parallel $NSSH --runtime $R --max-time $R --full --faithful \
    --accept-point-estimate --json >"$OUT/$name.json" 2>"$OUT/$name.err" &
  tpid=$!
  i=0; while [ -z "$(pgrep -P $tpid)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  efpid=$(pgrep -P $tpid | head -1)
  hwm=0; killed=0
  while kill -0 $tpid 2>/dev/null; do
    h=$(awk '/^VmHWM/ {print $2}' /proc/$efpid/status 2>/dev/null)
    [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
    now=$(date +%s.%N)
    if [ "${2:-}" = kill ] && [ $killed = 0 ] && [ "$(echo "$now - $t0 > $R / 2" | bc)" = 1 ]; then
      # the fio server of 127.0.0.2: its connection process; the ssh host 127.0.0.$first_ssh: its sshd session
      s2=$(echo $srv | cut -d' ' -f1)
      for c in $(pgrep -P $s2); do kill -9 $c; done
      chk=""
      for c in $(grep -lsE "${tmp%.*}[.]${tmp##*.}/s$first_ssh" /proc/[0-9]*/cmdline | cut -d/ -f3); do
        [ "$(cat /proc/$c/comm 2>/dev/null)" = etcd-fio ] && chk=$c
      done
      p=$chk; while [ -n "$p" ] && [ "$p" != 1 ] && [ "$(cat /proc/$p/comm 2>/dev/null)" != sshd ]; do
        p=$(awk '{print $4}' /proc/$p/stat 2>/dev/null); done
      [ -n "$p" ] && [ "$p" != 1 ] && kill -9 $p
      bench_log "$name: killed 127.0.0.2's fio connection process and sshd session $p of 127.0.0.$first_ssh at $(echo "$now - $t0" | bc | cut -c1-5) s"
      killed=1
    fi
    sleep 0.5
  done
  wait $tpid; rc=$?
  wall=$(echo "$(date +%s.%N) - $t0" | bc)
  tree=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/$name.time")
  "$PY" - "$OUT/$name.json" "$name" "$rc" "$wall" "$R" "$hwm" "$tree" "$load_before" "$(load1)" "$P" "$first_ssh" <<'EOF' | tee "$OUT/$name.txt"
import json, sys
d = json.load(open(sys.argv[1]))
name, rc, wall, R, hwm, tree, lb, la, port, fs = sys.argv[2:12]
hosts = d['hosts']
ssh = [h for h in hosts if h['port'] is None]
fio = [h for h in hosts if h['port'] is not None]
def counts(hs):
    c = {}
    for h in hs:
        c['%s/%s' % (h['status'], h['verdict'])] = c.get('%s/%s' % (h['status'], h['verdict']), 0) + 1
    return ', '.join('%d %s' % (v, k) for k, v in sorted(c.items()))
wall, R = float(wall), float(R)
print('%s: exit %s, %d rows (%d fio servers: %s; %d ssh: %s)' % (name, rc, len(hosts), len(fio), counts(fio), len(ssh), counts(ssh)))
print('%s: wall %.1f s for a %.0f s run (+%.1f %%); etcd-fio peak RSS %s KiB (VmHWM), tree %s KiB (time -v); load1 %s -> %s'
      % (name, wall, R, (wall / R - 1) * 100, hwm, tree, lb, la))
for h in hosts:
    if h['status'] != 'judged':
        print('  %s%s: %s: %s' % (h['host'], ':%d' % h['port'] if h['port'] else '', h['status'], h['reason'][:160]))
EOF
}
run a
[ "${KILL:-1}" = 0 ] || run b kill
leftovers() { find "$tmp"/d[0-9]* "$tmp"/s[0-9]* "$tmp/rtmp" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
i=0; while [ "$(leftovers)" != 0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
bench_log "left in the hosts' DIRs and the remote TMPDIR 30 s after both runs: $(leftovers) entries"
