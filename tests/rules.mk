# SPDX-License-Identifier: MIT
# tests/rules.mk — every tests/MODULE/test_*.c is a cmocka binary linked with the CLI's modules, libfioreport.a
# and the engine model (built as $(BUILD)/tests/MODULE/test_*);
# every tests/MODULE/it_*.sh is an integration test run against the built artifacts and the real fio.
# MODULE is what the test exercises (tests/README.md); tests/lib/ holds what they share.
# A test at tests/ top would be neither built nor run: said at once, not skipped in silence.
$(if $(wildcard tests/test_*.c tests/it_*.sh),$(error $(wildcard tests/test_*.c tests/it_*.sh): a test goes in \
  the folder of the module it exercises (tests/README.md)))
TEST_SRCS   := $(wildcard tests/*/test_*.c)
TEST_BINS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_CFLAGS := $(CFLAGS_BASE) $(FIOR_PRIVATE) -Ilibreport/include -Ilibreport/base -Ilibreport/bound -Ilibreport/monitor -Ilibreport -Iengine -Itools -Itests/lib $(YAJL_CFLAGS) \
               -DTEST_FIXTURES='"$(abspath tests/fixtures)"'

$(BUILD)/tests/%: tests/%.c $(TOOLS_A) $(FIOR_A) $(ENGINE_MODEL_A) $(wildcard tests/lib/*.h) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TOOLS_A) $(FIOR_A) $(ENGINE_MODEL_A) $(CMOCKA_LIBS) $(YAJL_LIBS) $(CURL_LIBS) -lm -lpthread

UNIT_TESTS  += $(TEST_BINS)
INTEG_TESTS += $(sort $(wildcard tests/*/it_*.sh))
-include tests/faults.mk
-include tests/engine.mk
