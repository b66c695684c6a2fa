/* crc32c.c — table-driven CRC-32C, slicing by 8 so checksumming large entries stays cheap next to I/O. */
#include "crc32c.h"

#include <string.h>

#include "crc32c_tab.h"

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
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
