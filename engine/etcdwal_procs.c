/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etcdwal_procs.c — the fio glue's dealings between fio's processes: the first-segment fill gate the jobs
 * share, the engine options hidden from fio's main process while a job process runs, the stopped siblings a
 * job that ends continues, and a job process's death with fio. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "etcdwal_glue.h"

/* The first-segment fill (etcd_first_segment_fill) runs in the WAL job's init, which fio calls only after
 * it has released every job (backend.c: thread_main signals startup_sem before td_io_init), so without
 * a gate the backend job's first timed commits would queue behind the fill's large write and fdatasync.
 * Each WAL job with a fill takes the gate in the setup hook — fio runs setup_files for every job in its
 * main process, one after the other, before it forks or starts any job (create_serialize, the default)
 * — and releases it after its fill; every etcdwal job waits in its init, before fio starts its clock,
 * until no fill is pending. The count lives in a shared anonymous page mapped in that main process, so the
 * forked job processes (or threads, with thread=1) all see it. */
static atomic_int *g_fills_pending;

atomic_int *etcdwal_fill_gate(void)
{
    if (!g_fills_pending) {
        void *p = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        atomic_init((atomic_int *)p, 0);
        g_fills_pending = p;
    }
    return g_fills_pending;
}

void etcdwal_fill_release(struct etcdwal_options *o)
{
    if (o->fill_counted && g_fills_pending)
        atomic_fetch_sub(g_fills_pending, 1);
    o->fill_counted = 0;
}

/* Bounded: a fill is one sequential write and one fdatasync, but a WAL job killed before releasing the
 * gate must not hold the others forever. */
#define FILL_WAIT_MAX_S 600

void etcdwal_fill_wait(struct thread_data *td)
{
    if (!g_fills_pending)
        return;
    struct timespec nap = {0, 1000000};
    for (long i = 0; atomic_load(g_fills_pending) > 0 && !td->terminate; i++) {
        if (i == FILL_WAIT_MAX_S * 1000L) {
            log_err("etcdwal: %s: gave up waiting for the first-segment fill of another job after %d s\n",
                    td->o.name ? td->o.name : "job", FILL_WAIT_MAX_S);
            return;
        }
        nanosleep(&nap, NULL);
    }
}

/* Does this job run in a process of its own (fio's default) or on a thread of fio's process (thread=1)?
 * Asked of the process itself (sys.h), not read from td->o.use_thread: a fio whose struct thread_options
 * is laid out otherwise than the source the engine was built against (a distribution's snapshot that
 * carries a released version's name) would be read wrong there, and a job process taken for a thread
 * would outlive a killed fio with its files in DIR. fio's main process recorded its pid in setup. */
int etcdwal_job_is_process(const struct etcdwal_options *o)
{
    return sys_is_forked_process(o ? (pid_t)o->parent_pid : 0);
}

/* fio's main process frees its copy of a job's engine options right after forking the job (backend.c
 * run_threads: free(eo)) and, at its own end, frees td->eo again unless the job has cleared it
 * (options.c fio_options_free; the job's free_ioengine does). A job process SIGKILLed — the OOM killer —
 * never clears it, and fio 3.33 then aborts on that double free ("free(): double free detected") before
 * it ends, before etcdwal_end can reap the killed job's directory. So while a job process runs, the
 * pointer in fio's shared thread_data is hidden from the main process: the job keeps it (one job per
 * process) and puts it back in cleanup, which fio calls before it frees it (close_ioengine). Threads share
 * fio's memory and need none of this. */
static void *g_job_eo;

struct etcdwal_options *etcdwal_eo_of(struct thread_data *td)
{
    return td->eo ? td->eo : g_job_eo;
}

void etcdwal_eo_hide(struct thread_data *td)
{
    if (td->eo && etcdwal_job_is_process(td->eo)) {
        g_job_eo = td->eo;
        td->eo = NULL;
    }
}

void etcdwal_eo_unhide(struct thread_data *td)
{
    if (g_job_eo && !td->eo)
        td->eo = g_job_eo;
    g_job_eo = NULL;
}

/* A job process stopped (SIGSTOP; a tracer gone) when fio dies keeps the SIGTERM of its death signal
 * (etcdwal_die_with_fio) pending, and its files in DIR, until someone continues it. A job that ends
 * continues its siblings of this engine (their pids are in fio's shared thread_data) that are stopped with
 * a SIGTERM pending (/proc/PID/status): each then acts on it, and its cleanup removes its files. A stopped
 * sibling without a pending SIGTERM is left as it is. */
static int stopped_with_term(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int stopped = 0, term = 0;
    unsigned long long mask;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "State:", 6))
            stopped = strchr(line, 'T') != NULL;
        else if ((sscanf(line, "SigPnd: %llx", &mask) == 1 || sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
                 (mask >> (SIGTERM - 1) & 1))
            term = 1;
    }
    fclose(f);
    return stopped && term;
}

static void wake_one(struct thread_data *sib, const struct thread_data *me)
{
    if (sib != me && sib->pid > 0 && sib->pid != getpid() && sib->io_ops && sib->io_ops->init == etcdwal_init &&
        sib->runstate >= TD_INITIALIZED && sib->runstate < TD_EXITED && stopped_with_term(sib->pid))
        kill(sib->pid, SIGCONT);
}

void etcdwal_wake_siblings(struct thread_data *me)
{
    if (!etcdwal_job_is_process(etcdwal_eo_of(me)))
        return;
#ifdef end_for_each /* fio >= 3.35: the loop declares td itself */
    for_each_td(td) {
        wake_one(td, me);
    } end_for_each();
#else
    struct thread_data *td;
    int i;
    for_each_td(td, i)
        wake_one(td, me);
#endif
}

/* A job process must not outlive fio: fio's job processes sit in sessions of their own (setsid in
 * thread_main), so a SIGKILL of fio's process group — `timeout -s KILL`, a kill of etcd-fio's group —
 * leaves them writing into DIR until their runtime. From its fork on a job dies of SIGKILL with fio
 * (lifeline.h: it may still be waiting at fio's start semaphore); here, before it makes a file, it asks
 * for SIGTERM instead (fio's own handler then ends the job normally and cleanup removes the files),
 * checked against the pid fio's process recorded before it forked (setup; with create_serialize=0 only
 * getppid() at this point is known). With a SIGPIPE of default action, a job whose output pipe lost its
 * reader would die in the middle of that cleanup ("fio: terminating on signal" is its first write): it is
 * ignored in the job process. Threads (thread=1) are fio itself: nothing to do. 0, or 1 when fio is gone
 * already. */
int etcdwal_die_with_fio(struct thread_data *td, struct etcdwal_options *o)
{
    if (!etcdwal_job_is_process(o))
        return 0;
    pid_t parent = o->parent_pid > 0 ? (pid_t)o->parent_pid : getppid();
    int rc = sys_die_with_parent(parent, SIGTERM);
    if (rc == -ESRCH) {
        log_err("etcdwal: %s: fio's process %d that started this job is gone; not starting\n", job_name(td),
                (int)parent);
        return 1;
    }
    if (rc)
        log_err("etcdwal: %s: warning: prctl(PR_SET_PDEATHSIG): %s: this job would outlive a killed fio\n",
                job_name(td), strerror(-rc));
    struct sigaction sa;
    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
    return 0;
}
