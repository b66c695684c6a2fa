# SPDX-License-Identifier: GPL-2.0-or-later
# engine/rules.mk — libetcdwal.so. The WAL/backend model (engine/*.c except the fio glue) has no fio types
# and is also archived for the unit tests; only the glue (etcdwal*.c, etcdwal_glue.h) is compiled against the
# configured fio tree, and only into libetcdwal.so.
ENGINE_GLUE      := engine/etcdwal.c engine/etcdwal_opts.c engine/etcdwal_stats.c engine/etcdwal_procs.c \
                    engine/etcdwal_medium.c
ENGINE_GLUE_OBJS := $(patsubst engine/%.c,$(BUILD)/engine/%.glue.o,$(ENGINE_GLUE))
ENGINE_MODEL_SRCS:= $(filter-out $(ENGINE_GLUE),$(wildcard engine/*.c))
ENGINE_MODEL_OBJS:= $(patsubst engine/%.c,$(BUILD)/engine/%.o,$(ENGINE_MODEL_SRCS))
ENGINE_MODEL_A   := $(BUILD)/engine/libwalmodel.a
ENGINE_SO        := $(BUILD)/libetcdwal.so
ENGINE_CFLAGS    := $(CFLAGS_BASE) -Iengine

# The configured fio source tree of the installed fio version and that version, two lines (mk/fio-src.sh
# find: FIO_SRC=/path, checked against `$(FIO) --version`, or the tree `make deps` fetched; never the
# network). Looked up on every build and rewritten only when it changes, so a new FIO_SRC or an upgraded
# fio rebuilds the glue. The fetched tree lives outside $(BUILD) so sanitizer builds share it.
FIO_SRC_CACHE    ?= build/fio-src
FIO_SRC_PATH     := $(BUILD)/fio-src.path
$(FIO_SRC_PATH): mk/fio-src.sh FORCE | need-build
	@mkdir -p $(BUILD)
	@FIO_SRC="$(FIO_SRC)" sh mk/fio-src.sh find $(FIO_SRC_CACHE) > $@.tmp || { rm -f $@.tmp; exit 1; }; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
fio-src:
	FIO_SRC="$(FIO_SRC)" sh mk/fio-src.sh fetch $(FIO_SRC_CACHE)

$(BUILD)/engine/%.o: engine/%.c $(wildcard engine/*.h) $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -c $< -o $@

# fio's headers are not warning-clean under -Wextra; they are system-like here. ETCDWAL_FIO_VERSION is the
# tree's version: the engine refuses to load into any other fio (etcdwal.c). Every glue file gets the same flags.
$(ENGINE_GLUE_OBJS): $(BUILD)/engine/%.glue.o: engine/%.c $(wildcard engine/*.h) $(wildcard engine/bbolt*.c) $(FIO_SRC_PATH) $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	src="$$(sed -n 1p $(FIO_SRC_PATH))"; ver="$$(sed -n 2p $(FIO_SRC_PATH))"; \
	$(CC) $(ENGINE_CFLAGS) -std=gnu11 -Wno-unused-parameter -DETCDWAL_FIO_VERSION="\"$$ver\"" \
	  -Itools -isystem "$$src" -include "$$src/config-host.h" -c $< -o $@

# What a directory is on (statfs, mountinfo, a loop device's backing file): the CLI's own fsinfo/fsdev code,
# compiled on its own into the engine (no other CLI module comes with it).
ENGINE_FS_OBJS   := $(BUILD)/engine/fsinfo.o $(BUILD)/engine/fsdev.o
$(ENGINE_FS_OBJS): $(BUILD)/engine/%.o: tools/%.c tools/fsinfo.h $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(ENGINE_CFLAGS) -Itools -c $< -o $@
ENGINE_MODEL_OBJS += $(ENGINE_FS_OBJS)

$(ENGINE_MODEL_A): $(ENGINE_MODEL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(ENGINE_SO): $(ENGINE_GLUE_OBJS) $(ENGINE_MODEL_A) $(FLAGS_STAMP)
	$(CC) -shared $(LDFLAGS_BASE) -o $@ $(ENGINE_GLUE_OBJS) $(ENGINE_MODEL_A) -lpthread -lm

ALL_TARGETS += $(ENGINE_SO) $(ENGINE_MODEL_A)
