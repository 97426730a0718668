/* The distributed suite, part four: pp_dist_argsort (the gathered indices
 * are the stable argsort of the gathered keys, ref_sort_pairs with the
 * global indices as values), pp_dist_top_k (every rank's output is
 * ref_top_k of the gathered input, bit for bit), and pp_dist_rebalance
 * (the concatenation unchanged, every rank its even share; also on the
 * output of pp_dist_unique). Keys with duplicates, NaNs of both signs,
 * -0.0 and +0.0. */
#include "test_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[3] = {"ascending", "descending", "descending, NaN last"};

/* The sum of n over the ranks. */
static uint64_t global_n(size_t n)
{
    unsigned long long mine = n, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

static void argsort_case(dt_env *e, pp_type t, pp_order order, int layout)
{
    size_t ks = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "argsort %d %d %d", (int)t, (int)order, layout);
    tc_rng r = dt_rng(name);
    size_t n = dt_layout_n(layout, layout % 3 == 0 ? 5000 : 200, &r);
    dt_case("%s %s argsort, %s, %s, n_local %zu on rank %d", pp_backend_name(e->backend), pp_type_name(t),
            order_names[order], dt_layout_name(layout), n, e->rank);
    unsigned char *keys = malloc(n * ks + 1), *after = malloc(n * ks + 1);
    uint64_t *idx = calloc(n + 1, 8);
    dt_fill_keys(&r, t, keys, n);
    void *dk = dt_upload(e, keys, n * ks), *di = dt_upload(e, NULL, n * 8);
    if (dt_ok(e, pp_dist_argsort(e->d, t, dk, n, order, di), "pp_dist_argsort")) {
        dt_download(e, idx, di, n * 8);
        dt_download(e, after, dk, n * ks);
        DT_CHECK(n == 0 || memcmp(after, keys, n * ks) == 0, "pp_dist_argsort wrote its keys");
    }
    void *all_k, *got;
    size_t total = dt_gather(keys, n * ks, &all_k, NULL) / ks;
    dt_gather(idx, n * 8, &got, NULL);
    if (e->rank == 0) {
        uint64_t *want = malloc(total * 8 + 1);
        for (size_t i = 0; i < total; i++) want[i] = i;
        ref_sort_pairs(t, all_k, want, 8, total, order);
        dt_bits(PP_U64, got, want, total, "indices (gathered)");
        free(want);
    }
    free(all_k);
    free(got);
    dt_free(e, dk);
    dt_free(e, di);
    free(keys);
    free(after);
    free(idx);
}

static void top_k_case(dt_env *e, pp_type t, pp_order order, int layout)
{
    size_t ks = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "topk %d %d %d", (int)t, (int)order, layout);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    size_t n = dt_layout_n(layout, layout % 3 == 0 ? 5000 : 200, &r);
    uint64_t total = global_n(n);
    /* k: 1, all, a few, or any up to the total; indices wanted or not */
    uint64_t pick = tc_below(&ra, 4), k = total == 0  ? 0
                                          : pick == 0 ? 1
                                          : pick == 1 ? total
                                          : pick == 2 ? 5
                                                      : 1 + tc_below(&ra, total);
    if (k > total) k = total;
    int w = tc_below(&ra, 4) != 0;
    dt_case("%s %s top_k, k %llu of %llu%s, %s, %s, n_local %zu on rank %d", pp_backend_name(e->backend),
            pp_type_name(t), (unsigned long long)k, (unsigned long long)total, w ? "" : " (no indices)",
            order_names[order], dt_layout_name(layout), n, e->rank);
    unsigned char *in = malloc(n * ks + 1), *keys = malloc(k * ks + 1);
    uint64_t *idx = calloc(k + 1, 8);
    dt_fill_keys(&r, t, in, n);
    void *din = dt_upload(e, in, n * ks), *dk = dt_upload(e, NULL, k * ks), *di = w ? dt_upload(e, NULL, k * 8) : NULL;
    if (dt_ok(e, pp_dist_top_k(e->d, t, din, n, (size_t)k, order, dk, di), "pp_dist_top_k")) {
        dt_download(e, keys, dk, k * ks);
        if (w) dt_download(e, idx, di, k * 8);
    }
    void *all_in, *all_keys, *all_idx;
    dt_gather(in, n * ks, &all_in, NULL);
    dt_gather(keys, k * ks, &all_keys, NULL);
    dt_gather(idx, k * 8, &all_idx, NULL);
    if (e->rank == 0) {
        unsigned char *want = malloc(k * ks + 1);
        uint64_t *want_idx = malloc(k * 8 + 1);
        ref_top_k(t, all_in, (size_t)total, (size_t)k, order, want, want_idx);
        for (int q = 0; q < e->size; q++) {
            char what[64];
            snprintf(what, sizeof what, "keys on rank %d", q);
            dt_bits(t, (char *)all_keys + (size_t)q * k * ks, want, k, what);
            snprintf(what, sizeof what, "indices on rank %d", q);
            if (w) dt_bits(PP_U64, (uint64_t *)all_idx + (size_t)q * k, want_idx, k, what);
        }
        free(want);
        free(want_idx);
    }
    free(all_in);
    free(all_keys);
    free(all_idx);
    dt_free(e, din);
    dt_free(e, dk);
    dt_free(e, di);
    free(in);
    free(keys);
    free(idx);
}

/* Rebalances n_local elements of elem_size bytes (context memory din,
 * host copy in) and checks the result: the gathered output is the
 * gathered input, every rank holds its even share. */
static void rebalance_check(dt_env *e, size_t es, const void *din, const unsigned char *in, size_t n, size_t extra)
{
    uint64_t total = global_n(n), p = (uint64_t)e->size, rk = (uint64_t)e->rank;
    uint64_t share = total / p + (rk < total % p), cap = (total + p - 1) / p + extra;
    unsigned char *out = malloc(cap * es + 1);
    void *dout = dt_upload(e, NULL, cap * es);
    size_t got = (size_t)-1;
    if (dt_ok(e, pp_dist_rebalance(e->d, es, din, n, dout, (size_t)cap, &got), "pp_dist_rebalance")) {
        DT_CHECK(got == share, "n_out %zu, expected %llu", got, (unsigned long long)share);
        if (got <= cap) dt_download(e, out, dout, got * es);
    }
    if (got > cap) got = 0;
    void *all_in, *all_out;
    size_t bin = dt_gather(in, n * es, &all_in, NULL), bout = dt_gather(out, got * es, &all_out, NULL);
    if (e->rank == 0) {
        DT_CHECK(bin == bout, "gathered %zu bytes after, %zu before", bout, bin);
        if (bin == bout) dt_bits(PP_U8, all_out, all_in, bin, "rebalanced (gathered)");
    }
    free(all_in);
    free(all_out);
    dt_free(e, dout);
    free(out);
}

static void rebalance_case(dt_env *e, int layout)
{
    static const size_t sizes[4] = {1, 3, 8, 12};
    char name[96];
    snprintf(name, sizeof name, "rebalance %d", layout);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    size_t es = sizes[tc_below(&ra, 4)], n = dt_layout_n(layout, 3000, &r), extra = (size_t)tc_below(&ra, 3);
    dt_case("%s rebalance, elem_size %zu, %s, n_local %zu on rank %d, %zu spare", pp_backend_name(e->backend), es,
            dt_layout_name(layout), n, e->rank, extra);
    unsigned char *in = malloc(n * es + 1);
    for (size_t i = 0; i < n * es; i++) in[i] = (unsigned char)tc_next(&r);
    void *din = dt_upload(e, in, n * es);
    rebalance_check(e, es, din, in, n, extra);
    dt_free(e, din);
    free(in);

    /* pp_dist_unique, rebalanced: runs cross the rank boundaries */
    dt_case("%s unique then rebalance (u32), %s, n_local %zu on rank %d", pp_backend_name(e->backend),
            dt_layout_name(layout), n, e->rank);
    uint32_t *keys = malloc(n * 4 + 1), *uniq = malloc(n * 4 + 1);
    for (size_t i = 0; i < n; i++) keys[i] = (uint32_t)tc_below(&r, 3);
    void *dk = dt_upload(e, keys, n * 4), *du = dt_upload(e, NULL, n * 4);
    pp_dist_counts c = {0, 0, 0, 0};
    if (dt_ok(e, pp_dist_unique(e->d, PP_U32, dk, n, du, &c), "pp_dist_unique")) dt_download(e, uniq, du, c.local * 4);
    rebalance_check(e, 4, du, (const unsigned char *)uniq, (size_t)c.local, 0);
    dt_free(e, dk);
    dt_free(e, du);
    free(keys);
    free(uniq);
}

/* Every type over every layout, the order cycling with them (argsort and
 * top_k), and rebalance on every layout. */
void extra(dt_env *e)
{
    for (int ti = 0; ti < TC_NTYPES; ti++)
        for (int layout = 0; layout < DT_LAYOUTS; layout++) {
            argsort_case(e, (pp_type)ti, (pp_order)((ti + layout) % 3), layout);
            top_k_case(e, (pp_type)ti, (pp_order)((ti + layout + 1) % 3), layout);
        }
    for (int layout = 0; layout < DT_LAYOUTS; layout++) rebalance_case(e, layout);
}
