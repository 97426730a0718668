/* test_errors: the bad arguments of search and merge (pp_lower_bound,
 * pp_upper_bound, pp_merge, pp_merge_pairs): each refused with
 * PP_ERROR_INVALID_ARGUMENT, a message naming the call and the argument,
 * nothing written; and the empty calls that succeed with NULL arrays. */
#include "test_errors.h"

/* The search calls one after the other (upper: 0 or 1). */
static pp_status bound(int upper, pp_context *ctx, pp_type t, const void *s, size_t n, pp_order o, const void *q,
                       size_t m, uint64_t *out)
{
    return upper ? pp_upper_bound(ctx, t, s, n, o, q, m, out) : pp_lower_bound(ctx, t, s, n, o, q, m, out);
}

static void errors_bounds(fixture *f, int upper)
{
    pp_context *ctx = f->ctx;
    const char *B = upper ? "pp_upper_bound" : "pp_lower_bound";
    void *s = f->keys, *q = f->in;
    uint64_t *out = (uint64_t *)f->out;
    const pp_order A = PP_ASCENDING;
    EXPECT(NULL, bound(upper, NULL, PP_I32, s, N, A, q, N, out), PP_ERROR_INVALID_ARGUMENT, B, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, bound(upper, ctx, bad_types[i], s, N, A, q, N, out), PP_ERROR_INVALID_ARGUMENT, B, "type");
        EXPECT_NOWRITE(f, bound(upper, ctx, PP_F32, s, N, (pp_order)(3 + 40 * i), q, N, out), PP_ERROR_INVALID_ARGUMENT,
                       B, "order");
    }
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, s, N, (pp_order)-1, q, N, out), PP_ERROR_INVALID_ARGUMENT, B, "order");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, NULL, N, A, q, N, out), PP_ERROR_INVALID_ARGUMENT, B, "sorted");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, s, N, A, NULL, N, out), PP_ERROR_INVALID_ARGUMENT, B, "queries");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, s, N, A, q, N, NULL), PP_ERROR_INVALID_ARGUMENT, B, "out");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, s, 0, A, q, N, NULL), PP_ERROR_INVALID_ARGUMENT, B, "out");
    /* m == 0: nothing read or written, every array may be NULL */
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, NULL, N, A, NULL, 0, NULL), PP_SUCCESS, B, "");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_U64, s, N, A, q, 0, out), PP_SUCCESS, B, "");
    /* sizes that overflow size_t */
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, s, SIZE_MAX / 4 + 1, A, q, N, out), PP_ERROR_INVALID_ARGUMENT, B, "n");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I8, s, N, A, q, SIZE_MAX / 8 + 1, out), PP_ERROR_INVALID_ARGUMENT, B, "m");
    /* out overlaps an input (the inputs may overlap each other) */
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I64, s, N, A, q, N, (uint64_t *)s), PP_ERROR_INVALID_ARGUMENT, B,
                   "out|sorted");
    EXPECT_NOWRITE(f, bound(upper, ctx, PP_I64, s, N, A, q, N, (uint64_t *)q), PP_ERROR_INVALID_ARGUMENT, B,
                   "out|queries");
    if (f->addressable) {
        EXPECT_NOWRITE(f, bound(upper, ctx, PP_I64, s, N, A, q, N / 2, (uint64_t *)at(q, 8 * (N / 2) - 8)),
                       PP_ERROR_INVALID_ARGUMENT, B, "out|queries");
        EXPECT_NOWRITE(f, bound(upper, ctx, PP_I32, at(s, 2), N / 2, A, q, N, out), PP_ERROR_INVALID_ARGUMENT, B,
                       "sorted");
        EXPECT_NOWRITE(f, bound(upper, ctx, PP_F64, s, N / 2, A, at(q, 4), N / 2, out), PP_ERROR_INVALID_ARGUMENT, B,
                       "queries");
        EXPECT_NOWRITE(f, bound(upper, ctx, PP_U8, s, N, A, q, N / 2, (uint64_t *)at(out, 4)),
                       PP_ERROR_INVALID_ARGUMENT, B, "out");
    }
}

void errors_search(fixture *f)
{
    tc_case("%s search and merge errors", pp_backend_name(pp_context_backend(f->ctx)));
    errors_bounds(f, 0);
    errors_bounds(f, 1);
    pp_context *ctx = f->ctx;
    const char *M = "pp_merge", *P = "pp_merge_pairs";
    /* a: keys and vals, b: in and big (inputs); outputs: out (keys) and
     * counts (values: 16 of 8 bytes at most) */
    void *ak = f->keys, *av = f->vals, *bk = f->in, *bv = f->big, *ko = f->out, *vo = f->counts;
    const size_t h = 8; /* keys per side */
    const pp_order A = PP_ASCENDING;
    EXPECT(NULL, pp_merge(NULL, PP_I32, ak, h, bk, h, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "ctx");
    EXPECT(NULL, pp_merge_pairs(NULL, PP_I32, ak, av, h, bk, bv, h, 4, ko, vo, A), PP_ERROR_INVALID_ARGUMENT, P, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_merge(ctx, bad_types[i], ak, h, bk, h, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "type");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, bad_types[i], ak, av, h, bk, bv, h, 4, ko, vo, A),
                       PP_ERROR_INVALID_ARGUMENT, P, "type");
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_F64, ak, h, bk, h, ko, (pp_order)(3 + 40 * i)), PP_ERROR_INVALID_ARGUMENT, M,
                       "order");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_U16, ak, av, h, bk, bv, h, 2, ko, vo, (pp_order)(3 + 40 * i)),
                       PP_ERROR_INVALID_ARGUMENT, P, "order");
    }
    static const size_t bad_vs[4] = {0, 3, 16, SIZE_MAX};
    for (int i = 0; i < 4; i++)
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, bad_vs[i], ko, vo, A),
                       PP_ERROR_INVALID_ARGUMENT, P, "value_size");
    /* NULL arrays, each in turn (arg: the one that is NULL) */
    static const char *const names[6] = {"a_keys", "a_values", "b_keys", "b_values", "keys_out", "values_out"};
#define NUL(p, i) (arg == (i) ? NULL : (p))
    for (int arg = 0; arg < 6; arg++) {
        EXPECT_NOWRITE(f,
                       pp_merge_pairs(ctx, PP_I32, NUL(ak, 0), NUL(av, 1), h, NUL(bk, 2), NUL(bv, 3), h, 4, NUL(ko, 4),
                                      NUL(vo, 5), A),
                       PP_ERROR_INVALID_ARGUMENT, P, names[arg]);
        if (arg == 1 || arg == 3 || arg == 5) continue;
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, NUL(ak, 0), h, NUL(bk, 2), h, NUL(ko, 4), A), PP_ERROR_INVALID_ARGUMENT,
                       M, names[arg]);
    }
#undef NUL
    /* empty: na + nb == 0 touches nothing, every array may be NULL */
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, NULL, 0, NULL, 0, NULL, A), PP_SUCCESS, M, "");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I8, NULL, NULL, 0, NULL, NULL, 0, 8, NULL, NULL, A), PP_SUCCESS, P, "");
    /* sizes that overflow size_t */
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, ak, SIZE_MAX / 4 + 1, bk, h, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "na");
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_I64, ak, h, bk, SIZE_MAX / 8 + 1, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "nb");
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_U8, ak, SIZE_MAX / 2 + 1, bk, SIZE_MAX / 2 + 1, ko, A),
                   PP_ERROR_INVALID_ARGUMENT, M, "na|nb");
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_U16, ak, SIZE_MAX / 4 + 1, bk, SIZE_MAX / 4 + 1, ko, A),
                   PP_ERROR_INVALID_ARGUMENT, M, "na|nb");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_U8, ak, av, SIZE_MAX / 8, bk, bv, 1, 8, ko, vo, A),
                   PP_ERROR_INVALID_ARGUMENT, P, "value_size");
    /* the outputs overlap an input or each other (the inputs may overlap) */
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, ak, h, bk, h, ak, A), PP_ERROR_INVALID_ARGUMENT, M, "keys_out|a_keys");
    EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, ak, h, bk, h, bk, A), PP_ERROR_INVALID_ARGUMENT, M, "keys_out|b_keys");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 4, av, vo, A), PP_ERROR_INVALID_ARGUMENT, P,
                   "keys_out|a_values");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 4, ko, bv, A), PP_ERROR_INVALID_ARGUMENT, P,
                   "values_out|b_values");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 4, ko, ko, A), PP_ERROR_INVALID_ARGUMENT, P,
                   "values_out|keys_out");
    EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 4, ko, bk, A), PP_ERROR_INVALID_ARGUMENT, P,
                   "values_out|b_keys");
    if (f->addressable) {
        /* partial overlaps and misalignment */
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, ak, h, bk, h, at(ak, 4 * h - 4), A), PP_ERROR_INVALID_ARGUMENT, M,
                       "keys_out|a_keys");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 4, ko, at(ko, 4 * 2 * h - 4), A),
                       PP_ERROR_INVALID_ARGUMENT, P, "values_out|keys_out");
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_I32, at(ak, 2), h, bk, h, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "a_keys");
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_F64, ak, h, at(bk, 4), h, ko, A), PP_ERROR_INVALID_ARGUMENT, M, "b_keys");
        EXPECT_NOWRITE(f, pp_merge(ctx, PP_I16, ak, h, bk, h, at(ko, 1), A), PP_ERROR_INVALID_ARGUMENT, M, "keys_out");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, at(av, 2), h, bk, bv, h, 4, ko, vo, A),
                       PP_ERROR_INVALID_ARGUMENT, P, "a_values");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, at(bv, 1), h, 2, ko, vo, A),
                       PP_ERROR_INVALID_ARGUMENT, P, "b_values");
        EXPECT_NOWRITE(f, pp_merge_pairs(ctx, PP_I32, ak, av, h, bk, bv, h, 8, ko, at(vo, 4), A),
                       PP_ERROR_INVALID_ARGUMENT, P, "values_out");
    }
}
