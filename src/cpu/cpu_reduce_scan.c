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
 * 8-byte elements a 64-byte vector at a time (scan_sum_*, AVX-512 where the
 * processor has it, the same additions in plain C for floats where not),
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

#define PP_LANES 16
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

/* ---- vector kernels of sums ------------------------------------------------------ */


typedef void (*scan_fn)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);

/* Sums of 4- and 8-byte elements, a vector of L = 64 / size elements at a
 * time: each vector gets its inclusive prefix in registers (log2(L) steps,
 * lane j adding lane j - k for k = 1, 2, 4, ..., independent of the
 * carry), then the carry is added; the only chain from vector to vector is
 * one add and one broadcast of the last lane (the template's loop, a
 * chain from element to element, runs far below a copy's rate:
 * bench/studies/cpu-memory-bound.md, "cpu reduce and scan sums with 64-byte vectors,
 * one-pass compaction with streaming stores"). Float sums take this order
 * on every machine: the plain-C twin scan_sum_f32 / scan_sum_f64 below
 * does the same additions where AVX-512 is missing, so their bits do not
 * depend on the processor.
 * With nt (large outputs, y 64-byte aligned), y is written with streaming
 * stores, which do not first read each line from memory as ordinary stores
 * do: a third of the scan's memory traffic. x == y is fine. */
/* y[i, end) from carry c, one element at a time (i, c advance). */
#define SCAN_SEQ_(U, x, y, i, end, c, excl)                                                              \
    for (; i < (end); i++) {                                                                             \
        const U v_ = x[i];                                                                               \
        y[i] = excl ? c : (U)(c + v_);                                                                   \
        c = (U)(c + v_);                                                                                 \
    }
#define SCAN_LANES_PLAIN_(NAME, U, L)                                                                    \
    static void NAME(const void *x_, void *y_, size_t n, uint64_t cb, int excl)                          \
    {                                                                                                    \
        const U *x = (const U *)x_;                                                                      \
        U *y = (U *)y_, c;                                                                               \
        memcpy(&c, &cb, sizeof c);                                                                       \
        size_t i = 0;                                                                                    \
        for (; i + L <= n; i += L) {                                                                     \
            U v[L];                                                                                      \
            memcpy(v, x + i, sizeof v);                                                                  \
            for (int k = 1; k < L; k *= 2)                                                               \
                for (int j = L - 1; j >= k; j--) v[j] = v[j] + v[j - k];                                 \
            for (int j = L - 1; j > 0; j--) y[i + j] = excl ? c + v[j - 1] : c + v[j];                   \
            y[i] = excl ? c : c + v[0];                                                                  \
            c = c + v[L - 1];                                                                            \
        }                                                                                                \
        SCAN_SEQ_(U, x, y, i, n, c, excl)                                                                \
    }
SCAN_LANES_PLAIN_(scan_sum_f32, float, 16)
SCAN_LANES_PLAIN_(scan_sum_f64, double, 8)

#if PP_CPU_HAVE_AVX512
/* STEPS(v): the log2(L) steps, written out (the intrinsics want constant
 * shifts); step k: lanes j >= k of v add lane j - k (integers: a shift with
 * zeros in, as adding 0 changes nothing; floats: masked, since -0.0 + 0.0
 * is +0.0). */
#define SCAN_SUM_AVX512_(NAME, U, W, FLT, SET1, ADD, STEPS, ALIGNR, PERM)                                 \
    PP_CPU_AVX512 static inline void NAME##_body(const void *x_, void *y_, size_t n, uint64_t cb, int excl, int nt) \
    {                                                                                                    \
        enum { L = 64 / W };                                                                             \
        const U *x = (const U *)x_;                                                                      \
        U *y = (U *)y_, carry;                                                                           \
        memcpy(&carry, &cb, sizeof carry);                                                               \
        size_t i = 0;                                                                                    \
        if (nt && !FLT) { /* integers: plain up to the first 64-byte boundary of y */                   \
            size_t h = ((64u - ((uintptr_t)y & 63u)) & 63u) / W;                                        \
            SCAN_SEQ_(U, x, y, i, h < n ? h : n, carry, excl)                                            \
        }                                                                                                \
        nt = nt && !((uintptr_t)(y + i) & 63u);                                                          \
        const __m512i zero = _mm512_setzero_si512(), last = W == 4 ? _mm512_set1_epi32(L - 1) : _mm512_set1_epi64(L - 1);                                 \
        __m512i c = SET1(carry);                                                                         \
        for (; i + L <= n; i += L) {                                                                     \
            __m512i v = _mm512_loadu_si512((const void *)(x + i));                                       \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                                       \
            STEPS(v);                                                                                    \
            const __m512i inc = ADD(v, c), o = excl ? ALIGNR(inc, c, L - 1) : inc;                       \
            if (nt) _mm512_stream_si512((__m512i *)(void *)(y + i), o);                                  \
            else _mm512_storeu_si512((void *)(y + i), o);                                                \
            c = PERM(last, inc);                                                                         \
        }                                                                                                \
        if (nt) _mm_sfence();                                                                            \
        unsigned char lo_[16];                                                                           \
        _mm_storeu_si128((__m128i *)(void *)lo_, _mm512_castsi512_si128(c));                             \
        memcpy(&carry, lo_, sizeof carry);                                                               \
        SCAN_SEQ_(U, x, y, i, n, carry, excl)                                                            \
    }                                                                                                    \
    PP_CPU_AVX512 static void NAME(const void *x, void *y, size_t n, uint64_t cb, int excl)              \
    {                                                                                                    \
        NAME##_body(x, y, n, cb, excl, 0);                                                               \
    }                                                                                                    \
    PP_CPU_AVX512 static void NAME##_nt(const void *x, void *y, size_t n, uint64_t cb, int excl)         \
    {                                                                                                    \
        NAME##_body(x, y, n, cb, excl, 1);                                                               \
    }
#define SET1_4_(v) _mm512_set1_epi32((int)(v))
#define SET1_8_(v) _mm512_set1_epi64((long long)(v))
#define ALIGNR_4_(a, b, k) _mm512_alignr_epi32(a, b, k)
#define ALIGNR_8_(a, b, k) _mm512_alignr_epi64(a, b, k)
#define ADD_F4_(a, b) _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)))
#define ADD_F8_(a, b) _mm512_castpd_si512(_mm512_add_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b)))
#define STEP_I4_(v, k) _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 16 - (k)))
#define STEP_I8_(v, k) _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 8 - (k)))
#define STEP_F4_(v, k)                                                                                   \
    _mm512_castps_si512(_mm512_mask_add_ps(_mm512_castsi512_ps(v), (__mmask16)(0xffffu << (k)), _mm512_castsi512_ps(v), \
                                           _mm512_castsi512_ps(_mm512_alignr_epi32(v, zero, 16 - (k)))))
#define STEP_F8_(v, k)                                                                                   \
    _mm512_castpd_si512(_mm512_mask_add_pd(_mm512_castsi512_pd(v), (__mmask8)(0xffu << (k)), _mm512_castsi512_pd(v), \
                                           _mm512_castsi512_pd(_mm512_alignr_epi64(v, zero, 8 - (k)))))
#define STEPS_I4_(v) (v = STEP_I4_(v, 1), v = STEP_I4_(v, 2), v = STEP_I4_(v, 4), v = STEP_I4_(v, 8))
#define STEPS_I8_(v) (v = STEP_I8_(v, 1), v = STEP_I8_(v, 2), v = STEP_I8_(v, 4))
#define STEPS_F4_(v) (v = STEP_F4_(v, 1), v = STEP_F4_(v, 2), v = STEP_F4_(v, 4), v = STEP_F4_(v, 8))
#define STEPS_F8_(v) (v = STEP_F8_(v, 1), v = STEP_F8_(v, 2), v = STEP_F8_(v, 4))
static inline uint32_t f32_bits_(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline uint64_t f64_bits_(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
#define SET1_F4_(v) _mm512_set1_epi32((int)f32_bits_(v))
#define SET1_F8_(v) _mm512_set1_epi64((long long)f64_bits_(v))
SCAN_SUM_AVX512_(scan_sum_4, uint32_t, 4, 0, SET1_4_, _mm512_add_epi32, STEPS_I4_, ALIGNR_4_, _mm512_permutexvar_epi32)
SCAN_SUM_AVX512_(scan_sum_8, uint64_t, 8, 0, SET1_8_, _mm512_add_epi64, STEPS_I8_, ALIGNR_8_, _mm512_permutexvar_epi64)
SCAN_SUM_AVX512_(scan_sum_f4, float, 4, 1, SET1_F4_, ADD_F4_, STEPS_F4_, ALIGNR_4_, _mm512_permutexvar_epi32)
SCAN_SUM_AVX512_(scan_sum_f8, double, 8, 1, SET1_F8_, ADD_F8_, STEPS_F8_, ALIGNR_8_, _mm512_permutexvar_epi64)

/* The fold of sums (the template's fold: PP_LANES accumulators, element
 * i + j into accumulator j, then a fixed tree) with the accumulators in
 * one or two 64-byte registers: the same additions in the same order, so
 * the same bits. (GCC leaves the template's 8-byte folds scalar.) */
#define FOLD_SUM_AVX512_(NAME, U, W, ID, ADD)                                                            \
    PP_CPU_AVX512 static uint64_t NAME(const void *x_, size_t n)                                         \
    {                                                                                                    \
        enum { L = 64 / W, R = PP_LANES / L };                                                           \
        const U *x = (const U *)x_;                                                                      \
        U acc[PP_LANES];                                                                                 \
        for (int j = 0; j < PP_LANES; j++) acc[j] = ID;                                                  \
        __m512i a[R];                                                                                    \
        for (int r = 0; r < R; r++) a[r] = _mm512_loadu_si512((const void *)(acc + r * L));              \
        size_t i = 0;                                                                                    \
        for (; i + PP_LANES <= n; i += PP_LANES) {                                                       \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                                       \
            for (int r = 0; r < R; r++) a[r] = ADD(a[r], _mm512_loadu_si512((const void *)(x + i + r * L))); \
        }                                                                                                \
        for (int r = 0; r < R; r++) _mm512_storeu_si512((void *)(acc + r * L), a[r]);                   \
        for (int j = 0; i < n; i++, j++) acc[j] = (U)(acc[j] + x[i]);                                    \
        for (int w = PP_LANES / 2; w > 0; w /= 2)                                                        \
            for (int j = 0; j < w; j++) acc[j] = (U)(acc[j] + acc[j + w]);                               \
        uint64_t b = 0;                                                                                  \
        memcpy(&b, &acc[0], sizeof acc[0]);                                                              \
        return b;                                                                                        \
    }
FOLD_SUM_AVX512_(fold_sum_4, uint32_t, 4, 0u, _mm512_add_epi32)
FOLD_SUM_AVX512_(fold_sum_8, uint64_t, 8, 0u, _mm512_add_epi64)
FOLD_SUM_AVX512_(fold_sum_f4, float, 4, -0.0f, ADD_F4_)
FOLD_SUM_AVX512_(fold_sum_f8, double, 8, -0.0, ADD_F8_)
#endif

typedef uint64_t (*fold_fn)(const void *x, size_t n);

/* The fold for type and op: the AVX-512 one for sums of 4- and 8-byte
 * elements where the processor has it, else the template's. */
static fold_fn fold_kernel_of(pp_type type, pp_op op)
{
#if PP_CPU_HAVE_AVX512
    const size_t size = pp_type_size(type);
    if (op == PP_SUM && (size == 4 || size == 8) && pp_cpu_avx512()) {
        static const fold_fn by[2][2] = {{fold_sum_4, fold_sum_8}, {fold_sum_f4, fold_sum_f8}};
        return by[pp_type_kind(type) == PP_KIND_FLOAT][size == 8];
    }
#endif
    return kernels(type, op)->fold;
}

/* The tile scan for type and op: the AVX-512 one where there is one and
 * the processor has the instructions, else the template's. */
static scan_fn scan_kernel_of(pp_type type, pp_op op, size_t n)
{
    const size_t size = pp_type_size(type);
    const int flt = pp_type_kind(type) == PP_KIND_FLOAT;
    if (op != PP_SUM || (size != 4 && size != 8)) return kernels(type, op)->scan;
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) {
        static const scan_fn by[2][2][2] = {{{scan_sum_4, scan_sum_4_nt}, {scan_sum_8, scan_sum_8_nt}},
                                            {{scan_sum_f4, scan_sum_f4_nt}, {scan_sum_f8, scan_sum_f8_nt}}};
        return by[flt][size == 8][n * size >= PP_CPU_STREAM_BYTES];
    }
#else
    (void)n;
#endif
    if (flt) return size == 4 ? scan_sum_f32 : scan_sum_f64;
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
    } else if (n <= PP_RB) {
        uint64_t r = fold_kernel_of(a->type, a->op)(in, n);
        memcpy(out, &r, k->size);
    } else {
        size_t nb = (n + PP_RB - 1) / PP_RB;
        uint64_t *part = (uint64_t *)pp_cpu_scratch(ctx, nb * sizeof(uint64_t), a->fn);
        if (!part) return PP_ERROR_OUT_OF_MEMORY;
        reduce_job j = {k, fold_kernel_of(a->type, a->op), (const char *)in, n, part};
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
        void *scratch = pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn);
        if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
        scan_chain_job j = {k, scan_kernel_of(a->type, a->op, n), fold_kernel_of(a->type, a->op), (const char *)in, (char *)out, n, excl};
        pp_cpu_chain_spec spec = {ntiles, 1, &start, scan_tile_value, scan_combine, scan_tile_body, &j, NULL};
        pp_cpu_chain(&spec, pp_cpu_threads_for(ctx, n, 2 * PP_ST), scratch, NULL);
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
    const int nt = pp_cpu_threads_for(ctx, n, 2 * PP_ST);
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
