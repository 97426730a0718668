/* pp bench: the expected results, from the sequential reference, and the
 * check of each case's result against them (see bench_case.h). */
#include "bench_case.h"
#include "bench_data.h"
#include "reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sort_ref_clear(sort_ref_cache *cache)
{
    int want_vals = cache->want_vals;
    free(cache->keys);
    free(cache->vals);
    memset(cache, 0, sizeof *cache);
    cache->want_vals = want_vals;
}

/* Keeps the sorted keys of c (and vals, which the cache takes over) for
 * the sort_pairs case that follows, if memory allows. */
static void sort_ref_keep(sort_ref_cache *cache, const bench_case *c, uint32_t *vals)
{
    size_t kb = c->n * c->esz;
    cache->keys = malloc(kb);
    cache->vals = vals;
    if (!cache->keys) {
        sort_ref_clear(cache);
        return;
    }
    memcpy(cache->keys, c->r_out, kb);
    cache->valid = 1;
    cache->has_vals = 1;
    cache->type = c->type;
    cache->n = c->n;
    cache->seed = c->seed;
}

static const char *case_reference_sort(bench_case *c, sort_ref_cache *cache)
{
    size_t n = c->n, kb = n * c->esz, vb = n * SORT_VALUE_SIZE;
    int need_vals = c->v == V_SORT_PAIRS;
    if (need_vals) {
        c->r_vals = (uint32_t *)xmalloc(vb);
        if (!c->r_vals) return "out of host memory";
    }
    if (cache->valid && cache->type == c->type && cache->n == n && cache->seed == c->seed &&
        (cache->has_vals || !need_vals)) {
        memcpy(c->r_out, cache->keys, kb);
        if (need_vals) memcpy(c->r_vals, cache->vals, vb);
        return NULL;
    }
    sort_ref_clear(cache);
    int keep = c->v == V_SORT_KEYS && cache->want_vals;
    int with_vals = need_vals || keep;
    uint32_t *vals = need_vals ? c->r_vals : with_vals ? (uint32_t *)xmalloc(vb) : NULL;
    if (with_vals && !vals) return "out of host memory";
    memcpy(c->r_out, c->h_in, kb);
    if (with_vals)
        for (size_t i = 0; i < n; i++) vals[i] = (uint32_t)i; /* = h_vals */
    ref_sort_pairs(c->type, c->r_out, vals, with_vals ? SORT_VALUE_SIZE : 0, n, PP_ASCENDING);
    if (keep) sort_ref_keep(cache, c, vals); /* vals is ours here (sort_keys) */
    return NULL;
}

/* Computes the expected result with the sequential reference. */
static const char *case_reference(bench_case *c, sort_ref_cache *cache)
{
    if (c->ref_ready) return NULL;
    size_t n = c->n;
    c->r_out = xmalloc(case_out_bytes(c));
    if (!c->r_out) return "out of host memory";
    switch (c->v) {
    case V_REDUCE: ref_reduce(c->type, c->op, c->h_in, n, c->r_out); break;
    case V_SCAN_INCL: ref_scan(c->type, c->op, PP_INCLUSIVE, c->h_in, c->r_out, n); break;
    case V_SCAN_EXCL: ref_scan(c->type, c->op, PP_EXCLUSIVE, c->h_in, c->r_out, n); break;
    case V_HIST_EVEN:
        ref_histogram_even(c->type, c->h_in, n, c->lower, c->upper, c->nbins, (uint64_t *)c->r_out);
        break;
    case V_HIST_RANGE: ref_histogram_range(c->type, c->h_in, n, c->h_edges, c->nbins, (uint64_t *)c->r_out); break;
    case V_SELECT_IF: c->r_count = ref_select_if(c->type, c->h_in, n, PP_LT, c->value, c->r_out); break;
    case V_SELECT_FLAGGED: c->r_count = ref_select_flagged(c->type, c->h_in, c->h_flags, n, c->r_out); break;
    case V_UNIQUE: c->r_count = ref_unique(c->type, c->h_in, n, c->r_out); break;
    case V_PARTITION_IF: c->r_count = ref_partition_if(c->type, c->h_in, n, PP_LT, c->value, c->r_out); break;
    case V_SORT_KEYS:
    case V_SORT_PAIRS:
    case V_SORT_KEYS_COPY: {
        const char *err = case_reference_sort(c, cache);
        if (err) return err;
        break;
    }
    default: break;
    }
    c->ref_ready = 1;
    return NULL;
}

/* Downloads bytes from the context; returns 1, or 0 with a message. */
static int download(pp_context *ctx, void *h, const void *d, size_t bytes, char *msg, size_t cap, pp_status *st)
{
    *st = pp_download(ctx, h, d, bytes);
    if (*st == PP_SUCCESS) return 1;
    snprintf(msg, cap, "pp_download: %s", pp_last_error(ctx));
    return 0;
}

/* Compares count elements of type; returns 1 if equal, else 0 with
 * "name[i] is X, expected Y" in msg. */
static int compare(pp_type type, const void *got, const void *want, size_t count, const char *name, char *msg,
                   size_t cap)
{
    size_t where = 0;
    char g[64], e[64];
    if (ref_equal(type, got, want, count, &where)) return 1;
    snprintf(msg, cap, "%s[%zu] is %s, expected %s", name, where, ref_format(type, got, where, g, sizeof g),
             ref_format(type, want, where, e, sizeof e));
    return 0;
}

/* The selected count, where the primitive has one; *count is how many
 * output elements to compare. */
static int check_count(pp_context *ctx, bench_case *c, uint64_t *count, char *msg, size_t cap, pp_status *st)
{
    *count = c->v == V_REDUCE ? 1 : c->n;
    if (!c->d_count) return 1;
    if (!download(ctx, &c->h_count, c->d_count, sizeof(uint64_t), msg, cap, st)) return 0;
    if (c->h_count != c->r_count) {
        snprintf(msg, cap, "count is %" PRIu64 ", expected %" PRIu64, c->h_count, c->r_count);
        return 0;
    }
    *count = c->v == V_PARTITION_IF ? c->n : c->r_count;
    return 1;
}

int check_array(pp_context *ctx, pp_type type, void *h, const void *d, const void *want, size_t count,
                const char *name, char *msg, size_t cap, pp_status *st)
{
    *st = PP_SUCCESS;
    return download(ctx, h, d, count * pp_type_size(type), msg, cap, st) &&
           compare(type, h, want, count, name, msg, cap);
}

int case_check(pp_context *ctx, bench_case *c, sort_ref_cache *cache, char *msg, size_t cap, pp_status *st)
{
    *st = PP_SUCCESS;
    if (variant_is_keyed(c->v)) return keyed_check(ctx, c, msg, cap, st);
    const char *err = case_reference(c, cache);
    if (err) {
        snprintf(msg, cap, "reference: %s", err);
        return 0;
    }
    uint64_t count;
    if (!check_count(ctx, c, &count, msg, cap, st)) return 0;
    int hist = c->v == V_HIST_EVEN || c->v == V_HIST_RANGE;
    size_t bytes = hist ? case_out_bytes(c) : (size_t)count * c->esz;
    if (!download(ctx, c->h_out, c->d_out, bytes, msg, cap, st)) return 0;
    if (hist) return compare(PP_U64, c->h_out, c->r_out, c->nbins, "counts", msg, cap);
    if (!compare(c->type, c->h_out, c->r_out, (size_t)count, c->v == V_REDUCE ? "out" : "element", msg, cap))
        return 0;
    if (c->v != V_SORT_PAIRS) return 1;
    if (!download(ctx, c->h_out_vals, c->d_vals_work, c->n * SORT_VALUE_SIZE, msg, cap, st)) return 0;
    return compare(PP_U32, c->h_out_vals, c->r_vals, c->n, "values", msg, cap);
}
