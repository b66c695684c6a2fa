/* embed.c — the smallest useful program built on libfioreport: judge fio output files (any format fio
 * writes, or an etcd-perf log) against etcd's thresholds and exit 0 PASS, 1 FAIL, 2 cannot judge.
 *
 * Build against an installed libfioreport:
 *   cc embed.c $(pkg-config --cflags --libs fioreport) -o embed
 *   ./embed fio-output.json
 */
#include <fioreport.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIO_OUTPUT...\n", argv[0]);
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

    fior_criteria c;
    fior_criteria_default(&c);  /* p99; 10 ms for WAL jobs, 25 ms for backend commits */
    size_t n = fior_report_njobs(r);
    fior_judgement *j = calloc(n ? n : 1, sizeof *j);
    if (!j) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        fior_report_free(r);
        return 2;
    }
    fior_verdict overall = fior_judge_report(r, &c, j);

    for (size_t i = 0; i < n; i++) {
        const fior_job *job = fior_report_job(r, i);
        if (j[i].verdict == FIOR_NOT_JUDGED)
            continue;
        printf("%s%s%s %s: ", job->source, job->host ? " " : "", job->host ? job->host : "",
               job->name ? job->name : "?");
        if (j[i].value_known)
            printf("p%g %.3f ms (limit %.0f ms) ", c.percentile, j[i].value_ns / 1e6,
                   j[i].threshold_ns / 1e6);
        printf("%s — %s\n", fior_verdict_name(j[i].verdict), j[i].reason);
    }
    printf("overall: %s\n", fior_verdict_name(overall));
    free(j);
    fior_report_free(r);
    return overall == FIOR_PASS ? 0 : overall == FIOR_FAIL ? 1 : 2;
}
