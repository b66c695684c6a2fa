#!/bin/sh
# SPDX-License-Identifier: MIT
# dist_arm64.sh — the aarch64 release tarball (mk/dist.sh) on this x86-64 machine, under qemu-user-static with
# the arm64 bullseye sysroot as its root of libraries (qemu -L): every ELF needs only the C library family;
# `etcd-fio verdict` on every fixture gives the same exit status and first line as the x86-64 tarball's;
# the engine loads into the bundled arm64 fio and writes a WAL that tests/waldump accepts (segments, frames,
# CRC chain). Latencies measured under qemu are an emulator's, not the disk's: no verdict is taken from them.
# Usage: tests/dist/dist_arm64.sh AARCH64_TARBALL X86_64_TARBALL SYSROOT WALDUMP
set -u
A=${1:?usage}; X=${2:?usage}; SYSROOT=${3:?usage}; WALDUMP=${4:?usage}
HERE=$(cd "$(dirname "$0")/.." && pwd)
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || { echo "skip: qemu-user-static not installed (make dist-deps)"; exit 77; }
for f in "$A" "$X" "$WALDUMP"; do [ -f "$f" ] || { echo "FAIL: $f missing (make dist; make tests)"; exit 1; }; done
[ -d "$SYSROOT" ] || { echo "FAIL: $SYSROOT missing (make dist-deps)"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
WORK=$(mktemp -d /tmp/dist-arm64.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
mkdir "$WORK/a" "$WORK/x"
tar -xzf "$A" -C "$WORK/a" && tar -xzf "$X" -C "$WORK/x" || { echo "FAIL: cannot unpack"; exit 1; }
TA=$(ls -d "$WORK"/a/etcd-fio-*/ | head -n 1); TX=$(ls -d "$WORK"/x/etcd-fio-*/ | head -n 1)
. "$HERE/lib/dist_elf.sh"
for f in bin/etcd-fio lib/etcd-fio/fio lib/etcd-fio/libetcdwal.so; do
  case $(readelf -h "$TA$f" | sed -n 's/^ *Machine: *//p') in *AArch64*) ;; *) fail "$f is not an AArch64 ELF" ;; esac
  dist_elf_check "$TA$f" "aarch64 $f"
done
Q() { "$QEMU" -L "$SYSROOT" "$@"; }
v=$(Q "$TA/bin/etcd-fio" --version 2>/dev/null | head -n 1) # (its fio line needs binfmt_misc: not compared)
[ "$v" = "$("$TX/bin/etcd-fio" --version | head -n 1)" ] && ok "aarch64 etcd-fio --version under qemu: $v" || fail "--version: $v"

# The verdict corpus: same exit status and first line on both architectures.
n=0; same=0
for f in $(find "$HERE/fixtures" -type f ! -name '*.md' | sort); do
  n=$((n + 1))
  ox=$("$TX/bin/etcd-fio" verdict "$f" 2>&1 | head -n 1); rx=$("$TX/bin/etcd-fio" verdict "$f" >/dev/null 2>&1; echo $?)
  oa=$(Q "$TA/bin/etcd-fio" verdict "$f" 2>&1 | head -n 1); ra=$(Q "$TA/bin/etcd-fio" verdict "$f" >/dev/null 2>&1; echo $?)
  if [ "$rx" = "$ra" ] && [ "$ox" = "$oa" ]; then same=$((same + 1)); else
    fail "${f#"$HERE"/}: x86-64 exit $rx '$ox', aarch64 exit $ra '$oa'"; fi
done
[ "$same" = "$n" ] && ok "verdict on $n fixture files: the same exit status and first line on aarch64 as on x86-64"

# The engine in the bundled arm64 fio: a WAL our decoder accepts.
D=$WORK/wal; mkdir "$D"
Q "$TA/lib/etcd-fio/fio" --name=wal --ioengine=external:"$TA/lib/etcd-fio/libetcdwal.so" --directory="$D" \
  --rw=write --bs=2300 --fdatasync=1 --size=10m --etcd_segment_bytes=4000000 --etcd_keep_files=1 \
  --output-format=json > "$WORK/fio.json" 2> "$WORK/fio.err"
rc=$?
[ $rc = 0 ] && ok "the engine ran in the bundled aarch64 fio ($(Q "$TA/lib/etcd-fio/fio" --version))" ||
  fail "aarch64 fio with the engine exited $rc: $(head -n 3 "$WORK/fio.err" | tr '\n' '|')"
KEPT=$(ls -d "$D"/etcd-fio-kept.*.wal.0 2>/dev/null | head -n 1)
if [ -n "$KEPT" ]; then
  nseg=$(ls "$KEPT" | grep -c -E '^[0-9a-f]{16}-[0-9a-f]{16}\.wal$')
  sum=$("$WALDUMP" "$KEPT" 2>&1 | tail -n 1)
  echo "$sum" | grep -q "^OK segments=$nseg " && echo "$sum" | grep -q " index_gaps=0 " && [ "$nseg" -ge 3 ] &&
    ok "waldump accepts the aarch64 engine's WAL: $sum" || fail "waldump: $sum ($nseg segments)"
else fail "no kept WAL directory in $D: $(ls -A "$D")"; fi
echo "note: latencies under qemu-user are an emulator's, not the disk's: no verdict is taken from this run"
echo "dist_arm64: $fails failure(s)"
[ "$fails" = 0 ]
