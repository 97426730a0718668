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
// OR scan beside the sums).
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/util.cuh"

#include <math.h>

namespace {

constexpr int XR_BLOCK = 256;
constexpr int XR_WARPS = XR_BLOCK / 32;
constexpr int XR_BLOCKS_PER_SM = 4;
constexpr int XR_BATCHES_PER_WARP = 4; // at least, before the grid is capped

// Loads batch b (elements b * BATCH ..) of in[0..n): lane l's V elements.
// Whole batches of an aligned input: 16-byte vectors (vector k*32 + l of
// the batch); else guarded element loads (element j*32 + l), absent ones
// +0.0. valid: bit j set where element j is present.
template <typename T>
__device__ __forceinline__ void xload(const T *in, size_t n, size_t b, bool vec, T (&x)[pp_xfmt<T>::V],
                                      unsigned &valid)
{
    typedef pp_xfmt<T> F;
    const int lane = threadIdx.x & 31;
    const size_t base = b * F::BATCH;
    if (vec && n - base >= (size_t)F::BATCH) {
        valid = (1u << F::V) - 1u;
#pragma unroll
        for (int k = 0; k < F::V / F::VEC; k++) {
            const T *p = in + base + ((size_t)k * 32 + lane) * F::VEC;
            if constexpr (sizeof(T) == 8) {
                const double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
                x[k * 2] = v.x;
                x[k * 2 + 1] = v.y;
            } else {
                const float4 v = __ldcs(reinterpret_cast<const float4 *>(p));
                x[k * 4] = v.x;
                x[k * 4 + 1] = v.y;
                x[k * 4 + 2] = v.z;
                x[k * 4 + 3] = v.w;
            }
        }
    } else {
        valid = 0;
#pragma unroll
        for (int j = 0; j < F::V; j++) {
            const size_t i = base + (size_t)j * 32 + lane;
            const bool ok = i < n;
            x[j] = ok ? in[i] : (T)-0.0; // -0.0: adds nothing, not even to a sum of -0.0
            valid |= (unsigned)ok << j;
        }
    }
}

// Batches b0, b0 + stride, ... of in[0..n), each loaded (xload) while
// the one before is added: body(x, valid) per batch, called by the whole
// warp (the batch index is warp-uniform).
template <typename T, typename Body>
__device__ __forceinline__ void xfor_batches(const T *in, size_t n, size_t b0, size_t stride, bool vec, Body body)
{
    typedef pp_xfmt<T> F;
    const size_t nb = ceil_div(n, (size_t)F::BATCH);
    T x[F::V];
    unsigned valid = 0;
    if (b0 < nb) xload<T>(in, n, b0, vec, x, valid);
    for (size_t b = b0; b < nb; b += stride) {
        T y[F::V];
        unsigned yvalid = 0;
        const bool more = b + stride < nb;
        if (more) xload<T>(in, n, b + stride, vec, y, yvalid); // in flight while this batch is added
        body(x, valid);
        if (more) {
#pragma unroll
            for (int j = 0; j < F::V; j++) x[j] = y[j];
            valid = yvalid;
        }
    }
}

// The warps of a block add batches b0, b0 + stride, ... (warp w starts at
// b0 + w * bstep) of in[0..n) into their accumulators acc[warp] (chunks),
// flags in fl, one warp batch (pp_xwarp_batch) at a time. Ends with each
// warp's chunks renormalized (|chunk| < 2^33).
template <typename T>
__device__ __forceinline__ void xwarp_fold(const T *in, size_t n, size_t b0, size_t stride, bool vec, int64_t *w,
                                           unsigned &fl)
{
    typedef pp_xfmt<T> F;
    int dep = 0;
    xfor_batches<T>(in, n, b0, stride, vec, [&](const T (&x)[F::V], unsigned valid) {
        if (dep > PP_XACC_DEPOSITS - F::BATCH) {
            pp_xwarp_renorm(w, F::CHUNKS);
            dep = 0;
        }
        dep += pp_xwarp_batch<T, F::V>(w, fl, x, valid);
    });
    pp_xwarp_renorm(w, F::CHUNKS);
}

// The reduce's fold: as xwarp_fold, but each lane keeps its own
// expansion (pp_xexp_add), so a batch costs no warp reduction; the warp's
// accumulator takes only the rare deposits and, at the end, the lanes'
// terms. Renormalizes whenever a lane may have reached DEP_LANE deposits:
// between renormalizations each lane deposits at most DEP_LANE + V +
// PP_XEXP_TERMS times, so the warp stays within PP_XACC_DEPOSITS per chunk.
template <typename T>
__device__ __forceinline__ void xthread_fold(const T *in, size_t n, size_t b0, size_t stride, bool vec, int64_t *w,
                                             unsigned &fl)
{
    typedef pp_xfmt<T> F;
    constexpr int DEP_LANE = PP_XACC_DEPOSITS / 32 - F::V - PP_XEXP_TERMS;
    static_assert(DEP_LANE > 0, "deposit headroom");
    pp_xexp e = {{-0.0}, 0}; // a[0] = -0.0, the rest +0.0
    xfor_batches<T>(in, n, b0, stride, vec, [&](const T (&x)[F::V], unsigned) {
        if (__any_sync(0xffffffffu, e.dep > DEP_LANE)) {
            pp_xwarp_renorm(w, F::CHUNKS);
            e.dep = 0;
        }
#pragma unroll
        for (int j = 0; j < F::V; j++) pp_xexp_add<T>(e, w, fl, x[j]); // absent elements: -0.0
    });
    pp_xexp_flush<T>(e, w, fl);
    pp_xwarp_renorm(w, F::CHUNKS);
}

// The block's accumulator: the warps' chunks added, flags ORed, written
// as words w of dst[w * stride] (deposit count 0). Called by all threads
// after a __syncthreads that follows xwarp_fold (sflags: the warps' flags).
template <typename T>
__device__ __forceinline__ void xblock_write(int64_t (*acc)[pp_xfmt<T>::WORDS], const unsigned *sflags, int64_t *dst,
                                             size_t stride)
{
    typedef pp_xfmt<T> F;
    for (int c = threadIdx.x; c < F::WORDS; c += blockDim.x) {
        int64_t s = 0;
        if (c < F::CHUNKS) {
            for (int k = 0; k < XR_WARPS; k++) s += acc[k][c];
        } else if (c == F::CHUNKS) {
            for (int k = 0; k < XR_WARPS; k++) s |= (int64_t)sflags[k];
        }
        dst[(size_t)c * stride] = s;
    }
}

template <typename T> __device__ __forceinline__ void xstore_bits(T *out, unsigned long long bits)
{
    if constexpr (sizeof(T) == 8) *out = __longlong_as_double((long long)bits);
    else *out = __uint_as_float((unsigned)bits);
}

template <typename T> __device__ __forceinline__ unsigned long long xround(const int64_t *w)
{
    if constexpr (sizeof(T) == 8) return pp_xround_f64(w);
    else return pp_xround_f32(w);
}

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
    xthread_fold<T>(in, n, (size_t)blockIdx.x * XR_WARPS + warp, nwarps, vec != 0, w, fl);
    fl = pp_warp_reduce<unsigned, Op_or>(fl);
    if (lane == 0) sflags[warp] = fl;
    __syncthreads();
    const size_t G = gridDim.x;
    xblock_write<T>(acc, sflags, partials + blockIdx.x, G);
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
        xstore_bits<T>(out, xround<T>(acc[0]));
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
constexpr int XS_BLOCKS_PER_SM = 1; // 3 and 2 measured slower (bench/RESULTS.md)
constexpr int XW_BLOCK = 1024;                // word scan: one block per word
constexpr int XW_ITEMS = 8;

__host__ __device__ constexpr int xs_pad(int p) { return p + (p >> 5); } // staged tile index

// (1) vals[c * tiles + tile] = word c of tile's exact accumulator.
template <typename T>
__global__ void __launch_bounds__(XS_BLOCK) xtile_kernel(const T *in, size_t n, int vec, int64_t *vals, size_t tiles)
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
    const size_t tile = blockIdx.x, base = tile * XS_TILE, len = n - base < (size_t)XS_TILE ? n - base : XS_TILE;
    // batches of this tile, relative to its start (base is a multiple of 16 bytes past in)
    if (warp < NB) xwarp_fold<T>(in + base, len, warp, XR_WARPS, vec != 0, w, fl);
    fl = pp_warp_reduce<unsigned, Op_or>(fl);
    if (lane == 0) sflags[warp] = fl;
    __syncthreads();
    xblock_write<T>(acc, sflags, vals + tile, tiles);
}

// Block-wide exclusive scan of one int64 per thread (add, or OR), with the
// block's total. All threads of a XW_BLOCK block call it.
__device__ __forceinline__ int64_t xblock_exclusive(int64_t v, bool is_or, int64_t *total, int64_t *smem)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t inc = v;
    for (int d = 1; d < 32; d *= 2) {
        const int64_t u = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc = is_or ? (inc | u) : inc + u;
    }
    if (lane == 31) smem[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        int64_t x = lane < XW_BLOCK / 32 ? smem[lane] : 0;
        for (int d = 1; d < 32; d *= 2) {
            const int64_t u = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x = is_or ? (x | u) : x + u;
        }
        smem[32 + lane] = x; // inclusive over warps
    }
    __syncthreads();
    const int64_t wpre = warp ? smem[32 + warp - 1] : 0;
    *total = smem[32 + XW_BLOCK / 32 - 1];
    int64_t ex = __shfl_up_sync(0xffffffffu, inc, 1);
    if (lane == 0) ex = 0;
    const int64_t r = is_or ? (wpre | ex) : wpre + ex;
    __syncthreads(); // smem reusable
    return r;
}

// (2) Block c: vals[c * tiles ..] becomes the exclusive prefix over tiles
// (chunks: sums; the flags word: OR; the count word stays 0).
__global__ void __launch_bounds__(XW_BLOCK) xwords_kernel(int64_t *vals, size_t tiles, int chunks)
{
    __shared__ int64_t smem[64];
    const int c = blockIdx.x;
    const bool is_or = c == chunks;
    int64_t *v = vals + (size_t)c * tiles;
    int64_t carry = 0;
    for (size_t base = 0; base < tiles; base += (size_t)XW_BLOCK * XW_ITEMS) {
        const size_t i0 = base + (size_t)threadIdx.x * XW_ITEMS;
        int64_t x[XW_ITEMS], r = 0;
#pragma unroll
        for (int k = 0; k < XW_ITEMS; k++) {
            x[k] = i0 + k < tiles ? v[i0 + k] : 0;
            r = is_or ? (r | x[k]) : r + x[k];
        }
        int64_t total;
        const int64_t ex = xblock_exclusive(r, is_or, &total, smem);
        int64_t run = is_or ? (carry | ex) : carry + ex;
#pragma unroll
        for (int k = 0; k < XW_ITEMS; k++) {
            if (i0 + k < tiles) v[i0 + k] = run;
            run = is_or ? (run | x[k]) : run + x[k];
        }
        carry = is_or ? (carry | total) : carry + total;
    }
}

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

template <typename T> __device__ __forceinline__ void xadd_elem(int64_t *r, T x)
{
    if constexpr (sizeof(T) == 8) pp_xacc_add_f64(r, (uint64_t)__double_as_longlong(x));
    else pp_xacc_add_f32(r, __float_as_uint(x));
}

// The exact fallback, by the whole warp: for each lane of mask (in lane
// order), the exact sum of the tile's first upto elements (that lane's
// upto), read from src (the tile's input in global memory, untouched
// until the block stores its outputs at the end, also in place), is
// folded by all 32 lanes into the warp's accumulator w (xthread_fold: the
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
        xthread_fold<T>(src, (size_t)u, 0, 1, vec, w, fl); // ends renormalized, the warp synchronized
        fl = pp_warp_reduce<unsigned, Op_or>(fl);
        if (lane == who) {
            for (int c = 0; c < F::CHUNKS; c++) w[c] += R[c]; // |w| < 2^33 after the fold, |R| < 2^62
            w[F::CHUNKS] = R[F::CHUNKS] | fl;
            w[F::CHUNKS + 1] = 0;
            bits = xround<T>(w);
            f = xresync<T>(w);
        }
        __syncwarp();
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

// (3) Per tile: the outputs. vals: the tiles' exclusive prefixes. Each
// thread takes a segment of XS_SEG staged elements: their fast sum, a
// block scan of those (warp shuffles, then the warps' totals), the tile's
// start from R (warp 0, xstart_warp), then the segment's outputs, written
// over its own staged elements and stored together at the end.
template <typename T>
__global__ void __launch_bounds__(XS_BLOCK, XS_BLOCKS_PER_SM)
    xscan_kernel(const T *in, T *out, size_t n, int excl, int vec, const int64_t *vals, size_t tiles)
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
    for (int c = t; c < F::WORDS; c += XS_BLOCK) R[c] = vals[(size_t)c * tiles + tile];
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
    if (excl && tile == 0 && t == 0) st[xs_pad(0)] = (T)0; // out[0] = +0.0
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
    int64_t *vals = (int64_t *)pp_cuda_scratch(ctx, tiles * F::WORDS * sizeof(int64_t), fn);
    if (!vals) return PP_ERROR_OUT_OF_MEMORY;
    cudaStream_t st = s->stream;
    const int vec = ((uintptr_t)a->in & 15u) == 0; // tiles start 16-byte aligned where in does (XS_TILE * 4 % 16 == 0)
    xtile_kernel<T><<<(unsigned)tiles, XS_BLOCK, 0, st>>>((const T *)a->in, n, vec, vals, tiles);
    PP_CUDA_LAUNCHED(ctx, fn);
    xwords_kernel<<<F::WORDS, XW_BLOCK, 0, st>>>(vals, tiles, F::CHUNKS);
    PP_CUDA_LAUNCHED(ctx, fn);
    xscan_kernel<T><<<(unsigned)tiles, XS_BLOCK, 0, st>>>((const T *)a->in, (T *)a->out, n,
                                                          a->kind == PP_EXCLUSIVE, vec, vals, tiles);
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
