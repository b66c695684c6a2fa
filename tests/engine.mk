# SPDX-License-Identifier: MIT
# tests/engine.mk — helpers for the engine's integration tests (tests/engine/it_engine_*.sh).
WALDUMP := $(BUILD)/tests/waldump
$(WALDUMP): tests/lib/waldump.c $(ENGINE_MODEL_A) engine/waldec.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -Iengine -o $@ $< $(ENGINE_MODEL_A) -lpthread

TEST_HELPERS += $(WALDUMP)
