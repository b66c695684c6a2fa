/* SPDX-License-Identifier: MIT */
/* proc.h — the one process runner of etcd-fio (as git's run-command.h): start a program with
 * posix_spawnp (stdin from /dev/null or a pipe, stdout/stderr to a pipe, a file, or inherited), wait for it with a
 * timeout on a pidfd, and stop it in escalating steps SIGINT -> SIGTERM -> SIGKILL (fio ends its jobs and
 * still prints its results on SIGINT; TERM and KILL are for a fio that hangs). Signals go through the pidfd,
 * so a recycled pid is never signalled. Used by check, fleet and check --classic. */
#ifndef ETCD_FIO_PROC_H
#define ETCD_FIO_PROC_H

#include <stddef.h>
#include <sys/types.h>

typedef enum proc_io_kind {
    PROC_INHERIT = 0,  /* the parent's descriptor (stdin: /dev/null) */
    PROC_PIPE,         /* stdin: a pipe whose write end is proc.in_fd (closing it is the child's EOF);
                        * stdout / stderr: a pipe whose read end is proc.out_fd / proc.err_fd */
    PROC_FILE,         /* path, created 0600 with O_EXCL|O_NOFOLLOW (in our private directory) */
    PROC_TO_STDOUT     /* stderr only: the same as the child's stdout */
} proc_io_kind;

typedef struct proc_io {
    proc_io_kind kind;
    const char  *path;
} proc_io;

typedef enum proc_state { PROC_RUNNING = 0, PROC_EXITED, PROC_SIGNALED } proc_state;

typedef struct proc {
    pid_t      pid;
    int        pidfd;     /* -1 when the kernel has no pidfd_open (then waitpid is polled) */
    int        out_fd;    /* read end of the stdout pipe, or -1 */
    int        err_fd;    /* read end of the stderr pipe, or -1 */
    int        in_fd;     /* write end of the stdin pipe, or -1 */
    proc_state state;
    int        code;      /* exit status (PROC_EXITED) or signal number (PROC_SIGNALED) */
    int        stop_level; /* 0 not stopped by us; 1 SIGINT, 2 SIGTERM, 3 SIGKILL sent */
    double     stop_since; /* monotonic seconds of the last stop step */
} proc;

/* 0, or -1 with "cannot run ARGV0: why" in err. stdin is /dev/null. */
int proc_start(proc *p, const char *const argv[], proc_io out, proc_io err_io, char *err, size_t errlen);
/* The same with stdin too: in.kind PROC_PIPE gives the child a pipe (proc.in_fd, never inherited by other
 * children), anything else /dev/null. flags: PROC_NEW_SESSION starts it in a session of its own, without a
 * controlling terminal: nothing it runs can prompt on ours (/dev/tty), and a Ctrl-C there reaches only us. */
#define PROC_NEW_SESSION 1
/* PROC_DIE_KILL: the child gets SIGKILL when we die, not SIGTERM (proc.c: the pdeathsig) — for a program
 * whose own children end with it, as a local fio with our engine or with thread=1: a SIGTERM would stay
 * pending on a stopped (SIGSTOP) one, while SIGKILL ends it as it is. */
#define PROC_DIE_KILL 2
int proc_start_io(proc *p, const char *const argv[], proc_io in, proc_io out, proc_io err_io, int flags, char *err,
                  size_t errlen);
/* Waits up to timeout_ms (-1: no limit) for the end. Returns 1 when it has ended (state/code set), 0 on
 * timeout or when a signal interrupted the wait (the caller checks its flags and calls again). */
int proc_wait(proc *p, int timeout_ms);
/* One stop step: the first call sends SIGINT; later calls escalate (SIGTERM, then SIGKILL) when
 * grace_s has passed since the previous step. No-op once it ended. */
void proc_stop_step(proc *p, double grace_s);
/* (SIGINT and SIGTERM are followed by SIGCONT to the process and its children: a stopped fio — SIGSTOP,
 * Ctrl-Z — or a stopped job of it then ends as a running one does.) */
/* Stops it and reaps it: SIGINT, SIGTERM after grace_s, SIGKILL after another grace_s. */
void proc_stop(proc *p, double grace_s);
/* Closes the pipes (if any); reaps a process that has not been waited for (after a SIGKILL). */
void proc_release(proc *p);
/* Gives up on a process that SIGKILL did not end (stuck in the kernel: a hung disk, a hard NFS mount):
 * closes our descriptors and never waits for it (it becomes init's child when we exit). */
void proc_abandon(proc *p);
/* What the process and its direct children are doing: PROC_TREE_STOPPED (one is stopped: SIGSTOP, a
 * debugger), PROC_TREE_IN_KERNEL (one is in uninterruptible sleep, 'D'), or 0; 0 when it is gone. */
enum { PROC_TREE_STOPPED = 1, PROC_TREE_IN_KERNEL = 2 };
int  proc_tree_state(pid_t pid);
/* "exited with status 3", "was killed by signal 11 (Segmentation fault)". */
void proc_describe(const proc *p, char *buf, size_t len);
/* Monotonic seconds. */
double proc_now(void);
/* fio's job processes call setsid() and outlive a fio main process that is killed: they write on until
 * their runtime. proc_adopt_orphans() (once, early) makes this process the subreaper of its descendants
 * (prctl PR_SET_CHILD_SUBREAPER), so those orphans become its children; proc_end_orphans() then ends every
 * child it did not start through proc_start — SIGTERM (fio's handler ends the job cleanly: the engine
 * removes its files), SIGKILL after grace_s — and reaps them. Returns how many were still running (zombies
 * of jobs that ended by themselves are reaped but not counted). */
int proc_adopt_orphans(void);
int proc_end_orphans(double grace_s);

#endif
