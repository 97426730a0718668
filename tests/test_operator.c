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
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_SUM, OP_AFFINE, OP_MAT2, OP_BYTE3, OP_FMAX, OP_COUNT };

static const char *const sources[OP_COUNT] = {
    "typedef unsigned pp_elem;\n"
    "pp_elem pp_combine(pp_elem x, pp_elem y) { return x + y; }\n",
    /* x then y: y.a (x.a t + x.b) + y.b */
    "typedef struct { unsigned a, b; } pp_elem;\n"
    "pp_elem pp_combine(pp_elem x, pp_elem y)\n"
    "{ pp_elem r; r.a = x.a * y.a; r.b = y.a * x.b + y.b; return r; }\n",
    "typedef struct { unsigned m[4]; } pp_elem;\n"
    "pp_elem pp_combine(pp_elem x, pp_elem y)\n"
    "{ pp_elem r;\n"
    "  r.m[0] = x.m[0] * y.m[0] + x.m[1] * y.m[2]; r.m[1] = x.m[0] * y.m[1] + x.m[1] * y.m[3];\n"
    "  r.m[2] = x.m[2] * y.m[0] + x.m[3] * y.m[2]; r.m[3] = x.m[2] * y.m[1] + x.m[3] * y.m[3];\n"
    "  return r; }\n",
    "typedef struct { unsigned char c[3]; } pp_elem;\n"
    "static unsigned char bmax(unsigned char a, unsigned char b) { return a > b ? a : b; }\n"
    "pp_elem pp_combine(pp_elem x, pp_elem y)\n"
    "{ pp_elem r; for (int k = 0; k < 3; k++) r.c[k] = bmax(x.c[k], y.c[k]); return r; }\n",
    "typedef float pp_elem;\n"
    "pp_elem pp_combine(pp_elem x, pp_elem y) { return x > y ? x : y; }\n",
};
static const size_t elem_sizes[OP_COUNT] = {4, 8, 16, 3, 4};
static const char *const op_names[OP_COUNT] = {"u32 sum", "affine maps", "2x2 matrices", "3-byte max", "f32 max"};

/* The reference: acc = acc . x for operator k (elements as bytes). */
static void fold(int k, unsigned char *acc, const unsigned char *x)
{
    switch (k) {
    case OP_SUM: {
        uint32_t a, b;
        memcpy(&a, acc, 4);
        memcpy(&b, x, 4);
        a += b;
        memcpy(acc, &a, 4);
        return;
    }
    case OP_AFFINE: {
        uint32_t f[2], g[2], r[2];
        memcpy(f, acc, 8);
        memcpy(g, x, 8);
        r[0] = f[0] * g[0];
        r[1] = g[0] * f[1] + g[1];
        memcpy(acc, r, 8);
        return;
    }
    case OP_MAT2: {
        uint32_t p[4], q[4], r[4];
        memcpy(p, acc, 16);
        memcpy(q, x, 16);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) r[2 * i + j] = p[2 * i] * q[j] + p[2 * i + 1] * q[2 + j];
        memcpy(acc, r, 16);
        return;
    }
    case OP_BYTE3:
        for (int i = 0; i < 3; i++)
            if (x[i] > acc[i]) acc[i] = x[i];
        return;
    default: {
        float a, b;
        memcpy(&a, acc, 4);
        memcpy(&b, x, 4);
        if (b > a) memcpy(acc, &b, 4);
        return;
    }
    }
}

static void identity_of(int k, unsigned char *id)
{
    static const uint32_t affine[2] = {1, 0}, mat[4] = {1, 0, 0, 1};
    const float ninf = -1.0f / 0.0f;
    memset(id, 0, 16);
    if (k == OP_AFFINE) memcpy(id, affine, 8);
    if (k == OP_MAT2) memcpy(id, mat, 16);
    if (k == OP_FMAX) memcpy(id, &ninf, 4);
}

/* Elements whose products keep many bits alive: odd multipliers (so no
 * product collapses to 0 modulo 2^32), random offsets. */
static void gen(tc_rng *r, int k, unsigned char *buf, size_t n)
{
    const size_t e = elem_sizes[k];
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * e;
        if (k == OP_FMAX) {
            float f = (float)tc_between(r, -1000000, 1000000) * 0.125f;
            memcpy(p, &f, 4);
            continue;
        }
        tc_fill_random(r, p, e);
        if (k == OP_AFFINE) p[0] |= 1;
        if (k == OP_MAT2) { /* a unimodular-ish matrix: odd diagonal */
            p[0] |= 1;
            p[12] |= 1;
        }
    }
}

static char cache_dir[64];

static void remove_cache(void)
{
    DIR *d = opendir(cache_dir);
    if (!d) return;
    struct dirent *ent;
    char path[512];
    while ((ent = readdir(d)))
        if (ent->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", cache_dir, ent->d_name);
            remove(path);
        }
    closedir(d);
    rmdir(cache_dir);
}

/* 1 where ctx has user operators; else the refusal is checked and skipped. */
static int has_operators(pp_context *ctx)
{
    const unsigned char id[4] = {0};
    pp_operator *op = (pp_operator *)1;
    pp_status st = pp_operator_create(ctx, sources[OP_SUM], 4, id, 1, &op);
    const char *bn = pp_backend_name(pp_context_backend(ctx));
    if (st == PP_ERROR_UNSUPPORTED && pp_context_backend(ctx) != PP_BACKEND_CPU) {
        TC_REQUIRE(strstr(pp_last_error(ctx), "not available") && op == NULL,
                   "%s: a refusal must say 'not available' and leave op NULL: %s", bn, pp_last_error(ctx));
        tc_skip(NULL, "user operators not available on %s yet", bn);
        return 0;
    }
    if (st == PP_ERROR_UNSUPPORTED && strstr(pp_last_error(ctx), "no C compiler")) {
        tc_skip(NULL, "no C compiler for user operators on cpu: %s", pp_last_error(ctx));
        return 0;
    }
    TC_REQUIRE(st == PP_SUCCESS, "%s: pp_operator_create: %s: %s", bn, pp_status_string(st), pp_last_error(ctx));
    pp_operator_destroy(op);
    return 1;
}

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

static void test_values(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 17, 1000, 16385, 40000, 70001, 300007};
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg);
    tc_rng r = tc_rng_for("operator values");
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        if (c->algo != PP_ALGO_AUTO || !has_operators(c->ctx)) continue;
        for (int k = 0; k < OP_COUNT; k++) {
            unsigned char id[16];
            identity_of(k, id);
            pp_operator *op = NULL;
            pp_status st = pp_operator_create(c->ctx, sources[k], elem_sizes[k], id, k == OP_SUM || k >= OP_BYTE3, &op);
            TC_REQUIRE(st == PP_SUCCESS, "%s: pp_operator_create(%s): %s", tc_config_name(c), op_names[k],
                       pp_last_error(c->ctx));
            if (st != PP_SUCCESS) continue;
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                run_case(c, k, op, &r, sizes[s], k == OP_BYTE3 ? s % 5 : s % 2);
            pp_operator_destroy(op);
        }
    }
}

#define EXPECT_ERR(call, want_st, needle)                                                                    \
    do {                                                                                                    \
        pp_status st_ = (call);                                                                             \
        TC_REQUIRE(st_ == (want_st), "%s returned %s", #call, pp_status_string(st_));                       \
        TC_REQUIRE(strstr(pp_last_error(ctx), (needle)), "%s: message '%s' lacks '%s'", #call,             \
                   pp_last_error(ctx), (needle));                                                          \
    } while (0)

static void test_errors(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    for (size_t ci = 0; ci < nctx; ci++) {
        pp_context *ctx = ctxs[ci];
        tc_case("%s: errors", pp_backend_name(pp_context_backend(ctx)));
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
        if (!has_operators(ctx)) continue;
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
        pp_options o = PP_OPTIONS_INIT;
        o.backend = pp_context_backend(ctx);
        pp_context *other = NULL;
        if (pp_create(&other, &o) == PP_SUCCESS) {
            TC_REQUIRE(pp_reduce_op(other, op, buf, 2, obuf) == PP_ERROR_INVALID_ARGUMENT &&
                           strstr(pp_last_error(other), "another context"),
                       "an operator of another context: %s", pp_last_error(other));
            pp_destroy(other);
        }
        /* nothing written by the failed calls */
        uint32_t host[16];
        TC_OK(pp_download(ctx, host, buf, sizeof host));
        for (int i = 0; i < 16; i++) TC_REQUIRE(host[i] == 0x01010101u, "a failed call wrote element %d", i);
        TC_OK(pp_download(ctx, host, obuf, sizeof host));
        for (int i = 0; i < 16; i++) TC_REQUIRE(host[i] == 0x01010101u, "a failed call wrote out[%d]", i);
        tc_dev_free(ctx, buf);
        tc_dev_free(ctx, obuf);
        pp_operator_destroy(op);
    }
}

int main(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/parprim-test-op-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("PARPRIM_CACHE_DIR", cache_dir, 1);
    tc_init("test_operator");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_values), cmocka_unit_test(test_errors)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    remove_cache();
    return rc;
}
