// pp_reduce on the cuda backend: one kernel launch for every n.
//
// Each thread folds a grid-strided share of the input, read as 16-byte
// vectors (RED_U of them in flight per iteration), into 16 / sizeof(T)
// independent accumulators (float sums with compensation: each accumulator
// carries the rounding errors of its additions, device/comp_sum.cuh). The
// few elements before the first 16-byte
// boundary of `in` (head) and after the last whole vector (tail) are folded
// in by the first threads of the grid. A block combines its threads in a
// fixed order (warp shuffles, then one warp over the warp results).
//
// Up to SMALL_BYTES of input (512 KiB): one cluster of 8 blocks, which
// combine their partials in rank 0's shared memory (reduce_cluster). Above,
// every block writes its
// partial to scratch, fences, and takes a ticket from the context's ticket
// counter (the launch takes exactly gridDim.x tickets, numbered from
// ticket_base). The block that draws the last number knows that every other
// block has published its partial: it combines the partials in index order
// and writes *out. A ticket counter never needs resetting, so no memset and
// no second launch are needed.
//
// The grid size depends only on n and the GPU's SM count, and every
// combination order is fixed, so float results are reproducible run to run
// (for a given alignment of `in`). *out is written after every block has
// read all of its input, so out may lie inside in.
#include "cuda_state.cuh"
#include "device/block_scan.cuh"
#include "device/cluster.cuh"
#include "device/comp_sum.cuh"
#include "device/dispatch.cuh"
#include "device/ops.cuh"
#include "device/util.cuh"
#include "device/vec.cuh"

namespace {

constexpr int RED_BLOCK = 256;        // threads per block
constexpr int RED_U = 4;              // 16-byte loads in flight per thread
constexpr int RED_BLOCKS_PER_SM = 4;  // grid cap: resident blocks per SM
constexpr int SMALL_BLOCK = 512;      // reduce_cluster: threads per block
constexpr size_t SMALL_BYTES = (size_t)2 * PP_CLUSTER * SMALL_BLOCK * RED_U * 16; // two rounds: 512 KiB

// acc = acc op x, element by element. Sub-word types use SIMD-within-a-word
// intrinsics where the operator has one (byte and halfword sums wrap exactly
// like the element type), so 16 bytes stay in four registers.
template <typename T, typename Op> __device__ __forceinline__ void fold_vec(pp_vec16<T> &acc, const pp_vec16<T> &x)
{
    constexpr bool sub = sizeof(T) < 4;
    constexpr bool sgn = pp_traits<T>::kind == PP_KIND_SINT;
    if constexpr (sub && pp_same<Op, Op_and>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] &= x.w[k];
    } else if constexpr (sub && pp_same<Op, Op_or>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] |= x.w[k];
    } else if constexpr (sub && pp_same<Op, Op_xor>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] ^= x.w[k];
    } else if constexpr (sizeof(T) == 1 && pp_same<Op, Op_sum>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = __vadd4(acc.w[k], x.w[k]);
    } else if constexpr (sizeof(T) == 2 && pp_same<Op, Op_sum>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = __vadd2(acc.w[k], x.w[k]);
    } else if constexpr (sizeof(T) == 1 && pp_same<Op, Op_min>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = sgn ? __vmins4(acc.w[k], x.w[k]) : __vminu4(acc.w[k], x.w[k]);
    } else if constexpr (sizeof(T) == 1 && pp_same<Op, Op_max>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = sgn ? __vmaxs4(acc.w[k], x.w[k]) : __vmaxu4(acc.w[k], x.w[k]);
    } else if constexpr (sizeof(T) == 2 && pp_same<Op, Op_min>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = sgn ? __vmins2(acc.w[k], x.w[k]) : __vminu2(acc.w[k], x.w[k]);
    } else if constexpr (sizeof(T) == 2 && pp_same<Op, Op_max>::value) {
#pragma unroll
        for (int k = 0; k < 4; k++) acc.w[k] = sgn ? __vmaxs2(acc.w[k], x.w[k]) : __vmaxu2(acc.w[k], x.w[k]);
    } else {
#pragma unroll
        for (int e = 0; e < pp_vec16<T>::N; e++) acc.set(e, Op::apply(acc.get(e), x.get(e)));
    }
}

// Float sums fold with compensation (device/comp_sum.cuh): each
// accumulator keeps the rounding errors of its additions beside it, so a
// thread's share is summed with an error independent of its length.
template <typename T, typename Op> __device__ __forceinline__ constexpr bool comp_sum()
{
    return pp_is_float<T>() && pp_same<Op, Op_sum>::value;
}

// fold_vec, compensated where comp_sum: err holds the accumulators' errors.
template <typename T, typename Op>
__device__ __forceinline__ void fold_vec_c(pp_vec16<T> &acc, pp_vec16<T> &err, const pp_vec16<T> &x)
{
    if constexpr (comp_sum<T, Op>()) {
#pragma unroll
        for (int e = 0; e < pp_vec16<T>::N; e++) {
            T s = acc.get(e), c = err.get(e);
            pp_comp_add(s, c, x.get(e));
            acc.set(e, s);
            err.set(e, c);
        }
    } else {
        fold_vec<T, Op>(acc, x);
    }
}

template <typename T, typename Op> __device__ __forceinline__ void fill_identity(pp_vec16<T> &v)
{
#pragma unroll
    for (int e = 0; e < pp_vec16<T>::N; e++) v.set(e, Op::template identity<T>());
}

// This thread's fold of its grid-strided share of in[0, n): thread g of G
// in the grid.
template <typename T, typename Op> __device__ __forceinline__ T thread_fold(const T *in, size_t n, size_t g, size_t G)
{
    constexpr int E = pp_vec16<T>::N;
    pp_vec16<T> acc; // E independent accumulators, packed
    fill_identity<T, Op>(acc);
    pp_vec16<T> err; // their rounding errors (float sums: comp_sum)
    fill_identity<T, Op_sum>(err);
    T lone = Op::template identity<T>(); // head and tail elements

    // Head: elements before the first 16-byte boundary (in is element aligned).
    const unsigned mis = (unsigned)((uintptr_t)in & 15u);
    size_t head = mis ? (16u - mis) / sizeof(T) : 0;
    if (head > n) head = n;
    const size_t body = (n - head) / E; // whole vectors
    const size_t tail0 = head + body * E, tail = n - tail0;
    const T *vin = in + head; // 16-byte aligned where body > 0

    if (g < head) lone = Op::apply(lone, in[g]);

    size_t i = g;
    for (; i + (RED_U - 1) * G < body; i += RED_U * G) {
        pp_vec16<T> x[RED_U];
#pragma unroll
        for (int k = 0; k < RED_U; k++) x[k].load(vin + (i + k * G) * E);
#pragma unroll
        for (int k = 0; k < RED_U; k++) fold_vec_c<T, Op>(acc, err, x[k]);
    }
    // Fewer than RED_U vectors left for this thread: guarded, still issued together.
    {
        pp_vec16<T> x[RED_U - 1];
#pragma unroll
        for (int k = 0; k < RED_U - 1; k++) {
            fill_identity<T, Op>(x[k]);
            if (i + k * G < body) x[k].load(vin + (i + k * G) * E);
        }
#pragma unroll
        for (int k = 0; k < RED_U - 1; k++) fold_vec_c<T, Op>(acc, err, x[k]);
    }
    if (g < tail) lone = Op::apply(lone, in[tail0 + g]);

    // Fold the accumulators (once per thread, in a fixed order).
    T r = lone;
#pragma unroll
    for (int e = 0; e < E; e++) {
        if constexpr (comp_sum<T, Op>()) r = Op::apply(r, pp_comp_value(acc.get(e), err.get(e)));
        else r = Op::apply(r, acc.get(e));
    }
    return r;
}

// Memory ordering of the last-block combine: writer side, a block's partial
// is stored, then __threadfence(), then its ticket atomic; reader side, the
// last block's ticket atomic has observed all the others, then every thread
// fences and reads the partials with volatile (L1-bypassing) loads. The
// fence-atomic / atomic-fence pair makes every partial visible to the last
// block.
template <typename T, typename Op>
__global__ void __launch_bounds__(RED_BLOCK, RED_BLOCKS_PER_SM)
    reduce_kernel(const T *in, size_t n, T *out, T *partials, unsigned long long *ticket,
                  unsigned long long ticket_base)
{
    __shared__ T smem[RED_BLOCK / 32];
    __shared__ int is_last;

    T r = thread_fold<T, Op>(in, n, (size_t)blockIdx.x * RED_BLOCK + threadIdx.x, (size_t)gridDim.x * RED_BLOCK);
    r = pp_block_reduce<T, Op, RED_BLOCK>(r, smem);

    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = n ? r : pp_public_identity<T, Op>();
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = r;
        __threadfence();
        unsigned long long t = atomicAdd(ticket, 1ull) - ticket_base;
        is_last = t == (unsigned long long)gridDim.x - 1;
    }
    __syncthreads(); // also orders pp_block_reduce's smem reads before its reuse below
    if (!is_last) return; // uniform across the block
    __threadfence();
    T p = Op::template identity<T>();
    for (unsigned b = threadIdx.x; b < gridDim.x; b += RED_BLOCK) p = Op::apply(p, *(volatile const T *)&partials[b]);
    p = pp_block_reduce<T, Op, RED_BLOCK>(p, smem);
    if (threadIdx.x == 0) *out = p; // n > 0 whenever there is more than one block
}

// Small n (at most SMALL_BYTES): one cluster of PP_CLUSTER blocks of
// SMALL_BLOCK threads, one or two rounds of loads per thread. Each block
// writes its partial into rank 0's shared memory, and after the cluster's
// barrier rank 0 combines them in rank order: no scratch, tickets or
// fences in global memory, about a microsecond less than reduce_kernel's
// last-block combine.
template <typename T, typename Op>
__global__ void __cluster_dims__(PP_CLUSTER, 1, 1) __launch_bounds__(SMALL_BLOCK)
    reduce_cluster(const T *in, size_t n, T *out)
{
    __shared__ T smem[SMALL_BLOCK / 32];
    __shared__ T parts[PP_CLUSTER];
    pp_cluster_arrive_relaxed();
    T r = thread_fold<T, Op>(in, n, (size_t)blockIdx.x * SMALL_BLOCK + threadIdx.x, (size_t)PP_CLUSTER * SMALL_BLOCK);
    r = pp_block_reduce<T, Op, SMALL_BLOCK>(r, smem);
    pp_cluster_wait(); // every block of the cluster has started: rank 0's parts may be written
    const unsigned rank = pp_cluster_rank();
    if (threadIdx.x == 0) *pp_cluster_map(&parts[rank], 0) = r;
    pp_cluster_sync();
    if (rank == 0 && threadIdx.x == 0) {
        T p = parts[0];
#pragma unroll
        for (int b = 1; b < PP_CLUSTER; b++) p = Op::apply(p, parts[b]);
        *out = n ? p : pp_public_identity<T, Op>();
    }
}

template <typename T, typename Op> pp_status reduce_launch(pp_context *ctx, const pp_reduce_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n;
    pp_cuda_state *s = pp_cuda(ctx);
    // One block per RED_BLOCK * RED_U vectors, at most RED_BLOCKS_PER_SM per SM:
    // small inputs take one round of loads per thread (latency of about one
    // launch), large ones a grid that fills the GPU once.
    if (n * sizeof(T) <= SMALL_BYTES) {
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, reduce_cluster<T, Op>, PP_CLUSTER, SMALL_BLOCK, 0,
                                                     (const T *)a->in, n, (T *)a->out));
        return PP_SUCCESS;
    }
    const size_t per_block = (size_t)RED_BLOCK * RED_U * pp_vec16<T>::N;
    const size_t grid = grid_for(ceil_div(n, per_block), pp_cuda_resident(s, RED_BLOCKS_PER_SM));
    T *partials = NULL;
    unsigned long long base = 0;
    if (grid > 1) {
        partials = (T *)pp_cuda_scratch(ctx, grid * sizeof(T), fn);
        if (!partials) return PP_ERROR_OUT_OF_MEMORY;
        base = s->ticket_base; // this launch takes tickets base .. base + grid - 1
        s->ticket_base += grid;
    }
    const cudaError_t e = pp_cuda_launch(ctx, reduce_kernel<T, Op>, (unsigned)grid, RED_BLOCK, 0, (const T *)a->in, n,
                                         (T *)a->out, partials, s->ticket, base);
    if (grid > 1) return pp_cuda_launched_tickets(ctx, fn, e);
    PP_CUDA_CHECK_LAUNCH(ctx, fn, e);
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    return pp_dispatch_type_op(ctx, a->fn, a->type, a->op,
                               [&](auto t, auto op) { return reduce_launch<decltype(t), decltype(op)>(ctx, a); });
}
