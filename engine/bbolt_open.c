/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bbolt_open.c — opening and closing the bbolt commit model's db file (bbolt.h): the file created new,
 * bbolt's init() pages and the used area the rewrites land in, one fdatasync; bb_close. The commits
 * themselves are in bbolt.c. */
#include "bbolt_int.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The name is one path component, the append share a percentage: -EINVAL otherwise. */
static int check_args(const char *name, const bb_config *cfg, char *err, size_t errlen)
{
    if (!name || !*name || strchr(name, '/') || strlen(name) > NAME_MAX) {
        snprintf(err, errlen, "bb_open: invalid file name '%s'", name ? name : "(null)");
        return -EINVAL;
    }
    if (cfg && cfg->append_pct > 100) {
        snprintf(err, errlen, "bb_open: append share %u%% is above 100%%", cfg->append_pct);
        return -EINVAL;
    }
    return 0;
}

/* The configuration with its defaults filled in: at least the 4 pages bbolt's init() writes. */
static void set_config(bb_db *db, const bb_config *cfg)
{
    if (cfg)
        db->cfg = *cfg;
    else
        db->cfg.append_pct = BB_DEFAULT_APPEND_PCT;
    if (db->cfg.initial_pages < 4)
        db->cfg.initial_pages = 4;
    if (!db->cfg.max_txn_pages)
        db->cfg.max_txn_pages = BB_DEFAULT_MAX_TXN_PAGES;
    db->rng = db->cfg.seed ? db->cfg.seed : 0x62626f6c74ull;
}

/* The path for messages: the directory's path read from /proc/self/fd, or "<dirfd N>" without /proc. */
static void set_path(bb_db *db, int dirfd, const char *name)
{
    char link[64], dir[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = dirfd >= 0 ? readlink(link, dir, sizeof dir - 1) : -1;
    if (n > 0) {
        dir[n] = '\0';
        snprintf(db->path, sizeof db->path, "%.*s/%s", (int)(sizeof db->path - NAME_MAX - 2), dir, name);
    } else {
        snprintf(db->path, sizeof db->path, "<dirfd %d>/%s", dirfd, name);
    }
}

/* The transaction buffer: max_txn_pages page-aligned pages and their pending list. On failure frees db
 * (nothing is open yet) and returns -ENOMEM. */
static int alloc_txn_buffer(bb_db *db, char *err, size_t errlen)
{
    db->arena_cap = db->cfg.max_txn_pages;
    db->pend = calloc(db->arena_cap, sizeof *db->pend);
    if (posix_memalign((void **)&db->arena, BB_PAGE, (size_t)db->arena_cap * BB_PAGE) != 0)
        db->arena = NULL;
    if (!db->pend || !db->arena) {
        snprintf(err, errlen, "bb_open %s: cannot allocate a %u-page transaction buffer", db->path,
                 db->arena_cap);
        free(db->pend);
        free(db->arena);
        free(db);
        return -ENOMEM;
    }
    return 0;
}

/* A copy of the directory fd of db's own (bb_close unlinks the file through it), then the db file,
 * created new (O_EXCL: never an existing file). On failure closes db. */
static int open_file(bb_db *db, int dirfd, const char *name, char *err, size_t errlen)
{
    int rc;
    db->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (db->dirfd < 0) {
        rc = bb_fail(err, errlen, errno, "dup of the directory of", db, NULL);
        bb_close(db, 0);
        return rc;
    }
    db->fd = openat(db->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (db->fd < 0) {
        rc = bb_fail(err, errlen, errno, "openat", db, NULL);
        bb_close(db, 0);
        return rc;
    }
    return 0;
}

/* bbolt's init(): meta 0 (txid 0), meta 1 (txid 1), an empty freelist page, an empty leaf, written
 * with one pwrite. */
static int write_init_pages(bb_db *db, char *err, size_t errlen)
{
    int rc;
    unsigned char *b = db->arena;
    uint32_t init_pages = db->arena_cap >= 4 ? 4 : db->arena_cap;
    memset(b, 0, (size_t)init_pages * BB_PAGE);
    bb_build_meta(b, 0, 4);
    bb_build_meta(b + BB_PAGE, 1, 4);
    if (init_pages == 4) {
        bb_page_header(b + 2 * BB_PAGE, 2, BB_FLAG_FREELIST, 0);
        bb_page_header(b + 3 * BB_PAGE, 3, BB_FLAG_LEAF, 0);
        rc = bb_pwrite_all(db, b, 4 * BB_PAGE, 0, err, errlen);
    } else { /* a 1..3-page arena: same bytes, in pieces */
        rc = bb_pwrite_all(db, b, 2 * BB_PAGE, 0, err, errlen);
        memset(b, 0, BB_PAGE);
        bb_page_header(b, 2, BB_FLAG_FREELIST, 0);
        if (!rc)
            rc = bb_pwrite_all(db, b, BB_PAGE, 2 * BB_PAGE, err, errlen);
        bb_page_header(b, 3, BB_FLAG_LEAF, 0);
        if (!rc)
            rc = bb_pwrite_all(db, b, BB_PAGE, 3 * BB_PAGE, err, errlen);
    }
    return rc;
}

/* The used area the rewrites land in: real data pages, so a rewrite replaces allocated blocks as it
 * does in a long-lived etcd db (a sparse hole would make it an allocating write). */
static int write_used_area(bb_db *db, char *err, size_t errlen)
{
    int rc = 0;
    unsigned char *b = db->arena;
    for (uint64_t pg = 4; !rc && pg < db->cfg.initial_pages;) {
        uint64_t k = db->cfg.initial_pages - pg;
        if (k > db->arena_cap)
            k = db->arena_cap;
        memset(b, 0, (size_t)k * BB_PAGE);
        for (uint64_t i = 0; i < k; i++) {
            bb_page_header(b + i * BB_PAGE, pg + i, BB_FLAG_LEAF, 0);
            memset(b + i * BB_PAGE + 16, 0x5a, 2048); /* half-full leaves */
        }
        rc = bb_pwrite_all(db, b, (size_t)k * BB_PAGE, pg * BB_PAGE, err, errlen);
        pg += k;
    }
    return rc;
}

int bb_open(bb_db **out, int dirfd, const char *name, const bb_config *cfg, char *err, size_t errlen)
{
    *out = NULL;
    int rc = check_args(name, cfg, err, errlen);
    if (rc)
        return rc;
    bb_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, errlen, "bb_open %s: out of memory", name);
        return -ENOMEM;
    }
    db->fd = -1;
    db->dirfd = -1;
    snprintf(db->name, sizeof db->name, "%s", name);
    set_config(db, cfg);
    set_path(db, dirfd, name);

    hist_init(&db->st.commit);
    hist_init(&db->st.sync);
    hist_init(&db->st.fdatasync);
    hist_init(&db->st.grow);
    hist_init(&db->st.pages_per_commit);

    rc = alloc_txn_buffer(db, err, errlen);
    if (rc)
        return rc;
    rc = open_file(db, dirfd, name, err, errlen);
    if (rc)
        return rc;
    /* The initial pages, then one fdatasync (bbolt's init() ends with fdatasync). */
    rc = write_init_pages(db, err, errlen);
    if (!rc)
        rc = write_used_area(db, err, errlen);
    if (!rc && sys_fdatasync(db->fd) != 0)
        rc = bb_fail(err, errlen, errno, "fdatasync", db, NULL);
    if (rc) {
        bb_close(db, 1);
        return rc;
    }
    db->hw = db->txn_hw = db->hw_prev = db->reuse_next = db->cfg.initial_pages;
    db->txid = 1;
    db->st.file_size = db->cfg.initial_pages * BB_PAGE;
    db->st.high_water_pages = db->hw;
    *out = db;
    return 0;
}
void bb_close(bb_db *db, int remove_file)
{
    if (!db)
        return;
    if (db->fd >= 0)
        close(db->fd);
    if (remove_file && db->dirfd >= 0)
        unlinkat(db->dirfd, db->name, 0);
    if (db->dirfd >= 0)
        close(db->dirfd);
    free(db->pend);
    free(db->arena);
    free(db);
}
