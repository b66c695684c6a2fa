/* SPDX-License-Identifier: MIT */
/* fuzz_auto.c — libFuzzer harness: fior_parse_buffer on raw bytes (the auto-detecting entry point).
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
    fz_auto(data, size);
    return 0;
}
