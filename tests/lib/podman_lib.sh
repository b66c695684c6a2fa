# SPDX-License-Identifier: MIT
# podman_lib.sh — sourced by the tests that run the image of `make image` in podman (it_image.sh,
# it_k8s_image.sh), after lib.sh: the image archive, a podman of the test's own and what makes it start
# containers on CI's kind of machine. Sets VERSION, IMAGE (localhost/etcd-fio:VERSION), T (the test's
# directory, on disk: the check refuses memory filesystems) and P (the podman command line).
#
# podman runs rootful with its storage under T (loaded from the archive: the archive is what is tested,
# and nothing of the machine's own images is touched), runc and cgroupfs (crun cannot start containers on
# a cgroup v1/hybrid host), and a containers.conf (CONTAINERS_CONF) whose default_ulimits are at or below
# this shell's hard limits: without CAP_SYS_RESOURCE the runtime cannot raise RLIMIT_NOFILE/NPROC to
# podman's defaults. Exit 77 (skip) when something here is missing or podman cannot start a container.
command -v podman >/dev/null 2>&1 || { echo "SKIP: podman is not installed (make deps-image)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: podman runs rootful here: needs root"; exit 77; }
need_built "$CLI"
VERSION=$("$CLI" --version | sed -n '1s/^etcd-fio \([0-9][0-9.]*\).*/\1/p')
IMAGE=localhost/etcd-fio:$VERSION
ARCHIVE=${IMAGE_ARCHIVE:-$B/etcd-fio-image-$VERSION-$(dpkg --print-architecture 2>/dev/null || uname -m).tar}
case $ARCHIVE in /*) ;; *) ARCHIVE=$TOP/$ARCHIVE ;; esac
[ -f "$ARCHIVE" ] || { echo "SKIP: no image archive $ARCHIVE (make image; make check-image runs this test)"; exit 77; }
T=$(mktemp -d /var/tmp/it-podman.XXXXXX) || exit 1
podman_cleanup() {
  $P rm -af -t 0 >/dev/null 2>&1
  $P rmi -af >/dev/null 2>&1
  # overlay mounts of the storage, should any be left
  grep -o " $T/[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
  rm -rf "$T"
}
# lim NAME: this shell's hard limit NAME ("Max processes", "Max open files"), at most 4096
lim() { awk -v n="$1" 'index($0, n) == 1 { h = $(NF - 1); if (h == "unlimited" || h + 0 > 4096) h = 4096; print h }' /proc/self/limits; }
cat > "$T/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(lim 'Max open files'):$(lim 'Max open files')", "nproc=$(lim 'Max processes'):$(lim 'Max processes')"]
log_driver = "k8s-file"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF=$T/containers.conf
P="podman --root $T/storage --runroot $T/run --tmpdir $T/tmp --runtime runc --cgroup-manager=cgroupfs"
mkdir -p "$T/tmp"
t0=$(date +%s)
loaded=$($P load -q -i "$ARCHIVE" 2>&1) || { echo "FAIL: podman load -i $ARCHIVE: $loaded"; podman_cleanup; exit 1; }
case $loaded in
  *"$IMAGE"*) echo "ok: podman load -i $(basename "$ARCHIVE"): $IMAGE in $(($(date +%s) - t0)) s (load $(cut -d' ' -f1 /proc/loadavg))" ;;
  *) echo "FAIL: podman load gave '$loaded', not $IMAGE"; podman_cleanup; exit 1 ;;
esac
if ! err=$($P run --rm --network none --entrypoint /bin/true "$IMAGE" 2>&1); then
  echo "SKIP: podman cannot start a container here: $err"
  podman_cleanup
  exit 77
fi
