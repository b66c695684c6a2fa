/* SPDX-License-Identifier: MIT */
/* waldump.c — test helper: decodes etcd WAL segments with the engine's decoder (engine/waldec.c) and checks
 * what only a whole run can show: segment sequence numbers follow each other, each segment's name carries
 * the index after the last entry of the previous one, and the CRC chain runs unbroken across them.
 * Usage: waldump [-v] DIR | FILE...   Prints one line per segment (-v: per frame too) and a summary;
 * exit 0 valid, 1 invalid, 2 usage or read error. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "waldec.h"

static void print_frame(void *arg, const waldec_frame *f)
{
    (void)arg;
    static const char *names[] = {"?", "metadata", "entry", "state", "crc", "snapshot"};
    printf("  @%-9" PRIu64 " %-8s len=%-6" PRIu64 " pad=%u crc=0x%08" PRIx32, f->offset,
           f->type <= 5 ? names[f->type] : "?", f->rec_len, f->pad, f->crc);
    if (f->type == 2)
        printf(" term=%" PRIu64 " index=%" PRIu64 " data=%zu", f->v[2], f->v[3], f->data_len);
    else if (f->type == 3)
        printf(" term=%" PRIu64 " vote=%" PRIx64 " commit=%" PRIu64, f->v[1], f->v[2], f->v[3]);
    else if (f->type == 5)
        printf(" index=%" PRIu64 " term=%" PRIu64, f->v[1], f->v[2]);
    putchar('\n');
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && !strcmp(argv[1], "-v");
    if (verbose) {
        argv++;
        argc--;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: waldump [-v] DIR | FILE...\n");
        return 2;
    }
    char **paths = NULL;
    size_t np = 0;
    int owned = 0; /* paths[i] were allocated (directory listing) */
    struct stat st;
    if (argc == 2 && stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(argv[1]);
        if (!d) {
            fprintf(stderr, "waldump: %s: %s\n", argv[1], strerror(errno));
            return 2;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 4, ".wal"))
                continue;
            paths = realloc(paths, (np + 1) * sizeof *paths);
            size_t pl = strlen(argv[1]) + l + 2;
            paths[np] = malloc(pl);
            snprintf(paths[np], pl, "%s/%s", argv[1], e->d_name);
            np++;
        }
        closedir(d);
        owned = 1;
        qsort(paths, np, sizeof *paths, cmp);
    } else {
        paths = calloc((size_t)argc, sizeof *paths);
        for (int i = 1; i < argc; i++)
            paths[np++] = argv[i];
    }
    if (!np) {
        fprintf(stderr, "waldump: %s: no .wal files\n", argv[1]);
        free(paths);
        return 2;
    }
    waldec_state s;
    waldec_init(&s);
    if (verbose)
        s.on_frame = print_frame;
    int rc = 0, have_prev = 0;
    uint64_t prev_seq = 0;
    for (size_t i = 0; i < np && !rc; i++) {
        size_t len = 0;
        unsigned char *buf = slurp(paths[i], &len);
        if (!buf) {
            fprintf(stderr, "waldump: %s: %s\n", paths[i], strerror(errno ? errno : EIO));
            return 2;
        }
        const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
        uint64_t seq, idx;
        if (waldec_parse_name(base, &seq, &idx) == 0) {
            if (have_prev && seq != prev_seq + 1) {
                printf("%s: sequence %" PRIu64 " does not follow %" PRIu64 "\n", paths[i], seq, prev_seq);
                rc = 1;
            } else if (s.segments && s.have_index && idx != s.last_index + 1) {
                printf("%s: name says first index %" PRIu64 " but the previous segment ended at %" PRIu64 "\n",
                       paths[i], idx, s.last_index);
                rc = 1;
            }
            have_prev = 1;
            prev_seq = seq;
        }
        char err[256];
        uint64_t frames0 = s.frames;
        if (verbose)
            printf("== %s\n", base);
        if (!rc && waldec_segment(&s, buf, len, err, sizeof err) != 0) {
            printf("%s: %s\n", paths[i], err);
            rc = 1;
        }
        if (!rc)
            printf("segment %s size=%zu end=%" PRIu64 " frames=%" PRIu64 " crc=0x%08" PRIx32 "\n", base, len,
                   s.end_offset, s.frames - frames0, s.crc);
        free(buf);
    }
    printf("%s segments=%" PRIu64 " frames=%" PRIu64 " entries=%" PRIu64 " states=%" PRIu64 " crcs=%" PRIu64
           " metadata=%" PRIu64 " snapshots=%" PRIu64 " entry_bytes=%" PRIu64 " last_index=%" PRIu64
           " index_gaps=%" PRIu64 " crc=0x%08" PRIx32 "\n",
           rc ? "INVALID" : "OK", s.segments, s.frames, s.entries, s.states, s.crcs, s.metadatas, s.snapshots,
           s.entry_data_bytes, s.last_index, s.index_gaps, s.crc);
    for (size_t i = 0; owned && i < np; i++)
        free(paths[i]);
    free(paths);
    return rc;
}
