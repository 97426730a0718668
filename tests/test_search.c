/* pp_lower_bound and pp_upper_bound against the reference (ref_lower_bound,
 * ref_upper_bound: a plain binary search by ref_order_rank) on every
 * configuration of the sort (the calls follow PP_PRIM_SORT): every type,
 * every order, sizes 0, 1, primes and around the cpu's parts (n and m
 * apart: m > n and n > m), keys of few distinct values (long runs of
 * equals), NaNs of many payloads, -0.0 and +0.0, extremes; queries drawn
 * from the keys, fresh ones, all below or all above the keys, in random
 * order or sorted. Unsorted keys: the call succeeds and every result is in
 * [0, n]. A backend without the calls: a printed skip, nothing written. */
#include "search_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One case: n sorted keys and m queries of mode, in layout (interleaved:
 * queries among the keys; then half of them replaced by keys of the array,
 * so that exact hits and runs of equals are found), the queries sorted too
 * where sorted_q. */
static void run_case(tc_rng *r, pp_type t, pp_order o, size_t n, size_t m, int mode, int layout, int sorted_q)
{
    const size_t sz = tc_size(t);
    /* the expected results, the keys and the queries in one block */
    uint64_t *want_lo = (uint64_t *)malloc(2 * m * 8 + (n + m) * sz + 1), *want_up = want_lo + m;
    unsigned char *keys = (unsigned char *)(want_up + m), *q = keys + n * sz;
    uint64_t *got = (uint64_t *)tc_halloc(m * 8 + 8);
    sd_split(r, t, mode, o, layout, keys, n, q, m);
    if (layout == 0 && n)
        for (size_t j = 0; j < m; j += 2) memcpy(q + j * sz, keys + tc_below(r, n) * sz, sz);
    if (sorted_q)
        ref_sort_pairs(t, q, NULL, 0, m, o);
    else
        for (size_t j = m; j > 1; j--) {
            const size_t k = (size_t)tc_below(r, j);
            unsigned char tmp[8];
            memcpy(tmp, q + (j - 1) * sz, sz);
            memcpy(q + (j - 1) * sz, q + k * sz, sz);
            memcpy(q + k * sz, tmp, sz);
        }
    ref_lower_bound(t, keys, n, o, q, m, want_lo);
    ref_upper_bound(t, keys, n, o, q, m, want_up);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SORT);
        void *dk = n ? tc_dev_upload(c->ctx, keys, n * sz) : NULL, *dq = m ? tc_dev_upload(c->ctx, q, m * sz) : NULL;
        void *dout = m ? tc_dev_filled(c->ctx, m * 8, 0xA5) : NULL;
        for (int upper = 0; upper < 2; upper++) {
            const char *fn = upper ? "pp_upper_bound" : "pp_lower_bound";
            tc_case("%s %s type=%s order=%s n=%zu m=%zu keys=%s layout=%s queries=%s", tc_config_name(c), fn,
                    pp_type_name(t), sd_order_names[o], n, m, sd_mode_names[mode], sd_layout_names[layout],
                    sorted_q ? "sorted" : "random");
            const pp_status st = upper ? pp_upper_bound(c->ctx, t, dk, n, o, dq, m, (uint64_t *)dout)
                                       : pp_lower_bound(c->ctx, t, dk, n, o, dq, m, (uint64_t *)dout);
            const int check = sd_status_ok(c, st, fn);
            if (!m) continue;
            TC_DOWNLOAD(c->ctx, got, dout, m * 8, "out");
            if (check) {
                TC_EXPECT_BITS(PP_U64, got, upper ? want_up : want_lo, m, "out");
            } else {
                for (size_t j = 0; j < m; j++)
                    TC_REQUIRE(got[j] == UINT64_C(0xA5A5A5A5A5A5A5A5), "out[%zu] written by a refused call", j);
            }
        }
        sd_expect_unchanged(c->ctx, dk, keys, n * sz, "sorted");
        sd_expect_unchanged(c->ctx, dq, q, m * sz, "queries");
        if (dout) tc_dev_free(c->ctx, dout);
    }
    free(want_lo);
    free(got);
}

/* Every order, sizes (n, m) with n > m and m > n, around the cpu's parts
 * of 4096 queries, the key modes and layouts in turn. */
static void test_type(pp_type t)
{
    char name[64] = "search_";
    tc_rng r = tc_rng_for(strcat(name, pp_type_name(t)));
    static const size_t sizes[][2] = {{0, 0},   {0, 5},   {1, 1},     {1, 9},    {2, 17},      {7, 1},
                                      {31, 64}, {32, 33}, {33, 1000}, {1000, 7}, {4099, 4093}, {257, 12289}};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    unsigned turn = (unsigned)t;
    for (int o = 0; o < 3; o++)
        for (size_t s = 0; s < ns; s++, turn++)
            run_case(&r, t, (pp_order)o, sizes[s][0], sizes[s][1], (int)(turn % SD_MODES),
                     (int)(turn / SD_MODES % SD_LAYOUTS), (int)(turn / 2 % 2));
    if (!tc_quick) /* long searches, many parts */
        run_case(&r, t, (pp_order)(turn % 3), 300007, 100003, (int)(turn % SD_MODES), 0, (int)(turn % 2));
}
TC_TYPE_TESTS(test_type)

/* Keys not sorted: results unspecified, but the call succeeds and every
 * out[j] is in [0, n] (cpu; the guards after each buffer find writes past
 * it on every backend). */
static void test_unsorted(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("search_unsorted");
    const size_t n = 5003, m = 9001;
    double *keys = (double *)malloc(n * 8), *q = (double *)malloc(m * 8);
    uint64_t *got = (uint64_t *)tc_halloc(m * 8);
    sd_gen(&r, PP_F64, n, 0, keys);
    sd_gen(&r, PP_F64, m, 1, q);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SORT);
        tc_case("%s search of unsorted keys", tc_config_name(c));
        void *dk = tc_dev_upload(c->ctx, keys, n * 8), *dq = tc_dev_upload(c->ctx, q, m * 8);
        void *dout = tc_dev_filled(c->ctx, m * 8, 0);
        for (int upper = 0; upper < 2; upper++) {
            const char *fn = upper ? "pp_upper_bound" : "pp_lower_bound";
            const pp_status st = upper ? pp_upper_bound(c->ctx, PP_F64, dk, n, PP_DESCENDING, dq, m, (uint64_t *)dout)
                                       : pp_lower_bound(c->ctx, PP_F64, dk, n, PP_ASCENDING, dq, m, (uint64_t *)dout);
            if (!sd_status_ok(c, st, fn)) continue;
            TC_DOWNLOAD(c->ctx, got, dout, m * 8, "out");
            for (size_t j = 0; j < m; j++)
                TC_REQUIRE(got[j] <= n, "%s: out[%zu] = %llu > n", fn, j, (unsigned long long)got[j]);
        }
        sd_expect_unchanged(c->ctx, dk, keys, n * 8, "sorted");
        sd_expect_unchanged(c->ctx, dq, q, m * 8, "queries");
        tc_dev_free(c->ctx, dout);
    }
    free(keys);
    free(q);
    free(got);
}

/* The reference on hand-computed cases: duplicates, -0.0 and +0.0, NaN,
 * descending orders. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("search reference self-check");
    const int32_t k[7] = {-5, 1, 1, 1, 4, 9, 9};
    const int32_t q[5] = {1, -6, 10, 9, 2};
    uint64_t lo[5], up[5];
    ref_lower_bound(PP_I32, k, 7, PP_ASCENDING, q, 5, lo);
    ref_upper_bound(PP_I32, k, 7, PP_ASCENDING, q, 5, up);
    static const uint64_t wlo[5] = {1, 0, 7, 5, 4}, wup[5] = {4, 0, 7, 7, 4};
    TC_REQUIRE(!memcmp(lo, wlo, sizeof lo) && !memcmp(up, wup, sizeof up), "i32 ascending");
    const float f[6] = {-1.0f, -0.0f, 0.0f, 0.0f, INFINITY, NAN};
    const float fq[4] = {0.0f, -0.0f, NAN, INFINITY};
    ref_lower_bound(PP_F32, f, 6, PP_ASCENDING, fq, 4, lo);
    ref_upper_bound(PP_F32, f, 6, PP_ASCENDING, fq, 4, up);
    static const uint64_t flo[4] = {2, 1, 5, 4}, fup[4] = {4, 2, 6, 5};
    TC_REQUIRE(!memcmp(lo, flo, sizeof flo) && !memcmp(up, fup, sizeof fup), "f32 ascending");
    const float d[5] = {NAN, 2.0f, 0.0f, -0.0f, -3.0f}; /* PP_DESCENDING */
    const float dq[3] = {-0.0f, NAN, 5.0f};
    ref_lower_bound(PP_F32, d, 5, PP_DESCENDING, dq, 3, lo);
    ref_upper_bound(PP_F32, d, 5, PP_DESCENDING, dq, 3, up);
    static const uint64_t dlo[3] = {3, 0, 1}, dup[3] = {4, 1, 1};
    TC_REQUIRE(!memcmp(lo, dlo, sizeof dlo) && !memcmp(up, dup, sizeof dup), "f32 descending");
    const float e[5] = {2.0f, 0.0f, -0.0f, -3.0f, NAN}; /* PP_DESCENDING_NAN_LAST */
    ref_lower_bound(PP_F32, e, 5, PP_DESCENDING_NAN_LAST, dq, 3, lo);
    ref_upper_bound(PP_F32, e, 5, PP_DESCENDING_NAN_LAST, dq, 3, up);
    static const uint64_t elo[3] = {2, 4, 0}, eup[3] = {3, 5, 0};
    TC_REQUIRE(!memcmp(lo, elo, sizeof elo) && !memcmp(up, eup, sizeof eup), "f32 descending, NaN last");
}

int main(void)
{
    tc_init("test_search");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_known), TC_TYPE_UNIT_TESTS,
                                       cmocka_unit_test(test_unsorted)};
    const int failed = cmocka_run_group_tests_name("search", tests, NULL, NULL);
    tc_finish();
    return failed;
}
