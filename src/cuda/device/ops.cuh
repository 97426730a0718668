// Element traits and operators, generated from the one type list (types.h):
// pp_traits<T>, the extreme values, the operators Op_sum ... Op_xor with
// their identities, and the comparisons of select_if / partition_if.
// C++ here only serves kernel generics (templates over element type and
// operator); no STL, no exceptions.
#ifndef PP_CUDA_DEVICE_OPS_CUH
#define PP_CUDA_DEVICE_OPS_CUH

#include <stdint.h>
#include <string.h>

#include "parprim.h"
#include "types.h"

// ---- element traits from the type list ---------------------------------------

template <typename T> struct pp_traits;
#define PP_CUDA_TRAITS(E, T, S, K, U, W)                    \
    template <> struct pp_traits<T> {                       \
        static constexpr int kind = PP_KIND_##K;            \
        static constexpr pp_type type = E;                  \
        typedef U bits;                                     \
        typedef W wide;                                     \
    };
PP_FOR_EACH_TYPE(PP_CUDA_TRAITS)
#undef PP_CUDA_TRAITS

template <typename T> __host__ __device__ constexpr bool pp_is_float() { return pp_traits<T>::kind == PP_KIND_FLOAT; }

template <typename A, typename B> struct pp_same { static constexpr bool value = false; };
template <typename A> struct pp_same<A, A> { static constexpr bool value = true; };

template <typename T> __host__ __device__ __forceinline__ T pp_max_value()
{
    typedef typename pp_traits<T>::bits U;
    if constexpr (pp_is_float<T>()) {
        U u = sizeof(T) == 4 ? (U)0x7f800000u : (U)0x7ff0000000000000ull; // +inf
        T r;
        memcpy(&r, &u, sizeof r);
        return r;
    } else if constexpr (pp_traits<T>::kind == PP_KIND_SINT) return (T)((U)~(U)0 >> 1);
    else return (T)~(T)0;
}
template <typename T> __host__ __device__ __forceinline__ T pp_min_value()
{
    if constexpr (pp_is_float<T>()) return -pp_max_value<T>();
    else if constexpr (pp_traits<T>::kind == PP_KIND_SINT) return (T)(-pp_max_value<T>() - 1);
    else return (T)0;
}

// ---- operators ----------------------------------------------------------------
// Op::apply(a, b) and Op::identity<T>() (the neutral element: -0.0 for a float
// sum, so that -0.0 inputs sum exactly as in sequence); public_identity is
// what the API writes as "the identity" (+0.0 for a float sum). Integer
// arithmetic wraps through the unsigned wide type. Float MIN and MAX give NaN
// if either side is NaN and order -0.0 below +0.0. AND, OR and XOR on floats
// are never dispatched (the core rejects them, and pp_dispatch_type_op in
// dispatch.cuh never instantiates them); their float branches only keep the
// operators total.

struct Op_sum {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a + b;
        else { typedef typename pp_traits<T>::wide W; return (T)((W)a + (W)b); }
    }
    template <typename T> __device__ __forceinline__ static T identity()
    {
        if constexpr (pp_is_float<T>()) return (T)-0.0;
        else return (T)0;
    }
};
struct Op_prod {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a * b;
        else { typedef typename pp_traits<T>::wide W; return (T)((W)a * (W)b); }
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)1; }
};
struct Op_min {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return (a < b || a != a || (a == b && signbit(a))) ? a : b;
        else return b < a ? b : a;
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_max_value<T>(); }
};
struct Op_max {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return (a > b || a != a || (a == b && !signbit(a))) ? a : b;
        else return b > a ? b : a;
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_min_value<T>(); }
};
struct Op_and {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a & b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_is_float<T>() ? (T)0 : (T)~(T)0; }
};
struct Op_or {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a | b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)0; }
};
struct Op_xor {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a ^ b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)0; }
};

// The identity as the API writes it (+0.0 for a float sum); host and device.
template <typename T, typename Op> __host__ __device__ __forceinline__ T pp_public_identity()
{
    if constexpr (pp_same<Op, Op_sum>::value) return (T)0;
    else if constexpr (pp_same<Op, Op_prod>::value) return (T)1;
    else if constexpr (pp_same<Op, Op_min>::value) return pp_max_value<T>();
    else if constexpr (pp_same<Op, Op_max>::value) return pp_min_value<T>();
    else if constexpr (pp_same<Op, Op_and>::value) return pp_is_float<T>() ? (T)0 : (T)~(T)0;
    else return (T)0;
}

// ---- comparisons (select_if, partition_if) --------------------------------------
// x CMP v with C's operators in the element type (NaN compares unequal).

template <int CMP, typename T> __host__ __device__ __forceinline__ bool pp_compare(T x, T v)
{
    if constexpr (CMP == PP_LT) return x < v;
    else if constexpr (CMP == PP_LE) return x <= v;
    else if constexpr (CMP == PP_GT) return x > v;
    else if constexpr (CMP == PP_GE) return x >= v;
    else if constexpr (CMP == PP_EQ) return x == v;
    else return x != v;
}

// The same with cmp known only at run time.
template <typename T> __host__ __device__ __forceinline__ bool pp_compare_by(pp_cmp cmp, T x, T v)
{
    switch (cmp) {
    case PP_LT: return pp_compare<PP_LT>(x, v);
    case PP_LE: return pp_compare<PP_LE>(x, v);
    case PP_GT: return pp_compare<PP_GT>(x, v);
    case PP_GE: return pp_compare<PP_GE>(x, v);
    case PP_EQ: return pp_compare<PP_EQ>(x, v);
    default: return pp_compare<PP_NE>(x, v);
    }
}

#endif
