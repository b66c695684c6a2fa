#!/bin/sh
# SPDX-License-Identifier: MIT
# it_install.sh — `make install` into a DESTDIR gives a usable tree: examples/embed.c builds against it
# through pkg-config (shared and static) and judges the seed fixtures right (and a json+ stream on stdin
# with --live, as the installed etcd-fio verdict does), the installed CLI finds the
# installed engine, every man page renders without warnings and etcd-fio(1) names every subcommand and
# option the CLI accepts; `make uninstall` removes all of it.
set -u
BUILD=${BUILD:-build}
MAKE_BUILD=$BUILD   # as the top Makefile named it: another spelling would be other targets, rebuilt
top=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
# Under `make check-asan` the library is instrumented: whatever links it needs the sanitizer runtimes too.
# If a source changed since the build, `make install` rebuilds it: with check-asan's flags (Makefile) then.
ECFLAGS=""
PRELOAD=""   # fio is not instrumented: to load an instrumented engine it needs the runtimes first
# the fio source the build used (also when the caller's make did not get FIO_SRC on its command line)
set -- BUILD="$MAKE_BUILD" PREFIX=/usr/local FIO_SRC="$(sed -n 1p "$BUILD/fio-src.path" 2>/dev/null)"
if [ "${ASAN_BUILD:-}" = 1 ]; then
  ECFLAGS="-fsanitize=address,undefined"
  PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
  set -- "$@" CFLAGS='-O1 -g -fno-omit-frame-pointer' SAN='-fsanitize=address,undefined -fno-sanitize-recover=all'
fi
seeds=$top/tests/fixtures/seeds
# The one version number (fioreport.h): SONAME libfioreport.so.MAJOR, libfioreport.pc, etcd-fio --version.
hdr=$top/libreport/include/fioreport.h
vmaj=$(sed -n 's/^#define FIOR_VERSION_MAJOR \([0-9]*\).*/\1/p' "$hdr")
version=$vmaj.$(sed -n 's/^#define FIOR_VERSION_MINOR \([0-9]*\).*/\1/p' "$hdr").$(sed -n 's/^#define FIOR_VERSION_PATCH \([0-9]*\).*/\1/p' "$hdr")
[ "$vmaj" = 4 ] || { echo "FAIL: FIOR_VERSION_MAJOR is '$vmaj', this tree is libfioreport 4"; exit 1; }
tmp=$(mktemp -d /tmp/it_install.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
D=$tmp/root
P=/usr/local
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

for t in pkg-config man cc; do
  command -v $t >/dev/null || { echo "skip: $t not installed (mk/deps.sh installs it)"; exit 77; }
done

# Same PREFIX as the build (the CLI has $(PREFIX)/lib/etcd-fio compiled in); DESTDIR only stages.
if ! make -s -C "$top" "$@" DESTDIR="$D" install >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"; echo "FAIL: make install"; exit 1
fi

for f in bin/etcd-fio lib/etcd-fio/libetcdwal.so lib/libfioreport.so.$vmaj lib/libfioreport.a \
         include/fioreport.h include/fioreport_monitor.h lib/pkgconfig/libfioreport.pc share/man/man1/etcd-fio.1 \
         share/man/man3/libfioreport.3 share/man/man7/etcdwal.7; do
  [ -f "$D$P/$f" ] && [ -s "$D$P/$f" ] || fail "$P/$f not installed"
done
[ "$(readlink "$D$P/lib/libfioreport.so")" = libfioreport.so.$vmaj ] || fail "libfioreport.so is not a link to .so.$vmaj"
soname=$(objdump -p "$D$P/lib/libfioreport.so.$vmaj" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = libfioreport.so.$vmaj ] || fail "SONAME is '$soname', expected libfioreport.so.$vmaj"
grep -qx "Version: $version" "$D$P/lib/pkgconfig/libfioreport.pc" || fail "libfioreport.pc does not say Version: $version"
[ -x "$D$P/bin/etcd-fio" ] || fail "etcd-fio not executable"
grep -q "^prefix=$P\$" "$D$P/lib/pkgconfig/libfioreport.pc" || fail "libfioreport.pc does not name prefix=$P"
if grep -q "$tmp" "$D$P/lib/pkgconfig/libfioreport.pc"; then fail "libfioreport.pc leaks the DESTDIR path"; fi

# --- pkg-config against the staged tree: sysroot, then --define-variable ---
export PKG_CONFIG_PATH="$D$P/lib/pkgconfig"
flags=$(PKG_CONFIG_SYSROOT_DIR="$D" pkg-config --cflags --libs libfioreport) || fail "pkg-config libfioreport"
echo "pkg-config (sysroot): $flags"
case "$flags" in *"-I$D$P/include"*"-L$D$P/lib"*-lfioreport*) ok "pkg-config flags point into DESTDIR" ;;
  *) fail "unexpected pkg-config flags: $flags" ;; esac
flags2=$(pkg-config --define-variable=prefix="$D$P" --cflags --libs libfioreport)
# yajl's own -I (Requires.private: pkg-config adds its Cflags) is the system's: the sysroot moves it, the
# prefix does not; our flags must agree
ours() { for f in $*; do case $f in *yajl*) ;; *) printf '%s ' "$f" ;; esac; done; }
[ "$(ours $flags2)" = "$(ours $flags)" ] || fail "--define-variable=prefix gives '$flags2', sysroot gave '$flags'"
static=$(PKG_CONFIG_SYSROOT_DIR="$D" pkg-config --static --libs libfioreport)
case "$static" in *-lyajl*) ;; *) fail "static link flags lack yajl: $static" ;; esac

# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $ECFLAGS "$top/examples/embed.c" $flags -o "$tmp/embed" || fail "embed.c does not build against the install"
# static: the same pc file, with the archive picked by name (-l:) and yajl from Requires.private
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $ECFLAGS "$top/examples/embed.c" $(echo "$static" | sed 's/-lfioreport/-l:libfioreport.a/') \
  $(PKG_CONFIG_SYSROOT_DIR="$D" pkg-config --cflags libfioreport) -o "$tmp/embed-static" || fail "embed.c does not link statically"
if [ -x "$tmp/embed" ]; then
  lib=$(LD_LIBRARY_PATH="$D$P/lib" ldd "$tmp/embed" | awk '/libfioreport/ {print $3}')
  [ "$lib" = "$D$P/lib/libfioreport.so.$vmaj" ] || fail "embed resolves libfioreport to '$lib'"
  # Seed fixtures: fio 3.23 run passes (p99 2.54 ms), fio 3.7 msec run fails (p99 159 ms).
  out=$(LD_LIBRARY_PATH="$D$P/lib" "$tmp/embed" "$seeds/fio-3.23-normal-rke.txt"); rc=$?
  echo "$out"
  [ $rc -eq 0 ] && echo "$out" | grep -q "p99 2.5[0-9]* ms" && echo "$out" | grep -q "overall: pass" \
    && ok "embed: fio-3.23 fixture PASS" || fail "embed on fio-3.23 fixture: rc=$rc"
  out=$(LD_LIBRARY_PATH="$D$P/lib" "$tmp/embed" "$seeds/fio-3.7-normal-msec.txt"); rc=$?
  echo "$out"
  [ $rc -eq 1 ] && echo "$out" | grep -q "p99 159" && echo "$out" | grep -q "overall: fail" \
    && ok "embed: fio-3.7 fixture FAIL" || fail "embed on fio-3.7 fixture: rc=$rc"
  # --live: fior_json_stream and fior_monitor through the installed library, the installed CLI's verdict
  jp=$top/tests/fixtures/fio/fio-3.33-jsonplus.json
  out=$(LD_LIBRARY_PATH="$D$P/lib" "$tmp/embed" --live --wal-only < "$jp" 2>&1); rc=$?
  "$D$P/bin/etcd-fio" verdict "$jp" >/dev/null 2>&1; vrc=$?
  [ $rc -eq 0 ] && [ $vrc -eq 0 ] && echo "$out" | grep -q "^WAL fdatasync: pass" \
    && ok "embed --live: a json+ output on stdin passes, as verdict says" || fail "embed --live: rc=$rc (verdict $vrc): $out"
  printf 'not fio output\n' > "$tmp/junk.txt"
  out=$(LD_LIBRARY_PATH="$D$P/lib" "$tmp/embed" "$tmp/junk.txt" 2>&1); rc=$?
  [ $rc -eq 2 ] && echo "$out" | grep -q "junk.txt" && ok "embed: junk input -> 2 with the file named" \
    || fail "embed on junk: rc=$rc: $out"
fi
if [ -x "$tmp/embed-static" ]; then
  "$tmp/embed-static" "$seeds/fio-3.7-normal-msec.txt" >/dev/null; rc=$?
  [ $rc -eq 1 ] && ok "static embed: FAIL on fio-3.7" || fail "static embed rc=$rc"
  if ldd "$tmp/embed-static" | grep -q libfioreport; then fail "static embed still needs libfioreport.so"; fi
fi

# --- the installed CLI finds the installed engine (beside it in ../lib/etcd-fio) ---
[ "$("$D$P/bin/etcd-fio" --version | head -n 1)" = "etcd-fio $version" ] || fail "installed etcd-fio --version does not start with 'etcd-fio $version'"
job=$(env -u ETCD_FIO_ENGINE "$D$P/bin/etcd-fio" job 2>&1); rc=$?
if [ $rc -eq 0 ]; then
  echo "$job" | grep -q "ioengine=external:$D$P/lib/etcd-fio/libetcdwal.so" \
    && ok "installed etcd-fio job uses the installed engine" || fail "installed job does not use the installed engine: $(echo "$job" | grep ioengine)"
else
  fail "installed etcd-fio job: rc=$rc: $job"
fi

# --- man pages: render without warnings; etcd-fio(1) covers the CLI ---
for m in "$D$P"/share/man/man*/*; do
  MANWIDTH=80 man --warnings -l "$m" >"$tmp/man.txt" 2>"$tmp/man.err"
  if [ -s "$tmp/man.err" ]; then fail "man $m: $(head -3 "$tmp/man.err")"
  elif ! grep -q "^NAME" "$tmp/man.txt"; then fail "man $m has no NAME section"
  else ok "man -l $(basename "$m") renders cleanly ($(wc -l < "$tmp/man.txt") lines)"; fi
done
# the page source with roff escapes undone (rendered text may hyphenate an option at a line end)
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\fR//g' "$D$P/share/man/man1/etcd-fio.1" > "$tmp/etcd-fio.txt"
cmds=$("$D$P/bin/etcd-fio" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ -n "$cmds" ] || fail "etcd-fio --help lists no commands"
for c in $cmds; do
  grep -q "^\.S[SY] \"*etcd-fio $c" "$tmp/etcd-fio.txt" || fail "etcd-fio(1) does not describe '$c'"
  # every long option the subcommand's --help names must be in the page
  for o in $("$D$P/bin/etcd-fio" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -q -- "$o" "$tmp/etcd-fio.txt" || fail "etcd-fio(1) does not mention '$c $o'"
  done
done
# every function the installed headers export is in libfioreport(3)
for fn in $(cat "$D$P/include/fioreport.h" "$D$P/include/fioreport_monitor.h" | sed -n 's/^FIOR_API[^(]*[ *]\(fior_[a-z_]*\)(.*/\1/p'); do
  grep -q "^\.BR $fn ()" "$D$P/share/man/man3/libfioreport.3" || fail "libfioreport(3) does not document $fn()"
done
# every option the installed engine registers with fio must be in etcdwal(7)
eopts=$(LD_PRELOAD="$PRELOAD" ASAN_OPTIONS=detect_leaks=0 ${FIO:-fio} --enghelp="$D$P/lib/etcd-fio/libetcdwal.so" 2>&1 | awk -F' *:' '/^etcd_/ {print $1}')
[ -n "$eopts" ] || fail "fio --enghelp lists no etcd_ options of the installed engine"
for o in $eopts; do
  sed 's/\\-/-/g' "$D$P/share/man/man7/etcdwal.7" | grep -q -- "$o" || fail "etcdwal(7) does not document $o"
done

# --- uninstall leaves nothing behind ---
make -s -C "$top" "$@" DESTDIR="$D" uninstall >"$tmp/uninstall.log" 2>&1 || fail "make uninstall"
left=$(find "$D" -type f -o -type l)
[ -z "$left" ] && ok "uninstall removed every file" || fail "uninstall left: $left"

[ $fails -eq 0 ] || { echo "it_install: $fails failure(s)"; exit 1; }
echo "it_install: all passed"
