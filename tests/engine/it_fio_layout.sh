#!/bin/sh
# SPDX-License-Identifier: MIT
# it_fio_layout.sh — an engine built against a source of the installed fio's version whose job options are
# laid out otherwise (a distribution's snapshot of fio's master under a released version's name moves the
# fields of struct thread_options) must refuse to load, in one line naming the option that moved, and touch
# nothing — never read thread=, fdatasync= or size= from the wrong bytes. Made here by copying the configured
# fio tree the engine is built against, adding one field before use_thread in its thread_options.h, and
# building the engine against the copy (a build directory of its own). Control: the same job with the
# engine of this tree runs.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$B/fio-src.path"
SRC=$(sed -n 1p "$B/fio-src.path")
[ -f "$SRC/thread_options.h" ] || { echo "skip: no configured fio tree at '$SRC'"; exit 77; }
WORK=$(mktemp -d "$B/it_fio_layout.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP
cp -a "$SRC" "$WORK/fio" || fail "cannot copy $SRC"
# the first use_thread is struct thread_options' (the second, thread_options_pack's, is fio's wire format)
awk '!done && /^[[:space:]]*unsigned int use_thread;/ { print "\tunsigned int etcdfio_test_moved;"; done = 1 } { print }' \
  "$SRC/thread_options.h" > "$WORK/fio/thread_options.h"
grep -q etcdfio_test_moved "$WORK/fio/thread_options.h" || { echo "skip: no 'unsigned int use_thread;' in $SRC/thread_options.h"; exit 77; }
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" BUILD="$WORK/b" FIO_SRC="$WORK/fio" "$WORK/b/libetcdwal.so" \
  > "$WORK/make.log" 2>&1 || { cat "$WORK/make.log"; fail "the engine did not build against the moved tree"; finish it_fio_layout; }

job() { # ENGINE DIR: a short WAL job
  "$FIO" --name=wal --directory="$2" --ioengine=external:"$1" --rw=write --bs=2300 --size=230k --fdatasync=1 \
    --output-format=json > "$WORK/out.json" 2> "$WORK/err"
}
mkdir -p "$WORK/ok" "$WORK/moved"
job "$ENGINE" "$WORK/ok"
rc=$?
[ $rc -eq 0 ] || { cat "$WORK/err"; fail "control: the engine of this tree did not run in $FIO (exit $rc)"; }
job "$WORK/b/libetcdwal.so" "$WORK/moved"
rc=$?
[ $rc -ne 0 ] || fail "the engine built against a moved layout ran (exit 0)"
n=$(grep -c "laid out otherwise" "$WORK/err")
[ "$n" -eq 1 ] || { cat "$WORK/err"; fail "want one line saying the options are laid out otherwise, got $n"; }
grep -q "option thread at byte [0-9]* of its thread_options, [0-9]* here" "$WORK/err" || \
  { cat "$WORK/err"; fail "the line does not name the option that moved and both offsets"; }
grep -q "FIO_SRC" "$WORK/err" || fail "the line does not say how to rebuild"
[ -z "$(ls -A "$WORK/moved")" ] || fail "the refused engine left files: $(ls -A "$WORK/moved")"
echo "refused: $(grep 'laid out otherwise' "$WORK/err" | cut -c1-160)"
finish it_fio_layout
