/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pipeline.c — the spare-segment thread (see pipeline.h). One thread per WAL, started at open and
 * joined at close; the WAL thread only ever waits for it inside cut(). */
#include "pipeline.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pipeline_preallocate(int fd, uint64_t size, int mode, int *fell_back)
{
    if (fell_back)
        *fell_back = 0;
    if (mode == PIPELINE_FALLOCATE) {
        if (sys_fallocate(fd, 0, 0, (off_t)size) == 0)
            return 0;
        if (errno != EOPNOTSUPP && errno != EINTR)
            return -errno;
        if (fell_back)
            *fell_back = 1;
    }
    if (sys_ftruncate(fd, (off_t)size) != 0)
        return -errno;
    return 0;
}

/* Creates and preallocates the next spare; called on the pipeline thread without the lock held. */
static int alloc_spare(pipeline *p, int *out_fd, char *name, size_t namelen, char *msg, size_t msglen)
{
    snprintf(name, namelen, "%u.tmp", p->count % 2);
    int fd = openat(p->dirfd, name, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(msg, msglen, "openat(%s): %s", name, strerror(e));
        return -e;
    }
    int fell_back = 0;
    uint64_t t0 = now_ns();
    int rc = pipeline_preallocate(fd, p->size, p->mode, &fell_back);
    uint64_t dt = now_ns() - t0;
    if (rc) {
        snprintf(msg, msglen, "%s(%s, %llu bytes): %s",
                 p->mode == PIPELINE_FALLOCATE && !fell_back ? "fallocate" : "ftruncate", name,
                 (unsigned long long)p->size, strerror(-rc));
        close(fd);
        unlinkat(p->dirfd, name, 0);
        return rc;
    }
    pthread_mutex_lock(&p->mu);
    hist_add(&p->prealloc, dt);
    p->fallbacks += (uint64_t)fell_back;
    pthread_mutex_unlock(&p->mu);
    p->count++;
    *out_fd = fd;
    return 0;
}

static void *run(void *arg)
{
    pipeline *p = arg;
    for (;;) {
        int fd = -1;
        char name[32], msg[256];
        int rc = alloc_spare(p, &fd, name, sizeof name, msg, sizeof msg);
        pthread_mutex_lock(&p->mu);
        if (rc) {
            p->err = -rc;
            snprintf(p->errmsg, sizeof p->errmsg, "%s", msg);
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        p->ready_fd = fd;
        snprintf(p->ready_name, sizeof p->ready_name, "%s", name);
        pthread_cond_broadcast(&p->cv);
        while (p->ready_fd >= 0 && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        int taken = p->ready_fd < 0;
        pthread_mutex_unlock(&p->mu);
        /* like etcd's goroutine, a taken spare is always replaced, even if Close comes meanwhile; an
         * untaken one is left for pipeline_stop to remove */
        if (!taken)
            return NULL;
    }
}

int pipeline_start(pipeline *p, int dirfd, uint64_t size, int mode)
{
    memset(p, 0, sizeof *p);
    p->dirfd = dirfd;
    p->size = size;
    p->mode = mode;
    p->ready_fd = -1;
    hist_init(&p->prealloc);
    int rc = pthread_mutex_init(&p->mu, NULL);
    if (rc)
        return -rc;
    rc = pthread_cond_init(&p->cv, NULL);
    if (rc) {
        pthread_mutex_destroy(&p->mu);
        return -rc;
    }
    rc = pthread_create(&p->thread, NULL, run, p);
    if (rc) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        return -rc;
    }
    p->started = 1;
    return 0;
}

/* With p->mu held: waits for a spare; 0, or -errno with msg (the lock is then released). */
static int wait_ready(pipeline *p, char *msg, size_t msglen)
{
    while (p->ready_fd < 0 && !p->err)
        pthread_cond_wait(&p->cv, &p->mu);
    if (p->ready_fd < 0) {
        int e = p->err;
        snprintf(msg, msglen, "%s", p->errmsg);
        pthread_mutex_unlock(&p->mu);
        return -e;
    }
    return 0;
}

int pipeline_wait_ready(pipeline *p, char *msg, size_t msglen)
{
    pthread_mutex_lock(&p->mu);
    int rc = wait_ready(p, msg, msglen);
    if (!rc)
        pthread_mutex_unlock(&p->mu);
    return rc;
}

int pipeline_take(pipeline *p, int *fd, char *name, size_t namelen, char *msg, size_t msglen)
{
    pthread_mutex_lock(&p->mu);
    int rc = wait_ready(p, msg, msglen);
    if (rc)
        return rc;
    *fd = p->ready_fd;
    snprintf(name, namelen, "%s", p->ready_name);
    p->ready_fd = -1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

void pipeline_stop(pipeline *p)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    if (p->ready_fd >= 0) {
        /* closed before unlinked: NFS and FUSE rename an open unlinked file (.nfsXXXX, .fuse_hiddenXXXX)
         * and the private directory could not be removed */
        close(p->ready_fd);
        unlinkat(p->dirfd, p->ready_name, 0);
        p->ready_fd = -1;
    }
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    p->started = 0;
}
