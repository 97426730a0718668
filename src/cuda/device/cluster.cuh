// Thread block clusters (sm_90): the blocks of a cluster run at once on one
// GPC and can read and write each other's shared memory. The small-n paths
// of reduce and scan combine their blocks through it, without global atomics,
// fences or look-back flags.
#ifndef PP_CUDA_DEVICE_CLUSTER_CUH
#define PP_CUDA_DEVICE_CLUSTER_CUH

#include <stdint.h>

// Blocks per cluster of the small-n paths: the largest portable size.
constexpr int PP_CLUSTER = 8;

// This block's rank in its cluster.
__device__ __forceinline__ unsigned pp_cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// Barrier of every thread of every block of the cluster, in two halves:
// arrive (relaxed: orders no memory) early, wait later. After the wait, every
// block of the cluster has started, so its shared memory may be written.
__device__ __forceinline__ void pp_cluster_arrive_relaxed()
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void pp_cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

// Full barrier: what any thread of the cluster wrote before it (its own or
// another block's shared memory) is visible to every thread after it.
__device__ __forceinline__ void pp_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The address of the shared variable p in the block of rank `rank`.
template <typename T> __device__ __forceinline__ T *pp_cluster_map(T *p, unsigned rank)
{
    uint64_t r;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"((uint64_t)p), "r"(rank));
    return (T *)r;
}

#endif
