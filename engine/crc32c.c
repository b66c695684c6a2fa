/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.c — CRC-32C of every WAL record. The SSE4.2 crc32 instruction where the CPU has it (as Go's
 * hash/crc32, and so etcd, uses): the table walk cost ~8,000 instructions per 2300-byte entry, more than
 * the rest of the engine's work per I/O together (bench/overhead.sh). From 256 bytes on, AVX-512
 * carry-less folding where the CPU has it (below). Slicing-by-8 tables elsewhere. */
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
#include <pthread.h>
#include <stdatomic.h>

/* The crc32 instruction has a latency of 3 cycles and a throughput of 1: one dependent chain over a
 * 2300-byte entry waits ~860 cycles. Go's hash/crc32 (castagnoliSSE42Triple, so etcd's own encoder) runs
 * three chains over three consecutive blocks of K bytes and joins them: crc(A‖B) = shift_K(crc(A)) ⊕
 * crc(B), where shift_K (K zero bytes through the raw CRC register) is linear, so 4 table lookups of one
 * byte each. Block sizes as Go's: K1 = 168 and K2 = 1344 bytes. */
#define CRC_K1 168u
#define CRC_K2 1344u

static uint32_t shift_k1[4][256], shift_k2[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static uint32_t zeros_raw(uint32_t c, size_t n)
{
    uint64_t r = c;
    for (size_t i = 0; i < n / 8; i++)
        r = __builtin_ia32_crc32di(r, 0);
    return (uint32_t)r;
}

static void shift_init(void)
{
    for (unsigned b = 0; b < 4; b++)
        for (unsigned v = 0; v < 256; v++) {
            shift_k1[b][v] = zeros_raw(v << (8 * b), CRC_K1);
            shift_k2[b][v] = zeros_raw(v << (8 * b), CRC_K2);
        }
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t c)
{
    return t[0][c & 0xffu] ^ t[1][(c >> 8) & 0xffu] ^ t[2][(c >> 16) & 0xffu] ^ t[3][c >> 24];
}

/* Three chains over p[0,K), p[K,2K), p[2K,3K) from register c, joined; returns the raw register. */
__attribute__((target("sse4.2"))) static inline uint64_t triple(uint64_t c, const unsigned char *p, size_t k,
                                                                const uint32_t t[4][256])
{
    uint64_t a = c, b = 0, d = 0;
    for (size_t i = 0; i < k; i += 8) {
        uint64_t x, y, z;
        memcpy(&x, p + i, 8);
        memcpy(&y, p + k + i, 8);
        memcpy(&z, p + 2 * k + i, 8);
        a = __builtin_ia32_crc32di(a, x);
        b = __builtin_ia32_crc32di(b, y);
        d = __builtin_ia32_crc32di(d, z);
    }
    uint32_t r = shift(t, (uint32_t)a) ^ (uint32_t)b;
    return shift(t, r) ^ (uint32_t)d;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    while (len && ((uintptr_t)p & 7u)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    if (len >= 3 * CRC_K1) {
        pthread_once(&shift_once, shift_init);
        for (; len >= 3 * CRC_K2; p += 3 * CRC_K2, len -= 3 * CRC_K2)
            c = triple(c, p, CRC_K2, (const uint32_t (*)[256])shift_k2);
        for (; len >= 3 * CRC_K1; p += 3 * CRC_K1, len -= 3 * CRC_K1)
            c = triple(c, p, CRC_K1, (const uint32_t (*)[256])shift_k1);
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

/* ---- AVX-512 carry-less multiply folding (the CRC of a 2300-byte entry: ~170 ns above, ~40 here) ----
 *
 * Three crc32 chains take 8 bytes a cycle at best; vpclmulqdq multiplies four 128-bit lanes at once, so
 * folding the data with it (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", 2009;
 * the way zlib-ng and Linux compute CRCs) takes 32. Same CRC, bit for bit: only how it is computed.
 *
 * Bit-reflected arithmetic: a 16-byte block X of the message is X(x) = lo(x)·x^64 + hi(x) (lo = its
 * first 8 bytes, the higher powers), d bytes before the end of the part folded so far it weighs
 * X(x)·x^(8d). clmul of two reflected 64-bit words gives x·a(x)·b(x) as a reflected 128-bit word, so
 * Y = clmul(lo, kA) ^ clmul(hi, kB) with kA = x^(8d+63) mod P and kB = x^(8d-1) mod P is a 16-byte block
 * that, d bytes later, has the same remainder: folding moves the data forward without changing the CRC.
 * The last 16-byte block is then run through the crc32 instruction like any message bytes. */
#define CRC_POLY_REFLECTED 0x82f63b78u

/* x^n mod P as a reflected 32-bit register (x^0 is bit 31), placed in the high half of a 64-bit word as
 * clmul wants it (x^m at bit 63 - m). */
static uint64_t xpow_word(unsigned n)
{
    uint32_t r = 0x80000000u;
    while (n--)
        r = (r >> 1) ^ ((r & 1u) ? CRC_POLY_REFLECTED : 0u);
    return (uint64_t)r << 32;
}

/* kA, kB for folding distances of 16, 32, 48, 64, 128, 192 and 256 bytes */
enum { F16, F32, F48, F64, F128, F192, F256, NFOLD };
static const unsigned fold_dist[NFOLD] = {16, 32, 48, 64, 128, 192, 256};
static uint64_t fold_k[NFOLD][2];
/* 0 not known yet, 1 no, 2 the CPU has what crc32c_fold needs (valgrind's emulated CPU does not: it then
 * runs and counts the SSE4.2 path); set once, after the constants */
static atomic_int fold_state;
static pthread_once_t fold_once = PTHREAD_ONCE_INIT;

static void fold_init(void)
{
    for (unsigned i = 0; i < NFOLD; i++) {
        fold_k[i][0] = xpow_word(8 * fold_dist[i] + 63);
        fold_k[i][1] = xpow_word(8 * fold_dist[i] - 1);
    }
    int ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("vpclmulqdq") &&
             __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
    atomic_store_explicit(&fold_state, ok ? 2 : 1, memory_order_release);
}

#define CRC_FOLD_MIN 256u

#if (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9) || (defined(__clang__) && __clang_major__ >= 8)
#include <immintrin.h>
#define CRC_HAVE_VPCLMUL 1
#define VPCL_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,vpclmulqdq,pclmul,sse4.2")))

VPCL_TARGET static inline __m512i fold512(__m512i x, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11));
}

VPCL_TARGET static inline __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

VPCL_TARGET static inline __m512i kvec(unsigned f)
{
    return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)fold_k[f][1], (long long)fold_k[f][0]));
}

VPCL_TARGET static inline __m128i kvec128(unsigned f)
{
    return _mm_set_epi64x((long long)fold_k[f][1], (long long)fold_k[f][0]);
}

/* len >= CRC_FOLD_MIN; c is the raw register (inverted CRC) */
VPCL_TARGET static uint32_t crc32c_fold(uint32_t c, const unsigned char *p, size_t len)
{
    /* the register is the first 4 message bytes' xor (reflected CRC with zero start) */
    __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_castsi128_si512(_mm_cvtsi32_si128((int)c)));
    __m512i x1 = _mm512_loadu_si512(p + 64), x2 = _mm512_loadu_si512(p + 128), x3 = _mm512_loadu_si512(p + 192);
    p += 256;
    len -= 256;
    if (len >= 256) {
        const __m512i k = kvec(F256);
        do { /* four independent chains: each fold's latency is hidden behind the other three */
            x0 = _mm512_xor_si512(fold512(x0, k), _mm512_loadu_si512(p));
            x1 = _mm512_xor_si512(fold512(x1, k), _mm512_loadu_si512(p + 64));
            x2 = _mm512_xor_si512(fold512(x2, k), _mm512_loadu_si512(p + 128));
            x3 = _mm512_xor_si512(fold512(x3, k), _mm512_loadu_si512(p + 192));
            p += 256;
            len -= 256;
        } while (len >= 256);
    }
    __m512i a = _mm512_xor_si512(_mm512_xor_si512(fold512(x0, kvec(F192)), fold512(x1, kvec(F128))),
                                 _mm512_xor_si512(fold512(x2, kvec(F64)), x3));
    for (; len >= 64; p += 64, len -= 64)
        a = _mm512_xor_si512(fold512(a, kvec(F64)), _mm512_loadu_si512(p));
    __m128i y = _mm_xor_si128(_mm_xor_si128(fold128(_mm512_extracti32x4_epi32(a, 0), kvec128(F48)),
                                            fold128(_mm512_extracti32x4_epi32(a, 1), kvec128(F32))),
                              _mm_xor_si128(fold128(_mm512_extracti32x4_epi32(a, 2), kvec128(F16)),
                                            _mm512_extracti32x4_epi32(a, 3)));
    for (; len >= 16; p += 16, len -= 16)
        y = _mm_xor_si128(fold128(y, kvec128(F16)), _mm_loadu_si128((const __m128i *)p));
    uint64_t r = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(y));
    r = __builtin_ia32_crc32di(r, (uint64_t)_mm_extract_epi64(y, 1));
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        r = __builtin_ia32_crc32di(r, v);
    }
    while (len--)
        r = __builtin_ia32_crc32qi((uint32_t)r, *p++);
    return (uint32_t)r;
}
#endif

/* The SSE4.2 path alone (tests compare it, the folding path and the table walk). */
uint32_t crc32c_update_nofold(uint32_t crc, const void *buf, size_t len)
{
    if (__builtin_cpu_supports("sse4.2"))
        return crc32c_hw(crc, buf, len);
    return crc32c_update_table(crc, buf, len);
}

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
#ifdef CRC_HAVE_VPCLMUL
    if (len >= CRC_FOLD_MIN) {
        int st = atomic_load_explicit(&fold_state, memory_order_acquire);
        if (!st) {
            pthread_once(&fold_once, fold_init);
            st = atomic_load_explicit(&fold_state, memory_order_acquire);
        }
        if (st == 2)
            return ~crc32c_fold(~crc, buf, len);
    }
#endif
    if (__builtin_cpu_supports("sse4.2"))
        return crc32c_hw(crc, buf, len);
    return crc32c_update_table(crc, buf, len);
}
#else
uint32_t crc32c_update_nofold(uint32_t crc, const void *buf, size_t len)
{
    return crc32c_update_table(crc, buf, len);
}

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
    return crc32c_update_table(crc, buf, len);
}
#endif
