/* Every documented bad input of every function returns the documented
 * status, leaves a message naming the call and the argument in
 * pp_last_error (pp_last_error(NULL) for calls given ctx == NULL), and
 * writes nothing (outputs keep a sentinel, in-place data keeps its values).
 * Also: pp_create's options and PARPRIM_BACKEND, the name and size
 * functions, pp_version, memory functions and pp_context_memory, algorithm
 * choice, and that a message stays until the next failure.
 *
 * This file: the memory and algorithm functions, pp_context_memory,
 * pp_last_error, pp_create, the names, and main; the primitives' bad
 * arguments are in test_errors_prims.c, the fixture and the checks in
 * test_errors_fixture.c (test_errors.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rest of the API -------------------------------------------------------------------------------- */
static void errors_misc(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s memory and algorithm errors", pp_backend_name(pp_context_backend(ctx)));
    void *p = (void *)&p;
    EXPECT(ctx, pp_malloc(ctx, &p, 0), PP_SUCCESS, "pp_malloc", NULL);
    TC_REQUIRE(p == NULL, "pp_malloc(0) did not set *p to NULL");
    EXPECT(ctx, pp_malloc(ctx, NULL, 64), PP_ERROR_INVALID_ARGUMENT, "pp_malloc", "p");
    EXPECT(NULL, pp_malloc(NULL, &p, 64), PP_ERROR_INVALID_ARGUMENT, "pp_malloc", "ctx");
    p = (void *)&p;
    pp_status st = pp_malloc(ctx, &p, SIZE_MAX);
    TC_REQUIRE(st == PP_ERROR_OUT_OF_MEMORY, "pp_malloc(SIZE_MAX) returned %s", pp_status_string(st));
    TC_REQUIRE(*pp_last_error(ctx), "pp_malloc(SIZE_MAX) left no message");
    TC_REQUIRE(p == NULL, "failed pp_malloc did not set *p to NULL");
    EXPECT(ctx, pp_free(ctx, NULL), PP_SUCCESS, "pp_free", NULL);
    EXPECT(NULL, pp_free(NULL, NULL), PP_ERROR_INVALID_ARGUMENT, "pp_free", "ctx");
    if (pp_context_backend(ctx) == PP_BACKEND_CPU) {
        for (size_t b = 1; b < 5000; b = b * 3 + 1) {
            void *q = NULL;
            TC_OK(pp_malloc(ctx, &q, b));
            TC_REQUIRE(((uintptr_t)q & 63) == 0, "pp_malloc(%zu) on cpu is not 64-byte aligned", b);
            TC_OK(pp_free(ctx, q));
        }
    }
    /* upload, download, copy */
    unsigned char h[BYTES + TC_GUARD];
    EXPECT(ctx, pp_upload(ctx, NULL, h, 8), PP_ERROR_INVALID_ARGUMENT, "pp_upload", "dst");
    EXPECT(ctx, pp_upload(ctx, f->out, NULL, 8), PP_ERROR_INVALID_ARGUMENT, "pp_upload", "host_src|src");
    EXPECT(ctx, pp_download(ctx, NULL, f->in, 8), PP_ERROR_INVALID_ARGUMENT, "pp_download", "host_dst|dst");
    EXPECT(ctx, pp_download(ctx, h, NULL, 8), PP_ERROR_INVALID_ARGUMENT, "pp_download", "src");
    EXPECT(ctx, pp_upload(ctx, NULL, NULL, 0), PP_SUCCESS, "pp_upload", NULL);
    EXPECT(ctx, pp_download(ctx, NULL, NULL, 0), PP_SUCCESS, "pp_download", NULL);
    EXPECT(NULL, pp_upload(NULL, f->out, h, 8), PP_ERROR_INVALID_ARGUMENT, "pp_upload", "ctx");
    EXPECT(NULL, pp_download(NULL, h, f->in, 8), PP_ERROR_INVALID_ARGUMENT, "pp_download", "ctx");
    EXPECT(ctx, pp_copy(ctx, NULL, f->in, 8), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "dst");
    EXPECT(ctx, pp_copy(ctx, f->out, NULL, 8), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "src");
    EXPECT(ctx, pp_copy(ctx, f->big, f->big, 64), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "dst|src");
    if (f->addressable) {
        EXPECT(ctx, pp_copy(ctx, at(f->big, 1), f->big, 64), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "dst|src");
        EXPECT(ctx, pp_copy(ctx, f->big, at(f->big, 63), 64), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "dst|src");
        EXPECT(ctx, pp_copy(ctx, at(f->big, 64), f->big, 64), PP_SUCCESS, "pp_copy", NULL); /* adjacent */
        TC_OK(pp_download(ctx, h, f->big, 128));
        TC_REQUIRE(memcmp(h, f->h_big, 64) == 0 && memcmp(h + 64, f->h_big, 64) == 0, "pp_copy copied wrongly");
        TC_OK(pp_upload(ctx, f->big, f->h_big, sizeof f->h_big));
    }
    if (pp_context_backend(ctx) == PP_BACKEND_CPU) {
        /* on cpu, context memory is host memory: overlapping upload and
         * download ranges are rejected */
        char *b = (char *)f->big;
        EXPECT(ctx, pp_upload(ctx, b, b, 64), PP_ERROR_INVALID_ARGUMENT, "pp_upload", "dst|host_src");
        EXPECT(ctx, pp_upload(ctx, b + 8, b, 64), PP_ERROR_INVALID_ARGUMENT, "pp_upload", "dst|host_src");
        EXPECT(ctx, pp_download(ctx, b, b + 63, 64), PP_ERROR_INVALID_ARGUMENT, "pp_download", "host_dst|src");
        EXPECT(ctx, pp_download(ctx, b + 64, b, 64), PP_SUCCESS, "pp_download", NULL); /* adjacent */
        TC_OK(pp_upload(ctx, f->big, f->h_big, sizeof f->h_big));
    }
    EXPECT(ctx, pp_copy(ctx, f->out, f->in, 0), PP_SUCCESS, "pp_copy", NULL);
    EXPECT(NULL, pp_copy(NULL, f->out, f->in, 8), PP_ERROR_INVALID_ARGUMENT, "pp_copy", "ctx");
    FX_CHECK(f, "the memory functions");

    /* algorithm choice */
    for (int prim = 0; prim < PP_PRIM_COUNT; prim++)
        TC_REQUIRE(pp_get_algorithm(ctx, (pp_primitive)prim) == PP_ALGO_AUTO, "default algorithm is not auto");
    static const int bad_prims[] = {-1, PP_PRIM_COUNT, 100};
    for (int i = 0; i < 3; i++)
        EXPECT(ctx, pp_set_algorithm(ctx, (pp_primitive)bad_prims[i], PP_ALGO_AUTO), PP_ERROR_INVALID_ARGUMENT,
               "pp_set_algorithm", "prim");
    static const int bad_algos[] = {-1, PP_ALGO_COUNT, 100};
    for (int prim = 0; prim < PP_PRIM_COUNT; prim++) {
        for (int i = 0; i < 3; i++)
            EXPECT(ctx, pp_set_algorithm(ctx, (pp_primitive)prim, (pp_algorithm)bad_algos[i]),
                   PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm", "algo");
        TC_REQUIRE(pp_get_algorithm(ctx, (pp_primitive)prim) == PP_ALGO_AUTO, "a refused choice changed the algorithm");
        for (int a = 0; a < PP_ALGO_COUNT; a++) {
            st = pp_set_algorithm(ctx, (pp_primitive)prim, (pp_algorithm)a);
            TC_REQUIRE(st == PP_SUCCESS || st == PP_ERROR_UNSUPPORTED, "pp_set_algorithm(%d, %d) returned %s", prim,
                       a, pp_status_string(st));
            if (st == PP_SUCCESS)
                TC_REQUIRE(pp_get_algorithm(ctx, (pp_primitive)prim) == (pp_algorithm)a, "pp_get_algorithm");
            else
                TC_REQUIRE(*pp_last_error(ctx), "unsupported algorithm without a message");
        }
        TC_OK(pp_set_algorithm(ctx, (pp_primitive)prim, PP_ALGO_AUTO));
    }
    TC_REQUIRE(pp_get_algorithm(ctx, (pp_primitive)-1) == PP_ALGO_AUTO, "pp_get_algorithm(bad prim)");
    EXPECT(NULL, pp_set_algorithm(NULL, PP_PRIM_SCAN, PP_ALGO_AUTO),
           PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm", "ctx");
    if (pp_context_backend(ctx) == PP_BACKEND_CPU) {
        /* cpu has AUTO and SEQUENTIAL for every primitive, REDUCE_THEN_SCAN
         * for scan and EXACT for reduce and scan (parprim.h); the others are
         * documented for the GPU backends only */
        for (int prim = 0; prim < PP_PRIM_COUNT; prim++) {
            TC_OK(pp_set_algorithm(ctx, (pp_primitive)prim, PP_ALGO_SEQUENTIAL));
            for (int a = PP_ALGO_SEQUENTIAL + 1; a < PP_ALGO_COUNT; a++) {
                if ((prim == PP_PRIM_SCAN && a == PP_ALGO_REDUCE_THEN_SCAN) ||
                    ((prim == PP_PRIM_REDUCE || prim == PP_PRIM_SCAN) && a == PP_ALGO_EXACT)) {
                    TC_OK(pp_set_algorithm(ctx, (pp_primitive)prim, (pp_algorithm)a));
                    TC_OK(pp_set_algorithm(ctx, (pp_primitive)prim, PP_ALGO_SEQUENTIAL));
                    continue;
                }
                EXPECT(ctx, pp_set_algorithm(ctx, (pp_primitive)prim, (pp_algorithm)a), PP_ERROR_UNSUPPORTED,
                       "pp_set_algorithm", NULL);
                TC_REQUIRE(pp_get_algorithm(ctx, (pp_primitive)prim) == PP_ALGO_SEQUENTIAL,
                           "a refused algorithm changed the choice");
            }
            TC_OK(pp_set_algorithm(ctx, (pp_primitive)prim, PP_ALGO_AUTO));
        }
        EXPECT(ctx, pp_set_stream(ctx, NULL), PP_SUCCESS, "pp_set_stream", NULL);
    }
    EXPECT(ctx, pp_synchronize(ctx), PP_SUCCESS, "pp_synchronize", NULL);
    EXPECT(NULL, pp_synchronize(NULL), PP_ERROR_INVALID_ARGUMENT, "pp_synchronize", "ctx");
    EXPECT(NULL, pp_set_stream(NULL, NULL), PP_ERROR_INVALID_ARGUMENT, "pp_set_stream", "ctx");
    /* pp_context_stream: NULL on cpu, the queue or stream elsewhere (cuda:
     * never the legacy default stream); the same one on every call */
    void *s1 = (void *)1, *s2 = (void *)2;
    EXPECT(ctx, pp_context_stream(ctx, &s1), PP_SUCCESS, "pp_context_stream", NULL);
    EXPECT(ctx, pp_context_stream(ctx, &s2), PP_SUCCESS, "pp_context_stream", NULL);
    TC_REQUIRE(s1 == s2, "pp_context_stream gave two different streams");
    TC_REQUIRE((s1 == NULL) == (pp_context_backend(ctx) == PP_BACKEND_CPU),
               "pp_context_stream: NULL exactly on cpu (got %p on %s)", s1, pp_backend_name(pp_context_backend(ctx)));
    EXPECT(ctx, pp_context_stream(ctx, NULL), PP_ERROR_INVALID_ARGUMENT, "pp_context_stream", "native_stream");
    EXPECT(NULL, pp_context_stream(NULL, &s1), PP_ERROR_INVALID_ARGUMENT, "pp_context_stream", "ctx");
}

/* ---- pp_context_memory ---------------------------------------------------------------------------- */
static void errors_memory(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *fm = "pp_context_memory", *bname = pp_backend_name(pp_context_backend(ctx));
    tc_case("%s pp_context_memory", bname);
    pp_memory_info mi, untouched;
    memset(&mi, 0x5A, sizeof mi);
    untouched = mi;
    EXPECT(NULL, pp_context_memory(NULL, &mi), PP_ERROR_INVALID_ARGUMENT, fm, "ctx");
    EXPECT(NULL, pp_context_memory(NULL, NULL), PP_ERROR_INVALID_ARGUMENT, fm, "ctx");
    TC_REQUIRE(memcmp(&mi, &untouched, sizeof mi) == 0, "a failed pp_context_memory wrote *info");
    EXPECT(ctx, pp_context_memory(ctx, NULL), PP_ERROR_INVALID_ARGUMENT, fm, "info");
    const pp_context *cctx = ctx; /* it takes a const context */
    EXPECT(ctx, pp_context_memory(cctx, &mi), PP_SUCCESS, fm, NULL);
    printf("  %s: total %llu, available %llu, largest allocation %llu bytes\n", bname,
           (unsigned long long)mi.total_bytes, (unsigned long long)mi.available_bytes,
           (unsigned long long)mi.max_alloc_bytes);
    TC_REQUIRE(mi.total_bytes > 0, "%s: total_bytes is 0", bname);
    TC_REQUIRE(mi.max_alloc_bytes > 0 && mi.max_alloc_bytes <= mi.total_bytes,
               "%s: max_alloc_bytes = %llu, total_bytes = %llu", bname, (unsigned long long)mi.max_alloc_bytes,
               (unsigned long long)mi.total_bytes);
    TC_REQUIRE(mi.available_bytes <= mi.total_bytes, "%s: available_bytes = %llu > total_bytes = %llu", bname,
               (unsigned long long)mi.available_bytes, (unsigned long long)mi.total_bytes);
    switch (pp_context_backend(ctx)) {
    case PP_BACKEND_CPU:
        TC_REQUIRE(mi.max_alloc_bytes == mi.total_bytes, "cpu: max_alloc_bytes is not total_bytes");
#ifdef __linux__
        TC_REQUIRE(mi.available_bytes > 0, "cpu: available_bytes is 0 on Linux (MemAvailable)");
#endif
        break;
    case PP_BACKEND_CUDA:
        TC_REQUIRE(mi.available_bytes > 0 && mi.max_alloc_bytes == mi.total_bytes,
                   "cuda: available_bytes = %llu, max_alloc_bytes != total_bytes",
                   (unsigned long long)mi.available_bytes);
        break;
    case PP_BACKEND_OPENCL:
        TC_REQUIRE(mi.available_bytes == 0, "opencl: available_bytes is not 0");
        break;
    default: TC_FAIL("backend %s", bname);
    }
    /* beyond the largest allocation: PP_ERROR_OUT_OF_MEMORY, nothing allocated
     * (not on cpu, where virtual memory may grant more than there is) */
    if (pp_context_backend(ctx) != PP_BACKEND_CPU && mi.max_alloc_bytes < SIZE_MAX) {
        void *p = (void *)&p;
        pp_status st = pp_malloc(ctx, &p, (size_t)mi.max_alloc_bytes + 1);
        if (st == PP_SUCCESS) pp_free(ctx, p);
        TC_REQUIRE(st == PP_ERROR_OUT_OF_MEMORY && p == NULL,
                   "%s: pp_malloc(max_alloc_bytes + 1) returned %s", bname, pp_status_string(st));
    }
    /* the answer does not change with nothing allocated in between, except
     * what the backend sees as free */
    pp_memory_info again;
    TC_OK(pp_context_memory(ctx, &again));
    TC_REQUIRE(again.total_bytes == mi.total_bytes && again.max_alloc_bytes == mi.max_alloc_bytes,
               "%s: pp_context_memory changed its total or largest allocation", bname);
}

/* ---- pp_last_error: the last failure's message, until the next failure ----------------------------- */
static void errors_last_error(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s pp_last_error after failures and successes", pp_backend_name(pp_context_backend(ctx)));
    char first[512];
    EXPECT(ctx, pp_malloc(ctx, NULL, 64), PP_ERROR_INVALID_ARGUMENT, "pp_malloc", "p");
    const char *msg = pp_last_error(ctx);
    snprintf(first, sizeof first, "%s", msg);

    /* successful calls of every kind leave it as it is */
    void *d = NULL, *one = NULL;
    TC_OK(pp_malloc(ctx, &d, BYTES));
    TC_OK(pp_malloc(ctx, &one, 8));
    TC_OK(pp_upload(ctx, d, f->h_in, BYTES));
    TC_OK(pp_copy(ctx, d, f->in, 64));
    TC_OK(pp_reduce(ctx, PP_I32, PP_SUM, d, N, one));
    TC_OK(pp_scan(ctx, PP_U8, PP_MAX, PP_INCLUSIVE, d, d, N));
    TC_OK(pp_sort(ctx, PP_U16, d, N, PP_ASCENDING));
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
    TC_OK(pp_synchronize(ctx));
    pp_memory_info mi;
    TC_OK(pp_context_memory(ctx, &mi));
    unsigned char h[8 + TC_GUARD];
    TC_OK(pp_download(ctx, h, one, 8));
    TC_REQUIRE(pp_last_error(ctx) == msg, "pp_last_error returned another pointer");
    TC_REQUIRE(strcmp(msg, first) == 0, "a successful call changed the message \"%s\" to \"%s\"", first, msg);

    /* the next failure replaces it: an argument check, then a failure that
     * only the backend finds, each followed by a success */
    EXPECT(ctx, pp_scan(ctx, (pp_type)99, PP_SUM, PP_INCLUSIVE, d, d, N), PP_ERROR_INVALID_ARGUMENT, "pp_scan",
           "type");
    TC_REQUIRE(strcmp(pp_last_error(ctx), first) != 0, "a failed pp_scan left the message of pp_malloc");
    snprintf(first, sizeof first, "%s", pp_last_error(ctx));
    TC_OK(pp_reduce(ctx, PP_I32, PP_MAX, d, N, one));
    TC_REQUIRE(strcmp(pp_last_error(ctx), first) == 0, "pp_reduce changed the message of a failed pp_scan");
    void *p = NULL;
    pp_status st = pp_malloc(ctx, &p, SIZE_MAX);
    TC_REQUIRE(st == PP_ERROR_OUT_OF_MEMORY, "pp_malloc(SIZE_MAX) returned %s", pp_status_string(st));
    TC_REQUIRE(strstr(pp_last_error(ctx), "pp_malloc") != NULL, "pp_malloc(SIZE_MAX): message \"%s\"",
               pp_last_error(ctx));
    snprintf(first, sizeof first, "%s", pp_last_error(ctx));
    TC_OK(pp_free(ctx, d));
    TC_OK(pp_free(ctx, one));
    TC_REQUIRE(strcmp(pp_last_error(ctx), first) == 0, "pp_free changed the message of a failed pp_malloc");

    /* another context's calls do not touch it */
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CPU;
    o.threads = 1;
    pp_context *other = NULL;
    TC_OK(pp_create(&other, &o));
    TC_REQUIRE(*pp_last_error(other) == 0, "a new context has a message");
    EXPECT(other, pp_malloc(other, NULL, 8), PP_ERROR_INVALID_ARGUMENT, "pp_malloc", "p");
    TC_REQUIRE(strcmp(pp_last_error(ctx), first) == 0, "a failure on another context changed the message");

    /* without a context: the thread's message, kept by successful pp_create */
    EXPECT(NULL, pp_sort(NULL, PP_I32, f->keys, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, "pp_sort", "ctx");
    snprintf(first, sizeof first, "%s", pp_last_error(NULL));
    pp_destroy(other);
    other = NULL;
    TC_OK(pp_create(&other, &o));
    TC_REQUIRE(strcmp(pp_last_error(NULL), first) == 0, "a successful pp_create changed pp_last_error(NULL)");
    pp_destroy(other);
    o.threads = -1;
    other = (pp_context *)(void *)&other;
    TC_REQUIRE(pp_create(&other, &o) == PP_ERROR_INVALID_ARGUMENT && other == NULL, "pp_create(threads = -1)");
    TC_REQUIRE(msg_names(pp_last_error(NULL), "threads"), "pp_create(threads = -1): message \"%s\"",
               pp_last_error(NULL));
}

/* Runs one group on every backend, each with a fresh fixture. */
static void on_every_backend(const char *name, void (*group)(fixture *))
{
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    tc_rng r = tc_rng_for(name);
    for (size_t i = 0; i < nctx; i++) {
        fixture *f = (fixture *)malloc(sizeof *f);
        fx_init(f, ctxs[i], &r);
        group(f);
        fx_free(f);
        free(f);
    }
}

#define GROUP_TEST(G)                                \
    static void test_##G(void **state)               \
    {                                                \
        (void)state;                                 \
        on_every_backend(#G, errors_##G);            \
    }
GROUP_TEST(reduce_scan)
GROUP_TEST(histogram)
GROUP_TEST(select)
GROUP_TEST(sort)
GROUP_TEST(sort_copy)
GROUP_TEST(exact)
GROUP_TEST(segmented)
GROUP_TEST(argsort)
GROUP_TEST(segsort)
GROUP_TEST(bykey)
GROUP_TEST(topk)
GROUP_TEST(search)
GROUP_TEST(reduce_to)
GROUP_TEST(misc)
GROUP_TEST(memory)
GROUP_TEST(last_error)

/* ---- pp_create ---------------------------------------------------------------------------------------------- */
static void expect_create_at(int line, const pp_options *o, pp_status want, const char *arg, const char *what)
{
    pp_context *ctx = (pp_context *)(void *)&ctx; /* must become NULL on failure */
    pp_status st = pp_create(&ctx, o);
    if (st != want) {
        if (st == PP_SUCCESS) pp_destroy(ctx);
        tc_fail_at(__FILE__, line, "%s: pp_create returned %s, expected %s (\"%s\")", what, pp_status_string(st),
                   pp_status_string(want), pp_last_error(NULL));
    }
    if (st == PP_SUCCESS) {
        TC_REQUIRE(ctx != NULL, "pp_create succeeded without a context");
        TC_REQUIRE(*pp_last_error(ctx) == 0, "a new context has an error message");
        pp_destroy(ctx);
        return;
    }
    if (ctx != NULL) tc_fail_at(__FILE__, line, "%s: a failed pp_create did not set *ctx to NULL", what);
    const char *msg = pp_last_error(NULL);
    if (!msg || !*msg) tc_fail_at(__FILE__, line, "%s: pp_last_error(NULL) is empty after a failed pp_create", what);
    if (arg && !msg_names(msg, arg)) tc_fail_at(__FILE__, line, "%s: message \"%s\" does not name %s", what, msg, arg);
}
#define EXPECT_CREATE(o, want, arg, what) expect_create_at(__LINE__, o, want, arg, what)

static void test_create(void **state)
{
    (void)state;
    tc_case("pp_create");
    char *saved = getenv("PARPRIM_BACKEND") ? strdup(getenv("PARPRIM_BACKEND")) : NULL;
    unsetenv("PARPRIM_BACKEND");

    EXPECT(NULL, pp_create(NULL, NULL), PP_ERROR_INVALID_ARGUMENT, "pp_create", "ctx");
    TC_REQUIRE(*pp_last_error(NULL), "pp_create(NULL, NULL) left no message");
    EXPECT_CREATE(NULL, PP_SUCCESS, NULL, "opt == NULL");
    pp_options o = PP_OPTIONS_INIT;
    TC_REQUIRE(o.size == sizeof(pp_options) && o.backend == PP_BACKEND_AUTO && o.device == 0 && o.threads == 0,
               "PP_OPTIONS_INIT");
    EXPECT_CREATE(&o, PP_SUCCESS, NULL, "PP_OPTIONS_INIT");
    o.size = 0;
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "size", "opt->size = 0");
    o.size = sizeof(size_t);
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "size", "opt->size too small");
    o.size = sizeof(size_t) + sizeof(int);
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "size", "opt->size too small");
    o = (pp_options)PP_OPTIONS_INIT;
    o.threads = -1;
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "threads", "opt->threads = -1");
    o.threads = -1000;
    o.backend = PP_BACKEND_CPU;
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "threads", "opt->threads = -1000");
    o = (pp_options)PP_OPTIONS_INIT;
    o.device = -1; /* with PP_BACKEND_AUTO (an explicit cpu ignores device: see the header) */
    EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "device", "opt->device = -1");
    static const int bad_backends[] = {-1, 4, 100};
    for (int i = 0; i < 3; i++) {
        o = (pp_options)PP_OPTIONS_INIT;
        o.backend = (pp_backend)bad_backends[i];
        EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "backend", "opt->backend out of range");
        TC_REQUIRE(pp_backend_status((pp_backend)bad_backends[i]) == PP_ERROR_INVALID_ARGUMENT,
                   "pp_backend_status(%d)", bad_backends[i]);
    }
    TC_REQUIRE(pp_backend_status(PP_BACKEND_AUTO) == PP_SUCCESS, "pp_backend_status(auto)");
    TC_REQUIRE(pp_backend_status(PP_BACKEND_CPU) == PP_SUCCESS, "pp_backend_status(cpu)");

    /* the cpu context reports its backend and threads */
    for (int th = 0; th <= 3; th++) {
        o = (pp_options)PP_OPTIONS_INIT;
        o.backend = PP_BACKEND_CPU;
        o.threads = th;
        o.device = 5; /* ignored on cpu */
        pp_context *ctx = NULL;
        TC_OK(pp_create(&ctx, &o));
        TC_REQUIRE(pp_context_backend(ctx) == PP_BACKEND_CPU, "pp_context_backend");
        TC_REQUIRE(th == 0 ? pp_context_threads(ctx) >= 1 : pp_context_threads(ctx) == th,
                   "pp_context_threads = %d for threads = %d", pp_context_threads(ctx), th);
        TC_REQUIRE(*pp_context_device_name(ctx), "empty device name");
        pp_destroy(ctx);
    }
    pp_destroy(NULL);

    /* GPU backends: by what pp_backend_status says */
    static const pp_backend gpus[] = {PP_BACKEND_CUDA, PP_BACKEND_OPENCL};
    for (int i = 0; i < 2; i++) {
        pp_status bs = pp_backend_status(gpus[i]);
        TC_REQUIRE(bs == PP_SUCCESS || bs == PP_ERROR_UNSUPPORTED || bs == PP_ERROR_BACKEND_UNAVAILABLE,
                   "pp_backend_status(%s) = %s", pp_backend_name(gpus[i]), pp_status_string(bs));
        o = (pp_options)PP_OPTIONS_INIT;
        o.backend = gpus[i];
        EXPECT_CREATE(&o, bs, bs == PP_SUCCESS ? NULL : pp_backend_name(gpus[i]), "explicit GPU backend");
        setenv("PARPRIM_BACKEND", pp_backend_name(gpus[i]), 1);
        EXPECT_CREATE(NULL, bs, bs == PP_SUCCESS ? NULL : pp_backend_name(gpus[i]), "PARPRIM_BACKEND=gpu, opt NULL");
        o = (pp_options)PP_OPTIONS_INIT;
        EXPECT_CREATE(&o, bs, bs == PP_SUCCESS ? NULL : pp_backend_name(gpus[i]), "PARPRIM_BACKEND=gpu");
        unsetenv("PARPRIM_BACKEND");
    }

    /* PARPRIM_BACKEND */
    static const char *const bogus[] = {"bogus", "gpu", "cuda,cpu"};
    for (int i = 0; i < 3; i++) {
        setenv("PARPRIM_BACKEND", bogus[i], 1);
        o = (pp_options)PP_OPTIONS_INIT;
        EXPECT_CREATE(&o, PP_ERROR_INVALID_ARGUMENT, "PARPRIM_BACKEND", "PARPRIM_BACKEND=bogus");
        EXPECT_CREATE(NULL, PP_ERROR_INVALID_ARGUMENT, "PARPRIM_BACKEND", "PARPRIM_BACKEND=bogus, opt NULL");
        o.backend = PP_BACKEND_CPU; /* an explicit backend ignores the variable */
        EXPECT_CREATE(&o, PP_SUCCESS, NULL, "explicit cpu with PARPRIM_BACKEND=bogus");
    }
    setenv("PARPRIM_BACKEND", "cpu", 1);
    {
        pp_context *ctx = NULL;
        TC_OK(pp_create(&ctx, NULL));
        TC_REQUIRE(pp_context_backend(ctx) == PP_BACKEND_CPU, "PARPRIM_BACKEND=cpu gives a cpu context");
        pp_destroy(ctx);
    }
    if (saved) {
        setenv("PARPRIM_BACKEND", saved, 1);
        free(saved);
    } else {
        unsetenv("PARPRIM_BACKEND");
    }
}

/* ---- names, sizes, version ------------------------------------------------------------------------------ */
static void test_names(void **state)
{
    (void)state;
    tc_case("names and sizes");
    TC_REQUIRE(pp_version() == PP_VERSION_NUMBER, "pp_version() = %u, PP_VERSION_NUMBER = %d", pp_version(),
               PP_VERSION_NUMBER);
    TC_REQUIRE(PP_VERSION_NUMBER == PP_VERSION_MAJOR * 10000 + PP_VERSION_MINOR * 100 + PP_VERSION_PATCH,
               "PP_VERSION_NUMBER");
    const char *seen[7];
    for (int s = 0; s <= PP_ERROR_INTERNAL; s++) {
        const char *m = pp_status_string((pp_status)s);
        TC_REQUIRE(m && *m && strcmp(m, "unknown status") != 0, "pp_status_string(%d) = \"%s\"", s, m ? m : "(null)");
        for (int k = 0; k < s; k++) TC_REQUIRE(strcmp(seen[k], m) != 0, "statuses %d and %d share a string", k, s);
        seen[s] = m;
    }
    static const int unknown[] = {-1, 7, 1000};
    for (int i = 0; i < 3; i++) {
        const char *m = pp_status_string((pp_status)unknown[i]);
        TC_REQUIRE(m && strcmp(m, "unknown status") == 0, "pp_status_string(%d) = \"%s\"", unknown[i],
                   m ? m : "(null)");
    }
    TC_REQUIRE(PP_SUCCESS == 0 && PP_ERROR_INVALID_ARGUMENT == 1 && PP_ERROR_UNSUPPORTED == 2 &&
                   PP_ERROR_OUT_OF_MEMORY == 3 && PP_ERROR_BACKEND_UNAVAILABLE == 4 && PP_ERROR_BACKEND == 5 &&
                   PP_ERROR_INTERNAL == 6,
               "pinned status values");

    static const size_t sizes[PP_TYPE_COUNT] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2, 2};
    static const char *const tnames[PP_TYPE_COUNT] = {"i8",  "u8",  "i16", "u16", "i32", "u32",
                                                      "i64", "u64", "f32", "f64", "f16", "bf16"};
    for (int t = 0; t < PP_TYPE_COUNT; t++) {
        TC_REQUIRE(pp_type_size((pp_type)t) == sizes[t], "pp_type_size(%d)", t);
        TC_REQUIRE(strcmp(pp_type_name((pp_type)t), tnames[t]) == 0, "pp_type_name(%d) = %s", t,
                   pp_type_name((pp_type)t));
    }
    for (int i = 0; i < NBAD; i++) {
        TC_REQUIRE(pp_type_size(bad_types[i]) == 0, "pp_type_size(bad)");
        TC_REQUIRE(strcmp(pp_type_name(bad_types[i]), "?") == 0, "pp_type_name(bad)");
        TC_REQUIRE(strcmp(pp_op_name(bad_ops[i]), "?") == 0, "pp_op_name(bad)");
    }
    static const char *const onames[PP_OP_COUNT] = {"sum", "prod", "min", "max", "and", "or", "xor"};
    for (int o = 0; o < PP_OP_COUNT; o++)
        TC_REQUIRE(strcmp(pp_op_name((pp_op)o), onames[o]) == 0, "pp_op_name(%d) = %s", o, pp_op_name((pp_op)o));
    static const char *const bnames[4] = {"auto", "cpu", "cuda", "opencl"};
    for (int b = 0; b < 4; b++)
        TC_REQUIRE(strcmp(pp_backend_name((pp_backend)b), bnames[b]) == 0, "pp_backend_name(%d)", b);
    TC_REQUIRE(strcmp(pp_backend_name((pp_backend)4), "?") == 0, "pp_backend_name(4)");
    TC_REQUIRE(strcmp(pp_backend_name((pp_backend)-1), "?") == 0, "pp_backend_name(-1)");
    for (int p = 0; p < PP_PRIM_COUNT; p++) {
        const char *s = pp_primitive_name((pp_primitive)p);
        TC_REQUIRE(s && *s && strcmp(s, "?") != 0, "pp_primitive_name(%d)", p);
    }
    TC_REQUIRE(strcmp(pp_primitive_name((pp_primitive)PP_PRIM_COUNT), "?") == 0, "pp_primitive_name(bad)");
    TC_REQUIRE(strcmp(pp_primitive_name((pp_primitive)-1), "?") == 0, "pp_primitive_name(-1)");
    TC_REQUIRE(strcmp(pp_algorithm_name(PP_ALGO_AUTO), "auto") == 0, "pp_algorithm_name(auto)");
    TC_REQUIRE(strcmp(pp_algorithm_name(PP_ALGO_SEQUENTIAL), "sequential") == 0, "pp_algorithm_name(sequential)");
    TC_REQUIRE(strcmp(pp_algorithm_name((pp_algorithm)PP_ALGO_COUNT), "?") == 0, "pp_algorithm_name(bad)");
    TC_REQUIRE(strcmp(pp_algorithm_name((pp_algorithm)-1), "?") == 0, "pp_algorithm_name(-1)");
}

int main(void)
{
    tc_init("test_errors");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_misc),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_last_error),
        cmocka_unit_test(test_reduce_scan),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_sort_copy),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_segmented), cmocka_unit_test(test_argsort), cmocka_unit_test(test_segsort),
        cmocka_unit_test(test_bykey),
        cmocka_unit_test(test_topk),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_reduce_to),
    };
    int rc = cmocka_run_group_tests_name("errors", tests, NULL, NULL);
    tc_finish();
    return rc;
}
