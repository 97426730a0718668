// The segmented operator: a scan over (flag, value) pairs, where a set flag
// restarts the fold (Schwartz; Blelloch, "Prefix sums and their
// applications", 1990). (f1, v1) + (f2, v2) = (f1 | f2, f2 ? v2 : v1 op v2)
// is associative but not commutative, so it may go through the in-order
// scans of device/warp_scan.cuh and device/block_scan.cuh
// (pp_warp_inclusive, pp_block_exclusive, pp_block_exclusive_inplace), never
// through the butterfly reductions (pp_warp_reduce, pp_block_reduce).
#ifndef PP_CUDA_SEGMENTED_PAIR_CUH
#define PP_CUDA_SEGMENTED_PAIR_CUH

#include <stdint.h>

#include "../device/ops.cuh"

// v: the fold since the last flagged element (of all elements if none);
// f: 1 if any element was flagged. 8 or 16 bytes (pp_shfl_bits shuffles
// both sizes).
template <typename T> struct SegPair {
    typedef T value_type;
    T v;
    uint32_t f;
};

template <typename Op> struct SegOp {
    template <typename P> __device__ __forceinline__ static P apply(P a, P b)
    {
        P r;
        r.v = b.f ? b.v : Op::apply(a.v, b.v);
        r.f = a.f | b.f;
        return r;
    }
    template <typename P> __device__ __forceinline__ static P identity()
    {
        P r;
        r.v = Op::template identity<typename P::value_type>();
        r.f = 0;
        return r;
    }
};

#endif
