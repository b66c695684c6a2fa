/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal.c — the fio glue of libetcdwal.so (ioengine "etcdwal"): maps fio's write io_us to WAL entry
 * records and its DDIR_DATASYNC io_us to Saves (wal.c), or in etcd_mode=backend to bbolt page writes and
 * commits (bbolt.c). Everything else — files, framing, syncs, rollover — lives in the fio-free model. This
 * file holds the ioengine and its hooks; the other glue files are named in etcdwal_glue.h. */
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

#include "etcdwal_glue.h"

/* The closed-loop load's WAL and backend jobs meet in one shared page, mapped by the first job's setup
 * hook in fio's main process (see etcdwal_fill_gate, etcdwal_procs.c, for why there), so every job
 * process inherits it. */
static ldr_shared *g_load_shared;

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

static void etcdwal_cleanup(struct thread_data *td)
{
    etcdwal_eo_unhide(td);
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
        etcdwal_summary(td, c);
        if (o->stats_file)
            etcdwal_write_stats(td, c, o->stats_file);
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
    etcdwal_wake_siblings(td);
    if (c->load && c->mode == MODE_WAL)
        ldr_wal_free(&c->lw);
    free(c->kinds_payload);
    free(c);
    td->io_ops_data = NULL;
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

/* etcd_kinds= (WAL mode): the mix parsed and the payload of its largest entry made, bytes no filesystem
 * compresses away (xorshift64, as loadrun.c's). A backend job ignores the option: its pages per commit are
 * in its job file (fdatasync=N). -1 with the message logged. */
static int kinds_init(struct thread_data *td, struct etcdwal_ctx *c, struct etcdwal_options *o)
{
    if (!o->kinds_text || !o->kinds_text[0] || c->mode != MODE_WAL)
        return 0;
    if (o->clients) {
        log_err("etcdwal: %s: etcd_kinds= and etcd_clients= do not go together: the kinds are for the paced "
                "profile (one put per write io_u)\n", job_name(td));
        return -1;
    }
    char err[256];
    if (kinds_parse(o->kinds_text, &c->ks, err, sizeof err) != 0) {
        log_err("etcdwal: %s: %s\n", job_name(td), err);
        return -1;
    }
    size_t n = kinds_max_entry_bytes(&c->ks);
    if (!(c->kinds_payload = malloc(n))) {
        log_err("etcdwal: %s: out of memory for a %zu-byte entry\n", job_name(td), n);
        return -1;
    }
    uint64_t x = 0x2545f4914f6cdd1dull ^ o->seed;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c->kinds_payload[i] = (unsigned char)(x >> 24);
    }
    c->kinds_seed = o->seed;
    c->use_kinds = 1;
    return 0;
}

/* One write io_u under etcd_kinds=: the next put's kind is drawn, its entry appended. */
static int kinds_append(struct etcdwal_ctx *c)
{
    unsigned i = kinds_pick(&c->ks, c->kinds_seed, c->kinds_drawn++);
    c->kinds_count[i]++;
    return wal_append(&c->w, c->kinds_payload, kinds_entry_bytes(c->ks.k[i].key_bytes, c->ks.k[i].val_bytes),
                      c->err, sizeof c->err);
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
    if (etcdwal_medium(td, parent) != 0)
        return -1;
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
    size_t kmax = c->use_kinds ? kinds_max_entry_bytes(&c->ks) : 0;
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
    if (kmax > cfg.max_entry_bytes)
        cfg.max_entry_bytes = kmax;
    c->have_wal = 1;
    int rc = wal_create(&c->w, c->pd.fd, &cfg, c->err, sizeof c->err);
    etcdwal_fill_release(o);
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
        .grow_by_writes = o->etcd_version == ETCD_V34,
    };
    /* A job that commits every N pages and then thinks T (the profile: fdatasync=N, thinktime=T,
     * thinktime_blocks=N) is etcd's batch interval T: its commits also carry the puts that queued
     * behind the previous one (bbolt.h batch_interval_ns). The closed-loop load counts them itself. */
    if (!c->load && td->o.thinktime > 0 && td->o.fdatasync_blocks > 0 &&
        td->o.thinktime_blocks == td->o.fdatasync_blocks)
        cfg.batch_interval_ns = (uint64_t)td->o.thinktime * 1000u;
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
    etcdwal_fill_release(o);
    if (c->load && c->mode == MODE_WAL)
        ldr_wal_free(&c->lw);
    c->load = 0;
    free(c->kinds_payload);
    c->kinds_payload = NULL;
    c->use_kinds = 0;
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

int etcdwal_init(struct thread_data *td)
{
    struct etcdwal_options *o = td->eo;
    etcdwal_eo_hide(td);
    if (etcdwal_die_with_fio(td, o)) {
        etcdwal_fill_release(o);
        return 1;
    }
    if (check_job(td, o)) {
        etcdwal_fill_release(o); /* a refused job never fills: the others must not wait for it */
        return 1;
    }
    struct etcdwal_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        log_err("etcdwal: out of memory\n");
        etcdwal_fill_release(o);
        return 1;
    }
    c->pd.fd = c->pd.lock_fd = -1;
    c->mode = (int)o->mode;
    c->load = o->clients > 0;
    td->io_ops_data = c;
    if (load_init(td, c, o) != 0 || kinds_init(td, c, o) != 0) {
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
    etcdwal_fill_wait(td);
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
        if (c->use_kinds)
            rc = kinds_append(c);
        else if (c->mode == MODE_WAL)
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
 * gate (etcdwal_procs.c). */
static int etcdwal_setup(struct thread_data *td)
{
    /* with create_serialize=0 fio calls this in the job, after init */
    struct etcdwal_options *o = etcdwal_eo_of(td);
    struct fio_file *f;
    unsigned int i;
    if (!td->io_ops_data) { /* fio's main process, about to fork the jobs (etcdwal_die_with_fio) */
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
        atomic_int *g = etcdwal_fill_gate();
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
/* The same version string does not prove the same structures: a distribution may ship a snapshot of fio's
 * master under a released version's name (Debian 13's "3.39" has fields the fio-3.39 tag lacks, which move
 * the ones after them). Each option of fio's own table (fio_options, options.c) records where its value
 * lives in struct thread_options (off1); those the engine reads must be where the source it was built
 * against puts them. Returns the first that is not (NULL: all are, or fio has not that option). */
static const struct fio_option *moved_option(unsigned int *want)
{
    static const struct {
        const char *name;
        unsigned int off;
    } read[] = {
        {"name", offsetof(struct thread_options, name)},
        {"thread", offsetof(struct thread_options, use_thread)},
        {"size", offsetof(struct thread_options, size)},
        {"io_size", offsetof(struct thread_options, io_size)},
        {"nrfiles", offsetof(struct thread_options, nr_files)},
        {"fsync", offsetof(struct thread_options, fsync_blocks)},
        {"fdatasync", offsetof(struct thread_options, fdatasync_blocks)},
        {"thinktime", offsetof(struct thread_options, thinktime)},
        {"thinktime_blocks", offsetof(struct thread_options, thinktime_blocks)},
        {"verify", offsetof(struct thread_options, verify)},
    };
    /* the first entry of a name is fio's own: profiles append options of theirs to the table, with
     * offsets into their own structs (profiles/tiobench.c has a "size" at 8) */
    for (size_t i = 0; i < sizeof read / sizeof read[0]; i++)
        for (const struct fio_option *fo = fio_options; fo < fio_options + FIO_MAX_OPTS && fo->name; fo++)
            if (!strcmp(fo->name, read[i].name)) {
                if (fo->off1 != read[i].off) {
                    *want = read[i].off;
                    return fo;
                }
                break;
            }
    return NULL;
}

__attribute__((constructor)) static void etcdwal_check_fio(void)
{
    unsigned int want = 0;
    const struct fio_option *moved = NULL;
    if (strcmp(fio_version_string, ETCDWAL_FIO_VERSION) == 0 && (moved = moved_option(&want)) != NULL) {
        static const char lmsg[] = "etcdwal: this engine was built against a source of %s whose job options "
                                   "are laid out otherwise than this %s's (option %s at byte %u of its "
                                   "thread_options, %u here): this fio is another build of that version; "
                                   "rebuild the engine against this fio's own source (make FIO_SRC=DIR, see "
                                   "etcd-fio's README)\n";
        if (f_err)
            log_err(lmsg, ETCDWAL_FIO_VERSION, fio_version_string, moved->name, want, moved->off1);
        else
            fprintf(stderr, lmsg, ETCDWAL_FIO_VERSION, fio_version_string, moved->name, want, moved->off1);
        ioengine.version = -1;
        return;
    }
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
    .options = etcdwal_fio_options,
    .option_struct_size = sizeof(struct etcdwal_options),
};
