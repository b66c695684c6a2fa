/* SPDX-License-Identifier: MIT */
/* json_opts.c — the values of a job's "job options" and the document's "global options" that the verdict
 * needs, as fio's JSON gives them (strings, as the user wrote them; options.c names them): the engine and
 * etcd_mode, fsync/fdatasync, gtod_reduce, and what ends a job (size, io_size/io_limit, filesize, nrfiles,
 * number_ios, runtime/timeout, loops, numjobs, bs) or changes what its syncs flush (sync, direct/buffered,
 * sync_file_range, end_fsync, fsync_on_close; directory and filename). */
#include <string.h>

#include "json_doc.h"

/* A later value of an option that ends the job wins only when larger: the run must then have gone further
 * to prove its end (two values of one option are a contradiction, told by dup_key anyway). */
static void opt_max(uint64_t *o, uint64_t v)
{
    if (*o == 0 || v == UINT64_MAX || (*o != UINT64_MAX && v > *o))
        *o = v;
}

/* The number an int or bool option holds as fio's parse.c reads it: the value is cut at ',' (and ':')
 * only to find a second value, and the first is read by sscanf("%u") / strtoll from the start (check_int,
 * str_to_decimal; hexadecimal when "0x" is anywhere in it), so "1,", "1:0" and "1k" are all non-zero and
 * "0," is 0. -1 when it starts with no number (fio would have refused it). */
static int opt_number(const char *s, size_t n, uint64_t *v)
{
    int hex = 0;
    for (size_t i = 0; i + 1 < n; i++)
        hex |= s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (hex && i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
        i += 2;
    uint64_t x = 0;
    size_t d0 = i;
    for (; i < n; i++) {
        int c = s[i], dv = c >= '0' && c <= '9' ? c - '0'
                          : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (dv < 0)
            break;
        x = x > UINT64_MAX / 16 ? UINT64_MAX : x * (hex ? 16 : 10) + (uint64_t)dv;
    }
    if (i == d0)
        return -1;
    *v = x;
    return 0;
}

/* fio's bool options (FIO_OPT_BOOL, parse.c check_int): a number, non-zero is on; the words older fio
 * versions took ("true", "on", "yes") too */
static int truthy(const char *s, size_t n)
{
    uint64_t v;
    if (!opt_number(s, n, &v))
        return v != 0;
    return (n == 4 && !memcmp(s, "true", 4)) || (n == 2 && !memcmp(s, "on", 2)) || (n == 3 && !memcmp(s, "yes", 3));
}

/* sync= (FIO_OPT_STR, options.c posval none/0/sync/1/dsync): parse.c compares the value up to its first
 * ',' (or, without one, its first ':') with each name, whole (opt_len, str_match_len): "dsync," and
 * "dsync:x" are dsync, "1:0" is 1. 0 none, 1 O_SYNC, 2 O_DSYNC; older fio (a bool): its number. */
static signed char sync_value(const char *s, size_t n)
{
    const char *c = memchr(s, ',', n);
    if (!c)
        c = memchr(s, ':', n);
    size_t k = c ? (size_t)(c - s) : n;
    if (k == 5 && !memcmp(s, "dsync", 5))
        return 2;
    if ((k == 4 && !memcmp(s, "sync", 4)) || (k == 1 && s[0] == '1'))
        return 1;
    if ((k == 4 && !memcmp(s, "none", 4)) || (k == 1 && s[0] == '0'))
        return 0;
    return (signed char)truthy(s, n);
}

static int dec_count(const char *s, size_t n, uint64_t *v)
{
    uint64_t t = fior__opt_size(s, n, 1);
    *v = t;
    return t != UINT64_MAX;
}

/* The options that end a job or change what its syncs flush (run_end.c, verdict.c). */
static void opt_end_value(jdoc *d, jjob *x, int global, int key, const char *s, size_t n)
{
    uint64_t v;
    switch (key) {
    case K_O_SIZE:       opt_max(&x->o_size, fior__opt_size(s, n, x->kb1000)); break;
    case K_O_IO_SIZE:
    case K_O_IO_LIMIT:   opt_max(&x->o_io_size, fior__opt_size(s, n, x->kb1000)); break;
    case K_O_FILESIZE:   opt_max(&x->o_filesize, fior__opt_size(s, n, x->kb1000)); break;
    case K_O_NRFILES:    dec_count(s, n, &v); opt_max(&x->o_nrfiles, v); break;
    case K_O_NUMBER_IOS: dec_count(s, n, &v); opt_max(&x->o_number_ios, v); break;
    case K_O_RUNTIME:
    case K_O_TIMEOUT:    opt_max(&x->o_runtime_ms, fior__opt_time_ms(s, n)); break;
    case K_O_LOOPS:      dec_count(s, n, &v); opt_max(&x->o_loops, v); break;
    case K_O_NUMJOBS:    dec_count(s, n, &v); opt_max(&x->o_numjobs, v); break;
    case K_O_BS:
    case K_O_BLOCKSIZE:
    case K_O_BSRANGE:
        opt_max(&x->o_bs, fior__opt_bs_max(s, n, x->kb1000));
        x->o_bs_var |= key == K_O_BSRANGE || memchr(s, ',', n) || memchr(s, '-', n) || memchr(s, ':', n) ||
                       memchr(s, '/', n);
        break;
    case K_O_KB_BASE:    x->kb1000 = !(n == 4 && !memcmp(s, "1024", 4)); break;
    case K_O_SYNC: {
        signed char v = sync_value(s, n);
        if (x->o_sync <= 0)
            x->o_sync = v;
        break;
    }
    case K_O_DIRECT:
    case K_O_BUFFERED:
        if (x->o_direct <= 0)
            x->o_direct = (signed char)(truthy(s, n) == (key == K_O_DIRECT));
        break;
    case K_O_SFR: /* wait_before, write, wait_after, … */
        if (x->o_sfr <= 0)
            x->o_sfr = (signed char)(n > 0);
        break;
    case K_O_END_FSYNC:
    case K_O_FSYNC_ON_CLOSE: { /* on once any value says so */
        signed char *o = key == K_O_END_FSYNC ? &x->o_end_fsync : &x->o_close_fsync;
        if (truthy(s, n))
            *o = 1;
        else if (*o < 0)
            *o = 0;
        break;
    }
    case K_O_DIRECTORY:
        fior__jsetstr(d, global ? &d->g_directory : &d->b.j.directory, (const unsigned char *)s, n);
        x->own_directory = 1;
        break;
    case K_O_FILENAME:
        fior__jsetstr(d, global ? &d->g_filename : &d->b.j.filename, (const unsigned char *)s, n);
        x->own_filename = 1;
        break;
    }
}

void fior__jopt_value(jdoc *d, const jframe *f, int key, const char *s, size_t n)
{
    uint64_t num;
    int on = opt_number(s, n, &num) || num != 0; /* fsync=N, fdatasync=N (FIO_OPT_INT): its number */
    jjob *x = f->global ? &d->gx : &d->x;
    if (key >= K_O_SIZE) {
        opt_end_value(d, x, f->global, key, s, n);
        return;
    }
    switch (key) {
    case K_O_IOENGINE: /* parse.c keeps "NAME" of "NAME:ARG" once NAME is an engine's (ioengine=external:PATH
                        * and libaio:… alike); the engine judge reads external: itself */
        if (!(n > 9 && !memcmp(s, "external:", 9)) && memchr(s, ':', n))
            n = (size_t)((const char *)memchr(s, ':', n) - s);
        fior__jsetstr(d, f->global ? &d->g_ioengine : &d->b.j.ioengine, (const unsigned char *)s, n);
        x->own_ioengine = 1;
        break;
    case K_O_ETCD_MODE:
        fior__jsetstr(d, f->global ? &d->g_etcd_mode : &d->b.j.etcd_mode, (const unsigned char *)s, n);
        x->own_etcd_mode = 1;
        break;
    case K_O_FDATASYNC: x->fdatasync = (signed char)on; break;
    case K_O_FSYNC:     x->fsync = (signed char)on; break;
    case K_O_GTOD:      x->gtod = (signed char)truthy(s, n); break;
    }
}

