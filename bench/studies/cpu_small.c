/* Time per call of the cpu backend's primitives on small arrays (and a
 * large one): the best, over 7 batches, of a batch's mean, each batch about
 * 20 ms of calls on the same input. Prints one line per primitive and n.
 * Also the f32/f64 against u32/u64 inclusive scan at 2^24 (argument
 * "scan24"), and (argument "cross") the time per call at n = 2^10 .. 2^19
 * on 1, 2 and all threads: where threads start to pay (build against a
 * library whose PP_CPU_INLINE_* constants are small, so that every n runs
 * parallel).
 *
 * Build and run (from the repository, against a build tree build-x):
 *   gcc -O2 -fopenmp -Iinclude bench/studies/cpu_small.c build-x/libparprim.a -lm \
 *       -o /tmp/cpu_small && /tmp/cpu_small [scan24 [output offset in bytes] | cross]
 * OMP_NUM_THREADS sets the context's threads (the "cross" rows make their own).
 * PARPRIM_CPU_NO_AVX512=1 in the environment takes the non-AVX-512 paths. */
#include <parprim.h>

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench {
    pp_context *ctx;
    size_t n;
    float *f32;
    double *f64;
    uint32_t *u32, *u32b;
    uint64_t *u64;
    void *out;
    uint64_t *counts;
} bench;

typedef void (*call_fn)(bench *b);

static void c_sum_f32(bench *b) { pp_reduce(b->ctx, PP_F32, PP_SUM, b->f32, b->n, b->out); }
static void c_max_f32(bench *b) { pp_reduce(b->ctx, PP_F32, PP_MAX, b->f32, b->n, b->out); }
static void c_min_f64(bench *b) { pp_reduce(b->ctx, PP_F64, PP_MIN, b->f64, b->n, b->out); }
static void c_sum_u32(bench *b) { pp_reduce(b->ctx, PP_U32, PP_SUM, b->u32, b->n, b->out); }
static void c_scan_f32(bench *b) { pp_scan(b->ctx, PP_F32, PP_SUM, PP_INCLUSIVE, b->f32, b->out, b->n); }
static void c_scan_u32(bench *b) { pp_scan(b->ctx, PP_U32, PP_SUM, PP_INCLUSIVE, b->u32, b->out, b->n); }
static void c_argmax_f32(bench *b)
{
    uint64_t i;
    pp_argmax(b->ctx, PP_F32, b->f32, b->n, &i);
}
static void c_reduce_to(bench *b) { pp_reduce_to(b->ctx, PP_U32, PP_U64, PP_SUM, b->u32, b->n, b->out); }
static void c_scan_to(bench *b) { pp_scan_to(b->ctx, PP_U32, PP_U64, PP_SUM, PP_EXCLUSIVE, b->u32, b->out, b->n); }
static void c_hist_f32(bench *b)
{
    const float lo = 0.0f, hi = 1.0f;
    pp_histogram_even(b->ctx, PP_F32, b->f32, b->n, &lo, &hi, 100, b->counts);
}
static void c_select_u32(bench *b)
{
    const uint32_t v = 1u << 31;
    uint64_t c;
    pp_select_if(b->ctx, PP_U32, b->u32, b->n, PP_LT, &v, b->out, &c);
}
static void c_sort_u32(bench *b)
{
    memcpy(b->u32b, b->u32, b->n * 4);
    pp_sort(b->ctx, PP_U32, b->u32b, b->n, PP_ASCENDING);
}
static void c_sort_f32(bench *b)
{
    memcpy(b->u32b, b->f32, b->n * 4);
    pp_sort(b->ctx, PP_F32, b->u32b, b->n, PP_ASCENDING);
}

static double time_call(bench *b, call_fn f)
{
    f(b);
    double t0 = omp_get_wtime();
    long reps = 0;
    while (omp_get_wtime() - t0 < 0.005) f(b), reps++;
    const long batch = reps * 4 + 1;
    double best = 1e30;
    for (int k = 0; k < 7; k++) {
        t0 = omp_get_wtime();
        for (long r = 0; r < batch; r++) f(b);
        const double t = (omp_get_wtime() - t0) / (double)batch;
        if (t < best) best = t;
    }
    return best;
}

static void fill(bench *b, size_t n)
{
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b->u32[i] = (uint32_t)s;
        b->u64[i] = s;
        b->f32[i] = (float)(s >> 40) / (float)(1 << 24);
        b->f64[i] = (double)(s >> 11) / 9007199254740992.0;
    }
}

int main(int argc, char **argv)
{
    const int big = argc > 1 && !strcmp(argv[1], "scan24"), cross = argc > 1 && !strcmp(argv[1], "cross");
    const size_t cap = big ? (size_t)1 << 24 : cross ? (size_t)1 << 19 : 100000;
    bench b;
    memset(&b, 0, sizeof b);
    if (pp_create(&b.ctx, NULL) != PP_SUCCESS) return 1;
    b.f32 = malloc(cap * 4), b.f64 = malloc(cap * 8), b.u32 = malloc(cap * 4), b.u32b = malloc(cap * 4);
    b.u64 = malloc(cap * 8), b.out = aligned_alloc(64, cap * 8 + 64), b.counts = malloc(100 * 8);
    if (!b.f32 || !b.f64 || !b.u32 || !b.u32b || !b.u64 || !b.out) return 1;
    fill(&b, cap);
    printf("threads %d\n", pp_context_threads(b.ctx));
    if (big) {
        b.n = cap;
        static const pp_type ty[] = {PP_U32, PP_F32, PP_U64, PP_F64};
        for (int t = 0; t < 4; t++) {
            const void *in = ty[t] == PP_U32   ? (void *)b.u32
                             : ty[t] == PP_F32 ? (void *)b.f32
                             : ty[t] == PP_U64 ? (void *)b.u64
                                               : (void *)b.f64;
            /* "scan24 16": the output 16 bytes past a 64-byte line, as
             * malloc places large blocks */
            void *out = (char *)b.out + (argc > 2 ? atoi(argv[2]) : 0);
            pp_scan(b.ctx, ty[t], PP_SUM, PP_INCLUSIVE, in, out, b.n);
            double best = 1e30;
            for (int k = 0; k < 15; k++) {
                double t0 = omp_get_wtime();
                pp_scan(b.ctx, ty[t], PP_SUM, PP_INCLUSIVE, in, out, b.n);
                t0 = omp_get_wtime() - t0;
                if (t0 < best) best = t0;
            }
            printf("scan %s 2^24: %.2f ms\n", pp_type_name(ty[t]), best * 1e3);
        }
        return 0;
    }
    static const struct {
        const char *name;
        call_fn f;
    } calls[] = {{"reduce sum f32", c_sum_f32},     {"reduce max f32", c_max_f32},      {"reduce min f64", c_min_f64},
                 {"reduce sum u32", c_sum_u32},     {"scan f32", c_scan_f32},           {"scan u32", c_scan_u32},
                 {"argmax f32", c_argmax_f32},      {"reduce_to u32>u64", c_reduce_to}, {"scan_to u32>u64", c_scan_to},
                 {"histogram f32 100", c_hist_f32}, {"select_if u32", c_select_u32},    {"sort u32", c_sort_u32},
                 {"sort f32", c_sort_f32}};
    static const size_t ns[] = {10, 100, 1000, 10000, 100000};
    if (cross) {
        pp_context *ctx[3] = {NULL, NULL, b.ctx};
        for (int c = 0; c < 2; c++) {
            pp_options o = PP_OPTIONS_INIT;
            o.backend = PP_BACKEND_CPU;
            o.threads = c + 1;
            if (pp_create(&ctx[c], &o) != PP_SUCCESS) return 1;
        }
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++)
            for (int lg = 10; lg <= 19; lg++) {
                b.n = (size_t)1 << lg;
                printf("%-20s 2^%d", calls[c].name, lg);
                for (int t = 0; t < 3; t++) {
                    b.ctx = ctx[t];
                    printf(" %9.2f", time_call(&b, calls[c].f) * 1e6);
                }
                printf("   us on 1, 2, all threads\n");
            }
        return 0;
    }
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        printf("%-20s", calls[c].name);
        for (size_t k = 0; k < 5; k++) {
            b.n = ns[k];
            printf(" %9.2f", time_call(&b, calls[c].f) * 1e6);
        }
        printf("   us at n = 10 .. 1e5\n");
    }
    pp_destroy(b.ctx);
    return 0;
}
