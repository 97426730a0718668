// Memory-model helpers: strong relaxed accesses to global memory at device
// (gpu) scope, for words that blocks of one launch publish to each other
// (look-back words, sort status words and carries).
#ifndef PP_CUDA_DEVICE_MEMORY_ORDER_CUH
#define PP_CUDA_DEVICE_MEMORY_ORDER_CUH

#include <stdint.h>

#include "nv_ptx.h"

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
// 16 bytes as one access (.b128, PTX ISA 8.3 and sm_70 or later): lo is
// the word at p, hi the one after it; p 16-byte aligned.
__device__ __forceinline__ void pp_store_relaxed128(unsigned long long *p, unsigned long long lo,
                                                    unsigned long long hi)
{
    asm volatile("{\n\t.reg .b128 t;\n\tmov.b128 t, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], t;\n\t}" ::"l"(p),
                 "l"(lo), "l"(hi)
                 : "memory");
}
__device__ __forceinline__ void pp_load_relaxed128(const unsigned long long *p, unsigned long long &lo,
                                                   unsigned long long &hi)
{
    asm volatile("{\n\t.reg .b128 t;\n\tld.relaxed.gpu.global.b128 t, [%2];\n\tmov.b128 {%0, %1}, t;\n\t}"
                 : "=l"(lo), "=l"(hi)
                 : "l"(p)
                 : "memory");
}

#endif
