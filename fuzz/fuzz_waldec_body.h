/* SPDX-License-Identifier: MIT */
/* fuzz_waldec_body.h — the body of the WAL frame decoder harness (engine/waldec.h), shared with the replay
 * test. Besides "no crash, no read outside the buffer", it checks the decoder's contract: 0 or -1, a
 * message on -1, the same answer twice, a valid image stays valid when cut at its end offset, and a chain
 * of two segment images decoded with one state behaves like the segments one after the other.
 * The includer defines FZ_ASSERT and FZ_FN (see fuzz_targets.h). */
#ifndef FUZZ_WALDEC_BODY_H
#define FUZZ_WALDEC_BODY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "waldec.h"

#ifndef FZ_FN
#define FZ_FN static __attribute__((unused))
#endif

FZ_FN int fz_waldec_one(waldec_state *s, const uint8_t *data, size_t size)
{
    char err[256];
    memset(err, 'x', sizeof err);
    err[sizeof err - 1] = '\0';
    err[0] = '\0';
    /* Copy into an exact-size heap block so ASan sees any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    FZ_ASSERT(buf != NULL);
    if (size)
        memcpy(buf, data, size);
    int rc = waldec_segment(s, buf, size, err, sizeof err);
    free(buf);
    FZ_ASSERT(rc == 0 || rc == -1);
    FZ_ASSERT(memchr(err, '\0', sizeof err) != NULL);
    if (rc == -1)
        FZ_ASSERT(err[0] != '\0');
    return rc;
}

FZ_FN void fz_waldec(const uint8_t *data, size_t size)
{
    waldec_state a, b;
    waldec_init(&a);
    waldec_init(&b);
    int ra = fz_waldec_one(&a, data, size);
    int rb = fz_waldec_one(&b, data, size);
    FZ_ASSERT(ra == rb);
    FZ_ASSERT(a.frames == b.frames && a.crc == b.crc && a.end_offset == b.end_offset);
    if (ra == 0) {
        FZ_ASSERT(a.end_offset <= size);
        FZ_ASSERT(a.entries + a.states + a.crcs + a.metadatas + a.snapshots <= a.frames);
        /* The valid log is the bytes up to end_offset; the rest was zeros. */
        waldec_state c;
        waldec_init(&c);
        FZ_ASSERT(fz_waldec_one(&c, data, (size_t)a.end_offset) == 0);
        FZ_ASSERT(c.frames == a.frames && c.crc == a.crc);
    }

    /* Two segments through one state, split at a point chosen by the input. */
    if (size >= 16) {
        size_t cut = ((size_t)data[0] << 8 | data[1]) % size;
        cut &= ~(size_t)7;
        waldec_state s;
        waldec_init(&s);
        if (fz_waldec_one(&s, data, cut) == 0)
            (void)fz_waldec_one(&s, data + cut, size - cut);
    }

    /* Segment names: any bytes, NUL-terminated. */
    char name[48];
    size_t n = size < sizeof name - 1 ? size : sizeof name - 1;
    memcpy(name, data, n);
    name[n] = '\0';
    uint64_t seq = 0, idx = 0;
    if (waldec_parse_name(name, &seq, &idx) == 0) {
        char back[48];
        snprintf(back, sizeof back, "%016llx-%016llx.wal", (unsigned long long)seq, (unsigned long long)idx);
        /* Accepting a name means it is exactly etcd's form (hex case aside). */
        FZ_ASSERT(strcasecmp(back, name) == 0);
    }
}

#endif
