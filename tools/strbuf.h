/* SPDX-License-Identifier: MIT */
/* strbuf.h — a growing NUL-terminated string (as git's strbuf), for messages whose length has no bound
 * (lists of files, libraries, reasons). Out of memory leaves what fitted and sets oom; the text is always
 * a valid string ("" before the first add). */
#ifndef ETCD_FIO_STRBUF_H
#define ETCD_FIO_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char  *buf;    /* never NULL after strbuf_init */
    size_t len, alloc;
    int    oom;
} strbuf;

#define STRBUF_INIT {(char *)"", 0, 0, 0}

void strbuf_init(strbuf *sb);
void strbuf_add(strbuf *sb, const char *s, size_t n);
void strbuf_adds(strbuf *sb, const char *s);
void strbuf_addf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends sep first unless the buffer is empty. */
void strbuf_addsep(strbuf *sb, const char *sep);
/* Takes the text (malloc'd, caller frees; "" when nothing was added) and leaves sb empty. */
char *strbuf_detach(strbuf *sb);
void strbuf_release(strbuf *sb);

#endif
