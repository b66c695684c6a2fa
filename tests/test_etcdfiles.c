/* SPDX-License-Identifier: MIT */
/* test_etcdfiles.c — etcd's file names (engine/etcdfiles.h) as etcd gives them (server/storage/wal/util.go
 * walName "%016x-%016x.wal", file_pipeline.go "%d.tmp", snapshotter.go "%016x-%016x.snap", db.go
 * "%016x.snap.db", member/snap/db), names that only look alike, and the engine and the CLI agreeing on them:
 * what the engine takes for its own file (privdir_own_file) is a name etcd gives, and a live etcd's WAL
 * (liveetcd_wal_name) is what the matcher calls a segment or a spare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "etcdfiles.h"
#include "liveetcd.h"
#include "privdir.h"

static void test_kind(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "%016llx-%016llx.wal", 0x1aULL, 1000000ULL); /* as walName writes it */
    assert_int_equal(etcdfiles_kind_of(name), ETCDFILES_WAL);
    assert_true(etcdfiles_wal_segment(name));
    snprintf(name, sizeof name, "%016llx-%016llx.snap", 2ULL, 0x186a0ULL);
    assert_int_equal(etcdfiles_kind_of(name), ETCDFILES_SNAP);
    snprintf(name, sizeof name, "%016llx.snap.db", 0x186a0ULL);
    assert_int_equal(etcdfiles_kind_of(name), ETCDFILES_SNAP_DB);
    assert_int_equal(etcdfiles_kind_of("db"), ETCDFILES_DB);
    assert_int_equal(etcdfiles_kind_of("0.tmp"), ETCDFILES_WAL_TMP);
    assert_int_equal(etcdfiles_kind_of("1.tmp"), ETCDFILES_WAL_TMP);

    /* wide by suffix: any *.wal, *.snap may be etcd's */
    assert_int_equal(etcdfiles_kind_of("x.wal"), ETCDFILES_WAL);
    assert_false(etcdfiles_wal_segment("x.wal"));
    assert_int_equal(etcdfiles_kind_of("x.snap"), ETCDFILES_SNAP);

    /* not etcd's */
    const char *other[] = {"2.tmp", "0.tmp.x", "dbx", "xdb", ".wal", ".snap", ".snap.db", "wal", "snap", "member",
                           "job.fio", "classic.0.0", "lock", "", "a.wal.broken", "a.snapdb"};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        if (etcdfiles_kind_of(other[i]) != ETCDFILES_OTHER)
            fail_msg("%s: taken for an etcd file", other[i]);
        assert_false(etcdfiles_wal_segment(other[i]));
    }
}

static void test_segment_shape(void **state)
{
    (void)state;
    assert_true(etcdfiles_wal_segment("0000000000000000-0000000000000000.wal"));
    assert_true(etcdfiles_wal_segment("00000000000000AB-00000000000f4240.wal")); /* either case: refused */
    assert_false(etcdfiles_wal_segment("000000000000000-00000000000000000.wal"));  /* '-' misplaced */
    assert_false(etcdfiles_wal_segment("0000000000000000_0000000000000000.wal"));
    assert_false(etcdfiles_wal_segment("000000000000000g-0000000000000000.wal"));
    assert_false(etcdfiles_wal_segment("0000000000000000-0000000000000000.wall"));
    assert_false(etcdfiles_wal_segment("0000000000000000-0000000000000000.wal.tmp"));
    assert_false(etcdfiles_wal_segment("00000000000000000-0000000000000000.wal"));
}

/* The engine's own names are etcd's names (it writes the way etcd writes); the CLI's live-etcd scan sees a
 * segment or a spare exactly where the matcher does. */
static void test_engine_and_cli_agree(void **state)
{
    (void)state;
    const char *names[] = {"0000000000000000-0000000000000000.wal", "000000000000001a-00000000000f4240.wal",
                           "0.tmp", "1.tmp", "db", "2.tmp", "x.wal", "lock", "000000000000001A-00000000000F4240.wal"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        etcdfiles_kind k = etcdfiles_kind_of(names[i]);
        if (privdir_own_file(names[i]) && k == ETCDFILES_OTHER)
            fail_msg("%s: the engine's own, but no etcd name", names[i]);
        int wal = k == ETCDFILES_WAL_TMP || etcdfiles_wal_segment(names[i]);
        if (liveetcd_wal_name(names[i]) != wal)
            fail_msg("%s: liveetcd says %d, the matcher %d", names[i], liveetcd_wal_name(names[i]), wal);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_segment_shape),
        cmocka_unit_test(test_engine_and_cli_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
