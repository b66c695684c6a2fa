/* SPDX-License-Identifier: MIT */
/* test_liveetcd.c — finding a live etcd (tools/liveetcd.c): /proc/locks lines as the kernel prints them
 * (OFD locks with pid -1, flocks with a pid, waiters), etcd's file names and data directories, and the
 * scan itself on a fake data directory: an OFD lock held by this process (which the scan never counts as a
 * process, so it stands for an etcd in another pid namespace: only the lock is seen), a child that has a
 * WAL file open (a visible etcd), and what must not count: a WAL-named file of our own engine's private
 * directory, a lock on a file that is not etcd's, a FIFO named like a segment (never opened). */
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
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "liveetcd.h"
#include "testdir.h"

/* /proc/locks of this machine with a real etcd 3.4.23 running (its WAL segment and spare: OFD; its db:
 * flock), plus a chain of waiters on another file and a POSIX lock on another device */
static const char LOCKS[] =
    "1: OFDLCK ADVISORY  WRITE -1 fe:00:11019443 0 EOF\n"
    "2: OFDLCK ADVISORY  WRITE -1 fe:00:11019457 0 EOF\n"
    "3: FLOCK  ADVISORY  WRITE 22596 fe:00:11019456 0 EOF\n"
    "4: FLOCK  ADVISORY  WRITE 9655 fe:00:10956086 0 EOF\n"
    "4: -> FLOCK  ADVISORY  WRITE 10978 fe:00:10956086 0 EOF\n"
    "4:  -> FLOCK  ADVISORY  WRITE 32159 fe:00:10956086 0 EOF\n"
    "5: POSIX  ADVISORY  READ 812 08:01:77 0 EOF\n"
    "garbage line\n"
    "6: LEASE  ACTIVE    READ 900 fe:00:5 0 EOF";

static void test_parse_locks(void **state)
{
    (void)state;
    liveetcd_lock l[8];
    size_t n = liveetcd_parse_locks(LOCKS, 0xfe, 0, l, 8);
    assert_int_equal(n, 5); /* the waiters (->) hold nothing; 08:01 is another device */
    assert_string_equal(l[0].kind, "OFDLCK");
    assert_int_equal(l[0].pid, -1);
    assert_true(l[0].write);
    assert_int_equal(l[0].ino, 11019443);
    assert_string_equal(l[2].kind, "FLOCK");
    assert_int_equal(l[2].pid, 22596);
    assert_int_equal(l[3].ino, 10956086);
    assert_int_equal(l[3].pid, 9655);
    assert_string_equal(l[4].kind, "LEASE");
    assert_false(l[4].write);
    n = liveetcd_parse_locks(LOCKS, 8, 1, l, 8);
    assert_int_equal(n, 1);
    assert_false(l[0].write);
    assert_int_equal(liveetcd_parse_locks(LOCKS, 0xfe, 0, l, 2), 5); /* counted beyond max */
    assert_int_equal(liveetcd_parse_locks("", 0xfe, 0, l, 8), 0);
}

static void test_names(void **state)
{
    (void)state;
    assert_true(liveetcd_wal_name("0000000000000000-0000000000000000.wal"));
    assert_true(liveetcd_wal_name("000000000000001a-00000000000f4240.wal"));
    assert_true(liveetcd_wal_name("0.tmp"));
    assert_false(liveetcd_wal_name("2.tmp"));
    assert_false(liveetcd_wal_name("0000000000000000-0000000000000000.wal.broken"));
    assert_false(liveetcd_wal_name("000000000000000-00000000000000000.wal"));
    assert_false(liveetcd_wal_name("lock"));
    char d[256];
    assert_true(liveetcd_datadir_of("/var/lib/etcd/member/wal/0000000000000000-0000000000000000.wal", d, sizeof d));
    assert_string_equal(d, "/var/lib/etcd");
    assert_true(liveetcd_datadir_of("/var/lib/rancher/rke2/server/db/etcd/member/snap/db", d, sizeof d));
    assert_string_equal(d, "/var/lib/rancher/rke2/server/db/etcd");
    assert_true(liveetcd_datadir_of("/x/member/snap/0000000000000002-0000000000000010.snap", d, sizeof d));
    assert_string_equal(d, "/x");
    assert_true(liveetcd_datadir_of("/member/wal/0.tmp", d, sizeof d));
    assert_string_equal(d, "/");
    assert_false(liveetcd_datadir_of("/x/etcd-fio.12.etcd-wal.0/0000000000000000-0000000000000000.wal", d, sizeof d));
    assert_false(liveetcd_datadir_of("/x/member/wal/db", d, sizeof d));
    assert_false(liveetcd_datadir_of("/x/members/wal/0.tmp", d, sizeof d));
    assert_false(liveetcd_datadir_of("db", d, sizeof d));
    assert_true(liveetcd_related("/var/lib/etcd", "/var/lib/etcd"));
    assert_true(liveetcd_related("/var/lib/etcd", "/var/lib"));
    assert_true(liveetcd_related("/var/lib", "/var/lib/etcd/member"));
    assert_true(liveetcd_related("/", "/var"));
    assert_false(liveetcd_related("/var/lib/etcd2", "/var/lib/etcd"));
}

typedef struct fx {
    char *dir;
    char  seg[8300], data[4096];
    unsigned maj, min;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->dir = testdir_make("test_liveetcd");
    char p[8192];
    snprintf(f->data, sizeof f->data, "%.4000s/etcd", f->dir);
    mkdir(f->data, 0700);
    snprintf(p, sizeof p, "%s/member", f->data);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/member/wal", f->data);
    mkdir(p, 0700);
    snprintf(f->seg, sizeof f->seg, "%s/0000000000000000-0000000000000000.wal", p);
    int fd = open(f->seg, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    struct stat st;
    assert_int_equal(stat(f->dir, &st), 0);
    f->maj = major(st.st_dev);
    f->min = minor(st.st_dev);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    testdir_remove(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static int ofd_lock(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    return fd;
}

/* An etcd outside this test (another test's, a developer's) on the same filesystem is found too, and
 * rightly: what the "nothing found" cases assert is that nothing of the fixture's is found. The finder puts
 * data dirs related to DIR first, so one of the fixture's would be the one named, "here". */
static int nothing_of_ours(const liveetcd *le, const fx *f)
{
    if (!le->found)
        return 1;
    int foreign = !le->here && le->datadir[0] && !liveetcd_related(le->datadir, f->dir);
    if (foreign)
        printf("note: an etcd outside this test runs on this filesystem (pid %ld, %s)\n", le->pid, le->datadir);
    return foreign;
}

/* Nothing running: nothing found, from DIR and from the data dir. */
static void test_find_nothing(void **state)
{
    fx *f = *state;
    liveetcd le;
    liveetcd_find(f->dir, f->maj, f->min, &le);
    assert_true(nothing_of_ours(&le, f));
    liveetcd_find(f->data, f->maj, f->min, &le);
    assert_true(nothing_of_ours(&le, f));
}

/* The WAL locked by a process the scan does not see (this one stands for it): found by the lock alone,
 * from the data dir, from its parent, from member/wal itself, with no pid. */
static void test_find_by_lock(void **state)
{
    fx *f = *state;
    int fd = ofd_lock(f->seg);
    char wal[4200];
    snprintf(wal, sizeof wal, "%s/member/wal", f->data);
    const char *from[] = {f->data, f->dir, wal};
    for (int i = 0; i < 3; i++) {
        liveetcd le;
        liveetcd_find(from[i], f->maj, f->min, &le);
        assert_true(le.found);
        assert_true(le.wal_locked);
        assert_true(le.here);
        assert_int_equal(le.pid, 0);
        assert_string_equal(le.datadir, f->data);
        assert_non_null(strstr(le.how, "not visible here"));
    }
    close(fd);
    liveetcd le;
    liveetcd_find(f->dir, f->maj, f->min, &le);
    assert_true(nothing_of_ours(&le, f)); /* the lock went with the descriptor */
}

/* A child with the segment open (not locked): a visible process holding etcd's files. */
static void test_find_by_process(void **state)
{
    fx *f = *state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t c = fork();
    if (c == 0) {
        int fd = open(f->seg, O_RDONLY);
        char b = fd >= 0 ? 'y' : 'n';
        if (write(p[1], &b, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char b = 0;
    assert_int_equal(read(p[0], &b, 1), 1);
    assert_int_equal(b, 'y');
    liveetcd le;
    liveetcd_find(f->dir, f->maj, f->min, &le);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    close(p[0]);
    close(p[1]);
    assert_true(le.found);
    assert_false(le.wal_locked);
    assert_int_equal(le.pid, c);
    assert_true(le.start_s > 1e9);
    assert_string_equal(le.datadir, f->data);
    assert_non_null(strstr(le.how, "has "));
    assert_non_null(strstr(le.how, "0000000000000000-0000000000000000.wal open"));
}

/* What is not etcd: a locked WAL-named file in our own engine's private directory, a locked file of
 * another name in member/wal, a FIFO named like a segment (a scan that opened it would hang here). */
static void test_not_etcd(void **state)
{
    fx *f = *state;
    char ours[4200], seg[4300], other[4300], fifo[4300];
    snprintf(ours, sizeof ours, "%s/etcd-fio.77.etcd-wal.0", f->dir);
    mkdir(ours, 0700);
    snprintf(seg, sizeof seg, "%s/0000000000000000-0000000000000000.wal", ours);
    int fd = open(seg, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    snprintf(other, sizeof other, "%s/member/wal/lock", f->data);
    fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);
    snprintf(fifo, sizeof fifo, "%s/member/wal/0000000000000001-0000000000000001.wal", f->data);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int l1 = ofd_lock(seg), l2 = ofd_lock(other);
    liveetcd le;
    liveetcd_find(f->dir, f->maj, f->min, &le);
    assert_true(nothing_of_ours(&le, f));
    close(l1);
    close(l2);
}

/* The result's detail and explain line. */
static void test_report(void **state)
{
    (void)state;
    result_run r;
    result_init(&r, "check", NULL);
    liveetcd le = {.found = 1, .here = 1, .wal_locked = 1, .pid = 0};
    snprintf(le.datadir, sizeof le.datadir, "/var/lib/etcd");
    snprintf(le.how, sizeof le.how, "its WAL files in /var/lib/etcd are locked");
    liveetcd_report(&le, &r);
    assert_int_equal(r.ndetails, 1);
    assert_string_equal(r.details[0].key, "live_etcd");
    assert_non_null(strstr(r.details[0].text, "our figures include its load"));
    assert_int_equal(r.nexplain, 1);
    assert_string_equal(r.explain[0].rule, "shared-with-etcd");
    result_free(&r);
    result_init(&r, "check", NULL);
    memset(&le, 0, sizeof le);
    liveetcd_report(&le, &r);
    assert_int_equal(r.nexplain, 0);
    assert_non_null(strstr(r.details[0].text, "none found"));
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_locks),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_report),
        cmocka_unit_test_setup_teardown(test_find_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find_by_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find_by_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_etcd, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
