/* The distributed tests' shared pieces (dist_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "dist_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_rank, g_size;
static uint64_t g_seed;
static unsigned long g_failures;
static char g_case[512];

uint64_t dt_seed(void) { return g_seed; }
unsigned long dt_failures(void) { return g_failures; }

void dt_init(int *argc, char ***argv, const char *program)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    unsigned long long seed = 0;
    if (g_rank == 0) {
        const char *s = getenv("PARPRIM_TEST_SEED");
        if (s && *s) seed = strtoull(s, NULL, 10);
        else {
            tc_rng r = {(uint64_t)time(NULL) ^ ((uint64_t)clock() << 20)};
            seed = tc_next(&r) % 1000000000000ull;
        }
        printf("%s: %d ranks, seed %llu (set PARPRIM_TEST_SEED=%llu to reproduce)\n", program, g_size, seed, seed);
        fflush(stdout);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    g_seed = seed;
}

int dt_backends(const pp_backend **list)
{
    static pp_backend found[3];
    int n = 0;
    const char *want = getenv("PARPRIM_TEST_BACKENDS");
    const pp_backend all[3] = {PP_BACKEND_CPU, PP_BACKEND_CUDA, PP_BACKEND_OPENCL};
    for (int i = 0; i < 3; i++) {
        if (want && *want && !strstr(want, pp_backend_name(all[i]))) continue;
        if (pp_backend_status(all[i]) == PP_SUCCESS) found[n++] = all[i];
        else if (g_rank == 0) printf("  %s backend not present here: not tested\n", pp_backend_name(all[i]));
    }
    *list = found;
    return n;
}

int dt_open(dt_env *e, pp_backend backend)
{
    memset(e, 0, sizeof *e);
    e->rank = g_rank;
    e->size = g_size;
    e->backend = backend;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = backend;
    o.threads = 1 + g_rank % 2;
    const char *dev = getenv("PARPRIM_TEST_OPENCL_DEVICE");
    if (backend == PP_BACKEND_OPENCL && dev && *dev) o.device = atoi(dev);
    const char *per_rank = getenv("PARPRIM_TEST_GPU_PER_RANK");
    if (backend == PP_BACKEND_CUDA && per_rank && *per_rank == '1') { /* one GPU per rank of a node */
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &o.device);
        MPI_Comm_free(&node);
    }
    pp_status st = pp_create(&e->ctx, &o);
    int ok = st == PP_SUCCESS, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (ok) pp_destroy(e->ctx);
        else printf("  rank %d: pp_create(%s): %s: %s\n", g_rank, pp_backend_name(backend), pp_status_string(st),
                    pp_last_error(NULL));
        e->ctx = NULL;
        return 0;
    }
    st = pp_dist_create(&e->d, e->ctx, MPI_COMM_WORLD);
    if (st != PP_SUCCESS) {
        dt_fail("pp_dist_create: %s: %s", pp_status_string(st), pp_dist_last_error(NULL));
        pp_destroy(e->ctx);
        e->ctx = NULL;
        return 0;
    }
    if (g_rank == 0) {
        printf("backend %s (%s), engine %s\n", pp_backend_name(backend), pp_context_device_name(e->ctx),
               pp_dist_engine_name(e->d));
        fflush(stdout);
    }
    return 1;
}

void dt_close(dt_env *e)
{
    pp_dist_destroy(e->d);
    pp_destroy(e->ctx);
    e->d = NULL;
    e->ctx = NULL;
}

int dt_finish(const char *program)
{
    unsigned long long mine[2] = {g_failures, tc_skipped}, sum[2] = {0, 0};
    MPI_Reduce(mine, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("%s: %d ranks: %s (%llu failure%s)\n", program, g_size, sum[0] ? "FAILED" : "passed", sum[0],
               sum[0] == 1 ? "" : "s");
        printf("%s: skipped %llu\n", program, sum[1]);
        fflush(stdout);
    }
    unsigned long long failed = sum[0];
    MPI_Bcast(&failed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed ? 1 : 0;
}

tc_rng dt_rng(const char *name)
{
    tc_rng r = {g_seed * 0x9e3779b97f4a7c15ull + (uint64_t)g_rank * 0xbf58476d1ce4e5b9ull};
    for (; *name; name++) r.s = (r.s ^ (unsigned char)*name) * 0x100000001b3ull;
    tc_next(&r);
    return r;
}

tc_rng dt_rng_all(const char *name)
{
    tc_rng r = {g_seed * 0x94d049bb133111ebull + 17};
    for (; *name; name++) r.s = (r.s ^ (unsigned char)*name) * 0x100000001b3ull;
    tc_next(&r);
    return r;
}

void dt_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_case, sizeof g_case, fmt, ap);
    va_end(ap);
}

void dt_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g_failures++;
    if (g_failures <= 20)
        printf("FAILED on rank %d of %d (seed %llu: PARPRIM_TEST_SEED=%llu reproduces)\n  case: %s\n  %s\n", g_rank,
               g_size, (unsigned long long)g_seed, (unsigned long long)g_seed, g_case, msg);
    fflush(stdout);
}

int dt_ok(const dt_env *e, pp_status st, const char *call)
{
    if (st == PP_SUCCESS) return 1;
    dt_fail("%s returned %s: %s", call, pp_status_string(st), pp_dist_last_error(e->d));
    return 0;
}

int dt_equal(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t at = 0;
    if (ref_equal(t, got, want, n, &at)) return 1;
    char a[80], b[80];
    dt_fail("%s: first difference at index %zu of %zu: got %s, expected %s", what, at, n,
            ref_format(t, got, at, a, sizeof a), ref_format(t, want, at, b, sizeof b));
    return 0;
}

int dt_bits(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t sz = pp_type_size(t);
    if (n == 0 || memcmp(got, want, n * sz) == 0) return 1;
    size_t i = 0;
    while (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) == 0) i++;
    char a[80], b[80];
    dt_fail("%s: first difference (bitwise) at index %zu of %zu: got %s, expected %s", what, i, n,
            ref_format(t, got, i, a, sizeof a), ref_format(t, want, i, b, sizeof b));
    return 0;
}

void *dt_upload(const dt_env *e, const void *host, size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) return NULL;
    pp_status st = pp_malloc(e->ctx, &p, bytes);
    if (st != PP_SUCCESS) {
        dt_fail("pp_malloc(%zu): %s", bytes, pp_last_error(e->ctx));
        return NULL;
    }
    if (host && (st = pp_upload(e->ctx, p, host, bytes)) != PP_SUCCESS)
        dt_fail("pp_upload(%zu): %s", bytes, pp_last_error(e->ctx));
    return p;
}

void dt_download(const dt_env *e, void *host, const void *dev, size_t bytes)
{
    if (bytes == 0 || !dev) return;
    pp_status st = pp_download(e->ctx, host, dev, bytes);
    if (st != PP_SUCCESS) dt_fail("pp_download(%zu): %s", bytes, pp_last_error(e->ctx));
}

void dt_free(const dt_env *e, void *dev)
{
    if (dev) pp_free(e->ctx, dev);
}

size_t dt_gather(const void *mine, size_t bytes, void **all, size_t *counts)
{
    unsigned long long b = bytes, *cs = malloc((size_t)g_size * sizeof *cs);
    MPI_Gather(&b, 1, MPI_UNSIGNED_LONG_LONG, cs, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int *ic = NULL, *id = NULL;
    size_t total = 0;
    *all = NULL;
    if (g_rank == 0) {
        ic = malloc((size_t)g_size * sizeof *ic);
        id = malloc((size_t)g_size * sizeof *id);
        for (int r = 0; r < g_size; r++) {
            ic[r] = (int)cs[r]; /* test sizes stay far below 2^31 bytes */
            id[r] = (int)total;
            if (counts) counts[r] = cs[r];
            total += cs[r];
        }
        *all = malloc(total + 1);
    }
    MPI_Gatherv(mine ? mine : "", (int)bytes, MPI_BYTE, *all, ic, id, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(ic);
    free(id);
    free(cs);
    return total;
}

const char *dt_layout_name(int layout)
{
    static const char *names[DT_LAYOUTS] = {"random sizes", "odd ranks empty", "all empty", "only the last rank",
                                            "equal sizes", "one each"};
    return names[layout];
}

size_t dt_layout_n(int layout, size_t max, tc_rng *r)
{
    switch (layout) {
    case 0: return (size_t)tc_below(r, max + 1);
    case 1: return g_rank % 2 ? 0 : (size_t)tc_below(r, max + 1);
    case 2: return 0;
    case 3: return g_rank == g_size - 1 ? max : 0;
    case 4: return max / 2;
    default: return 1;
    }
}

void dt_set_num(pp_type t, void *buf, size_t i, double v)
{
    if (tc_is_float(t)) tc_set_f(t, buf, i, v);
    else tc_set_int(t, buf, i, (uint64_t)(int64_t)(v < 0 ? v - 0.5 : v + 0.5));
}

void dt_fill(tc_rng *r, pp_type t, pp_op op, void *buf, size_t n)
{
    int fl = tc_is_float(t);
    int zeros = fl && op == PP_SUM && tc_below(r, 4) == 0; /* all -0.0 (or a +0.0 among them) */
    int plus_zero = zeros && tc_below(r, 2);
    for (size_t i = 0; i < n; i++) {
        if (!fl) {
            uint64_t v = tc_next(r);
            if (op == PP_PROD) v = tc_below(r, 8) == 0 ? 2 + tc_below(r, 3) : 1; /* keeps some products non-zero */
            else if (tc_below(r, 4) == 0) v = tc_below(r, 5);                    /* duplicates, zeros */
            tc_set_int(t, buf, i, v);
        } else if (zeros) {
            tc_set_f(t, buf, i, -0.0);
        } else if (op == PP_SUM) {
            tc_set_f(t, buf, i, (double)tc_between(r, -4000, 4000) / 4);
        } else if (op == PP_PROD) {
            double v = tc_below(r, 2) ? 1.0 : -1.0;
            if (tc_below(r, 64) == 0) v *= tc_below(r, 2) ? 2.0 : 0.5;
            tc_set_f(t, buf, i, v);
        } else if (tc_below(r, 50) == 0 && n > 8) {
            tc_set_nan(r, t, buf, i);
        } else if (tc_below(r, 8) == 0) {
            tc_set_f(t, buf, i, tc_below(r, 2) ? -0.0 : 0.0);
        } else {
            tc_set_any_float(r, t, buf, i);
        }
    }
    if (plus_zero && n > 0) tc_set_f(t, buf, tc_below(r, n), 0.0);
}

void dt_fill_keys(tc_rng *r, pp_type t, void *buf, size_t n)
{
    int few = tc_below(r, 2) == 0; /* few distinct values: long runs of equal keys */
    for (size_t i = 0; i < n; i++) {
        if (tc_is_float(t)) {
            uint64_t k = tc_below(r, 16);
            if (k == 0) tc_set_nan(r, t, buf, i);
            else if (k == 1) tc_set_f(t, buf, i, -0.0);
            else if (k == 2) tc_set_f(t, buf, i, 0.0);
            else if (few) tc_set_f(t, buf, i, (double)tc_between(r, -3, 3));
            else tc_set_any_float(r, t, buf, i);
        } else {
            tc_set_int(t, buf, i, few ? tc_below(r, 6) + (tc_below(r, 2) ? 0 : UINT64_MAX - 6) : tc_next(r));
        }
    }
}
