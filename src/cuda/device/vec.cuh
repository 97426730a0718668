// Sixteen bytes at a time: element j of a raw 16-byte vector (pp_vget), a
// packed 16-byte vector of elements (pp_vec16), and read-only element loads
// of any 1- to 8-byte type (pp_ldg).
#ifndef PP_CUDA_DEVICE_VEC_CUH
#define PP_CUDA_DEVICE_VEC_CUH

#include "ops.cuh"

// Element j of a 16-byte vector holding 16 / sizeof(T) elements (j is a
// compile-time constant after unrolling, so this is register arithmetic).
template <typename T> __device__ __forceinline__ T pp_vget(const uint4 &q, int j)
{
    constexpr int S = (int)sizeof(T);
    const int k = (j * S) >> 2;
    const uint32_t w = k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
    T r;
    if constexpr (S == 8) {
        const uint32_t w2 = k == 0 ? q.y : q.w;
        unsigned long long u = ((unsigned long long)w2 << 32) | w;
        memcpy(&r, &u, 8);
    } else {
        typedef typename pp_traits<T>::bits U;
        U b = (U)(w >> (((j * S) & 3) * 8));
        memcpy(&r, &b, S);
    }
    return r;
}

// Sixteen bytes of elements (16 / sizeof(T) of them) kept packed in four
// 32-bit registers, so that 1- and 2-byte types do not take a register per
// element. Call get/set with indices known at compile time (from unrolled
// loops): they become shifts and bit-field inserts. load/store are single
// 16-byte accesses, so their address must be 16-byte aligned.
template <typename T> struct pp_vec16 {
    static constexpr int N = 16 / (int)sizeof(T);
    uint32_t w[4];

    __device__ __forceinline__ void load(const T *p)
    {
        uint4 u = *reinterpret_cast<const uint4 *>(p);
        w[0] = u.x;
        w[1] = u.y;
        w[2] = u.z;
        w[3] = u.w;
    }
    __device__ __forceinline__ void store(T *p) const
    {
        *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    __device__ __forceinline__ T get(int i) const
    {
        T r;
        if constexpr (sizeof(T) == 8) {
            unsigned long long u = ((unsigned long long)w[2 * i + 1] << 32) | w[2 * i];
            memcpy(&r, &u, 8);
        } else if constexpr (sizeof(T) == 4) {
            memcpy(&r, &w[i], 4);
        } else {
            constexpr int PER = 4 / (int)sizeof(T);
            typename pp_traits<T>::bits u = (typename pp_traits<T>::bits)(w[i / PER] >> (8 * (int)sizeof(T) * (i % PER)));
            memcpy(&r, &u, sizeof(T));
        }
        return r;
    }
    __device__ __forceinline__ void set(int i, T v)
    {
        if constexpr (sizeof(T) == 8) {
            unsigned long long u;
            memcpy(&u, &v, 8);
            w[2 * i] = (uint32_t)u;
            w[2 * i + 1] = (uint32_t)(u >> 32);
        } else if constexpr (sizeof(T) == 4) {
            memcpy(&w[i], &v, 4);
        } else {
            constexpr int PER = 4 / (int)sizeof(T);
            typename pp_traits<T>::bits u;
            memcpy(&u, &v, sizeof(T));
            const int sh = 8 * (int)sizeof(T) * (i % PER);
            const uint32_t m = ((1u << (8 * sizeof(T))) - 1u) << sh;
            w[i / PER] = (w[i / PER] & ~m) | ((uint32_t)u << sh);
        }
    }
};

// Read-only load of any 1/2/4/8-byte element through the non-coherent path.
template <typename T> __device__ __forceinline__ T pp_ldg(const T *p)
{
    T r;
    if constexpr (sizeof(T) == 1) {
        unsigned char u = __ldg((const unsigned char *)p);
        memcpy(&r, &u, 1);
    } else if constexpr (sizeof(T) == 2) {
        unsigned short u = __ldg((const unsigned short *)p);
        memcpy(&r, &u, 2);
    } else if constexpr (sizeof(T) == 4) {
        unsigned int u = __ldg((const unsigned int *)p);
        memcpy(&r, &u, 4);
    } else {
        unsigned long long u = __ldg((const unsigned long long *)p);
        memcpy(&r, &u, 8);
    }
    return r;
}

#endif
