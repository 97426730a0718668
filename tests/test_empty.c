/* n == 0 on every primitive, type and configuration: "reduce writes the
 * identity, counts become 0, nothing else is touched; array pointers may
 * then be NULL". Each call is made with NULL arrays and again with real
 * buffers (which must keep their contents). The compaction primitives come
 * last: a sanitizer abort there does not hide the others.
 * Also the sign of float sums of zeros (reduce and scan), whose empty case
 * is the identity +0.0. And the segmented forms' n == 0 and nseg == 0,
 * pp_argsort's n == 0 (nothing written) and n == 1 (index 0), the
 * segmented sort's n == 0, nseg == 0 and n == 1, and the by-key forms'
 * n == 0 (count 0, nothing else written, on every backend: the core
 * answers it). */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char sentinel[8] = {0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A};

static void expect_sentinel(const tc_config *c, void *dev, size_t bytes, const char *what)
{
    unsigned char h[64 + TC_GUARD];
    TC_DOWNLOAD(c->ctx, h, dev, bytes, what);
    for (size_t i = 0; i < bytes; i++)
        TC_REQUIRE(h[i] == 0x5A, "%s was written by a call with n = 0 (byte %zu)", what, i);
}

static uint64_t read_u64(const tc_config *c, void *dev, const char *what)
{
    unsigned char h[8 + TC_GUARD];
    uint64_t v;
    TC_DOWNLOAD(c->ctx, h, dev, 8, what);
    memcpy(&v, h, 8);
    return v;
}

static void test_reduce_scan(void **state)
{
    (void)state;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_REDUCE, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_REDUCE);
        if (pp_set_algorithm(c->ctx, PP_PRIM_SCAN, c->algo) != PP_SUCCESS) continue;
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            pp_type t = tc_types[ti];
            size_t sz = tc_size(t);
            for (int o = 0; o < PP_OP_COUNT; o++) {
                pp_op op = (pp_op)o;
                if (tc_is_float(t) && op > PP_MAX) continue;
                unsigned char want[8], host[8 + TC_GUARD];
                ref_reduce(t, op, NULL, 0, want);
                void *in = tc_dev_filled(c->ctx, sz, 0x5A), *out = tc_dev_filled(c->ctx, sz, 0x5A);
                for (int null_in = 0; null_in < 2; null_in++) {
                    tc_case("%s prim=reduce type=%s op=%s n=0 in=%s", tc_config_name(c), pp_type_name(t),
                            pp_op_name(op), null_in ? "NULL" : "buffer");
                    TC_OK(pp_upload(c->ctx, out, sentinel, sz));
                    if (tc_status_ok(c, pp_reduce(c->ctx, t, op, null_in ? NULL : in, 0, out), "pp_reduce")) {
                        TC_DOWNLOAD(c->ctx, host, out, sz, "reduce result");
                        TC_EXPECT_BITS(t, host, want, 1, "the identity"); /* +0.0 for a float sum */
                        expect_sentinel(c, in, sz, "in");
                    }
                }
                TC_OK(pp_upload(c->ctx, out, sentinel, sz));
                for (int k = 0; k < 2; k++) {
                    tc_case("%s prim=scan type=%s op=%s kind=%d n=0", tc_config_name(c), pp_type_name(t),
                            pp_op_name(op), k);
                    if (tc_status_ok(c, pp_scan(c->ctx, t, op, (pp_scan_kind)k, NULL, NULL, 0), "pp_scan") &&
                        tc_status_ok(c, pp_scan(c->ctx, t, op, (pp_scan_kind)k, in, out, 0), "pp_scan") &&
                        tc_status_ok(c, pp_scan(c->ctx, t, op, (pp_scan_kind)k, in, in, 0), "pp_scan") &&
                        tc_status_ok(c, pp_scan(c->ctx, t, op, (pp_scan_kind)k, NULL, out, 0), "pp_scan")) {
                        expect_sentinel(c, in, sz, "in");
                        expect_sentinel(c, out, sz, "out");
                    }
                }
                tc_dev_free(c->ctx, in);
                tc_dev_free(c->ctx, out);
            }
        }
    }
}

/* ---- float sums of zeros --------------------------------------------------------------------
 * The header: a float SUM of zeros has the sign that IEEE addition in input
 * order gives: -0.0 where every element summed is -0.0 (at least one), else
 * +0.0; the identity (n == 0, an exclusive scan's first output) is +0.0.
 * On every configuration, reduce and both scans over all +0.0, all -0.0, and
 * -0.0 with one +0.0 first, in the middle or last, at sizes across blocks
 * and tiles. */
static const size_t zero_sizes[] = {1, 2, 3, 31, 1000, 8193, 100003};
#define ZERO_PATTERNS 5

/* Index of the one +0.0 of pattern p (0: all +0.0; 1: none, all -0.0). */
static size_t zero_first_pos(int p, size_t n)
{
    switch (p) {
    case 0: return 0;
    case 1: return n;
    case 2: return 0;
    case 3: return n / 2;
    default: return n - 1;
    }
}

static void zero_fill(pp_type t, void *h, size_t n, int p)
{
    size_t pos = zero_first_pos(p, n);
    for (size_t i = 0; i < n; i++) tc_set_f(t, h, i, (p == 0 || i == pos) ? 0.0 : -0.0);
}

/* out[0..m) are zeros, out[i] negative exactly where neg(i); fails naming what. */
static void expect_zero_signs(const tc_config *c, pp_type t, const void *dev, size_t m, size_t first_pos,
                              int exclusive, const char *what)
{
    unsigned char *h = (unsigned char *)tc_halloc(m * tc_size(t));
    TC_DOWNLOAD(c->ctx, h, dev, m * tc_size(t), what);
    for (size_t i = 0; i < m; i++) {
        /* inclusive out[i] sums x[0..i], exclusive x[0..i-1] (+0.0 for i == 0) */
        int want_neg = exclusive ? (i > 0 && first_pos >= i) : first_pos > i;
        double v = tc_get_f(t, h, i);
        if (v != 0.0 || !!signbit(v) != want_neg) {
            free(h);
            TC_FAIL("%s[%zu] = %g (sign bit %d), expected %s", what, i, v, !!signbit(v), want_neg ? "-0.0" : "+0.0");
        }
    }
    free(h);
}

static void test_zero_sums(void **state)
{
    (void)state;
    static const pp_type types[] = {PP_F32, PP_F64};
    for (int prim = PP_PRIM_REDUCE; prim <= PP_PRIM_SCAN; prim++) {
        const tc_config *cfg;
        size_t ncfg = tc_configs((pp_primitive)prim, &cfg);
        for (size_t ci = 0; ci < ncfg; ci++) {
            const tc_config *c = &cfg[ci];
            tc_use(c, (pp_primitive)prim);
            for (size_t ti = 0; ti < 2; ti++) {
                pp_type t = types[ti];
                if (t == PP_F64 && !tc_need_f64(c->ctx, prim == PP_PRIM_REDUCE ? "f64 zero sums (reduce)" : "f64 zero sums (scan)"))
                    continue;
                for (size_t k = 0; k < sizeof zero_sizes / sizeof zero_sizes[0]; k++) {
                    size_t n = zero_sizes[k], bytes = n * tc_size(t);
                    void *h = tc_halloc(bytes);
                    void *in = tc_dev_filled(c->ctx, bytes, 0x5A);
                    void *out = tc_dev_filled(c->ctx, prim == PP_PRIM_REDUCE ? tc_size(t) : bytes, 0x5A);
                    int go = 1;
                    for (int p = 0; p < ZERO_PATTERNS && go; p++) {
                        size_t pos = zero_first_pos(p, n);
                        zero_fill(t, h, n, p);
                        TC_OK(pp_upload(c->ctx, in, h, bytes));
                        if (prim == PP_PRIM_REDUCE) {
                            tc_case("%s prim=reduce type=%s op=sum n=%zu zeros: +0.0 at %zu", tc_config_name(c),
                                    pp_type_name(t), n, pos);
                            go = tc_status_ok(c, pp_reduce(c->ctx, t, PP_SUM, in, n, out), "pp_reduce");
                            /* the sum of x[0..n): negative iff no +0.0 */
                            if (go) expect_zero_signs(c, t, out, 1, pos == n ? n : 0, 0, "reduce result");
                            continue;
                        }
                        for (int kind = 0; kind < 2 && go; kind++) {
                            tc_case("%s prim=scan kind=%s type=%s op=sum n=%zu zeros: +0.0 at %zu",
                                    tc_config_name(c), kind ? "exclusive" : "inclusive", pp_type_name(t), n, pos);
                            go = tc_status_ok(c, pp_scan(c->ctx, t, PP_SUM, (pp_scan_kind)kind, in, out, n),
                                                "pp_scan");
                            if (go) expect_zero_signs(c, t, out, n, pos, kind, "scan output");
                        }
                    }
                    tc_dev_free(c->ctx, in);
                    tc_dev_free(c->ctx, out);
                    free(h);
                }
            }
        }
    }
}

static void test_histogram(void **state)
{
    (void)state;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_HISTOGRAM, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_HISTOGRAM);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            pp_type t = tc_types[ti];
            unsigned char lo[8], hi[8], edges[4 * 8];
            for (int k = 0; k < 4; k++) {
                if (tc_is_float(t)) tc_set_f(t, edges, (size_t)k, k - 1.5);
                else tc_set_int(t, edges, (size_t)k, (uint64_t)k);
            }
            memcpy(lo, edges, 8);
            memcpy(hi, edges + 3 * tc_size(t), 8);
            void *samples = tc_dev_filled(c->ctx, 8, 0x5A), *counts = tc_dev_filled(c->ctx, 3 * 8, 0x5A);
            for (int range = 0; range < 2; range++)
                for (int null_samples = 0; null_samples < 2; null_samples++) {
                    tc_case("%s prim=histogram_%s type=%s n=0 samples=%s", tc_config_name(c),
                            range ? "range" : "even", pp_type_name(t), null_samples ? "NULL" : "buffer");
                    TC_OK(pp_upload(c->ctx, counts, "ZZZZZZZZZZZZZZZZZZZZZZZZ", 24));
                    const void *s = null_samples ? NULL : samples;
                    pp_status st = range ? pp_histogram_range(c->ctx, t, s, 0, edges, 3, (uint64_t *)counts)
                                         : pp_histogram_even(c->ctx, t, s, 0, lo, hi, 3, (uint64_t *)counts);
                    if (tc_status_ok(c, st, range ? "pp_histogram_range" : "pp_histogram_even")) {
                        uint64_t h[3 + TC_GUARD / 8];
                        TC_DOWNLOAD(c->ctx, h, counts, 24, "counts");
                        TC_REQUIRE(h[0] == 0 && h[1] == 0 && h[2] == 0, "counts are not 0 after n = 0");
                        expect_sentinel(c, samples, 8, "samples");
                    }
                }
            tc_dev_free(c->ctx, samples);
            tc_dev_free(c->ctx, counts);
        }
    }
}

/* dev's 8 bytes: head bytes of 0x5A (copied from an input), then 0xC3
 * (the output's fill). */
static void expect_copied(const tc_config *c, void *dev, size_t head, const char *what)
{
    unsigned char h[8 + TC_GUARD];
    TC_DOWNLOAD(c->ctx, h, dev, 8, what);
    for (size_t i = 0; i < 8; i++)
        TC_REQUIRE(h[i] == (i < head ? 0x5A : 0xC3), "%s: byte %zu is 0x%02X after a copy of %zu bytes", what, i,
                   h[i], head);
}

static void test_sort(void **state)
{
    (void)state;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SORT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SORT);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            pp_type t = tc_types[ti];
            void *k = tc_dev_filled(c->ctx, 8, 0x5A), *v = tc_dev_filled(c->ctx, 8, 0x5A);
            void *ko = tc_dev_filled(c->ctx, 8, 0xC3), *vo = tc_dev_filled(c->ctx, 8, 0xC3);
            const unsigned char fill[8] = {0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3};
            for (int o = 0; o < 3; o++) {
                tc_case("%s prim=sort type=%s order=%d n=0 and n=1", tc_config_name(c), pp_type_name(t), o);
                if (!tc_status_ok(c, pp_sort(c->ctx, t, NULL, 0, (pp_order)o), "pp_sort")) continue;
                TC_OK(pp_sort(c->ctx, t, k, 0, (pp_order)o));
                for (size_t vs = 1; vs <= 8; vs *= 2) {
                    TC_OK(pp_sort_pairs(c->ctx, t, NULL, NULL, vs, 0, (pp_order)o));
                    TC_OK(pp_sort_pairs(c->ctx, t, k, NULL, vs, 0, (pp_order)o));
                    TC_OK(pp_sort_pairs(c->ctx, t, k, v, vs, 0, (pp_order)o));
                    TC_OK(pp_sort_pairs(c->ctx, t, k, v, vs, 1, (pp_order)o)); /* one pair: unchanged */
                }
                TC_OK(pp_sort(c->ctx, t, k, 1, (pp_order)o));
                expect_sentinel(c, k, 8, "keys");
                expect_sentinel(c, v, 8, "values");
                /* out of place: n == 0 writes nothing, n == 1 copies */
                TC_OK(pp_sort_copy(c->ctx, t, NULL, NULL, 0, (pp_order)o));
                TC_OK(pp_sort_copy(c->ctx, t, k, ko, 0, (pp_order)o));
                for (size_t vs = 1; vs <= 8; vs *= 2) {
                    TC_OK(pp_sort_pairs_copy(c->ctx, t, NULL, NULL, NULL, NULL, vs, 0, (pp_order)o));
                    TC_OK(pp_sort_pairs_copy(c->ctx, t, k, v, ko, vo, vs, 0, (pp_order)o));
                }
                expect_copied(c, ko, 0, "keys_out");
                expect_copied(c, vo, 0, "values_out");
                TC_OK(pp_sort_copy(c->ctx, t, k, ko, 1, (pp_order)o));
                expect_copied(c, ko, tc_size(t), "keys_out");
                TC_OK(pp_upload(c->ctx, ko, fill, 8));
                TC_OK(pp_sort_pairs_copy(c->ctx, t, k, v, ko, vo, 2, 1, (pp_order)o));
                expect_copied(c, ko, tc_size(t), "keys_out");
                expect_copied(c, vo, 2, "values_out");
                TC_OK(pp_upload(c->ctx, ko, fill, 8));
                TC_OK(pp_upload(c->ctx, vo, fill, 8));
            }
            tc_dev_free(c->ctx, k);
            tc_dev_free(c->ctx, v);
            tc_dev_free(c->ctx, ko);
            tc_dev_free(c->ctx, vo);
        }
    }
}

/* pp_argsort: n == 0 succeeds on every backend (NULLs allowed) and writes
 * nothing; n == 1 writes index 0 and nothing else (a backend without
 * argsort, none now: PP_ERROR_UNSUPPORTED, nothing written). */
static void test_argsort(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (size_t ci = 0; ci < nctx; ci++) {
        const tc_config c = {ctxs[ci], pp_context_backend(ctxs[ci]), 0, PP_ALGO_AUTO};
        const int has = c.backend == PP_BACKEND_CPU || c.backend == PP_BACKEND_CUDA || c.backend == PP_BACKEND_OPENCL;
        void *k = tc_dev_filled(c.ctx, 8, 0x5A), *idx = tc_dev_filled(c.ctx, 8, 0x5A);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            const pp_type t = tc_types[ti];
            for (int o = 0; o < 3; o++) {
                for (int w = 0; w < 2; w++) {
                    const pp_type it = w ? PP_U64 : PP_U32;
                    tc_case("%s argsort type=%s order=%d index=%s n=0 and n=1", pp_backend_name(c.backend),
                            pp_type_name(t), o, pp_type_name(it));
                    TC_OK(pp_argsort(c.ctx, t, NULL, 0, (pp_order)o, it, NULL));
                    TC_OK(pp_argsort(c.ctx, t, k, 0, (pp_order)o, it, idx));
                    expect_sentinel(&c, idx, 8, "indices");
                    const pp_status st = pp_argsort(c.ctx, t, k, 1, (pp_order)o, it, idx);
                    TC_REQUIRE(st == (has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED), "pp_argsort n=1: %s",
                               pp_status_string(st));
                    if (has) {
                        unsigned char h[8 + TC_GUARD];
                        TC_DOWNLOAD(c.ctx, h, idx, 8, "indices");
                        for (size_t b = 0; b < 8; b++)
                            TC_REQUIRE(h[b] == (b < tc_size(it) ? 0 : 0x5A), "indices byte %zu = 0x%02x after n=1",
                                       b, h[b]);
                        const unsigned char fill[8] = {0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A};
                        TC_OK(pp_upload(c.ctx, idx, fill, 8));
                    }
                    expect_sentinel(&c, idx, 8, "indices");
                    expect_sentinel(&c, k, 8, "keys");
                }
            }
        }
        tc_dev_free(c.ctx, k);
        tc_dev_free(c.ctx, idx);
    }
}

static void test_select(void **state)
{
    (void)state;
    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SELECT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        tc_use(c, PP_PRIM_SELECT);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            pp_type t = tc_types[ti];
            unsigned char value[8] = {0};
            void *in = tc_dev_filled(c->ctx, 8, 0x5A), *out = tc_dev_filled(c->ctx, 8, 0x5A);
            void *flags = tc_dev_filled(c->ctx, 8, 0x5A), *count = tc_dev_filled(c->ctx, 8, 0x5A);
            for (int w = 0; w < 4; w++)
                for (int nulls = 0; nulls < 2; nulls++) {
                    static const char *const names[] = {"select_flagged", "select_if", "unique", "partition_if"};
                    tc_case("%s prim=%s type=%s n=0 arrays=%s", tc_config_name(c), names[w], pp_type_name(t),
                            nulls ? "NULL" : "buffers");
                    TC_OK(pp_upload(c->ctx, count, sentinel, 8));
                    void *pi = nulls ? NULL : in, *po = nulls ? NULL : out;
                    const uint8_t *pf = nulls ? NULL : (const uint8_t *)flags;
                    pp_status st = PP_SUCCESS;
                    switch (w) {
                    case 0: st = pp_select_flagged(c->ctx, t, pi, pf, 0, po, (uint64_t *)count); break;
                    case 1: st = pp_select_if(c->ctx, t, pi, 0, PP_NE, value, po, (uint64_t *)count); break;
                    case 2: st = pp_unique(c->ctx, t, pi, 0, po, (uint64_t *)count); break;
                    default: st = pp_partition_if(c->ctx, t, pi, 0, PP_GE, value, po, (uint64_t *)count); break;
                    }
                    if (tc_status_ok(c, st, names[w])) {
                        uint64_t k = read_u64(c, count, "count");
                        TC_REQUIRE(k == 0, "count = %llu after n = 0", (unsigned long long)k);
                        expect_sentinel(c, in, 8, "in");
                        expect_sentinel(c, out, 8, "out");
                        expect_sentinel(c, flags, 8, "flags");
                    }
                }
            tc_dev_free(c->ctx, in);
            tc_dev_free(c->ctx, out);
            tc_dev_free(c->ctx, flags);
            tc_dev_free(c->ctx, count);
        }
    }
}

/* ---- segmented forms: nseg == 0 (no array read, NULLs allowed) and n == 0
 * with empty segments (the reduce writes identities, the scan nothing); on
 * a backend without them (PP_ERROR_UNSUPPORTED for n == 0, nseg > 0),
 * nothing written. */
static void test_segmented(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    static const uint64_t zeros[4] = {0, 0, 0, 0};
    for (size_t ci = 0; ci < nctx; ci++) {
        pp_context *ctx = ctxs[ci];
        /* the backends that have the segmented forms (the others refuse them) */
        const int has = pp_context_backend(ctx) == PP_BACKEND_CPU || pp_context_backend(ctx) == PP_BACKEND_CUDA ||
                        pp_context_backend(ctx) == PP_BACKEND_OPENCL;
        const tc_config c = {ctx, pp_context_backend(ctx), 0, PP_ALGO_AUTO};
        void *in = tc_dev_filled(ctx, 8, 0x5A), *out = tc_dev_filled(ctx, 64, 0x5A);
        void *off = tc_dev_upload(ctx, zeros, sizeof zeros);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            const pp_type t = tc_types[ti];
            const size_t sz = tc_size(t);
            tc_case("%s segmented type=%s nseg=0 / n=0", pp_backend_name(c.backend), pp_type_name(t));
            TC_OK(pp_segmented_reduce(ctx, t, PP_MAX, NULL, 0, NULL, 0, NULL));
            TC_OK(pp_segmented_reduce(ctx, t, PP_MAX, in, 1, (const uint64_t *)off, 0, out));
            TC_OK(pp_segmented_scan(ctx, t, PP_SUM, PP_EXCLUSIVE, NULL, NULL, 0, NULL, 0));
            TC_OK(pp_segmented_scan(ctx, t, PP_SUM, PP_INCLUSIVE, in, out, 1, (const uint64_t *)off, 0));
            pp_status st = pp_segmented_scan(ctx, t, PP_MIN, PP_EXCLUSIVE, NULL, NULL, 0, (const uint64_t *)off, 3);
            TC_REQUIRE(st == (has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED), "pp_segmented_scan n=0 nseg=3: %s",
                       pp_status_string(st));
            expect_sentinel(&c, out, 64, "out");
            st = pp_segmented_reduce(ctx, t, PP_MIN, NULL, 0, (const uint64_t *)off, 3, out);
            TC_REQUIRE(st == (has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED), "pp_segmented_reduce n=0 nseg=3: %s",
                       pp_status_string(st));
            if (has) {
                unsigned char want[8], host[64 + TC_GUARD];
                ref_reduce(t, PP_MIN, NULL, 0, want);
                TC_DOWNLOAD(ctx, host, out, 64, "out");
                for (size_t s = 0; s < 3; s++) TC_EXPECT_BITS(t, host + s * sz, want, 1, "an empty segment's identity");
                for (size_t i = 3 * sz; i < 64; i++) TC_REQUIRE(host[i] == 0x5A, "out written past nseg");
                unsigned char fill[64];
                memset(fill, 0x5A, sizeof fill);
                TC_OK(pp_upload(ctx, out, fill, sizeof fill));
            }
            expect_sentinel(&c, in, 8, "in");
            expect_sentinel(&c, out, 64, "out");
        }
        tc_dev_free(ctx, in);
        tc_dev_free(ctx, out);
        tc_dev_free(ctx, off);
    }
}

/* ---- segmented sort: nseg == 0 or n == 0 succeeds on every backend before
 * any array is read (NULLs allowed) and writes nothing; n == 1 (one
 * segment of one key, or an empty one) leaves the key and value as they
 * are (a backend without the call: PP_ERROR_UNSUPPORTED). */
static void test_segsort(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    static const uint64_t offs[4] = {0, 1, 1, 1};
    for (size_t ci = 0; ci < nctx; ci++) {
        const tc_config c = {ctxs[ci], pp_context_backend(ctxs[ci]), 0, PP_ALGO_AUTO};
        const int has = c.backend == PP_BACKEND_CPU || c.backend == PP_BACKEND_CUDA || c.backend == PP_BACKEND_OPENCL;
        void *k = tc_dev_filled(c.ctx, 8, 0x5A), *v = tc_dev_filled(c.ctx, 8, 0x5A);
        void *off = tc_dev_upload(c.ctx, offs, sizeof offs);
        for (size_t ti = 0; ti < TC_NTYPES; ti++)
            for (int o = 0; o < 3; o++) {
                const pp_type t = tc_types[ti];
                const pp_order order = (pp_order)o;
                tc_case("%s segmented sort type=%s order=%d n=0, nseg=0, n=1", pp_backend_name(c.backend),
                        pp_type_name(t), o);
                TC_OK(pp_segmented_sort(c.ctx, t, NULL, 0, NULL, 0, order));
                TC_OK(pp_segmented_sort(c.ctx, t, k, 1, (const uint64_t *)off, 0, order));
                TC_OK(pp_segmented_sort(c.ctx, t, NULL, 0, (const uint64_t *)off, 3, order));
                TC_OK(pp_segmented_sort_pairs(c.ctx, t, NULL, NULL, 8, 0, NULL, 0, order));
                TC_OK(pp_segmented_sort_pairs(c.ctx, t, k, v, 2, 1, (const uint64_t *)off, 0, order));
                TC_OK(pp_segmented_sort_pairs(c.ctx, t, NULL, NULL, 1, 0, (const uint64_t *)off, 3, order));
                const pp_status want = has ? PP_SUCCESS : PP_ERROR_UNSUPPORTED;
                pp_status st = pp_segmented_sort(c.ctx, t, k, 1, (const uint64_t *)off, 3, order);
                TC_REQUIRE(st == want, "pp_segmented_sort n=1: %s", pp_status_string(st));
                st = pp_segmented_sort_pairs(c.ctx, t, k, v, 4, 1, (const uint64_t *)off, 2, order);
                TC_REQUIRE(st == want, "pp_segmented_sort_pairs n=1: %s", pp_status_string(st));
                expect_sentinel(&c, k, 8, "keys");
                expect_sentinel(&c, v, 8, "values");
            }
        tc_dev_free(c.ctx, k);
        tc_dev_free(c.ctx, v);
        tc_dev_free(c.ctx, off);
    }
}

/* ---- by-key forms: n == 0 writes count = 0 and nothing else, with NULL
 * arrays or real ones, every key and value type, on every backend (the
 * core answers before any backend). */
static void test_bykey(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    for (size_t ci = 0; ci < nctx; ci++) {
        pp_context *ctx = ctxs[ci];
        const tc_config c = {ctx, pp_context_backend(ctx), 0, PP_ALGO_AUTO};
        void *k = tc_dev_filled(ctx, 64, 0x5A), *v = tc_dev_filled(ctx, 64, 0x5A);
        void *ko = tc_dev_filled(ctx, 64, 0x5A), *vo = tc_dev_filled(ctx, 64, 0x5A);
        void *count = tc_dev_filled(ctx, 8, 0x5A);
        for (size_t ti = 0; ti < TC_NTYPES; ti++) {
            const pp_type kt = tc_types[ti], vt = tc_types[(ti + 3) % TC_NTYPES];
            tc_case("%s by-key keys=%s values=%s n=0", pp_backend_name(c.backend), pp_type_name(kt), pp_type_name(vt));
            TC_OK(pp_reduce_by_key(ctx, kt, vt, PP_MAX, NULL, NULL, 0, NULL, NULL, (uint64_t *)count));
            TC_REQUIRE(read_u64(&c, count, "count") == 0, "pp_reduce_by_key n=0: count != 0");
            TC_OK(pp_upload(ctx, count, "ZZZZZZZZ", 8));
            TC_OK(pp_reduce_by_key(ctx, kt, vt, PP_SUM, k, v, 0, ko, vo, (uint64_t *)count));
            TC_REQUIRE(read_u64(&c, count, "count") == 0, "pp_reduce_by_key n=0: count != 0");
            TC_OK(pp_upload(ctx, count, "ZZZZZZZZ", 8));
            TC_OK(pp_scan_by_key(ctx, kt, vt, PP_MIN, PP_EXCLUSIVE, NULL, NULL, NULL, 0));
            TC_OK(pp_scan_by_key(ctx, kt, vt, PP_SUM, PP_INCLUSIVE, k, v, vo, 0));
            TC_OK(pp_scan_by_key(ctx, kt, vt, PP_SUM, PP_EXCLUSIVE, k, vo, vo, 0));
            expect_sentinel(&c, count, 8, "count (scan_by_key writes none)");
            TC_OK(pp_run_length_encode(ctx, kt, NULL, 0, NULL, NULL, (uint64_t *)count));
            TC_REQUIRE(read_u64(&c, count, "count") == 0, "pp_run_length_encode n=0: count != 0");
            TC_OK(pp_upload(ctx, count, "ZZZZZZZZ", 8));
            TC_OK(pp_run_length_encode(ctx, kt, k, 0, ko, (uint64_t *)vo, (uint64_t *)count));
            TC_REQUIRE(read_u64(&c, count, "count") == 0, "pp_run_length_encode n=0: count != 0");
            TC_OK(pp_upload(ctx, count, "ZZZZZZZZ", 8));
            expect_sentinel(&c, k, 64, "keys");
            expect_sentinel(&c, v, 64, "values");
            expect_sentinel(&c, ko, 64, "keys_out");
            expect_sentinel(&c, vo, 64, "values_out");
        }
        tc_dev_free(ctx, k);
        tc_dev_free(ctx, v);
        tc_dev_free(ctx, ko);
        tc_dev_free(ctx, vo);
        tc_dev_free(ctx, count);
    }
}

int main(void)
{
    tc_init("test_empty");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_scan),
        cmocka_unit_test(test_zero_sums),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_segmented),
        cmocka_unit_test(test_argsort),
        cmocka_unit_test(test_segsort),
        cmocka_unit_test(test_bykey),
        cmocka_unit_test(test_select),
    };
    int rc = cmocka_run_group_tests_name("empty", tests, NULL, NULL);
    tc_finish();
    return rc;
}
