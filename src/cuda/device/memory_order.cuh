// Memory-model helpers: release/acquire and strong relaxed accesses to
// global memory at device (gpu) scope, for words that blocks of one launch
// publish to each other (look-back flags, sort status words and carries).
#ifndef PP_CUDA_DEVICE_MEMORY_ORDER_CUH
#define PP_CUDA_DEVICE_MEMORY_ORDER_CUH

#include <stdint.h>

#include "nv_ptx.h"

__device__ __forceinline__ void pp_store_release(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t pp_load_acquire(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// Strong relaxed accesses at gpu scope: for words that carry their own
// payload, where a reader needs only to see a whole word, never a torn one.
__device__ __forceinline__ void pp_store_relaxed(uint32_t *p, uint32_t v)
{
    asm volatile(PP_PTX_ST_RELAXED_U32 ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t pp_load_relaxed(const uint32_t *p)
{
    uint32_t v;
    asm volatile(PP_PTX_LD_RELAXED_U32 : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void pp_store_relaxed64(unsigned long long *p, unsigned long long v)
{
    asm volatile(PP_PTX_ST_RELAXED_U64 ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t pp_load_relaxed64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile(PP_PTX_LD_RELAXED_U64 : "=l"(v) : "l"(p) : "memory");
    return v;
}

#endif
