/* The half types' calls that run through f32 (core/half_wide.c), on every
 * backend of the run, against references written here from the values
 * (test_half_fmt.h), over awkward sizes and fresh random data with both
 * zeros, runs of equal values, infinities and NaNs of several payloads:
 *   select     pp_select_flagged, pp_select_if (every pp_cmp: C's
 *              comparisons of the values), pp_unique (C's ==),
 *              pp_partition_if: the bits (NaN payloads kept) and *count,
 *              the output past *count untouched;
 *   histogram  pp_histogram_even and pp_histogram_range: the counts of
 *              ref/'s f32 histogram of the same values (every half value is
 *              an f32), and bad bounds or edges refused;
 *   scan       pp_scan and pp_scan_init with PP_MIN / PP_MAX, inclusive,
 *              exclusive and in place: -0.0 below +0.0, NaN from the first
 *              NaN on (the quiet NaN);
 *   segmented  pp_segmented_reduce and pp_segmented_scan, MIN / MAX, empty
 *              segments included (the identities +inf, -inf);
 *   arg        pp_argmin / pp_argmax: the first extreme, -0.0 == +0.0, the
 *              first NaN;
 *   bykey      pp_run_length_encode, pp_reduce_by_key and pp_scan_by_key
 *              with half keys (u32 values): runs by C's ==, first keys'
 *              bits;
 *   convert    pp_reduce_to and pp_scan_to to f32 and f64 (sum, min, max;
 *              inclusive and exclusive) of integer values, whose sums every
 *              order gives exactly: the sequential folds of the values,
 *              bit for bit; other out types refused. */
#include "test_common.h"
#include "test_half_fmt.h"

#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0, 1, 2, 33, 1000, 4097, 20011};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NMAX 20011

/* The host arrays of a test: the input, the reference, the output. */
typedef struct hbufs {
    uint16_t *x, *want, *got;
} hbufs;

static hbufs hbufs_new(void)
{
    const hbufs b = {(uint16_t *)tc_halloc(2 * NMAX), (uint16_t *)tc_halloc(2 * NMAX), (uint16_t *)tc_halloc(2 * NMAX)};
    return b;
}

static void hbufs_free(hbufs *b)
{
    free(b->x);
    free(b->want);
    free(b->got);
}

/* Random values with runs of equal neighbours, zeros of both signs,
 * infinities and NaNs of several payloads and signs. */
static void gen_wide(tc_rng *r, const hfmt *f, uint16_t *x, size_t n)
{
    gen(r, f, x, n, 0, (1 << f->ebits) - 2, 0);
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = tc_below(r, 64);
        if (k < 12 && i)
            x[i] = x[i - 1]; /* a run */
        else if (k < 15)
            x[i] = tc_below(r, 2) ? 0x8000 : 0x0000;
        else if (k == 15)
            x[i] = (uint16_t)(h_inf(f) | (tc_below(r, 2) ? 0x8000 : 0));
        else if (k == 16)
            x[i] = (uint16_t)(h_inf(f) | (1 + tc_below(r, 3)) | (tc_below(r, 2) ? 0x8000 : 0));
    }
}

static int cmp_holds(pp_cmp c, double a, double b)
{
    switch (c) {
    case PP_LT:
        return a < b;
    case PP_LE:
        return a <= b;
    case PP_GT:
        return a > b;
    case PP_GE:
        return a >= b;
    case PP_EQ:
        return a == b;
    case PP_NE:
        return a != b;
    }
    return 0;
}

/* a then b combined by MIN (MAX): -0.0 below +0.0, a NaN gives the quiet NaN. */
static uint16_t h_combine(const hfmt *f, uint16_t a, uint16_t b, int is_max)
{
    const uint16_t ab[2] = {a, b};
    return ref_minmax(f, ab, 2, is_max);
}

static uint16_t h_identity(const hfmt *f, int is_max) { return (uint16_t)(h_inf(f) | (is_max ? 0x8000 : 0)); }

/* ---- compaction ---------------------------------------------------------------------------- */
/* Runs one compaction call (mode 0 flagged, 1 if, 2 unique, 3 partition) and checks it. */
static void check_select(pp_context *ctx, const hfmt *f, int mode, const uint16_t *x, const uint8_t *flags, size_t n,
                         pp_cmp cmp, uint16_t value, uint16_t *want, uint16_t *got)
{
    /* the reference: which elements are selected */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const int sel = mode == 0   ? flags[i] != 0
                        : mode == 2 ? i == 0 || !(h_value(f, x[i]) == h_value(f, x[i - 1]))
                                    : cmp_holds(cmp, h_value(f, x[i]), h_value(f, value));
        if (sel) want[k++] = x[i];
    }
    const size_t count = k;
    if (mode == 3)
        for (size_t i = 0; i < n; i++)
            if (!cmp_holds(cmp, h_value(f, x[i]), h_value(f, value))) want[k++] = x[i];
    for (size_t i = k; i < n; i++) want[i] = 0xFFFF; /* past *count: untouched (a NaN and its payload) */
    void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * n, 0xFF);
    void *dflags = mode == 0 ? tc_dev_upload(ctx, flags, n) : NULL;
    uint64_t *dcount = (uint64_t *)tc_dev_filled(ctx, 8, 0xAB), *hcount = (uint64_t *)tc_halloc(8);
    pp_status st = mode == 0   ? pp_select_flagged(ctx, f->type, din, (const uint8_t *)dflags, n, dout, dcount)
                   : mode == 1 ? pp_select_if(ctx, f->type, din, n, cmp, &value, dout, dcount)
                   : mode == 2 ? pp_unique(ctx, f->type, din, n, dout, dcount)
                               : pp_partition_if(ctx, f->type, din, n, cmp, &value, dout, dcount);
    TC_OK(st);
    TC_DOWNLOAD(ctx, got, dout, 2 * n, "compaction output");
    TC_DOWNLOAD(ctx, hcount, dcount, 8, "count");
    TC_REQUIRE(*hcount == count, "count %llu, want %zu", (unsigned long long)*hcount, count);
    free(hcount);
    TC_EXPECT_BITS(PP_U16, got, want, n, "compaction output");
    tc_dev_free(ctx, din);
    tc_dev_free(ctx, dout);
    tc_dev_free(ctx, dflags);
    tc_dev_free(ctx, dcount);
}

static void test_select(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_select");
    hbufs b = hbufs_new();
    uint16_t *x = b.x, *want = b.want, *got = b.got;
    uint8_t *flags = (uint8_t *)tc_halloc(NMAX);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen_wide(&r, f, x, n);
            for (size_t i = 0; i < n; i++) flags[i] = (uint8_t)(tc_below(&r, 3) == 0 ? 0 : tc_below(&r, 256));
            const pp_cmp cmp = (pp_cmp)tc_below(&r, 6);
            const uint16_t value = n ? x[tc_below(&r, n)] : 0x8000;
            for (size_t c = 0; c < nctx; c++)
                for (int mode = 0; mode < 4; mode++) {
                    tc_case("%s mode %d cmp %d value 0x%04x n=%zu on %s", pp_type_name(f->type), mode, (int)cmp, value,
                            n, pp_backend_name(pp_context_backend(ctxs[c])));
                    check_select(ctxs[c], f, mode, x, flags, n, cmp, value, want, got);
                }
        }
    hbufs_free(&b);
    free(flags);
}

/* ---- histograms ---------------------------------------------------------------------------- */
typedef struct edge {
    float v;
    uint16_t bits;
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const float x = ((const edge *)a)->v, y = ((const edge *)b)->v;
    return (x > y) - (x < y);
}

static void test_histogram(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_histogram");
    enum { NB = 37 };
    uint16_t *x = (uint16_t *)tc_halloc(2 * NMAX);
    float *xf = (float *)tc_halloc(4 * NMAX);
    uint64_t *got = (uint64_t *)tc_halloc(8 * NB), want[NB];
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            /* values in a few binades around 1, with the specials */
            const int bias = (1 << (f->ebits - 1)) - 1;
            gen(&r, f, x, n, bias - 3, bias + 3, 1);
            for (size_t i = 0; i < n; i++) xf[i] = (float)h_value(f, x[i]);
            /* even bins: [-4, 4) as half bits (exact values) */
            const uint16_t lo = f->type == PP_F16 ? 0xC400 : 0xC080, hi = f->type == PP_F16 ? 0x4400 : 0x4080;
            const float lof = (float)h_value(f, lo), hif = (float)h_value(f, hi);
            /* range bins: NB + 1 distinct sorted values of the data's kind */
            edge ed[NB + 1];
            size_t ne = 0;
            while (ne < NB + 1) {
                gen(&r, f, &ed[ne].bits, 1, bias - 3, bias + 3, 0);
                ed[ne].v = (float)h_value(f, ed[ne].bits);
                int dup = 0;
                for (size_t j = 0; j < ne; j++) dup |= ed[j].v == ed[ne].v;
                ne += !dup;
            }
            qsort(ed, NB + 1, sizeof(edge), cmp_edge);
            uint16_t e16[NB + 1];
            float ef[NB + 1];
            for (size_t j = 0; j <= NB; j++) {
                e16[j] = ed[j].bits;
                ef[j] = ed[j].v;
            }
            for (size_t c = 0; c < nctx; c++) {
                pp_context *ctx = ctxs[c];
                tc_case("%s n=%zu on %s", pp_type_name(f->type), n, pp_backend_name(pp_context_backend(ctx)));
                void *din = tc_dev_upload(ctx, x, 2 * n);
                uint64_t *dc = (uint64_t *)tc_dev_filled(ctx, 8 * NB, 0xAB);
                if (!tc_need_f64(ctx, "half histograms (binned in double)")) {
                    tc_dev_free(ctx, din);
                    tc_dev_free(ctx, dc);
                    continue;
                }
                TC_OK(pp_histogram_even(ctx, f->type, din, n, &lo, &hi, NB, dc));
                TC_DOWNLOAD(ctx, got, dc, 8 * NB, "even counts");
                ref_histogram_even(PP_F32, xf, n, &lof, &hif, NB, want);
                TC_EXPECT_BITS(PP_U64, got, want, NB, "even counts");
                TC_OK(pp_histogram_range(ctx, f->type, din, n, e16, NB, dc));
                TC_DOWNLOAD(ctx, got, dc, 8 * NB, "range counts");
                ref_histogram_range(PP_F32, xf, n, ef, NB, want);
                TC_EXPECT_BITS(PP_U64, got, want, NB, "range counts");
                /* bad bounds and edges: refused, as for f32 */
                const uint16_t nan = h_nan(f), bad_edges[3] = {lo, hi, lo};
                TC_REQUIRE(pp_histogram_even(ctx, f->type, din, n, &lo, &nan, NB, dc) == PP_ERROR_INVALID_ARGUMENT,
                           "a NaN bound was accepted");
                TC_REQUIRE(pp_histogram_even(ctx, f->type, din, n, &hi, &lo, NB, dc) == PP_ERROR_INVALID_ARGUMENT,
                           "lower > upper was accepted");
                TC_REQUIRE(pp_histogram_range(ctx, f->type, din, n, bad_edges, 2, dc) == PP_ERROR_INVALID_ARGUMENT,
                           "decreasing edges were accepted");
                tc_dev_free(ctx, din);
                tc_dev_free(ctx, dc);
            }
        }
    free(x);
    free(xf);
    free(got);
}

/* ---- MIN / MAX scans ----------------------------------------------------------------------- */
/* want[i]: the scan of x from init (or the identity), kind as pp_scan's. */
static void ref_scan_mm(const hfmt *f, const uint16_t *x, size_t n, int is_max, int exclusive, const uint16_t *init,
                        uint16_t *want)
{
    uint16_t acc = init ? h_combine(f, *init, *init, is_max) : h_identity(f, is_max);
    for (size_t i = 0; i < n; i++) {
        if (exclusive) want[i] = acc;
        acc = h_combine(f, acc, x[i], is_max);
        if (!exclusive) want[i] = acc;
    }
}

static void test_scan(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_scan_minmax");
    hbufs b = hbufs_new();
    uint16_t *x = b.x, *want = b.want, *got = b.got;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen_wide(&r, f, x, n);
            for (size_t i = 0; i < n / 2; i++) /* NaNs late: most outputs are values */
                if (h_isnan(f, x[i])) x[i] = 0x8000;
            const uint16_t init = n ? x[tc_below(&r, n)] : 0x3C00;
            for (size_t c = 0; c < nctx; c++)
                for (int v = 0; v < 8; v++) {
                    pp_context *ctx = ctxs[c];
                    const int is_max = v & 1, exclusive = (v >> 1) & 1, with_init = v >> 2;
                    const pp_op op = is_max ? PP_MAX : PP_MIN;
                    const pp_scan_kind kind = exclusive ? PP_EXCLUSIVE : PP_INCLUSIVE;
                    tc_case("%s %s %s%s n=%zu on %s", pp_type_name(f->type), pp_op_name(op),
                            exclusive ? "exclusive" : "inclusive", with_init ? " from init" : "", n,
                            pp_backend_name(pp_context_backend(ctx)));
                    ref_scan_mm(f, x, n, is_max, exclusive, with_init ? &init : NULL, want);
                    void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * n, 0xAB);
                    void *dinit = tc_dev_upload(ctx, &init, 2);
                    TC_OK(with_init ? pp_scan_init(ctx, f->type, op, kind, din, dout, n, dinit)
                                    : pp_scan(ctx, f->type, op, kind, din, dout, n));
                    TC_DOWNLOAD(ctx, got, dout, 2 * n, "scan");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "scan");
                    if (!with_init) { /* in place */
                        TC_OK(pp_scan(ctx, f->type, op, kind, din, din, n));
                        TC_DOWNLOAD(ctx, got, din, 2 * n, "scan in place");
                        TC_EXPECT_BITS(PP_U16, got, want, n, "scan in place");
                    }
                    tc_dev_free(ctx, din);
                    tc_dev_free(ctx, dout);
                    tc_dev_free(ctx, dinit);
                }
        }
    hbufs_free(&b);
}

/* ---- segmented MIN / MAX -------------------------------------------------------------------- */
static void test_segmented(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_segmented");
    hbufs b = hbufs_new();
    uint16_t *x = b.x, *want = b.want, *got = b.got;
    uint64_t *off = (uint64_t *)tc_halloc(8 * (NMAX + 2));
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen_wide(&r, f, x, n);
            /* a head and a tail outside every segment: a scan leaves them alone */
            const size_t nseg = gen_segments(&r, n, off, 2 + n / 8, n ? 1 : 6);
            for (size_t c = 0; c < nctx; c++)
                for (int v = 0; v < 6; v++) {
                    pp_context *ctx = ctxs[c];
                    const int is_max = v & 1, form = v >> 1; /* 0 reduce, 1 inclusive, 2 exclusive scan */
                    const pp_op op = is_max ? PP_MAX : PP_MIN;
                    tc_case("%s %s form %d n=%zu nseg=%zu on %s", pp_type_name(f->type), pp_op_name(op), form, n, nseg,
                            pp_backend_name(pp_context_backend(ctx)));
                    for (size_t s = 0; s < nseg; s++) {
                        if (form == 0)
                            want[s] = ref_minmax(f, x + off[s], off[s + 1] - off[s], is_max);
                        else
                            ref_scan_mm(f, x + off[s], off[s + 1] - off[s], is_max, form == 2, NULL, want + off[s]);
                    }
                    const size_t nout = form == 0 ? nseg : n;
                    for (size_t i = 0; form && i < n; i++) /* outside every segment: untouched NaNs */
                        if (i < off[0] || i >= off[nseg]) want[i] = 0xFFFF;
                    void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * nout, 0xFF);
                    void *doff = tc_dev_upload(ctx, off, 8 * (nseg + 1));
                    TC_OK(form == 0 ? pp_segmented_reduce(ctx, f->type, op, din, n, (const uint64_t *)doff, nseg, dout)
                                    : pp_segmented_scan(ctx, f->type, op, form == 2 ? PP_EXCLUSIVE : PP_INCLUSIVE, din,
                                                        dout, n, (const uint64_t *)doff, nseg));
                    TC_DOWNLOAD(ctx, got, dout, 2 * nout, "segmented");
                    TC_EXPECT_BITS(PP_U16, got, want, nout, "segmented");
                    tc_dev_free(ctx, din);
                    tc_dev_free(ctx, dout);
                    tc_dev_free(ctx, doff);
                }
        }
    hbufs_free(&b);
    free(off);
}

/* ---- half keys: runs, by-key reduce and scan ------------------------------------------------ */
/* pp_run_length_encode of half values, pp_reduce_by_key and pp_scan_by_key
 * (u32 values, PP_SUM) of half keys: runs of equal neighbours by C's ==
 * (NaN never equal, -0.0 == +0.0), the first key of each run (its bits),
 * the outputs past *count untouched. */
static void test_bykey(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_bykey");
    hbufs b = hbufs_new();
    uint16_t *x = b.x, *want = b.want, *got = b.got;
    uint32_t *v = (uint32_t *)tc_halloc(4 * NMAX), *wv = (uint32_t *)tc_halloc(4 * NMAX);
    uint32_t *gv = (uint32_t *)tc_halloc(4 * NMAX), *ws = (uint32_t *)tc_halloc(4 * NMAX);
    uint64_t *wc = (uint64_t *)tc_halloc(8 * NMAX), *gc = (uint64_t *)tc_halloc(8 * NMAX);
    uint64_t *h8 = (uint64_t *)tc_halloc(8);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen_wide(&r, f, x, n);
            size_t runs = 0;
            for (size_t i = 0; i < n; i++) {
                v[i] = (uint32_t)tc_next(&r);
                if (i == 0 || !(h_value(f, x[i]) == h_value(f, x[i - 1]))) {
                    want[runs] = x[i];
                    wv[runs] = 0;
                    wc[runs++] = 0;
                }
                wv[runs - 1] += v[i];
                wc[runs - 1]++;
                ws[i] = wv[runs - 1]; /* the inclusive scan by key */
            }
            for (size_t i = runs; i < n; i++) want[i] = 0xFFFF; /* past *count: untouched */
            for (size_t c = 0; c < nctx; c++) {
                pp_context *ctx = ctxs[c];
                tc_case("%s n=%zu runs=%zu on %s", pp_type_name(f->type), n, runs,
                        pp_backend_name(pp_context_backend(ctx)));
                void *dx = tc_dev_upload(ctx, x, 2 * n), *dv = tc_dev_upload(ctx, v, 4 * n);
                void *dko = tc_dev_filled(ctx, 2 * n, 0xFF), *dvo = tc_dev_filled(ctx, 4 * n, 0);
                uint64_t *dco = (uint64_t *)tc_dev_filled(ctx, 8 * n, 0), *dn = (uint64_t *)tc_dev_filled(ctx, 8, 0);
                TC_OK(pp_run_length_encode(ctx, f->type, dx, n, dko, dco, dn));
                TC_DOWNLOAD(ctx, h8, dn, 8, "count");
                TC_REQUIRE(*h8 == runs, "runs %llu, want %zu", (unsigned long long)*h8, runs);
                TC_DOWNLOAD(ctx, got, dko, 2 * n, "run values");
                TC_EXPECT_BITS(PP_U16, got, want, n, "run values");
                TC_DOWNLOAD(ctx, gc, dco, 8 * n, "run lengths");
                TC_EXPECT_BITS(PP_U64, gc, wc, runs, "run lengths");
                tc_dev_free(ctx, dko);
                dko = tc_dev_filled(ctx, 2 * n, 0xFF);
                TC_OK(pp_reduce_by_key(ctx, f->type, PP_U32, PP_SUM, dx, dv, n, dko, dvo, dn));
                TC_DOWNLOAD(ctx, h8, dn, 8, "count");
                TC_REQUIRE(*h8 == runs, "by-key runs %llu, want %zu", (unsigned long long)*h8, runs);
                TC_DOWNLOAD(ctx, got, dko, 2 * n, "keys_out");
                TC_EXPECT_BITS(PP_U16, got, want, n, "reduce_by_key's keys");
                TC_DOWNLOAD(ctx, gv, dvo, 4 * n, "values_out");
                TC_EXPECT_BITS(PP_U32, gv, wv, runs, "reduce_by_key's sums");
                TC_OK(pp_scan_by_key(ctx, f->type, PP_U32, PP_SUM, PP_INCLUSIVE, dx, dv, dvo, n));
                TC_DOWNLOAD(ctx, gv, dvo, 4 * n, "scan_by_key");
                TC_EXPECT_BITS(PP_U32, gv, ws, n, "scan_by_key");
                void *const d[6] = {dx, dv, dko, dvo, dco, dn};
                for (int k = 0; k < 6; k++) tc_dev_free(ctx, d[k]);
            }
        }
    hbufs_free(&b);
    void *const hb[7] = {v, wv, gv, ws, wc, gc, h8};
    for (int k = 0; k < 7; k++) free(hb[k]);
}

/* ---- argmin / argmax ----------------------------------------------------------------------- */
/* ---- pp_reduce_to / pp_scan_to to f32 and f64 ---------------------------------------------- */
/* The half bits of the integer v, 0 < |v| <= 255 (exact in both formats). */
static uint16_t h_of_int(const hfmt *f, int v)
{
    const unsigned m = (unsigned)(v < 0 ? -v : v);
    int e = 0;
    while ((m >> (e + 1)) != 0) e++;
    const int fb = f->prec - 1, bias = (1 << (f->ebits - 1)) - 1;
    const unsigned frac = (m << fb >> e) & ((1u << fb) - 1);
    return (uint16_t)((v < 0 ? 0x8000u : 0u) | (unsigned)(e + bias) << fb | frac);
}

static void test_convert(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_convert");
    hbufs b = hbufs_new();
    uint16_t *x = b.x;
    double *want = (double *)tc_halloc(8 * NMAX), *got = (double *)tc_halloc(8 * NMAX);
    float *want32 = (float *)tc_halloc(4 * NMAX);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    static const pp_op ops[3] = {PP_SUM, PP_MIN, PP_MAX};
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < NSIZES; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            for (size_t i = 0; i < n; i++) { /* integers in [-64, 64]: exact in both formats, +0.0 for zero */
                const int v = (int)tc_below(&r, 129) - 64;
                x[i] = v ? h_of_int(f, v) : 0;
                TC_REQUIRE(h_value(f, x[i]) == (double)v, "the bits of %d", v);
            }
            for (int oi = 0; oi < 3; oi++)
                for (int to64 = 0; to64 < 2; to64++)
                    for (int form = 0; form < 3; form++) { /* reduce, inclusive scan, exclusive scan */
                        const pp_op op = ops[oi];
                        const pp_type ot = to64 ? PP_F64 : PP_F32;
                        const double id = op == PP_SUM ? 0.0 : op == PP_MIN ? INFINITY : -INFINITY;
                        double acc = id;
                        for (size_t i = 0; i < n; i++) {
                            const double v = h_value(f, x[i]);
                            if (form == 2) want[i] = acc;
                            acc = op == PP_SUM ? acc + v : op == PP_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
                            if (form == 1) want[i] = acc;
                        }
                        if (form == 0) want[0] = acc;
                        const size_t nout = form == 0 ? 1 : n;
                        for (size_t i = 0; i < nout; i++) want32[i] = (float)want[i];
                        for (size_t c = 0; c < nctx; c++) {
                            pp_context *ctx = ctxs[c];
                            if (to64 && !tc_need_f64(ctx, "half to f64")) continue;
                            tc_case("%s to %s %s form %d n=%zu on %s", pp_type_name(f->type), pp_type_name(ot),
                                    pp_op_name(op), form, n, pp_backend_name(pp_context_backend(ctx)));
                            const size_t osz = to64 ? 8 : 4;
                            void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, osz * nout, 0xAB);
                            TC_OK(form == 0 ? pp_reduce_to(ctx, f->type, ot, op, din, n, dout)
                                            : pp_scan_to(ctx, f->type, ot, op, form == 2 ? PP_EXCLUSIVE : PP_INCLUSIVE,
                                                         din, dout, n));
                            TC_DOWNLOAD(ctx, got, dout, osz * nout, "converted");
                            TC_EXPECT_BITS(ot, got, to64 ? (const void *)want : (const void *)want32, nout,
                                           "the folds of the values");
                            tc_dev_free(ctx, din);
                            tc_dev_free(ctx, dout);
                        }
                    }
        }
    for (size_t c = 0; c < nctx; c++) { /* an out type that is not f32, f64 or the half type itself */
        pp_context *ctx = ctxs[c];
        void *d = tc_dev_filled(ctx, 16, 0);
        TC_REQUIRE(pp_reduce_to(ctx, PP_F16, PP_U32, PP_SUM, d, 2, d) == PP_ERROR_INVALID_ARGUMENT,
                   "pp_reduce_to f16 -> u32 accepted");
        TC_REQUIRE(pp_scan_to(ctx, PP_BF16, PP_F16, PP_SUM, PP_INCLUSIVE, d, d, 2) == PP_ERROR_INVALID_ARGUMENT,
                   "pp_scan_to bf16 -> f16 accepted");
        tc_dev_free(ctx, d);
    }
    hbufs_free(&b);
    free(want);
    free(got);
    free(want32);
}

static void test_arg(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_arg");
    uint16_t *x = (uint16_t *)tc_halloc(2 * NMAX);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 1; si < NSIZES; si++)
            for (int nan = 0; nan < 2; nan++) {
                const hfmt *f = fmts[fi];
                const size_t n = sizes[si];
                gen_wide(&r, f, x, n);
                for (size_t i = 0; i < n && !nan; i++)
                    if (h_isnan(f, x[i])) x[i] = 0x8000;
                for (int is_max = 0; is_max < 2; is_max++) {
                    size_t want = 0;
                    for (size_t i = 0; i < n; i++) {
                        const double a = h_value(f, x[i]), b = h_value(f, x[want]);
                        if (h_isnan(f, x[want])) break;
                        if (h_isnan(f, x[i]) || (is_max ? a > b : a < b)) want = i;
                    }
                    for (size_t c = 0; c < nctx; c++) {
                        pp_context *ctx = ctxs[c];
                        tc_case("%s %s nan %d n=%zu on %s", pp_type_name(f->type), is_max ? "argmax" : "argmin", nan, n,
                                pp_backend_name(pp_context_backend(ctx)));
                        void *din = tc_dev_upload(ctx, x, 2 * n);
                        uint64_t *di = (uint64_t *)tc_dev_filled(ctx, 8, 0xAB), *got = (uint64_t *)tc_halloc(8);
                        TC_OK(is_max ? pp_argmax(ctx, f->type, din, n, di) : pp_argmin(ctx, f->type, din, n, di));
                        TC_DOWNLOAD(ctx, got, di, 8, "index");
                        TC_REQUIRE(*got == want, "index %llu, want %zu", (unsigned long long)*got, want);
                        free(got);
                        tc_dev_free(ctx, din);
                        tc_dev_free(ctx, di);
                    }
                }
            }
    free(x);
}

int main(void)
{
    tc_init("test_half_wide");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_select), cmocka_unit_test(test_histogram),
                                       cmocka_unit_test(test_scan),   cmocka_unit_test(test_segmented),
                                       cmocka_unit_test(test_arg),    cmocka_unit_test(test_bykey),
                                       cmocka_unit_test(test_convert)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
