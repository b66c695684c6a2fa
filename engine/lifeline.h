/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lifeline.h — nothing of a run outlives fio, and what a killed job left goes when fio ends.
 *
 * fio's job processes sit in sessions of their own (backend.c thread_main: setsid), so a kill of fio — or
 * of fio's process group — does not reach them. The engine's init (etcdwal_procs.c etcdwal_die_with_fio)
 * asks for SIGTERM at fio's death, but init runs late: fio forks the job, the job waits at fio's start semaphore
 * (thread_main: fio_sem_down(td->sem)) and only then calls the engine (td_io_init). A fio SIGKILLed in that
 * window would leave the job waiting there forever. life_arm_forks() closes it: every process forked from
 * then on gets SIGKILL at its parent's death from its first instruction (pthread_atfork's child handler
 * runs in the new process right after fork(), before fio's own code); the engine's init then turns that
 * into SIGTERM (fio's handler ends the job and the engine removes its files) before it makes a file.
 *
 * A job process that dies without its cleanup (SIGKILL: the OOM killer) leaves its private directory, its
 * lock free. life_note_dir() records, in fio's main process, each directory the jobs write in; life_end()
 * — called when that process ends — reaps the stale private directories there (privdir_reap_stale: our
 * lock, free; our files only), so a run whose job was killed leaves nothing once fio has ended. */
#ifndef ETCDWAL_LIFELINE_H
#define ETCDWAL_LIFELINE_H

#include <sys/types.h>

/* Registers the fork handlers (once per process; idempotent). 0 or an errno. */
int  life_arm_forks(void);
/* The child handler itself (exposed for tests): in a freshly forked process whose parent was `parent`,
 * asks for SIGKILL at the parent's death; ends the process (_exit(1)) when the parent is gone already. */
void life_child(pid_t parent);
/* Records dir (a directory the engine's jobs write in) in this process; the first call fixes the process
 * that life_end acts in. 0, or -1 when it cannot be recorded (no memory; more than LIFE_DIRS_MAX). */
#define LIFE_DIRS_MAX 64
int  life_note_dir(const char *dir);
/* In the process that noted the directories (in any other, e.g. a job process that inherited the list,
 * nothing): reaps the stale private directories in each, then forgets them. Returns how many were reaped. */
int  life_end(void);

#endif
