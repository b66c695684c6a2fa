/* SPDX-License-Identifier: MIT */
/* jr.h — the JSON reading of the CLI, over yajl's tree (yajl_tree): the engine's statistics files
 * (engine_stats.c, capacity_run.c), a result read back (compare.c) and a remote check's result
 * (fleet_remote.c). Lookups take the first of a key given twice; callers that must refuse duplicates check
 * the text first (fleet_remote.c). Every getter accepts NULL (a missing parent) and then finds nothing. */
#ifndef ETCD_FIO_JR_H
#define ETCD_FIO_JR_H

#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

/* Parses NUL-terminated text; NULL with yajl's message (first line) in err when it is not JSON. */
yajl_val jr_parse(const char *text, char *err, size_t errlen);
/* The member key of object o; NULL when o is not an object or has no such key. */
yajl_val jr_get(yajl_val o, const char *key);
/* The member as a string / an object / an array, else NULL. */
const char *jr_str(yajl_val o, const char *key);
yajl_val jr_obj(yajl_val o, const char *key);
yajl_val jr_arr(yajl_val o, const char *key);
size_t   jr_len(yajl_val a);                       /* elements of an array, 0 for anything else */
yajl_val jr_at(yajl_val a, size_t i);              /* element i of an array, else NULL */
/* v is an integer that fits int64 (no fraction, no exponent): 1 and *out, else 0. */
int      jr_int(yajl_val v, int64_t *out);
/* The member as a count >= 0, or dflt when missing, not an integer or negative. */
uint64_t jr_u64(yajl_val o, const char *key, uint64_t dflt);
/* v is a number (integer or not): 1 and *out, else 0. */
int      jr_num(yajl_val v, double *out);
/* "string", "number", "object", "array", "boolean", "null" */
const char *jr_type_name(yajl_type t);

#endif
