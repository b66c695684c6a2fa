/* SPDX-License-Identifier: MIT */
/* proc.c — posix_spawnp + pidfd process runner (see proc.h). */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

double proc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* name found as an executable file in PATH (or name itself when it has a '/'): 1, its path in out. */
static int in_path(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return access(name, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    for (const char *d = path && *path ? path : "/usr/bin:/bin"; d;) {
        const char *c = strchr(d, ':');
        size_t dl = c ? (size_t)(c - d) : strlen(d);
        if (snprintf(out, n, "%.*s/%s", (int)dl, dl ? d : ".", name) < (int)n && access(out, X_OK) == 0)
            return 1;
        d = c ? c + 1 : NULL;
    }
    return 0;
}

static int send_sig(const proc *p, int sig)
{
#ifdef SYS_pidfd_send_signal
    if (p->pidfd >= 0)
        return (int)syscall(SYS_pidfd_send_signal, p->pidfd, sig, NULL, 0);
#endif
    return kill(p->pid, sig);
}

int proc_start(proc *p, const char *const argv[], proc_io out, proc_io err_io, char *err, size_t errlen)
{
    return proc_start_io(p, argv, (proc_io){PROC_INHERIT, NULL}, out, err_io, 0, err, errlen);
}

static void close_pair(int fd[2])
{
    for (int i = 0; i < 2; i++)
        if (fd[i] >= 0) {
            close(fd[i]);
            fd[i] = -1;
        }
}

/* The child starts with default SIGINT/SIGTERM handling and nothing blocked, whatever ours are. SIGPIPE
 * keeps our disposition: check ignores it, and so does its fio then — when check dies, fio's "terminating
 * on signal" line goes to a pipe nobody reads, and with SIGPIPE fatal fio would die there, before it ends
 * its jobs (see the pdeathsig in pdeathsig_argv). PROC_NEW_SESSION: setsid in the child. */
static void set_spawn_attrs(posix_spawnattr_t *at, int flags)
{
    sigset_t def, none;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(at, &def);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
                                     (flags & PROC_NEW_SESSION ? POSIX_SPAWN_SETSID : 0));
}

/* The child's fds 0, 1, 2: its pipe ends, a new file (O_EXCL|O_NOFOLLOW: never an existing one),
 * stdout for stderr, or /dev/null for stdin; anything else is inherited. */
static void add_redirects(posix_spawn_file_actions_t *fa, proc_io in, proc_io out, proc_io err_io,
                          const int ifd[2], const int pfd[2], const int efd[2])
{
    const int fl = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    if (in.kind == PROC_PIPE)
        posix_spawn_file_actions_adddup2(fa, ifd[0], 0);
    else
        posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    if (out.kind == PROC_PIPE)
        posix_spawn_file_actions_adddup2(fa, pfd[1], 1);
    else if (out.kind == PROC_FILE)
        posix_spawn_file_actions_addopen(fa, 1, out.path, fl & ~O_CLOEXEC, 0600);
    if (err_io.kind == PROC_PIPE)
        posix_spawn_file_actions_adddup2(fa, efd[1], 2);
    else if (err_io.kind == PROC_FILE)
        posix_spawn_file_actions_addopen(fa, 2, err_io.path, fl & ~O_CLOEXEC, 0600);
    else if (err_io.kind == PROC_TO_STDOUT)
        posix_spawn_file_actions_adddup2(fa, 1, 2);
}

/* The argv the child runs under setpriv, and the paths it points into. */
typedef struct spawn_argv {
    const char *av[64 + 5];
    char exe[4096], sp[4096];
} spawn_argv;

/* The child must not outlive us: if etcd-fio is SIGKILLed (OOM killer, kubelet), a fio left running
 * would write on in etcd's data directory until its runtime and then leave its files (fio's job
 * processes sit in sessions of their own). posix_spawn cannot set PR_SET_PDEATHSIG, so the child is
 * started through util-linux's `setpriv --pdeathsig SIG` (Essential in Debian) where there is one.
 * SIGTERM by default: a fio --client then tells its servers to stop. PROC_DIE_KILL: SIGKILL, for a fio
 * whose jobs die with it (threads; the engine's job processes, which end on their own death signal and
 * remove their files) — a stopped fio (SIGSTOP) never acts on a SIGTERM, and its jobs would write on.
 * Sets *run to sa->av when it wraps; -1 with the message when argv[0] is not on PATH. */
static int pdeathsig_argv(const char *const argv[], int flags, spawn_argv *sa, const char *const **run, char *err,
                          size_t errlen)
{
    size_t na = 0;
    while (argv[na] && na < 64)
        na++;
    if (!argv[na] && !in_path(argv[0], sa->exe, sizeof sa->exe)) {
        snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(ENOENT));
        return -1;
    } else if (!argv[na] && !getenv("ETCD_FIO_NO_PDEATHSIG") && in_path("setpriv", sa->sp, sizeof sa->sp)) {
        sa->av[0] = sa->sp;
        sa->av[1] = "--pdeathsig";
        sa->av[2] = flags & PROC_DIE_KILL ? "KILL" : "TERM";
        sa->av[3] = "--";
        sa->av[4] = sa->exe;
        for (size_t i = 1; i <= na; i++)
            sa->av[4 + i] = argv[i];
        *run = sa->av;
    }
    return 0;
}

/* After the spawn: our ends of the pipes kept, the child's closed, and a pidfd (when the kernel has
 * them) for signals that cannot hit a reused pid. */
static void keep_parent_ends(proc *p, int ifd[2], int pfd[2], int efd[2])
{
    if (ifd[0] >= 0)
        close(ifd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    if (efd[1] >= 0)
        close(efd[1]);
    p->out_fd = pfd[0];
    p->err_fd = efd[0];
    p->in_fd = ifd[1];
    p->pidfd = pidfd_open_(p->pid);
    if (p->pidfd >= 0)
        fcntl(p->pidfd, F_SETFD, FD_CLOEXEC);
}

int proc_start_io(proc *p, const char *const argv[], proc_io in, proc_io out, proc_io err_io, int flags, char *err,
                  size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->pidfd = p->out_fd = p->err_fd = p->in_fd = -1;
    /* every pipe is O_CLOEXEC: only this child gets its end (dup2 clears the flag on 0/1/2), so closing
     * ours is its EOF even while other children run */
    int pfd[2] = {-1, -1}, efd[2] = {-1, -1}, ifd[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    set_spawn_attrs(&at, flags);
    int rc = 0;
    if ((in.kind == PROC_PIPE && pipe2(ifd, O_CLOEXEC) != 0) || (out.kind == PROC_PIPE && pipe2(pfd, O_CLOEXEC) != 0) ||
        (err_io.kind == PROC_PIPE && pipe2(efd, O_CLOEXEC) != 0)) {
        snprintf(err, errlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
        rc = -1;
    }
    add_redirects(&fa, in, out, err_io, ifd, pfd, efd);
    spawn_argv sa;
    const char *const *run = argv;
    if (!rc)
        rc = pdeathsig_argv(argv, flags, &sa, &run, err, errlen);
    if (!rc) {
        int e = posix_spawnp(&p->pid, run[0], &fa, &at, (char *const *)run, environ);
        if (e) {
            snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
            p->pid = -1;
            rc = -1;
        }
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc) {
        close_pair(pfd);
        close_pair(efd);
        close_pair(ifd);
        return -1;
    }
    keep_parent_ends(p, ifd, pfd, efd);
    return 0;
}

static int reap(proc *p, int flags)
{
    int st;
    pid_t r;
    while ((r = waitpid(p->pid, &st, flags)) < 0 && errno == EINTR)
        ;
    if (r != p->pid)
        return 0;
    if (WIFSIGNALED(st)) {
        p->state = PROC_SIGNALED;
        p->code = WTERMSIG(st);
    } else {
        p->state = PROC_EXITED;
        p->code = WEXITSTATUS(st);
    }
    if (p->pidfd >= 0) {
        close(p->pidfd);
        p->pidfd = -1;
    }
    return 1;
}

int proc_wait(proc *p, int timeout_ms)
{
    if (p->pid <= 0 || p->state != PROC_RUNNING)
        return 1;
    if (p->pidfd >= 0) {
        struct pollfd pf = {p->pidfd, POLLIN, 0};
        int r = poll(&pf, 1, timeout_ms);
        if (r <= 0)
            return 0; /* timeout, or a signal for the caller to look at */
        return reap(p, 0);
    }
    /* no pidfd (kernel < 5.3): poll waitpid */
    double end = proc_now() + timeout_ms / 1000.0;
    for (;;) {
        if (reap(p, WNOHANG))
            return 1;
        if (timeout_ms >= 0 && proc_now() >= end)
            return 0;
        struct timespec nap = {0, 20 * 1000 * 1000};
        if (nanosleep(&nap, NULL) != 0)
            return 0;
    }
}

/* "pid (comm) S ppid ...": the state letter and the parent of pid from /proc (comm may hold spaces and
 * parentheses, so after the last ')'). 0, or -1 when the process is gone. */
static int stat_of(long pid, char *state, long *ppid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0)
        return -1;
    buf[k] = '\0';
    char *rp = strrchr(buf, ')');
    return rp && sscanf(rp + 1, " %c %ld", state, ppid) == 2 ? 0 : -1;
}

/* Calls fn(child, state, arg) for every process whose parent is pid. */
static void each_child(pid_t pid, void (*fn)(long child, char state, void *arg), void *arg)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end, st;
        long c = strtol(e->d_name, &end, 10), pp;
        if (!*end && c > 0 && stat_of(c, &st, &pp) == 0 && pp == (long)pid)
            fn(c, st, arg);
    }
    closedir(d);
}

static void cont_one(long child, char state, void *arg)
{
    (void)state;
    (void)arg;
    kill((pid_t)child, SIGCONT);
}

static void state_one(long child, char state, void *arg)
{
    (void)child;
    int *f = arg;
    *f |= state == 'T' || state == 't' ? PROC_TREE_STOPPED : state == 'D' ? PROC_TREE_IN_KERNEL : 0;
}

int proc_tree_state(pid_t pid)
{
    char st;
    long pp;
    int f = 0;
    if (pid <= 0 || stat_of(pid, &st, &pp) != 0)
        return 0;
    state_one(pid, st, &f);
    each_child(pid, state_one, &f);
    return f;
}

void proc_stop_step(proc *p, double grace_s)
{
    if (p->pid <= 0 || p->state != PROC_RUNNING)
        return;
    double now = proc_now();
    if (p->stop_level && now - p->stop_since < grace_s)
        return;
    static const int sigs[] = {SIGINT, SIGTERM, SIGKILL};
    if (p->stop_level >= 3)
        return;
    int sig = sigs[p->stop_level];
    send_sig(p, sig);
    /* A stopped process (SIGSTOP, Ctrl-Z) acts on SIGINT or SIGTERM only once it is continued: continue it,
     * and its children (fio's job processes, which a stopped fio waits for), after the signal is queued.
     * SIGKILL ends a stopped process as it is. */
    if (sig != SIGKILL) {
        send_sig(p, SIGCONT);
        each_child(p->pid, cont_one, NULL);
    }
    p->stop_level++;
    p->stop_since = now;
}

void proc_abandon(proc *p)
{
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->out_fd = p->pidfd = -1;
    p->pid = -1; /* never waited for again; it becomes init's child when we exit */
}

void proc_stop(proc *p, double grace_s)
{
    while (p->pid > 0 && p->state == PROC_RUNNING) {
        proc_stop_step(p, grace_s);
        int ms = p->stop_level >= 3 ? -1 : (int)(grace_s * 1000) / 4 + 1;
        proc_wait(p, ms);
    }
}

void proc_release(proc *p)
{
    int *fds[] = {&p->out_fd, &p->err_fd, &p->in_fd};
    for (size_t i = 0; i < 3; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    if (p->pid > 0 && p->state == PROC_RUNNING) {
        proc_stop(p, 5);
    }
    if (p->pidfd >= 0) {
        close(p->pidfd);
        p->pidfd = -1;
    }
}

void proc_describe(const proc *p, char *buf, size_t len)
{
    if (p->state == PROC_EXITED)
        snprintf(buf, len, "exited with status %d", p->code);
    else if (p->state == PROC_SIGNALED)
        snprintf(buf, len, "was killed by signal %d (%s)", p->code, strsignal(p->code));
    else
        snprintf(buf, len, "is still running");
}

int proc_adopt_orphans(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Our children, from /proc: the pids whose parent is us (check starts no other child while it calls this:
 * its fio has ended and been reaped). */
static size_t children(pid_t *out, size_t max, size_t *alive)
{
    if (alive)
        *alive = 0;
    size_t n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t me = getpid();
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char state;
        long ppid;
        if (stat_of(pid, &state, &ppid) == 0 && ppid == me) {
            out[n++] = (pid_t)pid;
            if (alive && state != 'Z' && state != 'X')
                ++*alive;
        }
    }
    closedir(d);
    return n;
}

int proc_end_orphans(double grace_s)
{
    pid_t kids[256];
    size_t alive;
    size_t n = children(kids, 256, &alive);
    for (size_t i = 0; i < n; i++) {
        kill(kids[i], SIGTERM);
        kill(kids[i], SIGCONT); /* a stopped job acts on the SIGTERM only once continued */
    }
    double t0 = proc_now();
    int sent_kill = 0;
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        size_t left = children(kids, 256, NULL);
        if (!left)
            break;
        if (!sent_kill && proc_now() - t0 > grace_s) {
            for (size_t i = 0; i < left; i++)
                kill(kids[i], SIGKILL);
            sent_kill = 1;
        }
        if (proc_now() - t0 > 2 * grace_s + 5)
            break; /* unkillable (D state): leave it, the reaper of a later run removes its files */
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    return (int)alive;
}
