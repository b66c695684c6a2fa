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
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
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
    }
    if (usable(ETCD_FIO_LIBDIR "/libetcdwal.so")) {
        snprintf(buf, len, "%s", ETCD_FIO_LIBDIR "/libetcdwal.so");
        return 0;
    }
    snprintf(buf, len, "libetcdwal.so not found (set ETCD_FIO_ENGINE, or install it in %s)", ETCD_FIO_LIBDIR);
    return -1;
}
