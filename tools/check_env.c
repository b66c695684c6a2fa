/* SPDX-License-Identifier: MIT */
/* check_env.c — what around the run could make its figures not the disk's, for `etcd-fio check`: a
 * library preloaded into etcd-fio (and so into the fio it starts) or into every process
 * (/etc/ld.so.preload) — eatmydata turns fsync/fdatasync into no-ops —, one the fio in use preloads by
 * itself (a wrapper script: the engine inside fio reports it, engine/sys.h), and the list of refusals an
 * operator overrode with --force, which the result then shows. */
#include <dlfcn.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"

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
    char *copy = strdup(list), *save = NULL, names[1024] = "";
    size_t used = 0;
    for (char *t = copy ? strtok_r(copy, " :\t\n", &save) : NULL; t; t = strtok_r(NULL, " :\t\n", &save)) {
        if (sanitizer(t))
            continue;
        int k = snprintf(names + used, sizeof names - used, "%s%s", used ? " " : "", t);
        if (k < 0 || (size_t)k >= sizeof names - used)
            break;
        used += (size_t)k;
    }
    free(copy);
    if (!used)
        return;
    size_t l = strlen(out);
    snprintf(out + l, n > l ? n - l : 0, "%s%s%s", l ? "; " : "", label, names);
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
    json_object *root = stats_json ? json_tokener_parse(stats_json) : NULL, *v;
    int known = root && json_object_object_get_ex(root, "interposers", &v) && json_object_is_type(v, json_type_string);
    if (known)
        cli_msg(out, n, "%s", json_object_get_string(v));
    json_object_put(root);
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

void check_forced_detail(rm_run *r, const check_forced *f)
{
    if (!f->n)
        return;
    json_object *a = json_object_new_array();
    char text[600] = "";
    for (size_t i = 0; i < f->n; i++) {
        json_object_array_add(a, json_object_new_string(f->what[i]));
        size_t l = strlen(text);
        snprintf(text + l, sizeof text - l, "%s%s", i ? "; " : "", f->what[i]);
    }
    rm_add_detail(r, "forced", "--force", a, "ran although: %s", text);
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
        if (!strncmp(p, "etcdwal: ", 9) && !memmem(p, l, ": warning:", 10))
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
