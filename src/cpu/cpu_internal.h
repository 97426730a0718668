/* Shared pieces of the cpu backend: its state, scratch memory, work
 * splitting, and the per-type operators generated from the type list. */
#ifndef PP_CPU_INTERNAL_H
#define PP_CPU_INTERNAL_H

#include "internal.h"

#include <math.h>
#include <string.h>

typedef struct pp_cpu_state {
    void *scratch;        /* reusable working memory, 64-byte aligned */
    size_t scratch_bytes;
} pp_cpu_state;

/* Returns scratch memory of at least bytes (kept by the context and reused
 * by later calls), or NULL with an out-of-memory message set on ctx. */
void *pp_cpu_scratch(pp_context *ctx, size_t bytes, const char *fn);

/* Threads worth using for work on n elements, at least grain per thread. */
static inline int pp_cpu_threads_for(const pp_context *ctx, size_t n, size_t grain)
{
    size_t t = n / grain;
    if (t < 1) t = 1;
    return t < (size_t)ctx->threads ? (int)t : ctx->threads;
}

/* [*b, *e) is part i of n items cut into parts nearly equal parts. */
static inline void pp_cpu_part(size_t n, size_t parts, size_t i, size_t *b, size_t *e)
{
    size_t q = n / parts, r = n % parts;
    *b = q * i + (i < r ? i : r);
    *e = *b + q + (i < r);
}

/* memcpy spread over the context's threads. */
void pp_cpu_parallel_copy(const pp_context *ctx, void *dst, const void *src, size_t bytes);

/* The primitives: PP_ALGO_AUTO's, and PP_ALGO_SEQUENTIAL's (one thread,
 * one loop) in each file. */
pp_status pp_cpu_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_reduce_sequential(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cpu_scan_sequential(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cpu_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cpu_histogram_sequential(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a);
pp_status pp_cpu_select_sequential(pp_context *ctx, const pp_select_args *a);
pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a);
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a);

/* ---- operators --------------------------------------------------------------------
 * pp_OP_S(a, b) and pp_id_OP_S() for every type suffix S. Integer arithmetic is
 * done in an unsigned type at least as wide as int, so it wraps without
 * undefined behaviour. On floats, MIN and MAX return NaN if either side is
 * NaN and order -0.0 below +0.0, so that they are associative and
 * commutative bit for bit; the SUM accumulator starts at -0.0, the exact
 * neutral element (-0.0 + x == x for every x, -0.0 included). What the API
 * writes as "the identity" is PP_PUBLIC_ID(id): +0.0 for a float sum.
 */
#define PP_PUBLIC_ID(T, id) ((T)((id) + 0))
#define PP_DEF_INT_OPS(T, S, W, MAXV, MINV)                                                      \
    static inline T pp_sum_##S(T a, T b) { return (T)((W)a + (W)b); }                           \
    static inline T pp_prod_##S(T a, T b) { return (T)((W)a * (W)b); }                          \
    static inline T pp_min_##S(T a, T b) { return b < a ? b : a; }                              \
    static inline T pp_max_##S(T a, T b) { return b > a ? b : a; }                              \
    static inline T pp_and_##S(T a, T b) { return (T)(a & b); }                                 \
    static inline T pp_or_##S(T a, T b) { return (T)(a | b); }                                  \
    static inline T pp_xor_##S(T a, T b) { return (T)(a ^ b); }                                 \
    static inline T pp_id_sum_##S(void) { return 0; }                                           \
    static inline T pp_id_prod_##S(void) { return 1; }                                          \
    static inline T pp_id_min_##S(void) { return MAXV; }                                        \
    static inline T pp_id_max_##S(void) { return MINV; }                                        \
    static inline T pp_id_and_##S(void) { return (T)~(T)0; }                                    \
    static inline T pp_id_or_##S(void) { return 0; }                                            \
    static inline T pp_id_xor_##S(void) { return 0; }

/* AND, OR and XOR on floats are never dispatched (the core rejects them);
 * they exist so that every (type, operator) of the lists instantiates. */
#define PP_DEF_FLOAT_OPS(T, S)                                                                   \
    static inline T pp_sum_##S(T a, T b) { return a + b; }                                      \
    static inline T pp_prod_##S(T a, T b) { return a * b; }                                     \
    static inline T pp_min_##S(T a, T b)                                                        \
    {                                                                                            \
        return (a < b || a != a || (a == b && signbit(a))) ? a : b;                             \
    }                                                                                            \
    static inline T pp_max_##S(T a, T b)                                                        \
    {                                                                                            \
        return (a > b || a != a || (a == b && !signbit(a))) ? a : b;                            \
    }                                                                                            \
    static inline T pp_and_##S(T a, T b) { (void)b; return a; }                                 \
    static inline T pp_or_##S(T a, T b) { (void)b; return a; }                                  \
    static inline T pp_xor_##S(T a, T b) { (void)b; return a; }                                 \
    static inline T pp_id_sum_##S(void) { return (T)-0.0; }                                     \
    static inline T pp_id_prod_##S(void) { return 1; }                                          \
    static inline T pp_id_min_##S(void) { return (T)INFINITY; }                                 \
    static inline T pp_id_max_##S(void) { return (T)-INFINITY; }                                \
    static inline T pp_id_and_##S(void) { return 0; }                                           \
    static inline T pp_id_or_##S(void) { return 0; }                                            \
    static inline T pp_id_xor_##S(void) { return 0; }

#define PP_OPS_SINT(T, S, U, W) PP_DEF_INT_OPS(T, S, W, (T)((U) ~(U)0 >> 1), (T)(-(T)((U) ~(U)0 >> 1) - 1))
#define PP_OPS_UINT(T, S, U, W) PP_DEF_INT_OPS(T, S, W, (T) ~(T)0, 0)
#define PP_OPS_FLOAT(T, S, U, W) PP_DEF_FLOAT_OPS(T, S)
#define PP_DEF_OPS(E, T, S, K, U, W) PP_OPS_##K(T, S, U, W)
PP_FOR_EACH_TYPE(PP_DEF_OPS)
#undef PP_DEF_OPS

#endif
