#!/bin/sh
# SPDX-License-Identifier: MIT
# `make image`: the examples/k8s image from the .debs of `make deb`, with buildah (root, --isolation=chroot:
# no container runtime needed), tagged IMAGE (localhost/etcd-fio:VERSION). The build context is a directory
# of its own holding only the two .debs and etcd-fio-pod. The base is debian:VERSION_ID-slim of the release
# the packages were built on; where that cannot be pulled, a base of the same release is made once with
# mmdebstrap (from the Debian mirror) and kept as localhost/etcd-fio-base:SUITE.
# Usage: mk/image.sh DEB_DIR IMAGE     (env: IMAGE_BASE overrides the base image)
set -eu
DEB_DIR=${1:?usage: image.sh DEB_DIR IMAGE}
IMAGE=${2:?usage: image.sh DEB_DIR IMAGE}
TOP=$(cd "$(dirname "$0")/.." && pwd)
command -v buildah >/dev/null 2>&1 || { echo "image: buildah is not installed (Debian: apt-get install buildah)" >&2; exit 1; }
. /etc/os-release
CTX=$DEB_DIR/image
rm -rf "$CTX" && mkdir -p "$CTX"
cp "$DEB_DIR"/etcd-fio_*.deb "$DEB_DIR"/etcd-fio-engine_*.deb "$TOP/examples/k8s/etcd-fio-pod" "$CTX/"
BASE=${IMAGE_BASE:-docker.io/library/debian:${VERSION_ID}-slim}
if [ -z "${IMAGE_BASE:-}" ] && ! buildah pull -q "$BASE" >/dev/null 2>&1; then
  BASE=localhost/etcd-fio-base:$VERSION_CODENAME
  if ! buildah inspect --type image "$BASE" >/dev/null 2>&1; then
    echo "image: cannot pull debian:${VERSION_ID}-slim; making $BASE with mmdebstrap" >&2
    command -v mmdebstrap >/dev/null 2>&1 || { echo "image: mmdebstrap is not installed (make deps-deb)" >&2; exit 1; }
    mmdebstrap --variant=apt --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
      "$VERSION_CODENAME" "$DEB_DIR/base.tar" > "$DEB_DIR/base.log" 2>&1 || { tail -n 5 "$DEB_DIR/base.log"; exit 1; }
    ctr=$(buildah from scratch)
    buildah add "$ctr" "$DEB_DIR/base.tar" / >/dev/null
    buildah commit --rm -q "$ctr" "$BASE" >/dev/null
    rm -f "$DEB_DIR/base.tar"
  fi
fi
buildah bud --isolation=chroot --network=host --pull=false --build-arg BASE="$BASE" \
  -f "$TOP/examples/k8s/Containerfile" -t "$IMAGE" "$CTX"
echo "image: $IMAGE (base $BASE)"
