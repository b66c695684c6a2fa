# SPDX-License-Identifier: MIT
# etcd-fio top-level build. Each module keeps its own rules in <dir>/rules.mk (one owner per file);
# this file only holds the shared flags, the aggregate targets and the deps/fio-source plumbing.
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
FIO      ?= fio
FUZZ_SECONDS ?= 20
export FIO

WARN     := -Wall -Wextra -Werror
# -MMD -MP: every object gets a .d file with the headers it includes (read back at the end of this file).
CFLAGS_BASE := -std=c11 $(WARN) $(OPT) $(SAN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -MMD -MP
LDFLAGS_BASE := $(SAN)
JSONC_CFLAGS := $(shell pkg-config --cflags json-c 2>/dev/null)
JSONC_LIBS   := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
# libfioreport reads JSON with yajl's event parser (libreport/fmt_json.c); the CLI and tests use json-c.
YAJL_CFLAGS  := $(shell pkg-config --cflags yajl 2>/dev/null)
YAJL_LIBS    := $(shell pkg-config --libs yajl 2>/dev/null || echo -lyajl)
CMOCKA_LIBS  := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# Filled in by the module fragments.
UNIT_TESTS  :=
INTEG_TESTS :=
ALL_TARGETS :=
TEST_HELPERS :=
INSTALL_TARGETS :=
TEST_HELPERS :=

.PHONY: all tests check check-unit check-integ check-asan deps deps-test deps-bench demo bench fuzz install uninstall clean fio-src
.DEFAULT_GOAL := all

# Build deps (plain `make` may install these: fio, json-c, the tools for fio's source); every compile rule
# has $(DEPS_STAMP) as an order-only prerequisite. Test tools come only with `make check` (deps-test).
DEPS_STAMP := $(BUILD)/.deps-ok
$(DEPS_STAMP): mk/deps.sh
	@mkdir -p $(BUILD)
	sh mk/deps.sh build
	@touch $@
deps: $(DEPS_STAMP)
DEPS_TEST_STAMP := $(BUILD)/.deps-test-ok
$(DEPS_TEST_STAMP): mk/deps.sh
	@mkdir -p $(BUILD)
	sh mk/deps.sh test
	@touch $@
deps-test: $(DEPS_TEST_STAMP)
deps-bench: deps-test
	sh mk/deps.sh bench

include libreport/rules.mk
include engine/rules.mk
include tools/rules.mk
include tests/rules.mk
-include fuzz/rules.mk
-include bench/rules.mk
-include examples/rules.mk
-include mk/install.mk

all: $(ALL_TARGETS)
tests: all $(UNIT_TESTS) $(TEST_HELPERS)

check-unit: tests
	sh tests/run.sh $(UNIT_TESTS)

check-integ: tests
	BUILD=$(BUILD) sh tests/run.sh $(INTEG_TESTS)

# The README's test command. Installs what is missing first (deps), then unit + integration tests.
check: deps-test
	$(MAKE) tests
	BUILD=$(BUILD) sh tests/run.sh $(UNIT_TESTS) $(INTEG_TESTS) $(CHECK_EXTRA)

# The whole unit + integration suite built with ASan+UBSan in $(ASAN_DIR). The ASan-built engine runs inside
# the real fio through $(ASAN_DIR)/asan-bin/fio (libasan preloaded; see tests/faults.mk), first in PATH and FIO.
ASAN_DIR ?= build/asan
check-asan: deps-test
	$(MAKE) BUILD=$(ASAN_DIR) OPT='-O1 -g -fno-omit-frame-pointer' SAN='-fsanitize=address,undefined -fno-sanitize-recover=all' ASAN_BUILD=1 tests asan-fio
	@start=$$(date +%s); \
	PATH="$(abspath $(ASAN_DIR))/asan-bin:$$PATH" FIO="$(abspath $(ASAN_DIR))/asan-bin/fio" \
	ASAN_BUILD=1 BUILD=$(ASAN_DIR) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  sh tests/run.sh $(patsubst $(BUILD)/%,$(ASAN_DIR)/%,$(UNIT_TESTS)) $(INTEG_TESTS); rc=$$?; \
	echo "check-asan: $$(($$(date +%s) - start)) s"; exit $$rc

# The README's main command: check the disk this tree lives on.
demo: deps
	$(MAKE) all
	sh mk/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# Header dependencies written by -MMD -MP.
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
