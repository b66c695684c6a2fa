#!/bin/sh
# SPDX-License-Identifier: MIT
# `make image`: the etcd-fio container image from the .debs of `make deb`, with buildah (root,
# --isolation=chroot: no container runtime needed), tagged IMAGE (localhost/etcd-fio:VERSION), then
# written to ARCHIVE as a docker-archive (`buildah push … docker-archive:`), the file that `podman load`,
# `docker load` and `ctr -n k8s.io images import` take on nodes that reach no registry.
# No registry is needed: the base is made once with mmdebstrap from the Debian mirror (the release the
# packages were built on, without man pages, docs and locales but with the copyright files) and kept as
# localhost/etcd-fio-base:SUITE-RECIPE, RECIPE naming the mmdebstrap options it was made with.
# IMAGE_BASE=REF uses a base image from a registry instead (it must be that same Debian release).
# Usage: mk/image.sh DEB_DIR IMAGE ARCHIVE
set -eu
DEB_DIR=${1:?usage: image.sh DEB_DIR IMAGE ARCHIVE}
IMAGE=${2:?usage: image.sh DEB_DIR IMAGE ARCHIVE}
ARCHIVE=${3:?usage: image.sh DEB_DIR IMAGE ARCHIVE}
TOP=$(cd "$(dirname "$0")/.." && pwd)
for t in buildah mmdebstrap; do
  command -v $t >/dev/null 2>&1 || { echo "image: $t is not installed (make deps-image)" >&2; exit 1; }
done
. /etc/os-release
CTX=$DEB_DIR/image
rm -rf "$CTX" && mkdir -p "$CTX"
cp "$DEB_DIR"/etcd-fio_*.deb "$DEB_DIR"/etcd-fio-engine_*.deb "$TOP/examples/k8s/etcd-fio-pod" "$CTX/"
version=$(dpkg-deb -f "$CTX"/etcd-fio_*.deb Version)

# dpkg drops these from every package installed into the base, now and in the image's own apt-get
SLIM="--dpkgopt=path-exclude=/usr/share/man/* --dpkgopt=path-exclude=/usr/share/doc/*
      --dpkgopt=path-include=/usr/share/doc/*/copyright --dpkgopt=path-exclude=/usr/share/locale/*
      --dpkgopt=path-exclude=/usr/share/info/*"
recipe=$(printf '%s' "variant=apt $SLIM" | sha256sum | cut -c1-8)
BASE=${IMAGE_BASE:-localhost/etcd-fio-base:$VERSION_CODENAME-$recipe}
if [ -z "${IMAGE_BASE:-}" ] && ! buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  echo "image: making the base $BASE with mmdebstrap ($VERSION_CODENAME, from the Debian mirror)" >&2
  # shellcheck disable=SC2086
  mmdebstrap --variant=apt $SLIM --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    "$VERSION_CODENAME" "$DEB_DIR/base.tar" > "$DEB_DIR/base.log" 2>&1 || { tail -n 5 "$DEB_DIR/base.log"; exit 1; }
  ctr=$(buildah from scratch)
  buildah add "$ctr" "$DEB_DIR/base.tar" / >/dev/null
  buildah commit --rm -q "$ctr" "$BASE" >/dev/null
  rm -f "$DEB_DIR/base.tar"
fi
buildah bud --isolation=chroot --network=host --pull=false --build-arg BASE="$BASE" \
  --label org.opencontainers.image.title=etcd-fio --label org.opencontainers.image.version="$version" \
  -f "$TOP/examples/k8s/Containerfile" -t "$IMAGE" "$CTX"
rm -f "$ARCHIVE"
buildah push -q "$IMAGE" "docker-archive:$ARCHIVE:$IMAGE" >/dev/null
echo "image: $IMAGE (base $BASE), archive $ARCHIVE ($(du -m "$ARCHIVE" | cut -f1) MB)"
