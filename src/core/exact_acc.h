/* The exact accumulator of PP_ALGO_EXACT: a float sum held as one integer,
 * rounded once. Backend-neutral plain C99 (no OpenMP, no allocation), so
 * that every backend keeps the same layout and the same rounding: the cuda
 * and opencl kernels follow this file (docs/exact.md is the specification).
 *
 * The value. Every f64 is an integer multiple of 2^-1074 (the smallest
 * subnormal), every f32 one of 2^-149. A sum of them is such a multiple as
 * well: M * 2^-1074 (f64) or M * 2^-149 (f32), M an integer. M is held in
 * "chunks": chunk i weighs 2^(32 i), and holds an int64_t, so
 *
 *     M = sum over i of w[i] * 2^(32 i).
 *
 * A chunk may hold more than 32 bits, and a negative value: deposits are
 * added to chunks without carrying (each deposit adds less than 2^52 to a
 * chunk, so PP_XACC_DEPOSITS = 1024 of them fit an int64_t beside a
 * normalized value). Normalizing carries every chunk's bits above 32 into
 * the next one: then chunks 0 .. n-2 are in [0, 2^32) and chunk n-1 has
 * the sign (two's complement over the chunks): one representation per M.
 *
 * Sizes: |x| < 2^1024 is below 2^2098 units; a sum of up to 2^64 of them
 * below 2^2162, so chunk n-1 = 67 (bits 2144 and up) never overflows:
 * PP_XACC_F64_CHUNKS = 68. f32: |x| < 2^128 = 2^277 units, a sum below
 * 2^341, chunk 9 from bit 288: PP_XACC_F32_CHUNKS = 10 (a separate,
 * smaller accumulator: no f32 value is ever widened to the f64 one).
 *
 * The words. An accumulator is n + 2 int64_t words: the n chunks, then
 * w[n] = flags (PP_XACC_NAN, _PINF, _NINF: what was seen of NaN and
 * infinities, kept apart from the finite part so that overflow on the way
 * never matters; PP_XACC_NOT_NEG0: an element other than -0.0 was added,
 * for the sign of a zero sum; PP_XACC_NONEMPTY: an element was added at
 * all, kept by the public pp_exact_sum only), then w[n+1] = deposits since
 * the last normalization. All zero is the empty sum.
 *
 * Merging two accumulators is integer addition (plus OR of the flags): it
 * is exact, associative and commutative, so no order of merging (threads,
 * blocks, tiles, ranks) can change the result. Rounding (pp_xacc_bits_f64,
 * pp_xacc_bits_f32) happens once, from the integer, to nearest with ties to
 * even: an f32 sum is never rounded through a double.
 */
#ifndef PP_EXACT_ACC_H
#define PP_EXACT_ACC_H

/* Portability: the same text is compiled as C99 (cpu), as CUDA device code
 * (the includer defines PP_XACC_FN as __device__ static inline) and as
 * OpenCL C 1.2 (src/opencl/exact.cl is this file followed by the kernels;
 * there int64_t and friends are OpenCL's long, ulong, uint, the bit casts
 * as_ulong / as_double, and the functions that take or return a double
 * exist only where the device has cl_khr_fp64: PP_XACC_DOUBLE). Pointers
 * are to the __private address space in OpenCL 1.2: accumulators passed
 * to these functions are private arrays. */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define PP_XACC_OPENCL 1
#endif
#ifdef PP_XACC_OPENCL
typedef long int64_t;
typedef ulong uint64_t;
typedef uint uint32_t;
#ifdef cl_khr_fp64
#define PP_XACC_DOUBLE 1
#else
#define PP_XACC_DOUBLE 0
#endif
#else
#include <stdint.h>
#include <string.h>
#define PP_XACC_DOUBLE 1
#endif

#ifndef PP_XACC_FN
#define PP_XACC_FN static inline
#endif

#define PP_XACC_F64_CHUNKS 68
#define PP_XACC_F32_CHUNKS 10
#define PP_XACC_MAX_CHUNKS PP_XACC_F64_CHUNKS
#define PP_XACC_F64_WORDS (PP_XACC_F64_CHUNKS + 2)
#define PP_XACC_F32_WORDS (PP_XACC_F32_CHUNKS + 2)
#define PP_XACC_F64_UNIT (-1074) /* the exponent of the unit of M */
#define PP_XACC_F32_UNIT (-149)
#define PP_XACC_DEPOSITS 1024

#define PP_XACC_NAN 1
#define PP_XACC_PINF 2
#define PP_XACC_NINF 4
#define PP_XACC_NOT_NEG0 8
/* An element was added. The backends' folds leave it 0 (their callers
 * know n); the core sets it in a pp_exact_sum (pp_exact_accumulate with
 * n > 0), which is how an empty sum (+0.0, as pp_reduce of nothing) and a
 * sum of only -0.0 (-0.0), both with all chunks and other flags 0, differ.
 * Nothing else reads it: the roundings below take a zero as -0.0 unless
 * NOT_NEG0. */
#define PP_XACC_NONEMPTY 16
#define PP_XACC_FLAGS 31 /* every flag */
#define PP_XACC_SPECIAL (PP_XACC_NAN | PP_XACC_PINF | PP_XACC_NINF)

#define PP_XACC_LOW32 ((uint64_t)0xffffffffu)

/* The canonical quiet NaN every backend writes for a NaN sum. */
#define PP_XACC_F64_NAN ((uint64_t)0x7ff8000000000000u)
#define PP_XACC_F32_NAN ((uint32_t)0x7fc00000u)

#ifdef PP_XACC_OPENCL
#if PP_XACC_DOUBLE
PP_XACC_FN uint64_t pp_xacc_f64_bits(double v) { return as_ulong(v); }
PP_XACC_FN double pp_xacc_f64_of(uint64_t b) { return as_double(b); }
#endif
PP_XACC_FN uint32_t pp_xacc_f32_bits(float v) { return as_uint(v); }
PP_XACC_FN float pp_xacc_f32_of(uint32_t b) { return as_float(b); }
#else
PP_XACC_FN uint64_t pp_xacc_f64_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

PP_XACC_FN double pp_xacc_f64_of(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

PP_XACC_FN uint32_t pp_xacc_f32_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

PP_XACC_FN float pp_xacc_f32_of(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}
#endif

/* Bits needed for v (0 for 0). */
PP_XACC_FN int pp_xacc_bitlen(uint64_t v)
{
#if defined(PP_XACC_OPENCL)
    return v ? 64 - (int)clz(v) : 0;
#elif defined(__GNUC__) || defined(__clang__)
    return v ? 64 - __builtin_clzll(v) : 0;
#else
    int b = 0;
    while (v) b++, v >>= 1;
    return b;
#endif
}

PP_XACC_FN void pp_xacc_clear(int64_t *w, int n)
{
    for (int i = 0; i < n + 2; i++) w[i] = 0;
}

/* Carries every chunk's bits above 32 into the next chunk: chunks 0..n-2
 * in [0, 2^32), chunk n-1 signed. The value is unchanged. */
PP_XACC_FN void pp_xacc_normalize(int64_t *w, int n)
{
    int64_t carry = 0;
    for (int i = 0; i < n - 1; i++) {
        int64_t v = w[i] + carry;
        int64_t low = (int64_t)((uint64_t)v & PP_XACC_LOW32);
        carry = (v - low) / ((int64_t)1 << 32); /* exact: v - low is a multiple of 2^32 */
        w[i] = low;
    }
    w[n - 1] += carry;
    w[n + 1] = 0;
}

/* Adds (neg ? -1 : 1) * mag * 2^pos units; mag < 2^53, pos >= 0, and
 * pos / 32 + 1 < n. Two chunks: the low 32 bits of mag << (pos % 32), and
 * the rest (< 2^52). */
PP_XACC_FN void pp_xacc_deposit(int64_t *w, int n, uint64_t mag, int pos, int neg)
{
    const int i = pos >> 5, s = pos & 31;
    const int64_t lo = (int64_t)((mag << s) & PP_XACC_LOW32);
    const int64_t hi = (int64_t)(s ? mag >> (32 - s) : mag >> 32);
    if (neg) {
        w[i] -= lo;
        w[i + 1] -= hi;
    } else {
        w[i] += lo;
        w[i + 1] += hi;
    }
    if (++w[n + 1] >= PP_XACC_DEPOSITS) pp_xacc_normalize(w, n);
}

/* Adds one f64 element (its bits) to an f64 accumulator: NaN and
 * infinities go to the flags, a finite value to the chunks. */
PP_XACC_FN void pp_xacc_add_f64(int64_t *w, uint64_t bits)
{
    const int n = PP_XACC_F64_CHUNKS;
    const int ef = (int)((bits >> 52) & 0x7ff), neg = (int)(bits >> 63);
    const uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    if (ef == 0x7ff) {
        w[n] |= frac ? PP_XACC_NAN : neg ? PP_XACC_NINF : PP_XACC_PINF;
        return;
    }
    if (bits != (uint64_t)1 << 63) w[n] |= PP_XACC_NOT_NEG0;
    if (ef) pp_xacc_deposit(w, n, frac | (uint64_t)1 << 52, ef - 1, neg);
    else if (frac) pp_xacc_deposit(w, n, frac, 0, neg);
}

/* Adds one f32 element (its bits) to an f32 accumulator. */
PP_XACC_FN void pp_xacc_add_f32(int64_t *w, uint32_t bits)
{
    const int n = PP_XACC_F32_CHUNKS;
    const int ef = (int)((bits >> 23) & 0xff), neg = (int)(bits >> 31);
    const uint64_t frac = bits & ((1u << 23) - 1);
    if (ef == 0xff) {
        w[n] |= frac ? PP_XACC_NAN : neg ? PP_XACC_NINF : PP_XACC_PINF;
        return;
    }
    if (bits != 0x80000000u) w[n] |= PP_XACC_NOT_NEG0;
    if (ef) pp_xacc_deposit(w, n, frac | (uint64_t)1 << 23, ef - 1, neg);
    else if (frac) pp_xacc_deposit(w, n, frac, 0, neg);
}

#if PP_XACC_DOUBLE
/* Adds a finite double that is a multiple of 2^unit (a partial sum of
 * elements: unit = PP_XACC_F64_UNIT or PP_XACC_F32_UNIT) to the chunks.
 * The flags are the caller's business. */
PP_XACC_FN void pp_xacc_add_exact_double(int64_t *w, int n, int unit, double v)
{
    const uint64_t bits = pp_xacc_f64_bits(v);
    const int ef = (int)((bits >> 52) & 0x7ff);
    uint64_t mag = (bits & (((uint64_t)1 << 52) - 1)) | (ef ? (uint64_t)1 << 52 : 0);
    if (!mag) return;
    int pos = (ef ? ef - 1075 : -1074) - unit;
    if (pos < 0) { /* the low bits are zero: v is a multiple of 2^unit */
        mag >>= -pos;
        pos = 0;
    }
    pp_xacc_deposit(w, n, mag, pos, (int)(bits >> 63));
}

#endif

/* w += src (src normalized), flags OR'ed; w ends normalized. */
PP_XACC_FN void pp_xacc_merge(int64_t *w, const int64_t *src, int n)
{
    pp_xacc_normalize(w, n);
    for (int i = 0; i < n; i++) w[i] += src[i];
    w[n] |= src[n];
    pp_xacc_normalize(w, n);
}

/* ---- rounding --------------------------------------------------------------------------
 * pp_xacc_round: |M| rounded to prec significant bits, to nearest, ties to
 * even: |M| ~ mant * 2^e with e >= 0 and mant < 2^prec, or mant == 2^prec
 * after a carry (the packers turn that into the next binade by themselves).
 * Where |M| < 2^prec it is exact: e = 0, mant = |M|. Returns the sign
 * (1: negative). w is read only. */
PP_XACC_FN int pp_xacc_round(const int64_t *w, int n, int prec, uint64_t *mant, int *e)
{
    int64_t tmp[PP_XACC_MAX_CHUNKS + 2];
    for (int i = 0; i < n; i++) tmp[i] = w[i];
    pp_xacc_normalize(tmp, n);
    const int neg = tmp[n - 1] < 0;
    if (neg) { /* |M| = -M: negate every chunk and carry again */
        for (int i = 0; i < n; i++) tmp[i] = -tmp[i];
        pp_xacc_normalize(tmp, n);
    }
    /* Chunk n-1 of a magnitude needs up to 63 bits (more than 32 after
     * many merges, far beyond the format's range): its high half becomes a
     * chunk n of its own, so that every chunk below has 32 bits. */
    tmp[n] = (int64_t)((uint64_t)tmp[n - 1] >> 32);
    tmp[n - 1] = (int64_t)((uint64_t)tmp[n - 1] & PP_XACC_LOW32);
    int t = n;
    while (t > 0 && tmp[t] == 0) t--;
    /* |M| < 2^b */
    const int b = 32 * t + pp_xacc_bitlen((uint64_t)tmp[t]);
    if (b <= prec) { /* exact: at most two chunks (prec <= 53) */
        *mant = (uint64_t)tmp[0] | (n > 1 ? (uint64_t)tmp[1] << 32 : 0);
        *e = 0;
        return neg;
    }
    /* the 64 bits [b-64, b) and a sticky bit for everything below */
    uint64_t top;
    int sticky = 0;
    const int s = b - 64;
    if (s <= 0) {
        top = ((uint64_t)tmp[0] | (uint64_t)tmp[1] << 32) << -s;
    } else {
        const int i = s >> 5, o = s & 31;
        const uint64_t lo = (uint64_t)tmp[i] | (uint64_t)tmp[i + 1] << 32;
        const uint64_t hi = i + 2 <= n ? (uint64_t)tmp[i + 2] : 0;
        top = o ? lo >> o | hi << (64 - o) : lo;
        sticky = o && (lo & (((uint64_t)1 << o) - 1));
        for (int j = 0; j < i && !sticky; j++) sticky = tmp[j] != 0;
    }
    const int drop = 64 - prec;
    const uint64_t halfway = (uint64_t)1 << (drop - 1), rest = top & ((halfway << 1) - 1);
    uint64_t m = top >> drop;
    if (rest > halfway || (rest == halfway && (sticky || (m & 1)))) m++;
    *mant = m;
    *e = b - prec;
    return neg;
}

/* Sign, rounded mantissa and exponent (pp_xacc_round) as the bits of a
 * binary format with prec significant bits whose smallest subnormal is the
 * unit of M (f64: prec 53, f32: prec 24): mant * 2^e units is
 * ((e << (prec - 1)) + mant) as bits, the carry of mant == 2^prec moving
 * into the exponent field; inf_bits and above overflow to infinity. */
PP_XACC_FN uint64_t pp_xacc_pack(int neg, uint64_t mant, int e, int prec, uint64_t inf_bits, int sign_shift)
{
    uint64_t bits;
    if ((uint64_t)e >= inf_bits >> (prec - 1)) bits = inf_bits;
    else bits = ((uint64_t)e << (prec - 1)) + mant;
    if (bits > inf_bits) bits = inf_bits;
    return bits | (uint64_t)neg << sign_shift;
}

/* The result of the sum in w: NaN if a NaN, or both infinities, were
 * added; else the infinity that was added; else the correctly rounded
 * finite part (an infinity where it rounds beyond the largest finite);
 * an exact zero is -0.0 if only -0.0 (or nothing) was added, else +0.0. */
PP_XACC_FN int pp_xacc_special(int64_t flags, int *nan, int *neg)
{
    *nan = (flags & PP_XACC_NAN) || ((flags & PP_XACC_PINF) && (flags & PP_XACC_NINF));
    *neg = (flags & PP_XACC_NINF) != 0;
    return (flags & PP_XACC_SPECIAL) != 0;
}

PP_XACC_FN uint64_t pp_xacc_bits_f64(const int64_t *w)
{
    const int n = PP_XACC_F64_CHUNKS;
    const uint64_t inf = (uint64_t)0x7ff << 52;
    int nan, neg;
    if (pp_xacc_special(w[n], &nan, &neg)) return nan ? PP_XACC_F64_NAN : inf | (uint64_t)neg << 63;
    uint64_t mant;
    int e;
    neg = pp_xacc_round(w, n, 53, &mant, &e);
    if (mant == 0) return (w[n] & PP_XACC_NOT_NEG0) ? 0 : (uint64_t)1 << 63;
    return pp_xacc_pack(neg, mant, e, 53, inf, 63);
}

PP_XACC_FN uint32_t pp_xacc_bits_f32(const int64_t *w)
{
    const int n = PP_XACC_F32_CHUNKS;
    const uint64_t inf = 0x7f800000u;
    int nan, neg;
    if (pp_xacc_special(w[n], &nan, &neg)) return nan ? PP_XACC_F32_NAN : (uint32_t)(inf | (uint64_t)neg << 31);
    uint64_t mant;
    int e;
    neg = pp_xacc_round(w, n, 24, &mant, &e);
    if (mant == 0) return (w[n] & PP_XACC_NOT_NEG0) ? 0u : 0x80000000u;
    return (uint32_t)pp_xacc_pack(neg, mant, e, 24, inf, 31);
}

/* ---- the half types (PP_F16, PP_BF16) -----------------------------------------------------
 * Every f16 and bf16 value is an f32 value: an element is widened to f32
 * bits exactly and added to the f32 accumulator, whose M is then the
 * exact sum. pp_xacc_bits_half rounds M once to the half format (never
 * through f32, which would round twice). */

/* The f32 bits of the f16 of bits h (NaN stays NaN, its payload kept). */
PP_XACC_FN uint32_t pp_xacc_f16_to_f32(uint32_t h)
{
    const uint32_t sign = (h & 0x8000u) << 16, ef = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
    if (ef == 0x1fu) return sign | 0x7f800000u | frac << 13;
    if (ef) return sign | (ef + 112u) << 23 | frac << 13;
    if (!frac) return sign;
    /* a subnormal, frac * 2^-24 with b = bit length of frac: 2^(b-25) times 1.f */
    const int b = pp_xacc_bitlen(frac);
    return sign | (uint32_t)(b + 102) << 23 | ((frac << (24 - b)) & 0x7fffffu);
}

/* The f32 bits of the bf16 of bits h. */
PP_XACC_FN uint32_t pp_xacc_bf16_to_f32(uint32_t h) { return (h & 0xffffu) << 16; }

/* A widened NaN whose low 13 bits are this mark (pp_xacc_half_to_f32_keep)
 * narrows to its own bits even where every other NaN narrows to the quiet
 * NaN: the elements of an output that a call through f32 leaves alone.
 * Widened halves have those bits zero, and no f32 operation's NaN has them
 * so (the quiet NaNs 0x7FC00000, 0x7FFFFFFF, an input's). */
#define PP_XACC_HALF_KEEP_MARK 0x1555u

/* The f32 bits of the half bits h (bf: bf16), a NaN marked as kept. */
PP_XACC_FN uint32_t pp_xacc_half_to_f32_keep(uint32_t h, int bf)
{
    const uint32_t f = bf ? pp_xacc_bf16_to_f32(h) : pp_xacc_f16_to_f32(h);
    return (f & 0x7fffffffu) > 0x7f800000u ? f | PP_XACC_HALF_KEEP_MARK : f;
}

/* The half bits (bf: bf16, else f16) of the f32 bits f of a value that is
 * a half value (an f32 widened from one, or a result that picks one of
 * them: min, max, a selected element), so nothing rounds: the inverse of
 * the widenings above, NaN payloads included (a kept NaN's mark dropped);
 * qnan: every NaN but a kept one gives the format's quiet NaN instead. */
PP_XACC_FN uint32_t pp_xacc_f32_to_half(uint32_t f, int bf, int qnan)
{
    const int nan = (f & 0x7fffffffu) > 0x7f800000u;
    qnan = qnan && (f & 0x1fffu) != PP_XACC_HALF_KEEP_MARK; /* a kept NaN narrows as it was */
    if (bf) return nan && qnan ? 0x7fc0u : f >> 16;
    if (nan && qnan) return 0x7e00u;
    const uint32_t sign = (f >> 16) & 0x8000u, e = (f >> 23) & 0xffu, frac = f & 0x7fffffu;
    if (e == 0xffu) return sign | 0x7c00u | frac >> 13;
    if (e < 103u) return sign; /* a zero: no f16 is nonzero below 2^-24 */
    if (e < 113u) return sign | (frac | 0x800000u) >> (126u - e); /* an f16 subnormal */
    return sign | (e - 112u) << 10 | frac >> 13;
}

/* The half format of prec significant bits (f16: 11, bf16: 8): its
 * infinity and its quiet NaN (f16: 0x7C00, 0x7E00; bf16: 0x7F80, 0x7FC0). */
#define PP_XACC_HALF_INF(prec) ((((uint32_t)1 << (16 - (prec))) - 1) << ((prec) - 1))
#define PP_XACC_HALF_NAN(prec) (PP_XACC_HALF_INF(prec) | (uint32_t)1 << ((prec) - 2))

/* The sum in an f32 accumulator of half elements, rounded once to the
 * half format of prec significant bits whose smallest subnormal is
 * 2^shift units of M (f16: 11, 125; bf16: 8, 16; src/core/types.h,
 * PP_HALF_PREC and PP_HALF_SHIFT), with pp_xacc_bits_f32's rules for special values
 * and zeros. M is a multiple of 2^shift (every element is), so where the
 * rounding to prec bits leaves e < shift it dropped only zero bits, and
 * mant * 2^e in units of the subnormal is exact. */
PP_XACC_FN uint32_t pp_xacc_bits_half(const int64_t *w, int prec, int shift)
{
    const int n = PP_XACC_F32_CHUNKS;
    const uint32_t inf = PP_XACC_HALF_INF(prec);
    int nan, neg;
    if (pp_xacc_special(w[n], &nan, &neg)) return nan ? PP_XACC_HALF_NAN(prec) : inf | (uint32_t)neg << 15;
    uint64_t mant;
    int e;
    neg = pp_xacc_round(w, n, prec, &mant, &e);
    if (mant == 0) return (w[n] & PP_XACC_NOT_NEG0) ? 0u : 0x8000u;
    if (e >= shift) {
        e -= shift;
    } else {
        mant >>= shift - e;
        e = 0;
    }
    return (uint32_t)pp_xacc_pack(neg, mant, e, prec, inf, 15);
}

/* ---- expansion: an accumulator as a few elements ---------------------------------------
 * pp_xacc_expand writes to x[0..k) (the bits of elements of the format:
 * f64 where is_f64, else f32 in the low 32 bits) elements whose sum, by
 * this file's rules, is w's for anything added after them: the exact
 * reduce or scan of [x..., y...] gives, from y on, the results of w's
 * elements followed by y. So a sum passed on as a value (a rank's prefix
 * in a distributed scan) can seed a local exact scan.
 * The flags: where w has a NaN or an infinity, one NaN, +inf or -inf per
 * flag and nothing of the finite part (the results follow the flags
 * alone from there). Else the finite part greedily: x = the rounding of
 * what is left (the largest finite value of its sign where that rounds to
 * infinity), subtracted exactly, until nothing is left; each step takes
 * the leading 53 (24) bits, so at most 41 (f32: 13) steps plus one per
 * largest finite value beyond the first. A zero finite part is one +0.0
 * (NOT_NEG0) or -0.0 (NONEMPTY: only -0.0 was added), or nothing for the
 * empty sum. Returns k, or -1 where more than max elements would be
 * needed (|finite part| beyond about (max - 41) times the largest finite
 * value; f32: max - 13). w is read only. */
PP_XACC_FN int pp_xacc_expand(const int64_t *w, int is_f64, uint64_t *x, int max)
{
    const int n = is_f64 ? PP_XACC_F64_CHUNKS : PP_XACC_F32_CHUNKS;
    const uint64_t sign = is_f64 ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    const uint64_t inf = is_f64 ? (uint64_t)0x7ff << 52 : (uint64_t)0x7f800000u;
    const int64_t flags = w[n];
    int k = 0;
    if (flags & PP_XACC_SPECIAL) {
        const uint64_t nan = is_f64 ? PP_XACC_F64_NAN : (uint64_t)PP_XACC_F32_NAN;
        const uint64_t want[3] = {(flags & PP_XACC_NAN) ? nan : 0, (flags & PP_XACC_PINF) ? inf : 0,
                                  (flags & PP_XACC_NINF) ? inf | sign : 0};
        for (int i = 0; i < 3; i++) {
            if (!want[i]) continue;
            if (k == max) return -1;
            x[k++] = want[i];
        }
        return k;
    }
    int64_t t[PP_XACC_MAX_CHUNKS + 2];
    for (int i = 0; i < n + 2; i++) t[i] = w[i];
    t[n] = PP_XACC_NOT_NEG0; /* a zero never comes out of the loop's roundings */
    for (;;) {
        pp_xacc_normalize(t, n);
        int zero = 1;
        for (int i = 0; i < n && zero; i++) zero = t[i] == 0;
        if (zero) break;
        if (k == max) return -1;
        uint64_t b = is_f64 ? pp_xacc_bits_f64(t) : (uint64_t)pp_xacc_bits_f32(t);
        if ((b & ~sign) == inf) b -= 1; /* the largest finite value of that sign */
        x[k++] = b;
        if (is_f64) pp_xacc_add_f64(t, b ^ sign); /* what is left: t - x */
        else pp_xacc_add_f32(t, (uint32_t)(b ^ sign));
    }
    if (k == 0 && (flags & (PP_XACC_NOT_NEG0 | PP_XACC_NONEMPTY))) {
        if (max == 0) return -1;
        x[k++] = (flags & PP_XACC_NOT_NEG0) ? 0 : sign;
    }
    return k;
}

#if PP_XACC_DOUBLE /* the rest takes or returns doubles */
/* The finite part of an f32 accumulator rounded to a double (53 bits):
 * the start of a scan's fast running sum. 0 if zero. */
PP_XACC_FN double pp_xacc_f32_to_double(const int64_t *w)
{
    uint64_t mant;
    int e;
    const int neg = pp_xacc_round(w, PP_XACC_F32_CHUNKS, 53, &mant, &e);
    if (!mant) return 0.0;
    /* mant * 2^(e - 149), mant <= 2^53, well inside the double range */
    const int p = e + PP_XACC_F32_UNIT;
    const double scale = pp_xacc_f64_of((uint64_t)(p + 1023) << 52);
    const double v = (double)mant * scale;
    return neg ? -v : v;
}

/* ---- splitting (error-free extraction) -----------------------------------------------
 * A block of at most 2^(K-1) values |x| < 2^E is split exactly by
 * C = 1.5 * 2^(E+K): h = (x + C) - C is x rounded to a multiple of
 * u = ulp(C) >= 2^(E+K-52), and r = x - h (|r| <= u/2) is exact. The h of
 * the block add up in any order without rounding error (multiples of u,
 * below 2^53 u in magnitude), so each level of the split is one exact
 * double; the r's go to the next level, each level 52 - K bits lower,
 * until every r is zero (at the latest when u reaches 2^-1074). */

/* E with 0 < m < 2^E (m finite, positive). */
PP_XACC_FN int pp_xacc_exp_above(double m)
{
    const uint64_t bits = pp_xacc_f64_bits(m);
    const int ef = (int)(bits >> 52);
    return ef ? ef - 1022 : pp_xacc_bitlen(bits) - 1074;
}

/* 1.5 * 2^j, for -1073 <= j <= 1022. */
PP_XACC_FN double pp_xacc_split_const(int j)
{
    if (j >= -1022) return pp_xacc_f64_of((uint64_t)(j + 1023) << 52 | (uint64_t)1 << 51);
    return pp_xacc_f64_of((uint64_t)3 << (j - 1 + 1074));
}

/* ---- scans: certifying a fast running sum ------------------------------------------------
 * A scan keeps a fast approximation of its running sum and an upper bound
 * err on its distance to the exact sum. Where the approximation's nearest
 * value t of the output format is at distance d from it with
 * d + err < the half gap around t, t is the correctly rounded sum; else
 * the scan asks the exact accumulator. The half gap used is the smaller one
 * of the two sides of t: ulp(t)/2, or ulp(t)/4 where t is a power of two.
 * These return it, or 0 where t is too close to zero or to overflow for
 * the fast path (zero, subnormal, near the largest finite, non-finite). */
/* TwoSum (Knuth): s + *e == a + b exactly (s = a + b rounded), while s
 * does not overflow. */
PP_XACC_FN double pp_xacc_two_sum(double a, double b, double *e)
{
    const double s = a + b, bv = s - a;
    *e = (a - (s - bv)) + (b - bv);
    return s;
}

/* One element into an f64 scan's fast sum, the double-double hi + lo:
 * two TwoSums, the only rounding that of t = lo + e; err grows by
 * |t| * 2^-52, twice the bound of that rounding (the margin also covers
 * err's own roundings over a tile). */
PP_XACC_FN void pp_xacc_dd_add(double *hi, double *lo, double *err, double v)
{
    double e, l;
    const double s = pp_xacc_two_sum(*hi, v, &e), t = *lo + e;
    *hi = pp_xacc_two_sum(s, t, &l);
    *lo = l;
    *err += (t < 0.0 ? -t : t) * 0x1p-52;
}

PP_XACC_FN double pp_xacc_half_gap_f64(double t)
{
    const uint64_t bits = pp_xacc_f64_bits(t) & ~((uint64_t)1 << 63);
    const int ef = (int)(bits >> 52);
    if (ef < 60 || ef > 2045) return 0.0;
    const int pow2 = (bits & (((uint64_t)1 << 52) - 1)) == 0;
    return pp_xacc_f64_of((uint64_t)(ef - 53 - pow2) << 52); /* 2^(ef-1075) / (pow2 ? 4 : 2) */
}

PP_XACC_FN double pp_xacc_half_gap_f32(float t)
{
    const uint32_t bits = pp_xacc_f32_bits(t) & 0x7fffffffu;
    const int ef = (int)(bits >> 23);
    if (ef < 2 || ef > 253) return 0.0;
    const int pow2 = (bits & ((1u << 23) - 1)) == 0;
    /* ulp = 2^(ef - 150); as a double's exponent field: ef - 150 + 1023 */
    return pp_xacc_f64_of((uint64_t)(ef - 150 + 1023 - 1 - pow2) << 52);
}

#endif /* PP_XACC_DOUBLE */

#endif
