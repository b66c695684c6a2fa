/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadrun.c — the closed-loop load on the real disk and clock (see loadrun.h). */
#include "loadrun.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

/* The page both sides share. The backend side writes a commit's interval into its ring slot and then bumps
 * seq; the WAL side copies the ring between two reads of seq and retries when it moved (a seqlock). */
struct ldr_shared {
    _Atomic uint64_t applied;      /* WAL side: puts applied */
    _Atomic uint64_t busy_since;   /* backend side: start of the commit in progress, LD_NEVER when none */
    _Atomic uint64_t seq;          /* commits published */
    _Atomic uint64_t start[LD_LOCK_RING], end[LD_LOCK_RING];
    _Atomic int wal_done;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

ldr_shared *ldr_shared_map(void)
{
    void *p = mmap(NULL, sizeof(ldr_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    ldr_shared *s = p;
    atomic_init(&s->applied, 0);
    atomic_init(&s->busy_since, LD_NEVER);
    atomic_init(&s->seq, 0);
    for (unsigned i = 0; i < LD_LOCK_RING; i++) {
        atomic_init(&s->start[i], 0);
        atomic_init(&s->end[i], 0);
    }
    atomic_init(&s->wal_done, 0);
    return s;
}

static void read_lock(const ldr_shared *s, ld_lock *lk)
{
    for (;;) {
        uint64_t s1 = atomic_load(&s->seq);
        lk->busy_since = atomic_load(&s->busy_since);
        lk->n = s1 < LD_LOCK_RING ? (unsigned)s1 : LD_LOCK_RING;
        for (unsigned i = 0; i < lk->n; i++) {
            lk->start[i] = atomic_load(&s->start[i]);
            lk->end[i] = atomic_load(&s->end[i]);
        }
        if (atomic_load(&s->seq) == s1)
            return;
    }
}

int ldr_wal_init(ldr_wal *r, const ld_config *cfg, ldr_shared *sh, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->cfg = *cfg;
    r->sh = sh;
    r->entry_bytes = ld_entry_bytes(cfg->key_bytes, cfg->val_bytes);
    r->payload = malloc(r->entry_bytes);
    if (!r->payload) {
        snprintf(err, errlen, "etcdwal: out of memory for a %zu-byte entry", r->entry_bytes);
        return -1;
    }
    /* entry bytes no filesystem compresses away (xorshift64) */
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < r->entry_bytes; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        r->payload[i] = (unsigned char)(x >> 24);
    }
    /* the waits for a client are tens of microseconds: the default 50 us timer slack would add to each */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    return 0;
}

/* How long one wait for a proposal may sleep before the stop flag and the commits are looked at again. */
#define WAIT_STEP_NS 1000000ull
#define WAIT_BLOCKED_NS 20000ull

int ldr_wal_ready(ldr_wal *r, wal *w, const volatile bool *stop, char *err, size_t errlen)
{
    if (!r->started) {
        if (ld_init(&r->m, &r->cfg, now_ns(), err, errlen))
            return -EINVAL;
        r->started = 1;
    }
    ld_lock lk;
    uint64_t now = now_ns(), next;
    for (;;) {
        if (r->sh)
            read_lock(r->sh, &lk);
        uint32_t n = ld_poll(&r->m, now, r->sh ? &lk : NULL, &next);
        if (r->sh)
            atomic_store(&r->sh->applied, r->m.applied);
        if (n || (stop && *stop))
            break;
        uint64_t until = next == LD_NEVER ? now + WAIT_BLOCKED_NS : next;
        if (until > now + WAIT_STEP_NS)
            until = now + WAIT_STEP_NS;
        sleep_until(until);
        uint64_t t = now_ns();
        ld_idle(&r->m, now, t);
        now = t;
    }
    int k = ld_take(&r->m, now);
    if (k < 0) {
        snprintf(err, errlen, "etcdwal: a Ready was taken before the previous one was saved");
        return -EINVAL;
    }
    if (k > 0 && r->cfg.entry_ns) {
        /* the raft loop's work on the entries, in steps that look at fio's stop flag */
        uint64_t until = now + (uint64_t)k * r->cfg.entry_ns;
        for (uint64_t t = now; t < until && !(stop && *stop); t = now_ns())
            sleep_until(until < t + WAIT_STEP_NS ? until : t + WAIT_STEP_NS);
        ld_save_start(&r->m, now_ns());
    }
    for (int i = 0; i < k; i++) {
        int rc = wal_append(w, r->payload, r->entry_bytes, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int ldr_wal_save(ldr_wal *r, wal *w, char *err, size_t errlen)
{
    int rc = wal_save(w, err, errlen);
    if (r->started)
        ld_saved(&r->m, now_ns());
    return rc;
}

void ldr_wal_done(ldr_wal *r)
{
    if (r->sh)
        atomic_store(&r->sh->wal_done, 1);
}

void ldr_wal_json(const ldr_wal *r, FILE *f)
{
    const ld_stats *s = &r->m.st;
    uint64_t span = s->last_ns > s->first_ns ? s->last_ns - s->first_ns : 0;
    fprintf(f,
            ",\"load\":{\"clients\":%u,\"key_bytes\":%u,\"val_bytes\":%u,\"entry_bytes\":%zu,\"client_ns\":%" PRIu64
            ",\"apply_ns_per_put\":%" PRIu64 ",\"entry_ns_per_put\":%" PRIu64 ",\"cpu_ns\":%" PRIu64 ",\"puts\":%" PRIu64 ",\"saves\":%" PRIu64 ",\"span_ns\":%" PRIu64
            ",\"idle_ns\":%" PRIu64 ",\"save_ns\":%" PRIu64 ",\"apply_ns\":%" PRIu64 ",\"blocked_ns\":%" PRIu64
            ",\"latency_p50_ns\":%" PRIu64 ",\"latency_p90_ns\":%" PRIu64 ",\"latency_p99_ns\":%" PRIu64 ",\"hist\":{",
            r->cfg.clients, r->cfg.key_bytes, r->cfg.val_bytes, r->entry_bytes, r->cfg.client_ns, r->cfg.apply_ns,
            r->cfg.entry_ns, s->cpu_ns, s->puts, s->saves, span, s->idle_ns, s->save_ns, s->apply_ns, s->blocked_ns,
            hist_quantile(&s->latency, 0.50), hist_quantile(&s->latency, 0.90), hist_quantile(&s->latency, 0.99));
    const hist_field hs[] = {{"latency", &s->latency, "_ns", 1}, {"entries_per_save", &s->entries_per_save, "", 0}};
    hist_write_fields(f, hs, sizeof hs / sizeof hs[0]);
    fputs("}}", f);
}

void ldr_wal_free(ldr_wal *r)
{
    if (r->started)
        ld_free(&r->m);
    free(r->payload);
    r->payload = NULL;
    r->started = 0;
}

void ldr_be_init(ldr_be *b, ldr_shared *sh, unsigned key_bytes, unsigned val_bytes)
{
    memset(b, 0, sizeof *b);
    b->sh = sh;
    b->key_bytes = key_bytes;
    b->val_bytes = val_bytes;
    hist_init(&b->puts_per_commit);
    memset(b->page, 0x5a, sizeof b->page);
}

/* With no put pending at the timer etcd skips the commit and waits another interval; after this long with
 * none (no WAL side, or it ended) the batch is staged anyway, so that fio's loop goes on. */
#define IDLE_COMMIT_NS 1000000000ull

int ldr_be_stage(ldr_be *b, bb_db *db, const volatile bool *stop, char *err, size_t errlen)
{
    uint64_t now = now_ns();
    if (!b->deadline)
        b->deadline = now + LD_BATCH_INTERVAL_NS;
    uint64_t idle_from = now;
    uint64_t pending = 0;
    for (;;) {
        uint64_t applied = b->sh ? atomic_load(&b->sh->applied) : 0;
        pending = applied > b->committed ? applied - b->committed : 0;
        if (pending >= LD_BATCH_LIMIT_PUTS || (stop && *stop))
            break;
        if (now >= b->deadline) {
            if (pending)
                break;
            if ((b->sh && atomic_load(&b->sh->wal_done)) || now - idle_from >= IDLE_COMMIT_NS)
                break;
            b->deadline = now + LD_BATCH_INTERVAL_NS;
        }
        uint64_t until = b->deadline < now + WAIT_STEP_NS ? b->deadline : now + WAIT_STEP_NS;
        sleep_until(until);
        now = now_ns();
    }
    unsigned pages = pending ? ld_commit_pages(pending, b->key_bytes, b->val_bytes) : 1;
    /* new leaves go to the high-water mark; the rightmost leaf, the branch path and the root leaf (3 + 1)
     * reuse the pages the commit before last freed (bbolt.c) */
    bb_set_append_pct(db, pages > 4 ? (pages - 4) * 100 / pages : 0);
    for (unsigned i = 0; i < pages; i++) {
        int rc = bb_write(db, b->page, sizeof b->page, err, errlen);
        if (rc)
            return rc;
    }
    b->staged = pending;
    return 0;
}

int ldr_be_commit(ldr_be *b, bb_db *db, char *err, size_t errlen)
{
    uint64_t t0 = now_ns();
    if (b->sh)
        atomic_store(&b->sh->busy_since, t0);
    int rc = bb_commit(db, err, errlen);
    uint64_t t1 = now_ns();
    if (b->sh) {
        uint64_t seq = atomic_load(&b->sh->seq);
        atomic_store(&b->sh->start[seq % LD_LOCK_RING], t0);
        atomic_store(&b->sh->end[seq % LD_LOCK_RING], t1);
        atomic_store(&b->sh->seq, seq + 1);
        atomic_store(&b->sh->busy_since, LD_NEVER);
    }
    b->committed += b->staged;
    hist_add(&b->puts_per_commit, b->staged);
    b->staged = 0;
    b->commits++;
    b->deadline = t1 + LD_BATCH_INTERVAL_NS;
    return rc;
}

void ldr_be_json(const ldr_be *b, FILE *f)
{
    fprintf(f, ",\"load\":{\"commits\":%" PRIu64 ",\"puts\":%" PRIu64 ",\"hist\":{", b->commits, b->committed);
    const hist_field hs[] = {{"puts_per_commit", &b->puts_per_commit, "", 0}};
    hist_write_fields(f, hs, 1);
    fputs("}}", f);
}
