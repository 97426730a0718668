/* Exact sums as values (parprim.h: pp_exact_accumulate, pp_exact_merge,
 * pp_exact_round), against the independent reference of exact_ref.c:
 *   pieces     an array cut at random points (empty pieces included),
 *              each piece accumulated on every configuration (cpu with 1,
 *              2 and 3 threads, opencl; every reduce algorithm, since the
 *              call ignores the choice), the sums merged in a shuffled
 *              order, and also added one after another into one sum: the
 *              words equal the reference's integer and flags (built here
 *              from exact_ref's digits, apart from the library), the
 *              rounding equals the reference's bits and the exact
 *              pp_reduce's;
 *   hand       merges and roundings at the edges, each piece its own sum,
 *              merged in every order: cancellation, partial sums that
 *              overflow, ties at the top, NaN and infinities across
 *              pieces, every sign of zero, the empty sum, f32 double
 *              rounding, merging a sum with itself;
 *   range      the largest sums: doubling until the range ends
 *              (PP_ERROR_UNSUPPORTED, the sum unchanged), the extreme
 *              states;
 *   malformed  every kind of bad state, as 'sum' and as 'other', and
 *              random words: PP_ERROR_INVALID_ARGUMENT naming the call,
 *              the argument and the word, nothing written, never a crash;
 *   types      integer types (PP_ERROR_UNSUPPORTED) and values outside
 *              pp_type (test_errors has the other bad arguments). */
#include "test_common.h"
#include "exact_data.h"
#include "exact_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int quick(void) { return getenv("PARPRIM_TEST_QUICK") != NULL; }

static pp_type type_of(int is_f64) { return is_f64 ? PP_F64 : PP_F32; }

/* ---- the reference's sum as the words of a pp_exact_sum ----------------------------------------
 * docs/exact.md: M in 32-bit chunks of two's complement with the sign in
 * the top chunk (n = 68 or 10), then the flags NAN 1, PINF 2, NINF 4,
 * NOT_NEG0 8, NONEMPTY 16, then 0. exact_ref keeps M as two magnitudes of
 * 16-bit digits: their difference, in two's complement, cut into chunks. */
static void ref_words(const xref *x, int is_f64, pp_exact_sum *s)
{
    const int n = is_f64 ? 68 : 10;
    uint32_t d[XR_DIGITS];
    int64_t borrow = 0;
    for (int k = 0; k < XR_DIGITS; k++) {
        int64_t v = (int64_t)x->pos[k] - x->neg[k] - borrow;
        borrow = v < 0;
        d[k] = (uint32_t)(v + (borrow ? 0x10000 : 0)); /* a negative M ends in digits 0xffff */
    }
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n - 1; i++) s->word[i] = (int64_t)(d[2 * i] | (uint64_t)d[2 * i + 1] << 16);
    uint64_t top = 0;
    for (int j = 0; j < 4; j++) top |= (uint64_t)d[2 * (n - 1) + j] << (16 * j);
    s->word[n - 1] = (int64_t)top; /* small: the digits above it are the sign's */
    s->word[n] = (x->nan ? 1 : 0) | (x->pinf ? 2 : 0) | (x->ninf ? 4 : 0) |
                 (x->any && !x->only_neg_zero ? 8 : 0) | (x->any ? 16 : 0);
}

static uint64_t ref_bits(const xref *x, int is_f64) { return is_f64 ? xref_bits_f64(x) : xref_bits_f32(x); }

static uint64_t round_bits(int is_f64, const pp_exact_sum *s)
{
    uint64_t b = 0;
    uint32_t b32 = 0;
    TC_OK(pp_exact_round(type_of(is_f64), s, is_f64 ? (void *)&b : (void *)&b32));
    return is_f64 ? b : b32;
}

static void expect_words(const pp_exact_sum *got, const pp_exact_sum *want, const char *what)
{
    for (int i = 0; i < PP_EXACT_WORDS; i++)
        if (got->word[i] != want->word[i])
            TC_FAIL("%s: word %d is %lld, the reference's %lld", what, i, (long long)got->word[i],
                    (long long)want->word[i]);
}

static void shuffle(tc_rng *r, size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = tc_below(r, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* ---- pieces ------------------------------------------------------------------------------------- */
#define MAX_PIECES 7

/* One input on one configuration: cut, accumulated, merged, checked. */
static void run_pieces(tc_rng *r, const tc_config *c, int is_f64, const void *packed, size_t n, const xref *x,
                       const char *label)
{
    pp_context *ctx = c->ctx;
    const pp_type t = type_of(is_f64);
    const size_t sz = is_f64 ? 8 : 4;
    pp_exact_sum want, whole, parts[MAX_PIECES], merged, running;
    ref_words(x, is_f64, &want);
    const uint64_t want_bits = n ? ref_bits(x, is_f64) : 0;

    /* cut points: pieces of random sizes, some empty */
    size_t np = 1 + tc_below(r, MAX_PIECES), cut[MAX_PIECES + 1], order[MAX_PIECES];
    cut[0] = 0;
    cut[np] = n;
    for (size_t i = 1; i < np; i++) cut[i] = tc_below(r, 4) == 0 ? cut[i - 1] : cut[i - 1] + tc_below(r, n - cut[i - 1] + 1);
    tc_case("%s type=%s data=%s n=%zu pieces=%zu", tc_config_name(c), pp_type_name(t), label, n, np);

    memset(&whole, 0, sizeof whole);
    memset(&running, 0, sizeof running);
    void *din = n ? tc_dev_upload(ctx, packed, n * sz) : NULL;
    pp_status st = pp_exact_accumulate(ctx, t, din, n, &whole);
    tc_dev_free(ctx, din);
    if (st == PP_ERROR_UNSUPPORTED && pp_context_backend(ctx) != PP_BACKEND_CPU) {
        tc_skip(NULL, "%s: pp_exact_accumulate: %s", pp_backend_name(pp_context_backend(ctx)), pp_last_error(ctx));
        return;
    }
    TC_REQUIRE(st == PP_SUCCESS, "pp_exact_accumulate of the whole array returned %s: %s", pp_status_string(st),
               pp_last_error(ctx));
    expect_words(&whole, &want, "the whole array's sum");

    for (size_t i = 0; i < np; i++) {
        const size_t len = cut[i + 1] - cut[i];
        /* a buffer of its own per piece: opencl handles take no offsets */
        void *d = len ? tc_dev_upload(ctx, (const char *)packed + cut[i] * sz, len * sz) : NULL;
        memset(&parts[i], 0, sizeof parts[i]);
        TC_OK(pp_exact_accumulate(ctx, t, d, len, &parts[i]));
        TC_OK(pp_exact_accumulate(ctx, t, d, len, &running)); /* sum += piece, in order */
        tc_dev_free(ctx, d);
        order[i] = i;
    }
    shuffle(r, order, np);
    memset(&merged, 0, sizeof merged);
    for (size_t i = 0; i < np; i++) TC_OK(pp_exact_merge(t, &merged, &parts[order[i]]));
    expect_words(&merged, &want, "the pieces' sums merged in a shuffled order");
    expect_words(&running, &want, "the pieces accumulated into one sum");
    uint64_t got = round_bits(is_f64, &merged);
    TC_REQUIRE(got == want_bits, "pp_exact_round: bits 0x%llx, the reference's 0x%llx", (unsigned long long)got,
               (unsigned long long)want_bits);

    /* and the exact pp_reduce of the whole array on the same context */
    const pp_algorithm algo = pp_get_algorithm(ctx, PP_PRIM_REDUCE);
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT));
    void *dv = n ? tc_dev_upload(ctx, packed, n * sz) : NULL, *dout = tc_dev_filled(ctx, sz, 0x5A);
    unsigned char host[8 + TC_GUARD];
    TC_OK(pp_reduce(ctx, t, PP_SUM, dv, n, dout));
    TC_DOWNLOAD(ctx, host, dout, sz, "reduce");
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, algo));
    uint64_t red = 0;
    memcpy(&red, host, sz);
    TC_REQUIRE(red == got, "exact pp_reduce: bits 0x%llx, pp_exact_round of the merged pieces 0x%llx",
               (unsigned long long)red, (unsigned long long)got);
    tc_dev_free(ctx, dv);
    tc_dev_free(ctx, dout);
}

static void pieces(int is_f64)
{
    static const int sets[] = {EXACT_CANCELLATION, EXACT_FULL_RANGE, EXACT_PARTIAL_OVERFLOW, EXACT_SPECIALS,
                               EXACT_ZEROS, 0, 3, 6, 9, 10};
    static const size_t sizes[] = {0, 1, 3, 1000, 20011, 100003};
    tc_rng r = tc_rng_for(is_f64 ? "exact_sum_pieces_f64" : "exact_sum_pieces_f32");
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg), ns = sizeof sizes / sizeof sizes[0];
    const size_t sz = is_f64 ? 8 : 4;
    double *v = (double *)malloc(sizes[ns - 1] * sizeof *v + 8);
    void *packed = malloc(sizes[ns - 1] * sz + 8);
    for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++)
        for (size_t k = 0; k < ns; k++) {
            const size_t n = sizes[k];
            if (quick() && n > 20011) continue;
            exact_gen(&r, is_f64, sets[si], n, v);
            exact_pack(is_f64, v, n, packed);
            xref x;
            xref_init(&x, is_f64);
            for (size_t i = 0; i < n; i++) xref_add(&x, v[i], 1);
            for (size_t ci = 0; ci < ncfg; ci++) {
                if (is_f64 && !tc_need_f64(cfg[ci].ctx, "exact sums of f64")) continue;
                tc_use(&cfg[ci], PP_PRIM_REDUCE);
                run_pieces(&r, &cfg[ci], is_f64, packed, n, &x, exact_set_names[sets[si]]);
                pp_set_algorithm(cfg[ci].ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
            }
        }
    free(v);
    free(packed);
}

static void test_pieces(void **state)
{
    (void)state;
    pieces(0);
    pieces(1);
}

/* ---- hand-made merges ------------------------------------------------------------------------------ */
/* A cpu context for host data (the cases below pass host arrays). */
static pp_context *cpu_context(void)
{
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CPU;
    o.threads = 2;
    pp_context *ctx = NULL;
    TC_OK(pp_create(&ctx, &o));
    return ctx;
}

/* The sum of host values (a cpu context: host memory). */
static void sum_of(pp_context *ctx, int is_f64, const double *v, size_t n, pp_exact_sum *s)
{
    unsigned char buf[8 * 8];
    exact_pack(is_f64, v, n, buf);
    memset(s, 0, sizeof *s);
    TC_OK(pp_exact_accumulate(ctx, type_of(is_f64), n ? buf : NULL, n, s));
}

/* Pieces (each up to 8 values, given as n[i] values from v) summed apart,
 * merged in every order of up to 4 pieces and as a tree: the same words
 * every time, the reference's words and bits, and want. */
static void hand(pp_context *ctx, int is_f64, const double *v, const size_t *n, size_t np, double want,
                 const char *label)
{
    pp_exact_sum parts[4], ref, first;
    xref x;
    xref_init(&x, is_f64);
    tc_case("hand %s: %s", is_f64 ? "f64" : "f32", label);
    for (size_t i = 0, at = 0; i < np; at += n[i], i++) {
        sum_of(ctx, is_f64, v + at, n[i], &parts[i]);
        for (size_t j = 0; j < n[i]; j++) xref_add(&x, v[at + j], 1);
    }
    ref_words(&x, is_f64, &ref);
    const uint64_t want_bits = ref_bits(&x, is_f64);
    uint64_t hand_bits = 0;
    if (is_f64) memcpy(&hand_bits, &want, 8);
    else {
        float f = (float)want;
        memcpy(&hand_bits, &f, 4);
    }
    if (isnan(want)) hand_bits = is_f64 ? 0x7ff8000000000000ull : 0x7fc00000u;
    TC_REQUIRE(want_bits == hand_bits, "the reference gives 0x%llx, the case expects 0x%llx",
               (unsigned long long)want_bits, (unsigned long long)hand_bits);
    /* every permutation, by the factorial number system */
    size_t nperm = 1;
    for (size_t i = 2; i <= np; i++) nperm *= i;
    for (size_t p = 0; p < nperm; p++) {
        size_t left[4] = {0, 1, 2, 3}, q = p, cnt = np;
        pp_exact_sum s;
        memset(&s, 0, sizeof s);
        for (size_t i = 0; i < np; i++, cnt--) {
            size_t k = q % cnt;
            q /= cnt;
            TC_OK(pp_exact_merge(type_of(is_f64), &s, &parts[left[k]]));
            left[k] = left[cnt - 1];
        }
        if (p == 0) first = s;
        expect_words(&s, &ref, "merged pieces");
        TC_REQUIRE(round_bits(is_f64, &s) == want_bits, "order %zu: rounded to 0x%llx, expected 0x%llx", p,
                   (unsigned long long)round_bits(is_f64, &s), (unsigned long long)want_bits);
    }
    if (np == 4) { /* (0 + 1) + (2 + 3) */
        pp_exact_sum a = parts[0], b = parts[2];
        TC_OK(pp_exact_merge(type_of(is_f64), &a, &parts[1]));
        TC_OK(pp_exact_merge(type_of(is_f64), &b, &parts[3]));
        TC_OK(pp_exact_merge(type_of(is_f64), &a, &b));
        expect_words(&a, &first, "a tree of merges");
    }
}

static void test_hand(void **state)
{
    (void)state;
    pp_context *ctx = cpu_context();
    const double maxd = DBL_MAX, maxf = FLT_MAX, tiny = 0x1p-1074;
    /* HAND(f64, want, {piece sizes}, values...) */
#define HAND(f64, want, NS, ...)                                                                   \
    do {                                                                                           \
        const double v_[] = {0.0, __VA_ARGS__};                                                    \
        const size_t n_[] = NS;                                                                    \
        hand(ctx, f64, v_ + 1, n_, sizeof n_ / sizeof n_[0], want, #NS " " #__VA_ARGS__);          \
    } while (0)
#define P(...) {__VA_ARGS__}
    HAND(1, 1.0, P(1, 1, 1), 0x1p1000, 1.0, -0x1p1000);                 /* cancellation across pieces */
    HAND(1, 0x1p-1074, P(2, 1, 1), 0x1p1000, 0x1p-1074, -0x1p1000, 0.0); /* the last unit survives */
    HAND(1, 0x1p-52, P(2, 2), 0x1p100, 0x1p-53, 0x1p-53, -0x1p100);
    HAND(1, maxd, P(1, 1, 1), maxd, maxd, -maxd);                        /* partial sums overflow */
    HAND(1, INFINITY, P(1, 1), maxd, maxd);                              /* the total does */
    HAND(1, -INFINITY, P(1, 1, 1, 1), -maxd, -maxd, maxd, -maxd);
    HAND(1, INFINITY, P(1, 1), maxd, 0x1p970);                           /* tie at the top: to infinity */
    HAND(1, maxd, P(1, 1), maxd, 0x1p969);
    HAND(1, 1.0, P(1, 1), 1.0, 0x1p-53);                                 /* tie: to even */
    HAND(1, 1.0 + 0x1p-52, P(1, 1, 1), 1.0, 0x1p-53, 0x1p-105);          /* just above it */
    HAND(1, 2 * tiny, P(1, 1), tiny, tiny);
    HAND(1, NAN, P(1, 1), 1.0, NAN);
    HAND(1, NAN, P(1, 1, 1), INFINITY, 1.0, -INFINITY);                  /* both infinities, apart */
    HAND(1, INFINITY, P(1, 2), INFINITY, -maxd, -maxd);
    HAND(1, -INFINITY, P(1, 1), -INFINITY, -INFINITY);
    HAND(1, -0.0, P(1, 1), -0.0, -0.0);                                  /* zeros: every sign */
    HAND(1, -0.0, P(0, 1, 0), -0.0);
    HAND(1, 0.0, P(0, 0));                                               /* the empty sum */
    HAND(1, 0.0, P(1, 1), -0.0, 0.0);
    HAND(1, 0.0, P(1, 1, 2), 1.0, -1.0, -0.0, -0.0);
    HAND(1, 0.0, P(1, 1, 1, 1), -0.0, 0x1p-1074, -0.0, -0x1p-1074);
    HAND(0, 1.0f, P(1, 1), 1.0, 0x1p-24);
    HAND(0, 1.0f + 0x1p-23, P(1, 1, 1), 1.0, 0x1p-24, 0x1p-80);          /* no double rounding */
    HAND(0, (float)maxf, P(1, 1, 1), maxf, maxf, -maxf);
    HAND(0, INFINITY, P(1, 1), maxf, 0x1p103);
    HAND(0, 0x1p-148, P(1, 1), 0x1p-149, 0x1p-149);
    HAND(0, -0.0, P(1, 0, 1), -0.0, -0.0);
    HAND(0, 0.0, P(0));
    HAND(0, NAN, P(1, 1), -INFINITY, INFINITY);
#undef P
#undef HAND

    /* a sum merged with itself doubles */
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        tc_case("merging a %s sum with itself", is_f64 ? "f64" : "f32");
        const double three = 3.0;
        pp_exact_sum s;
        sum_of(ctx, is_f64, &three, 1, &s);
        TC_OK(pp_exact_merge(type_of(is_f64), &s, &s));
        double back = 0;
        float backf = 0;
        TC_OK(pp_exact_round(type_of(is_f64), &s, is_f64 ? (void *)&back : (void *)&backf));
        TC_REQUIRE((is_f64 ? back : backf) == 6.0, "3 merged with itself rounds to %g", is_f64 ? back : backf);
    }
    pp_destroy(ctx);
}

/* ---- the range ------------------------------------------------------------------------------------ */
static void test_range(void **state)
{
    (void)state;
    pp_context *ctx = cpu_context();
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        const pp_type t = type_of(is_f64);
        const int n = is_f64 ? 68 : 10;
        const double max = is_f64 ? DBL_MAX : FLT_MAX;
        tc_case("%s: doubling the largest value until the range ends", pp_type_name(t));
        pp_exact_sum s, before;
        sum_of(ctx, is_f64, &max, 1, &s);
        int doublings = 0;
        pp_status st;
        for (;;) {
            before = s;
            if ((st = pp_exact_merge(t, &s, &s)) != PP_SUCCESS) break;
            doublings++;
            TC_REQUIRE(doublings < 200, "the range never ends");
        }
        /* parprim.h: 2^108 (f32: 2^73) times the largest value fit, and no more */
        TC_REQUIRE(st == PP_ERROR_UNSUPPORTED, "the merge beyond the range returned %s", pp_status_string(st));
        TC_REQUIRE(doublings == (is_f64 ? 108 : 73), "%d doublings of the largest %s fit", doublings, pp_type_name(t));
        TC_REQUIRE(strstr(pp_last_error(NULL), "pp_exact_merge") && strstr(pp_last_error(NULL), "range"),
                   "message \"%s\"", pp_last_error(NULL));
        expect_words(&s, &before, "a merge beyond the range left the sum");
        TC_REQUIRE(round_bits(is_f64, &s) == (is_f64 ? 0x7ff0000000000000ull : 0x7f800000u), "rounded: not +inf");

        tc_case("%s: the extreme states", pp_type_name(t));
        pp_exact_sum top, one, neg;
        memset(&top, 0, sizeof top);
        for (int i = 0; i < n - 1; i++) top.word[i] = 0xffffffff;
        top.word[n - 1] = ((int64_t)1 << 62) - 1;
        top.word[n] = 8 | 16;
        const double unit = is_f64 ? 0x1p-1074 : 0x1p-149;
        sum_of(ctx, is_f64, &unit, 1, &one);
        TC_REQUIRE(round_bits(is_f64, &top) == (is_f64 ? 0x7ff0000000000000ull : 0x7f800000u), "top: not +inf");
        before = top;
        TC_REQUIRE(pp_exact_merge(t, &top, &one) == PP_ERROR_UNSUPPORTED, "top + 1 unit: not beyond the range");
        expect_words(&top, &before, "the failed merge");
        unsigned char h[8];
        exact_pack(is_f64, &unit, 1, h);
        pp_status sa = pp_exact_accumulate(ctx, t, h, 1, &top);
        TC_REQUIRE(sa == PP_ERROR_UNSUPPORTED && strstr(pp_last_error(ctx), "pp_exact_accumulate"),
                   "pp_exact_accumulate beyond the range returned %s: %s", pp_status_string(sa), pp_last_error(ctx));
        expect_words(&top, &before, "the failed pp_exact_accumulate");
        /* the lowest state: -(2^62 - 1) * 2^(32 (n-1)), one unit below is outside */
        memset(&neg, 0, sizeof neg);
        neg.word[n - 1] = -(((int64_t)1 << 62) - 1);
        neg.word[n] = 8 | 16;
        TC_REQUIRE(round_bits(is_f64, &neg) == (is_f64 ? 0xfff0000000000000ull : 0xff800000u), "bottom: not -inf");
        pp_exact_sum mone;
        const double munit = -unit;
        sum_of(ctx, is_f64, &munit, 1, &mone);
        TC_REQUIRE(pp_exact_merge(t, &neg, &mone) == PP_ERROR_UNSUPPORTED, "bottom - 1 unit: not beyond the range");
        TC_OK(pp_exact_merge(t, &neg, &one)); /* and back inside */
        TC_OK(pp_exact_merge(t, &top, &neg)); /* the extremes cancel but for one unit and the top chunks */
    }
    pp_destroy(ctx);
}

/* ---- malformed states ------------------------------------------------------------------------------ */
/* A rejected call: PP_ERROR_INVALID_ARGUMENT, a message naming the call,
 * the argument and the word (or the flags). */
static void expect_invalid(pp_status st, const char *msg, const char *fn, const char *arg, const char *what)
{
    TC_REQUIRE(st == PP_ERROR_INVALID_ARGUMENT, "%s: %s with it as %s returned %s (\"%s\")", what, fn, arg,
               pp_status_string(st), msg);
    TC_REQUIRE(strstr(msg, fn) && strstr(msg, arg) && (strstr(msg, "word") || strstr(msg, "flags")),
               "%s: %s's message \"%s\" does not name the call, %s and the word", what, fn, msg, arg);
}

/* Every call that takes bad rejects it, and writes nothing. */
static void expect_rejected(pp_context *ctx, pp_type t, const pp_exact_sum *bad, const char *what)
{
    pp_exact_sum ok, s = *bad;
    memset(&ok, 0, sizeof ok);
    ok.word[t == PP_F64 ? 68 : 10] = 16; /* a sum of -0.0: valid */
    const pp_exact_sum ok0 = ok;
    expect_invalid(pp_exact_merge(t, &s, &ok), pp_last_error(NULL), "pp_exact_merge", "'sum'", what);
    TC_REQUIRE(memcmp(&s, bad, sizeof s) == 0, "%s: pp_exact_merge wrote a rejected 'sum'", what);
    expect_invalid(pp_exact_merge(t, &ok, bad), pp_last_error(NULL), "pp_exact_merge", "'other'", what);
    TC_REQUIRE(memcmp(&ok, &ok0, sizeof ok) == 0, "%s: a failed pp_exact_merge changed 'sum'", what);
    unsigned char out[8], out0[8];
    memset(out, 0x5A, sizeof out);
    memcpy(out0, out, sizeof out);
    expect_invalid(pp_exact_round(t, bad, out), pp_last_error(NULL), "pp_exact_round", "'sum'", what);
    TC_REQUIRE(memcmp(out, out0, sizeof out) == 0, "%s: a failed pp_exact_round wrote 'out'", what);
    const double one = 1.0;
    unsigned char x[8];
    exact_pack(t == PP_F64, &one, 1, x);
    expect_invalid(pp_exact_accumulate(ctx, t, x, 1, &s), pp_last_error(ctx), "pp_exact_accumulate", "'sum'", what);
    TC_REQUIRE(memcmp(&s, bad, sizeof s) == 0, "%s: pp_exact_accumulate wrote a rejected 'sum'", what);
}

static void test_malformed(void **state)
{
    (void)state;
    pp_context *ctx = cpu_context();
    tc_rng r = tc_rng_for("exact_sum_malformed");
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        const pp_type t = type_of(is_f64);
        const int n = is_f64 ? 68 : 10;
        const double vals[3] = {-0x1.8p100, 0x1.23456789p-30, 7.0};
        pp_exact_sum good, bad;
        sum_of(ctx, is_f64, vals, 3, &good);
        tc_case("%s: malformed states", pp_type_name(t));
        static const int64_t chunk_bad[] = {-1, (int64_t)1 << 32, INT64_MAX, INT64_MIN};
        for (size_t k = 0; k < sizeof chunk_bad / sizeof chunk_bad[0]; k++) {
            bad = good;
            bad.word[tc_below(&r, (uint64_t)n - 1)] = chunk_bad[k];
            expect_rejected(ctx, t, &bad, "a chunk outside [0, 2^32)");
        }
        static const int64_t top_bad[] = {(int64_t)1 << 62, -((int64_t)1 << 62), INT64_MAX, INT64_MIN};
        for (size_t k = 0; k < sizeof top_bad / sizeof top_bad[0]; k++) {
            bad = good;
            bad.word[n - 1] = top_bad[k];
            expect_rejected(ctx, t, &bad, "a top chunk beyond the range");
        }
        static const int64_t flags_bad[] = {32, -1, 1 << 20, INT64_MIN};
        for (size_t k = 0; k < sizeof flags_bad / sizeof flags_bad[0]; k++) {
            bad = good;
            bad.word[n] = flags_bad[k];
            expect_rejected(ctx, t, &bad, "unknown flags");
        }
        bad = good;
        bad.word[n + 1] = 1;
        expect_rejected(ctx, t, &bad, "a deposit count");
        for (int w = n + 2; w < PP_EXACT_WORDS; w += 7) {
            bad = good;
            bad.word[w] = w & 1 ? -1 : 1;
            expect_rejected(ctx, t, &bad, "a word beyond the format's");
        }
        bad = good;
        bad.word[n] &= ~16; /* chunks, but no element */
        expect_rejected(ctx, t, &bad, "no NONEMPTY with a nonzero sum");
        memset(&bad, 0, sizeof bad);
        bad.word[n] = 1; /* NaN, but no element */
        expect_rejected(ctx, t, &bad, "a flag without NONEMPTY");
        bad = good;
        bad.word[n] &= ~8; /* chunks from -0.0 alone */
        expect_rejected(ctx, t, &bad, "no NOT_NEG0 with a nonzero sum");

        /* random words: rejected or accepted, never a crash (the sanitized
         * build checks overflow); an accepted state merges and rounds */
        tc_case("%s: random words", pp_type_name(t));
        for (int trial = 0; trial < 3000; trial++) {
            pp_exact_sum s;
            memset(&s, 0, sizeof s);
            const int mode = trial % 3;
            for (int i = 0; i < (mode == 0 ? PP_EXACT_WORDS : n + 2); i++) {
                uint64_t b = tc_next(&r);
                if (mode == 1) b &= 0xffffffffu;                         /* chunks in range, mostly */
                if (mode == 2 && i < n - 1) b &= tc_below(&r, 16) ? 0xffffffffu : ~0ull;
                if (i == n - 1 && mode) b = (uint64_t)(int64_t)tc_between(&r, -(1 << 20), 1 << 20);
                if (i == n && mode) b = tc_below(&r, 40);
                if (i == n + 1 && mode) b = tc_below(&r, 8) == 0;
                s.word[i] = (int64_t)b;
            }
            pp_exact_sum c = s;
            unsigned char out[8];
            const pp_status a = pp_exact_round(t, &s, out), b = pp_exact_merge(t, &c, &s);
            TC_REQUIRE(a == b && (a == PP_SUCCESS || a == PP_ERROR_INVALID_ARGUMENT),
                       "random words: pp_exact_round %s, pp_exact_merge %s", pp_status_string(a),
                       pp_status_string(b));
            if (a == PP_SUCCESS) TC_OK(pp_exact_round(t, &c, out));
        }
    }
    pp_destroy(ctx);
}

/* ---- types -------------------------------------------------------------------------------------- */
static void test_types(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    pp_exact_sum s, z;
    memset(&s, 0, sizeof s);
    memset(&z, 0, sizeof z);
    unsigned char out[8] = {0};
    for (int t = 0; t < PP_TYPE_COUNT; t++) {
        if (t == PP_F32 || t == PP_F64) continue;
        const char *name = pp_type_name((pp_type)t);
        tc_case("type %s", name);
        for (size_t i = 0; i < nctx; i++) {
            void *d = tc_dev_filled(ctxs[i], 64, 1);
            pp_status st = pp_exact_accumulate(ctxs[i], (pp_type)t, d, 8, &s);
            TC_REQUIRE(st == PP_ERROR_UNSUPPORTED && strstr(pp_last_error(ctxs[i]), name),
                       "pp_exact_accumulate of %s returned %s: %s", name, pp_status_string(st),
                       pp_last_error(ctxs[i]));
            tc_dev_free(ctxs[i], d);
        }
        TC_REQUIRE(pp_exact_merge((pp_type)t, &s, &z) == PP_ERROR_UNSUPPORTED && strstr(pp_last_error(NULL), name),
                   "pp_exact_merge of %s: %s", name, pp_last_error(NULL));
        TC_REQUIRE(pp_exact_round((pp_type)t, &s, out) == PP_ERROR_UNSUPPORTED && strstr(pp_last_error(NULL), name),
                   "pp_exact_round of %s: %s", name, pp_last_error(NULL));
    }
    static const int bad[] = {-1, PP_TYPE_COUNT, 1000};
    for (int i = 0; i < 3; i++) {
        TC_REQUIRE(pp_exact_merge((pp_type)bad[i], &s, &z) == PP_ERROR_INVALID_ARGUMENT, "pp_exact_merge(type %d)",
                   bad[i]);
        TC_REQUIRE(pp_exact_round((pp_type)bad[i], &s, out) == PP_ERROR_INVALID_ARGUMENT, "pp_exact_round(type %d)",
                   bad[i]);
    }
    TC_REQUIRE(memcmp(&s, &z, sizeof s) == 0, "a failed call wrote the sum");
}

int main(void)
{
    tc_init("test_exact_sum");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hand), cmocka_unit_test(test_range),
                                       cmocka_unit_test(test_malformed), cmocka_unit_test(test_types),
                                       cmocka_unit_test(test_pieces)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
