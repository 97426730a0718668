/* pp bench: input data (see bench_data.h). */
#include "bench_data.h"

#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

/* splitmix64: small, fast, and good enough for benchmark data. */
typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rnd(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int type_is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
static int type_is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }
static unsigned type_bits(pp_type t) { return (unsigned)(8 * pp_type_size(t)); }

/* Stores the low bytes of x as an unsigned integer of size bytes. */
static void put_uint(size_t size, void *dst, uint64_t x)
{
    switch (size) {
    case 1: { uint8_t v = (uint8_t)x; memcpy(dst, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)x; memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)x; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &x, 8); break;
    }
}

/* Stores the integer whose offset from the type's minimum is off (taken
 * modulo 2^bits): offset 0 is the smallest value, 2^bits - 1 the largest. */
static void put_offset(pp_type t, void *dst, uint64_t off)
{
    unsigned b = type_bits(t);
    if (type_is_signed(t)) off ^= (uint64_t)1 << (b - 1);
    put_uint(b / 8, dst, off);
}

static void put_float(pp_type t, void *dst, double x)
{
    if (t == PP_F32) {
        float f = (float)x;
        memcpy(dst, &f, sizeof f);
    } else {
        memcpy(dst, &x, sizeof x);
    }
}

/* The value at fraction num/den of the type's range (ints: of the offset
 * range [0, 2^bits - 1]; floats: of [-1, 1]). */
static void put_fraction(pp_type t, void *dst, uint64_t num, uint64_t den)
{
    if (type_is_float(t)) {
        put_float(t, dst, -1.0 + 2.0 * (double)num / (double)den);
        return;
    }
    unsigned b = type_bits(t);
    uint64_t off;
    if (b == 64) off = num == den ? UINT64_MAX : num * (UINT64_MAX / den);
    else off = num * (((uint64_t)1 << b) - 1) / den;
    put_offset(t, dst, off);
}

/* Stores the non-negative integer x (below the type's maximum) or, for
 * floats, (double)x. */
static void put_small(pp_type t, void *dst, uint64_t x)
{
    if (type_is_float(t)) put_float(t, dst, (double)x);
    else put_uint(pp_type_size(t), dst, x);
}

/* Largest B for which 0 .. B are all exact values of the type. */
static uint64_t small_max(pp_type t)
{
    if (t == PP_F32) return (uint64_t)1 << 24;
    if (t == PP_F64) return (uint64_t)1 << 53;
    unsigned b = type_bits(t) - (type_is_signed(t) ? 1 : 0);
    return b >= 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

static void fill_uniform(rng *r, pp_type t, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (!type_is_float(t)) {
        size_t bytes = n * esz, i = 0;
        for (; i + 8 <= bytes; i += 8) {
            uint64_t x = rnd(r);
            memcpy(p + i, &x, 8);
        }
        if (i < bytes) {
            uint64_t x = rnd(r);
            memcpy(p + i, &x, bytes - i);
        }
        return;
    }
    if (t == PP_F32) {
        float *f = (float *)buf;
        for (size_t i = 0; i < n; i++) f[i] = (float)(rnd(r) >> 40) * 0x1p-23f - 1.0f;
    } else {
        double *d = (double *)buf;
        for (size_t i = 0; i < n; i++) d[i] = (double)(rnd(r) >> 11) * 0x1p-52 - 1.0;
    }
}

/* Float input for sum: integers in [-K, K] with n*K <= 2^(mantissa bits),
 * so that every partial sum, in any order, is exact and the check can be
 * bit-exact. (Beyond n = 2^24 f32 values are -1, 0, 1: a random walk whose
 * partial sums stay far below 2^24.) Prod: +-1. */
static void fill_exact(rng *r, pp_type t, pp_op op, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (op == PP_PROD) {
        for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (rnd(r) & 1) ? 1.0 : -1.0);
        return;
    }
    uint64_t full = (uint64_t)1 << (t == PP_F32 ? 24 : 53);
    uint64_t k = full / n;
    if (k < 1) k = 1;
    if (k > ((uint64_t)1 << 20)) k = (uint64_t)1 << 20;
    for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (double)(int64_t)(rnd(r) % (2 * k + 1)) - (double)k);
}

/* unique: each element repeats its predecessor with probability 1/2. */
static void fill_runs(rng *r, bench_case *c)
{
    fill_uniform(r, c->type, c->h_in, c->n);
    char *p = (char *)c->h_in;
    uint64_t bitsrc = 0;
    for (size_t i = 1; i < c->n; i++) {
        if (i % 64 == 1) bitsrc = rnd(r);
        if (bitsrc & 1) memcpy(p + i * c->esz, p + (i - 1) * c->esz, c->esz);
        bitsrc >>= 1;
    }
}

static void fill_histogram(rng *r, bench_case *c)
{
    if (c->data == D_INC) { /* sample i = i mod B over [0, B): bin i mod B */
        for (size_t i = 0, k = 0; i < c->n; i++, k = k + 1 == c->nbins ? 0 : k + 1)
            put_small(c->type, (char *)c->h_in + i * c->esz, k);
    } else if (c->data == D_CONST) { /* the midpoint of the rand range, every sample */
        put_fraction(c->type, c->h_in, 1, 2);
        for (size_t i = 1; i < c->n; i++) memcpy((char *)c->h_in + i * c->esz, c->h_in, c->esz);
    } else {
        fill_uniform(r, c->type, c->h_in, c->n);
    }
}

/* h_in. */
static void fill_input(rng *r, bench_case *c)
{
    switch (c->v) {
    case V_REDUCE:
    case V_SCAN_INCL:
    case V_SCAN_EXCL:
        if (type_is_float(c->type) && (c->op == PP_SUM || c->op == PP_PROD)) fill_exact(r, c->type, c->op, c->h_in, c->n);
        else fill_uniform(r, c->type, c->h_in, c->n);
        break;
    case V_UNIQUE: fill_runs(r, c); break;
    case V_HIST_EVEN:
    case V_HIST_RANGE: fill_histogram(r, c); break;
    default: fill_uniform(r, c->type, c->h_in, c->n); break;
    }
}

/* The other arguments: histogram bounds or edges, the select value, the
 * flags, the sort values. */
static const char *fill_arguments(rng *r, bench_case *c)
{
    pp_type t = c->type;
    size_t n = c->n;
    if (c->v == V_HIST_EVEN && c->data == D_INC) {
        put_small(t, c->lower, 0);
        put_small(t, c->upper, c->nbins);
    } else if (c->v == V_HIST_EVEN) {
        put_fraction(t, c->lower, 0, 1);
        put_fraction(t, c->upper, 1, 1);
    } else if (c->v == V_HIST_RANGE) {
        c->h_edges = xmalloc((c->nbins + 1) * c->esz);
        if (!c->h_edges) return "out of host memory";
        for (size_t i = 0; i <= c->nbins; i++) {
            if (c->data == D_INC) put_small(t, (char *)c->h_edges + i * c->esz, i);
            else put_fraction(t, (char *)c->h_edges + i * c->esz, i, c->nbins);
        }
    } else if (c->v == V_SELECT_IF || c->v == V_PARTITION_IF) {
        put_fraction(t, c->value, 1, 2); /* floats: 0.0 */
    } else if (c->v == V_SELECT_FLAGGED) {
        c->h_flags = (uint8_t *)xmalloc(n);
        if (!c->h_flags) return "out of host memory";
        for (size_t i = 0; i < n; i += 64) {
            uint64_t x = rnd(r);
            for (size_t j = i; j < n && j < i + 64; j++, x >>= 1) c->h_flags[j] = (uint8_t)(x & 1);
        }
    } else if (c->v == V_SORT_PAIRS) {
        c->h_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        c->h_out_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        if (!c->h_vals || !c->h_out_vals) return "out of host memory";
        for (size_t i = 0; i < n; i++) c->h_vals[i] = (uint32_t)i;
    }
    return NULL;
}

const char *case_make_input(bench_case *c, size_t bins)
{
    pp_type t = c->type;
    int hist = c->v == V_HIST_EVEN || c->v == V_HIST_RANGE;
    /* The seed depends on the case, so that each row's input is the same
     * whatever else is benchmarked. */
    /* the sorts sort the same keys */
    variant sv = c->v == V_SORT_PAIRS || c->v == V_SORT_KEYS_COPY ? V_SORT_KEYS : c->v;
    rng r = {c->seed ^ ((uint64_t)sv << 56) ^ ((uint64_t)t << 48) ^ ((uint64_t)c->op << 40) ^ (uint64_t)c->n};
    rnd(&r);

    if (c->v == V_HIST_EVEN) c->nbins = bins ? bins : HIST_EVEN_BINS;
    if (c->v == V_HIST_RANGE) c->nbins = bins ? bins : HIST_RANGE_BINS;
    if (hist && c->data == D_INC && (uint64_t)c->nbins > small_max(t)) {
        c->skipped = 1;
        return "--data inc: the range [0, B) needs B representable in the type";
    }
    if (c->v == V_HIST_RANGE && c->data != D_INC && !type_is_float(t) && type_bits(t) < 64 &&
        (uint64_t)c->nbins > ((uint64_t)1 << type_bits(t)) - 1) {
        c->skipped = 1;
        return "B + 1 evenly spaced edges over the type's range would not be distinct";
    }
    c->h_in = xmalloc(c->n * c->esz);
    c->h_out = xmalloc(case_out_bytes(c));
    if (!c->h_in || !c->h_out) return "out of host memory";
    fill_input(&r, c);
    return fill_arguments(&r, c);
}
