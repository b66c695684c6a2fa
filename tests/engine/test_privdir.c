/* SPDX-License-Identifier: MIT */
/* test_privdir.c — the private directory's rules (engine/privdir.c) against a real directory: names,
 * create/remove/keep, the lock held from before the directory is named, and the reaper's judgement —
 * a takeable lock is stale whatever pid the name carries, a held one is alive even with a dead pid; only
 * our names, only real directories of our uid, only our files, no symlink followed; an old engine's
 * directory without a lock file only when provably ours and dead; check --classic's directory — plus the creation
 * race (a reaper at every step of privdir_create, a reaper holding the lock while the creator waits, a
 * SIGKILL at every step) and several processes creating, reaping and removing in one directory at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "privdir.h"

#define PATHMAX 8800
/* every path here is a short mkdtemp path plus a name: gcc cannot know that */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static char *mktmp(void)
{
    char *p = testdir_make("test_privdir");
    assert_non_null(p);
    return p;
}

static void rmtree(const char *path)
{
    testdir_remove(path);
}

/* How many names (not starting with '.') dir holds. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int exists(const char *dir, const char *name)
{
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    struct stat st;
    return lstat(p, &st) == 0;
}

static void touch(const char *dir, const char *name)
{
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
}

/* 1 if someone holds the OFD lock on DIR/lock (we cannot take it from a new open file description). */
static int lock_held(const char *dir)
{
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s/" PRIVDIR_LOCK, dir);
    int fd = open(p, O_RDWR | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    int held = fcntl(fd, F_OFD_SETLK, &fl) != 0;
    close(fd);
    return held;
}

/* Takes the OFD lock on DIR/lock from a new open file description, as a live run holds it; the fd. */
static int hold_lock(const char *dir)
{
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s/" PRIVDIR_LOCK, dir);
    int fd = open(p, O_RDWR);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    return fd;
}

static pid_t dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

/* A run killed after writing: a child creates the directory (named with label_pid), writes files, dies
 * without cleanup. Its path goes to out. */
static void killed_run(const char *parent, const char *job, pid_t label_pid, const char *file, char *out)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        privdir pd;
        char err[512];
        if (privdir_create(&pd, parent, job, label_pid, err, sizeof err) != 0)
            _exit(1);
        if (file)
            touch(pd.path, file);
        if (write(pfd[1], pd.path, strlen(pd.path) + 1) < 0)
            _exit(1);
        _exit(0); /* no privdir_remove: as after SIGKILL */
    }
    close(pfd[1]);
    ssize_t n = read(pfd[0], out, PATHMAX);
    close(pfd[0]);
    int st;
    waitpid(c, &st, 0);
    assert_true(n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_names(void **state)
{
    (void)state;
    char *parent = mktmp();
    char err[512], path[PATHMAX];
    privdir a, b;
    assert_int_equal(privdir_create(&a, parent, "my job/1", 4242, err, sizeof err), 0);
    assert_string_equal(a.name, "etcd-fio.4242.my_job_1.0");
    assert_int_equal(privdir_create(&b, parent, "my job/1", 4242, err, sizeof err), 0);
    assert_string_equal(b.name, "etcd-fio.4242.my_job_1.1");
    struct stat st;
    assert_int_equal(stat(a.path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 01700); /* 0700 plus the creation mark */
    assert_true(exists(a.path, PRIVDIR_LOCK));
    assert_true(lock_held(a.path)); /* held from before it had its name */
    assert_true(lock_held(b.path));
    pid_t pid;
    assert_int_equal(privdir_match(a.name, &pid), 1);
    assert_int_equal(pid, 4242);
    assert_int_equal(privdir_match("etcd-fio.4242.job.0.x", &pid), 0);
    assert_int_equal(privdir_match("etcd-fio.abc.job.0", &pid), 0);
    assert_int_equal(privdir_match("etcd-fio-kept.4242.job.0", &pid), 0);
    assert_int_equal(privdir_match("etcd-fio.4242.job.tmp-aB3xY9", &pid), 0);
    assert_int_equal(privdir_match("member", &pid), 0);
    assert_int_equal(privdir_match_staging("etcd-fio.4242.job.tmp-aB3xY9"), 1);
    assert_int_equal(privdir_match_staging("etcd-fio.4242.job.tmp-aB3xY"), 0);
    assert_int_equal(privdir_match_staging("etcd-fio.4242.job.tmp-aB3xY9z"), 0);
    assert_int_equal(privdir_match_staging("etcd-fio.4242.job.tmp-aB3.Y9"), 0);
    assert_int_equal(privdir_match_staging("etcd-fio.4242.job.0"), 0);
    assert_int_equal(privdir_match_staging("etcd-fio.x.job.tmp-aB3xY9"), 0);
    assert_int_equal(privdir_own_file(".etcd-fio-probe.123"), 1); /* check's write probe */
    assert_int_equal(privdir_own_file(".etcd-fio-probe."), 0);
    assert_int_equal(privdir_own_file(".etcd-fio-probe.12a"), 0);
    assert_int_equal(privdir_own_file(".etcd-fio-probe.1/x"), 0);
    assert_int_equal(privdir_own_file("notes.txt"), 0);
    /* no staging directory is left behind by a successful create */
    int n = entries(parent);
    assert_int_equal(n, 2);

    /* remove: our files go, the lock last, the directory goes */
    touch(a.path, "0000000000000000-0000000000000000.wal");
    touch(a.path, "0.tmp");
    touch(a.path, "db");
    snprintf(path, sizeof path, "%s", a.path);
    assert_int_equal(privdir_remove(&a), 0);
    assert_false(exists(path, NULL));
    assert_int_equal(a.fd, -1);
    assert_int_equal(a.lock_fd, -1);

    /* keep: renamed out of the reaper's pattern, only the run's files inside (the lock file goes) */
    touch(b.path, "0.tmp");
    assert_int_equal(privdir_keep(&b), 0);
    assert_non_null(strstr(b.path, "etcd-fio-kept.4242.my_job_1.1"));
    assert_true(exists(b.path, "0.tmp"));
    assert_false(exists(b.path, PRIVDIR_LOCK));
    assert_int_equal(stat(b.path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700); /* the operator's now: no mark */
    assert_int_equal(privdir_reap_stale(parent), 0);
    assert_true(exists(b.path, "0.tmp"));
    rmtree(parent);
    free(parent);
}

static void test_reap(void **state)
{
    (void)state;
    char *parent = mktmp();
    char err[512], path[PATHMAX];
    pid_t dead = dead_pid();

    /* stale although the pid in its name is alive (ours): nobody holds its lock */
    char stale[PATHMAX], stale_be[PATHMAX];
    killed_run(parent, "wal", getpid(), "1.tmp", stale);
    killed_run(parent, "backend", 1, "db", stale_be);
    /* alive although the pid in its name is dead: we hold its lock */
    privdir live;
    assert_int_equal(privdir_create(&live, parent, "wal", dead, err, sizeof err), 0);
    touch(live.path, "0.tmp");
    /* stale, but holds a file the engine never makes: left whole */
    char foreign[PATHMAX];
    killed_run(parent, "other", dead, "0.tmp", foreign);
    touch(foreign, "notes.txt");
    /* stale, but another user's */
    char other_uid[PATHMAX];
    killed_run(parent, "uid", dead, "0.tmp", other_uid);
    int chowned = geteuid() == 0 && chown(other_uid, 65534, 65534) == 0;
    /* a symlink with our exact name, to a directory holding our file names */
    char target[PATHMAX], link[PATHMAX];
    snprintf(target, sizeof target, "%s/victim", parent);
    assert_int_equal(mkdir(target, 0700), 0);
    touch(target, "0.tmp");
    touch(target, PRIVDIR_LOCK);
    snprintf(link, sizeof link, "%s/etcd-fio.%ld.wal.7", parent, (long)dead);
    assert_int_equal(symlink(target, link), 0);
    /* a stale directory whose lock file was replaced by a symlink to a victim file */
    char planted[PATHMAX], victim[PATHMAX];
    killed_run(parent, "planted", dead, "0.tmp", planted);
    snprintf(victim, sizeof victim, "%s/victim.file", parent);
    touch(parent, "victim.file");
    snprintf(path, sizeof path, "%s/" PRIVDIR_LOCK, planted);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink(victim, path), 0);
    /* made by an engine before locks: no lock file, our files, dead pid; and an empty one */
    char legacy[PATHMAX], empty[PATHMAX];
    snprintf(legacy, sizeof legacy, "%s/etcd-fio.%ld.legacy.0", parent, (long)dead);
    assert_int_equal(mkdir(legacy, 0700), 0);
    touch(legacy, "0.tmp");
    snprintf(empty, sizeof empty, "%s/etcd-fio.%ld.legacy.1", parent, (long)dead);
    assert_int_equal(mkdir(empty, 0700), 0);
    assert_int_equal(chmod(empty, 01700), 0); /* emptied by a killed reaper: our creation mark */
    /* empty, our names, but not made by us (no mark): a name is never enough (issue 27) */
    char unmarked[PATHMAX], unmarked_stage[PATHMAX];
    snprintf(unmarked, sizeof unmarked, "%s/etcd-fio.%ld.legacy.2", parent, (long)dead);
    assert_int_equal(mkdir(unmarked, 0700), 0);
    snprintf(unmarked_stage, sizeof unmarked_stage, "%s/etcd-fio.99999.etcd-backend.tmp-abcdef", parent);
    assert_int_equal(mkdir(unmarked_stage, 0755), 0);
    /* names that are not ours */
    char notours[PATHMAX];
    snprintf(notours, sizeof notours, "%s/etcd-fio.%ld.wal", parent, (long)dead);
    assert_int_equal(mkdir(notours, 0700), 0);
    snprintf(path, sizeof path, "%s/etcd-fio.%ld.wal.tmp-abc", parent, (long)dead);
    assert_int_equal(mkdir(path, 0700), 0);

    int want = 3 + !chowned; /* stale, stale_be, empty (+ other_uid when it could not be chowned) */
    assert_int_equal(privdir_reap_stale(parent), want);
    assert_false(exists(stale, NULL));
    assert_false(exists(stale_be, NULL));
    assert_false(exists(empty, NULL));
    assert_true(exists(live.path, "0.tmp"));
    assert_true(lock_held(live.path));
    assert_true(exists(foreign, "0.tmp")); /* nothing of a directory with a foreign file is touched */
    assert_true(exists(foreign, "notes.txt"));
    assert_true(exists(foreign, PRIVDIR_LOCK));
    if (chowned)
        assert_true(exists(other_uid, "0.tmp"));
    assert_true(exists(target, "0.tmp")); /* the symlink was not followed */
    assert_true(exists(target, PRIVDIR_LOCK));
    assert_true(exists(link, NULL));
    assert_true(exists(planted, "0.tmp")); /* a symlinked lock is not ours: nothing goes */
    assert_true(exists(victim, NULL));
    struct stat st;
    assert_int_equal(stat(victim, &st), 0);
    assert_int_equal(st.st_size, 1);
    assert_true(exists(legacy, "0.tmp"));
    assert_true(exists(unmarked, NULL));
    assert_true(exists(unmarked_stage, NULL));
    assert_true(exists(notours, NULL));
    assert_true(exists(path, NULL));

    /* the live run ends: its directory goes; a second reap finds nothing more */
    assert_int_equal(privdir_remove(&live), 0);
    assert_int_equal(privdir_reap_stale(parent), 0);
    rmtree(parent);
    free(parent);
}

/* Sets the modification time of DIR/NAME (NAME NULL: DIR itself) to ago seconds back. */
static void age(const char *dir, const char *name, int ago)
{
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s%s%s", dir, name ? "/" : "", name ? name : "");
    struct timespec t[2] = {{time(NULL) - ago, 0}, {time(NULL) - ago, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p, t, AT_SYMLINK_NOFOLLOW), 0);
}

/* A directory an engine from before the locks left (named, no lock file), with the engine's files. */
static void legacy_dir(const char *parent, pid_t pid, const char *job, int ago, char *out)
{
    snprintf(out, PATHMAX, "%s/etcd-fio.%ld.%s.0", parent, (long)pid, job);
    assert_int_equal(mkdir(out, 0700), 0);
    const char *files[] = {"0000000000000000-0000000000000000.wal", "0.tmp", "db"};
    for (size_t i = 0; i < 3; i++) {
        touch(out, files[i]);
        age(out, files[i], ago);
    }
    age(out, NULL, ago);
}

/* Old-engine directories (no lock file) are reaped only when provably ours and dead: our file names only,
 * regular and single-linked, the pid of the name gone, nobody here with a file of it open, nothing changed
 * for 10 minutes. Each missing proof keeps it whole. */
static void test_reap_legacy(void **state)
{
    (void)state;
    char *parent = mktmp();
    pid_t dead = dead_pid();
    char gone[PATHMAX], recent[PATHMAX], alive[PATHMAX], linked[PATHMAX], foreign[PATHMAX], open_[PATHMAX],
        sub[PATHMAX], p[PATHMAX], victim[PATHMAX];
    legacy_dir(parent, dead, "old", 3600, gone);
    legacy_dir(parent, dead, "recent", 3600, recent);
    touch(recent, "0.tmp"); /* written a moment ago: an engine may be running there, in a pid namespace */
    legacy_dir(parent, getpid(), "alive", 3600, alive);
    legacy_dir(parent, dead, "linked", 3600, linked);
    snprintf(victim, sizeof victim, "%s/victim-db", parent); /* our file name, but a second name of a file elsewhere */
    touch(parent, "victim-db");
    snprintf(p, sizeof p, "%s/db", linked);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(link(victim, p), 0);
    age(linked, "db", 3600);
    age(linked, NULL, 3600);
    legacy_dir(parent, dead, "foreign", 3600, foreign);
    touch(foreign, "notes.txt");
    age(foreign, "notes.txt", 3600);
    age(foreign, NULL, 3600);
    legacy_dir(parent, dead, "sub", 3600, sub);
    snprintf(p, sizeof p, "%s/snap", sub);
    assert_int_equal(mkdir(p, 0700), 0);
    age(sub, NULL, 3600);
    legacy_dir(parent, dead, "open", 3600, open_);
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t holder = fork(); /* a process that has one of its files open (its fio, SIGSTOPped for an hour) */
    if (holder == 0) {
        char f[PATHMAX];
        snprintf(f, sizeof f, "%s/0.tmp", open_);
        int fd = open(f, O_RDONLY);
        char c = fd >= 0 ? 'y' : 'n';
        if (write(pfd[1], &c, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c = 0;
    close(pfd[1]);
    assert_int_equal(read(pfd[0], &c, 1), 1);
    close(pfd[0]);
    assert_int_equal(c, 'y');

    assert_int_equal(privdir_reap_stale(parent), 1);
    assert_false(exists(gone, NULL));
    assert_true(exists(recent, "db"));
    assert_true(exists(alive, "db"));
    assert_true(exists(linked, "0.tmp"));
    assert_true(exists(linked, "db"));
    assert_true(exists(victim, NULL));
    assert_true(exists(foreign, "0.tmp"));
    assert_true(exists(sub, "db"));
    assert_true(exists(open_, "0.tmp"));
    assert_true(exists(open_, "db"));
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    assert_int_equal(privdir_reap_stale(parent), 1); /* its last user gone: now it goes too */
    assert_false(exists(open_, NULL));
    rmtree(parent);
    free(parent);
}

/* Half-made directories: an empty one and one whose lock file nobody holds are removed; one whose lock
 * is held is not. */
static void test_reap_staging(void **state)
{
    (void)state;
    char *parent = mktmp();
    char a[PATHMAX], b[PATHMAX], c[PATHMAX];
    snprintf(a, sizeof a, "%s/etcd-fio.7.wal.tmp-AAAAAA", parent);
    snprintf(b, sizeof b, "%s/etcd-fio.7.wal.tmp-BBBBBB", parent);
    snprintf(c, sizeof c, "%s/etcd-fio.7.wal.tmp-CCCCCC", parent);
    assert_int_equal(mkdir(a, 01700), 0);
    assert_int_equal(chmod(a, 01700), 0); /* (mkdir's mode is cut by the umask) */
    assert_int_equal(mkdir(b, 0700), 0);
    assert_int_equal(mkdir(c, 0700), 0);
    /* empty and without our creation mark: someone else's, whatever its name */
    char u[PATHMAX];
    snprintf(u, sizeof u, "%s/etcd-fio.7.wal.tmp-UUUUUU", parent);
    assert_int_equal(mkdir(u, 0700), 0);
    touch(b, PRIVDIR_LOCK);
    touch(c, PRIVDIR_LOCK);
    int fd = hold_lock(c);
    assert_int_equal(privdir_reap_stale(parent), 2);
    assert_false(exists(a, NULL));
    assert_false(exists(b, NULL));
    assert_true(exists(c, PRIVDIR_LOCK));
    close(fd);
    assert_int_equal(privdir_reap_stale(parent), 1);
    assert_false(exists(c, NULL));
    assert_true(exists(u, NULL));
    rmtree(parent);
    free(parent);
}

/* check --classic's directory (etcd-fio-classic.XXXXXX, tools/tmpdir.c): reaped with our mark and a free
 * lock holding only fio's classic.0.0, or empty with the mark (killed before the lock file); kept while its
 * lock is held (its fio runs), without the mark, with any other file, or with a name not exactly ours. */
static void classic_dir(const char *parent, const char *name, mode_t mode, int lock, const char *file,
                        char *out)
{
    snprintf(out, PATHMAX, "%s/%s", parent, name);
    assert_int_equal(mkdir(out, 0700), 0);
    assert_int_equal(chmod(out, mode), 0);
    if (lock) {
        char p[PATHMAX];
        snprintf(p, sizeof p, "%s/" PRIVDIR_LOCK, out);
        int fd = open(p, O_CREAT | O_WRONLY, 0600); /* empty, as tmpdir_make makes it */
        assert_true(fd >= 0);
        close(fd);
    }
    if (file)
        touch(out, file);
}

static void test_reap_classic(void **state)
{
    (void)state;
    char *parent = mktmp();
    char stale[PATHMAX], empty[PATHMAX], held[PATHMAX], nomark[PATHMAX], other[PATHMAX], name[PATHMAX];
    classic_dir(parent, "etcd-fio-classic.aB3xZ9", 01700, 1, PRIVDIR_CLASSIC_FILE, stale);
    classic_dir(parent, "etcd-fio-classic.000000", 01700, 0, NULL, empty);
    classic_dir(parent, "etcd-fio-classic.HHHHHH", 01700, 1, PRIVDIR_CLASSIC_FILE, held);
    classic_dir(parent, "etcd-fio-classic.NNNNNN", 0700, 1, PRIVDIR_CLASSIC_FILE, nomark);
    classic_dir(parent, "etcd-fio-classic.OOOOOO", 01700, 1, "classic.0.1", other);
    classic_dir(parent, "etcd-fio-classic.abc", 01700, 1, PRIVDIR_CLASSIC_FILE, name);
    assert_false(privdir_match_classic("etcd-fio-classic.abc"));
    assert_false(privdir_match_classic("etcd-fio-classic.aB3x-9"));
    assert_true(privdir_match_classic("etcd-fio-classic.aB3xZ9"));
    int fd = hold_lock(held);
    assert_int_equal(privdir_reap_stale(parent), 2);
    assert_false(exists(stale, NULL));
    assert_false(exists(empty, NULL));
    assert_true(exists(held, PRIVDIR_CLASSIC_FILE));
    assert_true(exists(nomark, PRIVDIR_CLASSIC_FILE));
    assert_true(exists(other, "classic.0.1"));
    assert_true(exists(name, PRIVDIR_CLASSIC_FILE));
    close(fd); /* its fio is gone */
    assert_int_equal(privdir_reap_stale(parent), 1);
    assert_false(exists(held, NULL));
    assert_int_equal(entries(parent), 3);
    rmtree(parent);
    free(parent);
}

/* A reaper at each step of privdir_create (once per step): the staging directory is removed while empty
 * and while its lock file is unlocked, the creator starts again each time; once locked, nothing touches it. */
struct hook_state {
    const char *parent;
    int calls[4], reaped[4];
};

static void reap_hook(int step, const char *path, void *arg)
{
    struct hook_state *h = arg;
    (void)path;
    if (h->calls[step]++ == 0)
        h->reaped[step] = privdir_reap_stale(h->parent);
}

static void test_create_race_steps(void **state)
{
    (void)state;
    char *parent = mktmp();
    char err[512];
    struct hook_state h = {.parent = parent};
    privdir pd;
    assert_int_equal(privdir_create_hooked(&pd, parent, "wal", 5, err, sizeof err, reap_hook, &h), 0);
    assert_int_equal(h.reaped[PRIVDIR_STEP_STAGED], 1);   /* empty: removed */
    assert_int_equal(h.reaped[PRIVDIR_STEP_LOCKFILE], 1); /* lock file not locked yet: removed */
    assert_int_equal(h.reaped[PRIVDIR_STEP_LOCKED], 0);   /* locked: left */
    assert_int_equal(h.reaped[PRIVDIR_STEP_NAMED], 0);
    assert_int_equal(h.calls[PRIVDIR_STEP_STAGED], 3);    /* two fresh starts */
    assert_string_equal(pd.name, "etcd-fio.5.wal.0");
    assert_true(lock_held(pd.path));
    assert_int_equal(privdir_reap_stale(parent), 0);
    assert_int_equal(privdir_remove(&pd), 0);
    int n = entries(parent);
    assert_int_equal(n, 0);
    rmtree(parent);
    free(parent);
}

/* A reaper that took the lock file first and removes it while the creator waits for the lock: the
 * creator, once it has the lock, finds the file unlinked and starts again. */
struct holder {
    int lfd;
    char dir[PATHMAX];
};

static void *slow_reaper(void *arg)
{
    struct holder *h = arg;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s/" PRIVDIR_LOCK, h->dir);
    unlink(p); /* as reap_one does for a staging directory: unlinked while held */
    close(h->lfd);
    rmdir(h->dir);
    return NULL;
}

struct wait_state {
    int calls;
    pthread_t t;
    struct holder h;
};

static void grab_hook(int step, const char *path, void *arg)
{
    struct wait_state *w = arg;
    if (step != PRIVDIR_STEP_LOCKFILE || w->calls++)
        return;
    snprintf(w->h.dir, sizeof w->h.dir, "%s", path);
    char p[PATHMAX];
    snprintf(p, sizeof p, "%s/" PRIVDIR_LOCK, path);
    w->h.lfd = open(p, O_RDWR);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    assert_int_equal(fcntl(w->h.lfd, F_OFD_SETLK, &fl), 0);
    assert_int_equal(pthread_create(&w->t, NULL, slow_reaper, &w->h), 0);
}

static void test_create_race_waiting(void **state)
{
    (void)state;
    char *parent = mktmp();
    char err[512];
    struct wait_state w = {0};
    privdir pd;
    assert_int_equal(privdir_create_hooked(&pd, parent, "wal", 5, err, sizeof err, grab_hook, &w), 0);
    pthread_join(w.t, NULL);
    assert_int_equal(w.calls, 2); /* started again once */
    assert_false(exists(w.h.dir, NULL));
    assert_true(exists(pd.path, PRIVDIR_LOCK));
    assert_true(lock_held(pd.path));
    assert_int_equal(privdir_remove(&pd), 0);
    rmtree(parent);
    free(parent);
}

/* SIGKILL at every step of privdir_create: whatever is left, the next reaper removes all of it. */
static void kill_hook(int step, const char *path, void *arg)
{
    (void)path;
    if (step == *(int *)arg)
        raise(SIGKILL);
}

static void test_killed_while_creating(void **state)
{
    (void)state;
    char *parent = mktmp();
    for (int step = PRIVDIR_STEP_STAGED; step <= PRIVDIR_STEP_NAMED; step++) {
        pid_t c = fork();
        assert_true(c >= 0);
        if (c == 0) {
            privdir pd;
            char err[512];
            privdir_create_hooked(&pd, parent, "wal", 3, err, sizeof err, kill_hook, &step);
            _exit(0);
        }
        int st;
        waitpid(c, &st, 0);
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        int left = entries(parent);
        assert_int_equal(left, 1); /* the half-made (or just named) directory */
        assert_int_equal(privdir_reap_stale(parent), 1);
    }
    rmtree(parent);
    free(parent);
}

/* Several processes in one directory, all with the same pid label (as pid namespaces make it): each
 * creates, checks that its directory is still there and locked, removes it; one more only reaps. */
static void test_many_at_once(void **state)
{
    (void)state;
    char *parent = mktmp();
    enum { WORKERS = 3, ROUNDS = 150 };
    pid_t kids[WORKERS + 1];
    for (int k = 0; k <= WORKERS; k++) {
        kids[k] = fork();
        assert_true(kids[k] >= 0);
        if (kids[k])
            continue;
        for (int r = 0; r < ROUNDS; r++) {
            privdir_reap_stale(parent);
            if (k == WORKERS)
                continue;
            privdir pd;
            char err[512];
            if (privdir_create(&pd, parent, "wal", 2, err, sizeof err) != 0) {
                fprintf(stderr, "create: %s\n", err);
                _exit(1);
            }
            touch(pd.path, "0.tmp");
            struct stat a, b;
            char lp[PATHMAX];
            snprintf(lp, sizeof lp, "%s/" PRIVDIR_LOCK, pd.path);
            if (fstat(pd.lock_fd, &a) || stat(lp, &b) || a.st_ino != b.st_ino || !exists(pd.path, "0.tmp")) {
                fprintf(stderr, "%s lost while alive\n", pd.path);
                _exit(1);
            }
            if (r % 3 == 2) { /* a killed run: left for the others to reap */
                close(pd.lock_fd);
                close(pd.fd);
                continue;
            }
            int rc = privdir_remove(&pd);
            if (rc != 0) {
                fprintf(stderr, "remove %s: %s\n", pd.path, strerror(-rc));
                _exit(1);
            }
        }
        _exit(0);
    }
    for (int k = 0; k <= WORKERS; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    privdir_reap_stale(parent);
    int n = entries(parent);
    assert_int_equal(n, 0);
    rmtree(parent);
    free(parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_reap),
        cmocka_unit_test(test_reap_staging),
        cmocka_unit_test(test_reap_classic),
        cmocka_unit_test(test_reap_legacy),
        cmocka_unit_test(test_create_race_steps),
        cmocka_unit_test(test_create_race_waiting),
        cmocka_unit_test(test_killed_while_creating),
        cmocka_unit_test(test_many_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
