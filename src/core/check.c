/* The shared argument checks (check.h). */
#include "check.h"

#include <string.h>

/* The calls that take the half types (PP_F16, PP_BF16) today, and the
 * operators each takes (a bit per pp_op). Every other call with a half
 * type stops here with PP_ERROR_UNSUPPORTED, before any backend sees it:
 * the backends' per-type tables have no half rows (types.h), and the
 * calls below reach the backends' half slots alone (api.c), or, for the
 * sorts, searches and merges, their u16 slots on order keys
 * (half_sort.c). */
#define HALF_OPS_TEXT                                                                                      \
    "sum, min and max in pp_reduce, pp_scan, pp_scan_init and the segmented reduce and scan, and in " \
    "pp_reduce_to and pp_scan_to to their own type, f32 or f64; "                                    \
    "the sorts, pp_argsort, pp_top_k, search, merge, pp_argmin, pp_argmax, the histograms and "      \
    "compaction; half keys in the by-key calls and run-length encoding, half values summed by key"
static const struct {
    const char *fn;
    unsigned ops;
} half_calls[] = {
    {"pp_reduce", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_scan", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_scan_init", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_reduce_to", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX}, /* to a half type (to f32 / f64: theirs) */
    {"pp_scan_to", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_segmented_reduce", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_segmented_scan", 1u << PP_SUM | 1u << PP_MIN | 1u << PP_MAX},
    {"pp_argmin", ~0u},
    {"pp_argmax", ~0u},
    {"pp_histogram_even", ~0u},
    {"pp_histogram_range", ~0u},
    {"pp_select_flagged", ~0u},
    {"pp_select_if", ~0u},
    {"pp_unique", ~0u},
    {"pp_partition_if", ~0u},
    {"pp_reduce_by_key", 1u << PP_SUM}, /* the values' type (keys: pp_check_key_type_n) */
    {"pp_scan_by_key", 1u << PP_SUM},
    {"pp_segmented_sort", ~0u},
    {"pp_segmented_sort_pairs", ~0u},
    {"pp_sort", ~0u}, /* calls without an operator: any bit */
    {"pp_sort_copy", ~0u},
    {"pp_sort_pairs", ~0u},
    {"pp_sort_pairs_copy", ~0u},
    {"pp_argsort", ~0u},
    {"pp_top_k", ~0u},
    {"pp_lower_bound", ~0u},
    {"pp_upper_bound", ~0u},
    {"pp_merge", ~0u},
    {"pp_merge_pairs", ~0u},
};

/* The operators fn takes on the half types, 0 for a call not in the list. */
static unsigned half_ops(const char *fn)
{
    for (size_t i = 0; i < sizeof half_calls / sizeof half_calls[0]; i++)
        if (strcmp(fn, half_calls[i].fn) == 0) return half_calls[i].ops;
    return 0;
}

pp_status pp_check_type_n(pp_context *ctx, const char *fn, pp_type type, size_t n)
{
    size_t sz = pp_type_size(type);
    if (!sz) INVALID(ctx, "%s: type = %d is not a pp_type", fn, (int)type);
    if (PP_IS_HALF(type) && !half_ops(fn))
        FAIL(ctx, PP_ERROR_UNSUPPORTED,
             "%s: type %s is not supported by this call yet (the half types take " HALF_OPS_TEXT ")", fn,
             pp_type_name(type));
    if (n > SIZE_MAX / sz) INVALID(ctx, "%s: n = %zu elements of %s overflow size_t bytes", fn, n, pp_type_name(type));
    return PP_SUCCESS;
}

pp_status pp_check_key_type_n(pp_context *ctx, const char *fn, pp_type type, size_t n)
{
    if (!PP_IS_HALF(type)) return pp_check_type_n(ctx, fn, type, n);
    if (n > SIZE_MAX / 2) INVALID(ctx, "%s: n = %zu elements of %s overflow size_t bytes", fn, n, pp_type_name(type));
    return PP_SUCCESS;
}

pp_status pp_check_op(pp_context *ctx, const char *fn, pp_type type, pp_op op)
{
    if (PP_IS_HALF(type) && (unsigned)op < PP_OP_COUNT && !(half_ops(fn) >> op & 1))
        FAIL(ctx, PP_ERROR_UNSUPPORTED,
             "%s: operator %s on type %s is not supported yet (the half types take " HALF_OPS_TEXT ")", fn,
             pp_op_name(op), pp_type_name(type));
    switch (op) {
#define X(E, S, INT_ONLY)                                                                                       \
    case E:                                                                                                     \
        if (INT_ONLY && pp_type_kind(type) == PP_KIND_FLOAT)                                                    \
            FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: operator %s is defined on integer types only, not %s", fn, #S, \
                 pp_type_name(type));                                                                           \
        return PP_SUCCESS;
        PP_FOR_EACH_OP(X)
#undef X
    }
    INVALID(ctx, "%s: op = %d is not a pp_op", fn, (int)op);
}

pp_status pp_check_cmp(pp_context *ctx, const char *fn, pp_cmp cmp)
{
    if ((unsigned)cmp > PP_NE) INVALID(ctx, "%s: cmp = %d is not a pp_cmp", fn, (int)cmp);
    return PP_SUCCESS;
}

pp_status pp_check_kind(pp_context *ctx, const char *fn, pp_scan_kind kind)
{
    if ((unsigned)kind > PP_EXCLUSIVE) INVALID(ctx, "%s: kind = %d is not a pp_scan_kind", fn, (int)kind);
    return PP_SUCCESS;
}

pp_status pp_check_order(pp_context *ctx, const char *fn, pp_order order)
{
    if ((unsigned)order > PP_DESCENDING_NAN_LAST) INVALID(ctx, "%s: order = %d is not a pp_order", fn, (int)order);
    return PP_SUCCESS;
}

pp_status pp_enter(pp_context *ctx, const char *fn) { return ctx->ops->enter ? ctx->ops->enter(ctx, fn) : PP_SUCCESS; }

int pp_pick_slot(pp_context *ctx, const char *fn, const int *present, pp_primitive prim, pp_type type, pp_op op,
                 int sums)
{
    const pp_algorithm algo = ctx->algo[prim];
    const int exact_sum = op == PP_SUM && pp_exact_chunks(type) > 0;
    if (present[algo] && !(sums && algo == PP_ALGO_EXACT && !exact_sum)) return (int)algo;
    if (sums && algo == PP_ALGO_EXACT && exact_sum) {
        pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                "%s: PP_ALGO_EXACT (%s sums) is not available for this call on the %s backend", fn, pp_type_name(type),
                pp_backend_name(ctx->ops->id));
        return -1;
    }
    if (present[PP_ALGO_AUTO]) return PP_ALGO_AUTO;
    pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: not available on the %s backend yet", fn, pp_backend_name(ctx->ops->id));
    return -1;
}
