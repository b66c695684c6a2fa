# SPDX-License-Identifier: MIT
# mk/dist.mk — the relocatable release tarballs (mk/dist.sh) and their test.
#   make dist-deps   network, as root: Debian's dist tools (mmdebstrap, the aarch64 cross compiler,
#                    qemu-user-static, rpm), the bullseye build roots and fio's source package, and the
#                    test roots of make check-dist (bookworm, trixie with its fio: mmdebstrap's essential
#                    variant, the smallest that runs a shell; bullseye is the x86-64 build root itself,
#                    which has no fio installed), all cached under build/dist
#   make dist        offline: build/dist/out/etcd-fio-VERSION-linux-{x86_64,aarch64}.tar.gz and .sha256
#   make check-dist  tests/dist/dist_roots.sh (the x86-64 tarball in the three roots) and tests/dist/dist_arm64.sh
#                    (the aarch64 tarball under qemu-user-static)
# DIST_ARCHES=x86_64 limits all three to x86-64 (no cross compiler, no qemu, one fio build).
DIST_DIR    := build/dist
DIST_ARCHES ?= x86_64 aarch64
DIST_TEST_ROOTS := bookworm-amd64-run:bookworm: trixie-amd64-run:trixie:fio
# the roots tests/dist/dist_roots.sh unpacks the x86-64 tarball into (bullseye: the build root, without fio)
DIST_RUN_ROOTS = $(addprefix $(DIST_DIR)/roots/,bullseye-amd64-build bookworm-amd64-run trixie-amd64-run)
.PHONY: dist dist-deps check-dist $(addprefix dist-,$(DIST_ARCHES))

dist-deps:
	sh mk/deps.sh $(if $(filter aarch64,$(DIST_ARCHES)),dist,dist-x86_64)
	@for a in $(DIST_ARCHES); do sh mk/dist.sh deps $$a || exit 1; done
	@for r in $(DIST_TEST_ROOTS); do \
	  n=$${r%%:*}; s=$${r#*:}; inc=$${s#*:}; s=$${s%%:*}; d=$(DIST_DIR)/roots/$$n; \
	  [ -d $$d ] && continue; rm -rf $$d.tmp; \
	  mmdebstrap --variant=essential $${inc:+--include=$$inc} $$s $$d.tmp > $(DIST_DIR)/roots/$$n.log 2>&1 && mv $$d.tmp $$d || \
	  { tail -n 5 $(DIST_DIR)/roots/$$n.log; exit 1; }; done

dist: $(addprefix dist-,$(DIST_ARCHES))
$(addprefix dist-,$(DIST_ARCHES)):
	@start=$$(date +%s); sh mk/dist.sh build $(@:dist-%=%) && echo "dist: $(@:dist-%=%) $$(($$(date +%s) - start)) s"

DIST_TAR = $(DIST_DIR)/out/etcd-fio-$(FIOR_VERSION)-linux-$(1).tar.gz
check-dist: dist $(if $(filter aarch64,$(DIST_ARCHES)),$(WALDUMP))
	@start=$$(date +%s); rc=0; \
	sh tests/dist/dist_roots.sh $(call DIST_TAR,x86_64) $(DIST_RUN_ROOTS) || rc=1; \
	$(if $(filter aarch64,$(DIST_ARCHES)),sh tests/dist/dist_arm64.sh $(call DIST_TAR,aarch64) $(call DIST_TAR,x86_64) \
	  $(DIST_DIR)/roots/arm64-bullseye-sysroot $(WALDUMP) || rc=1;) \
	echo "check-dist: $$(($$(date +%s) - start)) s"; exit $$rc

# `make rpm`: rpm/etcd-fio.spec around each tarball (rpmbuild from Debian's rpm package), with its .sha256.
.PHONY: rpm
rpm: dist
	@for a in $(DIST_ARCHES); do \
	  t=$(abspath $(DIST_DIR))/rpm; rm -rf $$t/BUILD $$t/BUILDROOT; mkdir -p $$t/SOURCES; \
	  cp $(call DIST_TAR,$$a) $$t/SOURCES/ || exit 1; \
	  rpmbuild -bb --quiet --target $$a --define "_topdir $$t" --define "dist_version $(FIOR_VERSION)" \
	    --define "dist_arch $$a" rpm/etcd-fio.spec > $$t/rpmbuild-$$a.log 2>&1 || { tail -n 20 $$t/rpmbuild-$$a.log; exit 1; }; \
	  r=$$t/RPMS/$$a/etcd-fio-$(FIOR_VERSION)-1.$$a.rpm; cp $$r $(DIST_DIR)/out/ && \
	  (cd $(DIST_DIR)/out && sha256sum $$(basename $$r) > $$(basename $$r).sha256) && echo $(DIST_DIR)/out/$$(basename $$r); \
	done
