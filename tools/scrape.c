/* SPDX-License-Identifier: MIT */
/* scrape.c — fetches etcd's /metrics with libcurl (http and https only, client certificates as etcdctl
 * takes them, bounded time and size) and loads a command's inputs: files, '-', URLs, and with an interval
 * a second round of scrapes, so that the library judges the window between them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "curl_dl.h"

#include "scrape.h"

int scrape_is_url(const char *arg) /* schemes are case-insensitive (RFC 3986); curl takes HTTP:// too */
{
    return arg && (!strncasecmp(arg, "http://", 7) || !strncasecmp(arg, "https://", 8));
}

/* The URL as it may be shown: in messages, the report's source names, JSON and metrics. A password in it
 * (https://user:secret@host/metrics) is replaced, so that a verdict, a saved report or a metric label
 * never carries a credential. Falls back to the scheme and a placeholder if curl cannot parse it. */
void scrape_shown_url(const char *url, char *out, size_t n)
{
    CURLU *u = curl_url();
    char *pw = NULL, *full = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
        if (curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) != CURLUE_OK) {
            snprintf(out, n, "%s", url); /* no password */
            goto done;
        }
        if (curl_url_set(u, CURLUPART_PASSWORD, "REDACTED", 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK) {
            snprintf(out, n, "%s", full);
            goto done;
        }
    } else if (!strchr(url, '@')) {
        snprintf(out, n, "%s", url);
        goto done;
    }
    snprintf(out, n, "%s://(a URL with credentials)", strncasecmp(url, "https://", 8) ? "http" : "https");
done:
    curl_free(pw);
    curl_free(full);
    curl_url_cleanup(u);
}

typedef struct sbuf {
    char  *p;
    size_t len, cap;
    int    toobig;
} sbuf;

static size_t on_data(char *data, size_t size, size_t nmemb, void *user)
{
    sbuf *b = user;
    size_t n = size * nmemb;
    if (n > SCRAPE_MAX_BYTES - b->len) {
        b->toobig = 1;
        return 0; /* makes curl stop with CURLE_WRITE_ERROR */
    }
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 65536;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np)
            return 0;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return n;
}

/* etcd with client-cert-auth just drops a TLS client without a certificate (curl then reports a socket
 * error), and a private CA fails verification: say which option helps. */
static const char *tls_hint(const char *url, const scrape_tls *tls, CURLcode rc)
{
    if (strncmp(url, "https://", 8))
        return "";
    if (rc == CURLE_PEER_FAILED_VERIFICATION && !(tls && tls->cacert))
        return " (etcd's CA: --cacert FILE)";
    if (!(tls && tls->cert) && (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING ||
                                rc == CURLE_SSL_CONNECT_ERROR))
        return " (does etcd want a client certificate? --cert FILE --key FILE)";
    return "";
}

/* GETs url into *buf (malloc'd, NUL-terminated, *len bytes). 0 on HTTP 200; else -1 and a one-line message
 * in err naming the URL as shown (scrape_shown_url: no password). */
static int fetch(const char *url, const char *shown, const scrape_tls *tls, long timeout_s, char **buf, size_t *len,
                 char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    CURL *h = curl_easy_init();
    if (!h) {
        const char *why = curl_dl_missing();
        snprintf(err, errlen, "%s: cannot start libcurl%s%s", shown, why[0] ? ": " : "", why);
        return -1;
    }
    char cerr[CURL_ERROR_SIZE] = "";
    sbuf b = {0};
    struct curl_slist *hdr = curl_slist_append(NULL, "Accept: text/plain;version=0.0.4;q=1,"
                                                     "application/openmetrics-text;q=0.5,*/*;q=0.1");
    curl_easy_setopt(h, CURLOPT_URL, url);
    if (curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK) /* libcurl before 7.85 */
        curl_easy_setopt(h, CURL_DL_OPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout_s < 5 ? timeout_s : 5L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* gzip if etcd offers it */
    curl_easy_setopt(h, CURLOPT_USERAGENT, "etcd-fio");
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    if (hdr)
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    if (tls && tls->cacert)
        curl_easy_setopt(h, CURLOPT_CAINFO, tls->cacert);
    if (tls && tls->cert)
        curl_easy_setopt(h, CURLOPT_SSLCERT, tls->cert);
    if (tls && tls->key)
        curl_easy_setopt(h, CURLOPT_SSLKEY, tls->key);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(h);
    if (rc != CURLE_OK || code != 200) {
        if (b.toobig)
            snprintf(err, errlen, "%s: more than %u MiB (not etcd's /metrics?)", shown, SCRAPE_MAX_BYTES >> 20);
        else if (rc != CURLE_OK)
            snprintf(err, errlen, "%s: %s%s", shown, cerr[0] ? cerr : curl_easy_strerror(rc), tls_hint(url, tls, rc));
        else
            snprintf(err, errlen, "%s: HTTP %ld%s", shown, code,
                     code == 401 || code == 403   ? " (needs a client certificate? --cacert/--cert/--key)"
                     : code >= 300 && code < 400 ? " (a redirect, not followed: give the URL of etcd's /metrics itself)"
                                                 : "");
        free(b.p);
        return -1;
    }
    *buf = b.p ? b.p : calloc(1, 1);
    *len = b.len;
    return *buf ? 0 : -1;
}

static int scrape_into(fior_report *r, const char *url, const scrape_tls *tls, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    char shown[2048];
    scrape_shown_url(url, shown, sizeof shown); /* once: the messages and the report's source name */
    if (fetch(url, shown, tls, 30, &buf, &len, err, errlen))
        return -1;
    fior_status st = fior_parse_buffer(r, shown, buf, len);
    free(buf);
    if (st != FIOR_OK) {
        snprintf(err, errlen, "%s", fior_report_error(r));
        return -1;
    }
    return 0;
}

int scrape_fetch(const char *url, const scrape_tls *tls, long timeout_s, char **buf, size_t *len, char *err,
                 size_t errlen)
{
    char shown[2048];
    scrape_shown_url(url, shown, sizeof shown);
    return fetch(url, shown, tls, timeout_s > 0 ? timeout_s : 30, buf, len, err, errlen);
}

int scrape_load_inputs(fior_report *r, char *const *inputs, int n, const scrape_tls *tls, double interval_s,
                       char *err, size_t errlen)
{
    int urls = 0;
    for (int i = 0; i < n; i++) {
        if (scrape_is_url(inputs[i])) {
            urls++;
            if (scrape_into(r, inputs[i], tls, err, errlen))
                return -1;
        } else if (fior_parse_file(r, inputs[i]) != FIOR_OK) {
            snprintf(err, errlen, "%s", fior_report_error(r));
            return -1;
        }
    }
    if (interval_s > 0 && urls) {
        /* A long window looks like a hang without a word; the line also tells a script when the window opens. */
        fprintf(stderr, "etcd-fio verdict: scraped %d URL%s; the window closes in %g s\n", urls, urls > 1 ? "s" : "",
                interval_s);
        fflush(stderr);
        struct timespec ts = {(time_t)interval_s, (long)((interval_s - (double)(time_t)interval_s) * 1e9)};
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
        for (int i = 0; i < n; i++)
            if (scrape_is_url(inputs[i]) && scrape_into(r, inputs[i], tls, err, errlen))
                return -1;
    }
    if (fior_report_window(r) != FIOR_OK) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
