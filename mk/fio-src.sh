#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetches and configures the Debian source package of the *installed* fio, so the engine is built
# against exactly the headers (struct thread_data, io_u, FIO_IOOPS_VERSION) of the fio that loads it.
# The deb-src list is private (under $OUT) and built from the mirror URIs already in the system's apt
# configuration; the system's sources are never edited and no host name is written into the repo.
# Usage: mk/fio-src.sh OUTDIR    -> prints the configured source dir on stdout
set -eu
OUT=${1:?usage: fio-src.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
command -v fio >/dev/null || { echo "fio-src: fio is not installed (run: make deps)" >&2; exit 1; }
FIOVER=$(fio --version | sed -n 's/^fio-//p')
PKGVER=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)
[ -n "$FIOVER" ] || { echo "fio-src: cannot read 'fio --version'" >&2; exit 1; }
src_version() { # prints the fio version a source tree is for
  v=$(sed -n 's/^FIO_VERSION = fio-//p' "$1/FIO-VERSION-FILE" 2>/dev/null || true)
  [ -n "$v" ] || v=$(sed -n 's/^DEF_VER=fio-//p' "$1/FIO-VERSION-GEN" 2>/dev/null || true)
  echo "$v"
}
if [ -n "${FIO_SRC:-}" ]; then
  GOT=$(src_version "$FIO_SRC")
  [ "$GOT" = "$FIOVER" ] || { echo "fio-src: FIO_SRC=$FIO_SRC is fio-${GOT:-?} but installed fio is fio-$FIOVER; the engine would be rejected or crash" >&2; exit 1; }
  if [ ! -f "$FIO_SRC/config-host.h" ]; then
    ( cd "$FIO_SRC" && ./configure >/dev/null ) || { echo "fio-src: ./configure failed in $FIO_SRC" >&2; exit 1; }
  fi
  echo "$FIO_SRC"; exit 0
fi
SRC="$OUT/fio-$FIOVER"
if [ -f "$SRC/config-host.h" ] && [ -f "$SRC/.etcdfio-configured" ]; then echo "$SRC"; exit 0; fi
mkdir -p "$OUT/apt/lists/partial" "$OUT/apt/cache/archives/partial" "$OUT/apt/src"
LIST="$OUT/apt/sources.list"
: > "$LIST"
# one-line sources.list entries
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\(.*\)$/deb-src \1\2/p' "$f" >> "$LIST"
done
# deb822 .sources stanzas: keep only the Debian archive ones (they carry Debian's keyring)
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  awk -v RS= '
    /(^|\n)Types:[^\n]*deb/ && /debian-archive-keyring|Signed-By: *\/usr\/share\/keyrings\/debian/ {
      u=""; s=""; c="";
      n=split($0, L, "\n");
      for (i=1;i<=n;i++) {
        if (L[i] ~ /^URIs:/) { u=L[i]; sub(/^URIs:[ \t]*/, "", u) }
        if (L[i] ~ /^Suites:/) { s=L[i]; sub(/^Suites:[ \t]*/, "", s) }
        if (L[i] ~ /^Components:/) { c=L[i]; sub(/^Components:[ \t]*/, "", c) }
      }
      nu=split(u, U, /[ \t]+/); ns=split(s, S, /[ \t]+/);
      for (a=1;a<=nu;a++) for (b=1;b<=ns;b++) if (U[a]!="" && S[b]!="") print "deb-src " U[a] " " S[b] " " c
    }' "$f" >> "$LIST"
done
grep -q . "$LIST" || { echo "fio-src: no Debian mirror found in the system's apt configuration" >&2; exit 1; }
APTOPT="-o Dir::Etc::SourceList=$LIST -o Dir::Etc::SourceParts=/dev/null \
 -o Dir::State::Lists=$OUT/apt/lists -o Dir::Cache=$OUT/apt/cache -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get -qq $APTOPT update >&2 || { echo "fio-src: apt-get update of the private deb-src list failed" >&2; exit 1; }
rm -rf "$OUT/apt/src" && mkdir -p "$OUT/apt/src"
# shellcheck disable=SC2086
( cd "$OUT/apt/src" && apt-get -qq $APTOPT source --download-only "fio=$PKGVER" >&2 ) || {
  echo "fio-src: could not fetch the source of fio $PKGVER (installed: fio-$FIOVER)" >&2; exit 1; }
DSC=$(ls "$OUT"/apt/src/fio_*.dsc | head -n1)
rm -rf "$SRC"
command -v dpkg-source >/dev/null || { echo "fio-src: dpkg-source missing (apt-get install dpkg-dev)" >&2; exit 1; }
dpkg-source --no-check -x "$DSC" "$SRC" >&2
GOT=$(src_version "$SRC")
if [ "$GOT" != "$FIOVER" ]; then
  echo "fio-src: source is fio-$GOT but installed fio is fio-$FIOVER; refusing to build a mismatched engine" >&2; exit 1
fi
( cd "$SRC" && ./configure >"$SRC/.configure.log" 2>&1 ) || { echo "fio-src: ./configure failed, see $SRC/.configure.log" >&2; exit 1; }
touch "$SRC/.etcdfio-configured"
echo "$SRC"
