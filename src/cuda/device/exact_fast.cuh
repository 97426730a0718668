// The certified fast sums of the exact scan (cuda_exact.cu, xscan_kernel):
// a running sum in one double (f32) or a double-double (f64) with a
// rigorous bound on its error (xfast), the steps that add an element or
// combine two such sums, the test that the sum decides the correctly
// rounded output (xcertify, as cpu_exact.inc's xscan), the tile's start
// value from its exact prefix and the warp's scan of such sums, and the
// warp's exact fallback where nothing certifies (xwarp_fallback). NaN and
// infinities travel as flags beside the sums (xspecial_flag,
// xspecial_bits).
//
// Internal linkage and unprefixed names, as in cuda_exact.cu, where these
// were first: ptxas lays out xscan_kernel's registers by the names and
// order of its out-of-line callees (xresync, xwarp_fallback), and these
// keep its code as it was measured. Included by cuda_exact.cu only.
#ifndef PP_CUDA_DEVICE_EXACT_FAST_CUH
#define PP_CUDA_DEVICE_EXACT_FAST_CUH

#include <math.h>

#include "exact.cuh"
#include "exact_fold.cuh"

namespace {

// A fast running sum with an error bound: |exact - (hi + lo)| <= err
// (f32: lo = 0).
struct xfast {
    double hi, lo, err;
};

// a + b, both with bounds (f64: double-double; f32: one double).
template <typename T> __device__ __forceinline__ xfast xcombine(const xfast &a, const xfast &b)
{
    xfast r;
    if constexpr (sizeof(T) == 8) {
        double e;
        const double s = pp_xacc_two_sum(a.hi, b.hi, &e);
        const double t1 = a.lo + b.lo, t = t1 + e; // both round
        r.hi = pp_xacc_two_sum(s, t, &r.lo);
        r.err = a.err + b.err + (fabs(t1) + fabs(t)) * 0x1p-52;
    } else {
        r.hi = a.hi + b.hi;
        r.lo = 0.0;
        r.err = a.err + b.err + fabs(r.hi) * 0x1p-52;
    }
    return r;
}

// One element added to the fast sum (cpu_exact.inc xscan_f64 / _f32).
template <typename T> __device__ __forceinline__ void xstep(xfast &f, T x)
{
    const double v = (double)x;
    if constexpr (sizeof(T) == 8) {
        pp_xacc_dd_add(&f.hi, &f.lo, &f.err, v);
    } else {
        f.hi += v; // never overflows: |s| < 2^128 * n
        f.err += fabs(f.hi) * 0x1p-52;
    }
}

// Where the fast sum decides the rounding: its bits, else returns false.
template <typename T> __device__ __forceinline__ bool xcertify(const xfast &f, unsigned long long &bits)
{
    if constexpr (sizeof(T) == 8) {
        if (fabs(f.lo) + f.err < pp_xacc_half_gap_f64(f.hi)) {
            bits = (unsigned long long)__double_as_longlong(f.hi);
            return true;
        }
    } else {
        const float t = (float)f.hi;
        if (fabs(f.hi - (double)t) + f.err < pp_xacc_half_gap_f32(t)) {
            bits = __float_as_uint(t);
            return true;
        }
    }
    return false;
}

// The fast sum restarted from an exact accumulator r without specials
// (cpu xresync): f64 hi = RN(r), lo = RN(r - hi); an overflowed hi gives a
// NaN hi (nothing certifies: every output from r). f32: r to 53 bits.
template <typename T> __device__ __noinline__ xfast xresync(const int64_t *r)
{
    xfast f;
    if constexpr (sizeof(T) == 8) {
        const double h = __longlong_as_double((long long)pp_xacc_bits_f64(r));
        if (!(h - h == 0.0)) {
            f.hi = __longlong_as_double(0x7ff8000000000000ll);
            f.lo = f.err = 0.0;
            return f;
        }
        int64_t t[PP_XACC_F64_WORDS];
        for (int i = 0; i < PP_XACC_F64_WORDS; i++) t[i] = r[i];
        t[PP_XACC_F64_CHUNKS + 1] = 0;
        pp_xacc_add_exact_double(t, PP_XACC_F64_CHUNKS, PP_XACC_F64_UNIT, -h);
        f.hi = h;
        f.lo = __longlong_as_double((long long)pp_xacc_bits_f64(t));
        f.err = fabs(f.lo) * 0x1p-52;
    } else {
        f.hi = pp_xacc_f32_to_double(r);
        f.lo = 0.0;
        f.err = fabs(f.hi) * 0x1p-52;
    }
    return f;
}

// The bits of a sum whose flags have NaN or an infinity.
template <typename T> __device__ __forceinline__ unsigned long long xspecial_bits(unsigned fl)
{
    int nan, neg;
    pp_xacc_special((int64_t)fl, &nan, &neg);
    if constexpr (sizeof(T) == 8)
        return nan ? PP_XACC_F64_NAN : ((unsigned long long)0x7ff << 52) | (unsigned long long)neg << 63;
    else return nan ? PP_XACC_F32_NAN : 0x7f800000u | (unsigned)neg << 31;
}

template <typename T> __device__ __forceinline__ unsigned xspecial_flag(T x)
{
    if constexpr (sizeof(T) == 8) {
        const unsigned long long b = (unsigned long long)__double_as_longlong(x);
        if (((b >> 52) & 0x7ff) != 0x7ff) return 0;
        return (b << 12) ? PP_XACC_NAN : (b >> 63) ? PP_XACC_NINF : PP_XACC_PINF;
    } else {
        const unsigned b = __float_as_uint(x);
        if (((b >> 23) & 0xff) != 0xff) return 0;
        return (b << 9) ? PP_XACC_NAN : (b >> 31) ? PP_XACC_NINF : PP_XACC_PINF;
    }
}

// 2^e as a double (an infinity above the range; e >= -1074).
__device__ __forceinline__ double xpow2(int e)
{
    if (e > 1023) return __longlong_as_double(0x7ff0000000000000ll);
    if (e >= -1022) return __longlong_as_double((long long)(e + 1023) << 52);
    return __longlong_as_double(1ll << (e + 1074));
}

// The tile's exact prefix R (chunks in any form, below 2^63 in magnitude,
// not normalized) as a fast sum with a rigorous bound, by one warp, the
// result in every lane. R = sum_k d_k 2^(32k + unit) with d_k = (low 32
// bits of chunk k) + (chunk k-1 >> 32), integers below 2^34 in magnitude:
// each term is exact in a double, and the terms are added in any order,
// since each addition's rounding enters the bound. An f64 term beyond the
// double range gives an infinite or NaN sum, which certifies nothing (the
// outputs then come from the exact accumulator). Cheaper than rounding R
// (xresync: normalization, two roundings) on one thread while the block
// waits.
template <typename T> __device__ __forceinline__ xfast xstart_warp(const int64_t *R)
{
    typedef pp_xfmt<T> F;
    const int lane = threadIdx.x & 31;
    xfast f = {0.0, 0.0, 0.0};
    for (int k = lane; k <= F::CHUNKS; k += 32) {
        const int64_t lo = k < F::CHUNKS ? (int64_t)((uint64_t)R[k] & PP_XACC_LOW32) : 0;
        const int64_t hi = k > 0 ? R[k - 1] >> 32 : 0; // floor division by 2^32
        const int64_t d = lo + hi;
        if (d) f = xcombine<T>(f, xfast{(double)d * xpow2(32 * k + F::UNIT), 0.0, 0.0});
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const xfast g = {__shfl_xor_sync(0xffffffffu, f.hi, o), __shfl_xor_sync(0xffffffffu, f.lo, o),
                         __shfl_xor_sync(0xffffffffu, f.err, o)};
        f = xcombine<T>(f, g);
    }
    return f;
}

// The inclusive scan of (fast sum, special flags) over a warp.
template <typename T> __device__ __forceinline__ void xwarp_scan_fast(xfast &f, unsigned &fl)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const xfast o = {__shfl_up_sync(0xffffffffu, f.hi, d), __shfl_up_sync(0xffffffffu, f.lo, d),
                         __shfl_up_sync(0xffffffffu, f.err, d)};
        const unsigned of = __shfl_up_sync(0xffffffffu, fl, d);
        if (lane >= d) {
            f = xcombine<T>(o, f);
            fl |= of;
        }
    }
}

// The exact fallback, by the whole warp: for each lane of mask (in lane
// order), the exact sum of the tile's first upto elements (that lane's
// upto), read from src (the tile's input in global memory, untouched
// until the block stores its outputs at the end, also in place), is
// folded by all 32 lanes into the warp's accumulator w (pp_xthread_fold: the
// reduce's per-lane expansions, coalesced loads), the tile's prefix R is
// added, and that lane gets the rounding in bits and its fast sum
// restarted from the exact value. A lane folding alone would take
// thousands of dependent steps, which made the few tiles with a near-tie
// the scan's critical path.
template <typename T>
__device__ __noinline__ void xwarp_fallback(unsigned mask, int upto, int64_t *w, const int64_t *R, const T *src, bool vec,
                                            xfast &f, unsigned long long &bits)
{
    typedef pp_xfmt<T> F;
    const int lane = threadIdx.x & 31;
    while (mask) {
        const int who = __ffs(mask) - 1;
        mask &= mask - 1;
        const int u = __shfl_sync(0xffffffffu, upto, who);
        for (int c = lane; c < F::WORDS; c += 32) w[c] = 0;
        __syncwarp();
        unsigned fl = 0;
        pp_xthread_fold<T>(src, (size_t)u, 0, 1, vec, w, fl); // ends renormalized, the warp synchronized
        fl = pp_warp_reduce<unsigned, Op_or>(fl);
        if (lane == who) {
            for (int c = 0; c < F::CHUNKS; c++) w[c] += R[c]; // |w| < 2^33 after the fold, |R| < 2^62
            w[F::CHUNKS] = R[F::CHUNKS] | fl;
            w[F::CHUNKS + 1] = 0;
            bits = pp_xround<T>(w);
            f = xresync<T>(w);
        }
        __syncwarp();
    }
}

} // namespace

#endif
