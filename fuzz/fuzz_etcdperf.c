/* SPDX-License-Identifier: MIT */
/* fuzz_etcdperf.c — libFuzzer harness: the etcd-perf log parser: bytes after the verdict line's prefix, and raw.
 * The body is in fuzz_targets.h (shared with the regression replay test). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_assert.h"
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_etcdperf(data, size);
    return 0;
}
