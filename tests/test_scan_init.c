/* pp_scan_init against the reference (ref_scan_init): every type, every
 * operator it takes, inclusive and exclusive, in and out of place, over
 * the test sizes (0, 1, primes, tile edges), with fresh random data whose
 * folds do not depend on the order (tc_gen_op_data; the initial value is
 * one more element of it, so float sums and products stay exact), a few
 * NaNs among floats, and initial values of their own (-0.0 and NaN for
 * float sums, the extremes for integers), on every configuration the test
 * framework lists for PP_PRIM_SCAN; the input unchanged (out of place) and
 * init unchanged. PP_ALGO_EXACT (f32, f64 sums) bit for bit against the
 * exact reference (exact_ref.c) on the hard data sets (exact_data.c), init
 * taking part in the exact sum. Backends without the call: a printed skip
 * ("not available on <backend> yet"), nothing written. */
#include "test_common.h"

#include "exact_data.h"
#include "exact_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends that must have pp_scan_init (the others may not yet). */
static int required(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL || b == PP_BACKEND_CUDA; }

static int op_valid(pp_type t, pp_op op) { return !tc_is_float(t) || op <= PP_MAX; }

typedef struct si_case {
    pp_type t;
    pp_op op;
    pp_scan_kind kind;
    int inplace;
    size_t n;
    const void *in, *init, *want; /* host */
    const char *what;             /* the kind of init */
} si_case;

/* One case on every configuration of PP_PRIM_SCAN (only_exact: those of
 * PP_ALGO_EXACT), the result compared with want (bits: bit for bit,
 * NaN payloads included). */
static void run_case(const si_case *e, int only_exact, int bits)
{
    const size_t sz = tc_size(e->t), bytes = e->n * sz;
    char *host = (char *)tc_halloc(bytes + sz);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        pp_context *ctx = c->ctx;
        if (only_exact && c->algo != PP_ALGO_EXACT) continue;
        if (e->t == PP_F64 && !tc_need_f64(ctx, "f64 pp_scan_init")) continue;
        tc_use(c, PP_PRIM_SCAN);
        tc_case("%s pp_scan_init type=%s op=%s %s %s n=%zu init=%s", tc_config_name(c), pp_type_name(e->t),
                pp_op_name(e->op), e->kind == PP_INCLUSIVE ? "inclusive" : "exclusive",
                e->inplace ? "in-place" : "out-of-place", e->n, e->what);
        void *din = e->n ? tc_dev_upload(ctx, e->in, bytes) : NULL;
        void *dout = e->inplace ? din : e->n ? tc_dev_filled(ctx, bytes, 0x5A) : NULL;
        void *dinit = tc_dev_upload(ctx, e->init, sz);
        const pp_status st = pp_scan_init(ctx, e->t, e->op, e->kind, din, dout, e->n, dinit);
        if (tc_status_or_absent(c, st, "pp_scan_init", required(c->backend)) && e->n) {
            TC_DOWNLOAD(ctx, host, dout, bytes, "out");
            if (bits)
                TC_EXPECT_BITS(e->t, host, e->want, e->n, "pp_scan_init");
            else
                TC_EXPECT_EQUAL(e->t, host, e->want, e->n, "pp_scan_init");
        } else if (st == PP_ERROR_UNSUPPORTED && e->n) { /* nothing written */
            TC_DOWNLOAD(ctx, host, dout, bytes, "out");
            if (e->inplace)
                TC_EXPECT_BITS(e->t, host, e->in, e->n, "out after a refused call");
            else
                for (size_t i = 0; i < bytes; i++)
                    TC_REQUIRE((unsigned char)host[i] == 0x5A, "byte %zu of out written by a refused call", i);
        }
        if (!e->inplace && e->n) {
            TC_DOWNLOAD(ctx, host, din, bytes, "in");
            TC_EXPECT_BITS(e->t, host, e->in, e->n, "in after the call");
        }
        TC_DOWNLOAD(ctx, host, dinit, sz, "init");
        TC_EXPECT_BITS(e->t, host, e->init, 1, "init after the call");
        tc_dev_free(ctx, dinit);
        if (dout != din) tc_dev_free(ctx, dout);
        tc_dev_free(ctx, din);
    }
    pp_context *const *ctxs;
    for (size_t i = 0, nc = tc_contexts(&ctxs); i < nc; i++) pp_set_algorithm(ctxs[i], PP_PRIM_SCAN, PP_ALGO_AUTO);
    free(host);
}

/* The initial values of their own: the first element of the generated
 * data (kind 0), else per type: floats -0.0, +0.0 and a NaN for sums,
 * integers the smallest and the largest value. */
static const char *special_init(tc_rng *r, pp_type t, int which, void *init)
{
    if (tc_is_float(t)) {
        if (which == 1)
            tc_set_f(t, init, 0, -0.0);
        else if (which == 2)
            tc_set_f(t, init, 0, 0.0);
        else
            tc_set_nan(r, t, init, 0);
        return which == 1 ? "-0.0" : which == 2 ? "+0.0" : "NaN";
    }
    if (which == 1)
        tc_set_int(t, init, 0, (uint64_t)tc_type_min(t));
    else
        tc_set_int(t, init, 0, tc_type_max(t));
    return which == 1 ? "min" : "max";
}

static void test_type(pp_type t)
{
    tc_rng r = tc_rng_for(pp_type_name(t));
    const size_t sz = tc_size(t), nmax = tc_big_sizes[tc_nbig - 1];
    char *data = (char *)malloc((nmax + 1) * sz), *want = (char *)malloc(nmax * sz + 8);
    char init[8];
    unsigned combo = 0;
    for (int op = 0; op < PP_OP_COUNT; op++) {
        if (!op_valid(t, (pp_op)op)) continue;
        for (size_t s = 0; s < tc_nsizes + tc_nbig; s++) {
            const size_t n = s < tc_nsizes ? tc_sizes[s] : tc_big_sizes[s - tc_nsizes];
            if (s >= tc_nsizes && op != PP_SUM && op != PP_MAX) continue; /* big sizes: two operators */
            /* every kind and placement over the sizes, each size one of them */
            const pp_scan_kind kind = (combo & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE;
            const int inplace = (combo >> 1) & 1;
            combo++;
            tc_gen_op_data(&r, t, (pp_op)op, n + 1, tc_is_float(t) && (combo % 3 == 0), data);
            memcpy(init, data, sz);
            const char *what = "data";
            const int which = (int)(combo % 4); /* some sizes: an init of its own */
            if (which && (!tc_is_float(t) || op == PP_SUM)) what = special_init(&r, t, which, init);
            ref_scan_init(t, (pp_op)op, kind, data + sz, want, n, init);
            const si_case e = {t, (pp_op)op, kind, inplace, n, data + sz, init, want, what};
            run_case(&e, 0, 0);
        }
    }
    free(data);
    free(want);
}
TC_TYPE_TESTS(test_type)

/* PP_ALGO_EXACT: out bit for bit the exact reference's rounding of init
 * and the prefix (exclusive out[0]: init's own bits). */
static void exact_case(tc_rng *r, int is_f64, int set, size_t n, pp_scan_kind kind, int inplace)
{
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = is_f64 ? 8 : 4;
    double *v = (double *)malloc((n + 1) * sizeof *v);
    char *packed = (char *)malloc((n + 1) * sz), *want = (char *)malloc(n * sz + 8);
    exact_gen(r, is_f64, set, n + 1, v);
    exact_pack(is_f64, v, n + 1, packed);
    xref x;
    xref_init(&x, is_f64);
    xref_add(&x, v[0], 1);
    for (size_t i = 0; i < n; i++) {
        if (kind == PP_EXCLUSIVE) xref_put_bits(is_f64, want, i, xref_bits(&x, is_f64));
        xref_add(&x, v[i + 1], 1);
        if (kind == PP_INCLUSIVE) xref_put_bits(is_f64, want, i, xref_bits(&x, is_f64));
    }
    if (kind == PP_EXCLUSIVE && n) memcpy(want, packed, sz);
    const si_case e = {t, PP_SUM, kind, inplace, n, packed + sz, packed, want, exact_set_names[set]};
    run_case(&e, 1, 1);
    free(v);
    free(packed);
    free(want);
}

static void test_exact(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 7, 1009, 8193, 20011, 100003};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    tc_rng r = tc_rng_for("exact");
    unsigned combo = 0;
    for (int is_f64 = 0; is_f64 < 2; is_f64++)
        for (int set = 0; set < EXACT_SETS; set++)
            for (size_t s = 0; s < ns; s++) {
                if (tc_quick && sizes[s] > 20011) continue;
                exact_case(&r, is_f64, set, sizes[s], (combo & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE, (combo >> 1) & 1);
                combo++;
            }
}

int main(void)
{
    tc_init("test_scan_init");
    const struct CMUnitTest tests[] = {TC_TYPE_UNIT_TESTS, cmocka_unit_test(test_exact)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
