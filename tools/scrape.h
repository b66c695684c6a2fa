/* SPDX-License-Identifier: MIT */
/* scrape.h — inputs given as etcd /metrics URLs: fetched with libcurl (the library stays curl-free), and
 * the loading of a command's inputs (files, '-', URLs, a second scrape after an interval). */
#ifndef SCRAPE_H
#define SCRAPE_H

#include <stddef.h>

#include "fioreport.h"

/* Client TLS the way etcdctl names it (--cacert, --cert, --key); NULL members are not set. */
typedef struct scrape_tls {
    const char *cacert, *cert, *key;
} scrape_tls;

#define SCRAPE_MAX_BYTES (64u << 20) /* a real etcd scrape is ~200 kB */

int scrape_is_url(const char *arg); /* http:// or https:// (any case) */
/* url as it may be shown (messages, source names, JSON, metrics): a password in it becomes REDACTED. */
void scrape_shown_url(const char *url, char *out, size_t n);

/* GETs url (http/https, no redirects followed, at most SCRAPE_MAX_BYTES, within timeout_s) into *buf
 * (malloc'd, NUL-terminated, *len bytes): 0 on HTTP 200, else -1 with a one-line message in err naming the
 * URL as shown. libcurl must have been initialised (curl_global_init) before threads call this. */
int scrape_fetch(const char *url, const scrape_tls *tls, long timeout_s, char **buf, size_t *len, char *err,
                 size_t errlen);

/* Parses every input into r, in order: files and '-' with fior_parse_file, URLs scraped. With
 * interval_s > 0 every URL is scraped a second time interval_s seconds after the first round. Then
 * fior_report_window() turns two scrapes of one etcd into the window between them. 0 ok; -1 with a
 * one-line message in err. */
int scrape_load_inputs(fior_report *r, char *const *inputs, int n, const scrape_tls *tls, double interval_s,
                       char *err, size_t errlen);

#endif
