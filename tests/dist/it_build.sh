#!/bin/sh
# SPDX-License-Identifier: MIT
# it_build.sh — the build as a distribution packages it, in private build directories:
#  - plain `make` never installs or downloads: with a pkg-config module, the compiler or fio's source
#    missing it stops with one line naming what is missing and `make deps`, and apt-get, apt, sudo and
#    dpkg-source (fakes first in PATH) are never run; a FIO_SRC of another fio version is refused;
#  - CC, CPPFLAGS, CFLAGS and LDFLAGS are used as given (every compile has the caller's -O1 and
#    -D_FORTIFY_SOURCE=2 and no -O2; -Wl,-z,now makes all three artifacts BIND_NOW); -Werror only with
#    DEVELOPER=1; a change of flags recompiles, the same flags again compile nothing;
#  - the engine built here refuses, in one line of its own, a fio of another version (a copy of this fio
#    whose version string says fio-9.99), and fio exits with an error, not a signal; `etcd-fio check`
#    with that fio is UNKNOWN with the engine's line as its reason;
#  - CC=clang builds the product warning-free; debian/changelog's version is the library's.
. "$(dirname "$0")/../lib/lib.sh"
need_built "$B/fio-src.path" "$CLI"
SRC=$(sed -n 1p "$B/fio-src.path")
[ -f "$SRC/config-host.h" ] || { echo "FAIL: $B/fio-src.path names $SRC, not a configured fio tree"; exit 1; }
command -v readelf >/dev/null 2>&1 || { echo "skip: readelf (binutils) not installed"; exit 77; }
WORK=$(mktemp -d /var/tmp/it-build.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
# make in this tree, not make check's (its MAKEFLAGS, DEVELOPER and BUILD stay out)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEVELOPER -u CFLAGS -u CPPFLAGS -u LDFLAGS \
         make --no-print-directory -C "$TOP" "$@"; }

# fakes of everything that installs or downloads: each call is logged, and fails
mkdir -p "$WORK/fake" "$WORK/empty-pc"
for t in apt-get apt sudo dpkg-source; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 1\n' "$t" "$WORK" > "$WORK/fake/$t"
  chmod +x "$WORK/fake/$t"
done
FAKEPATH=$WORK/fake:$PATH
# expect_refused NAME PATTERN MAKE-ARGS…: make fails; stderr has exactly one line of ours matching PATTERN
expect_refused() {
  name=$1 pat=$2; shift 2
  PATH=$FAKEPATH mk "$@" all > "$WORK/$name.out" 2> "$WORK/$name.err"
  rc=$?
  ours=$(grep -v '^make: \*\*\*' "$WORK/$name.err")
  if [ $rc -eq 0 ]; then fail "$name: make succeeded"
  elif [ "$(printf '%s\n' "$ours" | grep -c .)" != 1 ] || ! printf '%s\n' "$ours" | grep -qE "$pat"; then
    fail "$name: expected one line matching /$pat/, got: $(cat "$WORK/$name.err")"
  else ok "$name: make exits $rc with one line: $ours"; fi
  if [ -s "$WORK/called" ]; then fail "$name: ran $(cat "$WORK/called")"; : > "$WORK/called"; fi
  # a missing tool or module stops the build before anything is compiled; a missing fio source only the engine
  case $name in
    no-*src|other-*src) [ -z "$(find "$WORK/b-$name" -name '*.glue.o' 2>/dev/null)" ] || fail "$name: compiled the engine" ;;
    *) [ -z "$(find "$WORK/b-$name" -name '*.o' 2>/dev/null)" ] || fail "$name: compiled something before refusing" ;;
  esac
}
# the build's compile commands, one per line (make echoes a recipe's continued lines as they are)
compiles() { sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | grep -E '(^| )-c '; }
expect_refused no-yajl "missing .*pkg-config module yajl .*make deps" \
  BUILD="$WORK/b-no-yajl" FIO_SRC="$SRC" PKG_CONFIG_LIBDIR="$WORK/empty-pc" PKG_CONFIG_PATH=
expect_refused no-cc "missing tool no-such-cc .*make deps" BUILD="$WORK/b-no-cc" FIO_SRC="$SRC" CC=no-such-cc
expect_refused no-fio-src "no configured source of the installed fio-.*make deps.*FIO_SRC" \
  BUILD="$WORK/b-no-fio-src" FIO_SRC= FIO_SRC_CACHE="$WORK/no-cache"
mkdir -p "$WORK/fio-3.7"
printf '#!/bin/sh\nDEF_VER=fio-3.7\n' > "$WORK/fio-3.7/FIO-VERSION-GEN"
expect_refused other-fio-src "FIO_SRC=.* is fio-3.7 but .* is fio-" BUILD="$WORK/b-other-fio-src" FIO_SRC="$WORK/fio-3.7"

# the caller's flags, as dpkg-buildflags gives them
B2=$WORK/b2
if mk BUILD="$B2" FIO_SRC="$SRC" CFLAGS='-O1 -g' CPPFLAGS='-D_FORTIFY_SOURCE=2' LDFLAGS='-Wl,-z,relro -Wl,-z,now' \
     all > "$WORK/b2.log" 2>&1; then
  compiles "$WORK/b2.log" > "$WORK/b2.cc"
  n=$(wc -l < "$WORK/b2.cc")
  [ "$n" -gt 20 ] || fail "only $n compile lines in the build"
  [ "$(grep -c -- ' -O1 ' "$WORK/b2.cc")" = "$n" ] && [ "$(grep -c -- '-D_FORTIFY_SOURCE=2' "$WORK/b2.cc")" = "$n" ] &&
    ! grep -q -- '-O2' "$WORK/b2.cc" && ok "CFLAGS=-O1 and CPPFLAGS in all $n compiles, no -O2" ||
    fail "caller's flags not in every compile: $(grep -v -- ' -O1 ' "$WORK/b2.cc" | head -n 1)"
  grep -q -- '-Werror' "$WORK/b2.cc" && fail "-Werror without DEVELOPER=1" || ok "no -Werror without DEVELOPER=1"
  for f in etcd-fio libetcdwal.so libfioreport.so; do
    readelf -d "$B2/$f" | grep -q 'BIND_NOW' || fail "$f: LDFLAGS -Wl,-z,now not used (no BIND_NOW)"
  done
  ok "LDFLAGS used for the CLI, the engine and the library (BIND_NOW)"
  mk BUILD="$B2" FIO_SRC="$SRC" DEVELOPER=1 all > "$WORK/b3.log" 2>&1 || fail "DEVELOPER=1 build: $(tail -n 3 "$WORK/b3.log")"
  n3=$(compiles "$WORK/b3.log" | wc -l)
  [ "$n3" = "$n" ] && [ "$(compiles "$WORK/b3.log" | grep -c -- '-Werror')" = "$n" ] &&
    grep -q -- ' -O2 ' "$WORK/b3.log" && ok "new flags recompile all $n (DEVELOPER=1: -Werror; default CFLAGS -O2 -g)" ||
    fail "flag change: $n3 of $n recompiled, or without -Werror/-O2"
  mk BUILD="$B2" FIO_SRC="$SRC" DEVELOPER=1 all > "$WORK/b4.log" 2>&1
  [ "$(compiles "$WORK/b4.log" | wc -l)" = 0 ] && ok "the same flags again: nothing recompiled" ||
    fail "unchanged flags recompiled: $(compiles "$WORK/b4.log" | head -n 1)"
else
  fail "build with the caller's flags: $(tail -n 5 "$WORK/b2.log")"
fi

# another compiler (clang, a test dependency): the product builds warning-free (DEVELOPER=1) and its
# engine runs in fio
if command -v clang >/dev/null 2>&1 && [ "${ASAN_BUILD:-}" != 1 ]; then
  if mk BUILD="$WORK/b-clang" FIO_SRC="$SRC" CC=clang DEVELOPER=1 all > "$WORK/clang.log" 2>&1; then
    mkdir -p "$WORK/dc"
    "$FIO" --name=c --ioengine=external:"$WORK/b-clang/libetcdwal.so" --directory="$WORK/dc" --rw=write --bs=2300 \
      --fdatasync=1 --size=1m --output-format=json > "$WORK/clang.json" 2>&1 &&
      ok "CC=clang DEVELOPER=1: the CLI, library and engine build; the engine runs in fio" ||
      fail "the clang-built engine in fio: $(tail -n 3 "$WORK/clang.json")"
  else
    fail "CC=clang DEVELOPER=1: $(grep -m 3 -E 'error|warning' "$WORK/clang.log")"
  fi
else
  echo "SKIP: clang part (no clang, or under check-asan)"
fi
# the package's version is the library's (make deb refuses otherwise; this says so before a release)
dv=$(sed -n '1s/^etcd-fio (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
hv=$(sed -n 's/^#define FIOR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$TOP/libreport/include/fioreport.h" | paste -sd.)
[ "$dv" = "$hv" ] && ok "debian/changelog is at $hv, as fioreport.h" || fail "debian/changelog at $dv, fioreport.h at $hv"

# another fio than the engine's: a copy of this one whose version string is changed (same length)
real=$(command -v "$FIO")
V=$("$real" --version)
OTHER=$WORK/fio-other
if [ "${ASAN_BUILD:-}" = 1 ]; then
  # check-asan's $FIO is tests/faults.mk's wrapper (libasan preloaded for the ASan-built engine): the same
  # wrapper around the changed copy of the fio it runs
  asan_real=$(sed -n 's/^exec "\(.*\)" "\$@"$/\1/p' "$real")
  sed "s/$V/fio-9.99/g" "$asan_real" > "$WORK/fio-other.bin" && chmod +x "$WORK/fio-other.bin"
  sed "s|^exec \".*\" \"\$@\"$|exec \"$WORK/fio-other.bin\" \"\$@\"|" "$real" > "$OTHER"
else
  sed "s/$V/fio-9.99/g" "$real" > "$OTHER"
fi
chmod +x "$OTHER"
if [ "$("$OTHER" --version)" = fio-9.99 ]; then
  mkdir -p "$WORK/d"
  "$OTHER" --name=x --ioengine=external:"$ENGINE" --directory="$WORK/d" --rw=write --bs=2300 \
    --fdatasync=1 --size=1m > "$WORK/other.out" 2>&1
  rc=$?
  line=$(grep '^etcdwal:' "$WORK/other.out")
  if [ $rc -ge 128 ]; then fail "the engine in fio-9.99: fio died of signal $((rc - 128))"
  elif [ $rc -eq 0 ]; then fail "the engine loaded into fio-9.99"
  elif [ "$(printf '%s\n' "$line" | grep -c .)" = 1 ] &&
       printf '%s\n' "$line" | grep -q "^etcdwal: this engine was built against the source of $V and cannot run in fio-9.99"; then
    ok "fio-9.99 refuses the engine of $V (exit $rc), one line of the engine's: $line"
  else fail "fio-9.99 with the engine (exit $rc): $(cat "$WORK/other.out")"; fi
  COLUMNS=400 FIO=$OTHER "$CLI" check --max-time 15 --min-syncs 20 --accept-point-estimate "$WORK/d" > "$WORK/chk.out" 2> "$WORK/chk.err"
  rc=$?
  [ $rc = 2 ] && head -n 1 "$WORK/chk.out" | grep -q "^unknown: .*etcdwal: this engine was built against the source of $V and cannot run in fio-9.99" &&
    ok "etcd-fio check with fio-9.99: unknown, the engine's line as the reason" ||
    fail "etcd-fio check with fio-9.99 (exit $rc): $(head -n 2 "$WORK/chk.out")"
  [ -z "$(ls -A "$WORK/d")" ] || fail "files left: $(ls -A "$WORK/d")"
else
  echo "SKIP: cannot make a fio with another version string from $real: refusal not tested"
fi
finish it_build
