/* SPDX-License-Identifier: MIT */
/* mempress.c — memory cgroup counters and PSI before/after a run (see mempress.h). The cgroup is this
 * process's, found from /proc/self/cgroup and the cgroup mounts in /proc/self/mountinfo (a mount may show
 * a subtree: its root is cut from the path). */
#include "mempress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsinfo.h"

int mempress_parse_kv(const char *text, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        unsigned long long x;
        if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t') && sscanf(p + kl, " %llu", &x) == 1) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

int mempress_parse_psi(const char *text, uint64_t *some_us, uint64_t *full_us)
{
    int got = 0;
    *full_us = MEMPRESS_UNKNOWN;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *t = strstr(p, "total=");
        const char *nl = strchr(p, '\n');
        unsigned long long x;
        if (!t || (nl && t > nl) || sscanf(t, "total=%llu", &x) != 1)
            continue;
        if (!strncmp(p, "some ", 5)) {
            *some_us = x;
            got = 1;
        } else if (!strncmp(p, "full ", 5)) {
            *full_us = x;
        }
    }
    return got ? 0 : -1;
}

static char *slurp(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s%s%s", dir, dir[0] ? "/" : "", name);
    FILE *f = fopen(p, "re");
    if (!f)
        return NULL;
    char *b = malloc(8192);
    size_t n = b ? fread(b, 1, 8191, f) : 0;
    fclose(f);
    if (b)
        b[n] = '\0';
    return b;
}

/* The directory of this process's cgroup in the hierarchy with `want` ("memory" for v1, NULL for v2). */
static int cgroup_dir(const char *want, char *out, size_t n)
{
    char *cg = slurp("", "/proc/self/cgroup"), path[512] = "";
    int found = 0;
    for (char *l = cg, *next; l && *l && !found; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctl = c1 + 1;
        int match = want ? (strstr(ctl, want) != NULL) : (!strcmp(l, "0") && !*ctl);
        if (match) {
            snprintf(path, sizeof path, "%s", c2 + 1);
            found = 1;
        }
    }
    free(cg);
    if (!found)
        return -1;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    fs_mount *m = malloc(sizeof *m);
    char line[8192];
    found = 0;
    while (f && m && !found && fgets(line, sizeof line, f)) {
        if (fsinfo_parse_mount(line, m) != 0)
            continue;
        int ok = want ? !strcmp(m->fstype, "cgroup") && strstr(m->superopts, want) : !strcmp(m->fstype, "cgroup2");
        if (!ok)
            continue;
        size_t rl = strlen(m->root);
        const char *rel = path;
        if (strcmp(m->root, "/") && !strncmp(path, m->root, rl))
            rel = path + rl;
        found = snprintf(out, n, "%s%s", m->mountpoint, rel) < (int)n;
    }
    if (f)
        fclose(f);
    free(m);
    return found ? 0 : -1;
}

static uint64_t num_file(const char *dir, const char *name)
{
    char *t = slurp(dir, name);
    unsigned long long v;
    uint64_t r = t && sscanf(t, "%llu", &v) == 1 ? (uint64_t)v : MEMPRESS_UNKNOWN;
    free(t);
    return r;
}

void mempress_read(mempress_snap *s)
{
    memset(s, 0, sizeof *s);
    s->limit = MEMPRESS_UNKNOWN;
    char *t;
    if (cgroup_dir("memory", s->cgroup, sizeof s->cgroup) == 0 && (t = slurp(s->cgroup, "memory.failcnt"))) {
        s->cgroup_v = 1;
        free(t);
        s->max = num_file(s->cgroup, "memory.failcnt");
        if ((t = slurp(s->cgroup, "memory.oom_control"))) {
            mempress_parse_kv(t, "oom_kill", &s->oom_kill);
            free(t);
        }
        s->limit = num_file(s->cgroup, "memory.limit_in_bytes");
        if (s->limit != MEMPRESS_UNKNOWN && s->limit >= (1ull << 62)) /* "no limit" is PAGE_COUNTER_MAX pages */
            s->limit = MEMPRESS_UNKNOWN;
    } else if (cgroup_dir(NULL, s->cgroup, sizeof s->cgroup) == 0 && (t = slurp(s->cgroup, "memory.events"))) {
        s->cgroup_v = 2;
        mempress_parse_kv(t, "high", &s->high);
        mempress_parse_kv(t, "max", &s->max);
        mempress_parse_kv(t, "oom", &s->oom);
        mempress_parse_kv(t, "oom_kill", &s->oom_kill);
        free(t);
        s->limit = num_file(s->cgroup, "memory.max"); /* "max": no number, unknown */
        if ((t = slurp(s->cgroup, "memory.pressure"))) {
            s->have_psi = mempress_parse_psi(t, &s->psi_some_us, &s->psi_full_us) == 0;
            s->psi_of_cgroup = s->have_psi;
            free(t);
        }
    } else {
        s->cgroup[0] = '\0';
    }
    if (!s->have_psi && (t = slurp("", "/proc/pressure/memory"))) {
        s->have_psi = mempress_parse_psi(t, &s->psi_some_us, &s->psi_full_us) == 0;
        free(t);
    }
}

static uint64_t d(uint64_t a, uint64_t b)
{
    return a == MEMPRESS_UNKNOWN || b == MEMPRESS_UNKNOWN || b < a ? 0 : b - a;
}

void mempress_diff(const mempress_snap *a, const mempress_snap *b, double seconds, mempress_result *r)
{
    memset(r, 0, sizeof *r);
    r->psi_some_pct = r->psi_full_pct = -1;
    char lim[160] = "", psi[200] = "";
    if (a->cgroup_v && a->cgroup_v == b->cgroup_v) {
        r->known = 1;
        r->limit_events = d(a->high, b->high) + d(a->max, b->max) + d(a->oom, b->oom);
        r->oom_kills = d(a->oom_kill, b->oom_kill);
        char l[48] = "";
        if (b->limit != MEMPRESS_UNKNOWN)
            snprintf(l, sizeof l, " (limit %llu MiB)", (unsigned long long)(b->limit >> 20));
        if (a->cgroup_v == 1)
            snprintf(lim, sizeof lim, "memory cgroup v1%s: limit hit %llu times (memory.failcnt), %llu OOM kills", l,
                     (unsigned long long)r->limit_events, (unsigned long long)r->oom_kills);
        else
            snprintf(lim, sizeof lim, "memory cgroup%s: %llu high/max events (memory.events), %llu OOM kills", l,
                     (unsigned long long)r->limit_events, (unsigned long long)r->oom_kills);
    }
    if (a->have_psi && b->have_psi && a->psi_of_cgroup == b->psi_of_cgroup && seconds > 0) {
        r->known = 1;
        r->psi_some_pct = (double)d(a->psi_some_us, b->psi_some_us) / (seconds * 1e4);
        if (a->psi_full_us != MEMPRESS_UNKNOWN && b->psi_full_us != MEMPRESS_UNKNOWN)
            r->psi_full_pct = (double)d(a->psi_full_us, b->psi_full_us) / (seconds * 1e4);
        snprintf(psi, sizeof psi, "%s%s memory stall %.1f %% some, %.1f %% full of the run", lim[0] ? "; " : "",
                 a->psi_of_cgroup ? "the cgroup's" : "system-wide", r->psi_some_pct,
                 r->psi_full_pct < 0 ? 0.0 : r->psi_full_pct);
    }
    r->pressure = r->limit_events > 0 || r->oom_kills > 0 || r->psi_some_pct >= MEMPRESS_PSI_SHARE_PCT;
    snprintf(r->what, sizeof r->what, "%s%s", lim, psi);
    if (!r->known)
        snprintf(r->text, sizeof r->text, "not known (no memory cgroup counters or PSI readable)");
    else
        snprintf(r->text, sizeof r->text, "%s%s", r->pressure ? "UNDER PRESSURE: " : "no pressure: ", r->what);
}
