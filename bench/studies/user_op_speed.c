/* By hand: operators of the user's own against the built-in calls of the
 * same bytes on one backend (bench/studies/user-operators.md): a u32 sum,
 * a u32 max and an f32 sum written as operators (declared commutative; the
 * u32 sum also not, which keeps the element order) beside pp_reduce and
 * pp_scan, the segmented forms over segments of 1000 elements beside the
 * built-in ones, and the scan of affine maps (8-byte elements, f32 a and
 * b, not commutative) beside a copy of its bytes; each the best of 11 runs,
 * the context synchronized; the first pp_operator_create (compiling) and
 * a second one (the context's cache) timed too.
 *
 *   cc -O2 -Iinclude bench/studies/user_op_speed.c -Lbuild -lparprim -o user_op_speed
 *   ./user_op_speed [cpu|cuda|opencl] [log2 n] [opencl device] */
#include <parprim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pp_context *ctx;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void ok(pp_status st, const char *what)
{
    if (st == PP_SUCCESS) return;
    fprintf(stderr, "%s: %s\n", what, pp_last_error(ctx));
    exit(1);
}

/* best of 11 runs of the call, ms */
#define BEST(call)                                                     \
    ({                                                                 \
        double best_ = 1e30;                                           \
        for (int r_ = 0; r_ < 11; r_++) {                              \
            double t0_ = now();                                        \
            ok((call), #call);                                         \
            ok(pp_synchronize(ctx), "pp_synchronize");                 \
            double d_ = now() - t0_;                                   \
            if (d_ < best_) best_ = d_;                                \
        }                                                              \
        best_ * 1e3;                                                   \
    })

int main(int argc, char **argv)
{
    pp_options o = PP_OPTIONS_INIT;
    o.backend = argc > 1 && !strcmp(argv[1], "cuda") ? PP_BACKEND_CUDA
                : argc > 1 && !strcmp(argv[1], "opencl") ? PP_BACKEND_OPENCL : PP_BACKEND_CPU;
    const size_t n = (size_t)1 << (argc > 2 ? atoi(argv[2]) : 24);
    if (argc > 3) o.device = atoi(argv[3]);
    ok(pp_create(&ctx, &o), "pp_create");
    void *a, *b, *out, *fd, *offs;
    ok(pp_malloc(ctx, &a, n * 8), "pp_malloc");
    ok(pp_malloc(ctx, &fd, n * 4), "pp_malloc");
    ok(pp_malloc(ctx, &offs, (n / 1000 + 1) * 8), "pp_malloc");
    ok(pp_malloc(ctx, &b, n * 8), "pp_malloc");
    ok(pp_malloc(ctx, &out, 64), "pp_malloc");
    unsigned *h = malloc(n * 8);
    for (size_t i = 0; i < 2 * n; i++) h[i] = (unsigned)(i * 2654435761u) | 1;
    float *f = (float *)h; /* the affine maps: a near 1, b small */
    for (size_t i = 0; i < n; i++) {
        f[2 * i] = 0.5f + (float)(h[2 * i] >> 9) * 0x1p-24f;
        f[2 * i + 1] = (float)(h[2 * i + 1] >> 9) * 0x1p-23f - 1.0f;
    }
    ok(pp_upload(ctx, a, h, n * 8), "pp_upload");
    for (size_t i = 0; i < n; i++) ((float *)h)[i] = (float)(h[2 * i] & 0xffff) * 0x1p-16f; /* f32 in [0, 1) */
    ok(pp_upload(ctx, fd, h, n * 4), "pp_upload");
    const unsigned zero = 0;
    const float aff_id[2] = {1.0f, 0.0f};
    static const char sum_src[] = "typedef unsigned pp_elem; pp_elem pp_combine(pp_elem x, pp_elem y) { return x + y; }";
    pp_operator *sum, *mx, *aff, *again, *osum, *fsum;
    double t0 = now();
    ok(pp_operator_create(ctx, sum_src, 4, &zero, 1, &sum), "create sum");
    const double t_first = now() - t0;
    t0 = now();
    ok(pp_operator_create(ctx, sum_src, 4, &zero, 1, &again), "create sum again");
    const double t_again = now() - t0;
    ok(pp_operator_create(ctx, "typedef unsigned pp_elem; pp_elem pp_combine(pp_elem x, pp_elem y) { return x > y ? x : y; }",
                          4, &zero, 1, &mx), "create max");
    ok(pp_operator_create(ctx, sum_src, 4, &zero, 0, &osum), "create ordered sum");
    const float fzero = 0.0f;
    ok(pp_operator_create(ctx, "typedef float pp_elem; pp_elem pp_combine(pp_elem x, pp_elem y) { return x + y; }", 4,
                          &fzero, 1, &fsum), "create f32 sum");
    ok(pp_operator_create(ctx, "typedef struct { float a, b; } pp_elem;\n"
                               "pp_elem pp_combine(pp_elem f, pp_elem g) { pp_elem r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r; }",
                          8, aff_id, 0, &aff), "create affine");
    printf("%s, n = 2^%d: first pp_operator_create %.1f ms, the same text again %.3f ms\n", pp_context_device_name(ctx),
           argc > 2 ? atoi(argv[2]) : 24, t_first * 1e3, t_again * 1e3);
    double bi, op;
    bi = BEST(pp_reduce(ctx, PP_U32, PP_SUM, a, n, out));
    op = BEST(pp_reduce_op(ctx, sum, a, n, out));
    printf("reduce u32 sum:  built-in %8.3f ms, operator %8.3f ms (%.2f of the built-in's speed)\n", bi, op, bi / op);
    bi = BEST(pp_reduce(ctx, PP_U32, PP_MAX, a, n, out));
    op = BEST(pp_reduce_op(ctx, mx, a, n, out));
    printf("reduce u32 max:  built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op, bi / op);
    bi = BEST(pp_reduce(ctx, PP_U32, PP_SUM, a, n, out));
    op = BEST(pp_reduce_op(ctx, osum, a, n, out));
    printf("reduce u32 sum, not declared commutative: built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op, bi / op);
    bi = BEST(pp_reduce(ctx, PP_F32, PP_SUM, fd, n, out));
    op = BEST(pp_reduce_op(ctx, fsum, fd, n, out));
    printf("reduce f32 sum:  built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op, bi / op);
    bi = BEST(pp_scan(ctx, PP_U32, PP_SUM, PP_INCLUSIVE, a, b, n));
    op = BEST(pp_scan_op(ctx, sum, PP_INCLUSIVE, a, b, n));
    printf("scan u32 sum:    built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op, bi / op);
    bi = BEST(pp_scan(ctx, PP_F32, PP_SUM, PP_INCLUSIVE, fd, b, n));
    op = BEST(pp_scan_op(ctx, fsum, PP_INCLUSIVE, fd, b, n));
    printf("scan f32 sum:    built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op, bi / op);
    const size_t nseg = n / 1000;
    uint64_t *ho = malloc((nseg + 1) * sizeof *ho);
    for (size_t i = 0; i <= nseg; i++) ho[i] = i == nseg ? n : i * 1000;
    ok(pp_upload(ctx, offs, ho, (nseg + 1) * sizeof *ho), "pp_upload");
    bi = BEST(pp_segmented_reduce(ctx, PP_U32, PP_SUM, a, n, offs, nseg, b));
    op = BEST(pp_segmented_reduce_op(ctx, osum, a, n, offs, nseg, b));
    printf("segmented reduce u32 sum (segments of 1000): built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op,
           bi / op);
    bi = BEST(pp_segmented_scan(ctx, PP_U32, PP_SUM, PP_INCLUSIVE, a, b, n, offs, nseg));
    op = BEST(pp_segmented_scan_op(ctx, osum, PP_INCLUSIVE, a, b, n, offs, nseg));
    printf("segmented scan u32 sum (segments of 1000):   built-in %8.3f ms, operator %8.3f ms (%.2f)\n", bi, op,
           bi / op);
    free(ho);
    bi = BEST(pp_copy(ctx, b, a, n * 8));
    op = BEST(pp_scan_op(ctx, aff, PP_INCLUSIVE, a, b, n));
    printf("scan affine f32: copy of its bytes %8.3f ms, operator %8.3f ms (%.2f of a copy's speed)\n", bi, op, bi / op);
    pp_operator_destroy(sum);
    pp_operator_destroy(again);
    pp_operator_destroy(mx);
    pp_operator_destroy(aff);
    pp_operator_destroy(osum);
    pp_operator_destroy(fsum);
    pp_free(ctx, fd);
    pp_free(ctx, offs);
    pp_free(ctx, a);
    pp_free(ctx, b);
    pp_free(ctx, out);
    free(h);
    pp_destroy(ctx);
    return 0;
}
