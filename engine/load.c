/* SPDX-License-Identifier: GPL-2.0-or-later */
/* load.c — the closed-loop put load (see load.h for the pipeline and where in etcd each step comes from).
 *
 * Answers leave the apply goroutine in time order (it applies one put after the other, Readys in order), so
 * the clients' next arrivals (answer + client_ns) come in time order too: the waiting clients are one FIFO
 * ring, and the entries taken into Readys another. Nothing is sorted or searched. */
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* tag (1 byte for fields 1..15) + length varint + bytes, for a length-delimited field */
static size_t field_bytes(size_t len)
{
    return 1 + varint_len(len) + len;
}

size_t ld_entry_bytes(unsigned key_bytes, unsigned val_bytes)
{
    /* PutRequest{key = 1, value = 2} (lease 0 and the flags are left out when zero) */
    size_t put = field_bytes(key_bytes) + (val_bytes ? field_bytes(val_bytes) : 0);
    /* RequestHeader{ID = 1}: etcd's request ids (idutil: member id bits on top) are 8-byte values, a
     * 9-byte varint */
    size_t header = 1 + 9;
    /* InternalRaftRequest{header = 100 (a 2-byte tag), put = 3} */
    return 2 + varint_len(header) + header + field_bytes(put);
}

/* bbolt (etcd's "key" bucket, keys = 17-byte revisions, etcd sets FillPercent 0.9 for these sequential
 * puts): a leaf element is a 16-byte header + key + value, the value being the mvccpb.KeyValue{key,
 * create_revision, mod_revision, version, value}. Leaves split at 0.9 × 4096 bytes. A commit of P puts
 * dirties the leaves they fill (the rightmost leaf, half full on average, included), the keys bucket's
 * branch path (2 pages up to ~12,000 leaves) and the root bucket's leaf that holds the inline meta bucket
 * (consistent index): bbolt.c derives the same count for check's profile. A value past the page is one
 * leaf with overflow pages per put. */
unsigned ld_commit_pages(uint64_t puts, unsigned key_bytes, unsigned val_bytes)
{
    if (!puts)
        return 0;
    size_t kv = field_bytes(key_bytes) + 3 * (1 + 4) + (val_bytes ? field_bytes(val_bytes) : 0);
    size_t elem = 16 + 17 + kv;
    const size_t room = (size_t)(4096 * 0.9) - 16;
    uint64_t pages;
    if (elem <= room) {
        uint64_t per_leaf = room / elem;
        pages = (puts + per_leaf / 2 + per_leaf - 1) / per_leaf;
    } else {
        pages = puts * ((elem + 16 + 4095) / 4096);
    }
    pages += 3;
    return pages > 0x7fffffffu ? 0x7fffffffu : (unsigned)pages;
}

int ld_init(ld *m, const ld_config *cfg, uint64_t t0, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (!cfg->clients || cfg->clients > LD_MAX_CLIENTS) {
        snprintf(err, errlen, "etcdwal: etcd_clients=%u: expected 1..%u", cfg->clients, LD_MAX_CLIENTS);
        return -1;
    }
    if (!cfg->key_bytes) {
        snprintf(err, errlen, "etcdwal: etcd_key_bytes=0: an etcd key has at least one byte");
        return -1;
    }
    m->cfg = *cfg;
    size_t n = cfg->clients;
    m->arrive = calloc(n, sizeof *m->arrive);
    m->arrived_at = calloc(n, sizeof *m->arrived_at);
    m->queue = calloc(2 * n, sizeof *m->queue); /* [0, n): waiting clients; [n, 2n): taken entries */
    m->batch_n = calloc(n + 1, sizeof *m->batch_n);
    m->batch_saved = calloc(n + 1, sizeof *m->batch_saved);
    if (!m->arrive || !m->arrived_at || !m->queue || !m->batch_n || !m->batch_saved) {
        ld_free(m);
        snprintf(err, errlen, "etcdwal: out of memory for %u clients", cfg->clients);
        return -1;
    }
    hist_init(&m->st.latency);
    hist_init(&m->st.entries_per_save);
    /* the waiting ring holds clients in arrival order; at t0 all of them */
    for (uint32_t i = 0; i < cfg->clients; i++) {
        m->queue[i] = i;
        m->arrive[i] = t0;
    }
    m->qhead = 0; /* waiting ring: queue[(whead + k) % n] */
    m->qlen = cfg->clients;
    m->apply_free = t0;
    m->last_arrive = t0;
    m->st.first_ns = t0;
    return 0;
}

void ld_free(ld *m)
{
    free(m->arrive);
    free(m->arrived_at);
    free(m->queue);
    free(m->batch_n);
    free(m->batch_saved);
    m->arrive = m->arrived_at = NULL;
    m->queue = m->batch_n = NULL;
    m->batch_saved = NULL;
}

/* The two rings in m->queue: waiting clients at [0, n) (head qhead, length qlen), taken entries at
 * [n, 2n) (head thead, length tlen, kept in the batch fields below). */
#define N(m) ((m)->cfg.clients)
#define WAITING(m, k) ((m)->queue[((m)->qhead + (k)) % N(m)])
#define TAKEN(m, k) ((m)->queue[N(m) + ((m)->thead + (k)) % N(m)])

/* Where a put that wants to start at t can start: after every finished commit whose lock interval holds t;
 * LD_NEVER when the commit in progress had the lock by then. */
static uint64_t lock_free_at(const ld_lock *lk, uint64_t t)
{
    if (!lk)
        return t;
    for (int moved = 1; moved;) {
        moved = 0;
        for (unsigned i = 0; i < lk->n && i < LD_LOCK_RING; i++)
            if (lk->start[i] <= t && t < lk->end[i]) {
                t = lk->end[i];
                moved = 1;
            }
    }
    if (lk->busy_since != LD_NEVER && lk->busy_since <= t)
        return LD_NEVER;
    return t;
}

/* Applies puts in order while their start is known and not after now; returns the start of the next one
 * that could not be applied (LD_NEVER when it waits for a Save or a commit in progress, or there is none). */
static uint64_t apply_upto(ld *m, uint64_t now, const ld_lock *lk)
{
    while (m->blen) {
        uint64_t saved = m->batch_saved[m->bhead];
        if (saved == LD_NEVER)
            return LD_NEVER;
        while (m->applied_in_head < m->batch_n[m->bhead]) {
            uint64_t want = m->apply_free > saved ? m->apply_free : saved;
            uint64_t start = lock_free_at(lk, want);
            if (start == LD_NEVER)
                return LD_NEVER;
            if (start > now)
                return start;
            uint32_t c = TAKEN(m, 0);
            m->thead = (m->thead + 1) % N(m);
            m->tlen--;
            uint64_t ack = start + m->cfg.apply_ns;
            m->st.blocked_ns += start - want;
            m->st.apply_ns += m->cfg.apply_ns;
            hist_add(&m->st.latency, ack - m->arrived_at[c] + m->cfg.client_ns);
            m->st.puts++;
            m->st.last_ns = ack;
            m->applied++;
            m->apply_free = ack;
            uint64_t next = ack + m->cfg.client_ns;
            /* the gap keeps arrivals in answer order: each is at least the one before plus the gap */
            if (m->cfg.put_gap_ns && next < m->last_arrive + m->cfg.put_gap_ns)
                next = m->last_arrive + m->cfg.put_gap_ns;
            m->last_arrive = next;
            m->arrive[c] = next;
            m->queue[(m->qhead + m->qlen) % N(m)] = c;
            m->qlen++;
            m->applied_in_head++;
        }
        m->bhead = (m->bhead + 1) % (N(m) + 1);
        m->blen--;
        m->applied_in_head = 0;
    }
    return LD_NEVER;
}

uint32_t ld_poll(ld *m, uint64_t now, const ld_lock *lk, uint64_t *next_ns)
{
    uint64_t blocked = apply_upto(m, now, lk);
    uint32_t k = 0;
    while (k < m->qlen && m->arrive[WAITING(m, k)] <= now)
        k++;
    if (next_ns) {
        if (k)
            *next_ns = now;
        else if (m->qlen)
            *next_ns = m->arrive[WAITING(m, 0)];
        else if (blocked != LD_NEVER)
            *next_ns = blocked + m->cfg.apply_ns + m->cfg.client_ns;
        else
            *next_ns = LD_NEVER;
    }
    return k;
}

void ld_idle(ld *m, uint64_t from, uint64_t to)
{
    if (to > from)
        m->st.idle_ns += to - from;
}

int ld_take(ld *m, uint64_t now)
{
    if (m->blen && m->batch_saved[(m->bhead + m->blen - 1) % (N(m) + 1)] == LD_NEVER)
        return -1;
    uint32_t k = 0;
    while (m->qlen && m->arrive[WAITING(m, 0)] <= now) {
        uint32_t c = WAITING(m, 0);
        m->qhead = (m->qhead + 1) % N(m);
        m->qlen--;
        m->arrived_at[c] = m->arrive[c];
        m->arrive[c] = LD_NEVER;
        m->queue[N(m) + (m->thead + m->tlen) % N(m)] = c;
        m->tlen++;
        k++;
    }
    if (!k)
        return 0;
    uint32_t b = (m->bhead + m->blen) % (N(m) + 1);
    m->batch_n[b] = k;
    m->batch_saved[b] = LD_NEVER;
    m->blen++;
    m->take_ns = m->save_start_ns = now;
    hist_add(&m->st.entries_per_save, k);
    m->st.saves++;
    return (int)k;
}

void ld_save_start(ld *m, uint64_t now)
{
    if (now > m->take_ns) {
        m->st.cpu_ns += now - m->take_ns;
        m->save_start_ns = now;
    }
}

void ld_saved(ld *m, uint64_t now)
{
    if (!m->blen)
        return;
    uint32_t b = (m->bhead + m->blen - 1) % (N(m) + 1);
    if (m->batch_saved[b] != LD_NEVER)
        return;
    m->batch_saved[b] = now;
    if (now > m->save_start_ns)
        m->st.save_ns += now - m->save_start_ns;
}
