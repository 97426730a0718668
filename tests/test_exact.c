/* PP_ALGO_EXACT: f32 and f64 sums, reduce and the four scan variants,
 * bit for bit against the independent exact reference of exact_ref.c, on
 * every backend that accepts the algorithm (pp_set_algorithm; on cpu with
 * 1, 2 and 3 threads, so every thread count gives the reference's bits).
 * Data: random normal and uniform values, catastrophic cancellation
 * (pairs +-2^90..2^110 around small residues), many values below half an
 * ulp of a large one, exponents over the whole format with subnormals,
 * partial sums that overflow while the total does not, totals that
 * overflow, infinities and NaN, all -0.0 and mixed zeros, prefixes on
 * ties; sizes around the splitting blocks (1024) and the cpu tiles (8192)
 * and 0 to 3; hand-made cases at the edges of rounding; and EXACT on the
 * other types and operators (the default algorithm). The reduce of more
 * than 2^31 f32 elements is test_exact_large. */
#include "test_common.h"
#include "exact_data.h"
#include "exact_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0,    1,    2,    3,    5,    17,    1023,  1024,  1025,  2047,
                               2049, 8191, 8192, 8193, 16383, 16384, 16385, 24577, 65537, 100003};

static int quick(void) { return getenv("PARPRIM_TEST_QUICK") != NULL; }

/* The reference: the reduce's bits and every inclusive prefix's. */
static uint64_t ref_bits(const xref *x, int is_f64) { return is_f64 ? xref_bits_f64(x) : xref_bits_f32(x); }

static uint64_t bits_at(int is_f64, const void *buf, size_t i)
{
    uint64_t b = 0;
    if (is_f64) memcpy(&b, (const double *)buf + i, 8);
    else memcpy(&b, (const float *)buf + i, 4);
    return b;
}

static void expect_bits(int is_f64, const void *got, const uint64_t *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t g = bits_at(is_f64, got, i);
        if (g != want[i])
            TC_FAIL("%s[%zu]: got bits 0x%llx (%.17g), expected 0x%llx", what, i, (unsigned long long)g,
                    is_f64 ? ((const double *)got)[i] : (double)((const float *)got)[i],
                    (unsigned long long)want[i]);
    }
}

/* Runs one input on every configuration offering EXACT. */
static void run_input(const char *label, int is_f64, const double *v, size_t n, int scans)
{
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = is_f64 ? 8 : 4, bytes = n * sz;
    void *in = tc_halloc(bytes + sz), *host = tc_halloc(bytes + sz);
    uint64_t *incl = (uint64_t *)malloc((n + 1) * sizeof *incl), red;
    uint64_t *excl = (uint64_t *)malloc((n + 1) * sizeof *excl);
    exact_pack(is_f64, v, n, in);
    xref x;
    xref_init(&x, is_f64);
    for (size_t i = 0; i < n; i++) {
        excl[i] = i ? ref_bits(&x, is_f64) : 0; /* +0.0 first */
        xref_add(&x, v[i], 1);
        incl[i] = ref_bits(&x, is_f64);
    }
    red = n ? ref_bits(&x, is_f64) : 0;

    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        if (c->algo != PP_ALGO_EXACT) continue;
        pp_context *ctx = c->ctx;
        if (!tc_need_buffers(ctx, "exact reduce and scan", bytes + TC_GUARD, 2 * bytes + TC_SCRATCH(bytes),
                             0))
            continue;
        if (is_f64 && !tc_need_f64(ctx, "exact sums of f64")) continue;
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT));
        tc_use(c, PP_PRIM_SCAN);
        void *din = n ? tc_dev_upload(ctx, in, bytes) : NULL;
        void *dout = tc_dev_filled(ctx, sz, 0x5A);
        tc_case("%s prim=reduce type=%s data=%s n=%zu", tc_config_name(c), pp_type_name(t), label, n);
        if (tc_status_ok(c, pp_reduce(ctx, t, PP_SUM, din, n, dout), "pp_reduce")) {
            TC_DOWNLOAD(ctx, host, dout, sz, "reduce");
            expect_bits(is_f64, host, &red, 1, "reduce");
        }
        tc_dev_free(ctx, dout);
        for (int k = 0; n && k < 4; k++) {
            if (!((scans >> k) & 1)) continue;
            const pp_scan_kind kind = (k & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE;
            const int inplace = k >= 2;
            tc_case("%s prim=scan type=%s kind=%s %s data=%s n=%zu", tc_config_name(c), pp_type_name(t),
                    kind == PP_INCLUSIVE ? "inclusive" : "exclusive", inplace ? "in-place" : "out-of-place",
                    label, n);
            void *d = inplace ? tc_dev_upload(ctx, in, bytes) : tc_dev_filled(ctx, bytes, 0x5A);
            if (tc_status_ok(c, pp_scan(ctx, t, PP_SUM, kind, inplace ? d : din, d, n), "pp_scan")) {
                TC_DOWNLOAD(ctx, host, d, bytes, "scan");
                expect_bits(is_f64, host, kind == PP_INCLUSIVE ? incl : excl, n, "scan");
            }
            tc_dev_free(ctx, d);
        }
        tc_dev_free(ctx, din);
        pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
        pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
    }
    free(in);
    free(host);
    free(incl);
    free(excl);
}

static void test_sets(int is_f64)
{
    tc_rng r = tc_rng_for(is_f64 ? "exact_f64" : "exact_f32");
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg), nexact = 0;
    for (size_t i = 0; i < ncfg; i++) nexact += cfg[i].algo == PP_ALGO_EXACT;
    printf("  %s: %zu configurations offer exact\n", is_f64 ? "f64" : "f32", nexact);
    const size_t ns = sizeof sizes / sizeof sizes[0];
    double *v = (double *)malloc(sizes[ns - 1] * sizeof *v + 8);
    for (int set = 0; set < EXACT_SETS; set++)
        for (size_t s = 0; s < ns; s++) {
            size_t n = sizes[s];
            if (quick() && n > 16385) continue;
            exact_gen(&r, is_f64, set, n, v);
            /* every scan variant up to 16385, one of them beyond */
            run_input(exact_set_names[set], is_f64, v, n, n <= 16385 ? 15 : 1 << ((set + (int)s) & 3));
        }
    free(v);
}

static void test_f32(void **state)
{
    (void)state;
    test_sets(0);
}

static void test_f64(void **state)
{
    (void)state;
    test_sets(1);
}

/* Edges of rounding, by hand: each input and its expected bits, checked
 * against the reference too. */
static void hand(int is_f64, const double *v, size_t n, double want, const char *label)
{
    xref x;
    xref_init(&x, is_f64);
    for (size_t i = 0; i < n; i++) xref_add(&x, v[i], 1);
    double got = xref_value(&x);
    tc_case("reference on %s", label);
    TC_REQUIRE((isnan(want) && isnan(got)) || (got == want && signbit(got) == signbit(want)),
               "reference %s: %.17g, expected %.17g", label, got, want);
    run_input(label, is_f64, v, n, 15);
}

static void test_hand(void **state)
{
    (void)state;
    const double tiny = 0x1p-1074, maxd = DBL_MAX, maxf = FLT_MAX;
#define HAND(f64, want, ...)                                                  \
    do {                                                                      \
        const double in_[] = {__VA_ARGS__};                                   \
        hand(f64, in_, sizeof in_ / sizeof in_[0], want, #__VA_ARGS__);       \
    } while (0)
    HAND(1, 1.0, 1.0, 0x1p-53);                             /* tie: to even */
    HAND(1, 1.0 + 0x1p-51, 1.0 + 0x1p-52, 0x1p-53);         /* tie: up to even */
    HAND(1, 1.0 + 0x1p-52, 1.0, 0x1p-53, 0x1p-105);         /* above the tie by 2^-105 */
    HAND(1, 1.0, 0x1p-53, 1.0, -0x1p-105);                  /* below it */
    HAND(1, 0x1p-53, 0x1p100, 0x1p-53, -0x1p100);           /* cancellation leaves the residues */
    HAND(1, INFINITY, maxd, 0x1p970);                       /* tie at the top: rounds to inf */
    HAND(1, maxd, maxd, 0x1p969);                           /* below it: stays */
    HAND(1, maxd, maxd, maxd, -maxd);                       /* partial sums overflow */
    HAND(1, -INFINITY, -maxd, -maxd);
    HAND(1, 2 * tiny, tiny, tiny);                          /* subnormals add exactly */
    HAND(1, 0x1p-1022, 0x1p-1022 - tiny, tiny);             /* into the normal range */
    HAND(1, -0.0, -0.0);
    HAND(1, -0.0, -0.0, -0.0, -0.0);
    HAND(1, 0.0, -0.0, 0.0);
    HAND(1, 0.0, 1.0, -1.0);
    HAND(1, 0.0, -1.0, 1.0, -0.0);
    HAND(1, NAN, INFINITY, -INFINITY);
    HAND(1, NAN, 1.0, NAN);
    HAND(1, INFINITY, INFINITY, -maxd, -maxd);
    HAND(0, 1.0f, 1.0f, 0x1p-24);
    HAND(0, 1.0f + 0x1p-22, 1.0f + 0x1p-23, 0x1p-24);
    HAND(0, 1.0f + 0x1p-23, 1.0f, 0x1p-24, 0x1p-149);       /* one f32 quantum above the tie */
    HAND(0, INFINITY, maxf, 0x1p103);                       /* f32 tie at the top */
    HAND(0, maxf, maxf, maxf, -maxf);
    HAND(0, 0x1p-148, 0x1p-149, 0x1p-149);
    HAND(0, -0.0, -0.0, -0.0);
    HAND(0, NAN, -INFINITY, INFINITY);
    /* f32 double rounding: 1 + 2^-24 + 2^-80 is above the f32 tie, but a
     * double holding it would round to the tie, and then to even (1) */
    HAND(0, 1.0f + 0x1p-23, 1.0f, 0x1p-24, 0x1p-80);
#undef HAND
}

/* EXACT on other types and operators is the default algorithm. */
static void test_others(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("exact_others");
    const size_t n = 10007;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        if (c->algo != PP_ALGO_EXACT) continue;
        tc_use(c, PP_PRIM_REDUCE);
        TC_OK(pp_set_algorithm(c->ctx, PP_PRIM_SCAN, PP_ALGO_EXACT));
        static const pp_type types[] = {PP_I32, PP_U8, PP_I64, PP_F32, PP_F64};
        static const pp_op ops[] = {PP_SUM, PP_XOR, PP_PROD, PP_MAX, PP_MIN};
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
            pp_type t = types[k];
            pp_op op = ops[k];
            size_t sz = tc_size(t);
            if (t == PP_F64 && !tc_need_f64(c->ctx, "f64 min")) continue;
            void *in = tc_halloc(n * sz), *want = tc_halloc(n * sz), *host = tc_halloc(n * sz);
            if (tc_is_float(t))
                for (size_t i = 0; i < n; i++) tc_set_f(t, in, i, (double)tc_between(&r, -1000, 1000) / 4);
            else tc_fill_random(&r, in, n * sz);
            tc_case("%s type=%s op=%s n=%zu (EXACT = default)", tc_config_name(c), pp_type_name(t),
                    pp_op_name(op), n);
            void *d = tc_dev_upload(c->ctx, in, n * sz), *o = tc_dev_filled(c->ctx, n * sz, 0);
            void *o1 = tc_dev_filled(c->ctx, sz, 0);
            TC_OK(pp_reduce(c->ctx, t, op, d, n, o1));
            ref_reduce(t, op, in, n, want);
            TC_DOWNLOAD(c->ctx, host, o1, sz, "reduce");
            TC_EXPECT_BITS(t, host, want, 1, "reduce");
            tc_dev_free(c->ctx, o1);
            TC_OK(pp_scan(c->ctx, t, op, PP_INCLUSIVE, d, o, n));
            ref_scan(t, op, PP_INCLUSIVE, in, want, n);
            TC_DOWNLOAD(c->ctx, host, o, n * sz, "scan");
            TC_EXPECT_BITS(t, host, want, n, "scan");
            tc_dev_free(c->ctx, d);
            tc_dev_free(c->ctx, o);
            free(in);
            free(want);
            free(host);
        }
        pp_set_algorithm(c->ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
        pp_set_algorithm(c->ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
    }
}

int main(void)
{
    tc_init("test_exact");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hand), cmocka_unit_test(test_f32),
                                       cmocka_unit_test(test_f64), cmocka_unit_test(test_others)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
