/* SPDX-License-Identifier: MIT */
/* curl_dl.h — libcurl for the CLI, linked (the default) or loaded from the host at run time
 * (-DETCDFIO_CURL_DLOPEN, `make dist`): the release tarball then needs only the C library, and `--etcd`,
 * `verdict URL` and `fleet` use the host's libcurl.so.4 with the host's CA configuration. Included instead of
 * <curl/curl.h>; code calls the usual curl_* names. */
#ifndef CURL_DL_H
#define CURL_DL_H

#ifdef ETCDFIO_CURL_DLOPEN
#define CURL_DISABLE_TYPECHECK /* curl_easy_setopt becomes a plain call, redirected below */
#endif
#include <curl/curl.h>

/* CURLOPT_PROTOCOLS_STR is libcurl 7.85's; an older libcurl answers CURLE_UNKNOWN_OPTION (scrape.c then
 * falls back to the bit mask of CURLOPT_PROTOCOLS, option 181 in every libcurl). */
#ifndef CURLOPT_PROTOCOLS_STR
#define CURLOPT_PROTOCOLS_STR ((CURLoption)10318)
#endif
#define CURL_DL_OPT_PROTOCOLS ((CURLoption)181)

/* Empty when libcurl can be used; else why not (one phrase, with the package to install). */
const char *curl_dl_missing(void);
/* The libcurl in use ("libcurl/8.5.0 OpenSSL/3.0 ...") and how it is found ("linked" or the loaded path),
 * or NULL when it cannot be loaded. */
const char *curl_dl_version(const char **how);

#ifdef ETCDFIO_CURL_DLOPEN
CURLcode curl_dl_global_init(long flags);
CURL *curl_dl_easy_init(void);
CURLcode curl_dl_easy_setopt(CURL *h, CURLoption opt, ...);
CURLcode curl_dl_easy_perform(CURL *h);
CURLcode curl_dl_easy_getinfo(CURL *h, CURLINFO info, ...);
void curl_dl_easy_cleanup(CURL *h);
const char *curl_dl_easy_strerror(CURLcode rc);
struct curl_slist *curl_dl_slist_append(struct curl_slist *l, const char *s);
void curl_dl_slist_free_all(struct curl_slist *l);
CURLU *curl_dl_url(void);
void curl_dl_url_cleanup(CURLU *u);
CURLUcode curl_dl_url_set(CURLU *u, CURLUPart part, const char *s, unsigned int flags);
CURLUcode curl_dl_url_get(CURLU *u, CURLUPart part, char **s, unsigned int flags);
void curl_dl_free(void *p);
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init curl_dl_global_init
#define curl_easy_init curl_dl_easy_init
#define curl_easy_setopt curl_dl_easy_setopt
#define curl_easy_perform curl_dl_easy_perform
#define curl_easy_getinfo curl_dl_easy_getinfo
#define curl_easy_cleanup curl_dl_easy_cleanup
#define curl_easy_strerror curl_dl_easy_strerror
#define curl_slist_append curl_dl_slist_append
#define curl_slist_free_all curl_dl_slist_free_all
#define curl_url curl_dl_url
#define curl_url_cleanup curl_dl_url_cleanup
#define curl_url_set curl_dl_url_set
#define curl_url_get curl_dl_url_get
#define curl_free curl_dl_free
#endif

#endif
