/* pp_segmented_reduce and pp_segmented_scan against the reference: every
 * type and operator, inclusive and exclusive scans in and out of place,
 * over awkward segment layouts (empty segments, one huge segment among
 * many tiny ones, segments that leave the ends of the array out, all
 * offsets equal, segments across the cpu's 8192-element chunks), with
 * random data and NaNs; bad offsets; the algorithm rule (other choices
 * served). PP_ALGO_EXACT f32 and f64 sums: each segment's results bit for
 * bit against the independent exact reference (exact_ref.c) on hard data
 * (exact_data.c, one data set per segment), on every backend that has the
 * exact segmented forms (cpu: with 1, 2 and 3 threads); elsewhere
 * PP_ERROR_UNSUPPORTED with nothing written. On backends without the
 * segmented forms (cuda for now): PP_ERROR_UNSUPPORTED with nothing
 * written. */
#include "test_common.h"
#include "exact_data.h"
#include "exact_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends that have the segmented forms (the others refuse them). */
static int has_segmented(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL; }
/* Those that have them for PP_ALGO_EXACT f32 and f64 sums too. */
static int has_exact_segmented(pp_backend b) { return b == PP_BACKEND_CPU; }

static int op_valid(pp_type t, pp_op op) { return !tc_is_float(t) || op <= PP_MAX; }

/* ---- layouts ------------------------------------------------------------------------ */
enum { L_RANDOM, L_HUGE_AMONG_TINY, L_INNER, L_ALL_EQUAL, L_WHOLE, L_CHUNKS, L_COUNT };
static const char *const layout_names[L_COUNT] = {"random", "huge-among-tiny", "inner", "all-equal", "whole",
                                                  "chunk-straddling"};

/* Offsets of layout l over n elements into a new array; *nseg set. */
static uint64_t *make_offsets(tc_rng *r, int l, size_t n, size_t *nseg)
{
    size_t cap = n + 64, k = 0;
    uint64_t *off = (uint64_t *)malloc((cap + 1) * sizeof *off);
    uint64_t pos = 0, end = n;
    switch (l) {
    case L_RANDOM: /* lengths 0 .. 40, empty ones included */
        while (pos < end && k < cap) {
            off[k++] = pos;
            pos += tc_below(r, 41);
            if (pos > end) pos = end;
        }
        break;
    case L_HUGE_AMONG_TINY: { /* lengths 0 .. 3, and one of about n / 2 */
        const uint64_t huge_at = n / 4;
        int done = 0;
        while (pos < end && k < cap) {
            off[k++] = pos;
            pos += (!done && pos >= huge_at) ? (done = 1, n / 2 + 1) : tc_below(r, 4);
            if (pos > end) pos = end;
        }
        break;
    }
    case L_INNER: /* from n / 7 to n - n / 5, lengths 0 .. 3000 */
        pos = n / 7;
        end = n - n / 5;
        while (pos < end && k < cap) {
            off[k++] = pos;
            pos += tc_below(r, 3001);
            if (pos > end) pos = end;
        }
        break;
    case L_ALL_EQUAL:
        pos = end = n / 2;
        for (; k < 5; k++) off[k] = pos;
        break;
    case L_WHOLE:
        off[k++] = 0;
        break;
    default: /* lengths around the cpu chunk (8192), the last segment ending before n */
        end = n - n / 9;
        while (pos < end && k < cap) {
            static const uint64_t lens[] = {8191, 8192, 8193, 1, 16385, 0, 24575};
            off[k++] = pos;
            pos += lens[tc_below(r, 7)];
            if (pos > end) pos = end;
        }
        break;
    }
    off[k] = pos;
    *nseg = k;
    return off;
}

/* ---- one case on every configuration ---------------------------------------------- */
typedef struct seg_case {
    pp_type t;
    pp_op op;
    size_t n, nseg;
    const void *in;
    const uint64_t *off;
    const char *layout;
} seg_case;

/* Selects c->algo for reduce and scan (where the backend's scan lacks it:
 * AUTO for the scan). */
static void use_algo(const tc_config *c)
{
    tc_use(c, PP_PRIM_REDUCE);
    if (pp_set_algorithm(c->ctx, PP_PRIM_SCAN, c->algo) != PP_SUCCESS)
        TC_OK(pp_set_algorithm(c->ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
}

/* What a call must return on c: success for nseg == 0; else
 * PP_ERROR_UNSUPPORTED on a backend without the segmented forms, and for an
 * exact float sum on one without their exact form; else success. */
static pp_status expected(const tc_config *c, pp_type t, pp_op op, size_t nseg, pp_primitive prim)
{
    if (nseg == 0) return PP_SUCCESS; /* before any backend */
    if (!has_segmented(c->backend)) return PP_ERROR_UNSUPPORTED;
    if (pp_get_algorithm(c->ctx, prim) == PP_ALGO_EXACT && op == PP_SUM && tc_is_float(t) &&
        !has_exact_segmented(c->backend))
        return PP_ERROR_UNSUPPORTED;
    return PP_SUCCESS;
}

static void check_status(const tc_config *c, pp_status got, pp_status want, const char *fn)
{
    if (got != want)
        TC_FAIL("%s returned %s, expected %s (%s)", fn, pp_status_string(got), pp_status_string(want),
                pp_last_error(c->ctx));
}

static void run_config(const tc_config *c, const seg_case *e, void *host, void *want)
{
    pp_context *ctx = c->ctx;
    const size_t sz = tc_size(e->t), bytes = e->n * sz, obytes = e->nseg * sz;
    use_algo(c);
    void *din = tc_dev_upload(ctx, e->in, bytes);
    void *doff = tc_dev_upload(ctx, e->off, (e->nseg + 1) * sizeof(uint64_t));

    tc_case("%s segmented_reduce type=%s op=%s n=%zu nseg=%zu layout=%s", tc_config_name(c), pp_type_name(e->t),
            pp_op_name(e->op), e->n, e->nseg, e->layout);
    void *dout = tc_dev_filled(ctx, obytes, 0x5A);
    pp_status w = expected(c, e->t, e->op, e->nseg, PP_PRIM_REDUCE);
    check_status(c, pp_segmented_reduce(ctx, e->t, e->op, din, e->n, (const uint64_t *)doff, e->nseg, dout), w,
                 "pp_segmented_reduce");
    if (w == PP_SUCCESS) ref_segmented_reduce(e->t, e->op, e->in, e->off, e->nseg, want);
    else memset(want, 0x5A, obytes);
    TC_DOWNLOAD(ctx, host, dout, obytes, "segmented reduce output");
    TC_EXPECT_EQUAL(e->t, host, want, e->nseg, "segmented reduce output");
    tc_dev_free(ctx, dout);

    for (int v = 0; v < 4; v++) {
        const pp_scan_kind kind = (v & 1) ? PP_EXCLUSIVE : PP_INCLUSIVE;
        const int inplace = v >= 2;
        tc_case("%s segmented_scan type=%s op=%s %s %s n=%zu nseg=%zu layout=%s", tc_config_name(c),
                pp_type_name(e->t), pp_op_name(e->op), kind == PP_INCLUSIVE ? "inclusive" : "exclusive",
                inplace ? "in-place" : "out-of-place", e->n, e->nseg, e->layout);
        dout = inplace ? tc_dev_upload(ctx, e->in, bytes) : tc_dev_filled(ctx, bytes, 0x5A);
        if (inplace) memcpy(want, e->in, bytes);
        else memset(want, 0x5A, bytes);
        w = expected(c, e->t, e->op, e->nseg, PP_PRIM_SCAN);
        check_status(c,
                     pp_segmented_scan(ctx, e->t, e->op, kind, inplace ? dout : din, dout, e->n,
                                       (const uint64_t *)doff, e->nseg),
                     w, "pp_segmented_scan");
        if (w == PP_SUCCESS) ref_segmented_scan(e->t, e->op, kind, e->in, want, e->off, e->nseg);
        TC_DOWNLOAD(ctx, host, dout, bytes, "segmented scan output");
        TC_EXPECT_EQUAL(e->t, host, want, e->n, "segmented scan output (untouched outside the segments)");
        tc_dev_free(ctx, dout);
    }
    tc_case("%s segmented type=%s op=%s n=%zu layout=%s (inputs afterwards)", tc_config_name(c), pp_type_name(e->t),
            pp_op_name(e->op), e->n, e->layout);
    TC_DOWNLOAD(ctx, host, din, bytes, "input");
    TC_EXPECT_BITS(e->t, host, e->in, e->n, "input after the segmented calls");
    TC_DOWNLOAD(ctx, host, doff, (e->nseg + 1) * sizeof(uint64_t), "offsets");
    TC_REQUIRE(!memcmp(host, e->off, (e->nseg + 1) * sizeof(uint64_t)), "offsets changed");
    tc_dev_free(ctx, din);
    tc_dev_free(ctx, doff);
}

/* all_algos: every configuration; else those of PP_ALGO_AUTO. */
static void run_case(tc_rng *r, pp_type t, pp_op op, size_t n, int layout, int nans, int all_algos)
{
    const size_t sz = tc_size(t);
    size_t nseg;
    uint64_t *off = make_offsets(r, layout, n, &nseg);
    /* host: downloads (room for the guard after them), then want: the expected */
    const size_t room = (n + nseg + 8) * 8;
    void *in = tc_halloc(n * sz);
    char *host = (char *)tc_halloc(2 * room + TC_GUARD), *want = host + room + TC_GUARD;
    tc_gen_op_data(r, t, op, n, nans, in);
    seg_case e = {t, op, n, nseg, in, off, layout_names[layout]};
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (c->algo != PP_ALGO_AUTO && !all_algos) continue;
        if (!tc_need_buffers(c->ctx, "segmented reduce and scan", n * sz + TC_GUARD, 4 * n * sz + TC_SCRATCH(n), 0))
            continue;
        run_config(c, &e, host, want);
    }
    free(off);
    free(in);
    free(host);
}

/* Every operator at sizes around the chunks, the layouts in turn. */
static void test_type(pp_type t)
{
    char name[64] = "segmented_";
    tc_rng r = tc_rng_for(strcat(name, pp_type_name(t)));
    static const size_t sizes[] = {0, 1, 7, 8191, 8193, 3 * 8192 + 5, 100003};
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    for (int o = 0; o < PP_OP_COUNT; o++) {
        if (!op_valid(t, (pp_op)o)) continue;
        for (size_t s = 0; s < nsizes; s++)
            if (!tc_quick || sizes[s] <= 16385)
                    run_case(&r, t, (pp_op)o, sizes[s], (int)((s + (size_t)o + (size_t)t) % L_COUNT), 0, s == 2);
        /* one larger case per type (the operator in turn): long segments over many chunks */
        if (!tc_quick && o == (int)t % (tc_is_float(t) ? 4 : PP_OP_COUNT)) run_case(&r, t, (pp_op)o, ((size_t)1 << 20) + 77, (o + (int)t) % 2 ? L_HUGE_AMONG_TINY : L_CHUNKS, 0, 0);
    }
}
TC_TYPE_TESTS(test_type)

/* NaN anywhere: MIN and MAX of its segment are NaN, so are its scan's
 * outputs from it on, and nothing outside its segment. */
static void test_nans(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("segmented_nans");
    static const pp_type types[] = {PP_F32, PP_F64};
    for (size_t ti = 0; ti < 2; ti++)
        for (int o = 0; o <= PP_MAX; o++)
            for (int l = 0; l < L_COUNT; l++) run_case(&r, types[ti], (pp_op)o, 20000 + (size_t)l, l, 1, 0);
}

/* Decreasing offsets, an offset past n, a last offset past n: refused with
 * PP_ERROR_INVALID_ARGUMENT (cpu) and nothing written; opencl clamps them
 * on the device and succeeds (results unspecified: only that nothing
 * outside out's n elements is written, which the guarded buffers check);
 * elsewhere PP_ERROR_UNSUPPORTED, nothing written. */
static void test_bad_offsets(void **state)
{
    (void)state;
    const size_t n = 20000, nseg = 6, sz = 4;
    static const uint64_t bad[][7] = {
        {0, 10, 5, 100, 200, 300, 400},           /* decreasing in the middle */
        {0, 10, 20, 30, 40, 50, 20001},           /* the last past n */
        {0, 10, 30000, 30001, 30002, 30003, 30004}, /* past n early, non-decreasing */
        {0, 10, 20, 30, 40, 50, 0},               /* the last before the one before */
        {5000, 4000, 6000, 7000, 8000, 9000, 10000}, /* the first after the second */
    };
    uint32_t *in = (uint32_t *)tc_halloc(n * sz);
    for (size_t i = 0; i < n; i++) in[i] = (uint32_t)(i * 2654435761u + 1);
    void *host = tc_halloc(n * sz), *fill = tc_halloc(n * sz);
    memset(fill, 0x5A, n * sz);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (size_t ci = 0; ci < nctx; ci++) {
        pp_context *ctx = ctxs[ci];
        const pp_backend be = pp_context_backend(ctx);
        const pp_status w = be == PP_BACKEND_CPU      ? PP_ERROR_INVALID_ARGUMENT
                            : be == PP_BACKEND_OPENCL ? PP_SUCCESS
                                                      : PP_ERROR_UNSUPPORTED;
        void *din = tc_dev_upload(ctx, in, n * sz);
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            tc_case("%s segmented bad offsets #%zu", pp_backend_name(pp_context_backend(ctx)), b);
            void *doff = tc_dev_upload(ctx, bad[b], sizeof bad[b]);
            void *dout = tc_dev_filled(ctx, n * sz, 0x5A);
            pp_status st = pp_segmented_reduce(ctx, PP_U32, PP_SUM, din, n, (const uint64_t *)doff, nseg, dout);
            TC_REQUIRE(st == w, "pp_segmented_reduce: %s (%s)", pp_status_string(st), pp_last_error(ctx));
            for (int k = 0; k < 2; k++) {
                st = pp_segmented_scan(ctx, PP_U32, PP_SUM, k ? PP_EXCLUSIVE : PP_INCLUSIVE, din, dout, n,
                                       (const uint64_t *)doff, nseg);
                TC_REQUIRE(st == w, "pp_segmented_scan: %s (%s)", pp_status_string(st), pp_last_error(ctx));
            }
            if (w != PP_SUCCESS) {
                TC_DOWNLOAD(ctx, host, dout, n * sz, "output");
                TC_REQUIRE(!memcmp(host, fill, n * sz), "output written by a refused call");
            }
            /* in place */
            st = pp_segmented_scan(ctx, PP_U32, PP_SUM, PP_INCLUSIVE, din, din, n, (const uint64_t *)doff, nseg);
            TC_REQUIRE(st == w, "pp_segmented_scan in place: %s (%s)", pp_status_string(st), pp_last_error(ctx));
            if (w != PP_SUCCESS) {
                TC_DOWNLOAD(ctx, host, din, n * sz, "input");
                TC_REQUIRE(!memcmp(host, in, n * sz), "input changed by a refused in-place call");
            }
            tc_dev_free(ctx, dout);
            tc_dev_free(ctx, doff);
        }
        tc_dev_free(ctx, din);
    }
    free(in);
    free(host);
    free(fill);
}

/* ---- PP_ALGO_EXACT: f32 and f64 sums against the exact reference ------------------------ */

/* The exact reference of every segment into red (nseg), incl and excl (n,
 * only within the segments): the exact pp_reduce of each segment and of
 * each prefix of it. */
static void exact_expect(int is_f64, const double *v, const uint64_t *off, size_t nseg, void *red, void *incl,
                         void *excl)
{
    for (size_t s = 0; s < nseg; s++) {
        xref x;
        xref_init(&x, is_f64);
        for (uint64_t i = off[s]; i < off[s + 1]; i++) {
            xref_put_bits(is_f64, excl, i, i == off[s] ? 0 : xref_bits(&x, is_f64)); /* +0.0 first */
            xref_add(&x, v[i], 1);
            xref_put_bits(is_f64, incl, i, xref_bits(&x, is_f64));
        }
        xref_put_bits(is_f64, red, s, off[s] == off[s + 1] ? 0 : xref_bits(&x, is_f64)); /* empty: +0.0 */
    }
}

/* The values v on every configuration offering PP_ALGO_EXACT: the reduce,
 * then the inclusive and exclusive scans out of place and in place. */
static void exact_run(int is_f64, const double *v, size_t n, const uint64_t *off, size_t nseg, const char *label)
{
    const pp_type t = is_f64 ? PP_F64 : PP_F32;
    const size_t sz = tc_size(t), bytes = n * sz, room = (n + nseg + 1) * sz;
    char *in = (char *)tc_halloc(room), *red = (char *)tc_halloc(room), *incl = (char *)tc_halloc(room);
    char *excl = (char *)tc_halloc(room), *host = (char *)tc_halloc(room), *want = (char *)tc_halloc(room);
    exact_pack(is_f64, v, n, in);
    exact_expect(is_f64, v, off, nseg, red, incl, excl);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        pp_context *ctx = c->ctx;
        if (c->algo != PP_ALGO_EXACT) continue;
        if (!tc_need_buffers(ctx, "exact segmented sums", bytes + TC_GUARD, 3 * bytes + TC_SCRATCH(bytes), 0)) continue;
        tc_use(c, PP_PRIM_REDUCE);
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_EXACT));
        void *din = tc_dev_upload(ctx, in, bytes);
        const uint64_t *doff = (const uint64_t *)tc_dev_upload(ctx, off, (nseg + 1) * sizeof(uint64_t));
        for (int k = 0; k < 5; k++) {
            const int scan = k > 0, exclusive = k == 2 || k == 4, inplace = k >= 3;
            const size_t ob = scan ? bytes : nseg * sz;
            tc_case("%s exact segmented_%s type=%s%s%s data=%s n=%zu nseg=%zu", tc_config_name(c),
                    scan ? "scan" : "reduce", pp_type_name(t), !scan ? "" : exclusive ? " exclusive" : " inclusive",
                    inplace ? " in-place" : "", label, n, nseg);
            void *dout = inplace ? tc_dev_upload(ctx, in, bytes) : tc_dev_filled(ctx, ob, 0x5A);
            if (inplace) memcpy(want, in, ob);
            else memset(want, 0x5A, ob);
            const pp_status w = expected(c, t, PP_SUM, nseg, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE);
            const pp_status st = scan ? pp_segmented_scan(ctx, t, PP_SUM, exclusive ? PP_EXCLUSIVE : PP_INCLUSIVE,
                                                          inplace ? dout : din, dout, n, doff, nseg)
                                      : pp_segmented_reduce(ctx, t, PP_SUM, din, n, doff, nseg, dout);
            check_status(c, st, w, scan ? "pp_segmented_scan" : "pp_segmented_reduce");
            if (w == PP_SUCCESS && !scan) memcpy(want, red, ob);
            for (size_t s = 0; w == PP_SUCCESS && scan && s < nseg; s++)
                memcpy(want + off[s] * sz, (exclusive ? excl : incl) + off[s] * sz, (off[s + 1] - off[s]) * sz);
            TC_DOWNLOAD(ctx, host, dout, ob, "exact segmented output");
            TC_EXPECT_BITS(t, host, want, ob / sz, "exact segmented output (untouched outside the segments)");
            tc_dev_free(ctx, dout);
        }
        tc_dev_free(ctx, din);
        tc_dev_free(ctx, (void *)doff);
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
        TC_OK(pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
    }
    free(in);
    free(red);
    free(incl);
    free(excl);
    free(host);
    free(want);
}

/* Every data set of exact_data.c over the layouts: the whole array drawn
 * from the set, then about half of the segments drawn again on their own
 * (so each has the set's hard structure: its cancelling pairs, its ties
 * after its first element, its partial overflow). */
static void test_exact(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 100, 8193, 30001, 100003};
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        tc_rng r = tc_rng_for(is_f64 ? "segmented_exact_f64" : "segmented_exact_f32");
        for (int set = 0; set < EXACT_SETS; set++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                const size_t n = sizes[i];
                const int layout = (int)(((size_t)set + i) % L_COUNT);
                if (n > 30001 && (tc_quick || set % 4)) continue; /* the largest size: a few sets */
                size_t nseg;
                uint64_t *off = make_offsets(&r, layout, n, &nseg);
                double *v = (double *)malloc((n + 1) * sizeof *v);
                exact_gen(&r, is_f64, set, n, v);
                for (size_t s = 0; s < nseg; s++)
                    if (tc_below(&r, 2)) exact_gen(&r, is_f64, set, (size_t)(off[s + 1] - off[s]), v + off[s]);
                char label[64];
                snprintf(label, sizeof label, "%s layout=%s", exact_set_names[set], layout_names[layout]);
                exact_run(is_f64, v, n, off, nseg, label);
                free(v);
                free(off);
            }
    }
}

/* The reference on a hand-computed case. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("segmented reference self-check");
    const int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const uint64_t off[4] = {1, 3, 3, 6};
    int32_t red[3], out[8];
    ref_segmented_reduce(PP_I32, PP_SUM, in, off, 3, red);
    TC_REQUIRE(red[0] == 5 && red[1] == 0 && red[2] == 15, "segmented sum");
    for (int i = 0; i < 8; i++) out[i] = -1;
    ref_segmented_scan(PP_I32, PP_SUM, PP_EXCLUSIVE, in, out, off, 3);
    static const int32_t want[8] = {-1, 0, 2, 0, 4, 9, -1, -1};
    TC_REQUIRE(!memcmp(out, want, sizeof want), "segmented exclusive scan");
}

int main(void)
{
    tc_init("test_segmented");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_known),
        TC_TYPE_UNIT_TESTS,
        cmocka_unit_test(test_nans),
        cmocka_unit_test(test_bad_offsets),
        cmocka_unit_test(test_exact),
    };
    int rc = cmocka_run_group_tests_name("segmented", tests, NULL, NULL);
    tc_finish();
    return rc;
}
