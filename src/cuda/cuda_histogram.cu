// cuda histograms: pp_histogram_even and pp_histogram_range.
//
// Counting. Blocks of HIST_BLOCK threads stream the samples with 16-byte
// vector loads (HIST_UNROLL vectors per thread in flight), grid-stride over
// tiles of HIST_BLOCK * HIST_UNROLL vectors; the few samples before the
// first 16-byte boundary and after the last whole vector are counted one by
// one. Each thread keeps a run (the bin
// of its last samples and how many): a sample in the same bin only bumps the
// run, so sorted or skewed data costs few atomics.
//
// Where the bins fit in shared memory (nbins + 1 32-bit counters per copy,
// up to the opt-in limit; range bins also keep their edges there), each
// block counts into privatized sub-histograms: up to one copy per warp when
// they fit in COPY_BUDGET bytes, fewer for wide histograms. Counter nbins of
// each copy is a dummy that absorbs samples outside the range, so the hot
// loop has no branch for them. The 32-bit counters cannot overflow: the grid
// is sized so that no block counts more than 2^31 samples.
//  - H_ATOMIC: counts are zeroed with cudaMemsetAsync, a grid of a few blocks
//    per SM runs, and each block adds its nonzero bins into the 64-bit
//    counts with atomicAdd.
//  - H_LAST (small inputs, one launch): one block per tile; with one block it
//    writes counts directly (zeros included); with several, each block
//    writes its sub-histogram to scratch and the last block to finish (a
//    ticket taken after a fence) adds them up and writes counts.
// Otherwise (H_GLOBAL) the threads' runs go straight into the 64-bit counts
// with atomicAdd after a cudaMemsetAsync; range edges stay in shared memory
// if they fit, else they are read from global memory.
//
// Binning. Even integer bins are exact, floor((x - lo) * nbins / range),
// with no division on the device: the host precomputes a fixed-point
// reciprocal.
//  - range < 2^32 and nbins < 2^32 (every 8/16/32-bit case, and 64-bit
//    types over a narrow range): with M = ceil(2^64 * nbins / range), a
//    96-bit constant, floor(d * M / 2^64) equals the exact quotient for
//    every 0 <= d < range (see BinFast). Three 32-bit multiplies.
//  - otherwise: M = floor(2^64 * nbins / range) (128 bits) gives q or q - 1;
//    one 128-bit comparison of (q + 1) * range with d * nbins corrects it.
// Float bins evaluate the documented double expression with the scale
// (double)nbins / r computed once on the host, with explicitly rounded
// operations (no contraction into fused multiply-adds), then clamp. Range
// bins use a branch-free binary search with a fixed number of steps.
//
// Edges of range histograms are host memory: they are copied into scratch
// with cudaMemcpyAsync on the context's stream. From pageable host memory
// the driver stages the copy before the call returns (it may wait for that
// staging); nothing waits for the GPU's queued work.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/hist_bins.cuh"
#include "device/ops.cuh"
#include "device/util.cuh"
#include "device/vec.cuh"

namespace {

// HIST_BLOCK (threads per block) is in device/hist_bins.cuh.
constexpr int HIST_UNROLL = 4;                 // 16-byte vectors per thread per tile
constexpr int HIST_WARPS = HIST_BLOCK / 32;
constexpr size_t COPY_BUDGET = 48 * 1024;      // shared bytes for the per-warp copies
constexpr uint64_t SMALL_TILES = 16;           // H_LAST: at most this many blocks ...
constexpr uint64_t SMALL_WORDS = 32768;        // ... and blocks * (nbins + 1) words
constexpr uint64_t BLOCK_SAMPLE_CAP = 1ull << 31; // samples one block may count

enum { H_ATOMIC = 0, H_LAST = 1, H_GLOBAL = 2 };

// Geometry and outputs shared by all histogram kernels.
struct HistCommon {
    const void *samples;
    uint64_t n;
    uint64_t head;       // samples before the first 16-byte aligned one (< one vector)
    uint64_t nvec;       // whole 16-byte vectors after them
    uint64_t tail;       // samples after the vectors (< one vector)
    uint64_t ntiles;     // tiles of HIST_BLOCK * HIST_UNROLL vectors (the last may be partial)
    uint64_t nbins;
    uint32_t copies;     // sub-histograms per block (shared-memory modes)
    uint32_t edge_bytes; // shared bytes before the sub-histograms (edges of range bins)
    uint64_t *counts;
    uint32_t *partials;  // H_LAST with several blocks: [block][nbins]
    unsigned long long *ticket;
    unsigned long long tbase;
};

// (The binners BinFast, BinWide, BinFloat, BinRange are in
// device/hist_bins.cuh, with their host-side setup.)

// Reductions done only where f holds (a run ends).
__device__ __forceinline__ void red_shared_if(bool f, uint32_t *p, uint32_t v)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\t@q red.shared.add.u32 [%0], %1;\n\t}"
                 ::"r"((uint32_t)__cvta_generic_to_shared(p)), "r"(v), "r"((uint32_t)f)
                 : "memory");
}
__device__ __forceinline__ void red_global_if(bool f, uint64_t *p, uint64_t v)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\t@q red.global.add.u64 [%0], %1;\n\t}"
                 ::"l"(p), "l"(v), "r"((uint32_t)f)
                 : "memory");
}

// A thread's current run of samples in one bin: a sample in another bin
// flushes the run (adds its length to its bin) and starts a new one.
template <typename I, int MODE> struct Run {
    I cur, none;
    uint32_t cnt;
    uint32_t *sh;    // this warp's sub-histogram (shared-memory modes)
    uint64_t *counts;
    __device__ __forceinline__ void flush_if(bool f)
    {
        if constexpr (MODE == H_GLOBAL) red_global_if(f && cur != none, counts + cur, cnt);
        else red_shared_if(f, sh + cur, cnt); // cur == nbins is the dummy counter
    }
    __device__ __forceinline__ void flush() { flush_if(true); }
    __device__ __forceinline__ void put(I b)
    {
        const bool f = b != cur;
        flush_if(f);
        cur = b;
        cnt = f ? 1u : cnt + 1u;
    }
};

// One tile: HIST_UNROLL vectors per thread, all loads issued before any counting.
template <typename T, bool GUARD, typename B, typename R>
__device__ __forceinline__ void hist_tile(const uint4 *__restrict__ vin, uint64_t v0, uint64_t nvec, const B &bn,
                                          R &run)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    uint4 q[HIST_UNROLL];
#pragma unroll
    for (int u = 0; u < HIST_UNROLL; u++) {
        q[u] = make_uint4(0, 0, 0, 0);
        if (!GUARD || v0 + (uint64_t)u * HIST_BLOCK < nvec) q[u] = __ldg(vin + v0 + (uint64_t)u * HIST_BLOCK);
    }
#pragma unroll
    for (int u = 0; u < HIST_UNROLL; u++) {
        if (!GUARD || v0 + (uint64_t)u * HIST_BLOCK < nvec) {
#pragma unroll
            for (int j = 0; j < VEC; j++) run.put(bn(pp_vget<T>(q[u], j)));
        }
    }
}

// The histogram kernel (see the top of the file for the three modes).
// Correctness: every sample is counted exactly once (head and tail by the
// first threads of block 0, each vector by exactly one thread of the block
// owning its tile); runs are flushed before the block's barrier, so the
// sub-histograms are complete when they are merged; in H_ATOMIC and
// H_GLOBAL the counts were zeroed earlier on the same stream; in H_LAST the
// partials are written before a gpu-scope fence and the ticket increment,
// and the last block reads them only after it has seen every other block's
// increment and issued a fence of its own (fence-to-fence synchronization),
// bypassing L1.
template <typename T, typename B, int MODE>
__global__ void __launch_bounds__(HIST_BLOCK, B::minb) hist_kernel(const HistCommon c, const B bn0)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    typedef typename B::index I;
    extern __shared__ __align__(16) unsigned char hsm[];
    B bn = bn0;
    bn.setup(hsm);
    uint32_t *hist = reinterpret_cast<uint32_t *>(hsm + c.edge_bytes);
    const uint32_t stride = (uint32_t)(c.nbins + 1);

    Run<I, MODE> run;
    run.cur = bn.none;
    run.none = bn.none;
    run.cnt = 0;
    run.counts = c.counts;
    run.sh = hist;
    if constexpr (MODE != H_GLOBAL) {
        const uint32_t words = c.copies * stride;
        for (uint32_t i = threadIdx.x; i < words; i += HIST_BLOCK) hist[i] = 0;
        run.sh = hist + ((threadIdx.x >> 5) % c.copies) * stride;
    }
    __syncthreads();

    const T *in = (const T *)c.samples;
    const uint64_t g = (uint64_t)blockIdx.x * HIST_BLOCK + threadIdx.x;
    if (g < c.head) run.put(bn(in[g]));
    if (g < c.tail) run.put(bn(in[c.head + c.nvec * VEC + g]));

    const uint4 *vin = reinterpret_cast<const uint4 *>(in + c.head);
    const uint64_t nfull = c.nvec / (HIST_BLOCK * HIST_UNROLL);
    for (uint64_t t = blockIdx.x; t < c.ntiles; t += gridDim.x) {
        const uint64_t v0 = t * (HIST_BLOCK * HIST_UNROLL) + threadIdx.x;
        if (t < nfull) hist_tile<T, false>(vin, v0, c.nvec, bn, run);
        else hist_tile<T, true>(vin, v0, c.nvec, bn, run);
    }
    run.flush();

    if constexpr (MODE == H_ATOMIC) {
        __syncthreads();
        for (uint32_t b = threadIdx.x; b < (uint32_t)c.nbins; b += HIST_BLOCK) {
            uint32_t s = 0;
            for (uint32_t k = 0; k < c.copies; k++) s += hist[k * stride + b];
            if (s) atomicAdd((unsigned long long *)c.counts + b, (unsigned long long)s);
        }
    } else if constexpr (MODE == H_LAST) {
        __syncthreads();
        const uint32_t nb = (uint32_t)c.nbins;
        if (gridDim.x == 1) {
            for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) {
                uint32_t s = 0;
                for (uint32_t k = 0; k < c.copies; k++) s += hist[k * stride + b];
                c.counts[b] = s;
            }
            return;
        }
        uint32_t *mine = c.partials + (uint64_t)blockIdx.x * nb;
        for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) {
            uint32_t s = 0;
            for (uint32_t k = 0; k < c.copies; k++) s += hist[k * stride + b];
            mine[b] = s;
        }
        __syncthreads(); // every thread is done with hist: hist[0] is free
        if (threadIdx.x == 0) {
            __threadfence();
            const unsigned long long t = atomicAdd(c.ticket, 1ull) - c.tbase;
            hist[0] = t == gridDim.x - 1;
        }
        __syncthreads();
        if (hist[0]) {
            __threadfence();
            for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) {
                uint64_t s = 0;
                for (uint32_t k = 0; k < gridDim.x; k++) s += __ldcg(c.partials + (uint64_t)k * nb + b);
                c.counts[b] = s;
            }
        }
    }
}

// How a call runs, decided on the host.
struct HistPlan {
    int mode;
    size_t smem;        // dynamic shared bytes
    uint64_t grid_last; // H_LAST: blocks
};

template <typename T, int MODE, typename B>
pp_status hist_run(pp_context *ctx, HistCommon c, const B &bn, const HistPlan &pl, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    void (*kern)(const HistCommon, const B) = hist_kernel<T, B, MODE>;
    if (pl.smem > 48 * 1024)
        PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem_optin),
                    fn);
    uint64_t grid;
    if (MODE == H_LAST) {
        grid = pl.grid_last;
    } else {
        int per_sm = 0;
        PP_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, HIST_BLOCK, pl.smem), fn);
        if (per_sm < 1) per_sm = 1;
        grid = (uint64_t)per_sm * (uint64_t)s->sm_count;
        if (grid > c.ntiles) grid = c.ntiles;
        // No block may count 2^31 samples or more (32-bit counters and runs).
        const uint64_t cap_tiles = BLOCK_SAMPLE_CAP / ((uint64_t)HIST_BLOCK * HIST_UNROLL * (16 / sizeof(T)));
        const uint64_t need = (c.ntiles + cap_tiles - 1) / cap_tiles;
        if (grid < need) grid = need;
        if (grid < 1) grid = 1;
        PP_CUDA_TRY(ctx, cudaMemsetAsync(c.counts, 0, c.nbins * sizeof(uint64_t), s->stream), fn);
    }
    const bool tickets = MODE == H_LAST && grid > 1;
    if (tickets) {
        uint32_t epoch;
        c.ticket = s->ticket;
        if (!pp_cuda_lookback(ctx, grid, &epoch, &c.tbase, fn)) return PP_ERROR_OUT_OF_MEMORY;
    }
    const cudaError_t e = pp_cuda_launch(ctx, kern, (unsigned)grid, HIST_BLOCK, pl.smem, c, bn);
    if (tickets) return pp_cuda_launched_tickets(ctx, fn, e);
    PP_CUDA_CHECK_LAUNCH(ctx, fn, e);
    return PP_SUCCESS;
}

// Runs binner b32 (32-bit bins) in the shared-memory modes, b64 in H_GLOBAL.
template <typename T, typename B32, typename B64>
pp_status hist_modes(pp_context *ctx, const HistCommon &c, const HistPlan &pl, const B32 &b32, const B64 &b64,
                     const char *fn)
{
    if (pl.mode == H_GLOBAL) return hist_run<T, H_GLOBAL>(ctx, c, b64, pl, fn);
    // No b32: narrow types reach here only with nbins >= 2^32, never in shared memory.
    if constexpr (pp_same<B32, HistNoBins>::value)
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: bad histogram plan", fn);
    else if (pl.mode == H_LAST) return hist_run<T, H_LAST>(ctx, c, b32, pl, fn);
    else return hist_run<T, H_ATOMIC>(ctx, c, b32, pl, fn);
}

template <typename T> pp_status hist_typed(pp_context *ctx, const pp_histogram_args *a)
{
    constexpr uint64_t VEC = 16 / sizeof(T);
    const char *fn = a->fn;
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = a->n, nb = a->nbins;
    if (n == 0) return pp_cuda_zero(ctx, a->counts, nb * sizeof(uint64_t), fn);

    // Geometry: scalar head up to the first 16-byte boundary, whole vectors, scalar tail.
    HistCommon c;
    memset(&c, 0, sizeof c);
    c.samples = a->samples;
    c.n = n;
    c.head = ((16 - ((uintptr_t)a->samples & 15)) & 15) / sizeof(T);
    if (c.head > n) c.head = n;
    c.nvec = (n - c.head) / VEC;
    c.tail = (n - c.head) % VEC;
    c.ntiles = ceil_div(c.nvec, (uint64_t)HIST_BLOCK * HIST_UNROLL);
    c.nbins = nb;
    c.counts = a->counts;

    // Shared memory: edges first (range bins), then the sub-histograms.
    const size_t optin = s->smem_optin;
    const uint64_t edge_bytes = align_up(hist_edge_bytes<T>(a), 16);
    const uint64_t copy_bytes = (nb + 1) * 4;
    HistPlan pl;
    pl.grid_last = 1;
    pl.smem = 0;
    if (nb < (1ull << 31) && edge_bytes + copy_bytes <= optin) {
        uint64_t copies = COPY_BUDGET / copy_bytes;
        if (copies > HIST_WARPS) copies = HIST_WARPS;
        uint64_t p2 = 1;
        while (p2 * 2 <= copies) p2 *= 2;
        while (p2 > 1 && edge_bytes + p2 * copy_bytes > optin) p2 /= 2;
        c.copies = (uint32_t)p2;
        c.edge_bytes = (uint32_t)edge_bytes;
        pl.smem = (size_t)(edge_bytes + p2 * copy_bytes);
        const uint64_t blocks = c.ntiles ? c.ntiles : 1;
        if (blocks <= SMALL_TILES && blocks * (nb + 1) <= SMALL_WORDS) {
            pl.mode = H_LAST;
            pl.grid_last = blocks;
        } else {
            pl.mode = H_ATOMIC;
        }
    } else {
        pl.mode = H_GLOBAL;
        c.copies = 0;
        const bool edges_smem = a->edges && edge_bytes <= optin;
        c.edge_bytes = edges_smem ? (uint32_t)edge_bytes : 0;
        pl.smem = edges_smem ? (size_t)edge_bytes : 0;
    }

    // Scratch: the edges (range bins), then H_LAST's partial histograms.
    const uint64_t partial_bytes = pl.mode == H_LAST && pl.grid_last > 1 ? pl.grid_last * nb * 4 : 0;
    return hist_with_binners<T>(ctx, a, partial_bytes, c.edge_bytes != 0, fn,
                                [&](const auto &b32, const auto &b64, void *partials) {
                                    c.partials = (uint32_t *)partials;
                                    return hist_modes<T>(ctx, c, pl, b32, b64, fn);
                                });
}

} // namespace

pp_status pp_cuda_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) { return hist_typed<decltype(t)>(ctx, a); });
}
