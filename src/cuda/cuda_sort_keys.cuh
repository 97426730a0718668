// The radix key of a sort key (shared by cuda_sort.cu and cuda_seed_sort.cu):
// unsigned as is; signed: sign bit flipped; floats: every NaN -> all ones
// (after +inf), negative -> all bits flipped, else the sign bit flipped
// (-0.0 < +0.0); descending: all bits of the radix key flipped. For integers
// the whole map is one XOR with a mask computed on the host (see sort_typed
// in cuda_sort.cu). Internal linkage: each including file has its own copy.
#ifndef PP_CUDA_SORT_KEYS_CUH
#define PP_CUDA_SORT_KEYS_CUH

#include <stdint.h>

namespace {

template <typename U> __host__ __device__ constexpr U top_bit() { return (U)((U)1 << (8 * sizeof(U) - 1)); }
template <typename U> __host__ __device__ constexpr U float_inf_bits()
{
    if constexpr (sizeof(U) == 4) return (U)0x7f800000u;
    else return (U)0x7ff0000000000000ull;
}

// The radix key of the bits of a key; xmask: for integers the sign flip (signed
// types) XOR the descending flip, for floats the descending flip only.
template <bool FLOAT, typename U> struct Radix {
    static __device__ __forceinline__ U map(U bits, U xmask)
    {
        if constexpr (FLOAT) {
            const U sign = top_bit<U>();
            U r = (bits & sign) ? (U)~bits : (U)(bits | sign);
            if ((U)(bits & (U)~sign) > float_inf_bits<U>()) r = (U)~(U)0; // NaN
            return (U)(r ^ xmask);
        } else {
            return (U)(bits ^ xmask);
        }
    }
    static __device__ __forceinline__ uint32_t digit(U r, int shift)
    {
        if constexpr (sizeof(U) == 8) return (uint32_t)(r >> shift) & 255u;
        else return ((uint32_t)r >> shift) & 255u;
    }
};

} // namespace

#endif
