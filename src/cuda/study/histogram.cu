// The course notes' histogram algorithms on cuda (see cuda_entry.h and the
// OpenCL notes, part 003): the path from one global atomic per sample to
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
// One launch of G blocks (HIST_BLOCK threads, grid-stride over the samples,
// IN_FLIGHT loads in flight per thread): G = min(blocks to cover n, resident
// blocks), and at least ceil(n / 2^31), so that no block counts 2^32 samples
// or more (its 32-bit counters cannot wrap).
//
// Binning is the library's, exactly: the binners and their setup are shared
// with cuda_histogram.cu (device/hist_bins.cuh). Range edges are copied into
// scratch with cudaMemcpyAsync (as cuda_histogram.cu does) and, where they
// fit, into shared memory by each block (before the private histogram).
// The PRIVATE algorithms need (nbins + 1 edges, for range bins) + nbins
// 32-bit counters in one block's shared memory: beyond the device's opt-in
// limit they return PP_ERROR_UNSUPPORTED (no fallback: the point of the
// choice is the algorithm).
#include "../cuda_state.cuh"
#include "../device/dispatch.cuh"
#include "../device/hist_bins.cuh"
#include "../device/ops.cuh"
#include "../device/util.cuh"
#include "../device/vec.cuh"

namespace {

// HIST_BLOCK (threads per block of the counting kernel) is in device/hist_bins.cuh.
constexpr int IN_FLIGHT = 4;                         // samples in flight per thread
constexpr int MAX_BLOCKS_PER_SM = 2048 / HIST_BLOCK; // resident blocks of HIST_BLOCK threads per SM at most
constexpr uint64_t BLOCK_SAMPLE_CAP = 1ull << 31;    // samples one block may count (< 2^32)
constexpr int MERGE_BLOCK = 256;                     // threads per block of the per-bin reduction

struct StudyHist {
    const void *samples;
    uint64_t n;
    uint64_t nbins;
    uint32_t edge_bytes; // shared bytes before the private histogram (range edges there)
    uint64_t *counts;
    uint32_t *partials;  // PP_ALGO_PRIVATE_REDUCE: [block][nbins]
};

// The counting kernel of all three algorithms. Correctness: sample i is read
// by exactly one thread (i = i0 + u * stride for one thread and one u); the
// private histogram is zeroed before the first barrier and complete at the
// second (all its shared atomics precede it); the counts were zeroed earlier
// on the stream where atomics add into them; partial rows are disjoint per
// block (blockIdx.x * nbins + b, 64-bit index).
template <typename T, typename B, pp_algorithm ALGO>
__global__ void __launch_bounds__(HIST_BLOCK) study_hist_kernel(const StudyHist h, const B bn0)
{
    typedef typename B::index I;
    extern __shared__ __align__(16) unsigned char hsm[];
    B bn = bn0;
    bn.setup(hsm); // range edges into shared memory (when the binner keeps them there)
    uint32_t *hist = reinterpret_cast<uint32_t *>(hsm + h.edge_bytes);
    const uint32_t nb = (uint32_t)h.nbins; // PRIVATE only: nbins < 2^31
    if constexpr (ALGO != PP_ALGO_GLOBAL_ATOMIC) {
        for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) hist[b] = 0;
    }
    __syncthreads();

    const T *in = (const T *)h.samples;
    const uint64_t n = h.n;
    const uint64_t stride = (uint64_t)gridDim.x * HIST_BLOCK;
    for (uint64_t i0 = (uint64_t)blockIdx.x * HIST_BLOCK + threadIdx.x; i0 < n; i0 += IN_FLIGHT * stride) {
        T x[IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < IN_FLIGHT; u++) {
            const uint64_t i = i0 + (uint64_t)u * stride;
            x[u] = i < n ? pp_ldg(in + i) : (T)0;
        }
#pragma unroll
        for (int u = 0; u < IN_FLIGHT; u++) {
            const uint64_t i = i0 + (uint64_t)u * stride;
            if (i < n) {
                const I b = bn(x[u]);
                if (b != bn.none) {
                    if constexpr (ALGO == PP_ALGO_GLOBAL_ATOMIC) atomicAdd((unsigned long long *)h.counts + b, 1ull);
                    else atomicAdd(hist + b, 1u);
                }
            }
        }
    }

    if constexpr (ALGO == PP_ALGO_PRIVATE_ATOMIC) {
        __syncthreads();
        for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) {
            const uint32_t v = hist[b];
            if (v) atomicAdd((unsigned long long *)h.counts + b, (unsigned long long)v);
        }
    } else if constexpr (ALGO == PP_ALGO_PRIVATE_REDUCE) {
        __syncthreads();
        uint32_t *row = h.partials + (uint64_t)blockIdx.x * nb;
        for (uint32_t b = threadIdx.x; b < nb; b += HIST_BLOCK) row[b] = hist[b];
    }
}

// PRIVATE_REDUCE's merge: counts[b] = sum over blocks k = 0, 1, ... of
// partials[k][b], one thread per bin, in block order (64-bit sums of
// 32-bit counts; all counts written, zeros included).
__global__ void __launch_bounds__(MERGE_BLOCK) study_hist_reduce_bins(const uint32_t *__restrict__ partials,
                                                              uint64_t nblocks, uint64_t nb,
                                                              uint64_t *__restrict__ counts)
{
    const uint64_t stride = (uint64_t)gridDim.x * MERGE_BLOCK;
    for (uint64_t b = (uint64_t)blockIdx.x * MERGE_BLOCK + threadIdx.x; b < nb; b += stride) {
        uint64_t s = 0;
        for (uint64_t k = 0; k < nblocks; k++) s += __ldg(partials + k * nb + b);
        counts[b] = s;
    }
}

// Blocks for n samples: enough to cover n with IN_FLIGHT samples per thread, at
// most per_sm resident per SM, at least ceil(n / BLOCK_SAMPLE_CAP).
inline uint64_t study_hist_grid(uint64_t n, uint64_t per_sm, uint64_t sm_count)
{
    const uint64_t per_block = (uint64_t)HIST_BLOCK * IN_FLIGHT;
    uint64_t g = (n + per_block - 1) / per_block;
    const uint64_t res = per_sm * sm_count;
    if (g > res) g = res;
    const uint64_t need = (n + BLOCK_SAMPLE_CAP - 1) / BLOCK_SAMPLE_CAP;
    if (g < need) g = need;
    if (g < 1) g = 1;
    return g;
}

template <typename T, pp_algorithm ALGO, typename B>
pp_status study_hist_run(pp_context *ctx, const StudyHist &h, const B &bn, size_t smem, uint64_t gmax, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    void (*kern)(const StudyHist, const B) = study_hist_kernel<T, B, ALGO>;
    if (smem > 48 * 1024)
        PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem_optin),
                    fn);
    int per_sm = 0;
    PP_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, HIST_BLOCK, smem), fn);
    if (per_sm < 1) per_sm = 1;
    if (per_sm > MAX_BLOCKS_PER_SM) per_sm = MAX_BLOCKS_PER_SM;
    uint64_t grid = study_hist_grid(h.n, (uint64_t)per_sm, (uint64_t)s->sm_count);
    if (grid > gmax) grid = gmax; // never: gmax is the bound with MAX_BLOCKS_PER_SM
    if (ALGO != PP_ALGO_PRIVATE_REDUCE)
        PP_CUDA_TRY(ctx, cudaMemsetAsync(h.counts, 0, h.nbins * sizeof(uint64_t), s->stream), fn);
    kern<<<(unsigned)grid, HIST_BLOCK, smem, s->stream>>>(h, bn);
    PP_CUDA_LAUNCHED(ctx, fn);
    if constexpr (ALGO == PP_ALGO_PRIVATE_REDUCE) {
        uint64_t rg = (h.nbins + MERGE_BLOCK - 1) / MERGE_BLOCK;
        if (rg > 65535) rg = 65535;
        study_hist_reduce_bins<<<(unsigned)rg, MERGE_BLOCK, 0, s->stream>>>(h.partials, grid, h.nbins, h.counts);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    return PP_SUCCESS;
}

// Runs algorithm ALGO with binner b32 (32-bit bins: the PRIVATE algorithms,
// nbins < 2^31) or b64 (GLOBAL_ATOMIC, any nbins).
template <typename T, pp_algorithm ALGO, typename B32, typename B64>
pp_status study_hist_pick(pp_context *ctx, const StudyHist &h, const B32 &b32, const B64 &b64, size_t smem,
                          uint64_t gmax, const char *fn)
{
    if constexpr (ALGO == PP_ALGO_GLOBAL_ATOMIC) return study_hist_run<T, ALGO>(ctx, h, b64, smem, gmax, fn);
    // No b32: narrow types reach here only with nbins >= 2^32, never in shared memory.
    else if constexpr (pp_same<B32, HistNoBins>::value)
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: bad histogram plan", fn);
    else return study_hist_run<T, ALGO>(ctx, h, b32, smem, gmax, fn);
}

template <typename T, pp_algorithm ALGO> pp_status study_hist_typed(pp_context *ctx, const pp_histogram_args *a)
{
    const char *fn = a->fn;
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = a->n, nb = a->nbins;
    if (n == 0) return pp_cuda_zero(ctx, a->counts, nb * sizeof(uint64_t), fn);

    // Shared memory: range edges (16-byte aligned), then the private histogram.
    const uint64_t optin = s->smem_optin;
    const uint64_t edge_bytes = align_up(hist_edge_bytes<T>(a), 16);
    StudyHist h;
    memset(&h, 0, sizeof h);
    h.samples = a->samples;
    h.n = n;
    h.nbins = nb;
    h.counts = a->counts;
    size_t smem;
    if (ALGO != PP_ALGO_GLOBAL_ATOMIC) {
        const char *name = pp_algorithm_name(ALGO);
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
    const uint64_t gmax = study_hist_grid(n, MAX_BLOCKS_PER_SM, (uint64_t)s->sm_count);
    const uint64_t partial_bytes = ALGO == PP_ALGO_PRIVATE_REDUCE ? gmax * nb * 4 : 0;
    return hist_with_binners<T>(ctx, a, partial_bytes, h.edge_bytes != 0, fn,
                                [&](const auto &b32, const auto &b64, void *partials) {
                                    h.partials = (uint32_t *)partials;
                                    return study_hist_pick<T, ALGO>(ctx, h, b32, b64, smem, gmax, fn);
                                });
}

template <pp_algorithm ALGO> pp_status study_hist_entry(pp_context *ctx, const pp_histogram_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) { return study_hist_typed<decltype(t), ALGO>(ctx, a); });
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
pp_status pp_cuda_study_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a)
{
    return study_hist_entry<PP_ALGO_GLOBAL_ATOMIC>(ctx, a);
}
pp_status pp_cuda_study_histogram_private_atomic(pp_context *ctx, const pp_histogram_args *a)
{
    return study_hist_entry<PP_ALGO_PRIVATE_ATOMIC>(ctx, a);
}
pp_status pp_cuda_study_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a)
{
    return study_hist_entry<PP_ALGO_PRIVATE_REDUCE>(ctx, a);
}
