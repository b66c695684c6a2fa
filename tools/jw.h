/* SPDX-License-Identifier: MIT */
/* jw.h — the JSON writing of the CLI, over yajl's generator (yajl_gen): the result model (out_json.c), its
 * command details (a parsed yajl tree, result.h) and compare's output. Strings are written as valid UTF-8
 * (an invalid byte becomes U+FFFD; yajl escapes the control characters), an unknown number or a NULL
 * string as null, a double in the format the caller names (never nan or inf: null). */
#ifndef ETCD_FIO_JW_H
#define ETCD_FIO_JW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#define JW_UNKNOWN UINT64_MAX /* = RESULT_UNKNOWN, CLI_NS_UNKNOWN */

/* A generator: pretty (two-space indent) or compact. NULL when out of memory. */
yajl_gen jw_new(int pretty);

void jw_key(yajl_gen g, const char *key);
void jw_str(yajl_gen g, const char *s);          /* NULL: null */
void jw_str_or_null(yajl_gen g, const char *s);  /* NULL or "": null */
void jw_u64(yajl_gen g, uint64_t v);             /* JW_UNKNOWN: null */
void jw_i64(yajl_gen g, int64_t v);
void jw_dbl(yajl_gen g, double v, const char *fmt); /* printf format of one double, e.g. "%.3f" */
void jw_num(yajl_gen g, double v);               /* the shortest "%.Ng" that reads back as v */
void jw_bool(yajl_gen g, int v);
void jw_null(yajl_gen g);
void jw_open(yajl_gen g);                        /* { */
void jw_close(yajl_gen g);                       /* } */
void jw_aopen(yajl_gen g);                       /* [ */
void jw_aclose(yajl_gen g);                      /* ] */
/* A key and its value, as the calls above. */
void jw_kstr(yajl_gen g, const char *key, const char *s);
void jw_kstr_or_null(yajl_gen g, const char *key, const char *s);
void jw_ku64(yajl_gen g, const char *key, uint64_t v);
void jw_kdbl(yajl_gen g, const char *key, double v, const char *fmt);
void jw_knum(yajl_gen g, const char *key, double v);
void jw_kbool(yajl_gen g, const char *key, int v);
void jw_knull(yajl_gen g, const char *key);

/* Writes a parsed tree (numbers as they were written: the tree keeps their text). NULL: null. */
void jw_tree(yajl_gen g, const yajl_val v);

/* The generated text with a newline to f; 0, or -1 when the generator failed or the write did. Frees g. */
int  jw_print(yajl_gen g, FILE *f);
/* The generated text parsed back into a tree (yajl_tree_free it); NULL when g is NULL or failed. Frees g. */
yajl_val jw_to_tree(yajl_gen g);

/* s with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD, in dst (NUL-terminated,
 * cut at a character boundary to fit n). Returns dst. */
char *jw_utf8(char *dst, size_t n, const char *s, size_t len);

#endif
