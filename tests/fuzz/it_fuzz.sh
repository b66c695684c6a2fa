#!/bin/sh
# SPDX-License-Identifier: MIT
# it_fuzz.sh — a short libFuzzer run of every harness in fuzz/ as part of `make check`, built in a private
# build dir: each harness first replays its whole corpus (the seed fixtures and tests/regress/<harness>/),
# then mutates for IT_FUZZ_SECONDS (default 3) from a fixed seed (IT_FUZZ_SEED, default 1; empty: libFuzzer
# picks one), so that a CI run explores the same inputs every time: a failure here is a bug, reproducible
# from the input it names, never a roll of the dice. Long campaigns: `make fuzz FUZZ_SECONDS=300`.
# Skipped (77) when clang or its fuzzer runtime is missing, and under `make check-asan`: the harnesses are
# built with clang's ASan+UBSan whatever the outer build, so that second run would be the same one again.
# A crash fails the test and names the input to add under tests/regress/<harness>/.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
SECS=${IT_FUZZ_SECONDS:-3}
SEED=${IT_FUZZ_SEED-1}
CLANG=${FUZZ_CC:-clang}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
PRIV=$B/it-fuzz

[ "${ASAN_BUILD:-}" = 1 ] && { echo "skip: under check-asan (the fuzz harnesses are ASan+UBSan builds; make check ran them)"; exit 77; }
command -v "$CLANG" >/dev/null 2>&1 || { echo "skip: $CLANG not installed (needed for libFuzzer)"; exit 77; }
probe=$(mktemp -d /tmp/it-fuzz-probe.XXXXXX) || exit 1
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$probe/p.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
  echo "skip: $CLANG cannot link -fsanitize=fuzzer,address,undefined (install libclang-rt-dev):"
  head -n 3 "$probe/log"
  exit 77
fi

# The outer make's command-line variables (BUILD, SAN, …) must not leak into this private build.
start=$(date +%s)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN -u OPT \
  make -s -j2 -C "$TOP" BUILD="$PRIV" fuzz-build || { echo "FAIL: the fuzz build failed (see above)"; exit 1; }
built=$(date +%s)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN -u OPT FUZZ_SEED="$SEED" \
  make -s -C "$TOP" BUILD="$PRIV" FUZZ_SECONDS="$SECS" fuzz
rc=$?
echo "it_fuzz: $(($(date +%s) - start)) s in total (build $((built - start)) s, then ${SECS} s per harness, seed ${SEED:-random})"
[ $rc -eq 0 ] || { echo "FAIL: a fuzzer found a crash (see above)"; exit 1; }
exit 0
