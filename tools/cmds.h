/* cmds.h — the subcommands of etcd-fio; each lives in its own cmd_*.c and returns the process exit status
 * (0 PASS, 1 FAIL, 2 cannot judge / error). argv[0] is the subcommand name. */
#ifndef ETCD_FIO_CMDS_H
#define ETCD_FIO_CMDS_H

int cmd_check(int argc, char **argv);
int cmd_verdict(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_fleet(int argc, char **argv);

#endif
