/* The half types (PP_F16, PP_BF16; parprim.h, "Half precision"), on every
 * configuration of the run (every backend; every algorithm, which the half
 * calls ignore), against a reference written here, apart from the library:
 *   sums      pp_reduce PP_SUM and pp_scan PP_SUM (inclusive, exclusive,
 *             in place) over awkward sizes and fresh random data (narrow
 *             and wide exponent ranges, subnormals, a few NaN and
 *             infinities): bit for bit the exact sum rounded once. The
 *             reference sums each element as an integer multiple of the
 *             format's smallest subnormal (2^-24, 2^-133) in a wide
 *             integer of 32-bit limbs and rounds it to nearest even;
 *   segmented pp_segmented_reduce and pp_segmented_scan PP_SUM, each
 *             segment against its own exact reference; pp_scan_init PP_SUM
 *             from init's exact value; pp_reduce_by_key / pp_scan_by_key
 *             PP_SUM of half values (u32 and half keys);
 *   hand      ties at the rounding point, sums that rounding through f32
 *             would get wrong, overflow to infinity, NaN, +inf + -inf,
 *             cancellation, the signs of zero, 70000 bf16 ones (70144);
 *   minmax    pp_reduce PP_MIN / PP_MAX, -0.0 below +0.0, NaN;
 *   sort      pp_sort, pp_sort_copy, pp_sort_pairs, pp_sort_pairs_copy
 *             (values of 1, 2, 4 and 8 bytes: the input positions) and
 *             pp_argsort in every order (NumPy's: -0.0 before +0.0, NaNs
 *             last ascending, stable, payloads kept) against a qsort by
 *             value, then index; pp_lower_bound / pp_upper_bound (counts
 *             of the keys before a query), pp_merge and pp_merge_pairs,
 *             pp_top_k (keys and indices: the first k of that order);
 *             pp_segmented_sort(_pairs) per segment, keys outside every
 *             segment untouched;
 *   refused   calls not covered yet: PP_ERROR_UNSUPPORTED naming the call
 *             and the type, nothing written.
 * test_half_wide.c checks the calls that run through f32 (compaction,
 * histograms, MIN / MAX scans and segmented forms, argmin / argmax).
 * (Over 600 lines: the half formats' own reference, exact sums and the
 * order, which every group of calls above shares.) */
#include "test_common.h"
#include "test_half_fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference: an exact sum in units of the smallest subnormal ------------------------- */
#define LIMBS 10 /* 320 bits: bf16 values are below 2^262 units, sums of 2^20 of them below 2^282 */

typedef struct xsum {
    uint32_t pos[LIMBS], neg[LIMBS];
    int nan, pinf, ninf, not_neg0;
} xsum;

static void add_at(uint32_t *l, uint64_t m, int shift)
{
    int i = shift / 32;
    uint64_t c = m << (shift % 32); /* m < 2^11: fits */
    for (; c && i < LIMBS; i++) {
        c += l[i];
        l[i] = (uint32_t)c;
        c >>= 32;
    }
    TC_REQUIRE(c == 0, "reference sum overflowed its limbs");
}

static void xs_add(xsum *s, const hfmt *f, uint16_t b)
{
    const int fb = f->prec - 1, ef = (b >> fb) & ((1 << f->ebits) - 1), frac = b & ((1 << fb) - 1);
    const int neg = (b & 0x8000) != 0;
    if (ef == (1 << f->ebits) - 1) {
        if (frac)
            s->nan = 1;
        else if (neg)
            s->ninf = 1;
        else
            s->pinf = 1;
        return;
    }
    if (b != 0x8000) s->not_neg0 = 1;
    const uint64_t m = ef ? (uint64_t)frac | (uint64_t)1 << fb : (uint64_t)frac;
    if (m) add_at(neg ? s->neg : s->pos, m, ef ? ef - 1 : 0);
}

/* |a - b| into d; returns 1 if a < b. */
static int mag_diff(const uint32_t *a, const uint32_t *b, uint32_t *d)
{
    int less = 0;
    for (int i = LIMBS - 1; i >= 0; i--)
        if (a[i] != b[i]) {
            less = a[i] < b[i];
            break;
        }
    const uint32_t *x = less ? b : a, *y = less ? a : b;
    int64_t borrow = 0;
    for (int i = 0; i < LIMBS; i++) {
        int64_t v = (int64_t)x[i] - y[i] - borrow;
        borrow = v < 0;
        d[i] = (uint32_t)(v + (borrow ? ((int64_t)1 << 32) : 0));
    }
    return less;
}

static int bit(const uint32_t *d, int i) { return (d[i / 32] >> (i % 32)) & 1; }

/* The exact sum rounded once to nearest even, as bits of the format. */
static uint16_t xs_round(const xsum *s, const hfmt *f)
{
    if (s->nan || (s->pinf && s->ninf)) return h_nan(f);
    if (s->pinf) return h_inf(f);
    if (s->ninf) return (uint16_t)(h_inf(f) | 0x8000);
    uint32_t d[LIMBS];
    const int neg = mag_diff(s->pos, s->neg, d);
    int top = -1; /* the highest set bit */
    for (int i = 32 * LIMBS - 1; i >= 0 && top < 0; i--)
        if (bit(d, i)) top = i;
    if (top < 0) return s->not_neg0 ? 0 : 0x8000;
    uint64_t m;
    int e = 0; /* |sum| ~ m * 2^e units */
    if (top < f->prec) {
        m = d[0];
    } else {
        e = top + 1 - f->prec;
        m = 0;
        for (int i = top; i >= e; i--) m = m << 1 | (uint64_t)bit(d, i);
        const int half = bit(d, e - 1);
        int sticky = 0;
        for (int i = e - 2; i >= 0 && !sticky; i--) sticky = bit(d, i);
        if (half && (sticky || (m & 1))) m++;
        if (m >> f->prec) m >>= 1, e++;
    }
    /* m < 2^(prec-1): subnormal (e == 0); else exponent field e + 1 */
    uint32_t bits = m < ((uint64_t)1 << (f->prec - 1))
                        ? (uint32_t)m
                        : (uint32_t)(e + 1) << (f->prec - 1) | (uint32_t)(m & ((1u << (f->prec - 1)) - 1));
    if (bits >= h_inf(f)) bits = h_inf(f);
    return (uint16_t)(bits | (neg ? 0x8000u : 0));
}

/* Configuration c for prim, and its algorithm for other too where other
 * takes it (the half sums ignore both); sums_configs_reset: back to auto. */
static void sums_config_use(const tc_config *c, pp_primitive prim, pp_primitive other)
{
    tc_use(c, prim);
    if (pp_set_algorithm(c->ctx, other, c->algo) != PP_SUCCESS) TC_OK(pp_set_algorithm(c->ctx, other, PP_ALGO_AUTO));
}

static void sums_configs_reset(const tc_config *cs, size_t nc)
{
    for (size_t c = 0; c < nc; c++) {
        TC_OK(pp_set_algorithm(cs[c].ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
        TC_OK(pp_set_algorithm(cs[c].ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
    }
}

/* Runs reduce and the scans of x on every configuration, checks the bits. */
static void check_sums(const hfmt *f, const uint16_t *x, size_t n, const char *what)
{
    uint16_t *inc = (uint16_t *)tc_halloc(2 * n + 2), *exc = (uint16_t *)tc_halloc(2 * n + 2);
    uint16_t *got = (uint16_t *)tc_halloc(2 * n + 2);
    xsum s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < n; i++) {
        exc[i] = i ? xs_round(&s, f) : 0;
        xs_add(&s, f, x[i]);
        inc[i] = xs_round(&s, f);
    }
    const uint16_t total = n ? inc[n - 1] : 0;
    const tc_config *cs;
    const size_t nc = tc_configs(PP_PRIM_SCAN, &cs);
    for (size_t c = 0; c < nc; c++) {
        pp_context *ctx = cs[c].ctx;
        sums_config_use(&cs[c], PP_PRIM_SCAN, PP_PRIM_REDUCE);
        tc_case("%s %s n=%zu on %s", pp_type_name(f->type), what, n, tc_config_name(&cs[c]));
        void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * n, 0xAB);
        void *dred = tc_dev_filled(ctx, 2, 0xAB);
        TC_OK(pp_reduce(ctx, f->type, PP_SUM, din, n, dred));
        TC_DOWNLOAD(ctx, got, dred, 2, "reduce");
        TC_REQUIRE(got[0] == total, "reduce: 0x%04x, want 0x%04x", got[0], total);
        for (int k = 0; k < 2; k++) {
            TC_OK(pp_scan(ctx, f->type, PP_SUM, k ? PP_EXCLUSIVE : PP_INCLUSIVE, din, dout, n));
            TC_DOWNLOAD(ctx, got, dout, 2 * n, "scan");
            TC_EXPECT_BITS(PP_U16, got, k ? exc : inc, n, k ? "exclusive scan" : "inclusive scan");
        }
        TC_OK(pp_scan(ctx, f->type, PP_SUM, PP_INCLUSIVE, din, din, n)); /* in place */
        TC_DOWNLOAD(ctx, got, din, 2 * n, "scan in place");
        TC_EXPECT_BITS(PP_U16, got, inc, n, "inclusive scan in place");
        tc_dev_free(ctx, din);
        tc_dev_free(ctx, dout);
        tc_dev_free(ctx, dred);
    }
    sums_configs_reset(cs, nc);
    free(inc);
    free(exc);
    free(got);
}

static void test_sums(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_sums");
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 255, 1000, 2049, 8193, 40001};
    const size_t ns = tc_quick ? 8 : sizeof sizes / sizeof sizes[0];
    uint16_t *x = (uint16_t *)tc_halloc(2 * 40001);
    for (int fi = 0; fi < 2; fi++) {
        const hfmt *f = fmts[fi];
        const int emax = (1 << f->ebits) - 2, bias = (1 << (f->ebits - 1)) - 1;
        for (size_t si = 0; si < ns; si++) {
            const size_t n = sizes[si];
            gen(&r, f, x, n, bias - 3, bias + 3, 0);
            check_sums(f, x, n, "narrow");
            gen(&r, f, x, n, 0, 2, 0);
            check_sums(f, x, n, "subnormal");
            gen(&r, f, x, n, 0, emax, 0);
            check_sums(f, x, n, "wide");
            gen(&r, f, x, n, bias - 5, bias + 5, 1);
            check_sums(f, x, n, "specials");
        }
    }
    free(x);
}

/* pp_scan_init with PP_SUM: each output the exact sum of init and the
 * prefix rounded once, an exclusive out[0] init itself, on every
 * backend. */
static void test_scan_init_sums(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_scan_init");
    static const size_t sizes[] = {1, 5, 1000, 9001};
    uint16_t *x = (uint16_t *)tc_halloc(2 * 9001), *want = (uint16_t *)tc_halloc(2 * 9001);
    uint16_t *got = (uint16_t *)tc_halloc(2 * 9001);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int k = 0; k < 2; k++) {
                const hfmt *f = fmts[fi];
                const size_t n = sizes[si];
                const int bias = (1 << (f->ebits - 1)) - 1;
                gen(&r, f, x, n, bias - 6, bias + 6, si == 2);
                uint16_t init;
                gen(&r, f, &init, 1, bias - 6, bias + 9, 0);
                if (si == 0) init = 0x8000; /* -0.0 */
                xsum acc;
                memset(&acc, 0, sizeof acc);
                xs_add(&acc, f, init);
                for (size_t i = 0; i < n; i++) {
                    if (k) want[i] = i ? xs_round(&acc, f) : init;
                    xs_add(&acc, f, x[i]);
                    if (!k) want[i] = xs_round(&acc, f);
                }
                for (size_t c = 0; c < nctx; c++) {
                    pp_context *ctx = ctxs[c];
                    tc_case("%s %s n=%zu init 0x%04x on %s", pp_type_name(f->type), k ? "exclusive" : "inclusive", n,
                            init, pp_backend_name(pp_context_backend(ctx)));
                    void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * n, 0xAB);
                    void *dinit = tc_dev_upload(ctx, &init, 2);
                    TC_OK(pp_scan_init(ctx, f->type, PP_SUM, k ? PP_EXCLUSIVE : PP_INCLUSIVE, din, dout, n, dinit));
                    TC_DOWNLOAD(ctx, got, dout, 2 * n, "scan from init");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "scan from init");
                    tc_dev_free(ctx, din);
                    tc_dev_free(ctx, dout);
                    tc_dev_free(ctx, dinit);
                }
            }
    free(x);
    free(want);
    free(got);
}

/* Half values summed by key: pp_reduce_by_key and pp_scan_by_key (PP_SUM;
 * inclusive, exclusive; the scans in place at odd sizes) with u32 keys
 * and with half keys (runs by C's ==), short runs and (the last size) long
 * ones that cross the backends' chunks: each run's sums exact and rounded
 * once, the runs' first keys and count, nothing written past the count. */
static void test_bykey_sums(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_bykey_sums");
    static const size_t sizes[] = {1, 7, 2000, 20001};
    const size_t ns = sizeof sizes / sizeof sizes[0], nmax = 20001;
    uint16_t *x = (uint16_t *)tc_halloc(2 * nmax), *hk = (uint16_t *)tc_halloc(2 * nmax);
    uint16_t *want = (uint16_t *)tc_halloc(2 * nmax), *got = (uint16_t *)tc_halloc(2 * nmax);
    uint32_t *uk = (uint32_t *)tc_halloc(4 * nmax), *wk = (uint32_t *)tc_halloc(4 * nmax);
    uint32_t *gk = (uint32_t *)tc_halloc(4 * nmax);
    uint64_t *h8 = (uint64_t *)tc_halloc(8);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < ns; si++)
            for (int half_keys = 0; half_keys < 2; half_keys++) {
                const hfmt *f = fmts[fi];
                const size_t n = sizes[si];
                const uint64_t stay = si == ns - 1 ? 4096 : 4; /* a run goes on with odds stay - 1 in stay */
                gen(&r, f, x, n, 0, (1 << f->ebits) - 2, 1);
                gen(&r, f, hk, n, 1, 4, 0);
                for (size_t i = 0; i < n; i++) {
                    uk[i] = i && tc_below(&r, stay) ? uk[i - 1] : (uint32_t)tc_below(&r, 5);
                    if (i && tc_below(&r, stay)) hk[i] = hk[i - 1];
                }
                const pp_type kt = half_keys ? f->type : PP_U32;
                const void *keys = half_keys ? (const void *)hk : (const void *)uk;
                for (int form = 0; form < 3; form++) { /* reduce, inclusive scan, exclusive scan */
                    size_t runs = 0;
                    xsum acc;
                    for (size_t i = 0; i < n; i++) {
                        const int head =
                            i == 0 || (half_keys ? !(h_value(f, hk[i]) == h_value(f, hk[i - 1])) : uk[i] != uk[i - 1]);
                        if (head) {
                            memset(&acc, 0, sizeof acc);
                            if (half_keys) memcpy((uint16_t *)wk + runs, hk + i, 2);
                            else wk[runs] = uk[i];
                            runs++;
                        }
                        if (form == 2) want[i] = head ? 0 : xs_round(&acc, f);
                        xs_add(&acc, f, x[i]);
                        if (form == 1) want[i] = xs_round(&acc, f);
                        if (form == 0) want[runs - 1] = xs_round(&acc, f);
                    }
                    for (size_t c = 0; c < nctx; c++) {
                        pp_context *ctx = ctxs[c];
                        tc_case("%s %s keys form %d n=%zu on %s", pp_type_name(f->type), pp_type_name(kt), form, n,
                                pp_backend_name(pp_context_backend(ctx)));
                        const size_t ks = pp_type_size(kt);
                        void *dk = tc_dev_upload(ctx, keys, n * ks), *dx = tc_dev_upload(ctx, x, 2 * n);
                        void *dko = tc_dev_filled(ctx, n * ks, 0xCD), *dout = tc_dev_filled(ctx, 2 * n, 0xAB);
                        uint64_t *dn = (uint64_t *)tc_dev_filled(ctx, 8, 0);
                        const int inplace = form != 0 && (n & 1);
                        TC_OK(form == 0 ? pp_reduce_by_key(ctx, kt, f->type, PP_SUM, dk, dx, n, dko, dout, dn)
                                        : pp_scan_by_key(ctx, kt, f->type, PP_SUM,
                                                         form == 2 ? PP_EXCLUSIVE : PP_INCLUSIVE, dk, dx,
                                                         inplace ? dx : dout, n));
                        TC_DOWNLOAD(ctx, got, inplace ? dx : dout, 2 * n, "by-key sums");
                        TC_EXPECT_BITS(PP_U16, got, want, form == 0 ? runs : n, "by-key sums");
                        if (form == 0) {
                            TC_DOWNLOAD(ctx, h8, dn, 8, "count");
                            TC_REQUIRE(*h8 == runs, "runs %llu, want %zu", (unsigned long long)*h8, runs);
                            for (size_t i = runs; i < n; i++)
                                TC_REQUIRE(got[i] == 0xABAB, "values_out[%zu] written past the count", i);
                            TC_DOWNLOAD(ctx, gk, dko, n * ks, "first keys");
                            TC_EXPECT_BITS(half_keys ? PP_U16 : PP_U32, gk, wk, runs, "the runs' first keys");
                        }
                        void *const d[5] = {dk, dx, dko, dout, dn};
                        for (int k = 0; k < 5; k++) tc_dev_free(ctx, d[k]);
                    }
                }
            }
    void *const hb[8] = {x, hk, want, got, uk, wk, gk, h8};
    for (int k = 0; k < 8; k++) free(hb[k]);
}

/* Segmented sums: pp_segmented_reduce and pp_segmented_scan (inclusive,
 * exclusive) of x over random segments (empty ones, and one long one that
 * crosses the backends' chunks), each segment's bits those of its own
 * exact sum. */
static void test_segmented_sums(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_segmented_sums");
    static const size_t sizes[] = {0, 1, 5, 300, 40001};
    uint16_t *x = (uint16_t *)tc_halloc(2 * 40001), *want = (uint16_t *)tc_halloc(2 * 40001);
    uint16_t *got = (uint16_t *)tc_halloc(2 * 40001);
    uint64_t *off = (uint64_t *)tc_halloc(8 * 40003);
    const tc_config *cs;
    const size_t nc = tc_configs(PP_PRIM_REDUCE, &cs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen(&r, f, x, n, 0, (1 << f->ebits) - 2, 1);
            size_t nseg = 0;
            off[0] = 0;
            while (off[nseg] < n || nseg == 0) { /* empty segments, short ones, and one of half the input */
                const uint64_t len = tc_below(&r, 5) == 0 ? 0 : nseg == 3 ? n / 2 : tc_below(&r, 40);
                off[nseg + 1] = off[nseg] + len > n ? n : off[nseg] + len;
                nseg++;
            }
            for (int form = 0; form < 3; form++) { /* reduce, inclusive scan, exclusive scan */
                for (size_t sg = 0; sg < nseg; sg++) {
                    xsum acc;
                    memset(&acc, 0, sizeof acc);
                    if (form == 0) {
                        for (uint64_t i = off[sg]; i < off[sg + 1]; i++) xs_add(&acc, f, x[i]);
                        want[sg] = off[sg] == off[sg + 1] ? 0 : xs_round(&acc, f); /* empty: +0.0 */
                        continue;
                    }
                    for (uint64_t i = off[sg]; i < off[sg + 1]; i++) {
                        if (form == 2) want[i] = i == off[sg] ? 0 : xs_round(&acc, f);
                        xs_add(&acc, f, x[i]);
                        if (form == 1) want[i] = xs_round(&acc, f);
                    }
                }
                const size_t nout = form == 0 ? nseg : n;
                for (size_t c = 0; c < nc; c++) {
                    pp_context *ctx = cs[c].ctx;
                    sums_config_use(&cs[c], PP_PRIM_REDUCE, PP_PRIM_SCAN);
                    tc_case("%s form %d n=%zu nseg=%zu on %s", pp_type_name(f->type), form, n, nseg,
                            tc_config_name(&cs[c]));
                    void *din = tc_dev_upload(ctx, x, 2 * n), *dout = tc_dev_filled(ctx, 2 * nout, 0xAB);
                    void *doff = tc_dev_upload(ctx, off, 8 * (nseg + 1));
                    const pp_status st =
                        form == 0
                            ? pp_segmented_reduce(ctx, f->type, PP_SUM, din, n, (const uint64_t *)doff, nseg, dout)
                            : pp_segmented_scan(ctx, f->type, PP_SUM, form == 2 ? PP_EXCLUSIVE : PP_INCLUSIVE, din,
                                                dout, n, (const uint64_t *)doff, nseg);
                    TC_OK(st);
                    TC_DOWNLOAD(ctx, got, dout, 2 * nout, "segmented sums");
                    TC_EXPECT_BITS(PP_U16, got, want, nout, form ? "segmented scan" : "segmented reduce");
                    tc_dev_free(ctx, din);
                    tc_dev_free(ctx, dout);
                    tc_dev_free(ctx, doff);
                }
            }
        }
    sums_configs_reset(cs, nc);
    free(x);
    free(want);
    free(got);
    free(off);
}

/* One hand case: the reduce of x (n) must be want on every configuration,
 * the reference agreeing. */
static void hand(const hfmt *f, const uint16_t *x, size_t n, uint16_t want, const char *what)
{
    xsum s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < n; i++) xs_add(&s, f, x[i]);
    TC_REQUIRE(xs_round(&s, f) == want, "%s %s: the reference gives 0x%04x, want 0x%04x", pp_type_name(f->type), what,
               xs_round(&s, f), want);
    check_sums(f, x, n, what);
}

static void test_hand(void **state)
{
    (void)state;
    /* f16: 1 = 0x3C00, 2^-11 = 0x1000, 2^-24 = 0x0001, 65504 = 0x7BFF, 16 = 0x4C00, 15 = 0x4B80 */
    const uint16_t tie[] = {0x3C00, 0x1000}, tie_odd[] = {0x3C01, 0x1000}, above[] = {0x3C00, 0x1000, 0x0001};
    hand(&F16, tie, 2, 0x3C00, "1 + 2^-11 (tie to even, down)");
    hand(&F16, tie_odd, 2, 0x3C02, "1 + 2^-10 + 2^-11 (tie to even, up)");
    hand(&F16, above, 3, 0x3C01, "1 + 2^-11 + 2^-24 (through f32: 1.0)");
    const uint16_t ovf[] = {0x7BFF, 0x4C00}, novf[] = {0x7BFF, 0x4B80}, novf_neg[] = {0xFBFF, 0xCC00};
    hand(&F16, ovf, 2, 0x7C00, "65504 + 16 (a tie: overflows)");
    hand(&F16, novf, 2, 0x7BFF, "65504 + 15");
    hand(&F16, novf_neg, 2, 0xFC00, "-65504 - 16");
    const uint16_t back[] = {0x7BFF, 0x7BFF, 0xFBFF}; /* partial sum beyond the range, the total not */
    hand(&F16, back, 3, 0x7BFF, "65504 + 65504 - 65504");
    const uint16_t nan[] = {0x3C00, 0x7D23, 0x3C00}, infs[] = {0x7C00, 0x3C00, 0xFC00}, pinf[] = {0x7C00, 0xFBFF};
    hand(&F16, nan, 3, 0x7E00, "NaN (payload 0x123)");
    hand(&F16, infs, 3, 0x7E00, "+inf + -inf");
    hand(&F16, pinf, 2, 0x7C00, "+inf - 65504");
    const uint16_t cancel[] = {0x3555, 0x0123, 0xB555, 0x8123}, negz[] = {0x8000, 0x8000}, mixz[] = {0x8000, 0x0000};
    hand(&F16, cancel, 4, 0x0000, "x + y - x - y");
    hand(&F16, negz, 2, 0x8000, "-0 + -0");
    hand(&F16, mixz, 2, 0x0000, "-0 + +0");
    const uint16_t subn[] = {0x0001, 0x03FF}; /* the largest subnormal plus the least: the least normal */
    hand(&F16, subn, 2, 0x0400, "subnormals to the least normal");
    /* bf16: 1 = 0x3F80, 2^-8 = 0x3B80, 2^-25 = 0x3300 */
    const uint16_t btie[] = {0x3F80, 0x3B80}, babove[] = {0x3F80, 0x3B80, 0x3300};
    hand(&BF16, btie, 2, 0x3F80, "1 + 2^-8 (tie to even)");
    hand(&BF16, babove, 3, 0x3F81, "1 + 2^-8 + 2^-25 (through f32: 1.0)");
    const uint16_t bovf[] = {0x7F7F, 0x7F7F}, bsub[] = {0x0001, 0x8002}, bnan[] = {0xFF80, 0x7F80};
    hand(&BF16, bovf, 2, 0x7F80, "largest + largest");
    hand(&BF16, bsub, 2, 0x8001, "2^-133 - 2^-132");
    hand(&BF16, bnan, 2, 0x7FC0, "-inf + +inf");
    /* across tiles (cuda's: 4096): a prefix no double holds (2^100 + 2^-100)
     * before a tile whose sums cancel it to a tie (2^-92 + 2^-100) */
    uint16_t *far = (uint16_t *)tc_halloc(2 * 4100);
    for (size_t i = 0; i < 4100; i++) far[i] = 0x0000;
    far[0] = 0x7180;    /* 2^100 */
    far[1] = 0x0D80;    /* 2^-100 */
    far[4096] = 0xF180; /* -2^100 */
    far[4097] = 0x1180; /* 2^-92 */
    hand(&BF16, far, 4100, 0x1180, "2^100 + 2^-100 - 2^100 + 2^-92 across tiles (a tie)");
    free(far);
    /* f16 prefixes far beyond the range and back (cuda's tiles: 8192; a
     * tile prefix of 2^29 or more is its far path): 3 x 8192 + 7 times
     * 65504, as many -65504, then 5, -3, 2^-24, -2^-24, 2^-10 and +0:
     * 2 + 2^-10, a tie */
    const size_t nfar = 2 * (3 * 8192 + 7) + 6;
    uint16_t *f16far = (uint16_t *)tc_halloc(2 * nfar);
    for (size_t i = 0; i < nfar - 6; i++) f16far[i] = i < (nfar - 6) / 2 ? 0x7BFF : 0xFBFF;
    const uint16_t tail[] = {0x4500, 0xC200, 0x0001, 0x8001, 0x1400, 0x0000};
    memcpy(f16far + nfar - 6, tail, sizeof tail);
    hand(&F16, f16far, nfar, 0x4000, "65504 x 24583, -65504 x 24583, 2 + 2^-10 (a tie)");
    free(f16far);
    uint16_t *ones = (uint16_t *)tc_halloc(2 * 70000);
    for (size_t i = 0; i < 70000; i++) ones[i] = 0x3F80;
    hand(&BF16, ones, 70000, 0x4789, "70000 ones (70144)");
    free(ones);
}

/* ---- min and max ------------------------------------------------------------------------------ */
static void test_minmax(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_minmax");
    static const size_t sizes[] = {0, 1, 2, 5, 100, 4097, 70001};
    uint16_t *x = (uint16_t *)tc_halloc(2 * 70001), *got = (uint16_t *)tc_halloc(2);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int kind = 0; kind < 3; kind++) {
                const hfmt *f = fmts[fi];
                const size_t n = sizes[si];
                gen(&r, f, x, n, 0, (1 << f->ebits) - 2, kind == 2);
                if (kind == 1) /* only zeros of both signs, and one value */
                    for (size_t i = 0; i < n; i++) x[i] = i == n / 2 ? 0x0001 : tc_below(&r, 2) ? 0x8000 : 0x0000;
                for (int op = PP_MIN; op <= PP_MAX; op++) {
                    const uint16_t want = ref_minmax(f, x, n, op == PP_MAX);
                    for (size_t c = 0; c < nctx; c++) {
                        tc_case("%s %s n=%zu kind %d on %s", pp_type_name(f->type), pp_op_name((pp_op)op), n, kind,
                                pp_backend_name(pp_context_backend(ctxs[c])));
                        void *din = tc_dev_upload(ctxs[c], x, 2 * n), *dout = tc_dev_filled(ctxs[c], 2, 0xAB);
                        TC_OK(pp_reduce(ctxs[c], f->type, (pp_op)op, din, n, dout));
                        TC_DOWNLOAD(ctxs[c], got, dout, 2, "min/max");
                        TC_REQUIRE(got[0] == want, "0x%04x, want 0x%04x", got[0], want);
                        tc_dev_free(ctxs[c], din);
                        tc_dev_free(ctxs[c], dout);
                    }
                }
            }
    free(x);
    free(got);
}

/* ---- sort ------------------------------------------------------------------------------------- */
typedef struct sitem {
    uint16_t bits;
    size_t idx;
} sitem;
static const hfmt *sort_fmt;
static pp_order sort_order;

/* -1, 0, 1: bits a before, equal to, after bits b in sort_order. */
static int key_cmp(uint16_t a, uint16_t b)
{
    const int an = h_isnan(sort_fmt, a), bn = h_isnan(sort_fmt, b);
    int c = 0;
    if (an || bn) {
        c = an - bn;                             /* NaNs after every number, */
        if (sort_order == PP_DESCENDING) c = -c; /* before them in PP_DESCENDING */
    } else {
        const double va = h_value(sort_fmt, a), vb = h_value(sort_fmt, b);
        const int sa = (a & 0x8000) != 0, sb = (b & 0x8000) != 0;
        c = va < vb || (va == vb && sa && !sb) ? -1 : va > vb || (va == vb && !sa && sb) ? 1 : 0;
        if (sort_order != PP_ASCENDING) c = -c;
    }
    return c;
}

static int sort_cmp(const void *pa, const void *pb)
{
    const sitem *a = (const sitem *)pa, *b = (const sitem *)pb;
    const int c = key_cmp(a->bits, b->bits);
    if (c) return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx; /* stable */
}

/* Sort keys: gen's, with zeros of both signs, NaNs of both signs and payloads, infinities. */
static void gen_keys(tc_rng *r, const hfmt *f, uint16_t *x, size_t n)
{
    gen(r, f, x, n, 0, (1 << f->ebits) - 2, 0);
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = tc_below(r, 16);
        if (k == 0)
            x[i] = tc_below(r, 2) ? 0x8000 : 0x0000;
        else if (k == 1)
            x[i] = (uint16_t)(h_inf(f) | (tc_below(r, 2) ? 0x8000 : 0) | (1 + tc_below(r, 3)));
        else if (k == 2)
            x[i] = (uint16_t)(h_inf(f) | (tc_below(r, 2) ? 0x8000 : 0));
    }
}

/* The reference's stable sort of x (n) in order: it[] (bits, input position). */
static void ref_sort(const hfmt *f, pp_order order, const uint16_t *x, size_t n, sitem *it)
{
    for (size_t i = 0; i < n; i++) it[i].bits = x[i], it[i].idx = i;
    sort_fmt = f;
    sort_order = order;
    qsort(it, n, sizeof *it, sort_cmp);
}

/* p[i] = it[i].idx (it NULL: i) in w bytes, little-endian, for i < n. */
static void put_idx(unsigned char *p, const sitem *it, size_t n, size_t w)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t a = it ? it[i].idx : i;
        memcpy(p + i * w, &a, w);
    }
}

/* The pairs' forms on ctx against the reference's permutation it[]: the
 * values are the input positions (truncated to vs bytes), so they check
 * stability too. pp_sort_pairs in place, pp_sort_pairs_copy and
 * pp_argsort (u32 and u64 indices). */
static void check_pairs(pp_context *ctx, const hfmt *f, const uint16_t *x, const uint16_t *want, const sitem *it,
                        size_t n, pp_order order, size_t vs, uint16_t *got)
{
    unsigned char *v = tc_halloc(8 * n), *wv = tc_halloc(8 * n), *gv = tc_halloc(8 * n);
    put_idx(v, NULL, n, vs);
    put_idx(wv, it, n, vs);
    void *dk = tc_dev_upload(ctx, x, 2 * n), *dv = tc_dev_upload(ctx, v, vs * n);
    TC_OK(pp_sort_pairs(ctx, f->type, dk, dv, vs, n, order));
    TC_DOWNLOAD(ctx, got, dk, 2 * n, "pairs' keys");
    TC_EXPECT_BITS(PP_U16, got, want, n, "pp_sort_pairs keys");
    TC_DOWNLOAD(ctx, gv, dv, vs * n, "pairs' values");
    TC_REQUIRE(memcmp(gv, wv, vs * n) == 0, "pp_sort_pairs values (value_size %zu): not the stable order", vs);
    tc_dev_free(ctx, dk), tc_dev_free(ctx, dv);
    dk = tc_dev_upload(ctx, x, 2 * n), dv = tc_dev_upload(ctx, v, vs * n);
    void *ok = tc_dev_filled(ctx, 2 * n, 0xAB), *ov = tc_dev_filled(ctx, vs * n, 0xAB);
    TC_OK(pp_sort_pairs_copy(ctx, f->type, dk, dv, ok, ov, vs, n, order));
    TC_DOWNLOAD(ctx, got, ok, 2 * n, "pairs' copied keys");
    TC_EXPECT_BITS(PP_U16, got, want, n, "pp_sort_pairs_copy keys");
    TC_DOWNLOAD(ctx, gv, ov, vs * n, "pairs' copied values");
    TC_REQUIRE(memcmp(gv, wv, vs * n) == 0, "pp_sort_pairs_copy values (value_size %zu)", vs);
    TC_DOWNLOAD(ctx, got, dk, 2 * n, "pairs' keys_in");
    TC_EXPECT_BITS(PP_U16, got, x, n, "pp_sort_pairs_copy left keys_in");
    const pp_type it_type = vs == 8 ? PP_U64 : PP_U32; /* argsort: indices of 4 or 8 bytes */
    const size_t is = pp_type_size(it_type);
    put_idx(wv, it, n, is);
    tc_dev_free(ctx, ok);
    ok = tc_dev_filled(ctx, is * n, 0xAB);
    TC_OK(pp_argsort(ctx, f->type, dk, n, order, it_type, ok));
    TC_DOWNLOAD(ctx, gv, ok, is * n, "argsort");
    TC_REQUIRE(memcmp(gv, wv, is * n) == 0, "pp_argsort (%s indices)", pp_type_name(it_type));
    tc_dev_free(ctx, dk), tc_dev_free(ctx, dv), tc_dev_free(ctx, ok), tc_dev_free(ctx, ov);
    free(v), free(wv), free(gv);
}

/* pp_top_k: the first k of the reference's stable order, keys and input
 * positions (ties by position), with and without the indices. */
static void check_top_k(pp_context *ctx, const hfmt *f, const uint16_t *x, const uint16_t *want, const sitem *it,
                        size_t n, pp_order order, uint16_t *got)
{
    const size_t k = n / 3 + 1;
    uint64_t *gi = (uint64_t *)tc_halloc(8 * k);
    void *d = tc_dev_upload(ctx, x, 2 * n), *o = tc_dev_filled(ctx, 2 * k, 0xAB), *oi = tc_dev_filled(ctx, 8 * k, 0xAB);
    TC_OK(pp_top_k(ctx, f->type, d, n, k, order, o, (uint64_t *)oi));
    TC_DOWNLOAD(ctx, got, o, 2 * k, "top-k keys");
    TC_EXPECT_BITS(PP_U16, got, want, k, "pp_top_k keys");
    TC_DOWNLOAD(ctx, gi, oi, 8 * k, "top-k indices");
    for (size_t i = 0; i < k; i++)
        TC_REQUIRE(gi[i] == it[i].idx, "pp_top_k index %zu: %llu, want %zu", i, (unsigned long long)gi[i], it[i].idx);
    tc_dev_free(ctx, o);
    o = tc_dev_filled(ctx, 2 * k, 0xAB);
    TC_OK(pp_top_k(ctx, f->type, d, n, k, order, o, NULL));
    TC_DOWNLOAD(ctx, got, o, 2 * k, "top-k keys without indices");
    TC_EXPECT_BITS(PP_U16, got, want, k, "pp_top_k keys (no indices)");
    tc_dev_free(ctx, d), tc_dev_free(ctx, o), tc_dev_free(ctx, oi);
    free(gi);
}

static void test_sort(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_sort");
    static const size_t sizes[] = {2, 3, 47, 1000, 70001};
    uint16_t *x = (uint16_t *)tc_halloc(2 * 70001), *want = (uint16_t *)tc_halloc(2 * 70001);
    uint16_t *got = (uint16_t *)tc_halloc(2 * 70001);
    sitem *it = (sitem *)malloc(70001 * sizeof *it);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int order = PP_ASCENDING; order <= PP_DESCENDING_NAN_LAST; order++) {
                const hfmt *f = fmts[fi];
                const size_t n = sizes[si];
                gen_keys(&r, f, x, n);
                ref_sort(f, (pp_order)order, x, n, it);
                for (size_t i = 0; i < n; i++) want[i] = it[i].bits;
                for (size_t c = 0; c < nctx; c++) {
                    pp_context *ctx = ctxs[c];
                    tc_case("%s sort n=%zu order %d on %s", pp_type_name(f->type), n, order,
                            pp_backend_name(pp_context_backend(ctx)));
                    void *d = tc_dev_upload(ctx, x, 2 * n), *o = tc_dev_filled(ctx, 2 * n, 0xAB);
                    TC_OK(pp_sort_copy(ctx, f->type, d, o, n, (pp_order)order));
                    TC_DOWNLOAD(ctx, got, o, 2 * n, "sorted copy");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "pp_sort_copy");
                    TC_OK(pp_sort(ctx, f->type, d, n, (pp_order)order));
                    TC_DOWNLOAD(ctx, got, d, 2 * n, "sorted");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "pp_sort");
                    check_pairs(ctx, f, x, want, it, n, (pp_order)order, (size_t)1 << ((si + order) % 4), got);
                    tc_dev_free(ctx, d), tc_dev_free(ctx, o);
                    check_top_k(ctx, f, x, want, it, n, (pp_order)order, got);
                }
            }
    free(x);
    free(want);
    free(got);
    free(it);
}

/* ---- search and merge: on sorted keys (the reference's), queries of the keys and of random bits ---- */
/* pp_segmented_sort and pp_segmented_sort_pairs (u32 values: the input
 * positions) in every order, over random segments that leave a head and a
 * tail of the keys outside every segment (untouched). */
static void test_segmented_sort(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_segsort");
    static const size_t sizes[] = {1, 2, 37, 3001};
    uint16_t *x = (uint16_t *)tc_halloc(2 * 3001), *want = (uint16_t *)tc_halloc(2 * 3001);
    uint16_t *got = (uint16_t *)tc_halloc(2 * 3001);
    uint32_t *v = (uint32_t *)tc_halloc(4 * 3001), *wv = (uint32_t *)tc_halloc(4 * 3001);
    uint32_t *gv = (uint32_t *)tc_halloc(4 * 3001);
    uint64_t *off = (uint64_t *)tc_halloc(8 * 3003);
    sitem *it = (sitem *)tc_halloc(sizeof(sitem) * 3001);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (int fi = 0; fi < 2; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const hfmt *f = fmts[fi];
            const size_t n = sizes[si];
            gen_keys(&r, f, x, n);
            const size_t nseg = gen_segments(&r, n, off, 2 + n / 3, 1);
            for (size_t i = 0; i < n; i++) v[i] = (uint32_t)i;
            for (int order = 0; order < 3; order++) {
                memcpy(want, x, 2 * n);
                memcpy(wv, v, 4 * n);
                for (size_t sg = 0; sg < nseg; sg++) {
                    const size_t b = off[sg], len = off[sg + 1] - b;
                    ref_sort(f, (pp_order)order, x + b, len, it);
                    for (size_t i = 0; i < len; i++) {
                        want[b + i] = it[i].bits;
                        wv[b + i] = (uint32_t)(b + it[i].idx);
                    }
                }
                for (size_t c = 0; c < nctx; c++) {
                    pp_context *ctx = ctxs[c];
                    tc_case("%s order %d n=%zu nseg=%zu on %s", pp_type_name(f->type), order, n, nseg,
                            pp_backend_name(pp_context_backend(ctx)));
                    void *dk = tc_dev_upload(ctx, x, 2 * n), *dv = tc_dev_upload(ctx, v, 4 * n);
                    void *doff = tc_dev_upload(ctx, off, 8 * (nseg + 1));
                    TC_OK(pp_segmented_sort_pairs(ctx, f->type, dk, dv, 4, n, (const uint64_t *)doff, nseg,
                                                  (pp_order)order));
                    TC_DOWNLOAD(ctx, got, dk, 2 * n, "keys");
                    TC_DOWNLOAD(ctx, gv, dv, 4 * n, "values");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "segmented sort's keys");
                    TC_EXPECT_BITS(PP_U32, gv, wv, n, "segmented sort's values");
                    tc_dev_free(ctx, dk);
                    dk = tc_dev_upload(ctx, x, 2 * n);
                    TC_OK(pp_segmented_sort(ctx, f->type, dk, n, (const uint64_t *)doff, nseg, (pp_order)order));
                    TC_DOWNLOAD(ctx, got, dk, 2 * n, "keys");
                    TC_EXPECT_BITS(PP_U16, got, want, n, "segmented sort's keys (keys only)");
                    tc_dev_free(ctx, dk);
                    tc_dev_free(ctx, dv);
                    tc_dev_free(ctx, doff);
                }
            }
        }
    void *const hb[8] = {x, want, got, v, wv, gv, off, it};
    for (int i = 0; i < 8; i++) free(hb[i]);
}

static void test_search_merge(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("half_search");
    enum { N = 3001, M = 300 };
    static const size_t sizes[] = {0, 1, 7, 256, N};
    uint16_t *x = tc_halloc(2 * N), *runs = tc_halloc(2 * N), *fs = tc_halloc(2 * N), *q = tc_halloc(2 * M);
    uint16_t *got = tc_halloc(2 * N);
    uint64_t *lo = tc_halloc(8 * M), *hi = tc_halloc(8 * M), *gl = tc_halloc(8 * M);
    uint32_t *v = tc_halloc(4 * N), *gv = tc_halloc(4 * N), *wv = tc_halloc(4 * N);
    sitem *it = (sitem *)malloc(N * sizeof *it);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (size_t t = 0; t < 2 * 3 * sizeof sizes / sizeof sizes[0]; t++) { /* format, order, size */
        const hfmt *f = fmts[t % 2];
        const int order = (int)(t / 2 % 3);
        const pp_order o = (pp_order)order;
        const size_t n = sizes[t / 6], na = n / 3;
        gen_keys(&r, f, x, n);
        gen_keys(&r, f, q, M);
        for (size_t j = 0; n && j < M; j += 2) q[j] = x[tc_below(&r, n)];
        /* runs = x[0, na) sorted, then x[na, n) sorted (values: positions in x) */
        ref_sort(f, o, x, na, it);
        ref_sort(f, o, x + na, n - na, it + na);
        for (size_t i = 0; i < n; i++) runs[i] = it[i].bits, v[i] = (uint32_t)(it[i].idx + (i < na ? 0 : na));
        ref_sort(f, o, x, n, it); /* fs: the sort of x, and the merge of the runs */
        for (size_t i = 0; i < n; i++) fs[i] = it[i].bits, wv[i] = (uint32_t)it[i].idx;
        for (size_t j = 0; j < M; j++) { /* the keys before q[j] (or equal to it) */
            lo[j] = hi[j] = 0;
            for (size_t i = 0; i < n; i++) lo[j] += key_cmp(x[i], q[j]) < 0, hi[j] += key_cmp(x[i], q[j]) <= 0;
        }
        for (size_t c = 0; c < nctx; c++) {
            pp_context *ctx = ctxs[c];
            tc_case("%s search/merge n=%zu order %d on %s", pp_type_name(f->type), n, order,
                    pp_backend_name(pp_context_backend(ctx)));
            void *ds = tc_dev_upload(ctx, fs, 2 * n + 2), *dq = tc_dev_upload(ctx, q, 2 * M);
            void *da = tc_dev_upload(ctx, runs, 2 * na + 2), *db = tc_dev_upload(ctx, runs + na, 2 * (n - na) + 2);
            void *dva = tc_dev_upload(ctx, v, 4 * na + 4), *dvb = tc_dev_upload(ctx, v + na, 4 * (n - na) + 4);
            void *out = tc_dev_filled(ctx, 8 * M, 0xAB), *ok = tc_dev_filled(ctx, n ? 2 * n : 2, 0xAB);
            void *ov = tc_dev_filled(ctx, n ? 4 * n : 4, 0xAB);
            for (int up = 0; up < 2; up++) {
                const pp_status st = up ? pp_upper_bound(ctx, f->type, ds, n, o, dq, M, out)
                                        : pp_lower_bound(ctx, f->type, ds, n, o, dq, M, out);
                TC_REQUIRE(st == PP_SUCCESS, "%s bound: %s", up ? "upper" : "lower", pp_last_error(ctx));
                TC_DOWNLOAD(ctx, gl, out, 8 * M, "bounds");
                TC_EXPECT_BITS(PP_U64, gl, up ? hi : lo, M, up ? "pp_upper_bound" : "pp_lower_bound");
            }
            if (n) {
                TC_OK(pp_merge_pairs(ctx, f->type, da, dva, na, db, dvb, n - na, 4, ok, ov, o));
                TC_DOWNLOAD(ctx, got, ok, 2 * n, "merged keys");
                TC_EXPECT_BITS(PP_U16, got, fs, n, "pp_merge_pairs keys");
                TC_DOWNLOAD(ctx, gv, ov, 4 * n, "merged values");
                TC_EXPECT_BITS(PP_U32, gv, wv, n, "pp_merge_pairs values (stable: a first)");
                TC_OK(pp_merge(ctx, f->type, da, na, db, n - na, ok, o));
                TC_DOWNLOAD(ctx, got, ok, 2 * n, "merged keys");
                TC_EXPECT_BITS(PP_U16, got, fs, n, "pp_merge");
            }
            void *const bufs[9] = {ds, dq, da, db, dva, dvb, out, ok, ov};
            for (int b = 0; b < 9; b++) tc_dev_free(ctx, bufs[b]);
        }
    }
    void *const hbufs[12] = {x, runs, fs, q, got, lo, hi, gl, v, gv, wv, it};
    for (int b = 0; b < 12; b++) free(hbufs[b]);
}

/* ---- calls not covered yet -------------------------------------------------------------------- */
static void refused(pp_context *ctx, pp_status st, const char *fn, pp_type t)
{
    const char *msg = pp_last_error(ctx);
    TC_REQUIRE(st == PP_ERROR_UNSUPPORTED && strstr(msg, fn) && strstr(msg, pp_type_name(t)),
               "%s with %s returned %s: %s", fn, pp_type_name(t), pp_status_string(st), msg);
}

static void test_refused(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    const uint16_t x[4] = {0x3C00, 0x4000, 0x4200, 0x3C00};
    unsigned char *got = (unsigned char *)tc_halloc(64), want[64];
    memset(want, 0xAB, sizeof want);
    for (size_t c = 0; c < nctx; c++)
        for (int fi = 0; fi < 2; fi++) {
            pp_context *ctx = ctxs[c];
            const pp_type t = fmts[fi]->type;
            tc_case("%s on %s", pp_type_name(t), pp_backend_name(pp_context_backend(ctx)));
            void *d = tc_dev_upload(ctx, x, sizeof x), *o = tc_dev_filled(ctx, 64, 0xAB);
            uint64_t *counts = (uint64_t *)tc_dev_filled(ctx, 4 * sizeof(uint64_t), 0xAB);
            refused(ctx, pp_segmented_reduce(ctx, t, PP_PROD, d, 4, counts, 2, o), "pp_segmented_reduce", t);
            refused(ctx, pp_reduce(ctx, t, PP_PROD, d, 4, o), "pp_reduce", t);
            refused(ctx, pp_scan(ctx, t, PP_PROD, PP_INCLUSIVE, d, o, 4), "pp_scan", t);
            refused(ctx, pp_reduce_to(ctx, t, t, PP_PROD, d, 4, o), "pp_reduce_to", t);
            refused(ctx, pp_scan_to(ctx, t, t, PP_PROD, PP_INCLUSIVE, d, o, 4), "pp_scan_to", t);
            TC_DOWNLOAD(ctx, got, o, 64, "untouched output");
            TC_REQUIRE(memcmp(got, want, 64) == 0, "a refused call wrote its output");
            tc_dev_free(ctx, d);
            tc_dev_free(ctx, o);
            tc_dev_free(ctx, counts);
        }
    free(got);
    TC_REQUIRE(pp_type_size(PP_F16) == 2 && pp_type_size(PP_BF16) == 2, "pp_type_size of the half types");
    TC_REQUIRE(strcmp(pp_type_name(PP_F16), "f16") == 0 && strcmp(pp_type_name(PP_BF16), "bf16") == 0,
               "pp_type_name of the half types");
}

int main(void)
{
    tc_init("test_half");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_refused),        cmocka_unit_test(test_hand),
                                       cmocka_unit_test(test_minmax),         cmocka_unit_test(test_sort),
                                       cmocka_unit_test(test_search_merge),   cmocka_unit_test(test_sums),
                                       cmocka_unit_test(test_segmented_sums), cmocka_unit_test(test_segmented_sort),
                                       cmocka_unit_test(test_scan_init_sums), cmocka_unit_test(test_bykey_sums)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
