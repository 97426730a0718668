/* The sorts of the half types (PP_F16, PP_BF16) on every backend, from two
 * slots: the backend's half_keys (the order key of each element's bits,
 * half_key.h's PP_HALF_SORT_KEY) and its stable sort of u16 keys
 * with values (the sort slot of the algorithm chosen for PP_PRIM_SORT, in
 * place). The order keys are u16 integers: NaNs all get one key (0xFFFF,
 * or 0 in PP_DESCENDING), so they keep their input order, and the keys of
 * the other values reverse in the descending orders (+0.0 before -0.0).
 * The elements' bits ride along as the values of their keys, so they come
 * out unchanged (NaN payloads kept). With values of the caller's, a second
 * stable sort of a copy of the same keys moves them: a stable sort of the
 * same keys is the same permutation, whatever the values. */
#include "check.h"

pp_status pp_half_sort_check(pp_context *ctx, const char *fn, pp_type type)
{
    if (PP_IS_HALF(type) && !ctx->ops->half_keys)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: type %s is not available on the %s backend yet", fn, pp_type_name(type),
             pp_backend_name(ctx->ops->id));
    return PP_SUCCESS;
}

/* a->keys (a->values) from a->keys_in (a->values_in) where they differ. */
static pp_status half_move_inputs(pp_context *ctx, const pp_sort_args *a)
{
    pp_status st = PP_SUCCESS;
    if (a->keys != a->keys_in) st = ctx->ops->copy(ctx, a->keys, a->keys_in, a->n * sizeof(uint16_t));
    if (st == PP_SUCCESS && a->values && a->values != a->values_in)
        st = ctx->ops->copy(ctx, a->values, a->values_in, a->n * a->value_size);
    return st;
}

/* A stable in-place sort of the u16 keys k (consumed) with values v of vsize bytes. */
static pp_status half_sort_u16(pp_context *ctx, const char *fn, void *k, void *v, size_t vsize, size_t n)
{
    const pp_sort_args s = {fn, PP_U16, k, v, vsize, n, PP_ASCENDING, k, v};
    return ctx->ops->sort[ctx->algo[PP_PRIM_SORT]](ctx, &s);
}

pp_status pp_half_sort(pp_context *ctx, const pp_sort_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n, kb = n * sizeof(uint16_t);
    void *k = NULL, *k2 = NULL;
    pp_status st = pp_alloc_buffer(ctx, fn, &k, kb, "half keys' order keys");
    if (st == PP_SUCCESS) st = ctx->ops->half_keys(ctx, fn, a->type, a->order, a->keys_in, k, n);
    if (st == PP_SUCCESS) st = half_move_inputs(ctx, a);
    if (st == PP_SUCCESS && a->values) {
        st = pp_alloc_buffer(ctx, fn, &k2, kb, "half keys' second order keys");
        if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, k2, k, kb);
        if (st == PP_SUCCESS) st = half_sort_u16(ctx, fn, k2, a->values, a->value_size, n);
    }
    if (st == PP_SUCCESS) st = half_sort_u16(ctx, fn, k, a->keys, sizeof(uint16_t), n);
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    if (k2) (void)ctx->ops->mem_free(ctx, k2);
    if (k) (void)ctx->ops->mem_free(ctx, k);
    return st;
}
