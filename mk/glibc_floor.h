/* SPDX-License-Identifier: MIT */
/* glibc_floor.h — included first (-include) into every object of the release tarball (mk/dist.sh: fio,
 * the engine and the CLI), so that they need no glibc symbol newer than 2.28 (RHEL 8) although they are
 * built against Debian bullseye's 2.31. glibc 2.29 gave exp, exp2, log, log2 and pow new default versions
 * without the SVID error-handling wrapper (glibc 2.29's NEWS); the older versions, kept in every later
 * glibc, wrap the same computation and set errno the same way (POSIX mode), and these calls are bound to
 * them here. gettid (2.30, used by fio) has no older version: it becomes the system call, as fio itself
 * does on a C library without it (os/os-linux.h). */
#ifndef ETCDFIO_GLIBC_FLOOR_H
#define ETCDFIO_GLIBC_FLOOR_H
#if defined(__x86_64__)
__asm__(".symver exp,exp@GLIBC_2.2.5");
__asm__(".symver exp2,exp2@GLIBC_2.2.5");
__asm__(".symver log,log@GLIBC_2.2.5");
__asm__(".symver log2,log2@GLIBC_2.2.5");
__asm__(".symver pow,pow@GLIBC_2.2.5");
#elif defined(__aarch64__)
__asm__(".symver exp,exp@GLIBC_2.17");
__asm__(".symver exp2,exp2@GLIBC_2.17");
__asm__(".symver log,log@GLIBC_2.17");
__asm__(".symver log2,log2@GLIBC_2.17");
__asm__(".symver pow,pow@GLIBC_2.17");
#endif

#include <asm/unistd.h>
long syscall(long, ...);
static inline int etcdfio_floor_gettid(void) { return (int)syscall(__NR_gettid); }
#define gettid etcdfio_floor_gettid
#endif
