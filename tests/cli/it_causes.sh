#!/bin/sh
# SPDX-License-Identifier: MIT
# it_causes.sh — a check whose fio cannot even start its jobs names the cause (issue 27): the engine's init
# fails on ENOSPC, EROFS or EACCES (injected into fio's mkdir by the fault shim, through a fio wrapper;
# --force because that is a preload) and the result says "no space left", "read-only filesystem" or
# "permission denied" with the engine's own line — not only fio's "io engine etcdwal init failed" — and
# the run as it ran ("fio failed" after well under a second, not "ran to --max-time"). The real
# filesystems (full inodes, read-only mount) are refused before fio starts: tests/cli/it_layers.sh.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$ENGINE" "$CLI" "$SHIM"
command -v jq >/dev/null 2>&1 || { echo "skip: jq not installed"; exit 77; }
WORK=$(mktemp -d "$TOP/$BUILD/it_causes.XXXXXX" 2>/dev/null || mktemp -d /var/tmp/it_causes.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nLD_PRELOAD="%s${LD_PRELOAD:+ $LD_PRELOAD}" FAULT_PATH_SUBSTR=etcd-fio. FAULT_CALL=mkdir exec "%s" "$@"\n' \
  "$SHIM" "$(command -v "$FIO")" > "$WORK/bin/fio"
chmod +x "$WORK/bin/fio"
for c in "ENOSPC:no space left" "EROFS:read-only filesystem" "EACCES:permission denied"; do
  e=${c%%:*} want=${c#*:}
  mkdir -p "$WORK/$e"
  # the probe's mkdir is check's own (no shim there); fio's engine then fails in its init
  FIO="$WORK/bin/fio" FAULT_ERRNO=$e timeout -k 5 120 "$CLI" check --force --faithful --max-time 7 --min-syncs 20 \
    --accept-point-estimate --json "$WORK/$e" > "$WORK/$e.json" 2> "$WORK/$e.err"
  rc=$?
  [ $rc -eq 2 ] || fail "$e: exit $rc, want 2"
  jq -e --arg w "$want" '.verdict == "unknown" and (.reason | contains($w)) and (.reason | test("etcdwal: mkdir"))' \
    "$WORK/$e.json" > /dev/null || { fail "$e: the reason does not name '$want' and the engine's line"; jq -r .reason "$WORK/$e.json"; }
  jq -e '.details.run.end == "fio-failed"' "$WORK/$e.json" > /dev/null ||
    fail "$e: run.end is '$(jq -r .details.run.end "$WORK/$e.json")', want 'fio-failed'"
  [ -z "$(ls -A "$WORK/$e")" ] || fail "$e: left behind: $(ls -A "$WORK/$e")"
done
[ $bad -eq 0 ] || exit 1
echo "causes: ENOSPC, EROFS and EACCES in the engine's init named in check's result"
