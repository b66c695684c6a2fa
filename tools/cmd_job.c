/* cmd_job.c — `etcd-fio job`: prints the etcd profile (WAL + backend jobs) as a fio job file, so it can
 * be run by hand, kept beside results, or distributed to other hosts. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "engine_path.h"
#include "profile.h"

static void job_usage(FILE *f)
{
    fputs("usage: etcd-fio job [--load s|m|l|xl] [--dir DIR] [--runtime S] [--ionice] [--engine PATH]\n"
          "\n"
          "Prints a fio job file with etcd's two disk writers running together on DIR: the WAL (one\n"
          "fdatasync per raft Save) and the bbolt backend (a commit every 100 ms), at the load of\n"
          "`etcdctl check perf --load=LEVEL` (s: 150 puts/s, m: 1000, l: 8000, xl: 15000).\n"
          "\n"
          "  --load LEVEL    s (default), m, l or xl\n"
          "  --dir DIR       directory to test (default: the current directory); the engine works in a\n"
          "                  private subdirectory it removes at the end\n"
          "  --runtime S     seconds (default 60, as etcdctl check perf)\n"
          "  --ionice        run the WAL job at prioclass=2 prio=0 (ionice -c2 -n0), as etcd is tuned\n"
          "  --engine PATH   libetcdwal.so to use (default: found beside etcd-fio or installed)\n"
          "\n"
          "Run it with: etcd-fio job > etcd.fio && fio etcd.fio --output-format=json > out.json\n"
          "and judge it with: etcd-fio verdict out.json\n",
          f);
}

int cmd_job(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"load", required_argument, NULL, 'l'},   {"dir", required_argument, NULL, 'd'},
        {"runtime", required_argument, NULL, 'r'}, {"ionice", no_argument, NULL, 'i'},
        {"engine", required_argument, NULL, 'e'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    prof_opts o = {.load = "s"};
    const char *dir = ".", *engine = NULL;

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            o.load = optarg;
            if (!prof_load_valid(optarg)) {
                fprintf(stderr, "etcd-fio job: unknown load '%s' (expected s, m, l or xl)\n", optarg);
                return 2;
            }
            break;
        case 'd': dir = optarg; break;
        case 'r': {
            char *end;
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (errno || end == optarg || *end || v == 0 || v > 86400 || optarg[0] == '-') {
                fprintf(stderr, "etcd-fio job: --runtime '%s': expected whole seconds, 1..86400\n", optarg);
                return 2;
            }
            o.runtime_s = (unsigned)v;
            break;
        }
        case 'i': o.ionice = 1; break;
        case 'e': engine = optarg; break;
        case 'h': job_usage(stdout); return 0;
        case ':':
            fprintf(stderr, "etcd-fio job: option '%s' needs a value (see etcd-fio job --help)\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "etcd-fio job: unknown option '%s' (see etcd-fio job --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "etcd-fio job: unexpected argument '%s' (see etcd-fio job --help)\n", argv[optind]);
        return 2;
    }

    /* fio resolves directory= against its own working directory; an absolute path keeps the file
     * meaningful wherever it is run from. A DIR that does not exist here (a file for another host) is
     * printed as given. */
    char dirbuf[PATH_MAX];
    if (realpath(dir, dirbuf))
        dir = dirbuf;
    o.dir = dir;

    char engbuf[PATH_MAX + 128];
    if (engine) {
        char *abs = realpath(engine, NULL);
        if (!abs) {
            fprintf(stderr, "etcd-fio job: --engine %s: %s\n", engine, strerror(errno));
            return 2;
        }
        snprintf(engbuf, sizeof engbuf, "%s", abs);
        free(abs);
    } else if (engine_path_find(engbuf, sizeof engbuf) != 0) {
        fprintf(stderr, "etcd-fio job: %s\n", engbuf);
        return 2;
    }
    o.engine_path = engbuf;

    char err[256];
    if (prof_write(stdout, &o, err, sizeof err) != 0) {
        fprintf(stderr, "etcd-fio job: %s\n", err);
        return 2;
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "etcd-fio job: writing the job file: %s\n", strerror(errno));
        return 2;
    }
    return 0;
}
