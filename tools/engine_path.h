/* SPDX-License-Identifier: MIT */
/* engine_path.h — where the CLI finds libetcdwal.so: $ETCD_FIO_ENGINE, then beside the etcd-fio binary
 * (build tree), then the installed $(PREFIX)/lib/etcd-fio/. */
#ifndef ETCD_FIO_ENGINE_PATH_H
#define ETCD_FIO_ENGINE_PATH_H
#include <stddef.h>
/* Writes an absolute path into buf; returns 0, or -1 with a message in buf when no engine is found. */
int engine_path_find(char *buf, size_t len);
/* The fio of a release tarball, lib/etcd-fio/fio beside bin/etcd-fio (found through /proc/self/exe, so from any
 * directory it is unpacked into): its absolute path into buf and 0, or -1 when there is none (an installed
 * or build-tree etcd-fio uses the fio in PATH). */
int engine_path_bundled_fio(char *buf, size_t len);
#endif
