/* SPDX-License-Identifier: MIT */
/* check_env.c — what around the run could make its figures not the disk's, for `etcd-fio check`: a
 * library preloaded into etcd-fio (and so into the fio it starts) or into every process
 * (/etc/ld.so.preload) — eatmydata turns fsync/fdatasync into no-ops —, one the fio in use preloads by
 * itself (a wrapper script: the engine inside fio reports it, engine/sys.h; a PASS from such a run is
 * refused), and the list of refusals an operator overrode with --force, which the result then shows. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "jr.h"
#include "jw.h"
#include "strbuf.h"

/* A sanitizer runtime (it checks memory and passes every call on) loaded under this name. */
static int sanitizer(const char *name)
{
    void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    int san = h && (dlsym(h, "__asan_init") || dlsym(h, "__tsan_init") || dlsym(h, "__ubsan_handle_add_overflow"));
    if (h)
        dlclose(h);
    return san;
}

static void add_list(char *out, size_t n, const char *label, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    strbuf names = STRBUF_INIT;
    for (char *t = copy ? strtok_r(copy, " :\t\n", &save) : NULL; t; t = strtok_r(NULL, " :\t\n", &save)) {
        if (sanitizer(t))
            continue;
        strbuf_addsep(&names, " ");
        strbuf_adds(&names, t);
    }
    free(copy);
    size_t l = strlen(out);
    if (names.len)
        snprintf(out + l, n > l ? n - l : 0, "%s%s%s", l ? "; " : "", label, names.buf);
    strbuf_release(&names);
}

int check_env_preload(char *out, size_t n, const char *ld_so_preload)
{
    out[0] = '\0';
    const char *v;
    if ((v = getenv("LD_PRELOAD")) && *v)
        add_list(out, n, "LD_PRELOAD=", v);
    if ((v = getenv("LD_AUDIT")) && *v)
        add_list(out, n, "LD_AUDIT=", v);
    const char *path = ld_so_preload ? ld_so_preload : "/etc/ld.so.preload";
    char label[300], err[64];
    cli_msg(label, sizeof label, "%s: ", path);
    char *t = cli_read_file(path, 1 << 16, NULL, err, sizeof err);
    if (t)
        add_list(out, n, label, t);
    free(t);
    return out[0] != '\0';
}

int check_env_interposers(const char *stats_json, char *out, size_t n)
{
    out[0] = '\0';
    yajl_val root = jr_parse(stats_json, NULL, 0);
    const char *v = jr_str(root, "interposers");
    int known = v != NULL;
    if (known)
        cli_msg(out, n, "%s", v);
    yajl_tree_free(root);
    return known;
}

void check_forced_add(check_forced *f, const char *fmt, ...)
{
    if (f->n >= sizeof f->what / sizeof f->what[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what[f->n], sizeof f->what[f->n], fmt, ap);
    va_end(ap);
    f->n++;
}

void check_forced_detail(result_run *r, const check_forced *f)
{
    if (!f->n)
        return;
    yajl_gen a = jw_new(0);
    strbuf text = STRBUF_INIT;
    jw_aopen(a);
    for (size_t i = 0; i < f->n; i++) {
        jw_str(a, f->what[i]);
        strbuf_addsep(&text, "; ");
        strbuf_adds(&text, f->what[i]);
    }
    jw_aclose(a);
    result_add_detail(r, "forced", "--force", a, "ran although: %s", text.buf);
    strbuf_release(&text);
}

void check_engine_cause(const char *errpath, const char *dir, char *out, size_t n)
{
    static const int errs[] = {ENOSPC, EROFS, EACCES, EPERM, EDQUOT, EIO, ENOLCK};
    out[0] = '\0';
    char err[64];
    char *t = cli_read_file(errpath, 16 << 20, NULL, err, sizeof err), line[512] = "";
    for (char *p = t, *nl; p && *p && !line[0]; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "etcdwal: ", 9) && !memmem(p, l, ": warning:", 10) && !cli_engine_summary(p, l))
            cli_msg(line, sizeof line, "%.*s", (int)l, p);
    }
    free(t);
    if (!line[0])
        return;
    int e = 0;
    for (size_t i = 0; i < sizeof errs / sizeof errs[0] && !e; i++)
        if (strstr(line, strerror(errs[i])))
            e = errs[i];
    fsinfo *fi = malloc(sizeof *fi);
    char cause[400] = "";
    if (e && fi && fsinfo_lookup(dir, fi, FSINFO_MAX_DEPTH, err, sizeof err) == 0)
        fsinfo_cause(fi, e, cause, sizeof cause);
    free(fi);
    cli_msg(out, n, "%s%s%s", cause, cause[0] ? ": " : "", line);
}

/* h's verdict withheld: unknown, status "refused", the reason; its jobs' PASSes too (every job's verdict
 * when all_jobs). */
static void refuse(result_host *h, int all_jobs, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(result_host *h, int all_jobs, const char *fmt, ...)
{
    va_list ap;
    h->verdict = FIOR_UNKNOWN;
    h->basis = RESULT_BASIS_NONE;
    cli_msg(h->status, sizeof h->status, "refused");
    va_start(ap, fmt);
    vsnprintf(h->reason, sizeof h->reason, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < h->njobs; i++)
        if (all_jobs || h->jobs[i].verdict == FIOR_PASS)
            h->jobs[i].verdict = FIOR_UNKNOWN;
}

void check_refuse_interposed(const char *wal_stats, const char *backend_stats, int force, result_host *h,
                             check_forced *forced)
{
    char seen[1100] = "", err[64];
    const char *files[2] = {wal_stats, backend_stats};
    int known = 0;
    for (int i = 0; i < 2 && !seen[0]; i++) {
        char *t = cli_read_file(files[i], 1 << 20, NULL, err, sizeof err);
        known |= check_env_interposers(t, seen, sizeof seen);
        free(t);
    }
    if (!seen[0] && !known && h->verdict == FIOR_PASS) { /* what the engine saw in fio is not known */
        if (force)
            check_forced_add(forced, "no engine stats file: whether fio ran with a preloaded library is not known");
        else
            refuse(h, 0, "no engine stats file (%.900s): whether fio ran with a preloaded library is not known; "
                   "not judged (see that fio can write the stats file under TMPDIR, or --force)", wal_stats);
        return;
    }
    if (!seen[0])
        return;
    if (force)
        check_forced_add(forced, "in fio: %s", seen);
    else
        refuse(h, 1, "fio ran with %s: a preloaded library can replace its file and sync calls (eatmydata makes "
               "fdatasync a no-op), so the figures need not be the disk's; not judged (run fio without it, or "
               "--force)", seen);
}
