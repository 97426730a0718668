/* The cpu backend's memory-bound primitives at 2^24 against pp_copy of
 * their input's bytes, and pp_sort's time, for u32, f32, u64 and f64: the
 * figures of bench/studies/cpu-avx2.md. Each row is the best of R calls
 * (default 15) on the same input (the arrays do not fit in cache).
 *
 * Build and run (from the repository, against a build tree build-x):
 *   gcc -O2 -fopenmp -Iinclude bench/studies/cpu_avx2.c -Lbuild-x -Wl,-rpath,$PWD/build-x \
 *       -lparprim -lm -o /tmp/cpu_avx2 && OMP_NUM_THREADS=1 /tmp/cpu_avx2 [rows] [R] [offset]
 * rows: "mem" (copy, reduce, scan, histogram_even, select_flagged), "sort",
 * "scan" (the inclusive and exclusive scans alone), "select" (copy and the
 * compactions: select_flagged, select_if and partition_if keeping about
 * half, unique of distinct values) or "all" (default);
 * "layout XO YO [R]": the inclusive scans with input and output XO and YO
 * bytes past a page (where they lie modulo 4096 decides whether a store
 * aliases a later load: bench/studies/cpu-avx2.md).
 * offset: of the output past a 64-byte line (default 16, where malloc puts
 * large blocks). PARPRIM_CPU_NO_AVX512=1 in the environment takes the non-AVX-512 paths. */
#include <parprim.h>

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LOG2N = 24 };

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

typedef struct row {
    pp_context *ctx;
    pp_type type;
    size_t n;
    void *in, *out, *keys;
    uint8_t *flags;
    uint64_t *counts;
} row;

static void r_copy(row *r) { pp_copy(r->ctx, r->out, r->in, r->n * pp_type_size(r->type)); }
static void r_reduce(row *r) { pp_reduce(r->ctx, r->type, PP_SUM, r->in, r->n, r->out); }
static void r_scan(row *r) { pp_scan(r->ctx, r->type, PP_SUM, PP_INCLUSIVE, r->in, r->out, r->n); }
static void r_escan(row *r) { pp_scan(r->ctx, r->type, PP_SUM, PP_EXCLUSIVE, r->in, r->out, r->n); }
static void r_hist(row *r)
{
    /* 100 bins over [0, 1) for floats, over the whole range for integers */
    const uint32_t l4 = 0, h4 = UINT32_MAX;
    const uint64_t l8 = 0, h8 = UINT64_MAX;
    const float lf = 0.0f, hf = 1.0f;
    const double ld = 0.0, hd = 1.0;
    const void *l = r->type == PP_U32   ? (const void *)&l4
                    : r->type == PP_U64 ? (const void *)&l8
                    : r->type == PP_F32 ? (const void *)&lf
                                        : (const void *)&ld;
    const void *h = r->type == PP_U32   ? (const void *)&h4
                    : r->type == PP_U64 ? (const void *)&h8
                    : r->type == PP_F32 ? (const void *)&hf
                                        : (const void *)&hd;
    pp_histogram_even(r->ctx, r->type, r->in, r->n, l, h, 100, r->counts);
}
static void r_select(row *r) { pp_select_flagged(r->ctx, r->type, r->in, r->flags, r->n, r->out, r->counts); }
/* select_if and partition_if keep the elements above the middle of the fill's range (about half) */
static const void *r_half(const row *r)
{
    static const uint32_t h4 = UINT32_C(1) << 31;
    static const uint64_t h8 = UINT64_C(1) << 63;
    static const float hf = 0.5f;
    static const double hd = 0.5;
    return r->type == PP_U32   ? (const void *)&h4
           : r->type == PP_U64 ? (const void *)&h8
           : r->type == PP_F32 ? (const void *)&hf
                               : (const void *)&hd;
}
static void r_select_if(row *r) { pp_select_if(r->ctx, r->type, r->in, r->n, PP_GT, r_half(r), r->out, r->counts); }
static void r_partition(row *r) { pp_partition_if(r->ctx, r->type, r->in, r->n, PP_GT, r_half(r), r->out, r->counts); }
static void r_unique(row *r) { pp_unique(r->ctx, r->type, r->in, r->n, r->out, r->counts); }
static void r_sort(row *r)
{
    memcpy(r->keys, r->in, r->n * pp_type_size(r->type));
    pp_sort(r->ctx, r->type, r->keys, r->n, PP_ASCENDING);
}
static void r_memcpy(row *r) { memcpy(r->keys, r->in, r->n * pp_type_size(r->type)); }

static double best_ms(void (*fn)(row *), row *r, int reps)
{
    fn(r);
    double best = 1e30;
    for (int k = 0; k < reps; k++) {
        double t = omp_get_wtime();
        fn(r);
        t = omp_get_wtime() - t;
        if (t < best) best = t;
    }
    return best * 1e3;
}

static void fill(void *p, pp_type t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = next_u64();
        if (t == PP_U32) ((uint32_t *)p)[i] = (uint32_t)v;
        if (t == PP_U64) ((uint64_t *)p)[i] = v;
        if (t == PP_F32) ((float *)p)[i] = (float)(v >> 40) / 16777216.0f;
        if (t == PP_F64) ((double *)p)[i] = (double)(v >> 11) / 9007199254740992.0;
    }
}

/* "layout XO YO [R]" */
static int layout(pp_context *ctx, int xo, int yo, int reps)
{
    const size_t n = (size_t)1 << LOG2N;
    char *xb = aligned_alloc(4096, n * 8 + 4096), *yb = aligned_alloc(4096, n * 8 + 4096);
    if (!xb || !yb) return 1;
    static const pp_type ty[] = {PP_U32, PP_F32, PP_U64, PP_F64};
    printf("input +%d, output +%d past a page, best of %d, ms:", xo, yo, reps);
    for (int t = 0; t < 4; t++) {
        fill(xb + xo, ty[t], n);
        double best = 1e30;
        for (int k = 0; k < reps; k++) {
            double t0 = omp_get_wtime();
            pp_scan(ctx, ty[t], PP_SUM, PP_INCLUSIVE, xb + xo, yb + yo, n);
            t0 = omp_get_wtime() - t0;
            if (t0 < best) best = t0;
        }
        printf(" %s %.2f", pp_type_name(ty[t]), best * 1e3);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *rows = argc > 1 ? argv[1] : "all";
    if (!strcmp(rows, "layout") && argc > 3) {
        pp_context *ctx;
        if (pp_create(&ctx, NULL) != PP_SUCCESS) return 1;
        return layout(ctx, atoi(argv[2]), atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 9);
    }
    const int reps = argc > 2 ? atoi(argv[2]) : 15;
    const int mem = !strcmp(rows, "all") || !strcmp(rows, "mem"), sort = !strcmp(rows, "all") || !strcmp(rows, "sort");
    const int scan = !strcmp(rows, "scan"), sel = !strcmp(rows, "select");
    const size_t n = (size_t)1 << LOG2N;
    row r;
    memset(&r, 0, sizeof r);
    if (pp_create(&r.ctx, NULL) != PP_SUCCESS) return 1;
    r.n = n;
    r.in = malloc(n * 8), r.out = aligned_alloc(64, n * 8 + 64), r.keys = malloc(n * 8), r.flags = malloc(n);
    r.counts = malloc(128 * 8);
    if (!r.in || !r.out || !r.keys || !r.flags || !r.counts) return 1;
    r.out = (char *)r.out + (argc > 3 ? atoi(argv[3]) : 16); /* as malloc places large blocks */
    for (size_t i = 0; i < n; i++) r.flags[i] = (uint8_t)(next_u64() & 1);
    printf("threads %d, n = 2^%d, best of %d, ms; input and output %u and %u bytes past a page\n",
           pp_context_threads(r.ctx), LOG2N, reps, (unsigned)((uintptr_t)r.in & 4095u),
           (unsigned)((uintptr_t)r.out & 4095u));
    static const pp_type ty[] = {PP_U32, PP_F32, PP_U64, PP_F64};
    for (int t = 0; t < 4; t++) {
        r.type = ty[t];
        fill(r.in, r.type, n);
        const char *nm = pp_type_name(r.type);
        if (scan) {
            printf("%s scan %.2f escan %.2f\n", nm, best_ms(r_scan, &r, reps), best_ms(r_escan, &r, reps));
            continue;
        }
        if (sel) {
            static const struct {
                const char *name;
                void (*fn)(row *);
            } prim[] = {{"select_flagged", r_select},
                        {"select_if", r_select_if},
                        {"partition_if", r_partition},
                        {"unique", r_unique}};
            const double c = best_ms(r_copy, &r, reps);
            printf("%s copy %.2f |", nm, c);
            for (size_t k = 0; k < sizeof prim / sizeof *prim; k++) {
                const double ms = best_ms(prim[k].fn, &r, reps);
                printf(" %s %.2f (%.2f)", prim[k].name, ms, c / ms);
            }
            printf("\n");
        }
        if (mem) {
            const double c = best_ms(r_copy, &r, reps), red = best_ms(r_reduce, &r, reps);
            const double sc = best_ms(r_scan, &r, reps), hi = best_ms(r_hist, &r, reps);
            const double se = best_ms(r_select, &r, reps);
            printf("%s copy %.2f | reduce %.2f (%.2f) scan %.2f (%.2f) histogram %.2f (%.2f) select_flagged %.2f "
                   "(%.2f)\n",
                   nm, c, red, c / red, sc, c / sc, hi, c / hi, se, c / se);
        }
        if (sort) {
            const double m = best_ms(r_memcpy, &r, reps < 5 ? reps : 5), s = best_ms(r_sort, &r, reps < 5 ? reps : 5);
            printf("%s sort (memcpy + pp_sort) %.2f (memcpy alone %.2f)\n", nm, s, m);
        }
        fflush(stdout);
    }
    return 0;
}
