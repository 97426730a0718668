/* pp_argsort on a backend whose sort reads its inputs (cpu, opencl): the
 * index sequence 0 .. n-1 (the backend's iota) into a fresh buffer, then
 * the sort slot of the algorithm chosen for PP_PRIM_SORT, out of place:
 * keys_in = the caller's keys (never written), keys = a fresh buffer for
 * the sorted keys, values_in = the sequence, values = indices. Both
 * buffers come from the backend's mem_alloc, not its scratch: the sort
 * takes (and may reallocate) the scratch itself. pp_argsort_sort_into is
 * the same on buffers the backend provides (cuda keeps one). The half
 * types go through pp_half_sort (half_sort.c) instead of the sort slot. */
#include "internal.h"

#include <stdio.h>

pp_status pp_alloc_buffer(pp_context *ctx, const char *fn, void **p, size_t bytes, const char *what)
{
    pp_status st = ctx->ops->mem_alloc(ctx, p, bytes);
    if (st == PP_SUCCESS) return st;
    char why[sizeof ctx->error];
    snprintf(why, sizeof why, "%s", ctx->failed ? ctx->error : pp_status_string(st));
    return pp_fail(ctx, st, "%s: the %s (%zu bytes) could not be allocated: %s", fn, what, bytes, why);
}

pp_status pp_argsort_sort_into(pp_context *ctx, const pp_argsort_args *a, pp_iota_fn iota, void *sorted, void *seq)
{
    const pp_algorithm algo = ctx->ops->sort_reads_inputs[ctx->algo[PP_PRIM_SORT]] ? ctx->algo[PP_PRIM_SORT] : PP_ALGO_AUTO;
    pp_status st = iota(ctx, a->fn, a->index_type, seq, a->n);
    if (st != PP_SUCCESS) return st;
    const pp_sort_args s = {a->fn, a->type, sorted, a->indices, pp_type_size(a->index_type), a->n, a->order, a->keys, seq};
    return PP_IS_HALF(a->type) ? pp_half_sort(ctx, &s) : ctx->ops->sort[algo](ctx, &s);
}

pp_status pp_argsort_by_sort(pp_context *ctx, const pp_argsort_args *a, pp_iota_fn iota)
{
    const size_t n = a->n, is = pp_type_size(a->index_type);
    if (n == 1) return iota(ctx, a->fn, a->index_type, a->indices, 1);
    void *sorted = NULL, *seq = NULL;
    pp_status st = pp_alloc_buffer(ctx, a->fn, &sorted, n * pp_type_size(a->type), "sorted keys' buffer");
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, a->fn, &seq, n * is, "index sequence's buffer");
    if (st == PP_SUCCESS) st = pp_argsort_sort_into(ctx, a, iota, sorted, seq);
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    if (seq) (void)ctx->ops->mem_free(ctx, seq);
    if (sorted) (void)ctx->ops->mem_free(ctx, sorted);
    return st;
}

/* pp_top_k from the backend's argsort machinery: the stable sort of the
 * keys with the index sequence (pp_argsort_sort_into into fresh buffers of
 * n keys and twice n indices), then the first k keys and indices copied
 * into the outputs (the copy slot). 1 <= k <= n. */
pp_status pp_top_k_by_sort(pp_context *ctx, const pp_top_k_args *a, pp_iota_fn iota)
{
    const size_t n = a->n, k = a->k, ks = pp_type_size(a->type), is = sizeof(uint64_t);
    if (n == 1) {
        pp_status st = ctx->ops->copy(ctx, a->keys_out, a->in, ks);
        if (st == PP_SUCCESS && a->indices_out) st = iota(ctx, a->fn, PP_U64, a->indices_out, 1);
        return st;
    }
    void *sorted = NULL, *seq = NULL, *perm = NULL;
    pp_status st = pp_alloc_buffer(ctx, a->fn, &sorted, n * ks, "sorted keys' buffer");
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, a->fn, &seq, n * is, "index sequence's buffer");
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, a->fn, &perm, n * is, "permutation's buffer");
    const pp_argsort_args s = {a->fn, a->type, a->in, n, a->order, PP_U64, perm};
    if (st == PP_SUCCESS) st = pp_argsort_sort_into(ctx, &s, iota, sorted, seq);
    if (st == PP_SUCCESS) st = ctx->ops->copy(ctx, a->keys_out, sorted, k * ks);
    if (st == PP_SUCCESS && a->indices_out) st = ctx->ops->copy(ctx, a->indices_out, perm, k * is);
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    void *const bufs[3] = {perm, seq, sorted};
    for (int i = 0; i < 3; i++)
        if (bufs[i]) (void)ctx->ops->mem_free(ctx, bufs[i]);
    return st;
}
