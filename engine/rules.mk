# SPDX-License-Identifier: GPL-2.0-or-later
# engine/rules.mk — libetcdwal.so. The WAL/backend model (engine/*.c except the fio glue) has no fio types
# and is also archived for the unit tests; only the glue is compiled against the configured fio tree.
ENGINE_GLUE      := engine/etcdwal.c
ENGINE_MODEL_SRCS:= $(filter-out $(ENGINE_GLUE),$(wildcard engine/*.c))
ENGINE_MODEL_OBJS:= $(patsubst engine/%.c,$(BUILD)/engine/%.o,$(ENGINE_MODEL_SRCS))
ENGINE_MODEL_A   := $(BUILD)/engine/libwalmodel.a
ENGINE_SO        := $(BUILD)/libetcdwal.so
ENGINE_CFLAGS    := $(CFLAGS_BASE) -Iengine

# The configured fio source tree of the installed fio version (FIO_SRC=/path overrides; checked too).
# It lives outside $(BUILD) so sanitizer builds share it.
FIO_SRC_CACHE    := build/fio-src
FIO_SRC_PATH     := $(BUILD)/fio-src.path
$(FIO_SRC_PATH): mk/fio-src.sh | $(DEPS_STAMP)
	@mkdir -p $(BUILD)
	FIO_SRC="$(FIO_SRC)" sh mk/fio-src.sh $(FIO_SRC_CACHE) > $@.tmp && mv $@.tmp $@
fio-src: $(FIO_SRC_PATH)

$(BUILD)/engine/%.o: engine/%.c $(wildcard engine/*.h) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -c $< -o $@

# fio's headers are not warning-clean under -Wextra; they are system-like here.
$(BUILD)/engine/etcdwal.glue.o: $(ENGINE_GLUE) $(wildcard engine/*.h) $(wildcard engine/bbolt.c) $(FIO_SRC_PATH)
	@mkdir -p $(dir $@)
	src="$$(cat $(FIO_SRC_PATH))"; \
	$(CC) $(ENGINE_CFLAGS) -std=gnu11 -Wno-unused-parameter -isystem "$$src" -include "$$src/config-host.h" -c $< -o $@

$(ENGINE_MODEL_A): $(ENGINE_MODEL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(ENGINE_SO): $(BUILD)/engine/etcdwal.glue.o $(ENGINE_MODEL_A)
	$(CC) -shared $(LDFLAGS_BASE) -o $@ $(BUILD)/engine/etcdwal.glue.o $(ENGINE_MODEL_A) -lpthread -lm

ALL_TARGETS += $(ENGINE_SO) $(ENGINE_MODEL_A)
