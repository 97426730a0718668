/* pp_argsort against the reference's stable sort (ref_sort_pairs with
 * 8-byte indices as values): every type, every order
 * (PP_DESCENDING_NAN_LAST on floats), PP_U32 and PP_U64 indices, sizes
 * 0, 1, 2, 3 and around the cpu's and GPUs' tiles, one of about 2^20 per
 * type, keys with many duplicates, floats with -0.0, +0.0, +-inf and NaNs
 * of both signs and many payloads, on every configuration of
 * PP_PRIM_SORT; the keys must come back unchanged (bit for bit), nothing
 * is written past the indices (guard bytes). On backends without argsort
 * (none now): PP_ERROR_UNSUPPORTED with nothing written. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_argsort(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_CUDA || b == PP_BACKEND_OPENCL; }

/* Keys by mode: 0 any bits (floats: any non-NaN); 1 few distinct values
 * (floats: halves in [-4, 4] with -0.0 and +0.0); 2 specials (extremes,
 * +-0, +-inf, NaNs of random signs and payloads). */
static void gen_keys(tc_rng *r, pp_type t, size_t n, int mode, void *buf)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = tc_below(r, 8);
        if (mode == 0) {
            if (tc_is_float(t)) tc_set_any_float(r, t, buf, i);
            else tc_set_int(t, buf, i, tc_next(r));
        } else if (mode == 1) {
            const int64_t v = tc_between(r, -8, 8);
            if (tc_is_float(t)) tc_set_f(t, buf, i, v == 0 && (x & 1) ? -0.0 : (double)v * 0.5);
            else tc_set_int(t, buf, i, (uint64_t)v);
        } else if (tc_is_float(t)) {
            if (x < 3) tc_set_nan(r, t, buf, i);
            else if (x == 3) tc_set_f(t, buf, i, tc_below(r, 2) ? INFINITY : -INFINITY);
            else if (x == 4) tc_set_f(t, buf, i, tc_below(r, 2) ? 0.0 : -0.0);
            else tc_set_any_float(r, t, buf, i);
        } else {
            tc_set_int(t, buf, i, x < 3 ? (uint64_t)tc_type_min(t) : x < 6 ? tc_type_max(t) : x - 6);
        }
    }
    tc_not_all_zero(t, buf, n);
}

static const char *const order_names[3] = {"ascending", "descending", "descending_nan_last"};

/* One call on c: keys (host) uploaded, indices of index type it (PP_U32 or
 * PP_U64) compared with want (8-byte positions), keys checked unchanged. */
static void argsort_case(const tc_config *c, pp_type t, size_t n, int o, pp_type it, const void *keys,
                         const uint64_t *want, void *host)
{
    const size_t kb = n * tc_size(t), ib = n * tc_size(it);
    tc_case("%s type=%s n=%zu order=%s index=%s", tc_config_name(c), pp_type_name(t), n, order_names[o],
            pp_type_name(it));
    void *dk = tc_dev_upload(c->ctx, keys, kb), *di = tc_dev_filled(c->ctx, ib, 0xA5);
    const pp_status st = pp_argsort(c->ctx, t, dk, n, (pp_order)o, it, di);
    if (!has_argsort(c->backend)) {
        TC_REQUIRE(st == PP_ERROR_UNSUPPORTED, "pp_argsort on %s: %s, not PP_ERROR_UNSUPPORTED",
                   tc_config_name(c), pp_status_string(st));
        TC_DOWNLOAD(c->ctx, host, di, ib, "indices");
        for (size_t i = 0; i < ib; i++) TC_REQUIRE(((unsigned char *)host)[i] == 0xA5, "indices written");
    } else if (tc_status_ok(c, st, "pp_argsort")) {
        TC_DOWNLOAD(c->ctx, host, di, ib, "indices");
        for (size_t i = 0; i < n; i++) {
            const uint64_t got = it == PP_U64 ? ((uint64_t *)host)[i] : ((uint32_t *)host)[i];
            if (got != want[i]) TC_FAIL("indices[%zu] = %llu, want %llu", i, (unsigned long long)got,
                                        (unsigned long long)want[i]);
        }
    }
    TC_DOWNLOAD(c->ctx, host, dk, kb, "keys");
    TC_EXPECT_BITS(t, host, keys, n, "keys (must be unchanged)");
    tc_dev_free(c->ctx, dk);
    tc_dev_free(c->ctx, di);
}

/* Every order and index type of keys of n elements (mode) on every
 * configuration; above 20000 keys AUTO configurations only, one index
 * type each in turn; big: not on one thread either. */
static void run_size(tc_rng *r, pp_type t, size_t n, int mode, int big)
{
    const size_t sz = tc_size(t);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    char what[80];
    snprintf(what, sizeof what, "argsort of %zu %s", n, pp_type_name(t));
    /* keys, their sorted copy, two arrays of 8-byte indices, the download
     * and the reference sort's working memory */
    if (!tc_need(NULL, what, 0, 2 * n * sz + 5 * n * 8)) return;
    void *keys = tc_halloc(n * sz), *sorted = tc_halloc(n * sz), *host = tc_halloc(n * 8);
    uint64_t *want = (uint64_t *)tc_halloc(n * 8);
    gen_keys(r, t, n, mode, keys);
    const int norders = tc_is_float(t) ? 3 : 2;
    for (int o = 0; o < norders; o++) {
        memcpy(sorted, keys, n * sz);
        for (size_t i = 0; i < n; i++) want[i] = i;
        ref_sort_pairs(t, sorted, want, 8, n, (pp_order)o);
        for (size_t i = 0; i < ncfg; i++) {
            const tc_config *c = &cfg[i];
            /* large sizes: AUTO alone (big: not on one thread either) */
            if ((big || n > 20000) && c->algo != PP_ALGO_AUTO) continue;
            if (big && c->threads == 1) continue;
            /* keys, indices, the sorted keys, the sequence and the sort's scratch */
            if (!tc_need_buffers(c->ctx, what, TC_SCRATCH(n * (sz + 8)), 2 * n * (sz + 8) + 2 * TC_GUARD +
                                 TC_SCRATCH(n * (sz + 8)), 0))
                continue;
            tc_use(c, PP_PRIM_SORT);
            for (int k = 0; k < 2; k++) {
                const pp_type it = k ? PP_U64 : PP_U32;
                if ((big || n > 20000) && (size_t)k != ((size_t)o + i + n) % 2) continue;
                argsort_case(c, t, n, o, it, keys, want, host);
            }
        }
    }
    free(keys);
    free(sorted);
    free(host);
    free(want);
}

static void test_type(pp_type t)
{
    static const size_t sizes[] = {0, 1, 2, 3, 5, 17, 255, 256, 257, 1025, 4097, 8193, 16385, 65537, 131073};
    tc_rng r = tc_rng_for(pp_type_name(t));
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        if (tc_quick && sizes[s] > 16385) break;
        run_size(&r, t, sizes[s], (int)(s % 3), 0);
    }
    /* about 2^20 (quick: about 2^14.3) once per type */
    run_size(&r, t, tc_big_sizes[t % tc_nbig], (int)(t % 3), 1);
}

TC_TYPE_TESTS(test_type)

int main(void)
{
    tc_init("test_argsort");
    const struct CMUnitTest tests[] = {TC_TYPE_UNIT_TESTS};
    int rc = cmocka_run_group_tests_name("argsort", tests, NULL, NULL);
    tc_finish();
    return rc;
}
