/* The sorts, searches and merges of the half types (PP_F16, PP_BF16) on
 * every backend, from two slots: the backend's half_map (the order key of
 * each element's bits, half_key.h's PP_HALF_SORT_KEY) and its calls on
 * u16 keys (the sort slot of the algorithm chosen for PP_PRIM_SORT, in
 * place; search and merge likewise). The order keys are u16 integers:
 * NaNs all get one key (0xFFFF, or 0 in PP_DESCENDING), so they keep
 * their input order, and the keys of the other values reverse in the
 * descending orders (+0.0 before -0.0). The elements' bits ride along as
 * the values of their keys, so they come out unchanged (NaN payloads
 * kept). With values of the caller's, a second stable sort of a copy of
 * the same keys moves them: a stable sort of the same keys is the same
 * permutation, whatever the values. pp_top_k: the first k of such a sort. */
#include "check.h"

pp_status pp_half_sort_check(pp_context *ctx, const char *fn, pp_type type)
{
    if (PP_IS_HALF(type) && !ctx->ops->half_map)
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

/* The order keys of n half elements at in (type, order) into a fresh
 * buffer *k (NULL when n == 0: a side of 0 keys may be NULL). */
static pp_status half_keys_into(pp_context *ctx, const char *fn, pp_type type, pp_order order, const void *in, size_t n,
                                void **k)
{
    *k = NULL;
    if (n == 0) return PP_SUCCESS;
    pp_status st = pp_alloc_buffer(ctx, fn, k, n * sizeof(uint16_t), "half keys' order keys");
    if (st == PP_SUCCESS) st = ctx->ops->half_map(ctx, fn, type, order, in, *k, n);
    return st;
}

static void half_free(pp_context *ctx, void *const *bufs, int count)
{
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    for (int i = 0; i < count; i++)
        if (bufs[i]) (void)ctx->ops->mem_free(ctx, bufs[i]);
}

pp_status pp_half_sort(pp_context *ctx, const pp_sort_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n, kb = n * sizeof(uint16_t);
    void *bufs[2] = {NULL, NULL}; /* the order keys and their copy (with values) */
    pp_status st = half_keys_into(ctx, fn, a->type, a->order, a->keys_in, n, &bufs[0]);
    if (st == PP_SUCCESS) st = half_move_inputs(ctx, a);
    if (st == PP_SUCCESS && a->values) {
        st = pp_alloc_buffer(ctx, fn, &bufs[1], kb, "half keys' second order keys");
        if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, bufs[1], bufs[0], kb);
        if (st == PP_SUCCESS) st = half_sort_u16(ctx, fn, bufs[1], a->values, a->value_size, n);
    }
    if (st == PP_SUCCESS) st = half_sort_u16(ctx, fn, bufs[0], a->keys, sizeof(uint16_t), n);
    half_free(ctx, bufs, 2);
    return st;
}

/* pp_top_k of the half types: the first k of a stable sort of a copy of
 * the keys, and, where indices are wanted, the first k of the argsort slot's
 * permutation (the same stable order: ties by input position). Working
 * memory: n keys and n u64 indices. */
pp_status pp_half_top_k(pp_context *ctx, const pp_top_k_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n, k = a->k, kb = n * sizeof(uint16_t);
    void *bufs[2] = {NULL, NULL}; /* the sorted copy, the permutation */
    pp_status st = pp_alloc_buffer(ctx, fn, &bufs[0], kb, "top-k's sorted keys");
    if (st == PP_SUCCESS && n >= 2) {
        const pp_sort_args s = {fn, a->type, bufs[0], NULL, 0, n, a->order, a->in, NULL};
        st = pp_half_sort(ctx, &s);
    } else if (st == PP_SUCCESS)
        st = ctx->ops->copy(ctx, bufs[0], a->in, kb);
    if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, a->keys_out, bufs[0], k * sizeof(uint16_t));
    if (st == PP_SUCCESS && a->indices_out) {
        PRESENT(present, ctx->ops->argsort);
        const int i = pp_pick_slot(ctx, fn, present, PP_PRIM_SORT, a->type, PP_SUM, 0);
        st = i < 0 ? PP_ERROR_UNSUPPORTED
                   : pp_alloc_buffer(ctx, fn, &bufs[1], n * sizeof(uint64_t), "top-k's permutation");
        if (st == PP_SUCCESS) {
            const pp_argsort_args g = {fn, a->type, a->in, n, a->order, PP_U64, bufs[1]};
            st = ctx->ops->argsort[i](ctx, &g);
        }
        if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, a->indices_out, bufs[1], k * sizeof(uint64_t));
    }
    half_free(ctx, bufs, 2);
    return st;
}

/* Search and merge of the half types: the same calls on the order keys
 * (u16, PP_ASCENDING whatever the order), which keep "before" and
 * equality (the NaNs one key, -0.0 and +0.0 two). A merge moves the bits
 * as the values of their keys (then the caller's values, by a second
 * merge of the same keys: a stable merge is unique). The slot is that of
 * the algorithm chosen for PP_PRIM_SORT (pp_pick_slot), as for the other
 * types. */
/* The slot (present: the table's slots there) that the call fn on type
 * picks, with *st the status of entering the call (the caller ends it);
 * -1 with *st the failure where nothing was entered. */
static int half_pick(pp_context *ctx, const char *fn, pp_type type, const int *present, pp_status *st)
{
    *st = pp_half_sort_check(ctx, fn, type);
    if (*st != PP_SUCCESS) return -1;
    const int i = pp_pick_slot(ctx, fn, present, PP_PRIM_SORT, type, PP_SUM, 0);
    *st = i < 0 ? PP_ERROR_UNSUPPORTED : pp_enter(ctx, fn);
    return i;
}

pp_status pp_half_search(pp_context *ctx, const pp_search_args *a)
{
    const char *fn = a->fn;
    PRESENT(present, ctx->ops->search);
    pp_status st;
    const int i = half_pick(ctx, fn, a->type, present, &st);
    if (i < 0) return st;
    void *bufs[2] = {NULL, NULL}; /* the keys of sorted and of the queries */
    if (st == PP_SUCCESS) st = half_keys_into(ctx, fn, a->type, a->order, a->sorted, a->n, &bufs[0]);
    if (st == PP_SUCCESS) st = half_keys_into(ctx, fn, a->type, a->order, a->queries, a->m, &bufs[1]);
    if (st == PP_SUCCESS) {
        const pp_search_args s = {fn, PP_U16, bufs[0], a->n, PP_ASCENDING, bufs[1], a->m, a->upper, a->out};
        st = ctx->ops->search[i](ctx, &s);
    }
    half_free(ctx, bufs, 2);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_merge(pp_context *ctx, const pp_merge_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->na + a->nb;
    void *bufs[3] = {NULL, NULL, NULL}; /* the keys of a and b, the merged keys */
    PRESENT(present, ctx->ops->merge);
    pp_status st;
    const int i = half_pick(ctx, fn, a->type, present, &st);
    if (i < 0) return st;
    if (st == PP_SUCCESS) st = half_keys_into(ctx, fn, a->type, a->order, a->a_keys, a->na, &bufs[0]);
    if (st == PP_SUCCESS) st = half_keys_into(ctx, fn, a->type, a->order, a->b_keys, a->nb, &bufs[1]);
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, fn, &bufs[2], n * sizeof(uint16_t), "merged order keys");
    if (st == PP_SUCCESS) {
        const pp_merge_args m = {fn,        PP_U16, bufs[0],          a->a_keys, a->na,       bufs[1],
                                 a->b_keys, a->nb,  sizeof(uint16_t), bufs[2],   a->keys_out, PP_ASCENDING};
        st = ctx->ops->merge[i](ctx, &m);
    }
    if (st == PP_SUCCESS && a->value_size) {
        const pp_merge_args m = {fn,          PP_U16, bufs[0],       a->a_values, a->na,         bufs[1],
                                 a->b_values, a->nb,  a->value_size, bufs[2],     a->values_out, PP_ASCENDING};
        st = ctx->ops->merge[i](ctx, &m);
    }
    half_free(ctx, bufs, 3);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_segsort(pp_context *ctx, const pp_segsort_args *a)
{
    const char *fn = a->fn;
    PRESENT(present, ctx->ops->segmented_sort);
    pp_status st;
    const int i = half_pick(ctx, fn, a->type, present, &st);
    if (i < 0) return st;
    const size_t n = a->n, kb = n * sizeof(uint16_t);
    void *bufs[2] = {NULL, NULL}; /* the order keys and their copy (with values) */
    if (st == PP_SUCCESS) st = half_keys_into(ctx, fn, a->type, a->order, a->keys, n, &bufs[0]);
    if (st == PP_SUCCESS && a->values) {
        st = pp_alloc_buffer(ctx, fn, &bufs[1], kb, "half keys' second order keys");
        if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, bufs[1], bufs[0], kb);
        if (st == PP_SUCCESS) {
            const pp_segsort_args s = {fn, PP_U16,     bufs[1], a->values,   a->value_size,
                                       n,  a->offsets, a->nseg, PP_ASCENDING};
            st = ctx->ops->segmented_sort[i](ctx, &s);
        }
    }
    if (st == PP_SUCCESS) {
        const pp_segsort_args s = {fn, PP_U16,     bufs[0], a->keys,     sizeof(uint16_t),
                                   n,  a->offsets, a->nseg, PP_ASCENDING};
        st = ctx->ops->segmented_sort[i](ctx, &s);
    }
    half_free(ctx, bufs, 2);
    return pp_end(ctx, fn, st);
}
