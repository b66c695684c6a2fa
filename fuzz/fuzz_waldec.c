/* SPDX-License-Identifier: MIT */
/* fuzz_waldec.c — libFuzzer harness: the WAL frame decoder (engine/waldec.c) on any bytes as a segment
 * image. The body is in fuzz_waldec_body.h (shared with the regression replay test). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "fuzz_assert.h"
#include "fuzz_waldec_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_waldec(data, size);
    return 0;
}
