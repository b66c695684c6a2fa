#!/bin/sh
# SPDX-License-Identifier: MIT
# k8s_lab.sh — the Kubernetes load (`--load k8s:NODES`) on real etcd and on the engine, one after the other
# in the same directory: (1) a fresh real etcd (127.0.0.1 only, its own data dir, stopped by pid) driven by
# bench/putload with the mix `etcd-fio job --load k8s:NODES` gives the engine (its etcd_kinds= and
# etcd_seed= lines, so both draw the same sequence of kinds, paced at the mix's rate) for SECONDS after a
# 1 s warm-up, its WAL fsync and backend commit p99 from two /metrics scrapes (buckets.py's rule); (2) the
# faithful k8s profile `etcd-fio job --load k8s:NODES --runtime SECONDS` through fio, its p99s from the
# engine's stats files by the same buckets. etcd and fio (which plays etcd's part) run on CPU K8S_CPU_ETCD,
# putload on K8S_CPU_LOAD, at real-time priority where allowed (lab_lib.sh). Prints one table: per node
# count and side the WAL and backend p99, puts/s, WAL fsyncs/s and commits/s, and the ratios ours/etcd.
# Nothing here is a test.
#
# Usage: k8s_lab.sh OUTDIR [DIR]      (DIR: where both write, default a mktemp dir under /var/tmp)
# env: BUILD; ETCD=/path/to/etcd (lib.sh; bench/etcd_fetch.sh for 3.5); K8S_NODES="100 1000";
#      K8S_SECONDS=45; K8S_CLIENTS=16 (putload's clients sharing the paced rate); K8S_CPU_ETCD=0 K8S_CPU_LOAD=1
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/lab_lib.sh"
OUT=${1:?usage: k8s_lab.sh OUTDIR [DIR]}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
NODES=${K8S_NODES:-100 1000}; SECS=${K8S_SECONDS:-45}; CLIENTS=${K8S_CLIENTS:-16}
CPU_E=${K8S_CPU_ETCD:-0}; CPU_L=${K8S_CPU_LOAD:-1}
PUTLOAD=$BUILD/bench/putload
for t in etcd taskset go; do
  command -v "$t" >/dev/null || { echo "k8s_lab: $t not installed (sh mk/deps.sh bench)" >&2; exit 2; }
done
[ -x "$ETCD_FIO" ] && [ -f "$ENGINE_SO" ] || { echo "k8s_lab: $ETCD_FIO or $ENGINE_SO not built (make)" >&2; exit 2; }
# the client, built offline from Debian's clientv3 (golang-etcd-server-dev) in a private GOPATH
mkdir -p "$BUILD/bench/gopath" "$BUILD/bench/gocache"
(cd "$BENCH_DIR/putload" && GO111MODULE=off GOPATH="$BUILD/bench/gopath:/usr/share/gocode" GOCACHE="$BUILD/bench/gocache" \
  GOFLAGS='' go build -o "$PUTLOAD" .) || { echo "k8s_lab: building bench/putload failed" >&2; exit 2; }
# putload's draw is the engine's: the values test_load holds for engine/kinds.h
want="e220a8397b1dcdaf 0000001000000000000010000000000000000000000010000000000000000000"
got=$("$PUTLOAD" -selftest)
[ "$got" = "$want" ] || { echo "k8s_lab: putload draws otherwise than the engine: $got" >&2; exit 2; }

if [ -n "${2:-}" ]; then DIR=$(cd "$2" && pwd) || exit 2; OWN=""; else DIR=$(mktemp -d /var/tmp/k8s-lab.XXXXXX) || exit 2; OWN=$DIR; fi
ETCD_PID=""
cleanup() { etcd_stop; rm -rf "$DIR/etcd-data" "$DIR/engine"; [ -n "$OWN" ] && rm -rf "$OWN"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "k8s_lab: etcd $ETCD_VERSION, $SECS s a side, in $DIR ($(df -T "$DIR" | awk 'NR==2 {print $2 " on " $1}'))" >&2

for n in $NODES; do
  o="$OUT/k8s-$n"; mkdir -p "$o"; res="$o/result.env"; : > "$res"
  echo "nodes=$n" >> "$res"; echo "etcd_version=$ETCD_VERSION" >> "$res"
  "$ETCD_FIO" job --load "k8s:$n" --dir "$DIR/engine" --runtime "$SECS" --engine "$ENGINE_SO" > "$o/engine.fio.orig" ||
    { echo "k8s_lab: etcd-fio job --load k8s:$n failed" >&2; exit 2; }
  kinds=$(sed -n 's/^etcd_kinds=//p' "$o/engine.fio.orig"); seed=$(sed -n 's/^etcd_seed=//p' "$o/engine.fio.orig")
  echo "kinds=$kinds" >> "$res"

  # ---- 1. real etcd under putload's mix
  ETCD_WRAP="$NICE taskset -c $CPU_E"
  if etcd_start "$DIR/etcd-data" "$o/etcd.log"; then
    bench_scrape "$ETCD_EP/metrics" "$o/metrics.before"
    echo "etcd_loadavg=$(loadavg)" >> "$res"
    $NICE taskset -c "$CPU_L" "$PUTLOAD" -endpoints "$ETCD_EP" -clients "$CLIENTS" -kinds "$kinds" -seed "$seed" \
      -duration "${SECS}s" > "$o/putload.json" 2> "$o/putload.err"
    bench_scrape "$ETCD_EP/metrics" "$o/metrics.after"
    etcd_stop
    secs=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$o/putload.json" 2>/dev/null || echo "$SECS")
    echo "etcd_puts_per_s=$($PY -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["writes_per_s"])' "$o/putload.json" 2>/dev/null || echo nan)" >> "$res"
    # the scrapes bracket the warm-up and the measured window: the rates are of the scrapes' counts over
    # the window plus the warm-up second
    for m in wal:etcd_disk_wal_fsync_duration_seconds be:etcd_disk_backend_commit_duration_seconds; do
      set -- $($BUCKETS prom "$o/metrics.before" "$o/metrics.after" "${m#*:}" --count)
      echo "etcd_${m%%:*}_p99=${1:-nan}" >> "$res"
      echo "etcd_${m%%:*}_per_s=$($PY -c 'import sys; print("%.1f" % (float(sys.argv[1]) / (float(sys.argv[2]) + 1)))' "${2:-0}" "$secs")" >> "$res"
    done
  fi
  rm -rf "$DIR/etcd-data"

  # ---- 2. the profile through fio, its stats files beside the results
  mkdir -p "$DIR/engine"
  sed -e "s|^etcd_mode=wal\$|&\\
etcd_stats_file=$o/engine-wal.stats.json|" -e "s|^etcd_mode=backend\$|&\\
etcd_stats_file=$o/engine-backend.stats.json|" "$o/engine.fio.orig" > "$o/engine.fio"
  echo "ours_loadavg=$(loadavg)" >> "$res"
  if $NICE taskset -c "$CPU_E" "$FIO" --output-format=json+ --output="$o/engine.json" "$o/engine.fio" > "$o/engine.log" 2>&1; then
    set -- $($BUCKETS engine "$o/engine-wal.stats.json" --key fdatasync --count)
    echo "ours_wal_p99=${1:-nan}" >> "$res"; wn=${2:-0}
    set -- $($BUCKETS engine "$o/engine-backend.stats.json" --key commit --count)
    echo "ours_be_p99=${1:-nan}" >> "$res"; bn=${2:-0}
    rt=$(jq '[.jobs[] | .job_runtime] | max / 1000' "$o/engine.json")
    ent=$(jq '.entries' "$o/engine-wal.stats.json")
    $PY -c 'import sys; e,w,b,t=map(float,sys.argv[1:]); print("ours_puts_per_s=%.1f\nours_wal_per_s=%.1f\nours_be_per_s=%.1f" % (e/t, w/t, b/t))' \
      "$ent" "$wn" "$bn" "$rt" >> "$res"
    echo "ours_kinds=$(jq -r '[.kinds[] | "\(.name) \(.entries)"] | join(", ")' "$o/engine-wal.stats.json")" >> "$res"
  else
    echo "k8s_lab: fio on the k8s:$n profile failed; see $o/engine.log" >&2
  fi
  rm -rf "$DIR/engine"
done

# ---- the table
$PY - "$OUT" $NODES <<'EOF'
import sys
out, nodes = sys.argv[1], sys.argv[2:]
def env(n):
    d = {}
    for line in open("%s/k8s-%s/result.env" % (out, n)):
        k, _, v = line.rstrip("\n").partition("=")
        d[k] = v
    return d
def num(v):
    try:
        return float(v.lstrip(">"))
    except (ValueError, AttributeError):
        return None
def ratio(a, b):
    a, b = num(a), num(b)
    return "x%.2f" % (a / b) if a is not None and b else "-"
rows = [env(n) for n in nodes]
print("| nodes | WAL p99 ms etcd / ours (x) | backend p99 ms etcd / ours (x) | puts/s etcd / ours | WAL fsyncs/s etcd / ours | commits/s etcd / ours | load avg etcd / ours |")
print("|---|---|---|---|---|---|---|")
for d in rows:
    g = lambda k: d.get(k, "nan")
    print("| %s | %s / %s (%s) | %s / %s (%s) | %s / %s | %s / %s | %s / %s | %s / %s |" % (
        g("nodes"), g("etcd_wal_p99"), g("ours_wal_p99"), ratio(g("ours_wal_p99"), g("etcd_wal_p99")),
        g("etcd_be_p99"), g("ours_be_p99"), ratio(g("ours_be_p99"), g("etcd_be_p99")),
        g("etcd_puts_per_s"), g("ours_puts_per_s"), g("etcd_wal_per_s"), g("ours_wal_per_s"),
        g("etcd_be_per_s"), g("ours_be_per_s"), g("etcd_loadavg"), g("ours_loadavg")))
print()
print("etcd %s; kinds drawn by ours: %s" % (rows[0].get("etcd_version", "?"),
      "; ".join("k8s:%s %s" % (d.get("nodes"), d.get("ours_kinds", "?")) for d in rows)))
EOF
