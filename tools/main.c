/* SPDX-License-Identifier: MIT */
/* etcd-fio — command-line entry: dispatches to one subcommand per cmd_*.c (each a cli_cmd, see cli.h);
 * `etcd-fio help CMD` and `etcd-fio CMD --help` print the same help text. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "version.h"

static const cli_cmd *const cmds[] = {&cmd_check_def, &cmd_verdict_def, &cmd_compare_def, &cmd_job_def, &cmd_fleet_def, &cmd_capacity_def};
#define NCMDS (sizeof cmds / sizeof cmds[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: etcd-fio COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < NCMDS; i++)
        fprintf(f, "  %-8s %s\n", cmds[i]->name, cmds[i]->summary);
    fprintf(f, "\n'etcd-fio help COMMAND' describes each; 'etcd-fio --version' prints the versions.\n"
               "Exit status: 0 PASS, 1 FAIL, 2 cannot judge/error.\n");
}

static const cli_cmd *find(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (!strcmp(name, cmds[i]->name))
            return cmds[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            const cli_cmd *c = find(argv[2]);
            if (!c) {
                fprintf(stderr, "etcd-fio: no command '%s'\n", argv[2]);
                usage(stderr);
                return 2;
            }
            cli_help(stdout, c);
            return 0;
        }
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        version_print(stdout);
        return 0;
    }
    const cli_cmd *c = find(argv[1]);
    if (c)
        return c->run(c, argc - 1, argv + 1);
    fprintf(stderr, "etcd-fio: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
