/* The calls of issue 44 past 2^31, on every backend present (the default
 * algorithm), on n = 2^31 + 2^20 + 7 one-byte elements whose answers are
 * known in closed form: in[i] = 1 but for 0 at A = 2^31 + 12345 and at
 * n - 3, 255 at B = 2^31 + 99999 and at n - 2:
 *  - pp_reduce_to u8 -> u64 SUM: n + 506 (u8 would wrap; the count of a
 *    mask through a u8 view, the case); u8 -> f64 SUM the same
 *    (exact below 2^53);
 *  - pp_argmin: A, pp_argmax: B (the first of two, both past 2^31);
 *  - pp_scan_to u8 -> u16 SUM exclusive: out[i] = i + the sum of
 *    (in[p] - 1) over the special p < i, mod 2^16, every element checked
 *    (4 GiB of output: where the device and host hold it).
 * Each group asks first (tc_need_buffers) and is skipped with the reason
 * where memory lacks; PP_ERROR_OUT_OF_MEMORY after asking and
 * PP_ERROR_UNSUPPORTED are skips with the message; any other status, or a
 * wrong result, fails. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define POS_A (((size_t)1 << 31) + 12345)
#define POS_B (((size_t)1 << 31) + 99999)
#define SMALL ((size_t)64 << 20) /* allowance for the small buffers and working memory */
#define CHUNK ((size_t)64 << 20) /* elements per download of the scan's output, where offsets work */

static void make_data(unsigned char *h, size_t n)
{
    memset(h, 1, n);
    h[POS_A] = 0;
    h[n - 3] = 0;
    h[POS_B] = 255;
    h[n - 2] = 255;
}

/* The value in[i] adds to a sum beyond the 1 of every other element. */
static int extra(size_t n, size_t i) { return i == POS_A || i == n - 3 ? -1 : i == POS_B || i == n - 2 ? 254 : 0; }

static void group_reduce_arg(pp_context *ctx, void *dev, size_t n)
{
    void *one = NULL;
    if (!tc_skip_status(ctx, pp_malloc(ctx, &one, 8), "an 8-byte result")) return;
    uint64_t got = 0;
    tc_case("%s pp_reduce_to u8 -> u64 sum of 2^31 + 2^20 + 7", pp_backend_name(pp_context_backend(ctx)));
    if (!tc_skip_status(ctx, pp_reduce_to(ctx, PP_U8, PP_U64, PP_SUM, dev, n, one), "pp_reduce_to u8 -> u64")) {
        TC_OK(pp_download(ctx, &got, one, 8));
        TC_REQUIRE(got == (uint64_t)n + 506, "pp_reduce_to gave %llu, want %llu", (unsigned long long)got,
                   (unsigned long long)n + 506);
    }
    if (tc_need_f64(ctx, "f64 pp_reduce_to past 2^31")) {
        tc_case("%s pp_reduce_to u8 -> f64 sum of 2^31 + 2^20 + 7", pp_backend_name(pp_context_backend(ctx)));
        double d = 0;
        if (!tc_skip_status(ctx, pp_reduce_to(ctx, PP_U8, PP_F64, PP_SUM, dev, n, one), "pp_reduce_to u8 -> f64")) {
            TC_OK(pp_download(ctx, &d, one, 8));
            TC_REQUIRE(d == (double)(n + 506), "pp_reduce_to gave %.17g, want %zu", d, n + 506);
        }
    }
    for (int max = 0; max < 2; max++) {
        const char *fn = max ? "pp_argmax" : "pp_argmin";
        tc_case("%s %s of 2^31 + 2^20 + 7", pp_backend_name(pp_context_backend(ctx)), fn);
        const pp_status st =
            max ? pp_argmax(ctx, PP_U8, dev, n, (uint64_t *)one) : pp_argmin(ctx, PP_U8, dev, n, (uint64_t *)one);
        if (tc_skip_status(ctx, st, fn)) continue;
        TC_OK(pp_download(ctx, &got, one, 8));
        const size_t want = max ? POS_B : POS_A;
        TC_REQUIRE(got == want, "%s gave %llu, want %zu", fn, (unsigned long long)got, want);
    }
    pp_free(ctx, one);
}

static void group_scan(pp_context *ctx, void *dev, size_t n)
{
    const int whole = pp_context_backend(ctx) == PP_BACKEND_OPENCL; /* cl_mem: no offsets into a buffer */
    const size_t per = whole ? n : CHUNK, ob = 2 * n;
    if (!tc_need_buffers(ctx, "pp_scan_to u8 -> u16 of 2^31 + 2^20 + 7 (4 GiB of output)", ob, n + ob + SMALL, 2 * per))
        return;
    void *out = NULL;
    if (tc_skip_status(ctx, pp_malloc(ctx, &out, ob), "the scan's 4 GiB output")) return;
    uint16_t *h = (uint16_t *)malloc(2 * per);
    tc_case("%s pp_scan_to u8 -> u16 exclusive sum of 2^31 + 2^20 + 7", pp_backend_name(pp_context_backend(ctx)));
    if (h && !tc_skip_status(ctx, pp_scan_to(ctx, PP_U8, PP_U16, PP_SUM, PP_EXCLUSIVE, dev, out, n), "pp_scan_to")) {
        uint16_t want = 0;
        for (size_t o = 0; o < n; o += per) {
            const size_t len = n - o < per ? n - o : per;
            TC_OK(pp_download(ctx, h, (const char *)out + 2 * o, 2 * len));
            for (size_t i = 0; i < len; i++) {
                if (h[i] != want) {
                    TC_FAIL("pp_scan_to: out[%zu] = %u, want %u", o + i, (unsigned)h[i], (unsigned)want);
                    break;
                }
                want = (uint16_t)(want + 1 + extra(n, o + i));
            }
        }
    } else if (!h) {
        tc_skip(NULL, "malloc of %zu bytes of host memory for the scan's check failed", 2 * per);
    }
    free(h);
    pp_free(ctx, out);
}

static void test_reduce_to_large(void **state)
{
    (void)state;
    const size_t n = LARGE_N;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    if (!tc_need_buffers(NULL, "the host buffer of 2^31 + 2^20 + 7 bytes", 0, 0, n)) return;
    unsigned char *h = (unsigned char *)malloc(n);
    if (!h) {
        tc_skip(NULL, "malloc of %zu bytes of host memory for the data failed", n);
        return;
    }
    make_data(h, n);
    for (size_t i = 0; i < nctx; i++) {
        pp_context *ctx = tc_context_all_cores(ctxs[i]);
        void *dev = NULL;
        if (tc_need_buffers(ctx, "the 2^31 + 2^20 + 7-byte input", n, n + SMALL, 0) &&
            !tc_skip_status(ctx, pp_malloc(ctx, &dev, n), "the 2^31 + 2^20 + 7-byte input")) {
            TC_OK(pp_upload(ctx, dev, h, n));
            group_reduce_arg(ctx, dev, n);
            group_scan(ctx, dev, n);
            pp_free(ctx, dev);
        }
        if (ctx != ctxs[i]) pp_destroy(ctx);
    }
    free(h);
}

int main(void)
{
    tc_init("test_reduce_to_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reduce_to_large)};
    int rc = cmocka_run_group_tests_name("reduce_to_large", tests, NULL, NULL);
    tc_finish();
    return rc;
}
