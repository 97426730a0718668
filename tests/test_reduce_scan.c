/* pp_reduce and pp_scan against the reference: every type and operator,
 * inclusive and exclusive scans out of place and in place, on every
 * configuration (backend x algorithm x cpu thread count) and every size of
 * tc_sizes, plus one size around 2^20 per type and operator. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int op_valid(pp_type t, pp_op op) { return !tc_is_float(t) || op <= PP_MAX; }

/* ---- data ------------------------------------------------------------------------------
 * Integers wrap exactly, so any data gives one exact answer; the modes make
 * the results interesting (a product of random integers is 0 after ~64
 * factors, an AND of random words is 0 after a few). Floats are chosen so
 * that every evaluation order gives the same bits: sums of quarter
 * integers that stay exact, products of +-1 with a few factors of 2 or 1/2,
 * MIN/MAX of anything (+-0, +-inf, subnormals). */
static void gen_int(tc_rng *r, pp_type t, pp_op op, size_t n, int mode, void *buf)
{
    size_t bits = 8 * tc_size(t);
    switch (mode % 3) {
    case 0: /* full range */
        tc_fill_random(r, buf, n * tc_size(t));
        break;
    case 1: /* small range, many duplicates */
        for (size_t i = 0; i < n; i++)
            tc_set_int(t, buf, i, (uint64_t)(tc_is_signed(t) ? tc_between(r, -4, 4) : tc_between(r, 0, 8)));
        break;
    default: { /* tailored to the operator */
        uint64_t sparse = n / (2 * bits) + 1; /* about 2 * bits special elements in all */
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tc_next(r);
            switch (op) {
            case PP_PROD: /* odd factors never reach 0; a few even ones */
                tc_set_int(t, buf, i, tc_below(r, 64) ? (x | 1) : x);
                break;
            case PP_AND:
                tc_set_int(t, buf, i, tc_below(r, sparse) ? ~(uint64_t)0 : ~((uint64_t)1 << (x % bits)));
                break;
            case PP_OR:
                tc_set_int(t, buf, i, tc_below(r, sparse) ? 0 : (uint64_t)1 << (x % bits));
                break;
            default: /* extremes mixed with random values */
                switch (x & 7) {
                case 0: tc_set_int(t, buf, i, (uint64_t)tc_type_min(t)); break;
                case 1: tc_set_int(t, buf, i, tc_type_max(t)); break;
                default: tc_set_int(t, buf, i, x >> 3 | x << 61); break;
                }
            }
        }
    }
    }
    tc_not_all_zero(t, buf, n);
}

static void gen_float(tc_rng *r, pp_type t, pp_op op, size_t n, int mode, void *buf)
{
    switch (op) {
    case PP_SUM: {
        /* quarter integers k / 4, |k| <= m: every partial sum is a multiple
         * of 1/4 below 2^22 in magnitude, so exact in f32 (and f64). */
        int64_t m = 64;
        if (t == PP_F32 && n > 0 && (int64_t)((1 << 24) / n) < m) m = (int64_t)((1 << 24) / n);
        if (m < 1) m = 1;
        if (mode % 3 == 1) m = m < 2 ? m : 2; /* many duplicates and zeros */
        for (size_t i = 0; i < n; i++) {
            int64_t k = tc_between(r, -m, m);
            double v = (double)k * 0.25;
            if (k == 0 && (tc_next(r) & 1)) v = -0.0;
            tc_set_f(t, buf, i, v);
        }
        if (mode % 3 == 2 && n) /* all -0.0 but one: the sign of zero sums */
            for (size_t i = 0; i < n; i++) tc_set_f(t, buf, i, i == n / 2 && n > 4 ? 0.5 : -0.0);
        break;
    }
    case PP_PROD: {
        for (size_t i = 0; i < n; i++) tc_set_f(t, buf, i, (tc_next(r) & 1) ? -1.0 : 1.0);
        size_t k = n < 60 ? n : 60;
        for (size_t j = 0; j < k; j++) {
            size_t i = (size_t)tc_below(r, n);
            uint64_t x = tc_next(r);
            tc_set_f(t, buf, i, ((x & 1) ? 2.0 : 0.5) * ((x & 2) ? -1.0 : 1.0));
        }
        if (mode % 3 == 2 && n) /* a zero of either sign somewhere */
            tc_set_f(t, buf, (size_t)tc_below(r, n), (tc_next(r) & 1) ? -0.0 : 0.0);
        break;
    }
    default: /* MIN, MAX */
        for (size_t i = 0; i < n; i++) {
            if (mode % 3 == 1) { /* only zeros of both signs and a few values */
                uint64_t x = tc_next(r) & 7;
                tc_set_f(t, buf, i, x < 3 ? 0.0 : x < 6 ? -0.0 : x == 6 ? 1.0 : -1.0);
            } else {
                tc_set_any_float(r, t, buf, i);
            }
        }
        break;
    }
    tc_not_all_zero(t, buf, n);
}

static void gen_data(tc_rng *r, pp_type t, pp_op op, size_t n, int mode, int nans, void *buf)
{
    if (tc_is_float(t)) gen_float(r, t, op, n, mode, buf);
    else gen_int(r, t, op, n, mode, buf);
    if (nans && n) {
        size_t k = 1 + (size_t)tc_below(r, 3);
        for (size_t j = 0; j < k; j++) tc_set_nan(r, t, buf, (size_t)tc_below(r, n));
    }
}

/* ---- one (type, op, n) on every configuration ---------------------------------------------- */
typedef struct expect {
    pp_type t;
    pp_op op;
    size_t n;
    const void *in;
    const void *red;  /* one element */
    const void *incl; /* n elements */
    const void *excl; /* n elements */
} expect;

static const char *kind_name(pp_scan_kind k) { return k == PP_INCLUSIVE ? "inclusive" : "exclusive"; }

static void run_config(const tc_config *c, const expect *e, int do_reduce, int scans_mask, void *host)
{
    const size_t sz = tc_size(e->t), bytes = e->n * sz;
    pp_context *ctx = c->ctx;
    if (do_reduce) tc_use(c, PP_PRIM_REDUCE);
    tc_use(c, PP_PRIM_SCAN);
    void *din = tc_dev_upload(ctx, e->in, bytes);

    if (do_reduce) {
        tc_case("%s prim=reduce type=%s op=%s n=%zu", tc_config_name(c), pp_type_name(e->t), pp_op_name(e->op), e->n);
        void *dout = tc_dev_filled(ctx, sz, 0x5A);
        if (tc_status_ok(c, pp_reduce(ctx, e->t, e->op, din, e->n, dout), "pp_reduce")) {
            TC_DOWNLOAD(ctx, host, dout, sz, "reduce result");
            TC_EXPECT_EQUAL(e->t, host, e->red, 1, "reduce result");
        }
        tc_dev_free(ctx, dout);
    }

    for (int v = 0; v < 4; v++) {
        if (!(scans_mask >> v & 1)) continue;
        pp_scan_kind kind = (v & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE;
        int inplace = v >= 2;
        const void *want = kind == PP_INCLUSIVE ? e->incl : e->excl;
        tc_case("%s prim=scan type=%s op=%s kind=%s %s n=%zu", tc_config_name(c), pp_type_name(e->t),
                pp_op_name(e->op), kind_name(kind), inplace ? "in-place" : "out-of-place", e->n);
        void *dout = inplace ? tc_dev_upload(ctx, e->in, bytes) : tc_dev_filled(ctx, bytes, 0x5A);
        if (tc_status_ok(c, pp_scan(ctx, e->t, e->op, kind, inplace ? dout : din, dout, e->n), "pp_scan")) {
            TC_DOWNLOAD(ctx, host, dout, bytes, "scan output");
            TC_EXPECT_EQUAL(e->t, host, want, e->n, "scan output");
        }
        tc_dev_free(ctx, dout);
    }

    /* the input of the out-of-place calls is untouched */
    tc_case("%s prim=reduce/scan type=%s op=%s n=%zu (input afterwards)", tc_config_name(c), pp_type_name(e->t),
            pp_op_name(e->op), e->n);
    TC_DOWNLOAD(ctx, host, din, bytes, "input");
    TC_EXPECT_BITS(e->t, host, e->in, e->n, "input after reduce/scan");
    tc_dev_free(ctx, din);
}

static void run_case(tc_rng *r, pp_type t, pp_op op, size_t n, int mode, int nans, int big)
{
    const size_t sz = tc_size(t), buf = n * sz + TC_GUARD;
    char what[80];
    snprintf(what, sizeof what, "reduce and scan of %zu %s", n, pp_type_name(t));
    if (!tc_need(NULL, what, 0, 5 * buf)) return;
    expect e = {t, op, n, NULL, NULL, NULL, NULL};
    void *in = tc_halloc(n * sz), *red = tc_halloc(sz), *incl = tc_halloc(n * sz), *excl = tc_halloc(n * sz);
    void *host = tc_halloc(n * sz + sz);
    gen_data(r, t, op, n, mode, nans, in);
    ref_reduce(t, op, in, n, red);
    ref_scan(t, op, PP_INCLUSIVE, in, incl, n);
    /* the exclusive reference in place, on a copy: checks ref_scan's in == out too */
    memcpy(excl, in, n * sz);
    ref_scan(t, op, PP_EXCLUSIVE, excl, excl, n);
    e.in = in;
    e.red = red;
    e.incl = incl;
    e.excl = excl;

    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        /* reduce and scan may offer different algorithms: a scan algorithm
         * that reduce lacks (cuda's and opencl's reduce-then-scan, opencl's
         * Blelloch) is tested on the scans only */
        int do_reduce = c->algo == PP_ALGO_AUTO || pp_set_algorithm(c->ctx, PP_PRIM_REDUCE, c->algo) == PP_SUCCESS;
        int scans = 15;
        if (big) {
            /* around 2^20: the parallel paths with 2 and 3 threads, and
             * one scan variant each, chosen by (type, op); big == 2: all
             * four variants */
            if (c->algo != PP_ALGO_AUTO || c->threads == 1) continue;
            if (big == 1) scans = 1 << ((t + op + c->threads) & 3);
        }
        /* the input and one output at a time, and the library's working memory */
        if (!tc_need_buffers(c->ctx, what, buf, 2 * buf + TC_SCRATCH(n * sz), 0)) continue;
        if (t == PP_F64 && !tc_need_f64(c->ctx, "reduce and scan of f64")) continue;
        run_config(c, &e, do_reduce, scans, host);
    }
    free(in);
    free(red);
    free(incl);
    free(excl);
    free(host);
}

static void test_type(pp_type t)
{
    char name[64];
    snprintf(name, sizeof name, "reduce_scan_%s", pp_type_name(t));
    tc_rng r = tc_rng_for(name);
    for (int o = 0; o < PP_OP_COUNT; o++) {
        pp_op op = (pp_op)o;
        if (!op_valid(t, op)) continue;
        for (size_t s = 0; s < tc_nsizes; s++) run_case(&r, t, op, tc_sizes[s], (int)(s + (size_t)o), 0, 0);
        run_case(&r, t, op, tc_big_sizes[(t + o) % tc_nbig], (int)tc_below(&r, 3), 0, 1);
    }
}

/* NaN anywhere: MIN and MAX give NaN, and so does every scan output from
 * the first NaN on (SUM and PROD too). */
static void test_nans(pp_type t)
{
    char name[64];
    snprintf(name, sizeof name, "reduce_scan_nan_%s", pp_type_name(t));
    tc_rng r = tc_rng_for(name);
    static const size_t sizes[] = {1, 2, 17, 1000, 8193, 16385, 49153, 100003};
    for (int o = 0; o <= PP_MAX; o++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            run_case(&r, t, (pp_op)o, sizes[s], (int)s, 1, 0);
}

/* out may lie inside in: the result overwrites in[0]. Where handles are
 * addresses (cpu), also the last element. */
static void test_out_inside_in(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("reduce_out_inside_in");
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    static const size_t sizes[] = {1, 5, 8193, 70000};
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_REDUCE);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            pp_type t = tc_types[ti];
            size_t sz = tc_size(t);
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                size_t n = sizes[s];
                pp_op op = (pp_op)tc_below(&r, tc_is_float(t) ? 4 : 7);
                char what[80];
                snprintf(what, sizeof what, "reduce of %zu %s into its input", n, pp_type_name(t));
                if (!tc_need_buffers(c->ctx, what, n * sz + TC_GUARD, TC_SCRATCH(2 * n * sz), 3 * n * sz)) continue;
                if (t == PP_F64 && !tc_need_f64(c->ctx, "reduce of f64")) continue;
                void *in = tc_halloc(n * sz), *want = tc_halloc(n * sz), *host = tc_halloc(n * sz);
                gen_data(&r, t, op, n, (int)s, 0, in);
                memcpy(want, in, n * sz);
                ref_reduce(t, op, in, n, want); /* result over element 0 */
                tc_case("%s prim=reduce type=%s op=%s n=%zu out=in", tc_config_name(c), pp_type_name(t),
                        pp_op_name(op), n);
                void *d = tc_dev_upload(c->ctx, in, n * sz);
                if (tc_status_ok(c, pp_reduce(c->ctx, t, op, d, n, d), "pp_reduce")) {
                    TC_DOWNLOAD(c->ctx, host, d, n * sz, "in/out");
                    TC_EXPECT_EQUAL(t, host, want, n, "in with the result in element 0");
                }
                if (c->backend == PP_BACKEND_CPU && n > 1) {
                    /* out = &in[n - 1] */
                    TC_OK(pp_upload(c->ctx, d, in, n * sz));
                    memcpy(want, in, n * sz);
                    ref_reduce(t, op, in, n, (char *)want + (n - 1) * sz);
                    tc_case("%s prim=reduce type=%s op=%s n=%zu out=&in[n-1]", tc_config_name(c),
                            pp_type_name(t), pp_op_name(op), n);
                    if (tc_status_ok(c, pp_reduce(c->ctx, t, op, d, n, (char *)d + (n - 1) * sz), "pp_reduce")) {
                        TC_DOWNLOAD(c->ctx, host, d, n * sz, "in/out");
                        TC_EXPECT_EQUAL(t, host, want, n, "in with the result in element n-1");
                    }
                }
                tc_dev_free(c->ctx, d);
                free(in);
                free(want);
                free(host);
            }
        }
    }
}

/* The reference itself, on hand-computed cases. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("reference self-check");
    {
        int8_t in[4] = {100, 100, 100, -128}, out[4], r;
        ref_reduce(PP_I8, PP_SUM, in, 4, &r);
        TC_REQUIRE(r == (int8_t)(300 - 128 - 256), "i8 sum wraps: %d", r); /* 300-128 = 172 -> -84 */
        ref_scan(PP_I8, PP_SUM, PP_EXCLUSIVE, in, out, 4);
        TC_REQUIRE(out[0] == 0 && out[1] == 100 && out[2] == -56 && out[3] == 44, "i8 exclusive sum");
        ref_reduce(PP_I8, PP_PROD, in, 3, &r);
        TC_REQUIRE(r == 64, "i8 prod: 10^6 = 0xF4240 wraps to 0x40 (got %d)", r);
    }
    {
        int32_t in[3] = {INT32_MAX, 1, INT32_MIN}, r;
        ref_reduce(PP_I32, PP_SUM, in, 2, &r);
        TC_REQUIRE(r == INT32_MIN, "i32 wrap");
        ref_reduce(PP_I32, PP_MIN, in, 3, &r);
        TC_REQUIRE(r == INT32_MIN, "i32 min");
        ref_reduce(PP_I32, PP_MIN, in, 0, &r);
        TC_REQUIRE(r == INT32_MAX, "i32 min identity");
        ref_reduce(PP_I32, PP_AND, in, 0, &r);
        TC_REQUIRE(r == -1, "i32 and identity");
    }
    {
        double z[2] = {-0.0, 0.0}, r;
        ref_reduce(PP_F64, PP_MIN, z, 2, &r);
        TC_REQUIRE(r == 0 && signbit(r), "min(-0, +0) = -0");
        ref_reduce(PP_F64, PP_MAX, z, 2, &r);
        TC_REQUIRE(r == 0 && !signbit(r), "max(-0, +0) = +0");
        double y[2] = {0.0, -0.0};
        ref_reduce(PP_F64, PP_MIN, y, 2, &r);
        TC_REQUIRE(r == 0 && signbit(r), "min(+0, -0) = -0");
        ref_reduce(PP_F64, PP_SUM, y, 0, &r);
        TC_REQUIRE(r == 0 && !signbit(r), "float sum identity +0");
        float nn[3] = {1.0f, NAN, -INFINITY}, s[3];
        ref_scan(PP_F32, PP_MIN, PP_INCLUSIVE, nn, s, 3);
        TC_REQUIRE(s[0] == 1.0f && isnan(s[1]) && isnan(s[2]), "NaN propagates in min scan");
        ref_scan(PP_F32, PP_MAX, PP_EXCLUSIVE, nn, s, 3);
        TC_REQUIRE(s[0] == -INFINITY && s[1] == 1.0f && isnan(s[2]), "exclusive max scan");
    }
    {
        uint64_t lo = 0, hi = UINT64_MAX, c[3];
        uint64_t x[5] = {0, UINT64_MAX / 3 - 1, UINT64_MAX / 3, UINT64_MAX - 1, UINT64_MAX};
        ref_histogram_even(PP_U64, x, 5, &lo, &hi, 3, c);
        /* bin = floor(x * 3 / (2^64 - 1)): UINT64_MAX/3 * 3 = 2^64-1 -> bin 1 */
        TC_REQUIRE(c[0] == 2 && c[1] == 1 && c[2] == 1, "u64 exact binning %llu %llu %llu",
                   (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2]);
        int64_t l = INT64_MIN, h = INT64_MAX, y[3] = {INT64_MIN, -1, INT64_MAX - 1};
        ref_histogram_even(PP_I64, y, 3, &l, &h, 2, c);
        /* -1 - MIN = 2^63 - 1; * 2 / (2^64 - 1) < 1 -> bin 0 */
        TC_REQUIRE(c[0] == 2 && c[1] == 1, "i64 exact binning");
        float fl = 0.0f, fh = 1.0f, f[6] = {0.0f, 0.5f, 0.99999994f, 1.0f, -0.0f, NAN};
        ref_histogram_even(PP_F32, f, 6, &fl, &fh, 2, c);
        TC_REQUIRE(c[0] == 2 && c[1] == 2, "f32 binning");
        double e[4] = {-INFINITY, 0.0, 1.0, INFINITY}, d[5] = {-1e300, 0.0, 0.5, 1.0, INFINITY};
        ref_histogram_range(PP_F64, d, 5, e, 3, c);
        TC_REQUIRE(c[0] == 1 && c[1] == 2 && c[2] == 1, "range binning");
    }
    {
        int16_t k[6] = {3, 1, 3, 2, 1, 3}, v[6] = {0, 1, 2, 3, 4, 5};
        ref_sort_pairs(PP_I16, k, v, 2, 6, PP_DESCENDING);
        static const int16_t wk[6] = {3, 3, 3, 2, 1, 1}, wv[6] = {0, 2, 5, 3, 1, 4};
        TC_REQUIRE(!memcmp(k, wk, sizeof k) && !memcmp(v, wv, sizeof v), "stable descending sort");
        double f[5] = {NAN, 0.0, -0.0, -NAN, -INFINITY};
        uint64_t b0, b3;
        memcpy(&b0, &f[0], 8);
        memcpy(&b3, &f[3], 8);
        ref_sort_pairs(PP_F64, f, NULL, 0, 5, PP_ASCENDING);
        uint64_t c3, c4;
        memcpy(&c3, &f[3], 8);
        memcpy(&c4, &f[4], 8);
        TC_REQUIRE(f[0] == -INFINITY && signbit(f[1]) && f[1] == 0 && !signbit(f[2]) && c3 == b0 && c4 == b3,
                   "float total order and NaN stability");
        uint8_t u[3] = {7, 7, 7}, out[3];
        TC_REQUIRE(ref_unique(PP_U8, u, 3, out) == 1, "unique");
        float nf[3] = {NAN, NAN, -0.0f}, val = 0.0f, of[3];
        TC_REQUIRE(ref_unique(PP_F32, nf, 3, of) == 3, "unique NaN");
        TC_REQUIRE(ref_select_if(PP_F32, nf, 3, PP_NE, &val, of) == 2, "select_if NE NaN");
        TC_REQUIRE(ref_partition_if(PP_F32, nf, 3, PP_EQ, &val, of) == 1 && of[0] == 0 && isnan(of[1]),
                   "partition");
    }
}

TC_TYPE_TESTS(test_type)

/* Many tiles: a little over 1024 tiles of 32 KB (the cuda scan's tile), so
 * that the cuda look-back runs with its throttled polling (from 512 tiles)
 * and the cpu and opencl scans with many tiles per thread or group. Every
 * type size, rotating operators; quick mode (compute-sanitizer): i32 sum
 * only. */
static void test_many_tiles(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("reduce_scan_many_tiles");
    static const pp_type types[] = {PP_I32, PP_U8, PP_I16, PP_F32, PP_U64, PP_F64};
    static const pp_op ops[] = {PP_SUM, PP_MAX, PP_SUM, PP_SUM, PP_XOR, PP_MIN};
    const size_t count = tc_quick ? 1 : sizeof types / sizeof types[0];
    for (size_t i = 0; i < count; i++) {
        const size_t n = (size_t)1030 * (32768 / tc_size(types[i])) + 2 * i + 1;
        run_case(&r, types[i], ops[i], n, (int)i, 0, 1);
    }
}

/* The cuda default's warp-specialized scan (4-byte elements, from 2048
 * tiles of 32 KB, in and out 16-byte aligned): 2050 whole tiles and a last
 * tile of 3 elements (under the 16 bytes of a bulk copy: read element by
 * element alone) or of all but one element (a bulk copy, then element by
 * element); inclusive, exclusive, in and out of place. Quick mode: i32 sum
 * with the short last tile. */
static void test_lookahead(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("reduce_scan_lookahead");
    static const pp_type types[] = {PP_I32, PP_F32};
    const size_t tile = 8192, tails[] = {3, tile - 1};
    for (size_t i = 0; i < (tc_quick ? 1u : 2u); i++)
        for (size_t k = 0; k < (tc_quick ? 1u : 2u); k++)
            run_case(&r, types[i], PP_SUM, 2050 * tile + tails[k], (int)(i + k), 0, 2);
}

static void test_nan_f32(void **state)
{
    (void)state;
    test_nans(PP_F32);
}
static void test_nan_f64(void **state)
{
    (void)state;
    test_nans(PP_F64);
}

int main(void)
{
    tc_init("test_reduce_scan");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_known),
        TC_TYPE_UNIT_TESTS,
        cmocka_unit_test(test_nan_f32),
        cmocka_unit_test(test_nan_f64),
        cmocka_unit_test(test_out_inside_in),
        cmocka_unit_test(test_many_tiles),
        cmocka_unit_test(test_lookahead),
    };
    int rc = cmocka_run_group_tests_name("reduce_scan", tests, NULL, NULL);
    tc_finish();
    return rc;
}
