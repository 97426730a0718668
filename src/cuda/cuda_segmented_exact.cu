// PP_ALGO_EXACT for pp_segmented_reduce on the cuda backend: f32 and f64
// PP_SUM, each segment's sum bit for bit the exact pp_reduce of its
// elements (docs/exact.md), over the exact reduce's device machinery
// (device/exact.cuh, device/exact_fold.cuh: per-lane expansions folded into
// a warp's accumulator, the one rounding). The core hands this slot f32 and
// f64 sums alone (the half types' go to cuda_half.cu's slot).
//
// The elements are cut into chunks of XSEG_CHUNK, which cut each segment
// into pieces; two launches:
//   1. xseg_open_kernel, one block per chunk c but the last (grid-strided):
//      the piece in c of the segment that runs on past c's end (found by a
//      binary search of the offsets) folded by the block's warps into an
//      accumulator, written word-major to scratch (all zero where no
//      segment runs past c's end);
//   2. xseg_reduce_kernel, one warp per segment (grid-strided): the piece
//      in the segment's last chunk folded into the warp's accumulator, the
//      accumulators of the chunks before it in the segment (step 1) added
//      word by word, and the sum rounded once (an empty segment: +0.0).
// A long segment is so folded by many blocks, short ones by a warp each.
// The accumulators are integers, so the bits depend on the segment's
// elements alone, not on the pieces nor on the order of the additions.
//
// The offsets stay on the device and are never read back: each offset is
// clamped to n where it is read, a segment whose clamped end is below its
// start is empty, and the binary search of step 1 stays within the
// offsets, so bad offsets (decreasing, past n) give unspecified sums but
// no access out of bounds; only out[0 .. nseg) is written.
//
// Range: a word written by step 1 is below 8 * 2^33 in magnitude
// (pp_xblock_write), so a segment's sum of up to 2^25 of them (n below
// 2^39 elements) stays far from an int64's limit before the rounding
// normalizes it.
#include "cuda_state.cuh"
#include "device/exact.cuh" // first: it includes exact_acc.h for the device
#include "device/exact_fold.cuh"
#include "device/util.cuh"

namespace {

constexpr int XSEG_BLOCK = 256;
constexpr int XSEG_WARPS = XSEG_BLOCK / 32;
constexpr int XSEG_BLOCKS_PER_SM = 4;
constexpr size_t XSEG_CHUNK = 16384; // elements per chunk (a multiple of both batches)

// min(offsets[s], n)
__device__ __forceinline__ size_t xseg_offset(const uint64_t *off, size_t s, size_t n)
{
    const uint64_t o = off[s];
    return o < (uint64_t)n ? (size_t)o : n;
}

// The piece [*pb, *pe) within [cb, ce) of the segment that runs on past
// ce (clamped offsets; none: *pb == *pe). The binary search reads only
// offsets[0 .. nseg] whatever their order.
__device__ void xseg_open_piece(const uint64_t *off, size_t nseg, size_t n, size_t cb, size_t ce, size_t *pb,
                                size_t *pe)
{
    size_t lo = 0, hi = nseg; // the first s in [0, nseg] with offsets[s] >= ce (for sorted offsets)
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (xseg_offset(off, mid, n) < ce) lo = mid + 1;
        else hi = mid;
    }
    *pb = *pe = ce;
    if (lo == 0 || xseg_offset(off, lo, n) <= ce) return; // no segment lo - 1 open across ce
    const size_t b = xseg_offset(off, lo - 1, n);
    if (b >= ce) return;
    *pb = b > cb ? b : cb;
}

// Step 1: accs[w * nopen + c] = word w of the accumulator of chunk c's
// open piece, for every c < nopen.
template <typename T>
__global__ void __launch_bounds__(XSEG_BLOCK, XSEG_BLOCKS_PER_SM)
    xseg_open_kernel(const T *in, size_t n, const uint64_t *off, size_t nseg, int64_t *accs, size_t nopen)
{
    typedef pp_xfmt<T> F;
    __shared__ int64_t acc[XSEG_WARPS][F::WORDS];
    __shared__ unsigned sflags[XSEG_WARPS];
    __shared__ size_t piece[2];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t *w = acc[warp];
    for (size_t c = blockIdx.x; c < nopen; c += gridDim.x) {
        if (threadIdx.x == 0) xseg_open_piece(off, nseg, n, c * XSEG_CHUNK, (c + 1) * XSEG_CHUNK, &piece[0], &piece[1]);
        for (int k = lane; k < F::WORDS; k += 32) w[k] = 0;
        __syncthreads();
        const size_t pb = piece[0], len = piece[1] - piece[0];
        unsigned fl = 0;
        if (len) { // uniform across the block
            const int vec = ((uintptr_t)(in + pb) & 15u) == 0;
            pp_xthread_fold<T>(in + pb, len, (size_t)warp, XSEG_WARPS, vec != 0, w, fl);
        }
        fl = pp_warp_reduce<unsigned, Op_or>(fl);
        if (lane == 0) sflags[warp] = fl;
        __syncthreads();
        pp_xblock_write<T, XSEG_WARPS>(acc, sflags, accs + c, nopen);
        __syncthreads(); // the accumulators and piece are read before the next chunk's
    }
}

// Step 2: out[s] for every segment s, one warp each.
template <typename T>
__global__ void __launch_bounds__(XSEG_BLOCK, XSEG_BLOCKS_PER_SM)
    xseg_reduce_kernel(const T *in, size_t n, const uint64_t *off, size_t nseg, const int64_t *accs, size_t nopen,
                       T *out)
{
    typedef pp_xfmt<T> F;
    __shared__ int64_t acc[XSEG_WARPS][F::WORDS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t *w = acc[warp];
    const size_t nwarps = (size_t)gridDim.x * XSEG_WARPS;
    for (size_t s = (size_t)blockIdx.x * XSEG_WARPS + warp; s < nseg; s += nwarps) { // uniform across the warp
        const size_t b = xseg_offset(off, s, n), e = xseg_offset(off, s + 1, n);
        if (e <= b) { // empty (or bad offsets): +0.0, as pp_reduce of n == 0
            if (lane == 0) out[s] = (T)0;
            continue;
        }
        const size_t first = b / XSEG_CHUNK, last = (e - 1) / XSEG_CHUNK; // chunks of the first and last element
        const size_t pb = b > last * XSEG_CHUNK ? b : last * XSEG_CHUNK;
        for (int k = lane; k < F::WORDS; k += 32) w[k] = 0;
        __syncwarp();
        unsigned fl = 0;
        const int vec = ((uintptr_t)(in + pb) & 15u) == 0;
        pp_xthread_fold<T>(in + pb, e - pb, 0, 1, vec != 0, w, fl); // ends renormalized, the warp synchronized
        fl = pp_warp_reduce<unsigned, Op_or>(fl);
        // chunks first .. last - 1 (< nopen): the segment's earlier pieces, word by word across the lanes
        for (int k = 0; first < last && k <= F::CHUNKS; k++) {
            int64_t v = 0;
            for (size_t c = first + lane; c < last; c += 32) {
                const int64_t x = accs[(size_t)k * nopen + c];
                v = k == F::CHUNKS ? (v | x) : v + x;
            }
            if (k == F::CHUNKS) fl |= (unsigned)pp_warp_reduce<int64_t, Op_or>(v);
            else if ((v = pp_warp_reduce<int64_t, Op_sum>(v)) != 0 && lane == 0) w[k] += v;
        }
        if (lane == 0) {
            w[F::CHUNKS] = (int64_t)fl;
            w[F::CHUNKS + 1] = 0;
            pp_xstore_bits<T>(out + s, pp_xround<T>(w));
        }
        __syncwarp(); // lane 0's rounding reads w before the next segment clears it
    }
}

template <typename T> pp_status xseg_reduce_launch(pp_context *ctx, const pp_segmented_args *a)
{
    typedef pp_xfmt<T> F;
    const char *fn = a->fn;
    const size_t n = a->n, nseg = a->nseg, nchunks = ceil_div(n, XSEG_CHUNK), nopen = nchunks ? nchunks - 1 : 0;
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t resident = pp_cuda_resident(s, XSEG_BLOCKS_PER_SM);
    int64_t *accs = NULL;
    if (nopen) {
        accs = (int64_t *)pp_cuda_scratch(ctx, nopen * F::WORDS * sizeof(int64_t), fn);
        if (!accs) return PP_ERROR_OUT_OF_MEMORY;
        xseg_open_kernel<T><<<grid_for(nopen, resident), XSEG_BLOCK, 0, s->stream>>>(
            (const T *)a->in, n, a->offsets, nseg, accs, nopen);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    xseg_reduce_kernel<T><<<grid_for(ceil_div(nseg, XSEG_WARPS), resident), XSEG_BLOCK, 0, s->stream>>>(
        (const T *)a->in, n, a->offsets, nseg, accs, nopen, (T *)a->out);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a)
{
    if (a->op == PP_SUM && a->type == PP_F64) return xseg_reduce_launch<double>(ctx, a);
    if (a->op == PP_SUM && a->type == PP_F32) return xseg_reduce_launch<float>(ctx, a);
    // the core hands this slot f32 and f64 sums alone
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: PP_ALGO_EXACT takes f32 and f64 sums alone on cuda", a->fn);
}
