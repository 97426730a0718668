/* The half types (PP_F16, PP_BF16) through f32, on every backend: the
 * calls whose results are input elements, positions or counts (compaction,
 * histograms, MIN / MAX scans and segmented forms, argmin / argmax). Every
 * half value is exactly an f32 value, so the f32 call on the widened
 * elements compares, bins and orders exactly as the half values would
 * (the same C comparisons, the same documented binning expression, -0.0
 * below +0.0 and NaN propagation for MIN / MAX), and the elements it
 * returns narrow back without rounding: the half_map slot's
 * PP_HALF_MAP_WIDEN and PP_HALF_MAP_NARROW are inverses of each other on
 * all 65536 bit patterns. Compaction keeps NaN payloads (NARROW); MIN /
 * MAX give the format's quiet NaN (NARROW_QNAN), as pp_reduce's do. The
 * elements of an output that the call leaves alone (compaction's past
 * *count, a segmented scan's outside every segment) go through f32 too
 * and come back bit for bit: NARROW is exact, and a segmented scan's
 * output is widened with WIDEN_KEEP, whose NaNs carry a mark that
 * NARROW_QNAN honours.
 * Working memory: 4 bytes per element for the widened input, 4 per output
 * element; pp_select_flagged moves the 16 bits through the u16 slot.
 * The segmented PP_SUM forms are not through f32 (an f32 result rounded
 * again to the half format would round twice): they are the backend's
 * half_segmented_reduce / half_segmented_scan slots, whatever algorithm is
 * chosen (an exact accumulator, one rounding to the half format per
 * output), or PP_ERROR_UNSUPPORTED where a backend has none; half values
 * summed by key are the backend's by-key slots, or those segmented slots
 * over the runs (half_sum_by_runs). */
#include "check.h"

#include "exact_acc.h"

#include <string.h>

void pp_half_widen_host(pp_type type, const void *src, float *dst, size_t n)
{
    const uint16_t *h = (const uint16_t *)src;
    for (size_t i = 0; i < n; i++) {
        uint16_t b;
        memcpy(&b, h + i, sizeof b);
        const uint32_t f = type == PP_BF16 ? pp_xacc_bf16_to_f32(b) : pp_xacc_f16_to_f32(b);
        memcpy(dst + i, &f, sizeof f);
    }
}

/* The buffers of one call, freed together. */
typedef struct wide_bufs {
    void *p[3];
} wide_bufs;

static void wide_free(pp_context *ctx, wide_bufs *b)
{
    /* freeing never fails on a buffer just allocated; queued work keeps it alive (opencl) */
    for (int i = 0; i < 3; i++)
        if (b->p[i]) (void)ctx->ops->mem_free(ctx, b->p[i]);
}

/* A fresh buffer b->p[slot] of n f32, from n half elements at in (NULL:
 * left as allocated), widened by map (WIDEN, or WIDEN_KEEP for an output's
 * elements that the call may leave alone and NARROW_QNAN narrows back). */
static pp_status wide_alloc(pp_context *ctx, const char *fn, pp_type type, const void *in, size_t n, wide_bufs *b,
                            int slot, int map, const char *what)
{
    pp_status st = pp_alloc_buffer(ctx, fn, &b->p[slot], (n ? n : 1) * sizeof(float), what);
    if (st == PP_SUCCESS && in && n) st = ctx->ops->half_map(ctx, fn, type, map, in, b->p[slot], n);
    return st;
}

static pp_status wide_check(pp_context *ctx, const char *fn, pp_type type)
{
    if (!ctx->ops->half_map)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: type %s is not available on the %s backend yet", fn, pp_type_name(type),
             pp_backend_name(ctx->ops->id));
    return PP_SUCCESS;
}

/* The f32 slot of the algorithm chosen for prim, entered: *st is the status
 * of entering (the caller ends it); -1 with *st the failure where nothing
 * was entered. */
static int wide_pick(pp_context *ctx, const char *fn, pp_type type, const int *present, pp_primitive prim, pp_op op,
                     pp_status *st)
{
    *st = wide_check(ctx, fn, type);
    if (*st != PP_SUCCESS) return -1;
    /* MIN / MAX: never the slot of an exact f32 sum (pp_pick_slot's sums) */
    const int i = pp_pick_slot(ctx, fn, present, prim, PP_F32, op, op == PP_MIN || op == PP_MAX);
    *st = i < 0 ? PP_ERROR_UNSUPPORTED : pp_enter(ctx, fn);
    return i;
}

pp_status pp_half_select(pp_context *ctx, const pp_select_args *a)
{
    const char *fn = a->fn;
    PRESENT(present, ctx->ops->select);
    pp_status st;
    if (a->mode == PP_SELECT_FLAGGED) { /* the bits only: the u16 slot */
        pp_select_args s = *a;
        s.type = PP_U16;
        const int i = pp_pick_slot(ctx, fn, present, PP_PRIM_SELECT, PP_U16, PP_SUM, 0);
        if (i < 0) return PP_ERROR_UNSUPPORTED;
        st = pp_enter(ctx, fn);
        if (st == PP_SUCCESS) st = ctx->ops->select[i](ctx, &s);
        return pp_end(ctx, fn, st);
    }
    const int i = wide_pick(ctx, fn, a->type, present, PP_PRIM_SELECT, PP_SUM, &st);
    if (i < 0) return st;
    const size_t n = a->n;
    wide_bufs b = {{NULL, NULL, NULL}};
    float value = 0;
    if (a->value) pp_half_widen_host(a->type, a->value, &value, 1);
    if (st == PP_SUCCESS) st = wide_alloc(ctx, fn, a->type, a->in, n, &b, 0, PP_HALF_MAP_WIDEN, "the widened input");
    /* out as it was, widened: what the f32 call leaves alone (past *count)
     * narrows back to the same bits */
    const void *keep = a->mode == PP_SELECT_PARTITION ? NULL : a->out;
    if (st == PP_SUCCESS) st = wide_alloc(ctx, fn, a->type, keep, n, &b, 1, PP_HALF_MAP_WIDEN, "the widened output");
    if (st == PP_SUCCESS) {
        pp_select_args s = *a;
        s.type = PP_F32;
        s.in = b.p[0];
        s.out = b.p[1];
        s.value = a->value ? &value : NULL;
        st = ctx->ops->select[i](ctx, &s);
    }
    if (st == PP_SUCCESS && n) st = ctx->ops->half_map(ctx, fn, a->type, PP_HALF_MAP_NARROW, b.p[1], a->out, n);
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    const char *fn = a->fn;
    PRESENT(present, ctx->ops->histogram);
    pp_status st;
    const pp_type half = a->type;
    const int i = wide_pick(ctx, fn, half, present, PP_PRIM_HISTOGRAM, PP_SUM, &st);
    if (i < 0) return st;
    wide_bufs b = {{NULL, NULL, NULL}};
    if (st == PP_SUCCESS)
        st = wide_alloc(ctx, fn, half, a->samples, a->n, &b, 0, PP_HALF_MAP_WIDEN, "the widened samples");
    if (st == PP_SUCCESS) {
        pp_histogram_args h = *a; /* bounds or edges already f32 (api.c) */
        h.type = PP_F32;
        h.samples = b.p[0];
        st = ctx->ops->histogram[i](ctx, &h);
    }
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

/* Widens in (n_in) into b->p[0] and init (one element, or NULL) into
 * b->p[2]; the f32 output: b->p[0] where inplace, else b->p[1] of n_out,
 * holding out widened with WIDEN_KEEP where keep (so that what the f32
 * call leaves alone, a segmented scan's elements outside every segment,
 * narrows back to the bits that were there). *out32: that buffer. */
static pp_status wide_in_out(pp_context *ctx, const char *fn, pp_type type, const void *in, size_t n_in,
                             const void *out, size_t n_out, int inplace, int keep, const void *init, wide_bufs *b,
                             void **out32)
{
    pp_status st = wide_alloc(ctx, fn, type, in, n_in, b, 0, PP_HALF_MAP_WIDEN, "the widened input");
    if (st == PP_SUCCESS && !inplace)
        st = wide_alloc(ctx, fn, type, keep ? out : NULL, n_out, b, 1, PP_HALF_MAP_WIDEN_KEEP, "the widened output");
    if (st == PP_SUCCESS && init)
        st = wide_alloc(ctx, fn, type, init, 1, b, 2, PP_HALF_MAP_WIDEN, "the widened initial value");
    *out32 = inplace ? b->p[0] : b->p[1];
    return st;
}

pp_status pp_half_scan_minmax(pp_context *ctx, const pp_scan_args *a, int with_init)
{
    const char *fn = a->fn;
    pp_scan_fn const *slots = with_init ? ctx->ops->scan_init : ctx->ops->scan;
    PRESENT(present, slots);
    pp_status st;
    const int i = wide_pick(ctx, fn, a->type, present, PP_PRIM_SCAN, a->op, &st);
    if (i < 0) return st;
    wide_bufs b = {{NULL, NULL, NULL}};
    void *out32 = NULL;
    if (st == PP_SUCCESS)
        st = wide_in_out(ctx, fn, a->type, a->in, a->n, a->out, a->n, a->in == a->out, 0, a->init, &b, &out32);
    if (st == PP_SUCCESS) {
        pp_scan_args s = *a;
        s.type = PP_F32;
        s.in = b.p[0];
        s.out = out32;
        s.init = b.p[2];
        st = slots[i](ctx, &s);
    }
    if (st == PP_SUCCESS) st = ctx->ops->half_map(ctx, fn, a->type, PP_HALF_MAP_NARROW_QNAN, out32, a->out, a->n);
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_segmented(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const char *fn = a->fn;
    pp_segmented_fn const *slots = scan ? ctx->ops->segmented_scan : ctx->ops->segmented_reduce;
    PRESENT(present, slots);
    pp_status st;
    const int i = wide_pick(ctx, fn, a->type, present, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE, a->op, &st);
    if (i < 0) return st;
    const size_t n_out = scan ? a->n : a->nseg;
    wide_bufs b = {{NULL, NULL, NULL}};
    void *out32 = NULL;
    const int inplace = scan && a->n && a->in == a->out;
    if (st == PP_SUCCESS) /* a scan leaves the elements outside every segment alone: keep them */
        st = wide_in_out(ctx, fn, a->type, a->in, a->n, a->out, n_out, inplace, scan, NULL, &b, &out32);
    if (st == PP_SUCCESS) {
        pp_segmented_args s = *a;
        s.type = PP_F32;
        s.in = b.p[0];
        s.out = out32;
        st = slots[i](ctx, &s);
    }
    if (st == PP_SUCCESS && n_out)
        st = ctx->ops->half_map(ctx, fn, a->type, PP_HALF_MAP_NARROW_QNAN, out32, a->out, n_out);
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_arg(pp_context *ctx, const pp_arg_args *a)
{
    const char *fn = a->fn;
    PRESENT(present, ctx->ops->arg);
    pp_status st;
    const int i = wide_pick(ctx, fn, a->type, present, PP_PRIM_REDUCE, a->max ? PP_MAX : PP_MIN, &st);
    if (i < 0) return st;
    wide_bufs b = {{NULL, NULL, NULL}};
    if (st == PP_SUCCESS) st = wide_alloc(ctx, fn, a->type, a->in, a->n, &b, 0, PP_HALF_MAP_WIDEN, "the widened input");
    if (st == PP_SUCCESS) {
        pp_arg_args g = *a;
        g.type = PP_F32;
        g.in = b.p[0];
        st = ctx->ops->arg[i](ctx, &g);
    }
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_convert(pp_context *ctx, const pp_convert_args *a, int scan)
{
    const char *fn = a->fn;
    TRY(wide_check(ctx, fn, a->in_type));
    const int to32 = a->out_type == PP_F32;
    const pp_primitive prim = scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE;
    int i = ctx->algo[prim];
    if (!to32) { /* f32 -> f64: the converting slot of the chosen algorithm, or the default */
        PRESENT(present, scan ? ctx->ops->scan_to : ctx->ops->reduce_to);
        i = pp_pick_slot(ctx, fn, present, prim, PP_F64, a->op, 1);
        if (i < 0) return PP_ERROR_UNSUPPORTED;
    }
    pp_status st = pp_enter(ctx, fn);
    wide_bufs b = {{NULL, NULL, NULL}};
    void *w = a->out; /* a scan to f32 widens into out and scans it in place */
    if (st == PP_SUCCESS && scan && to32) {
        st = ctx->ops->half_map(ctx, fn, a->in_type, PP_HALF_MAP_WIDEN, a->in, w, a->n);
    } else if (st == PP_SUCCESS) {
        st = wide_alloc(ctx, fn, a->in_type, a->in, a->n, &b, 0, PP_HALF_MAP_WIDEN, "the widened input");
        w = b.p[0];
    }
    if (st == PP_SUCCESS && to32 && scan) {
        const pp_scan_args s = {fn, PP_F32, a->op, a->kind, w, a->out, a->n, NULL};
        st = ctx->ops->scan[i](ctx, &s);
    } else if (st == PP_SUCCESS && to32) {
        const pp_reduce_args r = {fn, PP_F32, a->op, w, a->n, a->out};
        st = ctx->ops->reduce[i](ctx, &r);
    } else if (st == PP_SUCCESS) {
        pp_convert_args c = *a;
        c.in_type = PP_F32;
        c.in = w;
        st = scan ? ctx->ops->scan_to[i](ctx, &c) : ctx->ops->reduce_to[i](ctx, &c);
    }
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}

pp_status pp_half_segmented_sum(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const char *fn = a->fn;
    pp_segmented_fn f = scan ? ctx->ops->half_segmented_scan : ctx->ops->half_segmented_reduce;
    if (!f)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: sums of type %s are not available on the %s backend yet", fn,
             pp_type_name(a->type), pp_backend_name(ctx->ops->id));
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = f(ctx, a);
    return pp_end(ctx, fn, st);
}

/* Half values summed by key where the backend has no half_reduce_by_key /
 * half_scan_by_key slot: the runs of the keys by the backend's
 * run_length_encode (the reduce's first keys written to keys_out, its
 * count to count), the count read back (the one host synchronization),
 * the runs' offsets by an exclusive u64 scan of their lengths in place (r
 * + 1 of them: offsets[r] is the sum of all r lengths, n, whatever the
 * length slot r held), then the half_segmented_reduce /
 * half_segmented_scan slot over those offsets: each run's sums exact,
 * rounded once. Working memory: 8 (n + 1) bytes, and for the scan the
 * runs' first keys and count. */
static pp_status half_sum_by_runs(pp_context *ctx, const pp_bykey_args *a)
{
    const char *fn = a->fn;
    const int scan = a->mode == PP_BYKEY_SCAN;
    const size_t n = a->n;
    pp_segmented_fn seg = scan ? ctx->ops->half_segmented_scan : ctx->ops->half_segmented_reduce;
    void *buf[3] = {NULL, NULL, NULL}; /* lengths, then offsets; (scan) first keys, count */
    pp_status st = pp_alloc_buffer(ctx, fn, &buf[0], (n + 1) * sizeof(uint64_t), "the runs' lengths");
    if (st == PP_SUCCESS && scan)
        st = pp_alloc_buffer(ctx, fn, &buf[1], n * pp_type_size(a->key_type), "the runs' keys");
    if (st == PP_SUCCESS && scan) st = pp_alloc_buffer(ctx, fn, &buf[2], sizeof(uint64_t), "the run count");
    uint64_t runs = 0;
    if (st == PP_SUCCESS) {
        pp_bykey_args r = {fn, PP_BYKEY_RLE, a->key_type, a->key_type, PP_SUM, PP_INCLUSIVE, a->keys, NULL, n,
                           scan ? buf[1] : a->keys_out, NULL, (uint64_t *)buf[0], scan ? (uint64_t *)buf[2] : a->count};
        st = ctx->ops->run_length_encode[PP_ALGO_AUTO](ctx, &r);
        if (st == PP_SUCCESS) st = ctx->ops->download(ctx, &runs, r.count, sizeof runs);
    }
    if (st == PP_SUCCESS && (runs < 1 || runs > n)) /* never: n >= 1 keys make 1 to n runs */
        st = pp_fail(ctx, PP_ERROR_BACKEND, "%s: the backend counted %llu runs in %zu keys", fn,
                     (unsigned long long)runs, n);
    if (st == PP_SUCCESS) {
        const pp_scan_args o = {fn, PP_U64, PP_SUM, PP_EXCLUSIVE, buf[0], buf[0], (size_t)runs + 1, NULL};
        st = ctx->ops->scan[PP_ALGO_AUTO](ctx, &o);
    }
    if (st == PP_SUCCESS) {
        const pp_segmented_args g = {fn,       a->value_type, PP_SUM, a->kind,         a->values,
                                     a->values_out, n,         (const uint64_t *)buf[0], (size_t)runs, NULL};
        st = seg(ctx, &g);
    }
    for (int i = 0; i < 3; i++)
        if (buf[i]) (void)ctx->ops->mem_free(ctx, buf[i]);
    return st;
}

pp_status pp_half_bykey(pp_context *ctx, const pp_bykey_args *a, pp_bykey_fn const *slots, pp_primitive prim)
{
    const char *fn = a->fn;
    const int rle = a->mode == PP_BYKEY_RLE, hkeys = PP_IS_HALF(a->key_type);
    pp_bykey_fn f;
    if (!rle && PP_IS_HALF(a->value_type)) { /* PP_SUM (check.c) */
        f = a->mode == PP_BYKEY_REDUCE ? ctx->ops->half_reduce_by_key : ctx->ops->half_scan_by_key;
        if (!f && (a->mode == PP_BYKEY_REDUCE ? ctx->ops->half_segmented_reduce : ctx->ops->half_segmented_scan) &&
            ctx->ops->run_length_encode[PP_ALGO_AUTO])
            f = half_sum_by_runs;
        if (!f)
            FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: sums of %s values are not available on the %s backend yet", fn,
                 pp_type_name(a->value_type), pp_backend_name(ctx->ops->id));
    } else {
        PRESENT(present, slots);
        const int i = pp_pick_slot(ctx, fn, present, prim, rle ? PP_F32 : a->value_type, a->op, !rle);
        if (i < 0) return PP_ERROR_UNSUPPORTED;
        f = slots[i];
    }
    if (hkeys) TRY(wide_check(ctx, fn, a->key_type));
    pp_status st = pp_enter(ctx, fn);
    if (!hkeys) { /* half values alone */
        if (st == PP_SUCCESS) st = f(ctx, a);
        return pp_end(ctx, fn, st);
    }
    wide_bufs b = {{NULL, NULL, NULL}};
    /* the keys, and the first keys of the runs (room for n; what the call
     * leaves past *count narrows back to the bits that were there) */
    if (st == PP_SUCCESS)
        st = wide_alloc(ctx, fn, a->key_type, a->keys, a->n, &b, 0, PP_HALF_MAP_WIDEN, "the widened keys");
    if (st == PP_SUCCESS && a->keys_out)
        st = wide_alloc(ctx, fn, a->key_type, a->keys_out, a->n, &b, 1, PP_HALF_MAP_WIDEN, "the widened keys' output");
    if (st == PP_SUCCESS) {
        pp_bykey_args k = *a;
        k.key_type = PP_F32;
        if (rle) k.value_type = PP_F32;
        k.keys = b.p[0];
        k.keys_out = a->keys_out ? b.p[1] : NULL;
        st = f(ctx, &k);
    }
    if (st == PP_SUCCESS && a->keys_out)
        st = ctx->ops->half_map(ctx, fn, a->key_type, PP_HALF_MAP_NARROW, b.p[1], a->keys_out, a->n);
    wide_free(ctx, &b);
    return pp_end(ctx, fn, st);
}
