#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh — `make fuzz`: runs each built libFuzzer harness for N seconds on a corpus seeded from
# tests/fixtures/ (copied into the build dir), plus tests/regress/<harness>/ (the
# crashes found so far, loaded first), and prints one line per harness with its exec count.
# Usage: sh fuzz/run.sh FUZZ_DIR SECONDS MAX_LEN HARNESS...   (from the top of the tree)
# FUZZ_SEED=N in the environment fixes libFuzzer's -seed (tests/fuzz/it_fuzz.sh: a repeatable run); unset, each
# run draws its own (printed in the log as "INFO: Seed:").
# Exit 0 when no harness found anything; 1 otherwise (the crash input's path is printed: copy it into
# tests/regress/<harness>/ so tests/fuzz/test_fuzz_regress.c replays it from then on).
set -u
DIR=$1 SECS=$2 MAXLEN=$3
shift 3
seeds() {
  case $1 in
    fuzz_normal)   find tests/fixtures -type f -name '*.txt' ;;
    fuzz_json)     find tests/fixtures -type f -name '*.json' ;;
    fuzz_etcdperf) find tests/fixtures -type f -name '*.log' ;;
    fuzz_prom)     find tests/fixtures/etcd-metrics -type f \( -name '*.prom' -o -name '*.txt' \) ;;
    fuzz_auto)     find tests/fixtures -type f \
                     \( -name '*.txt' -o -name '*.json' -o -name '*.log' -o -name '*.prom' \) ;;
    fuzz_waldec)   find tests/fixtures -type f -name '*.wal' ;;
  esac 2>/dev/null
}

rc=0
summary=""
for h in "$@"; do
  bin="$DIR/$h"
  corpus="$DIR/corpus/$h"
  regress="tests/regress/$h"
  mkdir -p "$corpus" "$DIR/artifacts" "$DIR/logs"
  for f in $(seeds "$h"); do
    b=$(basename "$f")
    # Preallocated WAL segments are mostly zeros past the records: seed with their heads only.
    if [ "$h" = fuzz_waldec ]; then
      head -c 4096 "$f" > "$corpus/seed-4k-$b"
      head -c "$MAXLEN" "$f" > "$corpus/seed-$b"
    else
      cp "$f" "$corpus/seed-$b"
    fi
  done
  dirs="$corpus"
  [ -d "$regress" ] && dirs="$corpus $regress"
  dict=""
  case $h in fuzz_waldec) ;; *) dict="-dict=fuzz/fio.dict" ;; esac
  log="$DIR/logs/$h.log"
  # shellcheck disable=SC2086
  "$bin" -max_total_time="$SECS" -max_len="$MAXLEN" -timeout=10 -rss_limit_mb=2048 ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
    -print_final_stats=1 -artifact_prefix="$DIR/artifacts/$h-" $dict $dirs > "$log" 2>&1
  st=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
  ncorp=$(find "$corpus" -type f | wc -l)
  if [ "$st" -ne 0 ]; then
    rc=1
    art=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
    echo "fuzz: $h FAILED (exit $st) — input: ${art:-see $log}; log: $log"
    grep -E 'ERROR|FZ_ASSERT|SUMMARY|runtime error' "$log" | head -n 5
    summary="$summary
$h: FAILED after ${execs:-?} execs"
  else
    summary="$summary
$h: ${execs:-?} execs in ${SECS} s, cov ${cov:-?}, corpus $ncorp"
  fi
done
echo "fuzz summary:$summary"
exit $rc
