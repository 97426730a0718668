/* The segmented and by-key forms with an operator of the user's own
 * (pp_segmented_reduce_op ... pp_scan_by_key_op): the checks of the
 * built-in forms (api_keyed.c) on the operator's elements, then the
 * backend's segmented_reduce_op or segmented_scan_op slot. The by-key forms
 * find the runs with the run_length_encode slot (first keys, lengths,
 * count), read the count back, turn the lengths into offsets with an
 * exclusive u64 sum scan, and run the segmented slot on them. */
#include "check.h"

#include <stdlib.h>

/* The slot, or PP_ERROR_UNSUPPORTED with the message. */
static pp_status need_slot(pp_context *ctx, const char *fn, pp_segmented_fn slot)
{
    if (!slot)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: not available on the %s backend yet", fn, pp_backend_name(ctx->ops->id));
    return PP_SUCCESS;
}

/* What the two segmented calls share (op checked): the arrays, then the slot. */
static pp_status segmented_op(pp_context *ctx, const pp_segmented_args *a, pp_segmented_fn slot, int scan)
{
    const char *fn = a->fn;
    const pp_operator *op = a->user_op;
    TRY(pp_check_segmented(ctx, fn, a->in, a->out, a->n, a->offsets, a->nseg, op->elem, op->align, scan));
    if (a->nseg == 0) return PP_SUCCESS;
    TRY(need_slot(ctx, fn, slot));
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = slot(ctx, a);
    return pp_end(ctx, fn, st);
}

pp_status pp_segmented_reduce_op(pp_context *ctx, const pp_operator *op, const void *in, size_t n,
                                 const uint64_t *offsets, size_t nseg, void *out)
{
    static const char fn[] = "pp_segmented_reduce_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    const pp_segmented_args a = {fn, PP_U8, PP_SUM, PP_INCLUSIVE, in, out, n, offsets, nseg, op};
    return segmented_op(ctx, &a, ctx->ops->segmented_reduce_op, 0);
}

pp_status pp_segmented_scan_op(pp_context *ctx, const pp_operator *op, pp_scan_kind kind, const void *in, void *out,
                               size_t n, const uint64_t *offsets, size_t nseg)
{
    static const char fn[] = "pp_segmented_scan_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    TRY(pp_check_kind(ctx, fn, kind));
    const pp_segmented_args a = {fn, PP_U8, PP_SUM, kind, in, out, n, offsets, nseg, op};
    return segmented_op(ctx, &a, ctx->ops->segmented_scan_op, 1);
}

/* The by-key form of a (checked, n > 0) with the segmented slot seg:
 * keys_out and count are a's (reduce) or buffers of the call (scan). The
 * lengths' buffer has room for n + 1 so that the exclusive scan of nseg + 1
 * of them gives offsets[nseg] = n; its last entry, which enters no output,
 * is set to 0 first (where handles are addresses, the one entry after the
 * count is read; else the whole buffer before the runs are found), so that
 * nothing reads memory never written. */
static pp_status bykey_run(pp_context *ctx, const pp_bykey_args *a, const pp_operator *op, pp_segmented_fn seg)
{
    const char *fn = a->fn;
    const size_t n = a->n, lbytes = (n + 1) * sizeof(uint64_t);
    const int scan = a->mode == PP_BYKEY_SCAN;
    PRESENT(present, ctx->ops->run_length_encode);
    const int rle = pp_pick_slot(ctx, fn, present, PP_PRIM_SELECT, a->key_type, PP_SUM, 0);
    if (rle < 0) return PP_ERROR_UNSUPPORTED;
    void *buf[4] = {NULL, NULL, NULL, NULL}; /* lengths, offsets, keys_out and count (scan) */
    pp_status st = pp_alloc_buffer(ctx, fn, &buf[0], lbytes, "runs' lengths");
    if (st == PP_SUCCESS) st = pp_alloc_buffer(ctx, fn, &buf[1], lbytes, "runs' offsets");
    if (st == PP_SUCCESS && scan)
        st = pp_alloc_buffer(ctx, fn, &buf[2], n * pp_type_size(a->key_type), "runs' first keys");
    if (st == PP_SUCCESS && scan) st = pp_alloc_buffer(ctx, fn, &buf[3], sizeof(uint64_t), "runs' count");
    void *keys_out = scan ? buf[2] : a->keys_out;
    uint64_t *count = scan ? (uint64_t *)buf[3] : a->count;
    uint64_t nseg = 0;
    if (st == PP_SUCCESS && !ctx->ops->addressable) {
        void *zeros = calloc(n + 1, sizeof(uint64_t));
        st = zeros ? ctx->ops->upload(ctx, buf[0], zeros, lbytes)
                   : pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        free(zeros);
    }
    if (st == PP_SUCCESS) {
        const pp_bykey_args r = {fn, PP_BYKEY_RLE, a->key_type, a->key_type, PP_SUM, PP_INCLUSIVE, a->keys, NULL,
                                 n,  keys_out,     NULL,        buf[0],      count};
        st = ctx->ops->run_length_encode[rle](ctx, &r);
    }
    if (st == PP_SUCCESS) st = ctx->ops->download(ctx, &nseg, count, sizeof nseg);
    if (st == PP_SUCCESS && (nseg < 1 || nseg > n))
        st = pp_fail(ctx, PP_ERROR_INTERNAL, "%s: the runs' count (%llu) is not in 1 .. n", fn,
                     (unsigned long long)nseg);
    if (st == PP_SUCCESS && ctx->ops->addressable) {
        const uint64_t zero = 0;
        st = ctx->ops->upload(ctx, (char *)buf[0] + nseg * sizeof(uint64_t), &zero, sizeof zero);
    }
    if (st == PP_SUCCESS) {
        const pp_scan_args s = {fn, PP_U64, PP_SUM, PP_EXCLUSIVE, buf[0], buf[1], (size_t)nseg + 1, NULL};
        st = ctx->ops->scan[PP_ALGO_AUTO](ctx, &s);
    }
    if (st == PP_SUCCESS) {
        const pp_segmented_args g = {
            fn, PP_U8, PP_SUM, a->kind, a->values, a->values_out, n, (const uint64_t *)buf[1], (size_t)nseg, op};
        st = seg(ctx, &g);
    }
    for (int i = 0; i < 4; i++)
        if (buf[i]) (void)ctx->ops->mem_free(ctx, buf[i]);
    return st;
}

/* What the two by-key calls share (op and kind checked): the arrays, count
 * = 0 for n == 0, else the runs and the segmented slot. */
static pp_status bykey_op(pp_context *ctx, const pp_bykey_args *a, const pp_operator *op, pp_segmented_fn seg)
{
    const char *fn = a->fn;
    TRY(pp_check_type_n(ctx, fn, a->key_type, a->n));
    TRY(pp_check_bykey(ctx, a, op->elem, op->align));
    if (a->n == 0 && a->mode == PP_BYKEY_SCAN) return PP_SUCCESS;
    TRY(need_slot(ctx, fn, seg));
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS && a->n == 0) {
        const uint64_t zero = 0;
        st = ctx->ops->upload(ctx, a->count, &zero, sizeof zero);
    } else if (st == PP_SUCCESS)
        st = bykey_run(ctx, a, op, seg);
    return pp_end(ctx, fn, st);
}

pp_status pp_reduce_by_key_op(pp_context *ctx, pp_type key_type, const pp_operator *op, const void *keys,
                              const void *values, size_t n, void *keys_out, void *values_out, uint64_t *count)
{
    static const char fn[] = "pp_reduce_by_key_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    const pp_bykey_args a = {fn, PP_BYKEY_REDUCE, key_type,   key_type, PP_SUM, PP_INCLUSIVE, keys, values,
                             n,  keys_out,        values_out, NULL,     count};
    return bykey_op(ctx, &a, op, ctx->ops->segmented_reduce_op);
}

pp_status pp_scan_by_key_op(pp_context *ctx, pp_type key_type, const pp_operator *op, pp_scan_kind kind,
                            const void *keys, const void *values, void *out, size_t n)
{
    static const char fn[] = "pp_scan_by_key_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    TRY(pp_check_kind(ctx, fn, kind));
    const pp_bykey_args a = {fn, PP_BYKEY_SCAN, key_type, key_type, PP_SUM, kind, keys, values,
                             n,  NULL,          out,      NULL,     NULL};
    return bykey_op(ctx, &a, op, ctx->ops->segmented_scan_op);
}
