/* SPDX-License-Identifier: MIT */
/* json_signal.c — fio's "\nfio: terminating on signal N\n" line in a JSON input (backend.c sig_int: fio
 * prints it when a signal stops it, then stops its jobs and prints their final document; its handler may
 * write it into a status document being printed) and what it means for a run's end. Every byte fed to a
 * stream passes here first: the lines are taken out wherever they stand, the rest goes to the scanner
 * (json_stream.c) in pieces at their own input offsets, and the current run's jobs get their end
 * (run_end.c) from where their latest document stands to such a line. */
#include <stdio.h>
#include <string.h>

#include "json_doc.h"

/* ---- the run's end ---- */

/* Sets the current run's jobs' end (run_end.c) from what their latest document said (cur_x) and where it
 * stands: its signal line (a document after it is fio's final one), the documents before it, and, when
 * `signal_after` is set, a signal line after it that was followed by another run's document. */
fior_status fior__run_end(fior_json_stream *s, int signal_after)
{
    for (size_t i = s->ndone; i < s->rep->njobs; i++) {
        fior_job *j = &s->rep->jobs[i];
        fior__endfacts f = s->cur_x[i - s->ndone].end;
        int sig = s->run_signal ? s->run_signal : s->sig_pending;
        f.signal = sig;
        f.after_signal = s->run_signal && s->run_after;
        f.docs = s->run_docs;
        f.gap_ms = s->run_gap;
        f.interval_ms = s->run_interval;
        f.stream_signal_after = signal_after;
        if (fior__job_end(j, &f)) {
            fior__seterr(s->err, "%s: out of memory", s->source);
            return FIOR_E_NOMEM;
        }
        j->end_signal = sig;
    }
    return FIOR_OK;
}

/* A signal line outside the documents: the current run has no final document (yet). Inside a document it
 * counts once that document is read (the document was written before fio stopped its jobs). A second line
 * after a document that followed the first one changes nothing (Ctrl-C twice). */
fior_status fior__on_signal(fior_json_stream *s, int sig)
{
    if (s->in_doc) {
        s->sig_in_doc = sig;
        return FIOR_OK;
    }
    if (s->run_signal && s->run_after)
        return FIOR_OK;
    s->sig_pending = sig;
    return s->have_cur ? fior__run_end(s, 0) : FIOR_OK;
}

/* ---- the lines ---- */

/* At p (a '\n', n bytes to the end of what is there): 1 and the line's length from the '\n' and its
 * signal when "\nfio: terminating on signal N\n" starts there, -1 when it may but the bytes end first, 0 not. */
static int sig_at(const char *p, size_t n, size_t *len, int *sig)
{
    size_t l;
    int r = n > 1 ? fior__sigline(p + 1, n - 1, &l) : -1;
    if (r > 0) {
        *len = l + 1;
        *sig = r;
        return 1;
    }
    return r;
}

static fior_status piece(fior_json_stream *s, const char *p, size_t n, uint64_t abs)
{
    if (!n)
        return FIOR_OK;
    s->pos = (size_t)abs;
    return fior__scan_feed(s, p, n);
}

/* The line is taken out of what the scanner reads; outside a document it stays in the gaps (the normal
 * half of normal,json output reads it too), and the next byte starts a line. */
static fior_status removed_line(fior_json_stream *s, const char *p, size_t n, int sig)
{
    if (!s->in_doc) {
        fior__keep_gap(s, p, n);
        s->bol = s->col0 = 1;
        s->hdr_match = 0;
    }
    return fior__on_signal(s, sig);
}

static void keep_first(fior_status *first, fior_status st)
{
    if (*first == FIOR_OK)
        *first = st;
}

/* Held bytes and the start of buf: either a signal line (taken out; *used: the bytes of buf it took), or
 * the held bytes go to the scanner. 1 when all of buf was held too (still undecided). */
static int resolve_held(fior_json_stream *s, const char *buf, size_t len, size_t *used, fior_status *first)
{
    char tmp[2 * sizeof s->held];
    size_t k = len < sizeof tmp - s->heldlen ? len : sizeof tmp - s->heldlen, l = 0;
    int sig = 0;
    memcpy(tmp, s->held, s->heldlen);
    memcpy(tmp + s->heldlen, buf, k);
    int r = sig_at(tmp, s->heldlen + k, &l, &sig);
    *used = 0;
    if (r < 0 && k == len && s->heldlen + len <= sizeof s->held) {
        memcpy(s->held + s->heldlen, buf, len);
        s->heldlen += len;
        return 1;
    }
    if (r > 0) {
        keep_first(first, removed_line(s, tmp + s->held_virtual, l - (size_t)s->held_virtual, sig));
        *used = l - s->heldlen;
    } else { /* not a signal line: the held bytes (after a virtual '\n') go to the scanner */
        size_t v = (size_t)s->held_virtual;
        keep_first(first, piece(s, s->held + v, s->heldlen - v, s->held_abs));
    }
    s->heldlen = 0;
    s->held_virtual = 0;
    return 0;
}

/* Feeds raw input: the signal lines out, the rest to the scanner in pieces at their own offsets (so that
 * where the input is split never changes what is read). */
fior_status fior__feed_raw(fior_json_stream *s, const char *buf, size_t len)
{
    fior_status first = FIOR_OK;
    uint64_t base = s->raw;
    size_t from = 0;
    if (s->heldlen && resolve_held(s, buf, len, &from, &first)) {
        s->raw += len;
        return first;
    }
    const char *q = from < len ? memchr(buf + from, '\n', len - from) : NULL;
    while (q) {
        size_t at = (size_t)(q - buf), l = 0;
        int sig = 0, r = sig_at(q, len - at, &l, &sig);
        if (r != 0) {
            keep_first(&first, piece(s, buf + from, at - from, base + from));
            if (r < 0) { /* hold the tail until more comes */
                memcpy(s->held, q, len - at);
                s->heldlen = len - at;
                s->held_abs = base + at;
                s->raw = base + len;
                return first;
            }
            keep_first(&first, removed_line(s, q, l, sig));
            from = at + l;
            q = buf + from - 1;
        }
        q = (size_t)(q + 1 - buf) < len ? memchr(q + 1, '\n', len - (size_t)(q + 1 - buf)) : NULL;
    }
    keep_first(&first, piece(s, buf + from, len - from, base + from));
    s->raw = base + len;
    return first;
}

/* The end of the input: held bytes are a signal line without its newline, or go to the scanner. */
fior_status fior__flush_held(fior_json_stream *s)
{
    fior_status first = FIOR_OK;
    if (!s->heldlen)
        return first;
    char tmp[sizeof s->held + 1];
    size_t l = 0;
    int sig = 0;
    memcpy(tmp, s->held, s->heldlen);
    tmp[s->heldlen] = '\n';
    size_t v = (size_t)s->held_virtual;
    if (sig_at(tmp, s->heldlen + 1, &l, &sig) > 0 && l == s->heldlen + 1)
        keep_first(&first, removed_line(s, s->held + v, s->heldlen - v, sig));
    else
        keep_first(&first, piece(s, s->held + v, s->heldlen - v, s->held_abs));
    s->heldlen = 0;
    s->held_virtual = 0;
    s->pos = (size_t)s->raw;
    return first;
}


/* ---- a job process that died ---- */

/* fio's "fio: pid=P, got signal=S" (backend.c, on stderr; in client output "<host> fio: …" on stdout) in
 * the text around the documents: the figures of that job process never reached its end. Or the client's
 * "client: host=H disconnected" (client.c): a server that was asked for is gone, its jobs' figures with it. JSON carries no
 * job pid, so every job of the input is taken as the dead one's. A line may follow fio's eta display after
 * a '\r'. The whole line must be fio's (a job may be named like it, but a job name is never a line). */
fior_status fior__json_died_lines(fior_report *r, const char *gap, size_t len)
{
    int sig = 0, lost = 0;
    for (size_t i = 0; i < len && !sig;) {
        size_t j = i;
        while (j < len && gap[j] != '\n' && gap[j] != '\r')
            j++;
        char line[96];
        size_t n = j - i;
        if (n > 0 && n < sizeof line) {
            memcpy(line, gap + i, n);
            line[n] = '\0';
            const char *p = line;
            if (*p == '<') { /* client output: "<host> " */
                const char *e = strstr(p, "> ");
                p = e && !memchr(p, ' ', (size_t)(e - p)) ? e + 2 : p;
            }
            int sg = fior__got_signal_line(p, NULL);
            if (sg)
                sig = sg;
            else if (fior__host_lost_line(p))
                lost = 1;
        }
        i = j + 1;
    }
    for (size_t k = 0; (sig || lost) && k < r->njobs; k++) {
        fior__endfacts f;
        fior__endfacts_init(&f);
        f.died = sig ? FIOR__DIED_GOT_SIGNAL : FIOR__DIED_HOST_LOST;
        f.died_signal = sig;
        if (fior__job_end(&r->jobs[k], &f))
            return FIOR_E_NOMEM;
    }
    return FIOR_OK;
}
