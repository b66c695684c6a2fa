# bench/rules.mk — `make bench`: installs the bench packages (etcd, hyperfine, …), builds, then runs every
# measurement of bench/ and prints one table (kept in $(BUILD)/bench/table.txt). BENCH_QUICK=1: shorter pass.
BENCH_OUT ?= $(BUILD)/bench

bench: deps-bench
	$(MAKE) all
	BUILD=$(BUILD) BENCH_QUICK=$(BENCH_QUICK) sh bench/run.sh $(BENCH_OUT)
