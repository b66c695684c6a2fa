#!/bin/sh
# Installs the Debian packages the build, tests and benchmarks need, and only those that are missing,
# so that `make check` / `make demo` work on a fresh Debian machine and CI's clean clone.
# Usage: mk/deps.sh [build|bench]
set -eu
PKGS="fio libcmocka-dev libjson-c-dev dpkg-dev pkg-config gcc make strace jq clang libclang-rt-14-dev valgrind man-db groff-base yamllint python3 e2fsprogs util-linux procps"
[ "${1:-build}" = bench ] && PKGS="$PKGS etcd-server etcd-client hyperfine chromium time"
missing=""
for p in $PKGS; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root (or sudo) to install:$missing" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
