/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal_glue.h — private to the fio glue of libetcdwal.so (etcdwal*.c, compiled against fio's headers
 * by engine/rules.mk): fio's headers, the job options and per-job state the glue files share, and their
 * functions. Never included by the fio-free model. */
#ifndef ETCDWAL_GLUE_H
#define ETCDWAL_GLUE_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* fio before 3.16 defines a static gettid() in os/os-linux.h, which glibc 2.30 and later declare too (fio
 * commit de5ed0e4 "configure: add gettid() test" made it CONFIG_HAVE_GETTID): fio's is renamed here. */
#if !defined(CONFIG_HAVE_GETTID) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define gettid etcdwal_fio_gettid
#endif

/* fio compiles every engine it builds, the dynamic ones included, with -DFIO_INTERNAL (fio's Makefile,
 * CPPFLAGS); its headers use what that gates: fio 3.39's verify-state.h calls le32_to_cpu(), which os/os.h
 * defines only under FIO_INTERNAL, so without it GCC 14 stops at an implicit declaration. It gates macros
 * only (le/be*_to_cpu, FIO_ARRAY_SIZE, FIO_FIELD_SIZE, PTR_ALIGN in fio 3.7 to 3.42). */
#ifndef FIO_INTERNAL
#define FIO_INTERNAL
#endif
#include "fio.h"
#include "optgroup.h"
#include "verify.h"

/* Built against the exact fio that loads it (mk/fio-src.sh). The hooks used here exist in every fio since
 * 3.0 (FIO_IOOPS_VERSION 24, fio 3.7, is the oldest this is tested with: bench/fio_versions.sh); hooks added
 * later (post_init, zone and FDP hooks, prepopulate_file) and fields fio sets itself (dlhandle) are left
 * zero by the designated initializer of ioengine (etcdwal.c). */
#if !defined(FIO_IOOPS_VERSION) || FIO_IOOPS_VERSION < 24
#error "libetcdwal needs the headers of fio 3.x (FIO_IOOPS_VERSION >= 24)"
#endif
#ifndef ETCDWAL_FIO_VERSION
#error "ETCDWAL_FIO_VERSION (the fio tree's version, e.g. \"fio-3.33\") must be defined (engine/rules.mk does)"
#endif

#include "bbolt.h"
#include "hist.h"
#include "kinds.h"
#include "lifeline.h"
#include "load.h"
#include "loadrun.h"
#include "pipeline.h"
#include "privdir.h"
#include "sys.h"
#include "wal.h"

enum { MODE_WAL = 0, MODE_BACKEND = 1 };
enum { ETCD_V35 = 0, ETCD_V34 = 1 };

struct etcdwal_options {
    void *pad; /* fio treats offset 0 as "no option storage" */
    unsigned int mode;
    unsigned long long segment_bytes;
    unsigned int keep_files;
    char *stats_file;
    unsigned int prealloc;
    unsigned int append_pct;
    unsigned int etcd_version;  /* ETCD_V34 or ETCD_V35: the backend's growth (bbolt.h grow_by_writes) */
    unsigned long long first_fill;
    unsigned int clients;       /* closed-loop load (load.h): virtual clients, 0 = off */
    unsigned int key_bytes, val_bytes;
    unsigned long long client_ns, apply_ns, entry_ns, put_gap_ns;
    char *kinds_text;           /* etcd_kinds=: each write io_u is one put of a kind drawn from this mix */
    unsigned long long seed;    /* etcd_seed=: the draw's seed */
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
    int use_kinds;     /* etcd_kinds= given (WAL mode): the entry of each write io_u is of a drawn kind */
    kinds ks;
    uint64_t kinds_seed;             /* etcd_seed= (td->eo is hidden while a job process runs) */
    uint64_t kinds_drawn;            /* puts drawn so far (the index of the next draw) */
    uint64_t kinds_count[KINDS_MAX]; /* entries written per kind */
    unsigned char *kinds_payload;    /* the largest kind's entry bytes (a put of a smaller kind is its prefix) */
    uint64_t io_errors;
    char interposers[1024]; /* sys_interposers(): what in fio's process could replace file calls */
    char err[512];
};

/* fio's name for the job, "job" when it has none. */
static inline const char *job_name(struct thread_data *td)
{
    return td->o.name ? td->o.name : "job";
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

/* etcdwal_medium.c: the filesystem under the job's directory, told in the job's own line ("etcdwal: NAME:
 * pid=P: medium …", read by libreport's normal reader) so that any output of this engine is judged with it;
 * -1 (the job refused, said why) on tmpfs or ramfs, where no sync reaches a disk. */
int etcdwal_medium(struct thread_data *td, const char *dir);

/* etcdwal.c: the init hook (etcdwal_procs.c tells this engine's sibling jobs by it). */
int etcdwal_init(struct thread_data *td);

/* etcdwal_opts.c: the engine's fio options, stored in struct etcdwal_options. */
extern struct fio_option etcdwal_fio_options[];

/* etcdwal_stats.c: the job's summary lines and its etcd_stats_file= JSON object. */
void etcdwal_summary(struct thread_data *td, struct etcdwal_ctx *c);
void etcdwal_write_stats(struct thread_data *td, struct etcdwal_ctx *c, const char *path);

/* etcdwal_procs.c: what fio's main process and its job processes share or do to each other. */
atomic_int *etcdwal_fill_gate(void); /* NULL when the shared page cannot be mapped */
void etcdwal_fill_release(struct etcdwal_options *o);
void etcdwal_fill_wait(struct thread_data *td);
struct etcdwal_options *etcdwal_eo_of(struct thread_data *td);
void etcdwal_eo_hide(struct thread_data *td);
void etcdwal_eo_unhide(struct thread_data *td);
void etcdwal_wake_siblings(struct thread_data *me);
int etcdwal_job_is_process(const struct etcdwal_options *o);
int etcdwal_die_with_fio(struct thread_data *td, struct etcdwal_options *o);

#endif
