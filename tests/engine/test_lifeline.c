/* SPDX-License-Identifier: MIT */
/* test_lifeline.c — engine/lifeline.c: after life_arm_forks() a process's forked children die with it from
 * their first instruction (a "fio" SIGKILLed while its "job" waits, before the job has run any code of
 * ours, leaves no job behind; without the arming the same job outlives it), a child whose parent died
 * before the handler ran ends at once, and life_end() reaps a killed job's private directory only in the
 * process that noted its parent directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdir.h"

#include "lifeline.h"
#include "privdir.h"

/* 1 once pid is gone or a zombie (reparented: not ours to wait for), polled up to ms. */
static int gone_within(pid_t pid, int ms)
{
    for (int t = 0; t <= ms; t += 10) {
        char p[64], buf[512];
        snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
        FILE *f = fopen(p, "r");
        if (!f)
            return 1;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *rp = strrchr(buf, ')');
        if (!rp || rp[2] == 'Z' || rp[2] == 'X')
            return 1;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* A "fio" (child) forks a "job" that only waits, as fio's job waits at its start semaphore, reports the
 * job's pid and is SIGKILLed. Returns the job's pid. */
static pid_t fio_killed_with_waiting_job(int arm)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t fio = fork();
    assert_true(fio >= 0);
    if (fio == 0) {
        if (arm && life_arm_forks() != 0)
            _exit(1);
        pid_t job = fork();
        if (job == 0) {
            for (;;)
                pause();
        }
        if (write(p[1], &job, sizeof job) != (ssize_t)sizeof job)
            _exit(1);
        for (;;)
            pause();
    }
    pid_t job = 0;
    assert_int_equal(read(p[0], &job, sizeof job), (ssize_t)sizeof job);
    close(p[0]);
    close(p[1]);
    kill(fio, SIGKILL);
    waitpid(fio, NULL, 0);
    return job;
}

static void test_job_dies_with_fio(void **state)
{
    (void)state;
    pid_t job = fio_killed_with_waiting_job(1);
    assert_true(gone_within(job, 3000));
    /* the control: without the arming the same job outlives its fio (then ended here) */
    job = fio_killed_with_waiting_job(0);
    assert_false(gone_within(job, 300));
    kill(job, SIGKILL);
    assert_true(gone_within(job, 3000));
}

static void test_parent_gone_before(void **state)
{
    (void)state;
    pid_t c = fork();
    if (c == 0) {
        life_child(getppid() + 1); /* not our parent: as if it had died and we had been adopted */
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    c = fork();
    if (c == 0) {
        life_child(getppid()); /* the parent lives: nothing happens */
        _exit(0);
    }
    waitpid(c, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A job killed after making its directory: its path to out. */
static void killed_job(const char *parent, char *out, size_t n)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t c = fork();
    if (c == 0) {
        privdir pd;
        char err[256];
        if (privdir_create(&pd, parent, "etcd-wal", getpid(), err, sizeof err) ||
            write(p[1], pd.path, strlen(pd.path) + 1) < 0)
            _exit(1);
        raise(SIGKILL);
    }
    ssize_t k = read(p[0], out, n);
    assert_true(k > 0);
    waitpid(c, NULL, 0);
    close(p[0]);
    close(p[1]);
}

static void test_end_reaps_in_noting_process(void **state)
{
    (void)state;
    char *parent = testdir_make("test_lifeline"), dir[8192];
    assert_non_null(parent);
    killed_job(parent, dir, sizeof dir);
    assert_int_equal(life_note_dir(parent), 0);
    assert_int_equal(life_note_dir(parent), 0); /* once */
    pid_t c = fork(); /* a job process inherits the list: its end reaps nothing */
    if (c == 0)
        _exit(life_end() == 0 && access(dir, F_OK) == 0 ? 0 : 1);
    int st;
    waitpid(c, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(life_end(), 1);
    assert_int_equal(access(dir, F_OK), -1);
    assert_int_equal(life_end(), 0); /* forgotten */
    DIR *d = opendir(parent);
    int left = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        left += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    assert_int_equal(left, 0);
    testdir_remove(parent);
    free(parent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_dies_with_fio),
        cmocka_unit_test(test_parent_gone_before),
        cmocka_unit_test(test_end_reaps_in_noting_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
