/* pp_argsort on a backend whose sort reads its inputs (cpu, opencl): the
 * index sequence 0 .. n-1 (the backend's iota) into a fresh buffer, then
 * the sort slot of the algorithm chosen for PP_PRIM_SORT, out of place:
 * keys_in = the caller's keys (never written), keys = a fresh buffer for
 * the sorted keys, values_in = the sequence, values = indices. Both
 * buffers come from the backend's mem_alloc, not its scratch: the sort
 * takes (and may reallocate) the scratch itself. */
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

pp_status pp_argsort_by_sort(pp_context *ctx, const pp_argsort_args *a, pp_iota_fn iota)
{
    const size_t n = a->n, is = pp_type_size(a->index_type);
    if (n == 1) return iota(ctx, a->fn, a->index_type, a->indices, 1);
    const pp_algorithm algo = ctx->ops->sort_reads_inputs[ctx->algo[PP_PRIM_SORT]] ? ctx->algo[PP_PRIM_SORT] : PP_ALGO_AUTO;
    void *sorted = NULL, *seq = NULL;
    pp_status st = pp_alloc_buffer(ctx, a->fn, &sorted, n * pp_type_size(a->type), "sorted keys' buffer");
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, a->fn, &seq, n * is, "index sequence's buffer");
    if (st == PP_SUCCESS) st = iota(ctx, a->fn, a->index_type, seq, n);
    if (st == PP_SUCCESS) {
        const pp_sort_args s = {a->fn, a->type, sorted, a->indices, is, n, a->order, a->keys, seq};
        st = ctx->ops->sort[algo](ctx, &s);
    }
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    if (seq) (void)ctx->ops->mem_free(ctx, seq);
    if (sorted) (void)ctx->ops->mem_free(ctx, sorted);
    return st;
}
