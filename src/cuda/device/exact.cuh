// Device-side building blocks of PP_ALGO_EXACT (cuda_exact.cu): the exact
// accumulator of src/core/exact_acc.h compiled as __device__ code, and the
// warp-level exact partial sums that keep deposits rare. (The folds of a
// warp's batches: exact_fold.cuh; the scan's certified fast sums:
// exact_fast.cuh.)
//
// The accumulator's layout, deposits, normalization and the one rounding
// are exact_acc.h's (docs/exact.md is the specification); it compiles for
// the device as it is, with PP_XACC_FN = __device__ static inline. This
// file must be the first to include exact_acc.h in a translation unit.
//
// Warp batches. A warp loads a batch of 32 * V elements (f64: 256, f32:
// 512) into registers, finds the batch's exponent range with two warp
// reductions, and forms the batch's exact sum in one or two doubles:
//  * f64, fast: with e = the exponent above max |x| and L the exponent of
//    the least nonzero |x| (subnormals count as the smallest normal
//    binade: they are multiples of 2^-1074 too), e - L <= 32 and
//    -1000 <= e <= 1011: one error-free split by C = 1.5 * 2^(e + K),
//    K = 11: the h = (x + C) - C and the x - h of a batch (at most 2^(K-1)
//    elements) each add up exactly, in any order (the proof in
//    docs/exact.md, "Keeping deposits rare", for blocks of 1024).
//  * f32, fast: e - L <= 53 - 24 - 9 = 20 binades: the plain double sum
//    of the batch's 2^9 elements is exact.
//  * otherwise, if the batch has no NaN or infinity and max |x| < 2^1011:
//    level by level (each level takes 41 bits off every remainder, one
//    deposit per level), as cpu_exact.inc's xlevels, with the level sums
//    reduced over the warp (exact: multiples of ulp(C) far below 2^53 of
//    them);
//  * else (NaN, infinities, all zeros, f64 beyond 2^1011) element by
//    element.
// Every path adds the batch's exact value to the warp's accumulator, so
// the integer does not depend on which path a batch took.
//
// Headroom. Each warp owns an accumulator in shared memory (deposits with
// shared 64-bit atomics: lanes of one warp may deposit together in the
// element-by-element path). A deposit adds less than 2^52 to a chunk; the
// warp counts (an upper bound of) its deposits since the last
// normalization and renormalizes (pp_xwarp_renorm) before a batch could
// take it beyond PP_XACC_DEPOSITS, so a chunk stays below
// 2^33 + 1024 * 2^52 < 2^63.
#ifndef PP_CUDA_DEVICE_EXACT_CUH
#define PP_CUDA_DEVICE_EXACT_CUH

#ifdef PP_EXACT_ACC_H
#error "device/exact.cuh must be the first to include exact_acc.h (PP_XACC_FN)"
#endif
#define PP_XACC_FN __device__ static inline
#include "exact_acc.h"

#include <stdint.h>

#include "block_scan.cuh"
#include "warp_scan.cuh"

constexpr int PP_XK_DEV = 11;       // headroom bits of a split (batches of at most 2^(K-1) elements)
constexpr int PP_XE_MIN_DEV = -1000; // f64 one-split path: e >= this

// Per format: element type, bits, words, chunks, unit, batch shape.
template <typename T> struct pp_xfmt;
template <> struct pp_xfmt<double> {
    typedef unsigned long long bits_t;
    static constexpr int CHUNKS = PP_XACC_F64_CHUNKS;
    static constexpr int WORDS = PP_XACC_F64_WORDS;
    static constexpr int UNIT = PP_XACC_F64_UNIT;
    static constexpr int V = 8;                // elements per lane per batch
    static constexpr int VEC = 2;              // elements per 16-byte vector
    static constexpr int BATCH = 32 * V;       // 256
};
template <> struct pp_xfmt<float> {
    typedef unsigned int bits_t;
    static constexpr int CHUNKS = PP_XACC_F32_CHUNKS;
    static constexpr int WORDS = PP_XACC_F32_WORDS;
    static constexpr int UNIT = PP_XACC_F32_UNIT;
    static constexpr int V = 16;
    static constexpr int VEC = 4;
    static constexpr int BATCH = 32 * V;       // 512
};

// ---- accumulators in shared memory ---------------------------------------------------

// Deposit of (neg ? -1 : 1) * mag * 2^pos units into the chunks at w (the
// chunk arithmetic of pp_xacc_deposit, without its count: the caller
// keeps the count), with shared or global 64-bit atomics.
__device__ __forceinline__ void pp_xdeposit_atomic(int64_t *w, uint64_t mag, int pos, int neg)
{
    const int i = pos >> 5, s = pos & 31;
    int64_t lo = (int64_t)((mag << s) & PP_XACC_LOW32);
    int64_t hi = (int64_t)(s ? mag >> (32 - s) : mag >> 32);
    if (neg) lo = -lo, hi = -hi;
    if (lo) atomicAdd((unsigned long long *)&w[i], (unsigned long long)lo);
    if (hi) atomicAdd((unsigned long long *)&w[i + 1], (unsigned long long)hi);
}

// pp_xacc_add_exact_double with an atomic deposit (v finite, a multiple of
// 2^unit).
__device__ __forceinline__ void pp_xadd_double_atomic(int64_t *w, int unit, double v)
{
    const uint64_t bits = (uint64_t)__double_as_longlong(v);
    const int ef = (int)((bits >> 52) & 0x7ff);
    uint64_t mag = (bits & (((uint64_t)1 << 52) - 1)) | (ef ? (uint64_t)1 << 52 : 0);
    if (!mag) return;
    int pos = (ef ? ef - 1075 : -1074) - unit;
    if (pos < 0) {
        mag >>= -pos;
        pos = 0;
    }
    pp_xdeposit_atomic(w, mag, pos, (int)(bits >> 63));
}

// One element (its bits) into the chunks at w (atomically) and the flags
// register fl, as pp_xacc_add_f64 / _f32.
__device__ __forceinline__ void pp_xadd_elem_atomic(int64_t *w, unsigned &fl, double x)
{
    const uint64_t bits = (uint64_t)__double_as_longlong(x);
    const int ef = (int)((bits >> 52) & 0x7ff), neg = (int)(bits >> 63);
    const uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    if (ef == 0x7ff) {
        fl |= frac ? PP_XACC_NAN : neg ? PP_XACC_NINF : PP_XACC_PINF;
        return;
    }
    if (bits != (uint64_t)1 << 63) fl |= PP_XACC_NOT_NEG0;
    if (ef) pp_xdeposit_atomic(w, frac | (uint64_t)1 << 52, ef - 1, neg);
    else if (frac) pp_xdeposit_atomic(w, frac, 0, neg);
}
__device__ __forceinline__ void pp_xadd_elem_atomic(int64_t *w, unsigned &fl, float x)
{
    const uint32_t bits = (uint32_t)__float_as_uint(x);
    const int ef = (int)((bits >> 23) & 0xff), neg = (int)(bits >> 31);
    const uint64_t frac = bits & ((1u << 23) - 1);
    if (ef == 0xff) {
        fl |= frac ? PP_XACC_NAN : neg ? PP_XACC_NINF : PP_XACC_PINF;
        return;
    }
    if (bits != 0x80000000u) fl |= PP_XACC_NOT_NEG0;
    if (ef) pp_xdeposit_atomic(w, frac | (uint64_t)1 << 23, ef - 1, neg);
    else if (frac) pp_xdeposit_atomic(w, frac, 0, neg);
}

// Called by a whole warp on the chunks (n of them) at w, which only this
// warp touches: carries every chunk's bits above 32 one chunk up. The
// value is unchanged; afterwards chunks 0..n-2 are in [-2^31, 2^32 + 2^31)
// (not the unique normal form, which only the rounding needs: it
// normalizes by itself). Ends with the warp synchronized.
__device__ __forceinline__ void pp_xwarp_renorm(int64_t *w, int n)
{
    const int lane = threadIdx.x & 31;
    __syncwarp(); // every lane's deposits so far are visible
    int64_t v[3];
#pragma unroll
    for (int k = 0; k < 3; k++) v[k] = lane + 32 * k < n ? w[lane + 32 * k] : 0;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int c = lane + 32 * k;
        if (c < n - 1) w[c] = (int64_t)((uint64_t)v[k] & PP_XACC_LOW32);
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int c = lane + 32 * k;
        // arithmetic shift: floor division by 2^32, what normalize carries
        if (c < n - 1 && (v[k] >> 32)) atomicAdd((unsigned long long *)&w[c + 1], (unsigned long long)(v[k] >> 32));
    }
    __syncwarp();
}

// ---- a warp's batch --------------------------------------------------------------------

// Exponent key of an element for the batch's range: the biased exponent
// field (f64: of the high word) in the high bits. kmax: |x| as ordered
// bits (f64: the high word); kmin: the same with subnormals raised to the
// smallest normal binade and zeros (and absent elements) at the top.
__device__ __forceinline__ void pp_xkeys(double x, unsigned &kmax, unsigned &kmin)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(x);
    const unsigned hw = (unsigned)(b >> 32) & 0x7fffffffu;
    kmax = hw;
    const bool nz = (b << 1) != 0;
    kmin = nz ? (hw < 0x00100000u ? 0x00100000u : hw) : 0xffffffffu;
}
__device__ __forceinline__ void pp_xkeys(float x, unsigned &kmax, unsigned &kmin)
{
    const unsigned a = __float_as_uint(x) & 0x7fffffffu;
    kmax = a;
    kmin = a ? (a < 0x00800000u ? 0x00800000u : a) : 0xffffffffu;
}

// Level by level (cpu_exact.inc xlevels): r holds this lane's V
// remainders (as doubles, no NaN or infinity), mx the warp's max |r| > 0,
// below 2^1011. Lane 0 deposits each level's exact sum. Returns the
// number of deposits (the same in every lane).
template <int V>
__device__ __forceinline__ int pp_xwarp_levels(int64_t *w, int unit, double (&r)[V], double mx)
{
    int levels = 0;
    const int lane = threadIdx.x & 31;
    while (mx > 0.0) {
        const double c = pp_xacc_split_const(pp_xacc_exp_above(mx) + PP_XK_DEV);
        double s = 0.0, m = 0.0;
#pragma unroll
        for (int j = 0; j < V; j++) {
            const double h = (r[j] + c) - c, q = r[j] - h;
            r[j] = q;
            s += h;
            m = fmax(m, fabs(q));
        }
        s = pp_warp_reduce<double, Op_sum>(s); // exact in any order: multiples of ulp(c), far below 2^53 ulp(c)
        mx = pp_warp_reduce<double, Op_max>(m); // magnitudes: no NaN here
        if (lane == 0) pp_xadd_double_atomic(w, unit, s);
        levels++;
    }
    return levels;
}

// Adds a warp's batch (this lane's V elements x, valid: the bits of the
// present ones; absent elements are +0.0 in x) to the warp's accumulator
// w (chunks) and this lane's flags fl. Returns an upper bound of the
// deposits made into any chunk (the same in every lane).
template <typename T, int V>
__device__ __forceinline__ int pp_xwarp_batch(int64_t *w, unsigned &fl, const T (&x)[V], unsigned valid)
{
    typedef pp_xfmt<T> F;
    const int lane = threadIdx.x & 31;
    unsigned kmax = 0, kmin = 0xffffffffu;
#pragma unroll
    for (int j = 0; j < V; j++) {
        unsigned a, b;
        pp_xkeys(x[j], a, b);
        kmax = a > kmax ? a : kmax;
        kmin = b < kmin ? b : kmin;
    }
    kmax = pp_warp_reduce<unsigned, Op_max>(kmax);
    kmin = pp_warp_reduce<unsigned, Op_min>(kmin);
    constexpr int SH = sizeof(T) == 8 ? 20 : 23;
    constexpr unsigned EMAX = sizeof(T) == 8 ? 0x7ffu : 0xffu;
    const int efmax = (int)(kmax >> SH), efmin = (int)(kmin >> SH); // efmin > EMAX: all zero
    if (efmax != (int)EMAX && kmax != 0) { // no NaN or infinity, some nonzero element
        if constexpr (sizeof(T) == 8) {
            const int e = efmax - 1022; // max |x| < 2^e; every nonzero |x| >= 2^(efmin - 1023)
            if (efmax - efmin + 1 <= 32 && e >= PP_XE_MIN_DEV && e + PP_XK_DEV <= 1022) {
                const double c = pp_xacc_split_const(e + PP_XK_DEV);
                double s1 = 0.0, s2 = 0.0;
#pragma unroll
                for (int j = 0; j < V; j++) {
                    const double h = ((double)x[j] + c) - c;
                    s1 += h;
                    s2 += (double)x[j] - h;
                }
                s1 = pp_warp_reduce<double, Op_sum>(s1); // exact in any order
                s2 = pp_warp_reduce<double, Op_sum>(s2); // exact in any order
                if (lane == 0) {
                    pp_xadd_double_atomic(w, F::UNIT, s1);
                    pp_xadd_double_atomic(w, F::UNIT, s2);
                    fl |= PP_XACC_NOT_NEG0;
                }
                return 2;
            }
        } else {
            if (efmax - efmin + 1 <= 53 - 24 - 9) { // 2^9 elements: the double sum is exact
                double s = 0.0;
#pragma unroll
                for (int j = 0; j < V; j++) s += (double)x[j];
                s = pp_warp_reduce<double, Op_sum>(s); // exact in any order
                if (lane == 0) {
                    pp_xadd_double_atomic(w, F::UNIT, s);
                    fl |= PP_XACC_NOT_NEG0;
                }
                return 1;
            }
        }
        // max |x| < 2^(efmax - bias + 1); levels need it below 2^1011
        if (sizeof(T) == 4 || efmax <= 2033) {
            double r[V], m = 0.0;
#pragma unroll
            for (int j = 0; j < V; j++) {
                r[j] = (double)x[j];
                m = fmax(m, fabs(r[j]));
            }
            const double mx = pp_warp_reduce<double, Op_max>(m); // magnitudes: no NaN here
            if (lane == 0) fl |= PP_XACC_NOT_NEG0;
            return pp_xwarp_levels<V>(w, F::UNIT, r, mx);
        }
    }
    // element by element (NaN, infinities, all zeros, huge values)
#pragma unroll
    for (int j = 0; j < V; j++)
        if (valid >> j & 1) pp_xadd_elem_atomic(w, fl, x[j]);
    return 32 * V;
}

// ---- a thread's expansion -------------------------------------------------------------

// A thread's running exact sum, the first level of Collange, Defour,
// Graillat and Iakymchuk's scheme (ExBLAS): a[0] + ... + a[K-1], plus what
// the thread has deposited, is exactly the sum of the elements it has
// taken. Each element passes through up to K error-free additions; a level
// runs only where the one above left an error, and an error left after
// the last is deposited. On smooth data the error after a[0] lands exactly
// in a[1] (uniform f64 in [0, 1): never a deposit), so the cost is two
// error-free additions per element and no memory traffic. K = 4 holds 212
// bits: a lane that sums values near 2^110 and residues down to 2^-92
// (the cancellation benchmark) deposits rarely.
//
// The error-free addition (pp_xexp_two_sum) is TwoSum for f64 and, for
// f32, Fast2Sum on the operands ordered by magnitude (|big| >= |small|:
// t = big + small, e = small - (t - big) is exact: four FP64 operations
// and two selects). While t does not overflow, no operation of either
// does (Boldo, Graillat and Muller, 2017).
//
// Special values: an element whose a[0] + x is not finite (NaN, an
// infinity, or an f64 sum that overflows) goes alone into the accumulator
// (pp_xadd_elem_atomic), so the accumulator's words (chunks and flags,
// what pp_exact_accumulate returns) are those of every other backend even
// for such inputs. (Leaving the f32 test to the end, from a[0]'s final
// value, rounds alike but loses the chunks and NOT_NEG0 beside a NaN.)
// The terms stay finite: the lower ones are sums of errors below
// ulp(DBL_MAX) / 2 = 2^970, of fewer than 2^45 elements per thread.
// a[0] starts at -0.0, so that it is -0.0 at the end exactly when every
// element taken was -0.0 (any other element, or a cancellation, makes it
// +0.0 or nonzero): the NOT_NEG0 flag without a test per element.
constexpr int PP_XEXP_TERMS = 4;
struct pp_xexp {
    double a[PP_XEXP_TERMS];
    int dep; // deposits made since the warp last renormalized
};

__device__ __forceinline__ double pp_xfast_two_sum(double a, double x, double &e)
{
    const bool ge = fabs(a) >= fabs(x);
    const double big = ge ? a : x, small = ge ? x : a;
    const double t = big + small;
    e = small - (t - big);
    return t;
}

// pp_xadd_double_atomic out of line (rare).
template <typename T> __device__ __noinline__ void pp_xexp_deposit(int64_t *w, double v)
{
    pp_xadd_double_atomic(w, pp_xfmt<T>::UNIT, v);
}

// An error-free addition as each format runs it fastest (bench/studies/exact.md,
// "Exact float sums on cuda, second design"): f64 errors are almost never
// zero (53-bit inputs), so TwoSum runs unconditionally into a[1]; f32
// errors usually are (a double holds a sum of f32 values exactly over 29
// binades), so the ordered Fast2Sum runs and each lower level only where
// an error was left.
template <typename T> __device__ __forceinline__ double pp_xexp_two_sum(double a, double x, double &e)
{
    if constexpr (sizeof(T) == 8) return pp_xacc_two_sum(a, x, &e); // six FP64 operations, no compare or select
    else return pp_xfast_two_sum(a, x, e);
}

template <typename T> __device__ __forceinline__ void pp_xexp_add(pp_xexp &s, int64_t *w, unsigned &fl, T x)
{
    const double v = (double)x;
    double e;
    const double t = pp_xexp_two_sum<T>(s.a[0], v, e);
    if (!(fabs(t) <= 0x1.fffffffffffffp1023)) { // NaN, an infinity, or (f64) overflow: not in the expansion
        pp_xadd_elem_atomic(w, fl, x);
        s.dep++;
        return;
    }
    s.a[0] = t;
#pragma unroll
    for (int k = 1; k < PP_XEXP_TERMS; k++) {
        if ((sizeof(T) == 4 || k > 1) && e == 0.0) return;
        s.a[k] = pp_xexp_two_sum<T>(s.a[k], e, e);
    }
    if (e != 0.0) {
        pp_xexp_deposit<T>(w, e);
        s.dep++;
    }
}

// The expansion into the accumulator and the flags (PP_XEXP_TERMS
// deposits).
template <typename T> __device__ __forceinline__ void pp_xexp_flush(const pp_xexp &s, int64_t *w, unsigned &fl)
{
    if ((unsigned long long)__double_as_longlong(s.a[0]) != 0x8000000000000000ull) fl |= PP_XACC_NOT_NEG0;
#pragma unroll
    for (int k = 0; k < PP_XEXP_TERMS; k++) pp_xadd_double_atomic(w, pp_xfmt<T>::UNIT, s.a[k]);
}

// Rounds the (any-form, not overflowing) accumulator w (chunks, then the
// flags word) to the bits of the format: out of line, as it needs a
// 70-word copy and many registers. Static: one copy per translation unit
// that includes this header.
static __device__ __noinline__ unsigned long long pp_xround_f64(const int64_t *w) { return pp_xacc_bits_f64(w); }
static __device__ __noinline__ unsigned pp_xround_f32(const int64_t *w) { return pp_xacc_bits_f32(w); }

// The same for the element type T, and those bits stored as a T.
template <typename T> __device__ __forceinline__ unsigned long long pp_xround(const int64_t *w)
{
    if constexpr (sizeof(T) == 8) return pp_xround_f64(w);
    else return pp_xround_f32(w);
}

template <typename T> __device__ __forceinline__ void pp_xstore_bits(T *out, unsigned long long bits)
{
    if constexpr (sizeof(T) == 8) *out = __longlong_as_double((long long)bits);
    else *out = __uint_as_float((unsigned)bits);
}

// ---- scans of accumulators ------------------------------------------------------------
// Block c: words c of the accumulators vals[c * slots .. + slots) (word-
// major) become their exclusive prefix: the chunks summed without carries
// (normalized chunks are below 2^32, so fewer than 2^31 slots fit), the
// flags word (c == chunks) ORed, the count word stays 0. Launch with
// one block of BLOCK threads per word (PP_XWORDS_BLOCK, PP_XWORDS_ITEMS).
// (cuda_exact.cu's and cuda_half.cu's scans; a template, so that every
// translation unit including this header may instantiate it.)
constexpr int PP_XWORDS_BLOCK = 1024;
constexpr int PP_XWORDS_ITEMS = 8;
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) pp_xwords_kernel(int64_t *vals, size_t slots, int chunks)
{
    __shared__ int64_t smem[BLOCK / 32];
    int64_t *v = vals + (size_t)blockIdx.x * slots;
    if ((int)blockIdx.x == chunks)
        pp_block_exclusive_inplace<int64_t, Op_or, BLOCK, ITEMS>(v, slots, smem);
    else
        pp_block_exclusive_inplace<int64_t, Op_sum, BLOCK, ITEMS>(v, slots, smem);
}

#endif
