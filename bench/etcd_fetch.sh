#!/bin/sh
# SPDX-License-Identifier: MIT
# etcd_fetch.sh — unpacks Debian's etcd-server and etcd-client of another release (trixie: 3.5.16, sid:
# 3.5.30) into DIR for the bench scripts' ETCD=DIR/SUITE/usr/bin/etcd, without installing anything: apt
# runs with its own sources list, package lists and cache under DIR (the system's are untouched) and the
# .debs are opened with dpkg-deb -x. Nothing here goes into the repository.
#
# Usage: etcd_fetch.sh DIR [SUITE...]   (default suites: trixie sid); prints one "ETCD=..." line per suite.
set -u
DIR=${1:?usage: etcd_fetch.sh DIR [SUITE...]}
shift
[ $# -gt 0 ] || set -- trixie sid
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$DIR" && DIR=$(cd "$DIR" && pwd)
for s in "$@"; do
  S="$DIR/$s"
  mkdir -p "$S/parts" "$S/lists/partial" "$S/cache/archives/partial" "$S/debs"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$MIRROR" "$s" > "$S/parts/etcd-fetch.sources"
  set -- -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$S/parts" \
    -o Dir::State::Lists="$S/lists" -o Dir::Cache="$S/cache"
  apt-get "$@" update > "$S/apt.log" 2>&1 || { echo "etcd_fetch: apt-get update for $s failed; see $S/apt.log" >&2; exit 2; }
  (cd "$S/debs" && apt-get "$@" download etcd-server etcd-client >> "$S/apt.log" 2>&1) ||
    { echo "etcd_fetch: apt-get download in $s failed; see $S/apt.log" >&2; exit 2; }
  for d in "$S"/debs/*.deb; do dpkg-deb -x "$d" "$S/root" || exit 2; done
  v=$("$S/root/usr/bin/etcd" --version 2>/dev/null | sed -n 's/^etcd Version: *//p')
  [ -n "$v" ] || { echo "etcd_fetch: $S/root/usr/bin/etcd does not run here" >&2; exit 2; }
  echo "ETCD=$S/root/usr/bin/etcd   # $v ($s)"
done
