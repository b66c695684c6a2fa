/* SPDX-License-Identifier: MIT */
/* curl_dl.c — see curl_dl.h: the host's libcurl.so.4 loaded on first use (dlopen), or the linked one. */
#include "curl_dl.h"

#include <stdio.h>

#ifndef ETCDFIO_CURL_DLOPEN

const char *curl_dl_missing(void) { return ""; }
const char *curl_dl_version(const char **how)
{
    *how = "linked";
    return curl_version();
}

#else

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* The calls made, by libcurl's names; every one exists since libcurl 7.62 (the URL API). */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLU *(*url)(void);
    void (*url_cleanup)(CURLU *);
    CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
    CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
    void (*free)(void *);
    char *(*version)(void);
} C;
static char g_missing[400];
static char g_path[64];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            snprintf(g_path, sizeof g_path, "%s", names[i]);
    }
    if (!h) {
        snprintf(g_missing, sizeof g_missing, "libcurl.so.4 is not installed on this host (zypper in libcurl4, "
                                              "dnf install libcurl, apt-get install libcurl4)");
        return;
    }
    struct { const char *sym; void **fp; } t[] = {
        {"curl_global_init", (void **)&C.global_init}, {"curl_easy_init", (void **)&C.easy_init},
        {"curl_easy_setopt", (void **)&C.easy_setopt}, {"curl_easy_perform", (void **)&C.easy_perform},
        {"curl_easy_getinfo", (void **)&C.easy_getinfo}, {"curl_easy_cleanup", (void **)&C.easy_cleanup},
        {"curl_easy_strerror", (void **)&C.easy_strerror}, {"curl_slist_append", (void **)&C.slist_append},
        {"curl_slist_free_all", (void **)&C.slist_free_all}, {"curl_url", (void **)&C.url},
        {"curl_url_cleanup", (void **)&C.url_cleanup}, {"curl_url_set", (void **)&C.url_set},
        {"curl_url_get", (void **)&C.url_get}, {"curl_free", (void **)&C.free}, {"curl_version", (void **)&C.version},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        *t[i].fp = dlsym(h, t[i].sym);
        if (!*t[i].fp) {
            snprintf(g_missing, sizeof g_missing, "the host's %s has no %s (libcurl 7.62 or later is needed)",
                     g_path, t[i].sym);
            memset(&C, 0, sizeof C);
            return; /* the handle stays open: harmless, and dlclose of libcurl is not safe everywhere */
        }
    }
}
static int ready(void)
{
    pthread_once(&g_once, load);
    return C.easy_init != NULL;
}

const char *curl_dl_missing(void) { return ready() ? "" : g_missing; }
const char *curl_dl_version(const char **how)
{
    *how = g_path;
    return ready() ? C.version() : NULL;
}

CURLcode curl_dl_global_init(long flags) { return ready() ? C.global_init(flags) : CURLE_FAILED_INIT; }
CURL *curl_dl_easy_init(void) { return ready() ? C.easy_init() : NULL; }
/* libcurl's option numbers carry the argument's type (curl.h CURLOPTTYPE_*): below 10000 a long, below
 * 30000 a pointer (object or function), below 40000 a curl_off_t, then a pointer (struct curl_blob). */
CURLcode curl_dl_easy_setopt(CURL *h, CURLoption opt, ...)
{
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    if (!ready())
        rc = CURLE_FAILED_INIT;
    else if (opt < CURLOPTTYPE_OBJECTPOINT)
        rc = C.easy_setopt(h, opt, va_arg(ap, long));
    else if (opt < CURLOPTTYPE_OFF_T || opt >= 40000)
        rc = C.easy_setopt(h, opt, va_arg(ap, void *));
    else
        rc = C.easy_setopt(h, opt, va_arg(ap, curl_off_t));
    va_end(ap);
    return rc;
}
CURLcode curl_dl_easy_perform(CURL *h) { return ready() ? C.easy_perform(h) : CURLE_FAILED_INIT; }
CURLcode curl_dl_easy_getinfo(CURL *h, CURLINFO info, ...) /* every CURLINFO_* takes a pointer */
{
    va_list ap;
    va_start(ap, info);
    void *p = va_arg(ap, void *);
    va_end(ap);
    return ready() ? C.easy_getinfo(h, info, p) : CURLE_FAILED_INIT;
}
void curl_dl_easy_cleanup(CURL *h)
{
    if (h && ready())
        C.easy_cleanup(h);
}
const char *curl_dl_easy_strerror(CURLcode rc) { return ready() ? C.easy_strerror(rc) : g_missing; }
struct curl_slist *curl_dl_slist_append(struct curl_slist *l, const char *s)
{
    return ready() ? C.slist_append(l, s) : NULL;
}
void curl_dl_slist_free_all(struct curl_slist *l)
{
    if (l && ready())
        C.slist_free_all(l);
}
CURLU *curl_dl_url(void) { return ready() ? C.url() : NULL; }
void curl_dl_url_cleanup(CURLU *u)
{
    if (u && ready())
        C.url_cleanup(u);
}
CURLUcode curl_dl_url_set(CURLU *u, CURLUPart part, const char *s, unsigned int flags)
{
    return ready() ? C.url_set(u, part, s, flags) : CURLUE_OUT_OF_MEMORY;
}
CURLUcode curl_dl_url_get(CURLU *u, CURLUPart part, char **s, unsigned int flags)
{
    return ready() ? C.url_get(u, part, s, flags) : CURLUE_OUT_OF_MEMORY;
}
void curl_dl_free(void *p)
{
    if (p && ready())
        C.free(p);
}

#endif
