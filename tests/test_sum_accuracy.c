/* The default float sum's accuracy (parprim.h, pp_reduce: a PP_SUM of f32
 * or f64 under PP_ALGO_AUTO is compensated): on every backend, its error
 * against the exact sum (exact_ref.c, independent of the library) is at
 * most (2 log2(n) + 8) u sum|x| (u = 2^-24 or 2^-53), whatever the length
 * each thread, lane or work-item folds. Sequential summation misses that
 * bound on these inputs (a long run of one value, 0.1, whose rounding
 * errors all point one way; the case): the test checks that too,
 * with the reference's own left-to-right sum, so that the data keep
 * telling compensated sums from plain ones. Also: the special values
 * still give plain summation's results (NaN, an infinity, -0.0 for a sum
 * of -0.0 alone). */
#include "test_common.h"
#include "exact_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double get(int f64, const void *buf, size_t i) { return tc_get_f(f64 ? PP_F64 : PP_F32, buf, i); }

/* The bound for n elements whose magnitudes sum to abs_sum. */
static double bound(int f64, size_t n, double abs_sum)
{
    const double u = f64 ? 0x1p-53 : 0x1p-24;
    return (2.0 * log2((double)n + 1) + 8.0) * u * abs_sum;
}

/* kind 0: 0.1 repeated; 1: uniform [0, 1); 2: signs mixed, magnitudes
 * over 2^-20 .. 2^20 (cancellation). */
static void fill(tc_rng *r, int f64, int kind, size_t n, void *buf)
{
    const pp_type t = f64 ? PP_F64 : PP_F32;
    for (size_t i = 0; i < n; i++) {
        double v;
        const double unit = (double)(tc_next(r) >> 11) * 0x1p-53;
        if (kind == 0) v = 0.1;
        else if (kind == 1) v = unit;
        else v = ldexp(1.0 + unit, (int)(tc_next(r) % 41) - 20) * ((tc_next(r) & 1) ? -1.0 : 1.0);
        tc_set_f(t, buf, i, v);
    }
}

static void check_data(const void *in, int f64, size_t n, const char *what, int plain_must_miss)
{
    const pp_type t = f64 ? PP_F64 : PP_F32;
    xref x;
    xref_init(&x, f64);
    double abs_sum = 0, seq = 0;
    float seq32 = 0;
    for (size_t i = 0; i < n; i++) {
        const double v = get(f64, in, i);
        xref_add(&x, v, 1);
        abs_sum += fabs(v);
        if (f64) seq += v;
        else seq32 += (float)v;
    }
    if (!f64) seq = seq32;
    const double exact = xref_value(&x), lim = bound(f64, n, abs_sum);
    if (plain_must_miss)
        TC_REQUIRE(fabs(seq - exact) > lim, "%s: the data no longer tell sums apart (sequential error %g, bound %g)",
                   what, fabs(seq - exact), lim);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    const size_t sz = tc_size(t);
    void *host = tc_halloc(sz);
    for (size_t c = 0; c < ncfg; c++) {
        if (cfg[c].algo != PP_ALGO_AUTO) continue; /* the named algorithms sum as they are named */
        pp_context *ctx = cfg[c].ctx;
        if (!tc_need_buffers(ctx, what, n * sz, n * sz + TC_SCRATCH(n * sz), 0)) continue;
        if (f64 && !tc_need_f64(ctx, what)) continue;
        tc_use(&cfg[c], PP_PRIM_REDUCE);
        tc_case("%s %s (%s, n=%zu)", tc_config_name(&cfg[c]), what, pp_type_name(t), n);
        void *din = tc_dev_upload(ctx, in, n * sz), *dout = tc_dev_filled(ctx, sz, 0x5A);
        if (tc_status_ok(&cfg[c], pp_reduce(ctx, t, PP_SUM, din, n, dout), "pp_reduce")) {
            TC_DOWNLOAD(ctx, host, dout, sz, "sum");
            const double got = get(f64, host, 0);
            TC_REQUIRE(fabs(got - exact) <= lim, "error %g above the bound %g (sum %.17g, exact %.17g)",
                       fabs(got - exact), lim, got, exact);
        }
        tc_dev_free(ctx, din);
        tc_dev_free(ctx, dout);
    }
    free(host);
}

static void accuracy(int f64)
{
    tc_rng r = tc_rng_for(f64 ? "sum_accuracy_f64" : "sum_accuracy_f32");
    const size_t sz = f64 ? 8 : 4;
    /* f64 needs a longer run of 0.1 for sequential errors to pass the bound */
    const size_t sizes[] = {1000003, (size_t)1 << 20 | 7, 300001};
    const size_t run = f64 ? (size_t)4000037 : 1000003;
    for (int kind = 0; kind < 3; kind++) {
        const size_t n = kind == 0 ? run : sizes[kind];
        void *in = tc_halloc(n * sz);
        fill(&r, f64, kind, n, in);
        char what[64];
        snprintf(what, sizeof what, "default sum of %s", kind == 0 ? "0.1 repeated" : kind == 1 ? "[0, 1)" : "mixed signs");
        check_data(in, f64, n, what, kind == 0);
        free(in);
    }
}

static void test_f32(void **state)
{
    (void)state;
    accuracy(0);
}
static void test_f64(void **state)
{
    (void)state;
    accuracy(1);
}

/* Special values where a lane's error term turns NaN: the plain results. */
static void test_specials(void **state)
{
    (void)state;
    static const double sets[][4] = {
        {1.0, INFINITY, 2.0, 3.0},       /* +inf */
        {-INFINITY, 1.0, 0.5, 2.0},      /* -inf */
        {INFINITY, 1.0, -INFINITY, 2.0}, /* NaN */
        {-0.0, -0.0, -0.0, -0.0},        /* -0.0 */
    };
    const size_t reps = 5000; /* long enough for every lane and thread to see some */
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
            const pp_type t = f64 ? PP_F64 : PP_F32;
            const size_t n = 4 * reps + 3, sz = tc_size(t);
            void *in = tc_halloc(n * sz);
            /* the set's first three values at three places, among filler (-0.0 for the set of -0.0) */
            const int zeros = signbit(sets[s][0]) && sets[s][0] == 0;
            for (size_t i = 0; i < n; i++) tc_set_f(t, in, i, zeros ? -0.0 : 0.25);
            for (int k = 0; k < 3; k++) tc_set_f(t, in, (size_t)k * (n / 3) + 5, sets[s][k]);
            double seq = -0.0; /* the neutral element of a float sum */
            float seq32 = -0.0f;
            for (size_t i = 0; i < n; i++) {
                if (f64) seq += get(1, in, i);
                else seq32 += (float)get(0, in, i);
            }
            if (!f64) seq = seq32;
            const tc_config *cfg;
            const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
            void *host = tc_halloc(sz);
            for (size_t c = 0; c < ncfg; c++) {
                if (cfg[c].algo != PP_ALGO_AUTO) continue;
                pp_context *ctx = cfg[c].ctx;
                if (f64 && !tc_need_f64(ctx, "default sum of special values")) continue;
                tc_use(&cfg[c], PP_PRIM_REDUCE);
                tc_case("%s default sum, special values set %zu (%s)", tc_config_name(&cfg[c]), s, pp_type_name(t));
                void *din = tc_dev_upload(ctx, in, n * sz), *dout = tc_dev_filled(ctx, sz, 0x5A);
                if (tc_status_ok(&cfg[c], pp_reduce(ctx, t, PP_SUM, din, n, dout), "pp_reduce")) {
                    TC_DOWNLOAD(ctx, host, dout, sz, "sum");
                    const double got = get(f64, host, 0);
                    if (isnan(seq) || isinf(seq)) {
                        TC_REQUIRE(isnan(seq) ? isnan(got) : got == seq, "got %g, plain summation gives %g", got, seq);
                    } else if (seq == 0) {
                        TC_REQUIRE(got == 0 && signbit(got) == signbit(seq), "got %g, want %s0.0", got,
                                   signbit(seq) ? "-" : "+");
                    } else {
                        TC_REQUIRE(isfinite(got), "got %g for a finite sum %g", got, seq);
                    }
                }
                tc_dev_free(ctx, din);
                tc_dev_free(ctx, dout);
            }
            free(host);
            free(in);
        }
}

int main(void)
{
    tc_init("test_sum_accuracy");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32),
        cmocka_unit_test(test_f64),
        cmocka_unit_test(test_specials),
    };
    int rc = cmocka_run_group_tests_name("sum_accuracy", tests, NULL, NULL);
    tc_finish();
    return rc;
}
