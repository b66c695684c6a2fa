#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures.sh — regenerates the real fio outputs under tests/fixtures/fio/ with the installed fio.
# The tests read the committed files; they never call this script (outputs vary run to run). Rerun it by
# hand when a new fio version must be covered, then re-check the expectations in tests/libreport/test_report_*.c:
#     sh tests/gen/gen-fixtures.sh            # writes tests/fixtures/fio/*, needs fio and a free TCP port
# Every run is small (2 MiB, bs=2300, fdatasync=1, or 2 s time_based) in a scratch dir under /tmp.
# Hand-edited variants (libaio garbage, gtod_reduce zeros, truncated/corrupted) are made at the end from
# the real outputs with sed/head so that their provenance is visible here.
set -eu
FIO=${FIO:-fio}
OUT=$(cd "$(dirname "$0")/.." && pwd)/fixtures/fio
PORT=${FIXTURE_PORT:-18765}
WORK=$(mktemp -d /tmp/etcd-fio-fixtures.XXXXXX)
. "$(dirname "$0")/gen-fixtures-lib.sh"
fx_trap
mkdir -p "$OUT"
V=$($FIO --version)           # e.g. fio-3.33
COMMON="--directory=$WORK --rw=write --ioengine=sync --fdatasync=1 --bs=2300"

run() {  # run OUTFILE FIO-ARGS... ; captures stdout+stderr as an operator would have saved it
  f=$1; shift
  fx_run text "$f" "$@"
  rm -f "$WORK"/*.0 "$WORK"/*.[0-9]*
  echo "wrote $f"
}

run "$V-normal.txt"        --name=mytest $COMMON --size=2m
run "$V-json.json"         --name=mytest $COMMON --size=2m --output-format=json
run "$V-jsonplus.json"     --name=mytest $COMMON --size=2m --output-format=json+
run "$V-normal-json.txt"   --name=mytest $COMMON --size=2m --output-format=normal,json
run "$V-status-interval.json" --name=mytest $COMMON --size=64m --runtime=3 --time_based \
    --status-interval=1 --output-format=json
run "$V-status-interval.txt" --name=mytest $COMMON --size=64m --runtime=3 --time_based --status-interval=1
run "$V-numjobs-group.txt" --name=grp $COMMON --size=1m --numjobs=2 --group_reporting
run "$V-numjobs-group.json" --name=grp $COMMON --size=1m --numjobs=2 --group_reporting --output-format=json
run "$V-two-jobs.txt"      $COMMON --size=1m --name=first --name=second --fdatasync=2
run "$V-two-jobs.json"     $COMMON --size=1m --name=first --name=second --fdatasync=2 --output-format=json
# percentiles switched off: sync samples but no "percentile" object (must judge UNKNOWN, never PASS)
run "$V-nopct.json"        --name=mytest $COMMON --size=1m --clat_percentiles=0 --lat_percentiles=0 \
    --output-format=json
# gtod_reduce: fio stops timing; the sync block is gone or all zeros depending on the version
run "$V-gtod-reduce.json"  --name=mytest $COMMON --size=1m --gtod_reduce=1 --output-format=json
# a job without any sync (no fdatasync): not judged
run "$V-nosync.json"       --name=nosync --directory="$WORK" --rw=write --ioengine=sync --bs=4k --size=1m \
    --output-format=json
# libaio + fdatasync: fio 3.31-3.40 time the sync from a stale issue time (garbage latencies)
if $FIO --enghelp=libaio >/dev/null 2>&1; then
  run "$V-libaio.json" --name=aio --directory="$WORK" --rw=write --ioengine=libaio --iodepth=4 --direct=0 \
      --fdatasync=1 --bs=2300 --size=1m --output-format=json
  run "$V-libaio.txt"  --name=aio --directory="$WORK" --rw=write --ioengine=libaio --iodepth=4 --direct=0 \
      --fdatasync=1 --bs=2300 --size=1m
fi

# client/server on loopback only; the server is killed by pid afterwards
fx_server_start "$PORT"
fx_client_job 2m
run "$V-client.txt"  --client=ip:127.0.0.1,$PORT "$WORK/client.fio"
run "$V-client.json" --client=ip:127.0.0.1,$PORT --output-format=json "$WORK/client.fio"
# two clients (the same loopback server twice): fio adds the "All clients" aggregate
run "$V-client2.json" --output-format=json --client=ip:127.0.0.1,$PORT "$WORK/client.fio" \
    --client=ip:127.0.0.1,$PORT "$WORK/client.fio"
run "$V-client2.txt" --client=ip:127.0.0.1,$PORT "$WORK/client.fio" --client=ip:127.0.0.1,$PORT "$WORK/client.fio"
fx_server_stop

# 10 writes in normal output: 9 fdatasyncs, a count fio prints only in "issued rwts: … short=9" (11.3)
run "$V-ten-writes.txt"    --name=ten $COMMON --size=23000
# [global] etcd_mode=backend beside a job of another engine (11.4): a [global] section naming the etcd-fio
# engine and etcd_mode=backend, a job of the engine and one with ioengine=sync. Needs the built engine and
# fault shim (make tests); on tmpfs (fdatasync costs nothing there) the sync job's fdatasyncs are slowed to
# 12 ms (its files only), so that its p99 lies between the WAL (10 ms) and the backend (25 ms) threshold.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ENGINE=${ENGINE:-$TOP/build/libetcdwal.so}
SHIM=${SHIM:-$TOP/build/tests/faultshim.so}
SHM=$(mktemp -d /dev/shm/etcd-fio-fixtures.XXXXXX)
if [ -r "$ENGINE" ] && [ -r "$SHIM" ]; then
  cat > "$WORK/global-backend.fio" <<JOB
[global]
ioengine=external:$ENGINE
etcd_mode=backend
directory=$SHM
rw=write
bs=2300
fdatasync=1

[be]
size=460000

[plain]
ioengine=sync
size=276000
JOB
  LD_PRELOAD=$SHIM FAULT_CALL=fdatasync FAULT_DELAY_MS=12 FAULT_PATH_SUBSTR=plain. \
    run "$V-global-backend.json" --output-format=json "$WORK/global-backend.fio"
  # the engine's one stderr line is not part of fio's JSON: keep the document only
  sed -i '/^etcdwal: /d' "$OUT/$V-global-backend.json"
fi
rm -rf "$SHM"

# real-interrupted-layout.txt is not regenerated: a real fio 3.33 output captured once when a libaio run
# was interrupted (SIGINT) while laying out its file — fio output with no job result at all.

# ---- hand-made variants (documented derivations of the real files above) ----
# truncated: the normal output cut inside the sync percentile block; the JSON cut mid-document
awk '/sync percentiles/ {print; getline; print substr($0, 1, 30); exit} {print}' "$OUT/$V-normal.txt" \
    > "$OUT/hand-truncated-normal.txt"
head -c 1500 "$OUT/$V-json.json" > "$OUT/hand-truncated.json"
# corrupted: a percentile value replaced by letters
sed 's/99\.00th=\[ *[0-9]*\]/99.00th=[ 12x4]/' "$OUT/$V-normal.txt" > "$OUT/hand-corrupt-normal.txt"
# libaio garbage as reported by fio 3.33 users (max=328998k usec), version and engine as printed
sed -e 's/^fio-3\.[0-9]*$/fio-3.33/' -e 's/ioengine=sync/ioengine=libaio/' \
    -e 's/sync (usec): min=[0-9]*, max=[0-9k]*/sync (usec): min=2, max=328998k/' \
    "$OUT/$V-normal.txt" > "$OUT/hand-libaio-garbage.txt"
# gtod_reduce on an older fio: the sync block is printed with every value 0
sed -e 's/sync (usec): min=[0-9]*, max=[0-9k]*, avg=[0-9.]*, stdev=[0-9.]*/sync (nsec): min=0, max=0, avg= 0.00, stdev= 0.00/' \
    -e '/sync percentiles/,/^  cpu/ s/\[ *[0-9]*\]/[    0]/g' -e 's/sync percentiles (usec)/sync percentiles (nsec)/' \
    "$OUT/$V-normal.txt" > "$OUT/hand-gtod-zero.txt"
echo "done: $OUT"
