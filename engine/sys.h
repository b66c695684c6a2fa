/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.h — the engine's durability calls (fdatasync, fsync — also of a directory —, fallocate, ftruncate,
 * renameat/renameat2) as raw system calls, and a report of what in this process could fake them.
 *
 * Why raw. libc's fdatasync is a symbol that any LD_PRELOAD library can replace: Debian's eatmydata
 * (libeatmydata.so: fsync, fdatasync, sync, syncfs, msync, sync_file_range, open) turns every sync into a
 * no-op, and a disk that fails etcd's 10 ms then "passes" with a 90 us p99. The engine therefore reaches
 * the kernel through syscall(SYS_…) (one libc entry point, which eatmydata does not replace), so that what
 * it times is what the kernel did. A library that replaces syscall() itself is seen by sys_interposers()
 * and refused by `etcd-fio check`; the test fault shim (tests/lib/faultshim.c) hooks syscall() on purpose.
 *
 * Same contract as libc: 0 on success, -1 with errno set. */
#ifndef ETCDWAL_SYS_H
#define ETCDWAL_SYS_H

#include <stddef.h>
#include <sys/types.h>

int sys_fdatasync(int fd);
int sys_fsync(int fd);
int sys_fallocate(int fd, int mode, off_t offset, off_t len);
int sys_ftruncate(int fd, off_t length);
int sys_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int sys_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags);

/* Has the kernel send sig to this process when its parent ends (prctl PR_SET_PDEATHSIG), then checks that
 * the parent is still `parent` (recorded by the parent before it forked us): one that died before the prctl
 * sends nothing — we have been re-parented already, getppid() says another pid. 0, -ESRCH when the parent
 * is gone, or -errno of the prctl. The signal comes when the parent *thread* that forked us ends. */
int sys_die_with_parent(pid_t parent, int sig);

/* Is the caller a process of its own that `main_pid` forked — fio's job process — rather than a thread of
 * another process (fio's thread=1 jobs run on pthreads of fio's process) or that process itself? Decided
 * from the process, not from a setting read out of fio's structures: the calling thread is its process's
 * first thread (tid = pid), and the process is not main_pid (main_pid <= 0: not known, not compared). */
int sys_is_forked_process(pid_t main_pid);

/* What could intercept this process's file and sync calls, as one line (empty: nothing):
 *  - "LD_PRELOAD=…", "LD_AUDIT=…" from the environment and "/etc/ld.so.preload: …" (its library names),
 *  - "LIB interposes fdatasync fsync …": each loaded object other than libc that provides the default
 *    definition of a sync, preallocation, rename, open, write or syscall() function — found from the
 *    dynamic linker itself (dlsym + dladdr), so a library that scrubbed LD_PRELOAD is seen too.
 * Sanitizer runtimes (an object that defines __asan_init, __tsan_init or __ubsan_handle_add_overflow)
 * only check memory and pass every call on: they are left out, here and in LD_PRELOAD.
 * Returns the number of findings (0: nothing). ld_so_preload: the path to read (NULL: /etc/ld.so.preload). */
int sys_interposers(char *out, size_t len, const char *ld_so_preload);

#endif
