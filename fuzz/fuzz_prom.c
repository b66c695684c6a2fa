/* SPDX-License-Identifier: MIT */
/* fuzz_prom.c — libFuzzer harness: Prometheus scrapes of etcd and `etcdctl check perf` output (readers
 * alone, and two scrapes differenced by fior_report_window). The body is in fuzz_targets.h (shared with the
 * regression replay test). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_prom(data, size);
    return 0;
}
