// cuda: the half types' slots (PP_F16, PP_BF16; parprim.h, "Half
// precision"), whatever algorithm is chosen: bit for bit the cpu's and
// opencl's results.
//
// Sums: the elements' exact sum lands in an f32 exact accumulator
// (exact_acc.h); each output is one rounding of an exact sum to the half
// format (pp_xacc_bits_half).
//  * reduce: each thread folds its grid-strided elements into a private
//    accumulator through a double that stays exact (device/half.cuh, hwin: a conversion
//    and an add per element, a deposit every few thousand), then
//    normalizes it (chunks in [0, 2^32)); a block adds its
//    threads' chunks without carries (256 of them stay below 2^40) into
//    its partial, word-major in scratch; a warp per word adds the
//    partials (at most HR_MAX_BLOCKS, below 2^50 per chunk), one thread
//    rounds once.
//  * scan: cuda_half_scan.cu.
// Min / max: integer min and max of order keys (-0.0 below +0.0), NaN
// seen: the quiet NaN (as cpu_half.c and half.cl). Segmented sums (the
// half_segmented_reduce slot): a warp per segment, one rounding each
// (plain: a long segment is one warp's); the segmented scan a thread per
// segment. Sorts: the order keys
// of half_key.h (core/half_sort.c sorts them with the u16 sort); the
// widening to f32 and back for core/half_wide.c.
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/half.cuh"
#include "device/util.cuh"
#include "device/warp_scan.cuh"
#include "half_key.h"

namespace
{
using namespace pp_half_dev;

constexpr unsigned HR_MAX_BLOCKS = 1024; // reduce: partials hsum_final adds
constexpr int HR_PER_THREAD = 16;        // reduce: elements per thread, at least, before the cap
constexpr int HR_PER_SM = 4;             // reduce: blocks per SM, at most (2 and 8 ran slower at 2^28)

// part[c * gridDim.x + block] = word c of the block's partial sum. The
// threads read 16-byte vectors (8 elements) where in is so aligned.
template <int BF> __global__ void __launch_bounds__(HB) hsum_blocks(const uint16_t *in, size_t n, int64_t *part)
{
    __shared__ int64_t sw[HW][HB / 32];
    int64_t w[HW];
    pp_xacc_clear(w, HC);
    hwin<BF> win;
    const size_t tid = (size_t)blockIdx.x * HB + threadIdx.x, stride = (size_t)gridDim.x * HB;
    size_t done = 0;
    if (!BF && ((uintptr_t)in & 15u) == 0) { // f16: four doubles, two loads in flight
        const size_t nv = n / 8;
        const uint4 *v = reinterpret_cast<const uint4 *>(in);
        double acc[4] = {-0.0, -0.0, -0.0, -0.0};
        int vecs = 0; // since the last flush: each double holds 2 per vector, HWIN_F16 at most
        for (size_t i = tid; i < nv; i += 2 * stride) {
            uint4 q[2];
            q[0] = __ldcs(v + i);
            q[1] = i + stride < nv ? __ldcs(v + i + stride)
                                   : make_uint4(0x80008000u, 0x80008000u, 0x80008000u,
                                                0x80008000u); // -0.0: adds nothing
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const unsigned u[4] = {q[r].x, q[r].y, q[r].z, q[r].w};
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    acc[k] += (double)__half2float(__ushort_as_half((unsigned short)(u[k] & 0xffffu)));
                    acc[k] += (double)__half2float(__ushort_as_half((unsigned short)(u[k] >> 16)));
                }
            }
            if ((vecs += 2) >= HWIN_F16 / 2 - 2) {
                for (int k = 0; k < 4; k++) win.flush_part(w, acc[k]);
                vecs = 0;
            }
        }
        for (int k = 0; k < 4; k++) win.flush_part(w, acc[k]);
        done = nv * 8;
    } else if (((uintptr_t)in & 15u) == 0) { // bf16: a vector whose nonzero elements lie in the window
        const size_t nv = n / 8;             // goes to four doubles at once, others element by element
        const uint4 *v = reinterpret_cast<const uint4 *>(in);
        double acc[4] = {-0.0, -0.0, -0.0, -0.0};
        int vecs = 0; // since the last flush: each double holds 2 per vector, HWIN_BF16 at most
        for (size_t i = tid; i < nv; i += stride) {
            const uint4 q = __ldcs(v + i);
            const unsigned u[4] = {q.x, q.y, q.z, q.w};
            // both halves of each word at once: the largest magnitude, the
            // smallest nonzero one less 1 (a zero wraps to 0xffff), and
            // whether any element is not -0.0
            unsigned mx = 0, mn = 0xffffffffu, nz = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned m = u[k] & 0x7fff7fffu;
                mx = __vmaxu2(mx, m);
                mn = __vminu2(mn, __vsub2(m, 0x00010001u));
                nz |= u[k] ^ 0x80008000u;
            }
            mx = max(mx >> 16, mx & 0xffffu);
            mn = min(mn >> 16, mn & 0xffffu);
            // every exponent field at most top, every nonzero element's at
            // least base (a subnormal's counts as 1)
            const unsigned lo = win.base > 1 ? ((unsigned)win.base << 7) - 1 : 0u;
            if (mx <= ((unsigned)win.top << 7 | 0x7fu) && mn >= lo) {
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    acc[k] += (double)__uint_as_float(u[k] << 16);
                    acc[k] += (double)__uint_as_float(u[k] & 0xffff0000u);
                }
                if (nz) win.fl |= PP_XACC_NOT_NEG0;
                if (++vecs == HWIN_BF16 / 2) {
                    for (int k = 0; k < 4; k++) win.flush_part(w, acc[k]);
                    vecs = 0;
                }
            } else { // the window moves, or a special or a small element: one by one
                for (int k = 0; k < 4; k++) win.flush_part(w, acc[k]);
                vecs = 0;
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    win.add(w, u[k] & 0xffffu);
                    win.add(w, u[k] >> 16);
                }
            }
        }
        for (int k = 0; k < 4; k++) win.flush_part(w, acc[k]);
        done = nv * 8;
    }
    for (size_t i = done + tid; i < n; i += stride) win.add(w, in[i]);
    win.flush(w);
    pp_xacc_normalize(w, HC);
    w[HC] |= (int64_t)win.fl;
    hblock_words(w, sw, part + blockIdx.x, gridDim.x);
}

// out[0] = the rounding of the sum of the G partials: warp c adds word c
// of every partial (chunks without carries, flags ORed), thread 0 rounds.
__global__ void __launch_bounds__(HW * 32)
    hsum_final(const int64_t *part, unsigned G, int prec, int shift, uint16_t *out)
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

// Segmented sums (the half_segmented_reduce slot): out[s]
// = the rounding of segment s's exact sum (+0.0 if empty), one warp per
// segment (grid-strided): each lane folds its lane-strided elements into a
// private accumulator, normalized; the lanes' chunks add without carries
// (32 below 2^32), flags OR; lane 0 rounds once. Offsets are clamped to n
// where read (bad ones: unspecified sums, nothing out of bounds).
__global__ void __launch_bounds__(HB)
    hseg_sum(const uint16_t *in, size_t n, const uint64_t *off, size_t nseg, int bf, int prec, int shift, uint16_t *out)
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

// The segmented scan: one thread per segment (grid-strided), each element
// added to its exact accumulator and each output rounded from it (plain:
// a long segment is one thread's loop). Offsets clamped as hseg_sum's; in
// place (in == out): each in[i] is read before out[i] is written.
__global__ void __launch_bounds__(HB) hseg_scan(const uint16_t *in, uint16_t *out, size_t n, const uint64_t *off,
                                                size_t nseg, int bf, int prec, int shift, int excl)
{
    const size_t stride = (size_t)gridDim.x * HB;
    for (size_t s = (size_t)blockIdx.x * HB + threadIdx.x; s < nseg; s += stride) {
        const size_t b = off[s] < n ? (size_t)off[s] : n, e = off[s + 1] < n ? (size_t)off[s + 1] : n;
        int64_t w[HW];
        pp_xacc_clear(w, HC);
        for (size_t i = b; i < e; i++) {
            const uint16_t v = in[i];
            if (excl) out[i] = i == b ? (uint16_t)0 : (uint16_t)pp_xacc_bits_half(w, prec, shift);
            pp_xacc_add_f32(w, hwiden(v, bf));
            if (!excl) out[i] = (uint16_t)pp_xacc_bits_half(w, prec, shift);
        }
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
    size_t cap = pp_cuda_resident(s, HR_PER_SM);
    if (cap > HR_MAX_BLOCKS) cap = HR_MAX_BLOCKS;
    const unsigned grid = grid_for(ceil_div(a->n, (size_t)HB * HR_PER_THREAD), cap);
    int64_t *part = (int64_t *)pp_cuda_scratch(ctx, (size_t)grid * HW * sizeof(int64_t), fn);
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    if (a->type == PP_BF16)
        hsum_blocks<1><<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, part);
    else
        hsum_blocks<0><<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, part);
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

pp_status pp_cuda_half_segmented_sum(pp_context *ctx, const pp_segmented_args *a)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned grid = grid_for(ceil_div(a->nseg, (size_t)(HB / 32)), pp_cuda_resident(s, 4));
    hseg_sum<<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, a->n, a->offsets, a->nseg, a->type == PP_BF16,
                                         PP_HALF_PREC(a->type), PP_HALF_SHIFT(a->type), (uint16_t *)a->out);
    PP_CUDA_LAUNCHED(ctx, a->fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_half_segmented_scan(pp_context *ctx, const pp_segmented_args *a)
{
    if (a->n == 0) return PP_SUCCESS; // every segment is empty
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned grid = grid_for(ceil_div(a->nseg, (size_t)HB), pp_cuda_resident(s, 4));
    hseg_scan<<<grid, HB, 0, s->stream>>>((const uint16_t *)a->in, (uint16_t *)a->out, a->n, a->offsets, a->nseg,
                                          a->type == PP_BF16, PP_HALF_PREC(a->type), PP_HALF_SHIFT(a->type),
                                          a->kind == PP_EXCLUSIVE);
    PP_CUDA_LAUNCHED(ctx, a->fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out, size_t n)
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
