#!/bin/sh
# SPDX-License-Identifier: MIT
# verdicts.sh — `etcd-fio verdict` on every fixture, one tab-separated row each: file, exit status, the
# first line of the text output, then (from --json) each job's p99 in ns and the class of its reason
# (the reason with its numbers as N, cut at 60 bytes), ';'-separated. Run it before and after a change to
# the readers or the judge and diff the two: the first three columns are those of the baseline files the
# project keeps between rounds. Not a test (it asserts nothing): a tool for the closing note.
#     sh tests/verdicts.sh [FILE...] > after.tsv     # default: every file under tests/fixtures
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
EF=${ETCD_FIO:-$TOP/build/etcd-fio}
command -v jq > /dev/null || { echo "SKIP: jq not installed" >&2; exit 77; }
cd "$TOP"
if [ $# -eq 0 ]; then
  set -- $(find tests/fixtures -type f ! -name '*.md' | LC_ALL=C sort)
fi
for f in "$@"; do
  first=$("$EF" verdict "$f" 2>&1 < /dev/null | head -n 1)
  "$EF" verdict "$f" > /dev/null 2>&1 < /dev/null
  rc=$?
  extra=$("$EF" verdict --json "$f" 2>/dev/null < /dev/null |
    jq -r '[.hosts[]?.jobs[]? | ((.p99_ns // "-") | tostring) + " " + .verdict + " " +
            ((.reason // "") | gsub("[0-9]+(\\.[0-9]+)?"; "N") | .[0:60])] | join(";")' 2>/dev/null)
  printf '%s\t%s\t%s\t%s\n' "$f" "$rc" "$first" "${extra:--}"
done
