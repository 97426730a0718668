/* The segmented and by-key forms with an operator of the user's own
 * (pp_segmented_reduce_op, pp_segmented_scan_op, pp_reduce_by_key_op,
 * pp_scan_by_key_op) against a sequential fold written here for each
 * operator (test_operator_ops.h): affine maps and 2x2 matrices (not
 * commutative: any commuted step shows), a 3-byte element, and a u32 sum
 * also against the built-in pp_segmented_reduce/scan and
 * pp_reduce_by_key/scan_by_key. Sizes 0, 1, odd, thousands and past the
 * cpu's chunks; one segment over everything, many tiny ones, empty ones,
 * segments not covering the array (what lies outside stays untouched);
 * both scan kinds, in and out of place; keys u32 and f32 (NaN never equal,
 * -0.0 == +0.0). Then the errors: NULLs, bad offsets (cpu: refused before
 * anything is written), overlaps, bad kind, an operator of another
 * context. */
#define _POSIX_C_SOURCE 200809L
#include "test_operator_ops.h"

enum { LAY_ONE, LAY_TINY, LAY_MIXED, LAY_EMPTY, LAY_COUNT };
static const char *const lay_names[LAY_COUNT] = {"one segment", "tiny segments", "mixed, not covering", "empty"};

/* The offsets of layout lay over n elements into off (room for n + 64). */
static size_t make_offsets(tc_rng *r, int lay, size_t n, uint64_t *off)
{
    size_t nseg = 0;
    uint64_t at = 0;
    switch (lay) {
    case LAY_ONE:
        off[0] = 0;
        off[1] = n;
        return 1;
    case LAY_TINY:
        off[0] = 0;
        while (at < n && nseg < n + 60) { /* room: n + 64 offsets */
            at += tc_below(r, 4);
            off[++nseg] = at < n ? at : n;
        }
        if (nseg == 0 || off[nseg] < n) off[++nseg] = n;
        return nseg;
    case LAY_MIXED:
        at = tc_below(r, n / 10 + 1);
        off[0] = at;
        while (nseg < 40) {
            const uint64_t len = tc_below(r, 4) ? tc_below(r, n / 4 + 2) : 0;
            if (at + len > n - n / 20) break;
            at += len;
            off[++nseg] = at;
        }
        if (nseg == 0) off[++nseg] = at;
        return nseg;
    default:
        at = tc_below(r, n + 1);
        for (size_t s = 0; s <= 5; s++) off[s] = at;
        return 5;
    }
}

/* want: the segmented reduce (nseg elements) or scan (kind; positions
 * outside every segment keep their bytes). */
static void ref_segmented(int k, const unsigned char *in, const uint64_t *off, size_t nseg, int scan, int kind,
                          unsigned char *want)
{
    const size_t e = elem_sizes[k];
    unsigned char acc[16];
    for (size_t s = 0; s < nseg; s++) {
        identity_of(k, acc);
        for (uint64_t i = off[s]; i < off[s + 1]; i++) {
            if (scan && kind == PP_EXCLUSIVE) memcpy(want + i * e, acc, e);
            fold(k, acc, in + i * e);
            if (scan && kind == PP_INCLUSIVE) memcpy(want + i * e, acc, e);
        }
        if (!scan) memcpy(want + s * e, acc, e);
    }
}

static void expect_elems(const unsigned char *got, const unsigned char *want, size_t count, size_t e, const char *what)
{
    for (size_t i = 0; i < count; i++)
        if (memcmp(got + i * e, want + i * e, e)) {
            TC_FAIL("%s differs at element %zu of %zu", what, i, count);
            return;
        }
}

static void segmented_case(const tc_config *c, int k, const pp_operator *op, tc_rng *r, size_t n, int lay)
{
    pp_context *ctx = c->ctx;
    const size_t e = elem_sizes[k], bytes = n * e;
    tc_case("%s: %s, n = %zu, %s", tc_config_name(c), op_names[k], n, lay_names[lay]);
    uint64_t *off = (uint64_t *)tc_halloc((n + 64) * sizeof(uint64_t));
    const size_t nseg = make_offsets(r, lay, n, off);
    const size_t obytes = (nseg > n ? nseg : n) * e + e; /* room for nseg or n elements */
    unsigned char *in = (unsigned char *)tc_halloc(bytes + e), *got = (unsigned char *)tc_halloc(obytes);
    unsigned char *want = (unsigned char *)tc_halloc(obytes);
    gen(r, k, in, n);
    unsigned char *din = (unsigned char *)tc_dev_filled(ctx, bytes + e, 0);
    unsigned char *dout = (unsigned char *)tc_dev_filled(ctx, obytes, 0x5a);
    uint64_t *doff = (uint64_t *)tc_dev_upload(ctx, off, (nseg + 1) * sizeof(uint64_t));
    TC_OK(pp_upload(ctx, din, in, bytes));
    ref_segmented(k, in, off, nseg, 0, 0, want);
    TC_OK(pp_segmented_reduce_op(ctx, op, din, n, doff, nseg, dout));
    TC_OK(pp_download(ctx, got, dout, nseg * e));
    expect_elems(got, want, nseg, e, "pp_segmented_reduce_op");
    if (k == OP_SUM) {
        TC_OK(pp_segmented_reduce(ctx, PP_U32, PP_SUM, din, n, doff, nseg, dout));
        TC_OK(pp_download(ctx, want, dout, nseg * e));
        expect_elems(got, want, nseg, e, "u32 sum: pp_segmented_reduce_op against pp_segmented_reduce");
    }
    for (int kind = 0; kind < 2; kind++) {
        const int inplace = (int)((n + (size_t)kind + (size_t)lay) % 2);
        unsigned char *dst = inplace ? din : dout;
        memset(want, 0x5a, bytes);
        if (inplace)
            memcpy(want, in, bytes);
        else
            TC_OK(pp_upload(ctx, dout, want, bytes));
        TC_OK(pp_upload(ctx, din, in, bytes));
        ref_segmented(k, in, off, nseg, 1, kind, want);
        TC_OK(pp_segmented_scan_op(ctx, op, (pp_scan_kind)kind, din, dst, n, doff, nseg));
        TC_OK(pp_download(ctx, got, dst, bytes));
        expect_elems(got, want, n, e, kind ? "pp_segmented_scan_op (exclusive)" : "pp_segmented_scan_op (inclusive)");
        if (k == OP_SUM && !inplace) {
            TC_OK(pp_segmented_scan(ctx, PP_U32, PP_SUM, (pp_scan_kind)kind, din, dout, n, doff, nseg));
            TC_OK(pp_download(ctx, got, dout, bytes));
            expect_elems(got, want, n, e, "u32 sum: pp_segmented_scan against the fold");
        }
    }
    tc_dev_free(ctx, din);
    tc_dev_free(ctx, dout);
    tc_dev_free(ctx, doff);
    free(off);
    free(in);
    free(got);
    free(want);
}

/* n keys of type kt (PP_U32 or PP_F32) in runs: mode 0 one run, 1 short
 * runs, 2 long ones; f32 keys from {-0.0, +0.0, 1.5, NaN}. */
static void gen_keys(tc_rng *r, pp_type kt, int mode, size_t n, void *keys)
{
    static const float fk[4] = {-0.0f, 0.0f, 1.5f, 0.0f};
    uint32_t u = (uint32_t)tc_next(r);
    for (size_t i = 0; i < n; i++) {
        const int change = mode == 1 ? tc_below(r, 2) == 0 : mode == 2 ? tc_below(r, 500) == 0 : 0;
        if (kt == PP_U32) {
            if (change) u += 1 + (uint32_t)tc_below(r, 3);
            memcpy((char *)keys + 4 * i, &u, 4);
        } else {
            const size_t j = (size_t)tc_below(r, 4);
            float f = j == 3 ? 0.0f / 0.0f : fk[j];
            if (!change && i) memcpy(&f, (char *)keys + 4 * (i - 1), 4);
            if (!change && i && tc_below(r, 3) == 0 && f == 0.0f) f = -f; /* -0.0 and +0.0 in one run */
            memcpy((char *)keys + 4 * i, &f, 4);
        }
    }
}

static int same_key(pp_type kt, const void *keys, size_t i)
{
    if (kt == PP_U32) return !memcmp((const char *)keys + 4 * i, (const char *)keys + 4 * (i - 1), 4);
    float a, b;
    memcpy(&a, (const char *)keys + 4 * i, 4);
    memcpy(&b, (const char *)keys + 4 * (i - 1), 4);
    return a == b;
}

static void bykey_case(const tc_config *c, int k, const pp_operator *op, tc_rng *r, size_t n, pp_type kt, int mode)
{
    pp_context *ctx = c->ctx;
    const size_t e = elem_sizes[k], bytes = n * e;
    tc_case("%s: %s by %s keys, n = %zu, runs %d", tc_config_name(c), op_names[k], kt == PP_U32 ? "u32" : "f32", n,
            mode);
    unsigned char *keys = (unsigned char *)tc_halloc(4 * n + 4), *in = (unsigned char *)tc_halloc(bytes + e);
    unsigned char *want = (unsigned char *)tc_halloc(bytes + e), *got = (unsigned char *)tc_halloc(bytes + e);
    unsigned char *wkeys = (unsigned char *)tc_halloc(4 * n + 4), *gkeys = (unsigned char *)tc_halloc(4 * n + 4);
    uint64_t *off = (uint64_t *)tc_halloc((n + 1) * sizeof(uint64_t));
    gen_keys(r, kt, mode, n, keys);
    gen(r, k, in, n);
    size_t runs = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || !same_key(kt, keys, i)) {
            memcpy(wkeys + 4 * runs, keys + 4 * i, 4);
            off[runs++] = i;
        }
    off[runs] = n;
    unsigned char *dkeys = (unsigned char *)tc_dev_filled(ctx, 4 * n + 4, 0);
    unsigned char *din = (unsigned char *)tc_dev_filled(ctx, bytes + e, 0);
    unsigned char *dout = (unsigned char *)tc_dev_filled(ctx, bytes + e, 0x5a);
    unsigned char *dkout = (unsigned char *)tc_dev_filled(ctx, 4 * n + 4, 0x5a);
    uint64_t *dcount = (uint64_t *)tc_dev_filled(ctx, 8, 0x5a), count = 0;
    TC_OK(pp_upload(ctx, dkeys, keys, 4 * n));
    TC_OK(pp_upload(ctx, din, in, bytes));
    ref_segmented(k, in, off, runs, 0, 0, want);
    TC_OK(pp_reduce_by_key_op(ctx, kt, op, dkeys, din, n, dkout, dout, dcount));
    TC_OK(pp_download(ctx, &count, dcount, 8));
    TC_REQUIRE(count == runs, "pp_reduce_by_key_op: count %llu, want %zu", (unsigned long long)count, runs);
    if (count == runs && runs) {
        TC_OK(pp_download(ctx, got, dout, runs * e));
        TC_OK(pp_download(ctx, gkeys, dkout, 4 * runs));
        expect_elems(got, want, runs, e, "pp_reduce_by_key_op values");
        expect_elems(gkeys, wkeys, runs, 4, "pp_reduce_by_key_op keys");
        if (k == OP_SUM) {
            TC_OK(pp_reduce_by_key(ctx, kt, PP_U32, PP_SUM, dkeys, din, n, dkout, dout, dcount));
            TC_OK(pp_download(ctx, want, dout, runs * e));
            expect_elems(got, want, runs, e, "u32 sum: pp_reduce_by_key_op against pp_reduce_by_key");
        }
    }
    for (int kind = 0; kind < 2; kind++) {
        const int inplace = (int)((n + (size_t)kind + (size_t)mode) % 2);
        unsigned char *dst = inplace ? din : dout;
        TC_OK(pp_upload(ctx, din, in, bytes));
        ref_segmented(k, in, off, runs, 1, kind, want);
        TC_OK(pp_scan_by_key_op(ctx, kt, op, (pp_scan_kind)kind, dkeys, din, dst, n));
        TC_OK(pp_download(ctx, got, dst, bytes));
        expect_elems(got, want, n, e, kind ? "pp_scan_by_key_op (exclusive)" : "pp_scan_by_key_op (inclusive)");
        if (k == OP_SUM && !inplace && n) {
            TC_OK(pp_scan_by_key(ctx, kt, PP_U32, PP_SUM, (pp_scan_kind)kind, dkeys, din, dout, n));
            TC_OK(pp_download(ctx, got, dout, bytes));
            expect_elems(got, want, n, e, "u32 sum: pp_scan_by_key against the fold");
        }
    }
    tc_dev_free(ctx, dkeys);
    tc_dev_free(ctx, din);
    tc_dev_free(ctx, dout);
    tc_dev_free(ctx, dkout);
    tc_dev_free(ctx, dcount);
    free(keys);
    free(in);
    free(want);
    free(got);
    free(wkeys);
    free(gkeys);
    free(off);
}

static void values_on(const tc_config *c, tc_rng *r)
{
    static const size_t sizes[] = {0, 1, 7, 1001, 5000, 40000, 70001};
    static const int ops[] = {OP_SUM, OP_AFFINE, OP_MAT2, OP_BYTE3};
    for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
        const int k = ops[oi];
        pp_operator *op = create_op(c, k, k == OP_SUM);
        if (!op) continue;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            for (int lay = 0; lay < LAY_COUNT; lay++) segmented_case(c, k, op, r, sizes[s], lay);
            bykey_case(c, k, op, r, sizes[s], s % 2 ? PP_F32 : PP_U32, (int)(s % 3));
        }
        pp_operator_destroy(op);
    }
}

static void test_values(void **state)
{
    (void)state;
    each_operator_config("operator segmented values", values_on);
}

static void errors_on(pp_context *ctx)
{
    if (!has_operators(ctx)) return;
    const uint32_t id[2] = {1, 0};
    pp_operator *op = NULL;
    TC_OK(pp_operator_create(ctx, sources[OP_AFFINE], 8, id, 0, &op));
    const int addressable = pp_context_backend(ctx) != PP_BACKEND_OPENCL;
    uint32_t *buf = (uint32_t *)tc_dev_filled(ctx, 64, 1), *obuf = (uint32_t *)tc_dev_filled(ctx, 64, 1);
    uint32_t *kbuf = (uint32_t *)tc_dev_filled(ctx, 64, 1), *kobuf = (uint32_t *)tc_dev_filled(ctx, 64, 1);
    uint32_t *cnt = (uint32_t *)tc_dev_filled(ctx, 8, 1);
    const uint64_t good[3] = {0, 1, 3}, down[3] = {0, 2, 1}, past[3] = {0, 1, 5};
    uint64_t *doff = (uint64_t *)tc_dev_upload(ctx, good, sizeof good);
    uint64_t *dbad = (uint64_t *)tc_dev_upload(ctx, down, sizeof down);
    uint64_t *dpast = (uint64_t *)tc_dev_upload(ctx, past, sizeof past);
    EXPECT_ERR(pp_segmented_reduce_op(ctx, NULL, buf, 3, doff, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "'op'");
    EXPECT_ERR(pp_segmented_reduce_op(ctx, op, NULL, 3, doff, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "'in'");
    EXPECT_ERR(pp_segmented_reduce_op(ctx, op, buf, 3, NULL, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "'offsets'");
    EXPECT_ERR(pp_segmented_reduce_op(ctx, op, buf, 3, doff, 2, NULL), PP_ERROR_INVALID_ARGUMENT, "'out'");
    EXPECT_ERR(pp_segmented_scan_op(ctx, op, (pp_scan_kind)7, buf, obuf, 3, doff, 2), PP_ERROR_INVALID_ARGUMENT,
               "kind");
    EXPECT_ERR(pp_segmented_scan_op(ctx, op, PP_INCLUSIVE, buf, obuf, SIZE_MAX / 4, doff, 2), PP_ERROR_INVALID_ARGUMENT,
               "'n'");
    TC_OK(pp_segmented_reduce_op(ctx, op, NULL, 0, NULL, 0, NULL)); /* nseg == 0: nothing */
    EXPECT_ERR(pp_reduce_by_key_op(ctx, PP_U32, op, kbuf, buf, 3, kobuf, obuf, NULL), PP_ERROR_INVALID_ARGUMENT,
               "'count'");
    EXPECT_ERR(pp_reduce_by_key_op(ctx, PP_U32, op, NULL, buf, 3, kobuf, obuf, (uint64_t *)cnt),
               PP_ERROR_INVALID_ARGUMENT, "'keys'");
    EXPECT_ERR(pp_scan_by_key_op(ctx, PP_U32, op, PP_INCLUSIVE, kbuf, NULL, obuf, 3), PP_ERROR_INVALID_ARGUMENT,
               "'values'");
    EXPECT_ERR(pp_scan_by_key_op(ctx, (pp_type)99, op, PP_INCLUSIVE, kbuf, buf, obuf, 3), PP_ERROR_INVALID_ARGUMENT,
               "type");
    if (addressable) {
        EXPECT_ERR(pp_segmented_scan_op(ctx, op, PP_INCLUSIVE, buf, buf + 2, 3, doff, 2), PP_ERROR_INVALID_ARGUMENT,
                   "overlaps");
        EXPECT_ERR(pp_segmented_reduce_op(ctx, op, buf, 3, doff, 2, (char *)obuf + 1), PP_ERROR_INVALID_ARGUMENT,
                   "aligned");
        EXPECT_ERR(pp_segmented_reduce_op(ctx, op, buf, 3, (const uint64_t *)obuf, 2, obuf), PP_ERROR_INVALID_ARGUMENT,
                   "overlaps");
        EXPECT_ERR(pp_reduce_by_key_op(ctx, PP_U32, op, kbuf, buf, 3, kbuf + 1, obuf, (uint64_t *)cnt),
                   PP_ERROR_INVALID_ARGUMENT, "overlaps");
        EXPECT_ERR(pp_scan_by_key_op(ctx, PP_U32, op, PP_INCLUSIVE, kbuf, buf, buf + 2, 3), PP_ERROR_INVALID_ARGUMENT,
                   "overlaps");
    }
    if (pp_context_backend(ctx) == PP_BACKEND_CPU) { /* checked before anything is written */
        EXPECT_ERR(pp_segmented_reduce_op(ctx, op, buf, 3, dbad, 2, obuf), PP_ERROR_INVALID_ARGUMENT,
                   "offsets must not decrease");
        EXPECT_ERR(pp_segmented_scan_op(ctx, op, PP_EXCLUSIVE, buf, obuf, 3, dpast, 2), PP_ERROR_INVALID_ARGUMENT,
                   "past n");
    } else { /* clamped on the device: no crash, no write past out[0 .. nseg) */
        TC_OK(pp_segmented_reduce_op(ctx, op, buf, 3, dbad, 2, obuf));
        TC_OK(pp_segmented_reduce_op(ctx, op, buf, 3, dpast, 2, obuf));
        uint32_t h[16];
        TC_OK(pp_download(ctx, h, obuf, sizeof h));
        for (int i = 4; i < 16; i++) TC_REQUIRE(h[i] == 0x01010101u, "a clamped call wrote out word %d", i);
    }
    pp_context *other = other_context(ctx);
    if (other) {
        TC_REQUIRE(pp_segmented_scan_op(other, op, PP_INCLUSIVE, buf, obuf, 3, doff, 2) == PP_ERROR_INVALID_ARGUMENT &&
                       strstr(pp_last_error(other), "another context"),
                   "an operator of another context: %s", pp_last_error(other));
        TC_REQUIRE(pp_reduce_by_key_op(other, PP_U32, op, kbuf, buf, 3, kobuf, obuf, (uint64_t *)cnt) ==
                           PP_ERROR_INVALID_ARGUMENT &&
                       strstr(pp_last_error(other), "another context"),
                   "an operator of another context: %s", pp_last_error(other));
        pp_destroy(other);
    }
    expect_untouched(ctx, buf, "in");
    if (pp_context_backend(ctx) == PP_BACKEND_CPU) /* elsewhere the clamped calls wrote out[0 .. 2) */
        expect_untouched(ctx, obuf, "out");
    tc_dev_free(ctx, buf);
    tc_dev_free(ctx, obuf);
    tc_dev_free(ctx, kbuf);
    tc_dev_free(ctx, kobuf);
    tc_dev_free(ctx, cnt);
    tc_dev_free(ctx, doff);
    tc_dev_free(ctx, dbad);
    tc_dev_free(ctx, dpast);
    pp_operator_destroy(op);
}

static void test_errors(void **state)
{
    (void)state;
    each_context(errors_on);
}

int main(void) { return operator_tests_main("test_operator_seg", test_values, test_errors); }
