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
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7u)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
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
