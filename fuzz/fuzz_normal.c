/* SPDX-License-Identifier: MIT */
/* fuzz_normal.c — libFuzzer harness: fio's normal (human) output parser: bytes after a job header, and raw.
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
    fz_normal(data, size);
    return 0;
}
