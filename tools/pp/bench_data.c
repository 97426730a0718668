/* pp bench: input generators (see bench_data.h). */
#include "bench_data.h"

#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

uint64_t data_next(data_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

data_rng data_seed(uint64_t seed)
{
    data_rng r = {seed};
    data_next(&r);
    return r;
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

void data_put_fraction(pp_type t, void *dst, uint64_t num, uint64_t den)
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

void data_put_small(pp_type t, void *dst, uint64_t x)
{
    if (type_is_float(t)) put_float(t, dst, (double)x);
    else put_uint(pp_type_size(t), dst, x);
}

uint64_t data_small_max(pp_type t)
{
    if (t == PP_F32) return (uint64_t)1 << 24;
    if (t == PP_F64) return (uint64_t)1 << 53;
    unsigned b = type_bits(t) - (type_is_signed(t) ? 1 : 0);
    return b >= 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

void data_uniform(data_rng *r, pp_type t, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (!type_is_float(t)) {
        size_t bytes = n * esz, i = 0;
        for (; i + 8 <= bytes; i += 8) {
            uint64_t x = data_next(r);
            memcpy(p + i, &x, 8);
        }
        if (i < bytes) {
            uint64_t x = data_next(r);
            memcpy(p + i, &x, bytes - i);
        }
        return;
    }
    if (t == PP_F32) {
        float *f = (float *)buf;
        for (size_t i = 0; i < n; i++) f[i] = (float)(data_next(r) >> 40) * 0x1p-23f - 1.0f;
    } else {
        double *d = (double *)buf;
        for (size_t i = 0; i < n; i++) d[i] = (double)(data_next(r) >> 11) * 0x1p-52 - 1.0;
    }
}

/* Beyond n = 2^24 f32 values are -1, 0, 1: a random walk whose partial
 * sums stay far below 2^24. */
void data_exact(data_rng *r, pp_type t, pp_op op, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (op == PP_PROD) {
        for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (data_next(r) & 1) ? 1.0 : -1.0);
        return;
    }
    uint64_t full = (uint64_t)1 << (t == PP_F32 ? 24 : 53);
    uint64_t k = full / n;
    if (k < 1) k = 1;
    if (k > ((uint64_t)1 << 20)) k = (uint64_t)1 << 20;
    for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (double)(int64_t)(data_next(r) % (2 * k + 1)) - (double)k);
}

void data_for_op(data_rng *r, pp_type t, pp_op op, void *buf, size_t n)
{
    if (type_is_float(t) && (op == PP_SUM || op == PP_PROD)) data_exact(r, t, op, buf, n);
    else data_uniform(r, t, buf, n);
}

void data_runs(data_rng *r, pp_type t, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    uint64_t bitsrc = 0;
    data_uniform(r, t, buf, n);
    for (size_t i = 1; i < n; i++) {
        if (i % 64 == 1) bitsrc = data_next(r);
        if (bitsrc & 1) memcpy(p + i * esz, p + (i - 1) * esz, esz);
        bitsrc >>= 1;
    }
}

void data_cycle(pp_type t, void *buf, size_t n, size_t period)
{
    size_t esz = pp_type_size(t);
    for (size_t i = 0, k = 0; i < n; i++, k = k + 1 == period ? 0 : k + 1) data_put_small(t, (char *)buf + i * esz, k);
}

void data_midpoint(pp_type t, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    if (n == 0) return;
    data_put_fraction(t, buf, 1, 2);
    for (size_t i = 1; i < n; i++) memcpy((char *)buf + i * esz, buf, esz);
}

void data_flags(data_rng *r, uint8_t *flags, size_t n)
{
    for (size_t i = 0; i < n; i += 64) {
        uint64_t x = data_next(r);
        for (size_t j = i; j < n && j < i + 64; j++, x >>= 1) flags[j] = (uint8_t)(x & 1);
    }
}

/* One segment length of the layout. */
static uint64_t segment_length(data_rng *r, data_layout kind, size_t len)
{
    if (kind == LAYOUT_FIXED) return len;
    if (kind == LAYOUT_AVG) return 1 + data_next(r) % (2 * (uint64_t)len - 1);
    unsigned e = (unsigned)(data_next(r) % LAYOUT_POWERLAW_OCTAVES);
    return ((uint64_t)1 << e) + (data_next(r) & (((uint64_t)1 << e) - 1));
}

size_t data_segments(data_rng *r, data_layout kind, size_t len, size_t n, uint64_t *offsets)
{
    size_t nseg = 0;
    uint64_t at = 0;
    if (offsets) offsets[0] = 0;
    while (at < n) {
        uint64_t l = segment_length(r, kind, len);
        at = l < n - at ? at + l : n;
        nseg++;
        if (offsets) offsets[nseg] = at;
    }
    return nseg;
}

void data_run_keys(data_rng *r, pp_type t, void *keys, const uint64_t *offsets, size_t nseg)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)keys;
    unsigned char key[8], prev[8];
    for (size_t s = 0; s < nseg; s++) {
        do data_uniform(r, t, key, 1);
        while (s > 0 && !memcmp(key, prev, esz));
        for (uint64_t i = offsets[s]; i < offsets[s + 1]; i++) memcpy(p + i * esz, key, esz);
        memcpy(prev, key, esz);
    }
}
