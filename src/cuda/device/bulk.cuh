// Bulk asynchronous copies from global to shared memory (sm_90: the tensor
// memory accelerator's cp.async.bulk), the shared-memory barriers
// (mbarrier) that tell their completion and hand buffers between the warps
// of a block, and named barriers over part of a block. Used by the
// warp-specialized scan (scan/ahead.cuh).
//
// A bulk copy moves a multiple of 16 bytes between 16-byte aligned
// addresses and completes on an mbarrier: the thread that issues it first
// announces the bytes (pp_mb_arrive_tx), and the barrier's phase completes
// once the arrivals and every byte are in.
#ifndef PP_CUDA_DEVICE_BULK_CUH
#define PP_CUDA_DEVICE_BULK_CUH

#include <stdint.h>

__device__ __forceinline__ unsigned pp_smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// An mbarrier of `count` arrivals per phase (one thread, before the block's
// first use of it, then a fence and __syncthreads).
__device__ __forceinline__ void pp_mb_init(uint64_t *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(pp_smem_addr(b)), "r"(count) : "memory");
}
// After pp_mb_init, before the barrier that publishes it: makes the
// initialized barriers visible to bulk copies.
__device__ __forceinline__ void pp_mb_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival (release: the thread's earlier writes are visible to a
// thread whose wait sees the phase complete).
__device__ __forceinline__ void pp_mb_arrive(uint64_t *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(pp_smem_addr(b)) : "memory");
}
// One arrival that also announces `bytes` of bulk copies completing on b.
__device__ __forceinline__ void pp_mb_arrive_tx(uint64_t *b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(pp_smem_addr(b)), "r"(bytes)
                 : "memory");
}
// Waits (acquire) until the phase of parity `parity` of b has completed.
__device__ __forceinline__ void pp_mb_wait(uint64_t *b, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(pp_smem_addr(b)), "r"(parity)
                     : "memory");
    } while (!done);
}

// bytes (a multiple of 16) from global src to shared dst, completing on bar.
__device__ __forceinline__ void pp_bulk_load(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     pp_smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(pp_smem_addr(bar))
                 : "memory");
}

// Barrier `id` (1-15; 0 is __syncthreads) of `count` threads (whole warps).
__device__ __forceinline__ void pp_named_barrier(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

#endif
