// Device building blocks of the half types (PP_F16, PP_BF16) on cuda,
// shared by cuda_half.cu (reduce, segmented sums) and cuda_half_scan.cu:
// the widening to f32 bits, the per-thread exact fold (hwin), the block's
// accumulator from its threads' (hblock_words) and the one rounding of an
// exact double to a half format (hround).
#ifndef PP_CUDA_DEVICE_HALF_CUH
#define PP_CUDA_DEVICE_HALF_CUH

#include <cuda_fp16.h>

#include "exact.cuh" // it includes exact_acc.h for the device
#include "warp_scan.cuh"

namespace pp_half_dev
{

constexpr int HB = 256;                // threads per block
constexpr int HC = PP_XACC_F32_CHUNKS; // chunks of the accumulator
constexpr int HW = PP_XACC_F32_WORDS;  // its words: chunks, flags, deposit count

__device__ __forceinline__ uint32_t hwiden(uint16_t h, int bf)
{
    return bf ? pp_xacc_bf16_to_f32(h) : pp_xacc_f16_to_f32(h);
}

// The reduce's per-thread fold: a double that stays exact (hwin), added to
// the thread's exact accumulator w (one deposit) every so many elements
// and at the end. Every finite f16 is a multiple of 2^-24 below 2^16, so
// any HWIN_F16 = 2^13 of them sum to a multiple of 2^-24 below 2^29: each
// partial sum has at most 53 significant bits, and double addition is
// exact (infinities and NaN fall out as IEEE addition gives them, which is
// the accumulator's rule, and so does the sign of a zero sum). A bf16
// (exponent field e1, 1 for subnormals; significand m < 2^8) is a multiple
// of 2^(e1 - 134) below 2^(e1 - 126): the elements of fields in a window
// [base, base + 32] add exactly into the double, HWIN_BF16 = 2^12 of them
// staying below 2^(base - 134 + 53). The window starts at the first
// element's field and moves up (a deposit first) when a larger one comes;
// an element below it (rare where the data's exponents cluster) is
// deposited alone; infinities and NaN go to the flags.
constexpr int HWIN_F16 = 8192, HWIN_BF16 = 4096;

template <int BF> struct hwin {
    double s = -0.0; // -0.0: adds nothing, not even to a sum of -0.0
    int base = 1, top = BF ? 0 : 30, cnt = 0;
    unsigned fl = 0;

    __device__ __forceinline__ void flush(int64_t *w)
    {
        if (!BF) { // the double's specials and sign of zero are the elements' (bf16: set per element)
            if (isnan(s))
                fl |= PP_XACC_NAN;
            else if (isinf(s))
                fl |= s > 0 ? PP_XACC_PINF : PP_XACC_NINF;
            else if (!(s == 0 && signbit(s)))
                fl |= PP_XACC_NOT_NEG0;
        }
        if (s != 0 && isfinite(s)) pp_xacc_add_exact_double(w, HC, PP_XACC_F32_UNIT, s);
        s = -0.0;
        cnt = 0;
    }

    // f16: a double d holding such an exact sum of at most HWIN_F16 of
    // them (the elements' specials and sign of zero in it), flushed and
    // reset to -0.0.
    __device__ __forceinline__ void flush_part(int64_t *w, double &d)
    {
        const double keep = s;
        const int kept = cnt;
        s = d;
        flush(w);
        s = keep;
        cnt = kept;
        d = -0.0;
    }

    __device__ __forceinline__ void add(int64_t *w, unsigned h)
    {
        if (!BF) {
            s += (double)__half2float(__ushort_as_half((unsigned short)h));
            if (++cnt == HWIN_F16) flush(w);
            return;
        }
        const int e = (int)((h >> 7) & 0xffu), neg = (int)(h >> 15);
        if (e == 0xff) {
            fl |= (h & 0x7fu) ? PP_XACC_NAN : neg ? PP_XACC_NINF : PP_XACC_PINF;
            return;
        }
        if (h != 0x8000u) fl |= PP_XACC_NOT_NEG0;
        const int e1 = e ? e : 1;
        if (e1 > top) { // the window moves up
            flush(w);
            top = e1 + 8 < 0xfe ? e1 + 8 : 0xfe;
            base = top - 32 > 1 ? top - 32 : 1;
        }
        if (e1 >= base) {
            s += (double)__uint_as_float(h << 16);
            if (++cnt == HWIN_BF16) flush(w);
        } else if (h & 0x7fffu) {
            pp_xacc_deposit(w, HC, (h & 0x7fu) | (e ? 0x80u : 0u), e1 + 15, neg);
        }
    }
};

// The block's accumulator from its HB threads' normalized accumulators w
// (chunks without carries: 256 below 2^40; flags ORed): word c at
// dst[c * stride]: each warp's words by shuffles, then HW threads add the
// warps'. Called by every thread; sw: shared scratch.
__device__ __forceinline__ void hblock_words(const int64_t *w, int64_t (*sw)[HB / 32], int64_t *dst, size_t stride)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int c = 0; c < HW; c++) {
        const int64_t v = c == HC ? pp_warp_reduce<int64_t, Op_or>(w[c]) : pp_warp_reduce<int64_t, Op_sum>(w[c]);
        if (lane == 0) sw[c][warp] = v;
    }
    __syncthreads();
    if (threadIdx.x < HW) {
        const int c = threadIdx.x;
        int64_t s = 0;
        for (int k = 0; k < HB / 32; k++) s = c == HC ? (s | sw[c][k]) : s + sw[c][k];
        dst[(size_t)c * stride] = c == HC + 1 ? 0 : s;
    }
    __syncthreads(); // sw is read before it is written again
}

// The half bits (bf: bf16, else f16) of the double v rounded once to
// nearest, ties to even: subnormals, overflow to the infinity of v's sign,
// the sign of a zero kept, NaN the format's quiet NaN.
__device__ __forceinline__ unsigned hround(double v, int bf)
{
    const uint64_t b = (uint64_t)__double_as_longlong(v);
    const unsigned sign = (unsigned)(b >> 48) & 0x8000u;
    const int ed = (int)((b >> 52) & 0x7ff), FB = bf ? 7 : 10, BIAS = bf ? 127 : 15;
    const unsigned inf = bf ? 0x7f80u : 0x7c00u;
    if (ed == 0x7ff) return (b << 12) ? (bf ? 0x7fc0u : 0x7e00u) : sign | inf;
    if (ed == 0) return sign; // zero, or a double subnormal: far below the halves' least
    const uint64_t m = (b & (((uint64_t)1 << 52) - 1)) | (uint64_t)1 << 52;
    const int eh = ed - 1023 + BIAS;                    // the half's biased exponent, if normal
    const int shift = 52 - FB + (eh <= 0 ? 1 - eh : 0); // bits of m below the half's last
    if (shift > 60) return sign;                        // below half the least subnormal
    uint64_t q = m >> shift;
    const uint64_t rem = m & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    // normal: the field eh - 1 plus q's leading bit (a carry of q moves it up); subnormal: q
    uint64_t bits = eh <= 0 ? q : ((uint64_t)(eh - 1) << FB) + q;
    if (bits >= inf) bits = inf;
    return sign | (unsigned)bits;
}

} // namespace pp_half_dev

#endif
