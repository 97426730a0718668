/* The default f32/f64 PP_SUM of pp_reduce on cpu, compensated: each of
 * the fixed blocks of PP_RB elements is folded into lanes that carry, beside
 * each running sum, the rounding errors of its additions (Knuth's TwoSum,
 * exact); the lanes are added in a fixed tree and the blocks in index
 * order with the same error terms, and the sum is the running sum plus its
 * error, rounded once. The error is then about 2 u |sum| plus a term in
 * n u^2, whatever n (parprim.h, pp_reduce).
 *
 * One kernel, written with GCC's vector types, is compiled for AVX-512,
 * for AVX2 and for generic x86-64 (or any other target): the same
 * additions in the same lanes in each, so the bits do not depend on the
 * processor, nor (blocks fixed by n) on the thread count. Special values:
 * an infinity or NaN makes the running sum non-finite and its error NaN;
 * the running sum, a plain sum of every element, is then the result, as
 * in plain summation; an error of zero leaves the sum as it is (a sum of
 * -0.0 alone stays -0.0). */
#include "cpu_internal.h"
#include "cpu_tiles.h"

#include <math.h>
#include <string.h>

/* (s, c) += x: s the running sum, c its accumulated rounding error. */
#define TWO_SUM_(s, c, x)                                  \
    do {                                                   \
        const __typeof__(s) t_ = (s) + (x), z_ = t_ - (s); \
        (c) += ((s) - (t_ - z_)) + ((x)-z_);               \
        (s) = t_;                                          \
    } while (0)

/* Lanes: 128 bytes of elements (32 f32, 16 f64), lane j taking the
 * elements i with i % lanes == j, every element added with compensation
 * (adding pairs plainly first halved the work in cache but lost accuracy
 * on cancelling data: bench/studies/python-sums.md), held in R vectors of VB bytes: the
 * processor's own width (64 for AVX-512, 32 for AVX2, 16 for SSE2), so
 * that the vectors stay in registers; the lanes and their additions are
 * the same whatever VB. */
#define COMP_FOLD_(NAME, T, VB, ATTR)                                   \
    ATTR static void NAME(const T *x, size_t n, T *sum, T *err)         \
    {                                                                   \
        typedef T V __attribute__((vector_size(VB)));                   \
        enum { L = VB / sizeof(T), R = 128 / VB, N = 128 / sizeof(T) }; \
        V s[R], c[R];                                                   \
        V neg0; /* the neutral element of a float sum in every lane */  \
        for (int j = 0; j < L; j++) neg0[j] = (T)-0.0;                  \
        for (int r = 0; r < R; r++) s[r] = c[r] = neg0;                 \
        size_t i = 0;                                                   \
        for (; i + N <= n; i += N)                                      \
            for (int r = 0; r < R; r++) {                               \
                V v;                                                    \
                memcpy(&v, x + i + r * L, sizeof v);                    \
                TWO_SUM_(s[r], c[r], v);                                \
            }                                                           \
        T sl[N], cl[N];                                                 \
        memcpy(sl, s, sizeof sl);                                       \
        memcpy(cl, c, sizeof cl);                                       \
        for (int j = 0; i < n; i++, j++) TWO_SUM_(sl[j], cl[j], x[i]);  \
        for (int w = N / 2; w > 0; w /= 2)                              \
            for (int j = 0; j < w; j++) {                               \
                cl[j] += cl[j + w];                                     \
                TWO_SUM_(sl[j], cl[j], sl[j + w]);                      \
            }                                                           \
        *sum = sl[0];                                                   \
        *err = cl[0];                                                   \
    }

COMP_FOLD_(fold_f32, float, 16, )
COMP_FOLD_(fold_f64, double, 16, )
#if PP_CPU_HAVE_AVX512
COMP_FOLD_(fold_f32_avx512, float, 64, PP_CPU_AVX512)
COMP_FOLD_(fold_f64_avx512, double, 64, PP_CPU_AVX512)
COMP_FOLD_(fold_f32_avx2, float, 32, PP_CPU_AVX2)
COMP_FOLD_(fold_f64_avx2, double, 32, PP_CPU_AVX2)
#endif

typedef void (*fold32_fn)(const float *x, size_t n, float *sum, float *err);
typedef void (*fold64_fn)(const double *x, size_t n, double *sum, double *err);

typedef struct comp_job {
    const void *in;
    size_t n;
    int f64;
    fold32_fn f32_fold;
    fold64_fn f64_fold;
    double *part; /* (sum, error) of each block, as doubles (f32 values convert exactly) */
} comp_job;

static void comp_block(const void *job_, size_t b, int thread)
{
    (void)thread;
    const comp_job *j = (const comp_job *)job_;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    if (j->f64) {
        j->f64_fold((const double *)j->in + lo, hi - lo, &j->part[2 * b], &j->part[2 * b + 1]);
    } else {
        float s, c;
        j->f32_fold((const float *)j->in + lo, hi - lo, &s, &c);
        j->part[2 * b] = s;
        j->part[2 * b + 1] = c;
    }
}

/* The blocks' (sum, error) pairs added in index order, in the type (f32
 * pairs in float arithmetic), and the result rounded once; on one thread
 * each block is added as it is folded (no scratch), in the same order. */
#define COMP_TOTAL_(NAME, T, FOLD)                                 \
    static T NAME(const comp_job *j, size_t nb, int inline_)       \
    {                                                              \
        T s = 0, c = 0;                                            \
        for (size_t b = 0; b < nb; b++) {                          \
            T bs, bc;                                              \
            if (inline_) {                                         \
                size_t lo, hi;                                     \
                pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);       \
                j->FOLD((const T *)j->in + lo, hi - lo, &bs, &bc); \
            } else {                                               \
                bs = (T)j->part[2 * b];                            \
                bc = (T)j->part[2 * b + 1];                        \
            }                                                      \
            if (b == 0) {                                          \
                s = bs;                                            \
                c = bc;                                            \
            } else {                                               \
                c += bc;                                           \
                TWO_SUM_(s, c, bs);                                \
            }                                                      \
        }                                                          \
        return (c != 0 && isfinite(s) && isfinite(c)) ? s + c : s; \
    }
COMP_TOTAL_(total_f32, float, f32_fold)
COMP_TOTAL_(total_f64, double, f64_fold)

pp_status pp_cpu_comp_sum(pp_context *ctx, const pp_reduce_args *a)
{
    const int f64 = a->type == PP_F64;
    comp_job j = {a->in, a->n, f64, fold_f32, fold_f64, NULL};
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512())
        j.f32_fold = fold_f32_avx512, j.f64_fold = fold_f64_avx512;
    else if (pp_cpu_avx2())
        j.f32_fold = fold_f32_avx2, j.f64_fold = fold_f64_avx2;
#endif
    const size_t nb = (a->n + PP_RB - 1) / PP_RB;
    const int nt = pp_cpu_threads_for(ctx, a->n, PP_CPU_INLINE_REDUCE / 2);
    if (nt > 1) {
        j.part = (double *)pp_cpu_scratch(ctx, 2 * nb * sizeof(double), a->fn);
        if (!j.part) return PP_ERROR_OUT_OF_MEMORY;
        pp_cpu_for_tiles(nt, nb, comp_block, &j);
    }
    if (f64) {
        const double r = total_f64(&j, nb, nt <= 1);
        memcpy(a->out, &r, sizeof r);
    } else {
        const float r = total_f32(&j, nb, nt <= 1);
        memcpy(a->out, &r, sizeof r);
    }
    return PP_SUCCESS;
}
