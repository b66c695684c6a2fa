# SPDX-License-Identifier: MIT
# bench/rules.mk — `make bench`: installs the bench packages (etcd, hyperfine, …), builds, then runs every
# measurement of bench/ and prints one table (kept in $(BUILD)/bench/table.txt). BENCH_QUICK=1: shorter pass.
BENCH_OUT ?= $(BUILD)/bench

bench: deps-bench
	$(MAKE) all $(BUILD)/bench/seq_replay
	BUILD=$(BUILD) BENCH_QUICK=$(BENCH_QUICK) sh bench/run.sh $(BENCH_OUT)

# The slow-disk lab (bench/lab.sh, `make lab`): labfs is a FUSE passthrough whose syncs are served by the
# simulated device of labdev.c. labdev.c has no FUSE in it and is unit-tested (tests/bench/test_labdev.c, part of
# make check); labfs itself needs libfuse3 (a bench dep) and is built only by `make lab`.
LABDEV_O := $(BUILD)/bench/labdev.o
LABFS    := $(BUILD)/bench/labfs
$(LABDEV_O): bench/labdev.c bench/labdev.h $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -c $< -o $@
$(LABFS): bench/labfs.c $(LABDEV_O)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) $$(pkg-config --cflags fuse3) -o $@ $< $(LABDEV_O) $$(pkg-config --libs fuse3) -lpthread -lm
$(BUILD)/tests/bench/test_labdev: tests/bench/test_labdev.c $(LABDEV_O)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Ibench -o $@ $< $(LABDEV_O) $(CMOCKA_LIBS) -lm

.PHONY: lab
lab: deps-bench
	$(MAKE) all $(LABFS)
	BUILD=$(BUILD) sh bench/lab.sh $(BENCH_OUT)/lab

# seq_replay: a kept check stream judged again by this build's sequential rule (bench/full_check.sh)
SEQ_REPLAY := $(BUILD)/bench/seq_replay
$(SEQ_REPLAY): bench/seq_replay.c $(FIOR_A) $(FLAGS_STAMP) | need-build
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_BASE) -Ilibreport/include -Ilibreport -o $@ $< $(FIOR_A) $(YAJL_LIBS) -lm
