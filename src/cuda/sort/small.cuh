// The short paths of cuda_sort.cu besides Onesweep: small_kernel and
// cluster_small_kernel (n <= SmallCfg::CAP, n <= PP_CLUSTER *
// SmallCfg::CAP: one block, or one cluster of blocks, sorts everything in
// shared memory, every pass) and fill_kernel (8-bit integer keys without
// values: after count_kernel, the runs are rewritten). Internal linkage: included by
// cuda_sort.cu only.
#ifndef PP_CUDA_SORT_SMALL_CUH
#define PP_CUDA_SORT_SMALL_CUH

#include "../device/cluster.cuh"
#include "../device/ops.cuh"
#include "../device/sort_keys.cuh"
#include "../device/sort_rank.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"
#include "count.cuh"

namespace {

// ---- 8-bit integer keys without values: rewrite the runs --------------------------------

// 8-bit integer keys without values: position i of the output holds the key
// whose digit d has start[d] <= i < start[d + 1] (starts from count_kernel);
// the key's bits are d XOR xmask. Each thread writes 16 bytes at a time.
// In place, exits at once if all keys are equal (nothing to do).
__global__ void __launch_bounds__(256) fill_kernel(const SortCtrl *ctrl, unsigned char *keys, size_t n,
                                                    const unsigned long long *start, unsigned int xmask,
                                                    int out_of_place)
{
    __shared__ unsigned long long s[kRadix + 1];
    if (!ctrl->active[0] && !out_of_place) return;
    for (int i = threadIdx.x; i < kRadix; i += blockDim.x) s[i] = start[i];
    if (threadIdx.x == 0) s[kRadix] = n;
    __syncthreads();
    // The digit of position i: the largest d with s[d] <= i (s[0] == 0).
    auto find = [&](size_t i) {
        int d = 0;
#pragma unroll
        for (int step = 128; step > 0; step >>= 1)
            if (s[d + step] <= i) d += step;
        return d;
    };
    size_t h = (16 - ((uintptr_t)keys & 15u)) & 15u;
    if (h > n) h = n;
    const size_t nv = (n - h) / 16, t0 = h + nv * 16;
    const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t v = gt; v < nv; v += stride) {
        const size_t p0 = h + v * 16;
        int d = find(p0);
        uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
        for (int j = 0; j < 16; j++) {
            while (s[d + 1] <= p0 + j) d++;
            w[j >> 2] |= (uint32_t)((d ^ xmask) & 255u) << (8 * (j & 3));
        }
        *(uint4 *)(keys + p0) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    if (gt < h) keys[gt] = (unsigned char)(find(gt) ^ xmask);
    if (t0 + gt < n) keys[t0 + gt] = (unsigned char)(find(t0 + gt) ^ xmask);
}

// ---- small inputs: one block, or one cluster of blocks, all in shared memory -----------

// One block holds up to CAP keys (and values); a cluster of PP_CLUSTER
// blocks (cluster_small_kernel) up to PP_CLUSTER * CAP, block b the sorted
// positions [b * CAP, (b + 1) * CAP) between passes.
template <typename U, typename V> struct SmallCfg {
    static constexpr int BLOCK = 512, WARPS = BLOCK / 32;
    static constexpr int KB = (int)sizeof(U), VB = VInfo<V>::bytes;
    static constexpr int ITEMS = KB + VB <= 8 ? 16 : 8;
    static constexpr int CAP = BLOCK * ITEMS;
    // The cluster's limit: PP_CLUSTER blocks of CAP, for every key and value
    // type. (8-byte keys without values had half that while Onesweep took
    // them with 14 keys per thread: their eight passes, two cluster barriers
    // each, made the cluster slower for u64 keys near 2^16. With 16 keys per
    // thread Onesweep's tiles are longer, and the cluster won for f64 keys
    // at 2^16 and tied for u64 keys; bench/studies/cuda-sort.md, "cuda sort on an
    // H100: bench_cub over everything; 8-byte keys alone at 2^16 in one
    // cluster; ...".)
    static constexpr size_t CLUSTER_CAP = (size_t)PP_CLUSTER * CAP;
    static constexpr size_t OFF_CNT = 0;
    static constexpr size_t OFF_MISC = OFF_CNT + (size_t)WARPS * kRadix * 4; // 32 u32, 17 u64
    static constexpr size_t OFF_KEYS = OFF_MISC + 512;
    static constexpr size_t OFF_VALS = OFF_KEYS + align_up((size_t)CAP * KB, 16);
    static constexpr size_t SMEM = align_up(OFF_VALS + (size_t)CAP * VB, 16); // one block
    // A cluster's block also has: its digit totals (read by the others), the
    // shifts from its sorted positions to the cluster's, and a staging area
    // for its keys and values in sorted order.
    static constexpr size_t OFF_BTOT = SMEM;
    static constexpr size_t OFF_SHIFT = OFF_BTOT + (size_t)kRadix * 4;
    static constexpr size_t OFF_SKEYS = OFF_SHIFT + (size_t)kRadix * 4;
    static constexpr size_t OFF_SVALS = OFF_SKEYS + align_up((size_t)CAP * KB, 16);
    static constexpr size_t SMEM_CLUSTER = OFF_SVALS + (size_t)CAP * VB;
};

struct SmallArgs {
    void *keys, *vals;             // the output
    const void *in_keys, *in_vals; // the input (keys, vals in place)
    int n;
    unsigned long long xmask;
    long long nan_key; // with xmask, the KeyMap of Radix::map
};

// The sort of small_kernel (CB = 1) and cluster_small_kernel (CB =
// PP_CLUSTER). Block `rank` loads its share of the input's keys (and
// values) into
// shared memory; the digit positions where some key differs from the first
// key are found with one OR over the block (over the cluster: every block's
// OR is read from its shared memory). Each such pass ranks the block's
// keys as a pass tile does (warp_rank, then offsets over warps and digits;
// stable). One block permutes its keys within its shared memory. In a
// cluster, the blocks' digit totals are read from each other's shared
// memory after a cluster barrier (every block's keys are in registers by
// then): a key's position in the cluster is the count of smaller digits in
// all blocks, plus that of its digit in earlier blocks, plus its rank in
// its block. The block puts its keys in its own sorted order in a staging
// area, then copies each to the block that holds its cluster position (runs
// of a digit stay together, so the stores of a warp are mostly contiguous),
// and a second barrier ends the pass. The blocks then write their
// positions to the output.
template <bool FLOAT, typename U, typename V, int CB> __device__ __forceinline__ void small_sort(const SmallArgs &a)
{
    typedef SmallCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    constexpr int ITEMS = C::ITEMS;
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *wsum = (uint32_t *)(smem + C::OFF_MISC);
    unsigned long long *wor = (unsigned long long *)(smem + C::OFF_MISC + 128);
    uint32_t *btot = (uint32_t *)(smem + C::OFF_BTOT);   // clusters only
    uint32_t *dshift = (uint32_t *)(smem + C::OFF_SHIFT); // clusters only
    U *sk = (U *)(smem + C::OFF_KEYS);
    V *sv = (V *)(smem + C::OFF_VALS);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const unsigned rank = CB > 1 ? pp_cluster_rank() : 0u;
    if constexpr (CB > 1) pp_cluster_arrive_relaxed();
    // This block's keys: [first, first + n) of the input.
    const int first = (int)rank * C::CAP;
    const int n = a.n - first < 0 ? 0 : (a.n - first < C::CAP ? a.n - first : C::CAP);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    U *keys = (U *)a.keys + first;
    V *vals = (V *)a.vals + first;
    const U *in_keys = (const U *)a.in_keys + first;
    const V *in_vals = (const V *)a.in_vals + first;

    const U r0 = R::map(((const U *)a.in_keys)[0], xm, nk);
    unsigned long long vary = 0;
    for (int i = tid; i < n; i += C::BLOCK) {
        const U x = in_keys[i];
        sk[i] = x;
        vary |= (unsigned long long)(U)(R::map(x, xm, nk) ^ r0);
        if constexpr (VInfo<V>::has) sv[i] = in_vals[i];
    }
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) vary |= __shfl_xor_sync(~0u, vary, m);
    if (lane == 0) wor[warp] = vary;
    __syncthreads();
    vary = 0;
#pragma unroll
    for (int w = 0; w < C::WARPS; w++) vary |= wor[w];
    if constexpr (CB > 1) {
        pp_cluster_wait(); // every block has started: its shared memory may be read and written
        if (tid == 0) wor[C::WARPS] = vary;
        pp_cluster_sync();
#pragma unroll
        for (int b = 0; b < CB; b++) vary |= *pp_cluster_map(&wor[C::WARPS], (unsigned)b);
        // With no pass to run (every key equal), no later barrier keeps a
        // block from exiting while another still reads its word: one here
        // (vary is the same in every block, so all of them take it).
        if (vary == 0) pp_cluster_sync();
    }

    const int wfirst = warp * 32 * ITEMS;
    for (int p = 0; p < (int)sizeof(U); p++) {
        if (((vary >> (8 * p)) & 255u) == 0) continue; // same for every thread of the cluster
        const int shift = 8 * p;
        for (int i = lane; i < kRadix; i += 32) cnt[warp * kRadix + i] = 0;
        __syncwarp();
        U k[ITEMS];
        [[maybe_unused]] V v[VInfo<V>::has ? ITEMS : 1];
        Digits<ITEMS> dg;
        uint32_t rk[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = wfirst + i * 32 + lane;
            k[i] = e < n ? sk[e] : (U)0;
            if constexpr (VInfo<V>::has) {
                if (e < n) v[i] = sv[e];
            }
            dg.set(i, R::digit(R::map(k[i], xm, nk), shift));
        }
        warp_rank<ITEMS, false>(dg, rk, cnt + warp * kRadix, n - wfirst);
        __syncthreads(); // ranks done, every key of this pass read from sk
        uint32_t mine = 0, total = 0, before = 0; // the block's and the cluster's counts of digit tid
        if (tid < kRadix) total = mine = column_scan<C::WARPS>(cnt, cnt, tid);
        if constexpr (CB > 1) {
            if (tid < kRadix) btot[tid] = mine;
            pp_cluster_sync(); // every block's totals published, its keys in registers
            if (tid < kRadix) {
                total = 0;
#pragma unroll
                for (int b = 0; b < CB; b++) {
                    const uint32_t t = *pp_cluster_map(&btot[tid], (unsigned)b);
                    before += b < (int)rank ? t : 0u;
                    total += t;
                }
            }
        }
        // Exclusive offsets over the digits: of the block's totals (its
        // sorted positions) and, in a cluster, of the cluster's (plus the
        // earlier blocks' counts of the digit).
        uint32_t excl = 0, gexcl = 0;
        if (tid < kRadix) {
            const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(mine);
            if (lane == 31) wsum[warp] = inc;
            excl = inc - mine;
            if constexpr (CB > 1) {
                const uint32_t ginc = pp_warp_inclusive<uint32_t, Op_sum>(total);
                if (lane == 31) wsum[C::WARPS + warp] = ginc;
                gexcl = ginc - total + before;
            }
        }
        __syncthreads();
        if (tid < kRadix) {
            for (int w = 0; w < warp; w++) {
                excl += wsum[w];
                if constexpr (CB > 1) gexcl += wsum[C::WARPS + w];
            }
            if constexpr (CB > 1) dshift[tid] = gexcl - excl;
#pragma unroll
            for (int w = 0; w < C::WARPS; w++) cnt[w * kRadix + tid] += excl;
        }
        __syncthreads();
        // One block: the permutation within its shared memory. A cluster:
        // the block's keys in sorted order into its staging area, then each
        // to the block that holds its position in the cluster (a run of one
        // digit goes to consecutive positions, so a warp's stores are
        // mostly contiguous in one block).
        U *const to_k = CB > 1 ? (U *)(smem + C::OFF_SKEYS) : sk;
        V *const to_v = CB > 1 ? (V *)(smem + C::OFF_SVALS) : sv;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = wfirst + i * 32 + lane;
            if (e < n) {
                const uint32_t r = rk[i] + cnt[warp * kRadix + dg.get(i)];
                to_k[r] = k[i];
                if constexpr (VInfo<V>::has) to_v[r] = v[i];
            }
        }
        if constexpr (CB > 1) {
            __syncthreads();
            for (int j = tid; j < n; j += C::BLOCK) {
                const U x = to_k[j];
                const uint32_t r = (uint32_t)j + dshift[R::digit(R::map(x, xm, nk), shift)];
                const unsigned at = r % C::CAP, to = r / C::CAP;
                *pp_cluster_map(&sk[at], to) = x;
                if constexpr (VInfo<V>::has) *pp_cluster_map(&sv[at], to) = to_v[j];
            }
            pp_cluster_sync(); // every key in place; counters, totals and staging free for the next pass
        } else {
            __syncthreads(); // permutation complete; counters free for the next pass
        }
    }
    for (int i = tid; i < n; i += C::BLOCK) {
        keys[i] = sk[i];
        if constexpr (VInfo<V>::has) vals[i] = sv[i];
    }
}

// n <= SmallCfg::CAP: one block.
template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(512, 1) small_kernel(const SmallArgs a)
{
    small_sort<FLOAT, U, V, 1>(a);
}

// n <= PP_CLUSTER * SmallCfg::CAP: one cluster of PP_CLUSTER blocks (the grid).
template <bool FLOAT, typename U, typename V>
__global__ void __cluster_dims__(PP_CLUSTER, 1, 1) __launch_bounds__(512, 1) cluster_small_kernel(const SmallArgs a)
{
    small_sort<FLOAT, U, V, PP_CLUSTER>(a);
}

} // namespace

#endif
