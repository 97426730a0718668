// The course notes' histogram algorithms on cuda (see cuda_entry.h and the
// OpenCL notes, seed 003): the path from one global atomic per sample to
// privatized per-block histograms.
//
//  - PP_ALGO_GLOBAL_ATOMIC: the counts are zeroed (cudaMemsetAsync), then
//    every thread takes samples grid-stride and adds 1 to the sample's bin
//    with a 64-bit global atomicAdd. Many threads hit the same few bins: the
//    atomics serialize in L2 (what the notes measure as contention).
//  - PP_ALGO_PRIVATE_ATOMIC: each block counts into ONE private histogram of
//    nbins 32-bit counters in shared memory (shared atomics, cheap and spread
//    over the block), then adds each nonzero bin into the zeroed 64-bit
//    counts with one global atomicAdd per bin and block.
//  - PP_ALGO_PRIVATE_REDUCE: the same private histograms, written out whole
//    to scratch ([block][bin], 32-bit), then a second kernel sums each bin
//    over the blocks, in block order, one thread per bin (coalesced over the
//    bins), and writes the 64-bit count: no atomics on the result at all.
// All three are exact (integer counts), so deterministic.
//
// One launch of G blocks (HB threads, grid-stride over the samples, SU loads
// in flight per thread): G = min(blocks to cover n, resident blocks), and
// at least ceil(n / 2^31), so that no block counts 2^32 samples or more (its
// 32-bit counters cannot wrap).
//
// Binning is the library's, exactly: the binners and their setup are shared
// with cuda_histogram.cu (cuda_hist_bins.cuh). Range edges are copied into
// scratch with cudaMemcpyAsync (as cuda_histogram.cu does) and, where they
// fit, into shared memory by each block (before the private histogram).
// The PRIVATE algorithms need (nbins + 1 edges, for range bins) + nbins
// 32-bit counters in one block's shared memory: beyond the device's opt-in
// limit they return PP_ERROR_UNSUPPORTED (no fallback: the point of the
// choice is the algorithm).
#include "cuda_hist_bins.cuh"
#include "cuda_entry.h"

namespace {

constexpr int SU = 4;                              // samples in flight per thread
constexpr int SH_MAX_PER_SM = 2048 / HB;           // resident blocks of HB threads per SM at most
constexpr uint64_t SH_BLOCK_CAP = 1ull << 31;      // samples one block may count (< 2^32)
constexpr int SH_RB = 256;                         // threads per block of the per-bin reduction

enum { S_GLOBAL = 0, S_PRIV_ATOMIC = 1, S_PRIV_REDUCE = 2 };

struct SeedHist {
    const void *samples;
    uint64_t n;
    uint64_t nbins;
    uint32_t edge_bytes; // shared bytes before the private histogram (range edges there)
    uint64_t *counts;
    uint32_t *partials;  // S_PRIV_REDUCE: [block][nbins]
};

// The counting kernel of all three algorithms. Correctness: sample i is read
// by exactly one thread (i = i0 + u * stride for one thread and one u); the
// private histogram is zeroed before the first barrier and complete at the
// second (all its shared atomics precede it); the counts were zeroed earlier
// on the stream where atomics add into them; partial rows are disjoint per
// block (blockIdx.x * nbins + b, 64-bit index).
template <typename T, typename B, int MODE>
__global__ void __launch_bounds__(HB) seed_hist_kernel(const SeedHist h, const B bn0)
{
    typedef typename B::index I;
    extern __shared__ __align__(16) unsigned char ssm[];
    B bn = bn0;
    bn.setup(ssm); // range edges into shared memory (when the binner keeps them there)
    uint32_t *hist = reinterpret_cast<uint32_t *>(ssm + h.edge_bytes);
    const uint32_t nb = (uint32_t)h.nbins; // PRIVATE only: nbins < 2^31
    if constexpr (MODE != S_GLOBAL) {
        for (uint32_t b = threadIdx.x; b < nb; b += HB) hist[b] = 0;
    }
    __syncthreads();

    const T *in = (const T *)h.samples;
    const uint64_t n = h.n;
    const uint64_t stride = (uint64_t)gridDim.x * HB;
    for (uint64_t i0 = (uint64_t)blockIdx.x * HB + threadIdx.x; i0 < n; i0 += SU * stride) {
        T x[SU];
#pragma unroll
        for (int u = 0; u < SU; u++) {
            const uint64_t i = i0 + (uint64_t)u * stride;
            x[u] = i < n ? hist_ldg(in + i) : (T)0;
        }
#pragma unroll
        for (int u = 0; u < SU; u++) {
            const uint64_t i = i0 + (uint64_t)u * stride;
            if (i < n) {
                const I b = bn(x[u]);
                if (b != bn.none) {
                    if constexpr (MODE == S_GLOBAL) atomicAdd((unsigned long long *)h.counts + b, 1ull);
                    else atomicAdd(hist + b, 1u);
                }
            }
        }
    }

    if constexpr (MODE == S_PRIV_ATOMIC) {
        __syncthreads();
        for (uint32_t b = threadIdx.x; b < nb; b += HB) {
            const uint32_t v = hist[b];
            if (v) atomicAdd((unsigned long long *)h.counts + b, (unsigned long long)v);
        }
    } else if constexpr (MODE == S_PRIV_REDUCE) {
        __syncthreads();
        uint32_t *row = h.partials + (uint64_t)blockIdx.x * nb;
        for (uint32_t b = threadIdx.x; b < nb; b += HB) row[b] = hist[b];
    }
}

// PRIVATE_REDUCE's merge: counts[b] = sum over blocks k = 0, 1, ... of
// partials[k][b], one thread per bin, in block order (64-bit sums of
// 32-bit counts; all counts written, zeros included).
__global__ void __launch_bounds__(SH_RB) seed_hist_reduce_bins(const uint32_t *__restrict__ partials,
                                                              uint64_t nblocks, uint64_t nb,
                                                              uint64_t *__restrict__ counts)
{
    const uint64_t stride = (uint64_t)gridDim.x * SH_RB;
    for (uint64_t b = (uint64_t)blockIdx.x * SH_RB + threadIdx.x; b < nb; b += stride) {
        uint64_t s = 0;
        for (uint64_t k = 0; k < nblocks; k++) s += __ldg(partials + k * nb + b);
        counts[b] = s;
    }
}

// Blocks for n samples: enough to cover n with SU samples per thread, at
// most per_sm resident per SM, at least ceil(n / SH_BLOCK_CAP).
inline uint64_t seed_hist_grid(uint64_t n, uint64_t per_sm, uint64_t sm_count)
{
    const uint64_t per_block = (uint64_t)HB * SU;
    uint64_t g = (n + per_block - 1) / per_block;
    const uint64_t res = per_sm * sm_count;
    if (g > res) g = res;
    const uint64_t need = (n + SH_BLOCK_CAP - 1) / SH_BLOCK_CAP;
    if (g < need) g = need;
    if (g < 1) g = 1;
    return g;
}

template <typename T, int MODE, typename B>
pp_status seed_hist_run(pp_context *ctx, const SeedHist &h, const B &bn, size_t smem, uint64_t gmax, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    void (*kern)(const SeedHist, const B) = seed_hist_kernel<T, B, MODE>;
    if (smem > 48 * 1024)
        PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem_optin),
                    fn);
    int per_sm = 0;
    PP_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, HB, smem), fn);
    if (per_sm < 1) per_sm = 1;
    if (per_sm > SH_MAX_PER_SM) per_sm = SH_MAX_PER_SM;
    uint64_t grid = seed_hist_grid(h.n, (uint64_t)per_sm, (uint64_t)s->sm_count);
    if (grid > gmax) grid = gmax; // never: gmax is the bound with SH_MAX_PER_SM
    if (MODE != S_PRIV_REDUCE)
        PP_CUDA_TRY(ctx, cudaMemsetAsync(h.counts, 0, h.nbins * sizeof(uint64_t), s->stream), fn);
    kern<<<(unsigned)grid, HB, smem, s->stream>>>(h, bn);
    PP_CUDA_LAUNCHED(ctx, fn);
    if constexpr (MODE == S_PRIV_REDUCE) {
        uint64_t rg = (h.nbins + SH_RB - 1) / SH_RB;
        if (rg > 65535) rg = 65535;
        seed_hist_reduce_bins<<<(unsigned)rg, SH_RB, 0, s->stream>>>(h.partials, grid, h.nbins, h.counts);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    return PP_SUCCESS;
}

// Runs algorithm MODE with binner b32 (32-bit bins: the PRIVATE algorithms,
// nbins < 2^31) or b64 (GLOBAL_ATOMIC, any nbins).
template <typename T, int MODE, typename B32, typename B64>
pp_status seed_hist_pick(pp_context *ctx, const SeedHist &h, const B32 &b32, const B64 &b64, size_t smem,
                         uint64_t gmax, const char *fn)
{
    if constexpr (MODE == S_GLOBAL) return seed_hist_run<T, MODE>(ctx, h, b64, smem, gmax, fn);
    else return seed_hist_run<T, MODE>(ctx, h, b32, smem, gmax, fn);
}

template <typename T, int MODE> pp_status seed_hist_typed(pp_context *ctx, const pp_histogram_args *a, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = a->n, nb = a->nbins;
    if (n == 0) {
        PP_CUDA_TRY(ctx, cudaMemsetAsync(a->counts, 0, nb * sizeof(uint64_t), s->stream), fn);
        return PP_SUCCESS;
    }

    // Shared memory: range edges (16-byte aligned), then the private histogram.
    const uint64_t optin = s->smem_optin;
    const uint64_t edge_raw = a->edges ? (nb + 1) * sizeof(T) : 0;
    const uint64_t edge_bytes = (edge_raw + 15) & ~(uint64_t)15;
    SeedHist h;
    memset(&h, 0, sizeof h);
    h.samples = a->samples;
    h.n = n;
    h.nbins = nb;
    h.counts = a->counts;
    size_t smem;
    if (MODE != S_GLOBAL) {
        const char *name = pp_algorithm_name(MODE == S_PRIV_ATOMIC ? PP_ALGO_PRIVATE_ATOMIC : PP_ALGO_PRIVATE_REDUCE);
        if (nb >= (1ull << 31))
            return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                           "%s: algorithm %s: %llu bins do not fit one block's shared memory (limit %llu bytes)", fn,
                           name, (unsigned long long)nb, (unsigned long long)optin);
        if (edge_bytes + nb * 4 > optin)
            return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                           "%s: algorithm %s: %llu bins need %llu bytes of shared memory (32-bit counters%s), "
                           "the limit is %llu bytes",
                           fn, name, (unsigned long long)nb, (unsigned long long)(edge_bytes + nb * 4),
                           a->edges ? " and edges" : "", (unsigned long long)optin);
        h.edge_bytes = (uint32_t)edge_bytes;
        smem = (size_t)(edge_bytes + nb * 4);
    } else {
        h.edge_bytes = a->edges && edge_bytes <= optin ? (uint32_t)edge_bytes : 0;
        smem = h.edge_bytes;
    }

    // Scratch: the edges (range bins), then PRIVATE_REDUCE's partial histograms
    // for at most gmax blocks.
    const uint64_t gmax = seed_hist_grid(n, SH_MAX_PER_SM, (uint64_t)s->sm_count);
    const uint64_t edge_region = (edge_raw + 255) & ~(uint64_t)255;
    const uint64_t partial_bytes = MODE == S_PRIV_REDUCE ? gmax * nb * 4 : 0;
    unsigned char *scratch = NULL;
    if (edge_region + partial_bytes) {
        scratch = (unsigned char *)pp_cuda_scratch(ctx, (size_t)(edge_region + partial_bytes), fn);
        if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    }
    if (partial_bytes) h.partials = (uint32_t *)(scratch + edge_region);

    if (a->edges) {
        T *dev_edges = (T *)scratch;
        PP_CUDA_TRY(ctx, cudaMemcpyAsync(dev_edges, a->edges, (size_t)edge_raw, cudaMemcpyHostToDevice, s->stream), fn);
        const T *he = (const T *)a->edges;
        if constexpr (MODE != S_GLOBAL) {
            return seed_hist_run<T, MODE>(ctx, h, hist_make_range<T, uint32_t, true>(dev_edges, he, nb), smem, gmax,
                                          fn);
        } else {
            if (h.edge_bytes)
                return seed_hist_run<T, MODE>(ctx, h, hist_make_range<T, uint64_t, true>(dev_edges, he, nb), smem,
                                              gmax, fn);
            return seed_hist_run<T, MODE>(ctx, h, hist_make_range<T, uint64_t, false>(dev_edges, he, nb), smem, gmax,
                                          fn);
        }
    }

    T lo, hi;
    memcpy(&lo, a->lower, sizeof lo);
    memcpy(&hi, a->upper, sizeof hi);
    if constexpr (pp_is_float<T>()) {
        return seed_hist_pick<T, MODE>(ctx, h, hist_make_float<T, uint32_t>(lo, hi, nb),
                                       hist_make_float<T, uint64_t>(lo, hi, nb), smem, gmax, fn);
    } else {
        if (hist_fast_fits(hist_int_range(lo, hi), nb))
            return seed_hist_pick<T, MODE>(ctx, h, hist_make_fast<T, uint32_t>(lo, hi, nb),
                                           hist_make_fast<T, uint64_t>(lo, hi, nb), smem, gmax, fn);
        if constexpr (sizeof(T) == 8) {
            return seed_hist_pick<T, MODE>(ctx, h, hist_make_wide<T, uint32_t>(lo, hi, nb),
                                           hist_make_wide<T, uint64_t>(lo, hi, nb), smem, gmax, fn);
        } else {
            // Narrow types need BinWide only for nbins >= 2^32: never in shared memory.
            if (MODE != S_GLOBAL) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: bad histogram plan", fn);
            return seed_hist_run<T, S_GLOBAL>(ctx, h, hist_make_wide<T, uint64_t>(lo, hi, nb), smem, gmax, fn);
        }
    }
}

template <int MODE> pp_status seed_hist_mode(pp_context *ctx, const pp_histogram_args *a)
{
    const char *fn = a->edges ? "pp_histogram_range" : "pp_histogram_even";
    switch (a->type) {
#define PP_SEED_HIST_CASE(E, T, S, K, U, W) \
    case E: return seed_hist_typed<T, MODE>(ctx, a, fn);
        PP_FOR_EACH_TYPE(PP_SEED_HIST_CASE)
#undef PP_SEED_HIST_CASE
    default: break;
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: type %d not dispatched", fn, (int)a->type);
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
pp_status pp_cuda_study_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a)
{
    return seed_hist_mode<S_GLOBAL>(ctx, a);
}
pp_status pp_cuda_study_histogram_private_atomic(pp_context *ctx, const pp_histogram_args *a)
{
    return seed_hist_mode<S_PRIV_ATOMIC>(ctx, a);
}
pp_status pp_cuda_study_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a)
{
    return seed_hist_mode<S_PRIV_REDUCE>(ctx, a);
}
