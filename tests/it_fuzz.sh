#!/bin/sh
# SPDX-License-Identifier: MIT
# it_fuzz.sh — a short libFuzzer run of every harness in fuzz/ (IT_FUZZ_SECONDS each, default 10) as part
# of `make check`, built in a private build dir. Skipped (77) when clang or its fuzzer runtime is missing.
# A crash fails the test and names the input to add under tests/regress/<harness>/.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SECS=${IT_FUZZ_SECONDS:-10}
CLANG=${FUZZ_CC:-clang}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
PRIV=$B/it-fuzz

command -v "$CLANG" >/dev/null 2>&1 || { echo "skip: $CLANG not installed (needed for libFuzzer)"; exit 77; }
probe=$(mktemp -d /tmp/it-fuzz-probe.XXXXXX) || exit 1
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$probe/p.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
  echo "skip: $CLANG cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-14-dev):"
  head -n 3 "$probe/log"
  exit 77
fi

# The outer make's command-line variables (BUILD, SAN, …) must not leak into this private build.
start=$(date +%s)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN -u OPT \
  make -s -C "$TOP" BUILD="$PRIV" FUZZ_SECONDS="$SECS" fuzz
rc=$?
echo "it_fuzz: $(($(date +%s) - start)) s in total (build + ${SECS} s per harness)"
[ $rc -eq 0 ] || { echo "FAIL: a fuzzer found a crash or the fuzz build failed (see above)"; exit 1; }
exit 0
