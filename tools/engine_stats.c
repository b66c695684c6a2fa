/* SPDX-License-Identifier: MIT */
/* engine_stats.c — the engine's statistics file read with yajl's tree (engine_stats.h). */
#include "engine_stats.h"

#include <stdio.h>
#include <string.h>

#include "jr.h"

/* key_ns, else key (the engine names durations with _ns) */
static uint64_t num(yajl_val o, const char *k)
{
    char k2[64];
    snprintf(k2, sizeof k2, "%s_ns", k);
    return jr_get(o, k2) ? jr_u64(o, k2, 0) : jr_u64(o, k, 0);
}

void engine_stats_parse(const char *text, engine_stats *es)
{
    memset(es, 0, sizeof *es);
    yajl_val root = jr_parse(text, NULL, 0);
    const char *engine = jr_str(root, "engine");
    if (engine && !strcmp(engine, "etcdwal")) {
        yajl_val hist = jr_obj(root, "hist"), cut = jr_obj(hist, "cut"), pre = jr_obj(hist, "prealloc");
        es->present = 1;
        es->segments = num(root, "segments");
        es->rollovers = num(root, "rollovers");
        es->segment_bytes = num(root, "segment_bytes");
        es->io_errors = num(root, "io_errors");
        es->cut_max_ns = num(cut, "max");
        es->prealloc_mean_ns = num(pre, "mean");
        es->prealloc_max_ns = num(pre, "max");
        es->prealloc_count = num(pre, "count");
    }
    yajl_tree_free(root);
}
