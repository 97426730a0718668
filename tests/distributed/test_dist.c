/* The distributed suite: every primitive of parprim_mpi, every type and
 * operator, on uneven, empty and one-element parts, against the sequential
 * reference applied to the input gathered on rank 0 (the output gathered
 * there too). This file: reduce, scan, histograms, and main;
 * test_dist_select_sort.c: compaction and sort; test_dist_exact.c: exact
 * float sums against the single-context exact calls. Run under mpirun by
 * scripts/dist-check (1 to 4 ranks). */
#include "test_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The part sizes of a case: layout, and a maximum cycling over small,
 * medium (a few cpu scan tiles) and large-ish parts. */
static size_t case_n(int layout, int variant, tc_rng *r)
{
    static const size_t max[3] = {37, 3001, 70000};
    return dt_layout_n(layout, max[variant % 3], r);
}

static int op_valid(pp_type t, pp_op op) { return !(tc_is_float(t) && op >= PP_AND); }

static void reduce_scan_case(dt_env *e, pp_type t, pp_op op, int layout, int variant)
{
    size_t sz = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "rs %d %d %d %d", (int)t, (int)op, layout, variant);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    size_t n = case_n(layout, variant, &r);
    pp_scan_kind kind = (pp_scan_kind)tc_below(&ra, 2);
    int inplace = (int)tc_below(&ra, 2);
    dt_case("%s %s %s, %s (max %d), n_local %zu on rank %d, %s scan%s", pp_backend_name(e->backend), pp_type_name(t),
            pp_op_name(op), dt_layout_name(layout), variant, n, e->rank, kind ? "exclusive" : "inclusive",
            inplace ? " in place" : "");
    unsigned char *in = malloc(n * sz + 1), *out = malloc(n * sz + 1);
    dt_fill(&r, t, op, in, n);
    void *din = dt_upload(e, in, n * sz), *dout = inplace ? din : dt_upload(e, NULL, n * sz);
    void *dred = dt_upload(e, NULL, sz);
    uint64_t red = 0;
    if (dt_ok(e, pp_dist_reduce(e->d, t, op, din, n, dred), "pp_dist_reduce")) dt_download(e, &red, dred, sz);
    if (dt_ok(e, pp_dist_scan(e->d, t, op, kind, din, dout, n), "pp_dist_scan")) dt_download(e, out, dout, n * sz);
    void *all_in, *all_out, *all_red;
    size_t total = dt_gather(in, n * sz, &all_in, NULL) / sz;
    dt_gather(out, n * sz, &all_out, NULL);
    dt_gather(&red, sz, &all_red, NULL);
    if (e->rank == 0) {
        uint64_t want = 0;
        ref_reduce(t, op, all_in, total, &want);
        for (int k = 0; k < e->size; k++) {
            char what[64];
            snprintf(what, sizeof what, "pp_dist_reduce on rank %d", k);
            dt_equal(t, (char *)all_red + (size_t)k * sz, &want, 1, what);
        }
        void *ref = malloc(total * sz + 1);
        ref_scan(t, op, kind, all_in, ref, total);
        dt_equal(t, all_out, ref, total, "pp_dist_scan (gathered)");
        free(ref);
    }
    free(all_in);
    free(all_out);
    free(all_red);
    dt_free(e, din);
    if (!inplace) dt_free(e, dout);
    dt_free(e, dred);
    free(in);
    free(out);
}

static void reduce_scan(dt_env *e)
{
    for (int ti = 0; ti < TC_NTYPES; ti++)
        for (int op = 0; op < PP_OP_COUNT; op++) {
            if (!op_valid((pp_type)ti, (pp_op)op)) continue;
            for (int layout = 0; layout < DT_LAYOUTS; layout++)
                reduce_scan_case(e, (pp_type)ti, (pp_op)op, layout, layout + ti + op);
        }
}

/* Samples for histograms: mostly inside [lo, hi) (lo, hi as doubles),
 * some outside, NaN and infinities for floats. */
static void fill_samples(tc_rng *r, pp_type t, void *buf, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = tc_below(r, 20);
        if (k == 0 && tc_is_float(t)) tc_set_nan(r, t, buf, i);
        else if (k == 1 && tc_is_float(t)) tc_set_any_float(r, t, buf, i);
        else if (k == 1) tc_set_int(t, buf, i, tc_next(r));
        else dt_set_num(t, buf, i, lo + (hi - lo) * (1.1 * (double)tc_below(r, 1u << 20) / (double)(1u << 20) - 0.05));
    }
}

static void histogram_case(dt_env *e, pp_type t, int range, int layout, int variant)
{
    size_t sz = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "hist %d %d %d", (int)t, range, layout);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    static const size_t bins[3] = {1, 7, 300};
    size_t nbins = bins[tc_below(&ra, 3)];
    if (sz == 1 && nbins > 40) nbins = 40; /* integer edges of steps up to 3 from lo stay in the type */
    double lo = tc_is_signed(t) || tc_is_float(t) ? -50 : 3, hi = lo + 20 + (double)tc_below(&ra, 90);
    size_t n = case_n(layout, variant, &r);
    dt_case("%s %s histogram_%s, nbins %zu over [%g, %g), %s, n_local %zu on rank %d", pp_backend_name(e->backend),
            pp_type_name(t), range ? "range" : "even", nbins, lo, hi, dt_layout_name(layout), n, e->rank);
    unsigned char *in = malloc(n * sz + 1), lower[8], upper[8], *edges = malloc((nbins + 1) * sz);
    fill_samples(&r, t, in, n, lo, hi);
    dt_set_num(t, lower, 0, lo);
    dt_set_num(t, upper, 0, hi);
    double step = (hi - lo) / (double)nbins;
    for (size_t i = 0; i <= nbins; i++) dt_set_num(t, edges, i, lo + (double)i * step);
    if (!tc_is_float(t)) { /* strictly increasing integer edges, steps of 1 to 3 */
        int64_t edge = (int64_t)lo;
        for (size_t i = 0; i <= nbins; i++, edge += 1 + (int64_t)tc_below(&ra, 3)) tc_set_int(t, edges, i, (uint64_t)edge);
    }
    void *din = dt_upload(e, in, n * sz), *dc = dt_upload(e, NULL, nbins * 8);
    uint64_t *counts = calloc(nbins, 8), *want = calloc(nbins, 8);
    pp_status st = range ? pp_dist_histogram_range(e->d, t, din, n, edges, nbins, dc)
                         : pp_dist_histogram_even(e->d, t, din, n, lower, upper, nbins, dc);
    if (dt_ok(e, st, range ? "pp_dist_histogram_range" : "pp_dist_histogram_even")) dt_download(e, counts, dc, nbins * 8);
    void *all_in, *all_counts;
    size_t total = dt_gather(in, n * sz, &all_in, NULL) / sz;
    dt_gather(counts, nbins * 8, &all_counts, NULL);
    if (e->rank == 0) {
        if (range) ref_histogram_range(t, all_in, total, edges, nbins, want);
        else ref_histogram_even(t, all_in, total, lower, upper, nbins, want);
        for (int k = 0; k < e->size; k++) {
            char what[64];
            snprintf(what, sizeof what, "counts on rank %d", k);
            dt_equal(PP_U64, (uint64_t *)all_counts + (size_t)k * nbins, want, nbins, what);
        }
    }
    free(all_in);
    free(all_counts);
    free(counts);
    free(want);
    free(edges);
    free(in);
    dt_free(e, din);
    dt_free(e, dc);
}

static void histograms(dt_env *e)
{
    for (int ti = 0; ti < TC_NTYPES; ti++)
        for (int range = 0; range < 2; range++)
            for (int layout = 0; layout < DT_LAYOUTS; layout += 1 + range)
                histogram_case(e, (pp_type)ti, range, layout, layout + ti);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv, "test_dist");
    const pp_backend *list;
    int nb = dt_backends(&list);
    for (int b = 0; b < nb; b++) {
        dt_env e;
        if (!dt_open(&e, list[b])) continue;
        unsigned long before = dt_failures();
        reduce_scan(&e);
        if (e.rank == 0) printf("  reduce, scan: done\n");
        exact_sums(&e);
        if (e.rank == 0) printf("  exact sums: done\n");
        histograms(&e);
        if (e.rank == 0) printf("  histograms: done\n");
        compaction(&e);
        if (e.rank == 0) printf("  compaction: done\n");
        sorting(&e);
        if (e.rank == 0) printf("  sort: done\n");
        extra(&e);
        if (e.rank == 0) printf("  argsort, top_k, rebalance: done\n");
        if (dt_failures() != before) printf("rank %d: %lu failures on %s\n", e.rank, dt_failures() - before,
                                            pp_backend_name(list[b]));
        fflush(stdout);
        dt_close(&e);
    }
    return dt_finish("test_dist");
}
