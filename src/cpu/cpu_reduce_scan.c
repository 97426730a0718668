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
 * and scans the tile from it (second read, from cache): sums of 4- and
 * 8-byte elements a 64-byte vector at a time (cpu_sum_vec.c: AVX-512 or AVX2
 * where the processor has it, the same additions in plain C for floats
 * where not),
 * other types and operators PP_GROUP elements at a time. Main memory sees
 * one read and one write per element (large outputs of the vector sums:
 * streaming stores, so no read of the output's lines either). Tiles,
 * vectors, groups and the prefix chain are fixed, so float results depend
 * only on the input, not on the thread count, the processor or on which
 * thread ran what.
 *
 * PP_ALGO_REDUCE_THEN_SCAN: the same tiles in three phases with a join
 * between them: every tile's fold, an exclusive scan of the folds on one
 * thread, every tile scanned from its prefix. The input is read twice from
 * memory and no tile reads another's state: the textbook form, for study
 * and comparison. Deterministic too (fixed tiles, folds left to right).
 *
 * PP_ALGO_SEQUENTIAL: the plain one-thread loops.
 *
 * The per-type kernels (fold, tile scan, combine) are the template
 * cpu_reduce_scan.inc, instantiated for every type and operator of the
 * lists (cpu_instances.h); the orchestration is plain C over their table.
 */
#include "cpu_tiles.h"

#include <omp.h>

#define PP_GROUP 8   /* scan group within a tile */

typedef struct rs_kernels {
    size_t size;
    uint64_t (*identity)(void);                            /* the accumulator's start */
    uint64_t (*combine)(uint64_t a, uint64_t b);
    uint64_t (*fold)(const void *x, size_t n);             /* n >= 1 */
    void (*scan)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*reduce_seq)(const void *x, size_t n, void *out);
    void (*scan_seq)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*public_identity)(void *out);                    /* what n == 0 writes, and exclusive out[0] */
} rs_kernels;

#define PP_CPU_TEMPLATE "cpu_reduce_scan.inc"
#define PP_CPU_EACH_OP
#include "cpu_each_type.inc"

/* The table: the X-macro of types.h over the names the template defined. */
#define RS_ENTRY(E, T, S, K, OE, O)                                                                   \
    [E][OE] = {sizeof(T), identity_##S##_##O, combine_##S##_##O, fold_##S##_##O, scan_##S##_##O, reduce_seq_##S##_##O, \
               scan_seq_##S##_##O, public_id_##S##_##O},
static const rs_kernels rs_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(RS_ENTRY)};

static const rs_kernels *kernels(pp_type type, pp_op op) { return &rs_table[type][op]; }

/* ---- vector kernels of sums: cpu_sum_vec.c ---------------------------------------- */

typedef pp_cpu_scan_fn scan_fn;
typedef pp_cpu_fold_fn fold_fn;

/* Float MIN and MAX: pp_cpu_fminmax, and the template's fold where it
 * finds a NaN. */
#define FMINMAX_(S, O, TYPE, MAX)                                              \
    static uint64_t fold_vec_##S##_##O(const void *x, size_t n)                \
    {                                                                          \
        uint64_t b = 0;                                                        \
        return pp_cpu_fminmax(TYPE, MAX, x, n, &b) ? b : fold_##S##_##O(x, n); \
    }
FMINMAX_(f32, min, PP_F32, 0)
FMINMAX_(f32, max, PP_F32, 1)
FMINMAX_(f64, min, PP_F64, 0)
FMINMAX_(f64, max, PP_F64, 1)

/* The fold for type and op: float MIN and MAX vectorized (above); the
 * AVX-512 or AVX2 one for sums of 4- and 8-byte elements where the
 * processor has it; else the template's. */
static fold_fn fold_kernel_of(pp_type type, pp_op op)
{
    if ((type == PP_F32 || type == PP_F64) && (op == PP_MIN || op == PP_MAX)) {
        static const fold_fn by[2][2] = {{fold_vec_f32_min, fold_vec_f32_max}, {fold_vec_f64_min, fold_vec_f64_max}};
        return by[type == PP_F64][op == PP_MAX];
    }
    const size_t size = pp_type_size(type);
    if (op == PP_SUM && (size == 4 || size == 8)) {
        const fold_fn f = pp_cpu_fold_sum_of(size, pp_type_kind(type) == PP_KIND_FLOAT);
        if (f) return f;
    }
    return kernels(type, op)->fold;
}

/* The tile scan for type and op: the AVX-512 or AVX2 one where there is
 * one and the processor has the instructions, else the template's. */
static scan_fn scan_kernel_of(pp_type type, pp_op op, size_t n)
{
    const size_t size = pp_type_size(type);
    const int flt = pp_type_kind(type) == PP_KIND_FLOAT;
    if (op != PP_SUM || (size != 4 && size != 8)) return kernels(type, op)->scan;
    const scan_fn f = pp_cpu_scan_sum_of(size, flt, n * size >= PP_CPU_STREAM_BYTES);
    if (f) return f;
    return kernels(type, op)->scan;
}

pp_cpu_fold_scan pp_cpu_fold_scan_of(pp_type type, pp_op op, size_t out_bytes)
{
    const rs_kernels *k = kernels(type, op);
    pp_cpu_fold_scan f = {k->size, k->identity(), k->combine, fold_kernel_of(type, op),
                          scan_kernel_of(type, op, out_bytes / k->size), k->public_identity};
    return f;
}

/* ---- reduce ---------------------------------------------------------------------- */

typedef struct reduce_job {
    const rs_kernels *k;
    fold_fn fold; /* fold_kernel_of */
    const char *in;
    size_t n;
    uint64_t *part;
} reduce_job;

static void reduce_block(const void *job_, size_t b, int thread)
{
    (void)thread;
    const reduce_job *j = (const reduce_job *)job_;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    j->part[b] = j->fold(j->in + lo * j->k->size, hi - lo);
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
    } else if (a->op == PP_SUM && pp_type_kind(a->type) == PP_KIND_FLOAT) {
        return pp_cpu_comp_sum(ctx, a); /* compensated (cpu_comp_sum.c) */
    } else if (pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_REDUCE / 2) <= 1) {
        /* on one thread: the blocks in order, combined as they come */
        const fold_fn fold = fold_kernel_of(a->type, a->op);
        uint64_t r = fold(in, n < PP_RB ? n : PP_RB);
        for (size_t lo = PP_RB; lo < n; lo += PP_RB)
            r = k->combine(r, fold((const char *)in + lo * k->size, n - lo < PP_RB ? n - lo : PP_RB));
        memcpy(out, &r, k->size);
    } else {
        size_t nb = (n + PP_RB - 1) / PP_RB;
        uint64_t *part = (uint64_t *)pp_cpu_scratch(ctx, nb * sizeof(uint64_t), a->fn);
        if (!part) return PP_ERROR_OUT_OF_MEMORY;
        reduce_job j = {k, fold_kernel_of(a->type, a->op), (const char *)in, n, part};
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_REDUCE / 2), nb, reduce_block, &j);
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
    scan_fn scan; /* the tile scan (scan_kernel_of) */
    fold_fn fold; /* the tile fold (fold_kernel_of) */
    const char *in;
    char *out;
    size_t n;
    int exclusive;
} scan_chain_job;

static const scan_chain_job *scan_chain_job_of(const void *job) { return (const scan_chain_job *)job; }

static void scan_tile_value(const void *job, size_t t, uint64_t *value)
{
    const scan_chain_job *j = scan_chain_job_of(job);
    *value = j->fold(j->in + t * PP_ST * j->k->size, pp_cpu_tile_len(j->n, PP_ST, t));
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
    j->scan(j->in + off, j->out + off, pp_cpu_tile_len(j->n, PP_ST, t), *prefix, j->exclusive);
}

/* The scan's carry into its first element: the operator's identity, or
 * pp_scan_init's initial value (whose bits an exclusive scan's out[0]
 * then holds). */
static uint64_t scan_start(const rs_kernels *k, const pp_scan_args *a)
{
    uint64_t c = 0;
    if (!a->init) return k->identity();
    memcpy(&c, a->init, k->size);
    return c;
}

static pp_status cpu_scan(pp_context *ctx, const pp_scan_args *a, int sequential)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const int excl = a->kind == PP_EXCLUSIVE;
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    const uint64_t start = scan_start(k, a);
    if (sequential) {
        k->scan_seq(in, out, n, start, excl);
    } else if (n <= PP_ST) {
        scan_kernel_of(a->type, a->op, n)(in, out, n, start, excl);
    } else {
        const size_t ntiles = (n + PP_ST - 1) / PP_ST;
        const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SCAN / 2);
        void *scratch = nt > 1 ? pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn) : NULL;
        if (nt > 1 && !scratch) return PP_ERROR_OUT_OF_MEMORY;
        scan_chain_job j = {k, scan_kernel_of(a->type, a->op, n), fold_kernel_of(a->type, a->op), (const char *)in, (char *)out, n, excl};
        pp_cpu_chain_spec spec = {ntiles, 1, &start, scan_tile_value, scan_combine, scan_tile_body, &j, NULL};
        pp_cpu_chain(&spec, nt, scratch, NULL);
    }
    if (excl && !a->init) k->public_identity(out);
    return PP_SUCCESS;
}

pp_status pp_cpu_scan(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 0); }
pp_status pp_cpu_scan_sequential(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 1); }

typedef struct rts_job {
    scan_chain_job s;
    uint64_t *prefix; /* per tile: its fold, then the fold of the tiles before it */
} rts_job;

static void rts_fold(const void *job, size_t t, int thread)
{
    (void)thread;
    const rts_job *j = (const rts_job *)job;
    scan_tile_value(&j->s, t, &j->prefix[t]);
}

static void rts_scan(const void *job, size_t t, int thread)
{
    (void)thread;
    const rts_job *j = (const rts_job *)job;
    scan_tile_body(&j->s, t, &j->prefix[t], NULL);
}

pp_status pp_cpu_scan_reduce_then_scan(pp_context *ctx, const pp_scan_args *a)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const size_t n = a->n, ntiles = (n + PP_ST - 1) / PP_ST;
    uint64_t *prefix = (uint64_t *)pp_cpu_scratch(ctx, ntiles * sizeof(uint64_t), a->fn);
    if (!prefix) return PP_ERROR_OUT_OF_MEMORY;
    const int excl = a->kind == PP_EXCLUSIVE;
    rts_job j = {{k, scan_kernel_of(a->type, a->op, n), fold_kernel_of(a->type, a->op), (const char *)a->in, (char *)a->out, n, excl}, prefix};
    const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SCAN / 2);
    pp_cpu_for_tiles(nt, ntiles, rts_fold, &j);
    uint64_t acc = scan_start(k, a);
    for (size_t t = 0; t < ntiles; t++) {
        const uint64_t v = prefix[t];
        prefix[t] = acc;
        acc = k->combine(acc, v);
    }
    pp_cpu_for_tiles(nt, ntiles, rts_scan, &j);
    if (excl && !a->init) k->public_identity(a->out);
    return PP_SUCCESS;
}
