/* pp_segmented_sort and pp_segmented_sort_pairs against the reference
 * (ref_segmented_sort_pairs: ref_sort_pairs per segment): every type,
 * every order, keys alone and values of 1, 2, 4 and 8 bytes (the original
 * indices, so stability is checked), keys with duplicates, float specials
 * (NaNs of both signs and many payloads, -0.0, +0.0, +-inf: the output
 * must be the exact bits of the stable order), over segment layouts: many
 * tiny segments, many empty ones, segments of a few hundred keys, one
 * huge segment among tiny ones, segments that leave both ends of the
 * array out (which must stay untouched), power-law sizes, one segment of
 * everything; segments large enough for the cpu's whole-sort path; bad
 * offsets (cpu: PP_ERROR_INVALID_ARGUMENT and nothing written; opencl:
 * success and nothing written outside the arrays). Backends without the
 * call (cuda for now): PP_ERROR_UNSUPPORTED, nothing written. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_segsort(pp_backend b) { return b == PP_BACKEND_CPU || b == PP_BACKEND_OPENCL; }

static const char *const order_names[3] = {"ascending", "descending", "descending_nan_last"};

/* Keys of mode 0 (full range; floats any bits but NaN), 1 (many
 * duplicates, -0.0 and +0.0), 2 (specials: NaNs, +-inf, +-0, extremes), 3
 * (skewed: floats from [0, 1), integers of random magnitude). */
static void gen_keys(tc_rng *r, pp_type t, size_t n, int mode, void *buf)
{
    const size_t sz = tc_size(t);
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = tc_below(r, 8);
        switch (mode) {
        case 0:
            if (tc_is_float(t))
                tc_set_any_float(r, t, buf, i);
            else
                tc_set_int(t, buf, i, tc_next(r));
            break;
        case 1: {
            const int64_t v = tc_between(r, -6, 6);
            if (tc_is_float(t))
                tc_set_f(t, buf, i, v == 0 && (x & 1) ? -0.0 : (double)v * 0.5);
            else
                tc_set_int(t, buf, i, (uint64_t)(tc_is_signed(t) ? v : v + 6));
            break;
        }
        case 2:
            if (tc_is_float(t)) {
                if (x < 3)
                    tc_set_nan(r, t, buf, i);
                else if (x == 3)
                    tc_set_f(t, buf, i, (tc_next(r) & 1) ? INFINITY : -INFINITY);
                else if (x == 4)
                    tc_set_f(t, buf, i, (tc_next(r) & 1) ? 0.0 : -0.0);
                else
                    tc_set_any_float(r, t, buf, i);
            } else {
                tc_set_int(t, buf, i, x < 3 ? (uint64_t)tc_type_min(t) : x < 6 ? tc_type_max(t) : tc_next(r));
            }
            break;
        default:
            if (tc_is_float(t)) {
                const double f = (double)(tc_next(r) >> 11) * 0x1p-53;
                tc_set_f(t, buf, i, x == 0 ? -f : f);
            } else {
                tc_set_int(t, buf, i, tc_next(r) >> tc_below(r, 8 * sz));
            }
            break;
        }
    }
    tc_not_all_zero(t, buf, n);
}

/* ---- layouts
 * ------------------------------------------------------------------------ */
enum { L_TINY, L_EMPTY, L_MEDIUM, L_HUGE_AMONG_TINY, L_INNER, L_POWER, L_WHOLE, L_COUNT };
static const char *const layout_names[L_COUNT] = {"tiny",  "mostly-empty", "medium", "huge-among-tiny",
                                                  "inner", "power-law",    "whole"};

/* Offsets of layout l over n elements into a new array; *nseg set. */
static uint64_t *make_offsets(tc_rng *r, int l, size_t n, size_t *nseg)
{
    const size_t cap = 2 * n + 64;
    size_t k = 0;
    uint64_t *off = (uint64_t *)malloc((cap + 1) * sizeof *off);
    uint64_t pos = 0, end = n;
    int huge_done = 0;
    if (l == L_INNER) {
        pos = n / 7;
        end = n - n / 5;
    }
    if (l == L_WHOLE) {
        off[k++] = 0;
        pos = n;
    }
    while (pos < end && k < cap) {
        uint64_t len;
        switch (l) {
        case L_TINY: len = tc_below(r, 66); break; /* around the insertion sort's limit */
        case L_EMPTY: len = tc_below(r, 4) ? 0 : tc_below(r, 9); break;
        case L_MEDIUM: len = 17 + tc_below(r, 600); break;
        case L_HUGE_AMONG_TINY: len = !huge_done && pos >= n / 4 ? (huge_done = 1, n / 2 + 1) : tc_below(r, 5); break;
        case L_INNER: len = tc_below(r, 3001); break;
        default: /* power law: 2^(u * log2(n)), u uniform, some empty */
            len = tc_below(r, 8) ? (uint64_t)exp2((double)tc_below(r, 1000) / 1000.0 * log2((double)n + 1)) : 0;
            break;
        }
        off[k++] = pos;
        pos = end - pos < len ? end : pos + len;
    }
    off[k] = pos;
    *nseg = k;
    return off;
}

/* values[i] = i, truncated to vs bytes (little-endian). */
static void index_values(size_t n, size_t vs, void *buf)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < vs; b++) p[i * vs + b] = (unsigned char)((uint64_t)i >> (8 * b));
}

static const pp_type value_types[9] = {PP_U8, PP_U8, PP_U16, PP_U8, PP_U32, PP_U8, PP_U8, PP_U8, PP_U64};

/* One case on every configuration of the sort (AUTO alone unless
 * all_algos): keys of mode over layout l, values of vs bytes (0: keys
 * alone). */
static void run_case(tc_rng *r, pp_type t, pp_order o, size_t vs, size_t n, int l, int mode, int all_algos)
{
    const size_t sz = tc_size(t);
    size_t nseg;
    uint64_t *off = make_offsets(r, l, n, &nseg);
    /* one block: the keys, values, expected keys and values (n * 8 bytes
     * each), then the downloads (offsets too) and their guard */
    const size_t room = n * 8, hroom = (n > nseg ? n : nseg + 1) * 8;
    char *keys = (char *)tc_halloc(4 * room + hroom), *vals = keys + room, *wantk = vals + room, *wantv = wantk + room,
         *host = wantv + room;
    gen_keys(r, t, n, mode, keys);
    index_values(n, vs, vals);
    const tc_config *cfg;
    const size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (c->algo != PP_ALGO_AUTO && !all_algos) continue;
        if (!tc_need_buffers(c->ctx, "segmented sort", n * sz + TC_GUARD, 2 * n * (sz + vs) + TC_SCRATCH(n * 16), 0))
            continue;
        tc_use(c, PP_PRIM_SORT);
        tc_case("%s %s type=%s order=%s value_size=%zu n=%zu nseg=%zu layout=%s "
                "keys=%d",
                tc_config_name(c), vs ? "segmented_sort_pairs" : "segmented_sort", pp_type_name(t), order_names[o], vs,
                n, nseg, layout_names[l], mode);
        void *dk = tc_dev_upload(c->ctx, keys, n * sz), *dv = vs ? tc_dev_upload(c->ctx, vals, n * vs) : NULL;
        void *doff = tc_dev_upload(c->ctx, off, (nseg + 1) * sizeof *off);
        const pp_status st = vs ? pp_segmented_sort_pairs(c->ctx, t, dk, dv, vs, n, (const uint64_t *)doff, nseg, o)
                                : pp_segmented_sort(c->ctx, t, dk, n, (const uint64_t *)doff, nseg, o);
        memcpy(wantk, keys, n * sz);
        memcpy(wantv, vals, n * vs);
        const char *fn = vs ? "pp_segmented_sort_pairs" : "pp_segmented_sort";
        pp_status want = nseg == 0 || n == 0 || has_segsort(c->backend) ? PP_SUCCESS : PP_ERROR_UNSUPPORTED;
        /* an algorithm other than auto may be refused (opencl Onesweep off
         * NVIDIA GPUs): a skip, with nothing written */
        if (want == PP_SUCCESS && st == PP_ERROR_UNSUPPORTED && !tc_status_ok(c, st, fn)) want = st;
        if (st != want)
            TC_FAIL("%s returned %s, expected %s (%s)", fn, pp_status_string(st), pp_status_string(want),
                    pp_last_error(c->ctx));
        if (want == PP_SUCCESS) ref_segmented_sort_pairs(t, wantk, vs ? wantv : NULL, vs, off, nseg, o);
        TC_DOWNLOAD(c->ctx, host, dk, n * sz, "keys");
        TC_EXPECT_BITS(t, host, wantk, n, "keys (untouched outside the segments)");
        if (vs) {
            TC_DOWNLOAD(c->ctx, host, dv, n * vs, "values");
            TC_EXPECT_BITS(value_types[vs], host, wantv, n, "values (the original indices)");
        }
        TC_DOWNLOAD(c->ctx, host, doff, (nseg + 1) * sizeof *off, "offsets");
        TC_REQUIRE(!memcmp(host, off, (nseg + 1) * sizeof *off), "offsets changed");
        tc_dev_free(c->ctx, dk);
        if (dv) tc_dev_free(c->ctx, dv);
        tc_dev_free(c->ctx, doff);
    }
    free(off);
    free(keys);
}

/* Every order and value size, awkward sizes, the layouts and key modes in
 * turn; every algorithm at one size. */
static void test_type(pp_type t)
{
    char name[64] = "segsort_";
    tc_rng r = tc_rng_for(strcat(name, pp_type_name(t)));
    static const size_t sizes[] = {1, 7, 1000, 20011};
    static const size_t vsizes[] = {0, 1, 2, 4, 8};
    unsigned turn = (unsigned)t;
    for (int o = 0; o < 3; o++)
        for (size_t v = 0; v < 5; v++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, turn++)
                run_case(&r, t, (pp_order)o, vsizes[v], sizes[s], (int)(turn % L_COUNT), (int)(turn / 3 % 4), s == 2);
    if (!tc_quick) /* tasks of many segments on more threads */
        run_case(&r, t, (pp_order)(turn % 3), vsizes[turn % 5], 300007, (int)(turn % L_COUNT), (int)(turn % 4), 0);
}
TC_TYPE_TESTS(test_type)

/* Segments of 2^17 keys and more (the cpu sorts them with the whole sort,
 * one after another), among tiny ones, and power-law sizes. */
static void test_large_segments(void **state)
{
    (void)state;
    tc_rng r = tc_rng_for("segsort_large");
    const size_t n = ((size_t)1 << 18) + 3;
    run_case(&r, PP_U32, PP_ASCENDING, 0, n, L_HUGE_AMONG_TINY, 0, 1);
    run_case(&r, PP_F32, PP_DESCENDING, 4, n, L_HUGE_AMONG_TINY, 2, 0);
    run_case(&r, PP_F64, PP_DESCENDING_NAN_LAST, 8, n, L_WHOLE, 2, 0);
    run_case(&r, PP_I16, PP_ASCENDING, 2, n, L_POWER, 1, 0);
    if (!tc_quick) run_case(&r, PP_U64, PP_DESCENDING, 1, 4 * n, L_POWER, 3, 1);
}

/* Decreasing offsets, offsets past n: refused with
 * PP_ERROR_INVALID_ARGUMENT on cpu, nothing written; opencl clamps them on
 * the device and succeeds (results unspecified: only that nothing outside
 * the arrays is written, which the guarded buffers check); elsewhere
 * PP_ERROR_UNSUPPORTED, nothing written. */
static void test_bad_offsets(void **state)
{
    (void)state;
    const size_t n = 30011, nseg = 6;
    static const uint64_t bad[][7] = {
        {3, 700, 650, 900, 1000, 1200, 1500}, /* decreasing in the middle */
        {0, 64, 128, 30011, 30011, 30011, 30012}, /* the last one past n */
        {100, 200, 45000, 45001, 45002, 45003, 45004}, /* past n early, non-decreasing */
        {0, 33, 66, 99, 132, 165, 1}, /* the last before the one before */
        {9000, 8000, 10000, 11000, 12000, 13000, 14000}, /* the first after the second */
        {0, 29000, 60000, 60000, 60000, 60000, 60000}, /* a long segment running past n */
        {0, 1, 2, 3, 4, 5, UINT64_MAX}, /* the largest offset */
    };
    uint32_t *keys = (uint32_t *)tc_halloc(n * 4);
    uint64_t *vals = (uint64_t *)tc_halloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        keys[i] = (uint32_t)(i * 2654435761u + 1);
        vals[i] = i;
    }
    void *host = tc_halloc(n * 8);
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        for (size_t ci = 0; ci < nctx; ci++) {
            pp_context *ctx = ctxs[ci];
            const pp_backend be = pp_context_backend(ctx);
            const pp_status w = !has_segsort(be)       ? PP_ERROR_UNSUPPORTED
                                : be == PP_BACKEND_CPU ? PP_ERROR_INVALID_ARGUMENT
                                                       : PP_SUCCESS;
            tc_case("%s segmented sort bad offsets #%zu", pp_backend_name(be), b);
            void *doff = tc_dev_upload(ctx, bad[b], sizeof bad[b]);
            void *dk = tc_dev_upload(ctx, keys, n * 4), *dv = tc_dev_upload(ctx, vals, n * 8);
            pp_status st = pp_segmented_sort(ctx, PP_U32, dk, n, (const uint64_t *)doff, nseg, PP_ASCENDING);
            TC_REQUIRE(st == w, "pp_segmented_sort: %s (%s)", pp_status_string(st), pp_last_error(ctx));
            st = pp_segmented_sort_pairs(ctx, PP_U32, dk, dv, 8, n, (const uint64_t *)doff, nseg, PP_DESCENDING);
            TC_REQUIRE(st == w, "pp_segmented_sort_pairs: %s (%s)", pp_status_string(st), pp_last_error(ctx));
            if (w == PP_ERROR_INVALID_ARGUMENT)
                TC_REQUIRE(strstr(pp_last_error(ctx), "offsets[") != NULL, "message names no offset: %s",
                           pp_last_error(ctx));
            /* (the guards after each buffer are checked by every download) */
            TC_DOWNLOAD(ctx, host, dk, n * 4, "keys");
            if (w != PP_SUCCESS) TC_REQUIRE(!memcmp(host, keys, n * 4), "keys written by a refused call");
            TC_DOWNLOAD(ctx, host, dv, n * 8, "values");
            if (w != PP_SUCCESS) TC_REQUIRE(!memcmp(host, vals, n * 8), "values written by a refused call");
            tc_dev_free(ctx, dk);
            tc_dev_free(ctx, dv);
            tc_dev_free(ctx, doff);
        }
    free(keys);
    free(vals);
    free(host);
}

/* The reference on a hand-computed case. */
static void test_reference_known(void **state)
{
    (void)state;
    tc_case("segmented sort reference self-check");
    int32_t k[8] = {9, 3, 1, 2, 2, -1, 7, 0};
    uint8_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const uint64_t off[4] = {1, 3, 3, 7};
    ref_segmented_sort_pairs(PP_I32, k, v, 1, off, 3, PP_DESCENDING);
    static const int32_t wk[8] = {9, 3, 1, 7, 2, 2, -1, 0};
    static const uint8_t wv[8] = {0, 1, 2, 6, 3, 4, 5, 7};
    TC_REQUIRE(!memcmp(k, wk, sizeof wk) && !memcmp(v, wv, sizeof wv), "segmented sort reference");
}

int main(void)
{
    tc_init("test_segsort");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_known), cmocka_unit_test(test_bad_offsets),
                                       TC_TYPE_UNIT_TESTS, cmocka_unit_test(test_large_segments)};
    const int failed = cmocka_run_group_tests_name("segsort", tests, NULL, NULL);
    tc_finish();
    return failed;
}
