/* The keys of test_search and test_merge (search_data.h). */
#include "search_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sd_mode_names[SD_MODES] = {"any", "few", "specials"};
const char *const sd_order_names[3] = {"ascending", "descending", "descending_nan_last"};
const char *const sd_layout_names[SD_LAYOUTS] = {"interleaved", "second-first", "first-first"};

/* One key of mode at buf[i]. */
static void gen_one(tc_rng *r, pp_type t, int mode, void *buf, size_t i)
{
    const uint64_t pick = tc_below(r, 16);
    const int fl = tc_is_float(t);
    if (mode == 0) {
        if (!fl)
            tc_set_int(t, buf, i, tc_next(r));
        else if (pick == 0)
            tc_set_nan(r, t, buf, i);
        else
            tc_set_any_float(r, t, buf, i);
    } else if (mode == 1) {
        const int64_t v = tc_between(r, -4, 4);
        if (fl && pick < 2)
            tc_set_nan(r, t, buf, i);
        else if (fl)
            tc_set_f(t, buf, i, v == 0 && (pick & 1) ? -0.0 : (double)v * 0.5);
        else
            tc_set_int(t, buf, i, (uint64_t)(tc_is_signed(t) ? v : v + 4));
    } else if (fl) {
        static const double sp[5] = {INFINITY, -INFINITY, 0.0, -0.0, 1.5};
        if (pick < 5)
            tc_set_nan(r, t, buf, i);
        else if (pick < 10)
            tc_set_f(t, buf, i, sp[pick - 5]);
        else
            tc_set_any_float(r, t, buf, i);
    } else {
        const uint64_t v = pick < 5 ? (uint64_t)tc_type_min(t) : pick < 10 ? tc_type_max(t) : tc_next(r);
        tc_set_int(t, buf, i, v);
    }
}

void sd_gen(tc_rng *r, pp_type t, size_t n, int mode, void *buf)
{
    for (size_t i = 0; i < n; i++) gen_one(r, t, mode, buf, i);
    tc_not_all_zero(t, buf, n);
}

void sd_split(tc_rng *r, pp_type t, int mode, pp_order o, int layout, void *first, size_t n1, void *second, size_t n2)
{
    const size_t sz = tc_size(t), n = n1 + n2;
    unsigned char *all = (unsigned char *)malloc(n * sz + 1);
    sd_gen(r, t, n, mode, all);
    ref_sort_pairs(t, all, NULL, 0, n, o);
    unsigned char *f = (unsigned char *)first, *s = (unsigned char *)second;
    size_t i1 = 0, i2 = 0;
    for (size_t k = 0; k < n; k++) {
        int to_first;
        if (layout == 1)
            to_first = k >= n2;
        else if (layout == 2)
            to_first = k < n1;
        else /* n1 - i1 of the n - k keys left go to first */
            to_first = tc_below(r, n - k) < n1 - i1;
        if (to_first)
            memcpy(f + sz * i1++, all + sz * k, sz);
        else
            memcpy(s + sz * i2++, all + sz * k, sz);
    }
    free(all);
}

int sd_status_ok(const tc_config *c, pp_status st, const char *fn)
{
    if (st == PP_ERROR_UNSUPPORTED && c->backend != PP_BACKEND_CPU &&
        strstr(pp_last_error(c->ctx), "not available on the")) {
        char key[96];
        snprintf(key, sizeof key, "%s %s", fn, pp_backend_name(c->backend));
        tc_skip(key, "%s: not available on %s yet", fn, pp_backend_name(c->backend));
        return 0;
    }
    return tc_status_ok(c, st, fn);
}

void sd_expect_unchanged(pp_context *ctx, void *dev, const void *host, size_t bytes, const char *what)
{
    if (bytes) {
        unsigned char *h = (unsigned char *)tc_halloc(bytes);
        TC_DOWNLOAD(ctx, h, dev, bytes, what);
        TC_REQUIRE(!memcmp(h, host, bytes), "%s changed", what);
        free(h);
    }
    if (dev) tc_dev_free(ctx, dev);
}
