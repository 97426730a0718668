// The course notes' reduce algorithms on cuda (see cuda_entry.h): the eight
// parallel reductions of the notes' parts 000 and 001, from the naive block
// tree to the warp-shuffle tree. Each is selectable with
// pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_...) for study and
// benchmarking; none is the default (cuda_reduce.cu is).
//
// Block trees (INTERLEAVED_DIVERGENT, INTERLEAVED_STRIDED,
// SEQUENTIAL_ADDRESSING, FIRST_ADD, WARP_SHUFFLE): the input is cut into
// tiles (REDUCE_BLOCK elements, 2 * REDUCE_BLOCK for FIRST_ADD); one block
// reduces a tile to one partial (blocks loop over tiles when there are more
// than REDUCE_MAX_GRID). The same kernel is launched again on the partials,
// level by level, until one tile remains; that last launch is a single
// block and writes *out. ceil(log_TILE n) launches.
//
// CASCADE: a fixed grid (at most CASCADE_GRID blocks) in which each thread
// folds a grid-strided share of the input, then a block tree (sequential
// addressing) gives one partial per block; a second launch of the same
// kernel, one block, folds the partials into *out.
//
// LAUNCH_PER_STEP: one launch per halving step over the whole array:
// m -> floor(m / 2) by x[i] = x[i] op x[i + m/2] (the first step reads in and
// writes scratch, the later ones work in place in scratch: thread i writes
// only x[i] and reads only x[i] and x[i + half] >= half); the odd element of
// an odd m is folded into a tail value (thread 0) kept in scratch. The step
// that reaches one element folds the tail in and writes *out.
//
// WINDOWED: each thread folds a window of WINDOW consecutive elements (the
// last window may be shorter) into one partial; launches repeat on the
// partials (ping-pong between two scratch areas, as for the block trees)
// until one window remains, whose fold is written to *out.
//
// Every launch that writes *out reads only scratch, or is the only launch
// and one block (or one thread) whose reads all precede the write, so out
// may lie inside in. Every combination order is fixed by n alone (CASCADE's
// grid is a constant, not the SM count), so float results are reproducible,
// on every GPU. Indices are size_t throughout.
#include "../cuda_state.cuh"
#include "../device/dispatch.cuh"
#include "../device/ops.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"

namespace {

constexpr int REDUCE_BLOCK = 256;                   // threads per block (all kernels)
constexpr size_t REDUCE_MAX_GRID = (size_t)1 << 16; // grid cap: blocks then loop (tiles or grid-stride)
constexpr size_t CASCADE_GRID = 1024;               // CASCADE's fixed grid (at most)
constexpr int WINDOW = 8;                           // WINDOWED's window
constexpr size_t SCRATCH_ALIGN = 256;               // alignment of the scratch areas

template <typename T, typename Op> __device__ __forceinline__ T ident() { return Op::template identity<T>(); }

// Blocks of REDUCE_BLOCK threads for work_items items, one per thread.
static inline unsigned grid_for_items(size_t work_items)
{
    return grid_for(ceil_div(work_items, REDUCE_BLOCK), REDUCE_MAX_GRID);
}

// ---- block trees in shared memory ----------------------------------------------
// The variants differ only in how a tile is loaded and in the tree's
// thread-to-data mapping; each folds REDUCE_BLOCK values of shared memory into
// sdata[0]. Entered and left with the block synchronized.

enum TreeKind { TREE_DIVERGENT, TREE_STRIDED, TREE_SEQUENTIAL };

template <typename T, typename Op, int KIND> __device__ __forceinline__ void smem_tree(T *sdata)
{
    const unsigned t = threadIdx.x;
    if constexpr (KIND == TREE_DIVERGENT) {
        // Interleaved addressing: thread t is active when t % (2 s) == 0, so
        // active threads are scattered through every warp (divergence).
        for (unsigned s = 1; s < (unsigned)REDUCE_BLOCK; s *= 2) {
            if (t % (2 * s) == 0) sdata[t] = Op::apply(sdata[t], sdata[t + s]);
            __syncthreads();
        }
    } else if constexpr (KIND == TREE_STRIDED) {
        // Interleaved addressing, index 2 s t: the active threads are the first
        // ones (no divergence), but their accesses stride 2 s (bank conflicts).
        for (unsigned s = 1; s < (unsigned)REDUCE_BLOCK; s *= 2) {
            const unsigned idx = 2 * s * t;
            if (idx < (unsigned)REDUCE_BLOCK) sdata[idx] = Op::apply(sdata[idx], sdata[idx + s]);
            __syncthreads();
        }
    } else {
        // Sequential addressing: stride halving, consecutive active threads,
        // consecutive addresses (no bank conflicts).
        for (unsigned s = REDUCE_BLOCK / 2; s > 0; s >>= 1) {
            if (t < s) sdata[t] = Op::apply(sdata[t], sdata[t + s]);
            __syncthreads();
        }
    }
}

// One tile of REDUCE_BLOCK elements per block and tile; one partial per tile.
template <typename T, typename Op, int KIND>
__global__ void __launch_bounds__(REDUCE_BLOCK) tree_kernel(const T *src, size_t m, T *dst)
{
    __shared__ T sdata[REDUCE_BLOCK];
    const size_t tiles = ceil_div(m, REDUCE_BLOCK);
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * REDUCE_BLOCK + threadIdx.x;
        sdata[threadIdx.x] = i < m ? src[i] : ident<T, Op>();
        __syncthreads();
        smem_tree<T, Op, KIND>(sdata); // ends with a barrier
        if (threadIdx.x == 0) dst[tile] = sdata[0];
        __syncthreads(); // sdata[0] is read before the next tile is loaded
    }
}

// First add during load: a tile of 2 * REDUCE_BLOCK elements; thread t folds
// elements t and t + REDUCE_BLOCK while loading, then the sequential-addressing tree.
template <typename T, typename Op>
__global__ void __launch_bounds__(REDUCE_BLOCK) first_add_kernel(const T *src, size_t m, T *dst)
{
    __shared__ T sdata[REDUCE_BLOCK];
    constexpr size_t TILE = 2 * (size_t)REDUCE_BLOCK;
    const size_t tiles = ceil_div(m, TILE);
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * TILE + threadIdx.x;
        T a = i < m ? src[i] : ident<T, Op>();
        if (i + REDUCE_BLOCK < m) a = Op::apply(a, src[i + REDUCE_BLOCK]);
        sdata[threadIdx.x] = a;
        __syncthreads();
        smem_tree<T, Op, TREE_SEQUENTIAL>(sdata);
        if (threadIdx.x == 0) dst[tile] = sdata[0];
        __syncthreads();
    }
}

// ---- warp shuffle ----------------------------------------------------------------

// Tree over the 32 lanes of a full warp with __shfl_down_sync (5 steps); the
// fold is valid in lane 0 (lanes l >= 32 - off combine with themselves and
// hold garbage that lane 0 never reads).
template <typename T, typename Op> __device__ __forceinline__ T warp_down_reduce(T v)
{
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) v = Op::apply(v, pp_shfl_down(v, off));
    return v;
}

// One tile of REDUCE_BLOCK elements per block and tile: each warp folds its 32
// values in registers, lane 0 of each warp writes its warp's result to shared
// memory, then warp 0 folds the REDUCE_BLOCK / 32 warp results the same way.
template <typename T, typename Op>
__global__ void __launch_bounds__(REDUCE_BLOCK) warp_shuffle_kernel(const T *src, size_t m, T *dst)
{
    constexpr int WARPS = REDUCE_BLOCK / 32;
    static_assert(WARPS <= 32, "one warp folds the warp results");
    __shared__ T swarp[WARPS];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t tiles = ceil_div(m, REDUCE_BLOCK);
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * REDUCE_BLOCK + threadIdx.x;
        T v = i < m ? src[i] : ident<T, Op>();
        v = warp_down_reduce<T, Op>(v);
        if (lane == 0) swarp[warp] = v;
        __syncthreads();
        if (warp == 0) {
            v = lane < (unsigned)WARPS ? swarp[lane] : ident<T, Op>();
            v = warp_down_reduce<T, Op>(v);
            if (lane == 0) dst[tile] = v;
        }
        __syncthreads(); // swarp is read before the next tile writes it
    }
}

// ---- cascade ---------------------------------------------------------------------

// Each thread folds src[g], src[g + G], src[g + 2G], ... (G = the grid's
// threads) in order (four loads in flight, same order), then the block's
// sequential-addressing tree; one partial per block.
template <typename T, typename Op>
__global__ void __launch_bounds__(REDUCE_BLOCK) cascade_kernel(const T *src, size_t m, T *dst)
{
    __shared__ T sdata[REDUCE_BLOCK];
    const size_t G = (size_t)gridDim.x * REDUCE_BLOCK;
    const size_t g = (size_t)blockIdx.x * REDUCE_BLOCK + threadIdx.x;
    T acc = g < m ? src[g] : ident<T, Op>();
    size_t i = g + G;
    for (; i + 3 * G < m; i += 4 * G) {
        const T x0 = src[i], x1 = src[i + G], x2 = src[i + 2 * G], x3 = src[i + 3 * G];
        acc = Op::apply(acc, x0);
        acc = Op::apply(acc, x1);
        acc = Op::apply(acc, x2);
        acc = Op::apply(acc, x3);
    }
    for (; i < m; i += G) acc = Op::apply(acc, src[i]);
    sdata[threadIdx.x] = acc;
    __syncthreads();
    smem_tree<T, Op, TREE_SEQUENTIAL>(sdata);
    if (threadIdx.x == 0) dst[blockIdx.x] = sdata[0];
}

// ---- one launch per halving step ----------------------------------------------------

// A step for m >= 4: dst[i] = src[i] op src[i + half] for i < half = m / 2
// (dst may be src: see the top). For odd m, thread 0 folds src[m - 1] (index
// 2 half, never written here) into the tail; tail_valid says whether an
// earlier step has set the tail.
template <typename T, typename Op>
__global__ void __launch_bounds__(REDUCE_BLOCK) lps_step_kernel(const T *src, size_t m, T *dst, T *tail, int tail_valid)
{
    const size_t half = m / 2;
    const size_t G = (size_t)gridDim.x * REDUCE_BLOCK;
    const size_t g = (size_t)blockIdx.x * REDUCE_BLOCK + threadIdx.x;
    for (size_t i = g; i < half; i += G) dst[i] = Op::apply(src[i], src[i + half]);
    if (g == 0 && (m & 1)) {
        const T x = src[m - 1];
        *tail = tail_valid ? Op::apply(*tail, x) : x;
    }
}

// The last step (one thread), m in 1..3: folds src[0..m-1] and the tail, writes *out.
template <typename T, typename Op>
__global__ void lps_final_kernel(const T *src, size_t m, const T *tail, int tail_valid, T *out)
{
    T v = src[0];
    if (m >= 2) v = Op::apply(v, src[1]);
    if (m == 3) {
        const T x = src[2];
        v = Op::apply(v, tail_valid ? Op::apply(*tail, x) : x);
    } else if (tail_valid) {
        v = Op::apply(v, *tail);
    }
    *out = v;
}

// ---- windowed ------------------------------------------------------------------------

// Thread i folds the window src[WINDOW i .. min(WINDOW i + WINDOW, m) - 1] into dst[i].
template <typename T, typename Op>
__global__ void __launch_bounds__(REDUCE_BLOCK) windowed_kernel(const T *src, size_t m, T *dst)
{
    const size_t w = ceil_div(m, WINDOW);
    const size_t G = (size_t)gridDim.x * REDUCE_BLOCK;
    for (size_t i = (size_t)blockIdx.x * REDUCE_BLOCK + threadIdx.x; i < w; i += G) {
        const size_t base = i * WINDOW;
        T v = src[base];
        if (base + WINDOW <= m) {
#pragma unroll
            for (int k = 1; k < WINDOW; k++) v = Op::apply(v, src[base + k]);
        } else {
            for (size_t k = base + 1; k < m; k++) v = Op::apply(v, src[k]);
        }
        dst[i] = v;
    }
}

// ---- n == 0 ------------------------------------------------------------------------------

template <typename T, typename Op> __global__ void identity_kernel(T *out) { *out = pp_public_identity<T, Op>(); }

// ---- host side ------------------------------------------------------------------------------

// Level driver (the block trees and WINDOWED): launch(st, src, m, dst)
// reduces m elements of src to ceil(m / tile) partials in dst; it runs on in,
// then on the partials, level by level, and the launch that has one tile
// left writes out. Scratch: two areas of ceil(n / tile) and
// ceil(n / tile^2) partials (ping-pong).
template <typename T, typename Launch>
pp_status run_levels(pp_context *ctx, const T *in, size_t n, T *out, size_t tile, Launch launch, const char *fn)
{
    cudaStream_t st = pp_cuda(ctx)->stream;
    if (n <= tile) {
        launch(st, in, n, out);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    const size_t p1 = ceil_div(n, tile), p2 = ceil_div(p1, tile);
    const size_t area1 = align_up(p1 * sizeof(T), SCRATCH_ALIGN);
    char *s = (char *)pp_cuda_scratch(ctx, area1 + align_up(p2 * sizeof(T), SCRATCH_ALIGN), fn);
    if (!s) return PP_ERROR_OUT_OF_MEMORY;
    T *buf[2] = {(T *)s, (T *)(s + area1)};
    const T *src = in;
    size_t m = n;
    int which = 0;
    while (m > tile) {
        launch(st, src, m, buf[which]);
        PP_CUDA_LAUNCHED(ctx, fn);
        src = buf[which];
        m = ceil_div(m, tile);
        which ^= 1;
    }
    launch(st, src, m, out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// The block trees' grid for m elements: one block per tile, capped (blocks
// then loop over tiles).
static inline unsigned tree_grid(size_t m, size_t tile) { return grid_for(ceil_div(m, tile), REDUCE_MAX_GRID); }

template <typename T, typename Op> pp_status run_cascade(pp_context *ctx, const T *in, size_t n, T *out, const char *fn)
{
    cudaStream_t st = pp_cuda(ctx)->stream;
    size_t grid = ceil_div(n, REDUCE_BLOCK);
    if (grid > CASCADE_GRID) grid = CASCADE_GRID;
    if (grid <= 1) {
        cascade_kernel<T, Op><<<1, REDUCE_BLOCK, 0, st>>>(in, n, out);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    T *partials = (T *)pp_cuda_scratch(ctx, grid * sizeof(T), fn);
    if (!partials) return PP_ERROR_OUT_OF_MEMORY;
    cascade_kernel<T, Op><<<(unsigned)grid, REDUCE_BLOCK, 0, st>>>(in, n, partials);
    PP_CUDA_LAUNCHED(ctx, fn);
    cascade_kernel<T, Op><<<1, REDUCE_BLOCK, 0, st>>>(partials, grid, out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <typename T, typename Op>
pp_status run_launch_per_step(pp_context *ctx, const T *in, size_t n, T *out, const char *fn)
{
    cudaStream_t st = pp_cuda(ctx)->stream;
    if (n <= 3) {
        lps_final_kernel<T, Op><<<1, 1, 0, st>>>(in, n, (const T *)NULL, 0, out);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    // Scratch: the tail, then floor(n / 2) elements.
    const size_t head = align_up(sizeof(T), SCRATCH_ALIGN);
    char *s = (char *)pp_cuda_scratch(ctx, head + (n / 2) * sizeof(T), fn);
    if (!s) return PP_ERROR_OUT_OF_MEMORY;
    T *tail = (T *)s;
    T *buf = (T *)(s + head);
    const T *src = in;
    size_t m = n;
    int tail_valid = 0;
    while (m > 3) {
        lps_step_kernel<T, Op><<<grid_for_items(m / 2), REDUCE_BLOCK, 0, st>>>(src, m, buf, tail, tail_valid);
        PP_CUDA_LAUNCHED(ctx, fn);
        tail_valid |= (int)(m & 1);
        m /= 2;
        src = buf;
    }
    lps_final_kernel<T, Op><<<1, 1, 0, st>>>(src, m, tail, tail_valid, out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// Algorithm ALGO on elements T with operator Op.
template <pp_algorithm ALGO, typename T, typename Op> pp_status study_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n;
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    if (n == 0) {
        identity_kernel<T, Op><<<1, 1, 0, pp_cuda(ctx)->stream>>>(out);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    typedef const T *Src;
    if constexpr (ALGO == PP_ALGO_INTERLEAVED_DIVERGENT) {
        return run_levels<T>(ctx, in, n, out, REDUCE_BLOCK, [](cudaStream_t st, Src s, size_t m, T *d) {
            tree_kernel<T, Op, TREE_DIVERGENT><<<tree_grid(m, REDUCE_BLOCK), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_INTERLEAVED_STRIDED) {
        return run_levels<T>(ctx, in, n, out, REDUCE_BLOCK, [](cudaStream_t st, Src s, size_t m, T *d) {
            tree_kernel<T, Op, TREE_STRIDED><<<tree_grid(m, REDUCE_BLOCK), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_SEQUENTIAL_ADDRESSING) {
        return run_levels<T>(ctx, in, n, out, REDUCE_BLOCK, [](cudaStream_t st, Src s, size_t m, T *d) {
            tree_kernel<T, Op, TREE_SEQUENTIAL><<<tree_grid(m, REDUCE_BLOCK), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_FIRST_ADD) {
        return run_levels<T>(ctx, in, n, out, 2 * (size_t)REDUCE_BLOCK, [](cudaStream_t st, Src s, size_t m, T *d) {
            first_add_kernel<T, Op><<<tree_grid(m, 2 * (size_t)REDUCE_BLOCK), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_WARP_SHUFFLE) {
        return run_levels<T>(ctx, in, n, out, REDUCE_BLOCK, [](cudaStream_t st, Src s, size_t m, T *d) {
            warp_shuffle_kernel<T, Op><<<tree_grid(m, REDUCE_BLOCK), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_WINDOWED) {
        // One thread per window (the last level, m <= WINDOW: one block).
        return run_levels<T>(ctx, in, n, out, WINDOW, [](cudaStream_t st, Src s, size_t m, T *d) {
            windowed_kernel<T, Op><<<grid_for_items(ceil_div(m, WINDOW)), REDUCE_BLOCK, 0, st>>>(s, m, d);
        }, fn);
    } else if constexpr (ALGO == PP_ALGO_CASCADE) {
        return run_cascade<T, Op>(ctx, in, n, out, fn);
    } else {
        static_assert(ALGO == PP_ALGO_LAUNCH_PER_STEP, "not a reduce algorithm of study/reduce.cu");
        return run_launch_per_step<T, Op>(ctx, in, n, out, fn);
    }
}

template <pp_algorithm ALGO> pp_status study_reduce_entry(pp_context *ctx, const pp_reduce_args *a)
{
    return pp_dispatch_type_op(ctx, a->fn, a->type, a->op, [&](auto t, auto op) {
        return study_reduce<ALGO, decltype(t), decltype(op)>(ctx, a);
    });
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
#define PP_STUDY_ENTRY(NAME, ALGO) \
    pp_status pp_cuda_study_reduce_##NAME(pp_context *ctx, const pp_reduce_args *a) \
    {                                                                                   \
        return study_reduce_entry<ALGO>(ctx, a);                                        \
    }
PP_STUDY_ENTRY(interleaved_divergent, PP_ALGO_INTERLEAVED_DIVERGENT)
PP_STUDY_ENTRY(interleaved_strided, PP_ALGO_INTERLEAVED_STRIDED)
PP_STUDY_ENTRY(sequential_addressing, PP_ALGO_SEQUENTIAL_ADDRESSING)
PP_STUDY_ENTRY(first_add, PP_ALGO_FIRST_ADD)
PP_STUDY_ENTRY(cascade, PP_ALGO_CASCADE)
PP_STUDY_ENTRY(launch_per_step, PP_ALGO_LAUNCH_PER_STEP)
PP_STUDY_ENTRY(windowed, PP_ALGO_WINDOWED)
PP_STUDY_ENTRY(warp_shuffle, PP_ALGO_WARP_SHUFFLE)
#undef PP_STUDY_ENTRY
