#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: lock=ports,loop
# it_fleet.sh — `etcd-fio fleet` against real `fio --server` processes on 127.0.0.1 (loopback only):
#  1. preflight only (no run): a port nobody listens on, a server that lacks the engine (a private mount
#     namespace hides it) and a server whose probe reply claims another fio version are each reported by
#     name, in the text table, with exit status 2;
#  2. the profile on two servers at once: a plain one on this disk and, where root, loop devices and cgroup
#     v1 blkio exist, one whose writes are throttled to 60 IOPS on a loop-mounted ext4 (skipped with a
#     printed reason elsewhere). Asserts the rows, the worst-first order, the overall verdict and exit
#     status, that every p99 equals the one in fio's own client_stats for that host and port, and the
#     Prometheus file. Servers are stopped by pid in the trap.
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
FIO=${FIO:-fio}
. "$top/tests/lib/lib.sh"
export COLUMNS=400 # the rows and reasons unwrapped, for the greps below (it_screens.sh holds 80 columns)
EF=$BUILD/etcd-fio
RUNTIME=${FLEET_RUNTIME:-12}   # the backend commits every ~100 ms: 12 s gives the 100 samples judged (with
                               # --accept-point-estimate: a bound on its p99 needs ~37 s; test_fleet.c covers it)
for f in "$EF" "$BUILD/libetcdwal.so"; do
  [ -e "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
command -v "$FIO" >/dev/null || { echo "skip: fio not installed"; exit 77; }
PY=python3
/usr/bin/python3 -c 'import json' 2>/dev/null && PY=/usr/bin/python3

tmp=$(mktemp -d /var/tmp/it_fleet.XXXXXX) || exit 1
pids=""; loopdev=""; cg=""; mnt=""   # the servers (lib.sh: stop_pids, kids)
cleanup() {
  trap - EXIT INT TERM HUP PIPE
  for c in ${clients:-}; do kill "$c" 2>/dev/null; done   # fleet runs still going when the test is cut short
  # shellcheck disable=SC2086
  stop_pids $pids $(kids)
  # a server forks one child per connection; those in the throttled cgroup are ours too
  [ -n "$cg" ] && [ -f "$cg/cgroup.procs" ] && stop_pids $(cat "$cg/cgroup.procs")
  [ -n "$mnt" ] && { i=0; while ! umount "$mnt" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; }
  [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

base=$((20000 + $$ % 20000))
P_PLAIN=$(free_port $base)
P_SLOW=$(free_port $((P_PLAIN + 1)))
P_NOENG=$(free_port $((P_SLOW + 1)))
P_OLD=$(free_port $((P_NOENG + 1)))
P_NONE=$(free_port $((P_OLD + 1)))

# The engine is used from a copy, so one server can be shown a directory without it.
mkdir -p "$tmp/engine" "$tmp/plain"
cp "$BUILD/libetcdwal.so" "$tmp/engine/libetcdwal.so"
export ETCD_FIO_ENGINE="$tmp/engine/libetcdwal.so"
mkdir -p "$tmp/t" && export TMPDIR="$tmp/t"   # fleet's work directories: none may be left behind

SRV=$tmp/fio-server
fio_server_wrapper "$SRV"
"$SRV" --server=ip:127.0.0.1,$P_PLAIN >"$tmp/srv-plain.log" 2>&1 &
pids="$pids $!"
"$SRV" --server=ip:127.0.0.1,$P_OLD >"$tmp/srv-old.log" 2>&1 &
pids="$pids $!"
noeng=0
if unshare -m true 2>/dev/null; then
  # unshare execs sh, which execs fio: the pid stays the server's
  unshare -m sh -c 'mount -t tmpfs none "$1" && exec "$2" --server=ip:127.0.0.1,$3' sh \
    "$tmp/engine" "$SRV" $P_NOENG >"$tmp/srv-noeng.log" 2>&1 &
  pids="$pids $!"; noeng=1
else
  echo "SKIP: no mount namespaces here (unshare -m); the missing-engine host is not tested"
fi

# --- throttled server: loop-mounted ext4, writes limited to 60 IOPS through cgroup v1 blkio ---
slow=0; why=""
if [ "$(id -u)" != 0 ]; then why="not root"
elif [ ! -w /sys/fs/cgroup/blkio ] || [ ! -e /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ]; then
  why="no cgroup v1 blkio throttling at /sys/fs/cgroup/blkio"
elif ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then why="losetup/mkfs.ext4 missing"
else
  truncate -s 400M "$tmp/disk.img"
  if ! loopdev=$(losetup -f --show "$tmp/disk.img" 2>"$tmp/losetup.err"); then
    why="no loop device: $(cat "$tmp/losetup.err")"; loopdev=""
  elif ! mkfs.ext4 -q -F "$loopdev" >/dev/null 2>&1; then why="mkfs.ext4 $loopdev failed"
  else
    mkdir -p "$tmp/mnt"
    if ! mount "$loopdev" "$tmp/mnt" 2>"$tmp/mount.err"; then why="mount: $(cat "$tmp/mount.err")"
    else
      mnt=$tmp/mnt
      cg=/sys/fs/cgroup/blkio/etcd-fio-it-fleet.$$
      majmin=$(lsblk -no MAJ:MIN "$loopdev" 2>/dev/null | head -1 | tr -d ' ')
      [ -n "$majmin" ] || majmin=$(stat -L -c '%t:%T' "$loopdev" | awk -F: '{printf "%d:%d", "0x"$1, "0x"$2}')
      if mkdir "$cg" 2>/dev/null && echo "$majmin 60" > "$cg/blkio.throttle.write_iops_device" 2>/dev/null; then
        sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" --server=ip:127.0.0.1,$3' sh "$cg" "$SRV" $P_SLOW \
          >"$tmp/srv-slow.log" 2>&1 &
        pids="$pids $!"; slow=1
      else
        why="cannot set blkio.throttle.write_iops_device for $majmin"; rmdir "$cg" 2>/dev/null; cg=""
      fi
    fi
  fi
fi
[ $slow = 1 ] || echo "SKIP (throttled host only): $why"

wait_listen $P_PLAIN; wait_listen $P_OLD
[ $noeng = 1 ] && wait_listen $P_NOENG
[ $slow = 1 ] && wait_listen $P_SLOW

# ---------- 0. bad host lists: one line naming the file and line, exit 2, nothing run ----------
printf '# fleet\n127.0.0.1,%s\n\n127.0.0.1,notaport\n' $P_PLAIN > "$tmp/bad-hosts"
err=$("$EF" fleet --clients "$tmp/bad-hosts" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$err" = "etcd-fio fleet: $tmp/bad-hosts:4: bad port 'notaport' in '127.0.0.1,notaport' (expected HOST[,PORT], PORT 1-65535)" ] \
  && ok "bad port reported as FILE:LINE" || fail "bad hosts file: rc=$rc: $err"
printf '127.0.0.1,%s\n127.0.0.1,%s /srv\n' $P_PLAIN $P_PLAIN > "$tmp/dup-hosts"
err=$("$EF" fleet --clients "$tmp/dup-hosts" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "dup-hosts:2: 127.0.0.1,$P_PLAIN is listed twice" \
  && ok "duplicate host reported" || fail "duplicate host: rc=$rc: $err"
err=$("$EF" fleet --dir "$tmp" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "no hosts given" && ok "no hosts: usage error" || fail "no hosts: rc=$rc: $err"

# ---------- 1. preflight: unreachable, no engine, another fio version ----------
# A server of another fio version cannot be started here, so a wrapper rewrites the version in that one
# server's probe reply (the only place fio states it); everything else is the real fio.
cat > "$tmp/fio-other" <<EOF
#!/bin/sh
case "\$*" in
  *"--client=127.0.0.1,$P_OLD "*) "$FIO" "\$@" 2>&1 | sed 's/, fio=fio-[0-9.]*,/, fio=fio-3.99,/' ;;
  *) exec "$FIO" "\$@" ;;
esac
EOF
chmod +x "$tmp/fio-other"
set -- --client 127.0.0.1,$P_NONE --client 127.0.0.1,$P_OLD
[ $noeng = 1 ] && set -- "$@" --client 127.0.0.1,$P_NOENG
out=$(FIO="$tmp/fio-other" "$EF" fleet "$@" --dir "$tmp/plain" --runtime 12 --accept-point-estimate 2>"$tmp/pre.err"); rc=$?
echo "$out"; cat "$tmp/pre.err"
[ $rc -eq 2 ] && ok "preflight failures exit 2" || fail "preflight-only run exited $rc, expected 2"
echo "$out" | grep -Eq "^ +127.0.0.1:$P_NONE: unknown \(unreachable\): .*Connection refused" \
  && ok "unreachable host named" || fail "no unreachable row for port $P_NONE"
echo "$out" | grep -Eq "^ +127.0.0.1:$P_OLD: unknown \(fio-version\): runs fio-3.99, this client and the engine are fio-" \
  && ok "other fio version named" || fail "no fio-version row for port $P_OLD"
if [ $noeng = 1 ]; then
  echo "$out" | grep -Eq "^ +127.0.0.1:$P_NOENG: unknown \(no-engine\): engine not installed at $tmp/engine/libetcdwal.so" \
    && ok "host without the engine named" || fail "no no-engine row for port $P_NOENG"
fi
grep -q "127.0.0.1,$P_NONE: unreachable" "$tmp/pre.err" || fail "stderr does not name the unreachable host"
echo "$out" | tail -1 | grep -q "^fleet: unknown" || fail "summary line is not UNKNOWN"
[ -z "$(ls "$tmp/plain")" ] || fail "preflight wrote into the servers' directory: $(ls "$tmp/plain")"

# a directory the server does not have passes the parse-only probe; the run then names the server's error
out=$("$EF" fleet --client 127.0.0.1,$P_PLAIN --dir "$tmp/missing" --runtime 12 --accept-point-estimate 2>/dev/null); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -Eq "^ +127.0.0.1:$P_PLAIN: unknown \(no-results\): .*$tmp/missing is not a directory" \
  && ok "missing directory on the server named" || fail "missing directory: rc=$rc"

# ---------- 1b. refused at once: '#'/';' in a directory (fio's job-file parser cuts values there) ----------
err=$("$EF" fleet --client 127.0.0.1,$P_PLAIN --dir "$tmp/etcd#new" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "'#'" && ok "'#' in --dir refused: $err" || fail "'#' in --dir: rc=$rc: $err"
printf '127.0.0.1,%s /srv/a;b\n' $P_PLAIN > "$tmp/semi-hosts"
err=$("$EF" fleet --clients "$tmp/semi-hosts" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "semi-hosts:1: .*';'" && ok "';' in a --clients directory refused" || fail "';' in --clients: rc=$rc: $err"
err=$("$EF" fleet --client 127.0.0.1,$P_PLAIN --runtime 1 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "use --runtime 42 or more (or --accept-point-estimate)" && ok "--runtime 1 refused (too short to judge)" || fail "--runtime 1: rc=$rc: $err"
err=$("$EF" fleet --client 127.0.0.1,$P_PLAIN --runtime 5 --accept-point-estimate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && echo "$err" | grep -q "use --runtime 12 or more" && ok "--runtime 5 refused with the point estimate" || fail "--runtime 5: rc=$rc: $err"

# ---------- 2. the run: plain (+ throttled) + the unreachable one, from a --clients file ----------
# Started here, and 1c runs beside it (other directories; 1c's P_OLD server is not in this run): one run's
# time for both. What 2 asserts holds whatever verdict the shared disk gives the plain host.
{
  echo "# host[,port] [dir]"
  echo "127.0.0.1,$P_PLAIN $tmp/plain"
  [ $slow = 1 ] && echo "127.0.0.1,$P_SLOW   $mnt   # throttled to 60 write IOPS"
  echo "127.0.0.1,$P_NONE"
} > "$tmp/hosts"
t0=$(date +%s)
"$EF" fleet --clients "$tmp/hosts" --dir /nonexistent --runtime "$RUNTIME" --accept-point-estimate --json \
  --prometheus "$tmp/fleet.prom" --keep-output "$tmp/keep" >"$tmp/fleet.json" 2>"$tmp/fleet.err" &
frun=$!; clients="$frun"

# ---------- 1c. a run cut short is never a PASS, nor one whose server went away ----------
# Two runs at once (12 s): SIGINT to fleet 2 s into its run; the other server's connection process killed then.
mkdir -p "$tmp/int" "$tmp/gone"
"$EF" fleet --client 127.0.0.1,$P_PLAIN --dir "$tmp/int" --runtime 12 --accept-point-estimate --json >"$tmp/int.json" 2>"$tmp/int.err" &
fint=$!; clients="$clients $fint"
"$EF" fleet --client 127.0.0.1,$P_OLD --dir "$tmp/gone" --runtime 12 --accept-point-estimate --json >"$tmp/gone.json" 2>"$tmp/gone.err" &
fgone=$!; clients="$clients $fgone"
# wait until each run is under way (a loaded machine may take seconds to probe and connect)
run_started() {  # the fleet's fio client of the run (not a probe) is running
  for c in $(pgrep -P "$fint"); do grep -q 'output-format=json+' "/proc/$c/cmdline" 2>/dev/null && return 0; done
  return 1
}
srv_old=""
for p in $pids; do grep -q "127.0.0.1,$P_OLD" "/proc/$p/cmdline" 2>/dev/null && srv_old=$p; done
jobs_running() {  # the P_OLD server's connection process has forked its jobs
  for c in $(pgrep -P "$srv_old"); do [ -n "$(pgrep -P "$c")" ] && return 0; done
  return 1
}
i=0; while ! { run_started && jobs_running; } && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2
kill -INT $fint
for c in $(pgrep -P "$srv_old"); do kill -9 "$c"; done
wait $fint; rint=$?
wait $fgone; rgone=$?
"$PY" - "$tmp/int.json" "$rint" "$tmp/gone.json" "$rgone" <<'PYEOF' || fails=$((fails + 1))
import json, sys
bad = 0
for path, rc, status in ((sys.argv[1], int(sys.argv[2]), 'interrupted'), (sys.argv[3], int(sys.argv[4]), None)):
    d = json.load(open(path))
    h = d['hosts'][0]
    good = rc == 2 and d['verdict'] == 'unknown' and h['verdict'] == 'unknown' and (status is None or h['status'] == status) \
        and all(j['verdict'] == 'unknown' for j in h['jobs'])
    print(('ok: ' if good else 'FAIL: ') + '%s: exit %d, host %s (%s): %s' % (path.split('/')[-1], rc, h['verdict'], h['status'], h['reason']))
    bad |= not good
sys.exit(bad)
PYEOF

# ---------- 2. (the run started before 1c) ----------
wait $frun; rc=$?
echo "fleet run: exit $rc in $(( $(date +%s) - t0 )) s"; cat "$tmp/fleet.json" "$tmp/fleet.err"

DIR_PLAIN=$tmp/plain DIR_SLOW=$mnt SLOW=$slow P_PLAIN=$P_PLAIN P_SLOW=$P_SLOW P_NONE=$P_NONE RC=$rc "$PY" - "$tmp/fleet.json" "$tmp/keep/run.json" \
  "$tmp/fleet.prom" <<'EOF' || fails=$((fails + 1))
import json, os, sys
fleet = json.load(open(sys.argv[1]))
raw = open(sys.argv[2]).read()
doc = json.JSONDecoder().raw_decode(raw[raw.index('{\n'):])[0]   # fio prints job lines before the JSON
prom = open(sys.argv[3]).read().splitlines()
slow = os.environ['SLOW'] == '1'
pp, ps, pn, rc = (int(os.environ[k]) for k in ('P_PLAIN', 'P_SLOW', 'P_NONE', 'RC'))
bad = []
def check(cond, msg):
    print(('ok: ' if cond else 'FAIL: ') + msg)
    if not cond:
        bad.append(msg)
hosts = {h['port']: h for h in fleet['hosts']}
def job(h, role):
    js = [j for j in h['jobs'] if j['role'] == role]
    return js[0] if js else None
check(fleet['schema'] == 1 and fleet['command'] == 'fleet', 'schema 1, command fleet')
check(set(hosts) == ({pp, pn} | ({ps} if slow else set())), 'one row per listed host: %s' % sorted(hosts))
rank = {'fail': 0, 'unknown': 1, 'pass': 2}
order = [rank[h['verdict']] for h in fleet['hosts']]
check(order == sorted(order), 'rows sorted worst first: %s' % [h['verdict'] for h in fleet['hosts']])
check(hosts[pn]['status'] == 'unreachable' and hosts[pn]['verdict'] == 'unknown', 'unreachable host is UNKNOWN')
# every judged p99 is fio's own client_stats value for that host, port and etcd_mode
stats = {}
for c in doc['client_stats']:
    if c.get('jobname') == 'All clients':
        continue
    mode = c.get('job options', {}).get('etcd_mode', 'wal')
    stats[(c['port'], mode)] = c
for port in [pp] + ([ps] if slow else []):
    h = hosts[port]
    check(h['status'] == 'judged', 'host %d judged' % port)
    want_dir = os.environ['DIR_PLAIN'] if port == pp else os.environ['DIR_SLOW']
    check(h['dir'] == want_dir, 'port %d ran in the DIR of the clients file (%s)' % (port, h['dir']))
    for mode in ('wal', 'backend'):
        c = stats.get((port, mode))
        j = job(h, mode)
        check(c is not None and j is not None, 'fio client_stats and the result have the %s job of port %d' % (mode, port))
        if c is None or j is None:
            continue
        lat = c['sync']['lat_ns']
        want = lat.get('percentile', {}).get('99.000000')
        if want is not None and lat.get('max') is not None and lat['max'] < want:
            want = lat['max']  # fio prints a bin's middle, which may lie above the exact max: shown within it
        check(j['p99_ns'] == want, 'port %d %s p99 %s == client_stats %s' % (port, mode, j['p99_ns'], want))
        check(j['samples'] == lat['N'], 'port %d %s samples %s == N %s' % (port, mode, j['samples'], lat['N']))
        thr = 10_000_000 if mode == 'wal' else 25_000_000
        check(j['threshold_ns'] == thr, 'port %d %s threshold' % (port, mode))
        if j['verdict'] in ('pass', 'fail') and want is not None:
            check((want < thr) == (j['verdict'] == 'pass'), 'port %d %s verdict agrees with p99 vs %d ns' % (port, mode, thr))
plain = hosts[pp]
check(job(plain, 'wal')['verdict'] in ('pass', 'fail'), 'plain host WAL judged (%s)' % job(plain, 'wal')['verdict'])
if slow:
    s = hosts[ps]
    check(job(s, 'wal')['verdict'] == 'fail' and job(s, 'wal')['p99_ns'] >= 10_000_000, 'throttled host WAL FAIL (p99 %s ns)' % job(s, 'wal')['p99_ns'])
    check(s['verdict'] == 'fail' and fleet['hosts'][0]['port'] == ps, 'throttled host FAIL, listed first')
    check(fleet['verdict'] == 'fail' and rc == 1, 'overall FAIL, exit 1 (got %s, %d)' % (fleet['verdict'], rc))
else:
    # the unreachable host keeps the fleet from passing; a failing plain disk makes it FAIL
    want = 'fail' if plain['verdict'] == 'fail' else 'unknown'
    check(fleet['verdict'] == want and rc == {'fail': 1, 'unknown': 2}[want], 'overall %s (got %s, exit %d)' % (want, fleet['verdict'], rc))
# Prometheus: the same metric table as check: one verdict series per host with the row's value
code = {'pass': 0, 'fail': 1, 'unknown': 2}
for port, h in hosts.items():
    line = 'etcd_fio_verdict{host="127.0.0.1:%d",dir="%s",basis="%s"} %d' % (port, h['dir'], h['basis'], code[h['verdict']])
    check(line in prom, 'prometheus: ' + line)
    j = job(h, 'wal')
    if j and j['p99_ns'] is not None:
        vals = [l for l in prom if l.startswith('etcd_fio_wal_fsync_p99_seconds{host="127.0.0.1:%d",' % port)]
        check(len(vals) == 1 and abs(float(vals[0].split()[-1]) - j['p99_ns'] / 1e9) < 1e-9, 'prometheus WAL p99 of %d' % port)
check(any(l.startswith('etcd_fio_overall_verdict{command="fleet",') and l.endswith(' %d' % code[fleet['verdict']]) for l in prom),
      'prometheus overall verdict')
ts = [int(l.split()[-1]) for l in prom if l.startswith('etcd_fio_timestamp_seconds{')]
check(len(ts) == len(hosts) and all(t == fleet['timestamp'] for t in ts), 'prometheus timestamps are the run\'s, integer-exact (%s)' % ts)
check(not any(l.split('{')[0].split(' ')[0].endswith('_total') for l in prom if not l.startswith('#')), 'no metric ends in _total')
sys.exit(1 if bad else 0)
EOF
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null && /usr/bin/python3 "$top/tests/lib/validate_json.py" "$tmp/fleet.json"; then
  ok "fleet --json matches doc/etcd-fio.schema.json"
else
  fail "fleet --json schema (python3-jsonschema installed?)"
fi
promtool check metrics < "$tmp/fleet.prom" && ok "promtool check metrics (fleet)" || fail "promtool check metrics (fleet)"

# the engine cleaned up after itself on both servers
wait_kids
[ -z "$(ls "$tmp/plain")" ] || fail "files left in the plain server's directory: $(ls "$tmp/plain")"
if [ $slow = 1 ]; then
  left=$(ls "$mnt" | grep -v '^lost+found$')
  [ -z "$left" ] || fail "files left on the throttled filesystem: $left"
fi

[ -z "$(ls "$tmp/t")" ] && ok "no work directory left in TMPDIR" || fail "left in TMPDIR: $(ls "$tmp/t")"

finish it_fleet
