/* cpu reduce and scan.
 *
 * Reduce (PP_ALGO_AUTO): the input is cut into fixed blocks of PP_RB
 * elements; each block is folded with PP_LANES independent accumulators
 * (which the compiler turns into SIMD) and a fixed lane tree; the block
 * results are folded left to right. Blocks are spread over the threads, but
 * the combination order depends only on n, so float results do not change
 * with the thread count.
 *
 * Scan (PP_ALGO_AUTO): reduce-then-scan over fixed tiles of PP_ST elements.
 * In each round every thread takes a run of consecutive tiles (about
 * PP_CHUNK_BYTES, so they stay in its cache) and folds each tile (first
 * read); after one barrier the tile carries are chained left to right and
 * each thread scans its tiles from their carries (second read, from cache),
 * PP_GROUP elements at a time. Main memory sees one read and one write per
 * element. Tiles, groups and the carry chain are fixed, so float results
 * depend only on the input, not on the thread count.
 *
 * PP_ALGO_SEQUENTIAL: the plain one-thread loops.
 */
#include "cpu_internal.h"

#include <omp.h>

#define PP_LANES 16
#define PP_RB 8192   /* reduce block, elements */
#define PP_ST 4096   /* scan tile, elements: the unit of the carry chain */
#define PP_GROUP 8   /* scan group within a tile */
#define PP_CHUNK_BYTES ((size_t)256 << 10) /* a thread's tiles per round, about */

typedef pp_status (*reduce_fn)(pp_context *, const void *, size_t, void *);
typedef pp_status (*scan_fn)(pp_context *, pp_scan_kind, const void *, void *, size_t);

#define DEF_REDUCE_SCAN(E, T, S, K, OE, O)                                                       \
    /* Fold of x[0..n) with PP_LANES accumulators and a fixed tree. */                           \
    static T fold_##S##_##O(const T *restrict x, size_t n)                                      \
    {                                                                                            \
        T acc[PP_LANES];                                                                         \
        for (int j = 0; j < PP_LANES; j++) acc[j] = pp_id_##O##_##S();                           \
        size_t i = 0;                                                                            \
        for (; i + PP_LANES <= n; i += PP_LANES)                                                 \
            for (int j = 0; j < PP_LANES; j++) acc[j] = pp_##O##_##S(acc[j], x[i + j]);          \
        for (int j = 0; i < n; i++, j++) acc[j] = pp_##O##_##S(acc[j], x[i]);                    \
        for (int w = PP_LANES / 2; w > 0; w /= 2)                                                \
            for (int j = 0; j < w; j++) acc[j] = pp_##O##_##S(acc[j], acc[j + w]);               \
        return acc[0];                                                                           \
    }                                                                                            \
                                                                                                 \
    static pp_status reduce_##S##_##O(pp_context *ctx, const void *in_, size_t n, void *out_)   \
    {                                                                                            \
        const T *in = (const T *)in_;                                                            \
        T r;                                                                                     \
        if (n == 0) {                                                                            \
            r = PP_PUBLIC_ID(T, pp_id_##O##_##S());                                              \
        } else if (pp_cpu_sequential(ctx, PP_PRIM_REDUCE)) {                                     \
            r = in[0];                                                                           \
            for (size_t i = 1; i < n; i++) r = pp_##O##_##S(r, in[i]);                           \
        } else if (n <= PP_RB) {                                                                 \
            r = fold_##S##_##O(in, n);                                                           \
        } else {                                                                                 \
            size_t nb = (n + PP_RB - 1) / PP_RB;                                                 \
            T *part = (T *)pp_cpu_scratch(ctx, nb * sizeof(T), "pp_reduce");                     \
            if (!part) return PP_ERROR_OUT_OF_MEMORY;                                            \
            int nt = pp_cpu_threads_for(ctx, n, (size_t)1 << 15);                                \
            /* Dynamic: a thread that the OS deschedules does not hold up the rest. */           \
            _Pragma("omp parallel for num_threads(nt) schedule(dynamic, 8)")                     \
            for (size_t b = 0; b < nb; b++) {                                                    \
                size_t lo = b * PP_RB, len = n - lo < PP_RB ? n - lo : PP_RB;                    \
                part[b] = fold_##S##_##O(in + lo, len);                                          \
            }                                                                                    \
            r = part[0];                                                                         \
            for (size_t b = 1; b < nb; b++) r = pp_##O##_##S(r, part[b]);                        \
        }                                                                                        \
        memcpy(out_, &r, sizeof r);                                                              \
        return PP_SUCCESS;                                                                       \
    }                                                                                            \
                                                                                                 \
    /* The plain loop: scans x[0..n) into y from carry c. */                                  \
    static void scan_plain_##S##_##O(const T *x, T *y, size_t n, T c, int exclusive)            \
    {                                                                                            \
        for (size_t i = 0; i < n; i++) {                                                         \
            T v = x[i];                                                                          \
            y[i] = exclusive ? c : pp_##O##_##S(c, v);                                           \
            c = pp_##O##_##S(c, v);                                                              \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Scans a tile x[0..n) into y from carry c, PP_GROUP elements at a time: each group's     \
     * local prefixes do not depend on the carry, so consecutive groups overlap in the         \
     * pipeline and the carry chain costs one operation per group. x == y is fine. */          \
    static void scan_tile_##S##_##O(const T *x, T *y, size_t n, T c, int exclusive)             \
    {                                                                                            \
        size_t i = 0;                                                                            \
        for (; i + PP_GROUP <= n; i += PP_GROUP) {                                               \
            T p[PP_GROUP];                                                                       \
            p[0] = x[i];                                                                         \
            for (int j = 1; j < PP_GROUP; j++) p[j] = pp_##O##_##S(p[j - 1], x[i + j]);          \
            if (exclusive) {                                                                     \
                y[i] = c;                                                                        \
                for (int j = 1; j < PP_GROUP; j++) y[i + j] = pp_##O##_##S(c, p[j - 1]);         \
            } else {                                                                             \
                for (int j = 0; j < PP_GROUP; j++) y[i + j] = pp_##O##_##S(c, p[j]);             \
            }                                                                                    \
            c = pp_##O##_##S(c, p[PP_GROUP - 1]);                                                \
        }                                                                                        \
        scan_plain_##S##_##O(x + i, y + i, n - i, c, exclusive);                                 \
    }                                                                                            \
                                                                                                 \
    static pp_status scan_##S##_##O(pp_context *ctx, pp_scan_kind kind, const void *in_,        \
                                    void *out_, size_t n)                                        \
    {                                                                                            \
        const T *in = (const T *)in_;                                                            \
        T *out = (T *)out_;                                                                      \
        const int excl = kind == PP_EXCLUSIVE;                                                   \
        const T id = pp_id_##O##_##S();                                                          \
        if (pp_cpu_sequential(ctx, PP_PRIM_SCAN)) {                                              \
            scan_plain_##S##_##O(in, out, n, id, excl);                                          \
        } else if (n <= PP_ST) {                                                                 \
            scan_tile_##S##_##O(in, out, n, id, excl);                                           \
        } else {                                                                                 \
            /* Each thread takes `per` consecutive tiles a round (about PP_CHUNK_BYTES). */      \
            const size_t per = PP_CHUNK_BYTES / (PP_ST * sizeof(T)) ? PP_CHUNK_BYTES / (PP_ST * sizeof(T)) : 1; \
            const size_t ntiles = (n + PP_ST - 1) / PP_ST;                                       \
            const int nt = pp_cpu_threads_for(ctx, n, per * PP_ST);                              \
            const size_t wide = (size_t)nt * per; /* tiles per round */                          \
            const size_t rounds = (ntiles + wide - 1) / wide;                                    \
            T *totals = (T *)pp_cpu_scratch(ctx, 2 * wide * sizeof(T), "pp_scan");              \
            if (!totals) return PP_ERROR_OUT_OF_MEMORY;                                          \
            _Pragma("omp parallel num_threads(nt)")                                              \
            {                                                                                    \
                const size_t t = (size_t)omp_get_thread_num();                                   \
                T carry = id; /* carry into the round, the same on every thread */               \
                for (size_t r = 0; r < rounds; r++) {                                            \
                    T *tot = totals + (r & 1) * wide;                                            \
                    const size_t first = r * wide + t * per; /* this thread's first tile */      \
                    for (size_t k = 0; k < per; k++) {                                           \
                        size_t lo = (first + k) * PP_ST;                                         \
                        size_t len = lo < n ? (n - lo < PP_ST ? n - lo : PP_ST) : 0;             \
                        tot[t * per + k] = len ? fold_##S##_##O(in + lo, len) : id;              \
                    }                                                                            \
                    _Pragma("omp barrier")                                                       \
                    /* Carries chain tile by tile, left to right, on every thread alike. */      \
                    T c = carry;                                                                 \
                    for (size_t u = 0; u < t * per; u++) c = pp_##O##_##S(c, tot[u]);            \
                    for (size_t k = 0; k < per; k++) {                                           \
                        size_t lo = (first + k) * PP_ST;                                         \
                        size_t len = lo < n ? (n - lo < PP_ST ? n - lo : PP_ST) : 0;             \
                        if (len) scan_tile_##S##_##O(in + lo, out + lo, len, c, excl);           \
                        c = pp_##O##_##S(c, tot[t * per + k]);                                   \
                    }                                                                            \
                    for (size_t u = 0; u < wide; u++) carry = pp_##O##_##S(carry, tot[u]);       \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        if (excl) out[0] = PP_PUBLIC_ID(T, id);                                                  \
        return PP_SUCCESS;                                                                       \
    }

PP_FOR_EACH_TYPE_OP(DEF_REDUCE_SCAN)

#define REDUCE_ENTRY(E, T, S, K, OE, O) [E][OE] = reduce_##S##_##O,
#define SCAN_ENTRY(E, T, S, K, OE, O) [E][OE] = scan_##S##_##O,
static const reduce_fn reduce_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(REDUCE_ENTRY)};
static const scan_fn scan_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(SCAN_ENTRY)};

pp_status pp_cpu_reduce(pp_context *ctx, pp_type type, pp_op op, const void *in, size_t n, void *out)
{
    return reduce_table[type][op](ctx, in, n, out);
}

pp_status pp_cpu_scan(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                      size_t n)
{
    return scan_table[type][op](ctx, kind, in, out, n);
}
