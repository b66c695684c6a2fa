#!/bin/sh
# SPDX-License-Identifier: MIT
# etcd_compare.sh — real etcd beside etcd-fio's profile beside the classic fio job, on one filesystem.
# Runs, one after another in DIR: (1) a fresh real etcd (loopback ports) under `etcdctl check perf --load=L`
# for SECONDS, reading the deltas of its WAL-fsync and backend-commit histograms from /metrics; (2) the
# profile `etcd-fio job --load L` through fio for SECONDS; (3) the classic job (sync, fdatasync=1, bs=2300,
# size=22m, capped at SECONDS). Every p99 is computed by buckets.py from the same 1 ms x 2^k buckets.
# Usage: etcd_compare.sh DIR LOAD SECONDS OUTDIR   (BUILD=build dir). Writes OUTDIR/result.env, prints a table.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
[ $# -eq 4 ] || { echo "usage: etcd_compare.sh DIR LOAD SECONDS OUTDIR" >&2; exit 2; }
DIR=$1; LOAD=$2; SECS=$3; OUT=$4
mkdir -p "$OUT" "$DIR" || exit 2
OUT=$(cd "$OUT" && pwd); DIR=$(cd "$DIR" && pwd)
command -v etcd >/dev/null && command -v etcdctl >/dev/null || { echo "etcd_compare: etcd/etcdctl not installed (sh mk/deps.sh bench)" >&2; exit 2; }

work=$(mktemp -d "$DIR/cmp.XXXXXX") || exit 2
ETCD_PID=""
cleanup() { etcd_stop; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
RES="$OUT/result.env"
: > "$RES"
put() { echo "$1=$2" >> "$RES"; }

# ---- 1. real etcd ------------------------------------------------------------------------------------
ETCD_VER=$(etcd --version 2>/dev/null | sed -n 's/^etcd Version: //p')
put etcd_version "$ETCD_VER"
if etcd_start "$work/etcd-data" "$OUT/etcd.log"; then
  bench_scrape "$ETCD_EP/metrics" "$OUT/metrics.before"
  # check perf always runs 60 s; the histograms' deltas over the first SECONDS are what we compare.
  timeout -s INT "$SECS" etcdctl --endpoints="$ETCD_EP" check perf --load="$LOAD" > "$OUT/checkperf.out" 2>&1
  bench_scrape "$ETCD_EP/metrics" "$OUT/metrics.after"
  etcd_stop
  rm -rf "$work/etcd-data"
  set -- $($BUCKETS prom "$OUT/metrics.before" "$OUT/metrics.after" etcd_disk_wal_fsync_duration_seconds --count)
  put etcd_wal_p99 "${1:-nan}"; put etcd_wal_n "${2:-0}"
  set -- $($BUCKETS prom "$OUT/metrics.before" "$OUT/metrics.after" etcd_disk_backend_commit_duration_seconds --count)
  put etcd_be_p99 "${1:-nan}"; put etcd_be_n "${2:-0}"
else
  put etcd_wal_p99 nan; put etcd_be_p99 nan
fi

# ---- 2. etcd-fio's profile through fio --------------------------------------------------------------
eng_ok=0
if [ -x "$ETCD_FIO" ] && [ -f "$ENGINE_SO" ] && \
   mkdir -p "$work/engine" && \
   "$ETCD_FIO" job --load "$LOAD" --dir "$work/engine" --runtime "$SECS" --engine "$ENGINE_SO" \
     > "$OUT/engine.fio.orig" 2> "$OUT/engine-job.err"; then
  # the engine's stats files (exact per-syscall times) go beside the results: one per job, after its mode
  sed -e "s|^etcd_mode=wal\$|&\\
etcd_stats_file=$OUT/engine-wal.stats.json|" \
      -e "s|^etcd_mode=backend\$|&\\
etcd_stats_file=$OUT/engine-backend.stats.json|" "$OUT/engine.fio.orig" > "$OUT/engine.fio"
  if "$FIO" --output-format=json+ --output="$OUT/engine.json" "$OUT/engine.fio" > "$OUT/engine.fio.log" 2>&1; then
    eng_ok=1
  else
    bench_log "fio on the profile failed; see $OUT/engine.fio.log"
  fi
else
  bench_log "etcd-fio job not available ($(head -c 200 "$OUT/engine-job.err" 2>/dev/null)); engine columns n/a"
fi
if [ $eng_ok = 1 ]; then
  # The engine's own stats (the exact syscall times) are the primary numbers; fio's view of the same
  # DATASYNC io_u (json+ sync bins) is kept beside them as a cross-check.
  set -- $($BUCKETS engine "$OUT/engine-wal.stats.json" --key fdatasync --count)
  put eng_wal_p99 "${1:-nan}"; put eng_wal_n "${2:-0}"
  set -- $($BUCKETS fio "$OUT/engine.json" --mode wal --count)
  put eng_wal_fio_p99 "${1:-nan}"
  set -- $($BUCKETS engine "$OUT/engine-backend.stats.json" --key commit --count)
  put eng_be_p99 "${1:-nan}"; put eng_be_n "${2:-0}"
  put eng_verdict "$(bench_verdict "$OUT/engine.json")"
else
  put eng_wal_p99 nan; put eng_be_p99 nan; put eng_wal_fio_p99 nan; put eng_verdict n/a
fi
rm -rf "$work/engine"

# ---- 3. the classic fio job -------------------------------------------------------------------------
mkdir -p "$work/classic"
if "$FIO" --name=classic --directory="$work/classic" --ioengine=sync --rw=write --fdatasync=1 --bs=2300 \
      --size=22m --runtime="$SECS" --output-format=json+ --output="$OUT/classic.json" > "$OUT/classic.log" 2>&1; then
  set -- $($BUCKETS fio "$OUT/classic.json" --job classic --count)
  put classic_p99 "${1:-nan}"; put classic_n "${2:-0}"
  put classic_verdict "$(bench_verdict "$OUT/classic.json")"
else
  bench_log "classic fio job failed; see $OUT/classic.log"
  put classic_p99 nan; put classic_verdict ERR
fi
rm -rf "$work/classic"

# ---- verdicts by the same buckets, and the table ------------------------------------------------------
. "$RES"
both() { # WAL_WORD BACKEND_WORD -> the pair's verdict (a disk must pass both limits)
  if [ "$1" = PASS ] && [ "$2" = PASS ]; then echo PASS
  elif [ "$1" = FAIL ] || [ "$2" = FAIL ]; then echo FAIL
  else echo "-"; fi
}
ew=$(bench_limit "$etcd_wal_p99" 10); eb=$(bench_limit "$etcd_be_p99" 25)
ow=$(bench_limit "$eng_wal_p99" 10); ob=$(bench_limit "$eng_be_p99" 25)
# the same rule on the same buckets for every column; etcd-fio verdict (fio's finer percentiles) is kept apart
put etcd_verdict "$(both "$ew" "$eb")"
put eng_bverdict "$(both "$ow" "$ob")"
put classic_bverdict "$(bench_limit "$classic_p99" 10)"
. "$RES"
printf '%-34s %12s %8s %s\n' "p99 (ms, 1ms x 2^k buckets)" value samples verdict
printf '%-34s %12s %8s %s\n' "etcd WAL fsync (etcd $ETCD_VER)" "$etcd_wal_p99" "${etcd_wal_n:-0}" "$ew (<10 ms)"
printf '%-34s %12s %8s %s\n' "engine WAL fdatasync" "$eng_wal_p99" "${eng_wal_n:-0}" "$(bench_limit "$eng_wal_p99" 10)"
printf '%-34s %12s %8s %s\n' "  (fio's view of the same syncs)" "$eng_wal_fio_p99" "" ""
printf '%-34s %12s %8s %s\n' "classic fio fdatasync" "$classic_p99" "${classic_n:-0}" "$(bench_limit "$classic_p99" 10)"
printf '%-34s %12s %8s %s\n' "etcd backend commit" "$etcd_be_p99" "${etcd_be_n:-0}" "$eb (<25 ms)"
printf '%-34s %12s %8s %s\n' "engine backend commit" "$eng_be_p99" "${eng_be_n:-0}" "$(bench_limit "$eng_be_p99" 25)"
printf 'verdicts by the buckets (WAL p99 < 10 ms and backend p99 < 25 ms): etcd %s, engine %s, classic %s\n' \
  "$etcd_verdict" "$eng_bverdict" "$classic_bverdict"
printf 'etcd-fio verdict (fio'"'"'s own percentiles): profile %s, classic job %s\n' "$eng_verdict" "$classic_verdict"
