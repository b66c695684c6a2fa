/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultshim.c — LD_PRELOAD shim for the fault-injection tests: makes chosen libc calls fail (or slow down)
 * on chosen files, configured from the environment, so the engine's error paths run without root and
 * without a broken disk. Not part of any shipped artifact.
 *
 *   FAULT_CALL=fdatasync,fsync   which calls: fdatasync fsync fallocate write pwrite rename open mkdir
 *                                ftruncate ("open" covers open/openat/creat and their 64/_2 variants,
 *                                "write" write/writev, "pwrite" pwrite/pwritev, "fallocate" also
 *                                posix_fallocate, "rename" renameat/renameat2, "mkdir" mkdirat; the
 *                                sync, fallocate, ftruncate and rename ones also when made through
 *                                syscall(SYS_…), as the engine makes them: engine/sys.h)
 *   FAULT_ERRNO=EIO              errno to fail with (name or number); unset = only delay
 *   FAULT_DELAY_MS=15            sleep this long before the call (then fail or do it)
 *   FAULT_PATH_SUBSTR=etcd-fio.  only files whose path contains this (fds are mapped through
 *                                /proc/self/fd; fd calls only ever hit regular files and directories,
 *                                so fio's own stdout/pipes are never touched)
 *   FAULT_AFTER_BYTES=N          write/pwrite: matching writes succeed until N bytes in total were
 *                                written (the crossing write is cut short, as a full disk does), then fail
 *   FAULT_SKIP=N                 let the first N matching calls through
 *   FAULT_COUNT=N                inject at most N times (0 = no limit)
 *   FAULT_IDLE_MS=N              only when the previous matching call of this process began more than N
 *                                ms before (a disk slower when lightly loaded: idle power states, a
 *                                contended CPU waking for every sync); busy back-to-back calls go through
 *   FAULT_LOG=FILE               append one line per injection ("pid call path -> ERRNO"), so a test can
 *                                prove the fault really fired
 *
 * The configuration and counters are process-global by necessity: an interposer has no handle to hang them
 * on. Counters are atomics because the engine calls from its own threads (the preallocation pipeline).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define FS_EXPORT __attribute__((visibility("default")))

enum {
    FC_FDATASYNC = 1u << 0,
    FC_FSYNC = 1u << 1,
    FC_FALLOCATE = 1u << 2,
    FC_WRITE = 1u << 3,
    FC_PWRITE = 1u << 4,
    FC_RENAME = 1u << 5,
    FC_OPEN = 1u << 6,
    FC_MKDIR = 1u << 7,
    FC_FTRUNCATE = 1u << 8,
};

static const struct {
    const char *name;
    unsigned bit;
} fs_calls[] = {
    {"fdatasync", FC_FDATASYNC}, {"fsync", FC_FSYNC}, {"fallocate", FC_FALLOCATE}, {"write", FC_WRITE},
    {"pwrite", FC_PWRITE},       {"rename", FC_RENAME}, {"open", FC_OPEN},         {"mkdir", FC_MKDIR},
    {"ftruncate", FC_FTRUNCATE},
};

static const struct {
    const char *name;
    int value;
} fs_errnos[] = {
    {"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EOPNOTSUPP", EOPNOTSUPP}, {"EXDEV", EXDEV},   {"EACCES", EACCES},
    {"EROFS", EROFS},   {"EPERM", EPERM},   {"EDQUOT", EDQUOT},         {"ENOENT", ENOENT}, {"EINTR", EINTR},
    {"EAGAIN", EAGAIN}, {"ENOMEM", ENOMEM}, {"EBADF", EBADF},           {"EINVAL", EINVAL},
};

static struct {
    unsigned calls;
    int err;           /* 0: delay only */
    long delay_ms;
    char substr[256];
    long long after_bytes; /* -1: not set */
    long skip;
    long count;
    long idle_ms;      /* 0: always */
    char log[PATH_MAX];
} fs_cfg;

static atomic_llong fs_last_end_ns; /* when the previous matching call returned (FAULT_IDLE_MS) */

static atomic_llong fs_bytes;    /* bytes written by matching writes so far */
static atomic_long fs_seen;      /* matching calls so far (for FAULT_SKIP) */
static atomic_long fs_injected;  /* faults injected so far (for FAULT_COUNT) */

static const char *fs_errname(int e)
{
    for (size_t i = 0; i < sizeof fs_errnos / sizeof fs_errnos[0]; i++)
        if (fs_errnos[i].value == e)
            return fs_errnos[i].name;
    return "E?";
}

static void fs_die_config(const char *what, const char *val)
{
    /* A typo in a test's environment must not silently turn the test into a no-op. */
    char msg[512];
    int n = snprintf(msg, sizeof msg, "faultshim: bad %s '%s'\n", what, val);
    if (n > 0)
        (void)!syscall(SYS_write, 2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    _exit(111);
}

__attribute__((constructor)) static void fs_init(void)
{
    const char *v;
    fs_cfg.after_bytes = -1;
    if ((v = getenv("FAULT_CALL")) && *v) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", v);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            unsigned bit = 0;
            for (size_t i = 0; i < sizeof fs_calls / sizeof fs_calls[0]; i++)
                if (!strcmp(tok, fs_calls[i].name))
                    bit = fs_calls[i].bit;
            if (!bit)
                fs_die_config("FAULT_CALL", tok);
            fs_cfg.calls |= bit;
        }
    }
    if ((v = getenv("FAULT_ERRNO")) && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end == '\0' && n > 0) {
            fs_cfg.err = (int)n;
        } else {
            for (size_t i = 0; i < sizeof fs_errnos / sizeof fs_errnos[0]; i++)
                if (!strcmp(v, fs_errnos[i].name))
                    fs_cfg.err = fs_errnos[i].value;
            if (!fs_cfg.err)
                fs_die_config("FAULT_ERRNO", v);
        }
    }
    if ((v = getenv("FAULT_DELAY_MS")) && *v)
        fs_cfg.delay_ms = strtol(v, NULL, 10);
    if ((v = getenv("FAULT_IDLE_MS")) && *v)
        fs_cfg.idle_ms = strtol(v, NULL, 10);
    if ((v = getenv("FAULT_PATH_SUBSTR")))
        snprintf(fs_cfg.substr, sizeof fs_cfg.substr, "%s", v);
    if ((v = getenv("FAULT_AFTER_BYTES")) && *v)
        fs_cfg.after_bytes = strtoll(v, NULL, 10);
    if ((v = getenv("FAULT_SKIP")) && *v)
        fs_cfg.skip = strtol(v, NULL, 10);
    if ((v = getenv("FAULT_COUNT")) && *v)
        fs_cfg.count = strtol(v, NULL, 10);
    if ((v = getenv("FAULT_LOG")))
        snprintf(fs_cfg.log, sizeof fs_cfg.log, "%s", v);
}

/* Resolve the real function behind an interposed name once; a missing symbol fails the call with ENOSYS. */
#define REAL(ret, name, ...)                                                                                \
    static ret (*real_##name)(__VA_ARGS__);                                                                 \
    if (!real_##name)                                                                                       \
        real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name);                                         \
    if (!real_##name) {                                                                                     \
        errno = ENOSYS;                                                                                     \
        return -1;                                                                                          \
    }

static void fs_fd_path(int fd, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, len - 1);
    out[n > 0 ? (size_t)n : 0] = '\0';
}

/* Only regular files and directories are fault targets: never fio's stdout, a pipe or a tty. */
static int fs_fd_is_file(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

static void fs_at_path(int dirfd, const char *path, char *out, size_t len)
{
    if (!path) {
        out[0] = '\0';
        return;
    }
    if (path[0] == '/') {
        snprintf(out, len, "%s", path);
        return;
    }
    char dir[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(dir, sizeof dir))
            dir[0] = '\0';
    } else {
        fs_fd_path(dirfd, dir, sizeof dir);
    }
    snprintf(out, len, "%s/%s", dir, path);
}

static int fs_path_matches(const char *path)
{
    return fs_cfg.substr[0] == '\0' || strstr(path, fs_cfg.substr) != NULL;
}

static void fs_log(const char *call, const char *path, int err)
{
    if (!fs_cfg.log[0])
        return;
    char line[PATH_MAX + 128];
    int n = snprintf(line, sizeof line, "%ld %s %s -> %s\n", (long)getpid(), call, path,
                     err ? fs_errname(err) : "delay");
    if (n <= 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    /* Raw syscalls: the shim must not re-enter its own open/write hooks. */
    long fd = syscall(SYS_openat, AT_FDCWD, fs_cfg.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        (void)!syscall(SYS_write, (int)fd, line, (size_t)n);
        syscall(SYS_close, (int)fd);
    }
}

static void fs_sleep(void)
{
    if (fs_cfg.delay_ms <= 0)
        return;
    struct timespec ts = {fs_cfg.delay_ms / 1000, (fs_cfg.delay_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Decides for one matching call: sleeps if configured and returns the errno to fail with (0 = go on). */
static int fs_decide(unsigned bit, const char *call, const char *path)
{
    if (!(fs_cfg.calls & bit) || !fs_path_matches(path))
        return 0;
    if (atomic_fetch_add(&fs_seen, 1) < fs_cfg.skip)
        return 0;
    if (fs_cfg.idle_ms > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long t = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
        long long last = atomic_exchange(&fs_last_end_ns, t);
        if (last && t - last <= fs_cfg.idle_ms * 1000000LL)
            return 0;
    }
    if (fs_cfg.count > 0 && atomic_fetch_add(&fs_injected, 1) >= fs_cfg.count)
        return 0;
    fs_sleep();
    if (fs_cfg.idle_ms > 0) { /* the idle gap counts from the end of the delayed call */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        atomic_store(&fs_last_end_ns, (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
    }
    fs_log(call, path, fs_cfg.err);
    return fs_cfg.err;
}

static int fs_decide_fd(unsigned bit, const char *call, int fd)
{
    if (!(fs_cfg.calls & bit) || !fs_fd_is_file(fd))
        return 0;
    char path[PATH_MAX];
    fs_fd_path(fd, path, sizeof path);
    return fs_decide(bit, call, path);
}

/* Writes under FAULT_AFTER_BYTES: returns how many of `len` bytes may go through (len = all, 0 = fail with
 * the configured errno (ENOSPC by default); in between = a short write, as a filling disk does). */
static size_t fs_write_budget(unsigned bit, const char *call, int fd, size_t len, int *err)
{
    *err = 0;
    if (!(fs_cfg.calls & bit) || !fs_fd_is_file(fd))
        return len;
    char path[PATH_MAX];
    fs_fd_path(fd, path, sizeof path);
    if (!fs_path_matches(path))
        return len;
    if (fs_cfg.after_bytes < 0) {
        *err = fs_decide(bit, call, path);
        return *err ? 0 : len;
    }
    long long before = atomic_fetch_add(&fs_bytes, (long long)len);
    if (before + (long long)len <= fs_cfg.after_bytes)
        return len;
    if (before < fs_cfg.after_bytes) {
        size_t ok = (size_t)(fs_cfg.after_bytes - before);
        atomic_fetch_sub(&fs_bytes, (long long)(len - ok));
        return ok;
    }
    atomic_fetch_sub(&fs_bytes, (long long)len);
    *err = fs_cfg.err ? fs_cfg.err : ENOSPC;
    fs_log(call, path, *err);
    return 0;
}

/* ---- sync ---- */

FS_EXPORT int fdatasync(int fd)
{
    REAL(int, fdatasync, int)
    int e = fs_decide_fd(FC_FDATASYNC, "fdatasync", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fdatasync(fd);
}

FS_EXPORT int fsync(int fd)
{
    REAL(int, fsync, int)
    int e = fs_decide_fd(FC_FSYNC, "fsync", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fsync(fd);
}

/* ---- preallocation / truncation ---- */

FS_EXPORT int fallocate(int fd, int mode, off_t off, off_t len)
{
    REAL(int, fallocate, int, int, off_t, off_t)
    int e = fs_decide_fd(FC_FALLOCATE, "fallocate", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fallocate(fd, mode, off, len);
}

FS_EXPORT int fallocate64(int fd, int mode, off_t off, off_t len)
{
    REAL(int, fallocate64, int, int, off_t, off_t)
    int e = fs_decide_fd(FC_FALLOCATE, "fallocate", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_fallocate64(fd, mode, off, len);
}

FS_EXPORT int posix_fallocate(int fd, off_t off, off_t len)
{
    REAL(int, posix_fallocate, int, off_t, off_t)
    int e = fs_decide_fd(FC_FALLOCATE, "posix_fallocate", fd);
    return e ? e : real_posix_fallocate(fd, off, len);
}

FS_EXPORT int posix_fallocate64(int fd, off_t off, off_t len)
{
    REAL(int, posix_fallocate64, int, off_t, off_t)
    int e = fs_decide_fd(FC_FALLOCATE, "posix_fallocate", fd);
    return e ? e : real_posix_fallocate64(fd, off, len);
}

FS_EXPORT int ftruncate(int fd, off_t len)
{
    REAL(int, ftruncate, int, off_t)
    int e = fs_decide_fd(FC_FTRUNCATE, "ftruncate", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_ftruncate(fd, len);
}

FS_EXPORT int ftruncate64(int fd, off_t len)
{
    REAL(int, ftruncate64, int, off_t)
    int e = fs_decide_fd(FC_FTRUNCATE, "ftruncate", fd);
    if (e) {
        errno = e;
        return -1;
    }
    return real_ftruncate64(fd, len);
}

/* ---- writes ---- */

FS_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
    REAL(ssize_t, write, int, const void *, size_t)
    int e;
    size_t ok = fs_write_budget(FC_WRITE, "write", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    return real_write(fd, buf, ok);
}

FS_EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
    int e;
    size_t ok = fs_write_budget(FC_PWRITE, "pwrite", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    return real_pwrite(fd, buf, ok, off);
}

FS_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    REAL(ssize_t, pwrite64, int, const void *, size_t, off_t)
    int e;
    size_t ok = fs_write_budget(FC_PWRITE, "pwrite", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    return real_pwrite64(fd, buf, ok, off);
}

/* Vector writes: a short budget is applied by trimming the vector (copied, never the caller's). */
static int fs_trim_iov(const struct iovec *iov, int cnt, size_t ok, struct iovec *out)
{
    int n = 0;
    for (int i = 0; i < cnt && ok > 0 && n < 64; i++) {
        out[n] = iov[i];
        if (out[n].iov_len > ok)
            out[n].iov_len = ok;
        ok -= out[n].iov_len;
        n++;
    }
    return n;
}

static size_t fs_iov_len(const struct iovec *iov, int cnt)
{
    size_t t = 0;
    for (int i = 0; i < cnt; i++)
        t += iov[i].iov_len;
    return t;
}

FS_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    REAL(ssize_t, writev, int, const struct iovec *, int)
    int e;
    size_t len = fs_iov_len(iov, cnt);
    size_t ok = fs_write_budget(FC_WRITE, "writev", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    if (ok == len || cnt > 64)
        return real_writev(fd, iov, cnt);
    struct iovec t[64];
    return real_writev(fd, t, fs_trim_iov(iov, cnt, ok, t));
}

FS_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
    int e;
    size_t len = fs_iov_len(iov, cnt);
    size_t ok = fs_write_budget(FC_PWRITE, "pwritev", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    if (ok == len || cnt > 64)
        return real_pwritev(fd, iov, cnt, off);
    struct iovec t[64];
    return real_pwritev(fd, t, fs_trim_iov(iov, cnt, ok, t), off);
}

FS_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    REAL(ssize_t, pwritev64, int, const struct iovec *, int, off_t)
    int e;
    size_t len = fs_iov_len(iov, cnt);
    size_t ok = fs_write_budget(FC_PWRITE, "pwritev", fd, len, &e);
    if (e) {
        errno = e;
        return -1;
    }
    if (ok == len || cnt > 64)
        return real_pwritev64(fd, iov, cnt, off);
    struct iovec t[64];
    return real_pwritev64(fd, t, fs_trim_iov(iov, cnt, ok, t), off);
}

/* ---- names: rename, mkdir, open ---- */

static int fs_decide_rename(int olddir, const char *oldp, int newdir, const char *newp)
{
    if (!(fs_cfg.calls & FC_RENAME))
        return 0;
    char a[PATH_MAX], b[PATH_MAX];
    fs_at_path(olddir, oldp, a, sizeof a);
    fs_at_path(newdir, newp, b, sizeof b);
    /* Either name may select the call: the spare's N.tmp or the segment's .wal name. */
    return fs_decide(FC_RENAME, "rename", fs_path_matches(a) ? a : b);
}

FS_EXPORT int rename(const char *oldp, const char *newp)
{
    REAL(int, rename, const char *, const char *)
    int e = fs_decide_rename(AT_FDCWD, oldp, AT_FDCWD, newp);
    if (e) {
        errno = e;
        return -1;
    }
    return real_rename(oldp, newp);
}

FS_EXPORT int renameat(int od, const char *oldp, int nd, const char *newp)
{
    REAL(int, renameat, int, const char *, int, const char *)
    int e = fs_decide_rename(od, oldp, nd, newp);
    if (e) {
        errno = e;
        return -1;
    }
    return real_renameat(od, oldp, nd, newp);
}

FS_EXPORT int renameat2(int od, const char *oldp, int nd, const char *newp, unsigned flags)
{
    REAL(int, renameat2, int, const char *, int, const char *, unsigned)
    int e = fs_decide_rename(od, oldp, nd, newp);
    if (e) {
        errno = e;
        return -1;
    }
    return real_renameat2(od, oldp, nd, newp, flags);
}

static int fs_decide_at(unsigned bit, const char *call, int dirfd, const char *path)
{
    if (!(fs_cfg.calls & bit))
        return 0;
    char full[PATH_MAX];
    fs_at_path(dirfd, path, full, sizeof full);
    return fs_decide(bit, call, full);
}

FS_EXPORT int mkdir(const char *path, mode_t mode)
{
    REAL(int, mkdir, const char *, mode_t)
    int e = fs_decide_at(FC_MKDIR, "mkdir", AT_FDCWD, path);
    if (e) {
        errno = e;
        return -1;
    }
    return real_mkdir(path, mode);
}

FS_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
    REAL(int, mkdirat, int, const char *, mode_t)
    int e = fs_decide_at(FC_MKDIR, "mkdirat", dirfd, path);
    if (e) {
        errno = e;
        return -1;
    }
    return real_mkdirat(dirfd, path, mode);
}

static mode_t fs_mode(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define FS_OPEN(name)                                                                                       \
    FS_EXPORT int name(const char *path, int flags, ...)                                                    \
    {                                                                                                       \
        REAL(int, name, const char *, int, ...)                                                             \
        va_list ap;                                                                                         \
        va_start(ap, flags);                                                                                \
        mode_t m = fs_mode(flags, ap);                                                                      \
        va_end(ap);                                                                                         \
        int e = fs_decide_at(FC_OPEN, "open", AT_FDCWD, path);                                              \
        if (e) {                                                                                            \
            errno = e;                                                                                      \
            return -1;                                                                                      \
        }                                                                                                   \
        return real_##name(path, flags, m);                                                                 \
    }
#define FS_OPENAT(name)                                                                                     \
    FS_EXPORT int name(int dirfd, const char *path, int flags, ...)                                         \
    {                                                                                                       \
        REAL(int, name, int, const char *, int, ...)                                                        \
        va_list ap;                                                                                         \
        va_start(ap, flags);                                                                                \
        mode_t m = fs_mode(flags, ap);                                                                      \
        va_end(ap);                                                                                         \
        int e = fs_decide_at(FC_OPEN, "openat", dirfd, path);                                               \
        if (e) {                                                                                            \
            errno = e;                                                                                      \
            return -1;                                                                                      \
        }                                                                                                   \
        return real_##name(dirfd, path, flags, m);                                                          \
    }

FS_OPEN(open)
FS_OPEN(open64)
FS_OPENAT(openat)
FS_OPENAT(openat64)

/* _FORTIFY_SOURCE callers reach these instead (no mode argument). */
#define FS_OPEN_2(name)                                                                                     \
    FS_EXPORT int name(const char *path, int flags)                                                         \
    {                                                                                                       \
        REAL(int, name, const char *, int)                                                                  \
        int e = fs_decide_at(FC_OPEN, "open", AT_FDCWD, path);                                              \
        if (e) {                                                                                            \
            errno = e;                                                                                      \
            return -1;                                                                                      \
        }                                                                                                   \
        return real_##name(path, flags);                                                                    \
    }
#define FS_OPENAT_2(name)                                                                                   \
    FS_EXPORT int name(int dirfd, const char *path, int flags)                                              \
    {                                                                                                       \
        REAL(int, name, int, const char *, int)                                                             \
        int e = fs_decide_at(FC_OPEN, "openat", dirfd, path);                                               \
        if (e) {                                                                                            \
            errno = e;                                                                                      \
            return -1;                                                                                      \
        }                                                                                                   \
        return real_##name(dirfd, path, flags);                                                             \
    }
FS_OPEN_2(__open_2)
FS_OPEN_2(__open64_2)
FS_OPENAT_2(__openat_2)
FS_OPENAT_2(__openat64_2)

FS_EXPORT int creat(const char *path, mode_t mode)
{
    REAL(int, creat, const char *, mode_t)
    int e = fs_decide_at(FC_OPEN, "creat", AT_FDCWD, path);
    if (e) {
        errno = e;
        return -1;
    }
    return real_creat(path, mode);
}

FS_EXPORT int creat64(const char *path, mode_t mode)
{
    REAL(int, creat64, const char *, mode_t)
    int e = fs_decide_at(FC_OPEN, "creat", AT_FDCWD, path);
    if (e) {
        errno = e;
        return -1;
    }
    return real_creat64(path, mode);
}

/* ---- syscall(): the engine makes its durability calls as raw system calls (engine/sys.h), so that an
 * LD_PRELOAD such as eatmydata cannot replace them; this shim hooks syscall() itself on purpose. glibc's
 * syscall() reads six argument registers whatever the call, and so does this. ---- */

FS_EXPORT long syscall(long nr, ...)
{
    static long (*real_syscall)(long, ...);
    if (!real_syscall)
        real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (!real_syscall) {
        errno = ENOSYS;
        return -1;
    }
    va_list ap;
    va_start(ap, nr);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    int e = 0;
    switch (nr) {
    case SYS_fdatasync: e = fs_decide_fd(FC_FDATASYNC, "fdatasync", (int)a[0]); break;
    case SYS_fsync: e = fs_decide_fd(FC_FSYNC, "fsync", (int)a[0]); break;
    case SYS_fallocate: e = fs_decide_fd(FC_FALLOCATE, "fallocate", (int)a[0]); break;
    case SYS_ftruncate: e = fs_decide_fd(FC_FTRUNCATE, "ftruncate", (int)a[0]); break;
#ifdef SYS_renameat
    case SYS_renameat:
#endif
    case SYS_renameat2:
        e = fs_decide_rename((int)a[0], (const char *)a[1], (int)a[2], (const char *)a[3]);
        break;
    default: break;
    }
    if (e) {
        errno = e;
        return -1;
    }
    return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
