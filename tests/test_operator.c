/* Operators of the user's own (pp_operator_create, pp_reduce_op,
 * pp_scan_op) against a sequential fold written here for each operator
 * (not compiled from its text): a u32 sum (also against pp_reduce and
 * pp_scan), the composition of affine maps x -> a x + b modulo 2^32 and the
 * product of 2x2 u32 matrices (both associative, not commutative: any
 * commuted step shows), a 3-byte element (alignment 1, every offset) with a
 * byte-wise max, and an f32 max; sizes around the cpu's chunks, both scan
 * kinds, in and out of place, every thread count. Then the errors: bad
 * arguments, text that does not compile (the compiler's message), a size
 * that is not sizeof(pp_elem), an operator of another context, overlap,
 * misalignment (opencl: a buffer too small). Backends without user operators must say so
 * (PP_ERROR_UNSUPPORTED, "not available"). The compiled code goes to a
 * fresh cache directory (PARPRIM_CACHE_DIR), removed at the end. */
#define _POSIX_C_SOURCE 200809L
#include "test_operator_ops.h"

static void run_case(const tc_config *c, int k, pp_operator *op, tc_rng *r, size_t n, size_t shift)
{
    const size_t e = elem_sizes[k], bytes = n * e;
    tc_case("%s: %s, n = %zu, element offset %zu", tc_config_name(c), op_names[k], n, shift);
    unsigned char *in = (unsigned char *)tc_halloc(bytes + e), *want = (unsigned char *)tc_halloc(bytes + e);
    unsigned char *got = (unsigned char *)tc_halloc(bytes + e), id[16], acc[16];
    gen(r, k, in, n);
    identity_of(k, id);
    /* arrays at an element offset from an allocation (k with alignment 1: any byte) */
    if (c->backend == PP_BACKEND_OPENCL) shift = 0; /* cl_mem handles take no offsets */
    unsigned char *buf = (unsigned char *)tc_dev_filled(c->ctx, bytes + shift * e + e, 0);
    unsigned char *din = buf + shift * e;
    TC_OK(pp_upload(c->ctx, din, in, bytes));
    unsigned char *dout = (unsigned char *)tc_dev_filled(c->ctx, bytes + e, 0x5a);
    /* reduce */
    memcpy(acc, id, e);
    for (size_t i = 0; i < n; i++) fold(k, acc, in + i * e);
    TC_OK(pp_reduce_op(c->ctx, op, din, n, dout));
    TC_OK(pp_download(c->ctx, got, dout, e));
    TC_REQUIRE(!memcmp(got, acc, e), "%s: pp_reduce_op differs from the sequential fold", op_names[k]);
    if (k == OP_SUM) { /* the built-in sum of the same bytes */
        TC_OK(pp_reduce(c->ctx, PP_U32, PP_SUM, din, n, dout));
        TC_OK(pp_download(c->ctx, want, dout, 4));
        TC_REQUIRE(!memcmp(got, want, 4), "u32 sum: pp_reduce_op differs from pp_reduce");
    }
    for (int kind = 0; kind < 2; kind++) {
        memcpy(acc, id, e);
        for (size_t i = 0; i < n; i++) {
            if (kind == PP_EXCLUSIVE) memcpy(want + i * e, acc, e);
            fold(k, acc, in + i * e);
            if (kind == PP_INCLUSIVE) memcpy(want + i * e, acc, e);
        }
        const int inplace = (int)((n + (size_t)kind) % 2);
        TC_OK(pp_upload(c->ctx, din, in, bytes)); /* the last scan may have run in place */
        TC_OK(pp_scan_op(c->ctx, op, (pp_scan_kind)kind, din, inplace ? din : dout, n));
        TC_OK(pp_download(c->ctx, got, inplace ? din : dout, bytes));
        for (size_t i = 0; i < n; i++)
            if (memcmp(got + i * e, want + i * e, e)) {
                TC_FAIL("%s: pp_scan_op (%s, %s) differs at %zu of %zu", op_names[k],
                        kind ? "exclusive" : "inclusive", inplace ? "in place" : "out of place", i, n);
                break;
            }
        if (k == OP_SUM && !inplace) {
            TC_OK(pp_scan(c->ctx, PP_U32, PP_SUM, (pp_scan_kind)kind, din, dout, n));
            TC_OK(pp_download(c->ctx, got, dout, bytes));
            TC_REQUIRE(!memcmp(got, want, bytes), "u32 sum: pp_scan differs from the fold");
        }
    }
    tc_dev_free(c->ctx, buf);
    tc_dev_free(c->ctx, dout);
    free(in);
    free(want);
    free(got);
}

static void values_on(const tc_config *c, tc_rng *r)
{
    static const size_t sizes[] = {0, 1, 2, 3, 17, 1000, 16385, 40000, 70001, 300007};
    for (int k = 0; k < OP_COUNT; k++) {
        pp_operator *op = create_op(c, k, k == OP_SUM || k >= OP_BYTE3);
        if (!op) continue;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            run_case(c, k, op, r, sizes[s], k == OP_BYTE3 ? s % 5 : s % 2);
        pp_operator_destroy(op);
    }
}

static void test_values(void **state)
{
    (void)state;
    each_operator_config("operator values", values_on);
}

static void errors_on(pp_context *ctx)
{
    const unsigned char id[16] = {0};
    pp_operator *op = (pp_operator *)1;
    EXPECT_ERR(pp_operator_create(ctx, NULL, 4, id, 1, &op), PP_ERROR_INVALID_ARGUMENT, "'source'");
    TC_REQUIRE(op == NULL, "op not NULL after a failed create");
    EXPECT_ERR(pp_operator_create(ctx, sources[OP_SUM], 4, NULL, 1, &op), PP_ERROR_INVALID_ARGUMENT, "'identity'");
    EXPECT_ERR(pp_operator_create(ctx, sources[OP_SUM], 0, id, 1, &op), PP_ERROR_INVALID_ARGUMENT, "'element_size'");
    EXPECT_ERR(pp_operator_create(ctx, sources[OP_SUM], 257, id, 1, &op), PP_ERROR_INVALID_ARGUMENT, "'element_size'");
    EXPECT_ERR(pp_operator_create(ctx, sources[OP_SUM], 4, id, 1, NULL), PP_ERROR_INVALID_ARGUMENT, "'op'");
    TC_REQUIRE(pp_operator_create(NULL, sources[OP_SUM], 4, id, 1, &op) == PP_ERROR_INVALID_ARGUMENT,
               "a NULL context must be refused");
    pp_operator_destroy(NULL);
    if (!has_operators(ctx)) return;
    EXPECT_ERR(pp_operator_create(ctx, "typedef unsigned pp_elem;\npp_elem pp_combine(pp_elem x) { return x + }\n",
                                  4, id, 1, &op),
               PP_ERROR_INVALID_ARGUMENT, "does not compile");
    TC_REQUIRE(strstr(pp_last_error(ctx), "error"), "the compiler's message is missing: %s", pp_last_error(ctx));
    EXPECT_ERR(pp_operator_create(ctx, sources[OP_AFFINE], 4, id, 0, &op), PP_ERROR_INVALID_ARGUMENT,
               "sizeof(pp_elem)");
    TC_OK(pp_operator_create(ctx, sources[OP_AFFINE], 8, id, 0, &op));
    /* buf: the input, obuf: outputs (separate buffers: opencl handles take no offsets) */
    uint32_t *buf = (uint32_t *)tc_dev_filled(ctx, 64, 1), *obuf = (uint32_t *)tc_dev_filled(ctx, 64, 1);
    const int addressable = pp_context_backend(ctx) != PP_BACKEND_OPENCL;
    EXPECT_ERR(pp_reduce_op(ctx, NULL, buf, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "'op'");
    EXPECT_ERR(pp_reduce_op(ctx, op, NULL, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "'in'");
    EXPECT_ERR(pp_reduce_op(ctx, op, buf, 2, NULL), PP_ERROR_INVALID_ARGUMENT, "'out'");
    EXPECT_ERR(pp_reduce_op(ctx, op, buf, SIZE_MAX / 4, obuf), PP_ERROR_INVALID_ARGUMENT, "'n'");
    if (addressable) {
        EXPECT_ERR(pp_reduce_op(ctx, op, (char *)buf + 1, 2, obuf), PP_ERROR_INVALID_ARGUMENT, "aligned");
        EXPECT_ERR(pp_scan_op(ctx, op, PP_INCLUSIVE, buf, buf + 2, 3), PP_ERROR_INVALID_ARGUMENT, "overlaps");
    }
    EXPECT_ERR(pp_scan_op(ctx, op, (pp_scan_kind)7, buf, obuf, 2), PP_ERROR_INVALID_ARGUMENT, "kind");
    if (!addressable) /* a buffer too small for n elements */
        EXPECT_ERR(pp_scan_op(ctx, op, PP_INCLUSIVE, buf, obuf, 1000), PP_ERROR_INVALID_ARGUMENT, "holds");
    pp_context *other = other_context(ctx);
    if (other) {
        TC_REQUIRE(pp_reduce_op(other, op, buf, 2, obuf) == PP_ERROR_INVALID_ARGUMENT &&
                       strstr(pp_last_error(other), "another context"),
                   "an operator of another context: %s", pp_last_error(other));
        pp_destroy(other);
    }
    /* nothing written by the failed calls */
    expect_untouched(ctx, buf, "in");
    expect_untouched(ctx, obuf, "out");
    tc_dev_free(ctx, buf);
    tc_dev_free(ctx, obuf);
    pp_operator_destroy(op);
}

static void test_errors(void **state)
{
    (void)state;
    each_context(errors_on);
}

int main(void)
{
    return operator_tests_main("test_operator", test_values, test_errors);
}
