/* SPDX-License-Identifier: MIT */
/* handover.c — the first stage every text reader reads through: undoes what tools do to an output on its
 * way from fio to us, so that a run reads as the run it is however it was handed over.
 *  - encodings: UTF-16LE/BE with a BOM (PowerShell 5's `>` and Out-File), decoded to UTF-8; a UTF-8 BOM
 *    (PowerShell 7's utf8BOM, Notepad) dropped;
 *  - line ends: CRLF and trailing blanks (a terminal copy) dropped from the lines it rewrites (an input
 *    with nothing else to undo is left as it is: the readers trim their lines themselves);
 *  - line prefixes, from the start of each line, as often as they nest: mail quoting ("> ", "> > ", ">>"),
 *    kubectl's --prefix "[pod/NAME/CONTAINER] ", RFC 3339 timestamps (kubectl logs --timestamps, GitHub
 *    Actions' raw logs) with the CRI log's "stdout F " / "stderr P " after them (a P record's text goes on
 *    in the next record: joined), journalctl's "Dec 02 12:00:00 host unit[pid]: " (and short-iso's
 *    "2026-12-02T12:00:00+0000 host unit[pid]: ").
 * No fio output line starts with any of these (fio's lines start with a job name, a blank, '|', or a
 * keyword; its JSON lines with a blank, '{' or '}'), so a line that carries one is a handed-over line.
 * Line numbers stay those of the input except after a CRI P record. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct hbuf {
    char  *p;
    size_t n, cap;
} hbuf;

static int put(hbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n + 1)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np)
            return -1;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

static int put_cp(hbuf *b, unsigned long c)
{
    char u[4];
    size_t n;
    if (c < 0x80) {
        u[0] = (char)c, n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xc0 | (c >> 6)), u[1] = (char)(0x80 | (c & 0x3f)), n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xe0 | (c >> 12)), u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (char)(0x80 | (c & 0x3f)), n = 3;
    } else {
        u[0] = (char)(0xf0 | (c >> 18)), u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3f)), u[3] = (char)(0x80 | (c & 0x3f)), n = 4;
    }
    return put(b, u, n);
}

/* UTF-16 (after its BOM) to UTF-8; an unpaired surrogate becomes U+FFFD, an odd last byte is dropped. */
static int from_utf16(hbuf *b, const unsigned char *s, size_t len, int be)
{
    for (size_t i = 0; i + 1 < len; i += 2) {
        unsigned long c = be ? (unsigned long)s[i] << 8 | s[i + 1] : (unsigned long)s[i + 1] << 8 | s[i];
        if (c >= 0xd800 && c < 0xdc00 && i + 3 < len) {
            unsigned long d = be ? (unsigned long)s[i + 2] << 8 | s[i + 3]
                                 : (unsigned long)s[i + 3] << 8 | s[i + 2];
            if (d >= 0xdc00 && d < 0xe000) {
                c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
                i += 2;
            } else {
                c = 0xfffd;
            }
        } else if (c >= 0xd800 && c < 0xe000) {
            c = 0xfffd;
        }
        if (put_cp(b, c))
            return -1;
    }
    return 0;
}

static int digits(const char *p, const char *e, size_t n)
{
    if ((size_t)(e - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    return 1;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM|±HHMM) ": its length, 0 when p does not start with one. */
static size_t rfc3339(const char *p, const char *e)
{
    const char *q = p;
    if (!digits(q, e, 4) || e - q < 19 || q[4] != '-' || !digits(q + 5, e, 2) || q[7] != '-' ||
        !digits(q + 8, e, 2) || (q[10] != 'T' && q[10] != ' ') || !digits(q + 11, e, 2) || q[13] != ':' ||
        !digits(q + 14, e, 2) || q[16] != ':' || !digits(q + 17, e, 2))
        return 0;
    q += 19;
    if (q < e && (*q == '.' || *q == ',')) {
        const char *f = ++q;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
        if (q == f)
            return 0;
    }
    if (q < e && *q == 'Z') {
        q++;
    } else if (q < e && (*q == '+' || *q == '-') && digits(q + 1, e, 2)) {
        q += 3;
        if (q < e && *q == ':')
            q++;
        if (!digits(q, e, 2))
            return 0;
        q += 2;
    } else {
        return 0;
    }
    return q < e && *q == ' ' ? (size_t)(q + 1 - p) : 0;
}

/* A token of non-blank bytes and the one space after it: its length with the space, 0 when none. */
static size_t token(const char *p, const char *e)
{
    const char *q = p;
    while (q < e && *q != ' ' && *q != '\t')
        q++;
    return q > p && q < e && *q == ' ' ? (size_t)(q + 1 - p) : 0;
}

/* journalctl's "HOST IDENT[PID]: " (pid required unless `any`, where "HOST IDENT: " will do) after its time. */
static size_t host_ident(const char *p, const char *e, int any)
{
    size_t h = token(p, e), i = h ? token(p + h, e) : 0;
    if (!i || i < 3)
        return 0;
    const char *t = p + h + i - 2; /* the ':' */
    if (*t != ':')
        return 0;
    if (t[-1] == ']') {
        const char *o = t - 2;
        while (o > p + h && *o >= '0' && *o <= '9')
            o--;
        if (*o != '[' || o == t - 2)
            return 0;
    } else if (!any) {
        return 0;
    }
    return h + i;
}

/* journalctl's short format: "Dec  2 12:00:00 " then HOST IDENT[PID]: */
static size_t journal(const char *p, const char *e)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (e - p < 16 || p[3] != ' ')
        return 0;
    int m = 0;
    for (int i = 0; i < 12 && !m; i++)
        m = !memcmp(p, months + 3 * i, 3);
    const char *q = p + 4;
    if (!m || !((digits(q, e, 2)) || (*q == ' ' && digits(q + 1, e, 1))) || q[2] != ' ')
        return 0;
    q += 3;
    if (!digits(q, e, 2) || q[2] != ':' || !digits(q + 3, e, 2) || q[5] != ':' || !digits(q + 6, e, 2) ||
        q + 8 >= e || q[8] != ' ')
        return 0;
    size_t t = host_ident(q + 9, e, 1);
    return t ? (size_t)(q + 9 - p) + t : 0;
}

/* kubectl logs --prefix: "[pod/NAME/CONTAINER] " (no blank inside, at least one '/'). */
static size_t kube_prefix(const char *p, const char *e)
{
    if (p >= e || *p != '[')
        return 0;
    const char *q = p + 1;
    int slash = 0;
    while (q < e && *q != ']' && *q != ' ' && *q != '\t')
        slash |= *q++ == '/';
    return slash && q + 1 < e && *q == ']' && q[1] == ' ' ? (size_t)(q + 2 - p) : 0;
}

/* One prefix at p: its length (0 when none); *partial set for a CRI "P" record. */
static size_t one_prefix(const char *p, const char *e, int *partial)
{
    const char *q = p;
    while (q < e && (*q == ' ' || *q == '\t'))
        q++;
    if (q < e && *q == '>') { /* mail quoting, any depth: ">", "> ", ">>" */
        while (q < e && *q == '>') {
            q++;
            if (q < e && *q == ' ')
                q++;
        }
        return (size_t)(q - p);
    }
    size_t n;
    if ((n = kube_prefix(p, e)) || (n = journal(p, e)))
        return n;
    if ((n = rfc3339(p, e))) {
        q = p + n;
        /* CRI: "stdout F " / "stderr P " */
        if (e - q >= 9 && (!memcmp(q, "stdout ", 7) || !memcmp(q, "stderr ", 7)) && (q[7] == 'F' || q[7] == 'P') &&
            q[8] == ' ') {
            *partial = q[7] == 'P';
            return n + 9;
        }
        if (e - q >= 8 && (!memcmp(q, "stdout ", 7) || !memcmp(q, "stderr ", 7)) && (q[7] == 'F' || q[7] == 'P')) {
            *partial = q[7] == 'P'; /* an empty record: "… stdout F" and the line's end */
            return n + 8;
        }
        /* journalctl -o short-iso: a time, then HOST IDENT[PID]: */
        return n + host_ident(q, e, 0);
    }
    return 0;
}

/* One line (without its '\n') into b: its prefixes and trailing blanks dropped. *partial: a CRI P record
 * (no newline after it). */
static int line_out(hbuf *b, const char *p, const char *e, int *partial)
{
    *partial = 0;
    for (int k = 0; k < 8; k++) { /* nested: a quoted kubectl log, a timestamped mail... */
        size_t n = one_prefix(p, e, partial);
        if (!n)
            break;
        p += n;
    }
    const char *t = e;
    while (t > p && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
        t--;
    return put(b, p, (size_t)(t - p));
}

/* 1 when a line of buf carries a prefix. */
static int any_line(const char *buf, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        const char *e = nl ? nl : buf + len;
        int partial = 0;
        if (
            one_prefix(buf + i, e, &partial))
            return 1;
        i = (size_t)(e - buf) + 1;
    }
    return 0;
}

static int has_bom(const unsigned char *u, size_t len)
{
    if (len >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff)))
        return 2;
    return len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf ? 3 : 0;
}

int fior__handover(const char *buf, size_t len, char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    const unsigned char *u = (const unsigned char *)buf;
    int bom = has_bom(u, len);
    /* the common case: nothing to undo, nothing copied. Line ends alone (CRLF, trailing blanks) are left
     * to the readers (fio's JSON ignores them, the normal reader trims each line), so that the byte
     * offsets in their errors stay those of the file. */
    if (!bom && !any_line(buf, len))
        return 0;
    hbuf dec = {0}, b = {0};
    if (bom == 2) {
        if (from_utf16(&dec, u + 2, len - 2, u[0] == 0xfe) || put(&dec, "", 0)) {
            free(dec.p);
            return -1;
        }
        buf = dec.p;
        len = dec.n;
    } else if (bom == 3) {
        buf += 3;
        len -= 3;
    }
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        const char *e = nl ? nl : buf + len;
        int partial = 0;
        if (line_out(&b, buf + i, e, &partial) || (nl && !partial && put(&b, "\n", 1))) {
            free(dec.p);
            free(b.p);
            return -1;
        }
        i = (size_t)(e - buf) + (nl ? 1 : 0);
    }
    free(dec.p);
    if (!b.p && put(&b, "", 0))
        return -1;
    b.p[b.n] = '\0';
    *out = b.p;
    *outlen = b.n;
    return 0;
}

/* The file reader streams JSON from the first document on; a handed-over input is read whole instead. */
int fior__handover_needed(const char *buf, size_t len)
{
    return has_bom((const unsigned char *)buf, len) || any_line(buf, len);
}
