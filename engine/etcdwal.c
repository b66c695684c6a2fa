/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal.c — the fio glue of libetcdwal.so (ioengine "etcdwal"): maps fio's write io_us to WAL entry
 * records and its DDIR_DATASYNC io_us to Saves (wal.c), or in etcd_mode=backend to bbolt page writes and
 * commits (bbolt.c). Everything else — files, framing, syncs, rollover — lives in the fio-free model. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* fio before 3.16 defines a static gettid() in os/os-linux.h, which glibc 2.30 and later declare too (fio
 * commit de5ed0e4 "configure: add gettid() test" made it CONFIG_HAVE_GETTID): fio's is renamed here. */
#if !defined(CONFIG_HAVE_GETTID) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define gettid etcdwal_fio_gettid
#endif

#include "fio.h"
#include "optgroup.h"
#include "verify.h"

/* Built against the exact fio that loads it (mk/fio-src.sh). The hooks used here exist in every fio since
 * 3.0 (FIO_IOOPS_VERSION 24, fio 3.7, is the oldest this is tested with: bench/fio_versions.sh); hooks added
 * later (post_init, zone and FDP hooks, prepopulate_file) and fields fio sets itself (dlhandle) are left
 * zero by the designated initializer below. */
#if !defined(FIO_IOOPS_VERSION) || FIO_IOOPS_VERSION < 24
#error "libetcdwal needs the headers of fio 3.x (FIO_IOOPS_VERSION >= 24)"
#endif
#ifndef ETCDWAL_FIO_VERSION
#error "ETCDWAL_FIO_VERSION (the fio tree's version, e.g. \"fio-3.33\") must be defined (engine/rules.mk does)"
#endif

#include "bbolt.h"
#include "hist.h"
#include "lifeline.h"
#include "load.h"
#include "loadrun.h"
#include "pipeline.h"
#include "privdir.h"
#include "sys.h"
#include "wal.h"

enum { MODE_WAL = 0, MODE_BACKEND = 1 };

struct etcdwal_options {
    void *pad; /* fio treats offset 0 as "no option storage" */
    unsigned int mode;
    unsigned long long segment_bytes;
    unsigned int keep_files;
    char *stats_file;
    unsigned int prealloc;
    unsigned int append_pct;
    unsigned long long first_fill;
    unsigned int clients;       /* closed-loop load (load.h): virtual clients, 0 = off */
    unsigned int key_bytes, val_bytes;
    unsigned long long client_ns, apply_ns, entry_ns, put_gap_ns;
    unsigned int fill_counted; /* not an option: set by setup when this job's fill holds the gate */
    int parent_pid;            /* not an option: fio's process that forks the jobs, recorded by setup */
};

/* Per-job (per thread_data) state; fio calls every hook of one job from that job's thread. */
struct etcdwal_ctx {
    int mode;
    int have_wal;
    privdir pd;
    wal w;
    bb_db *db;
    int load;          /* etcd_clients > 0: the closed-loop load drives the WAL or the backend */
    ldr_wal lw;
    ldr_be lb;
    uint64_t io_errors;
    char interposers[1024]; /* sys_interposers(): what in fio's process could replace file calls */
    char err[512];
};

static struct fio_option options[] = {
    {
        .name = "etcd_mode",
        .lname = "etcd disk pattern",
        .type = FIO_OPT_STR,
        .off1 = offsetof(struct etcdwal_options, mode),
        .def = "wal",
        .help = "Which etcd writer to imitate",
        .posval = {
            {.ival = "wal", .oval = MODE_WAL, .help = "etcd's write-ahead log (segments, fdatasync per Save)"},
            {.ival = "backend", .oval = MODE_BACKEND, .help = "bbolt commits (page writes, two syncs)"},
        },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_segment_bytes",
        .lname = "WAL segment size",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, segment_bytes),
        .def = "64000000",
        .minval = 4096,
        .help = "WAL segment size (etcd: 64000000)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_keep_files",
        .lname = "Keep the engine's files",
        .type = FIO_OPT_BOOL,
        .off1 = offsetof(struct etcdwal_options, keep_files),
        .def = "0",
        .help = "Keep the private directory (renamed etcd-fio-kept.*) at the end",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_stats_file",
        .lname = "Engine stats JSON",
        .type = FIO_OPT_STR_STORE,
        .off1 = offsetof(struct etcdwal_options, stats_file),
        .help = "Write the engine's own histograms to this JSON file",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_prealloc",
        .lname = "Segment preallocation",
        .type = FIO_OPT_STR,
        .off1 = offsetof(struct etcdwal_options, prealloc),
        .def = "fallocate",
        .help = "How spare segments are preallocated",
        .posval = {
            {.ival = "fallocate", .oval = PIPELINE_FALLOCATE, .help = "fallocate, ftruncate if unsupported (etcd)"},
            {.ival = "truncate", .oval = PIPELINE_TRUNCATE, .help = "ftruncate only"},
        },
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_backend_append_pct",
        .lname = "Backend append share",
        .type = FIO_OPT_INT,
        .off1 = offsetof(struct etcdwal_options, append_pct),
        .def = "67",
        .minval = 0,
        .maxval = 100,
        .help = "Backend mode: percent of page writes appended at the high-water mark",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_first_segment_fill",
        .lname = "First WAL segment fill",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, first_fill),
        .def = "0",
        .help = "WAL mode: before the run starts, fill the first segment with etcd records up to this many "
                "bytes (as in a long-running etcd), so the run's Saves reach a rollover sooner",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_clients",
        .lname = "Closed-loop clients",
        .type = FIO_OPT_INT,
        .off1 = offsetof(struct etcdwal_options, clients),
        .def = "0",
        .minval = 0,
        .maxval = LD_MAX_CLIENTS,
        .help = "Closed-loop load: this many etcd clients with one put outstanding each; each write io_u is one "
                "raft Ready with every waiting put, each sync its Save (wal), or etcd's batch and its commit "
                "(backend); 0 = off",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_key_bytes",
        .lname = "Put key size",
        .type = FIO_OPT_INT,
        .off1 = offsetof(struct etcdwal_options, key_bytes),
        .def = "8",
        .minval = 1,
        .maxval = 1048576,
        .help = "Closed-loop load: key bytes of each put",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_val_bytes",
        .lname = "Put value size",
        .type = FIO_OPT_INT,
        .off1 = offsetof(struct etcdwal_options, val_bytes),
        .def = "256",
        .minval = 0,
        .maxval = 1572864,
        .help = "Closed-loop load: value bytes of each put (etcd's request limit is 1.5 MiB)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_client_ns",
        .lname = "Client turnaround",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, client_ns),
        .def = "200000",
        .help = "Closed-loop load: ns from etcd's answer leaving to the client's next put arriving (round trip "
                "and gRPC on both sides)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_apply_ns",
        .lname = "Apply cost per put",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, apply_ns),
        .def = "5000",
        .help = "Closed-loop load: ns of etcd's apply work per put (one after the other, beside the Saves)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_entry_ns",
        .lname = "Raft loop cost per put",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, entry_ns),
        .def = "33000",
        .help = "Closed-loop load: ns of etcd's work per put on the raft loop's path, between taking a Ready and "
                "its Save (engine/load.h)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {
        .name = "etcd_put_gap_ns",
        .lname = "Least gap between puts",
        .type = FIO_OPT_STR_VAL,
        .off1 = offsetof(struct etcdwal_options, put_gap_ns),
        .def = "0",
        .help = "Closed-loop load: least ns between two puts' arrivals, all clients together (0: none): one member "
                "of a cluster paced at the cluster's write rate (etcd-fio capacity --member)",
        .category = FIO_OPT_C_ENGINE,
        .group = FIO_OPT_G_INVALID,
    },
    {.name = NULL},
};

/* The closed-loop load's WAL and backend jobs meet in one shared page, mapped by the first job's setup
 * hook in fio's main process (see fill_gate for why there), so every job process inherits it. */
static ldr_shared *g_load_shared;

/* The first-segment fill (etcd_first_segment_fill) runs in the WAL job's init, which fio calls only after
 * it has released every job (backend.c: thread_main signals startup_sem before td_io_init), so without
 * a gate the backend job's first timed commits would queue behind the fill's large write and fdatasync.
 * Each WAL job with a fill takes the gate in the setup hook — fio runs setup_files for every job in its
 * main process, one after the other, before it forks or starts any job (create_serialize, the default)
 * — and releases it after its fill; every etcdwal job waits in its init, before fio starts its clock,
 * until no fill is pending. The count lives in a shared anonymous page mapped in that main process, so the
 * forked job processes (or threads, with thread=1) all see it. */
static atomic_int *g_fills_pending;

static atomic_int *fill_gate(void)
{
    if (!g_fills_pending) {
        void *p = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        atomic_init((atomic_int *)p, 0);
        g_fills_pending = p;
    }
    return g_fills_pending;
}

static void fill_release(struct etcdwal_options *o)
{
    if (o->fill_counted && g_fills_pending)
        atomic_fetch_sub(g_fills_pending, 1);
    o->fill_counted = 0;
}

/* Bounded: a fill is one sequential write and one fdatasync, but a WAL job killed before releasing the
 * gate must not hold the others forever. */
#define FILL_WAIT_MAX_S 600

static void fill_wait(struct thread_data *td)
{
    if (!g_fills_pending)
        return;
    struct timespec nap = {0, 1000000};
    for (long i = 0; atomic_load(g_fills_pending) > 0 && !td->terminate; i++) {
        if (i == FILL_WAIT_MAX_S * 1000L) {
            log_err("etcdwal: %s: gave up waiting for the first-segment fill of another job after %d s\n",
                    td->o.name ? td->o.name : "job", FILL_WAIT_MAX_S);
            return;
        }
        nanosleep(&nap, NULL);
    }
}

static const char *job_name(struct thread_data *td)
{
    return td->o.name ? td->o.name : "job";
}

/* fio's directory for this job: where it would have put its data file (directory= or filename=); a
 * filename= naming a directory is taken as that directory. 0, or -1 for a device or other non-file. */
static int parent_dir(struct thread_data *td, char *out, size_t len)
{
    const char *fn = td->files && td->files_index ? td->files[0]->file_name : NULL;
    struct stat st;
    if (fn && stat(fn, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(out, len, "%s", fn);
            return 0;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(out, len, "%s", fn);
            return -1;
        }
    }
    if (!fn || !strchr(fn, '/')) {
        snprintf(out, len, ".");
        return 0;
    }
    snprintf(out, len, "%s", fn);
    char *slash = strrchr(out, '/');
    if (slash == out)
        slash[1] = 0;
    else
        *slash = 0;
    return 0;
}

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

static void write_stats(struct thread_data *td, struct etcdwal_ctx *c, const char *path)
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

/* The summary goes with fio's normal output; with JSON/terse on stdout it goes to stderr so the
 * machine-readable output stays parseable. */
#define say(...)                                   \
    do {                                           \
        if (output_format & FIO_OUTPUT_NORMAL)     \
            log_info(__VA_ARGS__);                 \
        else                                       \
            fprintf(stderr, __VA_ARGS__);          \
    } while (0)

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static void summary(struct thread_data *td, struct etcdwal_ctx *c)
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
        say("etcdwal: %s: backend %" PRIu64 " commits, %" PRIu64 " pages, %" PRIu64
                 " growths; commit mean=%.3fms p99=%.3fms\n",
                 job_name(td), s->commits, s->pages_written, s->growths,
                 s->commit.count ? ms(s->commit.sum / s->commit.count) : 0.0,
                 ms(hist_quantile(&s->commit, 0.99)));
    }
}

/* fio's main process frees its copy of a job's engine options right after forking the job (backend.c
 * run_threads: free(eo)) and, at its own end, frees td->eo again unless the job has cleared it
 * (options.c fio_options_free; the job's free_ioengine does). A job process SIGKILLed — the OOM killer —
 * never clears it, and fio 3.33 then aborts on that double free ("free(): double free detected") before
 * it ends, before etcdwal_end can reap the killed job's directory. So while a job process runs, the
 * pointer in fio's shared thread_data is hidden from the main process: the job keeps it (one job per
 * process) and puts it back in cleanup, which fio calls before it frees it (close_ioengine). Threads share
 * fio's memory and need none of this. */
static void *g_job_eo;

static struct etcdwal_options *eo_of(struct thread_data *td)
{
    return td->eo ? td->eo : g_job_eo;
}

static void eo_hide(struct thread_data *td)
{
    if (!td->o.use_thread && td->eo) {
        g_job_eo = td->eo;
        td->eo = NULL;
    }
}

static void eo_unhide(struct thread_data *td)
{
    if (g_job_eo && !td->eo)
        td->eo = g_job_eo;
    g_job_eo = NULL;
}

/* A job process stopped (SIGSTOP; a tracer gone) when fio dies keeps the SIGTERM of its death signal
 * (die_with_fio) pending, and its files in DIR, until someone continues it. A job that ends continues its
 * siblings of this engine (their pids are in fio's shared thread_data) that are stopped with a SIGTERM
 * pending (/proc/PID/status): each then acts on it, and its cleanup removes its files. A stopped sibling
 * without a pending SIGTERM is left as it is. */
static int stopped_with_term(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int stopped = 0, term = 0;
    unsigned long long mask;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "State:", 6))
            stopped = strchr(line, 'T') != NULL;
        else if ((sscanf(line, "SigPnd: %llx", &mask) == 1 || sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
                 (mask >> (SIGTERM - 1) & 1))
            term = 1;
    }
    fclose(f);
    return stopped && term;
}

static int etcdwal_init(struct thread_data *td);

static void wake_one(struct thread_data *sib, const struct thread_data *me)
{
    if (sib != me && sib->pid > 0 && sib->pid != getpid() && sib->io_ops && sib->io_ops->init == etcdwal_init &&
        sib->runstate >= TD_INITIALIZED && sib->runstate < TD_EXITED && stopped_with_term(sib->pid))
        kill(sib->pid, SIGCONT);
}

static void wake_siblings(const struct thread_data *me)
{
    if (me->o.use_thread)
        return;
#ifdef end_for_each /* fio >= 3.35: the loop declares td itself */
    for_each_td(td) {
        wake_one(td, me);
    } end_for_each();
#else
    struct thread_data *td;
    int i;
    for_each_td(td, i)
        wake_one(td, me);
#endif
}

static void etcdwal_cleanup(struct thread_data *td)
{
    eo_unhide(td);
    struct etcdwal_ctx *c = td->io_ops_data;
    struct etcdwal_options *o = td->eo;
    if (!c)
        return;
    if (c->load && c->mode == MODE_WAL)
        ldr_wal_done(&c->lw);
    if (c->have_wal) {
        if (wal_close(&c->w, c->err, sizeof c->err) != 0)
            log_err("etcdwal: %s\n", c->err);
    }
    /* Every file is closed before the directory is emptied (an open file unlinked on NFS or FUSE is
     * renamed .nfsXXXX / .fuse_hiddenXXXX and the directory cannot be removed): the WAL above, the
     * backend db after its stats are read; the lock file last, in privdir_remove. */
    if (o->keep_files && c->pd.fd >= 0) {
        int rc = privdir_keep(&c->pd);
        if (rc != 0)
            log_err("etcdwal: rename(%s): %s\n", c->pd.path, strerror(-rc));
        else
            say("etcdwal: %s: files kept in %s\n", job_name(td), c->pd.path);
    }
    if (c->have_wal || c->db) {
        summary(td, c);
        if (o->stats_file)
            write_stats(td, c, o->stats_file);
    }
    if (c->db)
        bb_close(c->db, 0);
    c->db = NULL;
    if (c->pd.fd >= 0) {
        int rc = privdir_remove(&c->pd);
        if (rc != 0)
            log_err("etcdwal: rmdir(%s): %s\n", c->pd.path, strerror(-rc));
        /* A sibling job SIGKILLed (the OOM killer) left its directory, its lock free. fio's main process
         * reaps it when it ends (etcdwal_end), but a fio --server runs the jobs in a process that ends with
         * _exit (server.c handle_run_cmd: no destructor): each job that ends reaps them too, by the rule
         * init's reaper uses (privdir_reap_stale: our mark, a free lock, our files only). */
        privdir_reap_stale(c->pd.parent);
    }
    wake_siblings(td);
    if (c->load && c->mode == MODE_WAL)
        ldr_wal_free(&c->lw);
    free(c);
    td->io_ops_data = NULL;
}

/* A job process must not outlive fio: fio's job processes sit in sessions of their own (setsid in
 * thread_main), so a SIGKILL of fio's process group — `timeout -s KILL`, a kill of etcd-fio's group —
 * leaves them writing into DIR until their runtime. From its fork on a job dies of SIGKILL with fio
 * (lifeline.h: it may still be waiting at fio's start semaphore); here, before it makes a file, it asks
 * for SIGTERM instead (fio's own handler then ends the job normally and cleanup removes the files),
 * checked against the pid fio's process recorded before it forked (setup; with create_serialize=0 only
 * getppid() at this point is known). With a SIGPIPE of default action, a job whose output pipe lost its
 * reader would die in the middle of that cleanup ("fio: terminating on signal" is its first write): it is
 * ignored in the job process. Threads (thread=1) are fio itself: nothing to do. 0, or 1 when fio is gone
 * already. */
static int die_with_fio(struct thread_data *td, struct etcdwal_options *o)
{
    if (td->o.use_thread)
        return 0;
    pid_t parent = o->parent_pid > 0 ? (pid_t)o->parent_pid : getppid();
    int rc = sys_die_with_parent(parent, SIGTERM);
    if (rc == -ESRCH) {
        log_err("etcdwal: %s: fio's process %d that started this job is gone; not starting\n", job_name(td),
                (int)parent);
        return 1;
    }
    if (rc)
        log_err("etcdwal: %s: warning: prctl(PR_SET_PDEATHSIG): %s: this job would outlive a killed fio\n",
                job_name(td), strerror(-rc));
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* The job options the engine cannot honour: reads, trims, verify=, a first fill larger than a segment
 * (1, with the message); a job without syncs is only warned about. */
static int check_job(struct thread_data *td, struct etcdwal_options *o)
{
    if (td_read(td) || td_trim(td)) {
        log_err("etcdwal: %s: only writes (rw=write/randwrite) and syncs are supported\n", job_name(td));
        return 1;
    }
    if (td->o.verify != VERIFY_NONE) {
        log_err("etcdwal: %s: verify= is not supported: the engine appends records, fio's offsets are not "
                "kept (its own decoder checks the files)\n", job_name(td));
        return 1;
    }
    if (!td->o.fdatasync_blocks && !td->o.fsync_blocks)
        log_err("etcdwal: %s: warning: without fdatasync=N (or fsync=N) fio issues no syncs: no WAL Save "
                "or backend commit happens, nothing is synced or measured, no segment rolls over\n", job_name(td));
    unsigned long long seg = o->segment_bytes ? o->segment_bytes : WAL_DEFAULT_SEGMENT_BYTES;
    if (o->first_fill && o->mode == MODE_WAL && o->first_fill > seg) {
        log_err("etcdwal: %s: etcd_first_segment_fill=%llu exceeds etcd_segment_bytes=%llu\n", job_name(td),
                o->first_fill, seg);
        return 1;
    }
    return 0;
}

/* The closed-loop load (etcd_clients > 0): the WAL side's clients and entries, or the backend side's
 * applies, both on the page shared between the jobs. -1 when the WAL side cannot start (load off). */
static int load_init(struct thread_data *td, struct etcdwal_ctx *c, struct etcdwal_options *o)
{
    if (c->load && !g_load_shared)
        log_err("etcdwal: %s: warning: no shared page for the closed-loop load (the WAL and backend jobs do not "
                "see each other: no backend commit holds the applies)\n", job_name(td));
    if (c->load && c->mode == MODE_WAL) {
        ld_config lc = {.clients = o->clients, .key_bytes = o->key_bytes, .val_bytes = o->val_bytes,
                        .client_ns = o->client_ns, .apply_ns = o->apply_ns, .entry_ns = o->entry_ns,
                        .put_gap_ns = o->put_gap_ns};
        if (ldr_wal_init(&c->lw, &lc, g_load_shared, c->err, sizeof c->err) != 0) {
            log_err("%s\n", c->err);
            c->load = 0;
            return -1;
        }
    } else if (c->load) {
        ldr_be_init(&c->lb, g_load_shared, o->key_bytes, o->val_bytes);
    }
    return 0;
}

/* The job's private directory inside filename=/directory=, after removing the stale ones of dead runs
 * (privdir_reap_stale, privdir.h). -1 with the message logged. */
static int make_privdir(struct thread_data *td, struct etcdwal_ctx *c)
{
    char parent[4096];
    if (parent_dir(td, parent, sizeof parent) != 0) {
        log_err("etcdwal: %s: filename=%s is not a regular file or directory; the engine writes its own "
                "files, give it a directory (directory=DIR)\n", job_name(td), parent);
        return -1;
    }
    privdir_reap_stale(parent);
    if (privdir_create(&c->pd, parent, job_name(td), getpid(), c->err, sizeof c->err) != 0) {
        log_err("etcdwal: %s\n", c->err);
        return -1;
    }
    return 0;
}

/* The WAL job's files: the first segment (and its first fill), then the fill gate is released for the
 * jobs waiting on it. -1 with the message logged. */
static int open_wal(struct thread_data *td, struct etcdwal_ctx *c, struct etcdwal_options *o)
{
    wal_config cfg = {
        .segment_bytes = o->segment_bytes ? o->segment_bytes : WAL_DEFAULT_SEGMENT_BYTES,
        .prealloc_mode = (int)o->prealloc,
        .max_entry_bytes = c->load && c->lw.entry_bytes > td_max_bs(td) ? c->lw.entry_bytes : (size_t)td_max_bs(td),
        .node_id = 0x2e1259d415f2a040ull, /* any fixed member/cluster id: only its size matters */
        .cluster_id = 0xcdc3a4c2e8e3b1e5ull,
        .dir_label = c->pd.path,
        /* The payload is copied into the page buffer, which goes out in one write(2) as etcd's does
         * (a writev from fio's buffer cost more in the kernel than the copy: bench/README.md, issue 17). */
        .first_fill_bytes = o->first_fill,
        .cancel = &td->terminate,
    };
    c->have_wal = 1;
    int rc = wal_create(&c->w, c->pd.fd, &cfg, c->err, sizeof c->err);
    fill_release(o);
    if (rc != 0) {
        log_err("etcdwal: %s\n", c->err);
        return -1;
    }
    return 0;
}

/* The backend job's db file, seeded per job so two backend jobs pick different pages. -1 with the
 * message logged. */
static int open_db(struct thread_data *td, struct etcdwal_ctx *c, struct etcdwal_options *o)
{
    bb_config cfg = {
        .append_pct = o->append_pct,
        .initial_pages = 0,
        .seed = (uint64_t)td->thread_number * 0x9e3779b97f4a7c15ull + 1,
    };
    if (bb_open(&c->db, c->pd.fd, "db", &cfg, c->err, sizeof c->err) != 0) {
        log_err("etcdwal: %s (in %s)\n", c->err, c->pd.path);
        c->db = NULL;
        return -1;
    }
    return 0;
}

/* A failed init undoes itself, so nothing is left behind even if fio skips cleanup; cleanup then only
 * frees c. */
static void init_undo(struct etcdwal_ctx *c, struct etcdwal_options *o)
{
    fill_release(o);
    if (c->load && c->mode == MODE_WAL)
        ldr_wal_free(&c->lw);
    c->load = 0;
    if (c->have_wal) {
        wal_close(&c->w, c->err, sizeof c->err);
        c->have_wal = 0;
    }
    if (c->db) {
        bb_close(c->db, 0);
        c->db = NULL;
    }
    if (c->pd.fd >= 0)
        privdir_remove(&c->pd);
    c->pd.path[0] = 0;
}

static int etcdwal_init(struct thread_data *td)
{
    struct etcdwal_options *o = td->eo;
    eo_hide(td);
    if (die_with_fio(td, o)) {
        fill_release(o);
        return 1;
    }
    if (check_job(td, o)) {
        fill_release(o); /* a refused job never fills: the others must not wait for it */
        return 1;
    }
    struct etcdwal_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        log_err("etcdwal: out of memory\n");
        fill_release(o);
        return 1;
    }
    c->pd.fd = c->pd.lock_fd = -1;
    c->mode = (int)o->mode;
    c->load = o->clients > 0;
    td->io_ops_data = c;
    if (load_init(td, c, o) != 0) {
        c->pd.path[0] = 0;
        goto fail;
    }
    if (sys_interposers(c->interposers, sizeof c->interposers, NULL))
        log_err("etcdwal: %s: warning: %s: these may replace file and sync calls in fio (the engine's own "
                "syncs are raw system calls; etcd-fio check refuses such a run)\n", job_name(td), c->interposers);
    if (make_privdir(td, c) != 0) {
        c->pd.path[0] = 0;
        goto fail;
    }
    if ((c->mode == MODE_WAL ? open_wal(td, c, o) : open_db(td, c, o)) != 0)
        goto fail;
    fill_wait(td);
    return 0;
fail:
    init_undo(c, o);
    return 1;
}

static enum fio_q_status etcdwal_queue(struct thread_data *td, struct io_u *io_u)
{
    struct etcdwal_ctx *c = td->io_ops_data;
    int rc;

    fio_ro_check(td, io_u);
    if (c->load && (io_u->ddir == DDIR_WRITE || ddir_sync(io_u->ddir))) {
        if (io_u->ddir == DDIR_WRITE)
            rc = c->mode == MODE_WAL ? ldr_wal_ready(&c->lw, &c->w, &td->terminate, c->err, sizeof c->err)
                                     : ldr_be_stage(&c->lb, c->db, &td->terminate, c->err, sizeof c->err);
        else
            rc = c->mode == MODE_WAL ? ldr_wal_save(&c->lw, &c->w, c->err, sizeof c->err)
                                     : ldr_be_commit(&c->lb, c->db, c->err, sizeof c->err);
        if (!rc && io_u->ddir == DDIR_WRITE)
            io_u->resid = 0;
    } else if (io_u->ddir == DDIR_WRITE) {
        if (c->mode == MODE_WAL)
            rc = wal_append(&c->w, io_u->xfer_buf, io_u->xfer_buflen, c->err, sizeof c->err);
        else
            rc = bb_write(c->db, io_u->xfer_buf, io_u->xfer_buflen, c->err, sizeof c->err);
        if (!rc)
            io_u->resid = 0;
    } else if (ddir_sync(io_u->ddir)) {
        if (c->mode == MODE_WAL)
            rc = wal_save(&c->w, c->err, sizeof c->err);
        else
            rc = bb_commit(c->db, c->err, sizeof c->err);
    } else {
        snprintf(c->err, sizeof c->err, "etcdwal: unsupported I/O direction %d", (int)io_u->ddir);
        rc = -EINVAL;
    }
    if (rc) {
        io_u->error = -rc;
        /* the first failure names the call and file; the WAL refuses further work after it */
        if (!c->io_errors++)
            log_err("etcdwal: %s: %s\n", job_name(td), c->err);
        td_verror(td, io_u->error, "xfer");
    }
    return FIO_Q_COMPLETED;
}

/* fio never opens a data file of its own: FIO_DISKLESSIO plus these hooks keep it from creating, sizing,
 * invalidating or unlinking the name it derived from directory=/filename=. */
static int etcdwal_open_file(struct thread_data *td, struct fio_file *f)
{
    return 0;
}

static int etcdwal_close_file(struct thread_data *td, struct fio_file *f)
{
    (void)td;
    f->fd = -1;
    return 0;
}

static int etcdwal_noop_file(struct thread_data *td, struct fio_file *f)
{
    return 0;
}

static int etcdwal_get_file_size(struct thread_data *td, struct fio_file *f)
{
    if (!td->o.size && !td->o.io_size) {
        /* there is no file whose size fio could use instead */
        log_err("etcdwal: %s: set size= (bytes of entries to write; with time_based only where fio's "
                "offsets wrap)\n", job_name(td));
        td_verror(td, EINVAL, "size");
        return 1;
    }
    f->real_file_size = -1ULL; /* unbounded: size= decides how much is written */
    fio_file_set_size_known(f);
    return 0;
}

/* fio calls this instead of get_file_size for each file when an engine has it (filesetup.c setup_files),
 * in its main process before any job starts: the sizes as get_file_sizes would set them, and the fill
 * gate (above). */
static int etcdwal_setup(struct thread_data *td)
{
    struct etcdwal_options *o = eo_of(td); /* with create_serialize=0 fio calls this in the job, after init */
    struct fio_file *f;
    unsigned int i;
    if (!td->io_ops_data) { /* fio's main process, about to fork the jobs (see die_with_fio) */
        o->parent_pid = (int)getpid();
        char parent[4096]; /* where fio's end reaps what a killed job left (etcdwal_end) */
        if (parent_dir(td, parent, sizeof parent) == 0 && life_note_dir(parent) != 0)
            log_err("etcdwal: %s: warning: %s not noted: a job killed there leaves its directory until the "
                    "next run\n", job_name(td), parent);
    }
    for_each_file(td, f, i) {
        if (etcdwal_get_file_size(td, f))
            return 1;
        if (f->real_file_size == -1ULL && td->o.size) /* as get_file_sizes does */
            f->real_file_size = td->o.size / td->o.nr_files;
    }
    if (o->clients && !g_load_shared && !td->io_ops_data)
        g_load_shared = ldr_shared_map();
    /* with create_serialize=0 fio calls this in the job, after init: the fill is done, nobody to hold */
    if (o->mode == MODE_WAL && o->first_fill && !o->fill_counted && !td->io_ops_data) {
        atomic_int *g = fill_gate();
        if (g) {
            atomic_fetch_add(g, 1);
            o->fill_counted = 1;
        } else {
            log_err("etcdwal: %s: warning: no shared page for the fill gate (mmap: %s): other jobs may start "
                    "during the first-segment fill\n", job_name(td), strerror(errno));
        }
    }
    return 0;
}

/* The one exported symbol: fio dlsym()s "ioengine" (the build hides everything else). */
__attribute__((visibility("default"))) struct ioengine_ops ioengine;

/* The engine reads fio's struct thread_data, io_u and fio_file, whose layout changes between fio versions
 * even where FIO_IOOPS_VERSION does not (3.16 and 3.19 are both 25), and fio checks only that number —
 * after it has stored its dlhandle into the struct at its own offset. So the engine checks at load time
 * (dlopen runs this before fio looks at the struct) that the fio it is in is the one whose source it was
 * built against (fio_version_string, init.c), and otherwise says so in one line and spoils its ops
 * version, which makes every fio refuse it ("bad ioops version") before any hook runs. */
__attribute__((constructor)) static void etcdwal_check_fio(void)
{
    if (strcmp(fio_version_string, ETCDWAL_FIO_VERSION) == 0) {
        int e = life_arm_forks(); /* fio's job processes die with it from their fork on (lifeline.h) */
        if (e)
            fprintf(stderr, "etcdwal: warning: pthread_atfork: %s: a job process fio forks would outlive a "
                    "fio killed before the job starts\n", strerror(e));
        return;
    }
    static const char msg[] = "etcdwal: this engine was built against the source of " ETCDWAL_FIO_VERSION
                              " and cannot run in %s (fio's internal structures differ): rebuild it "
                              "against the source of %s (make FIO_SRC=DIR, see etcd-fio's README)\n";
    if (f_err)
        log_err(msg, fio_version_string, fio_version_string);
    else
        fprintf(stderr, msg, fio_version_string, fio_version_string);
    ioengine.version = -1;
}

/* fio's main process ends (fio returns from main; a job process _exits, and its dlclose does nothing here):
 * the private directories its jobs left — one SIGKILLed, its lock gone with it — are reaped (lifeline.h). */
__attribute__((destructor)) static void etcdwal_end(void)
{
    life_end();
}

struct ioengine_ops ioengine = {
    .name = "etcdwal",
    .version = FIO_IOOPS_VERSION,
    .flags = FIO_SYNCIO | FIO_DISKLESSIO | FIO_NODISKUTIL,
    .init = etcdwal_init,
    .setup = etcdwal_setup,
    .queue = etcdwal_queue,
    .cleanup = etcdwal_cleanup,
    .open_file = etcdwal_open_file,
    .close_file = etcdwal_close_file,
    .invalidate = etcdwal_noop_file,
    .unlink_file = etcdwal_noop_file,
    .get_file_size = etcdwal_get_file_size,
    .options = options,
    .option_struct_size = sizeof(struct etcdwal_options),
};
