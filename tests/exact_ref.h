/* An exact reference for sums of f32 and f64, written apart from the
 * library's accumulator (src/core/exact_acc.h) and on purpose unlike it:
 * two unsigned magnitudes (the positive and the negative elements), each
 * an array of 16-bit digits with carries made at once, bit by bit; the
 * difference taken at the end; rounding bit by bit, to nearest with ties to
 * even, at the quantum of the format (so subnormals come out right), and
 * the value built with ldexp. No bit of a float is read directly: frexp,
 * isnan, isinf and signbit take elements apart. */
#ifndef PP_EXACT_REF_H
#define PP_EXACT_REF_H

#include <stddef.h>
#include <stdint.h>

/* 2200 bits: 2^2098 (above the largest double, in units of 2^-1074) times
 * 2^64 elements, with room. */
#define XR_DIGITS 140

typedef struct xref {
    int quantum;               /* -1074 (f64) or -149 (f32): the unit of the digits */
    int prec;                  /* 53 or 24 */
    uint32_t pos[XR_DIGITS];   /* 16-bit digits, least significant first */
    uint32_t neg[XR_DIGITS];
    int nan, pinf, ninf;       /* seen */
    int any, only_neg_zero;    /* elements added; all of them -0.0 */
} xref;

void xref_init(xref *r, int is_f64);
/* Adds mult copies of v (a value of the format; mult >= 1). */
void xref_add(xref *r, double v, uint64_t mult);
/* The correctly rounded sum as a double (an f32 result is exactly a
 * double); NaN is the canonical quiet NaN of the format. Bits of the
 * format: xref_bits_f64 / xref_bits_f32. */
double xref_value(const xref *r);
uint64_t xref_bits_f64(const xref *r);
uint32_t xref_bits_f32(const xref *r);
/* The bits of either format (is_f64: f64, else f32) in a uint64_t, and
 * element i of buf (f64 or f32 elements) set to such bits. */
uint64_t xref_bits(const xref *r, int is_f64);
void xref_put_bits(int is_f64, void *buf, size_t i, uint64_t bits);

#endif
