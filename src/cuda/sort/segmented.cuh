// The segmented sort's small segments (cuda_segsort.cu): the segments and
// their classes, seg_classify_kernel (every segment's bounds clamped to n,
// tiny segments sorted at once by one warp each, the others appended to
// the lists of their class) and seg_small_kernel (a segment per block, or
// per cluster of blocks: small_sort of sort/small.cuh on the segment).
// The large segments: sort/seg_onesweep.cuh. Internal linkage: included by
// cuda_segsort.cu only.
#ifndef PP_CUDA_SORT_SEGMENTED_CUH
#define PP_CUDA_SORT_SEGMENTED_CUH

#include "../device/sort_keys.cuh"
#include "small.cuh"

namespace
{

// A segment as the kernels see it: its first key and its length (bounds
// clamped to n, never decreasing).
struct Seg {
    unsigned long long begin, len;
};

// The classes of segments of at least two keys. Tiny: up to kTiny keys, one
// warp sorts the segment in registers (kTinyItems keys per lane). Block: up
// to SmallCfg::CAP, one block (small_sort). Cluster: up to
// SmallCfg::CLUSTER_CAP, one cluster of PP_CLUSTER blocks. Large: the rest,
// the batched Onesweep (sort/seg_onesweep.cuh).
constexpr int kTinyItems = 4;
constexpr int kTiny = 32 * kTinyItems;
enum SegClass { kSegBlock = 0, kSegCluster = 1, kSegLarge = 2, kSegClasses = 3 };

// Device-side control block of one call, zero when the call starts
// (cudaMemsetAsync): the lists' counts of appends (more than a list holds
// only with bad offsets: the rest are dropped), the large path's tiles and
// its passes (SortCtrl: the tickets of each pass, and whether any large
// segment has more than one digit value in that pass).
struct SegCtrl {
    unsigned long long count[kSegClasses];
    unsigned int tiles; // tiles of the large path (seg_plan_kernel)
    unsigned int large; // large segments listed (seg_plan_kernel)
    SortCtrl sort;
};

struct SegArgs {
    void *keys, *vals; // vals: NULL without values
    const uint64_t *offsets;
    size_t n, nseg;
    unsigned long long xmask;
    long long nan_key;                   // with xmask, the KeyMap of Radix::map
    unsigned long long block_max;        // the largest segment of the block class (kTiny: none)
    unsigned long long cluster_max;      // of the cluster class (block_max: none)
    Seg *list[kSegClasses];              // the lists of the classes
    unsigned long long cap[kSegClasses]; // their room
    unsigned long long *large_hist;      // [cap[kSegLarge]][passes][256] digit counts
                                         // of the large segments
    int passes;                          // digit positions (key bytes)
    SegCtrl *ctrl;
};

// The segment's keys (and values) [b, b + len), 2 <= len <= kTiny, sorted by
// the warp: each lane holds kTinyItems keys (item i of lane l is key
// 32 i + l), and a key's position is the number of keys before it in the
// stable order: of smaller radix key, or of equal radix key and smaller
// index (so the sort is stable). Every key is read before any is written.
template <bool FLOAT, typename U, typename V>
__device__ __forceinline__ void tiny_sort(U *keys, V *vals, int len, U xm, U nk)
{
    typedef Radix<FLOAT, U> R;
    const int lane = threadIdx.x & 31;
    U k[kTinyItems], r[kTinyItems];
    [[maybe_unused]] V v[VInfo<V>::has ? kTinyItems : 1];
    uint32_t pos[kTinyItems];
#pragma unroll
    for (int i = 0; i < kTinyItems; i++) {
        const int e = 32 * i + lane;
        k[i] = e < len ? keys[e] : (U)0;
        r[i] = R::map(k[i], xm, nk);
        if constexpr (VInfo<V>::has) v[i] = e < len ? vals[e] : (V)0;
        pos[i] = 0;
    }
#pragma unroll
    for (int it = 0; it < kTinyItems; it++) {
        if (32 * it >= len) break; // warp-uniform
        for (int l = 0; l < 32; l++) {
            const int j = 32 * it + l;
            U rj;
            if constexpr (sizeof(U) == 8)
                rj = (U)__shfl_sync(~0u, (unsigned long long)r[it], l);
            else
                rj = (U)__shfl_sync(~0u, (uint32_t)r[it], l);
            if (j >= len) break; // warp-uniform
#pragma unroll
            for (int i = 0; i < kTinyItems; i++)
                pos[i] += rj < r[i] || (rj == r[i] && j < 32 * i + lane);
        }
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < kTinyItems; i++) {
        if (32 * i + lane < len) {
            keys[pos[i]] = k[i];
            if constexpr (VInfo<V>::has) vals[pos[i]] = v[i];
        }
    }
}

// Each warp takes 32 consecutive segments at a time, a lane each: its
// bounds clamped to n (an end before its begin makes it empty), its class;
// the segments of the block, cluster and large classes are appended to
// their lists (one atomic per class and warp; a large segment's digit
// counts are cleared by the warp), then the warp sorts the tiny ones one by
// one. Bad offsets: every segment lies within [0, n), so whatever they are,
// nothing outside keys[0 .. n) is read or written.
template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(256)
    seg_classify_kernel(const SegArgs a)
{
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    const size_t warps = ((size_t)gridDim.x * blockDim.x) >> 5;
    const size_t groups = (a.nseg + 31) / 32;
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    for (size_t g = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < groups; g += warps) {
        const size_t s = g * 32 + (size_t)lane;
        unsigned long long b = 0, e = 0;
        if (s < a.nseg) {
            b = a.offsets[s];
            e = a.offsets[s + 1];
            b = b < a.n ? b : a.n;
            e = e < a.n ? e : a.n;
            e = e < b ? b : e;
        }
        const unsigned long long len = e - b;
        const int cls = len < 2 || len <= (unsigned long long)kTiny ? -1
                        : len <= a.block_max                        ? kSegBlock
                        : len <= a.cluster_max                      ? kSegCluster
                                                                    : kSegLarge;
        for (int c = 0; c < kSegClasses; c++) {
            const unsigned m = __ballot_sync(~0u, cls == c);
            if (!m) continue;
            const int leader = __ffs(m) - 1;
            unsigned long long at = 0;
            if (lane == leader) at = atomicAdd(&a.ctrl->count[c], (unsigned long long)__popc(m));
            at = __shfl_sync(~0u, at, leader) + (unsigned long long)__popc(m & lower);
            const bool kept = cls == c && at < a.cap[c];
            if (kept) a.list[c][at] = Seg{b, len};
            if (c != kSegLarge) continue;
            // Clear the digit counts of the large segments just listed.
            for (unsigned q = __ballot_sync(~0u, kept); q; q &= q - 1) {
                const unsigned long long slot = __shfl_sync(~0u, at, __ffs(q) - 1);
                unsigned long long *h = a.large_hist + slot * (size_t)a.passes * kRadix;
                for (int w = lane; w < a.passes * kRadix; w += 32)
                    h[w] = 0;
            }
        }
        const unsigned tiny = __ballot_sync(~0u, len >= 2 && len <= (unsigned long long)kTiny);
        for (unsigned q = tiny; q; q &= q - 1) {
            const int src = __ffs(q) - 1;
            const unsigned long long tb = __shfl_sync(~0u, b, src);
            const int tl = (int)__shfl_sync(~0u, len, src);
            tiny_sort<FLOAT, U, V>((U *)a.keys + tb, VInfo<V>::has ? (V *)a.vals + tb : (V *)0, tl, xm, nk);
            __syncwarp();
        }
    }
}

// The segments of one list, each sorted in shared memory by one block (CB =
// 1) or one cluster of PP_CLUSTER blocks: small_sort on the segment. Group
// g (a block, or a cluster) takes entries g, g + groups, ...; every block of
// a cluster takes the same entries, so the cluster's barriers match.
template <bool FLOAT, typename U, typename V, int CB>
__device__ __forceinline__ void seg_small(const SegArgs &a, int cls)
{
    const unsigned long long listed = a.ctrl->count[cls];
    const unsigned long long count = listed < a.cap[cls] ? listed : a.cap[cls];
    const unsigned groups = gridDim.x / CB;
    for (unsigned long long i = blockIdx.x / CB; i < count; i += groups) {
        const Seg sg = a.list[cls][i];
        SmallArgs s;
        s.keys = (U *)a.keys + sg.begin;
        s.vals = VInfo<V>::has ? (void *)((V *)a.vals + sg.begin) : NULL;
        s.in_keys = s.keys;
        s.in_vals = s.vals;
        s.n = (int)sg.len;
        s.xmask = a.xmask;
        s.nan_key = a.nan_key;
        small_sort<FLOAT, U, V, CB>(s);
        __syncthreads(); // every output written before the shared memory is
                         // reloaded
    }
}

template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(512, 1)
    seg_block_kernel(const SegArgs a)
{
    seg_small<FLOAT, U, V, 1>(a, kSegBlock);
}

template <bool FLOAT, typename U, typename V> __global__ void __cluster_dims__(PP_CLUSTER, 1, 1)
    __launch_bounds__(512, 1) seg_cluster_kernel(const SegArgs a)
{
    seg_small<FLOAT, U, V, PP_CLUSTER>(a, kSegCluster);
}

} // namespace

#endif
