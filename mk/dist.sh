#!/bin/sh
# SPDX-License-Identifier: MIT
# The relocatable release tarball: etcd-fio-VERSION-linux-ARCH.tar.gz (x86_64, aarch64) with bin/etcd-fio,
# its own fio (lib/etcd-fio/fio, built from Debian's fio source package pinned below), lib/etcd-fio/
# libetcdwal.so built against exactly that fio, the man pages, README, LICENSE and the licenses of what it
# carries. Built against Debian bullseye's C library (glibc 2.31), with the few newer symbol versions
# avoided (mk/glibc_floor.h), so that it runs on glibc 2.28 (RHEL 8) and any later one; yajl is linked in
# and libcurl is loaded from the host when --etcd or a URL needs it (tools/curl_dl.c), so every ELF needs only libc, libm, libpthread, libdl, librt and ld-linux.
#   mk/dist.sh deps ARCH    network: the build root (mmdebstrap; for aarch64 an extracted arm64 sysroot used
#                           by Debian's cross compiler) and the fio source package, cached under build/dist
#   mk/dist.sh build ARCH   offline: fio, the engine and the CLI, the tarball and its .sha256 in build/dist/out
set -eu
MODE=${1:?usage: mk/dist.sh deps|build x86_64|aarch64}
ARCH=${2:-x86_64}
TOP=$(pwd)
D=$TOP/${DIST_DIR:-build/dist}
MIRROR=${DIST_MIRROR:-http://deb.debian.org/debian}
SUITE=bullseye
# fio as Debian ships it in bookworm (its patches applied); the tarball's fio and engine are this version.
FIO_DEB=3.33-3
FIO_UP=${FIO_DEB%-*}
FIO_TREE=$D/src/fio-$FIO_UP
case $ARCH in
  x86_64) DEBARCH=amd64; TRIPLE=x86_64-linux-gnu ;;
  aarch64) DEBARCH=arm64; TRIPLE=aarch64-linux-gnu ;;
  *) echo "dist: unknown architecture '$ARCH' (x86_64 or aarch64)" >&2; exit 2 ;;
esac
ROOT=$D/roots/$SUITE-$DEBARCH-build
[ "$ARCH" = aarch64 ] && ROOT=$D/roots/arm64-$SUITE-sysroot
BUILD_DEBS=gcc,make,libc6-dev,pkg-config,libyajl-dev,libcurl4-openssl-dev

fetch_fio() { # Debian's source package into $D/src (private apt lists: the system's are untouched)
  [ -f "$FIO_TREE/FIO-VERSION-GEN" ] && return 0
  A=$D/src/apt
  mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR bookworm main" > "$A/sources.list"
  O="-o Dir::Etc::SourceList=$A/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$A/lists
     -o Dir::Cache=$A/cache -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
  # shellcheck disable=SC2086
  apt-get -qq $O update >&2
  # shellcheck disable=SC2086
  ( cd "$D/src" && apt-get -qq $O source --download-only "fio=$FIO_DEB" >&2 )
  rm -rf "$FIO_TREE"
  dpkg-source --no-check -x "$D/src/fio_$FIO_DEB.dsc" "$FIO_TREE" >&2
}

sysroot_links() { # DIR: absolute symbolic links (libm.so -> /lib/...) made to point inside the sysroot
  find "$1" -type l -lname '/*' | while IFS= read -r l; do ln -sfn "$1$(readlink "$l")" "$l"; done
}

make_root() {
  [ -d "$ROOT" ] && return 0
  mkdir -p "$D/roots"
  rm -rf "$ROOT.tmp"
  if [ "$ARCH" = aarch64 ]; then # extracted only (no maintainer scripts): a sysroot for the cross compiler
    mmdebstrap --arch=arm64 --variant=extract --include="$BUILD_DEBS,libgcc-10-dev" "$SUITE" "$ROOT.tmp" "$MIRROR" >&2
  else
    mmdebstrap --variant=apt --include="$BUILD_DEBS" "$SUITE" "$ROOT.tmp" "$MIRROR" >&2
  fi
  mv "$ROOT.tmp" "$ROOT"
  # at its final path: a link made under $ROOT.tmp would dangle, and the cross linker would then take the
  # static libdl.a and the cross compiler's own libgcc_s (built for a newer glibc) instead of the sysroot's
  if [ "$ARCH" = aarch64 ]; then sysroot_links "$ROOT"; fi
}

if [ "$MODE" = deps ]; then
  fetch_fio
  make_root
  exit 0
fi
[ "$MODE" = build ] || { echo "usage: mk/dist.sh deps|build x86_64|aarch64" >&2; exit 2; }
[ -f "$FIO_TREE/FIO-VERSION-GEN" ] && [ -d "$ROOT" ] || {
  echo "dist: no build root or fio source for $ARCH under ${DIST_DIR:-build/dist}: run 'make dist-deps' first" >&2; exit 1; }

# The sources: fio's (configured and built once per architecture) and ours (every tracked and new file).
W=$D/work-$ARCH
if [ "$ARCH" = x86_64 ]; then W=$ROOT/src; fi
mkdir -p "$W"
FIOB=$W/fio-$FIO_UP
[ -f "$FIOB/FIO-VERSION-GEN" ] || cp -a "$FIO_TREE" "$FIOB"
rm -rf "$W/etcd-fio" && mkdir -p "$W/etcd-fio"
git ls-files -co --exclude-standard -z | xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
  tar --null -T - -cf - | tar -xf - -C "$W/etcd-fio"

# -DETCDFIO_CURL_DLOPEN: libcurl from the host at run time; yajl's static archive (Debian: libyajl_s.a).
FLAGS="YAJL_LIBS=/usr/lib/$TRIPLE/libyajl_s.a CURL_LIBS=-ldl"
FIOCONF="--disable-native"
FIOMAKE=""
if [ "$ARCH" = x86_64 ]; then
  run() { chroot "$ROOT" /bin/sh -c "$1"; }
  SRC=/src
  LIBDIRS=/usr/lib/$TRIPLE
else
  S=$ROOT
  command -v aarch64-linux-gnu-gcc >/dev/null || { echo "dist: aarch64-linux-gnu-gcc missing: run 'make dist-deps'" >&2; exit 1; }
  run() { sh -c "$1"; }
  SRC=$W
  export PKG_CONFIG_SYSROOT_DIR="$S" PKG_CONFIG_LIBDIR="$S/usr/lib/$TRIPLE/pkgconfig:$S/usr/share/pkgconfig"
  FLAGS="$FLAGS CC=aarch64-linux-gnu-gcc CFLAGS=-O2\ -g\ --sysroot=$S LDFLAGS=--sysroot=$S YAJL_LIBS=$S/usr/lib/$TRIPLE/libyajl_s.a"
  FIOCONF="$FIOCONF --cc=aarch64-linux-gnu-gcc --extra-cflags=--sysroot=$S"
  FIOMAKE="'CC=aarch64-linux-gnu-gcc --sysroot=$S'" # fio's link line has no CFLAGS
fi
FLOOR=-include$SRC/etcd-fio/mk/glibc_floor.h
FLAGS="$FLAGS CPPFLAGS=-DETCDFIO_CURL_DLOPEN\ -DETCDFIO_YAJL_STATIC\ $FLOOR"
FIOCONF="$FIOCONF --extra-cflags=$FLOOR"
# fio: --disable-native (no -march=native: it runs on any CPU of the architecture); nothing but the C
# library is installed in the root, so fio's optional libraries (libaio, zlib, numa, ...) are not used.
if [ ! -x "$FIOB/fio" ] || ! grep -q -- "$FLOOR" "$FIOB/config-host.mak" 2>/dev/null; then
  echo "dist: building fio $FIO_UP for $ARCH" >&2
  run "cd $SRC/fio-$FIO_UP && { grep -q -- '$FLOOR' config-host.mak 2>/dev/null || { make clean > /dev/null 2>&1;
       ./configure $FIOCONF > .configure.log 2>&1; }; } &&
       make -j2 $FIOMAKE fio > .make.log 2>&1" || {
    echo "dist: fio's build failed: see $FIOB/.configure.log and .make.log" >&2; exit 1; }
  touch "$FIOB/.etcdfio-configured"
fi
echo "dist: building etcd-fio for $ARCH" >&2
run "cd $SRC/etcd-fio && make -j2 BUILD=$SRC/out-$ARCH FIO_SRC=$SRC/fio-$FIO_UP $FLAGS \
     $SRC/out-$ARCH/etcd-fio $SRC/out-$ARCH/libetcdwal.so" > "$D/build-$ARCH.log" 2>&1 || {
  tail -n 20 "$D/build-$ARCH.log" >&2; echo "dist: build failed: see $D/build-$ARCH.log" >&2; exit 1; }

OUT=$W/out-$ARCH
VERSION=$(sed -n 's/^\#define FIOR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' libreport/include/fioreport.h | paste -sd.)
NAME=etcd-fio-$VERSION-linux-$ARCH
ST=$D/stage-$ARCH/$NAME
rm -rf "$D/stage-$ARCH" && mkdir -p "$ST/bin" "$ST/lib/etcd-fio" "$ST/share/man/man1" "$ST/share/man/man3" \
  "$ST/share/man/man7" "$ST/LICENSES/fio" "$ST/LICENSES/yajl"
install -m 0755 "$OUT/etcd-fio" "$ST/bin/etcd-fio"
install -m 0755 "$FIOB/fio" "$ST/lib/etcd-fio/fio"
install -m 0644 "$OUT/libetcdwal.so" "$ST/lib/etcd-fio/libetcdwal.so"
install -m 0644 man/etcd-fio.1 "$ST/share/man/man1/"
install -m 0644 man/libfioreport.3 "$ST/share/man/man3/"
install -m 0644 man/etcdwal.7 "$ST/share/man/man7/"
install -m 0644 README.md LICENSE "$ST/"
install -m 0644 LICENSES/* "$ST/LICENSES/"
install -m 0644 "$FIOB/COPYING" "$ST/LICENSES/fio/COPYING"
install -m 0644 "$FIOB/debian/copyright" "$ST/LICENSES/fio/debian-copyright"
install -m 0644 "$ROOT/usr/share/doc/libyajl2/copyright" "$ST/LICENSES/yajl/copyright"
YV=$(sed -n 's/^#define YAJL_\(MAJOR\|MINOR\|MICRO\) \([0-9]*\).*/\2/p' "$ROOT/usr/include/yajl/yajl_version.h" | paste -sd.)
cat > "$ST/LICENSES/SOURCES" <<EOT
lib/etcd-fio/fio is fio $FIO_UP built from Debian's source package fio $FIO_DEB
(https://snapshot.debian.org/package/fio/$FIO_DEB/), GPL-2.0 (LICENSES/fio).
bin/etcd-fio contains yajl $YV from Debian $SUITE's libyajl-dev (ISC, LICENSES/yajl); the engine (lib/etcd-fio/libetcdwal.so) is GPL-2.0-or-later, the rest
MIT (LICENSE, LICENSES/). libcurl is not included: the host's libcurl.so.4 is loaded when needed.
EOT
mkdir -p "$D/out"
tar -C "$D/stage-$ARCH" --owner=0 --group=0 --numeric-owner --sort=name -czf "$D/out/$NAME.tar.gz" "$NAME"
( cd "$D/out" && sha256sum "$NAME.tar.gz" > "$NAME.tar.gz.sha256" )
echo "$D/out/$NAME.tar.gz"
