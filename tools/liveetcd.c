/* SPDX-License-Identifier: MIT */
/* liveetcd.c — finds a live etcd on the filesystem check loads (see liveetcd.h): /proc/locks matched by
 * inode against the WAL files near DIR, and the processes that have etcd's files open. Read-only: stat,
 * fstatat, readlink and directory listings; no file of etcd's is opened. */
#include "jw.h"
#include "liveetcd.h"
#include "../engine/etcdfiles.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define LE_MAX_FILES  4096  /* etcd files near DIR whose inodes are matched against the locks */
#define LE_MAX_LOCKS  4096
#define LE_MAX_SUBDIR 256   /* subdirectories of DIR (and of each of them) looked into */
#define LE_MAX_PROCS  64    /* etcd processes remembered */

size_t liveetcd_parse_locks(const char *text, unsigned maj, unsigned min, liveetcd_lock *out, size_t max)
{
    size_t n = 0;
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char line[512];
        if (len < sizeof line) {
            memcpy(line, l, len);
            line[len] = '\0';
            /* "N: KIND ADVISORY|MANDATORY|... READ|WRITE|... PID MAJ:MIN:INO START END"; a waiter has "->"
             * after the number (fs/locks.c, lock_get_status) */
            char kind[16], mode[16], rw[16];
            long pid;
            unsigned a, b;
            unsigned long long ino;
            int pos = 0;
            if (sscanf(line, "%*d:%n", &pos) == 0 && pos > 0 && !strstr(line, "->") &&
                sscanf(line + pos, " %15s %15s %15s %ld %x:%x:%llu", kind, mode, rw, &pid, &a, &b, &ino) == 7 &&
                a == maj && b == min) {
                if (n < max) {
                    liveetcd_lock *k = &out[n];
                    cli_msg(k->kind, sizeof k->kind, "%s", kind);
                    k->write = !strcmp(rw, "WRITE");
                    k->pid = pid;
                    k->maj = a;
                    k->min = b;
                    k->ino = ino;
                }
                n++;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return n;
}

int liveetcd_wal_name(const char *name)
{
    return etcdfiles_kind_of(name) == ETCDFILES_WAL_TMP || etcdfiles_wal_segment(name);
}

/* The last path component of the first n bytes of path. */
static const char *base_of(const char *path, size_t n, size_t *len)
{
    size_t e = n;
    while (e && path[e - 1] != '/')
        e--;
    *len = n - e;
    return path + e;
}

int liveetcd_datadir_of(const char *path, char *out, size_t n)
{
    size_t len = strlen(path), bl;
    const char *b = base_of(path, len, &bl);
    if (b == path)
        return 0;
    size_t dl = (size_t)(b - path) - 1; /* the directory, without the '/' */
    size_t pl;
    const char *parent = base_of(path, dl, &pl);
    etcdfiles_kind k = etcdfiles_kind_of(b);
    int wal = pl == 3 && !strncmp(parent, ETCDFILES_WAL_DIR, 3) && liveetcd_wal_name(b);
    int snap = pl == 4 && !strncmp(parent, ETCDFILES_SNAP_DIR, 4) && (k == ETCDFILES_DB || k == ETCDFILES_SNAP);
    if (!wal && !snap)
        return 0;
    if (parent == path)
        return 0;
    size_t ml, mdl = (size_t)(parent - path) - 1;
    const char *member = base_of(path, mdl, &ml);
    if (ml != 6 || strncmp(member, ETCDFILES_MEMBER_DIR, 6))
        return 0;
    size_t dd = member > path ? (size_t)(member - path) - 1 : 0;
    cli_msg(out, n, "%.*s", (int)(dd ? dd : 1), dd ? path : "/");
    return 1;
}

int liveetcd_related(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t m = la < lb ? la : lb;
    if (strncmp(a, b, m))
        return 0;
    if (la == lb)
        return 1;
    const char *longer = la > lb ? a : b;
    return m == 1 || longer[m] == '/'; /* "/" is everyone's parent */
}

/* ---- the etcd files near DIR ---- */

typedef struct le_file {
    dev_t    dev;
    uint64_t ino;
    int      wal;           /* a WAL segment or spare (else member/snap/db) */
    char     datadir[4096];
} le_file;

typedef struct le_scan {
    const char *dir;
    dev_t       dev;
    le_file    *files;
    size_t      nfiles;
} le_scan;

static void add_file(le_scan *s, const struct stat *st, int wal, const char *datadir)
{
    if (s->nfiles >= LE_MAX_FILES)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->files[i].dev == st->st_dev && s->files[i].ino == (uint64_t)st->st_ino)
            return;
    le_file *f = &s->files[s->nfiles++];
    f->dev = st->st_dev;
    f->ino = (uint64_t)st->st_ino;
    f->wal = wal;
    cli_msg(f->datadir, sizeof f->datadir, "%s", datadir);
}

/* The directory at path for listing, *fd its descriptor (for fstatat; closedir closes it); NULL when it
 * cannot be opened. */
static DIR *open_dir(const char *path, int *fd)
{
    *fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = *fd >= 0 ? fdopendir(*fd) : NULL;
    if (!d && *fd >= 0)
        close(*fd);
    return d;
}

/* The WAL-named regular files directly in wdir (listing only; each is fstatat'ed without following). */
static void add_waldir(le_scan *s, const char *wdir, const char *datadir)
{
    int fd;
    DIR *d = open_dir(wdir, &fd);
    if (!d)
        return;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)))
        if (liveetcd_wal_name(e->d_name) && fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            add_file(s, &st, 1, datadir);
    closedir(d);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* p as an etcd data directory (member/wal, member/snap/db), and p itself as a --wal-dir. */
static void look_at(le_scan *s, const char *p)
{
    char w[4200];
    cli_msg(w, sizeof w, "%s/" ETCDFILES_MEMBER_DIR "/" ETCDFILES_WAL_DIR, p);
    if (is_dir(w)) {
        add_waldir(s, w, p);
        struct stat st;
        cli_msg(w, sizeof w, "%s/" ETCDFILES_MEMBER_DIR "/" ETCDFILES_SNAP_DIR "/" ETCDFILES_DB_NAME, p);
        if (lstat(w, &st) == 0 && S_ISREG(st.st_mode))
            add_file(s, &st, 0, p);
    }
    size_t bl;
    const char *b = base_of(p, strlen(p), &bl);
    if (!(bl == 3 && !strncmp(b, ETCDFILES_WAL_DIR, 3))) /* member/wal itself is looked at from its data dir */
        add_waldir(s, p, p);
}

/* DIR's subdirectories (and theirs), never our own private ones nor symlinks. */
static void look_below(le_scan *s, const char *p, int depth)
{
    int fd;
    DIR *d = open_dir(p, &fd);
    if (!d)
        return;
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(d)) && seen < LE_MAX_SUBDIR) {
        if (e->d_name[0] == '.' || !strncmp(e->d_name, "etcd-fio", 8) || !strcmp(e->d_name, "member"))
            continue;
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_dev != s->dev)
            continue;
        seen++;
        char sub[4200];
        cli_msg(sub, sizeof sub, "%s/%s", strcmp(p, "/") ? p : "", e->d_name);
        look_at(s, sub);
        if (depth > 1)
            look_below(s, sub, depth - 1);
    }
    closedir(d);
}

static void look_around(le_scan *s)
{
    char p[4096];
    cli_msg(p, sizeof p, "%s", s->dir);
    for (;;) { /* DIR and its parents, as long as they are on DIR's filesystem */
        struct stat st;
        if (stat(p, &st) != 0 || st.st_dev != s->dev)
            break;
        look_at(s, p);
        char *sl = strrchr(p, '/');
        if (!sl || !strcmp(p, "/"))
            break;
        if (sl == p)
            p[1] = '\0';
        else
            *sl = '\0';
    }
    look_below(s, s->dir, 2);
}

/* ---- processes ---- */

typedef struct le_proc {
    long     pid;
    char     comm[32];
    char     datadir[4096]; /* "" when only its working directory is known */
    char     file[4096];    /* the etcd file it has open, or its working directory */
    uint64_t ino;           /* of that file */
    int      by_cwd;
} le_proc;

static void read_small(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t k = read(fd, buf, n - 1);
    close(fd);
    buf[k > 0 ? k : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* One visible process: the first etcd file on DIR's device it has open (by the name etcd gives it, or any
 * WAL-named file when the process is called etcd: a --wal-dir), else, for a process called etcd, its
 * working directory on that device. 1 when it counts. */
static int scan_proc(const le_scan *s, long pid, le_proc *out)
{
    char path[64], comm[32];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    read_small(path, comm, sizeof comm);
    int etcd = !strcmp(comm, "etcd");
    snprintf(path, sizeof path, "/proc/%ld/fd", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char fdp[320], t[4096];
        snprintf(fdp, sizeof fdp, "/proc/%ld/fd/%s", pid, e->d_name);
        ssize_t k = readlink(fdp, t, sizeof t - 1);
        if (k <= 0)
            continue;
        t[k] = '\0';
        char dd[4096] = "";
        size_t bl;
        const char *b = base_of(t, (size_t)k, &bl);
        int named = liveetcd_datadir_of(t, dd, sizeof dd);
        if (!named && !(etcd && liveetcd_wal_name(b) && !strstr(t, "/etcd-fio.")))
            continue;
        struct stat st;
        if (stat(fdp, &st) != 0 || st.st_dev != s->dev || !S_ISREG(st.st_mode))
            continue;
        if (!named) /* a --wal-dir: the directory of the segment */
            cli_msg(dd, sizeof dd, "%.*s", (int)(b - t > 1 ? b - t - 1 : 1), t);
        out->pid = pid;
        cli_msg(out->comm, sizeof out->comm, "%s", comm);
        cli_msg(out->datadir, sizeof out->datadir, "%s", dd);
        cli_msg(out->file, sizeof out->file, "%s", t);
        out->ino = (uint64_t)st.st_ino;
        closedir(d);
        return 1;
    }
    if (d)
        closedir(d);
    if (!etcd)
        return 0;
    char cwd[4096];
    snprintf(path, sizeof path, "/proc/%ld/cwd", pid);
    ssize_t k = readlink(path, cwd, sizeof cwd - 1);
    struct stat st;
    if (k <= 0 || stat(path, &st) != 0 || st.st_dev != s->dev)
        return 0;
    cwd[k] = '\0';
    out->pid = pid;
    out->by_cwd = 1;
    cli_msg(out->comm, sizeof out->comm, "%s", comm);
    cli_msg(out->file, sizeof out->file, "%s", cwd);
    return 1;
}

static size_t scan_procs(const le_scan *s, le_proc *out, size_t max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long me = (long)getpid();
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == me)
            continue;
        if (scan_proc(s, pid, &out[n]))
            n++;
    }
    closedir(d);
    return n;
}

/* Unix time the process started: field 22 of /proc/PID/stat (clock ticks after boot) + btime. */
static double start_time(long pid)
{
    char path[64], buf[1024], st[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    read_small(path, buf, sizeof buf);
    char *rp = strrchr(buf, ')');
    unsigned long long ticks = 0;
    if (!rp || sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                      &ticks) != 1)
        return 0;
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t k = read(fd, st, sizeof st - 1);
    close(fd);
    st[k > 0 ? k : 0] = '\0';
    const char *bt = strstr(st, "\nbtime ");
    long hz = sysconf(_SC_CLK_TCK);
    if (!bt || hz <= 0)
        return 0;
    return (double)strtoull(bt + 7, NULL, 10) + (double)ticks / (double)hz;
}

static char *read_locks(void)
{
    char err[64];
    return cli_read_file("/proc/locks", 16 << 20, NULL, err, sizeof err);
}

/* The lock evidence: the first file near DIR with a held write lock (WAL first). */
static const le_file *locked_file(const le_scan *s, const liveetcd_lock *lk, size_t nl, long *pid)
{
    const le_file *best = NULL;
    *pid = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        for (size_t k = 0; k < nl; k++)
            if (lk[k].write && lk[k].ino == s->files[i].ino && (!best || (s->files[i].wal && !best->wal))) {
                best = &s->files[i];
                if (lk[k].pid > 0)
                    *pid = lk[k].pid; /* flock/POSIX locks name their holder where it is visible */
            }
    return best;
}

void liveetcd_find(const char *dir, unsigned maj, unsigned min, liveetcd *out)
{
    memset(out, 0, sizeof *out);
    le_scan s = {dir, makedev(maj, min), calloc(LE_MAX_FILES, sizeof(le_file)), 0};
    le_proc *pr = calloc(LE_MAX_PROCS, sizeof *pr);
    liveetcd_lock *lk = calloc(LE_MAX_LOCKS, sizeof *lk);
    char *locks = read_locks();
    if (!s.files || !pr || !lk)
        goto out;
    look_around(&s);
    size_t nl = locks ? liveetcd_parse_locks(locks, maj, min, lk, LE_MAX_LOCKS) : 0;
    if (nl > LE_MAX_LOCKS)
        nl = LE_MAX_LOCKS;
    size_t np = scan_procs(&s, pr, LE_MAX_PROCS);
    long lpid;
    const le_file *lf = locked_file(&s, lk, nl, &lpid);
    /* the process to name: the holder of the locked files (by its open file or data dir), else one that
     * has etcd's files open here, else one called etcd working here; data dirs related to DIR first */
    const le_proc *who = NULL;
    for (int pass = 0; pass < 4 && !who; pass++)
        for (size_t i = 0; i < np && !who; i++) {
            const le_proc *p = &pr[i];
            int mine = lf && (p->ino == lf->ino || (p->datadir[0] && !strcmp(p->datadir, lf->datadir)) ||
                              (lpid && p->pid == lpid));
            if ((pass == 0 && mine) || (pass == 1 && !lf && !p->by_cwd && liveetcd_related(p->datadir, dir)) ||
                (pass == 2 && !lf && !p->by_cwd) || (pass == 3 && !lf && liveetcd_related(p->file, dir)))
                who = p;
        }
    if (!lf && !who)
        goto out;
    out->found = 1;
    out->wal_locked = lf && lf->wal;
    out->pid = who ? who->pid : lpid;
    out->start_s = out->pid > 0 ? start_time(out->pid) : 0;
    cli_msg(out->datadir, sizeof out->datadir, "%s", lf ? lf->datadir : who->datadir);
    out->here = out->datadir[0] ? liveetcd_related(out->datadir, dir) : who && liveetcd_related(who->file, dir);
    out->more = (unsigned)(np - (who ? 1 : 0));
    char w[128] = "";
    if (out->pid > 0)
        cli_msg(w, sizeof w, "pid %ld (%s)", out->pid, who ? who->comm : "?");
    if (lf)
        cli_msg(out->how, sizeof out->how, "%s in %s %s locked (/proc/locks)%s%s%s", lf->wal ? "its WAL files" :
                "its backend db", lf->datadir, lf->wal ? "are" : "is", out->pid > 0 ? ", held by " : ", by a process "
                "not visible here (another pid namespace or container)", w, "");
    else if (!who->by_cwd)
        cli_msg(out->how, sizeof out->how, "%s has %s open", w, who->file);
    else
        cli_msg(out->how, sizeof out->how, "%s works in %s, on this filesystem", w, who->file);
out:
    free(locks);
    free(lk);
    free(pr);
    free(s.files);
}

void liveetcd_report(const liveetcd *le, result_run *r)
{
    if (!le->found) {
        result_add_detail(r, "live_etcd", "live etcd", NULL, "none found on this filesystem (no locked WAL near the "
                      "directory, no visible etcd process with files on it)");
        return;
    }
    yajl_gen j = jw_new(0);
    jw_open(j);
    jw_kbool(j, "found", 1);
    jw_kbool(j, "here", le->here);
    jw_kstr_or_null(j, "data_dir", le->datadir);
    jw_ku64(j, "pid", le->pid > 0 ? (uint64_t)le->pid : JW_UNKNOWN);
    jw_kbool(j, "wal_locked", le->wal_locked);
    jw_kstr(j, "how", le->how);
    jw_close(j);
    result_add_detail(r, "live_etcd", "live etcd", j, "%s%s: %s; our figures include its load, and the check slowed "
                  "it while it ran", le->here ? "in this directory" : "on this filesystem",
                  le->datadir[0] ? "" : " (data directory not visible)", le->how);
    size_t room = sizeof r->explain / sizeof r->explain[0];
    if (r->nexplain < room) {
        explain_line *l = &r->explain[r->nexplain++];
        l->rule = "shared-with-etcd";
        cli_msg(l->why, sizeof l->why, "a live etcd%s%s writes to this filesystem: the latencies measured include "
                "its own writes, and it was slowed while the check ran", le->datadir[0] ? " with data in " : "",
                le->datadir);
        l->advice = "to judge the disk itself, run the check on a node or spare disk of the same kind without etcd; "
                    "here, watch etcd with --etcd URL so the check stops before it hurts it";
    }
}
