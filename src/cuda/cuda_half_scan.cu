// cuda: the half types' PP_SUM scan (pp_scan of PP_F16 / PP_BF16;
// parprim.h, "Half precision"): every output the exact sum of its prefix
// rounded once, bit for bit the cpu's and opencl's. Tiles of HT elements,
// a block of HB threads with HI consecutive elements each; three launches:
//  1. htile_sums: each tile's exact accumulator (device/half.cuh: each
//     thread's elements through hwin, the block's words by hblock_words),
//     word-major in scratch;
//  2. pp_xwords_kernel: the tiles' exclusive prefixes, word by word, then
//     htile_heads: each prefix P as the nearest double Ph (and whether
//     that is exact), a thread per tile;
//  3. htile_scan: per tile, the prefixes L within the tile in doubles (a
//     thread's own, then a block scan of the threads' totals), each
//     addition's exactness tracked (two-sum) with a bound on the error
//     where one was not; each output from S = Ph + L: rounded once
//     (hround) where S is exact; else where every value within S's error
//     bound rounds the same (certified: all but near-ties); else (rare)
//     from the exact accumulator, P's words plus the tile's elements up to
//     there, deposited one by one.
// f16 sums of a tile are exact in doubles (any 2^13 f16 are: hwin), so
// there only an inexact Ph can send an output to the bound; bf16 sums are
// where the tile's exponents span at most about 45 binades.
// Special values and zeros: the doubles carry them as the accumulator's
// rules say (a NaN, or both infinities: NaN, rounded to the quiet NaN;
// the sign of an exact zero as IEEE addition gives it, -0.0 where every
// element is -0.0); an exclusive scan's out[0] is +0.0.
// The tile is staged in shared memory before anything is written, so the
// scan may run in place and the rare exact path reads its inputs there.
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/half.cuh"
#include "device/util.cuh"

namespace
{
using namespace pp_half_dev;

constexpr int HI = 16;            // elements per thread
constexpr int HT = HB * HI;       // elements per tile: 4096, within hwin's exact f16 count
constexpr int HS_SUMS_PER_SM = 4; // blocks of (1) per SM (no spills at 64 registers)
constexpr int HS_SCAN_PER_SM = 2; // blocks of (3) per SM (its prefixes take 128 registers)

// s = a + b, and whether that was exact (two-sum: the error is zero).
__device__ __forceinline__ double add_ok(double a, double b, unsigned &ok)
{
    const double s = a + b, bb = s - a;
    ok &= ((a - (s - bb)) + (b - bb)) == 0.0;
    return s;
}

// Loads the HI elements of thread tid of a tile at x (len elements, a
// whole tile where len == HT) as half bits into h.
__device__ __forceinline__ void hload(const uint16_t *x, size_t len, int tid, unsigned (&h)[HI])
{
    const size_t b = (size_t)tid * HI;
    if (len == HT && ((uintptr_t)(x + b) & 15u) == 0) {
        const uint4 *v = reinterpret_cast<const uint4 *>(x + b);
#pragma unroll
        for (int k = 0; k < HI / 8; k++) {
            const uint4 q = __ldcs(v + k);
            const unsigned u[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                h[k * 8 + 2 * j] = u[j] & 0xffffu;
                h[k * 8 + 2 * j + 1] = u[j] >> 16;
            }
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < HI; j++) h[j] = b + j < len ? x[b + j] : 0x8000u; // absent: -0.0
}

// The block's sum of the threads' v (from -0.0) into *out (thread 0's),
// and whether every addition was exact (all threads see it). sd, so:
// shared scratch of HB / 32.
__device__ __forceinline__ unsigned block_sum_ok(double v, unsigned ok, double *sd, unsigned *so, double *out)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const double u = __shfl_down_sync(0xffffffffu, v, d);
        ok &= __shfl_down_sync(0xffffffffu, ok, d);
        if (lane < d) v = add_ok(v, u, ok);
    }
    if (lane == 0) {
        sd[warp] = v;
        so[warp] = ok;
    }
    __syncthreads();
    double t = -0.0;
    unsigned tok = 1;
    for (int k = 0; k < HB / 32; k++) {
        t = add_ok(t, sd[k], tok);
        tok &= so[k];
    }
    *out = t;
    __syncthreads(); // sd is read before it is written again
    return tok;
}

// (1) vals[c * tiles + t] = word c of tile t's accumulator: the tile's sum
// in doubles where that was exact (f16 always: 4096 of them; bf16 where
// the tile's exponents span at most about 45 binades: its special values
// and sign of zero then IEEE's, which are the accumulator's), else each
// thread's elements through hwin and the block's words by hblock_words.
template <int BF>
__global__ void __launch_bounds__(HB, HS_SUMS_PER_SM)
    htile_sums(const uint16_t *x, size_t n, int64_t *vals, size_t tiles)
{
    __shared__ int64_t sw[HW][HB / 32];
    __shared__ double sd[HB / 32];
    __shared__ unsigned so[HB / 32];
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t tb = t * HT, len = n - tb < (size_t)HT ? n - tb : HT;
        unsigned h[HI];
        hload(x + tb, len, threadIdx.x, h);
        double v = -0.0;
        unsigned ok = 1;
#pragma unroll
        for (int j = 0; j < HI; j++)
            v = add_ok(v,
                       BF ? (double)__uint_as_float(h[j] << 16)
                          : (double)__half2float(__ushort_as_half((unsigned short)h[j])),
                       ok);
        double sum;
        if (block_sum_ok(v, ok, sd, so, &sum)) {
            if (threadIdx.x == 0) {
                int64_t w[HW];
                pp_xacc_clear(w, HC);
                if (isnan(sum))
                    w[HC] = PP_XACC_NAN;
                else if (isinf(sum))
                    w[HC] = sum > 0 ? PP_XACC_PINF : PP_XACC_NINF;
                else {
                    if (!(sum == 0 && signbit(sum))) w[HC] = PP_XACC_NOT_NEG0;
                    if (sum != 0) pp_xacc_add_exact_double(w, HC, PP_XACC_F32_UNIT, sum);
                    pp_xacc_normalize(w, HC);
                }
                for (int c = 0; c < HW; c++) vals[(size_t)c * tiles + t] = c == HC + 1 ? 0 : w[c];
            }
            continue; // uniform: every thread saw the same answer
        }
        int64_t w[HW];
        pp_xacc_clear(w, HC);
        hwin<BF> win;
#pragma unroll
        for (int j = 0; j < HI; j++)
            if ((size_t)threadIdx.x * HI + j < len) win.add(w, h[j]);
        win.flush(w);
        pp_xacc_normalize(w, HC);
        w[HC] |= (int64_t)win.fl;
        hblock_words(w, sw, vals + t, tiles);
    }
}

// The value of half bits h as a double (exact; infinities and NaN kept).
template <int BF> __device__ __forceinline__ double hdouble(unsigned h)
{
    return BF ? (double)__uint_as_float(h << 16) : (double)__half2float(__ushort_as_half((unsigned short)h));
}

// (2b) heads[t] = tile t's exclusive prefix P (vals, after (2)) as the
// nearest double, hexact[t] = whether that is P exactly; NaN or an
// infinity where P's flags say; a zero P: -0.0 where no element so far
// is anything but -0.0 (an empty prefix too: adds nothing), else +0.0.
__global__ void __launch_bounds__(HB) htile_heads(const int64_t *vals, size_t tiles, double *heads, unsigned *hexact)
{
    for (size_t t = (size_t)blockIdx.x * HB + threadIdx.x; t < tiles; t += (size_t)gridDim.x * HB) {
        int64_t w[HW];
        for (int c = 0; c < HW; c++) w[c] = vals[(size_t)c * tiles + t];
        pp_xacc_normalize(w, HC);
        const int64_t fl = w[HC];
        double ph;
        unsigned pex = 1;
        if ((fl & PP_XACC_NAN) || ((fl & PP_XACC_PINF) && (fl & PP_XACC_NINF))) {
            ph = __longlong_as_double(0x7ff8000000000000ll);
        } else if (fl & PP_XACC_PINF) {
            ph = __longlong_as_double(0x7ff0000000000000ll);
        } else if (fl & PP_XACC_NINF) {
            ph = __longlong_as_double((long long)0xfff0000000000000ull);
        } else {
            ph = pp_xacc_f32_to_double(w);
            if (ph == 0.0) {
                ph = (fl & PP_XACC_NOT_NEG0) ? 0.0 : -0.0;
            } else {
                pp_xacc_add_exact_double(w, HC, PP_XACC_F32_UNIT, -ph);
                pp_xacc_normalize(w, HC);
                for (int c = 0; c < HC; c++) pex &= w[c] == 0;
            }
        }
        heads[t] = ph;
        hexact[t] = pex;
    }
}

// The block's exclusive scan of the threads' (v, a, ok): v's prefix (from
// -0.0), a's (the error bound's magnitudes, from 0), and whether every
// addition of v's was exact and every thread before was ok. sd, sa, so:
// shared scratch of HB / 32.
__device__ __forceinline__ void block_exclusive(double &v, double &a, unsigned &ok, double *sd, double *sa,
                                                unsigned *so)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double iv = v, ia = a;
    unsigned iok = ok;
    for (int d = 1; d < 32; d <<= 1) { // inclusive within the warp
        const double uv = __shfl_up_sync(0xffffffffu, iv, d), ua = __shfl_up_sync(0xffffffffu, ia, d);
        const unsigned uok = __shfl_up_sync(0xffffffffu, iok, d);
        if (lane >= d) {
            unsigned k = iok & uok;
            iv = add_ok(uv, iv, k);
            ia = ua + ia;
            iok = k;
        }
    }
    if (lane == 31) {
        sd[warp] = iv;
        sa[warp] = ia;
        so[warp] = iok;
    }
    // the exclusive prefix within the warp
    double ev = __shfl_up_sync(0xffffffffu, iv, 1), ea = __shfl_up_sync(0xffffffffu, ia, 1);
    unsigned eok = __shfl_up_sync(0xffffffffu, iok, 1);
    if (lane == 0) ev = -0.0, ea = 0.0, eok = 1;
    __syncthreads();
    double wv = -0.0, wa = 0.0; // the warps before, in order
    unsigned wok = 1;
    for (int k = 0; k < warp; k++) {
        wv = add_ok(wv, sd[k], wok);
        wa += sa[k];
        wok &= so[k];
    }
    unsigned k = eok & wok;
    v = add_ok(wv, ev, k);
    a = wa + ea;
    ok = k;
}

// The rare output that no double certifies: P's words sp plus the tile's
// elements sx[0 .. upto) deposited one by one, rounded once. Not inlined:
// its accumulator stays out of the scan's registers.
__device__ __noinline__ unsigned hexact_bits(const int64_t *sp, const uint16_t *sx, size_t upto, int bf, int prec,
                                             int shift)
{
    int64_t w[HW];
    for (int c = 0; c < HW; c++) w[c] = sp[c];
    pp_xacc_normalize(w, HC);
    for (size_t k = 0; k < upto; k++) pp_xacc_add_f32(w, bf ? pp_xacc_bf16_to_f32(sx[k]) : pp_xacc_f16_to_f32(sx[k]));
    return pp_xacc_bits_half(w, prec, shift);
}

// (3) the outputs of every tile from its exclusive prefix's words
// (vals, after (2)); prec, shift: the format's (pp_xacc_bits_half).
template <int BF>
__global__ void __launch_bounds__(HB, HS_SCAN_PER_SM)
    htile_scan(const uint16_t *x, uint16_t *y, size_t n, int excl, const int64_t *vals, const double *heads,
               const unsigned *hexact, size_t tiles, int prec, int shift)
{
    __shared__ uint16_t sx[HT];
    __shared__ int64_t sp[HW];
    __shared__ double sd[HB / 32], sa[HB / 32];
    __shared__ unsigned so[HB / 32];
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t tb = t * HT, len = n - tb < (size_t)HT ? n - tb : HT;
        unsigned h[HI];
        hload(x + tb, len, threadIdx.x, h);
#pragma unroll
        for (int j = 0; j < HI; j++) sx[threadIdx.x * HI + j] = (uint16_t)h[j];
        if (threadIdx.x < HW) sp[threadIdx.x] = vals[(size_t)threadIdx.x * tiles + t];
        // the thread's own prefixes (inclusive), their magnitudes, and
        // okj's bit j: whether every addition up to element j was exact
        double loc[HI], mags[HI], s = -0.0, mag = 0.0;
        unsigned ok = 1, okj = 0;
#pragma unroll
        for (int j = 0; j < HI; j++) {
            const double v = hdouble<BF>(h[j]); // absent elements: -0.0
            s = add_ok(s, v, ok);
            mag += fabs(v);
            loc[j] = s;
            mags[j] = mag;
            okj |= ok << j;
        }
        double ex = s, ea = mag;
        unsigned exok = ok;
        block_exclusive(ex, ea, exok, sd, sa, so); // ends with a __syncthreads behind it: sp is there
        const double ph = heads[t];
        const unsigned pex = hexact[t];
        const double dp = pex ? 0.0 : fabs(ph) * 0x1p-52;
        const size_t i0 = (size_t)threadIdx.x * HI;
        unsigned out[HI];
#pragma unroll
        for (int j = 0; j < HI; j++) {
            // L: the tile's prefix up to this element (exclusive: before it)
            // the thread's elements in the prefix: up to j (exclusive: before j); constant indices
            unsigned lok = exok & (excl ? (j ? okj >> (j - 1) & 1u : 1u) : okj >> j & 1u);
            const double lj = excl ? (j ? loc[j - 1] : -0.0) : loc[j];
            const double lmag = excl ? (j ? mags[j - 1] : 0.0) : mags[j];
            const double l = add_ok(ex, lj, lok);
            const double S = ph + l, bb = S - ph, e = (ph - (S - bb)) + (l - bb);
            unsigned bits;
            if (!isfinite(S)) {
                bits = hround(S, BF);
            } else if (pex && lok && e == 0.0) {
                bits = hround(S, BF);
            } else { // certified where every value within the bound rounds the same
                const double E = (dp + fabs(e) + (lok ? 0.0 : (ea + lmag) * 0x1p-40)) * (1.0 + 0x1p-20);
                const unsigned lo = hround(__dsub_rd(S, E), BF), hi = hround(__dadd_ru(S, E), BF);
                if (lo == hi) {
                    bits = lo;
                } else { // the exact accumulator: P plus the tile's elements up to here
                    bits = hexact_bits(sp, sx, i0 + j + (excl ? 0 : 1), BF, prec, shift);
                }
            }
            out[j] = excl && tb + i0 + j == 0 ? 0u : bits; // an exclusive scan's out[0]: +0.0
        }
        if (len == HT && ((uintptr_t)(y + tb + i0) & 15u) == 0) {
            uint4 *v = reinterpret_cast<uint4 *>(y + tb + i0);
#pragma unroll
            for (int k = 0; k < HI / 8; k++)
                v[k] = make_uint4(out[k * 8] | out[k * 8 + 1] << 16, out[k * 8 + 2] | out[k * 8 + 3] << 16,
                                  out[k * 8 + 4] | out[k * 8 + 5] << 16, out[k * 8 + 6] | out[k * 8 + 7] << 16);
        } else {
#pragma unroll
            for (int j = 0; j < HI; j++)
                if (i0 + j < len) y[tb + i0 + j] = (uint16_t)out[j];
        }
        __syncthreads(); // the tile's shared data is read before the next tile's
    }
}

template <int BF> pp_status half_scan_launch(pp_context *ctx, const pp_scan_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n, tiles = ceil_div(n, (size_t)HT); // n > 0 (the core returns before n == 0)
    pp_cuda_state *s = pp_cuda(ctx);
    if (tiles >= ((size_t)1 << 31)) // the chunk sums of (2) stay below 2^63
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large for a half-type scan", fn, n);
    // scratch: the tiles' words, then their heads (doubles) and exactness
    int64_t *vals = (int64_t *)pp_cuda_scratch(ctx, tiles * (HW * sizeof(int64_t) + sizeof(double) + 4), fn);
    if (!vals) return PP_ERROR_OUT_OF_MEMORY;
    double *heads = (double *)(vals + tiles * HW);
    unsigned *hexact = (unsigned *)(heads + tiles);
    const uint16_t *x = (const uint16_t *)a->in;
    htile_sums<BF><<<grid_for(tiles, pp_cuda_resident(s, HS_SUMS_PER_SM)), HB, 0, s->stream>>>(x, n, vals, tiles);
    PP_CUDA_LAUNCHED(ctx, fn);
    pp_xwords_kernel<PP_XWORDS_BLOCK, PP_XWORDS_ITEMS><<<HW, PP_XWORDS_BLOCK, 0, s->stream>>>(vals, tiles, HC);
    PP_CUDA_LAUNCHED(ctx, fn);
    htile_heads<<<grid_for(ceil_div(tiles, (size_t)HB), pp_cuda_resident(s, 2)), HB, 0, s->stream>>>(vals, tiles, heads,
                                                                                                     hexact);
    PP_CUDA_LAUNCHED(ctx, fn);
    htile_scan<BF><<<grid_for(tiles, pp_cuda_resident(s, HS_SCAN_PER_SM)), HB, 0, s->stream>>>(
        x, (uint16_t *)a->out, n, a->kind == PP_EXCLUSIVE, vals, heads, hexact, tiles, PP_HALF_PREC(a->type),
        PP_HALF_SHIFT(a->type));
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_half_scan(pp_context *ctx, const pp_scan_args *a)
{
    return a->type == PP_BF16 ? half_scan_launch<1>(ctx, a) : half_scan_launch<0>(ctx, a);
}
