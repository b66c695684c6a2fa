/* SPDX-License-Identifier: GPL-2.0-or-later */
/* walrec.h — the byte shapes etcd writes into a WAL: protobuf wire encoding of walpb.Record
 * {type=1 int64, crc=2 uint32, data=3 bytes}, raftpb.Entry / HardState, walpb.Snapshot and
 * etcdserverpb.Metadata as gogoproto marshals them (non-nullable scalars always present), and the frame:
 * 8-byte little-endian length (top byte 0x80|pad when padded), the record, zero pad to 8 bytes. */
#ifndef ETCDWAL_WALREC_H
#define ETCDWAL_WALREC_H

#include <stddef.h>
#include <stdint.h>

enum {
    WAL_REC_METADATA = 1,
    WAL_REC_ENTRY = 2,
    WAL_REC_STATE = 3,
    WAL_REC_CRC = 4,
    WAL_REC_SNAPSHOT = 5,
};

/* Longest encoding any walrec_* header helper below produces. */
#define WALREC_HEAD_MAX 48

size_t   walrec_varint_len(uint64_t v);
size_t   walrec_put_varint(uint8_t *p, uint64_t v);

/* raftpb.Entry{Type=Normal, Term, Index, Data} up to and including the Data key and length; the
 * data_len payload bytes follow it. */
size_t   walrec_entry_head(uint8_t *out, uint64_t term, uint64_t index, size_t data_len);
size_t   walrec_hardstate(uint8_t *out, uint64_t term, uint64_t vote, uint64_t commit);
size_t   walrec_metadata(uint8_t *out, uint64_t node_id, uint64_t cluster_id);
size_t   walrec_snapshot(uint8_t *out, uint64_t index, uint64_t term);

/* Length field for a record of rec_len bytes; *pad gets the zero bytes that follow it. */
uint64_t walrec_len_field(uint64_t rec_len, unsigned *pad);
/* Size of the whole frame (length field + record + pad) for a record whose data is data_len bytes
 * (has_data = 0 for CRC records, which carry no data field). */
size_t   walrec_frame_size(int type, uint32_t crc, int has_data, size_t data_len);
/* Longest walrec_frame_head: length field, type and crc keys, data key and length. */
#define WALREC_FRAME_HEAD_MAX 40
/* The frame's bytes before the record's data (length field, type, crc, data key and length) for a data of
 * dlen bytes; *pad gets the zero bytes after the data and *total the whole frame's size. */
size_t   walrec_frame_head(uint8_t *out, int type, uint32_t crc, int has_data, size_t dlen, unsigned *pad,
                           size_t *total);
/* Writes the frame for Record{type, crc, data = d1 ++ d2} into out (cap bytes). Returns the frame size,
 * or 0 if cap is too small. */
size_t   walrec_frame(uint8_t *out, size_t cap, int type, uint32_t crc, int has_data,
                      const void *d1, size_t l1, const void *d2, size_t l2);

#endif
