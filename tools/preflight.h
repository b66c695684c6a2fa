/* SPDX-License-Identifier: MIT */
/* preflight.h — the refusals `check` and `capacity` make before fio starts: a directory fio's job-file
 * parser would misread, one that cannot be written, the wrong kind of filesystem, too little room (or a run
 * that would leave less than a live etcd's reserve), a preloaded library, and output paths that cannot be
 * written. */
#ifndef ETCD_FIO_PREFLIGHT_H
#define ETCD_FIO_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "fsinfo.h"

/* One output file option (--html FILE ...): name without dashes, path or NULL when not given. */
typedef struct preflight_out {
    const char *opt;
    const char *path;
} preflight_out;

/* A live etcd needs room for its next WAL segment and the spare (2 x 64 MB) plus 5 % of the filesystem. */
#define PREFLIGHT_SEGMENT_BYTES 64000000ull

/* The refusals --force overrode, shown in the result (check_env.c: check_forced_add, check_forced_detail). */
typedef struct check_forced {
    char   what[8][600];
    size_t n;
} check_forced;

/* 0, or 2 after the one-line message on stderr. Fills *fi. `need` is the room the run takes; force turns the
 * preload, layer, reserve and other-disk refusals into warnings, each listed in *forced. */
int preflight(const cli_cmd *cmd, const char *dir, uint64_t need, int force, const preflight_out *outs,
              size_t nouts, fsinfo *fi, check_forced *forced);

#endif
