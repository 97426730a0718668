// Keys and values of the radix sorts (cuda_sort.cu and study/sort.cu): the
// radix key of a sort key, its 8-bit digits, the host-side key mask, and the
// value types (NoValue for keys only) with their dispatch from value_size.
//
// The radix key: unsigned as is; signed: sign bit flipped; floats: every
// NaN -> all ones (after +inf), negative -> all bits flipped, else the sign
// bit flipped (-0.0 < +0.0); descending: all bits of the radix key flipped.
// For integers the whole map is one XOR with the mask of pp_sort_xmask. Keys
// themselves are moved unchanged (so NaN payloads survive). Internal
// linkage: each including file has its own copy.
#ifndef PP_CUDA_DEVICE_SORT_KEYS_CUH
#define PP_CUDA_DEVICE_SORT_KEYS_CUH

#include <stdint.h>

#include "internal.h"

namespace {

constexpr int kRadix = 256; // values of an 8-bit digit (Radix::digit)

template <typename U> __host__ __device__ constexpr U top_bit() { return (U)((U)1 << (8 * sizeof(U) - 1)); }
template <typename U> __host__ __device__ constexpr U float_inf_bits()
{
    if constexpr (sizeof(U) == 4) return (U)0x7f800000u;
    else return (U)0x7ff0000000000000ull;
}

// The radix key of the bits of a key; xmask: for integers the sign flip (signed
// types) XOR the descending flip, for floats the descending flip only.
// NANS = false: the caller knows that no key is a NaN (the Onesweep passes,
// after count_kernel has looked), and the NaN check is left out (3-6% of a
// float sort's time on an H200).
template <bool FLOAT, typename U, bool NANS = true> struct Radix {
    static __device__ __forceinline__ bool is_nan(U bits)
    {
        return (U)(bits & (U)~top_bit<U>()) > float_inf_bits<U>();
    }
    static __device__ __forceinline__ U map(U bits, U xmask)
    {
        if constexpr (FLOAT) {
            const U sign = top_bit<U>();
            // one XOR: with all ones for a negative key (0 - its sign bit),
            // else with the sign bit; cheaper than choosing between ~bits and
            // bits | sign (on an H200, f32 keys 2^28 5.17 -> 4.98 ms)
            const U neg = (U)((U)0 - (U)(bits >> (8 * sizeof(U) - 1)));
            U r = (U)(bits ^ (U)(neg | sign));
            if constexpr (NANS)
                if (is_nan(bits)) r = (U)~(U)0;
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

// The xmask of Radix::map for keys of kind KIND (PP_KIND_*) whose bits are U.
template <int KIND, typename U> inline unsigned long long pp_sort_xmask(pp_order order)
{
    const unsigned long long ones = sizeof(U) == 8 ? ~0ull : (1ull << (8 * sizeof(U))) - 1;
    const unsigned long long sign = 1ull << (8 * sizeof(U) - 1);
    return (KIND == PP_KIND_SINT ? sign : 0) ^ (order == PP_DESCENDING ? ones : 0);
}

// Value types: NoValue for keys only.
struct NoValue {
    unsigned char unused;
};
template <typename V> struct VInfo {
    static constexpr bool has = true;
    static constexpr int bytes = (int)sizeof(V);
};
template <> struct VInfo<NoValue> {
    static constexpr bool has = false;
    static constexpr int bytes = 0;
};

// f(V()) with V the value type of value_size bytes (NoValue where vals is
// NULL); the core passes 1, 2, 4 or 8.
template <typename F>
pp_status pp_dispatch_values(pp_context *ctx, const char *fn, const void *vals, size_t value_size, F f)
{
    switch (vals ? value_size : 0) {
    case 0: return f(NoValue());
    case 1: return f(uint8_t());
    case 2: return f(uint16_t());
    case 4: return f(uint32_t());
    case 8: return f(uint64_t());
    default: break;
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: value size %zu", fn, value_size);
}

} // namespace

#endif
