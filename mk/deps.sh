#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages a step needs, and only those that are missing, so that `make`, `make check`
# and `make demo` work on a fresh Debian machine and CI's clean clone.
# Usage: mk/deps.sh build|test|bench|deb|dist|dist-x86_64|image
#   build: what plain `make` needs (fio and the tools to fetch and configure its source, yajl, libcurl, a compiler)
#   test:  build + the test tools (`make deps`, `make check`); bench: test + what `make bench` compares against
#          (and Go with etcd's clientv3 for bench/putload)
#   deb:   build + what `make deb` and `make check-deb` use (debhelper, lintian, mmdebstrap)
#   dist:  what `make dist-deps`, `make dist` and `make check-dist` use (mmdebstrap, the aarch64 cross
#          compiler, qemu-user-static, rpm); dist-x86_64: the same without the aarch64 cross compiler and qemu
#   image: test + deb + what `make image` and `make check-image` use (buildah; podman with runc, which
#          starts containers where crun cannot: cgroup v1/hybrid hosts; containerd for `ctr images import`;
#          iproute2 and openssl for it_k8s_image: a minimal root, as mmdebstrap makes, may lack them)
# Only `make deps` (and demo, check, bench, check-deb, check-image, which run it) calls this: plain `make` never installs.
set -eu
BUILD_PKGS="fio libyajl-dev libcurl4-openssl-dev dpkg-dev pkg-config gcc make"
TEST_PKGS="libcmocka-dev strace jq tmux clang libclang-rt-dev valgrind man-db groff-base yamllint python3 python3-yaml e2fsprogs util-linux procps etcd-server etcd-client python3-jsonschema prometheus libfuse3-dev fuse3 chromium openssh-server openssh-client eatmydata fuse-overlayfs bindfs btrfs-progs"
BENCH_PKGS="hyperfine time golang-go golang-etcd-server-dev"
DEB_PKGS="debhelper lintian mmdebstrap"
DIST_PKGS="mmdebstrap dpkg-dev gcc-aarch64-linux-gnu qemu-user-static rpm binutils"
IMAGE_PKGS="buildah podman runc containerd iproute2 openssl"
case "${1:-build}" in
  build) PKGS="$BUILD_PKGS" ;;
  test)  PKGS="$BUILD_PKGS $TEST_PKGS" ;;
  bench) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" ;;
  deb)   PKGS="$BUILD_PKGS $DEB_PKGS" ;;
  dist)  PKGS="$DIST_PKGS" ;;
  dist-x86_64) PKGS="mmdebstrap dpkg-dev rpm binutils" ;;
  image) PKGS="$BUILD_PKGS $TEST_PKGS $DEB_PKGS $IMAGE_PKGS" ;;
  *) echo "usage: mk/deps.sh build|test|bench|deb|dist|dist-x86_64|image" >&2; exit 2 ;;
esac
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
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >&2
