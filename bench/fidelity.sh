#!/bin/sh
# SPDX-License-Identifier: MIT
# fidelity.sh — does etcd-fio see what etcd sees? The etcd_compare.sh run (real etcd under etcdctl check perf,
# the profile through fio, the classic fio job) in a matrix: loads s and m x (this tree's disk, a loop-mounted
# ext4 throttled with cgroup v1 blkio.throttle.write_iops_device), RUNS runs per cell, interleaved across the
# cells so slow drifts of a shared machine spread over all of them. Then medians, spreads and ratios.
# Usage: fidelity.sh OUTDIR   (env: BUILD, RESULTS, BENCH_QUICK=1, FIDELITY_RUNS, FIDELITY_SECONDS,
#        FIDELITY_LOADS="s m", BENCH_THROTTLE_IOPS=300, BENCH_WORK=dir on the disk to test)
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=${1:?usage: fidelity.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
RESULTS=${RESULTS:-$OUT/results.tsv}
RUNS=${FIDELITY_RUNS:-3}; SECS=${FIDELITY_SECONDS:-20}; LOADS=${FIDELITY_LOADS:-s m}
if [ "${BENCH_QUICK:-0}" = 1 ]; then RUNS=${FIDELITY_RUNS:-1}; SECS=${FIDELITY_SECONDS:-12}; fi
IOPS=${BENCH_THROTTLE_IOPS:-300}
WORK=${BENCH_WORK:-$BUILD/bench-work}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)

if ! command -v etcd >/dev/null || ! command -v etcdctl >/dev/null; then
  bench_record fidelity "matrix" n/a "" "etcd-server/etcd-client not installed (sh mk/deps.sh bench)"
  exit 0
fi

# ---- the throttled loop device (root, loop devices and cgroup v1 blkio needed; else those cells are skipped)
LOOP=""; MNT="$WORK/loopmnt"; IMG="$WORK/loop.img"; MAJMIN=""
THROTTLE=/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device
loop_down() {
  [ -n "$MAJMIN" ] && echo "$MAJMIN 0" > "$THROTTLE" 2>/dev/null
  mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
  rm -f "$IMG"; rmdir "$MNT" 2>/dev/null
  LOOP=""; MAJMIN=""
}
trap loop_down EXIT
trap 'exit 130' INT TERM
loop_up() { # sets WHY when it fails; whatever it set up is undone by loop_down
  WHY=""
  [ "$(id -u)" = 0 ] || { WHY="not root"; return 1; }
  [ -w "$THROTTLE" ] || { WHY="no cgroup v1 blkio throttle ($THROTTLE)"; return 1; }
  command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null || { WHY="no mkfs.ext4/losetup"; return 1; }
  truncate -s 2G "$IMG" && mkfs.ext4 -q -F "$IMG" || { WHY="mkfs.ext4 on $IMG failed"; return 1; }
  # direct I/O: the loop device's writes reach the disk below instead of stopping in its page cache
  LOOP=$(losetup --direct-io=on -f --show "$IMG" 2>/dev/null || losetup -f --show "$IMG") || { LOOP=""; WHY="losetup failed"; return 1; }
  mkdir -p "$MNT" && mount "$LOOP" "$MNT" || { WHY="mount $LOOP failed"; return 1; }
  MAJMIN=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
  # The rule goes on the root blkio cgroup: it then also covers the kernel threads (jbd2's journal
  # commits, loop workers), which a child cgroup would leave unthrottled. It names only our loop device.
  echo "$MAJMIN $IOPS" > "$THROTTLE" || { WHY="cannot write $THROTTLE"; return 1; }
}
cells="normal"
if [ "${FIDELITY_THROTTLED:-1}" = 1 ] && loop_up; then
  cells="normal throttled"
else
  WHY=${WHY:-FIDELITY_THROTTLED=0}
  loop_down
  bench_log "fidelity: throttled cells skipped: $WHY"
  bench_record fidelity "throttled loop ext4 cells" skipped "" "$WHY"
fi

dir_of() { [ "$1" = normal ] && echo "$WORK/disk" || echo "$MNT/work"; }
fs_of() { d=$(dir_of "$1"); mkdir -p "$d"; findmnt -no SOURCE,FSTYPE -T "$d" | tr -s " "; }
for c in $cells; do bench_log "fidelity: cell $c on $(fs_of $c)"; done
bench_record fidelity "setup" "$RUNS x ${SECS}s" "" \
  "loads $LOADS; normal = $(fs_of normal); throttled = ext4 on loop (direct-io) at $IOPS write IOPS/s"

mkdir -p "$OUT/fidelity"
i=1
while [ $i -le "$RUNS" ]; do
  for c in $cells; do
    for l in $LOADS; do
      bench_log "fidelity: run $i/$RUNS, $c disk, load $l (${SECS}s x 3)"
      sh "$BENCH_DIR/etcd_compare.sh" "$(dir_of $c)" "$l" "$SECS" "$OUT/fidelity/$c-$l/run$i" \
        > "$OUT/fidelity/$c-$l.run$i.txt" 2>&1 || bench_log "fidelity: etcd_compare failed for $c-$l run $i"
      cat "$OUT/fidelity/$c-$l.run$i.txt" >&2
    done
  done
  i=$((i + 1))
done
for c in $cells; do rm -rf "$(dir_of $c)"; done
cellsdirs=""
for c in $cells; do for l in $LOADS; do cellsdirs="$cellsdirs $OUT/fidelity/$c-$l"; done; done
# shellcheck disable=SC2086
$PY "$BENCH_DIR/summarize.py" fidelity "$RESULTS" "$OUT/fidelity.md" $cellsdirs
exit 0
