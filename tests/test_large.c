/* Inputs of more than 2^31 elements (n = 2^31 + 2^20 + 7 one-byte
 * elements), on every backend present and with every algorithm the backend
 * accepts for the primitive (a study algorithm that refuses the size with
 * PP_ERROR_UNSUPPORTED is skipped and counted): pp_reduce SUM and MAX on u8
 * and i8, an in-place inclusive SUM scan on i8 against the reference run on
 * a host copy, and an ascending u8 sort checked for order and for the 256
 * counts of the input; then other bytes as n / 2 u16 keys (more than 2^30
 * keys, so a GPU radix sort must carry digit offsets across its 2^30-key
 * portions), sorted ascending and checked for order and for the 65536
 * counts. About 2 x n bytes of device memory plus the library's scratch,
 * and 2 x n of host memory. */
#define _POSIX_C_SOURCE 200809L
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LARGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define CHUNK ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A fast generator: one splitmix64 step per 8 bytes, in blocks of 1 MiB
 * with a generator each (seeded from start and the block's index), filled
 * in parallel; the bytes depend only on start, so they can be made again. */
static void fill(uint64_t start, unsigned char *p, size_t n)
{
    const size_t block = (size_t)1 << 20;
    const long nblocks = (long)((n + block - 1) / block);
#pragma omp parallel for schedule(static)
    for (long b = 0; b < nblocks; b++) {
        tc_rng r = {start ^ ((uint64_t)b * 0xd1342543de82ef95ull)};
        size_t lo = (size_t)b * block, hi = lo + block < n ? lo + block : n, i = lo;
        for (; i + 8 <= hi; i += 8) {
            uint64_t v = tc_next(&r);
            memcpy(p + i, &v, 8);
        }
        for (; i < hi; i++) p[i] = (unsigned char)tc_next(&r);
    }
}

static void count_bytes(const unsigned char *p, size_t n, uint64_t counts[256])
{
    uint64_t c[4][256];
    memset(c, 0, sizeof c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        c[0][p[i]]++;
        c[1][p[i + 1]]++;
        c[2][p[i + 2]]++;
        c[3][p[i + 3]]++;
    }
    for (; i < n; i++) c[0][p[i]]++;
    for (int v = 0; v < 256; v++) counts[v] = c[0][v] + c[1][v] + c[2][v] + c[3][v];
}

/* Downloads the device array in chunks (pointer offsets where handles are
 * addresses, else whole) and calls check(chunk, offset, length, arg). */
static void for_chunks(pp_context *ctx, const unsigned char *dev, size_t n,
                       void (*check)(const unsigned char *, size_t, size_t, void *), void *arg)
{
    if (pp_context_backend(ctx) == PP_BACKEND_OPENCL) {
        unsigned char *all = (unsigned char *)tc_halloc(n);
        TC_OK(pp_download(ctx, all, dev, n));
        check(all, 0, n, arg);
        free(all);
        return;
    }
    unsigned char *buf = (unsigned char *)tc_halloc(CHUNK);
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        TC_OK(pp_download(ctx, buf, dev + off, len));
        check(buf, off, len, arg);
    }
    free(buf);
}

static void check_equal_chunk(const unsigned char *got, size_t off, size_t len, void *arg)
{
    const unsigned char *want = (const unsigned char *)arg + off;
    if (memcmp(got, want, len) == 0) return;
    for (size_t i = 0; i < len; i++)
        if (got[i] != want[i])
            TC_FAIL("first difference at index %zu: got %d, expected %d", off + i, (int)(int8_t)got[i],
                    (int)(int8_t)want[i]);
}

typedef struct sorted_state {
    const uint64_t *counts;
    int value;      /* the value expected next */
    uint64_t left;  /* how many more of it */
} sorted_state;

static void check_sorted_chunk(const unsigned char *got, size_t off, size_t len, void *arg)
{
    sorted_state *s = (sorted_state *)arg;
    size_t i = 0;
    while (i < len) {
        while (s->left == 0 && s->value < 255) s->left = s->counts[++s->value];
        size_t run = (size_t)(s->left < len - i ? s->left : len - i);
        if (run == 0) TC_FAIL("more elements than the input had (index %zu)", off + i);
        for (size_t k = 0; k < run; k++)
            if (got[i + k] != s->value)
                TC_FAIL("index %zu: got %d, expected %d (not sorted, or the counts of values changed)", off + i + k,
                        got[i + k], s->value);
        i += run;
        s->left -= run;
    }
}

typedef struct sorted16_state {
    const uint64_t *counts; /* 65536 */
    unsigned value;
    uint64_t left;
} sorted16_state;

static void check_sorted16_chunk(const unsigned char *got, size_t off, size_t len, void *arg)
{
    sorted16_state *s = (sorted16_state *)arg;
    for (size_t i = 0; i + 2 <= len; i += 2) {
        uint16_t v;
        memcpy(&v, got + i, 2);
        while (s->left == 0 && s->value < 65535) s->left = s->counts[++s->value];
        if (s->left == 0) TC_FAIL("more elements than the input had (key %zu)", (off + i) / 2);
        if (v != s->value)
            TC_FAIL("key %zu: got %u, expected %u (not sorted, or the counts of values changed)", (off + i) / 2,
                    (unsigned)v, s->value);
        s->left--;
    }
}

/* Runs call() once per algorithm the context accepts for prim (AUTO
 * first); an algorithm other than AUTO that refuses the call with
 * PP_ERROR_UNSUPPORTED (a study algorithm with a size cap) is skipped and
 * counted. call returns the status of the primitive and checks the result
 * itself; it is given the algorithm's name for messages. */
typedef pp_status (*algo_call)(pp_context *ctx, const char *algo, void *arg);

static void for_algorithms(pp_context *ctx, pp_primitive prim, algo_call call, void *arg)
{
    for (int a = 0; a < PP_ALGO_COUNT; a++) {
        if (a != PP_ALGO_AUTO && pp_set_algorithm(ctx, prim, (pp_algorithm)a) != PP_SUCCESS) continue;
        const char *name = pp_algorithm_name((pp_algorithm)a);
        pp_status st = call(ctx, name, arg);
        if (st == PP_ERROR_UNSUPPORTED && a != PP_ALGO_AUTO) {
            printf("  %s %s: skipped (%s)\n", pp_primitive_name(prim), name, pp_last_error(ctx));
            tc_skipped++;
        } else if (st != PP_SUCCESS) {
            pp_set_algorithm(ctx, prim, PP_ALGO_AUTO);
            TC_FAIL("%s with algorithm %s returned %s: %s", pp_primitive_name(prim), name, pp_status_string(st),
                    pp_last_error(ctx));
        }
    }
    TC_OK(pp_set_algorithm(ctx, prim, PP_ALGO_AUTO));
}

/* ---- the checks, one call per algorithm ---- */

/* input holds the bytes every scan and sort starts from (generated once per
 * data set; each algorithm gets them uploaded again, since scan and sort
 * work in place). */
typedef struct large_state {
    const char *bname;
    void *dev, *out;
    size_t n;
    const unsigned char *input;   /* n bytes of host memory */
    const uint64_t *counts;       /* 256 counts of the u8 input */
    const uint64_t *counts16;     /* 65536 counts of the u16 input */
    const unsigned char *scanned; /* the reference's i8 inclusive scan of the u8 input */
    uint64_t usum;
    int umax, imax;
} large_state;

static void upload_input(pp_context *ctx, const large_state *L)
{
    TC_OK(pp_upload(ctx, L->dev, L->input, L->n));
}

static pp_status check_reduce(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    const pp_type types[4] = {PP_U8, PP_I8, PP_U8, PP_I8};
    const pp_op ops[4] = {PP_SUM, PP_SUM, PP_MAX, PP_MAX};
    const int want[4] = {(unsigned char)L->usum, (unsigned char)L->usum, L->umax, (unsigned char)(signed char)L->imax};
    double t1 = now();
    for (int k = 0; k < 4; k++) {
        tc_case("%s prim=reduce algo=%s type=%s op=%s n=%zu", L->bname, algo, pp_type_name(types[k]),
                pp_op_name(ops[k]), L->n);
        pp_status st = pp_reduce(ctx, types[k], ops[k], L->dev, L->n, L->out);
        if (st != PP_SUCCESS) return st;
        unsigned char r = 0;
        TC_OK(pp_download(ctx, &r, L->out, 1));
        TC_REQUIRE(r == want[k], "%s %s with %s: got %d, expected %d", pp_type_name(types[k]), pp_op_name(ops[k]),
                   algo, r, want[k]);
    }
    printf("  %s: reduce (%s) ok (%.1f s)\n", L->bname, algo, now() - t1);
    return PP_SUCCESS;
}

static pp_status check_scan(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    double t1 = now();
    upload_input(ctx, L);
    tc_case("%s prim=scan algo=%s type=i8 op=sum kind=inclusive in-place n=%zu", L->bname, algo, L->n);
    pp_status st = pp_scan(ctx, PP_I8, PP_SUM, PP_INCLUSIVE, L->dev, L->dev, L->n);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    for_chunks(ctx, (const unsigned char *)L->dev, L->n, check_equal_chunk, (void *)L->scanned);
    printf("  %s: scan (%s) ok (pp_scan %.1f s, all %.1f s)\n", L->bname, algo, t2 - t1, now() - t1);
    return PP_SUCCESS;
}

static pp_status check_sort_u8(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    double t1 = now();
    upload_input(ctx, L);
    tc_case("%s prim=sort algo=%s type=u8 order=ascending n=%zu", L->bname, algo, L->n);
    pp_status st = pp_sort(ctx, PP_U8, L->dev, L->n, PP_ASCENDING);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    sorted_state s = {L->counts, 0, L->counts[0]};
    for_chunks(ctx, (const unsigned char *)L->dev, L->n, check_sorted_chunk, &s);
    while (s.left == 0 && s.value < 255) s.left = L->counts[++s.value];
    TC_REQUIRE(s.left == 0, "fewer elements of value %d than in the input", s.value);
    printf("  %s: sort (%s) ok (pp_sort %.1f s, all %.1f s)\n", L->bname, algo, t2 - t1, now() - t1);
    return PP_SUCCESS;
}

/* The input as n / 2 u16 keys (CHUNK is even, so chunks hold whole keys). */
static pp_status check_sort_u16(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    const size_t m = L->n / 2;
    double t1 = now();
    upload_input(ctx, L);
    tc_case("%s prim=sort algo=%s type=u16 order=ascending n=%zu", L->bname, algo, m);
    pp_status st = pp_sort(ctx, PP_U16, L->dev, m, PP_ASCENDING);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    sorted16_state s = {L->counts16, 0, L->counts16[0]};
    for_chunks(ctx, (const unsigned char *)L->dev, 2 * m, check_sorted16_chunk, &s);
    while (s.left == 0 && s.value < 65535) s.left = L->counts16[++s.value];
    TC_REQUIRE(s.left == 0, "fewer keys of value %u than in the input", s.value);
    printf("  %s: u16 sort (%s) of %zu keys ok (pp_sort %.1f s, all %.1f s)\n", L->bname, algo, m, t2 - t1,
           now() - t1);
    return PP_SUCCESS;
}

static void run_backend(pp_context *ctx, uint64_t start)
{
    const size_t n = LARGE_N;
    const char *bname = pp_backend_name(pp_context_backend(ctx));
    double t0 = now();
    unsigned char *input = (unsigned char *)malloc(n);
    unsigned char *scanned = (unsigned char *)malloc(n);
    TC_REQUIRE(input != NULL && scanned != NULL, "cannot allocate 2 x %zu bytes of host memory", n);
    void *dev = NULL;
    pp_status st = pp_malloc(ctx, &dev, n);
    if (st != PP_SUCCESS) {
        free(input);
        free(scanned);
        TC_FAIL("pp_malloc(%zu) on %s: %s", n, bname, pp_last_error(ctx));
    }
    fill(start, input, n);
    double tf = now();
    uint64_t counts[256];
    count_bytes(input, n, counts);
    double tc = now();
    large_state L = {bname, dev, NULL, n, input, counts, NULL, NULL, 0, 0, -128};
    upload_input(ctx, &L);
    printf("  %s: n = %zu, data ready in %.1f s (generate %.1f s, count %.1f s, pp_upload %.1f s)\n", bname, n,
           now() - t0, tf - t0, tc - tf, now() - tc);

    /* reduce: the answers from the counts, and the reference agrees */
    for (int v = 0; v < 256; v++) {
        L.usum += (uint64_t)v * counts[v];
        if (counts[v]) {
            L.umax = v;
            if ((int8_t)v > L.imax) L.imax = (int8_t)v;
        }
    }
    unsigned char ref = 0;
    ref_reduce(PP_I8, PP_SUM, input, n, &ref);
    TC_REQUIRE(ref == (unsigned char)L.usum, "the reference's i8 sum disagrees with the counts");
    TC_OK(pp_malloc(ctx, &L.out, 8));
    for_algorithms(ctx, PP_PRIM_REDUCE, check_reduce, &L);

    /* in-place inclusive scan on i8, against the reference's scan */
    ref_scan(PP_I8, PP_SUM, PP_INCLUSIVE, input, scanned, n);
    L.scanned = scanned;
    for_algorithms(ctx, PP_PRIM_SCAN, check_scan, &L);
    free(scanned);
    L.scanned = NULL;

    /* sort u8 ascending */
    for_algorithms(ctx, PP_PRIM_SORT, check_sort_u8, &L);

    /* the bytes of another generator as u16 keys */
    uint64_t *counts16 = (uint64_t *)calloc(65536, sizeof(uint64_t));
    TC_REQUIRE(counts16 != NULL, "cannot allocate the u16 counts");
    fill(start ^ 0x5a5a5a5a5a5a5a5aull, input, n);
    for (size_t i = 0; i + 2 <= n; i += 2) {
        uint16_t v;
        memcpy(&v, input + i, 2);
        counts16[v]++;
    }
    L.counts16 = counts16;
    for_algorithms(ctx, PP_PRIM_SORT, check_sort_u16, &L);
    free(counts16);
    free(input);

    TC_OK(pp_free(ctx, L.out));
    TC_OK(pp_free(ctx, dev));
}

static void test_large(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    tc_rng r = tc_rng_for("large");
    for (size_t i = 0; i < nctx; i++) {
        /* on cpu: all cores (the shared contexts use 1 to 3 threads) */
        pp_context *ctx = ctxs[i];
        if (pp_context_backend(ctx) == PP_BACKEND_CPU) {
            pp_options o = PP_OPTIONS_INIT;
            o.backend = PP_BACKEND_CPU;
            TC_OK(pp_create(&ctx, &o));
        }
        run_backend(ctx, tc_next(&r));
        if (ctx != ctxs[i]) pp_destroy(ctx);
    }
}

int main(void)
{
    tc_init("test_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_large)};
    int rc = cmocka_run_group_tests_name("large", tests, NULL, NULL);
    tc_finish();
    return rc;
}
