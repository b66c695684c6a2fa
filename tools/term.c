/* SPDX-License-Identifier: MIT */
/* term.c — see term.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

#include <stdio.h>

int term_width(int fd)
{
    struct winsize ws;
    int w = 0;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        w = ws.ws_col;
    else if (getenv("COLUMNS"))
        w = atoi(getenv("COLUMNS"));
    if (w <= 0)
        w = 80;
    return w < 20 ? 20 : w;
}

int term_color(FILE *f)
{
    const char *nc = getenv("NO_COLOR"), *t = getenv("TERM");
    if (nc && nc[0])
        return 0;
    if (t && !strcmp(t, "dumb"))
        return 0;
    int fd = f ? fileno(f) : -1;
    return fd >= 0 && isatty(fd);
}

const char *term_verdict_on(int color, fior_verdict v)
{
    if (!color)
        return "";
    return v == FIOR_PASS ? "\033[32m" : v == FIOR_FAIL ? "\033[1;31m" : v == FIOR_UNKNOWN ? "\033[33m" : "";
}

const char *term_off(int color)
{
    return color ? "\033[0m" : "";
}

/* Length of the printable UTF-8 character at s (valid, not a C0/C1 control or DEL), 0 when it is not one. */
static size_t printable_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c >= 0x20 && c < 0x7f)
        return 1;
    size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (n == 2 && c < 0xc2) || (c == 0xc2 && s[1] < 0xa0)) /* overlong, or C1 (U+0080..U+009F) */
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) || c > 0xf4 ||
        (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

char *term_clean(char *dst, size_t n, const char *src)
{
    size_t o = 0;
    if (!n)
        return dst;
    for (const unsigned char *s = (const unsigned char *)src; *s;) {
        size_t l = printable_len(s);
        if (o + (l ? l : 1) >= n)
            break;
        if (l)
            memmove(dst + o, s, l), o += l, s += l;
        else
            dst[o++] = '?', s++;
    }
    dst[o] = '\0';
    return dst;
}

void term_puts(FILE *f, const char *s)
{
    while (s && *s) {
        size_t l = printable_len((const unsigned char *)s);
        if (l)
            fwrite(s, 1, l, f), s += l;
        else
            fputc('?', f), s++;
    }
}

int term_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* text (from an input: made safe) word-wrapped to width: first line after `first`, the others after
 * `indent` spaces. A word longer than a line is cut. */
void term_wrap(FILE *f, const char *first, int indent, const char *text, int width)
{
    size_t tl = strlen(text) + 1;
    char *t = malloc(tl);
    if (!t)
        return;
    term_clean(t, tl, text);
    fputs(first, f);
    int col = term_cols(first), start = col;
    if (col + term_cols(t) <= width) { /* fits: as it is, its spacing kept (a table's row) */
        fputs(t, f);
        fputc('\n', f);
        free(t);
        return;
    }
    const char *p = t;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t wl = strcspn(p, " "), wl0 = wl;
        /* a figure keeps its unit on its line: "95 %", "1.88 ms.." (unless the whole would not fit on one) */
        static const char *const units[] = {"%", "ms", "us", "ns", "s", "MiB", "MB", "KiB", "KB", "GiB", "GB"};
        for (int glued = 1; glued && wl && p[wl] == ' ' && p[wl - 1] >= '0' && p[wl - 1] <= '9';) {
            const char *u = p + wl + 1;
            size_t ul = strcspn(u, " "), core = strcspn(u, " .,;:)");
            glued = 0;
            for (size_t i = 0; !glued && i < sizeof units / sizeof units[0]; i++)
                if (core == strlen(units[i]) && !strncmp(u, units[i], core)) {
                    wl += 1 + ul;
                    glued = 1;
                }
        }
        char word[1200];
        snprintf(word, sizeof word, "%.*s", (int)(wl < sizeof word ? wl : sizeof word - 1), p);
        int ww = term_cols(word);
        if (wl != wl0 && ww > width - indent) {
            wl = wl0;
            snprintf(word, sizeof word, "%.*s", (int)(wl < sizeof word ? wl : sizeof word - 1), p);
            ww = term_cols(word);
        }
        if (col > start && col + 1 + ww > width) {
            fprintf(f, "\n%*s", indent, "");
            col = start = indent;
        } else if (col > start) {
            fputc(' ', f);
            col++;
        }
        while (ww > width - col && width - col > 0) { /* a word wider than the line: cut where it ends */
            int room = width - col;
            const char *q = word;
            for (int c = 0; *q && c < room; q++)
                c += ((unsigned char)q[1] & 0xC0) != 0x80;
            fprintf(f, "%.*s\n%*s", (int)(q - word), word, indent, "");
            memmove(word, q, strlen(q) + 1);
            ww = term_cols(word);
            col = start = indent;
        }
        fputs(word, f);
        col += ww;
        p += wl;
    }
    fputc('\n', f);
    free(t);
}

