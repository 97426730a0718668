// Integer helpers of the cuda backend, host and device: rounding up, and the
// clamping of a launch's grid.
#ifndef PP_CUDA_DEVICE_UTIL_CUH
#define PP_CUDA_DEVICE_UTIL_CUH

#include <stddef.h>

// ceil(a / b), b > 0.
__host__ __device__ constexpr size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

// x rounded up to a multiple of a (a > 0).
__host__ __device__ constexpr size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

// A launch's grid: `blocks` clamped to [1, cap] (cap >= 1).
inline unsigned grid_for(size_t blocks, size_t cap)
{
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;
    return (unsigned)blocks;
}

#endif
