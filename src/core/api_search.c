/* The entry points of search and merge (pp_lower_bound, pp_upper_bound,
 * pp_merge, pp_merge_pairs): arguments checked here, once, then the slot of
 * the backend table that the algorithm chosen for PP_PRIM_SORT picks
 * (internal.h, pp_backend_ops; RUN_PICKED in check.h). The order of the
 * sorted inputs is not checked (the backends stay in bounds without it). */
#include "check.h"

/* pp_lower_bound and pp_upper_bound (upper 0 or 1). */
static pp_status search_common(pp_context *ctx, const char *fn, int upper, pp_type type, const void *sorted, size_t n,
                               pp_order order, const void *queries, size_t m, uint64_t *out)
{
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_order(ctx, fn, order));
    /* (m results of 8 bytes fit, so do m queries) */
    if (m > SIZE_MAX / sizeof(uint64_t)) INVALID(ctx, "%s: m = %zu results overflow size_t bytes", fn, m);
    if (m == 0) return PP_SUCCESS;
    const size_t ks = pp_type_size(type);
    if (n) NEED(sorted, "sorted");
    NEED(queries, "queries");
    NEED(out, "out");
    ALIGNED(sorted, ks, "sorted");
    ALIGNED(queries, ks, "queries");
    ALIGNED(out, sizeof(uint64_t), "out");
    NO_OVERLAP(out, m * sizeof(uint64_t), "out", sorted, n * ks, "sorted");
    NO_OVERLAP(out, m * sizeof(uint64_t), "out", queries, m * ks, "queries");
    const pp_search_args a = {fn, type, sorted, n, order, queries, m, upper, out};
    if (PP_IS_HALF(type)) return pp_half_search(ctx, &a); /* half_sort.c */
    RUN_PICKED(ctx->ops->search, PP_PRIM_SORT, type, PP_SUM, 0, &a);
}

pp_status pp_lower_bound(pp_context *ctx, pp_type type, const void *sorted, size_t n, pp_order order,
                         const void *queries, size_t m, uint64_t *out)
{
    return search_common(ctx, "pp_lower_bound", 0, type, sorted, n, order, queries, m, out);
}

pp_status pp_upper_bound(pp_context *ctx, pp_type type, const void *sorted, size_t n, pp_order order,
                         const void *queries, size_t m, uint64_t *out)
{
    return search_common(ctx, "pp_upper_bound", 1, type, sorted, n, order, queries, m, out);
}

/* pp_merge and pp_merge_pairs (value_size 0 for keys only). */
static pp_status merge_common(pp_context *ctx, const pp_merge_args *a)
{
    const char *fn = a->fn;
    const int pairs = a->value_size != 0;
    const size_t na = a->na, nb = a->nb, vs = a->value_size;
    TRY(pp_check_type_n(ctx, fn, a->type, 0));
    const size_t ks = pp_type_size(a->type);
    if (na > SIZE_MAX / ks) INVALID(ctx, "%s: na = %zu keys overflow size_t bytes", fn, na);
    if (nb > SIZE_MAX / ks) INVALID(ctx, "%s: nb = %zu keys overflow size_t bytes", fn, nb);
    if (na > SIZE_MAX - nb) INVALID(ctx, "%s: na + nb = %zu + %zu overflows size_t", fn, na, nb);
    const size_t n = na + nb;
    if (n > SIZE_MAX / ks)
        INVALID(ctx, "%s: na + nb = %zu keys of %s overflow size_t bytes", fn, n, pp_type_name(a->type));
    TRY(pp_check_order(ctx, fn, a->order));
    if (pairs) {
        if (vs != 1 && vs != 2 && vs != 4 && vs != 8) INVALID(ctx, "%s: value_size = %zu must be 1, 2, 4 or 8", fn, vs);
        if (n > SIZE_MAX / vs) INVALID(ctx, "%s: (na + nb) * value_size overflows size_t", fn);
    }
    if (n == 0) return PP_SUCCESS;
    /* every array of the call: the inputs (a side of 0 keys may be NULL),
     * then the outputs */
    const void *arr[6] = {a->a_keys, a->b_keys, a->a_values, a->b_values, a->keys_out, a->values_out};
    const size_t bytes[6] = {na * ks, nb * ks, na * vs, nb * vs, n * ks, n * vs};
    const size_t align[6] = {ks, ks, vs, vs, ks, vs};
    static const char *const names[6] = {"a_keys", "b_keys", "a_values", "b_values", "keys_out", "values_out"};
    for (int i = 0; i < 6; i++) {
        if (!pairs && (i == 2 || i == 3 || i == 5)) continue;
        if (bytes[i]) NEED(arr[i], names[i]);
        ALIGNED(arr[i], align[i], names[i]);
    }
    /* the outputs overlap nothing (the inputs may overlap one another:
     * they are only read) */
    for (int o = 4; o < 6; o++)
        for (int i = 0; i < o; i++) {
            if (!arr[i] || !arr[o] || !bytes[i] || !bytes[o]) continue;
            NO_OVERLAP(arr[o], bytes[o], names[o], arr[i], bytes[i], names[i]);
        }
    if (PP_IS_HALF(a->type)) return pp_half_merge(ctx, a); /* half_sort.c */
    RUN_PICKED(ctx->ops->merge, PP_PRIM_SORT, a->type, PP_SUM, 0, a);
}

pp_status pp_merge(pp_context *ctx, pp_type type, const void *a, size_t na, const void *b, size_t nb, void *out,
                   pp_order order)
{
    static const char fn[] = "pp_merge";
    PP_BEGIN(ctx, fn);
    const pp_merge_args m = {fn, type, a, NULL, na, b, NULL, nb, 0, out, NULL, order};
    return merge_common(ctx, &m);
}

pp_status pp_merge_pairs(pp_context *ctx, pp_type type, const void *a_keys, const void *a_values, size_t na,
                         const void *b_keys, const void *b_values, size_t nb, size_t value_size, void *keys_out,
                         void *values_out, pp_order order)
{
    static const char fn[] = "pp_merge_pairs";
    PP_BEGIN(ctx, fn);
    if (value_size == 0) INVALID(ctx, "%s: value_size = 0 must be 1, 2, 4 or 8", fn);
    const pp_merge_args m = {fn,       type, a_keys,     a_values, na,         b_keys,
                             b_values, nb,   value_size, keys_out, values_out, order};
    return merge_common(ctx, &m);
}
