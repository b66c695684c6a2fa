#!/bin/sh
# SPDX-License-Identifier: MIT
# capacity.sh — issue 23's proof: how many puts/s real etcd (Debian's 3.4.23, or ETCD=/path/to/etcd, see
# lib.sh) sustains on a disk at N closed-loop clients, beside what `etcd-fio capacity` says for the same
# disk. For each point (this machine's disk, or a
# device model of the slow-disk lab mounted with labfs as lab.sh does) and each client count: a fresh etcd
# (127.0.0.1 only, its own data dir, stopped by pid) driven by bench/putload (etcd's clientv3) for SECS after
# a 1 s warm-up; etcd's /metrics scraped before and after (WAL fsync and backend commit p99 of the
# difference, buckets.py's rule) and its CPU time from /proc/PID/stat. Then `etcd-fio capacity` on the same
# point. etcd and fio (which plays etcd's part) run on CPU CAP_CPU_ETCD, the client and labfs on
# CAP_CPU_LOAD. capacity_table.py prints the table (bench/README.md "Capacity"). Nothing here is a test.
#
# Usage: capacity.sh OUTDIR
# env: BUILD; CAP_POINTS="disk d0.5=SPEC ..." ("disk" = a directory on this machine's disk, CAP_DISK_DIR,
#      default a mktemp dir under /var/tmp; NAME=SPEC = labdev.h syntax); CAP_CLIENTS="1 16 64 256 1024";
#      CAP_SECONDS=10; CAP_ONLY="etcd ours"; CAP_CPU_ETCD=0 CAP_CPU_LOAD=1; CAP_OURS_ARGS (extra options
#      for etcd-fio capacity); CAP_CLUSTER=1 adds the 3-member etcd cluster (issue 23 item 3): three etcd
#      processes on 127.0.0.1 whose data dirs sit on three lab mounts at once (CAP_CLUSTER_POINTS, default
#      the d0.5, d2 and d4 models), driven at CAP_CLUSTER_CLIENTS (default 1 16 64) through all three
#      endpoints; each member's WAL fsync and backend commit p99 from its own /metrics. Leadership is moved
#      to member CAP_CLUSTER_LEADER (default 1, the 0.5 ms device) before each run (etcdctl move-leader), and
#      `etcd-fio capacity --member` runs on three loopback fio servers on the same three mounts, that member
#      first (the leader), --rtt CAP_RTT_MS (default 0.2), CAP_CLUSTER_OURS_ARGS added.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: capacity.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
LABFS=${LABFS:-$BUILD/bench/labfs}
SECS=${CAP_SECONDS:-10}; CLIENTS=${CAP_CLIENTS:-1 16 64 256 1024}; ONLY=${CAP_ONLY:-etcd ours}
CPU_E=${CAP_CPU_ETCD:-0}; CPU_L=${CAP_CPU_LOAD:-1}
POINTS=${CAP_POINTS:-"disk d0.5=median=0.5ms,sigma=0.5,per_mib=2ms,seed=1 d2=median=2ms,sigma=0.5,per_mib=2ms,seed=2 d4=median=4ms,sigma=0.5,per_mib=2ms,seed=3"}
PUTLOAD=$BUILD/bench/putload

for t in etcd taskset go; do
  command -v "$t" >/dev/null || { echo "capacity: $t not installed (sh mk/deps.sh bench)" >&2; exit 2; }
done
[ -x "$ETCD_FIO" ] || { echo "capacity: $ETCD_FIO not built (make)" >&2; exit 2; }
# the client, built offline from Debian's clientv3 (golang-etcd-server-dev) in a private GOPATH
mkdir -p "$BUILD/bench/gopath" "$BUILD/bench/gocache"
(cd "$BENCH_DIR/putload" && GO111MODULE=off GOPATH="$BUILD/bench/gopath:/usr/share/gocode" GOCACHE="$BUILD/bench/gocache" \
  GOFLAGS= go build -o "$PUTLOAD" .) || { echo "capacity: building bench/putload failed" >&2; exit 2; }
CLK_TCK=$(getconf CLK_TCK)
. "$BENCH_DIR/lab_lib.sh"
DISKDIR=""
CL_MNTS=""; CL_BACKS=""; CL_FSPIDS=""
cleanup_cap() { cluster_stop; cluster_fio_stop; cluster_umount; umount_lab; [ -n "$DISKDIR" ] && rm -rf "$DISKDIR"; }
trap cleanup_cap EXIT

has() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# One real-etcd run: DIR CLIENTS OUT
part_etcd_put() {
  mkdir -p "$3"; : > "$3/result.env"
  ETCD_WRAP="$NICE taskset -c $CPU_E"
  if etcd_start "$1/etcd-data" "$3/etcd.log"; then
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.before"
    echo "loadavg=$(loadavg)" >> "$3/result.env"
    c0=$(cpu_ticks "$ETCD_PID"); t0=$(date +%s.%N)
    $NICE taskset -c "$CPU_L" "$PUTLOAD" -endpoints "$ETCD_EP" -clients "$2" -duration "${SECS}s" > "$3/putload.json" 2> "$3/putload.err"
    c1=$(cpu_ticks "$ETCD_PID"); t1=$(date +%s.%N)
    bench_scrape "$ETCD_EP/metrics" "$3/metrics.after"
    etcd_stop
    echo "cpu_pct=$(echo "$c0 $c1 $t0 $t1 $CLK_TCK" | awk '{printf "%.0f", ($2-$1)/$5/($4-$3)*100}')" >> "$3/result.env"
    for m in wal:etcd_disk_wal_fsync_duration_seconds be:etcd_disk_backend_commit_duration_seconds; do
      set -- "$1" "$2" "$3" $($BUCKETS prom "$3/metrics.before" "$3/metrics.after" "${m#*:}" --count)
      echo "${m%%:*}_p99=${4:-nan}" >> "$3/result.env"; echo "${m%%:*}_n=${5:-0}" >> "$3/result.env"
    done
  fi
  rm -rf "$1/etcd-data"
}

# Three members on 127.0.0.1, data dirs on three directories: D1 D2 D3 LOG_PREFIX. Sets CL_PIDS, CL_EPS.
CL_PIDS=""; CL_EPS=""
cluster_start() {
  set -- "$1" "$2" "$3" "$4" $(bench_free_ports) $(bench_free_ports) $(bench_free_ports)
  d1=$1 d2=$2 d3=$3 log=$4; shift 4
  ic="m1=http://127.0.0.1:$2,m2=http://127.0.0.1:$4,m3=http://127.0.0.1:$6"
  CL_PIDS=""; CL_EPS=""; n=1
  for d in "$d1" "$d2" "$d3"; do
    cp=$1; pp=$2; shift 2
    $NICE taskset -c "$CPU_E" etcd --name "m$n" --data-dir "$d/etcd-m$n" \
      --listen-client-urls "http://127.0.0.1:$cp" --advertise-client-urls "http://127.0.0.1:$cp" \
      --listen-peer-urls "http://127.0.0.1:$pp" --initial-advertise-peer-urls "http://127.0.0.1:$pp" \
      --initial-cluster "$ic" --initial-cluster-state new > "$log.m$n.log" 2>&1 &
    CL_PIDS="$CL_PIDS $!"; CL_EPS="$CL_EPS${CL_EPS:+,}http://127.0.0.1:$cp"; n=$((n + 1))
  done
  w=0
  while [ $w -lt 200 ]; do
    etcdctl --endpoints="$CL_EPS" endpoint health >/dev/null 2>&1 && { cluster_lead "${CAP_CLUSTER_LEADER:-1}"; return 0; }
    sleep 0.1; w=$((w + 1))
  done
  bench_log "cluster not healthy after 20 s"; cluster_stop; return 1
}
# Moves leadership to member N (1-based, in CL_EPS order); CL_LEADER: the member that leads after it.
CL_LEADER=""
cluster_lead() {
  st=$(etcdctl --endpoints="$CL_EPS" endpoint status -w json 2>/dev/null)
  set -- $(echo "$st" | $PY -c 'import json,sys
n=int(sys.argv[1]); s=json.load(sys.stdin)
lead=s[0]["Status"]["leader"]; ids=[e["Status"]["header"]["member_id"] for e in s]
print(s[ids.index(lead)]["Endpoint"], "%x" % ids[n-1])' "$1")
  [ $# -eq 2 ] && etcdctl --endpoints="$1" move-leader "$2" >/dev/null 2>&1
  CL_LEADER=$(etcdctl --endpoints="$CL_EPS" endpoint status -w json 2>/dev/null | $PY -c 'import json,sys
s=json.load(sys.stdin); ids=[e["Status"]["header"]["member_id"] for e in s]
print(ids.index(s[0]["Status"]["leader"]) + 1)')
}
cluster_stop() {
  for p in $CL_PIDS; do kill "$p" 2>/dev/null; done
  for p in $CL_PIDS; do wait "$p" 2>/dev/null; done
  CL_PIDS=""
}

# Three labfs mounts at once (lab_lib.sh's mount_lab keeps one): SPEC1 SPEC2 SPEC3 OUTDIR. Sets CL_MNTS.
cluster_mount() {
  n=1
  for spec in "$1" "$2" "$3"; do
    b=$(mktemp -d "$SHM/etcd-fio-lab.back.XXXXXX") && m=$(mktemp -d "${TMPDIR:-/tmp}/etcd-fio-lab.mnt.XXXXXX") || return 1
    CL_BACKS="$CL_BACKS $b"; CL_MNTS="$CL_MNTS $m"
    $RT taskset -c "$CPU_L" "$LABFS" "$m" -f -o "passthrough=$b,model=$(echo "$spec" | tr , :),stats=$4/labfs.m$n.stats" \
      > "$4/labfs.m$n.log" 2>&1 &
    CL_FSPIDS="$CL_FSPIDS $!"
    w=0
    while ! mountpoint -q "$m"; do
      [ $w -lt 50 ] || { bench_log "labfs $n did not mount; see $4/labfs.m$n.log"; return 1; }
      sleep 0.1; w=$((w + 1))
    done
    n=$((n + 1))
  done
}
cluster_umount() {
  for m in $CL_MNTS; do fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
  for p in $CL_FSPIDS; do wait "$p" 2>/dev/null; done
  for m in $CL_MNTS; do rmdir "$m" 2>/dev/null; done
  for b in $CL_BACKS; do rm -rf "$b"; done
  CL_MNTS=""; CL_BACKS=""; CL_FSPIDS=""
}

part_cluster() { # CLIENTS OUT
  mkdir -p "$2"; : > "$2/result.env"
  # shellcheck disable=SC2086
  set -- "$1" "$2" $CL_MNTS
  cluster_start "$3" "$4" "$5" "$2/etcd" || return
  echo "leader=m$CL_LEADER" >> "$2/result.env"
  n=1; c0=0
  for ep in $(echo "$CL_EPS" | tr , ' '); do bench_scrape "$ep/metrics" "$2/metrics.m$n.before"; n=$((n + 1)); done
  for p in $CL_PIDS; do c0=$((c0 + $(cpu_ticks "$p"))); done
  echo "loadavg=$(loadavg)" >> "$2/result.env"; t0=$(date +%s.%N)
  $NICE taskset -c "$CPU_L" "$PUTLOAD" -endpoints "$CL_EPS" -clients "$1" -duration "${SECS}s" > "$2/putload.json" 2> "$2/putload.err"
  t1=$(date +%s.%N); c1=0
  for p in $CL_PIDS; do c1=$((c1 + $(cpu_ticks "$p"))); done
  n=1
  for ep in $(echo "$CL_EPS" | tr , ' '); do bench_scrape "$ep/metrics" "$2/metrics.m$n.after"; n=$((n + 1)); done
  cluster_stop
  echo "cpu_pct=$(echo "$c0 $c1 $t0 $t1 $CLK_TCK" | awk '{printf "%.0f", ($2-$1)/$5/($4-$3)*100}')" >> "$2/result.env"
  # the leader's peer round trip (etcd's prober, its own buckets): the p50 over the run, in ms
  echo "rtt_p50_ms=$($PY - "$2/metrics.m$CL_LEADER.before" "$2/metrics.m$CL_LEADER.after" <<'PYEOF'
import re, sys
def read(p):
    b = {}
    for l in open(p, encoding="utf-8"):
        m = re.match(r'etcd_network_peer_round_trip_time_seconds_bucket\{.*le="([^"]+)"\} (\S+)', l)
        if m:
            le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
            b[le] = b.get(le, 0) + float(m.group(2))
    return b
a, z = read(sys.argv[1]), read(sys.argv[2])
d = sorted((le, z[le] - a.get(le, 0)) for le in z)
tot = d[-1][1] if d else 0
lo, below = 0.0, 0.0
for le, c in d:
    if tot and c >= tot / 2:
        print("%.3f" % ((lo + (le - lo) * (tot / 2 - below) / max(c - below, 1e-9)) * 1e3)); break
    lo, below = le, c
else:
    print("nan")
PYEOF
)" >> "$2/result.env"
  for n in 1 2 3; do
    for m in wal:etcd_disk_wal_fsync_duration_seconds be:etcd_disk_backend_commit_duration_seconds; do
      set -- "$1" "$2" $($BUCKETS prom "$2/metrics.m$n.before" "$2/metrics.m$n.after" "${m#*:}" --count)
      echo "m${n}_${m%%:*}_p99=${3:-nan}" >> "$2/result.env"
    done
  done
  for m in $CL_MNTS; do rm -rf "$m"/etcd-m*; done
}

# etcd-fio capacity --member on three loopback fio servers whose directories are the three mounts: OUT
CL_FIOPIDS=""
cluster_fio_stop() { for p in $CL_FIOPIDS; do kill "$p" 2>/dev/null; done; for p in $CL_FIOPIDS; do wait "$p" 2>/dev/null; done; CL_FIOPIDS=""; }
part_cluster_ours() {
  mkdir -p "$1"; : > "$1/result.env"
  set -- "$1" $CL_MNTS
  out=$1; shift
  lead=${CAP_CLUSTER_LEADER:-1}; args=""; n=1
  for m in "$@"; do
    port=$(bench_free_ports | cut -d' ' -f1)
    mkdir -p "$m/ours"
    $NICE taskset -c "$CPU_E" "$FIO" --server="ip:127.0.0.1,$port" > "$out/fio-server.m$n.log" 2>&1 &
    CL_FIOPIDS="$CL_FIOPIDS $!"
    w=0; while ! $PY -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$port" 2>/dev/null; do
      [ $w -lt 50 ] || break; sleep 0.1; w=$((w + 1)); done
    spec="--member ip:127.0.0.1,$port=$m/ours"
    if [ $n -eq "$lead" ]; then args="$spec $args"; else args="$args $spec"; fi
    n=$((n + 1))
  done
  echo "loadavg=$(loadavg)" >> "$out/result.env"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  $NICE taskset -c "$CPU_L" "$ETCD_FIO" capacity --clients "$(echo ${CAP_CLUSTER_CLIENTS:-1 16 64} | tr ' ' ,)" --rtt "${CAP_RTT_MS:-0.2}" \
    --json $args ${CAP_CLUSTER_OURS_ARGS:-} > "$out/capacity.json" 2> "$out/capacity.err"
  echo "rc=$?" >> "$out/result.env"
  echo "seconds=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}')" >> "$out/result.env"
  echo "loadavg_end=$(loadavg)" >> "$out/result.env"
  cluster_fio_stop
  for m in "$@"; do rm -rf "$m/ours"; done
}

part_ours() { # DIR OUT
  mkdir -p "$2" "$1/ours"; : > "$2/result.env"
  echo "loadavg=$(loadavg)" >> "$2/result.env"
  cl=$(echo $CLIENTS | tr ' ' ,)
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  # --force: a lab mount is FUSE on tmpfs, not the disk of this node's etcd (the refusal is right elsewhere)
  $NICE taskset -c "$CPU_E" "$ETCD_FIO" capacity --force --clients "$cl" --json ${CAP_OURS_ARGS:-} "$1/ours" > "$2/capacity.json" 2> "$2/capacity.err"
  echo "rc=$?" >> "$2/result.env"
  echo "seconds=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2-$1}')" >> "$2/result.env"
  echo "loadavg_end=$(loadavg)" >> "$2/result.env"
  rm -rf "$1/ours"
}

has etcd && echo "${ETCD_VERSION:-unknown}" > "$OUT/etcd_version"
for pt in $POINTS; do
  name=${pt%%=*}; spec=${pt#*=}
  P="$OUT/$name"; mkdir -p "$P"
  if [ "$name" = disk ]; then
    DISKDIR=${CAP_DISK_DIR:-$(mktemp -d /var/tmp/etcd-fio-capacity.XXXXXX)}; MNTDIR=$DISKDIR
    echo "this machine's disk: $(df -T "$DISKDIR" | awk 'NR==2{print $1, $2}')" > "$P/model"
  else
    echo "$spec" > "$P/model"
    mount_lab "$spec" "$P/labfs.stats.$(date +%s)" "" || { umount_lab; continue; }
    MNTDIR=$MNT
  fi
  bench_log "capacity: point $name on $MNTDIR"
  if has etcd; then
    for c in $CLIENTS; do
      bench_log "capacity: $name: etcd, $c clients"
      part_etcd_put "$MNTDIR" "$c" "$P/etcd-c$c"
    done
  fi
  has ours && { bench_log "capacity: $name: etcd-fio capacity"; part_ours "$MNTDIR" "$P/ours"; }
  if [ "$name" = disk ]; then [ -z "${CAP_DISK_DIR:-}" ] && rm -rf "$DISKDIR"; DISKDIR=""; else umount_lab; fi
done
if [ "${CAP_CLUSTER:-0}" = 1 ]; then
  # shellcheck disable=SC2086
  set -- ${CAP_CLUSTER_POINTS:-median=0.5ms,sigma=0.5,per_mib=2ms,seed=1 median=2ms,sigma=0.5,per_mib=2ms,seed=2 median=4ms,sigma=0.5,per_mib=2ms,seed=3}
  mkdir -p "$OUT/cluster"; printf '%s\n' "$@" > "$OUT/cluster/model"
  if cluster_mount "$1" "$2" "$3" "$OUT/cluster"; then
    if has etcd; then
      for c in ${CAP_CLUSTER_CLIENTS:-1 16 64}; do
        bench_log "capacity: 3-member cluster, $c clients"
        part_cluster "$c" "$OUT/cluster/etcd-c$c"
      done
    fi
    has ours && { bench_log "capacity: 3 members, etcd-fio capacity --member"; part_cluster_ours "$OUT/cluster/ours"; }
  fi
  cluster_umount
fi
$PY "$BENCH_DIR/capacity_table.py" "$OUT"
