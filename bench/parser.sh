#!/bin/sh
# SPDX-License-Identifier: MIT
# parser.sh — how fast `etcd-fio verdict` reads a fleet's worth of fio output, beside jq and python3 reading
# the same p99 values. Inputs are made here by the real fio: one run of JOBS (default 1000) small jobs
# (threads sharing one file on tmpfs, bs=2300 fdatasync=1) in json+, json and normal format. Two big inputs
# are built from those real outputs (BIG_JOBS=0 skips them): a 20,000-job json document (the 1000-job
# json's jobs 20 times over, renamed) and a json+ whose 1000 jobs carry 3,000 bins each (3M bins), to show
# that memory stays bounded by what is kept per job, not by the file.
# Timing by hyperfine (warm-up runs, then the mean); peak memory (max RSS) by /usr/bin/time.
# Usage: parser.sh OUTDIR   (env: BUILD, RESULTS, BENCH_QUICK=1)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: parser.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RESULTS=${RESULTS:-$OUT/results.tsv}
JOBS=${PARSER_JOBS:-1000}; RUNS=${PARSER_RUNS:-10}
[ "${BENCH_QUICK:-0}" = 1 ] && RUNS=${PARSER_RUNS:-3}

T=$(mktemp -d /dev/shm/etcdfio-parser.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
for fmt in json+ normal json; do
  f="$OUT/fleet-$JOBS.$(case $fmt in normal) echo txt ;; json) echo plain.json ;; *) echo json ;; esac)"
  if ! "$FIO" --name=fleet --filename="$T/f" --ioengine=sync --rw=write --bs=2300 --fdatasync=1 --size=2300k \
        --numjobs="$JOBS" --thread --output-format=$fmt --output="$f" > "$OUT/fleet-gen.log" 2>&1; then
    bench_log "parser: fio could not make the $JOBS-job input; see $OUT/fleet-gen.log"
    bench_record parser "input generation" ERR "" "fio failed"
    exit 0
  fi
  rm -f "$T/f"
done
J="$OUT/fleet-$JOBS.json"; N="$OUT/fleet-$JOBS.txt"
JQ_EXPR='.jobs[].sync.lat_ns.percentile["99.000000"]'
PY_PROG='import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]: print(j["sync"]["lat_ns"]["percentile"]["99.000000"])'

# The verdict must actually judge these inputs (0 PASS / 1 FAIL), or timing it means nothing.
verdict_ok() {
  [ -x "$ETCD_FIO" ] || return 1
  "$ETCD_FIO" verdict "$1" > "$OUT/verdict-$(basename "$1").out" 2>&1
  case $? in 0|1) return 0 ;; *) return 1 ;; esac
}

hf_times() { # hyperfine export -> "wall_mean_s cpu_mean_s" (user + system)
  $PY -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["mean"], r["user"] + r["system"])' "$1"
}
# NAME INPUT COMMAND... -> records MB/s and peak RSS. MB/s is the input size over the CPU time (user +
# system) the command took: on this shared 2-core machine wall time swings with other work (a load of
# 100 was seen during a run), CPU time much less; the wall time is in the note. A command that does not
# exit as it should (verdict: 0 or 1; jq, python3: 0) is recorded as an error, not timed.
bench_cmd() {
  name=$1; input=$2; shift 2
  /usr/bin/time -f %M -o "$OUT/rss-$name.txt" "$@" > /dev/null 2> "$OUT/err-$name.txt"
  rc=$?
  case "$name:$rc" in verdict_*:0|verdict_*:1|*:0) ;; *)
    bench_record parser "$name MB/s" ERR "" "exit $rc: $(head -c 160 "$OUT/err-$name.txt" | tr '\n\t' '  ')"; return 1 ;; esac
  # hyperfine -N splits its command like a shell: quote every argument (the python program has spaces and
  # quotes; an unquoted "$*" once timed `python3 -c import` failing at once instead of reading the JSON)
  cmd=""
  for a in "$@"; do cmd="$cmd '$(printf %s "$a" | sed "s/'/'\\\\''/g")'"; done
  hyperfine -N -i --warmup 2 --runs "$RUNS" --export-json "$OUT/hf-$name.json" -- "$cmd" > "$OUT/hf-$name.log" 2>&1 || {
    bench_record parser "$name" ERR "" "hyperfine failed (see $OUT/hf-$name.log)"; return 1; }
  bad=$($PY -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
ok={0,1} if sys.argv[2].startswith("verdict_") else {0}
print(",".join(str(c) for c in r.get("exit_codes", []) if c not in ok))' "$OUT/hf-$name.json" "$name")
  [ -z "$bad" ] || { bench_record parser "$name MB/s" ERR "" "timed runs exited $bad (see $OUT/hf-$name.log)"; return 1; }
  set -- $(hf_times "$OUT/hf-$name.json")
  wall=$1; cpu=$2
  rss=$(tail -n1 "$OUT/rss-$name.txt")
  size=$(stat -c %s "$input")
  eval "t_$name=$cpu"
  $PY -c 'import sys
w,c,size,rss=float(sys.argv[1]),float(sys.argv[2]),int(sys.argv[3]),int(sys.argv[4])*1024
print("%.1f\tCPU %.3f s; wall %.3f s (%.1f MB/s); peak RSS %.1f MiB = %.2fx input" % (size/c/1e6, c, w, size/w/1e6, rss/2**20, rss/size))' \
    "$wall" "$cpu" "$size" "$rss" > "$OUT/row-$name.txt"
  bench_record parser "$name MB/s" "$(cut -f1 "$OUT/row-$name.txt")" "${TARGET:-}" "$(cut -f2 "$OUT/row-$name.txt")"
}

command -v hyperfine >/dev/null || { bench_record parser "timing" n/a "" "hyperfine not installed (sh mk/deps.sh bench)"; exit 0; }
jsz=$(stat -c %s "$J"); nsz=$(stat -c %s "$N")
bench_record parser "inputs" "$JOBS jobs" "" "json+ $(($jsz / 1024)) KiB, normal $(($nsz / 1024)) KiB, from fio $($FIO --version)"

if verdict_ok "$J"; then TARGET="<= jq time" bench_cmd verdict_json "$J" "$ETCD_FIO" verdict "$J"
else bench_record parser "verdict_json MB/s" n/a "" "etcd-fio verdict cannot judge it: $(head -c 160 "$OUT/verdict-$(basename "$J").out" | tr '\n\t' '  ')"; fi
bench_cmd jq_json "$J" jq "$JQ_EXPR" "$J"
bench_cmd python3_json "$J" $PY -c "$PY_PROG" "$J"
if verdict_ok "$N"; then TARGET=">= 200" bench_cmd verdict_normal "$N" "$ETCD_FIO" verdict "$N"
else bench_record parser "verdict_normal MB/s" n/a "" "etcd-fio verdict cannot judge it: $(head -c 160 "$OUT/verdict-$(basename "$N").out" | tr '\n\t' '  ')"; fi
# a floor for text: awk only finding the p99 lines, no parsing at all
bench_cmd awk_normal "$N" awk '/99\.00th/' "$N"

# The big inputs (built from the real outputs above; fio itself would need 20,000 threads for the first).
if [ "${BIG_JOBS:-20000}" != 0 ] && [ "${BENCH_QUICK:-0}" != 1 ]; then
  B20="$OUT/fleet-20k.json"; B3M="$OUT/fleet-3Mbins.json"
  $PY - "$OUT/fleet-$JOBS.plain.json" "$J" "$B20" "$B3M" "${BIG_JOBS:-20000}" <<'PY'
import json, sys
plain, plus, out20, out3m, njobs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
d = json.load(open(plain))
base = d["jobs"]
d["jobs"] = [dict(base[i % len(base)], jobname="fleet-%d" % i) for i in range(njobs)]
json.dump(d, open(out20, "w"), indent=2, separators=(",", " : "))
d = json.load(open(plus))
for j in d["jobs"]:
    lat = j["sync"]["lat_ns"]
    old = sorted((int(k), v) for k, v in lat["bins"].items())
    # 3,000 bins: the real ones, then more above the real maximum (counts of 1), keys ascending like fio's
    top = old[-1][0] if old else 1000
    lat["bins"] = {str(k): v for k, v in old}
    for i in range(3000 - len(old)):
        lat["bins"][str(top + 1 + i)] = 1
json.dump(d, open(out3m, "w"), indent=2, separators=(",", " : "))
PY
  RUNS_SAVE=$RUNS; RUNS=3
  for big in 20k:"$B20" 3Mbins:"$B3M"; do
    tag=${big%%:*}; f=${big#*:}
    verdict_ok "$f" && bench_cmd "verdict_$tag" "$f" "$ETCD_FIO" verdict "$f"
    bench_cmd "jq_$tag" "$f" jq "$JQ_EXPR" "$f"
    bench_cmd "python3_$tag" "$f" $PY -c "$PY_PROG" "$f"
  done
  RUNS=$RUNS_SAVE
fi

for tag in 20k 3Mbins; do
  eval "v=\${t_verdict_$tag:-}; p=\${t_python3_$tag:-}"
  [ -n "$v" ] && [ -n "$p" ] && bench_record parser "speed verdict vs python3 ($tag)" "x$($PY -c "print('%.2f' % ($p / $v))")" "" "CPU time"
done
if [ -n "${t_verdict_json:-}" ] && [ -n "${t_jq_json:-}" ]; then
  r=$($PY -c "print('%.2f' % ($t_jq_json / $t_verdict_json))")
  bench_record parser "speed verdict vs jq (json+)" "x$r" ">= x1.00" "$($PY -c "print('met' if $r >= 1 else 'MISSED')")"
fi
if [ -n "${t_verdict_json:-}" ] && [ -n "${t_python3_json:-}" ]; then
  r=$($PY -c "print('%.2f' % ($t_python3_json / $t_verdict_json))")
  bench_record parser "speed verdict vs python3 (json+)" "x$r" ">= x2.00" "$($PY -c "print('met' if $r >= 2 else 'MISSED')")"
fi
# Where the verdict's time goes, and a load-independent comparison with jq: callgrind's instruction counts
# are exact, unlike timings on a busy machine (one run each, not in BENCH_QUICK).
cg_total() { sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$1"; }
if [ "${BENCH_QUICK:-0}" != 1 ] && command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  for in_ in "$J" "$N"; do
    verdict_ok "$in_" || continue
    kind=$(case "$in_" in *.json) echo json ;; *) echo normal ;; esac)
    cg="$OUT/callgrind-verdict-$kind.out"
    valgrind --tool=callgrind --callgrind-out-file="$cg" "$ETCD_FIO" verdict "$in_" >/dev/null 2>"$cg.log"
    [ -s "$cg" ] || continue
    bench_record parser "verdict $kind profile" "$(( $(cg_total "$cg") / $(stat -c %s "$in_") )) instr/byte" "" \
      "$($PY "$BENCH_DIR/summarize.py" cgtop "$cg" 5)"
  done
  cgj="$OUT/callgrind-jq.out"
  valgrind --tool=callgrind --callgrind-out-file="$cgj" jq "$JQ_EXPR" "$J" >/dev/null 2>"$cgj.log"
  if [ -s "$cgj" ] && [ -s "$OUT/callgrind-verdict-json.out" ]; then
    a=$(cg_total "$OUT/callgrind-verdict-json.out"); b=$(cg_total "$cgj")
    bench_record parser "instructions verdict / jq (json+)" "$($PY -c "print('%.2f' % ($a / $b))")" "<= 1.00" \
      "verdict $((a / 1000000))M, jq $((b / 1000000))M user-space instructions"
  fi
fi
exit 0
