/* SPDX-License-Identifier: MIT */
/* normal_stats.c — the statistics lines inside one job's print of fio's normal output (fio's stat.c
 * show_ddir_status / display_lat / show_clat_percentiles): the write line's IOPS and bandwidth, the
 * `sync (unit):` latency line, `issued rwts:` (the sync count, see fior__nissued_line) and the percentile
 * rows; fmt_normal.c finds these lines and hands them here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normal_doc.h"

uint64_t fior__nunit_at(const char *p)
{
    p = skip_ws(p);
    if (starts(p, "(nsec)"))
        return 1;
    if (starts(p, "(usec)"))
        return 1000;
    if (starts(p, "(msec)"))
        return 1000000;
    if (starts(p, "(sec)") || starts(p, "(s)"))  /* not printed by fio 3.x; accepted for hand edits */
        return 1000000000;
    return 0;
}

/* num2str's SI suffixes (base 1000) */
static double suffix_mult(const char **p)
{
    static const char sfx[] = "kMGTPE";
    const char *c = strchr(sfx, **p);
    if (**p && c) {
        (*p)++;
        return pow(1000.0, (double)(c - sfx + 1));
    }
    return 1.0;
}

int fior__nparse_scaled(const char *p, double unit, double *out)
{
    double v;
    if (!p || fior__parse_dec(&p, &v))
        return -1;
    v *= suffix_mult(&p) * unit;
    if (!isfinite(v) || v > 1.8e19)
        return -1;
    *out = v;
    return 0;
}

fior_status fior__nfinish_pct(nstate *s)
{
    if (!s->pct_unit)
        return FIOR_OK;
    if (s->pct_target && !s->pct_rows) {
        s->lineno = s->pct_start;
        return bad(s, "percentile rows '|  1.00th=[…]' after 'sync percentiles' (truncated?)");
    }
    if (s->pct_target && s->pct_open)
        return bad(s, "another percentile entry after ',' (percentile list cut short)");
    s->pct_unit = 0;
    return FIOR_OK;
}

/* "  write: IOPS=470, BW=1057KiB/s (1082kB/s)(…)" */
void fior__nwrite_line(nstate *s, const char *p)
{
    double v;
    if (!fior__nparse_scaled(find_key(p, "IOPS"), 1, &v))
        s->job.j.write_iops = v;
    const char *b = find_key(p, "BW");
    if (!b || fior__parse_dec(&b, &v))
        return;
    static const struct { const char *pfx; double mult; } u[] = {
        {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
        {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}, {"B/s", 1.0},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (starts(b, u[i].pfx)) {
            s->job.j.write_bw_bytes = v * u[i].mult;
            return;
        }
}

/* "    sync (usec): min=544, max=136068, avg=1284.51, stdev=2380.34" (min/max may be "328998k") */
fior_status fior__nsync_line(nstate *s, const char *p)
{
    uint64_t unit = fior__nunit_at(p + 4);
    if (!unit)
        return bad(s, "a unit '(nsec)', '(usec)' or '(msec)' after 'sync'");
    if (s->sync_lines++) /* a second one would silently replace the first */
        return bad(s, "one 'sync (unit): min=…' line per job");
    double mn, mx, avg, sd;
    if (fior__nparse_scaled(find_key(p, "min"), (double)unit, &mn))
        return bad(s, "'min=NUMBER' in the sync line");
    if (fior__nparse_scaled(find_key(p, "max"), (double)unit, &mx))
        return bad(s, "'max=NUMBER' in the sync line");
    if (fior__nparse_scaled(find_key(p, "avg"), (double)unit, &avg))
        return bad(s, "'avg=NUMBER' in the sync line");
    if (fior__nparse_scaled(find_key(p, "stdev"), (double)unit, &sd))
        return bad(s, "'stdev=NUMBER' in the sync line");
    fior_job *j = &s->job.j;
    j->has_sync = 1;
    j->min_ns = (uint64_t)llround(mn);
    j->max_ns = (uint64_t)llround(mx);
    j->mean_ns = avg;
    j->stddev_ns = sd;
    return FIOR_OK;
}

/* Reads n comma-separated counts after "key=" into v; 0 on success. */
static int counts(const char *line, const char *key, uint64_t *v, size_t n)
{
    const char *p = find_key(line, key);
    for (size_t i = 0; i < n; i++) {
        if (!p || fior__parse_u64(&p, &v[i]))
            return -1;
        if (i + 1 < n && *p++ != ',')
            return -1;
    }
    return 0;
}

/* "     issued rwts: total=0,10,0,0 short=9,0,0,0 dropped=0,0,0,0": the number of syncs of the job.
 * fio 3.4 (commit 7f3ecee2) added the 4th total for syncs, but its td_io_queue() counts each sync under
 * total_io_u[io_u->ddir] and total_io_u has only DDIR_RWDIR_SYNC_CNT (4) entries: an fsync (DDIR_SYNC, 3)
 * is counted in the 4th total, an fdatasync (DDIR_DATASYNC, 4) one past its end, in short_io_u[0], the
 * first "short" number (through fio 3.42; later fios count every sync in the 4th total, and short[0] is
 * again only short reads). So for a job without reads, syncs = total[3] + short[0] on every fio from 3.4;
 * with reads, short[0] may be short reads: the count is only known when short[0] is 0. fio before 3.4
 * prints "issued rwt:" with three totals and no sync count at all. sync_file_range (short[1] in 3.4–3.42,
 * mixed with short writes) is not counted: a job with sync latencies and a count of 0 stays unknown. */
fior_status fior__nissued_line(nstate *s, const char *p)
{
    uint64_t tot[4], sh[3];
    if (s->issued_lines++)
        return bad(s, "one 'issued rwts:' line per job");
    if (counts(p, "total", tot, 4) || counts(p, "short", sh, 3))
        return bad(s, "'issued rwts: total=R,W,T,S short=R,W,T,…' counts");
    fior_job *j = &s->job.j;
    s->cur.has_issued = 1;
    s->cur.issued_w = tot[1];
    s->cur.short_w = sh[1];
    s->cur.issued_rw = 0;
    for (int k = 0; k < 3; k++)
        s->cur.issued_rw = tot[k] > UINT64_MAX - s->cur.issued_rw ? UINT64_MAX : s->cur.issued_rw + tot[k];
    /* no fsync/fdatasync counted, but what fio 3.4-3.42 count one further on, in short[1]: sync_file_range
     * (DDIR_SYNC_FILE_RANGE is 5) */
    if (tot[3] == 0 && sh[0] == 0 && sh[1] > 0)
        j->sync_flags |= FIOR_SYNC_RANGE;
    uint64_t n;
    if (tot[0] == 0) {
        if (tot[3] > UINT64_MAX - sh[0])
            return bad(s, "'issued rwts:' counts that fit in 64 bits");
        n = tot[3] + sh[0];
    } else if (sh[0] == 0) {
        n = tot[3];
    } else {
        return FIOR_OK; /* reads with short reads: fdatasyncs and short reads cannot be told apart */
    }
    j->samples_known = 1;
    j->samples = n;
    return FIOR_OK;
}

/* one row "|  1.00th=[  652],  5.00th=[  750], 10.00th=[  816]," */
fior_status fior__npct_row(nstate *s, const char *p)
{
    p = skip_ws(p + 1);
    s->pct_rows++;
    while (*p) {
        double pc;
        uint64_t v;
        if (fior__parse_dec(&p, &pc) || pc > 100.0)
            return bad(s, "a percentile 'NN.NNth=[VALUE]' in the percentile row");
        if (!starts(p, "th=["))
            return bad(s, "'th=[' after the percentile");
        p = skip_ws(p + 4);
        if (fior__parse_u64(&p, &v))
            return bad(s, "a whole number inside 'th=[…]'");
        p = skip_ws(p);
        if (*p != ']')
            return bad(s, "']' after the percentile value");
        p = skip_ws(p + 1);
        s->pct_open = *p == ',';
        if (*p == ',')
            p = skip_ws(p + 1);
        if (!s->pct_target)
            continue;
        if (v > UINT64_MAX / s->pct_unit)
            return bad(s, "a percentile value that fits in 64-bit nanoseconds");
        if (fior__job_add_pct(&s->job, pc, v * s->pct_unit))
            return nomem(s);
        s->job.j.pct_resolution_ns = s->pct_unit;
    }
    return FIOR_OK;
}
