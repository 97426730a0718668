/* Float MIN and MAX folds that compilers vectorize (cpu_internal.h,
 * pp_cpu_fminmax): the template's fold (cpu_reduce_scan.inc) applies the
 * library's operator, whose NaN and signed-zero tests GCC leaves scalar.
 * Here each of PP_MM_LANES lanes keeps the best value by the plain
 * comparison `v < m` (`v > m`), which is the processor's min (max)
 * instruction, and notes NaNs on the side. Without a NaN, the minimum
 * (maximum) of the values is one number; only its zero's sign is left to
 * settle: MIN orders -0.0 below +0.0, so the minimum is -0.0 if any
 * element is -0.0, and MAX's is +0.0 if any is +0.0 (a second pass, only
 * when the result is zero). So the bits are those of the operator's fold
 * in any order. With a NaN, the caller runs the template's fold, whose
 * order decides which NaN's bits come out.
 *
 * pp_cpu_ffirst finds the first position of a value (or of a NaN), for the
 * arg-reductions: a block of lanes compared at once, then the one block
 * that holds it.
 *
 * The loops are written once and compiled three times: generic x86-64 (or
 * any processor), AVX2 and AVX-512 (target attributes, cpu_tiles.h),
 * chosen at run time. */
#include "cpu_tiles.h"

#define PP_MM_LANES 32

#define MM_BETTER_(max, a, b) ((max) ? (a) > (b) : (a) < (b))
#define MM_BODY_(T, S)                                                                             \
    static PP_ALWAYS_INLINE int mm_##S##_body(const T *x, size_t n, const int max, T *out)         \
    {                                                                                              \
        T m[PP_MM_LANES];                                                                          \
        int bad = 0;                                                                               \
        for (int l = 0; l < PP_MM_LANES; l++) m[l] = x[0];                                         \
        size_t i = 0;                                                                              \
        for (; i + PP_MM_LANES <= n; i += PP_MM_LANES) {                                           \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                                 \
            for (int l = 0; l < PP_MM_LANES; l++) {                                                \
                const T v = x[i + l];                                                              \
                m[l] = MM_BETTER_(max, v, m[l]) ? v : m[l];                                        \
                bad |= v != v;                                                                     \
            }                                                                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            m[0] = MM_BETTER_(max, x[i], m[0]) ? x[i] : m[0];                                      \
            bad |= x[i] != x[i];                                                                   \
        }                                                                                          \
        if (bad) return 0;                                                                         \
        T v = m[0];                                                                                \
        for (int l = 1; l < PP_MM_LANES; l++) v = MM_BETTER_(max, m[l], v) ? m[l] : v;             \
        if (v == 0) { /* the sign that wins: MIN's -0.0, MAX's +0.0, if any element has it */      \
            const int neg = !max;                                                                  \
            int found = 0;                                                                         \
            for (i = 0; i < n && !found; i++) found = x[i] == 0 && (signbit(x[i]) != 0) == neg;    \
            v = found == neg ? (T)-0.0 : (T)0.0;                                                   \
        }                                                                                          \
        *out = v;                                                                                  \
        return 1;                                                                                  \
    }                                                                                              \
    /* The first i with x[i] == *v (v NULL: with x[i] a NaN), one is there: \
     * blocks of PP_MM_LANES compared whole, then the one that holds it. */                      \
    static PP_ALWAYS_INLINE size_t mm_##S##_first(const T *x, size_t n, const T *v)                \
    {                                                                                              \
        const T w = v ? *v : 0;                                                                    \
        size_t i = 0;                                                                              \
        for (; i + PP_MM_LANES <= n; i += PP_MM_LANES) {                                           \
            int hit = 0;                                                                           \
            for (int l = 0; l < PP_MM_LANES; l++) hit |= v ? x[i + l] == w : x[i + l] != x[i + l]; \
            if (hit) break;                                                                        \
        }                                                                                          \
        while (v ? x[i] != w : x[i] == x[i]) i++;                                                  \
        return i;                                                                                  \
    }                                                                                              \
    MM_AT_(T, S, , _plain)                                                                         \
    MM_VECTOR_(T, S)
/* mm_S_X (the MIN or MAX) and first_S_X (the first position of a value)
 * compiled with target attribute ATTR. */
#define MM_AT_(T, S, ATTR, X)                                                                                   \
    ATTR static int mm_##S##X(const void *x, size_t n, int max, void *out)                                      \
    {                                                                                                           \
        return max ? mm_##S##_body((const T *)x, n, 1, (T *)out) : mm_##S##_body((const T *)x, n, 0, (T *)out); \
    }                                                                                                           \
    ATTR static size_t first_##S##X(const void *x, size_t n, const void *v)                                     \
    {                                                                                                           \
        return mm_##S##_first((const T *)x, n, (const T *)v);                                                   \
    }
#if PP_CPU_HAVE_AVX512
#define MM_VECTOR_(T, S) MM_AT_(T, S, PP_CPU_AVX2, _avx2) MM_AT_(T, S, PP_CPU_AVX512, _avx512)
#else
#define MM_VECTOR_(T, S)
#endif
MM_BODY_(float, f32)
MM_BODY_(double, f64)

int pp_cpu_fminmax(pp_type type, int max, const void *x, size_t n, void *out)
{
    const int f64 = type == PP_F64;
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) return (f64 ? mm_f64_avx512 : mm_f32_avx512)(x, n, max, out);
    if (pp_cpu_avx2()) return (f64 ? mm_f64_avx2 : mm_f32_avx2)(x, n, max, out);
#endif
    return (f64 ? mm_f64_plain : mm_f32_plain)(x, n, max, out);
}

size_t pp_cpu_ffirst(pp_type type, const void *x, size_t n, const void *v)
{
    const int f64 = type == PP_F64;
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) return (f64 ? first_f64_avx512 : first_f32_avx512)(x, n, v);
    if (pp_cpu_avx2()) return (f64 ? first_f64_avx2 : first_f32_avx2)(x, n, v);
#endif
    return (f64 ? first_f64_plain : first_f32_plain)(x, n, v);
}
