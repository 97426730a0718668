/* The entry points of the segmented, by-key and index primitives
 * (pp_segmented_reduce ... pp_argsort): arguments checked here, once, then
 * the slot of the backend table that the chosen algorithm picks
 * (internal.h, pp_backend_ops). */
#include "check.h"

/* The offsets array of nseg + 1 entries (nseg >= 1): present and aligned. */
static pp_status check_offsets_arg(pp_context *ctx, const char *fn, const uint64_t *offsets)
{
    NEED(offsets, "offsets");
    ALIGNED(offsets, sizeof(uint64_t), "offsets");
    return PP_SUCCESS;
}

/* nseg + 1 offsets of 8 bytes fit size_t (so nseg elements of any type do). */
static pp_status check_nseg(pp_context *ctx, const char *fn, size_t nseg)
{
    if (nseg > SIZE_MAX / sizeof(uint64_t) - 1)
        INVALID(ctx, "%s: nseg = %zu: nseg + 1 offsets overflow size_t bytes", fn, nseg);
    return PP_SUCCESS;
}

pp_status pp_check_segmented(pp_context *ctx, const char *fn, const void *in, const void *out, size_t n,
                             const uint64_t *offsets, size_t nseg, size_t sz, size_t align, int scan)
{
    TRY(check_nseg(ctx, fn, nseg));
    if (nseg == 0) return PP_SUCCESS;
    const size_t inbytes = n * sz, outbytes = scan ? inbytes : nseg * sz;
    const size_t offbytes = (nseg + 1) * sizeof(uint64_t);
    TRY(check_offsets_arg(ctx, fn, offsets));
    if (n) NEED(in, "in");
    if (outbytes) NEED(out, "out");
    ALIGNED(in, align, "in");
    ALIGNED(out, align, "out");
    if (in != out || !scan)
        NO_OVERLAP(out, outbytes, "out", in, inbytes, scan ? "in (only in == out is allowed)" : "in");
    NO_OVERLAP(out, outbytes, "out", offsets, offbytes, "offsets");
    return PP_SUCCESS;
}

/* What the two segmented calls share: checks (type, op and kind done),
 * then the slot. out: nseg elements (reduce) or n (scan). */
static pp_status segmented_common(pp_context *ctx, const pp_segmented_args *a, pp_segmented_fn const *slots,
                                  pp_primitive prim)
{
    const char *fn = a->fn;
    const size_t sz = pp_type_size(a->type);
    TRY(pp_check_segmented(ctx, fn, a->in, a->out, a->n, a->offsets, a->nseg, sz, sz, prim == PP_PRIM_SCAN));
    if (a->nseg == 0) return PP_SUCCESS;
    if (PP_IS_HALF(a->type)) /* half_wide.c */
        return a->op == PP_SUM ? pp_half_segmented_sum(ctx, a, prim == PP_PRIM_SCAN)
                               : pp_half_segmented(ctx, a, prim == PP_PRIM_SCAN);
    RUN_PICKED(slots, prim, a->type, a->op, 1, a);
}

pp_status pp_segmented_reduce(pp_context *ctx, pp_type type, pp_op op, const void *in, size_t n,
                              const uint64_t *offsets, size_t nseg, void *out)
{
    static const char fn[] = "pp_segmented_reduce";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_op(ctx, fn, type, op));
    const pp_segmented_args a = {fn, type, op, PP_INCLUSIVE, in, out, n, offsets, nseg, NULL};
    return segmented_common(ctx, &a, ctx->ops->segmented_reduce, PP_PRIM_REDUCE);
}

pp_status pp_segmented_scan(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                            size_t n, const uint64_t *offsets, size_t nseg)
{
    static const char fn[] = "pp_segmented_scan";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_op(ctx, fn, type, op));
    TRY(pp_check_kind(ctx, fn, kind));
    const pp_segmented_args a = {fn, type, op, kind, in, out, n, offsets, nseg, NULL};
    return segmented_common(ctx, &a, ctx->ops->segmented_scan, PP_PRIM_SCAN);
}

/* pp_segmented_sort and pp_segmented_sort_pairs (values NULL, value_size
 * 0 for keys only). */
static pp_status segsort_common(pp_context *ctx, const pp_segsort_args *a)
{
    const char *fn = a->fn;
    const int pairs = a->values != NULL || a->value_size != 0;
    const size_t n = a->n, vsize = a->value_size;
    TRY(pp_check_type_n(ctx, fn, a->type, n));
    TRY(pp_check_order(ctx, fn, a->order));
    TRY(check_nseg(ctx, fn, a->nseg));
    if (pairs) {
        if (vsize != 1 && vsize != 2 && vsize != 4 && vsize != 8)
            INVALID(ctx, "%s: value_size = %zu must be 1, 2, 4 or 8", fn, vsize);
        if (n > SIZE_MAX / vsize) INVALID(ctx, "%s: n * value_size overflows size_t", fn);
    }
    if (a->nseg == 0 || n == 0) return PP_SUCCESS;
    const size_t ks = pp_type_size(a->type), kb = n * ks, vb = pairs ? n * vsize : 0;
    const size_t offbytes = (a->nseg + 1) * sizeof(uint64_t);
    TRY(check_offsets_arg(ctx, fn, a->offsets));
    NEED(a->keys, "keys");
    ALIGNED(a->keys, ks, "keys");
    NO_OVERLAP(a->keys, kb, "keys", a->offsets, offbytes, "offsets");
    if (pairs) {
        NEED(a->values, "values");
        ALIGNED(a->values, vsize, "values");
        NO_OVERLAP(a->values, vb, "values", a->keys, kb, "keys");
        NO_OVERLAP(a->values, vb, "values", a->offsets, offbytes, "offsets");
    }
    if (PP_IS_HALF(a->type)) return pp_half_segsort(ctx, a); /* half_sort.c */
    RUN_PICKED(ctx->ops->segmented_sort, PP_PRIM_SORT, a->type, PP_SUM, 0, a);
}

pp_status pp_segmented_sort(pp_context *ctx, pp_type type, void *keys, size_t n, const uint64_t *offsets, size_t nseg,
                            pp_order order)
{
    static const char fn[] = "pp_segmented_sort";
    PP_BEGIN(ctx, fn);
    const pp_segsort_args a = {fn, type, keys, NULL, 0, n, offsets, nseg, order};
    return segsort_common(ctx, &a);
}

pp_status pp_segmented_sort_pairs(pp_context *ctx, pp_type type, void *keys, void *values, size_t value_size, size_t n,
                                  const uint64_t *offsets, size_t nseg, pp_order order)
{
    static const char fn[] = "pp_segmented_sort_pairs";
    PP_BEGIN(ctx, fn);
    if (value_size == 0) INVALID(ctx, "%s: value_size = 0 must be 1, 2, 4 or 8", fn);
    const pp_segsort_args a = {fn, type, keys, values, value_size, n, offsets, nseg, order};
    return segsort_common(ctx, &a);
}

pp_status pp_check_bykey(pp_context *ctx, const pp_bykey_args *a, size_t vs, size_t valign)
{
    const char *fn = a->fn;
    const size_t n = a->n, ks = pp_type_size(a->key_type);
    const size_t kb = n * ks, vb = n * vs, cb = n * sizeof(uint64_t);
    const char *kname = a->mode == PP_BYKEY_RLE ? "in" : "keys";
    const char *koname = a->mode == PP_BYKEY_RLE ? "values_out" : "keys_out";
    const char *voname = a->mode == PP_BYKEY_SCAN ? "out" : "values_out";
    if (a->mode != PP_BYKEY_SCAN) {
        NEED(a->count, "count");
        ALIGNED(a->count, sizeof(uint64_t), "count");
    }
    if (n) {
        NEED(a->keys, kname);
        ALIGNED(a->keys, ks, kname);
        if (a->mode != PP_BYKEY_RLE) {
            NEED(a->values, "values");
            ALIGNED(a->values, valign, "values");
            NEED(a->values_out, voname);
            ALIGNED(a->values_out, valign, voname);
        }
        if (a->mode != PP_BYKEY_SCAN) {
            NEED(a->keys_out, koname);
            ALIGNED(a->keys_out, ks, koname);
        }
        if (a->mode == PP_BYKEY_RLE) {
            NEED(a->counts_out, "counts_out");
            ALIGNED(a->counts_out, sizeof(uint64_t), "counts_out");
        }
    }
    /* Every pair of arrays (an absent one has no bytes and overlaps
   * nothing), but out == values for the scan. */
    const void *arr[6] = {a->keys, a->values, a->keys_out, a->values_out, a->counts_out, a->count};
    const size_t bytes[6] = {kb,
                             a->values ? vb : 0,
                             a->keys_out ? kb : 0,
                             a->values_out ? vb : 0,
                             a->counts_out ? cb : 0,
                             a->count ? sizeof(uint64_t) : 0};
    const char *names[6] = {kname, "values", koname, voname, "counts_out", "count"};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) {
            if (!arr[i] || !arr[j] || !bytes[i] || !bytes[j]) continue;
            if (i == 1 && j == 3 && a->mode == PP_BYKEY_SCAN && arr[i] == arr[j]) continue;
            NO_OVERLAP(arr[i], bytes[i], names[i], arr[j], bytes[j],
                       i == 1 && j == 3 ? "values (only out == values is allowed)" : names[j]);
        }
    return PP_SUCCESS;
}

/* What the by-key calls share (types and op checked): the arrays, then
 * count = 0 for n == 0, else the slot. */
static pp_status bykey_common(pp_context *ctx, const pp_bykey_args *a, pp_bykey_fn const *slots, pp_primitive prim)
{
    const char *fn = a->fn;
    const size_t vs = pp_type_size(a->value_type);
    TRY(pp_check_bykey(ctx, a, vs, vs));
    if (a->n == 0) {
        if (a->mode == PP_BYKEY_SCAN) return PP_SUCCESS;
        const uint64_t zero = 0;
        pp_status st = pp_enter(ctx, fn);
        if (st == PP_SUCCESS) st = ctx->ops->upload(ctx, a->count, &zero, sizeof zero);
        return pp_end(ctx, fn, st);
    }
    if (PP_IS_HALF(a->key_type) || PP_IS_HALF(a->value_type))
        return pp_half_bykey(ctx, a, slots, prim); /* half_wide.c */
    RUN_PICKED(slots, prim, a->value_type, a->op, a->mode != PP_BYKEY_RLE, a);
}

pp_status pp_reduce_by_key(pp_context *ctx, pp_type key_type, pp_type value_type, pp_op op, const void *keys,
                           const void *values, size_t n, void *keys_out, void *values_out, uint64_t *count)
{
    static const char fn[] = "pp_reduce_by_key";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_key_type_n(ctx, fn, key_type, n));
    TRY(pp_check_type_n(ctx, fn, value_type, n));
    TRY(pp_check_op(ctx, fn, value_type, op));
    const pp_bykey_args a = {fn, PP_BYKEY_REDUCE, key_type,   value_type, op,   PP_INCLUSIVE, keys, values,
                             n,  keys_out,        values_out, NULL,       count};
    return bykey_common(ctx, &a, ctx->ops->reduce_by_key, PP_PRIM_REDUCE);
}

pp_status pp_scan_by_key(pp_context *ctx, pp_type key_type, pp_type value_type, pp_op op, pp_scan_kind kind,
                         const void *keys, const void *values, void *out, size_t n)
{
    static const char fn[] = "pp_scan_by_key";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_key_type_n(ctx, fn, key_type, n));
    TRY(pp_check_type_n(ctx, fn, value_type, n));
    TRY(pp_check_op(ctx, fn, value_type, op));
    TRY(pp_check_kind(ctx, fn, kind));
    const pp_bykey_args a = {fn, PP_BYKEY_SCAN, key_type, value_type, op, kind, keys, values, n, NULL, out, NULL, NULL};
    return bykey_common(ctx, &a, ctx->ops->scan_by_key, PP_PRIM_SCAN);
}

pp_status pp_run_length_encode(pp_context *ctx, pp_type type, const void *in, size_t n, void *values_out,
                               uint64_t *counts_out, uint64_t *count)
{
    static const char fn[] = "pp_run_length_encode";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_key_type_n(ctx, fn, type, n));
    if (n > SIZE_MAX / sizeof(uint64_t)) INVALID(ctx, "%s: n = %zu counts overflow size_t bytes", fn, n);
    const pp_bykey_args a = {fn, PP_BYKEY_RLE, type, type,       PP_SUM, PP_INCLUSIVE, in, NULL,
                             n,  values_out,   NULL, counts_out, count};
    return bykey_common(ctx, &a, ctx->ops->run_length_encode, PP_PRIM_SELECT);
}

pp_status pp_argsort(pp_context *ctx, pp_type type, const void *keys, size_t n, pp_order order, pp_type index_type,
                     void *indices)
{
    static const char fn[] = "pp_argsort";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_order(ctx, fn, order));
    if (index_type != PP_U32 && index_type != PP_U64)
        INVALID(ctx, "%s: index_type = %d must be PP_U32 or PP_U64", fn, (int)index_type);
    if (index_type == PP_U32 && n > UINT32_MAX)
        INVALID(ctx, "%s: n = %zu does not fit PP_U32 indices (use PP_U64)", fn, n);
    TRY(pp_check_type_n(ctx, fn, index_type, n));
    if (n == 0) return PP_SUCCESS;
    const size_t ks = pp_type_size(type), is = pp_type_size(index_type);
    NEED(keys, "keys");
    NEED(indices, "indices");
    ALIGNED(keys, ks, "keys");
    ALIGNED(indices, is, "indices");
    NO_OVERLAP(indices, n * is, "indices", keys, n * ks, "keys");
    TRY(pp_half_sort_check(ctx, fn, type));
    const pp_argsort_args a = {fn, type, keys, n, order, index_type, indices};
    RUN_PICKED(ctx->ops->argsort, PP_PRIM_SORT, type, PP_SUM, 0, &a);
}
