/* SPDX-License-Identifier: MIT */
/* cmd_compare.c — `etcd-fio compare A B …`: results side by side (compare.h). The exit status is the worst
 * verdict among the inputs, as with `verdict`: 0 all pass, 1 one fails, 2 unknown / bad input / usage. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "outfile.h"

static const char usage[] =
"usage: etcd-fio compare [OPTIONS] A B [C]...\n"
"\n"
"Puts results side by side: disk A vs disk B, before vs after a change, or what the disk test predicted\n"
"vs what this etcd sees. Each input is a result JSON of `etcd-fio check|verdict|fleet --json`, or\n"
"anything `etcd-fio verdict` reads (fio output, an etcd /metrics scrape, `etcdctl check perf` output),\n"
"judged with the options below. Per role (wal, backend, check-perf) each input is summarised by its\n"
"worst job (fail before unknown before pass, then the highest p99): samples, p50, p99, p99.9, max (an\n"
"etcd histogram gives bucket ranges such as '1-2 ms'), the verdict, the ratio of each input to the first\n"
"(a range when a value is a range) and which verdicts differ.\n";

static const cli_opt options[] = {
    CLI_OPT("json", 'j', NULL, "one JSON object: {\"command\": \"compare\", \"verdict\", \"inputs\": [{\"path\", "
            "\"kind\"}], \"roles\": [{\"role\", \"verdicts_differ\", \"inputs\": [{\"job\", \"samples\", \"p50\", "
            "\"p99\", \"p99_9\", \"max\" ({\"lo_ns\", \"hi_ns\"} or null), \"verdict\", \"reason\", "
            "\"p99_ratio_to_first\"} or null]}]}"),
    CLI_OPT("max-input", 'm', "BYTES", "read at most BYTES of each input (default 1G)"),
    CLI_OPT("html", 'H', "FILE", "also write the comparison as one self-contained HTML page (with the explain "
            "lines over all inputs together, e.g. not-the-disk for etcd's metrics vs a disk test)"),
    CLI_GROUP("Criteria for raw inputs, as for `etcd-fio verdict` (a result JSON keeps its verdicts):"),
    CLI_OPTS_CRITERIA,
    CLI_END};

static const char outro[] =
"Exit status: the worst verdict among the inputs: 0 pass, 1 fail, 2 unknown, unreadable input or usage\n"
"error.\n";

static int run(const cli_cmd *cmd, int argc, char **argv);
const cli_cmd cmd_compare_def = {"compare", run, "results side by side (disks, before/after, test vs etcd)",
                                 usage, options, outro};

static int run(const cli_cmd *cmd, int argc, char **argv)
{
    fior_criteria *crit = fior_criteria_new();
    compare_input *in = NULL;
    uint64_t max_input = 1ULL << 30;
    int json = 0, rc = 2, c;
    const char *html = NULL;
    if (!crit) {
        cli_err(cmd, "out of memory");
        return 2;
    }
    cli_parse p;
    cli_parse_init(&p, cmd, argc, argv);
    while ((c = cli_next(&p)) > 0) {
        switch (c) {
        case 'j': json = 1; break;
        case 'H': html = p.arg; break;
        case 'm':
            if (cli_bytes(&p, &max_input))
                goto out;
            break;
        default:
            if (cli_criteria_opt(&p, c, crit) < 0)
                goto out;
            break;
        }
    }
    if (c == CLI_HELP)
        rc = 0;
    if (c < 0)
        goto out;
    int n = argc - p.optind;
    if (n < 2) {
        cli_err(cmd, "needs two inputs or more to compare (--help)");
        goto out;
    }
    char err[1024];
    if (html && outfile_check(html, err, sizeof err)) {
        cli_err(cmd, "--html %s", err);
        goto out;
    }
    in = calloc((size_t)n, sizeof *in);
    if (!in) {
        cli_err(cmd, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        if (compare_load(&in[i], argv[p.optind + i], crit, (size_t)max_input, err, sizeof err)) {
            cli_err(cmd, "%s", err);
            goto out;
        }
    if (json) {
        if (compare_json(stdout, in, (size_t)n)) {
            cli_err(cmd, "out of memory");
            goto out;
        }
    } else {
        compare_table(stdout, in, (size_t)n);
    }
    rc = cli_exit_status(compare_worst(in, (size_t)n));
    if (html && compare_html_file(html, in, (size_t)n, err, sizeof err)) {
        cli_err(cmd, "--html %s", err);
        rc = 2;
    }
out:
    free(in);
    fior_criteria_free(crit);
    return rc;
}
