/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.c — CRC-32C of every WAL record. The SSE4.2 crc32 instruction where the CPU has it (as Go's
 * hash/crc32, and so etcd, uses): the table walk cost ~8,000 instructions per 2300-byte entry, more than
 * the rest of the engine's work per I/O together (bench/overhead.sh). Slicing-by-8 tables elsewhere. */
#include "crc32c.h"

#include <string.h>

#include "crc32c_tab.h"

uint32_t crc32c_update_table(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    while (len && ((uintptr_t)p & 7u)) {
        c = crc32c_tab[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
        len--;
    }
    while (len >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = crc32c_tab[7][lo & 0xffu] ^ crc32c_tab[6][(lo >> 8) & 0xffu] ^
            crc32c_tab[5][(lo >> 16) & 0xffu] ^ crc32c_tab[4][lo >> 24] ^
            crc32c_tab[3][hi & 0xffu] ^ crc32c_tab[2][(hi >> 8) & 0xffu] ^
            crc32c_tab[1][(hi >> 16) & 0xffu] ^ crc32c_tab[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = crc32c_tab[0][(c ^ *p++) & 0xffu] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <pthread.h>

/* The crc32 instruction has a latency of 3 cycles and a throughput of 1: one dependent chain over a
 * 2300-byte entry waits ~860 cycles. Go's hash/crc32 (castagnoliSSE42Triple, so etcd's own encoder) runs
 * three chains over three consecutive blocks of K bytes and joins them: crc(A‖B) = shift_K(crc(A)) ⊕
 * crc(B), where shift_K (K zero bytes through the raw CRC register) is linear, so 4 table lookups of one
 * byte each. Block sizes as Go's: K1 = 168 and K2 = 1344 bytes. */
#define CRC_K1 168u
#define CRC_K2 1344u

static uint32_t shift_k1[4][256], shift_k2[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static uint32_t zeros_raw(uint32_t c, size_t n)
{
    uint64_t r = c;
    for (size_t i = 0; i < n / 8; i++)
        r = __builtin_ia32_crc32di(r, 0);
    return (uint32_t)r;
}

static void shift_init(void)
{
    for (unsigned b = 0; b < 4; b++)
        for (unsigned v = 0; v < 256; v++) {
            shift_k1[b][v] = zeros_raw(v << (8 * b), CRC_K1);
            shift_k2[b][v] = zeros_raw(v << (8 * b), CRC_K2);
        }
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t c)
{
    return t[0][c & 0xffu] ^ t[1][(c >> 8) & 0xffu] ^ t[2][(c >> 16) & 0xffu] ^ t[3][c >> 24];
}

/* Three chains over p[0,K), p[K,2K), p[2K,3K) from register c, joined; returns the raw register. */
__attribute__((target("sse4.2"))) static inline uint64_t triple(uint64_t c, const unsigned char *p, size_t k,
                                                                const uint32_t t[4][256])
{
    uint64_t a = c, b = 0, d = 0;
    for (size_t i = 0; i < k; i += 8) {
        uint64_t x, y, z;
        memcpy(&x, p + i, 8);
        memcpy(&y, p + k + i, 8);
        memcpy(&z, p + 2 * k + i, 8);
        a = __builtin_ia32_crc32di(a, x);
        b = __builtin_ia32_crc32di(b, y);
        d = __builtin_ia32_crc32di(d, z);
    }
    uint32_t r = shift(t, (uint32_t)a) ^ (uint32_t)b;
    return shift(t, r) ^ (uint32_t)d;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7u)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    if (len >= 3 * CRC_K1) {
        pthread_once(&shift_once, shift_init);
        for (; len >= 3 * CRC_K2; p += 3 * CRC_K2, len -= 3 * CRC_K2)
            c = triple(c, p, CRC_K2, (const uint32_t (*)[256])shift_k2);
        for (; len >= 3 * CRC_K1; p += 3 * CRC_K1, len -= 3 * CRC_K1)
            c = triple(c, p, CRC_K1, (const uint32_t (*)[256])shift_k1);
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    if (__builtin_cpu_supports("sse4.2"))
        return crc32c_hw(crc, buf, len);
    return crc32c_update_table(crc, buf, len);
}
#else
uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    return crc32c_update_table(crc, buf, len);
}
#endif
