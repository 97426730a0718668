/* cpu sort: LSD radix sort, 8-bit digits.
 *
 * Keys are never rewritten: the radix key of an element is computed when it
 * is needed (integers: sign bit flipped for signed types; floats: sign bit
 * flipped for positives, all bits for negatives, every NaN mapped to the
 * largest key; descending order: all bits flipped). So NaN payloads survive
 * and no pass is spent transforming keys.
 *
 * PP_ALGO_AUTO: one sweep counts all digits of all keys over tiles that
 * threads claim one at a time; digit positions where every key has the
 * same digit are skipped. Each remaining pass is one region: a thread
 * claims a tile of SORT_TILE keys, counts its digits, takes the digit
 * counts of every tile before it from the look-back of cpu_tiles.h (no
 * thread waits for another) and scatters the tile in order from there, so
 * every pass is stable. Integer keys of 8 bits without values are counted
 * and rewritten (counting sort), with no scratch array.
 * PP_ALGO_SEQUENTIAL: the same passes on one thread.
 */
#include "cpu_tiles.h"

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
    /* Keys of 8 bits without values: the keys of digit d are all one value. */                 \
    static void fill_digit_##S(void *keys_, size_t b, size_t e, size_t d, uint64_t mask_)         \
    {                                                                                               \
        T x = 0;                                                                                    \
        for (unsigned v = 0; v < RADIX; v++) { /* the 8-bit key whose radix digit is d */           \
            U ub = (U)v;                                                                            \
            memcpy(&x, &ub, sizeof x);                                                              \
            if ((size_t)(U)(rkey_##S(x) ^ (U)mask_) == d) break;                                    \
        }                                                                                           \
        T *keys = (T *)keys_;                                                                       \
        for (size_t i = b; i < e; i++) keys[i] = x;                                                 \
    }                                                                                               \
    static void count_all_##S(const void *k, size_t b, size_t e, uint64_t mask, unsigned npass,     \
                              size_t *h)                                                            \
    {                                                                                               \
        count_digits_##S((const T *)k, b, e, (U)mask, npass, h);                                    \
    }                                                                                               \
    static void count_at_##S(const void *k, size_t b, size_t e, uint64_t mask, unsigned shift,      \
                             size_t *h)                                                             \
    {                                                                                               \
        count_digits_##S##_at((const T *)k, b, e, (U)mask, shift, h);                               \
    }                                                                                               \
    static void scatter_any_##S(const void *ks, void *kd, const void *vs, void *vd, size_t vsize,   \
                                size_t b, size_t e, unsigned shift, uint64_t mask, const size_t *off, \
                                void *wc)                                                           \
    {                                                                                               \
        scatter_##S((const T *)ks, (T *)kd, vs, vd, vsize, b, e, shift, (U)mask, off, wc);          \
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

typedef struct sort_kernels {
    size_t size;
    int counting; /* 8-bit integer keys: a counting sort when there are no values */
    void (*count_all)(const void *k, size_t b, size_t e, uint64_t mask, unsigned npass, size_t *h);
    void (*count_at)(const void *k, size_t b, size_t e, uint64_t mask, unsigned shift, size_t *h);
    void (*scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t vsize, size_t b, size_t e,
                    unsigned shift, uint64_t mask, const size_t *off, void *wc);
    void (*fill_digit)(void *keys, size_t b, size_t e, size_t d, uint64_t mask);
} sort_kernels;
#define SORT_ENTRY(E, T, S, K, U, W) \
    [E] = {sizeof(T), K_IS_INT_##K, count_all_##S, count_at_##S, scatter_any_##S, fill_digit_##S},
static const sort_kernels sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};

#define SORT_TILE ((size_t)1 << 16) /* keys a thread claims at once */

typedef struct sort_job {
    const sort_kernels *k;
    size_t n, vsize;
    uint64_t mask;
    unsigned npass, shift;
    size_t *priv;          /* count sweep: npass x RADIX counts per thread */
    const size_t *start;   /* this pass: keys of smaller digits, per digit */
    const char *src;
    char *dst;
    const char *vsrc;
    char *vdst;
    char *wc;              /* write-combining buffers, wcbytes per thread */
    size_t wcbytes;
} sort_job;

static void sort_tile_range(const sort_job *j, size_t t, size_t *b, size_t *e)
{
    *b = t * SORT_TILE;
    *e = j->n - *b < SORT_TILE ? j->n : *b + SORT_TILE;
}

static void sweep_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[8 * RADIX];
    sort_tile_range(j, t, &b, &e);
    j->k->count_all(j->src, b, e, j->mask, j->npass, h);
    size_t *mine = j->priv + (size_t)thread * j->npass * RADIX;
    for (size_t i = 0; i < (size_t)j->npass * RADIX; i++) mine[i] += h[i];
}

static void pass_counts(const void *job, size_t t, uint64_t *value)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[RADIX];
    sort_tile_range(j, t, &b, &e);
    j->k->count_at(j->src, b, e, j->mask, j->shift, h);
    for (size_t d = 0; d < RADIX; d++) value[d] = h[d];
}

static void add_counts(const void *job, uint64_t *acc, const uint64_t *b)
{
    (void)job;
    for (size_t d = 0; d < RADIX; d++) acc[d] += b[d];
}

static void pass_scatter(const void *job, size_t t, const uint64_t *before, const uint64_t *mine)
{
    (void)mine;
    const sort_job *j = (const sort_job *)job;
    size_t b, e, off[RADIX];
    sort_tile_range(j, t, &b, &e);
    for (size_t d = 0; d < RADIX; d++) off[d] = j->start[d] + (size_t)before[d];
    j->k->scatter(j->src, j->dst, j->vsrc, j->vdst, j->vsize, b, e, j->shift, j->mask, off,
                  j->wc + (size_t)omp_get_thread_num() * j->wcbytes);
}

/* Counting sort: the runs of each digit, a digit claimed at a time. */
static void fill_run(const void *job, size_t d, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t end = d + 1 < RADIX ? j->start[d + 1] : j->n;
    j->k->fill_digit(j->dst, j->start[d], end, d, j->mask);
}

static void copy_tile(const void *job, size_t t, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    sort_tile_range(j, t, &b, &e);
    memcpy(j->dst + b * j->k->size, j->src + b * j->k->size, (e - b) * j->k->size);
    if (j->vsrc) memcpy(j->vdst + b * j->vsize, j->vsrc + b * j->vsize, (e - b) * j->vsize);
}

/* PP_ALGO_AUTO (see the top of the file): a count sweep of every digit over
 * tiles claimed one at a time; then per pass one region in which each
 * thread claims a tile, counts its digits, gets the counts of every tile
 * before it from the look-back (cpu_tiles.h: no thread waits for another)
 * and scatters the tile from there. Only the passes themselves are
 * ordered (a pass reads what the one before wrote). */
static pp_status cpu_sort(pp_context *ctx, const pp_sort_args *a, int sequential)
{
    const sort_kernels *k = &sort_table[a->type];
    const char *fn = a->fn;
    void *keys = a->keys, *vals = a->values;
    size_t vsize = a->value_size;
    const size_t n = a->n;
    const unsigned npass = (unsigned)k->size;
    const uint64_t mask = a->order == PP_DESCENDING ? ~(uint64_t)0 : 0;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SORT_TILE);
    const size_t ntiles = (n + SORT_TILE - 1) / SORT_TILE;
    if (!vals) vsize = 0;
    if (n > (SIZE_MAX / 4) / (k->size + vsize))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    /* Scratch: keys, values, per-thread sweep counts, digit starts, the
     * write-combining buffers and the look-back's state. */
    const int counting = k->counting && k->size == 1 && !vals;
    const size_t kbytes = counting ? 0 : (n * k->size + 63) / 64 * 64;
    const size_t vbytes = (n * vsize + 63) / 64 * 64;
    const size_t hbytes = ((size_t)nt * npass * RADIX + npass * RADIX) * sizeof(size_t);
    const size_t wcbytes = WC_BYTES(k->size);
    const size_t cbytes = counting ? 0 : pp_cpu_chain_scratch_bytes(ntiles, RADIX);
    char *scr = (char *)pp_cpu_scratch(ctx, kbytes + vbytes + hbytes + (size_t)nt * wcbytes + cbytes, fn);
    if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    sort_job j;
    memset(&j, 0, sizeof j);
    j.k = k;
    j.n = n;
    j.vsize = vsize;
    j.mask = mask;
    j.npass = counting ? 1 : npass;
    j.priv = (size_t *)(scr + kbytes + vbytes);
    size_t *start = j.priv + (size_t)nt * npass * RADIX; /* npass x RADIX */
    j.wc = scr + kbytes + vbytes + hbytes;
    j.wcbytes = wcbytes;
    void *chain = j.wc + (size_t)nt * wcbytes;

    /* The count sweep: every digit of every key, per thread, then added. */
    j.src = (const char *)keys;
    memset(j.priv, 0, (size_t)nt * j.npass * RADIX * sizeof(size_t));
    const int used = pp_cpu_for_tiles(nt, ntiles, sweep_tile, &j);
    int skip[8];
    for (unsigned p = 0; p < j.npass; p++) {
        size_t run = 0;
        skip[p] = 0;
        for (size_t d = 0; d < RADIX; d++) {
            size_t c = 0;
            for (int u = 0; u < used; u++) c += j.priv[((size_t)u * j.npass + p) * RADIX + d];
            if (c == n) skip[p] = 1; /* one digit for every key: the pass changes nothing */
            start[p * RADIX + d] = run;
            run += c;
        }
    }
    if (counting) {
        j.start = start;
        j.dst = (char *)keys;
        pp_cpu_for_tiles(nt, RADIX, fill_run, &j);
        return PP_SUCCESS;
    }

    j.src = (const char *)keys;
    j.dst = scr;
    j.vsrc = (const char *)vals;
    j.vdst = vals ? scr + kbytes : NULL;
    const uint64_t zero[RADIX] = {0};
    for (unsigned p = 0; p < npass; p++) {
        if (skip[p]) continue;
        j.shift = 8 * p;
        j.start = start + p * RADIX;
        pp_cpu_chain_spec spec = {ntiles, RADIX, zero, pass_counts, add_counts, pass_scatter, &j};
        pp_cpu_chain(&spec, nt, chain, NULL);
        const char *ts = j.src, *tv = j.vsrc;
        j.src = j.dst;
        j.dst = (char *)ts;
        j.vsrc = j.vdst;
        j.vdst = (char *)tv;
    }
    if (j.src != (const char *)keys) { /* an odd number of passes: copy back */
        j.dst = (char *)keys;
        j.vdst = (char *)vals;
        pp_cpu_for_tiles(nt, ntiles, copy_tile, &j);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 0); }
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 1); }
