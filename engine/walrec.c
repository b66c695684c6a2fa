/* SPDX-License-Identifier: GPL-2.0-or-later */
/* walrec.c — encoders for etcd's WAL record shapes (see walrec.h); no allocation, caller's buffers. */
#include "walrec.h"

#include <string.h>

/* 7 bits per byte: (significant bits + 6) / 7, from one count of leading zeros (this runs several times
 * per WAL record, bench/overhead.sh) */
size_t walrec_varint_len(uint64_t v)
{
    return v < 0x80 ? 1 : (size_t)(70 - __builtin_clzll(v)) / 7;
}

size_t walrec_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t put_key_varint(uint8_t *p, unsigned field, uint64_t v)
{
    p[0] = (uint8_t)(field << 3); /* wire type 0 */
    return 1 + walrec_put_varint(p + 1, v);
}

size_t walrec_entry_head(uint8_t *out, uint64_t term, uint64_t index, size_t data_len)
{
    size_t n = 0;
    n += put_key_varint(out + n, 1, 0); /* Type = EntryNormal, emitted even when zero */
    n += put_key_varint(out + n, 2, term);
    n += put_key_varint(out + n, 3, index);
    out[n++] = (4 << 3) | 2;           /* Data, length-delimited */
    n += walrec_put_varint(out + n, data_len);
    return n;
}

size_t walrec_hardstate(uint8_t *out, uint64_t term, uint64_t vote, uint64_t commit)
{
    size_t n = 0;
    n += put_key_varint(out + n, 1, term);
    n += put_key_varint(out + n, 2, vote);
    n += put_key_varint(out + n, 3, commit);
    return n;
}

size_t walrec_metadata(uint8_t *out, uint64_t node_id, uint64_t cluster_id)
{
    size_t n = 0;
    n += put_key_varint(out + n, 1, node_id);
    n += put_key_varint(out + n, 2, cluster_id);
    return n;
}

size_t walrec_snapshot(uint8_t *out, uint64_t index, uint64_t term)
{
    size_t n = 0;
    n += put_key_varint(out + n, 1, index);
    n += put_key_varint(out + n, 2, term);
    return n;
}

uint64_t walrec_len_field(uint64_t rec_len, unsigned *pad)
{
    /* 8-byte alignment keeps the next length field from ever being torn across sectors */
    unsigned p = (unsigned)((8 - (rec_len % 8)) % 8);
    uint64_t f = rec_len;
    if (p)
        f |= (uint64_t)(0x80u | p) << 56;
    if (pad)
        *pad = p;
    return f;
}

static size_t record_size(int type, uint32_t crc, int has_data, size_t data_len)
{
    size_t n = 1 + walrec_varint_len((uint64_t)(int64_t)type) + 1 + walrec_varint_len(crc);
    if (has_data)
        n += 1 + walrec_varint_len(data_len) + data_len;
    return n;
}

size_t walrec_frame_size(int type, uint32_t crc, int has_data, size_t data_len)
{
    size_t rec = record_size(type, crc, has_data, data_len);
    unsigned pad;
    walrec_len_field(rec, &pad);
    return 8 + rec + pad;
}

size_t walrec_frame_head(uint8_t *out, int type, uint32_t crc, int has_data, size_t dlen, unsigned *pad,
                         size_t *total)
{
    size_t rec = record_size(type, crc, has_data, dlen);
    uint64_t lf = walrec_len_field(rec, pad);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    lf = __builtin_bswap64(lf);
#endif
    memcpy(out, &lf, 8); /* little-endian, as etcd's binary.LittleEndian.PutUint64 */
    size_t n = 8;
    n += put_key_varint(out + n, 1, (uint64_t)(int64_t)type);
    n += put_key_varint(out + n, 2, crc);
    if (has_data) {
        out[n++] = (3 << 3) | 2;
        n += walrec_put_varint(out + n, dlen);
    }
    *total = 8 + rec + *pad;
    return n;
}

size_t walrec_frame(uint8_t *out, size_t cap, int type, uint32_t crc, int has_data,
                    const void *d1, size_t l1, const void *d2, size_t l2)
{
    uint8_t head[WALREC_FRAME_HEAD_MAX];
    unsigned pad;
    size_t total;
    size_t n = walrec_frame_head(head, type, crc, has_data, l1 + l2, &pad, &total);
    if (total > cap)
        return 0;
    memcpy(out, head, n);
    if (has_data) {
        if (l1)
            memcpy(out + n, d1, l1);
        n += l1;
        if (l2)
            memcpy(out + n, d2, l2);
        n += l2;
    }
    memset(out + n, 0, pad);
    return n + pad;
}
