/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagewriter.c — the PageWriter flush rule of etcd's pkg/ioutil/pagewriter.go, in C (see pagewriter.h). */
#include "pagewriter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int pw_init(pagewriter *pw, int fd, size_t page_bytes, size_t buffer_bytes, size_t page_offset)
{
    memset(pw, 0, sizeof *pw);
    pw->buf = malloc(buffer_bytes + page_bytes);
    if (!pw->buf)
        return -ENOMEM;
    pw->fd = fd;
    pw->page_bytes = page_bytes;
    pw->watermark = buffer_bytes;
    pw->page_offset = page_offset % page_bytes;
    return 0;
}

void pw_retarget(pagewriter *pw, int fd, size_t page_offset)
{
    pw->lent = NULL;
    pw->lent_len = 0;
    pw->fd = fd;
    pw->page_offset = page_offset % pw->page_bytes;
    pw->buffered = 0;
}

/* One logical write of the pieces v[0..nv) (total bytes); os.File.Write in Go also loops over short
 * writes. One piece goes out with write(2) as etcd's does, a lent payload's three with writev(2). */
static int write_all(pagewriter *pw, struct iovec *v, int nv, size_t total)
{
    if (pw->observe)
        pw->observe(pw->observe_arg, v[0].iov_base, total);
    pw->nwrites++;
    while (total) {
        ssize_t n = nv == 1 ? write(pw->fd, v->iov_base, v->iov_len) : writev(pw->fd, v, nv);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO;
        total -= (size_t)n;
        pw->bytes_out += (uint64_t)n;
        size_t left = (size_t)n;
        for (; nv && left >= v->iov_len; v++, nv--)
            left -= v->iov_len;
        if (nv && left) { /* a short write ended inside *v */
            v->iov_base = (char *)v->iov_base + left;
            v->iov_len -= left;
        }
    }
    return 0;
}

static int raw_write(pagewriter *pw, const unsigned char *p, size_t len)
{
    struct iovec v = {(void *)p, len};
    return write_all(pw, &v, 1, len);
}

void pw_take_back(pagewriter *pw)
{
    if (!pw->lent)
        return;
    unsigned char *at = pw->buf + pw->lent_at;
    memmove(at + pw->lent_len, at, pw->buffered - pw->lent_at);
    memcpy(at, pw->lent, pw->lent_len);
    pw->buffered += pw->lent_len;
    pw->lent = NULL;
    pw->lent_len = 0;
}

size_t pw_room(const pagewriter *pw)
{
    size_t used = pw->buffered + pw->lent_len;
    return used < pw->watermark ? pw->watermark - used : 0;
}

unsigned char *pw_reserve(pagewriter *pw, size_t n)
{
    if (pw->buffered + pw->lent_len + n > pw->watermark)
        return NULL;
    unsigned char *p = pw->buf + pw->buffered;
    pw->buffered += n;
    return p;
}

int pw_lend(pagewriter *pw, const void *p, size_t len)
{
    pw_take_back(pw);
    if (pw->buffered + len > pw->watermark)
        return -1;
    pw->lent = p;
    pw->lent_at = pw->buffered;
    pw->lent_len = len;
    return 0;
}

/* The buffer with its lent payload in place, as one writev(2). */
static int raw_writev(pagewriter *pw)
{
    struct iovec iov[3] = {{pw->buf, pw->lent_at},
                           {(void *)pw->lent, pw->lent_len},
                           {pw->buf + pw->lent_at, pw->buffered - pw->lent_at}};
    return write_all(pw, iov, 3, pw->buffered + pw->lent_len);
}

int pw_flush(pagewriter *pw)
{
    if (!pw->buffered && !pw->lent)
        return 0;
    size_t len = pw->buffered + pw->lent_len;
    int rc = pw->lent ? raw_writev(pw) : raw_write(pw, pw->buf, pw->buffered);
    pw->lent = NULL;
    pw->lent_len = 0;
    /* like etcd, the buffer is considered written even on error: the caller fails the WAL anyway */
    pw->page_offset = (pw->page_offset + len) % pw->page_bytes;
    pw->buffered = 0;
    return rc;
}

int pw_write(pagewriter *pw, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (pw->lent && pw->buffered + pw->lent_len + len > pw->watermark)
        pw_take_back(pw);  /* the flush rule below works on the buffer's bytes */
    if (pw->lent) {
        memcpy(pw->buf + pw->buffered, p, len);
        pw->buffered += len;
        return 0;
    }
    for (;;) {
        if (len + pw->buffered <= pw->watermark) {
            memcpy(pw->buf + pw->buffered, p, len);
            pw->buffered += len;
            return 0;
        }
        /* complete the slack page in the buffer if it is unaligned */
        size_t slack = pw->page_bytes - ((pw->page_offset + pw->buffered) % pw->page_bytes);
        if (slack != pw->page_bytes) {
            int partial = slack > len;
            if (partial)
                slack = len;
            memcpy(pw->buf + pw->buffered, p, slack);
            pw->buffered += slack;
            p += slack;
            len -= slack;
            if (partial)
                return 0; /* avoid forcing an unaligned flush */
        }
        int rc = pw_flush(pw);
        if (rc)
            return rc;
        if (len > pw->page_bytes) {
            size_t whole = (len / pw->page_bytes) * pw->page_bytes;
            rc = raw_write(pw, p, whole);
            if (rc)
                return rc;
            p += whole;
            len -= whole;
        }
        /* the remaining tail fits the now empty buffer on the next turn */
    }
}

void pw_free(pagewriter *pw)
{
    free(pw->buf);
    pw->buf = NULL;
}
