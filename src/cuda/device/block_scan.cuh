// Block level: the exclusive scan and the reduction of one value per thread
// across a block (warp shuffles, then one warp over the warp results).
#ifndef PP_CUDA_DEVICE_BLOCK_SCAN_CUH
#define PP_CUDA_DEVICE_BLOCK_SCAN_CUH

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
