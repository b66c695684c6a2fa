/* SPDX-License-Identifier: MIT */
/* test_tmpdir.c — etcd-fio's locked temporary directories (tools/tmpdir.c): made with the mark and a held
 * lock, removed, left; a killed run's directory reaped by the next (also one whose lock a surviving child —
 * a fio — still holds: only once it is gone); the guard that removes one after a kill of the whole process
 * group; and what a reaper must never remove, whatever its name: a
 * directory without the mark, a lock file that is a symlink, a hard link to another file or not empty, a
 * directory of another user, a name that is not exactly ours, one holding a name of etcd's files. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "testdir.h"
#include "tmpdir.h"

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void touch(const char *dir, const char *name, const char *data)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    if (data)
        assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
    close(fd);
}

static void test_match(void **state)
{
    (void)state;
    assert_true(tmpdir_match("etcd-fio-check.aB3xZ9"));
    assert_true(tmpdir_match("etcd-fio-check-phase1.000000"));
    assert_true(tmpdir_match("etcd-fio-classic.Qq1234"));
    assert_false(tmpdir_match("etcd-fio-check.aB3xZ"));
    assert_false(tmpdir_match("etcd-fio-check.aB3xZ9a"));
    assert_false(tmpdir_match("etcd-fio-Check.aB3xZ9"));
    assert_false(tmpdir_match("etcd-fio-.aB3xZ9"));
    assert_false(tmpdir_match("etcd-fio.12.etcd-wal.0"));
    assert_false(tmpdir_match("etcd-fio-check.aB3x-9"));
}

/* made, marked, locked (another process cannot take the lock nor reap it), removed */
static void test_make_remove(void **state)
{
    (void)state;
    char *base = testdir_make("test_tmpdir"), dir[4096], err[256], lock[8192];
    assert_int_equal(tmpdir_make(base, "check", dir, sizeof dir, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, S_ISVTX | 0700);
    snprintf(lock, sizeof lock, "%s/lock", dir);
    assert_true(exists(lock));
    touch(dir, "fio.stderr", "x\n");
    pid_t c = fork();
    if (c == 0)
        _exit(tmpdir_reap(base) == 0 && exists(dir) ? 0 : 1);
    int ws;
    waitpid(c, &ws, 0);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    tmpdir_remove(dir);
    assert_false(exists(dir));
    /* left: our descriptor closed, the directory stays, and (its lock free now) the next run reaps it */
    assert_int_equal(tmpdir_make(base, "fleet", dir, sizeof dir, err, sizeof err), 0);
    tmpdir_leave(dir);
    assert_true(exists(dir));
    assert_int_equal(tmpdir_reap(base), 1);
    assert_false(exists(dir));
    testdir_remove(base);
    free(base);
}

/* A run killed mid-way (the child exits without removing anything): the next run reaps it, files and all;
 * a directory whose lock a surviving grandchild inherited (a fio still running) stays until it is gone. */
static void test_reap_killed(void **state)
{
    (void)state;
    char *base = testdir_make("test_tmpdir");
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t c = fork();
    if (c == 0) {
        char dir[4096], err[256];
        if (tmpdir_make(base, "check", dir, sizeof dir, err, sizeof err))
            _exit(1);
        touch(dir, "wal-stats.json", "{}");
        pid_t g = fork();
        if (g == 0) { /* the "fio": holds the inherited lock descriptor until killed */
            pause();
            _exit(0);
        }
        char msg[64];
        int n = snprintf(msg, sizeof msg, "%ld\n", (long)g);
        if (write(p[1], msg, (size_t)n) != n)
            _exit(1);
        _exit(0); /* "SIGKILLed": nothing removed */
    }
    char buf[64] = "";
    assert_true(read(p[0], buf, sizeof buf - 1) > 0);
    pid_t g = (pid_t)atol(buf);
    waitpid(c, NULL, 0);
    assert_int_equal(tmpdir_reap(base), 0); /* the grandchild holds it */
    kill(g, SIGKILL);
    while (kill(g, 0) == 0) /* reparented: not ours to reap; wait until the kernel is done with it */
        usleep(10000);
    assert_int_equal(tmpdir_reap(base), 1);
    assert_int_equal(rmdir(base), 0); /* nothing left in it */
    close(p[0]);
    close(p[1]);
    free(base);
}

static int gone_within(const char *p, int ms)
{
    for (int t = 0; t <= ms; t += 10) {
        if (!exists(p))
            return 1;
        usleep(10000);
    }
    return 0;
}

/* In a child, as etcd-fio: a process group of its own, a directory made in base and guarded (into dir);
 * the child ends at once if either fails. */
static void as_etcd_fio(const char *base, char *dir, size_t n)
{
    char err[256];
    setpgid(0, 0);
    if (tmpdir_make(base, "classic", dir, n, err, sizeof err) || tmpdir_guard(dir))
        _exit(1);
}

/* The guard: an "etcd-fio" (child, a process group of its own) makes and guards a directory and starts a
 * "fio" that inherits its lock and writes there; the whole group is SIGKILLed. The directory stays while
 * the fio lives (the guard never takes a held lock, and holds none itself), and goes as soon as the fio is
 * gone — nobody here reaps. Without a kill: tmpdir_remove ends the guard (no child left); tmpdir_leave kills
 * it and the directory stays. */
static void test_guard(void **state)
{
    (void)state;
    char *base = testdir_make("test_tmpdir"), dir[4096] = "", err[256];
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t c = fork();
    if (c == 0) {
        as_etcd_fio(base, dir, sizeof dir);
        if (fork() == 0) { /* a session of its own, as a fio job: the group kill misses it */
            setsid();
            touch(dir, "classic.0.0", "x");
            pid_t f = getpid();
            if (write(p[1], &f, sizeof f) != (ssize_t)sizeof f || write(p[1], dir, sizeof dir) != (ssize_t)sizeof dir)
                _exit(1);
            for (;;)
                pause();
        }
        for (;;)
            pause();
    }
    pid_t f = 0;
    assert_int_equal(read(p[0], &f, sizeof f), (ssize_t)sizeof f);
    assert_int_equal(read(p[0], dir, sizeof dir), (ssize_t)sizeof dir);
    assert_int_equal(kill(-c, SIGKILL), 0);
    waitpid(c, NULL, 0);
    usleep(300000);
    assert_true(exists(dir)); /* its fio still holds the lock */
    kill(f, SIGKILL);
    assert_true(gone_within(dir, 30000)); /* a bound for a loaded machine, not a timing */
    /* no kill: removed with its guard ended (no child of ours left), or left with its guard killed */
    assert_int_equal(tmpdir_make(base, "classic", dir, sizeof dir, err, sizeof err), 0);
    assert_int_equal(tmpdir_guard(dir), 0);
    assert_int_equal(tmpdir_guard(dir), -1); /* one guard */
    tmpdir_remove(dir);
    assert_false(exists(dir));
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(tmpdir_make(base, "classic", dir, sizeof dir, err, sizeof err), 0);
    assert_int_equal(tmpdir_guard(dir), 0);
    tmpdir_leave(dir);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    usleep(100000);
    assert_true(exists(dir));
    assert_int_equal(tmpdir_reap(base), 1);
    close(p[0]);
    close(p[1]);
    assert_int_equal(rmdir(base), 0);
    free(base);
}

/* A kill of the group at once after tmpdir_guard returns (an operator's ^C during the start): the guard has
 * already left the group, so it lives on and removes the directory. Each round forks, guards and kills its
 * own group without a pause, the moment a guard still in the group would be lost with it. */
static void test_guard_kill_at_once(void **state)
{
    (void)state;
    char *base = testdir_make("test_tmpdir");
    for (int round = 0; round < 20; round++) {
        char dir[4096] = "";
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t c = fork();
        if (c == 0) {
            as_etcd_fio(base, dir, sizeof dir);
            if (write(p[1], dir, sizeof dir) != (ssize_t)sizeof dir)
                _exit(1);
            kill(0, SIGKILL);
            _exit(1);
        }
        close(p[1]);
        assert_int_equal(read(p[0], dir, sizeof dir), (ssize_t)sizeof dir);
        close(p[0]);
        int st = 0;
        waitpid(c, &st, 0);
        assert_true(WIFSIGNALED(st));
        assert_true(gone_within(dir, 30000)); /* a bound for a loaded machine, not a timing */
    }
    assert_int_equal(rmdir(base), 0);
    free(base);
}

static void mk(const char *base, const char *name, mode_t mode, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", base, name);
    assert_int_equal(mkdir(out, 0700), 0);
    assert_int_equal(chmod(out, mode), 0);
}

/* Look-alikes a reaper must leave, and the empty marked one it removes. */
static void test_never_removed(void **state)
{
    (void)state;
    char *base = testdir_make("test_tmpdir");
    char a[4096], b[4096], c[4096], d[4096], e[4096], f[4096], g[4096], h[4096], victim[4096], p[8192];
    const mode_t mark = S_ISVTX | 0700;
    mk(base, "etcd-fio-check.noMark", 0700, a, sizeof a); /* no mark, a lock file anyone can take */
    touch(a, "lock", NULL);
    touch(a, "fio.stderr", "x");
    mk(base, "etcd-fio-check.symlnk", mark, b, sizeof b); /* the lock file is a symlink to someone's file */
    snprintf(victim, sizeof victim, "%s/victim", base);
    touch(base, "victim", "data");
    snprintf(p, sizeof p, "%s/lock", b);
    assert_int_equal(symlink(victim, p), 0);
    mk(base, "etcd-fio-check.hrdlnk", mark, c, sizeof c); /* a hard link to another file (two names) */
    snprintf(p, sizeof p, "%s/lock", c);
    char empty[4200];
    snprintf(empty, sizeof empty, "%s/empty-file", base);
    touch(base, "empty-file", NULL);
    assert_int_equal(link(empty, p), 0);
    mk(base, "etcd-fio-check.notEmp", mark, d, sizeof d); /* a lock file with data in it */
    touch(d, "lock", "etcd's?");
    mk(base, "etcd-fio-check.noLock", mark, e, sizeof e); /* no lock file, but files: not provably ours */
    touch(e, "fio.stderr", "x");
    mk(base, "etcd-fio-Check.upper1", mark, f, sizeof f); /* not our name */
    touch(f, "lock", NULL);
    mk(base, "etcd-fio-check.emptyX", mark, g, sizeof g); /* empty with the mark: killed before the lock file */
    mk(base, "etcd-fio-check.OKstal", mark, h, sizeof h); /* a stale one of ours */
    touch(h, "lock", NULL);
    touch(h, "fio.stderr", "x");
    char k[4096]; /* marked, its lock free, but holding names of etcd's files (a hard link to the WAL's) */
    mk(base, "etcd-fio-classic.etcdNm", mark, k, sizeof k);
    touch(k, "lock", NULL);
    touch(k, "classic.0.0", "x");
    touch(k, "db", "bbolt");
    snprintf(p, sizeof p, "%s/0000000000000000-0000000000000000.wal", k);
    assert_int_equal(link(victim, p), 0);
    int other = 0;
    char o[4096];
    if (geteuid() == 0) { /* another user's, as root */
        mk(base, "etcd-fio-check.others", mark, o, sizeof o);
        touch(o, "lock", NULL);
        other = chown(o, 65534, 65534) == 0;
    }
    assert_int_equal(tmpdir_reap(base), 2);
    assert_false(exists(g));
    assert_false(exists(h));
    const char *stay[] = {a, b, c, d, e, f, k};
    for (size_t i = 0; i < sizeof stay / sizeof stay[0]; i++)
        assert_true(exists(stay[i]));
    snprintf(p, sizeof p, "%s/fio.stderr", a);
    assert_true(exists(p));
    const char *etcds[] = {"db", "0000000000000000-0000000000000000.wal", "classic.0.0"};
    for (size_t i = 0; i < sizeof etcds / sizeof etcds[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", k, etcds[i]);
        assert_true(exists(p));
    }
    char buf[16] = "";
    int fd = open(victim, O_RDONLY);
    assert_int_equal(read(fd, buf, sizeof buf), 4);
    close(fd);
    assert_string_equal(buf, "data");
    if (other)
        assert_true(exists(o));
    testdir_remove(base);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_make_remove),
        cmocka_unit_test(test_reap_killed),
        cmocka_unit_test(test_never_removed),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_guard_kill_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
