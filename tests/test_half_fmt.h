/* The half formats by hand, for the tests of the half types (test_half.c,
 * test_half_wide.c): apart from the library, from the formats' definition. */
#ifndef PP_TEST_HALF_FMT_H
#define PP_TEST_HALF_FMT_H

#include "test_common.h"

#include <math.h>

/* ---- the formats, by hand ------------------------------------------------------------------ */
typedef struct hfmt {
    pp_type type;
    int prec;    /* significant bits */
    int ebits;   /* exponent bits */
    int min_exp; /* the smallest subnormal is 2^min_exp */
} hfmt;

static const hfmt F16 = {PP_F16, 11, 5, -24}, BF16 = {PP_BF16, 8, 8, -133};

static inline uint16_t h_inf(const hfmt *f) { return (uint16_t)(((1u << f->ebits) - 1) << (f->prec - 1)); }
static inline uint16_t h_nan(const hfmt *f) { return (uint16_t)(h_inf(f) | 1u << (f->prec - 2)); }
static inline int h_isnan(const hfmt *f, uint16_t b) { return (b & 0x7fff) > h_inf(f); }

/* The value of bits b as a double (every half value is one, exactly). */
static inline double h_value(const hfmt *f, uint16_t b)
{
    const int fb = f->prec - 1, ef = (b >> fb) & ((1 << f->ebits) - 1), frac = b & ((1 << fb) - 1);
    double v;
    if (ef == (1 << f->ebits) - 1)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp(ef ? frac + (1 << fb) : frac, (ef ? ef - 1 : 0) + f->min_exp);
    return (b & 0x8000) ? -v : v;
}

/* ---- data ------------------------------------------------------------------------------------ */
/* Finite random values: exponent fields in [elo, ehi] (0: subnormals),
 * random signs and fractions; NaN and infinities where specials. */
static inline void gen(tc_rng *r, const hfmt *f, uint16_t *x, size_t n, int elo, int ehi, int specials)
{
    const int fb = f->prec - 1;
    for (size_t i = 0; i < n; i++) {
        const uint32_t ef = (uint32_t)tc_between(r, elo, ehi), frac = (uint32_t)tc_below(r, 1u << fb);
        x[i] = (uint16_t)((tc_below(r, 2) ? 0x8000u : 0) | ef << fb | frac);
        if (specials && tc_below(r, 1000) == 0) {
            const int k = (int)tc_below(r, 3);
            x[i] = k == 0 ? (uint16_t)(h_inf(f) | 1) : k == 1 ? h_inf(f) : (uint16_t)(h_inf(f) | 0x8000);
        }
    }
    if (n) x[tc_below(r, n)] |= 1; /* never all zeros */
}

static const hfmt *const fmts[2] = {&F16, &BF16};

/* Segments of random lengths (empty ones included; maxlen - 2 at most)
 * covering [off[0], end) of n elements, with a head and a tail outside
 * every segment where n > 4; at least min_nseg of them. Returns nseg
 * (off: room for nseg + 1). */
static inline size_t gen_segments(tc_rng *r, size_t n, uint64_t *off, uint64_t maxlen, size_t min_nseg)
{
    size_t nseg = 0;
    const uint64_t end = n - (n > 4 ? tc_below(r, n / 4) : 0);
    off[0] = n > 4 ? tc_below(r, n / 4) : 0;
    while (off[nseg] < end || nseg < min_nseg) {
        const uint64_t len = tc_below(r, 4) == 0 ? 0 : tc_below(r, maxlen);
        off[nseg + 1] = off[nseg] + len > end ? end : off[nseg] + len;
        nseg++;
    }
    return nseg;
}

/* ---- min and max ------------------------------------------------------------------------------ */
/* The min (max) of x[0 .. n) with -0.0 below +0.0, any NaN giving the quiet NaN. */
static inline uint16_t ref_minmax(const hfmt *f, const uint16_t *x, size_t n, int is_max)
{
    uint16_t best = (uint16_t)(h_inf(f) | (is_max ? 0x8000 : 0));
    for (size_t i = 0; i < n; i++) {
        if (h_isnan(f, x[i])) return h_nan(f);
        const double a = h_value(f, x[i]), b = h_value(f, best);
        const int a_neg0 = x[i] == 0x8000, b_neg0 = best == 0x8000;
        const int less = a < b || (a == b && a_neg0 && !b_neg0), more = a > b || (a == b && !a_neg0 && b_neg0);
        if (is_max ? more : less) best = x[i];
    }
    return best;
}

#endif
