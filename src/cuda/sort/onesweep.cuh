// The Onesweep kernels of cuda_sort.cu (see the top of that file):
// count_kernel (sort/count.cuh), pass_kernel (one digit position, its tiles
// in sort/pass_tile.cuh) and copy_back_kernel. Internal linkage: included by
// cuda_sort.cu only.
#ifndef PP_CUDA_SORT_ONESWEEP_CUH
#define PP_CUDA_SORT_ONESWEEP_CUH

#include "count.cuh"
#include "pass_tile.cuh"

namespace {

// ---- one Onesweep pass -------------------------------------------------------------

// One pass over digit a.pass. Every block first clears its row of the next
// pass's look-back status: those rows were last used by the pass before this
// one, which has completed (kernels on one stream run in order), and the next
// pass starts only after this one completes; so each pass finds its rows
// zero without a memset, and two sets of rows serve all passes. Then, if
// count_kernel found the digit constant, the block exits (the pass is
// skipped; the device-side src_of and dst_of already account for it, and no block of
// the pass takes a ticket). Otherwise the block takes a ticket (tiles are
// numbered in the order blocks start), counts its tile's digits, publishes
// per digit its count, ranks the tile stably, then publishes per digit its
// inclusive count within the portion
// (decoupled look-back; the portion's start comes from the carry chain), and
// scatters keys (and values): within the tile by stable rank, across tiles
// by the counts of the digit in all earlier tiles, so equal digits keep
// input order across the whole array, i.e. the pass is stable.
// Memory ordering: a status word or carry holds its payload and its state
// in one aligned word, written and read with strong (relaxed, gpu-scope)
// accesses, and nothing else is communicated through it, so a reader that
// sees a non-zero word sees the complete value; no fence is needed.
// SPLIT (float keys): the kernel also holds a tile body without the NaN
// check, taken when count_kernel found no NaN (see cuda_sort.cu for when the
// host launches it).
template <bool FLOAT, typename U, typename V, bool SPLIT>
__global__ void __launch_bounds__(PassCfg<FLOAT, U, V>::BLOCK, PassCfg<FLOAT, U, V>::MIN_BLOCKS)
    pass_kernel(const PassArgs a)
{
    typedef PassCfg<FLOAT, U, V> C;
    extern __shared__ __align__(16) unsigned char smem[];
    const int tid = threadIdx.x;
    if (a.next_status != NULL && tid < kRadix) a.next_status[(size_t)blockIdx.x * kRadix + tid] = 0;
    const unsigned int act = a.ctrl->active[a.pass]; // the same for every thread
    if (!act) return;
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    if (tid == 0) misc[8] = atomicAdd(&a.ctrl->ticket[a.pass], 1u);
    // the counters of the tile's digit counting (pass_tile, step 1)
    uint32_t *const zero = C::COUNT_PARTS > 1 ? (uint32_t *)(smem + C::OFF_STAGE) : cnt;
    for (int i = tid; i < C::WARPS * kRadix * C::COUNT_PARTS; i += C::BLOCK) zero[i] = 0;
    const unsigned int from = a.ctrl->src_of[a.pass], to = a.ctrl->dst_of[a.pass];
    const U *src = (const U *)(from == kBufIn ? a.in_keys : from == kBufAlt ? a.alt_keys : a.keys);
    U *dst = (U *)(to == kBufAlt ? a.alt_keys : a.keys);
    const V *srcv = (const V *)(from == kBufIn ? a.in_vals : from == kBufAlt ? a.alt_vals : a.vals);
    V *dstv = (V *)(to == kBufAlt ? a.alt_vals : a.vals);
    __syncthreads();
    const uint32_t tile = misc[8];
    const size_t left = a.n - (size_t)tile * C::TILE;
    const int count = left < (size_t)C::TILE ? (int)left : C::TILE;
    // Float keys without a NaN (count_kernel's flag, the same for every
    // thread) take the tile body without the NaN check.
    if constexpr (FLOAT && SPLIT) {
        if (!(act & 2u)) {
            if (count == C::TILE) pass_tile<true, false, U, V, true>(a, smem, tile, count, src, dst, srcv, dstv);
            else pass_tile<true, false, U, V, false>(a, smem, tile, count, src, dst, srcv, dstv);
            return;
        }
    }
    if (count == C::TILE) pass_tile<FLOAT, true, U, V, true>(a, smem, tile, count, src, dst, srcv, dstv);
    else pass_tile<FLOAT, true, U, V, false>(a, smem, tile, count, src, dst, srcv, dstv);
}

// ---- final copy ------------------------------------------------------------------------

// A grid-wide copy of a byte range: where dst and src have the same
// address modulo 16 (the alternate buffers are placed so), one head, 16-byte
// vectors and one tail; else (an input copied as is, out of place) bytes.
__device__ __forceinline__ void copy_range(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    if (bytes == 0) return;
    const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    if (((uintptr_t)dst ^ (uintptr_t)src) & 15u) {
        for (size_t i = gt; i < bytes; i += stride) dst[i] = src[i];
        return;
    }
    size_t h = (16 - ((uintptr_t)dst & 15u)) & 15u;
    if (h > bytes) h = bytes;
    const size_t nv = (bytes - h) / 16, t0 = h + nv * 16;
    uint4 *dv = (uint4 *)(dst + h);
    const uint4 *sv = (const uint4 *)(src + h);
    for (size_t i = gt; i < nv; i += stride) dv[i] = __ldcs(sv + i);
    if (gt < h) dst[gt] = src[gt];
    if (t0 + gt < bytes) dst[t0 + gt] = src[t0 + gt];
}

// Copies the buffers the passes left the result in (ctrl->copy_back: the
// alternate ones after an odd number of passes in place, the input where
// no pass ran out of place) into the user's; exits at once otherwise.
__global__ void __launch_bounds__(256) copy_back_kernel(const SortCtrl *ctrl, unsigned char *keys,
                                                         const unsigned char *alt_keys, const unsigned char *in_keys,
                                                         size_t kbytes, unsigned char *vals,
                                                         const unsigned char *alt_vals, const unsigned char *in_vals,
                                                         size_t vbytes)
{
    const unsigned int from = ctrl->copy_back;
    if (from == kBufOut) return;
    copy_range(keys, from == kBufIn ? in_keys : alt_keys, kbytes);
    if (vbytes) copy_range(vals, from == kBufIn ? in_vals : alt_vals, vbytes);
}

} // namespace

#endif
