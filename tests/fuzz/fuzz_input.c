/* The API fuzzer: decoding an input into one call: its fields (the layout:
 * fuzz_api.c), element data, scalars and edges, and where the pointers go. */
#include "fuzz_api.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- input ------------------------------------------------------------------------------------- */
static uint8_t at_(const uint8_t *d, size_t size, size_t i) { return i < size ? d[i] : 0; }

void decode(const uint8_t *d, size_t size, input *in)
{
    memset(in, 0, sizeof *in);
    in->sel = at_(d, size, 0) % 11;
    in->type_raw = at_(d, size, 1) % 12;
    /* 0..9: the arithmetic types; 10 and 11: values outside pp_type (the
     * half types have their own tests: test_half.c) */
    in->type = in->type_raw == 11 ? (pp_type)-1 : in->type_raw == 10 ? (pp_type)PP_TYPE_COUNT : (pp_type)in->type_raw;
    in->sz = in->type_raw < 10 ? pp_type_size(in->type) : 0;
    in->param = at_(d, size, 2);
    uint8_t f = at_(d, size, 3);
    in->seq = f & 1;
    in->ctx_i = (f >> 1) & 1;
    in->pm = (f >> 2) & 7;
    in->dm = (f >> 5) & 7;
    unsigned v = at_(d, size, 4) | (unsigned)at_(d, size, 5) << 8;
    in->n = (v & 0x8000) ? (v & 0x7fff) : (v & 0xfff);
    unsigned nb = at_(d, size, 6) | (unsigned)at_(d, size, 7) << 8;
    in->nbins = nb == 0xffff ? SIZE_MAX : nb == 0xfffe ? SIZE_MAX / 8 + 1 : nb % MAX_BINS;
    for (int i = 0; i < 8; i++) {
        in->s1[i] = at_(d, size, 8 + (size_t)i);
        in->s2[i] = at_(d, size, 16 + (size_t)i);
    }
    in->ovl = at_(d, size, 24) | (unsigned)at_(d, size, 25) << 8;
    in->pool = size > 26 ? d + 26 : NULL;
    in->npool = size > 26 ? size - 26 : 0;
}

uint8_t pool_byte(const input *in, size_t i) { return in->npool ? in->pool[i % in->npool] : 0; }

/* ---- element data ---------------------------------------------------------------------------------- */
static void put_f(pp_type t, void *buf, size_t i, double v)
{
    if (t == PP_F32) {
        float x = (float)v;
        memcpy((char *)buf + 4 * i, &x, 4);
    } else {
        memcpy((char *)buf + 8 * i, &v, 8);
    }
}

static void put_i(pp_type t, void *buf, size_t i, uint64_t v)
{
    size_t sz = pp_type_size(t);
    for (size_t k = 0; k < sz; k++) ((unsigned char *)buf)[i * sz + k] = (unsigned char)(v >> (8 * k));
}

int is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
static int is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }

static uint64_t type_max(pp_type t)
{
    size_t bits = 8 * pp_type_size(t);
    uint64_t m = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    return is_signed(t) ? m >> 1 : m;
}

static uint64_t type_min(pp_type t) { return is_signed(t) ? ~type_max(t) : 0; }

/* Makes n elements of type t (valid types only) from the data bytes. */
void gen_elems(const input *in, pp_type t, size_t n, size_t off, void *buf)
{
    size_t sz = pp_type_size(t);
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, off + i * sz);
        switch (in->dm) {
        case 3: { /* pseudo-random from the index */
            uint64_t x = (i + 1 + off) * 0x9e3779b97f4a7c15ull;
            x ^= x >> 29;
            x *= (uint64_t)b | 1;
            put_i(t, buf, i, x ^ (x >> 31));
            break;
        }
        case 4: /* small values, duplicates */
            if (is_float(t)) put_f(t, buf, i, b == 0x80 ? -0.0 : ((int)(b % 9) - 4) * 0.5);
            else put_i(t, buf, i, is_signed(t) ? (uint64_t)(int64_t)((int)(b % 7) - 3) : (uint64_t)(b % 7));
            break;
        case 5: /* special values */
            if (is_float(t)) {
                static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0, DBL_MIN, DBL_MAX};
                if (b % 9 == 8) { /* NaN with a payload and sign from the data */
                    uint8_t c = pool_byte(in, off + i * sz + 1);
                    if (t == PP_F32) {
                        uint32_t bits = 0x7f800001u | ((uint32_t)c << 8) | ((uint32_t)(c & 0x80) << 24);
                        memcpy((char *)buf + 4 * i, &bits, 4);
                    } else {
                        uint64_t bits = 0x7ff0000000000001ull | ((uint64_t)c << 20) | ((uint64_t)(c & 0x80) << 56);
                        memcpy((char *)buf + 8 * i, &bits, 8);
                    }
                } else {
                    put_f(t, buf, i, sp[b % 9]);
                }
            } else {
                uint64_t sp[4] = {type_min(t), type_max(t), 0, (uint64_t)-1};
                put_i(t, buf, i, sp[b % 4]);
            }
            break;
        case 6: /* ascending runs */
            if (is_float(t)) put_f(t, buf, i, (double)(i / 3) * 0.5 - (double)(b & 3));
            else put_i(t, buf, i, type_min(t) + i / 3 + (b & 3));
            break;
        default: /* raw bytes */
            for (size_t k = 0; k < sz; k++)
                ((unsigned char *)buf)[i * sz + k] = pool_byte(in, off + i * sz + k);
            break;
        }
    }
}

/* Float SUM and PROD: values whose every evaluation order gives the same
 * bits (quarter integers; +-1 with at most 60 factors of 2 or 1/2; zeros,
 * infinities and NaNs, whose effect does not depend on the order). */
void make_exact(const input *in, pp_type t, pp_op op, size_t n, void *buf)
{
    int scaled = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, i);
        double v;
        if (op == PP_SUM) {
            switch (b) {
            case 0x80: v = INFINITY; break;
            case 0x81: v = -INFINITY; break;
            case 0x82: v = NAN; break;
            case 0x83: v = -0.0; break;
            default: v = (double)(int8_t)b * 0.25; break;
            }
        } else {
            double s = (b & 0x10) ? -1.0 : 1.0;
            switch (b % 16) {
            case 10: v = scaled < 60 ? (scaled++, 2.0) : 1.0; break;
            case 11: v = scaled < 60 ? (scaled++, 0.5) : 1.0; break;
            case 12: v = (b & 0x20) ? 0.0 : 1.0; break;
            case 13: v = (b & 0x20) ? INFINITY : 1.0; break;
            case 14: v = (b & 0x60) == 0x60 ? NAN : 1.0; break;
            default: v = 1.0; break;
            }
            v *= s;
        }
        put_f(t, buf, i, v);
    }
}

/* ---- scalars and edges of histograms ------------------------------------------------------------------------------ */
/* "Nice" scalars and edges (valid most of the time) or raw bytes. */
void hist_bounds(const input *in, unsigned char *lo, unsigned char *hi)
{
    memcpy(lo, in->s1, 8);
    memcpy(hi, in->s2, 8);
    if (!in->sz || (in->dm & 1)) return; /* raw */
    pp_type t = in->type;
    int8_t a = (int8_t)in->s1[0];
    unsigned w = 1 + in->s2[0] + ((unsigned)in->s2[1] << 8);
    if (is_float(t)) {
        double l = a * 0.5, h = l + w * 0.125;
        if (in->s1[1] == 0xff) { /* the widest range */
            l = t == PP_F32 ? -FLT_MAX : -DBL_MAX;
            h = -l;
        }
        put_f(t, lo, 0, l);
        put_f(t, hi, 0, h);
    } else if (in->s1[1] == 0xff) { /* the whole type */
        put_i(t, lo, 0, type_min(t));
        put_i(t, hi, 0, type_max(t));
    } else {
        put_i(t, lo, 0, (uint64_t)(int64_t)a);
        put_i(t, hi, 0, (uint64_t)(int64_t)a + w);
    }
}

void make_edges(const input *in, size_t nb, void *edges)
{
    pp_type t = in->type;
    size_t sz = in->sz;
    if (in->dm & 1) { /* raw */
        for (size_t i = 0; i < (nb + 1) * sz; i++) ((unsigned char *)edges)[i] = pool_byte(in, i + 3);
        return;
    }
    double e = (int8_t)in->s1[0];
    uint64_t ie = (uint64_t)(int64_t)(int8_t)in->s1[0];
    for (size_t i = 0; i <= nb; i++) {
        uint8_t g = pool_byte(in, i + 5);
        if (is_float(t)) {
            put_f(t, edges, i, e);
            e += (g % 8 + 1) * 0.25;
        } else {
            put_i(t, edges, i, ie);
            ie += (uint64_t)(g % 4 + 1);
        }
    }
    if (is_float(t) && (in->s2[0] & 1)) put_f(t, edges, 0, -INFINITY);
    if (is_float(t) && (in->s2[0] & 2)) put_f(t, edges, nb, INFINITY);
}

/* ---- pointers ---------------------------------------------------------------------------------------------------- */
int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    if (!a || !b || !an || !bn) return 0;
    const char *x = (const char *)a, *y = (const char *)b;
    return x < y + bn && y < x + an;
}

/* An offset in [0, room], a multiple of align, chosen by the input (salt
 * gives independent choices for several offsets). */
size_t pick_offset(const input *in, size_t room, size_t align, unsigned salt)
{
    if (room == 0) return 0;
    uint32_t v = (in->ovl + 1u) * (2654435761u + 2u * salt);
    v ^= v >> 15;
    size_t o = (in->ovl & 0x2000) ? (size_t)(v % (room + 1)) : (size_t)(in->ovl % (room + 1));
    return o - o % align;
}

/* Moves p by a byte when the input asks for a misaligned pointer; used
 * only where the call is then invalid anyway (an overlap), so that no
 * valid call gets a misaligned array. */
char *misalign_if_overlapping(const input *in, char *p, const char *other, size_t pbytes, size_t obytes,
                              const char *lo, const char *hi)
{
    if (!(in->ovl & 0x8000) || p + 1 + pbytes > hi || p + 1 < lo) return p;
    if (overlap(p + 1, pbytes, other, obytes)) return p + 1;
    return p;
}
