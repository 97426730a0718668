/* cpu sort: LSD radix sort, 8-bit digits.
 *
 * Keys are never rewritten: the radix key of an element is computed when it
 * is needed (integers: sign bit flipped for signed types; floats: sign bit
 * flipped for positives, all bits for negatives, every NaN mapped to the
 * largest key; descending order: all bits flipped). So NaN payloads survive
 * and no pass is spent transforming keys.
 *
 * PP_ALGO_AUTO: one sweep counts all digits of all keys (per thread); digit
 * positions where every key has the same digit are skipped. Each remaining
 * pass: each thread counts the digit over its part of the array (the first
 * pass reuses the sweep's counts), offsets come from a scan over (digit,
 * thread), and each thread scatters its part in order, so every pass is
 * stable. Integer keys of 8 bits without values are counted and rewritten
 * (counting sort), with no scratch array.
 * PP_ALGO_SEQUENTIAL: the same passes on one thread.
 */
#include "cpu_internal.h"

#include <omp.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define RADIX 256

/* Radix key per kind: order-preserving map to unsigned. */
#define DEF_KEY_SINT(T, S, U) \
    static inline U rkey_##S(T x) { U u; memcpy(&u, &x, sizeof u); return (U)(u ^ ((U)1 << (8 * sizeof(U) - 1))); }
#define DEF_KEY_UINT(T, S, U) \
    static inline U rkey_##S(T x) { return (U)x; }
#define DEF_KEY_FLOAT(T, S, U)                                                             \
    static inline U rkey_##S(T x)                                                          \
    {                                                                                      \
        const U sign = (U)1 << (8 * sizeof(U) - 1);                                        \
        U u;                                                                               \
        memcpy(&u, &x, sizeof u);                                                          \
        if (x != x) return (U) ~(U)0;                                                      \
        return (u & sign) ? (U)~u : (U)(u | sign);                                         \
    }

/* One LSD pass over the thread's part [b, e): scatter by the digit at
 * shift. Elements are gathered per digit in a buffer of one cache line
 * (wc: RADIX lines of keys, then the values' lines), indexed by destination
 * position, and written a whole line at a time: with streaming stores where
 * the destination is line-aligned (no read for ownership of lines that are
 * about to be overwritten), with memcpy for the partial lines at the edges
 * of the thread's range of each digit. */
#define WC_LINE 64
#define WC_BYTES(ksize) ((size_t)RADIX * (WC_LINE + (WC_LINE / (ksize)) * 8))

/* Copies one 64-byte line from an aligned buffer to aligned memory. */
static inline void pp_line_store(void *dst, const void *src, int stream)
{
#if defined(__SSE2__)
    if (stream) {
        const __m128i *s = (const __m128i *)src;
        __m128i *d = (__m128i *)dst;
        _mm_stream_si128(d, _mm_load_si128(s));
        _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
        _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
        _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
        return;
    }
#endif
    (void)stream;
    memcpy(dst, src, WC_LINE);
}

static inline void pp_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#define DEF_SCATTER(S, T, U, V, VN, HASV)                                                  \
    static void scatter_##S##_##VN(const T *restrict ks, T *restrict kd, const V *restrict vs, \
                                   V *restrict vd, size_t b, size_t e, unsigned shift,     \
                                   U mask, const size_t *restrict off, void *wc)           \
    {                                                                                      \
        enum { B = WC_LINE / sizeof(T) };                                                  \
        T(*kb)[B] = (T(*)[B])wc;                                                           \
        V(*vb)[B] = (V(*)[B])((char *)wc + RADIX * sizeof *kb);                            \
        const int stream = ((uintptr_t)kd % 16) == 0; /* lines: 64 bytes from kd */       \
        size_t cur[RADIX];                                                                 \
        memcpy(cur, off, sizeof cur);                                                      \
        for (size_t i = b; i < e; i++) {                                                   \
            T x = ks[i];                                                                   \
            size_t d = (size_t)(((U)(rkey_##S(x) ^ mask) >> shift) & (RADIX - 1));        \
            size_t c = cur[d]++;                                                           \
            kb[d][c % B] = x;                                                              \
            if (HASV) vb[d][c % B] = vs[i];                                                \
            if ((c + 1) % B == 0) {                                                        \
                size_t ls = c + 1 - B; /* start of the completed line */                   \
                if (ls >= off[d]) {                                                        \
                    pp_line_store(kd + ls, kb[d], stream);                                 \
                    if (HASV) memcpy(vd + ls, vb[d], sizeof vb[d]);                        \
                } else {                                                                   \
                    size_t s0 = off[d] - ls;                                               \
                    memcpy(kd + off[d], kb[d] + s0, (B - s0) * sizeof(T));                 \
                    if (HASV) memcpy(vd + off[d], vb[d] + s0, (B - s0) * sizeof(V));       \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
        for (size_t d = 0; d < RADIX; d++) {                                               \
            size_t c = cur[d], ls = c - c % B;                                             \
            if (c % B == 0) continue;                                                      \
            size_t s0 = ls < off[d] ? off[d] - ls : 0;                                     \
            memcpy(kd + ls + s0, kb[d] + s0, (c - ls - s0) * sizeof(T));                   \
            if (HASV) memcpy(vd + ls + s0, vb[d] + s0, (c - ls - s0) * sizeof(V));         \
        }                                                                                  \
        pp_stream_fence();                                                                 \
    }

#define DEF_SORT(E, T, S, K, U, W)                                                                  \
    DEF_SCATTER(S, T, U, uint8_t, v0, 0)                                                            \
    DEF_SCATTER(S, T, U, uint8_t, v1, 1)                                                            \
    DEF_SCATTER(S, T, U, uint16_t, v2, 1)                                                           \
    DEF_SCATTER(S, T, U, uint32_t, v4, 1)                                                           \
    DEF_SCATTER(S, T, U, uint64_t, v8, 1)                                                           \
                                                                                                    \
    static void scatter_##S(const T *ks, T *kd, const void *vs, void *vd, size_t vsize, size_t b,   \
                            size_t e, unsigned shift, U mask, const size_t *off, void *wc)                \
    {                                                                                               \
        switch (vs ? vsize : 0) {                                                                   \
        case 0: scatter_##S##_v0(ks, kd, NULL, NULL, b, e, shift, mask, off, wc); break;            \
        case 1: scatter_##S##_v1(ks, kd, (const uint8_t *)vs, (uint8_t *)vd, b, e, shift, mask, off, wc); break; \
        case 2: scatter_##S##_v2(ks, kd, (const uint16_t *)vs, (uint16_t *)vd, b, e, shift, mask, off, wc); break; \
        case 4: scatter_##S##_v4(ks, kd, (const uint32_t *)vs, (uint32_t *)vd, b, e, shift, mask, off, wc); break; \
        default: scatter_##S##_v8(ks, kd, (const uint64_t *)vs, (uint64_t *)vd, b, e, shift, mask, off, wc); break; \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    static void count_digits_##S(const T *k, size_t b, size_t e, U mask, unsigned npass,            \
                                 size_t *h /* npass x RADIX */)                                     \
    {                                                                                               \
        memset(h, 0, (size_t)npass * RADIX * sizeof *h);                                            \
        for (size_t i = b; i < e; i++) {                                                            \
            U key = (U)(rkey_##S(k[i]) ^ mask);                                                     \
            for (unsigned p = 0; p < npass; p++) h[p * RADIX + ((key >> (8 * p)) & (RADIX - 1))]++; \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    /* Keys of 8 bits without values: count, then rewrite the runs.          \
     * h: nt x RADIX counts, then RADIX run starts. */                                              \
    static void counting_sort_##S(T *keys, size_t n, U mask, int nt, size_t *h)                     \
    {                                                                                               \
        size_t *start = h + (size_t)nt * RADIX;                                                     \
        _Pragma("omp parallel num_threads(nt)")                                                     \
        {                                                                                           \
            size_t t = (size_t)omp_get_thread_num(), b, e;                                          \
            pp_cpu_part(n, (size_t)nt, t, &b, &e);                                                  \
            count_digits_##S(keys, b, e, mask, 1, h + t * RADIX);                                   \
            _Pragma("omp barrier")                                                                  \
            _Pragma("omp single")                                                                   \
            {                                                                                       \
                size_t run = 0;                                                                     \
                for (size_t d = 0; d < RADIX; d++) {                                                \
                    start[d] = run;                                                                 \
                    for (size_t u = 0; u < (size_t)nt; u++) run += h[u * RADIX + d];               \
                }                                                                                   \
            }                                                                                       \
            _Pragma("omp for schedule(dynamic, 16)")                                                \
            for (size_t v = 0; v < RADIX; v++) {                                                    \
                U bits = (U)v;                                                                      \
                T x;                                                                                \
                memcpy(&x, &bits, sizeof x);                                                        \
                size_t d = (size_t)(U)(rkey_##S(x) ^ mask);                                         \
                size_t end = d + 1 < RADIX ? start[d + 1] : n;                                      \
                for (size_t i = start[d]; i < end; i++) keys[i] = x;                                \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
                                                                                                    \
    static pp_status sort_##S(pp_context *ctx, void *keys_, void *vals, size_t vsize, size_t n,     \
                              pp_order order)                                                       \
    {                                                                                               \
        T *keys = (T *)keys_;                                                                       \
        const U mask = order == PP_DESCENDING ? (U) ~(U)0 : 0;                                      \
        const unsigned npass = (unsigned)sizeof(T);                                                 \
        int nt = pp_cpu_sequential(ctx, PP_PRIM_SORT) ? 1 : pp_cpu_threads_for(ctx, n, 1 << 16);   \
        if (sizeof(T) == 1 && !vals && K_IS_INT_##K) {                                              \
            size_t *h = (size_t *)pp_cpu_scratch(ctx, ((size_t)nt + 1) * RADIX * sizeof(size_t), "pp_sort"); \
            if (!h) return PP_ERROR_OUT_OF_MEMORY;                                                  \
            counting_sort_##S(keys, n, mask, nt, h);                                                \
            return PP_SUCCESS;                                                                      \
        }                                                                                           \
        /* Scratch: keys, values, all-digit counts and per-pass counts. */                          \
        if (n > (SIZE_MAX / 2) / (sizeof(T) + (vals ? vsize : 0)))                                  \
            return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_sort: n = %zu is too large", n);        \
        size_t kbytes = (n * sizeof(T) + 63) / 64 * 64;                                             \
        size_t vbytes = vals ? (n * vsize + 63) / 64 * 64 : 0;                                      \
        size_t hcount = (size_t)nt * npass * RADIX + (size_t)nt * RADIX + npass;                    \
        size_t hbytes = (hcount * sizeof(size_t) + 63) / 64 * 64;                                   \
        size_t wcbytes = WC_BYTES(sizeof(T));                                                       \
        char *scr = (char *)pp_cpu_scratch(ctx, kbytes + vbytes + hbytes + (size_t)nt * wcbytes,    \
                                           vals ? "pp_sort_pairs" : "pp_sort");                     \
        if (!scr) return PP_ERROR_OUT_OF_MEMORY;                                                    \
        T *tmpk = (T *)scr;                                                                         \
        void *tmpv = vals ? scr + kbytes : NULL;                                                    \
        size_t *hall = (size_t *)(scr + kbytes + vbytes); /* nt x npass x RADIX */                  \
        size_t *hp = hall + (size_t)nt * npass * RADIX;  /* nt x RADIX */                           \
        size_t *skip = hp + (size_t)nt * RADIX;            /* npass flags, shared */                \
        char *wcall = scr + kbytes + vbytes + hbytes;      /* nt x wcbytes */                       \
        _Pragma("omp parallel num_threads(nt)")                                                     \
        {                                                                                           \
            const size_t t = (size_t)omp_get_thread_num();                                          \
            size_t b, e;                                                                            \
            pp_cpu_part(n, (size_t)nt, t, &b, &e);                                                  \
            count_digits_##S(keys, b, e, mask, npass, hall + t * npass * RADIX);                    \
            _Pragma("omp barrier")                                                                  \
            _Pragma("omp single")                                                                   \
            for (unsigned p = 0; p < npass; p++) {                                                  \
                skip[p] = 0;                                                                        \
                for (size_t d = 0; d < RADIX; d++) {                                                \
                    size_t c = 0;                                                                   \
                    for (size_t u = 0; u < (size_t)nt; u++) c += hall[(u * npass + p) * RADIX + d]; \
                    if (c == n) skip[p] = 1;                                                        \
                }                                                                                   \
            }                                                                                       \
            /* (implicit barrier after single) */                                                   \
            const T *src = keys;                                                                    \
            T *dst = tmpk;                                                                          \
            const void *vsrc = vals;                                                                \
            void *vdst = tmpv;                                                                      \
            int first = 1;                                                                          \
            for (unsigned p = 0; p < npass; p++) {                                                  \
                if (skip[p]) continue;                                                              \
                const size_t *cnt; /* counts of this pass, thread u at cnt[u * stride + d] */       \
                size_t stride;                                                                      \
                if (first) {                                                                        \
                    cnt = hall + p * RADIX;                                                         \
                    stride = (size_t)npass * RADIX;                                                 \
                } else {                                                                            \
                    count_digits_##S##_at(src, b, e, mask, 8 * p, hp + t * RADIX);                  \
                    _Pragma("omp barrier")                                                          \
                    cnt = hp;                                                                       \
                    stride = RADIX;                                                                 \
                }                                                                                   \
                size_t off[RADIX], run = 0;                                                         \
                for (size_t d = 0; d < RADIX; d++) {                                                \
                    for (size_t u = 0; u < (size_t)nt; u++) {                                       \
                        if (u == t) off[d] = run;                                                   \
                        run += cnt[u * stride + d];                                                 \
                    }                                                                               \
                }                                                                                   \
                scatter_##S(src, dst, vsrc, vdst, vsize, b, e, 8 * p, mask, off, wcall + t * wcbytes); \
                _Pragma("omp barrier")                                                              \
                const T *ts = src;                                                                  \
                src = dst;                                                                          \
                dst = (T *)ts;                                                                      \
                const void *tv = vsrc;                                                              \
                vsrc = vdst;                                                                        \
                vdst = (void *)tv;                                                                  \
                first = 0;                                                                          \
            }                                                                                       \
            if (src != keys) {                                                                      \
                memcpy(keys + b, src + b, (e - b) * sizeof(T));                                     \
                if (vals) memcpy((char *)vals + b * vsize, (const char *)vsrc + b * vsize, (e - b) * vsize); \
            }                                                                                       \
        }                                                                                           \
        return PP_SUCCESS;                                                                          \
    }

#define K_IS_INT_SINT 1
#define K_IS_INT_UINT 1
#define K_IS_INT_FLOAT 0

/* Radix keys and the digit counts of one pass. */
#define DEF_KEY_AND_COUNT(E, T, S, K, U, W)                                                         \
    DEF_KEY_##K(T, S, U)                                                                            \
    static void count_digits_##S##_at(const T *k, size_t b, size_t e, U mask, unsigned shift,       \
                                      size_t *h)                                                    \
    {                                                                                               \
        memset(h, 0, RADIX * sizeof *h);                                                            \
        for (size_t i = b; i < e; i++) h[((U)(rkey_##S(k[i]) ^ mask) >> shift) & (RADIX - 1)]++;    \
    }
PP_FOR_EACH_TYPE(DEF_KEY_AND_COUNT)
PP_FOR_EACH_TYPE(DEF_SORT)

typedef pp_status (*sort_fn)(pp_context *, void *, void *, size_t, size_t, pp_order);
#define SORT_ENTRY(E, T, S, K, U, W) [E] = sort_##S,
static const sort_fn sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};

pp_status pp_cpu_sort(pp_context *ctx, pp_type type, void *keys, void *values, size_t value_size, size_t n,
                      pp_order order)
{
    return sort_table[type](ctx, keys, values, value_size, n, order);
}
