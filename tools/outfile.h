/* SPDX-License-Identifier: MIT */
/* outfile.h — the one way etcd-fio creates a file the user named (--json FILE, --svg, --prometheus, the
 * --keep-output directory and what goes in it). Safe as root in a directory others can write to: the data
 * goes into a fresh temp file beside the target (O_CREAT|O_EXCL|O_NOFOLLOW, so a planted symlink is never
 * followed), is fsynced and renamed over the target; a target that is a symlink is refused, and a
 * keep-output directory must be owned by the caller and not writable by group or others.
 * Every path is checked with outfile_check()/outfile_dir_open() before fio starts, so a typo fails at once. Nothing
 * is ever written among etcd's files: a directory within an etcd data directory's member/ (one with wal/
 * or snap/ in it) or one holding etcd WAL segments is refused, also when a symlinked parent leads there
 * (the check is on the directory the kernel opened), at the check and again at the write.
 * Prefix of_ (out_ is the result writers', out.h). */
#ifndef ETCD_FIO_OUTFILE_H
#define ETCD_FIO_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* The target can be written later: its directory exists and is writable, and the target is not a
 * directory or a symlink. 0, or -1 with "PATH: why" in err. */
int outfile_check(const char *path, char *err, size_t errlen);
/* Writes data to path (temp + fsync + rename, mode 0644). 0, or -1 with "PATH: why" in err. */
int outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* Renders with render(memstream, ctx) (0 or -1) and writes the result with outfile_write. */
int outfile_write_with(const char *path, int (*render)(FILE *f, const void *ctx), const void *ctx, char *err,
                   size_t errlen);

/* Opens (creating it 0700 if missing) a directory for kept outputs; refuses a symlink, one not owned by
 * the caller, or one writable by group/others. Returns an O_DIRECTORY fd, or -1 with a message in err. */
int outfile_dir_open(const char *path, char *err, size_t errlen);
/* Writes dirfd/name as outfile_write does; messages name "shown/name" (shown: the directory as given). */
int outfile_write_at(int dirfd, const char *shown, const char *name, const void *data, size_t len, char *err,
                 size_t errlen);

/* 0, or -1 with "DIR: inside etcd's data directory ..." when dir is among etcd's files as above (a check's
 * DIR, a TMPDIR): nothing of ours goes there. */
int outfile_etcd_dir(const char *dir, char *err, size_t errlen);

#endif
