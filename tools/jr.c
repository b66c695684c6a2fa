/* SPDX-License-Identifier: MIT */
/* jr.c — JSON reading over yajl_tree (jr.h). */
#include "jr.h"

#include <stdio.h>
#include <string.h>

yajl_val jr_parse(const char *text, char *err, size_t errlen)
{
    char e[512] = "";
    yajl_val v = text ? yajl_tree_parse(text, e, sizeof e) : NULL;
    if (!v && err && errlen) {
        e[strcspn(e, "\n")] = '\0'; /* yajl's message, without its picture of the input */
        snprintf(err, errlen, "%s", e[0] ? e : "not JSON");
    }
    return v;
}

yajl_val jr_get(yajl_val o, const char *key)
{
    if (!o || !YAJL_IS_OBJECT(o))
        return NULL;
    for (size_t i = 0; i < o->u.object.len; i++)
        if (!strcmp(o->u.object.keys[i], key))
            return o->u.object.values[i];
    return NULL;
}

const char *jr_str(yajl_val o, const char *key)
{
    yajl_val v = jr_get(o, key);
    return v && YAJL_IS_STRING(v) ? v->u.string : NULL;
}

yajl_val jr_obj(yajl_val o, const char *key)
{
    yajl_val v = jr_get(o, key);
    return v && YAJL_IS_OBJECT(v) ? v : NULL;
}

yajl_val jr_arr(yajl_val o, const char *key)
{
    yajl_val v = jr_get(o, key);
    return v && YAJL_IS_ARRAY(v) ? v : NULL;
}

size_t jr_len(yajl_val a)
{
    return a && YAJL_IS_ARRAY(a) ? a->u.array.len : 0;
}

yajl_val jr_at(yajl_val a, size_t i)
{
    return i < jr_len(a) ? a->u.array.values[i] : NULL;
}

int jr_int(yajl_val v, int64_t *out)
{
    /* yajl_tree marks an integer INT_VALID only when it fits a long long; "1.0" and "1e3" are not */
    if (!v || !YAJL_IS_INTEGER(v) || strpbrk(v->u.number.r, ".eE"))
        return 0;
    *out = (int64_t)YAJL_GET_INTEGER(v);
    return 1;
}

uint64_t jr_u64(yajl_val o, const char *key, uint64_t dflt)
{
    int64_t x;
    return jr_int(jr_get(o, key), &x) && x >= 0 ? (uint64_t)x : dflt;
}

int jr_num(yajl_val v, double *out)
{
    if (!v || !YAJL_IS_NUMBER(v) || !YAJL_IS_DOUBLE(v))
        return 0;
    *out = YAJL_GET_DOUBLE(v);
    return 1;
}

const char *jr_type_name(yajl_type t)
{
    switch (t) {
    case yajl_t_string: return "string";
    case yajl_t_number: return "number";
    case yajl_t_object: return "object";
    case yajl_t_array: return "array";
    case yajl_t_true:
    case yajl_t_false: return "boolean";
    default: return "null";
    }
}
