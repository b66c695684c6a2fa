/* SPDX-License-Identifier: MIT */
/* fiojson.h — builds small fio json+ documents for the CLI's unit tests (check's judge, fleet's
 * aggregation): jobs (or client_stats entries with hostname/port) whose sync latencies are the given bins,
 * with N, min/max/mean and fio's percentile list computed the way fio does (first bin whose cumulative count
 * reaches q*N). Static functions: include once per test. */
#ifndef TESTS_FIOJSON_H
#define TESTS_FIOJSON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct fj_job {
    const char *name, *mode;      /* mode: "wal" / "backend" (etcd_mode option) */
    const char *host;             /* client_stats hostname, or NULL for a plain job */
    int port;
    const uint64_t (*bins)[2];    /* {ns, count}, ascending */
    size_t nbins;
} fj_job;

static uint64_t fj_pct(const fj_job *j, double q)
{
    uint64_t n = 0, cum = 0;
    for (size_t i = 0; i < j->nbins; i++)
        n += j->bins[i][1];
    for (size_t i = 0; i < j->nbins; i++) {
        cum += j->bins[i][1];
        if ((double)cum >= q * (double)n)
            return j->bins[i][0];
    }
    return j->nbins ? j->bins[j->nbins - 1][0] : 0;
}

/* A malloc'd document; `client`: the jobs go into "client_stats" (fio --client output). */
static char *fj_doc(const fj_job *jobs, size_t n, int client)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1700000000,\n  \"time\" : \"x\",\n"
               "  \"%s\" : [\n", client ? "client_stats" : "jobs");
    for (size_t k = 0; k < n; k++) {
        const fj_job *j = &jobs[k];
        uint64_t N = 0, sum = 0;
        for (size_t i = 0; i < j->nbins; i++)
            N += j->bins[i][1], sum += j->bins[i][0] * j->bins[i][1];
        fprintf(f, "    {\n      \"jobname\" : \"%s\",\n      \"groupid\" : 0,\n      \"error\" : 0,\n", j->name);
        fprintf(f, "      \"job options\" : {\"ioengine\" : \"external:/x/libetcdwal.so\", \"etcd_mode\" : \"%s\", "
                   "\"fdatasync\" : \"1\"},\n", j->mode);
        if (j->host)
            fprintf(f, "      \"hostname\" : \"%s\",\n      \"port\" : %d,\n", j->host, j->port);
        fprintf(f, "      \"sync\" : {\n        \"total_ios\" : %llu,\n        \"lat_ns\" : {\n", (unsigned long long)N);
        fprintf(f, "          \"min\" : %llu,\n          \"max\" : %llu,\n          \"mean\" : %.3f,\n"
                   "          \"stddev\" : 1.0,\n          \"N\" : %llu,\n          \"percentile\" : {",
                (unsigned long long)(j->nbins ? j->bins[0][0] : 0),
                (unsigned long long)(j->nbins ? j->bins[j->nbins - 1][0] : 0), N ? (double)sum / (double)N : 0.0,
                (unsigned long long)N);
        static const double qs[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
        for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++)
            fprintf(f, "%s\"%f\" : %llu", q ? ", " : "", qs[q], (unsigned long long)fj_pct(j, qs[q] / 100));
        fprintf(f, "},\n          \"bins\" : {");
        for (size_t i = 0; i < j->nbins; i++)
            fprintf(f, "%s\"%llu\" : %llu", i ? ", " : "", (unsigned long long)j->bins[i][0],
                    (unsigned long long)j->bins[i][1]);
        fprintf(f, "}\n        }\n      }\n    }%s\n", k + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
    return buf;
}

#endif
