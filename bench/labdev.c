/* SPDX-License-Identifier: MIT */
/* labdev.c — the slow-disk lab's simulated device: one FIFO server for every sync, lognormal service
 * times plus a per-byte cost, periodic stalls (see labdev.h). Pure arithmetic on times the caller passes
 * in, so it is unit-tested without clocks (tests/bench/test_labdev.c) and the FUSE glue (labfs.c) stays thin. */
#include "labdev.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct labdev {
    labdev_cfg cfg;
    uint64_t epoch;
    uint64_t busy_until;  /* when the device finishes the last accepted request */
    uint64_t last_arrive;
    uint64_t rng;
    labdev_stats st;
};

/* splitmix64: small, seedable, no global state */
static uint64_t next_u64(labdev *d)
{
    uint64_t z = (d->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in (0, 1): 53 random bits, never 0 (log(0) below) */
static double next_unit(labdev *d) { return ((double)(next_u64(d) >> 11) + 0.5) / 9007199254740992.0; }

uint64_t labdev_draw(labdev *d)
{
    if (!d->cfg.median_ns)
        return 0;
    if (d->cfg.sigma <= 0)
        return d->cfg.median_ns;
    /* Box-Muller; one normal per draw keeps the stream simple to reason about */
    double z = sqrt(-2.0 * log(next_unit(d))) * cos(2.0 * M_PI * next_unit(d));
    double v = (double)d->cfg.median_ns * exp(d->cfg.sigma * z);
    return v >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t)v;
}

labdev *labdev_new(const labdev_cfg *cfg, uint64_t epoch_ns)
{
    labdev *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->cfg = *cfg;
    if (d->cfg.stall_every_ns && d->cfg.stall_ns >= d->cfg.stall_every_ns)
        d->cfg.stall_ns = d->cfg.stall_every_ns - 1; /* labdev_parse refuses this; be safe anyway */
    d->epoch = epoch_ns;
    d->busy_until = epoch_ns;
    d->last_arrive = epoch_ns;
    d->rng = cfg->seed;
    return d;
}

void labdev_free(labdev *d) { free(d); }

void labdev_set_cfg(labdev *d, const labdev_cfg *cfg)
{
    uint64_t seed = d->cfg.seed;
    d->cfg = *cfg;
    if (d->cfg.stall_every_ns && d->cfg.stall_ns >= d->cfg.stall_every_ns)
        d->cfg.stall_ns = d->cfg.stall_every_ns - 1;
    if (cfg->seed != seed)
        d->rng = cfg->seed;
}

const labdev_cfg *labdev_get_cfg(const labdev *d) { return &d->cfg; }

const labdev_stats *labdev_get_stats(const labdev *d) { return &d->st; }

/* Where window k starts within its period: 0, or with stall_jitter a draw in [0, E - S) from the seed and
 * k alone (splitmix64 of both), so the windows do not depend on the requests or the service draws. */
static uint64_t stall_offset(const labdev *d, uint64_t k)
{
    uint64_t E = d->cfg.stall_every_ns, S = d->cfg.stall_ns;
    if (!d->cfg.stall_jitter || E <= S)
        return 0;
    uint64_t z = d->cfg.seed * 0x9E3779B97F4A7C15ull + k * 0xD1B54A32D192ED03ull + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) % (E - S);
}

/* Stall windows are [epoch + k*E + off(k), epoch + k*E + off(k) + S) for k >= 1 (off 0 without jitter):
 * the first one comes one period after the mount, so a run starting on a fresh mount is not stalled at
 * once. Window k lies inside period k. */
static int in_stall(const labdev *d, uint64_t t, uint64_t *end)
{
    uint64_t E = d->cfg.stall_every_ns, S = d->cfg.stall_ns;
    if (!E || !S || t < d->epoch)
        return 0;
    uint64_t rel = t - d->epoch, k = rel / E;
    if (k < 1)
        return 0;
    uint64_t w = k * E + stall_offset(d, k);
    if (rel >= w && rel - w < S) {
        *end = d->epoch + w + S;
        return 1;
    }
    return 0;
}

/* The start of the first window after t (t outside a window). */
static uint64_t next_stall(const labdev *d, uint64_t t)
{
    uint64_t E = d->cfg.stall_every_ns, k = (t - d->epoch) / E, w = k * E + stall_offset(d, k);
    if (k >= 1 && w > t - d->epoch)
        return d->epoch + w;
    return d->epoch + (k + 1) * E + stall_offset(d, k + 1);
}

labdev_req labdev_submit(labdev *d, uint64_t arrive_ns, uint64_t bytes)
{
    labdev_req r = {.arrive_ns = arrive_ns};
    if (arrive_ns < d->last_arrive)
        arrive_ns = d->last_arrive;
    if (arrive_ns < d->epoch)
        arrive_ns = d->epoch;
    d->last_arrive = arrive_ns;

    uint64_t t = arrive_ns > d->busy_until ? arrive_ns : d->busy_until, end;
    if (in_stall(d, t, &end))
        t = end;
    r.start_ns = t;
    uint64_t svc = labdev_draw(d);
    /* bytes × ns/MiB without overflowing for any sane size */
    svc += (uint64_t)((double)bytes * (double)d->cfg.ns_per_mib / 1048576.0);
    r.service_ns = svc;

    uint64_t left = svc, stalled = 0;
    if (d->cfg.stall_every_ns && d->cfg.stall_ns) {
        for (;;) {
            uint64_t w = next_stall(d, t);
            if (t + left <= w)
                break;
            left -= w - t;
            t = w + d->cfg.stall_ns;
            stalled += d->cfg.stall_ns;
        }
    }
    r.finish_ns = t + left;
    d->busy_until = r.finish_ns;

    d->st.requests++;
    d->st.bytes += bytes;
    d->st.busy_ns += svc;
    d->st.wait_ns += r.start_ns - arrive_ns;
    d->st.stalled_ns += stalled;
    if (r.finish_ns - arrive_ns > d->st.max_latency_ns)
        d->st.max_latency_ns = r.finish_ns - arrive_ns;
    return r;
}

/* "12", "12ms", "1.5s", "300us", "40ns" -> ns; bare numbers are ms. */
static int parse_dur(const char *s, size_t n, uint64_t *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || !(v >= 0) || v > 1e12)
        return -1;
    double mul = 1e6;
    if (!strcmp(end, "ns"))
        mul = 1;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "ms") || !*end)
        mul = 1e6;
    else if (!strcmp(end, "s"))
        mul = 1e9;
    else
        return -1;
    *out = (uint64_t)(v * mul + 0.5);
    return 0;
}

int labdev_parse(labdev_cfg *cfg, const char *spec, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    const char *p = spec ? spec : "";
    while (*p) {
        size_t len = strcspn(p, ",:");
        const char *eq = memchr(p, '=', len);
        size_t off = (size_t)(p - spec);
        if (!eq) {
            snprintf(err, errlen, "device model, byte %zu: expected key=value", off);
            return -1;
        }
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        const char *v = eq + 1;
        int bad = 0;
#define KEY(k) (klen == strlen(k) && !memcmp(p, k, klen))
        if (KEY("median"))
            bad = parse_dur(v, vlen, &cfg->median_ns);
        else if (KEY("per_mib"))
            bad = parse_dur(v, vlen, &cfg->ns_per_mib);
        else if (KEY("stall_every"))
            bad = parse_dur(v, vlen, &cfg->stall_every_ns);
        else if (KEY("stall"))
            bad = parse_dur(v, vlen, &cfg->stall_ns);
        else if (KEY("stall_jitter")) {
            bad = !(vlen == 1 && (*v == '0' || *v == '1'));
            cfg->stall_jitter = !bad && *v == '1';
        } else if (KEY("sigma") || KEY("seed")) {
            char buf[32], *end;
            if (vlen == 0 || vlen >= sizeof buf)
                bad = 1;
            else {
                memcpy(buf, v, vlen);
                buf[vlen] = '\0';
                if (KEY("sigma")) {
                    cfg->sigma = strtod(buf, &end);
                    bad = *end || !(cfg->sigma >= 0 && cfg->sigma <= 5);
                } else {
                    cfg->seed = strtoull(buf, &end, 10);
                    bad = *end || buf[0] == '-';
                }
            }
        } else {
            snprintf(err, errlen, "device model, byte %zu: unknown key '%.*s' (median, sigma, per_mib, "
                     "stall_every, stall, stall_jitter, seed)", off, (int)klen, p);
            return -1;
        }
#undef KEY
        if (bad) {
            snprintf(err, errlen, "device model, byte %zu: bad value '%.*s' for %.*s", (size_t)(v - spec),
                     (int)vlen, v, (int)klen, p);
            return -1;
        }
        p += len;
        if (*p)
            p++;
    }
    if ((cfg->stall_ns != 0) != (cfg->stall_every_ns != 0) || (cfg->stall_ns && cfg->stall_ns >= cfg->stall_every_ns)) {
        snprintf(err, errlen, "device model: stall and stall_every go together, with stall < stall_every");
        return -1;
    }
    return 0;
}

void labdev_format(const labdev_cfg *c, char *buf, size_t len)
{
    snprintf(buf, len, "median=%.3fms,sigma=%.2f,per_mib=%.3fms,stall_every=%.3fs,stall=%.3fms,%sseed=%llu",
             (double)c->median_ns / 1e6, c->sigma, (double)c->ns_per_mib / 1e6, (double)c->stall_every_ns / 1e9,
             (double)c->stall_ns / 1e6, c->stall_jitter ? "stall_jitter=1," : "", (unsigned long long)c->seed);
}
