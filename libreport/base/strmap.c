/* SPDX-License-Identifier: MIT */
/* strmap.c — a small string → index map for the readers, so that large (or hostile) inputs stay linear
 * (fmt_normal.c: job identities for the status-interval de-duplication and job descriptions by name).
 * Open addressing, FNV-1a. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t fnv(const char *k)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ULL;
    return h;
}

size_t *fior__strmap_find(const fior__strmap *x, const char *key)
{
    if (!x->cap)
        return NULL;
    for (size_t i = fnv(key) & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        if (!x->keys[i])
            return NULL;
        if (!strcmp(x->keys[i], key))
            return &x->vals[i];
    }
}

int fior__strmap_put(fior__strmap *x, char *key, size_t val)
{
    if (!key)
        return -1;
    if (fior__strmap_find(x, key)) {
        free(key);
        return 0;
    }
    if (2 * (x->n + 1) > x->cap) {
        size_t nc = x->cap ? 2 * x->cap : 64;
        fior__strmap y = {calloc(nc, sizeof(char *)), calloc(nc, sizeof(size_t)), nc, 0};
        if (!y.keys || !y.vals) {
            free(y.keys);
            free(y.vals);
            free(key);
            return -1;
        }
        for (size_t i = 0; i < x->cap; i++)
            if (x->keys[i])
                fior__strmap_put(&y, x->keys[i], x->vals[i]);
        free(x->keys);
        free(x->vals);
        *x = y;
    }
    size_t i = fnv(key) & (x->cap - 1);
    while (x->keys[i])
        i = (i + 1) & (x->cap - 1);
    x->keys[i] = key;
    x->vals[i] = val;
    x->n++;
    return 0;
}

void fior__strmap_free(fior__strmap *x)
{
    for (size_t i = 0; i < x->cap; i++)
        free(x->keys[i]);
    free(x->keys);
    free(x->vals);
}
