/* SPDX-License-Identifier: MIT */
/* preflight.c — the checks before fio starts (see preflight.h), shared by check and capacity. */
#include "preflight.h"

#include "check.h"
#include "outfile.h"
#include "strbuf.h"
#include "tmpdir.h"

/* A refusal --force can override: 1 (refused, message printed), or 0 (forced: warned, listed). */
static int refuse_unless_forced(const cli_cmd *cmd, int force, check_forced *forced, const char *why)
{
    if (!force) {
        cli_err(cmd, "refusing: %s (use --force to test it anyway)", why);
        return 1;
    }
    cli_err(cmd, "warning: %s (--force)", why);
    check_forced_add(forced, "%.590s", why);
    return 0;
}

/* The directory itself: a path fio's job-file parser reads as meant, on a filesystem we can write and that
 * has inodes left. 0, or 2 after the message. */
static int dir_usable(const cli_cmd *cmd, const char *dir, fsinfo *fi, const char *desc)
{
    char err[CLI_ERRLEN];
    if (cli_dir_ok(fi->path, err, sizeof err)) { /* the resolved path goes into the job file */
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (outfile_etcd_dir(fi->path, err, sizeof err)) { /* the engine's directories never among etcd's files */
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (!fi->writable) {
        char cause[512];
        fsinfo_cause(fi, fi->probe_errno, cause, sizeof cause);
        cli_err(cmd, "%s: cannot create files there: %s (%s); choose a writable directory on the disk to test",
                fi->path, cause, desc);
        return 2;
    }
    /* segments, spares, the db, locks, stats: a few dozen; a filesystem out of inodes fails the engine's init */
    if (fi->total_inodes && fi->free_inodes < 64) {
        cli_err(cmd, "%s: %s: only %llu of %llu inodes free (df -i); the run needs a few dozen", fi->path, desc,
                (unsigned long long)fi->free_inodes, (unsigned long long)fi->total_inodes);
        return 2;
    }
    (void)dir;
    return 0;
}

/* Room: what the run takes, and a live etcd's reserve after it. 0, or 2 after the message. */
static int room_left(const cli_cmd *cmd, const fsinfo *fi, const char *desc, uint64_t need, int force,
                     check_forced *forced)
{
    if (fi->free_bytes < need) {
        cli_err(cmd, "%s: %llu MiB free on %s, the run needs about %llu MiB", fi->path,
                (unsigned long long)(fi->free_bytes >> 20), desc, (unsigned long long)(need >> 20));
        return 2;
    }
    /* a live etcd needs room for its next WAL segment and the spare (2 x 64 MB) plus slack: never take a
     * disk below that for a test */
    uint64_t reserve = 2 * PREFLIGHT_SEGMENT_BYTES + fi->total_bytes / 20;
    if (fi->free_bytes - need < reserve) {
        if (!force) {
            cli_err(cmd, "%s: the run needs about %llu MiB and would leave %llu MiB free, less than the %llu MiB a "
                    "live etcd should keep (2 x 64 MB + 5 %% of the filesystem); refusing (--force to run anyway)",
                    fi->path, (unsigned long long)(need >> 20), (unsigned long long)((fi->free_bytes - need) >> 20),
                    (unsigned long long)(reserve >> 20));
            return 2;
        }
        cli_err(cmd, "warning: the run may leave less than %llu MiB free on %s (--force)",
                (unsigned long long)(reserve >> 20), fi->path);
        check_forced_add(forced, "less than %llu MiB would be left free", (unsigned long long)(reserve >> 20));
    }
    return 0;
}

int preflight(const cli_cmd *cmd, const char *dir, uint64_t need, int force, const preflight_out *outs,
              size_t nouts, fsinfo *fi, check_forced *forced)
{
    char err[CLI_ERRLEN], desc[2048], why[4096], pre[2048];
    /* a preloaded library goes into fio too: eatmydata makes every fdatasync a no-op (the engine's own
     * syncs are raw system calls, but what else such a library changes is not known) */
    if (check_env_preload(pre, sizeof pre, NULL)) {
        if (!force) {
            cli_err(cmd, "refusing: %s: a preloaded library can replace fio's file and sync calls (eatmydata makes "
                    "fdatasync a no-op); run without it (--force to test anyway)", pre);
            return 2;
        }
        cli_err(cmd, "warning: %s (--force)", pre);
        check_forced_add(forced, "preloaded: %s", pre);
    }
    if (cli_dir_ok(dir, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (fsinfo_get(dir, fi, err, sizeof err) != 0) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    fsinfo_describe(fi, desc, sizeof desc);
    if (dir_usable(cmd, dir, fi, desc))
        return 2;
    /* a layer that is not the disk first: the room on it would not matter */
    char reason[2048];
    if (fsinfo_layer_reason(fi, reason, sizeof reason)) {
        strbuf layer = STRBUF_INIT; /* the path, the filesystem and the layer's reason: no bound on their sum */
        strbuf_addf(&layer, "%s is on %s: %s", fi->path, desc, reason);
        int refused = refuse_unless_forced(cmd, force, forced, layer.buf);
        strbuf_release(&layer);
        if (refused)
            return 2;
    }
    if (room_left(cmd, fi, desc, need, force, forced))
        return 2;
    if (fsinfo_other_disk(fi, NULL, why, sizeof why) && refuse_unless_forced(cmd, force, forced, why))
        return 2;
    for (size_t i = 0; i < nouts; i++)
        if (outs[i].path && outfile_check(outs[i].path, err, sizeof err)) {
            cli_err(cmd, "--%s %s", outs[i].opt, err);
            return 2;
        }
    tmpdir_reap(fi->path); /* what a killed check --classic left in DIR: only with the proof (tmpdir.h) */
    return 0;
}
