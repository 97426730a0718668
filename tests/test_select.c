/* Stream compaction against the reference: pp_select_flagged (several flag
 * densities), pp_select_if (all six comparisons), pp_unique and
 * pp_partition_if, every type, every size of tc_sizes and one around 2^20,
 * on every configuration. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cmp_name(pp_cmp c)
{
    static const char *const names[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    return (unsigned)c < 6 ? names[c] : "?";
}

/* Data: small ranges (runs of equal neighbours for unique), full range,
 * and for floats +-0, +-inf, subnormals and NaNs. */
static void gen_data(tc_rng *r, pp_type t, size_t n, int mode, void *buf)
{
    size_t sz = tc_size(t);
    switch (mode % 4) {
    case 0: /* small values in runs */
        for (size_t i = 0; i < n;) {
            size_t run = 1 + (size_t)tc_below(r, 6);
            int64_t v = tc_between(r, tc_is_signed(t) || tc_is_float(t) ? -3 : 0, 3);
            for (; run > 0 && i < n; run--, i++) {
                if (tc_is_float(t)) tc_set_f(t, buf, i, v == 0 && (tc_next(r) & 1) ? -0.0 : (double)v);
                else tc_set_int(t, buf, i, (uint64_t)v);
            }
        }
        break;
    case 1:
        tc_fill_random(r, buf, n * sz);
        break;
    case 2:
        for (size_t i = 0; i < n; i++) {
            if (tc_is_float(t)) {
                if (tc_below(r, 10) == 0) tc_set_nan(r, t, buf, i);
                else tc_set_any_float(r, t, buf, i);
            } else {
                tc_set_int(t, buf, i, tc_between(r, 0, 1) ? (uint64_t)tc_type_min(t) : tc_type_max(t));
            }
        }
        break;
    default: /* all equal */
        for (size_t i = 0; i < n; i++) tc_set_int(t, buf, i, 0x4141414141414141ull);
        break;
    }
    tc_not_all_zero(t, buf, n);
}

static void gen_flags(tc_rng *r, size_t n, int mode, uint8_t *f)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t v;
        switch (mode % 5) {
        case 0: v = (uint8_t)(tc_next(r) & 1); break;
        case 1: v = 0; break;
        case 2: v = (uint8_t)(1 + tc_below(r, 255)); break; /* all set, any non-zero byte */
        case 3: v = tc_below(r, 100) == 0 ? (uint8_t)tc_next(r) : 0; break;
        default: v = (uint8_t)((i / 1000) & 1 ? 0xFF : 0); break;
        }
        f[i] = v;
    }
}

/* A comparison value: an element of the data (so EQ selects), a random
 * value, or for floats NaN or -0.0. */
static void pick_value(tc_rng *r, pp_type t, const void *in, size_t n, unsigned char *v)
{
    size_t sz = tc_size(t);
    uint64_t x = tc_below(r, 8);
    if (n && x < 5) {
        memcpy(v, (const char *)in + tc_below(r, n) * sz, sz);
    } else if (tc_is_float(t) && x == 5) {
        tc_set_nan(r, t, v, 0);
    } else if (tc_is_float(t) && x == 6) {
        tc_set_f(t, v, 0, -0.0);
    } else if (tc_is_float(t)) {
        tc_set_any_float(r, t, v, 0);
    } else {
        tc_fill_random(r, v, sz);
    }
}

typedef enum which { W_FLAGGED, W_IF, W_UNIQUE, W_PARTITION } which;
static const char *const which_name[] = {"select_flagged", "select_if", "unique", "partition_if"};

/* One call on one configuration; din (and dflags) already uploaded. */
static void run_one(const tc_config *c, which w, pp_type t, size_t n, const void *in, void *din,
                    const uint8_t *flags, void *dflags, pp_cmp cmp, const unsigned char *value, void *host,
                    void *want)
{
    const size_t sz = tc_size(t), bytes = n * sz;
    char vb[80] = "";
    if (w == W_IF || w == W_PARTITION) ref_format(t, value, 0, vb, sizeof vb);
    tc_case("%s prim=%s type=%s n=%zu%s%s%s%s", tc_config_name(c), which_name[w], pp_type_name(t), n,
            (w == W_IF || w == W_PARTITION) ? " cmp=" : "", (w == W_IF || w == W_PARTITION) ? cmp_name(cmp) : "",
            (w == W_IF || w == W_PARTITION) ? " value=" : "", vb);
    uint64_t k = 0;
    switch (w) {
    case W_FLAGGED: k = ref_select_flagged(t, in, flags, n, want); break;
    case W_IF: k = ref_select_if(t, in, n, cmp, value, want); break;
    case W_UNIQUE: k = ref_unique(t, in, n, want); break;
    case W_PARTITION: k = ref_partition_if(t, in, n, cmp, value, want); break;
    }
    void *dout = tc_dev_filled(c->ctx, bytes, 0x5A);
    void *dcount = tc_dev_filled(c->ctx, sizeof(uint64_t), 0x5A);
    pp_status st = PP_SUCCESS;
    switch (w) {
    case W_FLAGGED: st = pp_select_flagged(c->ctx, t, din, (const uint8_t *)dflags, n, dout, (uint64_t *)dcount); break;
    case W_IF: st = pp_select_if(c->ctx, t, din, n, cmp, value, dout, (uint64_t *)dcount); break;
    case W_UNIQUE: st = pp_unique(c->ctx, t, din, n, dout, (uint64_t *)dcount); break;
    case W_PARTITION: st = pp_partition_if(c->ctx, t, din, n, cmp, value, dout, (uint64_t *)dcount); break;
    }
    if (tc_status_ok(c, st, which_name[w])) {
        uint64_t got;
        TC_DOWNLOAD(c->ctx, host, dcount, sizeof got, "count");
        memcpy(&got, host, sizeof got);
        TC_REQUIRE(got == k, "count: got %llu, expected %llu", (unsigned long long)got, (unsigned long long)k);
        TC_DOWNLOAD(c->ctx, host, dout, bytes, "out");
        /* bit for bit: the selected elements are copies of the input */
        TC_EXPECT_BITS(t, host, want, w == W_PARTITION ? n : (size_t)k, "out");
    }
    tc_dev_free(c->ctx, dout);
    tc_dev_free(c->ctx, dcount);
}

static void run_size(tc_rng *r, pp_type t, size_t n, int mode, int big)
{
    const size_t sz = tc_size(t), bytes = n * sz;
    char what[80];
    snprintf(what, sizeof what, "compaction of %zu %s", n, pp_type_name(t));
    if (!tc_need(NULL, what, 0, 3 * bytes + n + 8)) return;
    void *in = tc_halloc(bytes), *want = tc_halloc(bytes), *host = tc_halloc(bytes + 8);
    uint8_t *flags = (uint8_t *)tc_halloc(n);
    gen_data(r, t, n, mode, in);
    gen_flags(r, n, mode + (int)tc_below(r, 5), flags);
    unsigned char values[6][8];
    for (int c = 0; c < 6; c++) pick_value(r, t, in, n, values[c]);
    pp_cmp pcmp = (pp_cmp)tc_below(r, 6);

    const tc_config *cfg;
    size_t ncfg = tc_configs(PP_PRIM_SELECT, &cfg);
    for (size_t i = 0; i < ncfg; i++) {
        const tc_config *c = &cfg[i];
        if (big && (c->algo != PP_ALGO_AUTO || c->threads == 1)) continue;
        /* in, flags, out and count, and the library's working memory */
        if (!tc_need_buffers(c->ctx, what, bytes + TC_GUARD, 2 * bytes + n + 4 * TC_GUARD + 8 + TC_SCRATCH(bytes), 0))
            continue;
        if (t == PP_F64 && !tc_need_f64(c->ctx, "compaction of f64")) continue;
        tc_use(c, PP_PRIM_SELECT);
        void *din = tc_dev_upload(c->ctx, in, bytes);
        void *dflags = tc_dev_upload(c->ctx, flags, n);
        run_one(c, W_FLAGGED, t, n, in, din, flags, dflags, PP_LT, NULL, host, want);
        for (int cmp = 0; cmp < 6; cmp++) {
            if (big && cmp != (int)(c->threads + n) % 6) continue;
            run_one(c, W_IF, t, n, in, din, NULL, NULL, (pp_cmp)cmp, values[cmp], host, want);
        }
        run_one(c, W_UNIQUE, t, n, in, din, NULL, NULL, PP_LT, NULL, host, want);
        run_one(c, W_PARTITION, t, n, in, din, NULL, NULL, pcmp, values[pcmp], host, want);
        tc_case("%s prim=select type=%s n=%zu (inputs afterwards)", tc_config_name(c), pp_type_name(t), n);
        TC_DOWNLOAD(c->ctx, host, din, bytes, "in");
        TC_EXPECT_BITS(t, host, in, n, "in after the selections");
        TC_DOWNLOAD(c->ctx, host, dflags, n, "flags");
        TC_REQUIRE(n == 0 || memcmp(host, flags, n) == 0, "flags changed");
        tc_dev_free(c->ctx, din);
        tc_dev_free(c->ctx, dflags);
    }
    free(in);
    free(want);
    free(host);
    free(flags);
}

static void test_type(pp_type t)
{
    char name[64];
    snprintf(name, sizeof name, "select_%s", pp_type_name(t));
    tc_rng r = tc_rng_for(name);
    for (size_t s = 0; s < tc_nsizes; s++) run_size(&r, t, tc_sizes[s], (int)s, 0);
    run_size(&r, t, tc_big_sizes[t % tc_nbig], (int)t, 1);
}

TC_TYPE_TESTS(test_type)

int main(void)
{
    tc_init("test_select");
    const struct CMUnitTest tests[] = {
        TC_TYPE_UNIT_TESTS,
    };
    int rc = cmocka_run_group_tests_name("select", tests, NULL, NULL);
    tc_finish();
    return rc;
}
