/* pp_top_k against the reference (ref_top_k: the stable sort of the keys
 * with their indices, then its first k): every type, every order, sizes
 * from 0 to a few parts of the cpu's (0, 1, primes, 2^17 and past), k = 0,
 * 1, small primes, around the sizes where the cpu changes how it sorts
 * its candidates (64, 65), n / 2, n - 1, n and past n (clamped), with and
 * without indices_out; data random over the whole type, with many
 * duplicates (ties by index), sorted up and down (the selection's worst
 * layouts), and for floats NaNs of every sign and payload, -0.0 and +0.0,
 * infinities and subnormals. Keys bit for bit (NaN payloads kept) and
 * indices exactly, on every configuration the test framework lists for
 * PP_PRIM_SORT; the input unchanged and nothing written past k. Backends
 * without the call: a printed skip ("not available on <backend> yet"),
 * nothing written. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends that must have pp_top_k (the others may not yet). */
static int required(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL || b == PP_BACKEND_CUDA; }

enum { D_RANDOM, D_FEW_VALUES, D_ASCENDING, D_DESCENDING, D_SPECIALS, D_COUNT };
static const char *const data_names[D_COUNT] = {"random", "few-values", "ascending", "descending", "specials"};

/* n keys of layout d: whole-type random bits; 8 distinct values (floats:
 * -0.0, +0.0, NaN among them); runs going up or down (with repeats);
 * floats of every kind with NaNs. */
static void make_keys(tc_rng *r, pp_type t, int d, size_t n, void *keys)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = tc_next(r);
        switch (d) {
        case D_RANDOM:
            if (tc_is_float(t))
                tc_set_any_float(r, t, keys, i);
            else
                tc_set_int(t, keys, i, x);
            break;
        case D_FEW_VALUES:
            if (!tc_is_float(t))
                tc_set_int(t, keys, i, (x % 8) * 0x9E3779B97F4A7C15ull);
            else if (x % 8 == 0)
                tc_set_nan(r, t, keys, i);
            else
                tc_set_f(t, keys, i, x % 8 == 1 ? -0.0 : x % 8 == 2 ? 0.0 : (double)(x % 8) - 5.0);
            break;
        case D_ASCENDING:
        case D_DESCENDING: {
            const uint64_t v = (uint64_t)(d == D_ASCENDING ? i : n - i) / 2;
            if (tc_is_float(t))
                tc_set_f(t, keys, i, (double)v);
            else
                tc_set_int(t, keys, i, (uint64_t)tc_type_min(t) + v);
            break;
        }
        default:
            if (!tc_is_float(t))
                tc_set_int(t, keys, i, x % 3 == 0 ? tc_type_max(t) : x % 3 == 1 ? (uint64_t)tc_type_min(t) : x);
            else if (x % 4 == 0)
                tc_set_nan(r, t, keys, i);
            else
                tc_set_any_float(r, t, keys, i);
            break;
        }
    }
    tc_not_all_zero(t, keys, n);
}

/* One input on every configuration for each k of ks (the reference: the
 * first k of want_keys and want_idx, the whole sort's). Backends other
 * than cpu, whose calls cost far more (an argsort each; PoCL), take every
 * third k, the algorithms other than auto only at the largest sizes, and
 * no light input (every other one of the small sizes). */
static void run_input(int light, pp_type t, pp_order order, const char *layout, const void *keys, size_t n,
                      const size_t *ks, size_t nk, const void *want_keys, const uint64_t *want_idx)
{
    const size_t sz = tc_size(t), bytes = n * sz;
    char *host = (char *)tc_halloc((bytes > 8 * n ? bytes : 8 * n) + 16 * sz + 8);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t ci = 0; ci < ncfg; ci++) {
        const tc_config *c = &cfg[ci];
        pp_context *ctx = c->ctx;
        const int cpu = c->backend == PP_BACKEND_CPU;
        if (!cpu && ((c->algo != PP_ALGO_AUTO && n <= 10000) || light)) continue;
        tc_use(c, PP_PRIM_SORT);
        void *din = n ? tc_dev_upload(ctx, keys, bytes) : NULL;
        for (size_t ki = 0; ki < nk; ki++) {
            if (!cpu && ki % 3 != 0 && ki != nk - 1) continue;
            const size_t k = ks[ki], kk = k < n ? k : n;
            const int with_idx = (ki + ci) % 3 != 2;
            tc_case("%s pp_top_k type=%s order=%d data=%s n=%zu k=%zu%s", tc_config_name(c), pp_type_name(t),
                    (int)order, layout, n, k, with_idx ? "" : " indices_out=NULL");
            void *dkeys = kk ? tc_dev_filled(ctx, kk * sz, 0x5A) : NULL;
            void *didx = kk && with_idx ? tc_dev_filled(ctx, kk * 8, 0x5A) : NULL;
            const pp_status st = pp_top_k(ctx, t, din, n, k, order, dkeys, (uint64_t *)didx);
            const int ok = tc_status_or_absent(c, st, "pp_top_k", required(c->backend));
            if (kk) {
                TC_DOWNLOAD(ctx, host, dkeys, kk * sz, "keys_out");
                if (ok)
                    TC_EXPECT_BITS(t, host, want_keys, kk, "keys_out");
                else
                    for (size_t i = 0; i < kk * sz; i++)
                        TC_REQUIRE((unsigned char)host[i] == 0x5A, "byte %zu of keys_out written by a refused call", i);
            }
            if (didx) {
                TC_DOWNLOAD(ctx, host, didx, kk * 8, "indices_out");
                for (size_t i = 0; i < kk; i++) {
                    uint64_t got;
                    memcpy(&got, host + 8 * i, 8);
                    if (ok)
                        TC_REQUIRE(got == want_idx[i], "indices_out[%zu] = %llu, expected %llu", i,
                                   (unsigned long long)got, (unsigned long long)want_idx[i]);
                    else
                        TC_REQUIRE(got == 0x5A5A5A5A5A5A5A5Aull, "indices_out[%zu] written by a refused call", i);
                }
            }
            tc_dev_free(ctx, dkeys);
            tc_dev_free(ctx, didx);
        }
        if (n) {
            TC_DOWNLOAD(ctx, host, din, bytes, "in");
            TC_EXPECT_BITS(t, host, keys, n, "in after the calls");
        }
        tc_dev_free(ctx, din);
    }
    pp_context *const *ctxs;
    for (size_t i = 0, nc = tc_contexts(&ctxs); i < nc; i++) pp_set_algorithm(ctxs[i], PP_PRIM_SORT, PP_ALGO_AUTO);
    free(host);
}

static void test_type(pp_type t)
{
    static const size_t sizes[] = {0, 1, 2, 7, 64, 65, 130, 1009, 8193, 40961, 200003};
    const size_t ns = sizeof sizes / sizeof sizes[0], nmax = sizes[ns - 1], sz = tc_size(t);
    tc_rng r = tc_rng_for(pp_type_name(t));
    char *keys = (char *)malloc(nmax * sz), *want = (char *)malloc(nmax * sz);
    uint64_t *idx = (uint64_t *)malloc(nmax * sizeof *idx);
    unsigned combo = 0;
    for (size_t s = 0; s < ns; s++) {
        const size_t n = sizes[s];
        if (!tc_quick && n == 40961) continue;
        const size_t ks[] = {0, 1, 2, 7, 64, 65, 97, 1031, n / 2, n - (n > 0), n, n + 1, 2 * n + 3};
        const size_t big_ks[] = {1, 65, 1031, n / 2, n + 1}; /* sizes past 10000 */
        for (int order = 0; order < 3; order++)
            for (int d = 0; d < D_COUNT; d++) {
                /* sizes past 10000: every third (order, layout), so each layout once */
                if (n > 10000 && (combo++ % 3) != 0) continue;
                make_keys(&r, t, d, n, keys);
                ref_top_k(t, keys, n, n, (pp_order)order, want, idx);
                const int light = n <= 10000 && (order + d) % 2;
                if (n > 10000)
                    run_input(light, t, (pp_order)order, data_names[d], keys, n, big_ks, 5, want, idx);
                else
                    run_input(light, t, (pp_order)order, data_names[d], keys, n, ks, sizeof ks / sizeof ks[0], want,
                              idx);
            }
    }
    free(keys);
    free(want);
    free(idx);
}
TC_TYPE_TESTS(test_type)

int main(void)
{
    tc_init("test_topk");
    const struct CMUnitTest tests[] = {TC_TYPE_UNIT_TESTS};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_finish();
    return rc;
}
