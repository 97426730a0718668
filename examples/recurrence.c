/* First-order linear recurrences by a scan of affine maps
 * (examples/recurrence.md): y[i] = a[i] y[i-1] + b[i] from y[-1] = y0 (an
 * exponential moving average, an IIR filter of order one, the state update
 * of a diagonal state-space model), checked against the sequential loop.
 *
 * Step i is the map f_i(t) = a[i] t + b[i]. Maps compose into maps:
 * applying f then g gives t -> g.a (f.a t + f.b) + g.b = (f.a g.a) t +
 * (g.a f.b + g.b), an associative operator that is not commutative. The
 * inclusive scan of the maps under it gives at i the map f_i o ... o f_0,
 * and y[i] is that map at y0. Step 0 is replaced by the constant map
 * t -> a[0] y0 + b[0] (a = 0): every composite then has a = 0 and b =
 * y[i], so the scan's output holds the answer in its b field, with no pass
 * after it. The operator is the user's own (pp_operator_create): one text,
 * compiled for the backend. Two element types: f64 (checked within a
 * stated bound) and u32 modulo 2^32 (checked exactly).
 *
 * Backends without user operators yet say so and are skipped. */
#include "example_common.h"

#include <float.h>
#include <math.h>

static const char f64_source[] =
    "typedef struct { double a, b; } pp_elem;\n"
    "pp_elem pp_combine(pp_elem f, pp_elem g)\n"
    "{ pp_elem r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r; }\n";
static const char u32_source[] =
    "typedef struct { unsigned a, b; } pp_elem;\n"
    "pp_elem pp_combine(pp_elem f, pp_elem g)\n"
    "{ pp_elem r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r; }\n";

typedef struct { double a, b; } map64;
typedef struct { uint32_t a, b; } map32;

/* 1 where the backend has no user operators (the refusal printed). */
static int refused(pp_context *ctx, pp_status st)
{
    if (st != PP_ERROR_UNSUPPORTED) return 0;
    printf("  recurrence: %s\n  (skipped on this backend)\n", pp_last_error(ctx));
    return 1;
}

/* The inclusive scan of n maps (bytes in all) under op, in place in
 * context memory, into got; returns the seconds of the timed scan (after
 * one untimed scan, which leaves first-call costs out). */
static double scan_maps(pp_context *ctx, const pp_operator *op, const void *maps, void *got, size_t n, size_t bytes)
{
    void *d = ex_alloc(ctx, bytes);
    ex_ok(ctx, pp_upload(ctx, d, maps, bytes), "pp_upload");
    ex_ok(ctx, pp_scan_op(ctx, op, PP_INCLUSIVE, d, d, n), "pp_scan_op");
    ex_ok(ctx, pp_upload(ctx, d, maps, bytes), "pp_upload");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    const double t0 = ex_now();
    ex_ok(ctx, pp_scan_op(ctx, op, PP_INCLUSIVE, d, d, n), "pp_scan_op");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    const double t = ex_now() - t0;
    ex_ok(ctx, pp_download(ctx, got, d, bytes), "pp_download");
    pp_free(ctx, d);
    return t;
}

static int run_f64(pp_context *ctx, const ex_args *args, uint64_t *rng)
{
    const size_t n = args->n;
    map64 *m = malloc(n * sizeof *m), *got = malloc(n * sizeof *got);
    double *want = malloc(n * sizeof *want), y0 = 0.25;
    if (!m || !got || !want) exit(2);
    /* a in [0.5, 1): a stable recurrence (|y| stays bounded); b in [-1, 1) */
    for (size_t i = 0; i < n; i++) {
        m[i].a = 0.5 + 0.5 * (double)(ex_next(rng) >> 11) * 0x1p-53;
        m[i].b = 2.0 * (double)(ex_next(rng) >> 11) * 0x1p-53 - 1.0;
    }
    double t0 = ex_now(), y = y0, sb = fabs(y0);
    for (size_t i = 0; i < n; i++) {
        y = m[i].a * y + m[i].b;
        want[i] = y;
        sb += fabs(m[i].b);
    }
    const double t_seq = ex_now() - t0;
    const map64 id = {1.0, 0.0};
    pp_operator *op = NULL;
    t0 = ex_now();
    pp_status st = pp_operator_create(ctx, f64_source, sizeof(map64), &id, 0, &op);
    const double t_create = ex_now() - t0;
    int rc = 0;
    if (refused(ctx, st)) goto out;
    ex_ok(ctx, st, "pp_operator_create");
    m[0].b = m[0].a * y0 + m[0].b; /* step 0: the constant map to y[0] */
    m[0].a = 0.0;
    const double t_par = scan_maps(ctx, op, m, got, n, n * sizeof *m);
    /* Every y[i] is a sum over k of b[k] times a product of a's (each of
     * magnitude below 1); any order of evaluation rounds each term and sum
     * at most 2n times, so the error is at most about 2 n u (|y0| + sum
     * |b|) (Higham, gamma_2n): the bound checked, with a factor 1.01. */
    const double tol = 2.02 * (double)n * DBL_EPSILON / 2 * sb;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double err = fabs(got[i].b - want[i]);
        if (!(err <= tol) || got[i].a != 0.0) {
            fprintf(stderr, "recurrence f64: y[%zu] = %.17g, the loop's %.17g (bound %.3g)\n", i, got[i].b, want[i], tol);
            rc = 1;
            break;
        }
        if (err > worst) worst = err;
    }
    printf("  f64: scan of maps %.3f ms, sequential loop %.3f ms, operator created in %.1f ms; "
           "largest difference %.3g (bound %.3g)\n", t_par * 1e3, t_seq * 1e3, t_create * 1e3, worst, tol);
    pp_operator_destroy(op);
out:
    free(m);
    free(got);
    free(want);
    return rc;
}

static int run_u32(pp_context *ctx, const ex_args *args, uint64_t *rng)
{
    const size_t n = args->n;
    map32 *m = malloc(n * sizeof *m), *got = malloc(n * sizeof *got);
    uint32_t *want = malloc(n * sizeof *want), y0 = 12345, y = y0;
    if (!m || !got || !want) exit(2);
    for (size_t i = 0; i < n; i++) {
        m[i].a = (uint32_t)ex_next(rng);
        m[i].b = (uint32_t)ex_next(rng);
    }
    double t0 = ex_now();
    for (size_t i = 0; i < n; i++) want[i] = y = m[i].a * y + m[i].b;
    const double t_seq = ex_now() - t0;
    const map32 id = {1, 0};
    pp_operator *op = NULL;
    pp_status st = pp_operator_create(ctx, u32_source, sizeof(map32), &id, 0, &op);
    int rc = 0;
    if (refused(ctx, st)) goto out;
    ex_ok(ctx, st, "pp_operator_create");
    m[0].b = m[0].a * y0 + m[0].b;
    m[0].a = 0;
    const double t_par = scan_maps(ctx, op, m, got, n, n * sizeof *m);
    for (size_t i = 0; i < n; i++)
        if (got[i].b != want[i] || got[i].a != 0) {
            fprintf(stderr, "recurrence u32: y[%zu] = %u, the loop's %u\n", i, got[i].b, want[i]);
            rc = 1;
            break;
        }
    printf("  u32 (modulo 2^32, exact): scan of maps %.3f ms, sequential loop %.3f ms\n", t_par * 1e3, t_seq * 1e3);
    pp_operator_destroy(op);
out:
    free(m);
    free(got);
    free(want);
    return rc;
}

static int body(pp_context *ctx, const ex_args *a)
{
    uint64_t rng = a->seed;
    if (a->n == 0) return 0;
    return run_f64(ctx, a, &rng) | run_u32(ctx, a, &rng);
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 1000003);
    return ex_run(&a, "recurrence", body);
}
