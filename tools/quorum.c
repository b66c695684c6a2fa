/* SPDX-License-Identifier: MIT */
/* quorum.c — the quorum combination of three members' Save latencies (quorum.h has the cluster it
 * replays and where in etcd each step comes from). Pure: a virtual clock, a seeded generator, no I/O.
 *
 * Answers leave the apply goroutine in time order, so the waiting puts are one FIFO of arrival times and the
 * entries in Readys another (as engine/load.c). Readys are kept in one array for the whole replay (each
 * follower walks it at its own pace); a follower's Save is final once it starts before the earliest time a
 * Ready not yet sent could reach it. */
#include "quorum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX
#define MAX_READYS 2000000u
#define CORE_SLOTS 256u

typedef struct dist {
    const fior_bin *b;
    uint64_t *cum; /* cumulative counts */
    size_t n;
    uint64_t total;
} dist;

typedef struct ready {
    uint64_t arrive;  /* at the followers */
    uint64_t commit;  /* a follower's answer reached the leader (NEVER until known) */
    uint64_t saved;   /* the leader's own Save ended */
    uint32_t k;
    uint8_t by;       /* the follower whose answer committed it */
} ready;

typedef struct sim {
    const quorum_cfg *c;
    uint64_t rng;
    dist d[QUORUM_MEMBERS], commit;
    /* waiting puts (arrival times) and entries in Readys (their arrival times), FIFO rings of `clients` */
    uint64_t *wait, *taken;
    uint32_t whead, wlen, thead, tlen;
    ready *r;
    size_t nr, rcap, delivered;
    struct { size_t next; uint64_t free; } f[QUORUM_MEMBERS]; /* followers 1, 2 */
    uint64_t half_rtt;
    /* shared_core: the core's reserved intervals [start, end), ascending; work is reserved out of time order
     * (a follower's Save is computed when it is final), so each piece goes in the first gap that fits */
    uint64_t core_s[CORE_SLOTS], core_e[CORE_SLOTS];
    unsigned ncore;
    uint64_t now;                 /* the leader's clock: intervals that ended before it are dropped */
    /* apply side */
    uint64_t apply_free, bc_next; /* next backend timer */
    uint64_t pending;
    /* counting (after the warm-up) */
    uint64_t warm, span;
    uint64_t *lat;
    size_t nlat, latcap;
    uint64_t save_ns, wait_ns, cpu_ns, apply_ns, blocked_ns, entries, saves;
    quorum_out *o;
} sim;

static uint64_t rnd(sim *s)
{
    uint64_t x = s->rng; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545f4914f6cdd1dull;
}

static int dist_init(dist *d, const quorum_dist *in)
{
    memset(d, 0, sizeof *d);
    if (!in->n)
        return 0;
    d->cum = malloc(in->n * sizeof *d->cum);
    if (!d->cum)
        return -1;
    d->b = in->bins;
    d->n = in->n;
    for (size_t i = 0; i < in->n; i++) {
        d->total += in->bins[i].count;
        d->cum[i] = d->total;
    }
    return 0;
}

/* One latency drawn from the bins (inverse of their cumulative counts). */
static uint64_t draw(sim *s, const dist *d)
{
    if (!d->total)
        return 0;
    uint64_t u = rnd(s) % d->total;
    size_t lo = 0, hi = d->n - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return d->b[lo].ns;
}

static int in_window(const sim *s, uint64_t t)
{
    return t >= s->warm && t < s->span;
}

/* Busy time [a, b) counted in the window. */
static uint64_t clip(const sim *s, uint64_t a, uint64_t b)
{
    if (a < s->warm)
        a = s->warm;
    if (b > s->span)
        b = s->span;
    return b > a ? b - a : 0;
}

static int lat_add(sim *s, uint64_t v)
{
    if (s->nlat == s->latcap) {
        size_t n = s->latcap ? 2 * s->latcap : 4096;
        uint64_t *p = realloc(s->lat, n * sizeof *p);
        if (!p)
            return -1;
        s->lat = p;
        s->latcap = n;
    }
    s->lat[s->nlat++] = v;
    return 0;
}

/* A backend commit holding the lock from t: its end. */
static uint64_t backend_commit(sim *s, uint64_t t)
{
    uint64_t end = t + draw(s, &s->commit);
    s->pending = 0;
    s->bc_next = end + QUORUM_BATCH_INTERVAL_NS;
    return end;
}

/* The apply goroutine applies Ready r's entries from `at`: each put after the one before, waiting for a
 * backend commit that holds the lock (the timer's, every 100 ms after the last one ended, or one its own
 * 5,000th put runs inline); each answered client's next put joins the waiting FIFO. */
static int apply(sim *s, const ready *r, uint64_t at)
{
    const quorum_cfg *c = s->c;
    for (uint32_t i = 0; i < r->k; i++) {
        uint64_t want = s->apply_free > at ? s->apply_free : at, start = want;
        while (s->commit.total && start >= s->bc_next) {
            if (!s->pending) {
                s->bc_next += QUORUM_BATCH_INTERVAL_NS;
                continue;
            }
            uint64_t t = s->bc_next, end = backend_commit(s, t);
            if (start < end)
                start = end;
        }
        uint64_t ack = start + c->apply_ns;
        s->blocked_ns += clip(s, want, start);
        s->apply_ns += clip(s, start, ack);
        s->pending++;
        if (s->commit.total && s->pending >= QUORUM_BATCH_LIMIT_PUTS) {
            uint64_t end = backend_commit(s, ack);
            s->blocked_ns += clip(s, ack, end);
            ack = end; /* batchTxBuffered.Unlock commits inline: this put's answer waits for it */
        }
        s->apply_free = ack;
        uint64_t arrived = s->taken[s->thead];
        s->thead = (s->thead + 1) % c->clients;
        s->tlen--;
        if (in_window(s, ack)) {
            if (lat_add(s, ack - arrived + c->client_ns))
                return -1;
            s->o->puts++;
        }
        s->wait[(s->whead + s->wlen) % c->clients] = ack + c->client_ns;
        s->wlen++;
    }
    return 0;
}

/* Raft-loop work from t: its end (after the work before it on the one core, when the members share it). */
static uint64_t cpu_run(sim *s, uint64_t t, uint64_t work)
{
    if (!s->c->shared_core || !work)
        return t + work;
    unsigned keep = 0; /* drop what ended before the leader's clock (nothing starts before it any more) */
    while (keep < s->ncore && s->core_e[keep] <= s->now && s->core_e[keep] <= t)
        keep++;
    if (keep) {
        memmove(s->core_s, s->core_s + keep, (s->ncore - keep) * sizeof *s->core_s);
        memmove(s->core_e, s->core_e + keep, (s->ncore - keep) * sizeof *s->core_e);
        s->ncore -= keep;
    }
    unsigned i = 0;
    for (; i < s->ncore; i++) {
        if (s->core_e[i] <= t)
            continue;
        if (t + work <= s->core_s[i])
            break;     /* fits in the gap before interval i */
        t = s->core_e[i];
    }
    if (s->ncore == CORE_SLOTS) { /* a full ring: serve it after the last reservation */
        t = t > s->core_e[s->ncore - 1] ? t : s->core_e[s->ncore - 1];
        memmove(s->core_s, s->core_s + 1, (s->ncore - 1) * sizeof *s->core_s);
        memmove(s->core_e, s->core_e + 1, (s->ncore - 1) * sizeof *s->core_e);
        s->ncore--;
        i = s->ncore;
    }
    memmove(s->core_s + i + 1, s->core_s + i, (s->ncore - i) * sizeof *s->core_s);
    memmove(s->core_e + i + 1, s->core_e + i, (s->ncore - i) * sizeof *s->core_e);
    s->core_s[i] = t;
    s->core_e[i] = t + work;
    s->ncore++;
    return t + work;
}

/* When follower m's next Save starts (NEVER when nothing has reached it to save). */
static uint64_t next_start(const sim *s, int m)
{
    if (s->f[m].next >= s->nr)
        return NEVER;
    uint64_t a = s->r[s->f[m].next].arrive;
    return s->f[m].free > a ? s->f[m].free : a;
}

/* The followers Save what has reached them, batch by batch and in time order across both (their work may
 * take turns on one core), while a batch starts before `horizon` (no Ready not yet sent can arrive before
 * it): follow_one one batch (1 when it did), follow all of them. */
static int follow_one(sim *s, uint64_t horizon)
{
    {
        int m = next_start(s, 1) <= next_start(s, 2) ? 1 : 2;
        uint64_t start = next_start(s, m);
        if (start == NEVER || start >= horizon)
            return 0;
        size_t j = s->f[m].next;
        uint64_t entries = 0;
        while (j < s->nr && s->r[j].arrive <= start)
            entries += s->r[j++].k;
        /* its work on the Ready and on each entry (receiving, appending), then its Save */
        uint64_t work = s->c->ready_ns + entries * s->c->cpu_ns;
        uint64_t end = cpu_run(s, start, work) + draw(s, &s->d[m]), ans = end + s->half_rtt;
        for (size_t i = s->f[m].next; i < j; i++)
            if (ans < s->r[i].commit) {
                s->r[i].commit = ans;
                s->r[i].by = (uint8_t)m;
            }
        s->f[m].free = end;
        s->f[m].next = j;
    }
    return 1;
}

static void follow(sim *s, uint64_t horizon)
{
    while (follow_one(s, horizon))
        ;
}

/* Hands every Ready committed by `now` (in order) to the apply goroutine, from `at` (after the leader's work
 * on the Ready that carries them). *n: how many. */
static int deliver(sim *s, uint64_t now, uint64_t at, int *n)
{
    *n = 0;
    while (s->delivered < s->nr && s->r[s->delivered].commit <= now) {
        ready *r = &s->r[s->delivered++];
        if (in_window(s, now)) {
            s->o->by_follower[r->by]++;
            s->o->leader_gated += r->commit < r->saved;
        }
        if (apply(s, r, at))
            return -1;
        (*n)++;
    }
    return 0;
}

/* The leader takes a Ready of the k puts waiting at now (its work on the Ready itself ended at prep), sends it
 * and Saves it: returns the Save's end. */
static int take(sim *s, uint64_t now, uint64_t prep, uint32_t k, uint64_t *end)
{
    const quorum_cfg *c = s->c;
    if (s->nr == s->rcap) {
        if (s->rcap >= MAX_READYS)
            return -1;
        size_t n = s->rcap ? 2 * s->rcap : 4096;
        ready *p = realloc(s->r, n * sizeof *p);
        if (!p)
            return -1;
        s->r = p;
        s->rcap = n;
    }
    for (uint32_t i = 0; i < k; i++) {
        s->taken[(s->thead + s->tlen) % c->clients] = s->wait[s->whead];
        s->tlen++;
        s->whead = (s->whead + 1) % c->clients;
        s->wlen--;
    }
    uint64_t save_start = cpu_run(s, prep, (uint64_t)k * c->cpu_ns);
    *end = save_start + draw(s, &s->d[0]);
    ready *r = &s->r[s->nr++];
    r->k = k;
    r->arrive = save_start + s->half_rtt; /* the leader sends before it Saves (raft.go: islead) */
    r->commit = NEVER;
    r->saved = *end;
    r->by = 0;
    s->cpu_ns += clip(s, now, save_start);
    s->save_ns += clip(s, save_start, *end);
    if (in_window(s, now)) {
        s->saves++;
        s->entries += k;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t quantile(const uint64_t *v, size_t n, double q)
{
    if (!n)
        return 0;
    size_t i = (size_t)ceil(q * (double)n);
    return v[i ? i - 1 : 0];
}

static int run(sim *s, char *err, size_t errlen)
{
    const quorum_cfg *c = s->c;
    uint64_t now = 0;
    for (uint32_t i = 0; i < c->clients; i++)
        s->wait[i] = 0;
    s->wlen = c->clients;
    while (now < s->span) {
        s->now = now;
        follow(s, now + s->half_rtt);
        /* the puts waiting now (an apply below answers later than now: it adds none) */
        uint32_t k = 0;
        while (k < s->wlen && s->wait[(s->whead + k) % c->clients] <= now)
            k++;
        int committed = s->delivered < s->nr && s->r[s->delivered].commit <= now;
        if (k || committed) {
            /* one Ready: the leader's work on it, its committed entries to the apply, its new ones sent and
             * saved; a Ready of committed entries only costs the work, then the loop looks again */
            uint64_t prep = cpu_run(s, now, c->ready_ns);
            int nd;
            if (deliver(s, now, prep, &nd))
                goto oom;
            if (!k) {
                s->cpu_ns += clip(s, now, prep);
                if (prep > now) {
                    now = prep;
                    continue;
                }
            } else {
                uint64_t end;
                if (take(s, now, prep, k, &end))
                    goto oom;
                now = end;
                continue;
            }
        }
        /* idle until a put arrives or a follower's answer does. Nothing is sent before the next put nor
         * before the next commit (whose apply sends the answered clients' next puts), and no commit comes
         * before the earliest follower Save starts: that Save is final, and so on */
        uint64_t next = s->wlen ? s->wait[s->whead] : NEVER, commit;
        for (;;) {
            commit = s->delivered < s->nr ? s->r[s->delivered].commit : NEVER;
            uint64_t bound = next < commit ? next : commit;
            if (!follow_one(s, bound == NEVER ? NEVER : bound + s->half_rtt))
                break;
        }
        commit = s->delivered < s->nr ? s->r[s->delivered].commit : NEVER;
        uint64_t t = next < commit ? next : commit;
        if (t == NEVER || t < now) {
            snprintf(err, errlen, "quorum replay stalled at %.3f s (no put waiting, none in flight)", (double)now / 1e9);
            return -1;
        }
        if (s->delivered < s->nr)
            s->wait_ns += clip(s, now, t);
        now = t;
    }
    quorum_out *o = s->o;
    double window = (double)(s->span - s->warm);
    o->saves = s->saves;
    o->writes_per_s = (double)o->puts / window * 1e9;
    o->entries_per_save = s->saves ? (double)s->entries / (double)s->saves : 0;
    qsort(s->lat, s->nlat, sizeof *s->lat, cmp_u64);
    o->lat_p50_ns = quantile(s->lat, s->nlat, 0.50);
    o->lat_p90_ns = quantile(s->lat, s->nlat, 0.90);
    o->lat_p99_ns = quantile(s->lat, s->nlat, 0.99);
    o->save_share = (double)(s->save_ns + s->wait_ns) / window;
    o->cpu_share = (double)s->cpu_ns / window;
    o->apply_share = (double)s->apply_ns / window;
    o->blocked_share = (double)s->blocked_ns / window;
    return 0;
oom:
    snprintf(err, errlen, "quorum replay: out of memory (or more than %u Readys)", MAX_READYS);
    return -1;
}

int quorum_simulate(const quorum_cfg *c, quorum_out *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!c->clients || c->clients > 1000000u) {
        snprintf(err, errlen, "quorum replay: %u clients: expected 1..1000000", c->clients);
        return -1;
    }
    if (c->rtt_ns > QUORUM_MAX_RTT_NS) {
        snprintf(err, errlen, "quorum replay: a round trip of %.3f ms is more than etcd's 1 s election timeout",
                 (double)c->rtt_ns / 1e6);
        return -1;
    }
    for (int m = 0; m < QUORUM_MEMBERS; m++) {
        uint64_t n = 0;
        for (size_t i = 0; i < c->save[m].n; i++)
            n += c->save[m].bins[i].count;
        if (!n) {
            snprintf(err, errlen, "quorum replay: member %d has no Save latencies", m + 1);
            return -1;
        }
    }
    double span_s = c->span_s > 0 ? c->span_s : QUORUM_SPAN_S, warm_s = c->warm_s > 0 ? c->warm_s : QUORUM_WARM_S;
    if (!(warm_s < span_s)) {
        snprintf(err, errlen, "quorum replay: the warm-up (%g s) is not shorter than the span (%g s)", warm_s, span_s);
        return -1;
    }
    sim s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.o = o;
    s.rng = c->seed ? c->seed : 0x9e3779b97f4a7c15ull;
    s.half_rtt = c->rtt_ns / 2;
    s.span = (uint64_t)(span_s * 1e9);
    s.warm = (uint64_t)(warm_s * 1e9);
    s.bc_next = QUORUM_BATCH_INTERVAL_NS;
    s.wait = calloc(c->clients, sizeof *s.wait);
    s.taken = calloc(c->clients, sizeof *s.taken);
    int rc = -1;
    if (!s.wait || !s.taken || dist_init(&s.commit, &c->commit)) {
        snprintf(err, errlen, "quorum replay: out of memory");
        goto out;
    }
    for (int m = 0; m < QUORUM_MEMBERS; m++)
        if (dist_init(&s.d[m], &c->save[m])) {
            snprintf(err, errlen, "quorum replay: out of memory");
            goto out;
        }
    rc = run(&s, err, errlen);
out:
    for (int m = 0; m < QUORUM_MEMBERS; m++)
        free(s.d[m].cum);
    free(s.commit.cum);
    free(s.wait);
    free(s.taken);
    free(s.r);
    free(s.lat);
    return rc;
}
