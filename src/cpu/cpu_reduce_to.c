/* cpu pp_reduce_to, pp_scan_to (in_type != out_type), pp_argmin and
 * pp_argmax.
 *
 * Converting reduce and scan: the work is cut as pp_reduce's and pp_scan's
 * (blocks of PP_RB claimed by the threads, folded left to right; tiles of
 * PP_ST in the prefix chain of cpu_tiles.h). Within a block or tile, PP_CV
 * elements at a time are converted into a buffer on the stack (it stays
 * in L1) and folded or scanned there by pp_reduce's and pp_scan's own
 * kernels of out_type (pp_cpu_fold_scan_of: the vector ones where the
 * processor has them), so main memory sees one read of in (and one write
 * of out for the scan). The order of every combination depends on n alone,
 * so float results do not change with the thread count (an f32 -> f64 sum
 * of a reduce folds in one loop, the conversion inside: no buffer). The conversions
 * are instantiated for the pairs of PP_FOR_EACH_WIDEN (types.h) only.
 *
 * Arg-reductions: blocks of PP_RB claimed by the threads; in each, PP_CV
 * elements at a time, the minimum (maximum) over 16 lanes and a NaN flag
 * (loops the compiler vectorizes), then, from cache, the first position of
 * the first NaN or of a strictly better value. The blocks' results are
 * taken left to right: the first block with a NaN wins, else the first
 * strictly better value, so ties keep the lowest index. */
#include "cpu_tiles.h"

#define PP_CV 1024 /* elements converted or searched at a time */
#define PP_AL 16   /* lanes of the arg-reductions' minimum */

/* ---- conversions ------------------------------------------------------------------ */

typedef void (*convert_fn)(const void *x, void *y, size_t n);

#define CONVERT_(IE, IT, IS, OE, OT, OS)                                \
    static void convert_##IS##_##OS(const void *x_, void *y_, size_t n) \
    {                                                                   \
        const IT *x = (const IT *)x_;                                   \
        OT *y = (OT *)y_;                                               \
        for (size_t i = 0; i < n; i++) y[i] = (OT)x[i];                 \
    }
PP_FOR_EACH_WIDEN(CONVERT_)
#undef CONVERT_

#define CONVERT_ENTRY_(IE, IT, IS, OE, OT, OS) [IE][OE] = convert_##IS##_##OS,
static const convert_fn convert_table[PP_TYPE_COUNT][PP_TYPE_COUNT] = {PP_FOR_EACH_WIDEN(CONVERT_ENTRY_)};
#undef CONVERT_ENTRY_

typedef struct conv_job {
    pp_cpu_fold_scan k; /* out_type's kernels */
    convert_fn convert;
    size_t isz;
    const char *in;
    char *out;
    size_t n;
    int exclusive;
    uint64_t *part;                             /* reduce: one fold per block */
    uint64_t (*fused)(const void *x, size_t n); /* reduce: converting fold in one, or NULL */
} conv_job;

static conv_job conv_job_of(const pp_convert_args *a, size_t out_bytes)
{
    conv_job j = {pp_cpu_fold_scan_of(a->out_type, a->op, out_bytes),
                  convert_table[a->in_type][a->out_type],
                  pp_type_size(a->in_type),
                  (const char *)a->in,
                  (char *)a->out,
                  a->n,
                  a->kind == PP_EXCLUSIVE,
                  NULL,
                  NULL};
    return j;
}

/* ---- f32 -> f64 sums, fused ----------------------------------------------------------
 * The conversion inside the fold: 32 f64 lanes, lane l adding the elements
 * whose offset from the start is l mod 32, then the lanes folded by a fixed
 * tree. The plain loop and the AVX-512 one add in the same order, so the
 * result is the same on every processor. */
#define PP_FL 32

static double lanes_total(double *acc)
{
    for (int w = PP_FL / 2; w; w /= 2)
        for (int l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0];
}

static PP_ALWAYS_INLINE uint64_t sum_f32_f64_lanes(const float *x, size_t n)
{
    double acc[PP_FL];
    for (int l = 0; l < PP_FL; l++) acc[l] = -0.0; /* the sum's identity: a sum of -0.0 stays -0.0 */
    size_t i = 0;
    for (; i + PP_FL <= n; i += PP_FL)
        for (int l = 0; l < PP_FL; l++) acc[l] += (double)x[i + l];
    for (; i < n; i++) acc[i % PP_FL] += (double)x[i];
    const double r = lanes_total(acc);
    uint64_t bits;
    memcpy(&bits, &r, 8);
    return bits;
}

static uint64_t sum_f32_f64_plain(const float *x, size_t n) { return sum_f32_f64_lanes(x, n); }

#if PP_CPU_HAVE_AVX512
/* The same loop compiled for AVX2, which vectorizes it. */
PP_CPU_AVX2 static uint64_t sum_f32_f64_avx2(const float *x, size_t n) { return sum_f32_f64_lanes(x, n); }

PP_CPU_AVX512 static uint64_t sum_f32_f64_avx512(const float *x, size_t n)
{
    __m512d a0 = _mm512_set1_pd(-0.0), a1 = a0, a2 = a0, a3 = a0; /* -0.0: the sum's identity */
    size_t i = 0;
    for (; i + PP_FL <= n; i += PP_FL) {
        const __m512 v = _mm512_loadu_ps(x + i), w = _mm512_loadu_ps(x + i + 16);
        a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
        a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
        a2 = _mm512_add_pd(a2, _mm512_cvtps_pd(_mm512_castps512_ps256(w)));
        a3 = _mm512_add_pd(a3, _mm512_cvtps_pd(_mm512_extractf32x8_ps(w, 1)));
    }
    double acc[PP_FL];
    _mm512_storeu_pd(acc, a0);
    _mm512_storeu_pd(acc + 8, a1);
    _mm512_storeu_pd(acc + 16, a2);
    _mm512_storeu_pd(acc + 24, a3);
    for (; i < n; i++) acc[i % PP_FL] += (double)x[i];
    const double r = lanes_total(acc);
    uint64_t bits;
    memcpy(&bits, &r, 8);
    return bits;
}
#endif

static uint64_t sum_f32_f64(const void *x, size_t n)
{
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) return sum_f32_f64_avx512((const float *)x, n);
    if (pp_cpu_avx2()) return sum_f32_f64_avx2((const float *)x, n);
#endif
    return sum_f32_f64_plain((const float *)x, n);
}

/* The fold of in[lo, hi), hi > lo, in out_type: PP_CV elements at a time
 * (an f32 -> f64 sum of a reduce: fused, the whole range at once). */
static uint64_t conv_fold(const conv_job *j, size_t lo, size_t hi)
{
    if (j->fused) return j->fused(j->in + lo * j->isz, hi - lo);
    uint64_t buf[PP_CV]; /* PP_CV elements of up to 8 bytes */
    uint64_t r = j->k.identity;
    for (size_t b = lo; b < hi; b += PP_CV) {
        const size_t len = hi - b < PP_CV ? hi - b : PP_CV;
        j->convert(j->in + b * j->isz, buf, len);
        r = j->k.combine(r, j->k.fold(buf, len));
    }
    return r;
}

static void conv_reduce_block(const void *job, size_t b, int thread)
{
    (void)thread;
    const conv_job *j = (const conv_job *)job;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    j->part[b] = conv_fold(j, lo, hi);
}

static pp_status cpu_reduce_to(pp_context *ctx, const pp_convert_args *a)
{
    conv_job j = conv_job_of(a, 0);
    if (a->in_type == PP_F32 && a->out_type == PP_F64 && a->op == PP_SUM) j.fused = sum_f32_f64;
    uint64_t r;
    if (pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_REDUCE / 2) <= 1) {
        /* on one thread: the blocks in order, combined as they come */
        r = conv_fold(&j, 0, a->n < PP_RB ? a->n : PP_RB);
        for (size_t lo = PP_RB; lo < a->n; lo += PP_RB)
            r = j.k.combine(r, conv_fold(&j, lo, a->n - lo < PP_RB ? a->n : lo + PP_RB));
    } else {
        const size_t nb = (a->n + PP_RB - 1) / PP_RB;
        j.part = (uint64_t *)pp_cpu_scratch(ctx, nb * sizeof(uint64_t), a->fn);
        if (!j.part) return PP_ERROR_OUT_OF_MEMORY;
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_REDUCE / 2), nb, conv_reduce_block, &j);
        r = j.part[0];
        for (size_t b = 1; b < nb; b++) r = j.k.combine(r, j.part[b]);
    }
    memcpy(a->out, &r, j.k.size);
    return PP_SUCCESS;
}

/* The scan of in[lo, hi) into out[lo, hi) from carry c: PP_CV elements at
 * a time converted, then scanned by out_type's kernel; the next chunk's
 * carry is the chunk's last inclusive output. */
static void conv_scan(const conv_job *j, size_t lo, size_t hi, uint64_t c)
{
    uint64_t buf[PP_CV];
    const size_t osz = j->k.size;
    for (size_t b = lo; b < hi; b += PP_CV) {
        const size_t len = hi - b < PP_CV ? hi - b : PP_CV;
        char *y = j->out + b * osz;
        j->convert(j->in + b * j->isz, buf, len);
        j->k.scan(buf, y, len, c, j->exclusive);
        uint64_t last = 0, x = 0;
        memcpy(&last, y + (len - 1) * osz, osz);
        memcpy(&x, (const char *)buf + (len - 1) * osz, osz);
        c = j->exclusive ? j->k.combine(last, x) : last;
    }
}

static void conv_tile_value(const void *job, size_t t, uint64_t *value)
{
    const conv_job *j = (const conv_job *)job;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_ST, t, &lo, &hi);
    *value = conv_fold(j, lo, hi);
}

static void conv_combine(const void *job, uint64_t *acc, const uint64_t *b)
{
    *acc = ((const conv_job *)job)->k.combine(*acc, *b);
}

static void conv_tile_body(const void *job, size_t t, const uint64_t *prefix, const uint64_t *value)
{
    (void)value;
    const conv_job *j = (const conv_job *)job;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_ST, t, &lo, &hi);
    conv_scan(j, lo, hi, *prefix);
}

static pp_status cpu_scan_to(pp_context *ctx, const pp_convert_args *a)
{
    const conv_job j = conv_job_of(a, a->n * pp_type_size(a->out_type));
    if (a->n <= PP_ST) {
        conv_scan(&j, 0, a->n, j.k.identity);
    } else {
        const size_t ntiles = (a->n + PP_ST - 1) / PP_ST;
        const int nt = pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_SCAN / 2);
        void *scratch = nt > 1 ? pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn) : NULL;
        if (nt > 1 && !scratch) return PP_ERROR_OUT_OF_MEMORY;
        const pp_cpu_chain_spec spec = {ntiles,         1,  &j.k.identity, conv_tile_value, conv_combine,
                                        conv_tile_body, &j, NULL};
        pp_cpu_chain(&spec, nt, scratch, NULL);
    }
    if (j.exclusive) j.k.public_identity(a->out);
    return PP_SUCCESS;
}

pp_status pp_cpu_reduce_to(pp_context *ctx, const pp_convert_args *a) { return cpu_reduce_to(ctx, a); }
pp_status pp_cpu_scan_to(pp_context *ctx, const pp_convert_args *a) { return cpu_scan_to(ctx, a); }

/* ---- arg-reductions ----------------------------------------------------------------- */

/* arg_S_min / arg_S_max: the position in [lo, hi) of the first NaN (then
 * *nan = 1), else of the first minimum (maximum). better_S: 1 if x[i] is
 * strictly better than x[k] (NaNs excluded by the caller). */
#define BETTER_(max, a, b) ((max) ? (a) > (b) : (a) < (b))
/* arg_S_min and arg_S_max, compiled with target attribute ATTR, named with
 * suffix X: the body once for generic x86-64, once for AVX2 and once for
 * AVX-512 (chosen per call, pp_cpu_arg). */
#define ARG_AT_(T, S, ATTR, X)                                                         \
    ATTR static size_t arg_##S##_min##X(const void *x, size_t lo, size_t hi, int *nan) \
    {                                                                                  \
        return arg_##S##_body((const T *)x, lo, hi, nan, 0);                           \
    }                                                                                  \
    ATTR static size_t arg_##S##_max##X(const void *x, size_t lo, size_t hi, int *nan) \
    {                                                                                  \
        return arg_##S##_body((const T *)x, lo, hi, nan, 1);                           \
    }
#if PP_CPU_HAVE_AVX512
#define ARG_VEC_(T, S) ARG_AT_(T, S, PP_CPU_AVX2, _avx2) ARG_AT_(T, S, PP_CPU_AVX512, _avx512)
/* find[isa][max]: the generic, AVX2 and AVX-512 builds */
#define ARG_FIND_(S)                                                                                   \
    {{arg_##S##_min, arg_##S##_max}, {arg_##S##_min_avx2, arg_##S##_max_avx2},                           \
     {arg_##S##_min_avx512, arg_##S##_max_avx512}}
#else
#define ARG_VEC_(T, S)
#define ARG_FIND_(S)                                                                                   \
    {{arg_##S##_min, arg_##S##_max}, {arg_##S##_min, arg_##S##_max}, {arg_##S##_min, arg_##S##_max}}
#endif
#define ARG_(E, T, S, K, U, W)                                                                               \
    static PP_ALWAYS_INLINE size_t arg_##S##_body(const T *x, size_t lo, size_t hi, int *nan, const int max) \
    {                                                                                                        \
        T best = x[lo];                                                                                      \
        size_t bi = lo;                                                                                      \
        for (size_t b = lo; b < hi; b += PP_CV) {                                                            \
            const size_t e = hi - b < PP_CV ? hi : b + PP_CV;                                                \
            T m[PP_AL];                                                                                      \
            int bad = 0;                                                                                     \
            for (int l = 0; l < PP_AL; l++) m[l] = x[b];                                                     \
            size_t i = b;                                                                                    \
            for (; i + PP_AL <= e; i += PP_AL)                                                               \
                for (int l = 0; l < PP_AL; l++) {                                                            \
                    const T v = x[i + l];                                                                    \
                    m[l] = BETTER_(max, v, m[l]) ? v : m[l];                                                 \
                    bad |= v != v;                                                                           \
                }                                                                                            \
            for (; i < e; i++) {                                                                             \
                m[0] = BETTER_(max, x[i], m[0]) ? x[i] : m[0];                                               \
                bad |= x[i] != x[i];                                                                         \
            }                                                                                                \
            if (bad) { /* the first NaN wins */                                                              \
                for (i = b; x[i] == x[i]; i++) {                                                             \
                }                                                                                            \
                *nan = 1;                                                                                    \
                return i;                                                                                    \
            }                                                                                                \
            T v = m[0];                                                                                      \
            for (int l = 1; l < PP_AL; l++) v = BETTER_(max, m[l], v) ? m[l] : v;                            \
            if (b == lo || BETTER_(max, v, best)) { /* its first position */                                 \
                for (i = b; x[i] != v; i++) {                                                                \
                }                                                                                            \
                best = v, bi = i;                                                                            \
            }                                                                                                \
        }                                                                                                    \
        *nan = 0;                                                                                            \
        return bi;                                                                                           \
    }                                                                                                        \
    ARG_AT_(T, S, , )                                                                                        \
    ARG_VEC_(T, S)                                                                                           \
    static int better_##S(const void *x_, size_t i, size_t k, int max)                                       \
    {                                                                                                        \
        const T *x = (const T *)x_;                                                                          \
        return BETTER_(max, x[i], x[k]);                                                                     \
    }
PP_FOR_EACH_TYPE(ARG_)
#undef ARG_

typedef size_t (*arg_fn)(const void *x, size_t lo, size_t hi, int *nan);

/* f32 and f64: the vectorized MIN or MAX of the range (pp_cpu_fminmax),
 * then its first position; with a NaN, the first NaN's. */
#define FARG_(S, T, TYPE, O, MAX)                                               \
    static size_t farg_##S##_##O(const void *x, size_t lo, size_t hi, int *nan) \
    {                                                                           \
        const T *p = (const T *)x + lo;                                         \
        T v;                                                                    \
        *nan = !pp_cpu_fminmax(TYPE, MAX, p, hi - lo, &v);                      \
        return lo + pp_cpu_ffirst(TYPE, p, hi - lo, *nan ? NULL : &v);          \
    }
FARG_(f32, float, PP_F32, min, 0)
FARG_(f32, float, PP_F32, max, 1)
FARG_(f64, double, PP_F64, min, 0)
FARG_(f64, double, PP_F64, max, 1)
typedef int (*better_fn)(const void *x, size_t i, size_t k, int max);
#define ARG_ENTRY_(E, T, S, K, U, W) [E] = {ARG_FIND_(S), better_##S},
static const struct {
    arg_fn find[3][2]; /* generic, AVX2, AVX-512 */
    better_fn better;
} arg_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(ARG_ENTRY_)};
#undef ARG_ENTRY_

typedef struct arg_job {
    arg_fn find;
    const void *in;
    size_t n;
    uint64_t *pos; /* per block: the position found */
    uint64_t *nan; /* per block: 1 if it is a NaN's */
} arg_job;

static void arg_block(const void *job, size_t b, int thread)
{
    (void)thread;
    const arg_job *j = (const arg_job *)job;
    size_t lo, hi;
    int nan;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    j->pos[b] = j->find(j->in, lo, hi, &nan);
    j->nan[b] = (uint64_t)nan;
}

pp_status pp_cpu_arg(pp_context *ctx, const pp_arg_args *a)
{
    static const arg_fn ffind[2][2] = {{farg_f32_min, farg_f32_max}, {farg_f64_min, farg_f64_max}};
    const int isa = pp_cpu_avx512() ? 2 : pp_cpu_avx2() ? 1 : 0;
    const arg_fn find = a->type == PP_F32 || a->type == PP_F64 ? ffind[a->type == PP_F64][a->max != 0]
                                                               : arg_table[a->type].find[isa][a->max != 0];
    const better_fn better = arg_table[a->type].better;
    uint64_t r;
    if (pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_REDUCE / 2) <= 1) {
        /* on one thread: the blocks in order, a later one winning if strictly better */
        int nan;
        r = find(a->in, 0, a->n < PP_RB ? a->n : PP_RB, &nan);
        for (size_t lo = PP_RB; lo < a->n && !nan; lo += PP_RB) {
            int bnan;
            const size_t p = find(a->in, lo, a->n - lo < PP_RB ? a->n : lo + PP_RB, &bnan);
            if (bnan || better(a->in, p, r, a->max)) r = p, nan = bnan;
        }
    } else {
        const size_t nb = (a->n + PP_RB - 1) / PP_RB;
        uint64_t *part = (uint64_t *)pp_cpu_scratch(ctx, 2 * nb * sizeof(uint64_t), a->fn);
        if (!part) return PP_ERROR_OUT_OF_MEMORY;
        const arg_job j = {find, a->in, a->n, part, part + nb};
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_REDUCE / 2), nb, arg_block, &j);
        r = part[0];
        int nan = (int)j.nan[0];
        for (size_t b = 1; b < nb && !nan; b++)
            if (j.nan[b] || better(a->in, part[b], r, a->max)) r = part[b], nan = (int)j.nan[b];
    }
    *a->index = r;
    return PP_SUCCESS;
}
