/* test_errors: the bad arguments of each primitive (reduce and scan,
 * histograms, compaction, sort, the segmented forms, argsort) and of the exact sums (pp_exact_accumulate,
 * pp_exact_merge, pp_exact_round): every documented bad input returns the
 * documented status, names the call and the argument in pp_last_error and
 * writes nothing (test_errors.c has the rest of the API). */
#define _POSIX_C_SOURCE 200809L
#include "test_errors.h"

#include <math.h>
#include <string.h>

/* ---- reduce and scan ------------------------------------------------------------------------- */
void errors_reduce_scan(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s reduce errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_reduce(NULL, PP_I32, PP_SUM, f->in, N, f->out), PP_ERROR_INVALID_ARGUMENT, "pp_reduce", "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_reduce(ctx, bad_types[i], PP_SUM, f->in, N, f->out), PP_ERROR_INVALID_ARGUMENT,
                       "pp_reduce", "type");
        EXPECT_NOWRITE(f, pp_reduce(ctx, PP_I32, bad_ops[i], f->in, N, f->out), PP_ERROR_INVALID_ARGUMENT,
                       "pp_reduce", "op|operator");
    }
    for (int o = PP_AND; o <= PP_XOR; o++) {
        EXPECT_NOWRITE(f, pp_reduce(ctx, PP_F32, (pp_op)o, f->in, N, f->out), PP_ERROR_UNSUPPORTED, "pp_reduce",
                       pp_op_name((pp_op)o));
        EXPECT_NOWRITE(f, pp_reduce(ctx, PP_F64, (pp_op)o, f->in, N, f->out), PP_ERROR_UNSUPPORTED, "pp_reduce",
                       pp_op_name((pp_op)o));
    }
    EXPECT_NOWRITE(f, pp_reduce(ctx, PP_I32, PP_SUM, NULL, N, f->out), PP_ERROR_INVALID_ARGUMENT, "pp_reduce", "in");
    EXPECT_NOWRITE(f, pp_reduce(ctx, PP_I32, PP_SUM, f->in, N, NULL), PP_ERROR_INVALID_ARGUMENT, "pp_reduce", "out");
    /* n * sizeof(element) overflows size_t */
    EXPECT_NOWRITE(f, pp_reduce(ctx, PP_I32, PP_SUM, f->in, SIZE_MAX / 4 + 1, f->out), PP_ERROR_INVALID_ARGUMENT,
                   "pp_reduce", "n");
    EXPECT_NOWRITE(f, pp_reduce(ctx, PP_F64, PP_MAX, f->in, SIZE_MAX, f->out), PP_ERROR_INVALID_ARGUMENT,
                   "pp_reduce", "n");

    tc_case("%s scan errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_scan(NULL, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, f->out, N),
           PP_ERROR_INVALID_ARGUMENT, "pp_scan", "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_scan(ctx, bad_types[i], PP_SUM, PP_INCLUSIVE, f->in, f->out, N),
                       PP_ERROR_INVALID_ARGUMENT, "pp_scan", "type");
        EXPECT_NOWRITE(f, pp_scan(ctx, PP_U16, bad_ops[i], PP_EXCLUSIVE, f->in, f->out, N),
                       PP_ERROR_INVALID_ARGUMENT, "pp_scan", "op|operator");
    }
    static const pp_scan_kind bad_kinds[] = {(pp_scan_kind)-1, (pp_scan_kind)2, (pp_scan_kind)77};
    for (int i = 0; i < 3; i++)
        EXPECT_NOWRITE(f, pp_scan(ctx, PP_I64, PP_SUM, bad_kinds[i], f->in, f->out, N), PP_ERROR_INVALID_ARGUMENT,
                       "pp_scan", "kind");
    for (int o = PP_AND; o <= PP_XOR; o++)
        for (int k = 0; k < 2; k++) {
            EXPECT_NOWRITE(f, pp_scan(ctx, PP_F32, (pp_op)o, (pp_scan_kind)k, f->in, f->out, N),
                           PP_ERROR_UNSUPPORTED, "pp_scan", pp_op_name((pp_op)o));
            EXPECT_NOWRITE(f, pp_scan(ctx, PP_F64, (pp_op)o, (pp_scan_kind)k, f->keys, f->keys, N),
                           PP_ERROR_UNSUPPORTED, "pp_scan", pp_op_name((pp_op)o));
        }
    EXPECT_NOWRITE(f, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, NULL, f->out, N), PP_ERROR_INVALID_ARGUMENT,
                   "pp_scan", "in");
    EXPECT_NOWRITE(f, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, NULL, N), PP_ERROR_INVALID_ARGUMENT,
                   "pp_scan", "out");
    EXPECT_NOWRITE(f, pp_scan(ctx, PP_I16, PP_SUM, PP_INCLUSIVE, f->in, f->out, SIZE_MAX / 2 + 7),
                   PP_ERROR_INVALID_ARGUMENT, "pp_scan", "n");
    if (f->addressable) {
        /* partial overlaps of in and out (in == out is allowed) */
        const size_t e = 4, n = 100; /* i32 elements inside big (4 * BYTES bytes) */
        static const long shifts[] = {1, -1, 99, -99, 50, 2};
        for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++) {
            char *in = at(f->big, 400), *out = in + shifts[s] * (long)e;
            EXPECT_NOWRITE(f, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, in, out, n), PP_ERROR_INVALID_ARGUMENT,
                           "pp_scan", "in|out");
            EXPECT_NOWRITE(f, pp_scan(ctx, PP_I32, PP_MIN, PP_EXCLUSIVE, in, out, n), PP_ERROR_INVALID_ARGUMENT,
                           "pp_scan", "in|out");
        }
        /* misaligned by one byte */
        EXPECT_NOWRITE(f, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, at(f->big, 400), at(f->big, 401), n),
                       PP_ERROR_INVALID_ARGUMENT, "pp_scan", "in|out");
        /* controls: adjacent ranges and in == out succeed */
        EXPECT(ctx, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, at(f->big, 0), at(f->big, 400), 100), PP_SUCCESS,
               "pp_scan", NULL);
        EXPECT(ctx, pp_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, at(f->big, 400), at(f->big, 0), 100), PP_SUCCESS,
               "pp_scan", NULL);
        TC_OK(pp_upload(ctx, f->big, f->h_big, sizeof f->h_big));
    }
    EXPECT(ctx, pp_scan(ctx, PP_I32, PP_SUM, PP_EXCLUSIVE, f->big, f->big, N), PP_SUCCESS, "pp_scan", NULL);
    TC_OK(pp_upload(ctx, f->big, f->h_big, sizeof f->h_big));
    FX_CHECK(f, "the scan controls");
}

/* ---- histograms -------------------------------------------------------------------------------- */
void errors_histogram(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s histogram errors", pp_backend_name(pp_context_backend(ctx)));
    int32_t lo = -100, hi = 100;
    uint64_t *counts = (uint64_t *)f->counts;
    const char *fe = "pp_histogram_even", *fr = "pp_histogram_range";
    EXPECT(NULL, pp_histogram_even(NULL, PP_I32, f->in, N, &lo, &hi, NB, counts),
           PP_ERROR_INVALID_ARGUMENT, "pp_histogram_even", "ctx");
    for (int i = 0; i < NBAD; i++)
        EXPECT_NOWRITE(f, pp_histogram_even(ctx, bad_types[i], f->in, N, &lo, &hi, NB, counts),
                       PP_ERROR_INVALID_ARGUMENT, fe, "type");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, NULL, N, &lo, &hi, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "samples");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &lo, &hi, NB, NULL), PP_ERROR_INVALID_ARGUMENT, fe,
                   "counts");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, NULL, &hi, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "lower");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &lo, NULL, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &lo, &hi, 0, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "nbins");
    static const size_t huge[] = {SIZE_MAX, SIZE_MAX / 8 + 1, SIZE_MAX / 4, (SIZE_MAX >> 1) + 1};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &lo, &hi, huge[i], counts),
                       PP_ERROR_INVALID_ARGUMENT, fe, "nbins");
    /* lower must be less than upper, compared in the sample type */
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &lo, &lo, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "lower|upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &hi, &lo, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "lower|upper");
    uint32_t ulo = 5, uhi = 0xFFFFFFF0u; /* as i32, uhi is negative */
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->in, N, &ulo, &uhi, NB, counts), PP_ERROR_INVALID_ARGUMENT,
                   fe, "lower|upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_U32, f->in, N, &uhi, &ulo, NB, counts), PP_ERROR_INVALID_ARGUMENT,
                   fe, "lower|upper");
    int8_t blo = 10, bhi = -10;
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I8, f->in, N, &blo, &bhi, NB, counts), PP_ERROR_INVALID_ARGUMENT,
                   fe, "lower|upper");
    /* float bounds: NaN and infinities are rejected */
    const double dv[] = {NAN, -NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 4; i++) {
        double dlo = 0.0, dhi = 1.0;
        float flo = 0.0f, fhi = 1.0f, fv = (float)dv[i];
        if (!(dv[i] > 0)) {
            EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F64, f->in, N, &dv[i], &dhi, NB, counts),
                           PP_ERROR_INVALID_ARGUMENT, fe, "lower|upper");
            EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F32, f->in, N, &fv, &fhi, NB, counts),
                           PP_ERROR_INVALID_ARGUMENT, fe, "lower|upper");
        }
        if (!(dv[i] < 0)) {
            EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F64, f->in, N, &dlo, &dv[i], NB, counts),
                           PP_ERROR_INVALID_ARGUMENT, fe, "lower|upper");
            EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F32, f->in, N, &flo, &fv, NB, counts),
                           PP_ERROR_INVALID_ARGUMENT, fe, "lower|upper");
        }
    }
    /* bounds compare in the sample type: -0.0 == +0.0, so [-0.0, +0.0) is an
     * empty range, not the one value between the zeros' bit patterns */
    double z0 = 0.0, zm = -0.0;
    float fz0 = 0.0f, fzm = -0.0f;
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F64, f->in, N, &zm, &z0, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "lower|upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F64, f->in, N, &z0, &zm, NB, counts), PP_ERROR_INVALID_ARGUMENT, fe,
                   "lower|upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F32, f->in, N, &fzm, &fz0, NB, counts), PP_ERROR_INVALID_ARGUMENT,
                   fe, "lower|upper");
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_F32, f->in, N, &fz0, &fzm, 1, counts), PP_ERROR_INVALID_ARGUMENT,
                   fe, "lower|upper");
    if (f->addressable) {
        /* counts overlapping samples */
        EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->big, N, &lo, &hi, NB, (uint64_t *)at(f->big, 64)),
                       PP_ERROR_INVALID_ARGUMENT, fe, "counts|samples");
        EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, at(f->big, 64), N, &lo, &hi, NB, (uint64_t *)f->big),
                       PP_ERROR_INVALID_ARGUMENT, fe, "counts|samples");
    }
    EXPECT_NOWRITE(f, pp_histogram_even(ctx, PP_I32, f->big, N, &lo, &hi, NB, (uint64_t *)f->big),
                   PP_ERROR_INVALID_ARGUMENT, fe, "counts|samples");

    /* range */
    int32_t edges[5] = {-10, 0, 10, 20, 30};
    EXPECT(NULL, pp_histogram_range(NULL, PP_I32, f->in, N, edges, 4, counts),
           PP_ERROR_INVALID_ARGUMENT, "pp_histogram_range", "ctx");
    for (int i = 0; i < NBAD; i++)
        EXPECT_NOWRITE(f, pp_histogram_range(ctx, bad_types[i], f->in, N, edges, 4, counts),
                       PP_ERROR_INVALID_ARGUMENT, fr, "type");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, NULL, N, edges, 4, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "samples");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, edges, 4, NULL), PP_ERROR_INVALID_ARGUMENT, fr,
                   "counts");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, NULL, 4, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, edges, 0, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "nbins");
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, edges, huge[i], counts),
                       PP_ERROR_INVALID_ARGUMENT, fr, "nbins");
    int32_t unsorted[5] = {-10, 0, 10, 5, 30}, equal[5] = {-10, 0, 0, 20, 30};
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, unsorted, 4, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, f->in, N, equal, 4, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    uint16_t uedges[3] = {1, 0xFFFF, 3}; /* increasing as i16 would be wrong too */
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_U16, f->in, N, uedges, 2, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    double dnan[4] = {0.0, NAN, 2.0, 3.0}, dnan0[3] = {NAN, 1.0, 2.0}, dnan2[3] = {0.0, 1.0, -NAN};
    double dzero[3] = {-0.0, 0.0, 1.0}; /* -0.0 == +0.0: not increasing */
    float fdesc[3] = {1.0f, 0.5f, 2.0f};
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_F64, f->in, N, dnan, 3, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_F64, f->in, N, dnan0, 2, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_F64, f->in, N, dnan2, 2, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_F64, f->in, N, dzero, 2, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_F32, f->in, N, fdesc, 2, counts), PP_ERROR_INVALID_ARGUMENT, fr,
                   "edges");
    if (f->addressable)
        EXPECT_NOWRITE(f, pp_histogram_range(ctx, PP_I32, at(f->big, 8), N, edges, 4, (uint64_t *)f->big),
                       PP_ERROR_INVALID_ARGUMENT, fr, "counts|samples");

    /* controls: infinite edges are fine */
    double inf_edges[3] = {-INFINITY, 0.0, INFINITY};
    if (tc_need_f64(ctx, "f64 histogram_range with infinite edges"))
        EXPECT(ctx, pp_histogram_range(ctx, PP_F64, f->in, N, inf_edges, 2, counts), PP_SUCCESS, fr, NULL);
    unsigned char sentinel[NB * 8];
    memset(sentinel, 0x5A, sizeof sentinel);
    TC_OK(pp_upload(ctx, counts, sentinel, sizeof sentinel));
    FX_CHECK(f, "the histogram controls");
}

/* ---- compaction ------------------------------------------------------------------------------------- */
static const char *const names4[4] = {"pp_select_flagged", "pp_select_if", "pp_unique", "pp_partition_if"};

/* Compaction w of names4 on n = N i32 elements (select_if and partition_if:
 * x < 0). */
static pp_status select_call(pp_context *ctx, int w, void *in, const uint8_t *flags, void *out, void *count)
{
    static const int32_t zero = 0;
    uint64_t *c = (uint64_t *)count;
    switch (w) {
    case 0: return pp_select_flagged(ctx, PP_I32, in, flags, N, out, c);
    case 1: return pp_select_if(ctx, PP_I32, in, N, PP_LT, &zero, out, c);
    case 2: return pp_unique(ctx, PP_I32, in, N, out, c);
    default: return pp_partition_if(ctx, PP_I32, in, N, PP_LT, &zero, out, c);
    }
}

void errors_select(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s select errors", pp_backend_name(pp_context_backend(ctx)));
    uint64_t *count = (uint64_t *)f->count;
    const uint8_t *flags = (const uint8_t *)f->flags;
    int32_t v = 0;
    const char *ff = "pp_select_flagged", *fi = "pp_select_if", *fu = "pp_unique", *fp = "pp_partition_if";

    EXPECT(NULL, pp_select_flagged(NULL, PP_I32, f->in, flags, N, f->out, count),
           PP_ERROR_INVALID_ARGUMENT, "pp_select_flagged", "ctx");
    EXPECT(NULL, pp_select_if(NULL, PP_I32, f->in, N, PP_LT, &v, f->out, count),
           PP_ERROR_INVALID_ARGUMENT, "pp_select_if", "ctx");
    EXPECT(NULL, pp_unique(NULL, PP_I32, f->in, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, "pp_unique", "ctx");
    EXPECT(NULL, pp_partition_if(NULL, PP_I32, f->in, N, PP_LT, &v, f->out, count),
           PP_ERROR_INVALID_ARGUMENT, "pp_partition_if", "ctx");
    for (int i = 0; i < NBAD; i++) {
        pp_type t = bad_types[i];
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, t, f->in, flags, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, ff,
                       "type");
        EXPECT_NOWRITE(f, pp_select_if(ctx, t, f->in, N, PP_LT, &v, f->out, count), PP_ERROR_INVALID_ARGUMENT, fi,
                       "type");
        EXPECT_NOWRITE(f, pp_unique(ctx, t, f->in, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, fu, "type");
        EXPECT_NOWRITE(f, pp_partition_if(ctx, t, f->in, N, PP_LT, &v, f->out, count), PP_ERROR_INVALID_ARGUMENT,
                       fp, "type");
    }
    static const pp_cmp bad_cmps[] = {(pp_cmp)-1, (pp_cmp)6, (pp_cmp)1000};
    for (int i = 0; i < 3; i++) {
        EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->in, N, bad_cmps[i], &v, f->out, count),
                       PP_ERROR_INVALID_ARGUMENT, fi, "cmp");
        EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->in, N, bad_cmps[i], &v, f->out, count),
                       PP_ERROR_INVALID_ARGUMENT, fp, "cmp");
    }
    /* NULL arrays with n > 0, NULL value, NULL count */
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, NULL, flags, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, ff, "in");
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, NULL, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, ff,
                   "flags");
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, flags, N, NULL, count), PP_ERROR_INVALID_ARGUMENT, ff,
                   "out");
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, flags, N, f->out, NULL), PP_ERROR_INVALID_ARGUMENT, ff,
                   "count");
    EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, NULL, N, PP_LT, &v, f->out, count), PP_ERROR_INVALID_ARGUMENT, fi, "in");
    EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->in, N, PP_LT, NULL, f->out, count), PP_ERROR_INVALID_ARGUMENT, fi,
                   "value");
    EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->in, N, PP_LT, &v, NULL, count), PP_ERROR_INVALID_ARGUMENT, fi,
                   "out");
    EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->in, N, PP_LT, &v, f->out, NULL), PP_ERROR_INVALID_ARGUMENT, fi,
                   "count");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I32, NULL, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, fu, "in");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I32, f->in, N, NULL, count), PP_ERROR_INVALID_ARGUMENT, fu, "out");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I32, f->in, N, f->out, NULL), PP_ERROR_INVALID_ARGUMENT, fu, "count");
    EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, NULL, N, PP_GE, &v, f->out, count), PP_ERROR_INVALID_ARGUMENT, fp,
                   "in");
    EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->in, N, PP_GE, NULL, f->out, count), PP_ERROR_INVALID_ARGUMENT,
                   fp, "value");
    EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->in, N, PP_GE, &v, NULL, count), PP_ERROR_INVALID_ARGUMENT, fp,
                   "out");
    EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->in, N, PP_GE, &v, f->out, NULL), PP_ERROR_INVALID_ARGUMENT, fp,
                   "count");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I64, f->in, SIZE_MAX / 8 + 1, f->out, count), PP_ERROR_INVALID_ARGUMENT, fu,
                   "n");

    /* out overlapping in (the same handle: detectable on every backend) */
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->big, flags, N, f->big, count), PP_ERROR_INVALID_ARGUMENT, ff,
                   "out|in");
    EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->big, N, PP_NE, &v, f->big, count), PP_ERROR_INVALID_ARGUMENT, fi,
                   "out|in");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I32, f->big, N, f->big, count), PP_ERROR_INVALID_ARGUMENT, fu, "out|in");
    EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->big, N, PP_NE, &v, f->big, count), PP_ERROR_INVALID_ARGUMENT,
                   fp, "out|in");
    /* out overlapping flags, count overlapping out */
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_U8, f->in, (const uint8_t *)f->big, N, f->big, count),
                   PP_ERROR_INVALID_ARGUMENT, ff, "out|flags");
    EXPECT_NOWRITE(f, pp_unique(ctx, PP_I32, f->in, N, f->big, (uint64_t *)f->big), PP_ERROR_INVALID_ARGUMENT, fu,
                   "out|count");
    /* the other pairs, each as the same handle: in and count, out and count
     * on all four; in and flags (in as u8, so that both are n bytes, and as
     * i32), flags and count */
    const uint8_t *bflags = (const uint8_t *)f->big;
    uint64_t *bcount = (uint64_t *)f->big;
    for (int w = 0; w < 4; w++) {
        EXPECT_NOWRITE(f, select_call(ctx, w, f->big, flags, f->out, bcount), PP_ERROR_INVALID_ARGUMENT, names4[w],
                       "in|count");
        EXPECT_NOWRITE(f, select_call(ctx, w, f->in, flags, f->big, bcount), PP_ERROR_INVALID_ARGUMENT, names4[w],
                       "out|count");
    }
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_U8, f->big, bflags, N, f->out, count), PP_ERROR_INVALID_ARGUMENT, ff,
                   "in|flags");
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->big, bflags, N, f->out, count), PP_ERROR_INVALID_ARGUMENT,
                   ff, "in|flags");
    EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, bflags, N, f->out, bcount), PP_ERROR_INVALID_ARGUMENT, ff,
                   "flags|count");
    if (f->addressable) {
        char *b = (char *)f->big;
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, b, flags, N, b + 4, count), PP_ERROR_INVALID_ARGUMENT, ff,
                       "out|in");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, b + 4 * N - 4, flags, N, b, count),
                       PP_ERROR_INVALID_ARGUMENT, ff, "out|in");
        EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I64, b + 8, N, PP_LT, &v, b + 16, count), PP_ERROR_INVALID_ARGUMENT,
                       fi, "out|in");
        EXPECT_NOWRITE(f, pp_unique(ctx, PP_I16, b + 2, N, b, count), PP_ERROR_INVALID_ARGUMENT, fu, "out|in");
        EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_U8, b, N, PP_EQ, &v, b + N - 1, count), PP_ERROR_INVALID_ARGUMENT,
                       fp, "out|in");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, (const uint8_t *)(b + 100), N, b, count),
                       PP_ERROR_INVALID_ARGUMENT, ff, "out|flags");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, flags, N, b, (uint64_t *)(b + 4 * N - 4)),
                       PP_ERROR_INVALID_ARGUMENT, ff, "out|count");
        EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I32, f->in, N, PP_LT, &v, b + 8, (uint64_t *)(b + 16)),
                       PP_ERROR_INVALID_ARGUMENT, fi, "out|count");
        EXPECT_NOWRITE(f, pp_partition_if(ctx, PP_I32, f->in, N, PP_LT, &v, b, (uint64_t *)(b + 128)),
                       PP_ERROR_INVALID_ARGUMENT, fp, "out|count");
        /* partial overlaps of the other pairs: flags (N bytes) against in
         * (4 * N bytes) from either side, count inside in or flags */
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, b, (const uint8_t *)(b + 4 * N - 1), N, f->out, count),
                       PP_ERROR_INVALID_ARGUMENT, ff, "in|flags");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, b + N - 4, (const uint8_t *)b, N, f->out, count),
                       PP_ERROR_INVALID_ARGUMENT, ff, "in|flags");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, b, flags, N, f->out, (uint64_t *)(b + 4 * N - 8)),
                       PP_ERROR_INVALID_ARGUMENT, ff, "in|count");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, (const uint8_t *)(b + 8), N, f->out,
                                            (uint64_t *)(b + N)),
                       PP_ERROR_INVALID_ARGUMENT, ff, "flags|count");
        EXPECT_NOWRITE(f, pp_select_flagged(ctx, PP_I32, f->in, (const uint8_t *)(b + 12), N, f->out,
                                            (uint64_t *)(b + 8)),
                       PP_ERROR_INVALID_ARGUMENT, ff, "flags|count");
        EXPECT_NOWRITE(f, pp_select_if(ctx, PP_I64, b + 64, N, PP_LT, &v, f->out, (uint64_t *)(b + 8 * N)),
                       PP_ERROR_INVALID_ARGUMENT, fi, "in|count");
        EXPECT_NOWRITE(f, pp_unique(ctx, PP_I16, b + 4, N, f->out, (uint64_t *)b), PP_ERROR_INVALID_ARGUMENT, fu,
                       "in|count");
        /* controls: adjacent buffers are fine */
        EXPECT(ctx, pp_unique(ctx, PP_I32, b, N, b + 4 * N, (uint64_t *)(b + 8 * N)), PP_SUCCESS, fu, NULL);
        EXPECT(ctx, pp_select_flagged(ctx, PP_I32, b + 4 * N, (const uint8_t *)b, N, b + 4 * N + 4 * N,
                                      (uint64_t *)(b + 3 * BYTES)),
               PP_SUCCESS, ff, NULL);
        EXPECT(ctx, pp_select_flagged(ctx, PP_I32, b, (const uint8_t *)(b + 4 * N), N, b + 8 * N,
                                      (uint64_t *)(b + 5 * N)),
               PP_SUCCESS, ff, NULL);
        EXPECT(ctx, pp_select_flagged(ctx, PP_I32, b + N, (const uint8_t *)b, N, b + 8 * N,
                                      (uint64_t *)(b + 5 * N)),
               PP_SUCCESS, ff, NULL);
        TC_OK(pp_upload(ctx, f->big, f->h_big, sizeof f->h_big));
    }
    FX_CHECK(f, "the select controls");
}

/* ---- sort ------------------------------------------------------------------------------------------- */
void errors_sort(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s sort errors", pp_backend_name(pp_context_backend(ctx)));
    const char *fs = "pp_sort", *fp = "pp_sort_pairs";
    EXPECT(NULL, pp_sort(NULL, PP_I32, f->keys, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, "pp_sort", "ctx");
    EXPECT(NULL, pp_sort_pairs(NULL, PP_I32, f->keys, f->vals, 4, N, PP_ASCENDING),
           PP_ERROR_INVALID_ARGUMENT, "pp_sort_pairs", "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_sort(ctx, bad_types[i], f->keys, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs,
                       "type");
        EXPECT_NOWRITE(f, pp_sort_pairs(ctx, bad_types[i], f->keys, f->vals, 4, N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "type");
    }
    static const pp_order bad_orders[] = {(pp_order)-1, (pp_order)3, (pp_order)255};
    for (int i = 0; i < 3; i++) {
        EXPECT_NOWRITE(f, pp_sort(ctx, PP_F32, f->keys, N, bad_orders[i]), PP_ERROR_INVALID_ARGUMENT, fs, "order");
        EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_U64, f->keys, f->vals, 8, N, bad_orders[i]),
                       PP_ERROR_INVALID_ARGUMENT, fp, "order");
    }
    EXPECT_NOWRITE(f, pp_sort(ctx, PP_I32, NULL, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs, "keys");
    EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I32, NULL, f->vals, 4, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "keys");
    EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I32, f->keys, NULL, 4, N, PP_DESCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "values");
    static const size_t bad_vs[] = {0, 3, 5, 6, 7, 9, 16, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad_vs / sizeof bad_vs[0]; i++)
        EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I32, f->keys, f->vals, bad_vs[i], N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "value_size");
    EXPECT_NOWRITE(f, pp_sort(ctx, PP_I32, f->keys, SIZE_MAX / 4 + 1, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs,
                   "n");
    EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_U8, f->keys, f->vals, 8, SIZE_MAX / 8 + 1, PP_ASCENDING),
                   PP_ERROR_INVALID_ARGUMENT, fp, "n|value_size");
    /* keys and values overlapping */
    EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I32, f->keys, f->keys, 4, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "keys|values");
    if (f->addressable) {
        char *k = (char *)f->keys;
        EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I32, k, k + 4 * N - 1, 1, N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "keys|values");
        EXPECT_NOWRITE(f, pp_sort_pairs(ctx, PP_I16, k + 8, k, 8, 4, PP_DESCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                       "keys|values");
        /* control: adjacent */
        EXPECT(ctx, pp_sort_pairs(ctx, PP_I32, k, k + 4 * 16, 4, 16, PP_ASCENDING), PP_SUCCESS, fp, NULL);
        TC_OK(pp_upload(ctx, f->keys, f->h_keys, BYTES));
    }
    FX_CHECK(f, "the sort controls");
}

/* pp_sort_copy and pp_sort_pairs_copy: keys and values from f->keys and
 * f->vals, into f->out and f->counts (N values of 2 bytes). */
void errors_sort_copy(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s sort_copy errors", pp_backend_name(pp_context_backend(ctx)));
    const char *fs = "pp_sort_copy", *fp = "pp_sort_pairs_copy";
    void *k = f->keys, *v = f->vals, *ko = f->out, *vo = f->counts;
    EXPECT(NULL, pp_sort_copy(NULL, PP_I32, k, ko, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs, "ctx");
    EXPECT(NULL, pp_sort_pairs_copy(NULL, PP_I32, k, v, ko, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
           "ctx");
    EXPECT_NOWRITE(f, pp_sort_copy(ctx, bad_types[0], k, ko, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs, "type");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, vo, 2, N, (pp_order)3), PP_ERROR_INVALID_ARGUMENT,
                   fp, "order");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, vo, 3, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "value_size");
    /* NULL arrays */
    EXPECT_NOWRITE(f, pp_sort_copy(ctx, PP_I32, NULL, ko, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs, "keys_in");
    EXPECT_NOWRITE(f, pp_sort_copy(ctx, PP_I32, k, NULL, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs, "keys_out");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, NULL, v, ko, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "keys_in");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, NULL, ko, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "values_in");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, NULL, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "keys_out");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, NULL, 2, N, PP_DESCENDING),
                   PP_ERROR_INVALID_ARGUMENT, fp, "values_out");
    /* the same buffer twice, but an output and its own input */
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, ko, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT,
                   fp, "keys_out|values_out");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, k, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "keys_in|values_out");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, v, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "keys_out|values_in");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, k, ko, vo, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "keys_in|values_in");
    EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, k, k, 2, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fp,
                   "keys_out|values_out|keys_in|values_in");
    if (f->addressable) { /* partial overlaps */
        EXPECT_NOWRITE(f, pp_sort_copy(ctx, PP_I32, k, at(k, 4), N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs,
                       "keys_out|keys_in");
        EXPECT_NOWRITE(f, pp_sort_copy(ctx, PP_I32, at(k, 4), k, N, PP_DESCENDING), PP_ERROR_INVALID_ARGUMENT, fs,
                       "keys_out|keys_in");
        EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, v, ko, at(v, 2), 2, N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "values_out|values_in");
        EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I32, k, at(k, 4 * N - 2), ko, vo, 2, N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "keys_in|values_in");
        EXPECT_NOWRITE(f, pp_sort_pairs_copy(ctx, PP_I16, k, v, ko, at(ko, 2 * N - 2), 2, N, PP_ASCENDING),
                       PP_ERROR_INVALID_ARGUMENT, fp, "keys_out|values_out");
        EXPECT_NOWRITE(f, pp_sort_copy(ctx, PP_I32, at(k, 2), ko, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, fs,
                       "keys_in");
        /* control: adjacent, keys_out right after keys_in */
        EXPECT(ctx, pp_sort_copy(ctx, PP_I32, k, at(k, 4 * 16), 16, PP_ASCENDING), PP_SUCCESS, fs, NULL);
        TC_OK(pp_upload(ctx, k, f->h_keys, BYTES));
    }
    FX_CHECK(f, "the sort_copy errors");
    /* controls: in place through the copy entries (the inputs change) */
    EXPECT(ctx, pp_sort_copy(ctx, PP_I32, k, k, N, PP_ASCENDING), PP_SUCCESS, fs, NULL);
    EXPECT(ctx, pp_sort_pairs_copy(ctx, PP_I32, k, v, k, v, 2, N, PP_ASCENDING), PP_SUCCESS, fp, NULL);
    TC_OK(pp_upload(ctx, k, f->h_keys, BYTES));
    TC_OK(pp_upload(ctx, v, f->h_vals, BYTES));
    FX_CHECK(f, "the sort_copy controls");
}

/* ---- exact sums ------------------------------------------------------------------------------------- */
/* pp_exact_accumulate, pp_exact_merge and pp_exact_round: every bad
 * argument, the sum never written. The two without a context keep their
 * message per thread (pp_last_error(NULL)). test_exact_sum has the states
 * that are malformed in every other way. */
#define EXPECT_SUM_KEPT(s, s0, what) \
    TC_REQUIRE(memcmp(&(s), &(s0), sizeof(s)) == 0, "%s wrote the sum although it failed", what)

void errors_exact(fixture *f)
{
    pp_context *ctx = f->ctx;
    tc_case("%s exact sum errors", pp_backend_name(pp_context_backend(ctx)));
    const char *fa = "pp_exact_accumulate", *fm = "pp_exact_merge", *fr = "pp_exact_round";
    pp_exact_sum s, s0, bad;
    memset(&s, 0, sizeof s);
    s.word[68] = 16; /* an f64 sum of -0.0 */
    s0 = s;
    bad = s;
    bad.word[3] = -1; /* a chunk outside [0, 2^32) */
    unsigned char out[8] = {0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A}, out0[8];
    memcpy(out0, out, sizeof out);

    EXPECT(NULL, pp_exact_accumulate(NULL, PP_F64, f->in, N, &s), PP_ERROR_INVALID_ARGUMENT, fa, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, bad_types[i], f->in, N, &s), PP_ERROR_INVALID_ARGUMENT, fa, "type");
        EXPECT(NULL, pp_exact_merge(bad_types[i], &s, &s0), PP_ERROR_INVALID_ARGUMENT, fm, "type");
        EXPECT(NULL, pp_exact_round(bad_types[i], &s, out), PP_ERROR_INVALID_ARGUMENT, fr, "type");
    }
    for (int t = 0; t < PP_TYPE_COUNT; t++) { /* the integer types have no exact sum */
        if (t == PP_F32 || t == PP_F64) continue;
        EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, (pp_type)t, f->in, N, &s), PP_ERROR_UNSUPPORTED, fa,
                       pp_type_name((pp_type)t));
        EXPECT(NULL, pp_exact_merge((pp_type)t, &s, &s0), PP_ERROR_UNSUPPORTED, fm, pp_type_name((pp_type)t));
        EXPECT(NULL, pp_exact_round((pp_type)t, &s, out), PP_ERROR_UNSUPPORTED, fr, pp_type_name((pp_type)t));
    }
    EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F64, NULL, N, &s), PP_ERROR_INVALID_ARGUMENT, fa, "in");
    EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F64, f->in, N, NULL), PP_ERROR_INVALID_ARGUMENT, fa, "sum");
    EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F64, f->in, N, &bad), PP_ERROR_INVALID_ARGUMENT, fa, "sum");
    EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F32, f->in, SIZE_MAX / 4 + 1, &s), PP_ERROR_INVALID_ARGUMENT, fa,
                   "n");
    if (f->addressable) /* misaligned by one byte */
        EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F64, at(f->big, 1), N, &s), PP_ERROR_INVALID_ARGUMENT, fa,
                       "in");
    /* an f64 sum is not an f32 one: its flags lie beyond the f32 words */
    EXPECT_NOWRITE(f, pp_exact_accumulate(ctx, PP_F32, f->in, N, &s), PP_ERROR_INVALID_ARGUMENT, fa, "sum");
    EXPECT(NULL, pp_exact_merge(PP_F64, NULL, &s0), PP_ERROR_INVALID_ARGUMENT, fm, "sum");
    EXPECT(NULL, pp_exact_merge(PP_F64, &s, NULL), PP_ERROR_INVALID_ARGUMENT, fm, "other");
    EXPECT(NULL, pp_exact_merge(PP_F64, &bad, &s0), PP_ERROR_INVALID_ARGUMENT, fm, "sum");
    EXPECT(NULL, pp_exact_merge(PP_F64, &s, &bad), PP_ERROR_INVALID_ARGUMENT, fm, "other");
    EXPECT(NULL, pp_exact_round(PP_F64, NULL, out), PP_ERROR_INVALID_ARGUMENT, fr, "sum");
    EXPECT(NULL, pp_exact_round(PP_F64, &s, NULL), PP_ERROR_INVALID_ARGUMENT, fr, "out");
    EXPECT(NULL, pp_exact_round(PP_F64, &bad, out), PP_ERROR_INVALID_ARGUMENT, fr, "sum");
    EXPECT_SUM_KEPT(s, s0, "an exact sum call");
    TC_REQUIRE(memcmp(out, out0, sizeof out) == 0, "a failed pp_exact_round wrote 'out'");
    FX_CHECK(f, "the exact sum calls");

    /* controls: each call with good arguments (a backend without exact
     * accumulators refuses the first with PP_ERROR_UNSUPPORTED) */
    pp_status st = pp_exact_accumulate(ctx, PP_F64, f->in, 0, &s);
    if (st == PP_ERROR_UNSUPPORTED) {
        tc_skip(NULL, "%s has no exact accumulators (pp_exact_accumulate)", pp_backend_name(pp_context_backend(ctx)));
    } else {
        EXPECT(ctx, st, PP_SUCCESS, fa, NULL);
        EXPECT_SUM_KEPT(s, s0, "pp_exact_accumulate of nothing");
    }
    EXPECT(NULL, pp_exact_merge(PP_F64, &s, &s0), PP_SUCCESS, fm, NULL);
    EXPECT(NULL, pp_exact_round(PP_F64, &s, out), PP_SUCCESS, fr, NULL);
    const double negzero = -0.0;
    TC_REQUIRE(memcmp(out, &negzero, 8) == 0, "the rounded sum of -0.0 is not -0.0");
}

/* ---- segmented reduce and scan: the arguments the core checks (bad
 * offsets' values: test_segmented) ------------------------------------------------------------- */
void errors_segmented(fixture *f)
{
    pp_context *ctx = f->ctx;
    const uint64_t *off = (const uint64_t *)f->vals; /* read only by calls that pass the checks */
    const char *R = "pp_segmented_reduce", *S = "pp_segmented_scan";
    tc_case("%s segmented errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_segmented_reduce(NULL, PP_I32, PP_SUM, f->in, N, off, 4, f->out), PP_ERROR_INVALID_ARGUMENT, R,
           "ctx");
    EXPECT(NULL, pp_segmented_scan(NULL, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, f->out, N, off, 4),
           PP_ERROR_INVALID_ARGUMENT, S, "ctx");
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, bad_types[i], PP_SUM, f->in, N, off, 4, f->out),
                       PP_ERROR_INVALID_ARGUMENT, R, "type");
        EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, bad_ops[i], f->in, N, off, 4, f->out),
                       PP_ERROR_INVALID_ARGUMENT, R, "op|operator");
        EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, (pp_scan_kind)(2 + 75 * i), f->in, f->out, N, off, 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "kind");
    }
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_F32, PP_XOR, f->in, N, off, 4, f->out), PP_ERROR_UNSUPPORTED, R,
                   "xor");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_F64, PP_AND, PP_EXCLUSIVE, f->in, f->out, N, off, 4),
                   PP_ERROR_UNSUPPORTED, S, "and");
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, NULL, N, off, 4, f->out), PP_ERROR_INVALID_ARGUMENT,
                   R, "in");
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->in, N, off, 4, NULL), PP_ERROR_INVALID_ARGUMENT,
                   R, "out");
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->in, N, NULL, 4, f->out),
                   PP_ERROR_INVALID_ARGUMENT, R, "offsets");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, NULL, f->out, N, off, 4),
                   PP_ERROR_INVALID_ARGUMENT, S, "in");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, NULL, N, off, 4),
                   PP_ERROR_INVALID_ARGUMENT, S, "out");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, f->out, N, NULL, 4),
                   PP_ERROR_INVALID_ARGUMENT, S, "offsets");
    /* sizes that overflow size_t */
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->in, SIZE_MAX / 4 + 1, off, 4, f->out),
                   PP_ERROR_INVALID_ARGUMENT, R, "n");
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I8, PP_SUM, f->in, N, off, SIZE_MAX, f->out),
                   PP_ERROR_INVALID_ARGUMENT, R, "nseg");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I8, PP_SUM, PP_INCLUSIVE, f->in, f->out, N, off, SIZE_MAX),
                   PP_ERROR_INVALID_ARGUMENT, S, "nseg");
    /* overlap: out with in (the reduce; the scan allows only in == out) and with offsets */
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->out, N, off, 4, f->out),
                   PP_ERROR_INVALID_ARGUMENT, R, "in|out");
    EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->in, N, (const uint64_t *)f->out, 4, f->out),
                   PP_ERROR_INVALID_ARGUMENT, R, "offsets");
    EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, f->out, N, (const uint64_t *)f->out, 4),
                   PP_ERROR_INVALID_ARGUMENT, S, "offsets");
    if (f->addressable) {
        EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, at(f->out, 4), f->out, N / 2, off, 4),
                       PP_ERROR_INVALID_ARGUMENT, S, "in|out");
        EXPECT_NOWRITE(f, pp_segmented_scan(ctx, PP_I32, PP_SUM, PP_INCLUSIVE, f->in, f->out, N, (const uint64_t *)at(f->out, 8), 1),
                       PP_ERROR_INVALID_ARGUMENT, S, "offsets");
        EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, f->in, N, (const uint64_t *)at(f->vals, 4), 4, f->out),
                       PP_ERROR_INVALID_ARGUMENT, R, "offsets");
        EXPECT_NOWRITE(f, pp_segmented_reduce(ctx, PP_I32, PP_SUM, at(f->in, 2), N - 1, off, 4, f->out),
                       PP_ERROR_INVALID_ARGUMENT, R, "in");
    }
}

/* ---- argsort: every argument the core checks ------------------------------------------------------- */
void errors_argsort(fixture *f)
{
    pp_context *ctx = f->ctx;
    const char *A = "pp_argsort";
    tc_case("%s argsort errors", pp_backend_name(pp_context_backend(ctx)));
    EXPECT(NULL, pp_argsort(NULL, PP_I32, f->keys, N, PP_ASCENDING, PP_U32, f->out), PP_ERROR_INVALID_ARGUMENT, A,
           "ctx");
    static const pp_order bad_orders[] = {(pp_order)-1, (pp_order)3, (pp_order)255};
    for (int i = 0; i < NBAD; i++) {
        EXPECT_NOWRITE(f, pp_argsort(ctx, bad_types[i], f->keys, N, PP_ASCENDING, PP_U32, f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "type");
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_F32, f->keys, N, bad_orders[i], PP_U64, f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "order");
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->keys, N, PP_ASCENDING, bad_types[i], f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "index_type");
    }
    /* index types other than PP_U32 and PP_U64, even with n == 0 */
    static const pp_type not_index[] = {PP_I32, PP_I64, PP_U16, PP_F64};
    for (size_t i = 0; i < sizeof not_index / sizeof not_index[0]; i++)
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->keys, i ? N : 0, PP_ASCENDING, not_index[i], f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "index_type");
    EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, NULL, N, PP_ASCENDING, PP_U32, f->out), PP_ERROR_INVALID_ARGUMENT, A,
                   "keys");
    EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->keys, N, PP_ASCENDING, PP_U64, NULL), PP_ERROR_INVALID_ARGUMENT, A,
                   "indices");
    /* PP_U32 cannot number more than UINT32_MAX keys: refused before
     * anything is read (the buffers are far smaller); sizes that overflow */
    if (SIZE_MAX > UINT32_MAX)
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_U8, f->keys, (size_t)UINT32_MAX + 1, PP_ASCENDING, PP_U32, f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "n|PP_U32");
    EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->keys, SIZE_MAX / 4 + 1, PP_ASCENDING, PP_U64, f->out),
                   PP_ERROR_INVALID_ARGUMENT, A, "n");
    EXPECT_NOWRITE(f, pp_argsort(ctx, PP_U8, f->keys, SIZE_MAX / 8 + 1, PP_ASCENDING, PP_U64, f->out),
                   PP_ERROR_INVALID_ARGUMENT, A, "n");
    /* indices overlapping keys */
    EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->out, N, PP_ASCENDING, PP_U32, f->out), PP_ERROR_INVALID_ARGUMENT, A,
                   "indices|keys");
    if (f->addressable) {
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, at(f->out, 64), N / 2, PP_ASCENDING, PP_U64, f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "indices|keys");
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, at(f->keys, 2), N - 1, PP_ASCENDING, PP_U32, f->out),
                       PP_ERROR_INVALID_ARGUMENT, A, "keys");
        EXPECT_NOWRITE(f, pp_argsort(ctx, PP_I32, f->keys, N / 2, PP_ASCENDING, PP_U64, at(f->out, 4)),
                       PP_ERROR_INVALID_ARGUMENT, A, "indices");
    }
}
