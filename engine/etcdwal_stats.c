/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal_stats.c — the fio glue's report of a job at its end: the summary lines with fio's output and
 * the etcd_stats_file= JSON object (read by etcd-fio, tools/engine_stats.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etcdwal_glue.h"

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void etcdwal_write_stats(struct thread_data *td, struct etcdwal_ctx *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        log_err("etcdwal: fopen(%s): %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "{\"engine\":\"etcdwal\",\"version\":1,\"mode\":\"%s\",\"job\":",
            c->mode == MODE_WAL ? "wal" : "backend");
    put_json_string(f, job_name(td));
    fputs(",\"dir\":", f);
    put_json_string(f, c->pd.path);
    fprintf(f, ",\"io_errors\":%" PRIu64 ",\"interposers\":", c->io_errors);
    put_json_string(f, c->interposers);
    if (c->mode == MODE_WAL) {
        const wal_stats *s = &c->w.st;
        fprintf(f,
                ",\"segments\":%" PRIu64 ",\"rollovers\":%" PRIu64 ",\"bytes_written\":%" PRIu64
                ",\"syncs\":%" PRIu64 ",\"entries\":%" PRIu64 ",\"records\":%" PRIu64
                ",\"prealloc_fallbacks\":%" PRIu64 ",\"segment_bytes\":%" PRIu64
                ",\"first_segment_fill_bytes\":%" PRIu64 ",\"first_segment_fill_ns\":%" PRIu64 ",\"hist\":{",
                s->segments, s->rollovers, s->bytes_written, s->syncs, s->entries, s->records,
                s->prealloc_fallbacks, c->w.cfg.segment_bytes, s->fill_bytes, s->fill_ns);
        const hist_field hs[] = {
            {"fdatasync", &s->fdatasync, "_ns", 1}, {"cut", &s->cut, "_ns", 1},
            {"dir_fsync", &s->dir_fsync, "_ns", 1}, {"wal_fsync", &s->wal_fsync, "_ns", 1},
            {"prealloc", &s->prealloc, "_ns", 1},   {"bytes_per_sync", &s->bytes_per_sync, "", 0},
        };
        hist_write_fields(f, hs, sizeof hs / sizeof hs[0]);
        fputs("}", f);
        if (c->load)
            ldr_wal_json(&c->lw, f);
        if (c->use_kinds) {
            /* entries written per kind, each with its entry bytes: what the mix made of the run */
            fputs(",\"kinds\":[", f);
            for (unsigned i = 0; i < c->ks.n; i++) {
                fprintf(f, "%s{\"name\":", i ? "," : "");
                put_json_string(f, c->ks.k[i].name);
                fprintf(f, ",\"rate\":%.6g,\"key_bytes\":%u,\"val_bytes\":%u,\"entry_bytes\":%zu,\"entries\":%" PRIu64 "}",
                        c->ks.k[i].rate, c->ks.k[i].key_bytes, c->ks.k[i].val_bytes,
                        kinds_entry_bytes(c->ks.k[i].key_bytes, c->ks.k[i].val_bytes), c->kinds_count[i]);
            }
            fputs("]", f);
        }
    } else {
        if (c->db) {
            fputs(",\"backend\":", f);
            bb_stats_json(c->db, f);
        }
        if (c->load)
            ldr_be_json(&c->lb, f);
    }
    fputs("}\n", f);
    if (fclose(f) != 0)
        log_err("etcdwal: writing %s: %s\n", path, strerror(errno));
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

void etcdwal_summary(struct thread_data *td, struct etcdwal_ctx *c)
{
    if (c->mode == MODE_WAL) {
        const wal_stats *s = &c->w.st;
        say("etcdwal: %s: %" PRIu64 " segments (%" PRIu64 " rollovers), %" PRIu64 " entries, %" PRIu64
                 " Saves, %" PRIu64 " bytes written\n",
                 job_name(td), s->segments, s->rollovers, s->entries, s->syncs, s->bytes_written);
        if (s->fill_bytes)
            say("etcdwal: %s: first segment filled with %" PRIu64 " bytes of history before the run (%.3f ms, "
                "not measured as I/O)\n", job_name(td), s->fill_bytes, ms(s->fill_ns));
        say("etcdwal: %s: fdatasync n=%" PRIu64 " mean=%.3fms p99=%.3fms max=%.3fms; dir fsync n=%" PRIu64
                 " mean=%.3fms; cut n=%" PRIu64 " mean=%.3fms max=%.3fms; prealloc n=%" PRIu64 " mean=%.3fms\n",
                 job_name(td), s->fdatasync.count,
                 s->fdatasync.count ? ms(s->fdatasync.sum / s->fdatasync.count) : 0.0,
                 ms(hist_quantile(&s->fdatasync, 0.99)), ms(s->fdatasync.max), s->dir_fsync.count,
                 s->dir_fsync.count ? ms(s->dir_fsync.sum / s->dir_fsync.count) : 0.0, s->cut.count,
                 s->cut.count ? ms(s->cut.sum / s->cut.count) : 0.0, ms(s->cut.max), s->prealloc.count,
                 s->prealloc.count ? ms(s->prealloc.sum / s->prealloc.count) : 0.0);
        if (c->load && c->lw.started) {
            const ld_stats *l = &c->lw.m.st;
            double span = l->last_ns > l->first_ns ? (double)(l->last_ns - l->first_ns) / 1e9 : 0;
            say("etcdwal: %s: %u clients: %" PRIu64 " puts (%.0f/s), %.1f per Save, latency p50=%.3fms "
                "p90=%.3fms p99=%.3fms\n", job_name(td), c->lw.cfg.clients, l->puts, span > 0 ? (double)l->puts / span : 0.0,
                l->saves ? (double)l->entries_per_save.sum / (double)l->saves : 0.0, ms(hist_quantile(&l->latency, 0.5)),
                ms(hist_quantile(&l->latency, 0.9)), ms(hist_quantile(&l->latency, 0.99)));
        }
    }
    else if (c->db) {
        const bb_stats *s = bb_get_stats(c->db);
        /* "pid=P" as in fio's job header: the reader gives the backend role to this job only, not to every
         * job of its name (libreport fmt_normal.c) */
        say("etcdwal: %s: pid=%d: backend %" PRIu64 " commits, %" PRIu64 " pages, %" PRIu64
                 " growths; commit mean=%.3fms p99=%.3fms\n",
                 job_name(td), (int)td->pid, s->commits, s->pages_written, s->growths,
                 s->commit.count ? ms(s->commit.sum / s->commit.count) : 0.0,
                 ms(hist_quantile(&s->commit, 0.99)));
    }
}
