/* cpu reduce and scan.
 *
 * Reduce (PP_ALGO_AUTO): the input is cut into fixed blocks of PP_RB
 * elements; each block is folded with PP_LANES independent accumulators
 * (which the compiler turns into SIMD) and a fixed lane tree. Threads claim
 * blocks one at a time; the block results are folded left to right. The
 * combination order depends only on n, so float results do not change with
 * the thread count.
 *
 * Scan (PP_ALGO_AUTO): fixed tiles of PP_ST elements, claimed one at a time
 * by the threads (cpu_tiles.h): a thread folds its tile (first read), gets
 * the tile's prefix from a look-back that never waits for another thread,
 * and scans the tile from it (second read, from cache), PP_GROUP elements
 * at a time. Main memory sees one read and one write per element. Tiles,
 * groups and the prefix chain are fixed, so float results depend only on
 * the input, not on the thread count or on which thread ran what.
 *
 * PP_ALGO_SEQUENTIAL: the plain one-thread loops.
 *
 * The per-type kernels (fold, tile scan, combine) are generated from the
 * type and operator lists; the orchestration is plain C over their table.
 */
#include "cpu_tiles.h"

#include <omp.h>

#define PP_LANES 16
#define PP_RB 8192   /* reduce block, elements */
#define PP_ST 8192   /* scan tile, elements: the unit of the prefix chain */
#define PP_GROUP 8   /* scan group within a tile */

typedef struct rs_kernels {
    size_t size;
    uint64_t (*identity)(void);                            /* the accumulator's start */
    uint64_t (*combine)(uint64_t a, uint64_t b);
    uint64_t (*fold)(const void *x, size_t n);             /* n >= 1 */
    void (*scan)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*reduce_seq)(const void *x, size_t n, void *out);
    void (*scan_seq)(const void *x, void *y, size_t n, int exclusive);
    void (*public_identity)(void *out);                    /* what n == 0 writes, and exclusive out[0] */
} rs_kernels;

#define DEF_RS_KERNELS(E, T, S, K, OE, O)                                                        \
    static uint64_t bits_##S##_##O(T v)                                                          \
    {                                                                                            \
        uint64_t b = 0;                                                                          \
        memcpy(&b, &v, sizeof v);                                                                \
        return b;                                                                                \
    }                                                                                            \
    static T val_##S##_##O(uint64_t b)                                                           \
    {                                                                                            \
        T v;                                                                                     \
        memcpy(&v, &b, sizeof v);                                                                \
        return v;                                                                                \
    }                                                                                            \
    static uint64_t combine_##S##_##O(uint64_t a, uint64_t b)                                    \
    {                                                                                            \
        return bits_##S##_##O(pp_##O##_##S(val_##S##_##O(a), val_##S##_##O(b)));                 \
    }                                                                                            \
    /* x[0..n) with PP_LANES accumulators and a fixed tree. */                                   \
    static uint64_t fold_##S##_##O(const void *x_, size_t n)                                     \
    {                                                                                            \
        const T *restrict x = (const T *)x_;                                                     \
        T acc[PP_LANES];                                                                         \
        for (int j = 0; j < PP_LANES; j++) acc[j] = pp_id_##O##_##S();                           \
        size_t i = 0;                                                                            \
        for (; i + PP_LANES <= n; i += PP_LANES)                                                 \
            for (int j = 0; j < PP_LANES; j++) acc[j] = pp_##O##_##S(acc[j], x[i + j]);          \
        for (int j = 0; i < n; i++, j++) acc[j] = pp_##O##_##S(acc[j], x[i]);                    \
        for (int w = PP_LANES / 2; w > 0; w /= 2)                                                \
            for (int j = 0; j < w; j++) acc[j] = pp_##O##_##S(acc[j], acc[j + w]);               \
        return bits_##S##_##O(acc[0]);                                                           \
    }                                                                                            \
    /* Scans x[0..n) into y from carry c, PP_GROUP elements at a time: each group's local     \
     * prefixes do not depend on the carry, so consecutive groups overlap in the pipeline    \
     * and the carry chain costs one operation per group. x == y is fine. */                   \
    static void scan_##S##_##O(const void *x_, void *y_, size_t n, uint64_t cb, int excl)        \
    {                                                                                            \
        const T *x = (const T *)x_;                                                              \
        T *y = (T *)y_, c = val_##S##_##O(cb);                                                   \
        size_t i = 0;                                                                            \
        for (; i + PP_GROUP <= n; i += PP_GROUP) {                                               \
            T p[PP_GROUP];                                                                       \
            p[0] = x[i];                                                                         \
            for (int j = 1; j < PP_GROUP; j++) p[j] = pp_##O##_##S(p[j - 1], x[i + j]);          \
            if (excl) {                                                                          \
                y[i] = c;                                                                        \
                for (int j = 1; j < PP_GROUP; j++) y[i + j] = pp_##O##_##S(c, p[j - 1]);         \
            } else {                                                                             \
                for (int j = 0; j < PP_GROUP; j++) y[i + j] = pp_##O##_##S(c, p[j]);             \
            }                                                                                    \
            c = pp_##O##_##S(c, p[PP_GROUP - 1]);                                                \
        }                                                                                        \
        for (; i < n; i++) {                                                                     \
            T v = x[i];                                                                          \
            y[i] = excl ? c : pp_##O##_##S(c, v);                                                \
            c = pp_##O##_##S(c, v);                                                              \
        }                                                                                        \
    }                                                                                            \
    static void reduce_seq_##S##_##O(const void *x_, size_t n, void *out)                        \
    {                                                                                            \
        const T *x = (const T *)x_;                                                              \
        T r = x[0];                                                                              \
        for (size_t i = 1; i < n; i++) r = pp_##O##_##S(r, x[i]);                                \
        memcpy(out, &r, sizeof r);                                                               \
    }                                                                                            \
    static void scan_seq_##S##_##O(const void *x_, void *y_, size_t n, int excl)                 \
    {                                                                                            \
        const T *x = (const T *)x_;                                                              \
        T *y = (T *)y_, c = pp_id_##O##_##S();                                                   \
        for (size_t i = 0; i < n; i++) {                                                         \
            T v = x[i];                                                                          \
            y[i] = excl ? c : pp_##O##_##S(c, v);                                                \
            c = pp_##O##_##S(c, v);                                                              \
        }                                                                                        \
    }                                                                                            \
    static uint64_t identity_##S##_##O(void) { return bits_##S##_##O(pp_id_##O##_##S()); }      \
    static void public_id_##S##_##O(void *out)                                                   \
    {                                                                                            \
        T v = PP_PUBLIC_ID(T, pp_id_##O##_##S());                                                \
        memcpy(out, &v, sizeof v);                                                               \
    }

PP_FOR_EACH_TYPE_OP(DEF_RS_KERNELS)

#define RS_ENTRY(E, T, S, K, OE, O)                                                                   \
    [E][OE] = {sizeof(T), identity_##S##_##O, combine_##S##_##O, fold_##S##_##O, scan_##S##_##O, reduce_seq_##S##_##O, \
               scan_seq_##S##_##O, public_id_##S##_##O},
static const rs_kernels rs_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(RS_ENTRY)};

static const rs_kernels *kernels(pp_type type, pp_op op) { return &rs_table[type][op]; }

/* ---- reduce ---------------------------------------------------------------------- */

typedef struct reduce_job {
    const rs_kernels *k;
    const char *in;
    size_t n;
    uint64_t *part;
} reduce_job;

static void reduce_block(const void *job_, size_t b, int thread)
{
    (void)thread;
    const reduce_job *j = (const reduce_job *)job_;
    size_t lo = b * PP_RB, len = j->n - lo < PP_RB ? j->n - lo : PP_RB;
    j->part[b] = j->k->fold(j->in + lo * j->k->size, len);
}

static pp_status cpu_reduce(pp_context *ctx, const pp_reduce_args *a, int sequential)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    if (n == 0) {
        k->public_identity(out);
    } else if (sequential) {
        k->reduce_seq(in, n, out);
    } else if (n <= PP_RB) {
        uint64_t r = k->fold(in, n);
        memcpy(out, &r, k->size);
    } else {
        size_t nb = (n + PP_RB - 1) / PP_RB;
        uint64_t *part = (uint64_t *)pp_cpu_scratch(ctx, nb * sizeof(uint64_t), a->fn);
        if (!part) return PP_ERROR_OUT_OF_MEMORY;
        reduce_job j = {k, (const char *)in, n, part};
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, (size_t)1 << 15), nb, reduce_block, &j);
        uint64_t r = part[0];
        for (size_t b = 1; b < nb; b++) r = k->combine(r, part[b]);
        memcpy(out, &r, k->size);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_reduce(pp_context *ctx, const pp_reduce_args *a) { return cpu_reduce(ctx, a, 0); }
pp_status pp_cpu_reduce_sequential(pp_context *ctx, const pp_reduce_args *a) { return cpu_reduce(ctx, a, 1); }

/* ---- scan ------------------------------------------------------------------------ */

typedef struct scan_chain_job {
    const rs_kernels *k;
    const char *in;
    char *out;
    size_t n;
    int exclusive;
} scan_chain_job;

static size_t tile_len(size_t n, size_t t)
{
    size_t lo = t * PP_ST;
    return n - lo < PP_ST ? n - lo : PP_ST;
}

static const scan_chain_job *scan_chain_job_of(const void *job) { return (const scan_chain_job *)job; }

static void scan_tile_value(const void *job, size_t t, uint64_t *value)
{
    const scan_chain_job *j = scan_chain_job_of(job);
    *value = j->k->fold(j->in + t * PP_ST * j->k->size, tile_len(j->n, t));
}

static void scan_combine(const void *job, uint64_t *acc, const uint64_t *b)
{
    *acc = scan_chain_job_of(job)->k->combine(*acc, *b);
}

static void scan_tile_body(const void *job, size_t t, const uint64_t *prefix, const uint64_t *value)
{
    (void)value;
    const scan_chain_job *j = scan_chain_job_of(job);
    size_t off = t * PP_ST * j->k->size;
    j->k->scan(j->in + off, j->out + off, tile_len(j->n, t), *prefix, j->exclusive);
}

static pp_status cpu_scan(pp_context *ctx, const pp_scan_args *a, int sequential)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const int excl = a->kind == PP_EXCLUSIVE;
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    if (sequential) {
        k->scan_seq(in, out, n, excl);
    } else if (n <= PP_ST) {
        k->scan(in, out, n, k->identity(), excl);
    } else {
        const size_t ntiles = (n + PP_ST - 1) / PP_ST;
        void *scratch = pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn);
        if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
        scan_chain_job j = {k, (const char *)in, (char *)out, n, excl};
        const uint64_t id = k->identity();
        pp_cpu_chain_spec spec = {ntiles, 1, &id, scan_tile_value, scan_combine, scan_tile_body, &j};
        pp_cpu_chain(&spec, pp_cpu_threads_for(ctx, n, 2 * PP_ST), scratch, NULL);
    }
    if (excl) k->public_identity(out);
    return PP_SUCCESS;
}

pp_status pp_cpu_scan(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 0); }
pp_status pp_cpu_scan_sequential(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 1); }
