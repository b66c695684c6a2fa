# SPDX-License-Identifier: MIT
# fuzz/rules.mk — libFuzzer harnesses (fuzz/fuzz_*.c) for libfioreport and the WAL frame decoder.
#   make fuzz FUZZ_SECONDS=N      build with clang -fsanitize=fuzzer,address,undefined, run each harness N s
#   make fuzz-build               only build them
# Everything (objects, corpora copied from the seeds, crash artifacts) stays under $(BUILD)/fuzz; the
# source tree is only read. tests/fuzz/it_fuzz.sh runs a short `make fuzz` inside `make check`.
FUZZ_CC      ?= clang
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# No -Werror on the library sources here: clang's warning set differs from gcc's, and the owners' gcc
# -Werror build is the gate for those files. The harnesses themselves are held to -Werror.
FUZZ_CFLAGS  := -std=c11 -Wall -Wextra -O1 -g -D_GNU_SOURCE $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                $(FIOR_PRIVATE) -Ilibreport/include -Ilibreport/base -Ilibreport -Iengine $(YAJL_CFLAGS)
FUZZ_LIB_OBJS := $(patsubst libreport/%.c,$(FUZZ_DIR)/obj/libreport/%.o,$(FIOR_SRCS))
# The decoder harness links only the engine model files the decoder needs (the rest may use pthreads etc.).
FUZZ_WAL_SRCS := $(wildcard engine/waldec.c engine/crc32c.c engine/walrec.c)
FUZZ_WAL_OBJS := $(patsubst engine/%.c,$(FUZZ_DIR)/obj/engine/%.o,$(FUZZ_WAL_SRCS))
FUZZ_HARNESSES := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
ifeq ($(wildcard engine/waldec.h),)
FUZZ_HARNESSES := $(filter-out fuzz_waldec,$(FUZZ_HARNESSES))
endif
FUZZ_BINS    := $(patsubst %,$(FUZZ_DIR)/%,$(FUZZ_HARNESSES))
FUZZ_MAX_LEN ?= 32768

$(FUZZ_DIR)/obj/libreport/%.o: libreport/%.c $(FIOR_HDRS) $(FIOR_PUBLIC_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_DIR)/obj/engine/%.o: engine/%.c $(wildcard engine/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_waldec: fuzz/fuzz_waldec.c fuzz/fuzz_waldec_body.h fuzz/fuzz_assert.h $(FUZZ_WAL_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< $(FUZZ_WAL_OBJS)
$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_targets.h fuzz/fuzz_assert.h $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(YAJL_LIBS) -lm

.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_WAL_OBJS)
.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	sh fuzz/run.sh "$(FUZZ_DIR)" "$(FUZZ_SECONDS)" "$(FUZZ_MAX_LEN)" $(FUZZ_HARNESSES)
