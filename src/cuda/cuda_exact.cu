// PP_ALGO_EXACT on the cuda backend: f32 and f64 PP_SUM reduce and scan,
// correctly rounded from the exact accumulator of src/core/exact_acc.h
// (docs/exact.md), bit for bit the cpu's results. Every other type and
// operator goes to the default entries (pp_cuda_reduce, pp_cuda_scan).
//
// Reduce: one launch. Each lane keeps a floating-point expansion of four
// doubles over the batches its warp takes (grid-strided; device/exact.cuh
// pp_xexp_add: error-free additions, TwoSum for f64, ordered Fast2Sum
// for f32), and deposits into its warp's accumulator in shared memory
// only what the expansion cannot hold, f64 elements whose sum would
// overflow, NaN and infinities, and at the end its four terms. The warps' accumulators are added chunk by
// chunk (integers: any order gives the same sum) into the block's
// partial, written word-major to scratch; the block that draws the last
// ticket (as the default reduce: store, fence, ticket; ticket, fence,
// L2 loads) adds the partials and rounds once (pp_xacc_bits_*), or, for
// pp_exact_accumulate (the exact_sum slot), writes the normalized words.
//
// Scan: three launches. (1) per tile of XS_TILE elements, its exact
// accumulator (warp batches, device/exact.cuh pp_xwarp_batch), word-major
// in scratch; (2) one block per word turns those into the tiles'
// exclusive prefixes (integer addition; the flags word ORed); (3) per
// tile, the tile is staged in shared memory, warp 0 turns the tile's
// exact prefix R into a fast start value with a rigorous bound
// (xstart_warp), the threads' segment sums (f64: double-double, f32:
// double, each with a rigorous error bound) are scanned over the block
// (warp shuffles), and each thread runs its segment as cpu_exact.inc's
// xscan: an output is taken from the fast sum where the error bound
// certifies its rounding (pp_xacc_half_gap_*), else (xwarp_fallback) the
// whole warp folds the tile's elements before it into an exact
// accumulator, adds R, rounds, and restarts that lane's fast sum from the
// exact value. NaN and infinities: the outputs from the flags alone (an
// OR scan beside the sums). pp_scan_init: init is one more element before
// in[0], as on cpu: (1) gives it a slot of its own before the tiles' (slot
// 0, the accumulator of that one element), so (2)'s prefixes, and every
// tile's R, include it; an exclusive out[0] is init's bits.
//
// Files: device/exact.cuh (the accumulator on the device, warp batches,
// per-lane expansions), device/exact_fold.cuh (a warp's loads and folds of
// batches), device/exact_fast.cuh (the scan's certified fast sums and the
// warp's exact fallback); this file holds the kernels, the choice of path
// and the launches.
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/block_scan.cuh"
#include "device/exact_fast.cuh"
#include "device/exact_fold.cuh"
#include "device/util.cuh"

namespace {

constexpr int XR_BLOCK = 256;
constexpr int XR_WARPS = XR_BLOCK / 32;
constexpr int XR_BLOCKS_PER_SM = 4;
constexpr int XR_BATCHES_PER_WARP = 4; // at least, before the grid is capped

// ---- reduce ----------------------------------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(XR_BLOCK, XR_BLOCKS_PER_SM)
    xreduce_kernel(const T *in, size_t n, int vec, T *out, int64_t *acc_out, int64_t *partials,
                   unsigned long long *ticket, unsigned long long ticket_base)
{
    typedef pp_xfmt<T> F;
    __shared__ int64_t acc[XR_WARPS][F::WORDS];
    __shared__ unsigned sflags[XR_WARPS];
    __shared__ int64_t red[XR_BLOCK];
    __shared__ int is_last;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t *w = acc[warp];
    for (int c = lane; c < F::WORDS; c += 32) w[c] = 0;
    __syncwarp();
    unsigned fl = 0;
    const size_t nwarps = (size_t)gridDim.x * XR_WARPS;
    pp_xthread_fold<T>(in, n, (size_t)blockIdx.x * XR_WARPS + warp, nwarps, vec != 0, w, fl);
    fl = pp_warp_reduce<unsigned, Op_or>(fl);
    if (lane == 0) sflags[warp] = fl;
    __syncthreads();
    const size_t G = gridDim.x;
    pp_xblock_write<T, XR_WARPS>(acc, sflags, partials + blockIdx.x, G);
    __threadfence(); // every writer: its partial words before the ticket below
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long t = atomicAdd(ticket, 1ull) - ticket_base;
        is_last = t == (unsigned long long)G - 1;
    }
    __syncthreads();
    if (!is_last) return; // uniform across the block
    __threadfence();
    // The last block: word c = t % WORDS of the partials of blocks
    // g, g + groups, ... (g = t / WORDS), then the groups added.
    constexpr int GROUPS = XR_BLOCK / F::WORDS;
    const int t = threadIdx.x, c = t % F::WORDS, g = t / F::WORDS;
    int64_t s = 0;
    if (g < GROUPS) {
        const int64_t *p = partials + (size_t)c * G;
        for (size_t b = g; b < G; b += GROUPS) {
            const int64_t v = __ldcg(p + b);
            s = c == F::CHUNKS ? (s | v) : s + v;
        }
    }
    red[t] = s;
    __syncthreads();
    if (t < F::WORDS) {
        int64_t r = red[t];
        for (int k = 1; k < GROUPS; k++) r = t == F::CHUNKS ? (r | red[k * F::WORDS + t]) : r + red[k * F::WORDS + t];
        acc[0][t] = t == F::CHUNKS + 1 ? 0 : r;
    }
    __syncthreads();
    if (t != 0) return;
    if (acc_out) { // pp_exact_accumulate: the normalized words
        pp_xacc_normalize(acc[0], F::CHUNKS);
        for (int c = 0; c < F::WORDS; c++) acc_out[c] = acc[0][c];
    } else {
        pp_xstore_bits<T>(out, pp_xround<T>(acc[0]));
    }
}

// out = the rounded sum, or (acc_out not NULL, device) its accumulator.
template <typename T> pp_status xreduce_launch(pp_context *ctx, const pp_reduce_args *a, int64_t *acc_out)
{
    typedef pp_xfmt<T> F;
    const char *fn = a->fn;
    const size_t n = a->n; // > 0
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t per_block = (size_t)F::BATCH * XR_WARPS * XR_BATCHES_PER_WARP;
    const unsigned grid = grid_for(ceil_div(n, per_block), pp_cuda_resident(s, XR_BLOCKS_PER_SM));
    // acc_out at the start of scratch, then the partials
    int64_t *scratch = (int64_t *)pp_cuda_scratch(ctx, ((size_t)grid + 1) * F::WORDS * sizeof(int64_t), fn);
    if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    int64_t *partials = scratch + F::WORDS;
    const unsigned long long base = s->ticket_base; // this launch takes tickets base .. base + grid - 1
    s->ticket_base += grid;
    const int vec = ((uintptr_t)a->in & 15u) == 0;
    xreduce_kernel<T><<<grid, XR_BLOCK, 0, s->stream>>>((const T *)a->in, n, vec, (T *)a->out,
                                                         acc_out ? scratch : NULL, partials, s->ticket, base);
    pp_status st = pp_cuda_launched_tickets(ctx, fn);
    if (st != PP_SUCCESS || !acc_out) return st;
    PP_CUDA_TRY(ctx, cudaMemcpyAsync(acc_out, scratch, F::WORDS * sizeof(int64_t), cudaMemcpyDeviceToHost, s->stream),
                fn);
    PP_CUDA_TRY(ctx, cudaStreamSynchronize(s->stream), fn);
    return PP_SUCCESS;
}

// ---- scan ------------------------------------------------------------------------------

constexpr int XS_BLOCK = 256;
constexpr int XS_SEG = 16;                    // elements per thread
constexpr int XS_TILE = XS_BLOCK * XS_SEG;    // 4096 elements per tile
constexpr int XS_BLOCKS_PER_SM = 1; // 3 and 2 measured slower (bench/studies/exact.md)

__host__ __device__ constexpr int xs_pad(int p) { return p + (p >> 5); } // staged tile index

// (1) vals[c * slots + slot] = word c of the exact accumulator of slot's
// elements: with init, slot 0 is init alone and slot t + 1 tile t; else
// slot t is tile t.
template <typename T>
__global__ void __launch_bounds__(XS_BLOCK)
    xtile_kernel(const T *in, size_t n, int vec, const T *init, int64_t *vals, size_t slots)
{
    typedef pp_xfmt<T> F;
    static_assert(XS_TILE % F::BATCH == 0, "tile of whole batches");
    constexpr int NB = XS_TILE / F::BATCH; // batches per tile
    __shared__ int64_t acc[XR_WARPS][F::WORDS];
    __shared__ unsigned sflags[XR_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t *w = acc[warp];
    for (int c = lane; c < F::WORDS; c += 32) w[c] = 0;
    __syncwarp();
    unsigned fl = 0;
    const size_t slot = blockIdx.x;
    if (init && slot == 0) { // init's slot: one element, element loads
        if (warp == 0) pp_xwarp_fold<T>(init, 1, 0, 1, false, w, fl);
    } else {
        const size_t tile = init ? slot - 1 : slot, base = tile * XS_TILE;
        const size_t len = n - base < (size_t)XS_TILE ? n - base : XS_TILE;
        // batches of this tile, relative to its start (base is a multiple of 16 bytes past in)
        if (warp < NB) pp_xwarp_fold<T>(in + base, len, warp, XR_WARPS, vec != 0, w, fl);
    }
    fl = pp_warp_reduce<unsigned, Op_or>(fl);
    if (lane == 0) sflags[warp] = fl;
    __syncthreads();
    pp_xblock_write<T, XR_WARPS>(acc, sflags, vals + slot, slots);
}

// (3) Per tile: the outputs. vals: the slots' exclusive prefixes (tile's:
// slot tile + shift, shift 1 with init). Each
// thread takes a segment of XS_SEG staged elements: their fast sum, a
// block scan of those (warp shuffles, then the warps' totals), the tile's
// start from R (warp 0, xstart_warp), then the segment's outputs, written
// over its own staged elements and stored together at the end.
template <typename T>
__global__ void __launch_bounds__(XS_BLOCK, XS_BLOCKS_PER_SM)
    xscan_kernel(const T *in, T *out, size_t n, int excl, int vec, const int64_t *vals, size_t slots, const T *init)
{
    typedef pp_xfmt<T> F;
    constexpr int WARPS = XS_BLOCK / 32;
    __shared__ T st[xs_pad(XS_TILE)];
    __shared__ int64_t R[F::WORDS];
    __shared__ double wh[WARPS + 1], wl[WARPS + 1], we[WARPS + 1]; // [0]: the tile's start, then warp totals
    __shared__ unsigned wf[WARPS + 1];
    __shared__ int64_t wacc[WARPS][F::WORDS]; // the warps' exact fallbacks
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const size_t tile = blockIdx.x, base = tile * XS_TILE;
    const int len = n - base < (size_t)XS_TILE ? (int)(n - base) : XS_TILE;
    for (int k = t; k < XS_TILE; k += XS_BLOCK) st[xs_pad(k)] = k < len ? in[base + k] : (T)0;
    const size_t slot = init ? tile + 1 : tile;
    for (int c = t; c < F::WORDS; c += XS_BLOCK) R[c] = vals[(size_t)c * slots + slot];
    __syncthreads();
    const unsigned rflags = (unsigned)R[F::CHUNKS] & PP_XACC_SPECIAL;
    // this thread's segment: its fast sum from zero, and its specials
    const int s0 = t * XS_SEG;
    xfast f = {0.0, 0.0, 0.0};
    unsigned fl = 0;
#pragma unroll
    for (int j = 0; j < XS_SEG; j++) {
        if (s0 + j < len) {
            const T v = st[xs_pad(s0 + j)];
            xstep<T>(f, v);
            fl |= xspecial_flag<T>(v);
        }
    }
    xwarp_scan_fast<T>(f, fl); // inclusive over the warp
    if (lane == 31) wh[warp + 1] = f.hi, wl[warp + 1] = f.lo, we[warp + 1] = f.err, wf[warp + 1] = fl;
    if (warp == 0) {
        const xfast r0 = rflags ? xfast{0.0, 0.0, 0.0} : xstart_warp<T>(R); // with specials: outputs from the flags
        if (lane == 0) wh[0] = r0.hi, wl[0] = r0.lo, we[0] = r0.err, wf[0] = rflags;
    }
    __syncthreads();
    // exclusive prefix of this thread: the start, the earlier warps, the earlier lanes of this warp
    xfast p = {wh[0], wl[0], we[0]};
    unsigned pfl = wf[0];
    for (int k = 1; k <= warp; k++) {
        p = xcombine<T>(p, xfast{wh[k], wl[k], we[k]});
        pfl |= wf[k];
    }
    // this warp's inclusive scan less the thread's own part: the lane before's inclusive value
    const xfast q = {__shfl_up_sync(0xffffffffu, f.hi, 1), __shfl_up_sync(0xffffffffu, f.lo, 1),
                     __shfl_up_sync(0xffffffffu, f.err, 1)};
    const unsigned qfl = __shfl_up_sync(0xffffffffu, fl, 1);
    if (lane > 0) {
        p = xcombine<T>(p, q);
        pfl |= qfl;
    }
    f = p;
    fl = pfl;
    // the segment, in step across the warp (the fallbacks are the warp's)
    int64_t *w = wacc[warp];
    const T *src = in + base;
    unsigned long long cur = 0;
    if (excl) { // the output before the first element
        bool need = false;
        if (s0 < len) {
            if (fl) cur = xspecial_bits<T>(fl);
            else need = !xcertify<T>(f, cur);
        }
        const unsigned mask = __ballot_sync(0xffffffffu, need);
        if (mask) xwarp_fallback<T>(mask, s0, w, R, src, vec != 0, f, cur);
    }
#pragma unroll
    for (int j = 0; j < XS_SEG; j++) {
        const int p = s0 + j;
        const bool active = p < len;
        const T v = active ? st[xs_pad(p)] : (T)0;
        unsigned long long nxt = 0;
        bool need = false;
        if (active) {
            fl |= xspecial_flag<T>(v);
            if (fl) {
                nxt = xspecial_bits<T>(fl);
            } else {
                xstep<T>(f, v);
                need = !xcertify<T>(f, nxt);
            }
        }
        const unsigned mask = __ballot_sync(0xffffffffu, need);
        if (mask) xwarp_fallback<T>(mask, p + 1, w, R, src, vec != 0, f, nxt);
        if (active) {
            const unsigned long long y = excl ? cur : nxt;
            if constexpr (sizeof(T) == 8) st[xs_pad(p)] = __longlong_as_double((long long)y);
            else st[xs_pad(p)] = __uint_as_float((unsigned)y);
            cur = nxt;
        }
    }
    if (excl && tile == 0 && t == 0) st[xs_pad(0)] = init ? *init : (T)0; // out[0] = init's bits, or +0.0
    __syncthreads();
    for (int k = t; k < len; k += XS_BLOCK) out[base + k] = st[xs_pad(k)];
}

template <typename T> pp_status xscan_launch(pp_context *ctx, const pp_scan_args *a)
{
    typedef pp_xfmt<T> F;
    const char *fn = a->fn;
    const size_t n = a->n; // > 0
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t tiles = ceil_div(n, XS_TILE);
    if (tiles > 0x7fffffffu)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large for one launch", fn, n);
    const T *init = (const T *)a->init; // NULL for pp_scan
    const size_t slots = init ? tiles + 1 : tiles;
    int64_t *vals = (int64_t *)pp_cuda_scratch(ctx, slots * F::WORDS * sizeof(int64_t), fn);
    if (!vals) return PP_ERROR_OUT_OF_MEMORY;
    cudaStream_t st = s->stream;
    const int vec = ((uintptr_t)a->in & 15u) == 0; // tiles start 16-byte aligned where in does (XS_TILE * 4 % 16 == 0)
    xtile_kernel<T><<<(unsigned)slots, XS_BLOCK, 0, st>>>((const T *)a->in, n, vec, init, vals, slots);
    PP_CUDA_LAUNCHED(ctx, fn);
    pp_xwords_kernel<PP_XWORDS_BLOCK, PP_XWORDS_ITEMS><<<F::WORDS, PP_XWORDS_BLOCK, 0, st>>>(vals, slots, F::CHUNKS); // (2)
    PP_CUDA_LAUNCHED(ctx, fn);
    xscan_kernel<T><<<(unsigned)tiles, XS_BLOCK, 0, st>>>((const T *)a->in, (T *)a->out, n, a->kind == PP_EXCLUSIVE,
                                                          vec, vals, slots, init);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_reduce_exact(pp_context *ctx, const pp_reduce_args *a)
{
    if (a->op != PP_SUM || a->n == 0) return pp_cuda_reduce(ctx, a); // n == 0: +0.0, the default's
    if (a->type == PP_F64) return xreduce_launch<double>(ctx, a, NULL);
    if (a->type == PP_F32) return xreduce_launch<float>(ctx, a, NULL);
    return pp_cuda_reduce(ctx, a);
}

pp_status pp_cuda_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc)
{
    // the core passes PP_SUM on f32 or f64 with n > 0
    return a->type == PP_F64 ? xreduce_launch<double>(ctx, a, acc) : xreduce_launch<float>(ctx, a, acc);
}

pp_status pp_cuda_scan_exact(pp_context *ctx, const pp_scan_args *a)
{
    if (a->op != PP_SUM || a->n == 0) return pp_cuda_scan(ctx, a);
    if (a->type == PP_F64) return xscan_launch<double>(ctx, a);
    if (a->type == PP_F32) return xscan_launch<float>(ctx, a);
    return pp_cuda_scan(ctx, a);
}
