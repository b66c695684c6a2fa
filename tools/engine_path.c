/* SPDX-License-Identifier: MIT */
/* engine_path.c — locate libetcdwal.so for `ioengine=external:`; fio needs an absolute path. */
#include "engine_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>

#ifndef ETCD_FIO_LIBDIR
#define ETCD_FIO_LIBDIR "/usr/local/lib/etcd-fio"
#endif

static int usable(const char *p) { return access(p, R_OK) == 0; }

/* The directory of the running etcd-fio into buf, or -1. */
static int self_dir(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

int engine_path_bundled_fio(char *buf, size_t len)
{
    char self[PATH_MAX], cand[PATH_MAX + 32];
    if (self_dir(self, sizeof self) != 0)
        return -1;
    snprintf(cand, sizeof cand, "%s/../lib/etcd-fio/fio", self);
    char *abs = realpath(cand, NULL);
    int ok = abs && access(abs, X_OK) == 0 && strlen(abs) < len;
    if (ok)
        snprintf(buf, len, "%s", abs);
    free(abs);
    return ok ? 0 : -1;
}

int engine_path_find(char *buf, size_t len)
{
    const char *env = getenv("ETCD_FIO_ENGINE");
    if (env && *env) {
        char *abs = realpath(env, NULL);
        if (!abs || !usable(abs)) {
            snprintf(buf, len, "ETCD_FIO_ENGINE=%s: no such readable file", env);
            free(abs);
            return -1;
        }
        snprintf(buf, len, "%s", abs);
        free(abs);
        return 0;
    }
    char self[PATH_MAX];
    if (self_dir(self, sizeof self) == 0) {
        char cand[PATH_MAX + 32];
        snprintf(cand, sizeof cand, "%s/libetcdwal.so", self);
        if (usable(cand)) {
            snprintf(buf, len, "%s", cand);
            return 0;
        }
        snprintf(cand, sizeof cand, "%s/../lib/etcd-fio/libetcdwal.so", self);
        char *abs = realpath(cand, NULL);
        if (abs && usable(abs)) {
            snprintf(buf, len, "%s", abs);
            free(abs);
            return 0;
        }
        free(abs);
    }
    if (usable(ETCD_FIO_LIBDIR "/libetcdwal.so")) {
        snprintf(buf, len, "%s", ETCD_FIO_LIBDIR "/libetcdwal.so");
        return 0;
    }
    snprintf(buf, len, "libetcdwal.so not found (set ETCD_FIO_ENGINE, or install it in %s)", ETCD_FIO_LIBDIR);
    return -1;
}
