// cuda: the half types' PP_SUM scan (pp_scan and pp_scan_init of PP_F16 /
// PP_BF16; parprim.h, "Half precision"): every output the exact sum of its
// prefix (and init) rounded once, bit for bit the cpu's and opencl's.
// f16: one pass (hscan16): every prefix within a sub-tile of 8192 is exact
// in a double and the tiles' exclusive prefixes (a tile: two sub-tiles)
// travel exactly through the decoupled look-back (device/lookback.cuh) as
// 92-bit integers, so each output is one double addition and one rounding
// (the f16 section says why that is exact).
// bf16 (exponents over 254 binades: no fixed integer holds its sums):
// tiles of HT elements, a block of HB threads with HI consecutive elements
// each; three launches:
//  1. htile_sums: each tile's exact accumulator (device/half.cuh: each
//     thread's elements through hwin, the block's words by hblock_words),
//     word-major in scratch;
//  2. pp_xwords_kernel: the tiles' exclusive prefixes, word by word, then
//     htile_heads: each prefix P (plus init) as the nearest double Ph (and
//     whether that is exact), a thread per tile;
//  3. htile_scan: per tile, the prefixes L within the tile in doubles (a
//     thread's own, then a block scan of the threads' totals), each
//     addition's exactness tracked (two-sum) with a bound on the error
//     where one was not; each output from S = Ph + L: rounded once
//     (hround) where S is exact; else where every value within S's error
//     bound rounds the same (certified: all but near-ties); else (rare)
//     from the exact accumulator, P's words plus the tile's elements up to
//     there, deposited one by one.
// A tile's sums are exact in doubles where its exponents span at most
// about 45 binades.
// Special values and zeros: the doubles carry them as the accumulator's
// rules say (a NaN, or both infinities: NaN, rounded to the quiet NaN;
// the sign of an exact zero as IEEE addition gives it, -0.0 where every
// element is -0.0); an exclusive scan's out[0] is +0.0, or init itself.
// Each tile is read whole before any of it is written, so the scan may
// run in place; bf16's rare exact path reads its inputs from shared memory.
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/half.cuh"
#include "device/lookback.cuh"
#include "device/util.cuh"

namespace
{
using namespace pp_half_dev;

constexpr int HI = 16;            // elements per thread
constexpr int HT = HB * HI;       // elements per tile: 4096, within hwin's exact f16 count
constexpr int HS_SUMS_PER_SM = 4; // blocks of (1) per SM (no spills at 64 registers)
constexpr int HS_SCAN_PER_SM = 4; // blocks of (3) per SM (64 registers, a few spilled: faster than 2 or 3)

// s = a + b, and whether that was exact (two-sum: the error is zero).
__device__ __forceinline__ double add_ok(double a, double b, unsigned &ok)
{
    const double s = a + b, bb = s - a;
    ok &= ((a - (s - bb)) + (b - bb)) == 0.0;
    return s;
}

// Loads the HI elements of thread tid of a tile at x (len elements, a
// whole tile where len == TILE) as half bits into h.
template <int TILE = HT>
__device__ __forceinline__ void hload(const uint16_t *x, size_t len, int tid, unsigned (&h)[HI])
{
    const size_t b = (size_t)tid * HI;
    if (len == TILE && ((uintptr_t)(x + b) & 15u) == 0) {
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

// The value of half bits h as a double (exact; infinities and NaN kept).
template <int BF> __device__ __forceinline__ double hdouble(unsigned h)
{
    return BF ? (double)__uint_as_float(h << 16) : (double)__half2float(__ushort_as_half((unsigned short)h));
}

// An exclusive scan's out[0]: +0.0, or pp_scan_init's init itself.
__device__ __forceinline__ unsigned hexcl0(const uint16_t *init)
{
    return init ? *init : 0u;
}

// Stores the HI outputs of the thread whose first is i0 of a tile at y
// (len elements, a whole tile where len == TILE).
template <int TILE>
__device__ __forceinline__ void hstore(uint16_t *y, size_t len, size_t i0, const unsigned (&out)[HI])
{
    if (len == TILE && ((uintptr_t)(y + i0) & 15u) == 0) {
        uint4 *v = reinterpret_cast<uint4 *>(y + i0);
#pragma unroll
        for (int k = 0; k < HI / 8; k++)
            v[k] = make_uint4(out[k * 8] | out[k * 8 + 1] << 16, out[k * 8 + 2] | out[k * 8 + 3] << 16,
                              out[k * 8 + 4] | out[k * 8 + 5] << 16, out[k * 8 + 6] | out[k * 8 + 7] << 16);
    } else {
#pragma unroll
        for (int j = 0; j < HI; j++)
            if (i0 + j < len) y[i0 + j] = (uint16_t)out[j];
    }
}

// ---- f16: one pass with a decoupled look-back ---------------------------------
// Every finite f16 is a multiple of 2^-24 below 2^16 in magnitude, so any
// prefix of a sub-tile of FT = 8192 of them is exact in a double (below
// 2^29), and so is P + L for an exclusive prefix P of the sub-tile below
// 2^29 and a prefix L within it, wherever that sum is below 2^29; where it
// is not, it (and its double) rounds to an infinity. A P of 2^29 or more
// is replaced by 2^40 of its sign: every P + L is then beyond f16's range
// either way (|L| < 2^29 - 2^18). Specials and the signs of zeros are IEEE addition's,
// the accumulator's rules. So each output is one double addition and one
// rounding, nothing certified. Across tiles the look-back carries P
// exactly: hpfx, units of 2^-24 as a 92-bit integer and the accumulator's
// flags. Tiles of two sub-tiles (16384 elements) ran faster than of one
// or four (bench/studies/half.md).

constexpr int FB = 512;     // threads per block
constexpr int FT = FB * HI; // elements per sub-tile: 8192
constexpr int FSUB = 2;     // sub-tiles per tile (per look-back step)
constexpr int F_PER_SM = 2;

// w[0], w[1]: the low 64 bits; w[2]: the high 28 bits (signed) above the
// four PP_XACC flags.
struct hpfx {
    uint32_t w[3];
};
struct Op_hpfx {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        const unsigned long long al = a.w[0] | (unsigned long long)a.w[1] << 32,
                                 l = al + (b.w[0] | (unsigned long long)b.w[1] << 32);
        const int hi = ((int)a.w[2] >> 4) + ((int)b.w[2] >> 4) + (l < al);
        T r;
        r.w[0] = (uint32_t)l;
        r.w[1] = (uint32_t)(l >> 32);
        r.w[2] = (uint32_t)hi << 4 | ((a.w[2] | b.w[2]) & 15u);
        return r;
    }
    template <typename T> __device__ __forceinline__ static T identity()
    {
        T r;
        r.w[0] = r.w[1] = r.w[2] = 0;
        return r;
    }
};

// The exact double v (a sum of f16s below 2^29, or a special) as an hpfx.
__device__ __forceinline__ hpfx hpfx_of(double v)
{
    hpfx r;
    unsigned fl = 0;
    long long u = 0;
    if (isnan(v)) fl = PP_XACC_NAN;
    else if (isinf(v)) fl = v > 0 ? PP_XACC_PINF : PP_XACC_NINF;
    else u = __double2ll_rn(v * 0x1p24);
    if (!(v == 0 && signbit(v))) fl |= PP_XACC_NOT_NEG0;
    r.w[0] = (uint32_t)u;
    r.w[1] = (uint32_t)((unsigned long long)u >> 32);
    r.w[2] = (uint32_t)(u < 0 ? -1 : 0) << 4 | fl;
    return r;
}

// P as the double the outputs start from: NaN or an infinity where its
// flags say; a zero: -0.0 where every element so far is -0.0; below 2^29:
// exactly; else 2^40 of its sign.
__device__ __forceinline__ double hpfx_head(hpfx p)
{
    const unsigned fl = p.w[2] & 15u;
    if ((fl & PP_XACC_NAN) || ((fl & PP_XACC_PINF) && (fl & PP_XACC_NINF)))
        return __longlong_as_double(0x7ff8000000000000ll);
    if (fl & PP_XACC_PINF) return __longlong_as_double(0x7ff0000000000000ll);
    if (fl & PP_XACC_NINF) return __longlong_as_double((long long)0xfff0000000000000ull);
    const long long lo = (long long)(p.w[0] | (unsigned long long)p.w[1] << 32);
    const int hi = (int)p.w[2] >> 4;
    if (hi != (lo < 0 ? -1 : 0) || lo >= (1ll << 53) || lo <= -(1ll << 53)) return hi < 0 ? -0x1p40 : 0x1p40;
    if (lo == 0) return (fl & PP_XACC_NOT_NEG0) ? 0.0 : -0.0;
    return (double)lo * 0x1p-24;
}

// The f16 bits of the double v rounded once: the quiet NaN for a NaN.
__device__ __forceinline__ unsigned hround16(double v)
{
    return isnan(v) ? 0x7e00u : (unsigned)__half_as_ushort(__double2half(v));
}

// One tile of FSUB x FT elements per block (grid = tiles, a ticket each):
// FSUB sub-tiles of FT, each summed exactly in doubles, their exact sum
// the tile's aggregate; init: pp_scan_init's (tile 0 publishes init plus
// its sum), else NULL.
__global__ void __launch_bounds__(FB, F_PER_SM)
    hscan16(const uint16_t *x, uint16_t *y, size_t n, int excl, const uint16_t *init, pp_lookback<hpfx> lb,
            unsigned long long *ticket, unsigned long long tbase)
{
    __shared__ double sd[FSUB][FB / 32];
    __shared__ double shead[FSUB];
    const unsigned long long t = pp_take_tile(ticket, tbase);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned hp[FSUB][HI / 2]; // the elements' bits, two per word
    double ex[FSUB], total[FSUB];
#pragma unroll
    for (int k = 0; k < FSUB; k++) {
        const size_t sb = ((size_t)t * FSUB + k) * FT, len = n > sb ? (n - sb < (size_t)FT ? n - sb : FT) : 0;
        unsigned h[HI];
        hload<FT>(x + sb, len, threadIdx.x, h); // absent elements: -0.0
        double s = -0.0;
#pragma unroll
        for (int j = 0; j < HI; j++) s += hdouble<0>(h[j]);
#pragma unroll
        for (int j = 0; j < HI / 2; j++) hp[k][j] = h[2 * j] | h[2 * j + 1] << 16;
        // the block's exclusive prefix of the threads' sums (exact: any order)
        double inc = s;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const double u = __shfl_up_sync(0xffffffffu, inc, d);
            if (lane >= d) inc += u;
        }
        if (lane == 31) sd[k][warp] = inc;
        ex[k] = __shfl_up_sync(0xffffffffu, inc, 1);
        if (lane == 0) ex[k] = -0.0;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < FSUB; k++) {
        double before = -0.0, tot = -0.0;
#pragma unroll
        for (int w = 0; w < FB / 32; w++) {
            if (w < warp) before += sd[k][w];
            tot += sd[k][w];
        }
        ex[k] = before + ex[k];
        total[k] = tot;
    }
    if (warp == 0) {
        hpfx agg = hpfx_of(total[0]);
#pragma unroll
        for (int k = 1; k < FSUB; k++) agg = Op_hpfx::apply(agg, hpfx_of(total[k]));
        hpfx p = Op_hpfx::identity<hpfx>();
        if (t == 0 && init) {
            p = hpfx_of(hdouble<0>(*init));
            (void)pp_lookback_prefix<hpfx, Op_hpfx>(lb, 0, Op_hpfx::apply(p, agg));
        } else {
            p = pp_lookback_prefix<hpfx, Op_hpfx>(lb, t, agg);
        }
        if (lane == 0) {
#pragma unroll
            for (int k = 0; k < FSUB; k++) {
                shead[k] = hpfx_head(p);
                p = Op_hpfx::apply(p, hpfx_of(total[k]));
            }
        }
    }
    __syncthreads();
    const size_t i0 = (size_t)threadIdx.x * HI;
#pragma unroll
    for (int k = 0; k < FSUB; k++) {
        const size_t sb = ((size_t)t * FSUB + k) * FT;
        if (sb >= n) break;
        const size_t len = n - sb < (size_t)FT ? n - sb : FT;
        double r = shead[k] + ex[k]; // the running sum: exact, or beyond f16's range
        unsigned out[HI];
#pragma unroll
        for (int j = 0; j < HI; j++) {
            const double d = hdouble<0>(j & 1 ? hp[k][j / 2] >> 16 : hp[k][j / 2] & 0xffffu);
            if (excl) {
                out[j] = sb + i0 + j == 0 ? hexcl0(init) : hround16(r);
                r += d;
            } else {
                r += d;
                out[j] = hround16(r);
            }
        }
        hstore<FT>(y + sb, len, i0, out);
    }
}

pp_status hscan16_launch(pp_context *ctx, const pp_scan_args *a)
{
    const char *fn = a->fn;
    const size_t tiles = ceil_div(a->n, (size_t)FT * FSUB);
    if (tiles >= ((size_t)1 << 31))
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large for a half-type scan", fn, a->n);
    pp_lookback<hpfx> lb;
    unsigned long long tbase = 0;
    const pp_status st = pp_lookback_setup(ctx, tiles, false, &lb, &tbase, fn);
    if (st != PP_SUCCESS) return st;
    return pp_cuda_launched_tickets(
        ctx, fn,
        pp_cuda_launch(ctx, hscan16, (unsigned)tiles, FB, 0, (const uint16_t *)a->in, (uint16_t *)a->out, a->n,
                       a->kind == PP_EXCLUSIVE ? 1 : 0, (const uint16_t *)a->init, lb, pp_cuda(ctx)->ticket, tbase));
}

// ---- bf16: three launches -----------------------------------------------------

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
            v = add_ok(v, hdouble<1>(h[j]), ok);
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
        hwin<1> win;
#pragma unroll
        for (int j = 0; j < HI; j++)
            if ((size_t)threadIdx.x * HI + j < len) win.add(w, h[j]);
        win.flush(w);
        pp_xacc_normalize(w, HC);
        w[HC] |= (int64_t)win.fl;
        hblock_words(w, sw, vals + t, tiles);
    }
}

// (2b) heads[t] = tile t's exclusive prefix P (vals, after (2), plus
// *init where there is one: pp_scan_init) as the nearest double,
// hexact[t] = whether that is P exactly; NaN or an infinity where P's
// flags say; a zero P: -0.0 where no element so far is anything but -0.0
// (an empty prefix too: adds nothing), else +0.0.
__global__ void __launch_bounds__(HB) htile_heads(const int64_t *vals, size_t tiles, const uint16_t *init,
                                                  double *heads, unsigned *hexact)
{
    for (size_t t = (size_t)blockIdx.x * HB + threadIdx.x; t < tiles; t += (size_t)gridDim.x * HB) {
        int64_t w[HW];
        for (int c = 0; c < HW; c++) w[c] = vals[(size_t)c * tiles + t];
        if (init) pp_xacc_add_f32(w, hwiden(*init, 1));
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

// The rare output that no double certifies: P's words sp (and *init,
// where there is one) plus the tile's elements sx[0 .. upto) deposited
// one by one, rounded once. Not inlined: its accumulator stays out of the
// scan's registers.
__device__ __noinline__ unsigned hexact_bits(const int64_t *sp, const uint16_t *init, const uint16_t *sx, size_t upto,
                                             int prec, int shift)
{
    int64_t w[HW];
    for (int c = 0; c < HW; c++) w[c] = sp[c];
    if (init) pp_xacc_add_f32(w, hwiden(*init, 1));
    pp_xacc_normalize(w, HC);
    for (size_t k = 0; k < upto; k++) pp_xacc_add_f32(w, hwiden(sx[k], 1));
    return pp_xacc_bits_half(w, prec, shift);
}

// An output whose double S = Ph + L is not exact (rare where exponents
// cluster): certified where every value within S's error bound (dp: Ph's;
// e: the double addition's; where L was not exact, (the block's
// magnitudes before the thread, ea, plus the thread's own up to here)
// 2^-40) rounds the same, else from the exact accumulator. cnt: the
// thread's elements in L (from sx[i0]). Not inlined: the scan's fast path
// keeps its registers.
__device__ __noinline__ unsigned hcertified(double S, double e, double dp, unsigned lok, double ea,
                                            const uint16_t *sx, size_t i0, int cnt, const int64_t *sp,
                                            const uint16_t *init, int prec, int shift)
{
    double lmag = 0.0;
    for (int k = 0; k < cnt; k++) lmag += fabs(hdouble<1>(sx[i0 + k]));
    const double E = (dp + fabs(e) + (lok ? 0.0 : (ea + lmag) * 0x1p-40)) * (1.0 + 0x1p-20);
    const unsigned lo = hround(__dsub_rd(S, E), 1), hi = hround(__dadd_ru(S, E), 1);
    return lo == hi ? lo : hexact_bits(sp, init, sx, i0 + cnt, prec, shift);
}

// (3) the outputs of every tile from its exclusive prefix's words
// (vals, after (2)) and init; prec, shift: the format's
// (pp_xacc_bits_half).
__global__ void __launch_bounds__(HB, HS_SCAN_PER_SM)
    htile_scan(const uint16_t *x, uint16_t *y, size_t n, int excl, const uint16_t *init, const int64_t *vals,
               const double *heads, const unsigned *hexact, size_t tiles, int prec, int shift)
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
        // the thread's own prefixes (inclusive), and okj's bit j: whether
        // every addition up to element j was exact
        double loc[HI], s = -0.0, mag = 0.0;
        unsigned ok = 1, okj = 0;
#pragma unroll
        for (int j = 0; j < HI; j++) {
            const double v = hdouble<1>(h[j]); // absent elements: -0.0
            s = add_ok(s, v, ok);
            mag += fabs(v);
            loc[j] = s;
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
            const double l = add_ok(ex, lj, lok);
            const double S = ph + l, bb = S - ph, e = (ph - (S - bb)) + (l - bb);
            const int cnt = j + (excl ? 0 : 1); // the thread's elements in L
            const unsigned bits = !isfinite(S) || (pex && lok && e == 0.0)
                                      ? hround(S, 1)
                                      : hcertified(S, e, dp, lok, ea, sx, i0, cnt, sp, init, prec, shift);
            out[j] = excl && tb + i0 + j == 0 ? hexcl0(init) : bits;
        }
        hstore<HT>(y + tb, len, i0, out);
        __syncthreads(); // the tile's shared data is read before the next tile's
    }
}

pp_status bf16_scan_launch(pp_context *ctx, const pp_scan_args *a)
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
    htile_sums<<<grid_for(tiles, pp_cuda_resident(s, HS_SUMS_PER_SM)), HB, 0, s->stream>>>(x, n, vals, tiles);
    PP_CUDA_LAUNCHED(ctx, fn);
    pp_xwords_kernel<PP_XWORDS_BLOCK, PP_XWORDS_ITEMS><<<HW, PP_XWORDS_BLOCK, 0, s->stream>>>(vals, tiles, HC);
    PP_CUDA_LAUNCHED(ctx, fn);
    htile_heads<<<grid_for(ceil_div(tiles, (size_t)HB), pp_cuda_resident(s, 2)), HB, 0, s->stream>>>(
        vals, tiles, (const uint16_t *)a->init, heads, hexact);
    PP_CUDA_LAUNCHED(ctx, fn);
    htile_scan<<<grid_for(tiles, pp_cuda_resident(s, HS_SCAN_PER_SM)), HB, 0, s->stream>>>(
        x, (uint16_t *)a->out, n, a->kind == PP_EXCLUSIVE, (const uint16_t *)a->init, vals, heads, hexact, tiles,
        PP_HALF_PREC(a->type),
        PP_HALF_SHIFT(a->type));
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_half_scan(pp_context *ctx, const pp_scan_args *a)
{
    return a->type == PP_BF16 ? bf16_scan_launch(ctx, a) : hscan16_launch(ctx, a);
}
