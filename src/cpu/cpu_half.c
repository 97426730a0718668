/* cpu: the half types' slots (PP_F16, PP_BF16; parprim.h, "Half
 * precision"), whatever algorithm is chosen. PP_SUM reduce and scan are
 * the exact ones of cpu_exact.c (the f32 accumulator, one rounding to the
 * half format per output); PP_MIN, PP_MAX and the sorts' keys (the core's
 * half_sort.c sorts them) compare the bits as keys of a total order. */
#include "cpu_internal.h"

#include <string.h>

#include "exact_acc.h"
#include "half_key.h"

/* The key of the bits h of a half value that is not NaN: increasing with
 * the value, -0.0 below +0.0 (both formats have the sign in bit 15). */
static inline uint32_t half_key(uint32_t h) { return PP_HALF_ORDER_KEY(h); }
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

/* The half_map slot (core/half_sort.c, core/half_wide.c): the order keys
 * of a sort, search or merge, and the widening to f32 and back. */
pp_status pp_cpu_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out, size_t n)
{
    (void)fn;
    const int bf = type == PP_BF16;
    const uint32_t inf = PP_XACC_HALF_INF(PP_HALF_PREC(type));
    const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SORT / 2);
    if (map == PP_HALF_MAP_WIDEN || map == PP_HALF_MAP_WIDEN_KEEP) {
        const uint16_t *x = (const uint16_t *)in;
        uint32_t *y = (uint32_t *)out;
        const int keep = map == PP_HALF_MAP_WIDEN_KEEP;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (size_t i = 0; i < n; i++)
            y[i] = keep ? pp_xacc_half_to_f32_keep(x[i], bf)
                   : bf ? pp_xacc_bf16_to_f32(x[i])
                        : pp_xacc_f16_to_f32(x[i]);
    } else if (map == PP_HALF_MAP_NARROW || map == PP_HALF_MAP_NARROW_QNAN) {
        const uint32_t *x = (const uint32_t *)in;
        uint16_t *y = (uint16_t *)out;
        const int qnan = map == PP_HALF_MAP_NARROW_QNAN;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (size_t i = 0; i < n; i++) y[i] = (uint16_t)pp_xacc_f32_to_half(x[i], bf, qnan);
    } else {
        const uint16_t *x = (const uint16_t *)in;
        uint16_t *k = (uint16_t *)out;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (size_t i = 0; i < n; i++) {
            const uint32_t b = x[i];
            k[i] = (uint16_t)PP_HALF_SORT_KEY(b, inf, map);
        }
    }
    return PP_SUCCESS;
}
