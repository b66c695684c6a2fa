#!/bin/sh
# SPDX-License-Identifier: MIT
# fast_check.sh — issue 15's normal-disk target: `etcd-fio check DIR` (two phases) against the classic job
# (fio --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300) in the same directory, alternating,
# RUNS pairs (the machine is shared: each row carries the 1-min load average; which goes first alternates).
# Per pair: both wall times (this script's clock, fio's start and exit included), their ratio, check's
# verdict, the phase that decided, its rollovers and worst rollover. FAST_FAITHFUL=1 adds one
# `check --faithful` per pair for reference. Both run at nice FAST_NICE (-10): the same CPU priority for
# both on a shared machine. Rows to OUTDIR/rows.tsv, table to stdout. No timing asserts.
# Usage: fast_check.sh [OUTDIR]   env: BUILD, FAST_RUNS=5, FAST_DIR (default: a mktemp dir under build/)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:-$BUILD/bench/fast_check}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RUNS=${FAST_RUNS:-5}
[ -x "$ETCD_FIO" ] || { echo "fast_check: $ETCD_FIO not built" >&2; exit 2; }
D=$(mktemp -d "${FAST_DIR:-$TOP/build}/fastcheck.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
trap 'exit 130' INT TERM
NICE="nice -n ${FAST_NICE:--10}"
now() { date +%s.%N; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }
ROWS="$OUT/rows.tsv"; : > "$ROWS"

classic() { # -> seconds
  mkdir -p "$D/classic"
  t0=$(now)
  $NICE "$FIO" --name=classic --directory="$D/classic" --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300 \
    --output-format=json --output="$1.json" > "$1.log" 2>&1
  t1=$(now)
  rm -rf "$D/classic"
  echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}
check() { # KIND OUT -> "seconds verdict decided_by rollovers worst_ms wal_p99 be_p99"
  f=""; [ "$1" = faithful ] && f=--faithful
  t0=$(now)
  $NICE "$ETCD_FIO" check --json $f "$D" > "$2.json" 2> "$2.err"
  t1=$(now)
  s=$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')
  $PY - "$2.json" "$s" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print(sys.argv[2], "error - - - - -"); sys.exit(0)
jobs = {j.get("role"): j for j in (d.get("hosts") or [{}])[0].get("jobs", [])}
det = d.get("details") or {}
eng, ph = det.get("engine") or {}, det.get("phases") or {}
def ms(v):
    return f"{v / 1e6:.2f}" if isinstance(v, (int, float)) else "-"
print(sys.argv[2], d["verdict"], (ph.get("decided_by") or "-").replace(" ", ""), eng.get("rollovers", "-"),
      ms(eng.get("rollover_worst_ns")), ms((jobs.get("wal") or {}).get("p99_ns")),
      ms((jobs.get("backend") or {}).get("p99_ns")))
PY
}

bench_log "fast_check: $RUNS pairs in $D ($(findmnt -no SOURCE,FSTYPE -T "$D" | tr -s ' '))"
i=1
while [ $i -le "$RUNS" ]; do
  order="classic check"; [ $((i % 2)) -eq 0 ] && order="check classic"
  for k in $order; do
    la=$(loadavg)
    if [ $k = classic ]; then
      r=$(classic "$OUT/run$i-classic")
    else
      r=$(check two-phase "$OUT/run$i-check")
    fi
    printf '%s\t%s\t%s\t%s\n' "$i" "$k" "$la" "$r" >> "$ROWS"
    bench_log "fast_check: pair $i $k: $r (load $la)"
  done
  if [ "${FAST_FAITHFUL:-0}" = 1 ]; then
    la=$(loadavg); r=$(check faithful "$OUT/run$i-faithful")
    printf '%s\t%s\t%s\t%s\n' "$i" faithful "$la" "$r" >> "$ROWS"
    bench_log "fast_check: pair $i faithful: $r (load $la)"
  fi
  i=$((i + 1))
done
$PY "$BENCH_DIR/fast_table.py" normal "$ROWS"
