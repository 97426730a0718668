/* cpu: the half types' slots (PP_F16, PP_BF16; parprim.h, "Half
 * precision"), whatever algorithm is chosen. PP_SUM reduce and scan are
 * the exact ones of cpu_exact.c (the f32 accumulator, one rounding to the
 * half format per output); PP_MIN, PP_MAX and the sort compare the bits
 * as keys of a total order. */
#include "cpu_internal.h"

#include <string.h>

#include "exact_acc.h"

/* The key of the bits h of a half value that is not NaN: increasing with
 * the value, -0.0 below +0.0 (both formats have the sign in bit 15). */
static inline uint32_t half_key(uint32_t h) { return (h & 0x8000u) ? (~h & 0xffffu) : (h | 0x8000u); }
static inline uint16_t half_of_key(uint32_t k) { return (uint16_t)((k & 0x8000u) ? (k & 0x7fffu) : (~k & 0xffffu)); }

/* Min or max of n > 0 elements: a NaN (|bits| above the infinity's) gives
 * the format's quiet NaN. */
static uint16_t half_minmax(const pp_context *ctx, const uint16_t *x, size_t n, int is_max, uint32_t inf, uint32_t nan)
{
    uint32_t lo = 0xffffu, hi = 0;
    int seen_nan = 0;
    const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_REDUCE / 2);
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min                               \
                                                                    : lo) reduction(max               \
                                                                                    : hi) reduction(| \
                                                                                                    : seen_nan)
    for (size_t i = 0; i < n; i++) {
        const uint32_t b = x[i], k = half_key(b);
        seen_nan |= (b & 0x7fffu) > inf;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    if (seen_nan) return (uint16_t)nan;
    return half_of_key(is_max ? hi : lo);
}

pp_status pp_cpu_half_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const int prec = PP_HALF_PREC(a->type);
    const uint32_t inf = PP_XACC_HALF_INF(prec), nan = PP_XACC_HALF_NAN(prec);
    uint16_t r;
    if (a->op == PP_SUM) {
        if (a->n) return pp_cpu_reduce_exact(ctx, a);
        r = 0; /* +0.0 */
    } else if (a->n == 0) {
        r = (uint16_t)(a->op == PP_MIN ? inf : inf | 0x8000u); /* +inf, -inf */
    } else {
        r = half_minmax(ctx, (const uint16_t *)a->in, a->n, a->op == PP_MAX, inf, nan);
    }
    memcpy(a->out, &r, sizeof r);
    return PP_SUCCESS;
}

pp_status pp_cpu_half_scan(pp_context *ctx, const pp_scan_args *a) { return pp_cpu_scan_exact(ctx, a); }

/* Sort: the stable radix sort of u16 pairs (cpu_sort.c), keys = order keys
 * of the requested order, values = the elements' bits, which then are the
 * output (NaN payloads kept). NaN keys: 0xFFFF (last; PP_DESCENDING: 0,
 * first), equal among NaNs, so they keep their input order; PP_DESCENDING
 * and PP_DESCENDING_NAN_LAST complement the other keys (+0.0 before
 * -0.0). The two arrays live in the runs scratch, which the sort's own
 * scratch never moves. */
pp_status pp_cpu_half_sort(pp_context *ctx, const pp_sort_args *a)
{
    const size_t n = a->n;
    uint16_t *k = (uint16_t *)pp_cpu_runs_scratch(ctx, 2 * n * sizeof(uint16_t), a->fn);
    if (!k) return PP_ERROR_OUT_OF_MEMORY;
    uint16_t *v = k + n;
    const uint16_t *in = (const uint16_t *)a->keys_in;
    const uint32_t inf = PP_XACC_HALF_INF(PP_HALF_PREC(a->type));
    const uint32_t flip = a->order == PP_ASCENDING ? 0 : 0xffffu, nan_key = a->order == PP_DESCENDING ? 0 : 0xffffu;
    const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SORT / 2);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) {
        const uint32_t b = in[i];
        v[i] = (uint16_t)b;
        k[i] = (uint16_t)((b & 0x7fffu) > inf ? nan_key : half_key(b) ^ flip);
    }
    const pp_sort_args s = {a->fn, PP_U16, k, v, sizeof(uint16_t), n, PP_ASCENDING, k, v};
    const pp_status st = pp_cpu_sort(ctx, &s);
    if (st == PP_SUCCESS) memcpy(a->keys, v, n * sizeof(uint16_t));
    return st;
}
