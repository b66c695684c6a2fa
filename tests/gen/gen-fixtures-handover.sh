#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures-handover.sh — regenerates tests/fixtures/handover/: real fio outputs as operators hand them
# over (pasted from containers, quoted in a mail, prefixed by a log collector, saved by PowerShell), and the
# fio option values fio cuts at ',' and ':'. The tests read the committed files; they never run this script.
#     make tests && sh tests/gen/gen-fixtures-handover.sh [SECTION...]   # runs pidns options damage (default all)
# Every run is small (bs=2300, fdatasync=1, a few hundred writes) in a scratch dir under /tmp (ext4 here).
# The failing run is a real fio run whose fdatasyncs tests/faultshim.so delays by 15 ms (a slow disk).
# The hand-over damage is made at the end from the real outputs by the tools' own transformation (awk,
# sed, iconv), each line saying which tool writes that form.
set -eu
FIO=${FIO:-fio}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/tests/fixtures/handover
WORK=$(mktemp -d /tmp/etcd-fio-fixtures.XXXXXX)
. "$TOP/tests/gen/gen-fixtures-lib.sh"
fx_trap
mkdir -p "$OUT"
SHIM=${SHIM:-$TOP/build/tests/faultshim.so}
[ -r "$SHIM" ] || { echo "$SHIM missing: run make tests first" >&2; exit 1; }
V=$($FIO --version)
COMMON="--directory=$WORK --rw=write --ioengine=sync --fdatasync=1 --bs=2300"

run() {  # run OUTFILE FIO-ARGS...: stdout and stderr as an operator saves them
  fx_run text "$@"
  rm -f "$WORK"/*.0 "$WORK"/*.[0-9]*
  echo "wrote $1"
}
runjson() {  # stdout only (fio --output-format=json > f)
  fx_run json "$@" --output-format=json
  rm -f "$WORK"/*.0 "$WORK"/*.[0-9]*
  echo "wrote $1"
}
slow() {  # each fdatasync of a file whose name holds "slow" waits 15 ms first
  LD_PRELOAD=$SHIM FAULT_CALL=fdatasync FAULT_DELAY_MS=15 FAULT_PATH_SUBSTR=slow "$@"
}

# the passing run must pass on this disk: on a busy machine its p99 can go over 10 ms, so it is run again
# (at most 10 times) until etcd-fio judges it PASS; the failing run fails whatever the load
ETCD_FIO=${ETCD_FIO:-$TOP/build/etcd-fio}
passes() { "$ETCD_FIO" verdict "$1" > /dev/null 2>&1; }
fast() {  # fast OUTFILE FIO-ARGS...
  i=0
  until run "$@" && passes "$OUT/$1"; do i=$((i + 1)); [ $i -lt 10 ] || { echo "$1 never passed" >&2; exit 1; }; done
}
want() { case " ${SECTIONS} " in *" $1 "*) return 0;; esac; return 1; }
SECTIONS=${*:-runs pidns options damage}

# a failing run (p99 >= 15 ms) and a passing one, normal text and JSON
if want runs; then
slow run  "$V-slow.txt"  --name=slowdisk $COMMON --size=460000
slow runjson "$V-slow.json" --name=slowdisk $COMMON --size=460000
fast "$V-fast.txt" --name=fastdisk $COMMON --size=460000
# gtod_reduce: fio counts the syncs (issued rwts: short=) but times none
run "$V-gtod-reduce.txt" --name=untimed $COMMON --size=460000 --gtod_reduce=1
fi
if want pidns; then

# two container runs (fio in its own pid namespace, as in a pod): the job has the same name and pid in both
# (fio is the namespace's pid 1 in both, env exec()s it): the slow run first, then a smaller passing one
unshare --pid --fork --mount-proc env LD_PRELOAD="$SHIM" FAULT_CALL=fdatasync FAULT_DELAY_MS=15 \
  FAULT_PATH_SUBSTR=wal "$FIO" --name=wal $COMMON --size=460000 > "$OUT/$V-pidns-slow.txt" 2>&1
rm -f "$WORK"/*.0
i=0
until unshare --pid --fork --mount-proc "$FIO" --name=wal $COMMON --size=345000 > "$OUT/$V-pidns-fast.txt" 2>&1 &&
      passes "$OUT/$V-pidns-fast.txt"; do
  rm -f "$WORK"/*.0; i=$((i + 1)); [ $i -lt 10 ] || { echo "pidns-fast never passed" >&2; exit 1; }
done
rm -f "$WORK"/*.0
echo "wrote $V-pidns-slow.txt $V-pidns-fast.txt"


fi

# fio's parse.c cuts a value at ',' and ':' (sync: opt_len(); bools and ints: the number before it)
if want options; then
runjson "$V-sync-dsync-comma.json" --name=dsc $COMMON --size=460000 --sync=dsync,
runjson "$V-sync-1-comma.json"     --name=s1c $COMMON --size=460000 --sync=1,
runjson "$V-sync-sync-colon.json"  --name=ssc $COMMON --size=460000 --sync=sync:
runjson "$V-sync-1-colon0.json"    --name=s10 $COMMON --size=460000 --sync=1:0
runjson "$V-fdatasync-0-comma.json" --name=fd0 --directory=$WORK --rw=write --ioengine=sync --bs=2300 \
    --size=460000 --fdatasync=0,1
runjson "$V-fsync-on-close.json" --name=foc --directory=$WORK --rw=write --ioengine=sync --bs=2300 \
    --size=460000 --fsync_on_close=1
run "$V-fsync-on-close.txt" --name=foc --directory=$WORK --rw=write --ioengine=sync --bs=2300 \
    --size=460000 --fsync_on_close=1
# a job error with no I/O: trim on a regular file (fio: err=95 or 25, its own text)
run "$V-trim-error.txt" --name=trimjob --directory=$WORK --rw=trim --ioengine=sync --bs=4k --size=64k \
    --fdatasync=1 || true
runjson "$V-trim-error.json" --name=trimjob --directory=$WORK --rw=trim --ioengine=sync --bs=4k --size=64k \
    --fdatasync=1 || true
# a job that fails before any I/O prints no result, only fio's error line (O_DIRECT on /dev/null: EINVAL)
run "$V-libaio-null-error.txt" --name=nul --filename=/dev/null --rw=write --ioengine=libaio --direct=1 --bs=4k \
    --size=64k --fdatasync=1 || true
fi

if want damage; then
# ---- hand-over damage, from the real outputs above ----
S=$OUT/$V-slow.txt
F=$OUT/$V-fast.txt
# two container runs pasted without fio's banner: each from its job header on (Run status between them)
sed -n '/: (groupid=/,$p' "$OUT/$V-pidns-slow.txt" > "$OUT/hand-pidns-pasted.txt"
sed -n '/: (groupid=/,$p' "$OUT/$V-pidns-fast.txt" >> "$OUT/hand-pidns-pasted.txt"
# ... and only the job blocks (no Run status): the sync count falls from the first to the second
sed -n '/: (groupid=/,/^Run status/p' "$OUT/$V-pidns-slow.txt" | sed '$d' > "$OUT/hand-pidns-blocks.txt"
sed -n '/: (groupid=/,/^Run status/p' "$OUT/$V-pidns-fast.txt" | sed '$d' >> "$OUT/hand-pidns-blocks.txt"
# an e-mail reply: the quoted failing run (mail clients quote with "> "), then the replier's passing run
{ echo "On Wed, 2 Dec 2026 at 12:00, Ops <ops@example.com> wrote:"; sed 's/^/> /' "$S"; echo;
  echo "Mine is fine:"; echo; cat "$F"; } > "$OUT/hand-mail-reply.txt"
# a reply to that reply: the first quote quoted again ("> > ", and ">>" as some clients write it)
{ echo "On Thu, Dev wrote:"; sed 's/^/> /' "$OUT/hand-mail-reply.txt"; } > "$OUT/hand-mail-reply2.txt"
sed 's/^/>> /' "$S" > "$OUT/hand-quoted-gtgt.txt"
# untimed syncs beside a pass: the gtod_reduce run appended to the passing one
cat "$F" "$OUT/$V-gtod-reduce.txt" > "$OUT/hand-fast-then-untimed.txt"
# kubectl logs --timestamps: RFC 3339 with nanoseconds and a space
awk '{ printf "2026-12-02T12:00:%02d.%09dZ %s\n", NR % 60, NR * 7919, $0 }' "$S" > "$OUT/hand-kubectl-ts.txt"
awk '{ printf "2026-12-02T12:00:%02d.%09dZ %s\n", NR % 60, NR * 7919, $0 }' "$OUT/$V-slow.json" \
    > "$OUT/hand-kubectl-ts.json"
# a CRI log file (/var/log/pods/…: containerd, CRI-O): time, stream, F (full) or P (partial) and the text;
# a line longer than the runtime's buffer comes as P pieces (here every line over 60 bytes is cut at 60)
awk '{ t = sprintf("2026-12-02T12:00:%02d.%09d+00:00", NR % 60, NR * 7919); s = $0;
       while (length(s) > 60) { printf "%s stdout P %s\n", t, substr(s, 1, 60); s = substr(s, 61) }
       printf "%s stdout F %s\n", t, s }' "$S" > "$OUT/hand-cri.log"
# journalctl (short format) of a systemd unit running fio
awk '{ printf "Dec 02 12:00:%02d vm etcd-fio[4242]: %s\n", NR % 60, $0 }' "$S" > "$OUT/hand-journalctl.txt"
# GitHub Actions raw log: 7 fractional digits, a space
awk '{ printf "2026-12-02T12:00:%02d.%07dZ %s\n", NR % 60, NR * 31, $0 }' "$S" > "$OUT/hand-gha.txt"
# kubectl logs --timestamps --prefix of two containers, one after the other
{ awk '{ printf "[pod/etcd-fio-x/fio] 2026-12-02T12:00:%02d.%09dZ %s\n", NR % 60, NR, $0 }' "$S";
  awk '{ printf "[pod/etcd-fio-x/side] 2026-12-02T12:01:%02d.%09dZ %s\n", NR % 60, NR, $0 }' "$F"; } \
    > "$OUT/hand-kubectl-prefix.txt"
# PowerShell 5 `fio … > out.txt`: UTF-16LE with a BOM and CRLF; UTF-16BE with a BOM; UTF-8 with a BOM (JSON)
{ printf '\377\376'; sed 's/$/\r/' "$S" | iconv -f UTF-8 -t UTF-16LE; } > "$OUT/hand-utf16le.txt"
{ printf '\376\377'; sed 's/$/\r/' "$S" | iconv -f UTF-8 -t UTF-16BE; } > "$OUT/hand-utf16be.txt"
{ printf '\357\273\277'; cat "$OUT/$V-slow.json"; } > "$OUT/hand-utf8bom.json"
{ printf '\377\376'; sed 's/$/\r/' "$OUT/$V-slow.json" | iconv -f UTF-8 -t UTF-16LE; } > "$OUT/hand-utf16le.json"
# trailing blanks (a terminal copy), CRLF (Windows), tabs for leading blanks (an editor's tabify)
sed 's/$/   /' "$S" > "$OUT/hand-trailing-blanks.txt"
sed 's/$/\r/' "$S" > "$OUT/hand-crlf.txt"
sed 's/^        /\t/; s/^    /\t/' "$S" > "$OUT/hand-tabs.txt"
fi
echo "done: $OUT"
