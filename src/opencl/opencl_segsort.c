/* opencl segmented sort (pp_segmented_sort, pp_segmented_sort_pairs;
 * kernels: segsort.cl), from the sort chosen for PP_PRIM_SORT, with no
 * host synchronization (the offsets are never read back):
 *   1. idx = the stable argsort of all n keys in the order asked
 *      (pp_argsort_by_sort: the index sequence sorted with the keys);
 *   2. g[r] = the start of the segment that holds element idx[r], or
 *      idx[r] itself where none does (seg_group: a bisection of the
 *      offsets, each clamped to n);
 *   3. g sorted stably (ascending) with idx as values: each segment's
 *      elements gather at its start in the order of their keys (step 1's
 *      order among equal g), every other element keeps its place;
 *   4. keys[p] = the keys' copy at idx[p] (values likewise) where
 *      idx[p] != p (seg_gather): nothing outside the segments is written.
 * Bad offsets (decreasing, past n) give a permutation all the same:
 * unspecified results, every access in bounds, success. Working memory:
 * buffers of the call's own of n * (2 * index size + key size + value
 * size) bytes (index size 4, 8 where n > 2^32 - 1), the argsort's
 * n * (key size + index size), and the sorts' scratch. */
#include "opencl_internal.h"

typedef struct segsort_bufs {
    void *idx, *g, *kcopy, *vcopy;
} segsort_bufs;

static pp_status segsort_run(pp_context *ctx, const pp_segsort_args *a, segsort_bufs *b)
{
    const char *fn = a->fn;
    const size_t n = a->n, ks = pp_type_size(a->type), vs = a->values ? a->value_size : 0;
    const pp_type it = n > UINT32_MAX ? PP_U64 : PP_U32;
    const size_t is = pp_type_size(it);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, it));
    pp_ocl_def(&d, "SEG_KS=%zu", ks);
    pp_ocl_def(&d, "SEG_VS=%zu", vs);
    cl_kernel group, gather;
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "segsort", &d, "seg_group", &group));
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "segsort", &d, "seg_gather", &gather));
    PP_OCL_STATUS(pp_alloc_buffer(ctx, fn, &b->idx, n * is, "argsort's indices"));
    PP_OCL_STATUS(pp_alloc_buffer(ctx, fn, &b->g, n * is, "segment starts"));
    PP_OCL_STATUS(pp_alloc_buffer(ctx, fn, &b->kcopy, n * ks, "copy of the keys"));
    if (vs) PP_OCL_STATUS(pp_alloc_buffer(ctx, fn, &b->vcopy, n * vs, "copy of the values"));

    const pp_argsort_args as = {fn, a->type, a->keys, n, a->order, it, b->idx};
    PP_OCL_STATUS(pp_argsort_by_sort(ctx, &as, pp_ocl_iota));
    const size_t L = pp_ocl_group_size(ctx, 256), groups = pp_ocl_groups_for(n, L);
    cl_mem off = pp_ocl_mem(a->offsets), g = pp_ocl_mem(b->g), idx = pp_ocl_mem(b->idx);
    cl_ulong n64 = n, nseg64 = a->nseg;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, group, groups, L, PP_OCL_ARG(off), PP_OCL_ARG(nseg64), PP_OCL_ARG(n64),
                                PP_OCL_ARG(idx), PP_OCL_ARG(g)));
    const pp_sort_args s = {fn, it, b->g, b->idx, is, n, PP_ASCENDING, b->g, b->idx};
    PP_OCL_STATUS(ctx->ops->sort[ctx->algo[PP_PRIM_SORT]](ctx, &s));

    PP_OCL_STATUS(ctx->ops->copy(ctx, b->kcopy, a->keys, n * ks));
    if (vs) PP_OCL_STATUS(ctx->ops->copy(ctx, b->vcopy, a->values, n * vs));
    cl_mem keys = pp_ocl_mem(a->keys), kc = pp_ocl_mem(b->kcopy);
    cl_mem vals = vs ? pp_ocl_mem(a->values) : keys, vc = vs ? pp_ocl_mem(b->vcopy) : kc;
    return PP_OCL_LAUNCH(ctx, fn, gather, groups, L, PP_OCL_ARG(keys), PP_OCL_ARG(kc), PP_OCL_ARG(vals), PP_OCL_ARG(vc),
                         PP_OCL_ARG(idx), PP_OCL_ARG(n64));
}

pp_status pp_ocl_segmented_sort(pp_context *ctx, const pp_segsort_args *a)
{
    const size_t n = a->n, vs = a->values ? a->value_size : 0;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->keys, n * pp_type_size(a->type), "keys"},
                                     {a->values, n * vs, "values"},
                                     {a->offsets, (a->nseg + 1) * sizeof(uint64_t), "offsets"}));
    if (n < 2) return PP_SUCCESS; /* one element stays where it is */
    segsort_bufs b = {NULL, NULL, NULL, NULL};
    const pp_status st = segsort_run(ctx, a, &b);
    /* freeing never fails on a buffer just allocated; queued work keeps it alive */
    void *const all[4] = {b.idx, b.g, b.kcopy, b.vcopy};
    for (int i = 0; i < 4; i++)
        if (all[i]) (void)ctx->ops->mem_free(ctx, all[i]);
    return st;
}
