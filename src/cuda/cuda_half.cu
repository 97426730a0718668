// cuda: the half types' slots (PP_F16, PP_BF16; parprim.h, "Half
// precision"), whatever algorithm is chosen: bit for bit the cpu's and
// opencl's results.
//
// Sums: every element's bits are widened to the f32 bits of the same
// value (exact_acc.h, pp_xacc_f16_to_f32 / pp_xacc_bf16_to_f32) and added
// to an f32 exact accumulator; each output is one rounding of an exact
// sum to the half format (pp_xacc_bits_half). The scan favours plain,
// obviously correct code over speed: every element is one deposit.
//  * reduce: each thread folds its grid-strided elements into a private
//    accumulator through a double that stays exact (hwin: a conversion
//    and an add per element, a deposit every few thousand), then
//    normalizes it (chunks in [0, 2^32)); a block adds its
//    threads' chunks without carries (256 of them stay below 2^40) into
//    its partial, word-major in scratch; a warp per word adds the
//    partials (at most HR_MAX_BLOCKS, below 2^50 per chunk), one thread
//    rounds once.
//  * scan: (1) one thread per tile of HS_TILE elements: the tile's
//    normalized accumulator, word-major; (2) one block per word: the
//    tiles' exclusive prefixes (chunk sums without carries, below 2^63 for
//    fewer than 2^31 tiles; the flags word ORed); (3) one thread per tile:
//    from its prefix, each element added and each output rounded.
// Min / max: integer min and max of order keys (-0.0 below +0.0), NaN
// seen: the quiet NaN (as cpu_half.c and half.cl). Segmented sums (the
// PP_ALGO_EXACT segmented slot's half types): a warp per segment, one
// rounding each (plain: a long segment is one warp's). Sorts: the order keys
// of half_key.h (core/half_sort.c sorts them with the u16 sort); the
// widening to f32 and back for core/half_wide.c.
#include <cuda_fp16.h>

#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/util.cuh"
#include "device/warp_scan.cuh"
#include "half_key.h"

namespace
{

constexpr int HB = 256;                  // threads per block
constexpr int HC = PP_XACC_F32_CHUNKS;   // chunks of the accumulator
constexpr int HW = PP_XACC_F32_WORDS;    // its words: chunks, flags, deposit count
constexpr unsigned HR_MAX_BLOCKS = 1024; // reduce: partials hsum_final adds
constexpr int HR_PER_THREAD = 16;        // reduce: elements per thread, at least, before the cap
constexpr int HS_TILE = 1024;            // scan: elements per tile (one thread each)

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
            if (isnan(s)) fl |= PP_XACC_NAN;
            else if (isinf(s)) fl |= s > 0 ? PP_XACC_PINF : PP_XACC_NINF;
            else if (!(s == 0 && signbit(s))) fl |= PP_XACC_NOT_NEG0;
        }
        if (s != 0 && isfinite(s)) pp_xacc_add_exact_double(w, HC, PP_XACC_F32_UNIT, s);
        s = -0.0;
        cnt = 0;
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

// part[c * gridDim.x + block] = word c of the block's partial sum. The
// threads read 16-byte vectors (8 elements) where in is so aligned.
template <int BF> __global__ void __launch_bounds__(HB) hsum_blocks(const uint16_t *in, size_t n, int64_t *part)
{
    __shared__ int64_t sw[HW][HB + 1];
    int64_t w[HW];
    pp_xacc_clear(w, HC);
    hwin<BF> win;
    const size_t tid = (size_t)blockIdx.x * HB + threadIdx.x, stride = (size_t)gridDim.x * HB;
    size_t done = 0;
    if (((uintptr_t)in & 15u) == 0) {
        const size_t nv = n / 8;
        const uint4 *v = reinterpret_cast<const uint4 *>(in);
        for (size_t i = tid; i < nv; i += stride) {
            const uint4 q = __ldcs(v + i);
            const unsigned u[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int k = 0; k < 4; k++) {
                win.add(w, u[k] & 0xffffu);
                win.add(w, u[k] >> 16);
            }
        }
        done = nv * 8;
    }
    for (size_t i = done + tid; i < n; i += stride) win.add(w, in[i]);
    win.flush(w);
    pp_xacc_normalize(w, HC);
    w[HC] |= (int64_t)win.fl;
    for (int c = 0; c < HW; c++) sw[c][threadIdx.x] = w[c];
    __syncthreads();
    if (threadIdx.x < HW) {
        const int c = threadIdx.x;
        int64_t s = 0;
        for (int k = 0; k < HB; k++) s = c == HC ? (s | sw[c][k]) : s + sw[c][k];
        part[(size_t)c * gridDim.x + blockIdx.x] = c == HC + 1 ? 0 : s;
    }
}

// out[0] = the rounding of the sum of the G partials: warp c adds word c
// of every partial (chunks without carries, flags ORed), thread 0 rounds.
__global__ void __launch_bounds__(HW * 32) hsum_final(const int64_t *part, unsigned G, int prec, int shift, uint16_t *out)
{
    __shared__ int64_t sw[HW];
    const int c = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    int64_t v = 0;
    for (unsigned b = (unsigned)lane; b < G; b += 32) {
        const int64_t x = part[(size_t)c * G + b];
        v = c == HC ? (v | x) : v + x;
    }
    v = c == HC ? pp_warp_reduce<int64_t, Op_or>(v) : pp_warp_reduce<int64_t, Op_sum>(v);
    if (lane == 0) sw[c] = c == HC + 1 ? 0 : v;
    __syncthreads();
    if (threadIdx.x == 0) {
        int64_t w[HW];
        for (int k = 0; k < HW; k++) w[k] = sw[k];
        out[0] = (uint16_t)pp_xacc_bits_half(w, prec, shift);
    }
}

// (scan 1) vals[c * tiles + t] = word c of tile t's normalized accumulator.
__global__ void __launch_bounds__(HB) hscan_tile_sums(const uint16_t *in, size_t n, int bf, int64_t *vals, size_t tiles)
{
    const size_t t = (size_t)blockIdx.x * HB + threadIdx.x;
    if (t >= tiles) return;
    const size_t lo = t * HS_TILE, hi = n - lo < (size_t)HS_TILE ? n : lo + HS_TILE;
    int64_t w[HW];
    pp_xacc_clear(w, HC);
    for (size_t i = lo; i < hi; i++) pp_xacc_add_f32(w, hwiden(in[i], bf));
    pp_xacc_normalize(w, HC);
    for (int c = 0; c < HW; c++) vals[(size_t)c * tiles + t] = w[c];
}

// (scan 3) tile t's outputs from its prefix. In place (x == y) is safe:
// only tile t's thread reads its elements in this kernel, each x[i] before
// it writes y[i], and (1) has read them all before.
__global__ void __launch_bounds__(HB) hscan_tiles(const uint16_t *x, uint16_t *y, size_t n, int bf, int prec, int shift,
                                                  int excl, const int64_t *vals, size_t tiles)
{
    const size_t t = (size_t)blockIdx.x * HB + threadIdx.x;
    if (t >= tiles) return;
    const size_t lo = t * HS_TILE, hi = n - lo < (size_t)HS_TILE ? n : lo + HS_TILE;
    int64_t r[HW];
    for (int c = 0; c < HW; c++) r[c] = vals[(size_t)c * tiles + t];
    r[HC + 1] = 0;
    pp_xacc_normalize(r, HC);
    uint16_t cur = (uint16_t)pp_xacc_bits_half(r, prec, shift);
    for (size_t i = lo; i < hi; i++) {
        const uint16_t v = x[i];
        if (excl) y[i] = cur;
        pp_xacc_add_f32(r, hwiden(v, bf));
        cur = (uint16_t)pp_xacc_bits_half(r, prec, shift);
        if (!excl) y[i] = cur;
    }
    if (excl && t == 0) y[0] = 0; // +0.0
}

// Segmented sums (the PP_ALGO_EXACT segmented slot's half types): out[s]
// = the rounding of segment s's exact sum (+0.0 if empty), one warp per
// segment (grid-strided): each lane folds its lane-strided elements into a
// private accumulator, normalized; the lanes' chunks add without carries
// (32 below 2^32), flags OR; lane 0 rounds once. Offsets are clamped to n
// where read (bad ones: unspecified sums, nothing out of bounds).
__global__ void __launch_bounds__(HB) hseg_sum(const uint16_t *in, size_t n, const uint64_t *off, size_t nseg, int bf,
                                               int prec, int shift, uint16_t *out)
{
    const int lane = threadIdx.x & 31;
    const size_t nwarps = (size_t)gridDim.x * (HB / 32);
    for (size_t s = ((size_t)blockIdx.x * HB + threadIdx.x) / 32; s < nseg; s += nwarps) { // uniform across the warp
        const size_t b = off[s] < n ? (size_t)off[s] : n, e = off[s + 1] < n ? (size_t)off[s + 1] : n;
        int64_t w[HW];
        pp_xacc_clear(w, HC);
        for (size_t i = b + lane; i < e; i += 32) pp_xacc_add_f32(w, hwiden(in[i], bf));
        pp_xacc_normalize(w, HC);
        for (int c = 0; c <= HC; c++)
            w[c] = c == HC ? pp_warp_reduce<int64_t, Op_or>(w[c]) : pp_warp_reduce<int64_t, Op_sum>(w[c]);
        w[HC + 1] = 0;
        if (lane == 0) out[s] = e <= b ? (uint16_t)0 : (uint16_t)pp_xacc_bits_half(w, prec, shift);
    }
}

__device__ __forceinline__ unsigned hkey(unsigned h) { return PP_HALF_ORDER_KEY(h); }

// The sorts' order keys (core/half_sort.c): k[i] = the sort key of x[i] in
// order (a pp_order) for i < n, grid-stride.
__global__ void __launch_bounds__(HB) hsort_keys(const uint16_t *x, size_t n, unsigned inf, int order, uint16_t *k)
{
    const size_t stride = (size_t)gridDim.x * HB;
    for (size_t i = (size_t)blockIdx.x * HB + threadIdx.x; i < n; i += stride) {
        const unsigned h = x[i];
        k[i] = (uint16_t)PP_HALF_SORT_KEY(h, inf, order);
    }
}

// The widening to f32 and back (core/half_wide.c): y[i] = the f32 bits of
// x[i] (widen), or the half bits of the f32 bits x[i] of a half value
// (qnan: every NaN the quiet NaN), for i < n, grid-stride.
__global__ void __launch_bounds__(HB) hwiden_kernel(const uint16_t *x, size_t n, int bf, int keep, uint32_t *y)
{
    const size_t stride = (size_t)gridDim.x * HB;
    for (size_t i = (size_t)blockIdx.x * HB + threadIdx.x; i < n; i += stride)
        y[i] = keep ? pp_xacc_half_to_f32_keep(x[i], bf) : hwiden(x[i], bf);
}

__global__ void __launch_bounds__(HB) hnarrow_kernel(const uint32_t *x, size_t n, int bf, int qnan, uint16_t *y)
{
    const size_t stride = (size_t)gridDim.x * HB;
    for (size_t i = (size_t)blockIdx.x * HB + threadIdx.x; i < n; i += stride)
        y[i] = (uint16_t)pp_xacc_f32_to_half(x[i], bf, qnan);
}

// acc[0] = least key, acc[1] = greatest key, acc[2] = NaN seen (atomics;
// acc set to 0xffff, 0, 0 before).
__global__ void __launch_bounds__(HB) hminmax_kernel(const uint16_t *in, size_t n, unsigned inf, unsigned *acc)
{
    unsigned lo = 0xffffu, hi = 0u, nan = 0u;
    const size_t stride = (size_t)gridDim.x * HB;
    for (size_t i = (size_t)blockIdx.x * HB + threadIdx.x; i < n; i += stride) {
        const unsigned h = in[i], k = hkey(h);
        nan |= (h & 0x7fffu) > inf;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    for (int d = 16; d > 0; d >>= 1) {
        const unsigned l2 = __shfl_xor_sync(0xffffffffu, lo, d), h2 = __shfl_xor_sync(0xffffffffu, hi, d);
        nan |= __shfl_xor_sync(0xffffffffu, nan, d);
        lo = l2 < lo ? l2 : lo;
        hi = h2 > hi ? h2 : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&acc[0], lo);
        atomicMax(&acc[1], hi);
        if (nan) atomicOr(&acc[2], 1u);
    }
}

__global__ void hminmax_init(unsigned *acc)
{
    acc[0] = 0xffffu;
    acc[1] = 0u;
    acc[2] = 0u;
}

__global__ void hminmax_final(const unsigned *acc, int is_max, unsigned nan_bits, uint16_t *out)
{
    const unsigned k = is_max ? acc[1] : acc[0];
    out[0] = (uint16_t)(acc[2] ? nan_bits : (k & 0x8000u) ? (k & 0x7fffu) : (~k & 0xffffu));
}

__global__ void hset(uint16_t *out, unsigned bits) { out[0] = (uint16_t)bits; }

pp_status half_minmax(pp_context *ctx, const pp_reduce_args *a, int prec)
{
    const char *fn = a->fn;
    pp_cuda_state *s = pp_cuda(ctx);
    unsigned *acc = (unsigned *)pp_cuda_scratch(ctx, 3 * sizeof(unsigned), fn);
    if (!acc) return PP_ERROR_OUT_OF_MEMORY;
    const unsigned grid = grid_for(ceil_div(a->n, (size_t)HB * HR_PER_THREAD), pp_cuda_resident(s, 4));
    hminmax_init<<<1, 1, 0, s->stream>>>(acc);
    PP_CUDA_LAUNCHED(ctx, fn);
    hminmax_kernel<<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, PP_XACC_HALF_INF(prec), acc);
    PP_CUDA_LAUNCHED(ctx, fn);
    hminmax_final<<<1, 1, 0, s->stream>>>(acc, a->op == PP_MAX, PP_XACC_HALF_NAN(prec), (uint16_t *)a->out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

pp_status half_sum(pp_context *ctx, const pp_reduce_args *a, int prec)
{
    const char *fn = a->fn;
    pp_cuda_state *s = pp_cuda(ctx);
    size_t cap = pp_cuda_resident(s, 2);
    if (cap > HR_MAX_BLOCKS) cap = HR_MAX_BLOCKS;
    const unsigned grid = grid_for(ceil_div(a->n, (size_t)HB * HR_PER_THREAD), cap);
    int64_t *part = (int64_t *)pp_cuda_scratch(ctx, (size_t)grid * HW * sizeof(int64_t), fn);
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    if (a->type == PP_BF16) hsum_blocks<1><<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, part);
    else hsum_blocks<0><<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, part);
    PP_CUDA_LAUNCHED(ctx, fn);
    hsum_final<<<1, HW * 32, 0, s->stream>>>(part, grid, prec, PP_HALF_SHIFT(a->type), (uint16_t *)a->out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_half_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const int prec = PP_HALF_PREC(a->type);
    if (a->n == 0) { // the identity: +0.0, +inf (min), -inf (max)
        const unsigned id = a->op == PP_SUM   ? 0u
                            : a->op == PP_MIN ? PP_XACC_HALF_INF(prec)
                                              : PP_XACC_HALF_INF(prec) | 0x8000u;
        hset<<<1, 1, 0, pp_cuda(ctx)->stream>>>((uint16_t *)a->out, id);
        PP_CUDA_LAUNCHED(ctx, a->fn);
        return PP_SUCCESS;
    }
    return a->op == PP_SUM ? half_sum(ctx, a, prec) : half_minmax(ctx, a, prec);
}

pp_status pp_cuda_half_scan(pp_context *ctx, const pp_scan_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n; // > 0 (the core returns before n == 0)
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t tiles = ceil_div(n, HS_TILE);
    if (tiles >= ((size_t)1 << 31)) // the chunk sums of (2) stay below 2^63
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large for a half-type scan", fn, n);
    int64_t *vals = (int64_t *)pp_cuda_scratch(ctx, tiles * HW * sizeof(int64_t), fn);
    if (!vals) return PP_ERROR_OUT_OF_MEMORY;
    const uint16_t *x = (const uint16_t *)a->in;
    const int bf = a->type == PP_BF16;
    const unsigned blocks = (unsigned)ceil_div(tiles, HB);
    hscan_tile_sums<<<blocks, HB, 0, s->stream>>>(x, n, bf, vals, tiles);
    PP_CUDA_LAUNCHED(ctx, fn);
    pp_xwords_kernel<PP_XWORDS_BLOCK, PP_XWORDS_ITEMS>
        <<<HW, PP_XWORDS_BLOCK, 0, s->stream>>>(vals, tiles, HC); // (scan 2)
    PP_CUDA_LAUNCHED(ctx, fn);
    hscan_tiles<<<blocks, HB, 0, s->stream>>>(x, (uint16_t *)a->out, n, bf, PP_HALF_PREC(a->type),
                                              PP_HALF_SHIFT(a->type), a->kind == PP_EXCLUSIVE, vals, tiles);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_half_segmented_sum(pp_context *ctx, const pp_segmented_args *a)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned grid = grid_for(ceil_div(a->nseg, (size_t)(HB / 32)), pp_cuda_resident(s, 4));
    hseg_sum<<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, a->offsets, a->nseg, a->type == PP_BF16,
                                         PP_HALF_PREC(a->type), PP_HALF_SHIFT(a->type), (uint16_t *)a->out);
    PP_CUDA_LAUNCHED(ctx, a->fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out,
                            size_t n)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned grid = grid_for(ceil_div(n, (size_t)HB), pp_cuda_resident(s, 8));
    const int bf = type == PP_BF16;
    if (map == PP_HALF_MAP_WIDEN || map == PP_HALF_MAP_WIDEN_KEEP)
        hwiden_kernel<<<grid, HB, 0, s->stream>>>((const uint16_t *)in, n, bf, map == PP_HALF_MAP_WIDEN_KEEP,
                                                  (uint32_t *)out);
    else if (map == PP_HALF_MAP_NARROW || map == PP_HALF_MAP_NARROW_QNAN)
        hnarrow_kernel<<<grid, HB, 0, s->stream>>>((const uint32_t *)in, n, bf, map == PP_HALF_MAP_NARROW_QNAN,
                                                   (uint16_t *)out);
    else
        hsort_keys<<<grid, HB, 0, s->stream>>>((const uint16_t *)in, n, PP_XACC_HALF_INF(PP_HALF_PREC(type)), map,
                                                      (uint16_t *)out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}
