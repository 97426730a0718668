/* The segmented and by-key primitives past 2^31, on every backend present
 * (the default algorithm):
 *  - n = 2^31 + 2^20 + 7 one-byte elements cut into segments of which one
 *    runs across 2^31 and holds more than 2^31 elements, a few tiny and
 *    empty ones around it: pp_segmented_reduce (u8 SUM and MAX) and
 *    pp_segmented_scan (i8 SUM, inclusive and exclusive, in place) against
 *    the reference (its inclusive scan, computed once for every backend;
 *    the exclusive result is checked against it element by element);
 *  - the same layout as runs of equal u8 keys (neighbouring runs differ):
 *    pp_reduce_by_key (u8 keys, u8 SUM values), pp_scan_by_key (in place)
 *    and pp_run_length_encode (counts above 2^31);
 *  - more than 2^31 segments (nseg = 2^31 + 3, mostly empty) over 2^20
 *    elements: pp_segmented_reduce and pp_segmented_scan.
 * Each group asks first (tc_need_buffers) and is skipped with the reason
 * where the device or the host cannot hold it (the by-key group needs four
 * n-byte buffers, run_length_encode 8 n more for its counts, the last group
 * 16 GiB of offsets on the device and on the host). PP_ERROR_OUT_OF_MEMORY
 * after asking, and PP_ERROR_UNSUPPORTED where a backend lacks a call (the
 * header lists where each runs), are skips with the message; any other
 * status, or a wrong result, fails. */
#define _POSIX_C_SOURCE 200809L
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define MANY_SEG_N ((size_t)1 << 20)
#define MANY_SEG (((size_t)1 << 31) + 3)
#define CHUNK ((size_t)64 << 20)

/* The layout of the first two groups: segment (and run) boundaries. */
static size_t layout(size_t n, uint64_t *off, int with_empty)
{
    size_t k = 0;
    off[k++] = 0;
    off[k++] = 3;
    off[k++] = 1000;
    if (with_empty) off[k++] = 1000;                      /* an empty segment */
    off[k++] = ((uint64_t)1 << 31) + 5;                   /* [1000, 2^31 + 5): more than 2^31 */
    for (int i = 0; i < 100; i++) off[k++] = n - 100 + i; /* 100 one-element segments */
    off[k++] = n;
    return k - 1;
}

/* The data of the first two groups, made once for every backend: the
 * input bytes, the layout (with an empty segment, and as runs), the keys of
 * the runs, the reference's inclusive i8 scan (the exclusive one is checked
 * against it: check_exclusive) and the reduces. */
typedef struct kl_data {
    size_t n;
    unsigned char *in, *keys, *incl;
    uint64_t seg[128], run[128];
    size_t nseg, nruns;
    unsigned char seg_sum[128], seg_max[128], run_sum[128];
} kl_data;

/* Host memory a check's downloads take (opencl downloads whole buffers). */
static size_t dl_bytes(pp_context *ctx, size_t n) { return pp_context_backend(ctx) == PP_BACKEND_OPENCL ? n : CHUNK; }

/* A skip for OUT_OF_MEMORY or UNSUPPORTED (returns 1), a failure for any
 * other error, 0 on success. */
static int skipped(pp_context *ctx, pp_status st, const char *what) { return tc_skip_status(ctx, st, what); }

/* The device array dev (n bytes) equals want, compared in chunks. */
static void check_bytes(pp_context *ctx, const void *dev, const unsigned char *want, size_t n, const char *what)
{
    const int whole = pp_context_backend(ctx) == PP_BACKEND_OPENCL; /* cl_mem: no offsets into a buffer */
    const size_t cap = whole ? n : CHUNK;
    unsigned char *buf = (unsigned char *)malloc(cap);
    TC_REQUIRE(buf != NULL, "malloc(%zu) for the check failed", cap);
    for (size_t off = 0; off < n; off += cap) {
        const size_t len = n - off < cap ? n - off : cap;
        TC_OK(pp_download(ctx, buf, (const char *)dev + off, len));
        for (size_t i = 0; i < len; i++)
            if (buf[i] != want[off + i]) {
                free(buf);
                TC_FAIL("%s: element %zu is %d, expected %d", what, off + i, buf[i], want[off + i]);
            }
    }
    free(buf);
}

/* The device array dev (n bytes) is the exclusive scan whose inclusive
 * one is incl over the segments off[0 .. nseg] (covering [0, n)): 0 at each
 * segment's first element, else incl of the element before. */
static void check_exclusive(pp_context *ctx, const void *dev, const unsigned char *incl, const uint64_t *off,
                            size_t nseg, size_t n, const char *what)
{
    const int whole = pp_context_backend(ctx) == PP_BACKEND_OPENCL;
    const size_t cap = whole ? n : CHUNK;
    unsigned char *buf = (unsigned char *)malloc(cap);
    TC_REQUIRE(buf != NULL, "malloc(%zu) for the check failed", cap);
    size_t s = 0; /* the segment holding element i */
    for (size_t o = 0; o < n; o += cap) {
        const size_t len = n - o < cap ? n - o : cap;
        TC_OK(pp_download(ctx, buf, (const char *)dev + o, len));
        for (size_t i = o; i < o + len; i++) {
            while (s + 1 < nseg && off[s + 1] <= i) s++;
            const unsigned char w = off[s] == i ? 0 : incl[i - 1];
            if (buf[i - o] != w) {
                const int g = buf[i - o];
                free(buf);
                TC_FAIL("%s: element %zu is %d, expected %d", what, i, g, w);
            }
        }
    }
    free(buf);
}

/* The same for n uint64_t. */
static void check_u64(pp_context *ctx, const uint64_t *dev, const uint64_t *want, size_t n, const char *what)
{
    uint64_t *buf = (uint64_t *)malloc(n * sizeof *buf);
    TC_REQUIRE(buf != NULL, "malloc for the check failed");
    TC_OK(pp_download(ctx, buf, dev, n * sizeof *buf));
    for (size_t i = 0; i < n; i++)
        if (buf[i] != want[i]) {
            const unsigned long long g = buf[i], w = want[i];
            free(buf);
            TC_FAIL("%s: element %zu is %llu, expected %llu", what, i, g, w);
        }
    free(buf);
}

/* Group 1: segmented reduce and scan over n bytes. */
static void group_segmented(pp_context *ctx, const kl_data *D)
{
    const char *bname = pp_backend_name(pp_context_backend(ctx));
    const size_t n = D->n, nseg = D->nseg;
    if (!tc_need_buffers(ctx, "segmented reduce and scan of 2^31 + 2^20 + 7 bytes", n, n + ((size_t)64 << 20),
                         dl_bytes(ctx, n)))
        return;
    void *dev = NULL, *out = NULL, *off = NULL;
    pp_status st = pp_malloc(ctx, &dev, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &out, 4096);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &off, sizeof D->seg);
    if (st == PP_SUCCESS) st = pp_upload(ctx, off, D->seg, (nseg + 1) * sizeof(uint64_t));
    if (st == PP_SUCCESS) st = pp_upload(ctx, dev, D->in, n);
    if (!skipped(ctx, st, "buffers of the segmented group")) {
        const pp_op ops[2] = {PP_SUM, PP_MAX};
        const unsigned char *want[2] = {D->seg_sum, D->seg_max};
        int ran = 0;
        for (int k = 0; k < 2; k++) {
            tc_case("%s segmented_reduce u8 %s n=%zu nseg=%zu", bname, pp_op_name(ops[k]), n, nseg);
            unsigned char got[128];
            if (skipped(ctx, pp_segmented_reduce(ctx, PP_U8, ops[k], dev, n, (const uint64_t *)off, nseg, out),
                        "pp_segmented_reduce"))
                break;
            TC_OK(pp_download(ctx, got, out, nseg));
            for (size_t s = 0; s < nseg; s++)
                TC_REQUIRE(got[s] == want[k][s], "segment %zu: got %d, expected %d", s, got[s], want[k][s]);
            ran++;
        }
        for (int k = 0; k < 2; k++) {
            tc_case("%s segmented_scan i8 sum %s in place n=%zu", bname, k ? "exclusive" : "inclusive", n);
            if (k) TC_OK(pp_upload(ctx, dev, D->in, n));
            if (skipped(ctx,
                        pp_segmented_scan(ctx, PP_I8, PP_SUM, k ? PP_EXCLUSIVE : PP_INCLUSIVE, dev, dev, n,
                                          (const uint64_t *)off, nseg),
                        "pp_segmented_scan"))
                break;
            if (k)
                check_exclusive(ctx, dev, D->incl, D->seg, nseg, n, "pp_segmented_scan exclusive");
            else
                check_bytes(ctx, dev, D->incl, n, "pp_segmented_scan inclusive");
            ran++;
        }
        if (ran) printf("  %s: %d segmented call(s) past 2^31 done\n", bname, ran);
    }
    pp_free(ctx, off);
    pp_free(ctx, out);
    pp_free(ctx, dev);
}

/* Group 2: the same boundaries as runs of keys: by-key calls and RLE. */
static void group_bykey(pp_context *ctx, const kl_data *D)
{
    const char *bname = pp_backend_name(pp_context_backend(ctx));
    const size_t n = D->n, nruns = D->nruns;
    const uint64_t *hoff = D->run;
    if (!tc_need_buffers(ctx, "reduce_by_key and scan_by_key of 2^31 + 2^20 + 7 bytes", n, 4 * n + ((size_t)64 << 20),
                         dl_bytes(ctx, n)))
        return;
    void *dk = NULL, *dv = NULL, *ko = NULL, *vo = NULL, *cnt = NULL;
    pp_status st = pp_malloc(ctx, &dk, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &dv, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &ko, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &vo, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &cnt, sizeof(uint64_t));
    if (st == PP_SUCCESS) st = pp_upload(ctx, dk, D->keys, n);
    if (st == PP_SUCCESS) st = pp_upload(ctx, dv, D->in, n);
    if (!skipped(ctx, st, "buffers of the by-key group")) {
        tc_case("%s reduce_by_key u8/u8 sum n=%zu runs=%zu", bname, n, nruns);
        int ran = 0;
        st = pp_reduce_by_key(ctx, PP_U8, PP_U8, PP_SUM, dk, dv, n, ko, vo, (uint64_t *)cnt);
        if (!skipped(ctx, st, "pp_reduce_by_key")) {
            ran++;
            uint64_t count = 0;
            unsigned char gk[128], gv[128];
            TC_OK(pp_download(ctx, &count, cnt, sizeof count));
            TC_REQUIRE(count == nruns, "count = %llu, expected %zu", (unsigned long long)count, nruns);
            TC_OK(pp_download(ctx, gk, ko, nruns));
            TC_OK(pp_download(ctx, gv, vo, nruns));
            for (size_t r = 0; r < nruns; r++) {
                TC_REQUIRE(gk[r] == (unsigned char)(r % 256), "run %zu: key %d, expected %d", r, gk[r], (int)(r % 256));
                TC_REQUIRE(gv[r] == D->run_sum[r], "run %zu: sum %d, expected %d", r, gv[r], D->run_sum[r]);
            }
        }
        tc_case("%s scan_by_key u8/i8 sum inclusive in place n=%zu", bname, n);
        st = pp_scan_by_key(ctx, PP_U8, PP_I8, PP_SUM, PP_INCLUSIVE, dk, dv, dv, n);
        if (!skipped(ctx, st, "pp_scan_by_key")) {
            check_bytes(ctx, dv, D->incl, n, "pp_scan_by_key");
            ran++;
        }
        if (ran) printf("  %s: %d by-key call(s) past 2^31 done\n", bname, ran);
    }
    pp_free(ctx, vo);
    pp_free(ctx, dv);
    if (tc_need_buffers(ctx, "run_length_encode of 2^31 + 2^20 + 7 bytes (8 n bytes of counts)", 8 * n,
                        10 * n + ((size_t)64 << 20), 8 * n)) {
        void *co = NULL;
        st = pp_malloc(ctx, &co, 8 * n);
        if (!skipped(ctx, st, "counts buffer of run_length_encode")) {
            tc_case("%s run_length_encode u8 n=%zu runs=%zu", bname, n, nruns);
            st = pp_run_length_encode(ctx, PP_U8, dk, n, ko, (uint64_t *)co, (uint64_t *)cnt);
            if (!skipped(ctx, st, "pp_run_length_encode")) {
                uint64_t count = 0, len[128];
                unsigned char gk[128], wk[128];
                TC_OK(pp_download(ctx, &count, cnt, sizeof count));
                TC_REQUIRE(count == nruns, "count = %llu, expected %zu", (unsigned long long)count, nruns);
                for (size_t r = 0; r < nruns; r++) {
                    len[r] = hoff[r + 1] - hoff[r];
                    wk[r] = (unsigned char)(r % 256);
                }
                TC_OK(pp_download(ctx, gk, ko, nruns));
                TC_REQUIRE(memcmp(gk, wk, nruns) == 0, "run values differ");
                check_u64(ctx, (const uint64_t *)co, len, nruns, "run lengths");
                printf("  %s: run_length_encode past 2^31 done\n", bname);
            }
        }
        pp_free(ctx, co);
    }
    pp_free(ctx, cnt);
    pp_free(ctx, ko);
    pp_free(ctx, dk);
}

/* Group 3: more than 2^31 segments, mostly empty: offsets[s] = s * n /
 * nseg rounded down, so segments hold 0 or 1 element. */
static void group_many(pp_context *ctx, uint64_t seed)
{
    const char *bname = pp_backend_name(pp_context_backend(ctx));
    const size_t n = MANY_SEG_N, nseg = MANY_SEG, ob = (nseg + 1) * sizeof(uint64_t);
    if (!tc_need_buffers(ctx, "2^31 + 3 segments (16 GiB of offsets)", ob, ob + nseg + 2 * n + ((size_t)64 << 20),
                         ob + nseg + n + dl_bytes(ctx, nseg)))
        return;
    uint64_t *hoff = (uint64_t *)malloc(ob);
    unsigned char *in = (unsigned char *)malloc(n), *want = (unsigned char *)malloc(nseg);
    if (!hoff || !in || !want) {
        free(hoff), free(in), free(want);
        tc_skip(NULL, "%s 2^31 + 3 segments: host malloc failed after asking", bname);
        return;
    }
    tc_fill_bytes(seed, in, n);
#pragma omp parallel for schedule(static)
    for (long long s = 0; s <= (long long)nseg; s++) hoff[s] = (uint64_t)s * n / nseg; /* below 2^52: no overflow */
    void *off = NULL, *dev = NULL, *out = NULL;
    pp_status st = pp_malloc(ctx, &off, ob);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &dev, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &out, nseg);
    if (st == PP_SUCCESS) st = pp_upload(ctx, off, hoff, ob);
    if (st == PP_SUCCESS) st = pp_upload(ctx, dev, in, n);
    if (!skipped(ctx, st, "buffers of the many-segment group")) {
        tc_case("%s segmented_reduce u8 sum n=%zu nseg=%zu", bname, n, nseg);
        st = pp_segmented_reduce(ctx, PP_U8, PP_SUM, dev, n, (const uint64_t *)off, nseg, out);
        if (!skipped(ctx, st, "pp_segmented_reduce")) {
#pragma omp parallel for schedule(static)
            for (long long s = 0; s < (long long)nseg; s++) want[s] = hoff[s] < hoff[s + 1] ? in[hoff[s]] : 0;
            check_bytes(ctx, out, want, nseg, "pp_segmented_reduce over 2^31 + 3 segments");
        }
        tc_case("%s segmented_scan u8 sum exclusive n=%zu nseg=%zu", bname, n, nseg);
        st = pp_segmented_scan(ctx, PP_U8, PP_SUM, PP_EXCLUSIVE, dev, dev, n, (const uint64_t *)off, nseg);
        if (!skipped(ctx, st, "pp_segmented_scan")) {
            memset(want, 0, n); /* every segment holds at most one element: its
                             exclusive scan is 0 */
            check_bytes(ctx, dev, want, n, "pp_segmented_scan over 2^31 + 3 segments");
        }
        printf("  %s: 2^31 + 3 segments done\n", bname);
    }
    pp_free(ctx, out);
    pp_free(ctx, dev);
    pp_free(ctx, off);
    free(hoff), free(in), free(want);
}

/* The input, keys and references of groups 1 and 2 (0 where host memory
 * fails: a skip). */
static int make_data(kl_data *D, uint64_t seed)
{
    const size_t n = D->n;
    D->in = (unsigned char *)malloc(n);
    D->keys = (unsigned char *)malloc(n);
    D->incl = (unsigned char *)malloc(n);
    if (!D->in || !D->keys || !D->incl) return 0;
    tc_fill_bytes(seed, D->in, n);
    D->nseg = layout(n, D->seg, 1);
    D->nruns = layout(n, D->run, 0);
    for (size_t r = 0; r < D->nruns; r++)
        memset(D->keys + D->run[r], (int)(r % 256), (size_t)(D->run[r + 1] - D->run[r]));
    ref_segmented_scan(PP_I8, PP_SUM, PP_INCLUSIVE, D->in, D->incl, D->run, D->nruns);
    ref_segmented_reduce(PP_U8, PP_SUM, D->in, D->seg, D->nseg, D->seg_sum);
    ref_segmented_reduce(PP_U8, PP_MAX, D->in, D->seg, D->nseg, D->seg_max);
    ref_segmented_reduce(PP_U8, PP_SUM, D->in, D->run, D->nruns, D->run_sum);
    return 1;
}

static void test_keyed_large(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    tc_rng r = tc_rng_for("keyed_large");
    kl_data D;
    memset(&D, 0, sizeof D);
    D.n = LARGE_N;
    tc_case("setup: data and references of 2^31 + 2^20 + 7 bytes");
    const int have = make_data(&D, tc_next(&r));
    if (!have) tc_skip(NULL, "malloc of 3 x %zu bytes of host memory for the data failed", D.n);
    for (size_t i = 0; i < nctx; i++) {
        pp_context *ctx = tc_context_all_cores(ctxs[i]);
        if (have) {
            group_segmented(ctx, &D);
            group_bykey(ctx, &D);
        }
        group_many(ctx, tc_next(&r));
        if (ctx != ctxs[i]) pp_destroy(ctx);
    }
    free(D.in), free(D.keys), free(D.incl);
}

int main(void)
{
    tc_init("test_keyed_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_keyed_large)};
    int rc = cmocka_run_group_tests_name("keyed_large", tests, NULL, NULL);
    tc_finish();
    return rc;
}
