#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures-old.sh — real outputs of an older fio into tests/fixtures/fio-3.N/ (issue 22: the reader on the
# fio versions operators have). FIO is a fio binary built from fio's own git tag fio-3.N (for example the
# lead's /work/fio-builds/fio-3.16/fio); N is taken from its --version. The tests read the committed files
# and never run this script; rerun it by hand, then re-check tests/test_fio_versions.c:
#     FIO=/work/fio-builds/fio-3.16/fio sh tests/gen/gen-fixtures-old.sh
# The classic job throughout (rw=write ioengine=sync bs=2300, 2 MiB, in a /tmp directory), with fdatasync=1
# and with fsync=1 (fio 3.4–3.17 count the two differently: see fmt_json.c), in json, json+ and normal
# output, one end_fsync=1 job, and one run interrupted with SIGINT after 2 s.
set -eu
FIO=${FIO:?FIO=path/to/fio-3.N/fio}
V=$($FIO --version)
OUT=$(cd "$(dirname "$0")/.." && pwd)/fixtures/$V
WORK=$(mktemp -d /tmp/etcd-fio-old.XXXXXX)
. "$(dirname "$0")/gen-fixtures-lib.sh"
fx_trap
mkdir -p "$OUT"
C="--name=mytest --directory=$WORK --rw=write --ioengine=sync --bs=2300"

run() { # OUTFILE FIO-ARGS... (stdout only for JSON, stdout+stderr for normal output)
  f=$1; shift
  case "$f" in
    *.json) fx_run json "$f" "$@" || true ;;
    *) fx_run text "$f" "$@" || true ;;
  esac
  rm -f "$WORK"/mytest.*; echo "wrote $V/$f"
}

run fdatasync.json          $C --fdatasync=1 --size=2m --output-format=json
run fdatasync-jsonplus.json $C --fdatasync=1 --size=2m --output-format=json+
run fdatasync.txt           $C --fdatasync=1 --size=2m
run fsync.json              $C --fsync=1 --size=2m --output-format=json
run fsync.txt               $C --fsync=1 --size=2m
run end-fsync.json          $C --end_fsync=1 --size=2m --output-format=json
$FIO $C --fdatasync=1 --size=100m --output-format=json > "$OUT/sigint.json" 2> "$WORK/stderr" &
p=$!
sleep 2; kill -INT "$p"; wait "$p" || true
rm -f "$WORK"/mytest.*; echo "wrote $V/sigint.json (SIGINT after 2 s)"
