/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagewriter.h — etcd's pkg/ioutil PageWriter: a 128 KiB buffer in front of the WAL file. When a write
 * would overflow it, the partial 4096-byte page is completed first, the buffer is flushed (one write(2)),
 * whole pages go straight to the file and only the tail is buffered, so writes stay page-aligned.
 */
#ifndef ETCDWAL_PAGEWRITER_H
#define ETCDWAL_PAGEWRITER_H

#include <stddef.h>
#include <stdint.h>

#define PW_PAGE_BYTES 4096u
#define PW_BUFFER_BYTES (128u * 1024u)

typedef struct pagewriter {
    int fd;
    size_t page_bytes;
    size_t page_offset;     /* offset within a page of the buffer's base */
    size_t buffered;
    size_t watermark;       /* buffered bytes allowed before a flush; buf has a page of slack on top */
    unsigned char *buf;
    uint64_t bytes_out;     /* bytes handed to write(2) */
    uint64_t nwrites;       /* write(2) calls that moved data */
    /* optional: sees every write(2) (tests use it to check the flush rule without strace) */
    void (*observe)(void *arg, const void *p, size_t len);
    void *observe_arg;
} pagewriter;

/* Allocates the buffer once; 0 or -ENOMEM. */
int  pw_init(pagewriter *pw, int fd, size_t page_bytes, size_t buffer_bytes, size_t page_offset);
/* Points the writer at another file whose current offset is page_offset (the buffer must be empty). */
void pw_retarget(pagewriter *pw, int fd, size_t page_offset);
/* 0 or -errno from write(2). */
int  pw_write(pagewriter *pw, const void *p, size_t len);
/* Bytes that still fit under the watermark. */
size_t pw_room(const pagewriter *pw);
/* Room for n more bytes in the buffer without a flush (the caller fills them), or NULL when they would
 * pass the watermark (then use pw_write, which follows the flush rule). */
unsigned char *pw_reserve(pagewriter *pw, size_t n);
int  pw_flush(pagewriter *pw);
void pw_free(pagewriter *pw);

#endif
