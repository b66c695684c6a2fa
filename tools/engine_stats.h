/* SPDX-License-Identifier: MIT */
/* engine_stats.h — what check reads from the statistics file the engine writes at the end of a job
 * (etcd_stats_file=, engine/etcdwal_stats.c: one JSON object with "engine": "etcdwal"). */
#ifndef ETCD_FIO_ENGINE_STATS_H
#define ETCD_FIO_ENGINE_STATS_H

#include <stdint.h>

/* What the engine's stats file says about one job (present 0 when absent or not ours). */
typedef struct engine_stats {
    int      present;
    uint64_t segments, rollovers, segment_bytes, io_errors;
    uint64_t cut_max_ns, prealloc_mean_ns, prealloc_max_ns, prealloc_count;
} engine_stats;

/* Fills es from the file's text (NULL: no file). A number missing, negative or not an integer reads as 0. */
void engine_stats_parse(const char *json_text, engine_stats *es);

#endif
