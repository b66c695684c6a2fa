# SPDX-License-Identifier: MIT
# etcd-fio top-level build. Each module keeps its own rules in <dir>/rules.mk (one owner per file);
# this file only holds the shared flags, the aggregate targets and the deps/fio-source plumbing.
#
# Plain `make` (= `make all`) only builds: it never installs a package and never touches the network. A
# missing dependency stops it with one line naming it and `make deps` (mk/need.sh). `make deps` installs
# (mk/deps.sh) and fetches the source of the installed fio (mk/fio-src.sh fetch); `make demo` and
# `make check` run `make deps` first, so that they work on a fresh Debian machine.
#
# The caller's CC, CPPFLAGS, CFLAGS and LDFLAGS are used as given (CFLAGS defaults to -O2 -g), after the
# flags the code needs (a later -O wins), so a distribution's hardening flags are kept. -Werror only with
# DEVELOPER=1 (make check, check-asan and CI's builds set it). A change of any of these or of the
# installation directories rebuilds what they affect ($(FLAGS_STAMP)).
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=
SAN      ?=
DEVELOPER ?=
FIO      ?= fio
FUZZ_SECONDS ?= 20
export FIO

# Installation directories (mk/install.mk); the CLI has ENGINEDIR compiled in (tools/rules.mk).
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFDIR ?= $(LIBDIR)/pkgconfig
ENGINEDIR  ?= $(PREFIX)/lib/etcd-fio

WARN     := -Wall -Wextra $(if $(filter 1,$(DEVELOPER)),-Werror)
# -MMD -MP: every object gets a .d file with the headers it includes (read back at the end of this file).
CFLAGS_BASE := -std=c11 $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -MMD -MP $(CPPFLAGS) $(CFLAGS) $(SAN)
LDFLAGS_BASE := $(LDFLAGS) $(SAN)
# The one JSON library: libfioreport reads with yajl's event parser (libreport/read/json/fmt_json.c), the CLI writes
# with yajl_gen (tools/jw.c) and reads its own and the engine's files with yajl_tree (tools/jr.c).
YAJL_CFLAGS  := $(shell pkg-config --cflags yajl 2>/dev/null)
YAJL_LIBS    := $(shell pkg-config --libs yajl 2>/dev/null || echo -lyajl)
CMOCKA_LIBS  := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# Every flag that changes an object or a link, in a file rewritten only when it differs from the last
# build's (as git's GIT-CFLAGS), so `make CFLAGS=-O1` after a `make` recompiles (make compares only times).
FLAGS_STAMP := $(BUILD)/.build-flags
BUILD_FLAGS := CC=$(CC) CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) LDFLAGS=$(LDFLAGS) SAN=$(SAN) WARN=$(WARN) \
               PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) ENGINEDIR=$(ENGINEDIR)
sq = $(subst ','\'',$(1))
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@); f='$(call sq,$(BUILD_FLAGS))'; \
	[ "$$f" = "$$(cat $@ 2>/dev/null)" ] || printf '%s\n' "$$f" > $@
FORCE:

# Filled in by the module fragments.
UNIT_TESTS  :=
INTEG_TESTS :=
ALL_TARGETS :=
TEST_HELPERS :=
INSTALL_TARGETS :=

.PHONY: all tests check check-unit check-integ check-asan deps deps-test deps-bench demo bench fuzz install \
        uninstall clean fio-src need-build need-test FORCE
.DEFAULT_GOAL := all

# What the build needs, checked (never installed): order-only prerequisites of every compile rule.
# DEPS_STAMP is the old name of need-build, kept for the module fragments.
need-build:
	@CC='$(CC)' sh mk/need.sh build
need-test:
	@CC='$(CC)' sh mk/need.sh test
DEPS_STAMP := need-build

# `make deps`: installs the Debian packages for building and testing (mk/deps.sh: BUILD_PKGS, TEST_PKGS;
# only the missing ones) and fetches the configured source of the installed fio into $(FIO_SRC_CACHE)
# unless FIO_SRC names one. deps-test is the old name.
deps:
	sh mk/deps.sh test
	@if [ -z "$(FIO_SRC)" ]; then sh mk/fio-src.sh fetch $(FIO_SRC_CACHE) >/dev/null; fi
deps-test: deps
deps-bench: deps
	sh mk/deps.sh bench

include libreport/rules.mk
include engine/rules.mk
include tools/rules.mk
include tests/rules.mk
-include fuzz/rules.mk
-include bench/rules.mk
-include examples/rules.mk
-include mk/install.mk
-include mk/deb.mk
-include mk/dist.mk

all: $(ALL_TARGETS)
tests: all $(UNIT_TESTS) $(TEST_HELPERS)
$(UNIT_TESTS) $(TEST_HELPERS): | need-test

check-unit: tests
	bash tests/run.sh $(UNIT_TESTS)

check-integ: tests
	BUILD=$(BUILD) DEVELOPER=$(DEVELOPER) bash tests/run.sh $(INTEG_TESTS)

# The README's test command: set-up first (deps), then the development build (-Werror) and unit +
# integration tests. DEVELOPER=1 is in the tests' environment too, for the builds they make themselves.
check: deps
	$(MAKE) DEVELOPER=1 tests
	BUILD=$(BUILD) DEVELOPER=1 bash tests/run.sh $(UNIT_TESTS) $(INTEG_TESTS) $(CHECK_EXTRA)

# The unit suite and the integration tests that drive our parsers, judges and process handling (ASAN_INTEG)
# built with ASan+UBSan in $(ASAN_DIR); the slow ones whose extra paths are timing, builds, browsers or
# packaging (it_build, it_html, it_kill, the capacity and live-etcd runs, …) run in `make check` only, so
# that .ci/run (check + check-asan) stays within CI's 15 minutes on 2 cores. The ASan-built engine runs inside
# the real fio through $(ASAN_DIR)/asan-bin/fio (libasan preloaded; see tests/faults.mk), first in PATH and FIO.
ASAN_DIR ?= build/asan
ASAN_CFLAGS := -O1 -g -fno-omit-frame-pointer
ASAN_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_INTEG := $(addprefix tests/%/,$(addsuffix .sh,it_verdict it_compare it_cli it_abi it_fio_matrix it_fleet \
	it_fleet_ssh it_check it_etcd_metrics it_etcd_tls it_faults_engine it_faults_shim it_faults_slow it_engine_wal \
	it_engine_safety it_engine_fill it_engine_kinds it_backend it_job it_threads it_causes it_pidns))
check-asan: deps
	$(MAKE) DEVELOPER=1 BUILD=$(ASAN_DIR) CFLAGS='$(ASAN_CFLAGS)' SAN='$(ASAN_SAN)' ASAN_BUILD=1 tests asan-fio
	@start=$$(date +%s); \
	PATH="$(abspath $(ASAN_DIR))/asan-bin:$$PATH" FIO="$(abspath $(ASAN_DIR))/asan-bin/fio" DEVELOPER=1 \
	ASAN_BUILD=1 BUILD=$(ASAN_DIR) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  bash tests/run.sh $(patsubst $(BUILD)/%,$(ASAN_DIR)/%,$(UNIT_TESTS)) $(filter $(ASAN_INTEG),$(INTEG_TESTS)); rc=$$?; \
	echo "check-asan: $$(($$(date +%s) - start)) s"; exit $$rc

# The README's main command: check the disk this tree lives on.
demo: deps
	$(MAKE) all
	sh mk/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# Header dependencies written by -MMD -MP.
# (build/dist holds `make dist`'s Debian roots, whose /etc has directories named *.d: not searched.)
-include $(shell find $(BUILD) -path $(BUILD)/dist -prune -o -name '*.d' -type f -print 2>/dev/null)
