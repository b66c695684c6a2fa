/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pipeline.h — etcd's filePipeline: a background thread keeps the next segment file ready ("0.tmp" /
 * "1.tmp" alternating), created and preallocated to the segment size before the WAL needs it, so a
 * rollover only renames. Preallocation is fallocate(fd, 0, 0, size); on EOPNOTSUPP/EINTR it falls back to
 * ftruncate like etcd's fileutil.Preallocate. */
#ifndef ETCDWAL_PIPELINE_H
#define ETCDWAL_PIPELINE_H

#include <pthread.h>
#include <stdint.h>

#include "hist.h"

enum { PIPELINE_FALLOCATE = 0, PIPELINE_TRUNCATE = 1 };

typedef struct pipeline {
    int dirfd;
    uint64_t size;
    int mode;
    unsigned count;          /* files created so far; names alternate on count % 2 */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;
    int done;                /* stop requested */
    int ready_fd;            /* spare waiting to be taken, -1 if none */
    char ready_name[32];
    int err;                 /* errno of a failed allocation (the thread stops then) */
    char errmsg[256];
    hist prealloc;           /* ns per preallocation (fallocate or ftruncate) */
    uint64_t fallbacks;      /* fallocate → ftruncate fallbacks */
} pipeline;

/* Preallocates size bytes of fd as etcd does (mode PIPELINE_*). 0 or -errno; *fell_back set to 1 when
 * fallocate was unsupported and ftruncate was used. */
int  pipeline_preallocate(int fd, uint64_t size, int mode, int *fell_back);

/* Starts the thread; 0 or -errno. */
int  pipeline_start(pipeline *p, int dirfd, uint64_t size, int mode);
/* Blocks until a spare is ready (without taking it); 0 or -errno with msg. */
int  pipeline_wait_ready(pipeline *p, char *msg, size_t msglen);
/* Blocks until a spare is ready; gives its fd and name (inside dirfd). 0 or -errno with msg. */
int  pipeline_take(pipeline *p, int *fd, char *name, size_t namelen, char *msg, size_t msglen);
/* Stops the thread and removes a spare nobody took. */
void pipeline_stop(pipeline *p);

#endif
