/* SPDX-License-Identifier: MIT */
/* profile.c — renders the etcd profile as a fio job file: a WAL job and a bbolt backend job running
 * together on one directory, at the load levels of `etcdctl check perf`. The derivation of every number
 * in the table below is in examples/README.md ("Load levels"); keep the two in step. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/kinds.h"

/* Bytes one put adds to the WAL: the raftpb.Entry holding InternalRaftRequest{Put{key: prefix(20) + 256,
 * value: 1024}} (~1,343 bytes with protobuf tags, lengths, term and index). The engine frames it like
 * etcd (Record, length field, padding), so the io_u carries only the entry bytes. */
#define PROFILE_ENTRY_BYTES 1344u

typedef struct profile_load {
    const char *name;
    unsigned puts_per_s, clients;     /* etcdctl check perf's limit and clients (for the header) */
    const char *wal_bssplit;          /* entries per Save, as multiples of PROFILE_ENTRY_BYTES */
    unsigned saves_per_s;             /* puts/s ÷ mean entries per Save (what the rate works out to) */
    unsigned pages_per_commit;        /* dirty bbolt pages one 100 ms batch of puts produces */
    unsigned append_pct;              /* of those, the share taken from the high-water mark */
} profile_load;

/* Entries per Save: the puts that arrive while one raft Ready (Save with its fdatasync, then apply) is in
 * flight ride in the next one. check perf's limiter releases puts evenly (burst 1): at s one every 6.7 ms
 * and at m one every 1 ms, so on a disk whose Ready takes less than that every Save carries one entry,
 * and on a slower one the Readys follow each other back to back, each with what piled up. The profile
 * writes one entry per Save at the puts' rate: fio paces it, and when a sync takes longer than the gap
 * fio falls behind its rate and issues the next Save at once, which is the same back-to-back sequence of
 * syncs (with smaller writes). Measured in the slow-disk lab (bench/README.md): at a 0.5 ms device etcd
 * made one fsync per put (4,492 puts, 4,492 fsyncs at s; 938 fsyncs/s at m), at 2 ms 338/s at m. From l
 * up, where the CPU work of a Ready batches ~17-31 entries even on a fast disk, 1 + Poisson(puts/s × 2 ms).
 * Backend pages: see bbolt.h / README. */
static const profile_load loads[] = {
    {"s", 150, 50, "1344/100", 150, 12, 67},
    {"m", 1000, 200, "1344/100", 1000, 54, 93},
    {"l", 8000, 500, "17472/25:22848/50:28224/25", 471, 407, 99},
    {"xl", 15000, 1000, "33600/25:41664/50:49728/25", 484, 760, 99},
};

static const struct {
    const char *alias, *name;
} aliases[] = {{"small", "s"}, {"medium", "m"}, {"large", "l"}, {"xLarge", "xl"}, {"xlarge", "xl"}};

static const profile_load *find_load(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias))
            name = aliases[i].name;
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++)
        if (!strcmp(name, loads[i].name))
            return &loads[i];
    return NULL;
}

/* The Kubernetes load (`--load k8s[:NODES]`): the writes a control plane of NODES nodes makes to etcd
 * without any workload changing, each kind at its own period, from Kubernetes' own defaults:
 *  - every node's kubelet renews its Lease (coordination.k8s.io, namespace kube-node-lease) every 10 s
 *    (KEP-589 "Efficient Node Heartbeats", kubernetes/enhancements keps/sig-node/589-efficient-node-heartbeats:
 *    "start updating Lease object every 10s by default"). etcd logs range responses of 474-507 bytes for the
 *    control plane's own Lease objects (etcd's "apply request took too long" lines quoted in k3s-io/k3s#2938,
 *    kubernetes/kubernetes#112622, kubernetes/website#20364, kubernetes-sigs/cluster-api#8106), key and
 *    response header included; a node's Lease also names its Node as owner: 512 bytes of value, under the
 *    key /registry/leases/kube-node-lease/ + a 16-character node name (49 bytes);
 *  - every node's kubelet writes its NodeStatus every 5 min when nothing changed (KEP-589: "reduce frequency
 *    of NodeStatus update to once every 5 minutes"), the whole Node object, "average node object size 20KB
 *    (which happens in production clusters)" (KEP-589): 20,000 bytes under /registry/minions/ + the name.
 * Events and Pods are left out: their rates and sizes depend on the workload, and no public distribution of
 * them was found. kube-apiserver writes through a Txn (compare mod_revision, then put: GuaranteedUpdate); the
 * entry here is a Put, as bench/putload sends, some 30 bytes shorter. */
#define K8S_LEASE_PERIOD_S 10.0
#define K8S_LEASE_KEY_BYTES 49u
#define K8S_LEASE_VAL_BYTES 512u
#define K8S_NODE_PERIOD_S 300.0
#define K8S_NODE_KEY_BYTES 34u
#define K8S_NODE_VAL_BYTES 20000u
#define K8S_SEED 1u

int profile_k8s_nodes(const char *name, unsigned *nodes)
{
    if (!name || strncmp(name, "k8s", 3) || (name[3] && name[3] != ':'))
        return 0;
    if (!name[3]) {
        *nodes = PROFILE_K8S_NODES_DEFAULT;
        return 1;
    }
    const char *d = name + 4;
    char *end;
    if (*d < '0' || *d > '9')
        return -1;
    unsigned long v = strtoul(d, &end, 10);
    if (*end || v < 1 || v > PROFILE_K8S_NODES_MAX)
        return -1;
    *nodes = (unsigned)v;
    return 1;
}

void profile_k8s_kinds(unsigned nodes, char *out, size_t n)
{
    snprintf(out, n, "lease:%.6g:%u:%u,node:%.6g:%u:%u", nodes / K8S_LEASE_PERIOD_S, K8S_LEASE_KEY_BYTES,
             K8S_LEASE_VAL_BYTES, nodes / K8S_NODE_PERIOD_S, K8S_NODE_KEY_BYTES, K8S_NODE_VAL_BYTES);
}

/* The k8s load's figures: the mix, puts/s, the io_u size fio counts (the mean entry, so that fio's write
 * bandwidth is the WAL's) and the backend's pages per 100 ms commit. */
typedef struct k8s_load {
    unsigned nodes;
    char kinds_text[128];
    kinds ks;
    double puts_per_s;
    unsigned bs, pages_per_commit, append_pct;
} k8s_load;

static int k8s_load_of(const char *name, k8s_load *k)
{
    memset(k, 0, sizeof *k);
    if (profile_k8s_nodes(name, &k->nodes) != 1)
        return -1;
    char err[128];
    profile_k8s_kinds(k->nodes, k->kinds_text, sizeof k->kinds_text);
    if (kinds_parse(k->kinds_text, &k->ks, err, sizeof err))
        return -1;
    k->puts_per_s = kinds_rate(&k->ks);
    k->bs = (unsigned)(kinds_mean_entry_bytes(&k->ks) + 0.5);
    k->pages_per_commit = kinds_commit_pages(&k->ks, 0.1);
    /* as the closed-loop load stages them (engine/loadrun.c): new leaves at the high-water mark, the
     * rightmost leaf, the branch path and the root leaf (3 + 1) reused */
    k->append_pct = k->pages_per_commit > 4 ? (k->pages_per_commit - 4) * 100 / k->pages_per_commit : 0;
    return 0;
}

int profile_load_valid(const char *name)
{
    unsigned n;
    return find_load(name) != NULL || profile_k8s_nodes(name, &n) == 1;
}

unsigned long long profile_first_fill(const char *load, unsigned long long segment_bytes)
{
    const profile_load *l = find_load(load);
    k8s_load k;
    unsigned long long seg = segment_bytes ? segment_bytes : 64000000ull;
    unsigned long long room = seg;
    if (l)
        room = (unsigned long long)l->puts_per_s * PROFILE_ENTRY_BYTES * PROFILE_ROLLOVER_AFTER_S;
    else if (!k8s_load_of(load, &k))
        room = (unsigned long long)(k.puts_per_s * k.bs * PROFILE_ROLLOVER_AFTER_S);
    return seg > room ? seg - room : 0;
}

double profile_mb_per_s(const char *load)
{
    k8s_load k;
    if (!k8s_load_of(load, &k)) /* WAL entries and the backend's pages, 10 commits a second */
        return (k.puts_per_s * k.bs + 10.0 * k.pages_per_commit * 4096) / 1048576.0 + 0.5;
    return !strcmp(load, "xl") ? 55 : !strcmp(load, "l") ? 30 : !strcmp(load, "m") ? 4 : 1;
}

double profile_saves_per_s(const char *load)
{
    k8s_load k;
    if (!k8s_load_of(load, &k)) /* one put per Save */
        return k.puts_per_s;
    const profile_load *l = find_load(load ? load : "s");
    return l ? l->saves_per_s : 150;
}

double profile_min_runtime(const char *load, uint64_t n, double start_s, int wal_only, char *why, size_t whylen)
{
    double saves = profile_saves_per_s(load);
    double wal = ceil((double)n / (saves > 0 ? saves : 1));
    double backend = wal_only ? 0 : ceil((double)n / PROFILE_BACKEND_COMMITS_PER_S);
    if (why && whylen) {
        if (wal > backend)
            snprintf(why, whylen, "the WAL syncs about %.3g times a second under --load %s", saves, load ? load : "s");
        else
            snprintf(why, whylen, "the backend commits %.0f times a second", PROFILE_BACKEND_COMMITS_PER_S);
    }
    return (wal > backend ? wal : backend) + start_s;
}

/* A value fio would misread: control characters would end the line (a second option could be smuggled
 * in), and fio strips leading/trailing blanks. */
int profile_value_bad(const char *v)
{
    if (!v || !*v)
        return 1;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    size_t n = strlen(v);
    return v[0] == ' ' || v[n - 1] == ' ';
}

void profile_put_dir(FILE *out, const char *dir)
{
    fputs("directory=", out);
    for (const char *p = dir; *p; p++) {
        if (*p == ':')
            fputc('\\', out);
        fputc(*p, out);
    }
    fputc('\n', out);
}

/* The load's figures; NULL with err for a load that does not exist or a value fio would misread. */
static const profile_load *profile_check(const profile_opts *o, k8s_load *k, char *err, size_t errlen)
{
    static const profile_load k8s = {"k8s", 0, 0, NULL, 0, 0, 0};
    const profile_load *l = find_load(o ? o->load : NULL);
    if (o && !l && !k8s_load_of(o->load, k))
        l = &k8s;
    if (!o || !l) {
        snprintf(err, errlen, "unknown load level '%s' (%s)", o && o->load ? o->load : "", PROFILE_LOADS_EXPECTED);
        return NULL;
    }
    if (profile_value_bad(o->dir)) {
        snprintf(err, errlen, "directory must be a non-empty path without control characters or edge blanks");
        return NULL;
    }
    if (profile_value_bad(o->engine_path)) {
        snprintf(err, errlen, "engine path must be a non-empty path without control characters or edge blanks");
        return NULL;
    }
    if ((o->wal_stats_file && profile_value_bad(o->wal_stats_file)) ||
        (o->backend_stats_file && profile_value_bad(o->backend_stats_file))) {
        snprintf(err, errlen, "stats file paths must not be empty or contain control characters");
        return NULL;
    }
    return l;
}

/* The header comment and the [global] section. */
static void write_global(FILE *out, const profile_opts *o, const profile_load *l, const k8s_load *k)
{
    unsigned runtime = o->runtime_s ? o->runtime_s : 60; /* etcdctl check perf runs 60 s */
    if (k)
        fprintf(out, "; etcd profile, load k8s:%u: a Kubernetes control plane of %u nodes, the writes etcd gets\n"
                     "; with no workload changing: each node's Lease renewed every 10 s (%u-byte values) and its\n"
                     "; Node status every 5 min (%u bytes), KEP-589; %.4g puts/s. Written by `etcd-fio job`;\n"
                     "; man etcdwal(7) gives the sources. Run: fio THIS_FILE --output-format=json\n",
                k->nodes, k->nodes, K8S_LEASE_VAL_BYTES, K8S_NODE_VAL_BYTES, k->puts_per_s);
    else
        fprintf(out, "; etcd profile, load %s: like `etcdctl check perf --load=%s` (%u puts/s from %u clients,\n"
                     "; 256-byte keys, 1024-byte values). Written by `etcd-fio job`; examples/README.md derives\n"
                     "; each number. Run: fio THIS_FILE --output-format=json\n",
                l->name, l->name, l->puts_per_s, l->clients);
    if (o->heavy)
        fputs("; HEAVIER THAN ETCD (etcd-fio check's phase 1): the WAL is not rate-limited and the backend\n"
              "; commits back to back, with etcd's batches and pages; a disk whose p99s pass this passes etcd's.\n",
              out);
    fputs("[global]\n", out);
    profile_put_dir(out, o->dir);
    fprintf(out, "time_based=1\nruntime=%u\n", runtime);
    /* fio wants a size; the engine ignores fio's offsets and writes its own files, so this only bounds
     * fio's bookkeeping before it wraps (time_based keeps going). */
    fputs("size=1g\n", out);
}

/* The [etcd-wal] job: etcd's Saves (entries appended, then fdatasync). */
/* The k8s load's WAL lines: each write io_u is one put of a kind the engine draws (etcd_kinds=), one Save
 * each; fio paces the puts by bytes at the mix's rate. */
static void write_wal_k8s(FILE *out, const profile_opts *o, const k8s_load *k)
{
    fprintf(out, "etcd_kinds=%s\netcd_seed=%u\n", k->kinds_text, K8S_SEED);
    fputs("rw=write\n", out);
    fprintf(out, "bs=%u\n", k->bs);
    fputs("fdatasync=1\n", out);
    if (o->heavy) {
        fprintf(out, "; no rate=: Saves back to back (etcd: %.4g puts/s, one put per Save)\n", k->puts_per_s);
    } else {
        fprintf(out, "; %.4g puts/s of %u bytes on average, one put per Save\n", k->puts_per_s, k->bs);
        fprintf(out, "rate=%llu\n", (unsigned long long)(k->puts_per_s * k->bs + 0.5));
    }
}

static void write_wal_job(FILE *out, const profile_opts *o, const profile_load *l, const k8s_load *k)
{
    fputs("\n[etcd-wal]\n", out);
    /* engine options follow ioengine= in the job section itself, so fio's JSON "job options" of each job
     * carry etcd_mode (the verdict reads it there) */
    fprintf(out, "ioengine=external:%s\n", o->engine_path);
    fputs("etcd_mode=wal\n", out);
    if (o->segment_bytes)
        fprintf(out, "etcd_segment_bytes=%llu\n", o->segment_bytes);
    /* segment 0 starts PROFILE_ROLLOVER_AFTER_S seconds of WAL bytes short of its end, like a long-running
     * etcd's last segment (engine/README.md): every run crosses a rollover at the full segment size */
    unsigned long long fill = profile_first_fill(o->load, o->segment_bytes);
    if (fill)
        fprintf(out, "etcd_first_segment_fill=%llu\n", fill);
    if (o->wal_stats_file)
        fprintf(out, "etcd_stats_file=%s\n", o->wal_stats_file);
    if (k) {
        write_wal_k8s(out, o, k);
        if (o->ionice)
            fputs("prioclass=2\nprio=0\n", out);
        return;
    }
    fputs("rw=write\n", out);
    fprintf(out, "bssplit=%s\n", l->wal_bssplit);
    /* without it fio rounds every size down to a multiple of the smallest one (io_u.c get_next_buflen),
     * so at l and xl every Save would carry the smallest batch */
    fputs("bs_unaligned=1\n", out);
    fputs("fdatasync=1\n", out);
    /* The WAL's byte rate: puts/s × entry bytes. fio paces linearly by bytes (rate_iops too is turned
     * into bytes with the smallest block size), so a Save of 3 entries is followed by 3 entries' worth
     * of waiting: the puts arrive steadily and each Save carries what accumulated, ~saves_per_s a
     * second. Not rate_process=poisson: fio 3.33 (and every release before axboe/fio#2028, Dec 2025)
     * indexes its per-direction rate arrays with the sync direction after each fdatasync, which with
     * poisson reads past them and divides by zero (SIGFPE, seen here at --load=m). */
    if (o->heavy) {
        fprintf(out, "; no rate=: Saves back to back (etcd: %u puts/s x %u bytes, about %u Saves/s)\n",
                l->puts_per_s, PROFILE_ENTRY_BYTES, l->saves_per_s);
    } else {
        fprintf(out, "; %u puts/s x %u bytes; about %u Saves/s (fewer when a sync takes longer: then back to back)\n",
                l->puts_per_s, PROFILE_ENTRY_BYTES, l->saves_per_s);
        fprintf(out, "rate=%llu\n", (unsigned long long)l->puts_per_s * PROFILE_ENTRY_BYTES);
    }
    if (o->ionice)
        fputs("prioclass=2\nprio=0\n", out);
}

/* The [etcd-backend] job: bbolt's commits (pages written, then fdatasync) every 100 ms. */
static void write_backend_job(FILE *out, const profile_opts *o, const profile_load *l, const k8s_load *k)
{
    unsigned pages = k ? k->pages_per_commit : l->pages_per_commit;
    fputs("\n[etcd-backend]\n", out);
    fprintf(out, "ioengine=external:%s\n", o->engine_path);
    fputs("etcd_mode=backend\n", out);
    fprintf(out, "etcd_backend_append_pct=%u\n", k ? k->append_pct : l->append_pct);
    if (o->backend_stats_file)
        fprintf(out, "etcd_stats_file=%s\n", o->backend_stats_file);
    fputs("rw=write\nbs=4096\n", out);
    fprintf(out, "fdatasync=%u\n", pages);
    /* fio sleeps after the batch's last page and before its commit, so one cycle is 100 ms + the
     * commit, like etcd's backend timer that is reset after each commit; the heavy profile commits
     * back to back (its batches fill as if etcd's puts arrived without end) */
    if (o->heavy)
        fputs("; no thinktime: commits back to back (etcd: every 100 ms)\n", out);
    else
        fprintf(out, "thinktime=100000\nthinktime_blocks=%u\n", pages);
}

int profile_write(FILE *out, const profile_opts *o, char *err, size_t errlen)
{
    k8s_load kl;
    const profile_load *l = profile_check(o, &kl, err, errlen);
    if (!l)
        return -1;
    const k8s_load *k = l->wal_bssplit ? NULL : &kl;
    write_global(out, o, l, k);
    write_wal_job(out, o, l, k);
    if (!o->wal_only)
        write_backend_job(out, o, l, k);
    if (ferror(out)) {
        snprintf(err, errlen, "write error while printing the job file");
        return -1;
    }
    return 0;
}
