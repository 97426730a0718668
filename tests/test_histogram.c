/* pp_histogram_even and pp_histogram_range against the reference: every
 * type, several bin counts and ranges (extremes of the integer types
 * included, where binning must be exact), samples partly outside the
 * range, on bin boundaries, NaN and infinities for floats. */
#include "test_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t hist_sizes[] = {0,    1,    2,    3,     17,    255,   256,   257,    1023,  1024,  1025,
                                    4097, 8191, 8192, 8193,  16384, 16385, 32769, 65537, 100003, 131073};
static const size_t nbins_list[] = {1, 7, 256, 1000, 1024, 70000};

/* ---- bounds and samples --------------------------------------------------------------------- */
typedef struct scalar {
    unsigned char b[8];
} scalar;

static scalar int_scalar(pp_type t, uint64_t v)
{
    scalar s;
    memset(&s, 0, sizeof s);
    tc_set_int(t, s.b, 0, v);
    return s;
}

static scalar f_scalar(pp_type t, double v)
{
    scalar s;
    memset(&s, 0, sizeof s);
    tc_set_f(t, s.b, 0, v);
    return s;
}

/* Integer values as offsets from the type's minimum (0 .. 2^w - 1), so
 * that signed and unsigned types are handled alike. */
static uint64_t span_max(pp_type t) { return tc_is_signed(t) ? (uint64_t)tc_type_max(t) * 2 + 1 : tc_type_max(t); }
static uint64_t from_off(pp_type t, uint64_t off) { return (uint64_t)tc_type_min(t) + off; }
static uint64_t to_off(pp_type t, const void *p) { return (uint64_t)tc_get_i(t, p, 0) - (uint64_t)tc_type_min(t); }

/* Random integer bounds lo < hi (as offsets), by mode. */
static void int_bounds(tc_rng *r, pp_type t, size_t nbins, int mode, uint64_t *lo, uint64_t *hi)
{
    uint64_t top = span_max(t);
    switch (mode % 5) {
    case 0: /* anywhere */
        do {
            *lo = tc_below(r, top) ;
            *hi = *lo + 1 + tc_below(r, top - *lo);
        } while (*hi <= *lo);
        break;
    case 1: { /* a few samples per bin */
        uint64_t w = 1 + tc_below(r, 3 * (uint64_t)nbins);
        if (w > top) w = top;
        *lo = tc_below(r, top - w + 1);
        *hi = *lo + w;
        break;
    }
    case 2: /* the whole type */
        *lo = 0;
        *hi = top;
        break;
    case 3: { /* fewer values than bins */
        uint64_t w = 1 + tc_below(r, nbins > 2 ? nbins / 2 : 1);
        if (w > top) w = top;
        *lo = tc_below(r, top - w + 1);
        *hi = *lo + w;
        break;
    }
    default: /* touching one end of the type */
        if (tc_next(r) & 1) {
            *lo = 0;
            *hi = 1 + tc_below(r, top);
        } else {
            *lo = tc_below(r, top);
            *hi = top;
        }
        break;
    }
}

/* Integer samples: inside, anywhere, the bounds and their neighbours, and
 * the exact first value of random bins and the value before it. */
static void int_samples(tc_rng *r, pp_type t, size_t n, uint64_t lo, uint64_t hi, size_t nbins, void *buf)
{
    uint64_t top = span_max(t), w = hi - lo;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tc_next(r), off;
        switch (x % 10) {
        case 0: case 1: case 2: case 3: case 4: case 5:
            off = lo + tc_below(r, w);
            break;
        case 6:
            off = tc_next(r) & top;
            break;
        case 7: {
            static const int d[] = {-1, 0, 1};
            uint64_t base = (x >> 8) & 1 ? hi : lo;
            off = base + (uint64_t)(int64_t)d[(x >> 9) % 3];
            if (off > top) off = base;
            if ((x >> 12) % 5 == 0) off = (x >> 15) & 1 ? 0 : top;
            break;
        }
        default: { /* first value of bin b: lo + ceil(b * w / nbins) */
            uint64_t b = tc_below(r, nbins);
            unsigned __int128 num = (unsigned __int128)b * w;
            uint64_t first = (uint64_t)((num + nbins - 1) / nbins);
            off = lo + first - ((x >> 8) & 1 && first > 0 ? 1 : 0);
            break;
        }
        }
        tc_set_int(t, buf, i, from_off(t, off));
    }
}

static double f_round(pp_type t, double v) { return t == PP_F32 ? (double)(float)v : v; }
static double f_next(pp_type t, double v, double dir)
{
    return t == PP_F32 ? (double)nextafterf((float)v, (float)dir) : nextafter(v, dir);
}

static void float_bounds(tc_rng *r, pp_type t, int mode, double *lo, double *hi)
{
    double big = t == PP_F32 ? FLT_MAX : DBL_MAX;
    for (;;) {
        double u = (double)tc_below(r, 1u << 30) / (1u << 30), v = (double)tc_below(r, 1u << 30) / (1u << 30);
        switch (mode % 5) {
        case 0: *lo = -1000 + 2000 * u; *hi = *lo + 1000 * v; break;
        case 1: /* a few ulps wide */
            *lo = f_round(t, (u - 0.5) * 100);
            *hi = *lo;
            for (int k = 1 + (int)tc_below(r, 40); k > 0; k--) *hi = f_next(t, *hi, INFINITY);
            break;
        case 2: /* the widest: upper - lower overflows double for f64 */
            *lo = -big;
            *hi = big;
            if (tc_next(r) & 1) *lo = -big * v;
            break;
        case 3: *lo = 0.0; *hi = 1.0; break;
        default: /* tiny numbers */
            *lo = -ldexp(u, -1000 + (t == PP_F32 ? 880 : 0));
            *hi = ldexp(v, -990 + (t == PP_F32 ? 880 : 0));
            break;
        }
        *lo = f_round(t, *lo);
        *hi = f_round(t, *hi);
        if (*lo < *hi && isfinite(*lo) && isfinite(*hi)) return;
    }
}

static void float_samples(tc_rng *r, pp_type t, size_t n, double lo, double hi, size_t nbins, void *buf)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tc_next(r);
        double u = (double)(x >> 11) / 9007199254740992.0, v;
        switch (x % 20) {
        default: v = lo * (1 - u) + hi * u; break;
        case 13: case 14: tc_set_any_float(r, t, buf, i); continue;
        case 15: tc_set_nan(r, t, buf, i); continue;
        case 16: { /* near a bin boundary */
            double b = (double)tc_below(r, nbins + 1);
            v = isinf(hi - lo) ? lo * (1 - b / nbins) + hi * (b / nbins) : lo + b * ((hi - lo) / nbins);
            v = f_round(t, v);
            int k = (int)tc_below(r, 5) - 2;
            for (; k > 0; k--) v = f_next(t, v, INFINITY);
            for (; k < 0; k++) v = f_next(t, v, -INFINITY);
            break;
        }
        case 17: v = (x >> 8) & 1 ? lo : hi; break;
        case 18: v = f_next(t, hi, -INFINITY); break; /* largest sample inside: clamps into the last bin */
        case 19: v = (x >> 8) & 1 ? -0.0 : 0.0; break;
        }
        tc_set_f(t, buf, i, v);
    }
}

/* Near-equal edges, as np.linspace gives them (rounded to the type), which
 * the backends bin by the core's guess and a one-step correction: floats
 * lo + i * w rounded (nudged up where rounding made two equal), integers
 * base + floor(i * num / den) with num / den >= 1. Returns nbins (smaller
 * if the type has too few values). */
static size_t near_equal_edges(tc_rng *r, pp_type t, size_t nbins, void *edges)
{
    if (tc_is_float(t)) {
        double lo = f_round(t, ((double)tc_below(r, 2001) - 1000) * 1e-2);
        double w = ldexp((double)(1 + tc_below(r, 1000)), -(int)tc_below(r, 14)) / 7.0;
        double prev = -INFINITY;
        for (size_t i = 0; i <= nbins; i++) {
            double e = f_round(t, lo + (double)i * w);
            if (!(e > prev)) e = f_next(t, prev, INFINITY);
            tc_set_f(t, edges, i, e);
            prev = e;
        }
        return nbins;
    }
    __extension__ typedef unsigned __int128 u128;
    const uint64_t top = span_max(t);
    if (nbins > top) nbins = (size_t)top;
    const uint64_t wmax = top / nbins, den = wmax >> 60 ? 1 : 1 + tc_below(r, 7); /* num / den <= wmax */
    const uint64_t cap = wmax > 1000 && tc_below(r, 2) ? 1000 : wmax;
    const uint64_t num = den + tc_below(r, (cap - 1) * den + 1);
    const uint64_t last = (uint64_t)((u128)nbins * num / den), base = tc_below(r, top - last + 1);
    for (size_t i = 0; i <= nbins; i++) tc_set_int(t, edges, i, from_off(t, base + (uint64_t)((u128)i * num / den)));
    return nbins;
}

/* Strictly increasing edges (nbins + 1 values); returns nbins (smaller if
 * the type has too few values). */
static size_t make_edges(tc_rng *r, pp_type t, size_t nbins, int mode, void *edges)
{
    if (mode % 5 == 2) return near_equal_edges(r, t, nbins, edges);
    if (!tc_is_float(t)) {
        uint64_t top = span_max(t);
        if (nbins > top) nbins = (size_t)top;
        uint64_t room = top - nbins; /* spare values to spread over the gaps */
        uint64_t maxgap = mode % 2 ? 1 + room / nbins : 1 + (room / nbins > 3 ? 3 : room / nbins);
        uint64_t used = 0, off;
        /* gaps 1 + g with sum(g) <= room */
        uint64_t *g = (uint64_t *)malloc((nbins + 1) * sizeof *g);
        for (size_t i = 0; i < nbins; i++) {
            g[i] = tc_below(r, maxgap);
            if (used + g[i] > room) g[i] = room - used;
            used += g[i];
        }
        off = tc_below(r, room - used + 1);
        for (size_t i = 0; i <= nbins; i++) {
            tc_set_int(t, edges, i, from_off(t, off));
            if (i < nbins) off += 1 + g[i];
        }
        free(g);
        return nbins;
    }
    double e = f_round(t, ((double)tc_below(r, 2001) - 1000) * (mode % 3 == 0 ? 1e-3 : 1.0));
    for (size_t i = 0; i <= nbins; i++) {
        tc_set_f(t, edges, i, e);
        double step = (mode % 3 == 1) ? 0 : ldexp((double)(1 + tc_below(r, 1000)), -(int)tc_below(r, 12));
        double nx = f_round(t, e + step);
        if (!(nx > e)) nx = f_next(t, e, INFINITY);
        e = nx;
    }
    if (mode % 2) tc_set_f(t, edges, 0, -INFINITY);
    if (mode % 4 == 1) tc_set_f(t, edges, nbins, INFINITY);
    return nbins;
}

static void range_samples(tc_rng *r, pp_type t, size_t n, const void *edges, size_t nbins, void *buf)
{
    size_t sz = tc_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = tc_next(r);
        size_t b = (size_t)tc_below(r, nbins + 1);
        switch (x % 8) {
        case 0: case 1: case 2: /* an edge */
            memcpy((char *)buf + i * sz, (const char *)edges + b * sz, sz);
            break;
        case 3: /* next to an edge */
            if (tc_is_float(t)) {
                double e = tc_get_f(t, edges, b);
                tc_set_f(t, buf, i, isinf(e) ? e : f_next(t, e, (x >> 8) & 1 ? INFINITY : -INFINITY));
            } else {
                tc_set_int(t, buf, i, (uint64_t)tc_get_i(t, edges, b) + ((x >> 8) & 1 ? 1 : (uint64_t)-1));
            }
            break;
        case 4: /* between two edges */
            if (b == nbins) b--;
            if (tc_is_float(t)) {
                double a = tc_get_f(t, edges, b), c = tc_get_f(t, edges, b + 1);
                if (isinf(a)) a = c - 1;
                if (isinf(c)) c = a + 1;
                tc_set_f(t, buf, i, a + (c - a) * 0.5);
            } else {
                uint64_t a = to_off(t, (const char *)edges + b * sz), c = to_off(t, (const char *)edges + (b + 1) * sz);
                tc_set_int(t, buf, i, from_off(t, a + tc_below(r, c - a)));
            }
            break;
        case 5:
            if (tc_is_float(t) && (x >> 8) % 3 == 0) tc_set_nan(r, t, buf, i);
            else if (tc_is_float(t)) tc_set_any_float(r, t, buf, i);
            else tc_set_int(t, buf, i, tc_next(r));
            break;
        default:
            if (tc_is_float(t)) tc_set_f(t, buf, i, tc_get_f(t, edges, b) * 0.999);
            else tc_set_int(t, buf, i, tc_next(r) & 3 ? (uint64_t)tc_get_i(t, edges, b) + (x >> 40) % 5 : tc_next(r));
            break;
        }
    }
}

/* ---- running --------------------------------------------------------------------------------------- */
static void check_counts(const tc_config *c, const uint64_t *want, size_t nbins, void *dcounts, uint64_t *host)
{
    TC_DOWNLOAD(c->ctx, host, dcounts, nbins * sizeof(uint64_t), "counts");
    for (size_t b = 0; b < nbins; b++)
        if (host[b] != want[b])
            TC_FAIL("counts: first difference at bin %zu of %zu: got %llu, expected %llu", b, nbins,
                    (unsigned long long)host[b], (unsigned long long)want[b]);
}

static void describe_scalar(pp_type t, const void *p, char *buf, size_t cap) { ref_format(t, p, 0, buf, cap); }

/* Runs one even (edges == NULL) or range histogram on every configuration. */
static void run_hist(pp_type t, const void *samples, size_t n, const scalar *lo, const scalar *hi,
                     const void *edges, size_t nbins, int big)
{
    const size_t sz = tc_size(t);
    char hwhat[96];
    snprintf(hwhat, sizeof hwhat, "histogram of %zu %s into %zu bins", n, pp_type_name(t), nbins);
    if (!tc_need(NULL, hwhat, 0, 2 * nbins * sizeof(uint64_t) + n * sz)) return;
    uint64_t *want = (uint64_t *)tc_halloc(nbins * sizeof *want);
    uint64_t *host = (uint64_t *)tc_halloc(nbins * sizeof *host + n * sz);
    if (edges) ref_histogram_range(t, samples, n, edges, nbins, want);
    else ref_histogram_even(t, samples, n, lo->b, hi->b, nbins, want);
    char a[80], b[80];
    if (edges) {
        describe_scalar(t, edges, a, sizeof a);
        describe_scalar(t, (const char *)edges + nbins * sz, b, sizeof b);
    } else {
        describe_scalar(t, lo->b, a, sizeof a);
        describe_scalar(t, hi->b, b, sizeof b);
    }
    const size_t sbytes = n * sz + TC_GUARD, cbytes = nbins * sizeof(uint64_t) + TC_GUARD;
    char what[96], f64what[48];
    snprintf(what, sizeof what, "histogram_%s of %zu %s into %zu bins", edges ? "range" : "even", n, pp_type_name(t),
             nbins);
    snprintf(f64what, sizeof f64what, "histogram_%s of %s", edges ? "range" : "even", pp_type_name(t));
    /* opencl: f64, and even bins of any float (binned in double), need cl_khr_fp64 */
    const int needs_f64 = t == PP_F64 || (tc_is_float(t) && !edges);
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_HISTOGRAM, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (big && (c->algo != PP_ALGO_AUTO || c->threads == 1)) continue;
        if (!tc_need_buffers(c->ctx, what, sbytes > cbytes ? sbytes : cbytes,
                             sbytes + cbytes + TC_SCRATCH(sbytes + cbytes), 0))
            continue;
        if (needs_f64 && !tc_need_f64(c->ctx, f64what)) continue;
        tc_use(c, PP_PRIM_HISTOGRAM);
        tc_case("%s prim=histogram_%s type=%s n=%zu nbins=%zu %s=%s %s=%s", tc_config_name(c),
                edges ? "range" : "even", pp_type_name(t), n, nbins, edges ? "edges[0]" : "lower", a,
                edges ? "edges[nbins]" : "upper", b);
        void *ds = tc_dev_upload(c->ctx, samples, n * sz);
        void *dc = tc_dev_filled(c->ctx, nbins * sizeof(uint64_t), 0x5A); /* overwritten, not accumulated */
        pp_status st = edges ? pp_histogram_range(c->ctx, t, ds, n, edges, nbins, (uint64_t *)dc)
                             : pp_histogram_even(c->ctx, t, ds, n, lo->b, hi->b, nbins, (uint64_t *)dc);
        if (tc_status_ok(c, st, edges ? "pp_histogram_range" : "pp_histogram_even")) {
            check_counts(c, want, nbins, dc, host);
            TC_DOWNLOAD(c->ctx, host, ds, n * sz, "samples");
            TC_EXPECT_BITS(t, host, samples, n, "samples after the histogram");
        }
        tc_dev_free(c->ctx, ds);
        tc_dev_free(c->ctx, dc);
    }
    free(want);
    free(host);
}

static void test_type(pp_type t)
{
    char name[64];
    snprintf(name, sizeof name, "histogram_%s", pp_type_name(t));
    tc_rng r = tc_rng_for(name);
    const size_t sz = tc_size(t);
    const size_t nsz = sizeof hist_sizes / sizeof hist_sizes[0];
    const size_t nnb = sizeof nbins_list / sizeof nbins_list[0];
    for (size_t s = 0; s <= nsz; s++) {
        int big = s == nsz;
        size_t n = big ? 1048577 : hist_sizes[s];
        void *samples = tc_halloc(n * sz);
        for (size_t k = 0; k < nnb; k++) {
            size_t nbins = nbins_list[k];
            if (big && k % 2) continue;
            int mode = (int)(s * 7 + k);
            scalar lo, hi;
            if (tc_is_float(t)) {
                double l, h;
                float_bounds(&r, t, mode, &l, &h);
                lo = f_scalar(t, l);
                hi = f_scalar(t, h);
                float_samples(&r, t, n, l, h, nbins, samples);
            } else {
                uint64_t l, h;
                int_bounds(&r, t, nbins, mode, &l, &h);
                lo = int_scalar(t, from_off(t, l));
                hi = int_scalar(t, from_off(t, h));
                int_samples(&r, t, n, l, h, nbins, samples);
            }
            run_hist(t, samples, n, &lo, &hi, NULL, nbins, big);

            void *edges = malloc((nbins + 1) * sz);
            size_t nb = make_edges(&r, t, nbins, mode, edges);
            range_samples(&r, t, n, edges, nb, samples);
            run_hist(t, samples, n, NULL, NULL, edges, nb, big);
            free(edges);
        }
        free(samples);
    }
}

/* The extremes of the integer types: exact binning over ranges of up to
 * 2^64 - 1 values. */
static void test_extremes(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("histogram_extremes");
    static const size_t nbins[] = {1, 2, 3, 7, 1000, 1024, 70000};
    static const pp_type types[] = {PP_I64, PP_U64, PP_I32, PP_U32, PP_I8, PP_U8, PP_I16, PP_U16};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        pp_type t = types[ti];
        size_t sz = tc_size(t), n = 20000;
        void *samples = tc_halloc(n * sz);
        for (size_t k = 0; k < sizeof nbins / sizeof nbins[0]; k++) {
            uint64_t top = span_max(t);
            /* [min, max), [min, max - 1), [min + 1, max) */
            for (int v = 0; v < 3; v++) {
                uint64_t l = v == 2 ? 1 : 0, h = v == 1 ? top - 1 : top;
                scalar lo = int_scalar(t, from_off(t, l)), hi = int_scalar(t, from_off(t, h));
                int_samples(&r, t, n, l, h, nbins[k], samples);
                run_hist(t, samples, n, &lo, &hi, NULL, nbins[k], 0);
            }
        }
        free(samples);
    }
}

/* f64 bounds whose difference overflows, and f32 bounds at +-FLT_MAX. */
static void test_float_wide(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("histogram_float_wide");
    for (int ti = 0; ti < 2; ti++) {
        pp_type t = ti ? PP_F64 : PP_F32;
        size_t n = 30000, sz = tc_size(t);
        double big = t == PP_F32 ? FLT_MAX : DBL_MAX;
        static const size_t nbins[] = {1, 2, 3, 1000, 70000};
        void *samples = tc_halloc(n * sz);
        for (size_t k = 0; k < sizeof nbins / sizeof nbins[0]; k++) {
            double l = -big, h = big;
            if (k == 4) l = -big / 4;
            scalar lo = f_scalar(t, l), hi = f_scalar(t, h);
            float_samples(&r, t, n, l, h, nbins[k], samples);
            run_hist(t, samples, n, &lo, &hi, NULL, nbins[k], 0);
        }
        free(samples);
    }
}

/* f64 ranges of a few subnormals: nbins / (upper - lower) overflows to
 * infinity, and a sample equal to lower (d == 0) must still land in bin 0
 * (0 * inf is NaN: the documented expression alone does not say what
 * happens; floor((x - lower) * nbins / (upper - lower)) = 0 does). */
static void test_float_tiny_range(void **state)
{
    (void)state;
    static const double his[] = {4.9406564584124654e-324, 2 * 4.9406564584124654e-324, 1e-310};
    static const size_t nbins[] = {2, 16, 1000};
    double samples[6];
    for (size_t h = 0; h < 3; h++)
        for (size_t k = 0; k < 3; k++) {
            scalar lo = f_scalar(PP_F64, 0.0), hi = f_scalar(PP_F64, his[h]);
            samples[0] = 0.0;
            samples[1] = -0.0;
            samples[2] = his[h] / 2;
            samples[3] = nextafter(his[h], 0.0);
            samples[4] = his[h];
            samples[5] = 0.0;
            run_hist(PP_F64, samples, 6, &lo, &hi, NULL, nbins[k], 0);
        }
}

TC_TYPE_TESTS(test_type)

int main(void)
{
    tc_init("test_histogram");
    const struct CMUnitTest tests[] = {
        TC_TYPE_UNIT_TESTS, cmocka_unit_test(test_extremes), cmocka_unit_test(test_float_wide),
        cmocka_unit_test(test_float_tiny_range),
    };
    int rc = cmocka_run_group_tests_name("histogram", tests, NULL, NULL);
    tc_finish();
    return rc;
}
