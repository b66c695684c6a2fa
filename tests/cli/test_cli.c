/* SPDX-License-Identifier: MIT */
/* test_cli.c — the shared CLI layer: the option loop (options anywhere, --opt=value, --opt value, `--`,
 * unknown and incomplete options), the value parsers, the directory check for fio job files, the reader's
 * cap, and outfile.c: a planted symlink at the output path or in the keep-output directory is refused and
 * its target untouched, a keep-output directory writable by others is refused, existing files are replaced
 * atomically, nothing is written among etcd's files (member/, a WAL directory, through a symlinked parent);
 * fio's last line skips the engine's summary lines. */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"
#include "outfile.h"
#include "term.h"

static const cli_opt opts[] = {CLI_OPT("json", 'j', NULL, "print JSON"),
                               CLI_OPT("max-time", 't', "S", "stop after S seconds"),
                               CLI_OPTM("host", 'H', "HOST", "a host; repeat for more"), CLI_END};
static const cli_cmd cmd = {"test", NULL, "", "usage: test\n", opts, ""};

/* Parses argv; returns the last cli_next value; *json, *t and the operands are filled. */
static int parse(int argc, char **argv, int *json, double *t, char **ops, int *nops)
{
    cli_parse p;
    cli_parse_init(&p, &cmd, argc, argv);
    int c;
    *json = 0;
    *t = -1;
    while ((c = cli_next(&p)) > 0) {
        if (c == 'j')
            *json = 1;
        else if (c == 't' && cli_double(&p, 1, 100, t))
            return CLI_ERR;
    }
    *nops = 0;
    for (int i = p.optind; c == 0 && i < argc; i++)
        ops[(*nops)++] = argv[i];
    return c;
}

static void test_options_anywhere(void **state)
{
    (void)state;
    char *a[] = {"test", "DIR", "--json", "--max-time=7", "OTHER", NULL};
    int json, n;
    double t;
    char *ops[8];
    assert_int_equal(parse(5, a, &json, &t, ops, &n), 0);
    assert_int_equal(json, 1);
    assert_true(t == 7);
    assert_int_equal(n, 2);
    assert_string_equal(ops[0], "DIR");
    assert_string_equal(ops[1], "OTHER");

    char *b[] = {"test", "--max-time", "9", "--", "--json", NULL};
    assert_int_equal(parse(5, b, &json, &t, ops, &n), 0);
    assert_int_equal(json, 0); /* after --: an operand */
    assert_true(t == 9);
    assert_int_equal(n, 1);
    assert_string_equal(ops[0], "--json");
}

static void test_option_errors(void **state)
{
    (void)state;
    int json, n;
    double t;
    char *ops[8];
    char *a[] = {"test", "--bogus", NULL};
    assert_int_equal(parse(2, a, &json, &t, ops, &n), CLI_ERR);
    char *b[] = {"test", "DIR", "--max-time", NULL};
    assert_int_equal(parse(3, b, &json, &t, ops, &n), CLI_ERR);
    char *c[] = {"test", "--max-time=abc", NULL};
    assert_int_equal(parse(2, c, &json, &t, ops, &n), CLI_ERR);
    char *d[] = {"test", "--max-time=1000", NULL}; /* out of range */
    assert_int_equal(parse(2, d, &json, &t, ops, &n), CLI_ERR);
    char *e[] = {"test", "x", "--help", NULL};
    assert_int_equal(parse(3, e, &json, &t, ops, &n), CLI_HELP);
    char *f[] = {"test", "--json=1", NULL}; /* a flag takes no value */
    assert_int_equal(parse(2, f, &json, &t, ops, &n), CLI_ERR);
}

static void test_option_twice_and_empty(void **state)
{
    (void)state;
    int json, n;
    double t;
    char *ops[8];
    char *a[] = {"test", "--max-time=5", "--max-time", "7", NULL}; /* no last-one-wins */
    assert_int_equal(parse(4, a, &json, &t, ops, &n), CLI_ERR);
    char *b[] = {"test", "--json", "--json", NULL};
    assert_int_equal(parse(3, b, &json, &t, ops, &n), CLI_ERR);
    char *c[] = {"test", "--host", "a", "--host=b", NULL}; /* CLI_MULTI: repeatable */
    assert_int_equal(parse(4, c, &json, &t, ops, &n), 0);
    char *d[] = {"test", "--host=", NULL};
    assert_int_equal(parse(2, d, &json, &t, ops, &n), CLI_ERR);
    char *e[] = {"test", "--max-time", "", NULL};
    assert_int_equal(parse(3, e, &json, &t, ops, &n), CLI_ERR);
    /* a 64 KiB argument: refused as a value, kept whole as an operand */
    static char big[65536 + 16];
    memset(big, '9', sizeof big - 1);
    memcpy(big, "--max-time=", 11);
    char *f[] = {"test", big, NULL};
    assert_int_equal(parse(2, f, &json, &t, ops, &n), CLI_ERR);
    char *g[] = {"test", big + 11, NULL};
    assert_int_equal(parse(2, g, &json, &t, ops, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(strlen(ops[0]), sizeof big - 12);
    char *h[] = {"test", "--max", "3", NULL}; /* a unique prefix, as getopt_long takes it */
    assert_int_equal(parse(3, h, &json, &t, ops, &n), 0);
    assert_true(t == 3);
}

static const cli_cmd *const all_cmds[] = {&cmd_check_def, &cmd_verdict_def, &cmd_job_def, &cmd_fleet_def,
                                          &cmd_compare_def, &cmd_capacity_def};

/* Every table: ids unique and usable, names unique, at most CLI_MAX_OPTS, every option in the generated
 * help once, no help line past 80 columns or with a trailing blank. */
static void test_tables_and_help(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof all_cmds / sizeof *all_cmds; k++) {
        const cli_cmd *c = all_cmds[k];
        char *txt = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&txt, &len);
        cli_help(f, c);
        fclose(f);
        size_t n = 0;
        for (const cli_opt *o = c->opts; o->name || o->help; o++) {
            if (!o->name)
                continue;
            n++;
            assert_true(o->id > 0 && o->id != '?' && o->id != ':' && o->id != 'h');
            assert_non_null(o->help);
            for (const cli_opt *q = o + 1; q->name || q->help; q++)
                if (q->name && (q->id == o->id || !strcmp(q->name, o->name)))
                    fail_msg("%s: --%s and --%s share an id or a name", c->name, o->name, q->name);
            char want[96];
            if (o->flags & CLI_SHORT)
                snprintf(want, sizeof want, "  -%c, --%s", o->id, o->name);
            else
                snprintf(want, sizeof want, "  --%s%s", o->name, o->arg ? " " : "");
            char *at = strstr(txt, want);
            if (!at)
                fail_msg("%s --help does not list --%s", c->name, o->name);
        }
        assert_true(n <= CLI_MAX_OPTS);
        assert_non_null(strstr(txt, "  -h, --help"));
        for (char *l = txt, *nl; *l; l = nl + 1) {
            nl = strchr(l, '\n');
            assert_non_null(nl);
            if (nl - l > 80 || (nl > l && nl[-1] == ' '))
                fail_msg("%s --help: line too long or with a trailing blank: %.*s", c->name, (int)(nl - l), l);
        }
        free(txt);
    }
}

/* man/etcd-fio.1 documents every option of every table (as its own .B/.BR line or in running text). */
static void test_man_lists_every_option(void **state)
{
    (void)state;
    char err[256];
    size_t len = 0;
    char *man = cli_read_file(TEST_FIXTURES "/../../man/etcd-fio.1", 1 << 20, &len, err, sizeof err);
    if (!man)
        fail_msg("%s", err);
    /* roff writes a '-' as "\\-": drop the backslashes */
    size_t o = 0;
    for (size_t i = 0; i < len; i++)
        if (!(man[i] == '\\' && man[i + 1] == '-'))
            man[o++] = man[i];
    man[o] = '\0';
    for (size_t k = 0; k < sizeof all_cmds / sizeof *all_cmds; k++)
        for (const cli_opt *op = all_cmds[k]->opts; op->name || op->help; op++) {
            char want[96];
            snprintf(want, sizeof want, "--%s", op->name ? op->name : "");
            if (op->name && !strstr(man, want))
                fail_msg("man/etcd-fio.1 does not document %s %s", all_cmds[k]->name, want);
        }
    free(man);
}

static void test_term_clean(void **state)
{
    (void)state;
    char b[64];
    /* ESC, BEL, DEL, a C1 CSI (U+009B), an invalid byte, a cut sequence: '?'; UTF-8 text stays */
    assert_string_equal(term_clean(b, sizeof b, "a\x1b[2Jb\x07\x7f\xc2\x9b\xff\xc3\xa9\xe2\x82"), "a?[2Jb?????\xc3\xa9??");
    assert_string_equal(term_clean(b, 4, "abcdef"), "abc"); /* cut to fit */
    assert_string_equal(term_clean(b, 3, "a\xc3\xa9"), "a");   /* never half a character */
    char in_place[] = "x\ty\n";
    assert_string_equal(term_clean(in_place, sizeof in_place, in_place), "x?y?");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    term_puts(f, "ok\x1b]0;title\x07\xe2\x82\xac");
    term_puts(f, NULL);
    fclose(f);
    assert_string_equal(out, "ok?]0;title?\xe2\x82\xac");
    free(out);
}

static void test_dir_ok(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(cli_dir_ok("/var/lib/etcd", err, sizeof err), 0);
    assert_int_equal(cli_dir_ok("/x/etcd:new", err, sizeof err), 0); /* ':' is escaped by the profile */
    assert_int_equal(cli_dir_ok("/x/etcd#new", err, sizeof err), -1);
    assert_non_null(strstr(err, "'#'"));
    /* fio would expand these (an unset ${VAR} to nothing): it would measure another directory */
    assert_int_equal(cli_dir_ok("/x/etcd${UNSET_VAR}", err, sizeof err), -1);
    assert_non_null(strstr(err, "'$'"));
    assert_int_equal(cli_dir_ok("/x/$ncpus", err, sizeof err), -1);
    assert_int_equal(cli_dir_ok("/x/etcd;new", err, sizeof err), -1);
    assert_non_null(strstr(err, "';'"));
    assert_int_equal(cli_dir_ok("/x/etcd\nnew", err, sizeof err), -1);
    assert_null(strchr(err, '\n')); /* one line */
    static char longp[PATH_MAX + 10]; /* no system call takes it: refused by its length, the message short */
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    assert_int_equal(cli_dir_ok(longp, err, sizeof err), -1);
    assert_non_null(strstr(err, "a path of"));
    assert_true(strlen(err) < 200);
}

static void test_exit_and_format(void **state)
{
    (void)state;
    assert_int_equal(cli_exit_status(FIOR_PASS), 0);
    assert_int_equal(cli_exit_status(FIOR_FAIL), 1);
    assert_int_equal(cli_exit_status(FIOR_UNKNOWN), 2);
    assert_int_equal(cli_exit_status(FIOR_NOT_JUDGED), 2);
    char b[32];
    assert_string_equal(cli_fmt_ns(b, sizeof b, CLI_NS_UNKNOWN), "?");
    assert_string_equal(cli_fmt_ns(b, sizeof b, 2540000), "2.54 ms");
}

static char dir[64];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_cli.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmdline[128];
    snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", dir);
    return system(cmdline) == 0 ? 0 : -1;
}

static char *slurp(const char *path)
{
    char err[256];
    return cli_read_file(path, 1 << 20, NULL, err, sizeof err);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_outfile_symlink_refused(void **state)
{
    (void)state;
    char victim[128], out[128], err[512];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(out, sizeof out, "%s/out.prom", dir);
    put(victim, "precious\n");
    assert_int_equal(symlink(victim, out), 0);
    assert_int_equal(outfile_check(out, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    assert_int_equal(outfile_write(out, "x\n", 2, err, sizeof err), -1);
    char *t = slurp(victim);
    assert_string_equal(t, "precious\n");
    free(t);
    struct stat st;
    assert_int_equal(lstat(out, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* the link itself is left as it was */
    unlink(out);
    /* a regular file is replaced; no temp file is left beside it */
    put(out, "old\n");
    assert_int_equal(outfile_write(out, "new\n", 4, err, sizeof err), 0);
    t = slurp(out);
    assert_string_equal(t, "new\n");
    free(t);
    char cmdline[256];
    snprintf(cmdline, sizeof cmdline, "test $(ls -A '%s' | wc -l) -eq 2", dir);
    assert_int_equal(system(cmdline), 0);
    /* a missing directory fails at once (before any run) */
    assert_int_equal(outfile_check("/nonexistent/x.svg", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent"));
    assert_int_equal(outfile_check(dir, err, sizeof err), -1); /* a directory is no output file */
}

static void test_keep_dir(void **state)
{
    (void)state;
    char keep[128], victim[128], link[160], err[512];
    snprintf(keep, sizeof keep, "%s/keep", dir);
    snprintf(victim, sizeof victim, "%s/victim2", dir);
    put(victim, "precious\n");
    int fd = outfile_dir_open(keep, err, sizeof err); /* created 0700 */
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(stat(keep, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    snprintf(link, sizeof link, "%s/README", keep);
    assert_int_equal(symlink(victim, link), 0);
    assert_int_equal(outfile_write_at(fd, keep, "README", "x", 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    char *t = slurp(victim);
    assert_string_equal(t, "precious\n");
    free(t);
    assert_int_equal(outfile_write_at(fd, keep, "fio-output.json", "{}", 2, err, sizeof err), 0);
    close(fd);
    /* writable by others: refused */
    chmod(keep, 0777);
    assert_int_equal(outfile_dir_open(keep, err, sizeof err), -1);
    assert_non_null(strstr(err, "writable by group or others"));
    chmod(keep, 0700);
    /* the keep directory itself a symlink: refused */
    char klink[160];
    snprintf(klink, sizeof klink, "%s/keeplink", dir);
    assert_int_equal(symlink(keep, klink), 0);
    assert_int_equal(outfile_dir_open(klink, err, sizeof err), -1);
}

/* Outputs never land among etcd's files: a path inside member/ of an etcd data directory (named directly,
 * through a symlinked parent, or its keep-output directory), or in a directory holding WAL segments (a
 * --wal-dir) is refused, at the check and at the write; nothing is created there. Beside member/ is fine. */
static void test_outfile_etcd_places(void **state)
{
    (void)state;
    char data[160], p[400], err[1024], ln[200];
    snprintf(data, sizeof data, "%s/etcd", dir);
    mkdir(data, 0700);
    snprintf(p, sizeof p, "%s/member", data);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/member/wal", data);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/member/snap", data);
    mkdir(p, 0700);
    const char *inside[] = {"member/x.svg", "member/wal/0000000000000000-0000000000000000.wal", "member/snap/db",
                            "member/snap/report.html"};
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", data, inside[i]);
        assert_int_equal(outfile_check(p, err, sizeof err), -1);
        assert_non_null(strstr(err, "inside etcd's data directory"));
        assert_int_equal(outfile_write(p, "x", 1, err, sizeof err), -1);
        struct stat st;
        assert_int_not_equal(lstat(p, &st), 0);
    }
    snprintf(ln, sizeof ln, "%s/innocent", dir); /* a symlinked parent leading into member/wal */
    snprintf(p, sizeof p, "%s/member/wal", data);
    assert_int_equal(symlink(p, ln), 0);
    snprintf(p, sizeof p, "%s/out.prom", ln);
    assert_int_equal(outfile_check(p, err, sizeof err), -1);
    assert_non_null(strstr(err, "inside etcd's data directory"));
    snprintf(p, sizeof p, "%s/keep", ln);
    assert_int_equal(outfile_dir_open(p, err, sizeof err), -1);
    snprintf(p, sizeof p, "%s/member/keep", data);
    assert_int_equal(outfile_dir_open(p, err, sizeof err), -1);
    struct stat st;
    assert_int_not_equal(stat(p, &st), 0); /* not even made */
    snprintf(p, sizeof p, "%s/member", data); /* the member directory itself as the keep directory */
    assert_int_equal(outfile_dir_open(p, err, sizeof err), -1);
    /* a --wal-dir: WAL segments in it */
    char wd[200];
    snprintf(wd, sizeof wd, "%s/waldir", dir);
    mkdir(wd, 0700);
    snprintf(p, sizeof p, "%s/000000000000000a-0000000000000100.wal", wd);
    put(p, "");
    snprintf(p, sizeof p, "%s/x.svg", wd);
    assert_int_equal(outfile_check(p, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds etcd WAL segments"));
    /* beside member/, in the data directory itself: allowed */
    snprintf(p, sizeof p, "%s/report.html", data);
    assert_int_equal(outfile_check(p, err, sizeof err), 0);
    assert_int_equal(outfile_write(p, "x", 1, err, sizeof err), 0);
}

/* The engine's summary lines are statistics, never a cause: fio's last words skip them. */
static void test_last_line(void **state)
{
    (void)state;
    const char *sum[] = {"etcdwal: etcd-wal: 3 segments (2 rollovers), 100 entries, 50 Saves, 123 bytes written",
                         "etcdwal: etcd-wal: fdatasync n=50 mean=1.000ms p99=2.000ms max=3.000ms; dir fsync n=2 mean=1ms",
                         "etcdwal: etcd-backend: backend 12 commits, 40 pages, 1 growths; commit mean=1ms p99=2ms",
                         "etcdwal: etcd-wal: first segment filled with 6000 bytes of history before the run (1 ms, not",
                         "etcdwal: etcd-wal: 16 clients: 100 puts (10/s), 1.0 per Save, latency p50=1ms",
                         "etcdwal: etcd-wal: files kept in /x"};
    for (size_t i = 0; i < sizeof sum / sizeof sum[0]; i++)
        assert_true(cli_engine_summary(sum[i], strlen(sum[i])));
    const char *not_sum[] = {"etcdwal: etcd-wal: fallocate: No space left on device",
                             "etcdwal: backend 12 commits, x", "fio: terminating on signal 2",
                             "etcdwal: etcd-wal: segments (2)"};
    for (size_t i = 0; i < sizeof not_sum / sizeof not_sum[0]; i++)
        assert_false(cli_engine_summary(not_sum[i], strlen(not_sum[i])));
    char f[160], l[512];
    snprintf(f, sizeof f, "%s/fio.stderr", dir);
    put(f, "fio: pid=12, got signal=9\netcdwal: etcd-wal: 3 segments (2 rollovers), 1 entries, 1 Saves, 1 bytes "
           "written\netcdwal: etcd-backend: backend 12 commits, 40 pages, 1 growths; commit mean=1ms p99=2ms\n\n");
    cli_last_line(f, l, sizeof l);
    assert_string_equal(l, "fio: pid=12, got signal=9");
    put(f, "etcdwal: etcd-backend: backend 12 commits, 40 pages, 1 growths; commit mean=1ms p99=2ms\n");
    cli_last_line(f, l, sizeof l);
    assert_string_equal(l, ""); /* only statistics: nothing to say */
}

static void test_read_cap(void **state)
{
    (void)state;
    char p[128], err[256];
    snprintf(p, sizeof p, "%s/big", dir);
    FILE *f = fopen(p, "w");
    for (int i = 0; i < 200000; i++)
        fputc('a', f);
    fclose(f);
    size_t n;
    assert_null(cli_read_file(p, 100000, &n, err, sizeof err));
    assert_non_null(strstr(err, "larger than"));
    char *t = cli_read_file(p, 300000, &n, err, sizeof err);
    assert_non_null(t);
    assert_int_equal(n, 200000);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_anywhere),
        cmocka_unit_test(test_option_errors),
        cmocka_unit_test(test_option_twice_and_empty),
        cmocka_unit_test(test_tables_and_help),
        cmocka_unit_test(test_man_lists_every_option),
        cmocka_unit_test(test_term_clean),
        cmocka_unit_test(test_dir_ok),
        cmocka_unit_test(test_exit_and_format),
        cmocka_unit_test_setup_teardown(test_outfile_symlink_refused, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_keep_dir, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_read_cap, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_outfile_etcd_places, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_last_line, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
