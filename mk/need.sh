#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks (never installs) what a build step needs: the compiler and tools, and the pkg-config modules.
# Anything missing: one line on stderr naming all of it (with the Debian package) and `make deps`, exit 1.
# Usage: CC=cc mk/need.sh build|test|deb
#   build: what `make` / `make all` needs; test: build + what the unit tests link (`make tests`);
#   deb: the tools of `make deb` (dpkg-buildpackage, dh, lintian)
set -u
what=${1:-build}
MODULES="yajl libcurl"
TOOLS="${CC:-cc} pkg-config ar"
DEPS=deps
case $what in
  test) MODULES="$MODULES cmocka" ;;
  deb) MODULES=""; TOOLS="dpkg-buildpackage dh lintian"; DEPS=deps-deb ;;
esac
deb() { # the Debian package that has a module or tool
  case $1 in
    yajl) echo libyajl-dev ;; libcurl) echo libcurl4-openssl-dev ;;
    cmocka) echo libcmocka-dev ;; pkg-config) echo pkg-config ;; ar) echo binutils ;;
    dpkg-buildpackage) echo dpkg-dev ;; dh) echo debhelper ;; lintian) echo lintian ;; *) echo gcc ;;
  esac
}
missing=""
add() { missing="${missing:+$missing, }$1"; }
for t in $TOOLS; do
  set -- $t # CC may carry arguments (CC="ccache gcc", CC="gcc -m32"): the first word is the program
  command -v "$1" >/dev/null 2>&1 || add "tool $1 (Debian: $(deb "$1"))"
done
if command -v pkg-config >/dev/null 2>&1; then
  for m in $MODULES; do
    pkg-config --exists "$m" 2>/dev/null || add "pkg-config module $m (Debian: $(deb "$m"))"
  done
fi
[ -z "$missing" ] && exit 0
echo "etcd-fio: missing $missing; run 'make $DEPS' to install them (Debian/Ubuntu), or install them yourself" >&2
exit 1
