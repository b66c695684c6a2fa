#!/bin/sh
# SPDX-License-Identifier: MIT
# it_threads.sh — tests/libreport/test_threads.c (8 threads parsing different inputs at once) under ThreadSanitizer,
# built in a private build dir; under valgrind's helgrind when TSan cannot be built. Skipped (77) when
# neither is available. Any reported race fails the test. Skipped under `make check-asan`: the TSan build is
# private (the outer SAN/OPT are not passed on), so it would be make check's run again.
set -u
[ "${ASAN_BUILD:-}" = 1 ] && { echo "skip: under check-asan (the same private TSan build as make check's)"; exit 77; }
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
PRIV=$B/it-threads
CC=${CC:-cc}

probe=$(mktemp -d /tmp/it-threads.XXXXXX) || exit 1
trap 'rm -rf "$probe"' EXIT
printf 'int main(void) { return 0; }\n' > "$probe/p.c"
# TSan maps its shadow at fixed addresses: with a large vm.mmap_rnd_bits an unlucky ASLR draw fails it
# ("unexpected memory mapping") now and then. Without ASLR (setarch -R, where allowed) every run is alike.
NOASLR=""
setarch "$(uname -m)" -R true 2>/dev/null && NOASLR="setarch $(uname -m) -R"
if "$CC" -fsanitize=thread "$probe/p.c" -o "$probe/p" 2>/dev/null && $NOASLR "$probe/p"; then
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN -u OPT make -s -C "$TOP" BUILD="$PRIV" tsan-threads || {
    echo "FAIL: could not build the TSan test binary"; exit 1; }
  TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" $NOASLR "$PRIV/tsan/test_threads"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: test_threads under ThreadSanitizer exited $rc"; exit 1; }
  echo "test_threads: clean under ThreadSanitizer"
  exit 0
fi
if command -v valgrind >/dev/null 2>&1 && [ -x "$B/tests/libreport/test_threads" ]; then
  valgrind --tool=helgrind --error-exitcode=66 -q "$B/tests/libreport/test_threads"
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: test_threads under helgrind exited $rc"; exit 1; }
  echo "test_threads: clean under helgrind"
  exit 0
fi
echo "skip: neither -fsanitize=thread ($CC) nor valgrind's helgrind is available"
exit 77
