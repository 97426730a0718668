// Keys and values of the radix sorts (cuda_sort.cu and study/sort.cu): the
// radix key of a sort key, its 8-bit digits, the host-side constants of
// the map (KeyMap) and its dispatch from a run-time type, and the value
// types (NoValue for keys only) with their dispatch from value_size.
//
// The radix key: unsigned as is; signed: sign bit flipped; floats: negative
// -> all bits flipped, else the sign bit flipped (-0.0 < +0.0); descending:
// all bits of the radix key flipped (one XOR with KeyMap::xmask, which for
// integers also holds the sign flip, so that their whole map is that XOR).
// Every NaN of a float key gets one radix key, KeyMap::nan_key: all ones
// (after +inf) ascending and in PP_DESCENDING_NAN_LAST, all zeros (first)
// in PP_DESCENDING; NaNs thus compare equal and keep their input order.
// Keys themselves are moved unchanged (so NaN payloads survive). Internal
// linkage: each including file has its own copy.
#ifndef PP_CUDA_DEVICE_SORT_KEYS_CUH
#define PP_CUDA_DEVICE_SORT_KEYS_CUH

#include <stdint.h>

#include "dispatch.cuh"
#include "internal.h"

namespace {

constexpr int kRadix = 256; // values of an 8-bit digit (Radix::digit)

template <typename U> __host__ __device__ constexpr U top_bit() { return (U)((U)1 << (8 * sizeof(U) - 1)); }
template <typename U> __host__ __device__ constexpr U float_inf_bits()
{
    if constexpr (sizeof(U) == 4) return (U)0x7f800000u;
    else return (U)0x7ff0000000000000ull;
}

// The radix key of the bits of a key, with the constants of KeyMap (nan_key
// read by floats with NANS only). NANS = false: the caller knows that no
// key is a NaN (the Onesweep passes, after count_kernel has looked), and
// the NaN check is left out (bench/studies/cuda-sort.md, "cuda sort: NaN-free pass
// kernels and two-part digit counting"); every order then maps as it does
// with the check.
template <bool FLOAT, typename U, bool NANS = true> struct Radix {
    static __device__ __forceinline__ bool is_nan(U bits)
    {
        return (U)(bits & (U)~top_bit<U>()) > float_inf_bits<U>();
    }
    static __device__ __forceinline__ U map(U bits, U xmask, [[maybe_unused]] U nan_key)
    {
        if constexpr (FLOAT) {
            const U sign = top_bit<U>();
            // one XOR: with all ones for a negative key (0 - its sign bit),
            // else with the sign bit; cheaper than choosing between ~bits and
            // bits | sign (bench/studies/cuda-sort.md, "cuda sort: a float's radix key
            // in one XOR, digits staged by the ranking")
            const U neg = (U)((U)0 - (U)(bits >> (8 * sizeof(U) - 1)));
            const U r = (U)(bits ^ (U)(neg | sign));
            if constexpr (NANS) return is_nan(bits) ? nan_key : (U)(r ^ xmask);
            else return (U)(r ^ xmask);
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

// The constants of Radix::map for one sort, computed on the host.
struct KeyMap {
    unsigned long long xmask; // for integers the sign flip (signed types) XOR the descending flip,
                              // for floats the descending flip only
    int nan_key;              // floats: the radix key of every NaN, 0 or all ones, held as 0 or -1
                              // (converted to the key's width; integers leave it unused)
};

// The KeyMap of keys of kind KIND (PP_KIND_*) whose bits are U, in `order`.
// PP_DESCENDING_NAN_LAST is descending but for nan_key. nan_key is all ones
// ascending and in PP_DESCENDING_NAN_LAST, 0 in PP_DESCENDING; no other
// key's radix key is either, flipped or not (they lie between those of -inf
// and +inf: for f32 0x007fffff and 0xff800000), so the NaNs come after, or
// before, every other key.
template <int KIND, typename U> inline KeyMap pp_sort_keymap(pp_order order)
{
    const unsigned long long ones = sizeof(U) == 8 ? ~0ull : (1ull << (8 * sizeof(U))) - 1;
    const unsigned long long sign = 1ull << (8 * sizeof(U) - 1);
    KeyMap m;
    m.xmask = (KIND == PP_KIND_SINT ? sign : 0) ^ (order != PP_ASCENDING ? ones : 0);
    m.nan_key = order == PP_DESCENDING ? 0 : -1;
    return m;
}

// The template arguments of Radix for keys of one type: FLOAT and their
// bits U (pp_dispatch_sort_key).
template <bool FLOAT_, typename U_> struct SortKeyOf {
    static constexpr bool FLOAT = FLOAT_;
    typedef U_ U;
};

// f(SortKeyOf<FLOAT, U>(), km) for keys of the run-time type `type`, km
// their KeyMap in `order`.
template <typename F>
pp_status pp_dispatch_sort_key(pp_context *ctx, const char *fn, pp_type type, pp_order order, F f)
{
    return pp_dispatch_type(ctx, fn, type, [&](auto t) {
        typedef typename pp_traits<decltype(t)>::bits U;
        constexpr int KIND = pp_traits<decltype(t)>::kind;
        return f(SortKeyOf<KIND == PP_KIND_FLOAT, U>(), pp_sort_keymap<KIND, U>(order));
    });
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
