/* SPDX-License-Identifier: MIT */
/* preflight.h — the refusals `check` and `capacity` make before fio starts: a directory fio's job-file
 * parser would misread, one that cannot be written, the wrong kind of filesystem, too little room (or a run
 * that would leave less than a live etcd's reserve), and output paths that cannot be written. */
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

/* 0, or 2 after the one-line message on stderr. Fills *fi. `need` is the room the run takes; force turns the
 * reserve and the filesystem-kind refusals into warnings. */
int preflight(const cli_cmd *cmd, const char *dir, uint64_t need, int force, const preflight_out *outs,
              size_t nouts, fsinfo *fi);

#endif
