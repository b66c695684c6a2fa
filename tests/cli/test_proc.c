/* SPDX-License-Identifier: MIT */
/* test_proc.c — the process runner (tools/proc.c) with /bin/sh -c: exit codes, death by a signal, the
 * pipe, a file, the timeout of proc_wait, and the stop escalation SIGINT -> SIGTERM -> SIGKILL on a child
 * that ignores the first two (the escalation is observed from what the child got, not from timings); the
 * three pipes of proc_start_io (closing stdin is the child's EOF, also while a second child holds none of
 * it) and its session of its own; the death signal a child gets when we die (PROC_DIE_KILL: also a stopped
 * one ends). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"
#include "proc.h"

static void sh(proc *p, const char *script, proc_io out, proc_io err)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    char e[256];
    assert_int_equal(proc_start(p, argv, out, err, e, sizeof e), 0);
}

static void test_exit_code(void **state)
{
    (void)state;
    proc p;
    sh(&p, "exit 3", (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL});
    assert_int_equal(proc_wait(&p, -1), 1);
    assert_int_equal(p.state, PROC_EXITED);
    assert_int_equal(p.code, 3);
    assert_int_equal(p.stop_level, 0);
    char d[128];
    proc_describe(&p, d, sizeof d);
    assert_string_equal(d, "exited with status 3");
    proc_release(&p);
}

static void test_signal_death(void **state)
{
    (void)state;
    proc p;
    sh(&p, "kill -SEGV $$", (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL});
    assert_int_equal(proc_wait(&p, -1), 1);
    assert_int_equal(p.state, PROC_SIGNALED);
    assert_int_equal(p.code, SIGSEGV);
    char d[128];
    proc_describe(&p, d, sizeof d);
    assert_non_null(strstr(d, "killed by signal 11"));
    proc_release(&p);
}

static void test_pipe_and_stdin(void **state)
{
    (void)state;
    proc p;
    /* stdin is /dev/null: cat ends at once; stderr goes to the same pipe */
    sh(&p, "cat; echo out; echo err >&2", (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_TO_STDOUT, NULL});
    char buf[256];
    size_t n = 0;
    ssize_t r;
    while ((r = read(p.out_fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    assert_string_equal(buf, "out\nerr\n");
    assert_int_equal(proc_wait(&p, -1), 1);
    assert_int_equal(p.code, 0);
    proc_release(&p);
}

static void test_file_output_refuses_existing(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_proc.XXXXXX", path[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out", dir);
    proc p;
    sh(&p, "echo hello", (proc_io){PROC_FILE, path}, (proc_io){PROC_INHERIT, NULL});
    assert_int_equal(proc_wait(&p, -1), 1);
    assert_int_equal(p.code, 0);
    proc_release(&p);
    char *t = cli_read_file(path, 100, NULL, err, sizeof err);
    assert_string_equal(t, "hello\n");
    free(t);
    /* O_EXCL: an existing file (or a planted symlink) is never written through: the start fails */
    const char *argv[] = {"/bin/sh", "-c", "echo again", NULL};
    assert_int_equal(proc_start(&p, argv, (proc_io){PROC_FILE, path}, (proc_io){PROC_INHERIT, NULL}, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot run /bin/sh"));
    t = cli_read_file(path, 100, NULL, err, sizeof err);
    assert_string_equal(t, "hello\n");
    free(t);
    unlink(path);
    rmdir(dir);
}

static void test_wait_timeout(void **state)
{
    (void)state;
    proc p;
    /* exec: a shell waiting for a child defers SIGINT until the child ends (POSIX shells' cooperative exit) */
    sh(&p, "exec sleep 5", (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL});
    assert_int_equal(proc_wait(&p, 50), 0);
    assert_int_equal(p.state, PROC_RUNNING);
    proc_stop(&p, 2.0); /* sh dies of SIGINT at once (the grace only bounds a loaded machine's delay) */
    assert_int_equal(p.state, PROC_SIGNALED);
    assert_int_equal(p.code, SIGINT);
    assert_int_equal(p.stop_level, 1);
    proc_release(&p);
}

static void test_stop_escalates(void **state)
{
    (void)state;
    proc p;
    /* ignores INT and TERM (and says so on the pipe); only KILL ends it */
    sh(&p, "trap 'echo INT' INT; trap 'echo TERM' TERM; echo ready; while :; do sleep 0.05; done",
       (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_INHERIT, NULL});
    char buf[256];
    size_t n = 0;
    while (n < 6) {
        ssize_t r = read(p.out_fd, buf + n, 6 - n);
        assert_true(r > 0);
        n += (size_t)r;
    }
    assert_memory_equal(buf, "ready\n", 6);
    proc_stop(&p, 1.0); /* each trap runs once the running `sleep 0.05` ends: leave a loaded machine time */
    assert_int_equal(p.state, PROC_SIGNALED);
    assert_int_equal(p.code, SIGKILL);
    assert_int_equal(p.stop_level, 3);
    n = 0;
    ssize_t r;
    while ((r = read(p.out_fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    assert_non_null(strstr(buf, "INT\n"));
    assert_non_null(strstr(buf, "TERM\n"));
    assert_true(strstr(buf, "INT\n") < strstr(buf, "TERM\n"));
    proc_release(&p);
}

/* Reads the pipe until "ready\n" (what the scripts below print once they are set up). */
static void wait_ready(proc *p)
{
    char buf[6];
    size_t n = 0;
    while (n < 6) {
        ssize_t r = read(p->out_fd, buf + n, 6 - n);
        assert_true(r > 0);
        n += (size_t)r;
    }
    assert_memory_equal(buf, "ready\n", 6);
}

/* A stopped process (SIGSTOP) acts on SIGINT once continued: the first stop step ends it (before, SIGINT and
 * SIGTERM stayed pending and only SIGKILL, after two graces, ended it). */
static void test_stop_stopped(void **state)
{
    (void)state;
    proc p;
    sh(&p, "echo ready; exec sh -c 'kill -STOP $$; while :; do sleep 0.05; done'", (proc_io){PROC_PIPE, NULL},
       (proc_io){PROC_INHERIT, NULL});
    wait_ready(&p);
    while (!(proc_tree_state(p.pid) & PROC_TREE_STOPPED)) /* it stops itself: wait for that */
        usleep(10000);
    proc_stop(&p, 30.0); /* a grace it never needs: SIGINT + SIGCONT end it at once */
    assert_int_equal(p.state, PROC_SIGNALED);
    assert_int_equal(p.code, SIGINT);
    assert_int_equal(p.stop_level, 1);
    assert_int_equal(proc_tree_state(p.pid), 0); /* gone */
    proc_release(&p);
}

/* As fio: the parent ends on SIGINT only after its child (a job process) has ended on the SIGTERM it sends
 * it; the child is stopped. The stop step continues the children too, so the first step is enough. */
static void test_stop_stopped_child(void **state)
{
    (void)state;
    proc p;
    sh(&p, "sh -c 'trap \"exit 0\" TERM; kill -STOP $$; while :; do sleep 0.05; done' & c=$!; "
           "trap 'kill -TERM $c; wait $c; exit 7' INT; "
           "until grep -q '^[0-9]* ([^)]*) [Tt]' /proc/$c/stat; do sleep 0.01; done; echo ready; wait",
       (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_INHERIT, NULL});
    wait_ready(&p);
    assert_true(proc_tree_state(p.pid) & PROC_TREE_STOPPED);
    proc_stop(&p, 30.0);
    assert_int_equal(p.state, PROC_EXITED);
    assert_int_equal(p.code, 7);
    assert_int_equal(p.stop_level, 1);
    proc_release(&p);
}

/* Our death reaches a child started with PROC_DIE_KILL even while it is stopped (the SIGKILL ends it as it
 * is); by default (SIGTERM) a stopped child lives on, its SIGTERM pending. An "etcd-fio" (a forked child
 * here) starts a shell that stops itself, tells us its pid, and dies without stopping it. */
static pid_t orphan_of_stopped_child(int flags)
{
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t e = fork();
    if (e == 0) {
        proc p;
        char err[256];
        const char *argv[] = {"/bin/sh", "-c", "echo $$; exec kill -STOP $$", NULL};
        if (proc_start_io(&p, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_PIPE, NULL},
                          (proc_io){PROC_INHERIT, NULL}, flags, err, sizeof err))
            _exit(1);
        char buf[32] = "";
        ssize_t n = read(p.out_fd, buf, sizeof buf - 1);
        while (n > 0 && !(proc_tree_state(p.pid) & PROC_TREE_STOPPED))
            usleep(5000);
        if (n <= 0 || write(pfd[1], buf, (size_t)n) != n)
            _exit(1);
        _exit(0); /* as SIGKILLed: nothing stopped, nothing waited for */
    }
    char buf[32] = "";
    assert_true(read(pfd[0], buf, sizeof buf - 1) > 0);
    waitpid(e, NULL, 0);
    close(pfd[0]);
    close(pfd[1]);
    return (pid_t)atol(buf); /* (sh's pid: setpriv execs it) */
}

/* 1 once pid is no longer stopped (gone, or a zombie: its signal came), polled up to ms */
static int unstopped_within(pid_t pid, int ms)
{
    for (int t = 0; t <= ms; t += 10, usleep(10000))
        if (!(proc_tree_state(pid) & PROC_TREE_STOPPED))
            return 1;
    return 0;
}

static void test_die_kill_stopped(void **state)
{
    (void)state;
    if (system("command -v setpriv > /dev/null 2>&1") != 0 || getenv("ETCD_FIO_NO_PDEATHSIG")) {
        printf("SKIP test_die_kill_stopped: no setpriv\n");
        return;
    }
    pid_t c = orphan_of_stopped_child(PROC_DIE_KILL);
    assert_true(unstopped_within(c, 3000));
    c = orphan_of_stopped_child(0);
    assert_false(unstopped_within(c, 300)); /* stopped with its SIGTERM pending */
    kill(c, SIGKILL);
}

static void test_missing_program(void **state)
{
    (void)state;
    proc p;
    const char *argv[] = {"/nonexistent/etcd-fio-no-such-program", NULL};
    char e[256];
    assert_int_equal(proc_start(&p, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_INHERIT, NULL}, e, sizeof e), -1);
    assert_non_null(strstr(e, "cannot run /nonexistent/etcd-fio-no-such-program"));
}

static void read_all(int fd, char *buf, size_t len)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
}

static void test_three_pipes(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "read x; echo \"got $x\"; echo err >&2; cat; echo eof; echo $(ps -o sid= -p $$)",
                          NULL};
    proc a, b;
    char e[256];
    assert_int_equal(proc_start_io(&a, argv, (proc_io){PROC_PIPE, NULL}, (proc_io){PROC_PIPE, NULL},
                                   (proc_io){PROC_PIPE, NULL}, PROC_NEW_SESSION, e, sizeof e), 0);
    /* a second child started now must not inherit a's stdin: a's EOF comes when we close our end */
    assert_int_equal(proc_start_io(&b, argv, (proc_io){PROC_INHERIT, NULL}, (proc_io){PROC_PIPE, NULL},
                                   (proc_io){PROC_INHERIT, NULL}, 0, e, sizeof e), 0);
    assert_int_equal(b.in_fd, -1);
    assert_int_equal(write(a.in_fd, "hi\nmore\n", 8), 8);
    close(a.in_fd);
    a.in_fd = -1;
    char out[256], err[64];
    read_all(a.out_fd, out, sizeof out);
    read_all(a.err_fd, err, sizeof err);
    char want[128];
    snprintf(want, sizeof want, "got hi\nmore\neof\n%d", (int)a.pid); /* its own session: sid == its pid */
    assert_int_equal(strncmp(out, want, strlen(want)), 0);
    assert_string_equal(err, "err\n");
    assert_int_equal(proc_wait(&a, -1), 1);
    assert_int_equal(a.code, 0);
    proc_release(&a);
    read_all(b.out_fd, out, sizeof out);   /* b's stdin is /dev/null */
    assert_non_null(strstr(out, "got \neof\n"));
    assert_int_equal(proc_wait(&b, -1), 1);
    proc_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_code),        cmocka_unit_test(test_signal_death),
        cmocka_unit_test(test_pipe_and_stdin),   cmocka_unit_test(test_file_output_refuses_existing),
        cmocka_unit_test(test_wait_timeout),     cmocka_unit_test(test_stop_escalates),
        cmocka_unit_test(test_missing_program),  cmocka_unit_test(test_three_pipes),
        cmocka_unit_test(test_stop_stopped),     cmocka_unit_test(test_stop_stopped_child),
        cmocka_unit_test(test_die_kill_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
