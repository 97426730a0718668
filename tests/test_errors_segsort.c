/* test_errors' group of the segmented sort (test_errors.h): every argument
 * the core checks for pp_segmented_sort and pp_segmented_sort_pairs, each
 * refused with nothing written; a backend without the call (cuda for now)
 * refuses valid ones. Bad offsets' values: test_segsort. */
#include "test_errors.h"

void errors_segsort(fixture *f)
{
    pp_context *ctx = f->ctx;
    /* (offsets: read only by calls that pass the checks) */
    const uint64_t *off = (const uint64_t *)f->in;
    const char *S = "pp_segmented_sort", *P = "pp_segmented_sort_pairs";
    tc_case("%s segmented sort errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_segmented_sort(NULL, PP_I32, f->keys, N, off, 4, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, S,
           "ctx");
    EXPECT(NULL, pp_segmented_sort_pairs(NULL, PP_I32, f->keys, f->vals, 4, N, off, 4, PP_ASCENDING),
           PP_ERROR_INVALID_ARGUMENT, P, "ctx");
    static const pp_order bad_orders[NBAD] = {(pp_order)-1, (pp_order)3, (pp_order)77};
    static const size_t bad_vsizes[] = {0, 3, 5, 16, SIZE_MAX};
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_segmented_sort(ctx, bad_types[i], f->keys, N, off, 4, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, S, "type");
        EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_F64, f->keys, f->vals, 8, N / 2, off, 4, bad_orders[i]),
                       PP_ERROR_INVALID_ARGUMENT, P, "order");
    }
    for (size_t i = 0; i < sizeof bad_vsizes / sizeof bad_vsizes[0]; i++) /* even with n == 0 */
        EXPECT_NOWRITE(
            f, pp_segmented_sort_pairs(ctx, PP_U16, f->keys, f->vals, bad_vsizes[i], i ? N : 0, off, 4, PP_DESCENDING),
            PP_ERROR_INVALID_ARGUMENT, P, "value_size");
    EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, NULL, N, off, 4, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, S,
                   "keys");
    EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, f->keys, N, NULL, 4, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, S,
                   "offsets");
    EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_I32, f->keys, NULL, 4, N, off, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, P, "values");
    EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_I32, NULL, f->vals, 4, N, off, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, P, "keys");
    /* sizes that overflow size_t */
    EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, f->keys, SIZE_MAX / 4 + 1, off, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, S, "n");
    EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I8, f->keys, N, off, SIZE_MAX, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   S, "nseg");
    EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_U8, f->keys, f->vals, 8, SIZE_MAX / 8 + 1, off, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, P, "n|value_size");
    /* overlaps: values with keys, offsets with keys or values */
    EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_I32, f->keys, f->keys, 4, N, off, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, P, "keys|values");
    EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, f->keys, N, (const uint64_t *)f->keys, 4, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, S, "offsets");
    EXPECT_NOWRITE(
        f, pp_segmented_sort_pairs(ctx, PP_I32, f->keys, f->vals, 4, N, (const uint64_t *)f->vals, 4, PP_ASCENDING),
        PP_ERROR_INVALID_ARGUMENT, P, "offsets");
    if (f->addressable) {
        EXPECT_NOWRITE(f,
                       pp_segmented_sort_pairs(ctx, PP_I32, f->keys, at(f->keys, 64), 8, N / 2, off, 4, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, P, "keys|values");
        EXPECT_NOWRITE(f,
                       pp_segmented_sort(ctx, PP_I32, f->keys, N, (const uint64_t *)at(f->keys, 128), 2, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, S, "offsets");
        EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, at(f->keys, 2), N - 1, off, 4, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, S, "keys");
        EXPECT_NOWRITE(f, pp_segmented_sort_pairs(ctx, PP_I32, f->keys, at(f->vals, 2), 4, N - 1, off, 4, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, P, "values");
        EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, f->keys, N, (const uint64_t *)at(f->in, 4), 4, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, S, "offsets");
    }
    if (pp_context_backend(ctx) == PP_BACKEND_CUDA) {
        static const uint64_t valid[3] = {0, 5, 9};
        void *voff = tc_dev_upload(ctx, valid, sizeof valid);
        EXPECT_NOWRITE(f, pp_segmented_sort(ctx, PP_I32, f->keys, N, (const uint64_t *)voff, 2, PP_ASCENDING),
                       PP_ERROR_UNSUPPORTED, S, "cuda");
        tc_dev_free(ctx, voff);
    }
}
