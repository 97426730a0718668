/* What the operator tests share (test_operator.c, test_operator_seg.c):
 * the operators' texts, a sequential fold written here for each (not
 * compiled from its text), their identities and data, the fresh cache
 * directory, and the check that a context has user operators. */
#ifndef PP_TEST_OPERATOR_OPS_H
#define PP_TEST_OPERATOR_OPS_H

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

/* A fresh cache directory for the compiled code, in PARPRIM_CACHE_DIR;
 * 0 where none could be made. */
static int make_cache(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/parprim-test-op-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 0;
    }
    setenv("PARPRIM_CACHE_DIR", cache_dir, 1);
    return 1;
}

/* Operator k on c's context with its identity (NULL, the test failed,
 * where it cannot be created). */
static pp_operator *create_op(const tc_config *c, int k, int commutative)
{
    unsigned char id[16];
    identity_of(k, id);
    pp_operator *op = NULL;
    pp_status st = pp_operator_create(c->ctx, sources[k], elem_sizes[k], id, commutative, &op);
    TC_REQUIRE(st == PP_SUCCESS, "%s: pp_operator_create(%s): %s", tc_config_name(c), op_names[k],
               pp_last_error(c->ctx));
    return st == PP_SUCCESS ? op : NULL;
}

/* run(c, r) on every configuration of the scan (PP_ALGO_AUTO) that has user
 * operators, r seeded by name. */
static void each_operator_config(const char *name, void (*run)(const tc_config *c, tc_rng *r))
{
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SCAN, &cfg);
    tc_rng r = tc_rng_for(name);
    for (size_t ci = 0; ci < ncfg; ci++)
        if (cfg[ci].algo == PP_ALGO_AUTO && has_operators(cfg[ci].ctx)) run(&cfg[ci], &r);
}

/* run(ctx) on one context per backend, as the case "<backend>: errors". */
static void each_context(void (*run)(pp_context *ctx))
{
    pp_context *const *ctxs;
    size_t nctx = tc_contexts(&ctxs);
    for (size_t ci = 0; ci < nctx; ci++) {
        tc_case("%s: errors", pp_backend_name(pp_context_backend(ctxs[ci])));
        run(ctxs[ci]);
    }
}

/* The 16 words at dev (filled with byte 1) are still untouched. */
static void expect_untouched(pp_context *ctx, const void *dev, const char *what)
{
    uint32_t host[16];
    TC_OK(pp_download(ctx, host, dev, sizeof host));
    for (int i = 0; i < 16; i++) TC_REQUIRE(host[i] == 0x01010101u, "a failed call wrote %s word %d", what, i);
}

/* A second context of ctx's backend (NULL where none can be made). */
static pp_context *other_context(pp_context *ctx)
{
    pp_options o = PP_OPTIONS_INIT;
    o.backend = pp_context_backend(ctx);
    pp_context *other = NULL;
    return pp_create(&other, &o) == PP_SUCCESS ? other : NULL;
}

#define EXPECT_ERR(call, want_st, needle)                                                                          \
    do {                                                                                                           \
        pp_status st_ = (call);                                                                                    \
        TC_REQUIRE(st_ == (want_st), "%s returned %s", #call, pp_status_string(st_));                              \
        TC_REQUIRE(strstr(pp_last_error(ctx), (needle)), "%s: message '%s' lacks '%s'", #call, pp_last_error(ctx), \
                   (needle));                                                                                      \
    } while (0)

/* The program: a fresh cache, the two tests (values, then errors), the
 * cache removed. */
static int operator_tests_main(const char *name, void (*values)(void **), void (*errors)(void **))
{
    if (!make_cache()) return 1;
    tc_init(name);
    const struct CMUnitTest tests[] = {{"test_values", values, NULL, NULL, NULL},
                                       {"test_errors", errors, NULL, NULL, NULL}};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    remove_cache();
    return rc;
}

#endif
