/* pp_reduce_by_key, pp_scan_by_key and pp_run_length_encode against the
 * reference (ref_reduce_by_key, ...): every value type with i32 keys and
 * every operator it takes, every key type with f32 and u32 values,
 * inclusive and exclusive scans in and out of place, run layouts (every
 * run of length 1, random lengths, one long run among short ones, one
 * run), float keys with NaNs (each a run of its own) and both zeros
 * (equal), on every configuration the test framework lists, with fresh
 * random data; the outputs past the count untouched, the inputs unchanged.
 * On backends without these calls (cuda for now): PP_ERROR_UNSUPPORTED,
 * nothing written. PP_ALGO_EXACT (f32, f64 sums): the reduce and the
 * inclusive scan of every run bit for bit against the exact reference
 * (exact_ref.c) on hard data (exact_data.c), where a backend has the exact
 * by-key form; PP_ERROR_UNSUPPORTED, nothing written, elsewhere. */
#include "test_common.h"

#include "exact_data.h"
#include "exact_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends that have the by-key forms (the others refuse them). */
static int has_bykey(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL; }

static int op_valid(pp_type t, pp_op op) { return !tc_is_float(t) || op <= PP_MAX; }

/* ---- keys
 * ------------------------------------------------------------------------------
 */
enum { L_SINGLES, L_RANDOM, L_LONG_AMONG_SHORT, L_ONE_RUN, L_COUNT };
static const char *const layout_names[L_COUNT] = {"all-length-1", "random-lengths", "long-among-short", "one-run"};

/* keys[i] = key number id: integers id times an odd constant (neighbouring
 * ids differ by 1 to 3, so their keys differ in every width); floats by
 * id % 8: both zeros (the sign drawn per element: one run), a NaN (never
 * equal: a run per element), an infinity, else a distinct number. */
static void set_key(tc_rng *r, pp_type t, void *keys, size_t i, uint64_t id)
{
    if (!tc_is_float(t)) {
        tc_set_int(t, keys, i, id * 0x9E3779B97F4A7C15ull);
        return;
    }
    switch (id % 8) {
    case 0:
        tc_set_f(t, keys, i, (tc_next(r) & 1) ? -0.0 : 0.0);
        break;
    case 1:
        tc_set_nan(r, t, keys, i);
        break;
    case 2:
        tc_set_f(t, keys, i, (id & 8) ? INFINITY : -INFINITY);
        break;
    default:
        tc_set_f(t, keys, i, (double)(id % 4096) * 0.25 - 500.0);
        break;
    }
}

/* n keys in runs of layout l (the reference decides the true runs). */
static void make_keys(tc_rng *r, pp_type t, int l, size_t n, void *keys)
{
    uint64_t id = tc_next(r);
    int long_done = 0;
    for (size_t i = 0; i < n;) {
        size_t len = l == L_SINGLES               ? 1
                     : l == L_RANDOM              ? 1 + (size_t)tc_below(r, 40)
                     : l == L_ONE_RUN             ? n
                     : (!long_done && i >= n / 4) ? (long_done = 1, n / 2 + 1)
                                                  : 1 + (size_t)tc_below(r, 3);
        if (len > n - i) len = n - i;
        id += 1 + tc_below(r, 3);
        if (l == L_ONE_RUN && tc_is_float(t)) id -= id % 8; /* the zeros of both signs */
        for (size_t k = 0; k < len; k++) set_key(r, t, keys, i + k, id);
        i += len;
    }
}

/* ---- one case on every configuration
 * ---------------------------------------------------- */
typedef struct bk_case {
    pp_type kt, vt;
    pp_op op;
    size_t n;
    const void *keys, *values;
    const char *layout;
    int all_algos; /* every configuration, else those of PP_ALGO_AUTO */
} bk_case;

typedef struct bk_host {
    char *got, *want, *want2; /* n elements of 8 bytes each, and a guard */
} bk_host;

/* 1 if the call's outputs are to be compared with the reference; 0 if it
 * was refused as it may be (then nothing may have been written). */
static int call_ok(const tc_config *c, pp_status st, const char *fn)
{
    if (!has_bykey(c->backend)) {
        if (st != PP_ERROR_UNSUPPORTED)
            TC_FAIL("%s returned %s on a backend without it (%s)", fn, pp_status_string(st), pp_last_error(c->ctx));
        return 0;
    }
    return tc_status_ok(c, st, fn);
}

/* The inputs after the calls: unchanged. */
static void check_inputs(pp_context *ctx, const bk_case *e, void *dkeys, void *dvals, char *host)
{
    TC_DOWNLOAD(ctx, host, dkeys, e->n * tc_size(e->kt), "keys");
    TC_EXPECT_BITS(e->kt, host, e->keys, e->n, "keys after the call");
    if (dvals) {
        TC_DOWNLOAD(ctx, host, dvals, e->n * tc_size(e->vt), "values");
        TC_EXPECT_BITS(e->vt, host, e->values, e->n, "values after the call");
    }
}

/* The count in dcount: want, or untouched (0x5A bytes) where want_ok is 0. */
static void check_count(pp_context *ctx, void *dcount, uint64_t want, int want_ok)
{
    unsigned char buf[sizeof(uint64_t) + TC_GUARD]; /* the download checks a guard after it */
    uint64_t got;
    if (!want_ok) memset(&want, 0x5A, sizeof want);
    TC_DOWNLOAD(ctx, buf, dcount, sizeof got, "count");
    memcpy(&got, buf, sizeof got);
    TC_REQUIRE(got == want, "count = %llu, expected %llu", (unsigned long long)got, (unsigned long long)want);
}

static void run_reduce(const tc_config *c, const bk_case *e, const bk_host *h)
{
    pp_context *ctx = c->ctx;
    const size_t n = e->n, ks = tc_size(e->kt), vs = tc_size(e->vt);
    tc_use(c, PP_PRIM_REDUCE);
    tc_case("%s reduce_by_key keys=%s values=%s op=%s n=%zu layout=%s", tc_config_name(c), pp_type_name(e->kt),
            pp_type_name(e->vt), pp_op_name(e->op), n, e->layout);
    void *dk = tc_dev_upload(ctx, e->keys, n * ks), *dv = tc_dev_upload(ctx, e->values, n * vs);
    void *dko = tc_dev_filled(ctx, n * ks, 0x5A), *dvo = tc_dev_filled(ctx, n * vs, 0x5A);
    void *dc = tc_dev_filled(ctx, sizeof(uint64_t), 0x5A);
    const pp_status st = pp_reduce_by_key(ctx, e->kt, e->vt, e->op, dk, dv, n, dko, dvo, (uint64_t *)dc);
    const int ok = call_ok(c, st, "pp_reduce_by_key");
    memset(h->want, 0x5A, n * ks);
    memset(h->want2, 0x5A, n * vs);
    const uint64_t count = ok ? ref_reduce_by_key(e->kt, e->vt, e->op, e->keys, e->values, n, h->want, h->want2) : 0;
    check_count(ctx, dc, count, ok);
    TC_DOWNLOAD(ctx, h->got, dko, n * ks, "keys_out");
    TC_EXPECT_EQUAL(e->kt, h->got, h->want, n, "keys_out (untouched past the count)");
    TC_DOWNLOAD(ctx, h->got, dvo, n * vs, "values_out");
    TC_EXPECT_EQUAL(e->vt, h->got, h->want2, n, "values_out (untouched past the count)");
    check_inputs(ctx, e, dk, dv, h->got);
    tc_dev_free(ctx, dk);
    tc_dev_free(ctx, dv);
    tc_dev_free(ctx, dko);
    tc_dev_free(ctx, dvo);
    tc_dev_free(ctx, dc);
}

static void run_scan(const tc_config *c, const bk_case *e, const bk_host *h)
{
    pp_context *ctx = c->ctx;
    const size_t n = e->n, ks = tc_size(e->kt), vs = tc_size(e->vt);
    tc_use(c, PP_PRIM_SCAN);
    void *dk = tc_dev_upload(ctx, e->keys, n * ks), *dv = tc_dev_upload(ctx, e->values, n * vs);
    for (int v = 0; v < 4; v++) {
        const pp_scan_kind kind = (v & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE;
        const int inplace = v >= 2;
        tc_case("%s scan_by_key keys=%s values=%s op=%s %s %s n=%zu layout=%s", tc_config_name(c), pp_type_name(e->kt),
                pp_type_name(e->vt), pp_op_name(e->op), kind == PP_INCLUSIVE ? "inclusive" : "exclusive",
                inplace ? "in-place" : "out-of-place", n, e->layout);
        void *dout = inplace ? tc_dev_upload(ctx, e->values, n * vs) : tc_dev_filled(ctx, n * vs, 0x5A);
        const pp_status st = pp_scan_by_key(ctx, e->kt, e->vt, e->op, kind, dk, inplace ? dout : dv, dout, n);
        if (inplace)
            memcpy(h->want, e->values, n * vs);
        else
            memset(h->want, 0x5A, n * vs);
        if (call_ok(c, st, "pp_scan_by_key"))
            ref_scan_by_key(e->kt, e->vt, e->op, kind, e->keys, e->values, h->want, n);
        TC_DOWNLOAD(ctx, h->got, dout, n * vs, "out");
        TC_EXPECT_EQUAL(e->vt, h->got, h->want, n, "scan_by_key output");
        tc_dev_free(ctx, dout);
    }
    check_inputs(ctx, e, dk, dv, h->got);
    tc_dev_free(ctx, dk);
    tc_dev_free(ctx, dv);
}

static void run_rle(const tc_config *c, const bk_case *e, const bk_host *h)
{
    pp_context *ctx = c->ctx;
    const size_t n = e->n, ks = tc_size(e->kt);
    tc_use(c, PP_PRIM_SELECT);
    tc_case("%s run_length_encode type=%s n=%zu layout=%s", tc_config_name(c), pp_type_name(e->kt), n, e->layout);
    void *dk = tc_dev_upload(ctx, e->keys, n * ks);
    void *dvo = tc_dev_filled(ctx, n * ks, 0x5A), *dco = tc_dev_filled(ctx, n * 8, 0x5A);
    void *dc = tc_dev_filled(ctx, sizeof(uint64_t), 0x5A);
    const pp_status st = pp_run_length_encode(ctx, e->kt, dk, n, dvo, (uint64_t *)dco, (uint64_t *)dc);
    const int ok = call_ok(c, st, "pp_run_length_encode");
    memset(h->want, 0x5A, n * ks);
    memset(h->want2, 0x5A, n * 8);
    const uint64_t count = ok ? ref_run_length_encode(e->kt, e->keys, n, h->want, (uint64_t *)(void *)h->want2) : 0;
    check_count(ctx, dc, count, ok);
    TC_DOWNLOAD(ctx, h->got, dvo, n * ks, "values_out");
    TC_EXPECT_EQUAL(e->kt, h->got, h->want, n, "values_out (untouched past the count)");
    TC_DOWNLOAD(ctx, h->got, dco, n * 8, "counts_out");
    TC_EXPECT_EQUAL(PP_U64, h->got, h->want2, n, "counts_out (untouched past the count)");
    check_inputs(ctx, e, dk, NULL, h->got);
    tc_dev_free(ctx, dk);
    tc_dev_free(ctx, dvo);
    tc_dev_free(ctx, dco);
    tc_dev_free(ctx, dc);
}

typedef void (*run_fn)(const tc_config *c, const bk_case *e, const bk_host *h);

/* fn on every configuration of prim (AUTO's alone unless all_algos). */
static void each_config(pp_primitive prim, run_fn fn, const bk_case *e, const bk_host *h)
{
    const tc_config *cfg;
    const size_t ncfg = tc_configs(prim, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (c->algo != PP_ALGO_AUTO && !e->all_algos) continue;
        if (!tc_need_buffers(c->ctx, "by-key forms", e->n * 8 + TC_GUARD, 6 * e->n * 8 + TC_SCRATCH(16 * e->n), 0))
            continue;
        if ((tc_is_float(e->kt) && tc_size(e->kt) == 8) || (tc_is_float(e->vt) && tc_size(e->vt) == 8))
            if (!tc_need_f64(c->ctx, "by-key forms of f64")) continue;
        fn(c, e, h);
    }
}

/* rle: the run-length encoding too (its type: kt). */
static void run_case(tc_rng *r, pp_type kt, pp_type vt, pp_op op, size_t n, int layout, int all_algos, int rle)
{
    void *keys = tc_halloc(n * tc_size(kt)), *values = tc_halloc(n * tc_size(vt));
    make_keys(r, kt, layout, n, keys);
    tc_gen_op_data(r, vt, op, n, 0, values);
    bk_host h;
    h.got = (char *)tc_halloc(3 * (n * 8 + TC_GUARD));
    h.want = h.got + n * 8 + TC_GUARD;
    h.want2 = h.want + n * 8 + TC_GUARD;
    const bk_case e = {kt, vt, op, n, keys, values, layout_names[layout], all_algos};
    each_config(PP_PRIM_REDUCE, run_reduce, &e, &h);
    each_config(PP_PRIM_SCAN, run_scan, &e, &h);
    if (rle) each_config(PP_PRIM_SELECT, run_rle, &e, &h);
    free(keys);
    free(values);
    free(h.got);
}

static const size_t sizes[] = {1, 2, 31, 1000, 4097, 100003, 300007};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NQUICK 5 /* the sizes of every operator; the larger ones: one case each */

/* t as values (i32 keys): every operator at the small sizes, the layouts
 * in turn; t as keys: f32 sums and u32 xors, and its encoding. */
static void test_type(pp_type t)
{
    char name[64] = "bykey_";
    tc_rng r = tc_rng_for(strcat(name, pp_type_name(t)));
    for (int o = 0; o < PP_OP_COUNT; o++) {
        if (!op_valid(t, (pp_op)o)) continue;
        for (size_t s = 0; s < NQUICK; s++)
            run_case(&r, PP_I32, t, (pp_op)o, sizes[s], (int)((s + (size_t)o + (size_t)t) % L_COUNT), s == 3, 0);
    }
    for (size_t s = 0; s < NQUICK; s++) {
        run_case(&r, t, PP_F32, PP_SUM, sizes[s], (int)((s + (size_t)t) % L_COUNT), s == 4, 1);
        run_case(&r, t, PP_U32, PP_XOR, sizes[s], (int)((s + 2 + (size_t)t) % L_COUNT), 0, 0);
    }
    /* larger: a few 100k keys, across the tiles and chunks */
    run_case(&r, t, t == PP_F64 ? PP_F64 : PP_F32, tc_is_float(t) ? PP_MAX : PP_SUM, sizes[NQUICK], (int)t % L_COUNT, 0,
             1);
    if (!tc_quick)
        for (int l = 0; l < L_COUNT; l++) run_case(&r, PP_U64, t, PP_SUM, sizes[NQUICK + 1], l, 0, 0);
}
TC_TYPE_TESTS(test_type)

/* ---- PP_ALGO_EXACT ------------------------------------------------------------------------ */

/* n hard values of data set `set` in runs of random lengths (u32 keys, the
 * run's index), the reduce and the inclusive scan checked per run on every
 * configuration offering PP_ALGO_EXACT for reduce. */
static void exact_case(tc_rng *r, int is_f64, int set, size_t n)
{
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = tc_size(t), vb = n * sz;
    double *v = (double *)malloc(n * sizeof *v);
    uint32_t *keys = (uint32_t *)tc_halloc(n * 4);
    char *vals = (char *)tc_halloc(vb), *red = (char *)tc_halloc(vb), *incl = (char *)tc_halloc(vb);
    char *host = (char *)tc_halloc(vb), *want = (char *)tc_halloc(vb);
    exact_gen(r, is_f64, set, n, v);
    exact_pack(is_f64, v, n, vals);
    size_t runs = 0;
    xref x;
    for (size_t i = 0; i < n;) {
        const size_t len = 1 + (size_t)tc_below(r, tc_below(r, 4) ? 8 : 2000), e = i + len < n ? i + len : n;
        xref_init(&x, is_f64);
        for (size_t k = i; k < e; k++) {
            keys[k] = (uint32_t)runs;
            xref_add(&x, v[k], 1);
            xref_put_bits(is_f64, incl, k, xref_bits(&x, is_f64));
        }
        xref_put_bits(is_f64, red, runs++, xref_bits(&x, is_f64));
        i = e;
    }
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        pp_context *ctx = c->ctx;
        if (c->algo != PP_ALGO_EXACT) continue;
        if (!tc_need_buffers(ctx, "exact by-key sums", vb + TC_GUARD, 5 * vb + TC_SCRATCH(8 * n), 0)) continue;
        tc_use(c, PP_PRIM_REDUCE);
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_EXACT));
        const int has = c->backend == PP_BACKEND_CPU;
        void *dk = tc_dev_upload(ctx, keys, n * 4), *dv = tc_dev_upload(ctx, vals, vb);
        void *ko = tc_dev_filled(ctx, n * 4, 0x5A), *vo = tc_dev_filled(ctx, vb, 0x5A);
        void *cnt = tc_dev_filled(ctx, 8, 0x5A);
        tc_case("%s exact reduce_by_key type=%s data=%s n=%zu runs=%zu", tc_config_name(c), pp_type_name(t),
                exact_set_names[set], n, runs);
        pp_status st = pp_reduce_by_key(ctx, PP_U32, t, PP_SUM, dk, dv, n, ko, vo, (uint64_t *)cnt);
        TC_REQUIRE(st == (has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED), "pp_reduce_by_key: %s (%s)",
                   pp_status_string(st), pp_last_error(ctx));
        uint64_t count = 0;
        TC_OK(pp_download(ctx, &count, cnt, 8));
        memset(want, 0x5A, vb);
        if (has) {
            TC_REQUIRE(count == runs, "count %llu, expected %zu", (unsigned long long)count, runs);
            memcpy(want, red, runs * sz);
        }
        TC_DOWNLOAD(ctx, host, vo, vb, "exact reduce_by_key values");
        TC_EXPECT_BITS(t, host, want, n, "exact reduce_by_key values (untouched past the count)");
        tc_case("%s exact scan_by_key inclusive in place type=%s data=%s n=%zu", tc_config_name(c), pp_type_name(t),
                exact_set_names[set], n);
        st = pp_scan_by_key(ctx, PP_U32, t, PP_SUM, PP_INCLUSIVE, dk, dv, dv, n);
        TC_REQUIRE(st == (has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED), "pp_scan_by_key: %s (%s)", pp_status_string(st),
                   pp_last_error(ctx));
        TC_DOWNLOAD(ctx, host, dv, vb, "exact scan_by_key output");
        TC_EXPECT_BITS(t, host, has ? incl : vals, n, "exact scan_by_key output");
        tc_dev_free(ctx, dk);
        tc_dev_free(ctx, dv);
        tc_dev_free(ctx, ko);
        tc_dev_free(ctx, vo);
        tc_dev_free(ctx, cnt);
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
    }
    free(v);
    free(keys);
    free(vals);
    free(red);
    free(incl);
    free(host);
    free(want);
}

static void test_exact(void **state)
{
    (void)state;
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        tc_rng r = tc_rng_for(is_f64 ? "bykey_exact_f64" : "bykey_exact_f32");
        for (int set = 0; set < EXACT_SETS; set++) exact_case(&r, is_f64, set, set % 3 ? 3001 : 20011);
    }
}

/* The reference on a hand-computed case. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("by-key reference self-check");
    const float keys[8] = {1.0f, 1.0f, -0.0f, 0.0f, NAN, NAN, 2.0f, 2.0f};
    const int32_t vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float ko[8];
    int32_t vo[8];
    uint64_t counts[8];
    TC_REQUIRE(ref_reduce_by_key(PP_F32, PP_I32, PP_SUM, keys, vals, 8, ko, vo) == 5, "run count");
    static const int32_t sums[5] = {3, 7, 5, 6, 15};
    TC_REQUIRE(!memcmp(vo, sums, sizeof sums) && ko[0] == 1.0f && signbit(ko[1]) && isnan(ko[2]) && ko[4] == 2.0f,
               "reduce_by_key");
    ref_scan_by_key(PP_F32, PP_I32, PP_SUM, PP_EXCLUSIVE, keys, vals, vo, 8);
    static const int32_t excl[8] = {0, 1, 0, 3, 0, 0, 0, 7};
    TC_REQUIRE(!memcmp(vo, excl, sizeof excl), "scan_by_key");
    TC_REQUIRE(ref_run_length_encode(PP_F32, keys, 8, ko, counts) == 5 && counts[0] == 2 && counts[1] == 2 &&
                   counts[2] == 1 && counts[3] == 1 && counts[4] == 2,
               "run_length_encode");
}

int main(void)
{
    tc_init("test_bykey");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_known),
        cmocka_unit_test(test_exact),
        TC_TYPE_UNIT_TESTS,
    };
    int rc = cmocka_run_group_tests_name("bykey", tests, NULL, NULL);
    tc_finish();
    return rc;
}
