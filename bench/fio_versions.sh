#!/bin/sh
# SPDX-License-Identifier: MIT
# fio_versions.sh — the fio version matrix (issue 22): for each fio release tag, build that fio from fio's
# own git repository, build the engine against that tree, and run with that fio the WAL format check
# (tests/engine/it_engine_wal.sh), the backend shape check (tests/engine/it_backend.sh), a short `etcd-fio check`, and
# at the end each engine loaded into another version's fio (refused in one line of its own, never a crash).
# Prints one table row per version (also OUT/matrix.md); every step's log is kept under OUT/fio-3.N/.
#
#   sh bench/fio_versions.sh FIO_GIT_DIR [TAGS…]     default tags: the fio versions operators have
#                                                    (RHEL 8: 3.7, 3.19; Ubuntu 20.04: 3.16; SLES 15: 3.23;
#                                                    Ubuntu 22.04: 3.28; RHEL 9: 3.35; Ubuntu 24.04: 3.36;
#                                                    Debian 13: 3.39; the newest release: 3.42)
#   env: OUT (default ${TMPDIR:-/tmp}/etcd-fio-versions; fio builds are cached there, never in this tree),
#        JOBS (make -j, default 2), CHECK_ARGS (default: the shortest check that decides, as
#        tests/cli/it_html.sh runs it: --max-time 15 --min-syncs 20 --accept-point-estimate),
#        FIXTURES=1 also regenerates tests/fixtures/fio-3.N/ with each build (tests/gen/gen-fio-matrix.sh).
# fio's code is only ever extracted (git archive) under OUT, outside both repositories.
#
# Old fio on a current Debian needs two things that are not fio's fault, both supplied here (never by the
# engine): <linux/raw.h>, which kernel headers dropped in 5.14 (fio < 3.30 includes it in os/os-linux.h;
# a stub with the two ioctls is put first in the include path), and, for fio < 3.16, a rename of fio's own
# static gettid(), which glibc >= 2.30 declares as well (fio commit de5ed0e4 added the configure test).
# -fcommon: fio before 3.22 has tentative definitions in several files (gcc >= 10 defaults to -fno-common).
set -u
GIT=${1:?usage: fio_versions.sh FIO_GIT_DIR [TAGS...]}
shift
TAGS=${*:-fio-3.7 fio-3.16 fio-3.19 fio-3.23 fio-3.28 fio-3.35 fio-3.36 fio-3.39 fio-3.42}
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-${TMPDIR:-/tmp}/etcd-fio-versions}
JOBS=${JOBS:-2}
CHECK_ARGS=${CHECK_ARGS:---max-time 15 --min-syncs 20 --accept-point-estimate}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
case $OUT/ in "$TOP"/*) echo "fio_versions: OUT=$OUT is inside this tree; fio's code must stay outside it" >&2; exit 2 ;; esac
git -C "$GIT" rev-parse --git-dir >/dev/null 2>&1 || { echo "fio_versions: $GIT is not a git repository" >&2; exit 2; }
log() { echo "fio_versions: $*" >&2; }

# ---- the build helpers (in OUT/stub) ----
STUB=$OUT/stub
mkdir -p "$STUB/linux"
cat > "$STUB/linux/raw.h" <<'EOF'
/* fio_versions.sh: stub of the uapi header <linux/raw.h> removed in Linux 5.14; fio < 3.30 includes it
 * (os/os-linux.h) for the raw-device binding it no longer uses. */
#ifndef ETCDFIO_STUB_LINUX_RAW_H
#define ETCDFIO_STUB_LINUX_RAW_H
#include <linux/ioctl.h>
#include <linux/types.h>
#define RAW_SETBIND _IO(0xac, 0)
#define RAW_GETBIND _IO(0xac, 1)
struct raw_config_request { int raw_minor; __u64 block_major; __u64 block_minor; };
#endif
EOF
cat > "$STUB/gettid.h" <<'EOF'
/* fio_versions.sh: fio < 3.16 defines a static gettid() (os/os-linux.h) that glibc >= 2.30 declares too;
 * with glibc's declaration seen first, fio's own becomes fio_gettid. */
#include <unistd.h>
#define gettid fio_gettid
EOF
STUBFLAG=""
printf '#include <linux/raw.h>\n' | ${CC:-cc} -E -x c - >/dev/null 2>&1 || STUBFLAG="-I$STUB"

build_fio() { # TAG -> OUT/TAG/fio, OUT/TAG/src (configured)
  d=$OUT/$1
  [ -f "$d/.built" ] && [ -x "$d/fio" ] && return 0
  rm -rf "$d" && mkdir -p "$d"
  git -C "$GIT" archive --prefix=src/ "$1" | tar -x -C "$d" || { log "$1: git archive failed"; return 1; }
  extra="$STUBFLAG -fcommon -Wno-error"
  grep -q CONFIG_HAVE_GETTID "$d/src/configure" || extra="$extra -include $STUB/gettid.h"
  ( cd "$d/src" && ./configure --extra-cflags="$extra" > "$d/fio-configure.log" 2>&1 &&
    make -j"$JOBS" > "$d/fio-make.log" 2>&1 ) || { log "$1: fio does not build (see $d/fio-make.log)"; return 1; }
  cp "$d/src/fio" "$d/fio" && touch "$d/.built"
}

ioops() { sed -n 's/^#define FIO_IOOPS_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$OUT/$1/src/ioengines.h"; }

# ---- the matrix ----
ROWS=$OUT/matrix.md
{
  echo "| fio | FIO_IOOPS_VERSION | engine builds | WAL format | backend shape | profile judged | etcd-fio check | this engine in another fio |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$ROWS"
built=""
t0=$(date +%s)
for tag in $TAGS; do
  d=$OUT/$tag
  B=$d/build
  log "$tag: building fio"
  if ! build_fio "$tag"; then
    rm -f "$d/row"; continue
  fi
  V=$("$d/fio" --version)
  log "$tag ($V): building the engine against its tree"
  eng=ok
  make -s -C "$TOP" BUILD="$B" FIO_SRC="$d/src" FIO="$d/fio" CPPFLAGS="$STUBFLAG" DEVELOPER=1 \
    "$B/libetcdwal.so" "$B/etcd-fio" "$B/tests/waldump" > "$d/engine-build.log" 2>&1 || eng="FAILS: $(grep -m1 -E 'error|etcd-fio|fio-src' "$d/engine-build.log")"
  wal=-; backend=-; judged=-; chk=-
  if [ "$eng" = ok ]; then
    BUILD=$B FIO=$d/fio sh "$TOP/tests/engine/it_engine_wal.sh" > "$d/wal.log" 2>&1 && wal=pass || wal="FAIL (wal.log)"
    [ "$wal" = pass ] && wal="pass: $(sed -n 's/^waldump: OK segments=\([0-9]*\) .*/\1 segments, chain intact/p' "$d/wal.log")"
    # it_backend.sh part 1 is the engine's syscall shape; part 2 judges the profile's fio JSON (the reader)
    BUILD=$B FIO=$d/fio sh "$TOP/tests/engine/it_backend.sh" > "$d/backend.log" 2>&1
    n=$(sed -n 's/^ok: \([0-9]*\) commits, each: .*/\1/p' "$d/backend.log")
    if [ -n "$n" ] && grep -q '^ok: 2 growths' "$d/backend.log" && grep -q '^ok: append share' "$d/backend.log"; then
      backend="pass: $n commits as bbolt's"
    else backend="FAIL (backend.log)"; fi
    if grep -q '^ok: backend job judged against 25 ms' "$d/backend.log" && grep -q '^ok: WAL job judged against 10 ms' "$d/backend.log"; then
      judged=yes
    else judged="no: $(grep -m1 -o 'unknown .*' "$d/backend.log" | cut -c1-90)"; fi
    cdir=$(mktemp -d "$d/check.XXXXXX")
    # shellcheck disable=SC2086
    FIO=$d/fio "$B/etcd-fio" check $CHECK_ARGS "$cdir" > "$d/check.log" 2>&1
    crc=$?
    left=$(ls -A "$cdir" | wc -l); rm -rf "$cdir"
    first=$(head -n 1 "$d/check.log")
    case $crc in
      0|1) chk="judged (exit $crc): $(echo "$first" | cut -c1-60)" ;;
      *) chk="UNKNOWN (exit $crc): $(echo "$first" | cut -c1-80)" ;;
    esac
    [ "$left" -eq 0 ] || chk="$chk; LEFT $left files"
  fi
  if [ "${FIXTURES:-}" = 1 ] && [ "$eng" = ok ]; then
    log "$tag: fixtures"
    FIO=$d/fio ENGINE=$B/libetcdwal.so CLI=$B/etcd-fio sh "$TOP/tests/gen/gen-fio-matrix.sh" > "$d/fixtures.log" 2>&1 ||
      log "$tag: fixture generation failed (see $d/fixtures.log)"
  fi
  printf '%s\n' "$V" "$(ioops "$tag")" "$eng" "$wal" "$backend" "$judged" "$chk" > "$d/row"
  log "$tag: engine=$eng wal=$wal backend=$backend check=$chk"
  [ "$eng" = ok ] && built="$built $tag"
done

# Each engine in another version's fio (the next one; the last one's in the one before): refused by the
# engine's own line before any hook runs, fio exits with an error, never a signal.
foreign() { # ENGINE_TAG FIO_TAG
  fdir=$(mktemp -d)
  "$OUT/$2/fio" --name=x --ioengine=external:"$OUT/$1/build/libetcdwal.so" --directory="$fdir" \
    --rw=write --bs=2300 --fdatasync=1 --size=1m > "$OUT/$1/foreign.log" 2>&1
  frc=$?
  left=$(ls -A "$fdir" | wc -l); rm -rf "$fdir"
  line=$(grep -m1 '^etcdwal: this engine was built' "$OUT/$1/foreign.log")
  if [ "$frc" -ge 128 ]; then echo "in $2: CRASH (signal $((frc - 128)))"
  elif [ "$frc" -eq 0 ]; then echo "in $2: NOT REFUSED"
  elif [ -n "$line" ] && [ "$left" = 0 ]; then echo "in $2: refused (exit $frc): \"$(echo "$line" | cut -c1-64)…\""
  else echo "in $2: refused without the engine's line: $(head -n1 "$OUT/$1/foreign.log")"; fi
}
set -- $built
for tag in $TAGS; do
  d=$OUT/$tag
  if [ ! -f "$d/row" ]; then
    echo "| $tag | ? | fio does not build here | | | | | |" >> "$ROWS"; continue
  fi
  partner=""
  if [ -f "$d/build/libetcdwal.so" ]; then
    prev=""; for t in $built; do [ "$prev" = "$tag" ] && partner=$t; prev=$t; done
    [ -n "$partner" ] || for t in $built; do [ "$t" = "$tag" ] && break; partner=$t; done
  fi
  f=-
  [ -n "$partner" ] && f=$(foreign "$tag" "$partner")
  row="|"
  while IFS= read -r c; do row="$row $c |"; done < "$d/row"
  echo "$row $f |" >> "$ROWS"
done
echo "fio_versions: $(($(date +%s) - t0)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$ROWS"
cat "$ROWS"
