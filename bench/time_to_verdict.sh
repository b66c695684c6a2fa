#!/bin/sh
# SPDX-License-Identifier: MIT
# time_to_verdict.sh — how many fdatasyncs `etcd-fio check` needs for its verdict (early stop on the p99
# confidence bound) against the classic fio test's 10,029 (22 MiB / 2300 B), on the disk of this tree and,
# where the machine allows (root, loop device, cgroup v1 blkio), on a loop-mounted ext4 throttled to
# 60 write IOPS; with both verdicts. Also renders check's SVG of each run to PNG with headless Chromium.
# Numbers go to stdout (and $RESULTS records under `make bench`); nothing here asserts a timing.
# Usage: time_to_verdict.sh [ARTIFACT_DIR]   (env: BUILD; EXAMPLE_DIR=examples copies the normal-disk
#        SVG/PNG there as check-example.svg/.png; THROTTLED_CLASSIC_S: seconds of the classic job on the
#        throttled disk, default 30 — the full 10,029 syncs would take minutes there, so it is projected;
#        TTV_WAL_ONLY=1 also runs bench/wal_only.sh: `check --wal-only` beside the classic job, seconds to
#        the verdict on this disk, the throttled one and the lab's 0.5/2/4 ms devices)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
RESULTS=${RESULTS:-/dev/null}
ART=${1:-$BUILD/bench/time_to_verdict}
mkdir -p "$ART" && ART=$(cd "$ART" && pwd)
CLASSIC_SYNCS=10029
TCS=${THROTTLED_CLASSIC_S:-30}
[ -x "$ETCD_FIO" ] || { bench_log "time_to_verdict: $ETCD_FIO not built"; exit 2; }

work=$(mktemp -d "$TOP/build/ttv.XXXXXX") || exit 2
cg="/sys/fs/cgroup/blkio/etcd-fio-ttv.$$"
cleanup() {
  bench_unthrottle "$work" "$cg"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

render() { # SVG PNG: headless Chromium, a fresh profile each time, no network chatter
  command -v chromium >/dev/null || { bench_log "chromium not installed: no PNG for $1"; return 0; }
  ud=$(mktemp -d "$work/chromium.XXXXXX")
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$ud" \
    --window-size=900,560 --screenshot="$2" "file://$1" >/dev/null 2>&1
  rm -rf "$ud"
  [ -s "$2" ] && bench_log "rendered $2" || bench_log "chromium did not render $1"
}

# summary LABEL JSON -> one line of numbers from check's --json
summary() {
  $PY - "$1" "$2" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))  # doc/etcd-fio.schema.json
jobs = {j["role"]: j for h in d["hosts"] for j in h["jobs"]}
w, b = jobs.get("wal") or {}, jobs.get("backend") or {}
run = d["details"].get("run") or {}
how = run.get("end", "?") + ("" if d["basis"] != "undecided" else " (bound undecided)")
print(f"{label}\tcheck\t{d['verdict']}\t{w.get('samples') or 0}\t{b.get('samples') or 0}\t{run.get('seconds', 0):.1f}\t"
      f"{(w.get('p99_ns') or 0) / 1e6:.2f}\t{how}")
c = d["details"].get("classic")
if c and c.get("ok"):
    print(f"{label}\tclassic\t{c['verdict']}\t{c['syncs']}\t0\t{c['duration_s']:.1f}\t{c['p99_ns'] / 1e6:.2f}\tfull 22 MiB")
PY
}

rows="$work/rows.tsv"; : > "$rows"

# 1. the disk of this tree
d1="$work/normal"; mkdir -p "$d1"
bench_log "time_to_verdict: check --classic on $(findmnt -no SOURCE,FSTYPE -T "$d1" | tr -s ' ')"
"$ETCD_FIO" check --json --classic --svg "$ART/normal.svg" "$d1" > "$ART/normal.json" 2> "$ART/normal.err"
echo "normal disk: check exit $?" >&2
summary "normal disk" "$ART/normal.json" >> "$rows" || bench_log "normal run gave no JSON; see $ART/normal.err"
render "$ART/normal.svg" "$ART/normal.png"
if [ -n "${EXAMPLE_DIR:-}" ] && [ -s "$ART/normal.svg" ]; then
  cp "$ART/normal.svg" "$EXAMPLE_DIR/check-example.svg"
  [ -s "$ART/normal.png" ] && cp "$ART/normal.png" "$EXAMPLE_DIR/check-example.png"
fi

# 2. a loop-mounted ext4 throttled to 60 write IOPS (etcd-fio and fio inside the cgroup)
bench_throttle "$work" "$cg"
why=$BENCH_WHY; mnt=$THROTTLED_MNT
if [ -z "$why" ]; then
  incg() { bench_incg "$cg" "$@"; }
  incg "$ETCD_FIO" check --json --force --svg "$ART/throttled.svg" "$mnt" > "$ART/throttled.json" 2> "$ART/throttled.err"
  echo "throttled disk: check exit $?" >&2
  summary "throttled 60 IOPS" "$ART/throttled.json" >> "$rows"
  render "$ART/throttled.svg" "$ART/throttled.png"
  # the classic job, for TCS seconds only: its verdict and its rate, projected to the full 10,029 syncs
  cdir="$mnt/classic"; mkdir -p "$cdir"
  printf '[classic]\nioengine=sync\nfdatasync=1\nrw=write\nbs=2300\nsize=22m\nruntime=%s\ndirectory=%s\n' \
    "$TCS" "$cdir" > "$work/classic.fio"
  incg "$FIO" --output-format=json+ --output "$ART/throttled-classic.json" "$work/classic.fio" >/dev/null 2>&1
  rm -rf "$cdir"
  cv=$(bench_verdict "$ART/throttled-classic.json")
  $PY - "$ART/throttled-classic.json" "$cv" "$TCS" "$CLASSIC_SYNCS" >> "$rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
lat = j["sync"]["lat_ns"]
n = lat["N"]; secs = j["elapsed"] or int(sys.argv[3])
p99 = lat["percentile"].get("99.000000", 0) / 1e6
full = int(sys.argv[4]) / (n / secs) if n else float("nan")
print(f"throttled 60 IOPS\tclassic ({secs} s of it)\t{sys.argv[2]}\t{n}\t0\t{secs:.1f}\t{p99:.2f}\t"
      f"full {sys.argv[4]} syncs would take ~{full:.0f} s")
PY
else
  bench_log "time_to_verdict: throttled disk skipped: $why"
  printf 'throttled 60 IOPS\tskipped\t-\t-\t-\t-\t-\t%s\n' "$why" >> "$rows"
fi

# table
printf '%-18s %-24s %-8s %13s %15s %9s %10s  %s\n' disk run verdict "WAL fsyncs" "backend commits" "seconds" "WAL p99" note
while IFS="$(printf '\t')" read -r disk run verdict n nb secs p99 note; do
  printf '%-18s %-24s %-8s %13s %15s %9s %10s  %s\n' "$disk" "$run" "$verdict" "$n" "$nb" "$secs" "${p99} ms" "$note"
  bench_record time_to_verdict "$disk: $run" "$n" "fdatasyncs" "verdict $verdict, $nb backend commits, $secs s, p99 $p99 ms; $note"
done < "$rows"
echo "classic = fio ioengine=sync fdatasync=1 bs=2300 size=22m: $CLASSIC_SYNCS fdatasyncs when run to the end."
echo "artifacts (json, svg, png): $ART"
if [ "${TTV_WAL_ONLY:-0}" = 1 ]; then
  sh "$BENCH_DIR/wal_only.sh" "$ART/wal_only"
fi
