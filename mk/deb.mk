# SPDX-License-Identifier: MIT
# mk/deb.mk — Debian packages and the container image made from them.
#   make deb        .debs of etcd-fio, etcd-fio-engine, libfioreport4, libfioreport-dev in $(DEB_DIR), built
#                   with dpkg-buildpackage (debian/) from a copy of the tree against the configured source of
#                   the installed fio (as `make`: FIO_SRC, or the one `make deps` fetched), then lintian
#                   (errors and warnings fail). Installs nothing: missing tools are one line (make deps-deb).
#   make check-deb  deps-deb, make deb, then tests/dist/deb_chroot.sh: the .debs installed into a fresh Debian
#                   chroot (mmdebstrap), `etcd-fio verdict` and a short `etcd-fio check` run there.
#   make image      the container image from those .debs (buildah, mk/image.sh), tagged $(IMAGE), and its
#                   archive $(IMAGE_ARCHIVE) (docker-archive: podman load, docker load, ctr images import).
#   make check-image deps-image, make image, then the tests that run that archive in podman (tests/dist/it_image.sh,
#                   tests/dist/it_k8s_image.sh); under plain `make check` they say SKIP when there is no archive.
#   make manifests  the Kubernetes manifests of examples/k8s/{rke2,kubeadm,openshift}/ rendered from
#                   examples/k8s/template.yaml (examples/k8s/render) for this version and $(IMAGE), the name
#                   the archive loads as (IMAGE=REGISTRY/etcd-fio:VERSION for a registry of yours). The
#                   committed files are the render with the default IMAGE (tests/dist/it_k8s.sh).
DEB_DIR     := $(BUILD)/deb
DEB_VERSION := $(shell sed -n '1{s/^[^ ]* .//;s/. .*//;p;}' debian/changelog 2>/dev/null)
IMAGE       ?= localhost/etcd-fio:$(FIOR_VERSION)
IMAGE_ARCH  := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
IMAGE_ARCHIVE := $(BUILD)/etcd-fio-image-$(FIOR_VERSION)-$(IMAGE_ARCH).tar
export IMAGE_ARCHIVE
.PHONY: deb check-deb deps-deb deps-image image check-image manifests need-deb

need-deb:
	@sh mk/need.sh deb
deps-deb:
	sh mk/deps.sh deb
deps-image:
	sh mk/deps.sh image

deb: need-deb $(FIO_SRC_PATH)
	@[ "$(DEB_VERSION)" = "$(FIOR_VERSION)" ] || { echo "deb: debian/changelog is at $(DEB_VERSION) but fioreport.h at $(FIOR_VERSION): add a changelog entry (dch -v $(FIOR_VERSION))" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/etcd-fio-$(FIOR_VERSION)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null; \
	else tar --exclude=./$(BUILD) --exclude=./build --exclude=./.git -cf - .; fi | tar -x -C $(DEB_DIR)/etcd-fio-$(FIOR_VERSION)
	@start=$$(date +%s); \
	cd $(DEB_DIR)/etcd-fio-$(FIOR_VERSION) && FIO_SRC="$$(sed -n 1p $(abspath $(FIO_SRC_PATH)))" FIO="$(FIO)" \
	  dpkg-buildpackage -us -uc -b > ../build.log 2>&1 || { tail -n 30 ../build.log; echo "deb: dpkg-buildpackage failed (log: $(DEB_DIR)/build.log)" >&2; exit 1; }; \
	echo "deb: dpkg-buildpackage $$(($$(date +%s) - start)) s"
	lintian --fail-on error,warning $(DEB_DIR)/etcd-fio_$(FIOR_VERSION)_*.changes
	@ls -1 $(DEB_DIR)/*.deb

check-deb: deps-deb
	$(MAKE) deb
	sh tests/dist/deb_chroot.sh $(DEB_DIR)

image: deb
	sh mk/image.sh $(DEB_DIR) $(IMAGE) $(IMAGE_ARCHIVE)

check-image: deps-image
	$(MAKE) DEVELOPER=1 tests
	$(MAKE) image
	BUILD=$(BUILD) DEVELOPER=1 bash tests/run.sh tests/dist/it_image.sh tests/dist/it_k8s_image.sh

manifests:
	python3 examples/k8s/render $(FIOR_VERSION) $(IMAGE) examples/k8s
