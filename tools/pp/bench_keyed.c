/* pp bench: the segmented, by-key and argsort variants: their input
 * (segments or runs of keys laid out by --segments), buffers, call, byte
 * model and check against the sequential reference, composed per segment
 * or run on the host (see bench_case.h). */
#include "bench_case.h"
#include "bench_data.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARGSORT_INDEX PP_U64 /* the index type argsort rows ask for (bench.h's byte model) */

static int is_by_key(variant v) { return v == V_REDUCE_BY_KEY || v == V_SCAN_BY_KEY || v == V_RLE; }
static int is_seg_sort(variant v) { return v == V_SEG_SORT || v == V_SEG_SORT_PAIRS; }
/* Takes offsets in context memory. */
static int takes_offsets(variant v) { return v >= V_SEG_REDUCE && v <= V_SEG_SORT_PAIRS; }

/* Bytes of the second output: values_out of reduce_by_key, the counts of
 * run_length_encode; 0 for the others. */
static size_t out2_bytes(const bench_case *c)
{
    if (c->v == V_REDUCE_BY_KEY) return c->n * c->esz;
    if (c->v == V_RLE) return c->n * sizeof(uint64_t);
    return 0;
}

/* The segments (by-key: runs) of the case's layout. The layout depends on
 * the seed, the layout and n alone, so that every variant and type of one
 * size gets the same segments. */
static const char *make_segments(bench_case *c)
{
    const seg_layout *l = &c->layout;
    data_rng r = data_seed(c->seed ^ ((uint64_t)(l->kind + 1) << 56) ^ ((uint64_t)l->len << 24) ^ (uint64_t)c->n);
    data_rng again = r;
    c->nseg = data_segments(&r, l->kind, l->len, c->n, NULL);
    c->h_offsets = (uint64_t *)xmalloc((c->nseg + 1) * sizeof(uint64_t));
    if (!c->h_offsets) return "out of host memory";
    data_segments(&again, l->kind, l->len, c->n, c->h_offsets);
    return NULL;
}

/* The host input: keys or elements in h_in, by-key values, sort values. */
static const char *make_input(bench_case *c)
{
    size_t n = c->n, esz = c->esz;
    /* As case_make_input: seeded by the case; the two segmented sorts sort
     * the same keys. */
    variant sv = c->v == V_SEG_SORT_PAIRS ? V_SEG_SORT : c->v;
    data_rng r = data_seed(c->seed ^ ((uint64_t)sv << 56) ^ ((uint64_t)c->type << 48) ^ ((uint64_t)c->op << 40) ^
                           ((uint64_t)c->layout.kind << 36) ^ ((uint64_t)c->layout.len << 8) ^ (uint64_t)n);
    const char *err = VARIANTS[c->v].uses_layout ? make_segments(c) : NULL;
    if (err) return err;
    c->h_in = xmalloc(n * esz);
    c->h_out = xmalloc(case_out_bytes(c));
    if (!c->h_in || !c->h_out) return "out of host memory";
    if (out2_bytes(c) && !(c->h_out2 = xmalloc(out2_bytes(c)))) return "out of host memory";
    if (is_by_key(c->v))
        data_run_keys(&r, c->type, c->h_in, c->h_offsets, c->nseg);
    else if (c->v == V_SEG_REDUCE || c->v == V_SEG_SCAN)
        data_for_op(&r, c->type, c->op, c->h_in, n);
    else
        data_uniform(&r, c->type, c->h_in, n);
    if (c->v == V_REDUCE_BY_KEY || c->v == V_SCAN_BY_KEY) {
        if (!(c->h_values = xmalloc(n * esz))) return "out of host memory";
        data_for_op(&r, c->type, c->op, c->h_values, n);
    }
    if (c->v == V_SEG_SORT_PAIRS) {
        c->h_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        c->h_out_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        if (!c->h_vals || !c->h_out_vals) return "out of host memory";
        for (size_t i = 0; i < n; i++) c->h_vals[i] = (uint32_t)i;
    }
    return NULL;
}

const char *keyed_setup(pp_context *ctx, bench_case *c, pp_status *st)
{
    size_t n = c->n, vb = n * SORT_VALUE_SIZE;
    const char *err = make_input(c);
    if (err) return err;
    err = context_buffer(ctx, &c->d_in, c->h_in, n * c->esz, st);
    if (!err) err = context_buffer(ctx, &c->d_out, NULL, case_out_bytes(c), st);
    if (!err && takes_offsets(c->v))
        err = context_buffer(ctx, &c->d_offsets, c->h_offsets, (c->nseg + 1) * sizeof(uint64_t), st);
    if (!err && c->h_values) err = context_buffer(ctx, &c->d_values, c->h_values, n * c->esz, st);
    if (!err && out2_bytes(c)) err = context_buffer(ctx, &c->d_out2, NULL, out2_bytes(c), st);
    if (!err && (c->v == V_REDUCE_BY_KEY || c->v == V_RLE))
        err = context_buffer(ctx, &c->d_count, NULL, sizeof(uint64_t), st);
    if (!err && c->v == V_SEG_SORT_PAIRS) err = context_buffer(ctx, &c->d_vals, c->h_vals, vb, st);
    if (!err && c->v == V_SEG_SORT_PAIRS) err = context_buffer(ctx, &c->d_vals_work, NULL, vb, st);
    return err;
}

pp_status keyed_prepare(pp_context *ctx, bench_case *c)
{
    if (!is_seg_sort(c->v)) return PP_SUCCESS;
    pp_status st = pp_copy(ctx, c->d_out, c->d_in, c->n * c->esz);
    if (st == PP_SUCCESS && c->v == V_SEG_SORT_PAIRS)
        st = pp_copy(ctx, c->d_vals_work, c->d_vals, c->n * SORT_VALUE_SIZE);
    return st == PP_SUCCESS ? pp_synchronize(ctx) : st;
}

pp_status keyed_call(pp_context *ctx, bench_case *c)
{
    pp_type t = c->type;
    size_t n = c->n;
    const uint64_t *off = (const uint64_t *)c->d_offsets;
    uint64_t *count = (uint64_t *)c->d_count;
    switch (c->v) {
    case V_SEG_REDUCE:
        return pp_segmented_reduce(ctx, t, c->op, c->d_in, n, off, c->nseg, c->d_out);
    case V_SEG_SCAN:
        return pp_segmented_scan(ctx, t, c->op, PP_INCLUSIVE, c->d_in, c->d_out, n, off, c->nseg);
    case V_SEG_SORT:
        return pp_segmented_sort(ctx, t, c->d_out, n, off, c->nseg, PP_ASCENDING);
    case V_SEG_SORT_PAIRS:
        return pp_segmented_sort_pairs(ctx, t, c->d_out, c->d_vals_work, SORT_VALUE_SIZE, n, off, c->nseg,
                                       PP_ASCENDING);
    case V_REDUCE_BY_KEY:
        return pp_reduce_by_key(ctx, t, t, c->op, c->d_in, c->d_values, n, c->d_out, c->d_out2, count);
    case V_SCAN_BY_KEY:
        return pp_scan_by_key(ctx, t, t, c->op, PP_INCLUSIVE, c->d_in, c->d_values, c->d_out, n);
    case V_RLE:
        return pp_run_length_encode(ctx, t, c->d_in, n, c->d_out, (uint64_t *)c->d_out2, count);
    case V_ARGSORT:
        return pp_argsort(ctx, t, c->d_in, n, PP_ASCENDING, ARGSORT_INDEX, c->d_out);
    default:
        return PP_ERROR_INTERNAL;
    }
}

double keyed_bytes(const bench_case *c)
{
    double n = (double)c->n, s = (double)c->esz, nseg = (double)c->nseg, off = (nseg + 1) * 8;
    switch (c->v) {
    case V_SEG_REDUCE:
        return n * s + off + nseg * s;
    case V_SEG_SCAN:
    case V_SEG_SORT:
        return 2 * n * s + off;
    case V_SEG_SORT_PAIRS:
        return 2 * n * s + 2 * n * SORT_VALUE_SIZE + off;
    case V_REDUCE_BY_KEY:
        return 2 * n * s + nseg * 2 * s + 8;
    case V_SCAN_BY_KEY:
        return 3 * n * s;
    case V_RLE:
        return n * s + nseg * (s + 8) + 8;
    case V_ARGSORT:
        return n * s + n * (double)pp_type_size(ARGSORT_INDEX);
    default:
        return 0;
    }
}

/* 0, 1, ..., n-1 as u32 or u64. */
static void iota(pp_type t, void *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (t == PP_U32)
            ((uint32_t *)dst)[i] = (uint32_t)i;
        else
            ((uint64_t *)dst)[i] = (uint64_t)i;
    }
}

/* The runs of the keys by the reference's own reading (ref_unique: the
 * first key of each run, into keys_out), which must be the layout's. */
static const char *ref_runs(bench_case *c, void *keys_out)
{
    c->r_count = ref_unique(c->type, c->h_in, c->n, keys_out);
    return c->r_count == c->nseg ? NULL : "the keys' runs are not the layout's (pp bench's data)";
}

/* The expected result of the segmented sorts: each segment sorted by the
 * reference sort (the values are the input positions, u32). */
static const char *ref_seg_sort(bench_case *c)
{
    size_t esz = c->esz;
    memcpy(c->r_out, c->h_in, c->n * esz);
    if (c->v == V_SEG_SORT_PAIRS) {
        if (!(c->r_vals = (uint32_t *)xmalloc(c->n * SORT_VALUE_SIZE))) return "out of host memory";
        iota(PP_U32, c->r_vals, c->n);
    }
    for (size_t s = 0; s < c->nseg; s++) {
        uint64_t b = c->h_offsets[s], len = c->h_offsets[s + 1] - b;
        void *vals = c->r_vals ? (void *)(c->r_vals + b) : NULL;
        ref_sort_pairs(c->type, (char *)c->r_out + b * esz, vals, vals ? SORT_VALUE_SIZE : 0, (size_t)len,
                       PP_ASCENDING);
    }
    return NULL;
}

/* argsort's: the reference sort of a copy of the keys, an index sequence
 * as values. */
static const char *ref_argsort(bench_case *c)
{
    void *keys = xmalloc(c->n * c->esz);
    if (!keys) return "out of host memory";
    memcpy(keys, c->h_in, c->n * c->esz);
    iota(ARGSORT_INDEX, c->r_out, c->n);
    ref_sort_pairs(c->type, keys, c->r_out, pp_type_size(ARGSORT_INDEX), c->n, PP_ASCENDING);
    free(keys);
    return NULL;
}

/* The expected results, computed once per case. */
static const char *keyed_reference(bench_case *c)
{
    if (c->ref_ready) return NULL;
    size_t out2 = out2_bytes(c);
    const char *err = NULL;
    c->r_out = xmalloc(case_out_bytes(c));
    if (!c->r_out || (out2 && !(c->r_out2 = xmalloc(out2)))) return "out of host memory";
    pp_type t = c->type;
    switch (c->v) {
    case V_SEG_REDUCE:
        ref_segmented_reduce(t, c->op, c->h_in, c->h_offsets, c->nseg, c->r_out);
        break;
    case V_SEG_SCAN:
        ref_segmented_scan(t, c->op, PP_INCLUSIVE, c->h_in, c->r_out, c->h_offsets, c->nseg);
        break;
    case V_REDUCE_BY_KEY:
        err = ref_runs(c, c->r_out);
        ref_segmented_reduce(t, c->op, c->h_values, c->h_offsets, c->nseg, c->r_out2);
        break;
    case V_SCAN_BY_KEY:
        err = ref_runs(c, c->h_out); /* h_out: scratch until the download */
        ref_segmented_scan(t, c->op, PP_INCLUSIVE, c->h_values, c->r_out, c->h_offsets, c->nseg);
        break;
    case V_RLE:
        err = ref_runs(c, c->r_out);
        for (size_t s = 0; s < c->nseg; s++) ((uint64_t *)c->r_out2)[s] = c->h_offsets[s + 1] - c->h_offsets[s];
        break;
    case V_ARGSORT:
        err = ref_argsort(c);
        break;
    default:
        err = ref_seg_sort(c);
        break;
    }
    c->ref_ready = !err;
    return err;
}

int keyed_check(pp_context *ctx, bench_case *c, char *msg, size_t cap, pp_status *st)
{
    *st = PP_SUCCESS;
    const char *err = keyed_reference(c);
    if (err) {
        snprintf(msg, cap, "reference: %s", err);
        return 0;
    }
    pp_type t = c->type;
    size_t n = c->n, nseg = c->nseg;
    switch (c->v) {
    case V_SEG_REDUCE:
        return check_array(ctx, t, c->h_out, c->d_out, c->r_out, nseg, "out", msg, cap, st);
    case V_REDUCE_BY_KEY:
    case V_RLE: {
        int rle = c->v == V_RLE;
        return check_array(ctx, PP_U64, &c->h_count, c->d_count, &c->r_count, 1, "count", msg, cap, st) &&
               check_array(ctx, t, c->h_out, c->d_out, c->r_out, nseg, rle ? "values_out" : "keys_out", msg, cap, st) &&
               check_array(ctx, rle ? PP_U64 : t, c->h_out2, c->d_out2, c->r_out2, nseg,
                           rle ? "counts_out" : "values_out", msg, cap, st);
    }
    case V_ARGSORT:
        return check_array(ctx, ARGSORT_INDEX, c->h_out, c->d_out, c->r_out, n, "indices", msg, cap, st);
    case V_SEG_SORT_PAIRS:
        return check_array(ctx, t, c->h_out, c->d_out, c->r_out, n, "keys", msg, cap, st) &&
               check_array(ctx, PP_U32, c->h_out_vals, c->d_vals_work, c->r_vals, n, "values", msg, cap, st);
    default:
        return check_array(ctx, t, c->h_out, c->d_out, c->r_out, n, "out", msg, cap, st);
    }
}
