/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lifeline.c — job processes that die with fio from their first instruction, and the reaping of dead jobs'
 * directories when fio ends (see lifeline.h). */
#include "lifeline.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privdir.h"
#include "sys.h"

/* Process-wide by nature: fork handlers and a process's end have no handle to hang state on. */
static pid_t g_forker;      /* the process that is forking (prepare handler), read by the child */
static int g_armed;
static struct {
    pid_t owner;            /* the process that noted the directories: fio's main process */
    size_t n;
    char *dir[LIFE_DIRS_MAX];
} g_dirs;

static void on_prepare(void)
{
    g_forker = getpid();
}

static void on_child(void)
{
    life_child(g_forker);
}

void life_child(pid_t parent)
{
    /* nothing of ours exists in this process yet: SIGKILL loses nothing. A parent that died before the
     * prctl sends nothing (we have been re-parented): then end now, as the signal would have done. */
    if (sys_die_with_parent(parent, SIGKILL) == -ESRCH)
        _exit(1);
}

int life_arm_forks(void)
{
    if (g_armed)
        return 0;
    int e = pthread_atfork(on_prepare, NULL, on_child);
    if (!e)
        g_armed = 1;
    return e;
}

int life_note_dir(const char *dir)
{
    pid_t me = getpid();
    if (!g_dirs.owner)
        g_dirs.owner = me;
    if (g_dirs.owner != me || !dir)
        return -1;
    for (size_t i = 0; i < g_dirs.n; i++)
        if (!strcmp(g_dirs.dir[i], dir))
            return 0;
    if (g_dirs.n == LIFE_DIRS_MAX || !(g_dirs.dir[g_dirs.n] = strdup(dir)))
        return -1;
    g_dirs.n++;
    return 0;
}

int life_end(void)
{
    int reaped = 0;
    for (size_t i = 0; i < g_dirs.n; i++) {
        if (g_dirs.owner == getpid())
            reaped += privdir_reap_stale(g_dirs.dir[i]);
        free(g_dirs.dir[i]);
    }
    g_dirs.n = 0;
    g_dirs.owner = 0;
    return reaped;
}
