/* pp_reduce_to, pp_scan_to, pp_argmin and pp_argmax against the reference
 * (ref/reference_reduce_to.c), on every configuration the test framework
 * lists for PP_PRIM_REDUCE (pp_reduce_to, the arg-reductions) and
 * PP_PRIM_SCAN (pp_scan_to):
 *  - every (in_type, out_type) pair the header allows (this file's own
 *    reading of it: equal types, wider integers that hold the values,
 *    floats that hold them) and every operator of out_type, over awkward
 *    sizes (0, 1, 31, 33, tile edges, 2^20 + 7), inclusive and exclusive,
 *    with fresh random data whose folds in out_type do not depend on the
 *    order (float sums of small values, products of +-1 and 2, NaNs among
 *    floats for MIN/MAX); the input unchanged (GPU backends: sums of every
 *    pair, every operator from u8 and f32, and equal types);
 *  - sums that would wrap or round in the input type (u8 200 x 1000, f32
 *    2^24 + 1 + 1 ...), which must not in out_type;
 *  - argmin and argmax of every type: random data, few distinct values
 *    (ties), all equal, NaNs at the first, a middle, the last and random
 *    places, -0.0 and +0.0 as the extreme.
 * The error cases are in test_errors_reduce_to.c. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends that must have the calls. */
static int required(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL || b == PP_BACKEND_CUDA; }

/* The header's pairs, read independently of the library's list. */
static int allowed(pp_type in, pp_type out)
{
    if (in == out) return 1;
    const size_t si = tc_size(in), so = tc_size(out);
    if (tc_is_float(out)) return tc_is_float(in) ? so > si : si <= 2 || (si == 4 && so == 8);
    if (tc_is_float(in)) return 0;
    return so > si && (tc_is_signed(out) || !tc_is_signed(in));
}

static int op_valid(pp_type t, pp_op op) { return !tc_is_float(t) || op <= PP_MAX; }

/* n elements of in (in_type) whose fold with op in out_type is exact in
 * any order. */
static void gen(tc_rng *r, pp_type in, pp_type out, pp_op op, size_t n, int nans, void *buf)
{
    if (!tc_is_float(out) || tc_is_float(in) || op == PP_MIN || op == PP_MAX) {
        tc_gen_op_data(r, in, op, n, nans, buf);
        return;
    }
    /* integers to floats: sums of values within +-8, products of +-1 and 2 */
    for (size_t i = 0; i < n; i++) {
        const int64_t lo = tc_is_signed(in) ? -8 : 0;
        int64_t v = tc_between(r, lo, 8);
        if (op == PP_PROD) v = tc_below(r, 128) == 0 ? 2 : (tc_is_signed(in) && (v & 1)) ? -1 : 1;
        tc_set_int(in, buf, i, (uint64_t)v);
    }
    tc_not_all_zero(in, buf, n);
}

typedef struct cv_case {
    pp_type in, out;
    pp_op op;
    size_t n;
    const void *data; /* n elements of in */
    int cpu_only;     /* 1: on the cpu backend alone */
} cv_case;

/* pp_reduce_to (scan 0: one output) or pp_scan_to of kind (n outputs) of
 * the case on every configuration of its primitive. */
static void run_case(const cv_case *e, int scan, pp_scan_kind kind)
{
    const pp_primitive prim = scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE;
    const char *fn = scan ? "pp_scan_to" : "pp_reduce_to";
    const size_t ib = e->n * tc_size(e->in), nout = scan ? e->n : 1, ob = nout * tc_size(e->out);
    unsigned char *want = (unsigned char *)malloc(ob + 8), *host = (unsigned char *)tc_halloc(ob + ib + 8);
    if (scan)
        ref_scan_to(e->in, e->out, e->op, kind, e->data, want, e->n);
    else
        ref_reduce_to(e->in, e->out, e->op, e->data, e->n, want);
    const int inplace = scan && e->in == e->out && (e->n & 1); /* equal types: pp_scan's in == out, half the sizes */
    const tc_config *cfg;
    for (size_t ci = 0, nc = tc_configs(prim, &cfg); ci < nc; ci++) {
        const tc_config *c = &cfg[ci];
        if (e->cpu_only && c->backend != PP_BACKEND_CPU) continue;
        if ((e->in == PP_F64 || e->out == PP_F64) && !tc_need_f64(c->ctx, scan ? "f64 pp_scan_to" : "f64 pp_reduce_to"))
            continue;
        tc_use(c, prim);
        tc_case("%s %s %s -> %s op=%s %s%s n=%zu", tc_config_name(c), fn, pp_type_name(e->in), pp_type_name(e->out),
                pp_op_name(e->op),
                !scan                  ? ""
                : kind == PP_INCLUSIVE ? "inclusive"
                                       : "exclusive",
                inplace ? " in-place" : "", e->n);
        void *din = e->n ? tc_dev_upload(c->ctx, e->data, ib) : NULL;
        void *dout = inplace ? din : ob ? tc_dev_filled(c->ctx, ob, 0x5A) : NULL;
        const pp_status st = scan ? pp_scan_to(c->ctx, e->in, e->out, e->op, kind, din, dout, e->n)
                                  : pp_reduce_to(c->ctx, e->in, e->out, e->op, din, e->n, dout);
        if (tc_status_or_absent(c, st, fn, required(c->backend)) && ob) {
            TC_DOWNLOAD(c->ctx, host, dout, ob, "out");
            TC_EXPECT_EQUAL(e->out, host, want, nout, fn);
        }
        if (e->n && !inplace) {
            TC_DOWNLOAD(c->ctx, host, din, ib, "in");
            TC_REQUIRE(memcmp(host, e->data, ib) == 0, "in changed by %s", fn);
        }
        if (dout != din) tc_dev_free(c->ctx, dout);
        tc_dev_free(c->ctx, din);
    }
    free(want);
    free(host);
}

/* The sizes of this test: awkward small ones, tile and block edges, and
 * 2^20 + 7 (not in quick mode). */
static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 1000, 1023, 1025, 4097, 8191, 8193, 16385, 40961, 1048583};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Quick mode's converting cases off the cpu: a sum of each kind of
 * conversion (zero and sign extension, integers to floats, f32 to f64) and
 * a max and a min. */
static int quick_pair(pp_type in, pp_type out, pp_op op)
{
    static const struct {
        pp_type in, out;
        pp_op op;
    } q[] = {{PP_U8, PP_U64, PP_SUM},  {PP_I8, PP_I64, PP_SUM},  {PP_U16, PP_I32, PP_SUM}, {PP_I16, PP_F32, PP_SUM},
             {PP_I32, PP_F64, PP_SUM}, {PP_F32, PP_F64, PP_SUM}, {PP_U8, PP_U64, PP_MAX},  {PP_F32, PP_F64, PP_MIN}};
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
        if (q[k].in == in && q[k].out == out && q[k].op == op) return 1;
    return 0;
}

static void test_from(pp_type in)
{
    tc_rng r = tc_rng_for(pp_type_name(in));
    const size_t nmax = sizes[NSIZES - 1];
    void *data = malloc(nmax * tc_size(in));
    unsigned combo = 0;
    for (int o = 0; o < TC_NTYPES; o++) {
        const pp_type out = tc_types[o];
        if (!allowed(in, out)) continue;
        for (int op = 0; op < PP_OP_COUNT; op++) {
            if (!op_valid(out, (pp_op)op)) continue;
            for (size_t s = 0; s < NSIZES; s++) {
                const size_t n = sizes[s];
                if (n > 16385 && ((tc_quick && n > 50000) || (op != PP_SUM && op != PP_MAX))) continue;
                combo++;
                gen(&r, in, out, (pp_op)op, n, tc_is_float(in) && combo % 3 == 0, data);
                /* GPU backends build a program per pair and operator, and
                 * the conversion does not depend on the operator: there,
                 * sums of every pair, every operator from u8 and f32; in
                 * quick mode (CI, where PoCL compiles each program cold)
                 * the sums of one pair per kind of conversion (equal
                 * types are pp_reduce's and pp_scan's, which
                 * test_reduce_scan covers) */
                const int cpu_only = tc_quick ? !quick_pair(in, out, (pp_op)op)
                                              : in != out && op != PP_SUM && in != PP_U8 && in != PP_F32;
                const cv_case e = {in, out, (pp_op)op, n, data, cpu_only};
                run_case(&e, 0, PP_INCLUSIVE);
                run_case(&e, 1, (combo & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE);
            }
        }
    }
    pp_context *const *ctxs;
    for (size_t i = 0, nc = tc_contexts(&ctxs); i < nc; i++) {
        pp_set_algorithm(ctxs[i], PP_PRIM_REDUCE, PP_ALGO_AUTO);
        pp_set_algorithm(ctxs[i], PP_PRIM_SCAN, PP_ALGO_AUTO);
    }
    free(data);
}
TC_TYPE_TESTS(test_from)

/* Sums that wrap or round in the input type and must not in out_type. */
static void test_no_wrap(void **state)
{
    (void)state;
    const size_t n = 1000;
    uint8_t *u8 = (uint8_t *)malloc(n);
    int32_t *i32 = (int32_t *)malloc(n * 4);
    float *f32 = (float *)malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        u8[i] = 200;
        i32[i] = i & 1 ? 2000000000 : 1000000000;
        f32[i] = i ? 1.0f : 16777216.0f; /* 2^24 + 999 in f64; 2^24 in f32 */
    }
    const cv_case cases[] = {{PP_U8, PP_U64, PP_SUM, n, u8, 0},   {PP_U8, PP_I32, PP_SUM, n, u8, 0},
                             {PP_U8, PP_F32, PP_SUM, n, u8, 0},   {PP_I32, PP_I64, PP_SUM, n, i32, 0},
                             {PP_I32, PP_F64, PP_SUM, n, i32, 0}, {PP_F32, PP_F64, PP_SUM, n, f32, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run_case(&cases[k], 0, PP_INCLUSIVE);
        run_case(&cases[k], 1, (k & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE);
    }
    /* the reference itself does not wrap (the values above) */
    uint64_t s;
    ref_reduce_to(PP_U8, PP_U64, PP_SUM, u8, n, &s);
    TC_REQUIRE(s == 200000, "ref_reduce_to u8 -> u64 gave %llu", (unsigned long long)s);
    double d;
    ref_reduce_to(PP_F32, PP_F64, PP_SUM, f32, n, &d);
    TC_REQUIRE(d == 16777216.0 + 999, "ref_reduce_to f32 -> f64 gave %.17g", d);
    free(u8);
    free(i32);
    free(f32);
}

/* ---- argmin and argmax ------------------------------------------------------------------------- */

static void run_arg(pp_type t, const void *data, size_t n, const char *what)
{
    const size_t bytes = n * tc_size(t);
    uint64_t want[2] = {ref_arg(t, data, n, 0), ref_arg(t, data, n, 1)};
    uint64_t *host = (uint64_t *)tc_halloc(8);
    const tc_config *cfg;
    for (size_t ci = 0, nc = tc_configs(PP_PRIM_REDUCE, &cfg); ci < nc; ci++) {
        const tc_config *c = &cfg[ci];
        if (t == PP_F64 && !tc_need_f64(c->ctx, "f64 pp_argmin")) continue;
        tc_use(c, PP_PRIM_REDUCE);
        void *din = tc_dev_upload(c->ctx, data, bytes), *dout = tc_dev_filled(c->ctx, 8, 0x5A);
        for (int max = 0; max < 2; max++) {
            const char *fn = max ? "pp_argmax" : "pp_argmin";
            tc_case("%s %s type=%s n=%zu data=%s", tc_config_name(c), fn, pp_type_name(t), n, what);
            const pp_status st =
                max ? pp_argmax(c->ctx, t, din, n, (uint64_t *)dout) : pp_argmin(c->ctx, t, din, n, (uint64_t *)dout);
            if (tc_status_or_absent(c, st, fn, required(c->backend))) {
                TC_DOWNLOAD(c->ctx, host, dout, 8, "index");
                TC_REQUIRE(host[0] == want[max], "%s gave %llu, want %llu", fn, (unsigned long long)host[0],
                           (unsigned long long)want[max]);
            }
        }
        tc_dev_free(c->ctx, dout);
        tc_dev_free(c->ctx, din);
    }
    pp_context *const *ctxs;
    for (size_t i = 0, nc = tc_contexts(&ctxs); i < nc; i++) pp_set_algorithm(ctxs[i], PP_PRIM_REDUCE, PP_ALGO_AUTO);
    free(host);
}

static void put_small(pp_type t, void *buf, size_t i, int v)
{
    if (tc_is_float(t))
        tc_set_f(t, buf, i, v);
    else
        tc_set_int(t, buf, i, (uint64_t)v);
}

/* The data sets of the arg-reductions (kind 0 .. ARG_KINDS-1). */
#define ARG_KINDS 8
static const char *arg_data(tc_rng *r, pp_type t, int kind, size_t n, void *buf)
{
    const int flt = tc_is_float(t);
    for (size_t i = 0; i < n; i++) {
        if (kind == 0 && flt)
            tc_set_any_float(r, t, buf, i);
        else if (kind == 0)
            tc_set_int(t, buf, i, tc_next(r));
        else if (kind == 1 || kind >= 4) /* few distinct values: ties */
            put_small(t, buf, i, (int)tc_below(r, 4) + 1);
        else if (kind == 2) /* all equal */
            put_small(t, buf, i, 7);
        else /* kind 3: zeros of both signs as the minimum and the maximum */
            tc_set_f(t, buf, i, flt ? (tc_below(r, 2) ? -0.0 : 0.0) : 0.0);
    }
    if (kind == 3) {
        const size_t k = (size_t)tc_below(r, n);
        if (flt)
            tc_set_f(t, buf, k, tc_below(r, 2) ? 1.0 : -1.0);
        else
            tc_set_int(t, buf, k, 1);
    }
    if (kind >= 4 && flt) { /* NaNs: first, middle, last, random places */
        const size_t at = kind == 4 ? 0 : kind == 5 ? n / 2 : kind == 6 ? n - 1 : (size_t)tc_below(r, n);
        tc_set_nan(r, t, buf, at);
        if (kind == 7)
            for (int j = 0; j < 3; j++) tc_set_nan(r, t, buf, (size_t)tc_below(r, n));
    }
    static const char *names[ARG_KINDS] = {"random",    "ties",       "all equal", "signed zeros",
                                           "NaN first", "NaN middle", "NaN last",  "NaNs"};
    return names[kind];
}

static void test_arg(void **state)
{
    (void)state;
    static const size_t arg_sizes[] = {1, 2, 31, 33, 1000, 4097, 8192, 8193, 40961, 1048583};
    tc_rng r = tc_rng_for("arg");
    void *buf = malloc(arg_sizes[9] * 8);
    for (int ti = 0; ti < TC_NTYPES; ti++) {
        const pp_type t = tc_types[ti];
        for (size_t s = 0; s < sizeof arg_sizes / sizeof arg_sizes[0]; s++) {
            const size_t n = arg_sizes[s];
            if (tc_quick && n > 50000) continue;
            for (int kind = 0; kind < ARG_KINDS; kind++) {
                if (kind >= 4 && !tc_is_float(t) && kind > 4) continue;
                if (n > 50000 && kind != 0 && kind != 7) continue;
                const char *what = arg_data(&r, t, kind, n, buf);
                run_arg(t, buf, n, what);
            }
        }
    }
    free(buf);
}

int main(void)
{
    tc_init("test_reduce_to");
    const struct CMUnitTest tests[] = {TC_TYPE_UNIT_TESTS, cmocka_unit_test(test_no_wrap), cmocka_unit_test(test_arg)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
