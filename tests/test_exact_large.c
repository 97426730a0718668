/* PP_ALGO_EXACT over more than 2^31 elements: pp_reduce of n = 2^31 +
 * 2^20 + 7 f32 values (8.6 GB), on every backend that accepts the
 * algorithm, against the exact reference (exact_ref.c). The data repeat
 * with a period of 65539 values (not a power of two, so every block and
 * tile of the library sees another phase): random values over 60 binades
 * of both signs, adjacent pairs +-2^100 that cancel, and values far below
 * the rest, so that the reference adds each value of the period once,
 * times its number of copies, and the check costs seconds. Memory: n * 4
 * bytes of device memory (on cpu, host memory that the test fills in
 * place; on other backends uploaded from a host buffer: in chunks where
 * handles are addresses, whole on opencl), asked first (tc_need_buffers)
 * and skipped with the reason where it is missing; PP_ERROR_OUT_OF_MEMORY
 * from the library is a skip too. */
#include "test_common.h"
#include "exact_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define PERIOD ((size_t)65539)
#define CHUNK ((size_t)64 << 20) /* elements */

static void period_values(float *p)
{
    tc_rng r = tc_rng_for("exact_large");
    for (size_t i = 0; i < PERIOD; i++) {
        double u = (double)(tc_next(&r) >> 11) * 0x1p-53, s = (tc_next(&r) & 1) ? 1 : -1;
        switch (tc_below(&r, 8)) {
        case 0: /* +-2^100 and its negation next to it: they cancel */
        case 1:
            p[i] = (float)ldexp(s, 100);
            if (i + 1 < PERIOD) p[i + 1] = -p[i], i++;
            break;
        case 2: p[i] = (float)(s * ldexp(1 + u, -120)); break;
        default: p[i] = (float)(s * ldexp(1 + u, (int)tc_below(&r, 60) - 30)); break;
        }
    }
}

static void fill(float *dst, const float *period, size_t from, size_t len)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)len; i++) dst[i] = period[(from + (size_t)i) % PERIOD];
}

static void run(pp_context *ctx, pp_backend b, const float *period, uint32_t want)
{
    const size_t bytes = N * sizeof(float);
    const int whole = b == PP_BACKEND_OPENCL, direct = b == PP_BACKEND_CPU;
    const size_t host = direct ? 0 : whole ? bytes : CHUNK * sizeof(float);
    if (!tc_need_buffers(ctx, "exact f32 reduce of 2^31 + 2^20 + 7 elements", bytes, bytes + ((size_t)64 << 20),
                         host))
        return;
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT));
    float *d = NULL;
    pp_status st = pp_malloc(ctx, (void **)&d, bytes);
    if (st == PP_ERROR_OUT_OF_MEMORY) {
        tc_skip(NULL, "%s: pp_malloc of %zu bytes: %s", pp_backend_name(b), bytes, pp_last_error(ctx));
        return;
    }
    TC_OK(st);
    float *out = (float *)tc_dev_filled(ctx, sizeof(float), 0x5A);
    if (direct) {
        fill(d, period, 0, N);
    } else {
        float *h = (float *)malloc(whole ? bytes : CHUNK * sizeof(float));
        if (!h) {
            tc_skip(NULL, "%s: host malloc for the upload failed", pp_backend_name(b));
            tc_dev_free(ctx, d);
            tc_dev_free(ctx, out);
            return;
        }
        for (size_t off = 0; off < N; off += whole ? N : CHUNK) {
            size_t len = whole ? N : (N - off < CHUNK ? N - off : CHUNK);
            fill(h, period, off, len);
            st = pp_upload(ctx, d + off, h, len * sizeof(float));
            if (st != PP_SUCCESS) break;
        }
        free(h);
    }
    if (st == PP_SUCCESS) st = pp_reduce(ctx, PP_F32, PP_SUM, d, N, out);
    if (st == PP_ERROR_OUT_OF_MEMORY) {
        tc_skip(NULL, "%s: %s", pp_backend_name(b), pp_last_error(ctx));
    } else {
        TC_OK(st);
        uint32_t got;
        float gv;
        float *hg = (float *)tc_halloc(sizeof(float));
        TC_DOWNLOAD(ctx, hg, out, sizeof(float), "reduce");
        memcpy(&got, hg, sizeof got);
        memcpy(&gv, hg, sizeof gv);
        free(hg);
        TC_REQUIRE(got == want, "%s: exact f32 reduce of %zu elements: bits 0x%08x, expected 0x%08x",
                   pp_backend_name(b), (size_t)N, got, want);
        printf("  %s: exact f32 sum of %zu elements = %a (bits 0x%08x)\n", pp_backend_name(b), (size_t)N,
               (double)gv, got);
    }
    tc_dev_free(ctx, d);
    tc_dev_free(ctx, out);
    pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
}

static void test_large_f32(void **state)
{
    (void)state;
    float *period = (float *)malloc(PERIOD * sizeof(float));
    period_values(period);
    xref x;
    xref_init(&x, 0);
    const size_t full = N / PERIOD, rest = N % PERIOD;
    for (size_t i = 0; i < PERIOD; i++) xref_add(&x, period[i], full + (i < rest));
    const uint32_t want = xref_bits_f32(&x);
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    for (size_t i = 0; i < nctx; i++) {
        pp_backend b = pp_context_backend(ctxs[i]);
        tc_case("backend=%s exact f32 reduce n=%zu", pp_backend_name(b), (size_t)N);
        if (pp_set_algorithm(ctxs[i], PP_PRIM_REDUCE, PP_ALGO_EXACT) != PP_SUCCESS) continue; /* not offered */
        pp_set_algorithm(ctxs[i], PP_PRIM_REDUCE, PP_ALGO_AUTO);
        run(ctxs[i], b, period, want);
    }
    free(period);
}

int main(void)
{
    tc_init("test_exact_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_large_f32)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
