/* Inputs of more than 2^31 elements (n = 2^31 + 2^20 + 7 one-byte
 * elements), on every backend present and with every algorithm the backend
 * accepts for the primitive (on opencl not the named algorithm that AUTO
 * has just run: opencl_auto_again; a study algorithm that refuses the size with
 * PP_ERROR_UNSUPPORTED is skipped and counted): pp_reduce SUM and MAX on u8
 * and i8, an in-place inclusive SUM scan on i8 against the reference run on
 * a host copy, and an ascending u8 sort checked for order and for the 256
 * counts of the input; then other bytes as n / 2 u16 keys (more than 2^30
 * keys, so a GPU radix sort must carry digit offsets across its 2^30-key
 * portions), sorted ascending and checked for order and for the 65536
 * counts. About 2 x n bytes of device memory plus the library's scratch,
 * and 2 x n of host memory (3 x n on opencl, whose buffers are downloaded
 * whole).
 *
 * Each backend asks first (tc_need_buffers): the reduce, scan and u8 sort,
 * and the u16 sort, each run only where the device's largest buffer holds
 * their buffer and the library's scratch, and device and host memory hold
 * them all; else they are skipped with the reason, and counted. Where the
 * device's largest buffer is below n but above 2^31 + 64 bytes, n shrinks
 * to it (and the u16 keys to what the sort's scratch allows, above 2^30),
 * since the point is more than 2^31 elements (2^30 keys), not n itself;
 * never below. PP_ERROR_OUT_OF_MEMORY from pp_malloc, pp_upload (PoCL
 * allocates buffers when first written) or a primitive (its scratch), and a
 * failed host malloc, are skips with the message too: memory that others
 * took between asking and allocating. Any other status, or a wrong result,
 * fails. */
#define _POSIX_C_SOURCE 200809L
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LARGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define MIN_N (((size_t)1 << 31) + 64)   /* the least n that is still the test: > 2^31 bytes */
#define MIN_KEYS (((size_t)1 << 30) + 1) /* the least u16 key count: > 2^30 keys */
#define CHUNK ((size_t)64 << 20)
#define SMALL_SCRATCH ((size_t)64 << 20) /* allowance for reduce's and scan's working memory */

/* Why the test itself could not allocate host memory (a skip, as the
 * library's PP_ERROR_OUT_OF_MEMORY is). */
static char g_host_oom[200];

static pp_status host_oom(size_t bytes)
{
    snprintf(g_host_oom, sizeof g_host_oom, "malloc of %zu bytes of host memory for the check failed", bytes);
    return PP_ERROR_OUT_OF_MEMORY;
}

/* The library's working memory for sorting m keys of key_size bytes, as
 * the header gives it: m * key_size plus 1 KB of counts per 2048 keys
 * (opencl); none on cpu and a few KB on opencl for 8-bit keys. */
static size_t sort_scratch(pp_backend b, size_t key_size, size_t m)
{
    if (key_size == 1 && b != PP_BACKEND_CUDA) return (size_t)1 << 20;
    return m * key_size + (m / 2048 + 1) * 1024;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

/* Host memory the downloads of an n-byte result take. */
static size_t download_bytes(pp_backend b, size_t n) { return b == PP_BACKEND_OPENCL ? n : CHUNK; }

/* Downloads the device array in chunks (pointer offsets where handles are
 * addresses, else whole) and calls check(chunk, offset, length, arg).
 * PP_ERROR_OUT_OF_MEMORY where the host buffer cannot be had. */
static pp_status for_chunks(pp_context *ctx, const unsigned char *dev, size_t n,
                            void (*check)(const unsigned char *, size_t, size_t, void *), void *arg)
{
    size_t cap = download_bytes(pp_context_backend(ctx), n);
    unsigned char *buf = (unsigned char *)malloc(cap);
    if (!buf) return host_oom(cap);
    if (cap >= n) {
        TC_OK(pp_download(ctx, buf, dev, n));
        check(buf, 0, n, arg);
        free(buf);
        return PP_SUCCESS;
    }
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        TC_OK(pp_download(ctx, buf, dev + off, len));
        check(buf, off, len, arg);
    }
    free(buf);
    return PP_SUCCESS;
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
    int value;     /* the value expected next */
    uint64_t left; /* how many more of it */
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
 * first; byte_keys: u8 keys alone), but on opencl not the one AUTO ran
 * (opencl_auto_again); an algorithm other than AUTO that refuses the call with
 * PP_ERROR_UNSUPPORTED (a study algorithm with a size cap) is skipped and
 * counted, and so is any algorithm whose call finds no memory
 * (PP_ERROR_OUT_OF_MEMORY: the upload, the library's scratch, or the
 * check's host buffer). call returns the status of the primitive or of
 * what failed to allocate, and checks the result itself; it is given the
 * algorithm's name for messages. */
typedef pp_status (*algo_call)(pp_context *ctx, const char *algo, void *arg);

/* 1 where the named algorithm a is what AUTO ran on this opencl context
 * (src/opencl: the scan's AUTO is reduce-then-scan; the sort's is
 * count-scan-scatter wherever onesweep refuses to run, and for 1-byte keys
 * alone everywhere): the same kernels past 2^31 a second time, which the
 * large stage cannot afford on PoCL; the unit tests run them by name at
 * every size. */
static int opencl_auto_again(pp_context *ctx, pp_primitive prim, int a, int onesweep_refused, int byte_keys)
{
    if (pp_context_backend(ctx) != PP_BACKEND_OPENCL) return 0;
    if (prim == PP_PRIM_SCAN) return a == PP_ALGO_REDUCE_THEN_SCAN;
    if (prim == PP_PRIM_SORT) return a == PP_ALGO_COUNT_SCAN_SCATTER && (onesweep_refused || byte_keys);
    return 0;
}

static void for_algorithms(pp_context *ctx, const char *what, pp_primitive prim, int byte_keys, algo_call call,
                           void *arg)
{
    const char *bname = pp_backend_name(pp_context_backend(ctx));
    int onesweep_refused = 0;
    for (int a = 0; a < PP_ALGO_COUNT; a++) {
        if (a != PP_ALGO_AUTO && pp_set_algorithm(ctx, prim, (pp_algorithm)a) != PP_SUCCESS) continue;
        const char *name = pp_algorithm_name((pp_algorithm)a);
        if (opencl_auto_again(ctx, prim, a, onesweep_refused, byte_keys)) {
            tc_skip(NULL, "%s %s with algorithm %s: what auto ran here (the same kernels)", bname, what, name);
            continue;
        }
        g_host_oom[0] = '\0';
        pp_status st = call(ctx, name, arg);
        if (a == PP_ALGO_ONESWEEP && st == PP_ERROR_UNSUPPORTED) onesweep_refused = 1;
        if (st == PP_ERROR_UNSUPPORTED && a != PP_ALGO_AUTO) {
            tc_skip(NULL, "%s %s with algorithm %s: PP_ERROR_UNSUPPORTED, which an algorithm other than auto may (%s)",
                    bname, what, name, pp_last_error(ctx));
        } else if (st == PP_ERROR_OUT_OF_MEMORY) {
            tc_skip(NULL, "%s %s with algorithm %s: out of memory after asking (%s)", bname, what, name,
                    g_host_oom[0] ? g_host_oom : pp_last_error(ctx));
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
    size_t m;                     /* u16 keys sorted: at most n / 2 */
    const unsigned char *input;   /* n bytes of host memory */
    const uint64_t *counts;       /* 256 counts of the u8 input */
    const uint64_t *counts16;     /* 65536 counts of the u16 input */
    const unsigned char *scanned; /* the reference's i8 inclusive scan of the u8 input */
    uint64_t usum;
    int umax, imax;
} large_state;

/* PP_ERROR_OUT_OF_MEMORY (PoCL allocates a buffer when it is first
 * written) is returned for the caller to skip; any other error fails. */
static pp_status upload_input(pp_context *ctx, const large_state *L)
{
    pp_status st = pp_upload(ctx, L->dev, L->input, L->n);
    if (st != PP_SUCCESS && st != PP_ERROR_OUT_OF_MEMORY)
        TC_FAIL("pp_upload of %zu bytes returned %s: %s", L->n, pp_status_string(st), pp_last_error(ctx));
    return st;
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
        TC_REQUIRE(r == want[k], "%s %s with %s: got %d, expected %d", pp_type_name(types[k]), pp_op_name(ops[k]), algo,
                   r, want[k]);
    }
    printf("  %s: reduce (%s) ok (%.1f s)\n", L->bname, algo, now() - t1);
    return PP_SUCCESS;
}

static pp_status check_scan(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    double t1 = now();
    tc_case("%s prim=scan algo=%s type=i8 op=sum kind=inclusive in-place n=%zu", L->bname, algo, L->n);
    pp_status st = upload_input(ctx, L);
    if (st == PP_SUCCESS) st = pp_scan(ctx, PP_I8, PP_SUM, PP_INCLUSIVE, L->dev, L->dev, L->n);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    st = for_chunks(ctx, (const unsigned char *)L->dev, L->n, check_equal_chunk, (void *)L->scanned);
    if (st != PP_SUCCESS) return st;
    printf("  %s: scan (%s) ok (pp_scan %.1f s, all %.1f s)\n", L->bname, algo, t2 - t1, now() - t1);
    return PP_SUCCESS;
}

static pp_status check_sort_u8(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    double t1 = now();
    tc_case("%s prim=sort algo=%s type=u8 order=ascending n=%zu", L->bname, algo, L->n);
    pp_status st = upload_input(ctx, L);
    if (st == PP_SUCCESS) st = pp_sort(ctx, PP_U8, L->dev, L->n, PP_ASCENDING);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    sorted_state s = {L->counts, 0, L->counts[0]};
    st = for_chunks(ctx, (const unsigned char *)L->dev, L->n, check_sorted_chunk, &s);
    if (st != PP_SUCCESS) return st;
    while (s.left == 0 && s.value < 255) s.left = L->counts[++s.value];
    TC_REQUIRE(s.left == 0, "fewer elements of value %d than in the input", s.value);
    printf("  %s: sort (%s) ok (pp_sort %.1f s, all %.1f s)\n", L->bname, algo, t2 - t1, now() - t1);
    return PP_SUCCESS;
}

/* The first 2 * m bytes of the input as m u16 keys (CHUNK is even, so
 * chunks hold whole keys). */
static pp_status check_sort_u16(pp_context *ctx, const char *algo, void *arg)
{
    large_state *L = (large_state *)arg;
    const size_t m = L->m;
    double t1 = now();
    tc_case("%s prim=sort algo=%s type=u16 order=ascending n=%zu", L->bname, algo, m);
    pp_status st = upload_input(ctx, L);
    if (st == PP_SUCCESS) st = pp_sort(ctx, PP_U16, L->dev, m, PP_ASCENDING);
    if (st != PP_SUCCESS) return st;
    double t2 = now();
    sorted16_state s = {L->counts16, 0, L->counts16[0]};
    st = for_chunks(ctx, (const unsigned char *)L->dev, 2 * m, check_sorted16_chunk, &s);
    if (st != PP_SUCCESS) return st;
    while (s.left == 0 && s.value < 65535) s.left = L->counts16[++s.value];
    TC_REQUIRE(s.left == 0, "fewer keys of value %u than in the input", s.value);
    printf("  %s: u16 sort (%s) of %zu keys ok (pp_sort %.1f s, all %.1f s)\n", L->bname, algo, m, t2 - t1, now() - t1);
    return PP_SUCCESS;
}

/* The sizes this device allows (see the top): n bytes, m u16 keys. */
static void choose_sizes(pp_context *ctx, size_t *n, size_t *m)
{
    pp_memory_info mi;
    memset(&mi, 0, sizeof mi);
    TC_OK(pp_context_memory(ctx, &mi));
    const uint64_t cap = mi.max_alloc_bytes;
    const pp_backend b = pp_context_backend(ctx);
    *n = LARGE_N;
    if (cap && cap < *n && cap >= MIN_N) {
        *n = (size_t)(((cap - 7) & ~(uint64_t)63) + 7);
        printf("  %s: n = %zu, not %zu: the device's largest buffer is %llu bytes\n", pp_backend_name(b), *n,
               (size_t)LARGE_N, (unsigned long long)cap);
    }
    *m = *n / 2;
    if (cap && sort_scratch(b, 2, *m) > cap && cap > 2048) {
        /* 2m + (m / 2048 + 1) * 1024 <= cap: m <= (cap - 1024) * 2 / 5 */
        size_t k = (size_t)((cap - 1024) / 5 * 2);
        if (k >= MIN_KEYS && k < *m) {
            *m = k;
            printf("  %s: u16 sort of %zu keys, not %zu: its working memory must fit the device's largest buffer, "
                   "%llu bytes\n",
                   pp_backend_name(b), *m, *n / 2, (unsigned long long)cap);
        }
    }
}

static void run_backend(pp_context *ctx, uint64_t start)
{
    const pp_backend be = pp_context_backend(ctx);
    const char *bname = pp_backend_name(be);
    tc_case("%s setup (sizes, memory, data)", bname);
    size_t n, m;
    choose_sizes(ctx, &n, &m);
    const size_t dl = download_bytes(be, n);
    const size_t s8 = sort_scratch(be, 1, n), s16 = sort_scratch(be, 2, m);
    char what_a[96], what_b[96];
    snprintf(what_a, sizeof what_a, "reduce, scan and u8 sort of %zu bytes", n);
    snprintf(what_b, sizeof what_b, "u16 sort of %zu keys", m);
    /* device: the data, the library's scratch (the opencl backend may keep
     * a quarter more than it needs: counted); host: the input, the
     * reference's scan, the downloads */
    const int do_a = tc_need_buffers(ctx, what_a, n > s8 ? n : s8, n + s8 + s8 / 4 + SMALL_SCRATCH, 2 * n + dl);
    const int do_b = tc_need_buffers(ctx, what_b, n > s16 ? n : s16, n + s16 + s16 / 4, n + dl);
    if (!do_a && !do_b) return;

    double t0 = now();
    unsigned char *input = (unsigned char *)malloc(n);
    unsigned char *scanned = do_a ? (unsigned char *)malloc(n) : NULL;
    if (!input || (do_a && !scanned)) {
        free(input);
        free(scanned);
        tc_skip(NULL, "%s large test of %zu bytes: malloc of %s x %zu bytes of host memory failed after asking", bname,
                n, do_a ? "2" : "1", n);
        return;
    }
    large_state L = {bname, NULL, NULL, n, m, input, NULL, NULL, NULL, 0, 0, -128};
    pp_status st = pp_malloc(ctx, &L.dev, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &L.out, 8);
    if (st != PP_SUCCESS) {
        if (st != PP_ERROR_OUT_OF_MEMORY)
            TC_FAIL("pp_malloc(%zu) on %s returned %s: %s", n, bname, pp_status_string(st), pp_last_error(ctx));
        tc_skip(NULL, "%s large test of %zu bytes: pp_malloc returned PP_ERROR_OUT_OF_MEMORY after asking (%s)", bname,
                n, pp_last_error(ctx));
        pp_free(ctx, L.dev);
        free(input);
        free(scanned);
        return;
    }

    if (do_a) {
        tc_fill_bytes(start, input, n);
        double tf = now();
        uint64_t counts[256];
        count_bytes(input, n, counts);
        double tc = now();
        L.counts = counts;
        st = upload_input(ctx, &L);
        printf("  %s: n = %zu, data ready in %.1f s (generate %.1f s, count %.1f s, pp_upload %.1f s)\n", bname, n,
               now() - t0, tf - t0, tc - tf, now() - tc);
        if (st != PP_SUCCESS) {
            tc_skip(NULL, "%s %s: pp_upload returned PP_ERROR_OUT_OF_MEMORY after asking (%s)", bname, what_a,
                    pp_last_error(ctx));
        } else {
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
            snprintf(what_a, sizeof what_a, "reduce of %zu bytes", n);
            for_algorithms(ctx, what_a, PP_PRIM_REDUCE, 0, check_reduce, &L);

            /* in-place inclusive scan on i8, against the reference's scan */
            ref_scan(PP_I8, PP_SUM, PP_INCLUSIVE, input, scanned, n);
            L.scanned = scanned;
            snprintf(what_a, sizeof what_a, "scan of %zu bytes", n);
            for_algorithms(ctx, what_a, PP_PRIM_SCAN, 0, check_scan, &L);
            L.scanned = NULL;

            /* sort u8 ascending */
            snprintf(what_a, sizeof what_a, "u8 sort of %zu bytes", n);
            for_algorithms(ctx, what_a, PP_PRIM_SORT, 1, check_sort_u8, &L);
        }
        L.counts = NULL;
        free(scanned);
        scanned = NULL;
    }

    if (do_b) {
        /* the bytes of another generator as u16 keys */
        uint64_t *counts16 = (uint64_t *)calloc(65536, sizeof(uint64_t));
        TC_REQUIRE(counts16 != NULL, "cannot allocate the u16 counts");
        tc_fill_bytes(start ^ 0x5a5a5a5a5a5a5a5aull, input, n);
        for (size_t i = 0; i < m; i++) {
            uint16_t v;
            memcpy(&v, input + 2 * i, 2);
            counts16[v]++;
        }
        L.counts16 = counts16;
        for_algorithms(ctx, what_b, PP_PRIM_SORT, 0, check_sort_u16, &L);
        L.counts16 = NULL;
        free(counts16);
    }
    free(input);
    TC_OK(pp_free(ctx, L.out));
    TC_OK(pp_free(ctx, L.dev));
}

static void test_large(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    tc_rng r = tc_rng_for("large");
    for (size_t i = 0; i < nctx; i++) {
        pp_context *ctx = tc_context_all_cores(ctxs[i]); /* the shared contexts use 1 to 3 threads */
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
