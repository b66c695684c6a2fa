#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-fixtures-federation.sh — two scrapes of a Prometheus federation endpoint over two etcd members, made
# from the committed real scrapes in tests/fixtures/etcd-metrics the way /federate labels them: every sample
# gets its member's instance label ("# TYPE"/"# HELP" lines once per family). Member m1 is the etcd of
# etcd-3.4.23-start.prom then etcd-3.4.23-after-puts.prom (one process), m2 the etcd on tmpfs of
# etcd-3.4.23-tmpfs.prom in both scrapes. The tests read the results; rerun by hand after changing either.
set -eu
D=$(cd "$(dirname "$0")/.." && pwd)/fixtures/etcd-metrics
label() { # INSTANCE FILE: the sample lines with instance="INSTANCE"
  grep -v '^#' "$2" | sed -E "s/^([a-zA-Z_:][a-zA-Z0-9_:]*)\{/\1{instance=\"$1\",/; t; s/^([a-zA-Z_:][a-zA-Z0-9_:]*) /\1{instance=\"$1\"} /"
}
fed() { # M1FILE M2FILE: one federation scrape
  grep '^# ' "$1" | awk '!seen[$0]++'
  label m1:2379 "$1"
  label m2:2379 "$2"
}
fed "$D/etcd-3.4.23-start.prom" "$D/etcd-3.4.23-tmpfs.prom" > "$D/federate-1.prom"
fed "$D/etcd-3.4.23-after-puts.prom" "$D/etcd-3.4.23-tmpfs.prom" > "$D/federate-2.prom"
