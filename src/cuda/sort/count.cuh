// The counting step of the Onesweep sort (cuda_sort.cu): the per-call
// control block that plans the passes on the device, and count_kernel (all
// digit counts in one read of the keys, then the per-pass digit offsets and
// the plan). Its plan is read by the pass kernels and the copy back
// (sort/onesweep.cuh) and by fill_kernel (sort/small.cuh). Internal linkage:
// included through sort/onesweep.cuh and sort/small.cuh.
#ifndef PP_CUDA_SORT_COUNT_CUH
#define PP_CUDA_SORT_COUNT_CUH

#include "../device/block_scan.cuh"
#include "../device/ops.cuh"
#include "../device/sort_keys.cuh"
#include "../device/util.cuh"

namespace {

constexpr int kMaxPasses = 8;

// The buffers of a sort: the user's outputs (keys and values), the
// alternate ones in the scratch, the user's inputs (out of place only).
enum Buf : unsigned int { kBufOut = 0, kBufAlt = 1, kBufIn = 2 };

// Device-side control block of one call. ticket, done and nans must be zero
// when the call starts (cudaMemsetAsync); the rest is written by
// count_kernel.
struct SortCtrl {
    unsigned int ticket[kMaxPasses]; // tile tickets of each pass
    unsigned int done;               // count_kernel blocks finished
    unsigned int active[kMaxPasses]; // 0: every key has the same digit, pass skipped;
                                     // else bit 0 set, and bit 1 where some key is a NaN
    unsigned int src_of[kMaxPasses]; // the buffers the pass reads: a Buf
    unsigned int dst_of[kMaxPasses]; // the buffers it writes: a Buf
    unsigned int copy_back;          // the buffers the final copy reads (kBufOut: no copy)
    unsigned int nans;               // 1: some key is a NaN (float keys; blocks of count_kernel)
};

struct CountArgs {
    const void *keys;          // the keys to sort (the input, out of place)
    int out_of_place;          // 1: the passes read the input first, and never write it
    size_t n;
    unsigned long long xmask;
    unsigned long long *hist;  // [passes][256], zero on entry
    unsigned long long *pbase; // [passes][256] exclusive digit offsets, written by the last block
    SortCtrl *ctrl;
    uint32_t *zero;            // look-back status of the first pass, cleared here
    size_t zero_words;         // a multiple of 256 (zero is 256-byte aligned)
    int copies_log2;           // histogram copies in shared memory: 2^copies_log2 (0 .. 5)
    long long nan_key;         // with xmask, the KeyMap of Radix::map
};

// One rule places every pass (count_kernel here; the segmented sort's pass
// kernels, sort/seg_onesweep.cuh, apply it in every block). Active pass r
// (counted from 0) writes the user's output where end - r is odd and the
// alternate buffers where it is even, end being the number of active passes
// out of place (the last one writes the output) and 0 in place (the first
// writes the alternates, so the passes alternate from the user's buffers).
// Each reads what the one before it wrote, the first the input (in place,
// the output itself). The copy back reads the buffers the last active pass
// wrote: the alternates after an odd number in place, nothing out of place;
// the input where no pass ran out of place (every key equal).
__device__ __forceinline__ void route_passes(const unsigned int *active, int np, int out_of_place,
                                             unsigned int *src_of, unsigned int *dst_of, unsigned int *copy_back)
{
    unsigned int total = 0;
    for (int p = 0; p < np; p++) total += active[p] != 0;
    const unsigned int end = out_of_place ? total : 0u;
    unsigned int held = out_of_place ? kBufIn : kBufOut, ran = 0;
    for (int p = 0; p < np; p++) {
        src_of[p] = held;
        dst_of[p] = (end - ran) & 1u ? kBufOut : kBufAlt;
        if (active[p]) held = dst_of[p], ran++;
    }
    *copy_back = held;
}

constexpr int kCountBlock = 1024;

// Each block counts the digits of every pass over its share of the keys in
// shared memory, in 2^copies_log2 copies of the histograms (up to 32, as
// many as the device's shared memory holds; launch_count chooses), laid out
// so that lane l increments word (pass * 256 + digit) * copies + (l mod
// copies): with 32 copies every lane of a warp hits its own bank whatever
// the digits (random digits into 4 copies cost about 3-way bank conflicts),
// so the count runs at the speed of its loads. A block counts fewer than
// 2^31 keys, so 32-bit counters suffice. Then it adds its counts to the
// global 64-bit histograms with atomics. The last block to finish (every
// thread fences after its atomics, then one atomic counts the block done:
// the classic threadfence pattern; the last block fences again and reads
// the histograms from L2) computes for every pass the exclusive digit
// offsets, whether the pass is constant (some digit has all n keys), and
// from that which buffers each pass reads and writes and whether a copy
// back is needed.
// Counts do not depend on the order of the keys, so they hold for every
// pass. Dynamic shared memory: count_smem bytes.
__host__ __device__ constexpr size_t count_smem(int key_bytes, int copies_log2)
{
    return (size_t)key_bytes * kRadix * ((size_t)1 << copies_log2) * sizeof(uint32_t);
}

template <bool FLOAT, typename U> __global__ void __launch_bounds__(kCountBlock) count_kernel(const CountArgs a)
{
    typedef Radix<FLOAT, U> R;
    constexpr int NP = (int)sizeof(U);
    constexpr int PER = 16 / (int)sizeof(U);
    extern __shared__ __align__(16) uint32_t sh[];
    __shared__ unsigned int s_last;
    __shared__ uint64_t s_scan[kCountBlock / 32];
    const int tid = threadIdx.x, lane = tid & 31;
    const int cl = a.copies_log2;
    const int words = NP * kRadix << cl;
    const int copy = lane & ((1 << cl) - 1);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;

    for (int i = tid; i < words / 4; i += kCountBlock) ((uint4 *)sh)[i] = make_uint4(0, 0, 0, 0);
    // Clear the first pass's look-back status (the pass kernels run after this
    // kernel has completed).
    {
        uint4 *z = (uint4 *)a.zero;
        for (size_t i = (size_t)blockIdx.x * kCountBlock + tid; i < a.zero_words / 4; i += (size_t)gridDim.x * kCountBlock)
            z[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();

    bool nan = false; // this thread met a NaN key (floats)
    auto count_key = [&](U bits) {
        const U r = R::map(bits, xm, nk);
        if constexpr (FLOAT) nan |= R::is_nan(bits);
#pragma unroll
        for (int p = 0; p < NP; p++) atomicAdd(&sh[((p * kRadix + (int)R::digit(r, 8 * p)) << cl) + copy], 1u);
    };

    const U *keys = (const U *)a.keys;
    const size_t n = a.n;
    // Elements before the first 16-byte boundary, then 16-byte vectors, then
    // the rest (counting does not depend on order).
    const size_t mis = (size_t)((uintptr_t)keys & 15u);
    size_t head = mis ? (16 - mis) / sizeof(U) : 0;
    if (head > n) head = n;
    const size_t nvec = (n - head) / PER;
    const uint4 *vp = (const uint4 *)(keys + head);
    const size_t stride = (size_t)gridDim.x * kCountBlock;
    size_t v = (size_t)blockIdx.x * kCountBlock + tid;
    for (; v + 3 * stride < nvec; v += 4 * stride) {
        uint4 q[4];
#pragma unroll
        for (int u = 0; u < 4; u++) q[u] = __ldcs(vp + v + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            U e[PER];
            memcpy(e, &q[u], 16);
#pragma unroll
            for (int j = 0; j < PER; j++) count_key(e[j]);
        }
    }
    for (; v < nvec; v += stride) {
        const uint4 q = __ldcs(vp + v);
        U e[PER];
        memcpy(e, &q, 16);
#pragma unroll
        for (int j = 0; j < PER; j++) count_key(e[j]);
    }
    if (blockIdx.x == 0) {
        const size_t tail = head + nvec * PER;
        if ((size_t)tid < head) count_key(keys[tid]);
        if (tail + tid < n) count_key(keys[tail + tid]);
    }
    if (__syncthreads_or(nan) && tid == 0) a.ctrl->nans = 1u; // read by the passes, later kernels

    // Merge into the global histograms (the copies read from a rotated
    // start, so that a warp's reads fall in distinct banks).
    for (int i = tid; i < NP * kRadix; i += kCountBlock) {
        uint32_t c = 0;
        const int nc = 1 << cl;
        for (int k = 0; k < nc; k++) c += sh[(i << cl) + ((k + lane) & (nc - 1))];
        if (c) atomicAdd(&a.hist[i], (unsigned long long)c);
    }

    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(&a.ctrl->done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();

    const int d = tid; // digits: threads below kRadix
    // Every block stored its NaN flag before it counted itself done.
    const unsigned int run = FLOAT && __ldcg(&a.ctrl->nans) ? 3u : 1u;
    for (int p = 0; p < NP; p++) {
        const uint64_t tot = d < kRadix ? __ldcg(&a.hist[p * kRadix + d]) : 0;
        const int constant = __syncthreads_or(d < kRadix && tot == (uint64_t)n);
        uint64_t all;
        const uint64_t ex = pp_block_exclusive<uint64_t, Op_sum, kCountBlock>(tot, &all, s_scan);
        if (d < kRadix) a.pbase[p * kRadix + d] = ex;
        if (tid == 0) a.ctrl->active[p] = constant ? 0u : run;
        // (pp_block_exclusive ends with a barrier: s_scan is free for the next pass)
    }
    if (tid == 0) route_passes(a.ctrl->active, NP, a.out_of_place, a.ctrl->src_of, a.ctrl->dst_of, &a.ctrl->copy_back);
}

} // namespace

#endif
