/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagewriter.c — the PageWriter flush rule of etcd's pkg/ioutil/pagewriter.go, in C (see pagewriter.h). */
#include "pagewriter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
    pw->fd = fd;
    pw->page_offset = page_offset % pw->page_bytes;
    pw->buffered = 0;
}

/* One logical write (os.File.Write in Go also loops over short writes), with write(2) as etcd's. */
static int raw_write(pagewriter *pw, const unsigned char *p, size_t len)
{
    if (pw->observe)
        pw->observe(pw->observe_arg, p, len);
    pw->nwrites++;
    while (len) {
        ssize_t n = write(pw->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
        pw->bytes_out += (uint64_t)n;
    }
    return 0;
}

size_t pw_room(const pagewriter *pw)
{
    return pw->buffered < pw->watermark ? pw->watermark - pw->buffered : 0;
}

unsigned char *pw_reserve(pagewriter *pw, size_t n)
{
    if (pw->buffered + n > pw->watermark)
        return NULL;
    unsigned char *p = pw->buf + pw->buffered;
    pw->buffered += n;
    return p;
}

int pw_flush(pagewriter *pw)
{
    if (!pw->buffered)
        return 0;
    size_t len = pw->buffered;
    int rc = raw_write(pw, pw->buf, pw->buffered);
    /* like etcd, the buffer is considered written even on error: the caller fails the WAL anyway */
    pw->page_offset = (pw->page_offset + len) % pw->page_bytes;
    pw->buffered = 0;
    return rc;
}

int pw_write(pagewriter *pw, const void *data, size_t len)
{
    const unsigned char *p = data;
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
