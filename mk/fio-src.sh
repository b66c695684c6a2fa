#!/bin/sh
# SPDX-License-Identifier: MIT
# The configured source tree of the *installed* fio, so that the engine is built against exactly the
# headers (struct thread_data, io_u, FIO_IOOPS_VERSION) of the fio that loads it.
#   mk/fio-src.sh find OUTDIR   no network: FIO_SRC if set (checked: same version as `$FIO --version`,
#                               ./configure run if it has not been), else OUTDIR/fio-VERSION if an earlier
#                               fetch made it; anything else is one line naming FIO_SRC and `make deps`
#   mk/fio-src.sh fetch OUTDIR  `make deps`: fetches the Debian source package of the installed fio with
#                               apt-get source into OUTDIR/fio-VERSION and configures it; from its upstream
#                               tarball alone where the mirror lacks the rest; none: one line naming FIO_SRC
# Both print the tree's directory and its fio version (two lines) on stdout.
# The deb-src list of fetch is private (under OUTDIR) and built from the mirror URIs already in the
# system's apt configuration; the system's sources are never edited and no host name is written into the repo.
set -eu
MODE=${1:?usage: fio-src.sh find|fetch OUTDIR}
OUT=${2:?usage: fio-src.sh find|fetch OUTDIR}
FIO=${FIO:-fio}
src_version() { # prints the fio version a source tree is for: FIO-VERSION-FILE (written by fio's make),
  # else FIO-VERSION-GEN's DEF_VER (a release tarball, a distribution's source, a checkout at a tag)
  v=$(sed -n 's/^FIO_VERSION = //p' "$1/FIO-VERSION-FILE" 2>/dev/null || true)
  [ -n "$v" ] || v=$(sed -n 's/^DEF_VER=//p' "$1/FIO-VERSION-GEN" 2>/dev/null || true)
  case $v in fio-[0-9]*) ;; *) v="" ;; esac
  case $v in *[!A-Za-z0-9._+-]*) v="" ;; esac
  echo "$v"
}
configure() { # DIR: ./configure once (config-host.h is what the engine includes)
  [ -f "$1/config-host.h" ] && return 0
  echo "fio-src: running ./configure in $1" >&2
  ( cd "$1" && ./configure >"$1/.configure.log" 2>&1 ) || {
    echo "fio-src: ./configure failed in $1 (see $1/.configure.log)" >&2; exit 1; }
}
FIOVER=""
if command -v "$FIO" >/dev/null 2>&1; then
  FIOVER=$("$FIO" --version 2>/dev/null | head -n1)
  case $FIOVER in fio-[0-9]*) ;; *) echo "fio-src: cannot read '$FIO --version' (got '$FIOVER')" >&2; exit 1 ;; esac
fi
if [ -n "${FIO_SRC:-}" ]; then
  [ -d "$FIO_SRC" ] || { echo "fio-src: FIO_SRC=$FIO_SRC is not a directory" >&2; exit 1; }
  GOT=$(src_version "$FIO_SRC")
  [ -n "$GOT" ] || { echo "fio-src: FIO_SRC=$FIO_SRC is not a fio source tree (no FIO-VERSION-GEN with DEF_VER=fio-N)" >&2; exit 1; }
  if [ -z "$FIOVER" ]; then
    echo "fio-src: note: $FIO is not installed; building the engine for $GOT (FIO_SRC), it loads only into $GOT" >&2
  elif [ "$GOT" != "$FIOVER" ]; then
    echo "fio-src: FIO_SRC=$FIO_SRC is $GOT but $FIO is $FIOVER: the engine must be built against the source of the fio that loads it (doc/building.md)" >&2
    exit 1
  fi
  configure "$FIO_SRC"
  printf '%s\n%s\n' "$(cd "$FIO_SRC" && pwd)" "$GOT"; exit 0
fi
[ -n "$FIOVER" ] || { echo "fio-src: $FIO is not installed: run 'make deps' (or set FIO_SRC to a configured fio source tree)" >&2; exit 1; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
SRC="$OUT/$FIOVER"
if [ -f "$SRC/config-host.h" ] && [ -f "$SRC/.etcdfio-configured" ]; then printf '%s\n%s\n' "$SRC" "$FIOVER"; exit 0; fi
if [ "$MODE" != fetch ]; then
  echo "etcd-fio: no configured source of the installed $FIOVER to build the engine against: run 'make deps' (fetches it with apt-get source) or set FIO_SRC=DIR (doc/building.md)" >&2
  exit 1
fi
PKGVER=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)
[ -n "$PKGVER" ] || { echo "fio-src: fio is not a Debian package here: set FIO_SRC to a configured source tree of $FIOVER (doc/building.md)" >&2; exit 1; }
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
LOG="$OUT/apt/fetch.log"
NEED="set FIO_SRC=DIR, a source tree of the installed $FIOVER from the same commit as Debian's (doc/building.md)"
# The source package's files ('URI' NAME SIZE HASH), from the signed Sources index.
# shellcheck disable=SC2086
URIS=$(cd "$OUT/apt/src" && apt-get -qq $APTOPT source --print-uris "fio=$PKGVER" 2>"$LOG") || {
  echo "fio-src: the deb-src lists name no source of fio $PKGVER (see $LOG): $NEED" >&2; exit 1; }
rm -rf "$SRC"
command -v dpkg-source >/dev/null || { echo "fio-src: dpkg-source missing (apt-get install dpkg-dev)" >&2; exit 1; }
# shellcheck disable=SC2086
if ( cd "$OUT/apt/src" && apt-get -qq $APTOPT source --download-only "fio=$PKGVER" >>"$LOG" 2>&1 ); then
  DSC=$(ls "$OUT"/apt/src/fio_*.dsc | head -n1)
  dpkg-source --no-check -x "$DSC" "$SRC" >>"$LOG" 2>&1 || {
    echo "fio-src: dpkg-source -x $DSC failed (see $LOG)" >&2; exit 1; }
else
  # A mirror that lacks some of the package's files (its .dsc or Debian's patches): the upstream tarball
  # alone, fetched and hash-checked by apt's own downloader. It is the source fio was built from; Debian's
  # patches of fio change its build files, not the structures the engine reads.
  ORIG=$(printf '%s\n' "$URIS" | awk '$2 ~ /\.orig\.tar\.[a-z0-9]+$/ { print; exit }')
  [ -n "$ORIG" ] || { echo "fio-src: the mirror serves no complete source of fio $PKGVER and it has no upstream tarball (see $LOG): $NEED" >&2; exit 1; }
  URI=$(printf '%s\n' "$ORIG" | awk '{ print $1 }' | tr -d "'"); NAME=$(printf '%s\n' "$ORIG" | awk '{ print $2 }')
  HASH=$(printf '%s\n' "$ORIG" | awk '{ print $4 }')
  # apt-get source may have left it (checked against the index's hash here, else fetched again)
  case $HASH in SHA256:*)
    [ "$(sha256sum < "$OUT/apt/src/$NAME" 2>/dev/null | cut -d' ' -f1)" = "${HASH#SHA256:}" ] || rm -f "$OUT/apt/src/$NAME" ;;
  *) rm -f "$OUT/apt/src/$NAME" ;; esac
  if [ ! -s "$OUT/apt/src/$NAME" ]; then
    /usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$URI" "$OUT/apt/src/$NAME" "$HASH" >>"$LOG" 2>&1 || {
      why=$(tr -s " " <"$LOG" | sed -n 's/^E: Failed to fetch [^ ]*  *\([0-9][0-9][0-9] [^[]*[^[ ]\).*/\1/p' | tail -n1)
      echo "fio-src: the mirror serves no source of fio $PKGVER ($NAME: ${why:-see $LOG}): $NEED" >&2; exit 1; }
  fi
  echo "fio-src: note: the mirror lacks part of the source package fio $PKGVER; using its upstream tarball $NAME alone" >&2
  rm -rf "$SRC.tmp"; mkdir -p "$SRC.tmp"
  tar -xf "$OUT/apt/src/$NAME" -C "$SRC.tmp" --strip-components=1 >>"$LOG" 2>&1 || {
    rm -rf "$SRC.tmp"; echo "fio-src: cannot unpack $OUT/apt/src/$NAME (see $LOG)" >&2; exit 1; }
  mv "$SRC.tmp" "$SRC"
fi
GOT=$(src_version "$SRC")
if [ "$GOT" != "$FIOVER" ]; then
  echo "fio-src: the source of fio $PKGVER is ${GOT:-?} but the installed fio is $FIOVER; refusing to build a mismatched engine" >&2; exit 1
fi
( cd "$SRC" && ./configure >"$SRC/.configure.log" 2>&1 ) || { echo "fio-src: ./configure failed, see $SRC/.configure.log" >&2; exit 1; }
touch "$SRC/.etcdfio-configured"
printf '%s\n%s\n' "$SRC" "$GOT"
