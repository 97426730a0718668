/* pp_sort and pp_sort_pairs against the reference, and pp_sort_copy and
 * pp_sort_pairs_copy (out of place: the inputs must be unchanged; with
 * outputs that are the inputs; keys in place with values out of place):
 * every type, every order (PP_DESCENDING_NAN_LAST on floats),
 * every value size (1, 2, 4, 8; values are the original indices, so
 * stability is checked), keys with many duplicates, floats with -0.0,
 * +0.0, +-inf and NaNs of both signs and many payloads (the output must be
 * the exact bits of the stable order), every size of tc_sizes and one
 * around 2^20, on every configuration, and (on cpu and cuda) keys of 8 MiB (the cpu's MSD
 * split), also skewed (floats from [0, 1), integers of random magnitude:
 * the split's sampled buckets), 2^23 skewed 8-byte keys (the split's
 * wider prefixes), and float keys all of one sign. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEWED (-1)  /* gen_keys' mode of skewed keys */
#define ONE_NAN (-2) /* float keys of any bits but NaN, and one NaN */
/* Float keys all of one sign, no NaN (the cpu sorts them with the unsigned
 * kernels): POSITIVE from [0, 1) and small integers (a wide span of bits);
 * NEGATIVE the same negated (-0.0 among them); NEGATIVE_FEW -1.0 to -8.5
 * in steps of 0.5 (a few bits: LSD passes). Other types: SKEWED. */
#define POSITIVE (-3)
#define NEGATIVE (-4)
#define NEGATIVE_FEW (-5)
#define EQUAL (-6) /* every key the same random bits (no pass moves anything) */

static void gen_keys(tc_rng *r, pp_type t, size_t n, int mode, void *buf)
{
    size_t sz = tc_size(t);
    if (mode == EQUAL) {
        unsigned char one[8];
        do tc_fill_random(r, one, sz);
        while (!memcmp(one, "\0\0\0\0\0\0\0\0", sz));
        for (size_t i = 0; i < n; i++) memcpy((char *)buf + i * sz, one, sz);
        return;
    }
    if (mode == ONE_NAN) {
        gen_keys(r, t, n, 0, buf);
        if (n) tc_set_nan(r, t, buf, (size_t)tc_below(r, n));
        return;
    }
    if (mode <= POSITIVE && tc_is_float(t)) {
        for (size_t i = 0; i < n; i++) {
            double x = mode == NEGATIVE_FEW ? 1.0 + 0.5 * (double)tc_below(r, 16)
                       : tc_below(r, 2)     ? (double)(tc_next(r) >> 11) * 0x1p-53
                                            : (double)tc_below(r, 8);
            tc_set_f(t, buf, i, mode == POSITIVE ? x : -x);
        }
        tc_not_all_zero(t, buf, n);
        return;
    }
    switch (mode == SKEWED || mode <= POSITIVE ? 4 : mode % 4) {
    case 0: /* full range (floats: any bits but NaN) */
        if (tc_is_float(t))
            for (size_t i = 0; i < n; i++) tc_set_any_float(r, t, buf, i);
        else
            tc_fill_random(r, buf, n * sz);
        break;
    case 1: /* many duplicates */
        for (size_t i = 0; i < n; i++) {
            int64_t v = tc_between(r, -8, 8);
            if (tc_is_float(t)) tc_set_f(t, buf, i, v == 0 && (tc_next(r) & 1) ? -0.0 : (double)v * 0.5);
            else tc_set_int(t, buf, i, (uint64_t)(tc_is_signed(t) ? v : v + 8));
        }
        break;
    case 2: /* specials: extremes, +-0, +-inf, NaNs of both signs and payloads */
        for (size_t i = 0; i < n; i++) {
            uint64_t x = tc_below(r, 8);
            if (tc_is_float(t)) {
                if (x < 3) tc_set_nan(r, t, buf, i);
                else if (x == 3) tc_set_f(t, buf, i, (tc_next(r) & 1) ? INFINITY : -INFINITY);
                else if (x == 4) tc_set_f(t, buf, i, (tc_next(r) & 1) ? 0.0 : -0.0);
                else tc_set_any_float(r, t, buf, i);
            } else {
                if (x < 3) tc_set_int(t, buf, i, (uint64_t)tc_type_min(t));
                else if (x < 6) tc_set_int(t, buf, i, tc_type_max(t));
                else tc_set_int(t, buf, i, x == 6 ? 0 : (uint64_t)-1);
            }
        }
        break;
    case 4: /* skewed: floats from [0, 1), an eighth negated (exponents crowd
             * the top bits); integers shifted right by a random amount */
        for (size_t i = 0; i < n; i++) {
            if (tc_is_float(t)) {
                double x = (double)(tc_next(r) >> 11) * 0x1p-53;
                tc_set_f(t, buf, i, tc_below(r, 8) == 0 ? -x : x);
            } else {
                tc_set_int(t, buf, i, tc_next(r) >> tc_below(r, 8 * sz));
            }
        }
        break;
    default: /* nearly sorted, with runs, and a few NaNs for floats */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = i / 3 + (tc_below(r, 16) == 0 ? tc_below(r, 100) : 0);
            if (tc_is_float(t)) tc_set_f(t, buf, i, (double)v - (double)n / 6);
            else tc_set_int(t, buf, i, (uint64_t)tc_type_min(t) + v);
        }
        if (tc_is_float(t) && n)
            for (int k = 0; k < 3; k++) tc_set_nan(r, t, buf, (size_t)tc_below(r, n));
        break;
    }
    tc_not_all_zero(t, buf, n);
}

/* values[i] = i, truncated to vs bytes (little-endian) */
static void index_values(size_t n, size_t vs, void *buf)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = i;
        for (size_t b = 0; b < vs; b++) p[i * vs + b] = (unsigned char)(v >> (8 * b));
    }
}

/* The reference order's indices, truncated to vs bytes. */
static void truncate_values(const uint64_t *idx, size_t n, size_t vs, void *buf)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < vs; b++) p[i * vs + b] = (unsigned char)(idx[i] >> (8 * b));
}

/* n values of vs bytes in got against want: fails at the first difference. */
static void expect_values(const void *got, const void *want, size_t n, size_t vs, const char *what)
{
    for (size_t j = 0; j < n; j++)
        if (memcmp((const char *)got + j * vs, (const char *)want + j * vs, vs) != 0) {
            uint64_t g = 0, w = 0;
            memcpy(&g, (const char *)got + j * vs, vs);
            memcpy(&w, (const char *)want + j * vs, vs);
            TC_FAIL("%s: first difference at index %zu of %zu: got %llu, expected %llu (values are the original "
                    "indices mod 2^%zu)", what, j, n, (unsigned long long)g, (unsigned long long)w, 8 * vs);
        }
}

/* How a case sorts: in place (pp_sort, pp_sort_pairs); out of place into
 * new arrays (pp_sort_copy, pp_sort_pairs_copy); through those with the
 * outputs being the inputs (in place); keys in place and values out of
 * place (pairs only). */
enum { HOW_IN_PLACE, HOW_COPY, HOW_COPY_ALIASED, HOW_COPY_MIXED, HOW_COUNT };
static const char *const how_names[HOW_COUNT] = {"in place", "copy", "copy (out = in)", "copy (keys in place)"};
static const char *const order_names[3] = {"ascending", "descending", "descending_nan_last"};

/* A device copy of `bytes` of host data placed `off` bytes into a new
 * allocation (returned in *base; off > 0 on addressable backends only). */
static void *upload_at(pp_context *ctx, const void *host, size_t bytes, size_t off, void **base)
{
    if (!off) return *base = tc_dev_upload(ctx, host, bytes);
    unsigned char *h = (unsigned char *)tc_halloc(bytes + off);
    memset(h, 0x33, off);
    memcpy(h + off, host, bytes);
    *base = tc_dev_upload(ctx, h, bytes + off);
    free(h);
    return (char *)*base + off;
}

/* One case on c: keys (and with vs, values: the indices truncated to vs
 * bytes, in vals) sorted as `how` says, checked against the reference
 * (sorted, idx); arrays sorted out of place are checked unchanged. shift
 * (addressable backends): the inputs start `shift` elements into their
 * allocations, new outputs 2 * shift elements (so an input and its output
 * differ in address modulo 16). host, wantv: n * 8 bytes each (tc_halloc). */
static void sort_case(const tc_config *c, pp_type t, size_t n, int o, size_t vs, int how, size_t shift,
                      const void *keys, const void *sorted, const uint64_t *idx, void *vals, void *host, void *wantv)
{
    const size_t sz = tc_size(t), bytes = n * sz;
    const pp_order order = (pp_order)o;
    tc_case("%s prim=%s%s type=%s order=%s value_size=%zu n=%zu (%s%s)", tc_config_name(c),
            vs ? "sort_pairs" : "sort", how == HOW_IN_PLACE ? "" : "_copy", pp_type_name(t),
            order_names[o], vs, n, how_names[how], shift ? ", arrays at element offsets" : "");
    void *dkb, *dvb = NULL, *okb = NULL, *ovb = NULL;
    void *dk = upload_at(c->ctx, keys, bytes, shift * sz, &dkb), *dv = NULL;
    if (vs) {
        index_values(n, vs, vals);
        dv = upload_at(c->ctx, vals, n * vs, shift * vs, &dvb);
    }
    /* the outputs: new arrays (of another pattern) where they move */
    void *ok = dk, *ov = dv;
    if (how == HOW_COPY) ok = (char *)(okb = tc_dev_filled(c->ctx, bytes + 2 * shift * sz, 0x5A)) + 2 * shift * sz;
    if (vs && (how == HOW_COPY || how == HOW_COPY_MIXED))
        ov = (char *)(ovb = tc_dev_filled(c->ctx, n * vs + 2 * shift * vs, 0x5A)) + 2 * shift * vs;
    pp_status st;
    const char *fn;
    if (how == HOW_IN_PLACE) {
        fn = vs ? "pp_sort_pairs" : "pp_sort";
        st = vs ? pp_sort_pairs(c->ctx, t, dk, dv, vs, n, order) : pp_sort(c->ctx, t, dk, n, order);
    } else {
        fn = vs ? "pp_sort_pairs_copy" : "pp_sort_copy";
        st = vs ? pp_sort_pairs_copy(c->ctx, t, dk, dv, ok, ov, vs, n, order)
                : pp_sort_copy(c->ctx, t, dk, ok, n, order);
    }
    if (tc_status_ok(c, st, fn)) {
        TC_DOWNLOAD(c->ctx, host, ok, bytes, "keys");
        TC_EXPECT_BITS(t, host, sorted, n, "keys");
        if (vs) {
            TC_DOWNLOAD(c->ctx, host, ov, n * vs, "values");
            truncate_values(idx, n, vs, wantv);
            expect_values(host, wantv, n, vs, "values");
        }
        if (ok != dk) {
            TC_DOWNLOAD(c->ctx, host, dk, bytes, "keys_in");
            TC_EXPECT_BITS(t, host, keys, n, "keys_in (must be unchanged)");
        }
        if (ov != dv) {
            TC_DOWNLOAD(c->ctx, host, dv, n * vs, "values_in");
            expect_values(host, vals, n, vs, "values_in (must be unchanged)");
        }
    }
    if (okb) tc_dev_free(c->ctx, okb);
    if (ovb) tc_dev_free(c->ctx, ovb);
    tc_dev_free(c->ctx, dkb);
    if (dvb) tc_dev_free(c->ctx, dvb);
}

/* big: 0 every configuration; 1 the large-size configurations (auto, cpu
 * with several threads); CUDA_ONLY the cuda backend's auto alone;
 * SHIFTED every configuration with addressable memory (cpu, cuda), out of
 * place alone, the arrays at element offsets (sort_case's shift) */
#define CUDA_ONLY 2
#define SHIFTED 3
/* as 1, but not on opencl: sizes chosen for the cpu's MSD split, whose
 * kernels opencl does not have (its large sizes are the other big sizes' and
 * test_large's; on PoCL these took most of the test's time) */
#define CPU_SPLIT 4
static int skips_config(const tc_config *c, int big)
{
    if (big == CUDA_ONLY) return c->backend != PP_BACKEND_CUDA;
    if (big == CPU_SPLIT && c->backend == PP_BACKEND_OPENCL) return 1;
    if (big == SHIFTED) return c->backend == PP_BACKEND_OPENCL;
    return big && (c->algo != PP_ALGO_AUTO || c->threads == 1);
}

static void run_size(tc_rng *r, pp_type t, size_t n, int mode, int big)
{
    const size_t sz = tc_size(t), bytes = n * sz;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg), runs = 0;
    for (size_t i = 0; i < ncfg; i++) runs += !skips_config(&cfg[i], big);
    if (!runs) {
        tc_skip(big == CUDA_ONLY ? "cuda only" : "no configuration", "%s sorts of %zu keys: %s", pp_type_name(t), n,
                big == CUDA_ONLY ? "cases of the cuda backend, which is not tested here"
                                 : "sizes of the cpu's MSD split, not run on opencl");
        return;
    }
    char what[80];
    snprintf(what, sizeof what, "sort of %zu %s with values", n, pp_type_name(t));
    /* keys, two sorted copies, five arrays of 8-byte indices or values, and
     * the reference sort's working memory (16 bytes a key, a copy of the
     * keys and one of 8-byte values) */
    if (!tc_need(NULL, what, 0, 4 * bytes + 8 * n * 8)) return;
    void *keys = tc_halloc(bytes), *host = tc_halloc(n * 8);
    void *sorted[3], *vals = tc_halloc(n * 8), *wantv = tc_halloc(n * 8);
    uint64_t *idx[3];
    gen_keys(r, t, n, mode, keys);
    /* one reference sort per order, with 8-byte indices as values; the
     * expected values for smaller value sizes are their truncations */
    /* PP_DESCENDING_NAN_LAST differs from PP_DESCENDING on floats alone */
    const int norders = t == PP_F32 || t == PP_F64 ? 3 : 2;
    for (int o = 0; o < norders; o++) {
        sorted[o] = tc_halloc(bytes);
        idx[o] = (uint64_t *)tc_halloc(n * 8);
        memcpy(sorted[o], keys, bytes);
        index_values(n, 8, idx[o]);
        ref_sort_pairs(t, sorted[o], idx[o], 8, n, (pp_order)o);
    }
    static const size_t vsizes[] = {0, 1, 2, 4, 8};
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (skips_config(c, big)) continue;
        /* keys and values of up to 8 bytes, twice (out of place), and the
         * library's working memory (keys and values again, and counts) */
        if (!tc_need_buffers(c->ctx, what, TC_SCRATCH(n * (sz + 8)), 2 * (bytes + n * 8) + 4 * TC_GUARD +
                             TC_SCRATCH(n * (sz + 8)), 0))
            continue;
        tc_use(c, PP_PRIM_SORT);
        for (int o = 0; o < norders; o++) {
            for (size_t v = 0; v < 5; v++) {
                size_t vs = vsizes[v];
                const int large = n > 20000 || big;
                if (big == SHIFTED) {
                    if (vs == 0 || v == 1 + ((size_t)o + n) % 4)
                        sort_case(c, t, n, o, vs, HOW_COPY, 1, keys, sorted[o], idx[o], vals, host, wantv);
                    continue;
                }
                /* large sizes: keys only and one value size per order */
                if (large && vs != 0 && v != 1 + ((size_t)o + c->threads + n) % 4) continue;
                /* small sizes: in place, and one of the _copy ways in
                 * turn (out of place in two turns of four); large sizes:
                 * in place or out of place, in turn */
                const size_t turn = ((size_t)o + v + n + (size_t)c->threads) % 4;
                const int copy_how = turn == 2 ? HOW_COPY_ALIASED : turn == 3 && vs ? HOW_COPY_MIXED : HOW_COPY;
                for (int how = 0; how < HOW_COUNT; how++)
                    if (large ? how == (turn % 2 ? HOW_COPY : HOW_IN_PLACE) : how == HOW_IN_PLACE || how == copy_how)
                        sort_case(c, t, n, o, vs, how, 0, keys, sorted[o], idx[o], vals, host, wantv);
            }
        }
    }
    for (int o = 0; o < norders; o++) {
        free(sorted[o]);
        free(idx[o]);
    }
    free(keys);
    free(host);
    free(vals);
    free(wantv);
}

static void test_type(pp_type t)
{
    char name[64];
    snprintf(name, sizeof name, "sort_%s", pp_type_name(t));
    tc_rng r = tc_rng_for(name);
    for (size_t s = 0; s < tc_nsizes; s++) run_size(&r, t, tc_sizes[s], (int)s, 0);
    run_size(&r, t, tc_big_sizes[(t + 1) % tc_nbig], (int)t, 1);
    run_size(&r, t, tc_big_sizes[(t + 2) % tc_nbig], (int)t + 1, 1);
    /* keys alone of 8 MiB and more: the cpu's MSD split (2-byte keys: 4M
     * of them, so that the split and its in-cache buckets have bits to
     * sort on; 1-byte keys take one pass) */
    const size_t sz = tc_size(t);
    if (sz >= 2 && !tc_quick) {
        const size_t n = sz == 2 ? 4194311 : ((size_t)8 << 20) / sz + 37;
        run_size(&r, t, n, (int)t + 2, CPU_SPLIT);
        run_size(&r, t, n + 1000, SKEWED, CPU_SPLIT);
    }
    /* 8-byte keys from 2^23 on: the cpu's top split on 20-bit prefixes
     * (doubles' sign and exponent take 12 of them) */
    if (sz == 8 && !tc_quick) run_size(&r, t, ((size_t)1 << 23) + 37, SKEWED, CPU_SPLIT);
    /* float keys of one sign without NaN: a bucket in cache, LSD passes,
     * and (not in quick mode) the MSD split */
    if (tc_is_float(t)) {
        run_size(&r, t, 20011, POSITIVE, 0);
        run_size(&r, t, 4099, NEGATIVE, 0);
        run_size(&r, t, 1031, NEGATIVE_FEW, 0);
        run_size(&r, t, tc_big_sizes[t % tc_nbig], NEGATIVE_FEW, 1);
        if (!tc_quick) run_size(&r, t, ((size_t)8 << 20) / sz + 41, POSITIVE, CPU_SPLIT);
    }
}

TC_TYPE_TESTS(test_type)

/* Out of place with every key equal (no pass moves anything: the cuda
 * Onesweep copies the input, the one-block and one-cluster sorts store it),
 * and with random keys, the arrays at element offsets: a short size, one
 * within a cluster's and one above. */
static void test_copy_shifted(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("sort_copy_shifted");
    static const pp_type types[] = {PP_U8, PP_I16, PP_U32, PP_F64};
    static const size_t sizes[] = {1025, 40009, 150001};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++) {
            run_size(&r, types[i], sizes[j], EQUAL, SHIFTED);
            run_size(&r, types[i], sizes[j], 0, SHIFTED);
        }
}

/* Float keys from 2^26 on, without NaN and with NaNs: the cuda sort's pass
 * kernels for keys that hold no NaN (count_kernel looks, every pass then
 * takes the tile body without the NaN check) and those with it (one NaN
 * among them, or many). The other backends have no such path, and the
 * reference sorts take about a minute: cuda only, and not in quick mode. */
static void test_float_2e26(void **state)
{
    (void)state;
    if (tc_quick) return;
    tc_rng r = tc_rng_for("sort_float_2e26");
    const size_t n = ((size_t)1 << 26) + 37;
    run_size(&r, PP_F32, n, 0, CUDA_ONLY);       /* any bits but NaN */
    run_size(&r, PP_F32, n, ONE_NAN, CUDA_ONLY); /* and one NaN */
    run_size(&r, PP_F64, n, 0, CUDA_ONLY);
    run_size(&r, PP_F64, n, 2, CUDA_ONLY); /* specials, NaNs among them */
}

/* Float keys alone of about one cuda sort tile per SM (2^20: 137 f32 tiles,
 * 171 f64 ones): the pass kernels with both tile bodies there too, keys
 * without NaN taking the one without the check; with NaNs, the one with it.
 * cuda only. */
static void test_float_tile_per_sm(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("sort_float_tile_per_sm");
    const size_t n = ((size_t)1 << 20) + 37;
    run_size(&r, PP_F32, n, 0, CUDA_ONLY);
    run_size(&r, PP_F32, n, ONE_NAN, CUDA_ONLY);
    run_size(&r, PP_F64, n, 0, CUDA_ONLY);
    run_size(&r, PP_F64, n, 2, CUDA_ONLY);
}

int main(void)
{
    tc_init("test_sort");
    const struct CMUnitTest tests[] = {
        TC_TYPE_UNIT_TESTS,
        cmocka_unit_test(test_copy_shifted),
        cmocka_unit_test(test_float_2e26),
        cmocka_unit_test(test_float_tile_per_sm),
    };
    int rc = cmocka_run_group_tests_name("sort", tests, NULL, NULL);
    tc_finish();
    return rc;
}
