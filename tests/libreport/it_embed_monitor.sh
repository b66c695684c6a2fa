#!/bin/sh
# SPDX-License-Identifier: MIT
# it_embed_monitor.sh — examples/embed.c --live, an embedder running libfioreport's sequential judge over a
# live --status-interval stream, gives the verdict `etcd-fio check` gives on the same output:
#  1. tests/lib/fake-fio.py's stream (a run to its end: PASS; its output cut after an interim document:
#     unknown), judged by `check --full --keep-output` and by the example over the kept output and over
#     the fake's stream piped live;
#  2. the real fio, the classic job's stream piped live into the example (--wal-only): the same verdict as
#     `etcd-fio verdict` on that stream, and the WAL answered before the stream ended; the example's file
#     mode on the stream fio wrote says what verdict says.
. "$(dirname "$0")/../lib/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not installed"; exit 77; }
need_built "$ENGINE" "$CLI" "$B/libfioreport.a"
WORK=$(mktemp -d "$B/it-embed-monitor.XXXXXX") || exit 1
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
EMBED=$WORK/embed
${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$TOP/libreport/include" "$TOP/examples/embed.c" \
  "$B/libfioreport.a" -lyajl -lm -o "$EMBED" || { echo "FAIL: examples/embed.c does not build"; exit 1; }
FAKE=$TOP/tests/lib/fake-fio.py
word() { case $1 in 0) echo pass ;; 1) echo fail ;; *) echo unknown ;; esac; }

# 1. the fake's stream: check --full, then the example on what check kept and on the stream live
for m in none cut-runout; do
  mkdir -p "$WORK/$m.d"
  FIO=$FAKE FAKE_FIO=$m "$CLI" check --force --json --full --max-time 7 --min-syncs 20 --accept-point-estimate \
    --keep-output "$WORK/$m.kept" "$WORK/$m.d" > "$WORK/$m.json" 2> "$WORK/$m.err"
  cv=$(jq -r .verdict "$WORK/$m.json")
  "$EMBED" --live --accept-point-estimate < "$WORK/$m.kept/fio-output.json" > "$WORK/$m.mon" 2> "$WORK/$m.mon.err"
  mv=$(word $?)
  [ "$cv" = "$mv" ] && echo "ok: $m: the example on check's kept output says $mv, as check does" ||
    fail "$m: check says $cv, the example $mv: $(cat "$WORK/$m.mon")"
  printf 'runtime=4\n' > "$WORK/$m.fio"
  FAKE_FIO=$m python3 "$FAKE" --output-format=json+ --status-interval=1 "$WORK/$m.fio" |
    "$EMBED" --live --accept-point-estimate > "$WORK/$m.live" 2> "$WORK/$m.live.err"
  lv=$(word $?)
  [ "$lv" = "$cv" ] && echo "ok: $m: the example on the live stream says $lv" ||
    fail "$m live: the example says $lv, check $cv: $(cat "$WORK/$m.live")"
done
grep -q "WAL fdatasync: pass" "$WORK/none.live.err" || fail "the live stream's WAL was not answered on its way"

# 2. the real fio, the classic job live
fio_out=$WORK/classic.json
"$FIO" --name=classic --directory="$WORK" --ioengine=sync --rw=write --fdatasync=1 --bs=2300 --size=3m \
  --output-format=json+ --status-interval=1 2> "$WORK/classic.err" | tee "$fio_out" |
  "$EMBED" --live --wal-only --accept-point-estimate > "$WORK/classic.mon" 2> "$WORK/classic.mon.err"
mv=$(word $?)
rm -f "$WORK"/classic.0.0
"$CLI" verdict "$fio_out" > "$WORK/classic.v" 2>&1
vv=$(word $?)
[ "$mv" = "$vv" ] && echo "ok: classic job live: the example says $mv, as verdict does ($(cut -c1-80 "$WORK/classic.mon"))" ||
  fail "classic job live: the example says $mv, verdict $vv: $(cat "$WORK/classic.mon")"
# and on the finished output, file mode: the library's verdict, as verdict gives it
"$EMBED" "$fio_out" > "$WORK/classic.file" 2>&1
fv=$(word $?)
[ "$fv" = "$vv" ] && echo "ok: classic job output: the example's file mode says $fv, as verdict does" ||
  fail "classic job output: the example's file mode says $fv, verdict $vv: $(cat "$WORK/classic.file")"

[ $bad -eq 0 ] && echo "ok: it_embed_monitor"
exit $((bad > 0))
