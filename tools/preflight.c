/* SPDX-License-Identifier: MIT */
/* preflight.c — the checks before fio starts (see preflight.h), shared by check and capacity. */
#include "preflight.h"

#include "outfile.h"
#include "tmpdir.h"

int preflight(const cli_cmd *cmd, const char *dir, uint64_t need, int force, const preflight_out *outs,
              size_t nouts, fsinfo *fi)
{
    char err[4400], desc[1024], why[2048];
    if (cli_dir_ok(dir, err, sizeof err)) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (fsinfo_get(dir, fi, err, sizeof err) != 0) {
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (cli_dir_ok(fi->path, err, sizeof err)) { /* the resolved path goes into the job file */
        cli_err(cmd, "%s", err);
        return 2;
    }
    if (out_etcd_dir(fi->path, err, sizeof err)) { /* the engine's directories never among etcd's files */
        cli_err(cmd, "%s", err);
        return 2;
    }
    fsinfo_describe(fi, desc, sizeof desc);
    if (!fi->writable) {
        cli_err(cmd, "%s: cannot create files there (%s); choose a writable directory on the disk to test", fi->path,
                desc);
        return 2;
    }
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
    }
    if (fsinfo_suspicious(fi, NULL, why, sizeof why)) {
        if (!force) {
            cli_err(cmd, "refusing: %s (use --force to test it anyway)", why);
            return 2;
        }
        cli_err(cmd, "warning: %s (--force)", why);
    }
    for (size_t i = 0; i < nouts; i++)
        if (outs[i].path && out_check(outs[i].path, err, sizeof err)) {
            cli_err(cmd, "--%s %s", outs[i].opt, err);
            return 2;
        }
    tmpdir_reap(fi->path); /* what a killed check --classic left in DIR: only with the proof (tmpdir.h) */
    return 0;
}
