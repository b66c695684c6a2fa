#!/bin/sh
# SPDX-License-Identifier: MIT
# it_faults_shim.sh — the LD_PRELOAD fault shim (tests/lib/faultshim.c) checked against fio's own sync/psync
# engines, so that a failing engine fault test (it_faults_engine.sh) can be blamed on the engine, not the
# shim: each configured fault must fire (shim log), fio must report it on the right file, a delay must
# show in fio's sync latency, and FAULT_SKIP / FAULT_COUNT / FAULT_PATH_SUBSTR must select as documented.
. "$(dirname "$0")/../lib/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
need_built "$SHIM"
WORK=$(mktemp -d /tmp/it-faults-shim.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

# fio run under the shim: fio_run NAME "FAULT ENV" FIO-ARGS… (output in $WORK/NAME.out, shim log in .log)
fio_run() {
  n=$1 envs=$2
  shift 2
  # shellcheck disable=SC2086
  env LD_PRELOAD="$SHIM${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_LOG="$WORK/$n.log" $envs \
    timeout -k 5 60 "$FIO" --name="$n" --directory="$WORK" --filename="data-$n" --rw=write --bs=4k "$@" \
    > "$WORK/$n.out" 2>&1
}

# 1. fdatasync -> EIO on fio's sync engine: the job reports err=5 on that file.
fio_run dsync "FAULT_CALL=fdatasync FAULT_ERRNO=EIO FAULT_PATH_SUBSTR=data-dsync" --size=64k --fdatasync=1 --ioengine=sync
rc=$?
[ $rc -ne 0 ] || fail "fdatasync EIO: fio exited 0"
grep -q "fdatasync $WORK/data-dsync -> EIO" "$WORK/dsync.log" 2>/dev/null || fail "fdatasync EIO: shim log has no injection"
grep -q "io_u error on file $WORK/data-dsync: Input/output error" "$WORK/dsync.out" || fail "fdatasync EIO: fio did not report it on the file"

# 2. pwrite -> short write then ENOSPC after 10000 bytes (psync): fio fails the write at offset 10000.
fio_run pw "FAULT_CALL=pwrite FAULT_AFTER_BYTES=10000 FAULT_PATH_SUBSTR=data-pw" --size=64k --ioengine=psync
grep -q "No space left on device: write offset=10000" "$WORK/pw.out" || fail "pwrite ENOSPC after 10000 bytes: not at offset 10000"
[ "$(stat -c %s "$WORK/data-pw" 2>/dev/null)" -ge 10000 ] 2>/dev/null || fail "pwrite budget: the first 10000 bytes were not written"

# 3. write -> ENOSPC (sync engine); with no path filter stdout must stay untouched (fio's report arrives).
fio_run wr "FAULT_CALL=write FAULT_AFTER_BYTES=8192" --size=64k --ioengine=sync
grep -q "No space left on device: write offset=8192" "$WORK/wr.out" || fail "write ENOSPC after 8192: not reported"
grep -q "Run status group" "$WORK/wr.out" || fail "write fault without a path filter hit fio's own stdout"

# 4. open -> EACCES on the data file: fio cannot open it and says so.
fio_run op "FAULT_CALL=open FAULT_ERRNO=EACCES FAULT_PATH_SUBSTR=data-op" --size=64k --ioengine=sync
grep -q "Permission denied" "$WORK/op.out" || fail "open EACCES: fio did not report it"
grep -q "open $WORK/data-op -> EACCES" "$WORK/op.log" 2>/dev/null || fail "open EACCES: shim log has no injection"

# 5. FAULT_SKIP=3 FAULT_COUNT=2 on fdatasync with only a delay: exactly 2 injections, not the first 3 calls.
fio_run cnt "FAULT_CALL=fdatasync FAULT_DELAY_MS=1 FAULT_SKIP=3 FAULT_COUNT=2 FAULT_PATH_SUBSTR=data-cnt" \
  --size=64k --fdatasync=1 --ioengine=sync
[ "$(grep -c 'fdatasync .* -> delay' "$WORK/cnt.log" 2>/dev/null)" = 2 ] || fail "FAULT_SKIP/FAULT_COUNT: expected exactly 2 injections"
grep -q "err= 0" "$WORK/cnt.out" || fail "delay-only fault made the job fail"

# 6. a path filter that matches nothing injects nothing.
fio_run miss "FAULT_CALL=fdatasync FAULT_ERRNO=EIO FAULT_PATH_SUBSTR=no-such-file" --size=64k --fdatasync=1 --ioengine=sync
[ ! -s "$WORK/miss.log" ] || fail "FAULT_PATH_SUBSTR: a non-matching filter still injected"
grep -q "err= 0" "$WORK/miss.out" || fail "FAULT_PATH_SUBSTR: job failed without a matching file"

# 7. 15 ms delay on fdatasync: every sync in fio's JSON takes at least 15 ms (a lower bound, not a timing
#    claim: nanosleep never returns early).
env LD_PRELOAD="$SHIM${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_CALL=fdatasync FAULT_DELAY_MS=15 FAULT_PATH_SUBSTR=data-slow \
  timeout -k 5 60 "$FIO" --name=slow --directory="$WORK" --filename=data-slow --rw=write --bs=4k --size=80k \
  --fdatasync=1 --ioengine=sync --output-format=json > "$WORK/slow.json" 2> "$WORK/slow.err"
min=$(jq '.jobs[0].sync.lat_ns.min' "$WORK/slow.json" 2>/dev/null)
n=$(jq '.jobs[0].sync.lat_ns.N' "$WORK/slow.json" 2>/dev/null)
[ "${n:-0}" -ge 15 ] 2>/dev/null || fail "delay: expected >= 15 syncs in fio's JSON, got ${n:-none}"
[ "${min:-0}" -ge 15000000 ] 2>/dev/null || fail "delay: fastest sync ${min:-?} ns < 15 ms"

# 8. a typo in the fault configuration is an error, never a silent no-op.
LD_PRELOAD="$SHIM" FAULT_CALL=fdatasyncc /bin/true 2>"$WORK/typo.err"
[ $? -eq 111 ] && grep -q "faultshim: bad FAULT_CALL 'fdatasyncc'" "$WORK/typo.err" || fail "bad FAULT_CALL not rejected"

[ $bad -eq 0 ] || { for f in "$WORK"/*.out; do echo "--- $f"; tail -n 5 "$f"; done; exit 1; }
echo "fault shim: 8 checks passed against fio's sync/psync engines"
