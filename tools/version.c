/* SPDX-License-Identifier: MIT */
/* version.c — `etcd-fio --version`: our version, then the fio a check would run (a release's own or the one in
 * PATH) and every library the CLI carries or loads, each with where it comes from, so that a report of a
 * release names everything it ran. */
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_version.h>

#include "cli.h"
#include "curl_dl.h"
#include "engine_path.h"
#include "fioreport.h"
#include "proc.h"
#include "version.h"

/* The first line of `FIO --version` into buf ("fio-3.33"), or -1. */
static int fio_version(const char *fio, char *buf, size_t len)
{
    const char *argv[] = {fio, "--version", NULL};
    proc p;
    char err[256];
    if (proc_start(&p, argv, (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_INHERIT, NULL}, err, sizeof err) != 0)
        return -1;
    char out[256];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof out - 1 && (r = read(p.out_fd, out + n, sizeof out - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    if (!proc_wait(&p, 10000))
        proc_stop(&p, 1);
    int ok = p.state == PROC_EXITED && p.code == 0 && !strncmp(out, "fio-", 4);
    proc_release(&p);
    if (!ok)
        return -1;
    out[strcspn(out, "\r\n")] = '\0';
    cli_msg(buf, len, "%s", out);
    return 0;
}

void version_print(FILE *f)
{
    fprintf(f, "etcd-fio %s\n", fior_version()); /* one version for the CLI, the library and its .pc */
    char path[PATH_MAX], v[128];
    const char *fio = cli_fio();
    int bundled = engine_path_bundled_fio(path, sizeof path) == 0 && !strcmp(fio, path);
    if (fio_version(fio, v, sizeof v) == 0)
        fprintf(f, "fio %s (%s: %s)\n", v + 4, bundled ? "bundled" : getenv("FIO") && *getenv("FIO") ? "FIO" : "PATH",
                fio);
    else
        fprintf(f, "fio: cannot run '%s --version' (install fio, or set FIO)\n", fio);
#ifdef ETCDFIO_YAJL_STATIC
    const char *yajl_how = "built in";
#else
    const char *yajl_how = "shared";
#endif
    fprintf(f, "yajl %d.%d.%d (%s)\n", YAJL_MAJOR, YAJL_MINOR, YAJL_MICRO, yajl_how);
    const char *how = "";
    const char *cv = curl_dl_version(&how);
    if (cv) {
        const char *sp = strchr(cv, ' ');
        fprintf(f, "%.*s (%s)\n", sp ? (int)(sp - cv) : (int)strlen(cv), cv, how);
    } else {
        fprintf(f, "libcurl: none, --etcd and URLs cannot be used: %s\n", curl_dl_missing());
    }
    fprintf(f, "glibc %s (the host's)\n", gnu_get_libc_version());
}
