/* SPDX-License-Identifier: MIT */
/* tslurp.h — for the cmocka tests: a whole fixture file into memory, NUL-terminated (fails the test when
 * the file cannot be read). */
#ifndef TSLURP_H
#define TSLURP_H

#include <stdio.h>
#include <stdlib.h>

static __attribute__((unused)) char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

#endif
