/* Random numbers (splitmix64, one generator per test from the run's seed)
 * and element helpers: reading, writing and making values of each type
 * (test_common.h). */
#include "test_common.h"

#include <math.h>
#include <string.h>

const pp_type tc_types[TC_NTYPES] = {PP_I8, PP_U8,  PP_I16, PP_U16, PP_I32,
                                         PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

/* ---- random numbers (splitmix64) ------------------------------------------------------- */
uint64_t tc_next(tc_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tc_below(tc_rng *r, uint64_t bound)
{
    return (uint64_t)(((unsigned __int128)tc_next(r) * bound) >> 64);
}

int64_t tc_between(tc_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0 means the full 64-bit range */
    uint64_t v = span ? tc_below(r, span) : tc_next(r);
    return (int64_t)((uint64_t)lo + v);
}

void tc_fill_random(tc_rng *r, void *buf, size_t bytes)
{
    unsigned char *p = (unsigned char *)buf;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t v = tc_next(r);
        memcpy(p + i, &v, 8);
    }
    if (i < bytes) {
        uint64_t v = tc_next(r);
        memcpy(p + i, &v, bytes - i);
    }
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

tc_rng tc_rng_for(const char *name)
{
    tc_rng r = {tc_seed() ^ hash_name(name)};
    tc_next(&r);
    return r;
}

/* ---- element helpers ---------------------------------------------------------------------------- */
int tc_is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
int tc_is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }
size_t tc_size(pp_type t) { return pp_type_size(t); }

void tc_set_int(pp_type t, void *buf, size_t i, uint64_t v)
{
    /* little-endian: the low bytes of v are the value truncated to the type */
    size_t sz = pp_type_size(t);
    unsigned char b[8];
    for (size_t k = 0; k < 8; k++) b[k] = (unsigned char)(v >> (8 * k));
    memcpy((char *)buf + i * sz, b, sz);
}

void tc_set_f(pp_type t, void *buf, size_t i, double v)
{
    if (t == PP_F32) {
        float f = (float)v;
        memcpy((char *)buf + i * 4, &f, 4);
    } else {
        memcpy((char *)buf + i * 8, &v, 8);
    }
}

double tc_get_f(pp_type t, const void *buf, size_t i)
{
    if (t == PP_F32) {
        float f;
        memcpy(&f, (const char *)buf + i * 4, 4);
        return f;
    }
    double d;
    memcpy(&d, (const char *)buf + i * 8, 8);
    return d;
}

uint64_t tc_get_bits(pp_type t, const void *buf, size_t i)
{
    size_t sz = pp_type_size(t);
    const unsigned char *p = (const unsigned char *)buf + i * sz;
    uint64_t v = 0;
    for (size_t k = 0; k < sz; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

int64_t tc_get_i(pp_type t, const void *buf, size_t i)
{
    uint64_t v = tc_get_bits(t, buf, i);
    size_t bits = 8 * pp_type_size(t);
    if (tc_is_signed(t) && bits < 64 && (v >> (bits - 1)) & 1) v |= ~(uint64_t)0 << bits;
    return (int64_t)v;
}

int64_t tc_type_min(pp_type t)
{
    switch (t) {
    case PP_I8: return INT8_MIN;
    case PP_I16: return INT16_MIN;
    case PP_I32: return INT32_MIN;
    case PP_I64: return INT64_MIN;
    default: return 0;
    }
}

uint64_t tc_type_max(pp_type t)
{
    switch (t) {
    case PP_I8: return INT8_MAX;
    case PP_U8: return UINT8_MAX;
    case PP_I16: return INT16_MAX;
    case PP_U16: return UINT16_MAX;
    case PP_I32: return INT32_MAX;
    case PP_U32: return UINT32_MAX;
    case PP_I64: return INT64_MAX;
    case PP_U64: return UINT64_MAX;
    default: return 0;
    }
}

void tc_set_nan(tc_rng *r, pp_type t, void *buf, size_t i)
{
    uint64_t x = tc_next(r);
    if (t == PP_F32) {
        uint32_t b = 0x7f800000u | (uint32_t)(x & 0x807fffffu);
        if ((b & 0x007fffffu) == 0) b |= 0x00400000u;
        memcpy((char *)buf + i * 4, &b, 4);
    } else {
        uint64_t b = 0x7ff0000000000000ull | (x & 0x800fffffffffffffull);
        if ((b & 0x000fffffffffffffull) == 0) b |= 0x0008000000000000ull;
        memcpy((char *)buf + i * 8, &b, 8);
    }
}

void tc_set_any_float(tc_rng *r, pp_type t, void *buf, size_t i)
{
    uint64_t x = tc_next(r);
    switch (x & 15) {
    case 0: tc_set_f(t, buf, i, 0.0); return;
    case 1: tc_set_f(t, buf, i, -0.0); return;
    case 2: tc_set_f(t, buf, i, (x & 16) ? INFINITY : -INFINITY); return;
    case 3: /* subnormal */
        if (t == PP_F32) {
            uint32_t b = (uint32_t)(x >> 32) & 0x807fffffu;
            memcpy((char *)buf + i * 4, &b, 4);
        } else {
            uint64_t b = (x >> 4) & 0x800fffffffffffffull;
            memcpy((char *)buf + i * 8, &b, 8);
        }
        return;
    case 4: case 5: case 6: /* small values, many duplicates */
        tc_set_f(t, buf, i, (double)((int)((x >> 8) % 17) - 8) * 0.5);
        return;
    default: /* random bits that are not NaN */
        for (;;) {
            if (t == PP_F32) {
                uint32_t b = (uint32_t)(x >> 16);
                float f;
                memcpy(&f, &b, 4);
                if (!isnan(f)) {
                    memcpy((char *)buf + i * 4, &b, 4);
                    return;
                }
            } else {
                double d;
                memcpy(&d, &x, 8);
                if (!isnan(d)) {
                    memcpy((char *)buf + i * 8, &x, 8);
                    return;
                }
            }
            x = tc_next(r);
        }
    }
}

void tc_not_all_zero(pp_type t, void *buf, size_t n)
{
    size_t bytes = n * pp_type_size(t);
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < bytes; i++)
        if (p[i]) return;
    if (n == 0) return;
    if (tc_is_float(t)) tc_set_f(t, buf, 0, 1.0);
    else tc_set_int(t, buf, 0, 1);
}

/* Data whose results do not depend on the order of evaluation: integers
 * wrap exactly (products of mostly odd factors, ANDs of mostly all-ones
 * words, so they stay interesting); float sums of quarter integers that
 * stay exact, products of +-1 and a few factors of 2 or 1/2, MIN/MAX of
 * anything. nans: a few NaNs (floats). */
void tc_gen_op_data(tc_rng *r, pp_type t, pp_op op, size_t n, int nans, void *buf)
{
    const size_t bits = 8 * tc_size(t);
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = tc_next(r);
        if (!tc_is_float(t)) {
            uint64_t v = op == PP_PROD ? (tc_below(r, 16) ? x | 1 : x)
                         : op == PP_AND ? (tc_below(r, 8) ? ~(uint64_t)0 : ~((uint64_t)1 << (x % bits)))
                         : op == PP_OR  ? (uint64_t)1 << (x % bits)
                                        : x;
            tc_set_int(t, buf, i, v);
        } else if (op == PP_SUM) {
            int64_t m = (int64_t)(((size_t)1 << 23) / (n + 1));
            m = m > 16 ? 16 : m < 1 ? 1 : m;
            int64_t k = tc_between(r, -m, m);
            tc_set_f(t, buf, i, k == 0 && (x & 1) ? -0.0 : (double)k * 0.25);
        } else if (op == PP_PROD) {
            double v = (x & 1) ? -1.0 : 1.0;
            if (tc_below(r, 256) == 0) v *= (x & 2) ? 2.0 : 0.5;
            tc_set_f(t, buf, i, v);
        } else {
            tc_set_any_float(r, t, buf, i);
        }
    }
    if (nans && n && tc_is_float(t))
        for (int j = 0; j < 3; j++) tc_set_nan(r, t, buf, (size_t)tc_below(r, n));
    tc_not_all_zero(t, buf, n);
}

/* A fast generator: one splitmix64 step per 8 bytes, in blocks of 1 MiB
 * with a generator each (seeded from start and the block's index), filled
 * in parallel; the bytes depend only on start, so they can be made again. */
void tc_fill_bytes(uint64_t start, unsigned char *p, size_t n)
{
    const size_t block = (size_t)1 << 20;
    const long nblocks = (long)((n + block - 1) / block);
#pragma omp parallel for schedule(static)
    for (long b = 0; b < nblocks; b++) {
        tc_rng r = {start ^ ((uint64_t)b * 0xd1342543de82ef95ull)};
        size_t lo = (size_t)b * block, hi = lo + block < n ? lo + block : n, i = lo;
        for (; i + 8 <= hi; i += 8) {
            uint64_t v = tc_next(&r);
            memcpy(p + i, &v, 8);
        }
        for (; i < hi; i++) p[i] = (unsigned char)tc_next(&r);
    }
}
