/* test_errors: the bad arguments of pp_reduce_to, pp_scan_to, pp_argmin and
 * pp_argmax: each refused with PP_ERROR_INVALID_ARGUMENT (PP_ERROR_UNSUPPORTED
 * for an operator out_type lacks, and for PP_ALGO_EXACT converting sums), a
 * message naming the call and the argument, nothing written; and the empty
 * scan (n == 0) that succeeds with NULL arrays, writing nothing. */
#include "test_errors.h"

/* Pairs the header refuses: narrowing, signed to unsigned, 64-bit integers
 * to floats, 32-bit integers to f32, floats to integers. */
static const pp_type bad_pairs[][2] = {{PP_I32, PP_U64}, {PP_U64, PP_I64}, {PP_I64, PP_F64}, {PP_F64, PP_F32},
                                       {PP_U16, PP_U8},  {PP_I8, PP_U8},   {PP_U32, PP_F32}, {PP_F32, PP_I64},
                                       {PP_I8, PP_U64},  {PP_U64, PP_F64}};

static void errors_convert(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *R = "pp_reduce_to", *S = "pp_scan_to";
    void *in = f->in, *out = f->out, *one = f->count;
    EXPECT(NULL, pp_reduce_to(NULL, PP_U8, PP_U64, PP_SUM, in, N, one), PP_ERROR_INVALID_ARGUMENT, R, "ctx");
    EXPECT(NULL, pp_scan_to(NULL, PP_U8, PP_U64, PP_SUM, PP_INCLUSIVE, in, out, N), PP_ERROR_INVALID_ARGUMENT, S,
           "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, bad_types[i], PP_U64, PP_SUM, in, N, one), PP_ERROR_INVALID_ARGUMENT, R,
                       "in_type");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, bad_types[i], PP_SUM, in, N, one), PP_ERROR_INVALID_ARGUMENT, R,
                       "out_type");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, bad_types[i], PP_I64, PP_SUM, PP_INCLUSIVE, in, out, N / 8),
                       PP_ERROR_INVALID_ARGUMENT, S, "in_type");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_I8, bad_types[i], PP_SUM, PP_INCLUSIVE, in, out, N / 8),
                       PP_ERROR_INVALID_ARGUMENT, S, "out_type");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U32, bad_ops[i], in, N, one), PP_ERROR_INVALID_ARGUMENT, R, "op");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U32, bad_ops[i], PP_INCLUSIVE, in, out, N / 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "op");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U32, PP_SUM, (pp_scan_kind)(2 + 75 * i), in, out, N / 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "kind");
    }
    for (size_t p = 0; p < sizeof bad_pairs / sizeof bad_pairs[0]; p++) {
        const pp_type it = bad_pairs[p][0], ot = bad_pairs[p][1];
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, it, ot, PP_SUM, in, N / 8, one), PP_ERROR_INVALID_ARGUMENT, R,
                       "out_type|in_type");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, it, ot, PP_MAX, PP_EXCLUSIVE, in, out, N / 8), PP_ERROR_INVALID_ARGUMENT, S,
                       "out_type|in_type");
    }
    /* bitwise operators on a float out_type */
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_F32, PP_OR, in, N, one), PP_ERROR_UNSUPPORTED, R, "or");
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_I16, PP_F64, PP_XOR, PP_INCLUSIVE, in, out, N / 8), PP_ERROR_UNSUPPORTED, S,
                   "xor");
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U16, PP_SUM, NULL, N, one), PP_ERROR_INVALID_ARGUMENT, R, "in");
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U16, PP_SUM, in, N, NULL), PP_ERROR_INVALID_ARGUMENT, R, "out");
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U16, PP_SUM, NULL, 0, NULL), PP_ERROR_INVALID_ARGUMENT, R, "out");
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U16, PP_SUM, PP_INCLUSIVE, NULL, out, N), PP_ERROR_INVALID_ARGUMENT, S,
                   "in");
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U16, PP_SUM, PP_INCLUSIVE, in, NULL, N), PP_ERROR_INVALID_ARGUMENT, S,
                   "out");
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U64, PP_SUM, in, SIZE_MAX / 8 + 1, one), PP_ERROR_INVALID_ARGUMENT, R,
                   "n");
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_I32, PP_I64, PP_SUM, PP_INCLUSIVE, in, out, SIZE_MAX / 8 + 1),
                   PP_ERROR_INVALID_ARGUMENT, S, "n");
    /* out must not overlap in where the types differ (in == out included) */
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U16, PP_SUM, PP_INCLUSIVE, in, in, N / 2), PP_ERROR_INVALID_ARGUMENT, S,
                   "out|in");
    EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_F32, PP_F64, PP_SUM, PP_EXCLUSIVE, in, in, N / 2), PP_ERROR_INVALID_ARGUMENT,
                   S, "out|in");
    EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U16, PP_U32, PP_SUM, in, N, in), PP_ERROR_INVALID_ARGUMENT, R, "out|in");
    /* n == 0: the scan writes nothing, NULL arrays allowed */
    EXPECT(ctx, pp_scan_to(ctx, PP_U8, PP_U64, PP_SUM, PP_EXCLUSIVE, NULL, NULL, 0), PP_SUCCESS, S, "");
    FX_CHECK(f, "pp_scan_to with n == 0");
    /* PP_ALGO_EXACT: no exact converting sums (a sum to f32 or f64 from another type) */
    if (pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT) == PP_SUCCESS) {
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_F32, PP_F64, PP_SUM, in, N, one), PP_ERROR_UNSUPPORTED, R,
                       "PP_ALGO_EXACT");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_I16, PP_F32, PP_SUM, in, N, one), PP_ERROR_UNSUPPORTED, R,
                       "PP_ALGO_EXACT");
        pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
    }
    if (pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_EXACT) == PP_SUCCESS) {
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_F32, PP_F64, PP_SUM, PP_INCLUSIVE, in, out, N / 2), PP_ERROR_UNSUPPORTED,
                       S, "PP_ALGO_EXACT");
        pp_set_algorithm(ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
    }
    if (f->addressable) {
        /* partial overlaps and misalignment */
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_U8, PP_U16, PP_SUM, PP_INCLUSIVE, in, at(in, N - 2), N),
                       PP_ERROR_INVALID_ARGUMENT, S, "out|in");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U8, PP_U64, PP_SUM, in, N, at(in, 8)), PP_ERROR_INVALID_ARGUMENT, R,
                       "out|in");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U16, PP_U64, PP_SUM, at(in, 1), N / 4, one), PP_ERROR_INVALID_ARGUMENT,
                       R, "in");
        EXPECT_NOWRITE(f, pp_reduce_to(ctx, PP_U16, PP_U64, PP_SUM, in, N / 4, at(out, 4)), PP_ERROR_INVALID_ARGUMENT,
                       R, "out");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_F32, PP_F64, PP_SUM, PP_INCLUSIVE, at(in, 2), out, N / 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "in");
        EXPECT_NOWRITE(f, pp_scan_to(ctx, PP_I32, PP_I64, PP_SUM, PP_INCLUSIVE, in, at(out, 4), N / 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "out");
    }
}

static void errors_arg(fixture *f)
{
    pp_context *ctx = f->ctx;
    void *in = f->in;
    uint64_t *ix = (uint64_t *)f->count;
    for (int max = 0; max < 2; max++) {
        const char *A = max ? "pp_argmax" : "pp_argmin";
        pp_status (*call)(pp_context *, pp_type, const void *, size_t, uint64_t *) = max ? pp_argmax : pp_argmin;
        EXPECT(NULL, call(NULL, PP_I32, in, N, ix), PP_ERROR_INVALID_ARGUMENT, A, "ctx");
        for (int i = 0; i < NBAD; i++)
            EXPECT_NOWRITE(f, call(ctx, bad_types[i], in, N, ix), PP_ERROR_INVALID_ARGUMENT, A, "type");
        /* NumPy: "attempt to get argmin of an empty sequence" */
        EXPECT_NOWRITE(f, call(ctx, PP_F32, in, 0, ix), PP_ERROR_INVALID_ARGUMENT, A, "n");
        EXPECT_NOWRITE(f, call(ctx, PP_F32, NULL, 0, ix), PP_ERROR_INVALID_ARGUMENT, A, "n");
        EXPECT_NOWRITE(f, call(ctx, PP_F32, NULL, N, ix), PP_ERROR_INVALID_ARGUMENT, A, "in");
        EXPECT_NOWRITE(f, call(ctx, PP_F32, in, N, NULL), PP_ERROR_INVALID_ARGUMENT, A, "index");
        EXPECT_NOWRITE(f, call(ctx, PP_F64, in, SIZE_MAX / 8 + 1, ix), PP_ERROR_INVALID_ARGUMENT, A, "n");
        EXPECT_NOWRITE(f, call(ctx, PP_I32, in, N, (uint64_t *)in), PP_ERROR_INVALID_ARGUMENT, A, "index|in");
        if (f->addressable) {
            EXPECT_NOWRITE(f, call(ctx, PP_I32, in, N, (uint64_t *)at(in, 4 * N - 8)), PP_ERROR_INVALID_ARGUMENT, A,
                           "index|in");
            EXPECT_NOWRITE(f, call(ctx, PP_I32, at(in, 2), N / 2, ix), PP_ERROR_INVALID_ARGUMENT, A, "in");
            EXPECT_NOWRITE(f, call(ctx, PP_U8, in, N, (uint64_t *)at(f->counts, 4)), PP_ERROR_INVALID_ARGUMENT, A,
                           "index");
        }
    }
}

void errors_reduce_to(fixture *f)
{
    tc_case("%s reduce-to, scan-to and arg-reduction errors", pp_backend_name(pp_context_backend(f->ctx)));
    errors_convert(f);
    errors_arg(f);
}
