/* SPDX-License-Identifier: MIT */
/* fuzz_assert.h — how the libFuzzer harnesses report a broken invariant: abort, so libFuzzer saves the
 * input. (tests/fuzz/test_fuzz_regress.c defines FZ_ASSERT as a cmocka failure instead, before including the
 * same harness bodies.) Harness programs only: the library itself never aborts. */
#ifndef FUZZ_ASSERT_H
#define FUZZ_ASSERT_H
#include <stdio.h>
#include <stdlib.h>
#define FZ_ASSERT(c)                                                                   \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "FZ_ASSERT failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
            abort();                                                                   \
        }                                                                              \
    } while (0)
#endif
