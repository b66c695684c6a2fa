/* fuzz_normal.c — libFuzzer harness: fio's normal (human) output parser: bytes after a job header, and raw.
 * The body is in fuzz_targets.h (shared with the regression replay test). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FZ_ASSERT(c)                                                                   \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "FZ_ASSERT failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
            abort();                                                                   \
        }                                                                              \
    } while (0)
#include "fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_normal(data, size);
    return 0;
}
