/* SPDX-License-Identifier: MIT */
/* testdir.h — a fresh temporary directory for a unit test (under $TMPDIR, named after the test) and its
 * recursive removal (never following symlinks). Header-only: each test binary is one translation unit. */
#ifndef TESTDIR_H
#define TESTDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *testdir_make(const char *tag)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    size_t n = strlen(base) + strlen(tag) + 16;
    char *p = malloc(n);
    if (!p)
        return NULL;
    snprintf(p, n, "%s/%s.XXXXXX", base, tag);
    if (!mkdtemp(p)) {
        free(p);
        return NULL;
    }
    return p;
}

static void testdir_remove(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *sub = malloc(n);
        if (!sub)
            break;
        snprintf(sub, n, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            testdir_remove(sub);
        else
            unlink(sub);
        free(sub);
    }
    closedir(d);
    rmdir(path);
}

#endif
