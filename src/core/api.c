/* The primitives' entry points: every argument is checked here, once, before
 * the call goes to the slot of the context's backend table for the
 * algorithm chosen (pp_set_algorithm accepted only non-NULL slots). */
#include "check.h"

#include "exact_acc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host scalar helpers (generated per type) --------------------------------------- */

/* a < b in the element type; NaN compares false. */
static int host_less(pp_type type, const void *a, const void *b)
{
    switch (type) {
#define X(E, T, S, K, U, W)               \
    case E: {                             \
        T x, y;                           \
        memcpy(&x, a, sizeof x);          \
        memcpy(&y, b, sizeof y);          \
        return x < y;                     \
    }
        PP_FOR_EACH_TYPE(X)
#undef X
    default: break; /* the half types: never here (src/core/check.c) */
    }
    return 0;
}

/* The value of an element of type as a double (rounded to nearest for
 * 64-bit integers, as a backend's conversion rounds it). */
static double host_double(pp_type type, const void *a)
{
    switch (type) {
#define X(E, T, S, K, U, W)      \
    case E: {                    \
        T x;                     \
        memcpy(&x, a, sizeof x); \
        return (double)x;        \
    }
        PP_FOR_EACH_TYPE(X)
#undef X
    default: break; /* the half types: never here (src/core/check.c) */
    }
    return 0;
}

/* Range bins: whether the bin of every sample is found by pp_hist_guess
 * and one step to a neighbour, which holds where the guess of each inner
 * edge edges[i] is i or i - 1 (the guess is monotone in x, so a sample of
 * bin i is guessed between the guesses of edges[i] and edges[i + 1], that
 * is i - 1, i or i + 1). Sets a->guess_scale (0: search the edges). */
static void histogram_guess(pp_histogram_args *a)
{
    const size_t sz = pp_type_size(a->type), nb = a->nbins;
    const char *e = (const char *)a->edges;
    const double lo = host_double(a->type, e), hi = host_double(a->type, e + nb * sz);
    const double scale = (double)nb / (hi - lo);
    a->guess_lo = lo;
    a->guess_scale = 0;
    if (nb < 2 || !isfinite(lo) || !isfinite(hi) || !(scale > 0) || !isfinite(scale)) return;
    for (size_t i = 1; i < nb; i++) {
        const uint64_t g = pp_hist_guess(host_double(a->type, e + i * sz), lo, scale, nb);
        if (g != i && g + 1 != i) return;
    }
    a->guess_scale = scale;
}

static int host_finite(pp_type type, const void *a)
{
    if (type == PP_F32) {
        float x;
        memcpy(&x, a, sizeof x);
        return isfinite(x);
    }
    if (type == PP_F64) {
        double x;
        memcpy(&x, a, sizeof x);
        return isfinite(x);
    }
    return 1;
}

/* ---- primitives --------------------------------------------------------------------- */

/* A half-type reduce (r, ra) or scan (s, sa) through the backend's half
 * slot, the same whatever algorithm is chosen. */
static pp_status half_run(pp_context *ctx, const char *fn, pp_type type, pp_reduce_fn r, pp_scan_fn s,
                          const pp_reduce_args *ra, const pp_scan_args *sa)
{
    if (ra ? !r : !s)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: type %s is not available on the %s backend yet", fn, pp_type_name(type),
             pp_backend_name(ctx->ops->id));
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = ra ? r(ctx, ra) : s(ctx, sa);
    return pp_end(ctx, fn, st);
}

pp_status pp_reduce(pp_context *ctx, pp_type type, pp_op op, const void *in, size_t n, void *out)
{
    static const char fn[] = "pp_reduce";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_op(ctx, fn, type, op));
    if (n) NEED(in, "in");
    NEED(out, "out");
    ALIGNED(in, pp_type_size(type), "in");
    ALIGNED(out, pp_type_size(type), "out");
    const pp_reduce_args a = {fn, type, op, in, n, out};
    return pp_reduce_run(ctx, &a);
}

pp_status pp_reduce_run(pp_context *ctx, const pp_reduce_args *a)
{
    const char *fn = a->fn;
    if (PP_IS_HALF(a->type)) return half_run(ctx, fn, a->type, ctx->ops->half_reduce, NULL, a, NULL);
    DISPATCH(reduce, PP_PRIM_REDUCE, a);
}

/* pp_scan and pp_scan_init (with_init: a->init is the initial value, one
 * element not overlapping out): the checks, then pp_scan_run. */
static pp_status scan_common(pp_context *ctx, const pp_scan_args *a, int with_init)
{
    const char *fn = a->fn;
    const size_t sz = pp_type_size(a->type);
    TRY(pp_check_type_n(ctx, fn, a->type, a->n));
    TRY(pp_check_op(ctx, fn, a->type, a->op));
    TRY(pp_check_kind(ctx, fn, a->kind));
    if (a->n == 0) return PP_SUCCESS;
    NEED(a->in, "in");
    NEED(a->out, "out");
    if (with_init) NEED(a->init, "init");
    ALIGNED(a->in, sz, "in");
    ALIGNED(a->out, sz, "out");
    ALIGNED(a->init, sz, "init");
    const size_t bytes = a->n * sz;
    if (a->in != a->out) NO_OVERLAP(a->out, bytes, "out", a->in, bytes, "in (only in == out is allowed)");
    if (with_init) NO_OVERLAP(a->out, bytes, "out", a->init, sz, "init");
    return pp_scan_run(ctx, a, with_init);
}

/* The slot of a checked scan (pp_scan_init's picked among the scan_init
 * slots, which a backend may lack). */
pp_status pp_scan_run(pp_context *ctx, const pp_scan_args *a, int with_init)
{
    const char *fn = a->fn;
    if (PP_IS_HALF(a->type) && a->op == PP_SUM)
        return half_run(ctx, fn, a->type, NULL, with_init ? ctx->ops->half_scan_init : ctx->ops->half_scan, NULL, a);
    if (PP_IS_HALF(a->type)) return pp_half_scan_minmax(ctx, a, with_init); /* half_wide.c */
    if (!with_init) DISPATCH(scan, PP_PRIM_SCAN, a);
    RUN_PICKED(ctx->ops->scan_init, PP_PRIM_SCAN, a->type, a->op, 1, a);
}

pp_status pp_scan(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                  size_t n)
{
    static const char fn[] = "pp_scan";
    PP_BEGIN(ctx, fn);
    const pp_scan_args a = {fn, type, op, kind, in, out, n, NULL};
    return scan_common(ctx, &a, 0);
}

pp_status pp_scan_init(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n,
                       const void *init)
{
    static const char fn[] = "pp_scan_init";
    PP_BEGIN(ctx, fn);
    const pp_scan_args a = {fn, type, op, kind, in, out, n, init};
    return scan_common(ctx, &a, 1);
}

/* sum += the exact sum of in[0..n): the backend's exact_sum slot into a
 * fresh accumulator, checked (a malformed one is a bug of the backend),
 * then added to a copy of *sum, so a failure leaves *sum as it was. */
pp_status pp_exact_accumulate(pp_context *ctx, pp_type type, const void *in, size_t n, pp_exact_sum *sum)
{
    static const char fn[] = "pp_exact_accumulate";
    char why[160];
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    if (!pp_exact_chunks(type))
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: type %s has no exact sum (f32 and f64 only)", fn, pp_type_name(type));
    if (n) NEED(in, "in");
    NEED(sum, "sum");
    ALIGNED(in, pp_type_size(type), "in");
    if (pp_exact_malformed(type, sum->word, why, sizeof why))
        INVALID(ctx, "%s: argument 'sum' is not an exact sum of %s: %s", fn, pp_type_name(type), why);
    if (!ctx->ops->exact_sum)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: the %s backend has no exact accumulators", fn,
             pp_backend_name(ctx->ops->id));
    if (n == 0) return PP_SUCCESS;
    int64_t acc[PP_EXACT_WORDS] = {0};
    const pp_reduce_args a = {fn, type, PP_SUM, in, n, NULL};
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = ctx->ops->exact_sum(ctx, &a, acc);
    if ((st = pp_end(ctx, fn, st)) != PP_SUCCESS) return st;
    acc[pp_exact_chunks(type)] |= PP_XACC_NONEMPTY;
    if (pp_exact_malformed(type, acc, why, sizeof why))
        FAIL(ctx, PP_ERROR_INTERNAL, "%s: the %s backend's accumulator is malformed: %s", fn,
             pp_backend_name(ctx->ops->id), why);
    if (!pp_exact_add(type, sum->word, acc))
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: " PP_EXACT_RANGE_MSG, fn);
    return PP_SUCCESS;
}

static pp_status histogram_common(pp_context *ctx, const char *fn, pp_type type, const void *samples, size_t n,
                                  size_t nbins, uint64_t *counts)
{
    TRY(pp_check_type_n(ctx, fn, type, n));
    if (n) NEED(samples, "samples");
    if (nbins == 0) INVALID(ctx, "%s: nbins is 0", fn);
    if (nbins > SIZE_MAX / sizeof(uint64_t) - 1) INVALID(ctx, "%s: nbins = %zu is too large", fn, nbins);
    NEED(counts, "counts");
    ALIGNED(samples, pp_type_size(type), "samples");
    ALIGNED(counts, sizeof(uint64_t), "counts");
    NO_OVERLAP(counts, nbins * sizeof(uint64_t), "counts", samples, n * pp_type_size(type), "samples");
    return PP_SUCCESS;
}

pp_status pp_histogram_even(pp_context *ctx, pp_type type, const void *samples, size_t n, const void *lower,
                            const void *upper, size_t nbins, uint64_t *counts)
{
    static const char fn[] = "pp_histogram_even";
    PP_BEGIN(ctx, fn);
    TRY(histogram_common(ctx, fn, type, samples, n, nbins, counts));
    NEED(lower, "lower");
    NEED(upper, "upper");
    /* the half types: the bounds as f32 (the same values), checked and binned as f32's */
    float wide[2];
    const pp_type bt = PP_IS_HALF(type) ? PP_F32 : type;
    if (PP_IS_HALF(type)) {
        pp_half_widen_host(type, lower, &wide[0], 1);
        pp_half_widen_host(type, upper, &wide[1], 1);
        lower = &wide[0];
        upper = &wide[1];
    }
    if (!host_finite(bt, lower) || !host_finite(bt, upper)) INVALID(ctx, "%s: 'lower' and 'upper' must be finite", fn);
    if (!host_less(bt, lower, upper)) INVALID(ctx, "%s: 'lower' must be less than 'upper'", fn);
    const pp_histogram_args a = {fn, type, samples, n, nbins, lower, upper, NULL, counts, 0, 0};
    if (PP_IS_HALF(type)) return pp_half_histogram(ctx, &a); /* half_wide.c */
    DISPATCH(histogram, PP_PRIM_HISTOGRAM, &a);
}

/* pp_histogram_range from the edges' check on; edges of type, or f32 where
 * type is a half type (widened by the caller). */
static pp_status histogram_range_checked(pp_context *ctx, const char *fn, pp_type type, const void *samples, size_t n,
                                         const void *edges, size_t nbins, uint64_t *counts)
{
    const pp_type et = PP_IS_HALF(type) ? PP_F32 : type;
    const size_t sz = pp_type_size(et);
    const char *e = (const char *)edges;
    for (size_t i = 0; i < nbins; i++)
        if (!host_less(et, e + i * sz, e + (i + 1) * sz))
            INVALID(ctx, "%s: 'edges' must increase strictly (edges[%zu] >= edges[%zu], or NaN)", fn, i, i + 1);
    pp_histogram_args a = {fn, et, samples, n, nbins, NULL, NULL, edges, counts, 0, 0};
    histogram_guess(&a);
    a.type = type;
    if (PP_IS_HALF(type)) return pp_half_histogram(ctx, &a); /* half_wide.c */
    DISPATCH(histogram, PP_PRIM_HISTOGRAM, &a);
}

pp_status pp_histogram_range(pp_context *ctx, pp_type type, const void *samples, size_t n, const void *edges,
                             size_t nbins, uint64_t *counts)
{
    static const char fn[] = "pp_histogram_range";
    PP_BEGIN(ctx, fn);
    TRY(histogram_common(ctx, fn, type, samples, n, nbins, counts));
    NEED(edges, "edges");
    if ((uintptr_t)edges % pp_type_size(type))
        INVALID(ctx, "%s: argument 'edges' is not aligned to %zu bytes", fn, pp_type_size(type));
    if (PP_IS_HALF(type)) { /* the edges as f32 (the same values), checked and binned as f32's */
        float *wide = nbins < SIZE_MAX / sizeof(float) ? malloc((nbins + 1) * sizeof(float)) : NULL;
        if (!wide) FAIL(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: no host memory for %zu widened edges", fn, nbins + 1);
        pp_half_widen_host(type, edges, wide, nbins + 1);
        pp_status st = histogram_range_checked(ctx, fn, type, samples, n, wide, nbins, counts);
        free(wide);
        return st;
    }
    return histogram_range_checked(ctx, fn, type, samples, n, edges, nbins, counts);
}

static pp_status select_common(pp_context *ctx, const pp_select_args *a)
{
    const char *fn = a->fn;
    TRY(pp_check_type_n(ctx, fn, a->type, a->n));
    if (a->mode == PP_SELECT_IF || a->mode == PP_SELECT_PARTITION) {
        TRY(pp_check_cmp(ctx, fn, a->cmp));
        NEED(a->value, "value");
    }
    NEED(a->count, "count");
    size_t bytes = a->n * pp_type_size(a->type);
    if (a->n) {
        NEED(a->in, "in");
        if (a->mode == PP_SELECT_FLAGGED) NEED(a->flags, "flags");
        NEED(a->out, "out");
    }
    ALIGNED(a->in, pp_type_size(a->type), "in");
    ALIGNED(a->out, pp_type_size(a->type), "out");
    ALIGNED(a->count, sizeof(uint64_t), "count");
    /* Every pair of out, in, flags (n bytes; NULL unless FLAGGED) and
     * count. With n == 0 the arrays have no bytes and overlap nothing. */
    NO_OVERLAP(a->out, bytes, "out", a->in, bytes, "in");
    NO_OVERLAP(a->out, bytes, "out", a->flags, a->n, "flags");
    NO_OVERLAP(a->in, bytes, "in", a->flags, a->n, "flags");
    NO_OVERLAP(a->count, sizeof(uint64_t), "count", a->in, bytes, "in");
    NO_OVERLAP(a->count, sizeof(uint64_t), "count", a->out, bytes, "out");
    NO_OVERLAP(a->count, sizeof(uint64_t), "count", a->flags, a->n, "flags");
    if (PP_IS_HALF(a->type)) return pp_half_select(ctx, a); /* half_wide.c */
    DISPATCH(select, PP_PRIM_SELECT, a);
}

pp_status pp_select_flagged(pp_context *ctx, pp_type type, const void *in, const uint8_t *flags, size_t n,
                            void *out, uint64_t *count)
{
    static const char fn[] = "pp_select_flagged";
    PP_BEGIN(ctx, fn);
    const pp_select_args a = {fn, type, PP_SELECT_FLAGGED, in, flags, n, PP_LT, NULL, out, count};
    return select_common(ctx, &a);
}

pp_status pp_select_if(pp_context *ctx, pp_type type, const void *in, size_t n, pp_cmp cmp, const void *value,
                       void *out, uint64_t *count)
{
    static const char fn[] = "pp_select_if";
    PP_BEGIN(ctx, fn);
    const pp_select_args a = {fn, type, PP_SELECT_IF, in, NULL, n, cmp, value, out, count};
    return select_common(ctx, &a);
}

pp_status pp_unique(pp_context *ctx, pp_type type, const void *in, size_t n, void *out, uint64_t *count)
{
    static const char fn[] = "pp_unique";
    PP_BEGIN(ctx, fn);
    const pp_select_args a = {fn, type, PP_SELECT_UNIQUE, in, NULL, n, PP_LT, NULL, out, count};
    return select_common(ctx, &a);
}

pp_status pp_partition_if(pp_context *ctx, pp_type type, const void *in, size_t n, pp_cmp cmp,
                          const void *value, void *out, uint64_t *count)
{
    static const char fn[] = "pp_partition_if";
    PP_BEGIN(ctx, fn);
    const pp_select_args a = {fn, type, PP_SELECT_PARTITION, in, NULL, n, cmp, value, out, count};
    return select_common(ctx, &a);
}

/* The copy slot, bytes from src to dst for the sort's fallback (and n ==
 * 1); a failure's message names the call and both arrays, then the slot's
 * own message (which names pp_copy). */
static pp_status sort_copy_array(pp_context *ctx, const char *fn, void *dst, const char *dname, const void *src,
                                 const char *sname, size_t bytes)
{
    if (dst == src) return PP_SUCCESS;
    pp_status st = ctx->ops->copy(ctx, dst, src, bytes);
    if (st == PP_SUCCESS) return st;
    char why[sizeof ctx->error];
    snprintf(why, sizeof why, "%s", ctx->failed ? ctx->error : pp_status_string(st));
    FAIL(ctx, st, "%s: copying '%s' into '%s' failed: %s", fn, sname, dname, why);
}

/* pp_sort, pp_sort_pairs (a->keys_in == a->keys, a->values_in ==
 * a->values) and their _copy forms (copy: messages name keys_in,
 * keys_out, values_in, values_out). Where the backend's sort reads no
 * inputs, where n == 1, or where one array is sorted in place and the other
 * not, what moves is copied into the outputs first (the copy slot) and the
 * sort runs in place, so a backend sees both in place or neither. */
static pp_status sort_common(pp_context *ctx, const pp_sort_args *a, int pairs, int copy)
{
    const char *fn = a->fn;
    const char *kin = copy ? "keys_in" : "keys", *kout = copy ? "keys_out" : "keys";
    const char *vin = copy ? "values_in" : "values", *vout = copy ? "values_out" : "values";
    const size_t n = a->n, vsize = a->value_size;
    TRY(pp_check_type_n(ctx, fn, a->type, n));
    TRY(pp_check_order(ctx, fn, a->order));
    if (pairs) {
        if (vsize != 1 && vsize != 2 && vsize != 4 && vsize != 8)
            INVALID(ctx, "%s: value_size = %zu must be 1, 2, 4 or 8", fn, vsize);
        if (n > SIZE_MAX / vsize) INVALID(ctx, "%s: n * value_size overflows size_t", fn);
    }
    if (n == 0) return PP_SUCCESS;
    const size_t ksize = pp_type_size(a->type), kb = n * ksize, vb = pairs ? n * vsize : 0;
    NEED(a->keys_in, kin);
    ALIGNED(a->keys_in, ksize, kin);
    if (pairs) {
        NEED(a->values_in, vin);
        ALIGNED(a->values_in, vsize, vin);
    }
    if (copy) {
        NEED(a->keys, kout);
        ALIGNED(a->keys, ksize, kout);
        if (pairs) {
            NEED(a->values, vout);
            ALIGNED(a->values, vsize, vout);
        }
    }
    /* every pair of the (up to) four arrays but an output and its own input */
    if (a->keys != a->keys_in)
        NO_OVERLAP(a->keys, kb, kout, a->keys_in, kb, "keys_in (only keys_out == keys_in is allowed)");
    if (pairs) {
        if (a->values != a->values_in)
            NO_OVERLAP(a->values, vb, vout, a->values_in, vb, "values_in (only values_out == values_in is allowed)");
        NO_OVERLAP(a->values, vb, vout, a->keys, kb, kout);
        if (copy) {
            NO_OVERLAP(a->values, vb, vout, a->keys_in, kb, kin);
            NO_OVERLAP(a->keys, kb, kout, a->values_in, vb, vin);
            NO_OVERLAP(a->values_in, vb, vin, a->keys_in, kb, kin);
        }
    }
    TRY(pp_half_sort_check(ctx, fn, a->type));
    const int kmove = a->keys != a->keys_in, vmove = pairs && a->values != a->values_in;
    if (n == 1 && !kmove && !vmove) return PP_SUCCESS;
    pp_sort_args s = *a;
    if (!pairs) s.values = NULL, s.values_in = NULL;
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS && (n == 1 || !ctx->ops->sort_reads_inputs[ctx->algo[PP_PRIM_SORT]] || (pairs && kmove != vmove))) {
        st = sort_copy_array(ctx, fn, s.keys, kout, s.keys_in, kin, kb);
        if (st == PP_SUCCESS && pairs) st = sort_copy_array(ctx, fn, s.values, vout, s.values_in, vin, vb);
        s.keys_in = s.keys;
        s.values_in = s.values;
    }
    if (st == PP_SUCCESS && n > 1)
        st = PP_IS_HALF(a->type) ? pp_half_sort(ctx, &s) : ctx->ops->sort[ctx->algo[PP_PRIM_SORT]](ctx, &s);
    return pp_end(ctx, fn, st);
}

pp_status pp_sort(pp_context *ctx, pp_type type, void *keys, size_t n, pp_order order)
{
    static const char fn[] = "pp_sort";
    PP_BEGIN(ctx, fn);
    const pp_sort_args a = {fn, type, keys, NULL, 0, n, order, keys, NULL};
    return sort_common(ctx, &a, 0, 0);
}

pp_status pp_sort_pairs(pp_context *ctx, pp_type type, void *keys, void *values, size_t value_size, size_t n,
                        pp_order order)
{
    static const char fn[] = "pp_sort_pairs";
    PP_BEGIN(ctx, fn);
    const pp_sort_args a = {fn, type, keys, values, value_size, n, order, keys, values};
    return sort_common(ctx, &a, 1, 0);
}

pp_status pp_sort_copy(pp_context *ctx, pp_type type, const void *keys_in, void *keys_out, size_t n, pp_order order)
{
    static const char fn[] = "pp_sort_copy";
    PP_BEGIN(ctx, fn);
    const pp_sort_args a = {fn, type, keys_out, NULL, 0, n, order, keys_in, NULL};
    return sort_common(ctx, &a, 0, 1);
}

pp_status pp_sort_pairs_copy(pp_context *ctx, pp_type type, const void *keys_in, const void *values_in,
                             void *keys_out, void *values_out, size_t value_size, size_t n, pp_order order)
{
    static const char fn[] = "pp_sort_pairs_copy";
    PP_BEGIN(ctx, fn);
    const pp_sort_args a = {fn, type, keys_out, values_out, value_size, n, order, keys_in, values_in};
    return sort_common(ctx, &a, 1, 1);
}
