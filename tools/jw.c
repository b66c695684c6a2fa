/* SPDX-License-Identifier: MIT */
/* jw.c — JSON writing over yajl_gen (jw.h). */
#include "jw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

yajl_gen jw_new(int pretty)
{
    yajl_gen g = yajl_gen_alloc(NULL);
    if (g && pretty) {
        yajl_gen_config(g, yajl_gen_beautify, 1);
        yajl_gen_config(g, yajl_gen_indent_string, "  ");
    }
    return g;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong form, no surrogate, at most U+10FFFF),
 * 0 when the byte there does not start one. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || n > left || (n == 2 && c < 0xc2))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || c > 0xf4 || (c == 0xf4 && s[1] >= 0x90)))
        return 0;
    return n;
}

char *jw_utf8(char *dst, size_t n, const char *s, size_t len)
{
    static const char repl[] = "\xef\xbf\xbd";
    size_t o = 0;
    if (!n)
        return dst;
    for (size_t i = 0; i < len;) {
        size_t l = utf8_len((const unsigned char *)s + i, len - i);
        const char *from = l ? s + i : repl;
        size_t take = l ? l : 3;
        if (o + take >= n)
            break;
        memcpy(dst + o, from, take);
        o += take;
        i += l ? l : 1;
    }
    dst[o] = '\0';
    return dst;
}

static void gen_string(yajl_gen g, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && utf8_len((const unsigned char *)s + i, len - i))
        i += utf8_len((const unsigned char *)s + i, len - i);
    if (i == len) { /* valid already: as it is */
        yajl_gen_string(g, (const unsigned char *)s, len);
        return;
    }
    size_t n = len * 3 + 1; /* each byte at most U+FFFD's three */
    char *t = malloc(n);
    if (!t) {
        yajl_gen_null(g);
        return;
    }
    jw_utf8(t, n, s, len);
    yajl_gen_string(g, (const unsigned char *)t, strlen(t));
    free(t);
}

void jw_key(yajl_gen g, const char *key) { gen_string(g, key, strlen(key)); }

void jw_str(yajl_gen g, const char *s)
{
    if (s)
        gen_string(g, s, strlen(s));
    else
        yajl_gen_null(g);
}

void jw_str_or_null(yajl_gen g, const char *s) { jw_str(g, s && *s ? s : NULL); }

void jw_u64(yajl_gen g, uint64_t v)
{
    char b[32];
    if (v == JW_UNKNOWN) {
        yajl_gen_null(g);
        return;
    }
    int l = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    yajl_gen_number(g, b, (size_t)l);
}

void jw_i64(yajl_gen g, int64_t v) { yajl_gen_integer(g, (long long)v); }

void jw_dbl(yajl_gen g, double v, const char *fmt)
{
    char b[64];
    if (!isfinite(v)) {
        yajl_gen_null(g);
        return;
    }
    int l = snprintf(b, sizeof b, fmt, v);
    yajl_gen_number(g, b, (size_t)l);
}

void jw_num(yajl_gen g, double v)
{
    char b[64];
    if (!isfinite(v)) {
        yajl_gen_null(g);
        return;
    }
    for (int p = 6; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*g", p, v);
        if (strtod(b, NULL) == v)
            break;
    }
    yajl_gen_number(g, b, strlen(b));
}

void jw_bool(yajl_gen g, int v) { yajl_gen_bool(g, v != 0); }
void jw_null(yajl_gen g) { yajl_gen_null(g); }
void jw_open(yajl_gen g) { yajl_gen_map_open(g); }
void jw_close(yajl_gen g) { yajl_gen_map_close(g); }
void jw_aopen(yajl_gen g) { yajl_gen_array_open(g); }
void jw_aclose(yajl_gen g) { yajl_gen_array_close(g); }

void jw_kstr(yajl_gen g, const char *key, const char *s) { jw_key(g, key); jw_str(g, s); }
void jw_kstr_or_null(yajl_gen g, const char *key, const char *s) { jw_key(g, key); jw_str_or_null(g, s); }
void jw_ku64(yajl_gen g, const char *key, uint64_t v) { jw_key(g, key); jw_u64(g, v); }
void jw_kdbl(yajl_gen g, const char *key, double v, const char *fmt) { jw_key(g, key); jw_dbl(g, v, fmt); }
void jw_knum(yajl_gen g, const char *key, double v) { jw_key(g, key); jw_num(g, v); }
void jw_kbool(yajl_gen g, const char *key, int v) { jw_key(g, key); jw_bool(g, v); }
void jw_knull(yajl_gen g, const char *key) { jw_key(g, key); jw_null(g); }

void jw_tree(yajl_gen g, const yajl_val v)
{
    if (!v) {
        yajl_gen_null(g);
    } else if (YAJL_IS_STRING(v)) {
        jw_str(g, v->u.string);
    } else if (YAJL_IS_NUMBER(v)) {
        yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r));
    } else if (YAJL_IS_OBJECT(v)) {
        yajl_gen_map_open(g);
        for (size_t i = 0; i < v->u.object.len; i++) {
            jw_key(g, v->u.object.keys[i]);
            jw_tree(g, v->u.object.values[i]);
        }
        yajl_gen_map_close(g);
    } else if (YAJL_IS_ARRAY(v)) {
        yajl_gen_array_open(g);
        for (size_t i = 0; i < v->u.array.len; i++)
            jw_tree(g, v->u.array.values[i]);
        yajl_gen_array_close(g);
    } else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
        yajl_gen_bool(g, YAJL_IS_TRUE(v));
    } else {
        yajl_gen_null(g);
    }
}

/* The generated text; NULL when there is none. */
static const char *text(yajl_gen g, size_t *len)
{
    const unsigned char *b = NULL;
    if (!g || yajl_gen_get_buf(g, &b, len) != yajl_gen_status_ok || !*len)
        return NULL;
    return (const char *)b;
}

int jw_print(yajl_gen g, FILE *f)
{
    size_t len = 0;
    const char *t = text(g, &len);
    int rc = t && fwrite(t, 1, len, f) == len && fputc('\n', f) != EOF ? 0 : -1;
    if (g)
        yajl_gen_free(g);
    return rc;
}

yajl_val jw_to_tree(yajl_gen g)
{
    size_t len = 0;
    const char *t = text(g, &len);
    yajl_val v = NULL;
    char *s = t ? strndup(t, len) : NULL;
    if (s)
        v = yajl_tree_parse(s, NULL, 0);
    free(s);
    if (g)
        yajl_gen_free(g);
    return v;
}
