/* SPDX-License-Identifier: MIT */
/* version.h — `etcd-fio --version` (version.c). */
#ifndef ETCD_FIO_VERSION_H
#define ETCD_FIO_VERSION_H
#include <stdio.h>
void version_print(FILE *f);
#endif
