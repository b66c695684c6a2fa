/* cmd_job.c — placeholder until the subcommand lands. */
#include <stdio.h>
#include "cmds.h"
int cmd_job(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "etcd-fio %s: not built yet\n", argv[0]);
    return 2;
}
