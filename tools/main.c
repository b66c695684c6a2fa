/* etcd-fio — command-line entry: dispatches to one subcommand per file (cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "fioreport.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cmds[] = {
    {"check",   cmd_check,   "run the etcd profile with fio on DIR and give the verdict"},
    {"verdict", cmd_verdict, "judge existing fio outputs / etcd-perf logs"},
    {"job",     cmd_job,     "print the etcd profile as a fio job file"},
    {"fleet",   cmd_fleet,   "run the etcd profile on fio servers (client/server mode) and judge each host"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: etcd-fio COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
    fprintf(f, "\n'etcd-fio COMMAND --help' describes each. Exit status: 0 PASS, 1 FAIL, 2 cannot judge/error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("etcd-fio %s\n", fior_version());  /* one version for the CLI, the library and its .pc */
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].run(argc - 1, argv + 1);
    fprintf(stderr, "etcd-fio: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
