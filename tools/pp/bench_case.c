/* pp bench: one case, its buffers and its call (see bench_case.h). */
#include "bench_case.h"
#include "bench_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void case_free(pp_context *ctx, bench_case *c)
{
    pp_free(ctx, c->d_in);
    pp_free(ctx, c->d_out);
    pp_free(ctx, c->d_flags);
    pp_free(ctx, c->d_vals);
    pp_free(ctx, c->d_vals_work);
    pp_free(ctx, c->d_count);
    pp_free(ctx, c->d_offsets);
    pp_free(ctx, c->d_values);
    pp_free(ctx, c->d_out2);
    free(c->h_offsets);
    free(c->h_values);
    free(c->h_out2);
    free(c->r_out2);
    free(c->h_in);
    free(c->h_flags);
    free(c->h_vals);
    free(c->h_edges);
    free(c->h_out);
    free(c->h_out_vals);
    free(c->r_out);
    free(c->r_vals);
    memset(c, 0, sizeof *c);
}

size_t case_out_bytes(const bench_case *c)
{
    switch (c->v) {
    case V_REDUCE: return c->esz;
    case V_SEG_REDUCE: return c->nseg * c->esz;
    case V_ARGSORT: return c->n * sizeof(uint64_t);
    case V_HIST_EVEN:
    case V_HIST_RANGE: return c->nbins * sizeof(uint64_t);
    default: return c->n * c->esz;
    }
}

/* h_in. */
static void fill_input(data_rng *r, bench_case *c)
{
    switch (c->v) {
    case V_REDUCE:
    case V_SCAN_INCL:
    case V_SCAN_EXCL: data_for_op(r, c->type, c->op, c->h_in, c->n); break;
    case V_UNIQUE: data_runs(r, c->type, c->h_in, c->n); break;
    case V_HIST_EVEN:
    case V_HIST_RANGE: /* inc: sample i = i mod B over [0, B), bin i mod B; const: the rand range's midpoint */
        if (c->data == D_INC) data_cycle(c->type, c->h_in, c->n, c->nbins);
        else if (c->data == D_CONST) data_midpoint(c->type, c->h_in, c->n);
        else data_uniform(r, c->type, c->h_in, c->n);
        break;
    default: data_uniform(r, c->type, c->h_in, c->n); break;
    }
}

/* The other arguments: histogram bounds or edges, the select value, the
 * flags, the sort values. */
static const char *fill_arguments(data_rng *r, bench_case *c)
{
    pp_type t = c->type;
    size_t n = c->n;
    if (c->v == V_HIST_EVEN && c->data == D_INC) {
        data_put_small(t, c->lower, 0);
        data_put_small(t, c->upper, c->nbins);
    } else if (c->v == V_HIST_EVEN) {
        data_put_fraction(t, c->lower, 0, 1);
        data_put_fraction(t, c->upper, 1, 1);
    } else if (c->v == V_HIST_RANGE) {
        c->h_edges = xmalloc((c->nbins + 1) * c->esz);
        if (!c->h_edges) return "out of host memory";
        for (size_t i = 0; i <= c->nbins; i++) {
            if (c->data == D_INC) data_put_small(t, (char *)c->h_edges + i * c->esz, i);
            else data_put_fraction(t, (char *)c->h_edges + i * c->esz, i, c->nbins);
        }
    } else if (c->v == V_SELECT_IF || c->v == V_PARTITION_IF) {
        data_put_fraction(t, c->value, 1, 2); /* floats: 0.0 */
    } else if (c->v == V_SELECT_FLAGGED) {
        c->h_flags = (uint8_t *)xmalloc(n);
        if (!c->h_flags) return "out of host memory";
        data_flags(r, c->h_flags, n);
    } else if (c->v == V_SORT_PAIRS) {
        c->h_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        c->h_out_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        if (!c->h_vals || !c->h_out_vals) return "out of host memory";
        for (size_t i = 0; i < n; i++) c->h_vals[i] = (uint32_t)i;
    }
    return NULL;
}

/* The host input of the case set in c->v, type, op, n, esz, data (and the
 * histogram bounds and edges, the select value, the flags, the sort
 * values); bins is --bins (0: the defaults). Returns NULL, or why the case
 * cannot run (c->skipped set if it does not fit the type). */
static const char *case_make_input(bench_case *c, size_t bins)
{
    pp_type t = c->type;
    int hist = c->v == V_HIST_EVEN || c->v == V_HIST_RANGE;
    unsigned bits = (unsigned)(8 * c->esz);
    /* The seed depends on the case, so that each row's input is the same
     * whatever else is benchmarked; the sorts sort the same keys. */
    variant sv = c->v == V_SORT_PAIRS || c->v == V_SORT_KEYS_COPY ? V_SORT_KEYS : c->v;
    data_rng r = data_seed(c->seed ^ ((uint64_t)sv << 56) ^ ((uint64_t)t << 48) ^ ((uint64_t)c->op << 40) ^
                           (uint64_t)c->n);

    if (c->v == V_HIST_EVEN) c->nbins = bins ? bins : HIST_EVEN_BINS;
    if (c->v == V_HIST_RANGE) c->nbins = bins ? bins : HIST_RANGE_BINS;
    if (hist && c->data == D_INC && (uint64_t)c->nbins > data_small_max(t)) {
        c->skipped = 1;
        return "--data inc: the range [0, B) needs B representable in the type";
    }
    if (c->v == V_HIST_RANGE && c->data != D_INC && !type_is_float(t) && bits < 64 &&
        (uint64_t)c->nbins > ((uint64_t)1 << bits) - 1) {
        c->skipped = 1;
        return "B + 1 evenly spaced edges over the type's range would not be distinct";
    }
    c->h_in = xmalloc(c->n * c->esz);
    c->h_out = xmalloc(case_out_bytes(c));
    if (!c->h_in || !c->h_out) return "out of host memory";
    fill_input(&r, c);
    return fill_arguments(&r, c);
}

const char *context_buffer(pp_context *ctx, void **p, const void *h, size_t b, pp_status *st)
{
    *st = pp_malloc(ctx, p, b);
    if (*st == PP_SUCCESS && h) *st = pp_upload(ctx, *p, h, b);
    return *st == PP_SUCCESS ? NULL : pp_last_error(ctx);
}

/* The context buffers of the case, the input uploaded. */
static const char *case_context_buffers(pp_context *ctx, bench_case *c, pp_status *st)
{
    const char *err = context_buffer(ctx, &c->d_in, c->h_in, c->n * c->esz, st);
    if (!err) err = context_buffer(ctx, &c->d_out, NULL, case_out_bytes(c), st);
    if (!err && c->v >= V_SELECT_IF && c->v <= V_PARTITION_IF)
        err = context_buffer(ctx, &c->d_count, NULL, sizeof(uint64_t), st);
    if (!err && c->v == V_SELECT_FLAGGED) err = context_buffer(ctx, &c->d_flags, c->h_flags, c->n, st);
    if (!err && c->v == V_SORT_PAIRS) err = context_buffer(ctx, &c->d_vals, c->h_vals, c->n * SORT_VALUE_SIZE, st);
    if (!err && c->v == V_SORT_PAIRS) err = context_buffer(ctx, &c->d_vals_work, NULL, c->n * SORT_VALUE_SIZE, st);
    return err;
}

const char *case_setup(pp_context *ctx, bench_case *c, const case_spec *spec, const config *cfg, pp_status *st)
{
    memset(c, 0, sizeof *c);
    c->v = spec->v;
    c->type = spec->type;
    c->op = spec->op;
    c->n = spec->n;
    c->esz = pp_type_size(spec->type);
    c->seed = cfg->seed;
    int hist = c->v == V_HIST_EVEN || c->v == V_HIST_RANGE;
    c->data = hist ? spec->data : D_RAND;
    const char *name = VARIANTS[c->v].name;
    if (VARIANTS[c->v].uses_layout) c->layout = *spec->layout;
    if (VARIANTS[c->v].uses_layout && VARIANTS[c->v].uses_op)
        snprintf(c->label, sizeof c->label, "%s/%s[%s]", name, pp_op_name(c->op), c->layout.name);
    else if (VARIANTS[c->v].uses_layout) snprintf(c->label, sizeof c->label, "%s[%s]", name, c->layout.name);
    else if (VARIANTS[c->v].uses_op) snprintf(c->label, sizeof c->label, "%s/%s", name, pp_op_name(c->op));
    else if (hist && cfg->show_data) snprintf(c->label, sizeof c->label, "%s[%s]", name, DATASET_NAMES[c->data]);
    else snprintf(c->label, sizeof c->label, "%s", name);
    *st = PP_SUCCESS;
    if (variant_is_keyed(c->v)) return keyed_setup(ctx, c, st);
    const char *err = case_make_input(c, cfg->bins);
    return err ? err : case_context_buffers(ctx, c, st);
}

/* Untimed preparation before each run: sorts work in place, so they get a
 * fresh copy of the unsorted input (sort_keys_copy reads the input itself). */
static pp_status case_prepare(pp_context *ctx, bench_case *c)
{
    pp_status st = PP_SUCCESS;
    if (variant_is_keyed(c->v)) return keyed_prepare(ctx, c);
    if (c->v == V_SORT_KEYS || c->v == V_SORT_PAIRS) {
        st = pp_copy(ctx, c->d_out, c->d_in, c->n * c->esz);
        if (st == PP_SUCCESS && c->v == V_SORT_PAIRS)
            st = pp_copy(ctx, c->d_vals_work, c->d_vals, c->n * SORT_VALUE_SIZE);
        if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    }
    return st;
}

/* The timed call. */
static pp_status case_call(pp_context *ctx, bench_case *c)
{
    switch (c->v) {
    case V_REDUCE: return pp_reduce(ctx, c->type, c->op, c->d_in, c->n, c->d_out);
    case V_SCAN_INCL: return pp_scan(ctx, c->type, c->op, PP_INCLUSIVE, c->d_in, c->d_out, c->n);
    case V_SCAN_EXCL: return pp_scan(ctx, c->type, c->op, PP_EXCLUSIVE, c->d_in, c->d_out, c->n);
    case V_HIST_EVEN:
        return pp_histogram_even(ctx, c->type, c->d_in, c->n, c->lower, c->upper, c->nbins, (uint64_t *)c->d_out);
    case V_HIST_RANGE:
        return pp_histogram_range(ctx, c->type, c->d_in, c->n, c->h_edges, c->nbins, (uint64_t *)c->d_out);
    case V_SELECT_IF:
        return pp_select_if(ctx, c->type, c->d_in, c->n, PP_LT, c->value, c->d_out, (uint64_t *)c->d_count);
    case V_SELECT_FLAGGED:
        return pp_select_flagged(ctx, c->type, c->d_in, (const uint8_t *)c->d_flags, c->n, c->d_out,
                                 (uint64_t *)c->d_count);
    case V_UNIQUE: return pp_unique(ctx, c->type, c->d_in, c->n, c->d_out, (uint64_t *)c->d_count);
    case V_PARTITION_IF:
        return pp_partition_if(ctx, c->type, c->d_in, c->n, PP_LT, c->value, c->d_out, (uint64_t *)c->d_count);
    case V_SORT_KEYS: return pp_sort(ctx, c->type, c->d_out, c->n, PP_ASCENDING);
    case V_SORT_PAIRS:
        return pp_sort_pairs(ctx, c->type, c->d_out, c->d_vals_work, SORT_VALUE_SIZE, c->n, PP_ASCENDING);
    case V_SORT_KEYS_COPY: return pp_sort_copy(ctx, c->type, c->d_in, c->d_out, c->n, PP_ASCENDING);
    default: return variant_is_keyed(c->v) ? keyed_call(ctx, c) : PP_ERROR_INTERNAL;
    }
}

pp_status case_run(pp_context *ctx, bench_case *c, double *sec)
{
    pp_status st = case_prepare(ctx, c);
    if (st != PP_SUCCESS) return st;
    double t0 = now_seconds();
    st = case_call(ctx, c);
    if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    *sec = now_seconds() - t0;
    return st;
}

pp_status case_run_fn(pp_context *ctx, void *arg, double *sec)
{
    return case_run(ctx, (bench_case *)arg, sec);
}

double case_bytes(const bench_case *c)
{
    double n = (double)c->n, s = (double)c->esz, k = (double)c->r_count;
    switch (c->v) {
    case V_REDUCE: return n * s;
    case V_SCAN_INCL:
    case V_SCAN_EXCL: return 2 * n * s;
    case V_HIST_EVEN:
    case V_HIST_RANGE: return n * s + (double)c->nbins * 8;
    case V_SELECT_IF:
    case V_UNIQUE: return n * s + k * s;
    case V_SELECT_FLAGGED: return n * s + n + k * s;
    case V_PARTITION_IF: return 2 * n * s;
    case V_SORT_KEYS:
    case V_SORT_KEYS_COPY: return 2 * n * s;
    case V_SORT_PAIRS: return 2 * n * s + 2 * n * SORT_VALUE_SIZE;
    default: return keyed_bytes(c);
    }
}

/* ceil(log2 n) for n >= 1. */
static unsigned ceil_log2(uint64_t n)
{
    unsigned l = 0;
    while (l < 64 && ((uint64_t)1 << l) < n) l++;
    return l;
}

/* The scan counts of the course notes (docs/algorithms.md, pp bench --help).
 * Exact integers. */
static int scan_ops(pp_algorithm a, uint64_t n, uint64_t *ops)
{
    switch (a) {
    case PP_ALGO_SEQUENTIAL: /* y[i] = y[i-1] op x[i]: n - 1 (002) */
        *ops = n - 1;
        return 1;
    case PP_ALGO_NAIVE: { /* output i combines i + 1 inputs: i ops; sum n(n-1)/2 (000) */
        uint64_t x = n, y = n - 1;
        if (x % 2 == 0) x /= 2;
        else y /= 2;
        if (y && x > UINT64_MAX / y) return 0;
        *ops = x * y;
        return 1;
    }
    case PP_ALGO_HILLIS_STEELE: { /* steps d = 1, 2, 4, ... < n do n - d each (002) */
        unsigned l = ceil_log2(n);
        if (l >= 64 || (l && n > UINT64_MAX / l)) return 0;
        *ops = n * l - ((((uint64_t)1) << l) - 1); /* n*L - (2^L - 1), L = ceil(log2 n) */
        return 1;
    }
    case PP_ALGO_BLELLOCH:
    case PP_ALGO_BLELLOCH_PADDED: {
        /* Inclusive work-efficient scan of 000/002 run on one array of n
         * (bounds-checked): reduction phase, stride s = 1, 2, ... < n:
         * floor(n / 2s) ops; distribution phase, s = 2^(L-2) down to 1:
         * floor((n - s) / 2s) ops. n a power of two: (n - 1) + (n - 2 -
         * (log2 n - 1)) = 2n - log2 n - 2. */
        uint64_t up = 0, down = 0;
        for (uint64_t s = 1; s < n; s *= 2) up += n / (2 * s);
        unsigned l = ceil_log2(n);
        for (uint64_t s = l >= 2 ? (uint64_t)1 << (l - 2) : 0; s > 0; s /= 2) down += (n - s) / (2 * s);
        *ops = up + down;
        return 1;
    }
    default: return 0; /* warp-shuffle multiscan, reduce-then-scan, look-back, auto */
    }
}

int algo_ops(variant v, pp_algorithm a, size_t n_, uint64_t *ops)
{
    uint64_t n = (uint64_t)n_;
    if (n == 0) return 0;
    if (v == V_REDUCE) {
        /* every reduction tree and the sequential loop: n - 1 (000) */
        *ops = n - 1;
        return 1;
    }
    if (v != V_SCAN_INCL && v != V_SCAN_EXCL) return 0;
    return scan_ops(a, n, ops);
}
