/* SPDX-License-Identifier: MIT */
/* fuzz_json.c — libFuzzer harness: fio JSON/json+ parsing, and the status-interval stream API split at random points.
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
    fz_json(data, size);
    return 0;
}
