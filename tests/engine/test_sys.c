/* SPDX-License-Identifier: MIT */
/* test_sys.c — engine/sys.c: the raw durability calls behave as libc's (0, or -1 with errno), a process that
 * asked for it gets its signal when its parent ends and learns when its parent had ended before it asked,
 * a forked process is told from a thread of its parent and from its parent itself, and the interposer report names LD_PRELOAD entries and /etc/ld.so.preload-style files. (That eatmydata
 * cannot replace the engine's syncs is shown with the real eatmydata in tests/cli/it_layers.sh.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "sys.h"

static void test_raw_calls(void **state)
{
    (void)state;
    char *d = testdir_make("test_sys");
    assert_non_null(d);
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", d);
    snprintf(b, sizeof b, "%s/b", d);
    int fd = open(a, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    struct stat st;
    int rc = sys_fallocate(fd, 0, 0, 1 << 20);
    assert_true(rc == 0 || errno == EOPNOTSUPP);
    if (rc == 0) {
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_size, 1 << 20);
    }
    assert_int_equal(sys_ftruncate(fd, 12345), 0);
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, 12345);
    assert_int_equal(write(fd, "x", 1), 1);
    assert_int_equal(sys_fdatasync(fd), 0);
    assert_int_equal(sys_fsync(fd), 0);
    int dfd = open(d, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    assert_int_equal(sys_fsync(dfd), 0); /* a directory, as the WAL's rollover does */
    close(fd);
    errno = 0;
    assert_int_equal(sys_fdatasync(-1), -1);
    assert_int_equal(errno, EBADF);
    errno = 0;
    assert_int_equal(sys_ftruncate(-1, 0), -1);
    assert_int_equal(errno, EBADF);
    assert_int_equal(sys_renameat(dfd, "a", dfd, "b"), 0);
    assert_int_equal(stat(b, &st), 0);
    assert_int_not_equal(stat(a, &st), 0);
    fd = open(a, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    errno = 0;
    assert_int_equal(sys_renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE), -1);
    assert_int_equal(errno, EEXIST);
    close(dfd);
    testdir_remove(d);
    free(d);
}

/* Forks a child that forks a grandchild running grandchild(the child's pid, arg) (it never returns), tells
 * us the grandchild's pid and exits with child(arg) (0 when child is NULL). Returns the child's pid; the
 * grandchild's in *g. */
static pid_t fork_two(void (*grandchild)(pid_t parent, void *arg), int (*child)(void *arg), void *arg, pid_t *g)
{
    int gpid[2];
    assert_int_equal(pipe(gpid), 0);
    pid_t a = fork();
    assert_true(a >= 0);
    if (a == 0) {
        pid_t me = getpid();
        pid_t gg = fork();
        if (gg == 0) {
            grandchild(me, arg);
            _exit(1);
        }
        (void)!write(gpid[1], &gg, sizeof gg);
        _exit(child ? child(arg) : 0);
    }
    *g = 0;
    assert_int_equal(read(gpid[0], g, sizeof *g), (ssize_t)sizeof *g);
    close(gpid[0]), close(gpid[1]);
    return a;
}

/* Asks for SIGTERM on the parent's death, says whether that worked on the pipe arg, and waits. */
static void ask_then_wait(pid_t parent, void *arg)
{
    int *ready = arg;
    alarm(20);
    int rc = sys_die_with_parent(parent, SIGTERM);
    char c = rc == 0 ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    for (;;)
        pause();
}

/* The child: exits once the grandchild has asked, 0 when that worked. */
static int after_ask(void *arg)
{
    int *ready = arg;
    char c = 0;
    (void)!read(ready[0], &c, 1);
    return c == 'y' ? 0 : 1;
}

/* A grandchild asks for SIGTERM on its parent's death; the parent then exits: the grandchild (ours as
 * subreaper) must die of SIGTERM. A SIGALRM after 20 s ends it otherwise (then the test fails). */
static void test_signal_on_parent_death(void **state)
{
    (void)state;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t g, a = fork_two(ask_then_wait, after_ask, ready, &g);
    int st;
    assert_int_equal(waitpid(a, &st, 0), a);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(waitpid(g, &st, 0), g);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    close(ready[0]), close(ready[1]);
}

/* Waits until its parent has exited, then asks: exits 0 when told the parent is gone (-ESRCH). */
static void ask_after_parent(pid_t parent, void *arg)
{
    (void)arg;
    alarm(20);
    while (getppid() == parent) /* an event, not a time: our re-parenting */
        usleep(1000);
    _exit(sys_die_with_parent(parent, SIGTERM) == -ESRCH ? 0 : 1);
}

static void *thread_asks(void *arg)
{
    *(int *)arg = sys_is_forked_process(getpid());
    return NULL;
}

/* As fio runs jobs: the process that forks (its main thread) is not a forked job whatever main_pid is
 * known; a thread of it (thread=1) is not either; a child it forked is, with main_pid known or not. */
static void test_forked_process(void **state)
{
    (void)state;
    pid_t me = getpid();
    assert_int_equal(sys_is_forked_process(me), 0);
    int in_thread = -1;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, thread_asks, &in_thread), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(in_thread, 0);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0)
        _exit(sys_is_forked_process(me) == 1 && sys_is_forked_process(0) == 1 ? 0 : 1);
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* The parent has died before the child asks: the child is told (-ESRCH), never left waiting for a
 * signal that cannot come. */
static void test_parent_already_gone(void **state)
{
    (void)state;
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
    pid_t g, a = fork_two(ask_after_parent, NULL, NULL, &g);
    int st;
    assert_int_equal(waitpid(a, &st, 0), a);
    assert_int_equal(waitpid(g, &st, 0), g);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_interposer_report(void **state)
{
    (void)state;
    char out[2048];
    char *saved = getenv("LD_PRELOAD") ? strdup(getenv("LD_PRELOAD")) : NULL;
    unsetenv("LD_PRELOAD");
    /* nothing preloaded, no preload file: nothing found (a sanitizer runtime linked in is not counted) */
    if (!getenv("LD_AUDIT"))
        assert_int_equal(sys_interposers(out, sizeof out, "/nonexistent/ld.so.preload"), 0);
    assert_string_equal(getenv("LD_AUDIT") ? "" : out, "");
    setenv("LD_PRELOAD", "/nonexistent/libfake-sync.so", 1);
    assert_true(sys_interposers(out, sizeof out, "/nonexistent/ld.so.preload") >= 1);
    assert_non_null(strstr(out, "LD_PRELOAD=/nonexistent/libfake-sync.so"));
    unsetenv("LD_PRELOAD");
    char *d = testdir_make("test_sys");
    assert_non_null(d);
    char f[512];
    snprintf(f, sizeof f, "%s/ld.so.preload", d);
    FILE *fp = fopen(f, "w");
    assert_non_null(fp);
    fputs("/usr/lib/libeatmydata-like.so\n", fp);
    fclose(fp);
    assert_true(sys_interposers(out, sizeof out, f) >= 1);
    assert_non_null(strstr(out, f));
    assert_non_null(strstr(out, "/usr/lib/libeatmydata-like.so"));
    /* a report that does not fit is cut, never overrun */
    char tiny[8];
    assert_true(sys_interposers(tiny, sizeof tiny, f) >= 1);
    assert_true(strlen(tiny) < sizeof tiny);
    testdir_remove(d);
    free(d);
    if (saved)
        setenv("LD_PRELOAD", saved, 1);
    free(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_calls),
        cmocka_unit_test(test_signal_on_parent_death),
        cmocka_unit_test(test_parent_already_gone),
        cmocka_unit_test(test_forked_process),
        cmocka_unit_test(test_interposer_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
