/* SPDX-License-Identifier: MIT */
/* strbuf.c — the growing string of strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(strbuf *sb)
{
    *sb = (strbuf)STRBUF_INIT;
}

/* Room for n more bytes and the NUL: 0, or -1 (oom set). */
static int grow(strbuf *sb, size_t n)
{
    if (sb->oom || n > ((size_t)-1) / 2 - sb->len)
        return sb->oom = 1, -1;
    if (sb->len + n + 1 <= sb->alloc)
        return 0;
    size_t na = sb->alloc ? sb->alloc : 64;
    while (na < sb->len + n + 1)
        na *= 2;
    char *nb = realloc(sb->alloc ? sb->buf : NULL, na);
    if (!nb)
        return sb->oom = 1, -1;
    if (!sb->alloc)
        nb[0] = '\0';
    sb->buf = nb;
    sb->alloc = na;
    return 0;
}

void strbuf_add(strbuf *sb, const char *s, size_t n)
{
    if (grow(sb, n))
        return;
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void strbuf_adds(strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void strbuf_addsep(strbuf *sb, const char *sep)
{
    if (sb->len)
        strbuf_adds(sb, sep);
}

char *strbuf_detach(strbuf *sb)
{
    char *s = sb->alloc ? sb->buf : strdup("");
    strbuf_init(sb);
    return s;
}

void strbuf_release(strbuf *sb)
{
    if (sb->alloc)
        free(sb->buf);
    strbuf_init(sb);
}
