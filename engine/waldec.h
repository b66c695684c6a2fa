/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waldec.h — a strict decoder for etcd WAL segments held in memory: checks every frame's length field and
 * pad, the record's protobuf shape and type, and the CRC-32C chain (within a segment and, through the
 * state, across segments). It never reads outside the buffer it is given, whatever the bytes. */
#ifndef ETCDWAL_WALDEC_H
#define ETCDWAL_WALDEC_H

#include <stddef.h>
#include <stdint.h>

/* One decoded frame, for waldec_state.on_frame (e.g. a human-readable dump). */
typedef struct waldec_frame {
    uint64_t offset;          /* of the length field, within the segment */
    uint64_t rec_len;
    unsigned pad;
    unsigned type;            /* WAL_REC_* */
    uint32_t crc;
    size_t data_len;
    uint64_t v[4];            /* entry: [1] type [2] term [3] index; state: [1] term [2] vote [3] commit;
                                 snapshot: [1] index [2] term */
} waldec_frame;

typedef struct waldec_state {
    int crc_known;            /* a CRC record has been seen (the chain is anchored) */
    uint32_t crc;             /* running CRC-32C */
    int have_index;
    uint64_t last_index;      /* last entry index seen */
    uint64_t first_index;     /* first entry index of the last segment decoded (0: it had none) */
    int have_meta;
    unsigned char meta[64];
    size_t meta_len;
    uint64_t segments, frames, entries, states, crcs, metadatas, snapshots;
    uint64_t entry_data_bytes;
    uint64_t index_gaps;      /* entries whose index is not the previous + 1 (etcd allows overwrites) */
    uint64_t end_offset;      /* offset just past the last frame of the last segment decoded */
    /* optional: called for every valid frame */
    void (*on_frame)(void *arg, const waldec_frame *f);
    void *on_frame_arg;
} waldec_state;

void waldec_init(waldec_state *s);
/* Decodes one segment image (a whole file, or its head). The log ends at a zero length field or at the
 * end of the buffer; everything after the end must be zero. 0 if valid; -1 with "offset N: problem" in
 * err otherwise. */
int  waldec_segment(waldec_state *s, const unsigned char *buf, size_t len, char *err, size_t errlen);
/* Parses "%016x-%016x.wal"; 0 on success. */
int  waldec_parse_name(const char *name, uint64_t *seq, uint64_t *index);

#endif
