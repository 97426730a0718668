/* The API fuzzer: one call of each primitive, and of the rest of the API,
 * from a decoded input: the buffers it gets, the status it must return,
 * and its result against the reference. */
#include "fuzz_api.h"

#include <math.h>
#include <string.h>

/* ---- reduce and scan ----------------------------------------------------------------------------------------------- */
void fuzz_reduce_scan(const input *in, int scan)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    pp_op op = (in->param % 8) == 7 ? (in->param & 0x80 ? (pp_op)-1 : (pp_op)7) : (pp_op)(in->param % 8);
    pp_scan_kind kind = (pp_scan_kind)((in->param >> 3) % 3);
    int op_ok = (unsigned)op < PP_OP_COUNT;
    int raw_float = 0;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    if (!set_algo(ctx, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE, in->seq)) return;

    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (!op_ok) e.invalid = 1;
    if (scan && (unsigned)kind > PP_EXCLUSIVE) e.invalid = 1;
    if (in->sz && op_ok && is_float(in->type) && op >= PP_AND) e.unsupported = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    if (in->sz) {
        gen_elems(in, in->type, n, 0, host);
        if (is_float(in->type) && (op == PP_SUM || op == PP_PROD)) {
            if (in->dm == 7) raw_float = 1; /* any order may round differently */
            else make_exact(in, in->type, op, n, host);
        }
    } else {
        for (size_t i = 0; i < bytes; i++) host[i] = pool_byte(in, i);
    }

    char *pin, *pout;
    int inplace_ok = 0;
    size_t outbytes = scan ? bytes : sz;
    if (in->pm == 6 || (scan && in->pm == 7)) {
        /* one buffer: out at an offset from in (reduce: out inside in is
         * allowed; scan: only in == out is) */
        size_t total = 2 * bytes + 2 * sz + 64;
        char *big = buf_new(&B, in, total);
        pin = big + pick_offset(in, total - bytes, sz, 1);
        if (in->pm == 7) {
            pout = pin;
        } else {
            pout = big + pick_offset(in, total - outbytes, sz, 2);
            if ((in->ovl & 0x4000) && bytes >= outbytes) /* inside in */
                pout = pin + pick_offset(in, bytes - outbytes, sz, 3);
            if (scan) pout = misalign_if_overlapping(in, pout, pin, outbytes, bytes, big, big + total);
        }
        buf_set(&B, pin, host, bytes);
        inplace_ok = pin == pout;
    } else {
        pin = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pin) buf_set(&B, pin, host, bytes);
        pout = in->pm == 5 ? NULL : buf_new(&B, in, scan ? bytes : sz);
    }
    if (n && !pin) e.invalid = 1;
    if (scan ? (n && !pout) : !pout) e.invalid = 1;
    if (scan && n && !inplace_ok && overlap(pin, bytes, pout, bytes)) e.invalid = 1;

    may_write(&B, pout, outbytes);
    pp_status st = scan ? pp_scan(ctx, in->type, op, kind, pin, pout, n) : pp_reduce(ctx, in->type, op, pin, n, pout);
    int ok = judge(in, ctx, &e, st, scan ? "pp_scan" : "pp_reduce");
    buf_check(&B, ok, scan ? "pp_scan" : "pp_reduce");
    if (ok) {
        unsigned char *want = (unsigned char *)xmalloc(outbytes + 8), *got = (unsigned char *)xmalloc(outbytes + 8);
        if (scan) ref_scan(in->type, op, kind, host, want, n);
        else ref_reduce(in->type, op, host, n, want);
        buf_read(&B, got, pout, outbytes);
        if (!raw_float) {
            expect_equal(in->type, got, want, scan ? n : 1, scan ? "pp_scan" : "pp_reduce");
        } else {
            /* no exact answer, but the cpu result does not depend on the
             * thread count: the other context must give the same bits */
            pp_context *other = g_ctx[!in->ctx_i];
            if (set_algo(other, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE, in->seq)) {
                void *o1 = NULL, *o2 = NULL;
                CHECK(pp_malloc(other, &o1, bytes + 8) == PP_SUCCESS, "pp_malloc");
                CHECK(pp_malloc(other, &o2, outbytes + 8) == PP_SUCCESS, "pp_malloc");
                if (bytes) CHECK(pp_upload(other, o1, host, bytes) == PP_SUCCESS, "pp_upload");
                st = scan ? pp_scan(other, in->type, op, kind, o1, o2, n) : pp_reduce(other, in->type, op, o1, n, o2);
                if (st == PP_SUCCESS) {
                    CHECK(pp_download(other, want, o2, outbytes) == PP_SUCCESS, "pp_download");
                    expect_equal(in->type, got, want, scan ? n : 1, "float result differs between 1 and 3 threads");
                }
                pp_free(other, o1);
                pp_free(other, o2);
            }
        }
        free(want);
        free(got);
    }
    free(host);
    buf_free(&B);
}

/* ---- histograms ---------------------------------------------------------------------------------------------------------- */
static int host_less(pp_type t, const void *a, const void *b)
{
    switch (t) {
#define L(E, T)                            \
    case E: {                              \
        T x, y;                            \
        memcpy(&x, a, sizeof x);           \
        memcpy(&y, b, sizeof y);           \
        return x < y;                      \
    }
        L(PP_I8, int8_t) L(PP_U8, uint8_t) L(PP_I16, int16_t) L(PP_U16, uint16_t) L(PP_I32, int32_t)
        L(PP_U32, uint32_t) L(PP_I64, int64_t) L(PP_U64, uint64_t) L(PP_F32, float) L(PP_F64, double)
#undef L
    default: break; /* the half types: the library refuses their histograms */
    }
    return 0;
}

static int host_finite(pp_type t, const void *a)
{
    if (t == PP_F32) {
        float x;
        memcpy(&x, a, 4);
        return isfinite(x);
    }
    if (t == PP_F64) {
        double x;
        memcpy(&x, a, 8);
        return isfinite(x);
    }
    return 1;
}

void fuzz_histogram(const input *in, int range)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_HISTOGRAM, in->seq)) return;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    size_t nbins = in->nbins, nb_alloc = nbins < MAX_BINS ? nbins : MAX_BINS;
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (nbins == 0 || nbins > MAX_BINS) e.invalid = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    if (in->sz) gen_elems(in, in->type, n, 0, host);
    else memset(host, 1, bytes);

    char *ps, *pc;
    if (in->pm == 6) {
        char *big = buf_new(&B, in, bytes + nb_alloc * 8 + 64);
        int counts_first = (in->ovl >> 12) & 1;
        ps = counts_first ? big + pick_offset(in, nb_alloc * 8 + 64, 8, 1) : big;
        pc = counts_first ? big : big + pick_offset(in, bytes + 64, 8, 2);
        buf_set(&B, ps, host, bytes);
    } else {
        ps = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (ps) buf_set(&B, ps, host, bytes);
        pc = in->pm == 5 ? NULL : buf_new(&B, in, nb_alloc * 8);
    }
    if (n && !ps) e.invalid = 1;
    if (!pc) e.invalid = 1;
    if (overlap(pc, nb_alloc * 8, ps, bytes)) e.invalid = 1;

    unsigned char lo[8], hi[8];
    unsigned char *edges = NULL;
    const void *plo = lo, *phi = hi, *pe = NULL;
    if (!range) {
        hist_bounds(in, lo, hi);
        if (in->pm == 7) {
            if (in->ovl & 1) plo = NULL;
            else phi = NULL;
        }
        if (!plo || !phi) e.invalid = 1;
        else if (in->sz && (!host_finite(in->type, lo) || !host_finite(in->type, hi) || !host_less(in->type, lo, hi)))
            e.invalid = 1;
    } else {
        edges = (unsigned char *)xmalloc((nb_alloc + 1) * sz);
        if (in->sz) make_edges(in, nb_alloc, edges);
        pe = in->pm == 7 ? NULL : edges;
        if (!pe) e.invalid = 1;
        else if (in->sz && !e.invalid)
            for (size_t i = 0; i < nbins; i++)
                if (!host_less(in->type, edges + i * sz, edges + (i + 1) * sz)) {
                    e.invalid = 1;
                    break;
                }
    }
    may_write(&B, pc, nbins * 8);
    pp_status st = range ? pp_histogram_range(ctx, in->type, ps, n, pe, nbins, (uint64_t *)pc)
                         : pp_histogram_even(ctx, in->type, ps, n, plo, phi, nbins, (uint64_t *)pc);
    const char *fn = range ? "pp_histogram_range" : "pp_histogram_even";
    int ok = judge(in, ctx, &e, st, fn);
    buf_check(&B, ok, fn);
    if (ok) {
        uint64_t *want = (uint64_t *)xmalloc(nbins * 8), *got = (uint64_t *)xmalloc(nbins * 8);
        if (range) ref_histogram_range(in->type, host, n, edges, nbins, want);
        else ref_histogram_even(in->type, host, n, lo, hi, nbins, want);
        buf_read(&B, got, pc, nbins * 8);
        for (size_t b = 0; b < nbins; b++)
            CHECK(got[b] == want[b], "%s (%s, n=%zu, nbins=%zu): bin %zu: got %llu, expected %llu", fn,
                  pp_type_name(in->type), n, nbins, b, (unsigned long long)got[b], (unsigned long long)want[b]);
        free(want);
        free(got);
    }
    free(edges);
    free(host);
    buf_free(&B);
}

/* ---- compaction -------------------------------------------------------------------------------------------------------------- */

void fuzz_select(const input *in, int which)
{
    static const char *const names[] = {"pp_select_flagged", "pp_select_if", "pp_unique", "pp_partition_if"};
    const char *fn = names[which];
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_SELECT, in->seq)) return;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    pp_cmp cmp = (in->param % 7) == 6 ? (in->param & 0x80 ? (pp_cmp)-1 : (pp_cmp)6) : (pp_cmp)(in->param % 7);
    int uses_cmp = which == SEL_IF || which == SEL_PARTITION;
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (uses_cmp && (unsigned)cmp > PP_NE) e.invalid = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    uint8_t *hflags = (uint8_t *)xmalloc(n + 1);
    if (in->sz) gen_elems(in, in->type, n, 0, host);
    else memset(host, 2, bytes);
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, i * 3 + 1);
        hflags[i] = in->dm == 4 ? (uint8_t)(b & 1) : in->dm == 5 ? (uint8_t)(b | 1) : b;
    }
    unsigned char value[8];
    memcpy(value, in->s1, 8);
    if (in->sz && !(in->dm & 1) && n) memcpy(value, host + (in->ovl % n) * sz, sz); /* a value of the data */

    char *pin, *pout, *pflags = NULL, *pcount;
    const void *pvalue = value;
    if (in->pm == 6) {
        /* out overlapping in, flags or count */
        char *big = buf_new(&B, in, 3 * bytes + n + 64);
        pin = big;
        pflags = big + bytes + 8;
        pout = big + 2 * bytes + n + 16;
        pcount = big + 3 * bytes + n + 24;
        pcount -= (size_t)(pcount - big) % 8;
        pout -= (size_t)(pout - big) % 8;
        switch (in->ovl % 4) {
        case 0: pout = pin + pick_offset(in, bytes, sz, 1); break;
        case 1: pout = big + pick_offset(in, bytes + 8, sz, 2); break; /* towards flags */
        case 2: pcount = pout + pick_offset(in, bytes > 8 ? bytes - 8 : 0, 8, 3); break;
        default: pin = pout + pick_offset(in, bytes, sz, 4); break; /* in after out */
        }
        if (pin + bytes > big + B.bytes[0]) pin = big;
        pout = misalign_if_overlapping(in, pout, pin, bytes, bytes, big, big + B.bytes[0]);
        buf_set(&B, pin, host, bytes);
        if (which == SEL_FLAGGED && !overlap(pflags, n, pin, bytes)) buf_set(&B, pflags, hflags, n);
        /* count overlapping in or flags is not specified: make it not */
        if (overlap(pcount, 8, pin, bytes) || overlap(pcount, 8, pflags, n)) pcount = buf_new(&B, in, 8);
        if (which != SEL_FLAGGED) pflags = NULL;
        else if (overlap(pflags, n, pin, bytes)) pflags = buf_new(&B, in, n), buf_set(&B, pflags, hflags, n);
    } else {
        pin = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pin) buf_set(&B, pin, host, bytes);
        if (which == SEL_FLAGGED) {
            pflags = buf_new(&B, in, n);
            buf_set(&B, pflags, hflags, n);
        }
        pout = in->pm == 5 && !(in->ovl & 1) ? NULL : buf_new(&B, in, bytes);
        pcount = in->pm == 5 && (in->ovl & 1) ? NULL : buf_new(&B, in, 8);
        if (in->pm == 7) {
            if (which == SEL_FLAGGED) pflags = NULL;
            else if (uses_cmp) pvalue = NULL;
            else pcount = NULL;
        }
    }
    if (n && (!pin || !pout || (which == SEL_FLAGGED && !pflags))) e.invalid = 1;
    if (!pcount) e.invalid = 1;
    if (uses_cmp && !pvalue) e.invalid = 1;
    if (overlap(pout, bytes, pin, bytes) || overlap(pout, bytes, pflags, which == SEL_FLAGGED ? n : 0) ||
        overlap(pcount, 8, pout, bytes))
        e.invalid = 1;

    may_write(&B, pout, bytes);
    may_write(&B, pcount, 8);
    pp_status st = PP_SUCCESS;
    switch (which) {
    case SEL_FLAGGED: st = pp_select_flagged(ctx, in->type, pin, (const uint8_t *)pflags, n, pout, (uint64_t *)pcount); break;
    case SEL_IF: st = pp_select_if(ctx, in->type, pin, n, cmp, pvalue, pout, (uint64_t *)pcount); break;
    case SEL_UNIQUE: st = pp_unique(ctx, in->type, pin, n, pout, (uint64_t *)pcount); break;
    default: st = pp_partition_if(ctx, in->type, pin, n, cmp, pvalue, pout, (uint64_t *)pcount); break;
    }
    int ok = judge(in, ctx, &e, st, fn);
    buf_check(&B, ok, fn);
    if (ok) {
        unsigned char *want = (unsigned char *)xmalloc(bytes + 8), *got = (unsigned char *)xmalloc(bytes + 8);
        uint64_t k = 0, gk = 0;
        switch (which) {
        case SEL_FLAGGED: k = ref_select_flagged(in->type, host, hflags, n, want); break;
        case SEL_IF: k = ref_select_if(in->type, host, n, cmp, value, want); break;
        case SEL_UNIQUE: k = ref_unique(in->type, host, n, want); break;
        default: k = ref_partition_if(in->type, host, n, cmp, value, want); break;
        }
        buf_read(&B, &gk, pcount, 8);
        CHECK(gk == k, "%s (%s, n=%zu): count %llu, expected %llu", fn, pp_type_name(in->type), n,
              (unsigned long long)gk, (unsigned long long)k);
        buf_read(&B, got, pout, bytes);
        expect_bits(in->type, got, want, which == SEL_PARTITION ? n : (size_t)k, fn);
        free(want);
        free(got);
    }
    free(host);
    free(hflags);
    buf_free(&B);
}

/* ---- sort -------------------------------------------------------------------------------------------------------------------- */
/* s2[7] bit 0: the out-of-place form (pp_sort_copy, pp_sort_pairs_copy),
 * whose outputs ((s2[7] >> 1) % 4) are new arrays, the inputs themselves,
 * the other input (an overlap), or NULL. */
void fuzz_sort(const input *in, int pairs)
{
    const int copy = in->s2[7] & 1, outs = (in->s2[7] >> 1) % 4;
    const char *fn = copy ? (pairs ? "pp_sort_pairs_copy" : "pp_sort_copy") : pairs ? "pp_sort_pairs" : "pp_sort";
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_SORT, in->seq)) return;
    static const size_t vsizes[8] = {1, 2, 4, 8, 0, 3, 16, 8};
    size_t vs = pairs ? vsizes[(in->param >> 2) % 8] : 0;
    pp_order order = (pp_order)(in->param % 4);
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    size_t vbytes = n * (vs ? vs : 1);
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if ((unsigned)order > PP_DESCENDING_NAN_LAST) e.invalid = 1;
    if (pairs && vs != 1 && vs != 2 && vs != 4 && vs != 8) e.invalid = 1;

    unsigned char *keys = (unsigned char *)xmalloc(bytes + 8), *vals = (unsigned char *)xmalloc(vbytes + 8);
    if (in->sz) gen_elems(in, in->type, n, 0, keys);
    else memset(keys, 3, bytes);
    /* values: the original indices, little-endian (any bytes for a bad value_size) */
    for (size_t i = 0; i < vbytes; i++)
        vals[i] = (unsigned char)(vs && i % vs < 8 ? (uint64_t)(i / vs) >> (8 * (i % vs)) : i);

    char *pk, *pv = NULL;
    if (pairs && in->pm == 6) {
        char *big = buf_new(&B, in, bytes + vbytes + 64);
        int values_first = (in->ovl >> 12) & 1;
        pk = values_first ? big + pick_offset(in, vbytes + 64, 8, 1) : big;
        pv = values_first ? big : big + pick_offset(in, bytes + 64, 8, 2);
        pv = misalign_if_overlapping(in, pv, pk, vbytes, bytes, big, big + B.bytes[0]);
        if (!overlap(pk, bytes, pv, vbytes)) {
            buf_set(&B, pk, keys, bytes);
            buf_set(&B, pv, vals, vbytes);
        }
    } else {
        pk = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pk) buf_set(&B, pk, keys, bytes);
        if (pairs) {
            pv = in->pm == 5 ? NULL : buf_new(&B, in, vbytes);
            if (pv) buf_set(&B, pv, vals, vbytes);
        }
    }
    if (n && !pk) e.invalid = 1;
    if (pairs && n && !pv) e.invalid = 1;
    if (pairs && vs && overlap(pk, bytes, pv, n * vs)) e.invalid = 1;

    char *ok = pk, *ov = pv; /* where the results go */
    if (copy && outs != 1) {
        ok = outs == 0 ? buf_new(&B, in, bytes) : outs == 2 && pairs ? pv : NULL;
        ov = pairs ? (outs == 0 ? buf_new(&B, in, vbytes) : outs == 2 ? pk : NULL) : NULL;
        if (n && (!ok || (pairs && !ov))) e.invalid = 1;
        /* an output may be its own input, and overlap nothing else */
        if (ok != pk && overlap(ok, bytes, pk, bytes)) e.invalid = 1;
        if (pairs && vs) {
            if (ov != pv && overlap(ov, n * vs, pv, n * vs)) e.invalid = 1;
            if (overlap(ok, bytes, pv, n * vs) || overlap(ov, n * vs, pk, bytes) || overlap(ok, bytes, ov, n * vs))
                e.invalid = 1;
        }
    }

    may_write(&B, ok, bytes);
    if (pairs) may_write(&B, ov, n * vs);
    pp_status st;
    if (copy)
        st = pairs ? pp_sort_pairs_copy(ctx, in->type, pk, pv, ok, ov, vs, n, order)
                   : pp_sort_copy(ctx, in->type, pk, ok, n, order);
    else
        st = pairs ? pp_sort_pairs(ctx, in->type, pk, pv, vs, n, order) : pp_sort(ctx, in->type, pk, n, order);
    int good = judge(in, ctx, &e, st, fn);
    buf_check(&B, good, fn);
    if (good) {
        unsigned char *got = (unsigned char *)xmalloc(bytes + vbytes + 8);
        ref_sort_pairs(in->type, keys, pairs ? vals : NULL, vs, n, order);
        buf_read(&B, got, ok, bytes);
        expect_bits(in->type, got, keys, n, fn);
        if (pairs) {
            buf_read(&B, got, ov, n * vs);
            for (size_t i = 0; i < n * vs; i++)
                CHECK(got[i] == vals[i], "%s (%s, n=%zu, value_size=%zu): values differ at element %zu", fn,
                      pp_type_name(in->type), n, vs, i / vs);
        }
        free(got);
    }
    free(keys);
    free(vals);
    buf_free(&B);
}

/* ---- the rest of the API ------------------------------------------------------------------------------------------------------- */
void fuzz_misc(const input *in)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    int a = (int8_t)in->s1[0], b = (int8_t)in->s1[1];
    CHECK(pp_status_string((pp_status)a) != NULL, "pp_status_string");
    CHECK(pp_type_name((pp_type)a) != NULL && pp_op_name((pp_op)a) != NULL, "names");
    CHECK(pp_backend_name((pp_backend)a) != NULL && pp_primitive_name((pp_primitive)a) != NULL &&
              pp_algorithm_name((pp_algorithm)a) != NULL,
          "names");
    size_t ts = pp_type_size((pp_type)a);
    CHECK((a >= 0 && a < PP_TYPE_COUNT) ? ts > 0 : ts == 0, "pp_type_size(%d) = %zu", a, ts);
    pp_status bs = pp_backend_status((pp_backend)a);
    CHECK((a >= 0 && a <= PP_BACKEND_OPENCL) ? bs != PP_ERROR_INVALID_ARGUMENT : bs == PP_ERROR_INVALID_ARGUMENT,
          "pp_backend_status(%d)", a);

    /* algorithm choice */
    pp_status st = pp_set_algorithm(ctx, (pp_primitive)a, (pp_algorithm)b);
    if (a < 0 || a >= PP_PRIM_COUNT || b < 0 || b >= PP_ALGO_COUNT) {
        CHECK(st == PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm(%d, %d) returned %s", a, b, pp_status_string(st));
        CHECK(*pp_last_error(ctx), "pp_set_algorithm: no message");
    } else {
        CHECK(st == PP_SUCCESS || st == PP_ERROR_UNSUPPORTED, "pp_set_algorithm(%d, %d)", a, b);
        if (st == PP_SUCCESS) CHECK(pp_get_algorithm(ctx, (pp_primitive)a) == (pp_algorithm)b, "pp_get_algorithm");
        CHECK(pp_set_algorithm(ctx, (pp_primitive)a, PP_ALGO_AUTO) == PP_SUCCESS, "reset");
    }

    /* memory: copies with overlap */
    size_t total = 1 + in->n;
    void *p = (void *)&p;
    CHECK(pp_malloc(ctx, &p, 0) == PP_SUCCESS && p == NULL, "pp_malloc(0)");
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    char *m = buf_new(&B, in, total);
    size_t len = in->ovl % total, d = in->s2[0] % total, s = in->s2[1] % total;
    if (d + len > total) len = total - d;
    if (s + len > total) len = total - s;
    int bad = len && d < s + len && s < d + len;
    may_write(&B, m + d, len);
    st = pp_copy(ctx, (in->pm == 4 && len) ? NULL : m + d, m + s, len);
    if (in->pm == 4 && len) bad = 1;
    CHECK(bad ? st == PP_ERROR_INVALID_ARGUMENT : st == PP_SUCCESS, "pp_copy(%zu, %zu, %zu) returned %s", d, s, len,
          pp_status_string(st));
    if (st != PP_SUCCESS) CHECK(*pp_last_error(ctx), "pp_copy: no message");
    buf_check(&B, st == PP_SUCCESS, "pp_copy");
    if (st == PP_SUCCESS && len) {
        unsigned char *h = (unsigned char *)xmalloc(len);
        buf_read(&B, h, m + d, len);
        CHECK(memcmp(h, B.snap[0] + s, len) == 0, "pp_copy copied wrongly");
        free(h);
    }
    buf_free(&B);
}
