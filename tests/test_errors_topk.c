/* test_errors: the bad arguments of pp_top_k and pp_scan_init: each refused
 * with PP_ERROR_INVALID_ARGUMENT (PP_ERROR_UNSUPPORTED for an operator the
 * type lacks), a message naming the call and the argument, nothing
 * written; and the empty calls (k == 0, n == 0) that succeed with NULL
 * arrays, writing nothing. */
#include "test_errors.h"

static void errors_top_k(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *K = "pp_top_k";
    void *in = f->in, *ko = f->out;
    uint64_t *io = (uint64_t *)f->counts; /* NB >= 4 indices */
    EXPECT(NULL, pp_top_k(NULL, PP_I32, in, N, 4, PP_ASCENDING, ko, io), PP_ERROR_INVALID_ARGUMENT, K, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_top_k(ctx, bad_types[i], in, N, 4, PP_ASCENDING, ko, io), PP_ERROR_INVALID_ARGUMENT, K,
                       "type");
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_F32, in, N, 4, (pp_order)(3 + 50 * i), ko, io), PP_ERROR_INVALID_ARGUMENT, K,
                       "order");
    }
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, 4, (pp_order)-1, ko, io), PP_ERROR_INVALID_ARGUMENT, K, "order");
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, NULL, N, 4, PP_ASCENDING, ko, io), PP_ERROR_INVALID_ARGUMENT, K, "in");
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, 4, PP_DESCENDING, NULL, io), PP_ERROR_INVALID_ARGUMENT, K,
                   "keys_out");
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I64, in, SIZE_MAX / 8 + 1, 4, PP_ASCENDING, ko, io), PP_ERROR_INVALID_ARGUMENT,
                   K, "n");
    /* overlaps: no output on in, nor on the other output */
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, 4, PP_ASCENDING, in, io), PP_ERROR_INVALID_ARGUMENT, K,
                   "keys_out|in");
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, 4, PP_ASCENDING, ko, (uint64_t *)in), PP_ERROR_INVALID_ARGUMENT, K,
                   "indices_out|in");
    EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, 4, PP_ASCENDING, ko, (uint64_t *)ko), PP_ERROR_INVALID_ARGUMENT, K,
                   "indices_out|keys_out");
    /* empty calls: k == 0 and n == 0 succeed with NULL arrays, nothing written; k > n is clamped (below) */
    EXPECT(ctx, pp_top_k(ctx, PP_I32, NULL, N, 0, PP_ASCENDING, NULL, NULL), PP_SUCCESS, K, "");
    EXPECT(ctx, pp_top_k(ctx, PP_F64, NULL, 0, 5, PP_DESCENDING, NULL, NULL), PP_SUCCESS, K, "");
    FX_CHECK(f, "pp_top_k with k == 0 or n == 0");
    if (f->addressable) {
        /* partial overlaps and misalignment */
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, in, N, N / 2, PP_ASCENDING, ko, (uint64_t *)at(ko, 2 * N - 8)),
                       PP_ERROR_INVALID_ARGUMENT, K, "indices_out|keys_out");
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I16, at(in, 8), N, 2 * N, PP_ASCENDING, in, NULL), PP_ERROR_INVALID_ARGUMENT,
                       K, "keys_out|in");
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_I32, at(in, 2), N / 2, 4, PP_ASCENDING, ko, io), PP_ERROR_INVALID_ARGUMENT,
                       K, "in");
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_F64, in, N / 2, 4, PP_ASCENDING, at(ko, 4), io), PP_ERROR_INVALID_ARGUMENT,
                       K, "keys_out");
        EXPECT_NOWRITE(f, pp_top_k(ctx, PP_U8, in, N, 4, PP_ASCENDING, ko, (uint64_t *)at(f->counts, 4)),
                       PP_ERROR_INVALID_ARGUMENT, K, "indices_out");
    }
}

static void errors_scan_init(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *I = "pp_scan_init";
    void *in = f->in, *out = f->out, *init = f->big;
    EXPECT(NULL, pp_scan_init(NULL, PP_I32, PP_SUM, PP_INCLUSIVE, in, out, N, init), PP_ERROR_INVALID_ARGUMENT, I,
           "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_scan_init(ctx, bad_types[i], PP_SUM, PP_INCLUSIVE, in, out, N, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "type");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, bad_ops[i], PP_INCLUSIVE, in, out, N, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "op");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, (pp_scan_kind)(2 + 75 * i), in, out, N, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "kind");
    }
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_F32, PP_OR, PP_INCLUSIVE, in, out, N, init), PP_ERROR_UNSUPPORTED, I, "or");
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, NULL, out, N, init), PP_ERROR_INVALID_ARGUMENT, I,
                   "in");
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_EXCLUSIVE, in, NULL, N, init), PP_ERROR_INVALID_ARGUMENT, I,
                   "out");
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_EXCLUSIVE, in, out, N, NULL), PP_ERROR_INVALID_ARGUMENT, I,
                   "init");
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I64, PP_SUM, PP_INCLUSIVE, in, out, SIZE_MAX / 8 + 1, init),
                   PP_ERROR_INVALID_ARGUMENT, I, "n");
    /* init must not lie in out (the scan writes out) */
    EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_MAX, PP_INCLUSIVE, in, out, N, out), PP_ERROR_INVALID_ARGUMENT, I,
                   "init|out");
    /* n == 0 succeeds with NULL arrays, nothing written */
    EXPECT(ctx, pp_scan_init(ctx, PP_F64, PP_SUM, PP_EXCLUSIVE, NULL, NULL, 0, NULL), PP_SUCCESS, I, "");
    FX_CHECK(f, "pp_scan_init with n == 0");
    if (f->addressable) {
        /* partial overlaps (only in == out is allowed) and misalignment */
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->big, at(f->big, 4), N, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "in|out");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, in, out, N, at(out, 4 * N - 4)),
                       PP_ERROR_INVALID_ARGUMENT, I, "init|out");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, at(in, 2), out, N / 2, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "in");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_F64, PP_SUM, PP_INCLUSIVE, in, at(out, 4), N / 2, init),
                       PP_ERROR_INVALID_ARGUMENT, I, "out");
        EXPECT_NOWRITE(f, pp_scan_init(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, in, out, N, at(init, 2)),
                       PP_ERROR_INVALID_ARGUMENT, I, "init");
    }
}

void errors_topk(fixture *f)
{
    tc_case("%s top-k and scan-init errors", pp_backend_name(pp_context_backend(f->ctx)));
    errors_top_k(f);
    errors_scan_init(f);
}
