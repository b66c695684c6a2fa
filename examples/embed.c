/* SPDX-License-Identifier: MIT */
/* embed.c — the smallest useful program built on libfioreport: judge fio output files (any format fio
 * writes, or an etcd-perf log) against etcd's thresholds and exit 0 PASS, 1 FAIL, 2 cannot judge.
 *
 * Build against an installed libfioreport:
 *   cc embed.c $(pkg-config --cflags --libs fioreport) -o embed
 *   ./embed fio-output.json
 * It checks at run time that the loaded library is the major version it was compiled for.
 */
#include <fioreport.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIO_OUTPUT...\n", argv[0]);
        return 2;
    }
    if (fior_version_number() >> 16 != FIOR_VERSION_MAJOR) {
        fprintf(stderr, "%s: built for libfioreport %s, loaded %s\n", argv[0], FIOR_VERSION, fior_version());
        return 2;
    }
    fior_report *r = fior_report_new();
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (fior_parse_file(r, argv[i]) != FIOR_OK) {
            /* The message already names the file and the line or byte where reading stopped. */
            fprintf(stderr, "%s: %s\n", argv[0], fior_report_error(r));
            fior_report_free(r);
            return 2;
        }
    }

    /* The defaults: p99; 10 ms for WAL jobs, 25 ms for backend commits, at least 100 samples. */
    fior_criteria *c = fior_criteria_new();
    fior_result *res = c ? fior_judge(r, c) : NULL;  /* owns every judgement and reason */
    if (!res) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        fior_criteria_free(c);
        fior_report_free(r);
        return 2;
    }
    for (size_t i = 0; i < fior_result_count(res); i++) {
        const fior_job *job = fior_report_job(r, i);
        const fior_judgement *j = fior_result_job(res, i);
        if (j->verdict == FIOR_NOT_JUDGED)
            continue;
        printf("%s%s%s %s: ", job->source, job->host ? " " : "", job->host ? job->host : "",
               job->name ? job->name : "?");
        if (j->value_known)
            printf("p%g %.3f ms (limit %.0f ms) ", fior_criteria_percentile(c), j->value_ns / 1e6,
                   j->threshold_ns / 1e6);
        printf("%s — %s\n", fior_verdict_name(j->verdict), j->reason);
    }
    fior_verdict overall = fior_result_verdict(res);
    printf("overall: %s\n", fior_verdict_name(overall));
    fior_result_free(res);
    fior_criteria_free(c);
    fior_report_free(r);
    return overall == FIOR_PASS ? 0 : overall == FIOR_FAIL ? 1 : 2;
}
