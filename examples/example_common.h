/* What every example of examples/ shares: the backends it runs on, a
 * clock, a random generator, and the check that ends it. Each example is a
 * program that computes one of the course notes' applications with
 * parprim's primitives, checks the result against a plain sequential
 * implementation, and prints both times.
 *
 *   <example> [--backend cpu|cuda|opencl|all] [--n N] [--seed S]
 *
 * --backend all (the default) runs on every backend this build has and the
 * machine can run (pp_backend_status); --n sets the problem size (each
 * example has a default small enough for CI); the exit status is 0 when
 * every result matched, 1 when one did not, 2 on a usage or parprim error.
 * Header-only: each example is one .c file. */
#ifndef PP_EXAMPLE_COMMON_H
#define PP_EXAMPLE_COMMON_H

#include <parprim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ex_args {
    const char *backend; /* "all" or a backend's name */
    size_t n;
    uint64_t seed;
} ex_args;

static inline void ex_usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--backend cpu|cuda|opencl|all] [--n N] [--seed S]\n", prog);
    exit(2);
}

static inline ex_args ex_parse(int argc, char **argv, size_t default_n)
{
    ex_args a = {"all", default_n, (uint64_t)time(NULL)};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) ex_usage(argv[0]);
        char *end = NULL;
        if (!strcmp(argv[i], "--backend")) a.backend = argv[++i];
        else if (!strcmp(argv[i], "--n")) a.n = (size_t)strtoull(argv[++i], &end, 10);
        else if (!strcmp(argv[i], "--seed")) a.seed = strtoull(argv[++i], &end, 10);
        else ex_usage(argv[0]);
        if (end && *end) ex_usage(argv[0]);
    }
    return a;
}

/* seconds of a monotonic clock */
static inline double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: a fresh, reproducible stream from the seed */
static inline uint64_t ex_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t ex_below(uint64_t *s, uint64_t m) { return m ? ex_next(s) % m : 0; }

/* Exits with status 2 and parprim's message where st is an error. */
static inline void ex_ok(pp_context *ctx, pp_status st, const char *what)
{
    if (st == PP_SUCCESS) return;
    fprintf(stderr, "%s: %s: %s\n", what, pp_status_string(st), pp_last_error(ctx));
    exit(2);
}

/* Context memory of bytes (at least one byte), exiting on failure. */
static inline void *ex_alloc(pp_context *ctx, size_t bytes)
{
    void *p = NULL;
    ex_ok(ctx, pp_malloc(ctx, &p, bytes ? bytes : 1), "pp_malloc");
    return p;
}

/* Runs body(ctx, args) on every backend args selects; returns the exit
 * status: 0 where every run returned 0, 1 where one found a mismatch. */
typedef int (*ex_body)(pp_context *ctx, const ex_args *a);
static inline int ex_run(const ex_args *a, const char *name, ex_body body)
{
    static const pp_backend all[] = {PP_BACKEND_CPU, PP_BACKEND_OPENCL, PP_BACKEND_CUDA};
    int rc = 0, ran = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        const char *bn = pp_backend_name(all[i]);
        if (strcmp(a->backend, "all") && strcmp(a->backend, bn)) continue;
        if (pp_backend_status(all[i]) != PP_SUCCESS) {
            if (strcmp(a->backend, "all")) {
                fprintf(stderr, "%s: backend %s is not available: %s\n", name, bn, pp_last_error(NULL));
                return 2;
            }
            printf("%s: %s: not available here, skipped\n", name, bn);
            continue;
        }
        pp_options opt = PP_OPTIONS_INIT;
        opt.backend = all[i];
        pp_context *ctx = NULL;
        ex_ok(NULL, pp_create(&ctx, &opt), "pp_create");
        printf("%s on %s (%s), n = %zu, seed %llu\n", name, bn, pp_context_device_name(ctx), a->n,
               (unsigned long long)a->seed);
        int r = body(ctx, a);
        printf("%s on %s: %s\n", name, bn, r ? "MISMATCH" : "ok");
        rc |= r;
        ran++;
        pp_destroy(ctx);
    }
    if (!ran) {
        fprintf(stderr, "%s: no backend named '%s' in this build\n", name, a->backend);
        return 2;
    }
    return rc ? 1 : 0;
}

#endif
