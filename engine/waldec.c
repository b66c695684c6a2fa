/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waldec.c — WAL decoder (see waldec.h). Every length is checked against what is left before use. */
#include "waldec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "crc32c.h"
#include "walrec.h"

void waldec_init(waldec_state *s)
{
    memset(s, 0, sizeof *s);
}

typedef struct cursor {
    const unsigned char *p;
    size_t len, pos;
} cursor;

static int get_varint(cursor *c, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (c->pos >= c->len)
            return -1;
        unsigned char b = c->p[c->pos++];
        if (i == 9 && b > 1)
            return -1; /* more than 64 bits */
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* One field of a message: number, wire type, and either the varint or the bytes. */
typedef struct field {
    unsigned num, wt;
    uint64_t v;
    const unsigned char *data;
    size_t dlen;
} field;

static int next_field(cursor *c, field *f)
{
    uint64_t key;
    if (get_varint(c, &key) || key >> 32)
        return -1;
    f->num = (unsigned)(key >> 3);
    f->wt = (unsigned)(key & 7);
    if (f->num == 0)
        return -1;
    if (f->wt == 0)
        return get_varint(c, &f->v);
    if (f->wt == 2) {
        uint64_t l;
        if (get_varint(c, &l) || l > c->len - c->pos)
            return -1;
        f->data = c->p + c->pos;
        f->dlen = (size_t)l;
        c->pos += (size_t)l;
        return 0;
    }
    return -1;
}

static int fmt_err(char *err, size_t errlen, size_t off, const char *fmt, ...)
{
    int n = snprintf(err, errlen, "offset %zu: ", off);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Checks a message made only of the given varint field numbers (mask bit n) and bytes fields. */
static int check_msg(const unsigned char *p, size_t len, unsigned varint_mask, unsigned bytes_mask,
                     uint64_t vals[8])
{
    cursor c = {p, len, 0};
    while (c.pos < c.len) {
        field f;
        if (next_field(&c, &f) || f.num >= 8)
            return -1;
        if (f.wt == 0 && (varint_mask >> f.num & 1))
            vals[f.num] = f.v;
        else if (!(f.wt == 2 && (bytes_mask >> f.num & 1)))
            return -1;
    }
    return 0;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static const char *type_name(uint64_t t)
{
    switch (t) {
    case WAL_REC_METADATA: return "metadata";
    case WAL_REC_ENTRY: return "entry";
    case WAL_REC_STATE: return "state";
    case WAL_REC_CRC: return "crc";
    case WAL_REC_SNAPSHOT: return "snapshot";
    default: return "?";
    }
}

/* A frame's header: the little-endian length field at off, with etcd's padding encoding (the top byte's
 * bit 7 says padded, bits 0-2 the pad: etcd wal/encoder.go encodeFrameSize). 1 at the end of the log
 * (a zero length field, or fewer than 8 bytes, all zero behind it); 0 with rlen and pad; -1 on error. */
static int read_frame(const unsigned char *buf, size_t len, size_t off, uint64_t *rlen_out, unsigned *pad_out,
                      char *err, size_t errlen)
{
    if (len - off < 8) {
        if (!all_zero(buf + off, len - off))
            return fmt_err(err, errlen, off, "truncated length field");
        return 1;
    }
    uint64_t lf = 0;
    for (int i = 0; i < 8; i++)
        lf |= (uint64_t)buf[off + (size_t)i] << (8 * i);
    if (lf == 0) {
        if (!all_zero(buf + off, len - off))
            return fmt_err(err, errlen, off, "non-zero bytes after the end of the log");
        return 1;
    }
    unsigned top = (unsigned)(lf >> 56), pad = 0;
    uint64_t rlen = lf & ((1ull << 56) - 1);
    if (top & 0x80) {
        pad = top & 7;
        if ((top & 0x78) || pad == 0)
            return fmt_err(err, errlen, off, "bad length field 0x%016" PRIx64, lf);
    } else if (top) {
        return fmt_err(err, errlen, off, "bad length field 0x%016" PRIx64, lf);
    }
    if (rlen == 0)
        return fmt_err(err, errlen, off, "empty record with pad %u", pad);
    if ((8 - rlen % 8) % 8 != pad)
        return fmt_err(err, errlen, off, "pad %u does not align a %" PRIu64 "-byte record", pad, rlen);
    if (rlen > len - off - 8 || pad > len - off - 8 - rlen)
        return fmt_err(err, errlen, off, "frame of %" PRIu64 " bytes runs past the end (%zu left)",
                       rlen + pad, len - off - 8);
    if (!all_zero(buf + off + 8 + rlen, pad))
        return fmt_err(err, errlen, off, "non-zero padding");
    *rlen_out = rlen;
    *pad_out = pad;
    return 0;
}

/* One walpb.Record's fields, as parsed by parse_record. */
typedef struct wrec {
    uint64_t type, crc;
    int have_data;
    const unsigned char *data;
    size_t dlen;
} wrec;

/* walpb.Record{type=1, crc=2, data=3}: the fields, then type and crc present and in range. in_seg: the
 * frames before this one in the segment (the first must be a crc record: etcd wal.go Create/cut). */
static int parse_record(const unsigned char *rec, uint64_t rlen, uint64_t in_seg, size_t off, wrec *r,
                        char *err, size_t errlen)
{
    cursor c = {rec, (size_t)rlen, 0};
    int have_type = 0, have_crc = 0;
    *r = (wrec){0};
    while (c.pos < c.len) {
        field f;
        if (next_field(&c, &f))
            return fmt_err(err, errlen, off, "malformed record protobuf");
        if (f.num == 1 && f.wt == 0) {
            r->type = f.v;
            have_type = 1;
        } else if (f.num == 2 && f.wt == 0) {
            r->crc = f.v;
            have_crc = 1;
        } else if (f.num == 3 && f.wt == 2) {
            r->data = f.data;
            r->dlen = f.dlen;
            r->have_data = 1;
        } else {
            return fmt_err(err, errlen, off, "unknown record field %u (wire type %u)", f.num, f.wt);
        }
    }
    if (!have_type || !have_crc)
        return fmt_err(err, errlen, off, "record without %s", have_type ? "crc" : "type");
    if (r->type < WAL_REC_METADATA || r->type > WAL_REC_SNAPSHOT)
        return fmt_err(err, errlen, off, "unknown record type %" PRIu64, r->type);
    if (r->crc > 0xffffffffu)
        return fmt_err(err, errlen, off, "crc field out of range");
    if (in_seg == 0 && r->type != WAL_REC_CRC)
        return fmt_err(err, errlen, off, "segment starts with a %s record, not a crc record",
                       type_name(r->type));
    return 0;
}

/* A crc record: only first in a segment, no data, and (once the chain is anchored) carrying the running
 * CRC, which it then anchors (etcd wal.go: the crc record carries the previous segment's CRC). */
static int crc_record(waldec_state *s, const wrec *r, uint64_t in_seg, size_t off, char *err, size_t errlen)
{
    if (in_seg != 0)
        return fmt_err(err, errlen, off, "crc record in the middle of a segment");
    if (r->have_data && r->dlen)
        return fmt_err(err, errlen, off, "crc record with data");
    if (s->crc_known && (uint32_t)r->crc != s->crc)
        return fmt_err(err, errlen, off, "crc record carries 0x%08" PRIx64 " but the chain is at 0x%08" PRIx32,
                       r->crc, s->crc);
    s->crc = (uint32_t)r->crc;
    s->crc_known = 1;
    s->crcs++;
    return 0;
}

/* Any other record: its CRC continues the chain over its data, and its data decodes as the message its
 * type says; counts it. seg_entries: entries so far in this segment (the first sets first_index). */
static int data_record(waldec_state *s, const wrec *r, uint64_t *seg_entries, size_t off, char *err,
                       size_t errlen)
{
    uint32_t want = crc32c_update(s->crc, r->data, r->dlen);
    if ((uint32_t)r->crc != want)
        return fmt_err(err, errlen, off, "CRC mismatch in %s record: stored 0x%08" PRIx64 ", computed 0x%08" PRIx32,
                       type_name(r->type), r->crc, want);
    s->crc = want;
    uint64_t v[8] = {0};
    const unsigned char *d = r->data ? r->data : (const unsigned char *)"";
    size_t dlen = r->dlen;
    switch (r->type) {
    case WAL_REC_ENTRY: /* raftpb.Entry{Type=1, Term=2, Index=3, Data=4} */
        if (check_msg(d, dlen, 1u << 1 | 1u << 2 | 1u << 3, 1u << 4, v))
            return fmt_err(err, errlen, off, "malformed raft entry");
        if (s->have_index && v[3] != s->last_index + 1)
            s->index_gaps++;
        if (!(*seg_entries)++)
            s->first_index = v[3];
        s->last_index = v[3];
        s->have_index = 1;
        s->entries++;
        s->entry_data_bytes += dlen;
        break;
    case WAL_REC_STATE: /* raftpb.HardState{Term, Vote, Commit} */
        if (check_msg(d, dlen, 1u << 1 | 1u << 2 | 1u << 3, 0, v))
            return fmt_err(err, errlen, off, "malformed hard state");
        s->states++;
        break;
    case WAL_REC_SNAPSHOT: /* walpb.Snapshot{Index, Term, ConfState} */
        if (check_msg(d, dlen, 1u << 1 | 1u << 2, 1u << 3, v))
            return fmt_err(err, errlen, off, "malformed snapshot record");
        s->snapshots++;
        break;
    case WAL_REC_METADATA:
        if (s->have_meta && (s->meta_len != dlen || memcmp(s->meta, d, dlen)))
            return fmt_err(err, errlen, off, "metadata differs from the earlier segment's");
        if (!s->have_meta && dlen <= sizeof s->meta) {
            memcpy(s->meta, d, dlen);
            s->meta_len = dlen;
            s->have_meta = 1;
        }
        s->metadatas++;
        break;
    }
    return 0;
}

/* Hands a valid frame to the on_frame callback, with its message's varints (for a dump). */
static void report_frame(waldec_state *s, size_t off, uint64_t rlen, unsigned pad, const wrec *r)
{
    waldec_frame fr = {.offset = off, .rec_len = rlen, .pad = pad, .type = (unsigned)r->type,
                       .crc = (uint32_t)r->crc, .data_len = r->dlen};
    uint64_t v[8] = {0};
    const unsigned char *d = r->data ? r->data : (const unsigned char *)"";
    if (r->type == WAL_REC_ENTRY || r->type == WAL_REC_STATE || r->type == WAL_REC_SNAPSHOT)
        (void)check_msg(d, r->dlen, 0xe, 0x18, v); /* already validated in data_record */
    memcpy(fr.v, v, sizeof fr.v);
    s->on_frame(s->on_frame_arg, &fr);
}

int waldec_segment(waldec_state *s, const unsigned char *buf, size_t len, char *err, size_t errlen)
{
    size_t off = 0;
    uint64_t in_seg = 0, seg_entries = 0;
    s->segments++;
    s->first_index = 0;
    for (;;) {
        uint64_t rlen = 0;
        unsigned pad = 0;
        int rc = read_frame(buf, len, off, &rlen, &pad, err, errlen);
        if (rc < 0)
            return rc;
        if (rc > 0)
            break;
        wrec r;
        if (parse_record(buf + off + 8, rlen, in_seg, off, &r, err, errlen))
            return -1;
        if (r.type == WAL_REC_CRC)
            rc = crc_record(s, &r, in_seg, off, err, errlen);
        else
            rc = data_record(s, &r, &seg_entries, off, err, errlen);
        if (rc)
            return rc;
        if (s->on_frame)
            report_frame(s, off, rlen, pad, &r);
        s->frames++;
        in_seg++;
        off += 8 + (size_t)rlen + pad;
    }
    s->end_offset = off;
    return 0;
}

int waldec_parse_name(const char *name, uint64_t *seq, uint64_t *index)
{
    if (strlen(name) != 37 || name[16] != '-' || strcmp(name + 33, ".wal"))
        return -1;
    uint64_t v[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 16; i++) {
            char ch = name[k * 17 + i];
            unsigned d;
            if (ch >= '0' && ch <= '9')
                d = (unsigned)(ch - '0');
            else if (ch >= 'a' && ch <= 'f')
                d = (unsigned)(ch - 'a' + 10);
            else
                return -1;
            v[k] = v[k] << 4 | d;
        }
    *seq = v[0];
    *index = v[1];
    return 0;
}
