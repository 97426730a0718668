// The two short paths of cuda_sort.cu besides Onesweep: small_kernel (n
// <= SmallCfg::CAP: one block sorts everything in shared memory, every
// pass) and fill_kernel (8-bit integer keys without values: after
// count_kernel, the runs are rewritten). Internal linkage: included by
// cuda_sort.cu only.
#ifndef PP_CUDA_SORT_SMALL_CUH
#define PP_CUDA_SORT_SMALL_CUH

#include "onesweep.cuh"

namespace {

// ---- 8-bit integer keys without values: rewrite the runs --------------------------------

// 8-bit integer keys without values: position i of the output holds the key
// whose digit d has start[d] <= i < start[d + 1] (starts from count_kernel);
// the key's bits are d XOR xmask. Each thread writes 16 bytes at a time.
// Exits at once if all keys are equal (nothing to do).
__global__ void __launch_bounds__(256) fill_kernel(const SortCtrl *ctrl, unsigned char *keys, size_t n,
                                                    const unsigned long long *start, unsigned int xmask)
{
    __shared__ unsigned long long s[kRadix + 1];
    if (!ctrl->active[0]) return;
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

// ---- small inputs: one block, all in shared memory ------------------------------------

template <typename U, typename V> struct SmallCfg {
    static constexpr int BLOCK = 512, WARPS = BLOCK / 32;
    static constexpr int KB = (int)sizeof(U), VB = VInfo<V>::bytes;
    static constexpr int ITEMS = KB + VB <= 8 ? 16 : 8;
    static constexpr int CAP = BLOCK * ITEMS;
    static constexpr size_t OFF_CNT = 0;
    static constexpr size_t OFF_MISC = OFF_CNT + (size_t)WARPS * kRadix * 4; // 16 u32, then 16 u64
    static constexpr size_t OFF_KEYS = OFF_MISC + 256;
    static constexpr size_t OFF_VALS = OFF_KEYS + align_up((size_t)CAP * KB, 16);
    static constexpr size_t SMEM = OFF_VALS + (size_t)CAP * VB;
};

struct SmallArgs {
    void *keys, *vals;
    int n;
    unsigned long long xmask;
};

// n <= CAP keys (and values) are loaded into shared memory; the digit
// positions where some key differs from the first key are found with one
// block-wide OR; each such pass ranks the keys exactly as a pass tile does
// (warp_rank, then offsets over warps and digits; stable) and permutes keys
// and values within shared memory; the result is written back.
template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(512, 1) small_kernel(const SmallArgs a)
{
    typedef SmallCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    constexpr int ITEMS = C::ITEMS;
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *wsum = (uint32_t *)(smem + C::OFF_MISC);
    unsigned long long *wor = (unsigned long long *)(smem + C::OFF_MISC + 64);
    U *sk = (U *)(smem + C::OFF_KEYS);
    V *sv = (V *)(smem + C::OFF_VALS);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int n = a.n;
    const U xm = (U)a.xmask;
    U *keys = (U *)a.keys;
    V *vals = (V *)a.vals;

    const U r0 = R::map(keys[0], xm);
    unsigned long long vary = 0;
    for (int i = tid; i < n; i += C::BLOCK) {
        const U x = keys[i];
        sk[i] = x;
        vary |= (unsigned long long)(U)(R::map(x, xm) ^ r0);
        if constexpr (VInfo<V>::has) sv[i] = vals[i];
    }
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) vary |= __shfl_xor_sync(~0u, vary, m);
    if (lane == 0) wor[warp] = vary;
    __syncthreads();
    vary = 0;
#pragma unroll
    for (int w = 0; w < C::WARPS; w++) vary |= wor[w];

    const int wfirst = warp * 32 * ITEMS;
    for (int p = 0; p < (int)sizeof(U); p++) {
        if (((vary >> (8 * p)) & 255u) == 0) continue; // same for every thread
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
            dg.set(i, R::digit(R::map(k[i], xm), shift));
        }
        warp_rank<ITEMS, false>(dg, rk, cnt + warp * kRadix, n - wfirst);
        __syncthreads(); // ranks done, every key of this pass read from sk
        uint32_t total = 0, excl = 0;
        if (tid < kRadix) {
            total = column_scan<C::WARPS>(cnt, cnt, tid);
            const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(total);
            if (lane == 31) wsum[warp] = inc;
            excl = inc - total;
        }
        __syncthreads();
        if (tid < kRadix) {
            for (int w = 0; w < warp; w++) excl += wsum[w];
#pragma unroll
            for (int w = 0; w < C::WARPS; w++) cnt[w * kRadix + tid] += excl;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = wfirst + i * 32 + lane;
            if (e < n) {
                const uint32_t r = rk[i] + cnt[warp * kRadix + dg.get(i)];
                sk[r] = k[i];
                if constexpr (VInfo<V>::has) sv[r] = v[i];
            }
        }
        __syncthreads(); // permutation complete; counters free for the next pass
    }
    for (int i = tid; i < n; i += C::BLOCK) {
        keys[i] = sk[i];
        if constexpr (VInfo<V>::has) vals[i] = sv[i];
    }
}

} // namespace

#endif
