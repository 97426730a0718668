/* opencl search and merge: pp_lower_bound, pp_upper_bound, pp_merge and
 * pp_merge_pairs (kernels: search.cl, built after sort_keys.cl so that
 * keys compare by the sort's own radix key and order mask).
 *   search: one work-item per query (grid-stride), a binary search
 *     without data-dependent branches over the sorted keys;
 *   merge: the merge path, one work-item per part of MERGE_CHUNK outputs
 *     (grid-stride): both ends' splits by a binary search on the diagonal,
 *     then the two-finger merge of the part, a's key first among equals.
 * One launch each, no working memory, nothing read back; every index is in
 * bounds whatever the inputs hold (unsorted: unspecified results). The
 * programs are built per key width (keys move as their bits) and value
 * size, like the sort's. */
#include "opencl_internal.h"

/* Outputs per work-item of the merge. */
#define MERGE_CHUNK 32

/* The kernel `name` of search.cl for keys of ks bytes in order, values of
 * vs bytes (0: none). sort_keys.cl's head needs its defines: L, ITEMS and
 * OFF64 as any sort program (its kernels go unused here). */
static pp_status search_kernel(pp_context *ctx, const char *fn, pp_type type, pp_order order, size_t vs,
                               const char *name, cl_kernel *k, size_t *L)
{
    *L = pp_ocl_group_size(ctx, 128);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    pp_ocl_def(&d, "KS=%zu", pp_type_size(type));
    pp_ocl_def(&d, "VS=%zu", vs);
    pp_ocl_def(&d, "L=%zu", *L);
    pp_ocl_def(&d, "ITEMS=1");
    pp_ocl_def(&d, "OFF64=0");
    if (pp_ocl_sort_nan_last(type, order)) pp_ocl_def(&d, "NAN_LAST=1");
    return pp_ocl_kernel(ctx, fn, "search", &d, name, k);
}

pp_status pp_ocl_search(pp_context *ctx, const pp_search_args *a)
{
    const size_t ks = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->n ? a->sorted : NULL, a->n * ks, "sorted"},
                                     {a->queries, a->m * ks, "queries"}, {a->out, a->m * 8, "out"}));
    cl_kernel k;
    size_t L;
    PP_OCL_STATUS(search_kernel(ctx, a->fn, a->type, a->order, 0, "search_bounds", &k, &L));
    cl_mem s = pp_ocl_mem(a->n ? a->sorted : a->queries), q = pp_ocl_mem(a->queries), out = pp_ocl_mem(a->out);
    const cl_ulong n = a->n, m = a->m, xmask = pp_ocl_sort_xmask(a->type, ks, a->order);
    const cl_uint is_float = pp_type_kind(a->type) == PP_KIND_FLOAT, upper = (cl_uint)a->upper;
    return PP_OCL_LAUNCH(ctx, a->fn, k, pp_ocl_groups_for(a->m, L), L, PP_OCL_ARG(s), PP_OCL_ARG(n), PP_OCL_ARG(q),
                         PP_OCL_ARG(m), PP_OCL_ARG(out), PP_OCL_ARG(is_float), PP_OCL_ARG(xmask), PP_OCL_ARG(upper));
}

pp_status pp_ocl_merge(pp_context *ctx, const pp_merge_args *a)
{
    const size_t ks = pp_type_size(a->type), vs = a->value_size, n = a->na + a->nb;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(
        ctx, a->fn, {a->na ? a->a_keys : NULL, a->na * ks, "a_keys"}, {a->nb ? a->b_keys : NULL, a->nb * ks, "b_keys"},
        {a->na && vs ? a->a_values : NULL, a->na * vs, "a_values"},
        {a->nb && vs ? a->b_values : NULL, a->nb * vs, "b_values"}, {a->keys_out, n * ks, "keys_out"},
        {vs ? a->values_out : NULL, n * vs, "values_out"}));
    cl_kernel k;
    size_t L;
    PP_OCL_STATUS(search_kernel(ctx, a->fn, a->type, a->order, vs, "merge_path", &k, &L));
    /* an empty side, and absent values, are passed as a buffer of the call
     * (never read nor written) */
    cl_mem ak = pp_ocl_mem(a->na ? a->a_keys : a->b_keys), bk = pp_ocl_mem(a->nb ? a->b_keys : a->a_keys);
    cl_mem ko = pp_ocl_mem(a->keys_out), vo = vs ? pp_ocl_mem(a->values_out) : ko;
    cl_mem av = vs && a->na ? pp_ocl_mem(a->a_values) : ak, bv = vs && a->nb ? pp_ocl_mem(a->b_values) : bk;
    const cl_ulong na = a->na, nb = a->nb, chunk = MERGE_CHUNK, xmask = pp_ocl_sort_xmask(a->type, ks, a->order);
    const cl_uint is_float = pp_type_kind(a->type) == PP_KIND_FLOAT;
    const size_t parts = n / MERGE_CHUNK + (n % MERGE_CHUNK != 0);
    return PP_OCL_LAUNCH(ctx, a->fn, k, pp_ocl_groups_for(parts, L), L, PP_OCL_ARG(ak), PP_OCL_ARG(av), PP_OCL_ARG(na),
                         PP_OCL_ARG(bk), PP_OCL_ARG(bv), PP_OCL_ARG(nb), PP_OCL_ARG(ko), PP_OCL_ARG(vo),
                         PP_OCL_ARG(chunk), PP_OCL_ARG(is_float), PP_OCL_ARG(xmask));
}
