/* Polynomial evaluation with scans (examples/polynomial.md): p(x) = sum of
 * a[i] x^i for i < n, at m points at once, with parprim's built-in
 * primitives only:
 *   x^i      an exclusive PP_PROD scan of n copies of x, one segment per
 *            point (pp_segmented_scan; exclusive, so x^0 = 1);
 *   a[i] x^i parprim has no elementwise product of two arrays: a stable
 *            merge by position (pp_merge_pairs, both sides keyed 0, 1, ...)
 *            puts a[i] beside x^i, and pp_reduce_by_key with PP_PROD
 *            multiplies each pair;
 *   p(x)     a PP_SUM per point (pp_segmented_reduce).
 * Two element types: u64 (arithmetic modulo 2^64, wrapping, checked
 * exactly against Horner's rule) and f64 (|x| < 1 and |a[i]| <= 1, checked
 * against Horner's rule within the sum of both methods' error bounds). */
#include "example_common.h"

#include <math.h>

#define MULTI_POINTS 5 /* points of the second run of each type */

/* The device arrays of one evaluation of n coefficients at m points. */
typedef struct poly_bufs {
    uint64_t *keys, *offsets, *count;
    void *a, *xp, *mkeys, *mvals, *rkeys, *rvals, *p;
} poly_bufs;

/* Uploads the layout: keys 0 .. N-1 (N = n m, position i of point j has
 * key j n + i), a repeated once per point, x_j repeated n times, segment
 * offsets j n. The host builds these: parprim has no fill or iota. */
static void poly_upload(pp_context *ctx, poly_bufs *b, const void *a, const void *xs, size_t n, size_t m)
{
    size_t N = n * m, w = 8;
    uint64_t *keys = malloc((N ? N : 1) * sizeof *keys), *offs = malloc((m + 1) * sizeof *offs);
    unsigned char *ar = malloc(N ? N * w : 1), *xr = malloc(N ? N * w : 1);
    if (!keys || !offs || !ar || !xr) {
        fprintf(stderr, "polynomial: out of host memory\n");
        exit(2);
    }
    for (size_t j = 0; j < m; j++) {
        offs[j] = j * n;
        for (size_t i = 0; i < n; i++) {
            keys[j * n + i] = j * n + i;
            memcpy(ar + (j * n + i) * w, (const unsigned char *)a + i * w, w);
            memcpy(xr + (j * n + i) * w, (const unsigned char *)xs + j * w, w);
        }
    }
    offs[m] = N;
    b->keys = ex_alloc(ctx, N * 8);
    b->offsets = ex_alloc(ctx, (m + 1) * 8);
    b->count = ex_alloc(ctx, 8);
    b->a = ex_alloc(ctx, N * w);
    b->xp = ex_alloc(ctx, N * w);
    b->mkeys = ex_alloc(ctx, 2 * N * 8);
    b->mvals = ex_alloc(ctx, 2 * N * w);
    b->rkeys = ex_alloc(ctx, 2 * N * 8);
    b->rvals = ex_alloc(ctx, 2 * N * w);
    b->p = ex_alloc(ctx, m * w);
    ex_ok(ctx, pp_upload(ctx, b->keys, keys, N * 8), "pp_upload keys");
    ex_ok(ctx, pp_upload(ctx, b->offsets, offs, (m + 1) * 8), "pp_upload offsets");
    ex_ok(ctx, pp_upload(ctx, b->a, ar, N * w), "pp_upload a");
    ex_ok(ctx, pp_upload(ctx, b->xp, xr, N * w), "pp_upload x");
    free(keys);
    free(offs);
    free(ar);
    free(xr);
}

static void poly_free(pp_context *ctx, poly_bufs *b)
{
    void *all[] = {b->keys, b->offsets, b->count, b->a, b->xp, b->mkeys, b->mvals, b->rkeys, b->rvals, b->p};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ex_ok(ctx, pp_free(ctx, all[i]), "pp_free");
}

/* p[j] = sum of a[i] xs[j]^i on ctx, type PP_U64 or PP_F64; returns the
 * seconds of the primitives (uploads excluded), or -1 where the backend
 * cannot serve the type (opencl without cl_khr_fp64). */
static double poly_eval(pp_context *ctx, pp_type t, const void *a, size_t n, const void *xs, size_t m, void *p)
{
    size_t N = n * m;
    poly_bufs b;
    poly_upload(ctx, &b, a, xs, n, m);
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    double t0 = ex_now();
    pp_status st = pp_segmented_scan(ctx, t, PP_PROD, PP_EXCLUSIVE, b.xp, b.xp, N, b.offsets, m);
    if (st == PP_ERROR_UNSUPPORTED) {
        printf("  %s: %s\n", pp_type_name(t), pp_last_error(ctx));
        poly_free(ctx, &b);
        return -1;
    }
    ex_ok(ctx, st, "pp_segmented_scan (x^i)");
    ex_ok(ctx, pp_merge_pairs(ctx, PP_U64, b.keys, b.a, N, b.keys, b.xp, N, 8, b.mkeys, b.mvals, PP_ASCENDING),
          "pp_merge_pairs (a[i] beside x^i)");
    ex_ok(ctx, pp_reduce_by_key(ctx, PP_U64, t, PP_PROD, b.mkeys, b.mvals, 2 * N, b.rkeys, b.rvals, b.count),
          "pp_reduce_by_key (a[i] x^i)");
    ex_ok(ctx, pp_segmented_reduce(ctx, t, PP_SUM, b.rvals, N, b.offsets, m, b.p), "pp_segmented_reduce (p)");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    double secs = ex_now() - t0;
    uint64_t count = 0;
    ex_ok(ctx, pp_download(ctx, &count, b.count, 8), "pp_download count");
    ex_ok(ctx, pp_download(ctx, p, b.p, m * 8), "pp_download p");
    poly_free(ctx, &b);
    if (count != N) {
        fprintf(stderr, "polynomial: %llu pairs, expected %zu\n", (unsigned long long)count, N);
        exit(2);
    }
    return secs;
}

/* Horner's rule modulo 2^64 (unsigned arithmetic wraps in C). */
static uint64_t horner_u64(const uint64_t *a, size_t n, uint64_t x)
{
    uint64_t q = 0;
    for (size_t i = n; i-- > 0;) q = q * x + a[i];
    return q;
}

static double horner_f64(const double *a, size_t n, double x)
{
    double q = 0;
    for (size_t i = n; i-- > 0;) q = q * x + a[i];
    return q;
}

/* gamma_k = k u / (1 - k u), u = 2^-53: the bound on the relative error of
 * k roundings (Higham, Accuracy and Stability of Numerical Algorithms,
 * lemma 3.1). */
static double gamma_k(double k)
{
    const double u = 0x1p-53;
    return k * u / (1 - k * u);
}

/* A bound on |parprim's p - Horner's p|, both computed in f64 from the same
 * data: with w[i] = |a[i]| |x|^i, Horner's result has error at most
 * sum gamma(2i+1) w[i] (a[i] passes through i multiplications and at most
 * i+1 additions); parprim's term i has at most i roundings (x^i is a
 * product of i factors in some order, then one product with a[i]), so
 * error at most gamma(i) w[i], and any summation order of the n terms
 * adds at most gamma(n-1) times the sum of their magnitudes, themselves at
 * most (1 + gamma(i)) w[i]. No value overflows or underflows (|x| is
 * chosen so that |x|^(n-1) >= 2^-1000), so the bounds hold; the factor 2
 * covers the rounding of this evaluation of the bound itself. */
static double poly_tolerance(const double *a, size_t n, double x)
{
    double tol = 0, xi = 1;
    for (size_t i = 0; i < n; i++, xi *= fabs(x)) {
        double w = fabs(a[i]) * xi, k = (double)i;
        tol += (gamma_k(2 * k + 1) + gamma_k(k) + gamma_k((double)n) * (1 + gamma_k(k))) * w;
    }
    return 2 * tol;
}

static int poly_body(pp_context *ctx, const ex_args *arg)
{
    size_t n = arg->n;
    uint64_t s = arg->seed;
    uint64_t *au = malloc((n ? n : 1) * 8);
    double *af = malloc((n ? n : 1) * 8);
    if (!au || !af) {
        fprintf(stderr, "polynomial: out of host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        au[i] = ex_next(&s);
        af[i] = 2 * ((double)(ex_next(&s) >> 11) * 0x1p-53) - 1; /* in [-1, 1) */
    }
    /* |x| in [r, 1) with r^(n-1) = 2^-1000: no power underflows */
    double r = n > 1 ? exp2(-1000.0 / (double)(n - 1)) : 0;
    int bad = 0;
    for (size_t m = 1; m <= MULTI_POINTS; m += MULTI_POINTS - 1) {
        uint64_t xu[MULTI_POINTS], pu[MULTI_POINTS];
        double xf[MULTI_POINTS], pf[MULTI_POINTS];
        for (size_t j = 0; j < m; j++) {
            xu[j] = ex_next(&s) | 1; /* odd: the powers never become 0 mod 2^64 */
            double mag = r + (1 - r) * ((double)(ex_next(&s) >> 11) * 0x1p-53);
            if (mag >= 1) mag = nextafter(1.0, 0.0);
            xf[j] = (ex_next(&s) & 1) ? -mag : mag;
        }
        double tu = poly_eval(ctx, PP_U64, au, n, xu, m, pu);
        double t0 = ex_now();
        uint64_t hu[MULTI_POINTS];
        for (size_t j = 0; j < m; j++) hu[j] = horner_u64(au, n, xu[j]);
        double ht = ex_now() - t0;
        int same = 1;
        for (size_t j = 0; j < m; j++) {
            if (hu[j] == pu[j]) continue;
            printf("  u64 point %zu: parprim %llu, Horner %llu\n", j, (unsigned long long)pu[j],
                   (unsigned long long)hu[j]);
            same = 0;
        }
        printf("  u64 mod 2^64, %zu point(s): %s; parprim %.6f s, Horner %.6f s\n", m,
               same ? "equal to Horner's" : "MISMATCH", tu, ht);
        bad |= !same;

        double tf = poly_eval(ctx, PP_F64, af, n, xf, m, pf);
        if (tf < 0) continue; /* f64 not served here: said above */
        t0 = ex_now();
        double hf[MULTI_POINTS];
        for (size_t j = 0; j < m; j++) hf[j] = horner_f64(af, n, xf[j]);
        ht = ex_now() - t0;
        for (size_t j = 0; j < m; j++) {
            double tol = poly_tolerance(af, n, xf[j]), d = fabs(pf[j] - hf[j]);
            printf("  f64 point %zu: x = %.17g, p = %.17g, |parprim - Horner| = %.3g <= bound %.3g\n", j, xf[j], pf[j],
                   d, tol);
            if (!(d <= tol)) bad = 1;
        }
        printf("  f64, %zu point(s): parprim %.6f s, Horner %.6f s\n", m, tf, ht);
    }
    free(au);
    free(af);
    return bad;
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 100000);
    if (a.n > SIZE_MAX / 16 / MULTI_POINTS) {
        fprintf(stderr, "polynomial: --n %zu is too large\n", a.n);
        return 2;
    }
    return ex_run(&a, "polynomial", poly_body);
}
