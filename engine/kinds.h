/* SPDX-License-Identifier: MIT */
/* kinds.h — a mix of put kinds (a Kubernetes control plane's writes: node Leases, Node status, ...): each
 * kind has a rate, a key size and a value size, and the n-th put of a run is of the kind a seeded draw
 * picks, in proportion to the rates. Header only, with no fio types, shared by the engine (etcd_kinds=,
 * etcd_seed=: the WAL entry each write io_u carries), the CLI (tools/profile.c: the job file of
 * `--load k8s`) and the unit tests; bench/putload/main.go draws the same kinds with the same arithmetic,
 * so real etcd and the engine see the same sequence of entry sizes for the same seed.
 *
 * The text form, as etcd_kinds= and putload -kinds take it: NAME:RATE:KEY_BYTES:VAL_BYTES[,...], RATE in
 * puts per second (a decimal number > 0), e.g. "lease:10:49:512,node:0.333333:34:20000". */
#ifndef ETCDWAL_KINDS_H
#define ETCDWAL_KINDS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KINDS_MAX 8u
#define KINDS_NAME_MAX 24u
#define KINDS_MAX_VAL_BYTES 1572864u /* etcd's default request limit, 1.5 MiB (--max-request-bytes) */
#define KINDS_MAX_KEY_BYTES 65536u

typedef struct kind {
    char name[KINDS_NAME_MAX];
    double rate;          /* puts per second */
    uint64_t weight;      /* the rate in puts per 10^6 s, rounded: what the draw uses (integers, so the C and
                           * Go draws agree bit for bit) */
    unsigned key_bytes, val_bytes;
} kind;

typedef struct kinds {
    unsigned n;
    kind k[KINDS_MAX];
    uint64_t total_weight;
} kinds;

/* Wire size of one put's raft entry data, InternalRaftRequest{header{ID}, put{key, value}} as etcd marshals
 * it (etcdserverpb, gogo protobuf): the same count as engine/load.c's ld_entry_bytes (test_load holds them
 * equal). Tags of fields 1..15 are one byte, the header's field 100 two; etcd's request ids are 8-byte values
 * (idutil: the member id on top), a 9-byte varint. */
static inline size_t kinds_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline size_t kinds_entry_bytes(unsigned key_bytes, unsigned val_bytes)
{
    size_t put = 1 + kinds_varint_len(key_bytes) + key_bytes +
                 (val_bytes ? 1 + kinds_varint_len(val_bytes) + val_bytes : 0);
    size_t header = 1 + 9;
    return 2 + kinds_varint_len(header) + header + 1 + kinds_varint_len(put) + put;
}

/* 0, or -1 with a one-line message in err. */
static inline int kinds_parse(const char *text, kinds *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text) {
        snprintf(err, errlen, "etcd_kinds: empty (expected NAME:RATE:KEY_BYTES:VAL_BYTES[,...])");
        return -1;
    }
    const char *p = text;
    while (*p) {
        if (out->n == KINDS_MAX) {
            snprintf(err, errlen, "etcd_kinds: more than %u kinds", KINDS_MAX);
            return -1;
        }
        kind *k = &out->k[out->n];
        size_t nl = strcspn(p, ":,");
        if (!nl || nl >= KINDS_NAME_MAX || p[nl] != ':') {
            snprintf(err, errlen, "etcd_kinds: kind %u: expected NAME:RATE:KEY_BYTES:VAL_BYTES (a name of 1..%u "
                     "characters first)", out->n + 1, KINDS_NAME_MAX - 1);
            return -1;
        }
        memcpy(k->name, p, nl);
        k->name[nl] = '\0';
        p += nl + 1;
        char *end;
        k->rate = strtod(p, &end);
        if (end == p || *end != ':' || !(k->rate > 0) || k->rate > 1e9) {
            snprintf(err, errlen, "etcd_kinds: %s: the rate must be a number of puts per second, > 0", k->name);
            return -1;
        }
        p = end + 1;
        unsigned long v[2];
        for (int i = 0; i < 2; i++) {
            if (*p < '0' || *p > '9') {
                snprintf(err, errlen, "etcd_kinds: %s: expected %s bytes", k->name, i ? "value" : "key");
                return -1;
            }
            v[i] = strtoul(p, &end, 10);
            p = end;
            if (i == 0 && *p != ':') {
                snprintf(err, errlen, "etcd_kinds: %s: expected :VAL_BYTES after the key bytes", k->name);
                return -1;
            }
            if (i == 0)
                p++;
        }
        if (*p && *p != ',') {
            snprintf(err, errlen, "etcd_kinds: %s: unexpected '%c' after the value bytes", k->name, *p);
            return -1;
        }
        if (v[0] < 1 || v[0] > KINDS_MAX_KEY_BYTES || v[1] > KINDS_MAX_VAL_BYTES) {
            snprintf(err, errlen, "etcd_kinds: %s: key bytes 1..%u, value bytes 0..%u", k->name,
                     KINDS_MAX_KEY_BYTES, KINDS_MAX_VAL_BYTES);
            return -1;
        }
        k->key_bytes = (unsigned)v[0];
        k->val_bytes = (unsigned)v[1];
        k->weight = (uint64_t)llround(k->rate * 1e6);
        if (!k->weight)
            k->weight = 1;
        out->total_weight += k->weight;
        out->n++;
        if (*p == ',' && !*++p) {
            snprintf(err, errlen, "etcd_kinds: a kind expected after the last ','");
            return -1;
        }
    }
    return 0;
}

/* splitmix64 (Steele, Lea, Flood 2014), the finaliser Go's and Java's generators use: a hash of (seed, n),
 * so that the n-th put's kind does not depend on who drew the ones before (putload's clients draw at once). */
static inline uint64_t kinds_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The kind of the n-th put (0-based) for this seed: kind i with probability weight_i / total_weight. */
static inline unsigned kinds_pick(const kinds *ks, uint64_t seed, uint64_t n)
{
    if (ks->n < 2)
        return 0;
    uint64_t r = kinds_mix(seed ^ kinds_mix(n)) % ks->total_weight;
    for (unsigned i = 0; i < ks->n; i++) {
        if (r < ks->k[i].weight)
            return i;
        r -= ks->k[i].weight;
    }
    return ks->n - 1;
}

/* Puts per second of the whole mix, and the mean entry bytes per put. */
static inline double kinds_rate(const kinds *ks)
{
    double r = 0;
    for (unsigned i = 0; i < ks->n; i++)
        r += ks->k[i].rate;
    return r;
}

static inline double kinds_mean_entry_bytes(const kinds *ks)
{
    double r = kinds_rate(ks), b = 0;
    for (unsigned i = 0; i < ks->n; i++)
        b += ks->k[i].rate * (double)kinds_entry_bytes(ks->k[i].key_bytes, ks->k[i].val_bytes);
    return r > 0 ? b / r : 0;
}

static inline size_t kinds_max_entry_bytes(const kinds *ks)
{
    size_t m = 0;
    for (unsigned i = 0; i < ks->n; i++) {
        size_t b = kinds_entry_bytes(ks->k[i].key_bytes, ks->k[i].val_bytes);
        m = b > m ? b : m;
    }
    return m;
}

/* bbolt pages one backend commit dirties when the mix's puts of `seconds` (etcd's 100 ms batch) land in it,
 * by the rule engine/load.c's ld_commit_pages states for one size: a leaf element is a 16-byte header, the
 * 17-byte revision key and the mvccpb.KeyValue (key, three revisions, value); small puts share leaves split
 * at 0.9 x 4096 bytes (the rightmost one half full on average), a put past the leaf's room is a leaf with
 * overflow pages of its own; plus the key bucket's branch path and the root leaf (3). Rounded up. */
static inline unsigned kinds_commit_pages(const kinds *ks, double seconds)
{
    const double room = (double)((size_t)(4096 * 0.9) - 16);
    double leaves = 0.5;
    for (unsigned i = 0; i < ks->n; i++) {
        unsigned kb = ks->k[i].key_bytes, vb = ks->k[i].val_bytes;
        double puts = ks->k[i].rate * seconds;
        size_t kv = 1 + kinds_varint_len(kb) + kb + 3 * (1 + 4) + (vb ? 1 + kinds_varint_len(vb) + vb : 0);
        size_t elem = 16 + 17 + kv;
        if ((double)elem <= room)
            leaves += puts / floor(room / (double)elem);
        else
            leaves += puts * (double)((elem + 16 + 4095) / 4096);
    }
    return (unsigned)ceil(leaves) + 3;
}

#endif
