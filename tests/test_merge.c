/* pp_merge and pp_merge_pairs against the reference (ref_merge_pairs: the
 * two-finger merge, a's key first among equals) on every configuration of
 * the sort (the calls follow PP_PRIM_SORT): every type, every order, keys
 * alone and values of 1, 2, 4 and 8 bytes (the keys' origins: a's index i,
 * b's na + j, so stability is checked), sizes with 0 and 1 on either side,
 * primes, na > nb and nb > na, totals past the cpu's per-thread parts; keys
 * of few distinct values (many equal across a and b), NaNs of many
 * payloads, -0.0 and +0.0, extremes (the outputs must be the exact bits),
 * dealt into a and b interleaved, b all before a, or a all before b.
 * Unsorted inputs: the call succeeds and writes nothing outside its
 * outputs. A backend without the calls: a printed skip, nothing written. */
#include "search_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* values[i] = base + i, truncated to vs bytes (little-endian). */
static void index_values(size_t n, size_t vs, uint64_t base, unsigned char *p)
{
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < vs; b++) p[i * vs + b] = (unsigned char)((base + i) >> (8 * b));
}

static const pp_type value_types[9] = {PP_U8, PP_U8, PP_U16, PP_U8, PP_U32, PP_U8, PP_U8, PP_U8, PP_U64};

static void run_case(tc_rng *r, pp_type t, pp_order o, size_t vs, size_t na, size_t nb, int mode, int layout)
{
    const size_t sz = tc_size(t), n = na + nb;
    /* a's and b's keys and values, the expected outputs: one block (byte
     * arrays, read and written with memcpy); the downloads */
    unsigned char *ak = (unsigned char *)malloc(2 * n * (sz + vs) + 1), *bk = ak + na * sz, *av = bk + nb * sz;
    unsigned char *bv = av + na * vs, *wk = bv + nb * vs, *wv = wk + n * sz;
    unsigned char *host = (unsigned char *)tc_halloc(n * 8 + 8);
    sd_split(r, t, mode, o, layout, ak, na, bk, nb);
    index_values(na, vs, 0, av);
    index_values(nb, vs, na, bv);
    ref_merge_pairs(t, ak, vs ? av : NULL, na, bk, vs ? bv : NULL, nb, vs, wk, vs ? wv : NULL, o);
    const char *fn = vs ? "pp_merge_pairs" : "pp_merge";
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SORT);
        tc_case("%s %s type=%s order=%s value_size=%zu na=%zu nb=%zu keys=%s layout=%s", tc_config_name(c), fn,
                pp_type_name(t), sd_order_names[o], vs, na, nb, sd_mode_names[mode], sd_layout_names[layout]);
        void *dak = na ? tc_dev_upload(c->ctx, ak, na * sz) : NULL,
             *dbk = nb ? tc_dev_upload(c->ctx, bk, nb * sz) : NULL;
        void *dav = na && vs ? tc_dev_upload(c->ctx, av, na * vs) : NULL;
        void *dbv = nb && vs ? tc_dev_upload(c->ctx, bv, nb * vs) : NULL;
        void *dko = n ? tc_dev_filled(c->ctx, n * sz, 0xA5) : NULL,
             *dvo = n && vs ? tc_dev_filled(c->ctx, n * vs, 0xA5) : NULL;
        const pp_status st = vs ? pp_merge_pairs(c->ctx, t, dak, dav, na, dbk, dbv, nb, vs, dko, dvo, o)
                                : pp_merge(c->ctx, t, dak, na, dbk, nb, dko, o);
        const int check = sd_status_ok(c, st, fn);
        if (n) {
            TC_DOWNLOAD(c->ctx, host, dko, n * sz, "keys_out");
            if (check)
                TC_EXPECT_BITS(t, host, wk, n, "keys_out");
            else
                for (size_t k = 0; k < n * sz; k++) TC_REQUIRE(host[k] == 0xA5, "keys_out written by a refused call");
        }
        if (n && vs) {
            TC_DOWNLOAD(c->ctx, host, dvo, n * vs, "values_out");
            if (check) TC_EXPECT_BITS(value_types[vs], host, wv, n, "values_out (the keys' origins)");
        }
        sd_expect_unchanged(c->ctx, dak, ak, na * sz, "a_keys");
        sd_expect_unchanged(c->ctx, dbv, bv, nb * vs, "b_values");
        void *bufs[4] = {dbk, dav, dko, dvo};
        for (int b = 0; b < 4; b++)
            if (bufs[b]) tc_dev_free(c->ctx, bufs[b]);
    }
    free(ak);
    free(host);
}

/* Every order and value size, sizes (na, nb) with an empty or one-key side,
 * primes both ways, totals over the cpu's parts of 2^15 outputs, the key
 * modes and layouts in turn. */
static void test_type(pp_type t)
{
    char name[64] = "merge_";
    tc_rng r = tc_rng_for(strcat(name, pp_type_name(t)));
    static const size_t sizes[][2] = {{0, 0},  {0, 1},    {1, 0},    {1, 1},       {0, 37},
                                      {37, 0}, {5, 1000}, {1000, 5}, {4093, 4099}, {40961, 40973}};
    static const size_t vsizes[5] = {0, 1, 2, 4, 8};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    unsigned turn = (unsigned)t;
    for (int o = 0; o < 3; o++)
        for (size_t s = 0; s < ns; s++, turn++)
            run_case(&r, t, (pp_order)o, vsizes[turn % 5], sizes[s][0], sizes[s][1], (int)(turn % SD_MODES),
                     (int)(turn / SD_MODES % SD_LAYOUTS));
    if (!tc_quick) /* many parts, with values */
        run_case(&r, t, (pp_order)(turn % 3), 8, 300007, 200003, (int)(turn % SD_MODES), 0);
}
TC_TYPE_TESTS(test_type)

/* Inputs not sorted: results unspecified, but the call succeeds and writes
 * nothing past its outputs (the guards after each buffer) nor its inputs. */
static void test_unsorted(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("merge_unsorted");
    const size_t na = 70001, nb = 30011, n = na + nb;
    uint32_t *a = (uint32_t *)malloc(na * 4), *b = (uint32_t *)malloc(nb * 4);
    unsigned char *host = (unsigned char *)tc_halloc(n * 8);
    sd_gen(&r, PP_U32, na, 0, a);
    sd_gen(&r, PP_U32, nb, 0, b);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SORT);
        tc_case("%s merge of unsorted inputs", tc_config_name(c));
        void *da = tc_dev_upload(c->ctx, a, na * 4), *db = tc_dev_upload(c->ctx, b, nb * 4);
        void *dko = tc_dev_filled(c->ctx, n * 4, 0), *dvo = tc_dev_filled(c->ctx, n * 4, 0);
        pp_status st = pp_merge_pairs(c->ctx, PP_U32, da, da, na, db, db, nb, 4, dko, dvo, PP_DESCENDING);
        if (sd_status_ok(c, st, "pp_merge_pairs")) {
            TC_DOWNLOAD(c->ctx, host, dko, n * 4, "keys_out");
            TC_DOWNLOAD(c->ctx, host, dvo, n * 4, "values_out");
        }
        st = pp_merge(c->ctx, PP_U32, db, nb, da, na, dko, PP_ASCENDING);
        if (sd_status_ok(c, st, "pp_merge")) TC_DOWNLOAD(c->ctx, host, dko, n * 4, "keys_out");
        sd_expect_unchanged(c->ctx, da, a, na * 4, "a");
        sd_expect_unchanged(c->ctx, db, b, nb * 4, "b");
        void *outs[2] = {dko, dvo};
        for (int k = 0; k < 2; k++) tc_dev_free(c->ctx, outs[k]);
    }
    free(a);
    free(b);
    free(host);
}

/* The reference on a hand-computed case: equal keys across a and b (a's
 * first), -0.0 and +0.0, NaN, descending with NaNs last. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("merge reference self-check");
    const int16_t a[4] = {1, 3, 3, 7}, b[3] = {0, 3, 8};
    const uint8_t avl[4] = {0, 1, 2, 3}, bvl[3] = {4, 5, 6};
    int16_t k[7];
    uint8_t v[7];
    ref_merge_pairs(PP_I16, a, avl, 4, b, bvl, 3, 1, k, v, PP_ASCENDING);
    static const int16_t wk[7] = {0, 1, 3, 3, 3, 7, 8};
    static const uint8_t wv[7] = {4, 0, 1, 2, 5, 3, 6};
    TC_REQUIRE(!memcmp(k, wk, sizeof wk) && !memcmp(v, wv, sizeof wv), "i16 ascending pairs");
    const double fa[3] = {2.0, 0.0, NAN}, fb[3] = {5.0, -0.0, -1.0};
    double f[6];
    ref_merge(PP_F64, fa, 3, fb, 3, f, PP_DESCENDING_NAN_LAST);
    const double wf[6] = {5.0, 2.0, 0.0, -0.0, -1.0, NAN};
    TC_REQUIRE(ref_equal(PP_F64, f, wf, 6, NULL) && !signbit(f[2]) && signbit(f[3]), "f64 descending, NaN last");
}

int main(void)
{
    tc_init("test_merge");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_known), TC_TYPE_UNIT_TESTS,
                                       cmocka_unit_test(test_unsorted)};
    const int failed = cmocka_run_group_tests_name("merge", tests, NULL, NULL);
    tc_finish();
    return failed;
}
