/* SPDX-License-Identifier: MIT */
/* test_wal_format.c — the WAL byte format without any I/O: CRC-32C against published vectors, frame
 * length/pad rules, byte-for-byte re-encoding of frames from a real etcd 3.4.23 segment, the decoder on
 * both real segment heads, and corruption (every bit flip of a small segment) being noticed without any
 * out-of-bounds read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crc32c.h"
#include "waldec.h"
#include "walrec.h"

#define SEG0 TEST_FIXTURES "/etcd-wal/etcd-3.4.23-seg0-head.wal"
#define SEG1 TEST_FIXTURES "/etcd-wal/etcd-3.4.23-seg1-head.wal"

static unsigned char *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* RFC 3720 (iSCSI) appendix B.4 test vectors and the common "123456789" check value. */
static void test_crc32c_vectors(void **state)
{
    (void)state;
    unsigned char buf[32];
    assert_int_equal(crc32c_update(0, "123456789", 9), 0xE3069283u);
    memset(buf, 0, sizeof buf);
    assert_int_equal(crc32c_update(0, buf, 32), 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf);
    assert_int_equal(crc32c_update(0, buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    assert_int_equal(crc32c_update(0, buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)(31 - i);
    assert_int_equal(crc32c_update(0, buf, 32), 0x113FDB5Cu);
    assert_int_equal(crc32c_update(0x12345678u, buf, 0), 0x12345678u);
    /* the portable table walk gives the same check values as the (possibly hardware) default */
    assert_int_equal(crc32c_update_table(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(crc32c_update_table(0, buf, 32), 0x113FDB5Cu);
}

/* The hardware path and the table walk agree at every length 0..300 and every start alignment, chained;
 * and around the sizes where the three-chain path starts (3 × 168 and 3 × 1344 bytes) and beyond. */
static void test_crc32c_hw_equals_table(void **state)
{
    (void)state;
    static unsigned char buf[9000];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len + off <= 300; len++) {
            uint32_t seed = (uint32_t)(len * 2654435761u);
            assert_int_equal(crc32c_update(seed, buf + off, len), crc32c_update_table(seed, buf + off, len));
        }
    static const size_t big[] = {503, 504, 505, 511, 1007, 1008, 1009, 2300, 2317, 4031, 4032, 4033, 4536, 8064, 8990};
    for (size_t off = 0; off < 8; off++)
        for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
            uint32_t seed = (uint32_t)(big[k] * 2654435761u + off);
            assert_int_equal(crc32c_update(seed, buf + off, big[k]),
                             crc32c_update_table(seed, buf + off, big[k]));
            assert_int_equal(crc32c_update_nofold(seed, buf + off, big[k]),
                             crc32c_update_table(seed, buf + off, big[k]));
        }
    /* where the AVX-512 folding path runs (256 bytes on, on a CPU that has it): every length through its
     * 256-, 64-, 16- and 8-byte steps and their tails, at odd alignments */
    for (size_t off = 0; off < 64; off += 13)
        for (size_t len = 250; len <= 1100; len++) {
            uint32_t seed = (uint32_t)(len * 2246822519u + off);
            assert_int_equal(crc32c_update(seed, buf + off, len), crc32c_update_table(seed, buf + off, len));
        }
}

/* Chaining, as etcd's running digest does, equals one pass over the concatenation, at any split and
 * any alignment (the slicing loop and the byte loop must agree). */
static void test_crc32c_chaining(void **state)
{
    (void)state;
    unsigned char buf[1031];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    uint32_t whole = crc32c_update(0, buf, sizeof buf);
    for (size_t cut = 0; cut <= sizeof buf; cut += 37)
        assert_int_equal(crc32c_update(crc32c_update(0, buf, cut), buf + cut, sizeof buf - cut), whole);
    /* a bytewise reference for unaligned starts */
    for (size_t off = 1; off < 9; off++) {
        uint32_t c = ~0u;
        for (size_t i = off; i < sizeof buf; i++) {
            c ^= buf[i];
            for (int k = 0; k < 8; k++)
                c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        }
        assert_int_equal(crc32c_update(0, buf + off, sizeof buf - off), ~c);
    }
}

static void test_frame_padding(void **state)
{
    (void)state;
    for (uint64_t n = 1; n <= 64; n++) {
        unsigned pad;
        uint64_t f = walrec_len_field(n, &pad);
        assert_int_equal((n + pad) % 8, 0);
        assert_true(pad < 8);
        assert_int_equal(f & ((1ull << 56) - 1), n);
        if (pad)
            assert_int_equal(f >> 56, 0x80u | pad);
        else
            assert_int_equal(f >> 56, 0);
    }
    /* a frame is the length field, the record and the zero pad, and nothing more */
    unsigned char out[128];
    memset(out, 0xee, sizeof out);
    size_t n = walrec_frame(out, sizeof out, WAL_REC_ENTRY, 0xdeadbeefu, 1, "ab", 2, "cde", 3);
    assert_int_equal(n % 8, 0);
    assert_int_equal(n, walrec_frame_size(WAL_REC_ENTRY, 0xdeadbeefu, 1, 5));
    assert_int_equal(out[n], 0xee);
    uint64_t lf = 0;
    for (int i = 0; i < 8; i++)
        lf |= (uint64_t)out[i] << (8 * i);
    size_t rec = (size_t)(lf & ((1ull << 56) - 1));
    for (size_t i = 8 + rec; i < n; i++)
        assert_int_equal(out[i], 0);
    assert_memory_equal(out + n - 5 - (n - 8 - rec), "abcde", 5);
    assert_int_equal(walrec_frame(out, n - 1, WAL_REC_ENTRY, 0xdeadbeefu, 1, "ab", 2, "cde", 3), 0);
}

/* The running CRC just before the frame at off: the decoder over the frames before it. */
static uint32_t crc_before(const unsigned char *buf, size_t off)
{
    waldec_state s;
    char err[200];
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, buf, off, err, sizeof err), 0);
    return s.crc;
}

static uint64_t varint(const unsigned char *p, size_t *pos)
{
    uint64_t v = 0;
    unsigned sh = 0;
    while (p[*pos] & 0x80)
        v |= (uint64_t)(p[(*pos)++] & 0x7f) << sh, sh += 7;
    v |= (uint64_t)p[(*pos)++] << sh;
    return v;
}

/* The data field of the Record in the frame at off (type, crc, data keys in etcd's order). */
static const unsigned char *record_data(const unsigned char *fx, size_t off, size_t *dlen)
{
    const unsigned char *r = fx + off + 8;
    size_t p = 0;
    assert_int_equal(r[p++], 0x08);
    varint(r, &p);
    assert_int_equal(r[p++], 0x10);
    varint(r, &p);
    assert_int_equal(r[p++], 0x1a);
    *dlen = (size_t)varint(r, &p);
    return r + p;
}

static void frame_equals(const unsigned char *fx, size_t off, int type, int has_data, const void *d1,
                         size_t l1, const void *d2, size_t l2)
{
    unsigned char out[4096];
    uint32_t crc = crc_before(fx, off);
    if (l1)
        crc = crc32c_update(crc, d1, l1);
    if (l2)
        crc = crc32c_update(crc, d2, l2);
    size_t n = walrec_frame(out, sizeof out, type, crc, has_data, d1, l1, d2, l2);
    assert_true(n > 0);
    assert_memory_equal(out, fx + off, n);
}

/* Our encoders produce etcd's exact bytes: the frames of a real segment 0 re-encoded from their
 * field values (offsets from the fixture's own frame walk). */
static void test_reencode_real_frames(void **state)
{
    (void)state;
    size_t len;
    unsigned char *fx = load(SEG0, &len);
    unsigned char b[WALREC_HEAD_MAX];
    /* 0x00: CRC record, previous CRC 0, no data */
    frame_equals(fx, 0x00, WAL_REC_CRC, 0, NULL, 0, NULL, 0);
    /* 0x10: metadata {NodeID, ClusterID} as etcdserverpb.Metadata; ids read back from the fixture */
    size_t dlen, n, p = 1; /* 08 <NodeID> 10 <ClusterID> */
    const unsigned char *md = record_data(fx, 0x10, &dlen);
    uint64_t node = varint(md, &p);
    p++;
    uint64_t cluster = varint(md, &p);
    assert_int_equal(p, dlen);
    n = walrec_metadata(b, node, cluster);
    assert_int_equal(n, 0x14);
    frame_equals(fx, 0x10, WAL_REC_METADATA, 1, b, n, NULL, 0);
    /* 0x38: walpb.Snapshot{} */
    n = walrec_snapshot(b, 0, 0);
    frame_equals(fx, 0x38, WAL_REC_SNAPSHOT, 1, b, n, NULL, 0);
    /* 0xd0: HardState{Term 1, Vote 0, Commit 1} */
    n = walrec_hardstate(b, 1, 0, 1);
    frame_equals(fx, 0xd0, WAL_REC_STATE, 1, b, n, NULL, 0);
    /* 0x100: a normal entry, term 2 index 3, 139 data bytes */
    n = walrec_entry_head(b, 2, 3, 139);
    const unsigned char *ent = record_data(fx, 0x100, &dlen);
    assert_int_equal(dlen, n + 139);
    const unsigned char *payload = ent + n;
    frame_equals(fx, 0x100, WAL_REC_ENTRY, 1, b, n, payload, 139);
    free(fx);
}

static void test_decode_real_segments(void **state)
{
    (void)state;
    size_t len;
    char err[256];
    waldec_state s;

    unsigned char *fx = load(SEG0, &len);
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), 0);
    assert_int_equal(s.crcs, 1);
    assert_int_equal(s.metadatas, 1);
    assert_int_equal(s.snapshots, 1);     /* Create writes an empty snapshot record */
    assert_true(s.entries > 100);
    assert_true(s.states > 100);
    assert_int_equal(s.first_index, 1);   /* raft's first entry */
    assert_int_equal(s.last_index, s.entries); /* contiguous from 1: a single member never overwrites */
    assert_int_equal(s.index_gaps, 0);
    assert_int_equal(s.end_offset % 8, 0);
    assert_true(s.end_offset > len - 4096); /* the head was cut near 256 KiB, then zero-filled */
    free(fx);

    fx = load(SEG1, &len);
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), 0);
    assert_int_equal(s.crcs, 1);
    assert_int_equal(s.metadatas, 1);
    assert_int_equal(s.snapshots, 0);
    /* cut() names a segment after the index that follows the last one of the previous segment */
    uint64_t seq, idx;
    assert_int_equal(waldec_parse_name("0000000000000001-000000000000b329.wal", &seq, &idx), 0);
    assert_int_equal(seq, 1);
    assert_int_equal(s.first_index, idx);
    assert_int_equal(s.last_index - s.first_index + 1, s.entries);
    free(fx);
}

static void test_detects_damage(void **state)
{
    (void)state;
    size_t len;
    char err[256];
    waldec_state s;
    unsigned char *fx = load(SEG0, &len);

    fx[0x120] ^= 0x01; /* inside the data of the entry at 0x100 */
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), -1);
    assert_non_null(strstr(err, "offset 256"));
    assert_non_null(strstr(err, "CRC mismatch"));
    fx[0x120] ^= 0x01;

    fx[0x17] = 0x86; /* metadata frame: pad 6 claimed, record needs 3 */
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), -1);
    assert_non_null(strstr(err, "pad"));
    fx[0x17] = 0x83;

    fx[len - 100] = 1; /* garbage after the end of the log */
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), -1);
    assert_non_null(strstr(err, "after the end"));
    fx[len - 100] = 0;

    /* a frame cut short by the end of the buffer */
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, 0x100 + 12, err, sizeof err), -1);
    assert_non_null(strstr(err, "runs past the end"));

    /* the chain across segments: seg1 does not continue this seg0 head */
    size_t l1;
    unsigned char *s1 = load(SEG1, &l1);
    waldec_init(&s);
    assert_int_equal(waldec_segment(&s, fx, len, err, sizeof err), 0);
    assert_int_equal(waldec_segment(&s, s1, l1, err, sizeof err), -1);
    assert_non_null(strstr(err, "crc record carries"));
    free(s1);
    free(fx);
}

/* Builds a small valid segment with our encoders: CRC, metadata, snapshot, entries, states. */
static size_t build_segment(unsigned char *out, size_t cap)
{
    unsigned char b[WALREC_HEAD_MAX], data[300];
    uint32_t crc = 0;
    size_t off = 0, n;
    off += walrec_frame(out + off, cap - off, WAL_REC_CRC, crc, 0, NULL, 0, NULL, 0);
    n = walrec_metadata(b, 7, 9);
    crc = crc32c_update(crc, b, n);
    off += walrec_frame(out + off, cap - off, WAL_REC_METADATA, crc, 1, b, n, NULL, 0);
    n = walrec_snapshot(b, 0, 0);
    crc = crc32c_update(crc, b, n);
    off += walrec_frame(out + off, cap - off, WAL_REC_SNAPSHOT, crc, 1, b, n, NULL, 0);
    for (unsigned i = 1; i <= 6; i++) {
        size_t dl = 37u * i;
        memset(data, (int)i, dl);
        n = walrec_entry_head(b, 2, i, dl);
        crc = crc32c_update(crc32c_update(crc, b, n), data, dl);
        off += walrec_frame(out + off, cap - off, WAL_REC_ENTRY, crc, 1, b, n, data, dl);
        n = walrec_hardstate(b, 2, 7, i);
        crc = crc32c_update(crc, b, n);
        off += walrec_frame(out + off, cap - off, WAL_REC_STATE, crc, 1, b, n, NULL, 0);
    }
    return off;
}

/* Every single-bit flip of a valid segment (plus trailing zeros) is either rejected or decodes to a
 * visibly different log; and random bytes never make the decoder misbehave (ASan builds check reads). */
static void test_bit_flips_and_noise(void **state)
{
    (void)state;
    unsigned char seg[4096];
    memset(seg, 0, sizeof seg);
    size_t used = build_segment(seg, sizeof seg);
    size_t len = used + 64;
    char err[256];
    waldec_state ref, s;
    waldec_init(&ref);
    assert_int_equal(waldec_segment(&ref, seg, len, err, sizeof err), 0);
    assert_int_equal(ref.entries, 6);
    assert_int_equal(ref.states, 6);
    assert_int_equal(ref.end_offset, used);
    unsigned undetected = 0;
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            seg[i] ^= (unsigned char)(1u << bit);
            waldec_init(&s);
            int rc = waldec_segment(&s, seg, len, err, sizeof err);
            if (rc == 0 && s.entries == ref.entries && s.states == ref.states && s.index_gaps == 0 &&
                s.last_index == ref.last_index && s.end_offset == ref.end_offset &&
                s.metadatas == ref.metadatas && s.snapshots == ref.snapshots && s.crcs == ref.crcs)
                undetected++, printf("undetected flip: byte %zu bit %d\n", i, bit);
            seg[i] ^= (unsigned char)(1u << bit);
        }
    assert_int_equal(undetected, 0);

    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 3000; round++) {
        unsigned char noise[512];
        size_t nl = (size_t)(round % 512);
        for (size_t i = 0; i < nl; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            noise[i] = (unsigned char)x;
        }
        if (round % 3 == 0 && nl >= 16) /* plausible-looking length fields now and then */
            memcpy(noise, seg, 16);
        waldec_init(&s);
        (void)waldec_segment(&s, noise, nl, err, sizeof err);
        /* mutate the valid segment in a few random places */
        memcpy(noise, seg, nl);
        for (int k = 0; k < 3 && nl; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            noise[x % nl] = (unsigned char)(x >> 32);
        }
        waldec_init(&s);
        (void)waldec_segment(&s, noise, nl, err, sizeof err);
    }
}

static void test_names(void **state)
{
    (void)state;
    uint64_t a, b;
    assert_int_equal(waldec_parse_name("000000000000000a-00000000000020f0.wal", &a, &b), 0);
    assert_int_equal(a, 10);
    assert_int_equal(b, 0x20f0);
    assert_int_equal(waldec_parse_name("000000000000000A-00000000000020f0.wal", &a, &b), -1);
    assert_int_equal(waldec_parse_name("0.tmp", &a, &b), -1);
    assert_int_equal(waldec_parse_name("000000000000000a-00000000000020f0.wal.broken", &a, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vectors),
        cmocka_unit_test(test_crc32c_hw_equals_table),
        cmocka_unit_test(test_crc32c_chaining),
        cmocka_unit_test(test_frame_padding),
        cmocka_unit_test(test_reencode_real_frames),
        cmocka_unit_test(test_decode_real_segments),
        cmocka_unit_test(test_detects_damage),
        cmocka_unit_test(test_bit_flips_and_noise),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
