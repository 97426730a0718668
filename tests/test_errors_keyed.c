/* test_errors: the bad arguments of the by-key forms (pp_reduce_by_key,
 * pp_scan_by_key, pp_run_length_encode): each refused with
 * PP_ERROR_INVALID_ARGUMENT (PP_ERROR_UNSUPPORTED for an operator the type
 * lacks), a message naming the call and the argument, nothing written. */
#include "test_errors.h"

void errors_bykey(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *R = "pp_reduce_by_key", *S = "pp_scan_by_key", *E = "pp_run_length_encode";
    void *k = f->keys, *v = f->vals, *ko = f->out, *vo = f->big;
    uint64_t *cnt = (uint64_t *)f->count, *counts = (uint64_t *)f->big;
    tc_case("%s by-key errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_reduce_by_key(NULL, PP_I32, PP_I32, PP_SUM, k, v, N, ko, vo, cnt), PP_ERROR_INVALID_ARGUMENT, R,
           "ctx");
    EXPECT(NULL, pp_scan_by_key(NULL, PP_I32, PP_I32, PP_SUM, PP_INCLUSIVE, k, v, ko, N), PP_ERROR_INVALID_ARGUMENT, S,
           "ctx");
    EXPECT(NULL, pp_run_length_encode(NULL, PP_I32, k, N, ko, counts, cnt), PP_ERROR_INVALID_ARGUMENT, E, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, bad_types[i], PP_I32, PP_SUM, k, v, N, ko, vo, cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "type");
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, bad_types[i], PP_SUM, k, v, N, ko, vo, cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "type");
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I64, bad_ops[i], k, v, N, ko, vo, cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "op");
        EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I8, bad_types[i], PP_MIN, PP_INCLUSIVE, k, v, ko, N),
                       PP_ERROR_INVALID_ARGUMENT, S, "type");
        EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I32, PP_U16, bad_ops[i], PP_EXCLUSIVE, k, v, ko, N),
                       PP_ERROR_INVALID_ARGUMENT, S, "op");
        EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I32, PP_U16, PP_SUM, (pp_scan_kind)(2 + 75 * i), k, v, ko, N),
                       PP_ERROR_INVALID_ARGUMENT, S, "kind");
        EXPECT_NOWRITE(f, pp_run_length_encode(ctx, bad_types[i], k, N, ko, counts, cnt), PP_ERROR_INVALID_ARGUMENT, E,
                       "type");
    }
    /* an operator the value type lacks */
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_F32, PP_XOR, k, v, N, ko, vo, cnt), PP_ERROR_UNSUPPORTED, R,
                   "xor");
    EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_U8, PP_F64, PP_AND, PP_INCLUSIVE, k, v, ko, N), PP_ERROR_UNSUPPORTED, S,
                   "and");
    /* NULL arrays, each in turn (arg: the one that is NULL) */
    static const char *const rnames[4] = {"keys", "values", "keys_out", "values_out"};
    static const char *const snames[3] = {"keys", "values", "out"};
    static const char *const enames[3] = {"in", "values_out", "counts_out"};
#define NUL(p, i) (arg == (i) ? NULL : (p))
    for (int arg = 0; arg < 4; arg++) {
        EXPECT_NOWRITE(
            f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, NUL(k, 0), NUL(v, 1), N, NUL(ko, 2), NUL(vo, 3), cnt),
            PP_ERROR_INVALID_ARGUMENT, R, rnames[arg]);
        if (arg == 3) continue;
        EXPECT_NOWRITE(f,
                       pp_scan_by_key(ctx, PP_I32, PP_I32, PP_SUM, PP_INCLUSIVE, NUL(k, 0), NUL(v, 1), NUL(ko, 2), N),
                       PP_ERROR_INVALID_ARGUMENT, S, snames[arg]);
        EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, NUL(k, 0), N, NUL(ko, 1), NUL(counts, 2), cnt),
                       PP_ERROR_INVALID_ARGUMENT, E, enames[arg]);
    }
#undef NUL
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, k, v, 0, ko, vo, NULL), PP_ERROR_INVALID_ARGUMENT,
                   R, "count");
    EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, k, 0, NULL, NULL, NULL), PP_ERROR_INVALID_ARGUMENT, E, "count");
    /* sizes that overflow size_t */
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I8, PP_I32, PP_SUM, k, v, SIZE_MAX / 4 + 1, ko, vo, cnt),
                   PP_ERROR_INVALID_ARGUMENT, R, "n");
    EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I64, PP_I8, PP_SUM, PP_INCLUSIVE, k, v, ko, SIZE_MAX / 8 + 1),
                   PP_ERROR_INVALID_ARGUMENT, S, "n");
    EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_U8, k, SIZE_MAX / 8 + 1, ko, counts, cnt), PP_ERROR_INVALID_ARGUMENT,
                   E, "n");
    /* overlaps: only out == values (the scan) is allowed */
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, k, v, N, k, vo, cnt), PP_ERROR_INVALID_ARGUMENT, R,
                   "keys|keys_out");
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, k, v, N, ko, v, cnt), PP_ERROR_INVALID_ARGUMENT, R,
                   "values|values_out");
    EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, k, v, N, ko, vo, (uint64_t *)vo),
                   PP_ERROR_INVALID_ARGUMENT, R, "values_out|count");
    EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I32, PP_I32, PP_SUM, PP_EXCLUSIVE, k, v, k, N), PP_ERROR_INVALID_ARGUMENT,
                   S, "keys|out");
    EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, k, N, ko, (uint64_t *)ko, cnt), PP_ERROR_INVALID_ARGUMENT, E,
                   "values_out|counts_out");
    EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, k, N, ko, counts, (uint64_t *)k), PP_ERROR_INVALID_ARGUMENT, E,
                   "in|count");
    if (f->addressable) {
        /* partial overlaps and misalignment */
        EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I32, PP_I32, PP_SUM, PP_INCLUSIVE, k, v, at(v, 4), N / 2),
                       PP_ERROR_INVALID_ARGUMENT, S, "values|out");
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, k, v, N, at(ko, 16), ko, cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "keys_out|values_out");
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I32, PP_SUM, at(k, 2), v, N / 2, ko, vo, cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "keys");
        EXPECT_NOWRITE(f, pp_reduce_by_key(ctx, PP_I32, PP_I64, PP_SUM, k, v, N / 2, ko, at(vo, 4), cnt),
                       PP_ERROR_INVALID_ARGUMENT, R, "values_out");
        EXPECT_NOWRITE(f, pp_scan_by_key(ctx, PP_I32, PP_F64, PP_SUM, PP_INCLUSIVE, k, at(v, 4), ko, N / 2),
                       PP_ERROR_INVALID_ARGUMENT, S, "values");
        EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, k, N / 2, ko, (uint64_t *)at(counts, 4), cnt),
                       PP_ERROR_INVALID_ARGUMENT, E, "counts_out");
        EXPECT_NOWRITE(f, pp_run_length_encode(ctx, PP_I32, k, N / 2, ko, counts, (uint64_t *)at(vo, BYTES + 4)),
                       PP_ERROR_INVALID_ARGUMENT, E, "count");
    }
}
