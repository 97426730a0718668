// Block level: the exclusive scan and the reduction of one value per thread
// across a block (warp shuffles, then one warp over the warp results), and
// one block's exclusive scan of an array in place.
#ifndef PP_CUDA_DEVICE_BLOCK_SCAN_CUH
#define PP_CUDA_DEVICE_BLOCK_SCAN_CUH

#include <stddef.h>

#include "warp_scan.cuh"

// Exclusive scan of one value per thread across a block of BLOCK threads
// (a multiple of 32): returns the exclusive prefix (identity for thread 0)
// and the block's total in *total. smem: BLOCK / 32 elements. Contains
// __syncthreads(): every thread of the block must call it.
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ T pp_block_exclusive(T v, T *total, T *smem)
{
    constexpr int WARPS = BLOCK / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inc = pp_warp_inclusive<T, Op>(v);
    if (lane == 31) smem[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        T w = lane < WARPS ? smem[lane] : Op::template identity<T>();
        w = pp_warp_inclusive<T, Op>(w);
        if (lane < WARPS) smem[lane] = w;
    }
    __syncthreads();
    T warp_prefix = warp > 0 ? smem[warp - 1] : Op::template identity<T>();
    *total = smem[WARPS - 1];
    T excl = pp_shfl_up(inc, 1);
    if (lane == 0) excl = Op::template identity<T>();
    T r = Op::apply(warp_prefix, excl);
    __syncthreads(); // smem may be reused by the caller
    return r;
}

// Exclusive scan in place of v[0..n) by one block of BLOCK threads, in
// rounds of BLOCK * ITEMS elements with a carry between rounds; each thread
// reads and writes only its own ITEMS elements of a round. smem: BLOCK / 32
// elements. carry: what the scan starts from (v[0] becomes carry op the
// identity), the same in every thread. Every thread of the block must call
// it.
template <typename T, typename Op, int BLOCK, int ITEMS>
__device__ __forceinline__ void pp_block_exclusive_inplace(T *v, size_t n, T *smem,
                                                           T carry = Op::template identity<T>())
{
    const T id = Op::template identity<T>();
    for (size_t base = 0; base < n; base += (size_t)BLOCK * ITEMS) {
        const size_t i0 = base + (size_t)threadIdx.x * ITEMS;
        T x[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) x[k] = i0 + k < n ? v[i0 + k] : id;
        T r = x[0];
#pragma unroll
        for (int k = 1; k < ITEMS; k++) r = Op::apply(r, x[k]);
        T total;
        T c = Op::apply(carry, pp_block_exclusive<T, Op, BLOCK>(r, &total, smem));
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            if (i0 + k < n) v[i0 + k] = c;
            c = Op::apply(c, x[k]);
        }
        carry = Op::apply(carry, total);
    }
}

// Reduction of one value per thread across a block of BLOCK threads (a
// multiple of 32) in a fixed order (reproducible); the result is valid in
// lane 0 of warp 0 (the other lanes of warp 0 hold it too, but float sums
// and products may round differently there: the butterfly pairs values
// differently in each lane). smem: BLOCK / 32 elements. For BLOCK > 32 it
// contains one __syncthreads(), so every thread of the block must call it,
// and the caller must synchronize again before smem is written anew.
template <typename T, typename Op, int BLOCK> __device__ __forceinline__ T pp_block_reduce(T v, T *smem)
{
    constexpr int WARPS = BLOCK / 32;
    v = pp_warp_reduce<T, Op>(v);
    if constexpr (WARPS > 1) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) smem[warp] = v;
        __syncthreads();
        if (warp == 0) {
            v = lane < WARPS ? smem[lane] : Op::template identity<T>();
            v = pp_warp_reduce<T, Op>(v);
        }
    }
    return v;
}

#endif
