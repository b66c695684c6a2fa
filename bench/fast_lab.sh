#!/bin/sh
# SPDX-License-Identifier: MIT
# fast_lab.sh — check's two phases on the slow-disk lab (issue 15): at every lab point (labfs, labdev.h
# models; bench/lab.sh's points by default), alternating, RUNS times:
#   profiles: the heavy profile (check's phase 1: the job of `etcd-fio job` without the WAL's rate= and
#             the backend's thinktime, as profile_opts.heavy renders it) for HEAVY_S seconds and the faithful
#             profile for FAITHFUL_S seconds; fio's own p99 of the WAL fdatasyncs and backend commits of
#             each, and phase 1's time view of the same bins (es_time_share_above: the wait a sync issued at a random
#             moment exceeds in 1 % of the time);
#   checks:   `etcd-fio check --json` (two phases) and `etcd-fio check --faithful --json` (phase 2 only):
#             their verdicts, which phase decided, and their durations.
# fio runs on LAB_CPU_ETCD, labfs on LAB_CPU_LOAD (taskset), with bench/lab_lib.sh's CPU policy (SCHED_RR
# for fio, SCHED_FIFO for labfs where chrt may; else nice -20: on this shared 2-core machine a lightly
# loaded FUSE daemon otherwise waits for a CPU at every sync, and etcd's light load looks slower than a
# heavy one); the 1-min load average goes with each row.
# Rows go to OUTDIR/rows.tsv and a table to stdout (bench/README.md "Two-phase check in the lab").
# Nothing here asserts a timing. Usage: fast_lab.sh OUTDIR
# env: BUILD, LAB_POINTS (lab.sh's syntax), FAST_RUNS=2, FAST_PARTS="profiles checks", HEAVY_S=10, FAITHFUL_S=30
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: fast_lab.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
LABFS=${LABFS:-$BUILD/bench/labfs}
RUNS=${FAST_RUNS:-2}; PARTS=${FAST_PARTS:-profiles checks}
HS=${HEAVY_S:-10}; FS=${FAITHFUL_S:-30}
CPU_E=${LAB_CPU_ETCD:-0}; CPU_L=${LAB_CPU_LOAD:-1}
POINTS=${LAB_POINTS:-$(sed -n 's/^POINTS=\${LAB_POINTS:-"\(.*\)"}$/\1/p' "$BENCH_DIR/lab.sh")}
[ -n "$POINTS" ] || { echo "fast_lab: no lab points" >&2; exit 2; }
[ -x "$LABFS" ] || { echo "fast_lab: $LABFS not built (make $LABFS)" >&2; exit 2; }
[ -x "$ETCD_FIO" ] || { echo "fast_lab: $ETCD_FIO not built" >&2; exit 2; }
. "$BENCH_DIR/lab_lib.sh"   # mount_lab/umount_lab, loadavg, the CPU policy ($NICE for fio, $RT for labfs)
ROWS="$OUT/rows.tsv"; : > "$ROWS"

# profile KIND SECS DIR OUT: one fio run of the heavy or faithful profile; prints "wal_p99 be_p99 wal_tw be_tw n_wal n_be"
profile() {
  "$ETCD_FIO" job --load s --dir "$3" --runtime "$2" --engine "$ENGINE_SO" > "$4.fio" || return 1
  if [ "$1" = heavy ]; then sed -i -e '/^rate=/d' -e '/^thinktime/d' "$4.fio"; fi
  $NICE taskset -c "$CPU_E" "$FIO" --output-format=json+ --output="$4.json" "$4.fio" > "$4.log" 2>&1 || return 1
  $PY - "$4.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = {}
for j in d["jobs"]:
    lat = j["sync"]["lat_ns"]
    bins = sorted((int(k), v) for k, v in (lat.get("bins") or {}).items())
    tot = sum(k * v for k, v in bins)
    # phase 1's time view (es_time_share_above): the smallest x such that a sync issued at a random moment
    # would wait more than x in at most 1 % of the time, a sync in flight being waited out to its end
    tw = 0
    for x, _ in bins:
        if tot and sum((k - x) * v for k, v in bins if k > x) <= 0.01 * tot:
            tw = x
            break
    role = "be" if "backend" in j["jobname"] else "wal"
    out[role] = (lat["percentile"].get("99.000000", 0) / 1e6, tw / 1e6, lat["N"])
print(f"{out['wal'][0]:.2f} {out['be'][0]:.2f} {out['wal'][1]:.2f} {out['be'][1]:.2f} {out['wal'][2]} {out['be'][2]}")
PY
}

# check KIND DIR OUT: prints "verdict decided_by wall-seconds wal_p99 be_p99 rollovers"
check() {
  f=""; [ "$1" = faithful ] && f=--faithful
  t0=$(date +%s.%N)
  $NICE taskset -c "$CPU_E" "$ETCD_FIO" check --json --force $f "$2" > "$3.json" 2> "$3.err"
  t1=$(date +%s.%N)
  $PY - "$3.json" "$(echo "$t0 $t1" | awk '{printf "%.1f", $2 - $1}')" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("error - 0 0 0 -"); sys.exit(0)
jobs = {j.get("role"): j for j in (d.get("hosts") or [{}])[0].get("jobs", [])}
det = d.get("details") or {}
eng, ph = det.get("engine") or {}, det.get("phases") or {}
def ms(v):
    return f"{v / 1e6:.2f}" if isinstance(v, (int, float)) else "-"
print(d["verdict"], (ph.get("decided_by") or "-").replace(" ", ""), sys.argv[2],
      ms((jobs.get("wal") or {}).get("p99_ns")), ms((jobs.get("backend") or {}).get("p99_ns")), eng.get("rollovers", "-"))
PY
}

has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
for pt in $POINTS; do
  name=${pt%%=*}; spec=${pt#*=}
  P="$OUT/$name"; mkdir -p "$P"
  mount_lab "$spec" "$P/labfs.stats.$(date +%s)" "" || { umount_lab; continue; }
  bench_log "fast_lab: point $name ($spec) on $MNT"
  run=1
  while [ $run -le "$RUNS" ]; do
    if has profiles; then
      # alternate which goes first
      order="heavy faithful"; [ $((run % 2)) -eq 0 ] && order="faithful heavy"
      for k in $order; do
        s=$HS; [ $k = faithful ] && s=$FS
        la=$(loadavg); mkdir -p "$MNT/p"
        r=$(profile $k "$s" "$MNT/p" "$P/run$run-$k") || r="error"
        rm -rf "$MNT/p"
        printf '%s\t%s\tprofile-%s\t%s\t%s\n' "$name" "$run" "$k" "$la" "$r" >> "$ROWS"
        bench_log "fast_lab: $name run $run profile $k: $r (load $la)"
      done
    fi
    if has checks; then
      order="two-phase faithful"; [ $((run % 2)) -eq 0 ] && order="faithful two-phase"
      for k in $order; do
        la=$(loadavg); mkdir -p "$MNT/c"
        r=$(check $k "$MNT/c" "$P/run$run-check-$k")
        rm -rf "$MNT/c"
        printf '%s\t%s\tcheck-%s\t%s\t%s\n' "$name" "$run" "$k" "$la" "$r" >> "$ROWS"
        bench_log "fast_lab: $name run $run check $k: $r (load $la)"
      done
    fi
    run=$((run + 1))
  done
  umount_lab
done
$PY "$BENCH_DIR/fast_table.py" lab "$ROWS"
