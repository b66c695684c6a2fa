/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.h — CRC-32C (Castagnoli), the checksum etcd chains through every WAL record. The update has
 * zlib/Go semantics (pre- and post-inversion inside), so crc32c_update(prev, data) continues a running
 * Sum32() exactly as etcd's crc.New(prevCrc, table).Write(data) does. */
#ifndef ETCDWAL_CRC32C_H
#define ETCDWAL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len);
/* The portable table walk (what crc32c_update uses without SSE4.2); exposed so tests compare the two. */
uint32_t crc32c_update_table(uint32_t crc, const void *buf, size_t len);
/* Without the AVX-512 folding path (SSE4.2's crc32 chains, else the table walk); also for tests. */
uint32_t crc32c_update_nofold(uint32_t crc, const void *buf, size_t len);

#endif
