/* The distributed suite, part three: exact float sums. With PP_ALGO_EXACT
 * chosen for reduce and scan on every rank's context, pp_dist_reduce and
 * pp_dist_scan (inclusive and exclusive, in and out of place) must equal,
 * bit for bit, the exact pp_reduce and pp_scan of the whole array on rank
 * 0's context alone (and the reduce the independent reference of
 * tests/exact_ref.c), whatever the rank count and the parts: f32 and f64,
 * the hard data sets of tests/exact_data.c drawn over the whole array (so
 * cancellation, NaN, infinities and runs of -0.0 cross rank boundaries),
 * every part layout (empty ranks included), prefixes of up to 20 (f32: 50)
 * times the largest finite value (seeded through the largest value), and a
 * prefix too large to seed (PP_ERROR_UNSUPPORTED on every rank). */
#include "test_dist.h"

#include "exact_data.h"
#include "exact_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank's n_local into all (p values); returns this rank's offset and
 * sets *total. */
static size_t layout_of(const dt_env *e, size_t n, size_t *total)
{
    unsigned long long mine = n, *all = malloc((size_t)e->size * sizeof *all);
    MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    size_t off = 0;
    *total = 0;
    for (int r = 0; r < e->size; r++) {
        if (r < e->rank) off += all[r];
        *total += all[r];
    }
    free(all);
    return off;
}

/* Values whose running sum wanders between -20 and 20 times the largest
 * finite value (f32: 50), every step at least half of it: the prefixes of
 * later ranks need up to that many largest values to be seeded, which
 * parprim_mpi.h promises to take. */
static void gen_wide(tc_rng *r, int is_f64, size_t n, double *v)
{
    const double max = is_f64 ? DBL_MAX : FLT_MAX, bound = is_f64 ? 19 : 49;
    double run = 0; /* in units of max */
    for (size_t i = 0; i < n; i++) {
        const double u = 0.5 + 0.5 * (double)(tc_next(r) >> 11) * 0x1p-53;
        const int up = run < -bound ? 1 : run > bound ? 0 : tc_below(r, 8) < 5; /* drifts up */
        run += up ? u : -u;
        v[i] = up ? u * max : -u * max;
        if (!is_f64) v[i] = (float)v[i];
    }
}

/* 1 (on every rank) if the exact sum of v[0 .. off) of some rank passes
 * 0.99 times what parprim_mpi.h promises to seed (50 times the largest
 * finite value for f32, 20 for f64): there its scan may be
 * PP_ERROR_UNSUPPORTED. (The full-range data's largest values take random
 * signs: over 10^5 elements their sum strays beyond 50 times FLT_MAX now
 * and then.) Summed in double, scaled by a power of two (exact but for
 * subnormals, which cannot matter at this scale). */
static int prefix_beyond_promise(int is_f64, const double *v, size_t off)
{
    const double scale = is_f64 ? 0x1p-1000 : 1.0, max = (is_f64 ? DBL_MAX : FLT_MAX) * scale;
    const double limit = 0.99 * (is_f64 ? 20 : 50) * max;
    double s = 0;
    int nonfinite = 0;
    for (size_t i = 0; i < off; i++) {
        nonfinite |= !isfinite(v[i]);
        s += v[i] * scale;
    }
    int beyond = !nonfinite && fabs(s) > limit, any = 0;
    MPI_Allreduce(&beyond, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* One case: the whole array drawn on every rank alike, each rank's part
 * its slice; the distributed calls; rank 0 compares with its context's
 * exact calls on the gathered array. Where a prefix passes the promise
 * (prefix_beyond_promise), the scan may instead be PP_ERROR_UNSUPPORTED,
 * on every rank alike (then its outputs are not compared). */
static void exact_case(dt_env *e, int is_f64, int set, int layout, int variant)
{
    static const size_t max[3] = {37, 3001, 70000};
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "exact %d %d %d", is_f64, set, layout);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    const size_t n = dt_layout_n(layout, max[set < 0 ? 1 : variant % 3], &r);
    size_t total;
    const size_t off = layout_of(e, n, &total);
    const pp_scan_kind kind = (pp_scan_kind)tc_below(&ra, 2);
    const int inplace = (int)tc_below(&ra, 2);
    dt_case("%s exact %s, data %s, %s, n_local %zu on rank %d of %zu, %s scan%s", pp_backend_name(e->backend),
            pp_type_name(t), set < 0 ? "wide prefixes" : exact_set_names[set], dt_layout_name(layout), n, e->rank,
            total, kind ? "exclusive" : "inclusive", inplace ? " in place" : "");
    double *v = malloc(total * sizeof *v + 8);
    unsigned char *all = malloc(total * sz + 8), *out = malloc(n * sz + 8);
    if (set < 0) gen_wide(&ra, is_f64, total, v);
    else exact_gen(&ra, is_f64, set, total, v);
    exact_pack(is_f64, v, total, all);
    void *din = dt_upload(e, all + off * sz, n * sz), *dout = inplace ? din : dt_upload(e, NULL, n * sz);
    void *dred = dt_upload(e, NULL, sz);
    uint64_t red = 0;
    if (dt_ok(e, pp_dist_reduce(e->d, t, PP_SUM, din, n, dred), "pp_dist_reduce")) dt_download(e, &red, dred, sz);
    const int beyond = prefix_beyond_promise(is_f64, v, off); /* collective: before the call, on every rank */
    const pp_status st = pp_dist_scan(e->d, t, PP_SUM, kind, din, dout, n);
    const int refused = st == PP_ERROR_UNSUPPORTED && beyond;
    if (!refused && dt_ok(e, st, "pp_dist_scan")) dt_download(e, out, dout, n * sz);
    int refused_all = 0, refused_any = 0;
    MPI_Allreduce(&refused, &refused_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&refused, &refused_any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    DT_CHECK(refused_all == refused_any, "pp_dist_scan: PP_ERROR_UNSUPPORTED on some ranks only (rank %d: %s)",
             e->rank, pp_status_string(st));
    void *all_out, *all_red;
    dt_gather(out, n * sz, &all_out, NULL);
    dt_gather(&red, sz, &all_red, NULL);
    if (e->rank == 0) {
        /* the single-context exact results, on rank 0's context (EXACT chosen) */
        uint64_t want = 0;
        void *w = dt_upload(e, all, total * sz), *wred = dt_upload(e, NULL, sz);
        unsigned char *scan = malloc(total * sz + 8);
        if (dt_ok(e, pp_reduce(e->ctx, t, PP_SUM, w, total, wred), "pp_reduce")) dt_download(e, &want, wred, sz);
        if (total && dt_ok(e, pp_scan(e->ctx, t, PP_SUM, kind, w, w, total), "pp_scan"))
            dt_download(e, scan, w, total * sz);
        xref x;
        xref_init(&x, is_f64);
        for (size_t i = 0; i < total; i++) xref_add(&x, v[i], 1);
        uint64_t ref = total == 0 ? 0 : is_f64 ? xref_bits_f64(&x) : xref_bits_f32(&x);
        dt_bits(t, &want, &ref, 1, "the single-context exact pp_reduce against the reference");
        for (int k = 0; k < e->size; k++) {
            char what[64];
            snprintf(what, sizeof what, "exact pp_dist_reduce on rank %d", k);
            dt_bits(t, (char *)all_red + (size_t)k * sz, &want, 1, what);
        }
        if (!refused_any)
            dt_bits(t, all_out, scan, total, "exact pp_dist_scan (gathered) against the single-context pp_scan");
        free(scan);
        dt_free(e, w);
        dt_free(e, wred);
    }
    free(all_out);
    free(all_red);
    dt_free(e, din);
    if (!inplace) dt_free(e, dout);
    dt_free(e, dred);
    free(v);
    free(all);
    free(out);
}

/* Rank 0 holds 100 times the largest value: the prefix of every later
 * rank is too large to seed its scan. PP_ERROR_UNSUPPORTED on every rank,
 * each later rank naming its own cause, rank 0 the first of them (the
 * reduce still works). */
static void too_large(dt_env *e, int is_f64)
{
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = pp_type_size(t), n = e->rank == 0 ? 100 : 3;
    double v[100];
    for (size_t i = 0; i < n; i++) v[i] = e->rank == 0 ? (is_f64 ? DBL_MAX : FLT_MAX) : 1.0;
    unsigned char h[800];
    exact_pack(is_f64, v, n, h);
    dt_case("%s exact %s scan with a prefix of 100 times the largest value", pp_backend_name(e->backend),
            pp_type_name(t));
    void *din = dt_upload(e, h, n * sz), *dout = dt_upload(e, NULL, n * sz);
    pp_status st = pp_dist_scan(e->d, t, PP_SUM, PP_INCLUSIVE, din, dout, n);
    const char *msg = pp_dist_last_error(e->d);
    if (e->size == 1) {
        dt_ok(e, st, "pp_dist_scan on one rank");
    } else {
        DT_CHECK(st == PP_ERROR_UNSUPPORTED, "pp_dist_scan returned %s: %s", pp_status_string(st), msg);
        DT_CHECK(strstr(msg, "pp_dist_scan") && strstr(msg, e->rank ? "too large" : "rank 1 failed"),
                 "message '%s'", msg);
    }
    uint64_t red = 0, inf = is_f64 ? 0x7ff0000000000000ull : 0x7f800000u;
    if (dt_ok(e, pp_dist_reduce(e->d, t, PP_SUM, din, n, dout), "pp_dist_reduce")) {
        dt_download(e, &red, dout, sz);
        DT_CHECK(red == inf, "100 times the largest value: bits 0x%llx, not +inf", (unsigned long long)red);
    }
    dt_free(e, din);
    dt_free(e, dout);
}

void exact_sums(dt_env *e)
{
    dt_ok(e, pp_set_algorithm(e->ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT), "pp_set_algorithm(reduce, exact)");
    dt_ok(e, pp_set_algorithm(e->ctx, PP_PRIM_SCAN, PP_ALGO_EXACT), "pp_set_algorithm(scan, exact)");
    /* every data set but the overflowing ones, whose prefixes are
     * hundreds of times the largest value (too_large below); -1: prefixes
     * of a few times the largest value */
    static const int sets[] = {EXACT_CANCELLATION, EXACT_FULL_RANGE, EXACT_SPECIALS, EXACT_ZEROS, 0, 1, 3, 9, 10, -1};
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
            for (int layout = 0; layout < DT_LAYOUTS; layout++)
                exact_case(e, is_f64, sets[s], layout, layout + (int)s);
        too_large(e, is_f64);
    }
    pp_set_algorithm(e->ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
    pp_set_algorithm(e->ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
}
