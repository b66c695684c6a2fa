#!/bin/sh
# SPDX-License-Identifier: MIT
# it_engine_wal.sh — the WAL as etcd writes it, with the real fio: a 20 MiB, bs=2300, fdatasync=1 run with
# 4,000,000-byte segments leaves >= 5 etcd-named segments of >= 4,000,000 bytes whose frames and CRC chain
# decode (build/tests/waldump); strace -f shows one fallocate per segment (+ the spare made ready ahead),
# one rename and one directory fsync per rollover (+ Create's directory fsync), and one fdatasync per
# fio sync plus Create's, one per rollover and Close's; fio's JSON sync mean is the fdatasync time, not ~0.
. "$(dirname "$0")/../lib/lib.sh"
WALDUMP=$B/tests/waldump
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed (make deps)"; exit 77; }
need_built "$ENGINE" "$WALDUMP"
STRACE=""
if command -v strace >/dev/null 2>&1 && strace -f -qq -o /dev/null true 2>/dev/null; then
  STRACE="strace -ff -qq -e trace=fallocate,ftruncate,rename,renameat,renameat2,fsync,fdatasync,openat,mkdir -e signal=none -o"
else
  echo "SKIP: strace unavailable or not permitted: the syscall counts were not checked"
fi
WORK=$(mktemp -d /var/tmp/it-engine-wal.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

D=$WORK/dir
mkdir -p "$D"
SEG=4000000
if [ -n "$STRACE" ]; then
  # shellcheck disable=SC2086
  $STRACE "$WORK/trace" "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$D" --rw=write --bs=2300 \
    --fdatasync=1 --size=20m --etcd_segment_bytes=$SEG --etcd_keep_files=1 \
    --etcd_stats_file="$WORK/stats.json" --output-format=json+ --output="$WORK/fio.json" > "$WORK/out" 2>&1
else
  "$FIO" --name=wal --ioengine=external:"$ENGINE" --directory="$D" --rw=write --bs=2300 \
    --fdatasync=1 --size=20m --etcd_segment_bytes=$SEG --etcd_keep_files=1 \
    --etcd_stats_file="$WORK/stats.json" --output-format=json+ --output="$WORK/fio.json" > "$WORK/out" 2>&1
fi
rc=$?
[ $rc -eq 0 ] || { fail "fio exited $rc"; sed 's/^/    | /' "$WORK/out" | head -20; exit 1; }

# The kept private directory holds only etcd-named segments; fio made no file of its own.
KEPT=$(ls -d "$D"/etcd-fio-kept.*.wal.0 2>/dev/null | head -n 1)
[ -n "$KEPT" ] || { fail "no kept directory etcd-fio-kept.<pid>.wal.0 in $D: $(ls -A "$D")"; exit 1; }
[ "$(ls -A "$D" | wc -l)" -eq 1 ] || fail "DIR holds more than the kept directory: $(ls -A "$D")"
nseg=0
for f in "$KEPT"/*; do
  n=$(basename "$f")
  echo "$n" | grep -qE '^[0-9a-f]{16}-[0-9a-f]{16}\.wal$' || { fail "unexpected file $n"; continue; }
  sz=$(stat -c %s "$f")
  [ "$sz" -ge $SEG ] || fail "$n is $sz bytes, < $SEG"
  nseg=$((nseg + 1))
done
[ $nseg -ge 5 ] || fail "only $nseg segments (want >= 5)"
[ -e "$KEPT/0000000000000000-0000000000000000.wal" ] || fail "no first segment 0000000000000000-0000000000000000.wal"

# Every frame, pad, type and the CRC chain across all segments; names follow sequence and raft index.
"$WALDUMP" "$KEPT" > "$WORK/dump" 2>&1 || { fail "waldump rejected the run:"; tail -n 3 "$WORK/dump"; }
summary=$(tail -n 1 "$WORK/dump")
echo "waldump: $summary"
echo "$summary" | grep -q "^OK segments=$nseg " || fail "waldump: $summary"
echo "$summary" | grep -q " index_gaps=0 " || fail "entries not contiguous: $summary"
entries=$(echo "$summary" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
crcs=$(echo "$summary" | sed -n 's/.* crcs=\([0-9]*\).*/\1/p')
[ "$crcs" = "$nseg" ] || fail "$crcs CRC records for $nseg segments"

# fio's view: every write an entry, every sync a Save, and the sync latency is real.
J="$WORK/fio.json"
jq -e . "$J" > /dev/null 2>&1 || { fail "fio's JSON output does not parse"; exit 1; }
wios=$(jq '.jobs[0].write.total_ios' "$J")
# fio leaves sync.total_ios at 0 (it counts DDIR_DATASYNC past its array); N is the sync count (fio >= 3.18),
# and the json+ bins add up to it in every fio (bench/fio_versions.sh runs this with fio 3.7 to 3.42)
sios=$(jq '.jobs[0].sync.lat_ns | .N // ([.bins[]?] | add)' "$J")
[ "$wios" = "$entries" ] || fail "fio wrote $wios blocks, the WAL holds $entries entries"
[ "$sios" -ge "$((wios - 1))" ] || fail "fio issued $sios syncs for $wios writes (fdatasync=1)"
S="$WORK/stats.json"
jq -e . "$S" > /dev/null 2>&1 || { fail "stats file does not parse"; exit 1; }
[ "$(jq -r '.engine + " " + .mode + " " + .job' "$S")" = "etcdwal wal wal" ] || fail "stats envelope: $(head -c 120 "$S")"
[ "$(jq '.segments' "$S")" = "$nseg" ] || fail "stats segments $(jq .segments "$S") != $nseg files"
rolls=$(jq '.rollovers' "$S")
[ "$rolls" = "$((nseg - 1))" ] || fail "stats rollovers $rolls for $nseg segments"
[ "$(jq '.syncs' "$S")" = "$sios" ] || fail "engine Saves $(jq .syncs "$S") != fio syncs $sios"
fds=$(jq '.hist.fdatasync.count' "$S")
[ "$fds" = "$((sios + rolls + 2))" ] || fail "engine fdatasyncs $fds != syncs $sios + rollovers $rolls + 2"
# fio times the whole Save (flush + fdatasync, or the whole cut): its total sync time cannot be less than
# the fdatasync time the engine measured inside those Saves (all but Create's and Close's).
fio_sync_ns=$(jq --argjson n "$sios" '.jobs[0].sync.lat_ns.mean * $n' "$J")
eng_fds_ns=$(jq '.hist.fdatasync.sum_ns' "$S")
fmean=$(jq '.jobs[0].sync.lat_ns.mean' "$J")
emean=$(jq '.hist.fdatasync.mean_ns' "$S")
echo "fio sync mean ${fmean} ns over $sios syncs; engine fdatasync mean ${emean} ns"
awk -v f="$fio_sync_ns" -v e="$eng_fds_ns" 'BEGIN { exit !(f > 0 && f >= 0.9 * e) }' ||
  fail "fio's sync time ($fio_sync_ns ns) is below the fdatasync time inside it ($eng_fds_ns ns)"

if [ -n "$STRACE" ]; then
  T="$WORK/trace.all"
  cat "$WORK"/trace.* > "$T" # -ff: one file per thread, so no call is split across "unfinished" lines
  c_falloc=$(grep -cE "fallocate\([0-9]+, 0, 0, $SEG\)" "$T")
  c_rename=$(grep -cE 'rename(at2?)?\(.*"[01]\.tmp", [0-9]+, "[0-9a-f]{16}-[0-9a-f]{16}\.wal"' "$T")
  c_fdsync=$(grep -cE 'fdatasync\(' "$T")
  # directory fsyncs: fsync on the descriptor the private directory was opened as (under its staging
  # name etcd-fio.<pid>.wal.tmp-XXXXXX, before it was locked and renamed to etcd-fio.<pid>.wal.0)
  dfd=$(grep -E 'openat\(.*/etcd-fio\.[0-9]+\.wal\.tmp-[A-Za-z0-9]{6}", O_RDONLY[^)]*O_DIRECTORY' "$T" | head -n 1 | sed 's/.*= //')
  c_dirfs=$(grep -cE "fsync\($dfd[,)]" "$T")
  c_trunc=$(grep -cE 'ftruncate\(' "$T")
  echo "strace: fallocate=$c_falloc rename=$c_rename dir-fsync=$c_dirfs fdatasync=$c_fdsync ftruncate=$c_trunc (segments=$nseg rollovers=$rolls syncs=$sios)"
  # one per segment, plus the spare the pipeline keeps ready (removed at Close, as etcd's fp.Close does)
  [ "$c_falloc" = "$((nseg + 1))" ] || fail "fallocate calls $c_falloc, want segments $nseg + 1 spare"
  [ "$c_rename" = "$rolls" ] || fail "renames $c_rename, want one per rollover ($rolls)"
  [ "$c_dirfs" = "$((rolls + 1))" ] || fail "directory fsyncs $c_dirfs, want one per rollover + Create's ($((rolls + 1)))"
  [ "$c_fdsync" = "$((sios + rolls + 2))" ] || fail "fdatasyncs $c_fdsync, want syncs $sios + rollovers $rolls + Create + Close"
  [ "$c_trunc" = "$rolls" ] || fail "ftruncate calls $c_trunc, want one per cut ($rolls)"
  # cut() in etcd's order, on the job's thread: ftruncate the full segment, fdatasync it, (take the
  # spare, write CRC/metadata/state) fdatasync the spare, rename it, fsync the directory, reopen it
  jt=$(grep -l 'renameat' "$WORK"/trace.[0-9]* | head -n 1)
  seq=$(sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' "$jt" | grep -E '^(ftruncate|fdatasync|renameat|fsync|openat)$' | tr '\n' ' ')
  c_order=$(echo "$seq" | grep -o 'ftruncate fdatasync fdatasync renameat fsync openat ' | wc -l)
  [ "$c_order" = "$rolls" ] || fail "cut() sequence seen $c_order times, want $rolls: $(echo "$seq" | grep -o 'ftruncate.\{0,80\}' | head -n 1)"
  # nothing outside the private directory is opened for writing, and fio never opens its own data file
  if grep -E 'openat\(AT_FDCWD, "[^"]*", [^)]*(O_WRONLY|O_RDWR|O_CREAT)' "$T" | grep -v '/etcd-fio\.' |
     grep -F "$D" > "$WORK/badopen"; then
    fail "write-mode open outside the private directory:"; head -n 3 "$WORK/badopen"
  fi
  grep -qF "\"$D/wal." "$T" && fail "fio opened its own data file $D/wal.*"
fi
# examples/etcd-wal.fio runs as written (engine path and sizes scaled down for the test)
mkdir -p "$WORK/ex"
sed -e "s|^ioengine=external:.*|ioengine=external:$ENGINE|" -e 's|^size=256m|size=3m|' \
    -e 's|^etcd_segment_bytes=64000000|etcd_segment_bytes=1000000|' "$TOP/examples/etcd-wal.fio" > "$WORK/ex.fio"
(cd "$WORK/ex" && "$FIO" "$WORK/ex.fio" > "$WORK/ex.out" 2>&1) || { fail "examples/etcd-wal.fio failed"; tail -n 5 "$WORK/ex.out"; }
grep -q "etcdwal: etcd-wal: 4 segments (3 rollovers)" "$WORK/ex.out" || fail "example: $(grep etcdwal "$WORK/ex.out")"
[ -z "$(ls -A "$WORK/ex")" ] || fail "example left files: $(ls -A "$WORK/ex")"

finish it_engine_wal "engine WAL run: $nseg segments, $entries entries, chain intact, syscall counts as etcd"
