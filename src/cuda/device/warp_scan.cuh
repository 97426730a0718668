// Warp level: shuffles of any 1- to 8-byte element, the inclusive scan and
// the reduction across the 32 lanes of a full warp.
#ifndef PP_CUDA_DEVICE_WARP_SCAN_CUH
#define PP_CUDA_DEVICE_WARP_SCAN_CUH

#include <string.h>

#include "ops.cuh"

// Shuffles any element type (1 to 8 bytes, 12, or 16: a pair such as the
// segmented scan's flag and value) through its bits: shfl is applied to a
// 64-bit word for 8-byte types, to two for 16-byte ones, to three 32-bit
// words for 12-byte ones, else to a 32-bit word.
template <typename T, typename F> __device__ __forceinline__ T pp_shfl_bits(T v, F shfl)
{
    if constexpr (sizeof(T) == 8) {
        unsigned long long u;
        memcpy(&u, &v, 8);
        u = shfl(u);
        memcpy(&v, &u, 8);
    } else if constexpr (sizeof(T) == 12) {
        unsigned u[3];
        memcpy(u, &v, 12);
        u[0] = shfl(u[0]);
        u[1] = shfl(u[1]);
        u[2] = shfl(u[2]);
        memcpy(&v, u, 12);
    } else if constexpr (sizeof(T) == 16) {
        unsigned long long u[2];
        memcpy(u, &v, 16);
        u[0] = shfl(u[0]);
        u[1] = shfl(u[1]);
        memcpy(&v, u, 16);
    } else {
        static_assert(sizeof(T) <= 4, "pp_shfl_bits: 1, 2, 4, 8, 12 or 16 bytes");
        unsigned u = 0;
        memcpy(&u, &v, sizeof(T));
        u = shfl(u);
        memcpy(&v, &u, sizeof(T));
    }
    return v;
}
template <typename T> __device__ __forceinline__ T pp_shfl_up(T v, int delta)
{
    return pp_shfl_bits(v, [delta](auto u) { return __shfl_up_sync(0xffffffffu, u, delta); });
}
template <typename T> __device__ __forceinline__ T pp_shfl_down(T v, unsigned delta)
{
    return pp_shfl_bits(v, [delta](auto u) { return __shfl_down_sync(0xffffffffu, u, delta); });
}
template <typename T> __device__ __forceinline__ T pp_shfl(T v, int lane)
{
    return pp_shfl_bits(v, [lane](auto u) { return __shfl_sync(0xffffffffu, u, lane); });
}
template <typename T> __device__ __forceinline__ T pp_shfl_xor(T v, int mask)
{
    return pp_shfl_bits(v, [mask](auto u) { return __shfl_xor_sync(0xffffffffu, u, mask); });
}

// Inclusive scan across the 32 lanes of a full warp (Hillis-Steele with
// shuffles, log2(32) steps).
template <typename T, typename Op> __device__ __forceinline__ T pp_warp_inclusive(T v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        T u = pp_shfl_up(v, d);
        if (lane >= d) v = Op::apply(u, v);
    }
    return v;
}

// Reduction across a full warp; every lane gets the result. The combination
// order is fixed (a butterfly), so results are reproducible.
template <typename T, typename Op> __device__ __forceinline__ T pp_warp_reduce(T v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2) v = Op::apply(v, pp_shfl_xor(v, m));
    return v;
}

// 32-bit unsigned min, max and or: one redux.sync instruction from sm_80 on
// (any order gives the same result, so nothing is lost to reproducibility).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <> __device__ __forceinline__ unsigned pp_warp_reduce<unsigned, Op_min>(unsigned v)
{
    return __reduce_min_sync(0xffffffffu, v);
}
template <> __device__ __forceinline__ unsigned pp_warp_reduce<unsigned, Op_max>(unsigned v)
{
    return __reduce_max_sync(0xffffffffu, v);
}
template <> __device__ __forceinline__ unsigned pp_warp_reduce<unsigned, Op_or>(unsigned v)
{
    return __reduce_or_sync(0xffffffffu, v);
}
#endif

#endif
