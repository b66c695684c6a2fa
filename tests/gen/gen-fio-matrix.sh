#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fio-matrix.sh — the real outputs of one fio version in tests/fixtures/fio-3.N/ (N from `$FIO --version`):
# the classic etcd disk job (--rw=write --ioengine=sync --fdatasync=1 --bs=2300 --size=22m) and the etcd
# profile (`etcd-fio job --load s --runtime 15`, run through that fio with the engine built for it), each
# in fio's normal, json and json+ formats; profile.fio is the job file that ran. No terse file: fio's terse
# output (every version, stat.c show_thread_status_terse_all) has no sync latency, so it has nothing to judge.
# Then tests/gen/fio_matrix_expect.py derives from each file, with its own parser (not libfioreport's), the value,
# sample count and verdict the library must give: expected.json, read by tests/libreport/it_fio_matrix.sh.
# The tests read the committed files only; bench/fio_versions.sh (FIXTURES=1) runs this for every version:
#     FIO=/path/fio ENGINE=/path/libetcdwal.so CLI=/path/etcd-fio sh tests/gen/gen-fio-matrix.sh
# Needs python3. Runs in a scratch directory on WORKDIR's disk (default /var/tmp), removed at the end.
set -eu
FIO=${FIO:?FIO=path of the fio to record}
ENGINE=${ENGINE:?ENGINE=libetcdwal.so built against that fio}
CLI=${CLI:?CLI=etcd-fio}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
V=$("$FIO" --version)
case $V in fio-[0-9]*) ;; *) echo "gen-fio-matrix: '$FIO --version' says '$V'" >&2; exit 1 ;; esac
OUT=$TOP/tests/fixtures/$V
WORK=$(mktemp -d "${WORKDIR:-/var/tmp}/etcd-fio-matrix.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir -p "$OUT" "$WORK/c" "$WORK/p"
rm -f "$OUT"/*
CLASSIC="--name=classic --rw=write --ioengine=sync --fdatasync=1 --bs=2300 --size=22m --directory=$WORK/c"

# normal: stdout and stderr as a terminal shows them; json/json+: stdout only (fio's own messages and the
# engine's summary go to stderr there), as `fio ... --output-format=json > out.json` saves it
normal() { f=$1; shift; "$FIO" "$@" > "$OUT/$f" 2>&1; rm -rf "$WORK/c"/*; echo "wrote $f"; }
json() { f=$1; shift; "$FIO" "$@" > "$OUT/$f" 2>> "$WORK/stderr"; rm -rf "$WORK/c"/*; echo "wrote $f"; }

# shellcheck disable=SC2086
normal classic-normal.txt $CLASSIC
# shellcheck disable=SC2086
json classic.json $CLASSIC --output-format=json
# shellcheck disable=SC2086
json classic-jsonplus.json $CLASSIC --output-format=json+

"$CLI" job --load s --runtime 15 --dir "$WORK/p" --engine "$ENGINE" > "$OUT/profile.fio"
normal profile-normal.txt "$OUT/profile.fio"
json profile.json "$OUT/profile.fio" --output-format=json
json profile-jsonplus.json "$OUT/profile.fio" --output-format=json+
[ -z "$(ls -A "$WORK/p")" ] || { echo "gen-fio-matrix: the profile left files in $WORK/p" >&2; exit 1; }

python3 "$TOP/tests/gen/fio_matrix_expect.py" "$OUT" > "$OUT/expected.json.tmp"
mv "$OUT/expected.json.tmp" "$OUT/expected.json"
{
  echo "# Real outputs of $V"
  echo
  echo "Made by \`tests/gen/gen-fio-matrix.sh\` (through \`bench/fio_versions.sh\`, FIXTURES=1) on $(date -u +%Y-%m-%d),"
  echo "Linux $(uname -r), $(findmnt -no FSTYPE -T "$WORK" 2>/dev/null || echo '?') on $(findmnt -no SOURCE -T "$WORK" 2>/dev/null || echo '?'),"
  echo "with $V built from its git tag and the engine built against that tree."
  echo
  echo "| file | what ran |"
  echo "|---|---|"
  echo "| classic-normal.txt | \`fio $(echo "$CLASSIC" | sed "s|$WORK|DIR|")\` (stdout + stderr) |"
  echo "| classic.json, classic-jsonplus.json | the same with \`--output-format=json\` / \`json+\` (stdout) |"
  echo "| profile.fio | \`etcd-fio job --load s --runtime 15 --dir DIR --engine libetcdwal.so\` |"
  echo "| profile-normal.txt, profile.json, profile-jsonplus.json | \`fio profile.fio\` in normal, json, json+ |"
  echo "| expected.json | value, count, verdict of every job, by \`tests/gen/fio_matrix_expect.py\` from these files |"
  echo
  echo "No terse output: fio's terse format has no sync latency in any version."
} > "$OUT/README.md"
echo "gen-fio-matrix: $OUT"
