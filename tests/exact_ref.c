/* The exact reference (see exact_ref.h). */
#include "exact_ref.h"

#include <math.h>
#include <string.h>

void xref_init(xref *r, int is_f64)
{
    memset(r, 0, sizeof *r);
    r->quantum = is_f64 ? -1074 : -149;
    r->prec = is_f64 ? 53 : 24;
    r->only_neg_zero = 1;
}

/* d += 2^bit * v, v < 2^16 * 2^16. */
static void add_at(uint32_t *d, int bit, uint64_t v)
{
    int k = bit / 16;
    uint64_t carry = v << (bit % 16);
    while (carry) {
        if (k >= XR_DIGITS) return; /* cannot happen within 2^64 elements */
        carry += d[k];
        d[k] = (uint32_t)(carry & 0xffff);
        carry >>= 16;
        k++;
    }
}

void xref_add(xref *r, double v, uint64_t mult)
{
    r->any = 1;
    if (isnan(v)) {
        r->nan = 1;
        return;
    }
    if (isinf(v)) {
        if (v > 0) r->pinf = 1;
        else r->ninf = 1;
        return;
    }
    if (!(v == 0 && signbit(v))) r->only_neg_zero = 0;
    if (v == 0) return;
    int e;
    double f = frexp(fabs(v), &e);          /* |v| = f * 2^e, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53);    /* exact: 53 bits */
    int bit = e - 53 - r->quantum;          /* where m's lowest bit lies */
    while (bit < 0) {                       /* v is a multiple of the quantum */
        m >>= 1;
        bit++;
    }
    uint32_t *d = v > 0 ? r->pos : r->neg;
    /* m * mult, one set bit of m at a time, mult in 16-bit pieces */
    for (int b = 0; b < 53; b++) {
        if (!((m >> b) & 1)) continue;
        for (int p = 0; p < 4; p++) add_at(d, bit + b + 16 * p, (mult >> (16 * p)) & 0xffff);
    }
}

static int bit_of(const uint32_t *d, int i) { return (int)((d[i / 16] >> (i % 16)) & 1); }

/* 1 if a > b, 0 if equal, -1 if below. */
static int compare(const uint32_t *a, const uint32_t *b)
{
    for (int k = XR_DIGITS - 1; k >= 0; k--)
        if (a[k] != b[k]) return a[k] > b[k] ? 1 : -1;
    return 0;
}

/* a - b, a >= b. */
static void subtract(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
    int64_t borrow = 0;
    for (int k = 0; k < XR_DIGITS; k++) {
        int64_t v = (int64_t)a[k] - b[k] - borrow;
        borrow = v < 0;
        out[k] = (uint32_t)(v + (borrow ? 0x10000 : 0));
    }
}

double xref_value(const xref *r)
{
    if (r->nan || (r->pinf && r->ninf)) return NAN;
    if (r->pinf) return INFINITY;
    if (r->ninf) return -INFINITY;
    int c = compare(r->pos, r->neg);
    if (c == 0) return r->any && r->only_neg_zero ? -0.0 : 0.0;
    uint32_t mag[XR_DIGITS];
    if (c > 0) subtract(r->pos, r->neg, mag);
    else subtract(r->neg, r->pos, mag);
    int top = XR_DIGITS * 16 - 1;
    while (!mag[top / 16]) top -= 16;
    while (!bit_of(mag, top)) top--;
    /* the lowest kept bit: prec bits from the top, never below the quantum */
    int low = top - r->prec + 1;
    if (low < 0) low = 0;
    double mant = 0;
    for (int i = top; i >= low; i--) mant = 2 * mant + bit_of(mag, i);
    if (low > 0) {
        int guard = bit_of(mag, low - 1), sticky = 0;
        for (int i = low - 2; i >= 0 && !sticky; i--) sticky = bit_of(mag, i);
        if (guard && (sticky || fmod(mant, 2) == 1)) mant += 1;
    }
    double v = ldexp(mant, low + r->quantum); /* beyond the format's range: inf */
    if (r->prec == 24 && fabs(v) >= 0x1p128) v = INFINITY;
    return c > 0 ? v : -v;
}

uint64_t xref_bits_f64(const xref *r)
{
    double v = xref_value(r);
    if (isnan(v)) return 0x7ff8000000000000ull;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

uint32_t xref_bits_f32(const xref *r)
{
    double v = xref_value(r);
    if (isnan(v)) return 0x7fc00000u;
    float f = (float)v; /* exact: v has at most 24 bits at a multiple of 2^-149 */
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

uint64_t xref_bits(const xref *r, int is_f64) { return is_f64 ? xref_bits_f64(r) : xref_bits_f32(r); }

void xref_put_bits(int is_f64, void *buf, size_t i, uint64_t bits)
{
    const uint32_t b32 = (uint32_t)bits;
    if (is_f64) memcpy((char *)buf + 8 * i, &bits, 8);
    else memcpy((char *)buf + 4 * i, &b32, 4);
}
