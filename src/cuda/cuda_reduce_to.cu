// pp_reduce_to and pp_scan_to (pairs of types that differ: PP_FOR_EACH_WIDEN
// of types.h, the only pairs instantiated), pp_argmin and pp_argmax on the
// cuda backend.
//
// reduce_to: two launches. Each thread of a grid fixed by n and the GPU's
// SM count folds a grid-strided share of in, each element converted to Out
// as it is loaded, with Op in Out; a block combines its threads in a fixed
// order (pp_block_reduce) into partials[block]; one block then folds the
// partials in index order into *out (with one block, the first launch
// writes *out itself). Every order is fixed, so float results are
// reproducible run to run on one GPU.
//
// scan_to: in converted into out element by element (one launch), then the
// scan chosen for PP_PRIM_SCAN (the table's own slot) in place on out: the
// determinism of pp_scan of Out, at the cost of a second pass over out.
//
// argmin / argmax: the same two launches on candidates (nan, key, index):
// key an unsigned integer ordering like the element (floats: by their bits,
// -0.0 taken as +0.0; argmax: its complement), a candidate before another
// if it is a NaN and the other not, else by key, else by index. The best of
// any set is its first NaN, else its first minimum (maximum), whatever the
// order in which candidates meet, so the result is exact; the second launch
// re-reads the winners' elements by index. Indices are 64-bit throughout.
#include "cuda_state.cuh"
#include "cuda_entry.h"
#include "device/block_scan.cuh"
#include "device/dispatch.cuh"
#include "device/ops.cuh"
#include "device/util.cuh"

#include <string.h>

namespace
{

constexpr int RT_BLOCK = 256;        // threads per block
constexpr int RT_BLOCKS_PER_SM = 4;  // grid cap: resident blocks per SM
constexpr size_t RT_PER_THREAD = 16; // elements per thread before the grid grows

unsigned grid_of(pp_context *ctx, size_t n)
{
    return grid_for(ceil_div(n, (size_t)RT_BLOCK * RT_PER_THREAD), pp_cuda_resident(pp_cuda(ctx), RT_BLOCKS_PER_SM));
}

// dst[blockIdx.x] = the fold, in Out with Op, of the block's grid-strided
// share of in[0, n) (each element converted to Out).
template <typename In, typename Out, typename Op>
__global__ void __launch_bounds__(RT_BLOCK) reduce_to_kernel(const In *in, size_t n, Out *dst)
{
    __shared__ Out smem[RT_BLOCK / 32];
    const size_t G = (size_t)gridDim.x * RT_BLOCK;
    Out r = Op::template identity<Out>();
    size_t i = (size_t)blockIdx.x * RT_BLOCK + threadIdx.x;
    for (; i + 3 * G < n; i += 4 * G) { // four loads in flight, folded in index order
        const In x0 = in[i], x1 = in[i + G], x2 = in[i + 2 * G], x3 = in[i + 3 * G];
        r = Op::apply(Op::apply(Op::apply(Op::apply(r, (Out)x0), (Out)x1), (Out)x2), (Out)x3);
    }
    for (; i < n; i += G) r = Op::apply(r, (Out)in[i]);
    r = pp_block_reduce<Out, Op, RT_BLOCK>(r, smem);
    if (threadIdx.x == 0) dst[blockIdx.x] = r;
}

// out[i] = (Out)in[i], i < n.
template <typename In, typename Out>
__global__ void __launch_bounds__(RT_BLOCK) convert_kernel(const In *in, Out *out, size_t n)
{
    const size_t G = (size_t)gridDim.x * RT_BLOCK;
    for (size_t i = (size_t)blockIdx.x * RT_BLOCK + threadIdx.x; i < n; i += G) out[i] = (Out)in[i];
}

template <typename In, typename Out, typename Op> pp_status reduce_to_launch(pp_context *ctx, const pp_convert_args *a)
{
    const char *fn = a->fn;
    const unsigned grid = grid_of(ctx, a->n);
    Out *out = (Out *)a->out, *partials = out;
    if (grid > 1) {
        partials = (Out *)pp_cuda_scratch(ctx, grid * sizeof(Out), fn);
        if (!partials) return PP_ERROR_OUT_OF_MEMORY;
    }
    PP_CUDA_CHECK_LAUNCH(
        ctx, fn,
        pp_cuda_launch(ctx, reduce_to_kernel<In, Out, Op>, grid, RT_BLOCK, 0, (const In *)a->in, a->n, partials));
    if (grid > 1)
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, reduce_to_kernel<Out, Out, Op>, 1u, RT_BLOCK, 0, (const Out *)partials,
                                            (size_t)grid, out));
    return PP_SUCCESS;
}

template <typename In, typename Out> pp_status reduce_to_ops(pp_context *ctx, const pp_convert_args *a)
{
    auto f = [&](auto t, auto op) { return reduce_to_launch<In, decltype(t), decltype(op)>(ctx, a); };
    return pp_dispatch_op_<Out>(ctx, a->fn, a->op, f);
}

template <typename In, typename Out> pp_status scan_to_pair(pp_context *ctx, const pp_convert_args *a)
{
    PP_CUDA_CHECK_LAUNCH(ctx, a->fn,
                         pp_cuda_launch(ctx, convert_kernel<In, Out>, grid_of(ctx, a->n), RT_BLOCK, 0,
                                        (const In *)a->in, (Out *)a->out, a->n));
    const pp_scan_args s = {a->fn, a->out_type, a->op, a->kind, a->out, a->out, a->n, NULL};
    return ctx->ops->scan[ctx->algo[PP_PRIM_SCAN]](ctx, &s);
}

// ---- argmin, argmax ----------------------------------------------------------------------

template <typename T> struct arg_cand {
    typedef typename pp_traits<T>::bits U;
    unsigned nan;
    U key;
    unsigned long long idx;
};

template <typename T, bool MAX> __device__ __forceinline__ arg_cand<T> arg_cand_of(T x, unsigned long long i)
{
    typedef typename pp_traits<T>::bits U;
    constexpr U sign = (U)((U)1 << (8 * sizeof(U) - 1));
    U b;
    memcpy(&b, &x, sizeof b);
    arg_cand<T> c;
    c.idx = i;
    c.nan = 0;
    if constexpr (pp_is_float<T>()) {
        constexpr U exp = sizeof(T) == 4 ? (U)0x7f800000u : (U)0x7ff0000000000000ull;
        c.nan = (b & (U)~sign) > exp;
        if ((U)(b << 1) == 0) b = 0; // -0.0 ranks as +0.0
        b = (b & sign) ? (U)~b : (U)(b | sign);
    } else if constexpr (pp_traits<T>::kind == PP_KIND_SINT) {
        b = (U)(b ^ sign);
    }
    c.key = MAX ? (U)~b : b;
    return c;
}

template <typename T> __device__ __forceinline__ bool arg_before(const arg_cand<T> &a, const arg_cand<T> &b)
{
    if (a.nan != b.nan) return a.nan > b.nan;
    if (!a.nan && a.key != b.key) return a.key < b.key;
    return a.idx < b.idx;
}

// dst[blockIdx.x] = the index of the best candidate among the block's
// grid-strided share of positions [0, n): position t stands for in[t], or
// with cand for in[cand[t]] (the second launch, over the first's winners;
// an index not below n_in, which no block writes, is skipped). Every block
// of the first launch holds a position (grid_of), so its winner is real.
template <typename T, bool MAX>
__global__ void __launch_bounds__(RT_BLOCK)
    arg_kernel(const T *in, size_t n_in, const unsigned long long *cand, size_t n, unsigned long long *dst)
{
    __shared__ arg_cand<T> best[RT_BLOCK];
    const size_t G = (size_t)gridDim.x * RT_BLOCK;
    arg_cand<T> b;
    b.nan = 0;
    b.key = (typename pp_traits<T>::bits) ~(typename pp_traits<T>::bits)0;
    b.idx = ~0ull; // no candidate: after every real one
    for (size_t t = (size_t)blockIdx.x * RT_BLOCK + threadIdx.x; t < n; t += G) {
        const unsigned long long i = cand ? cand[t] : (unsigned long long)t;
        if (i >= n_in) continue;
        const arg_cand<T> c = arg_cand_of<T, MAX>(in[i], i);
        if (arg_before(c, b)) b = c;
    }
    best[threadIdx.x] = b;
    __syncthreads();
    for (int s = RT_BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && arg_before(best[threadIdx.x + s], best[threadIdx.x]))
            best[threadIdx.x] = best[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) dst[blockIdx.x] = best[0].idx;
}

template <typename T, bool MAX> pp_status arg_launch(pp_context *ctx, const pp_arg_args *a)
{
    const char *fn = a->fn;
    const unsigned grid = grid_of(ctx, a->n);
    unsigned long long *index = (unsigned long long *)a->index, *winners = index;
    if (grid > 1) {
        winners = (unsigned long long *)pp_cuda_scratch(ctx, grid * sizeof *winners, fn);
        if (!winners) return PP_ERROR_OUT_OF_MEMORY;
    }
    PP_CUDA_CHECK_LAUNCH(ctx, fn,
                         pp_cuda_launch(ctx, arg_kernel<T, MAX>, grid, RT_BLOCK, 0, (const T *)a->in, a->n,
                                        (const unsigned long long *)NULL, a->n, winners));
    if (grid > 1)
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, arg_kernel<T, MAX>, 1u, RT_BLOCK, 0, (const T *)a->in, a->n,
                                            (const unsigned long long *)winners, (size_t)grid, index));
    return PP_SUCCESS;
}

// f(In(), Out()) for the pair of a: one of PP_FOR_EACH_WIDEN, the only
// pairs instantiated.
template <typename F> pp_status dispatch_pair(pp_context *ctx, const pp_convert_args *a, F f)
{
#define PP_RT_PAIR_(IE, IT, IS, OE, OT, OS) \
    if (a->in_type == IE && a->out_type == OE) return f(IT(), OT());
    PP_FOR_EACH_WIDEN(PP_RT_PAIR_)
#undef PP_RT_PAIR_
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: the pair %s -> %s reached the cuda backend", a->fn,
                   pp_type_name(a->in_type), pp_type_name(a->out_type));
}

} // namespace

pp_status pp_cuda_reduce_to(pp_context *ctx, const pp_convert_args *a)
{
    return dispatch_pair(ctx, a, [&](auto i, auto o) { return reduce_to_ops<decltype(i), decltype(o)>(ctx, a); });
}

pp_status pp_cuda_scan_to(pp_context *ctx, const pp_convert_args *a)
{
    return dispatch_pair(ctx, a, [&](auto i, auto o) { return scan_to_pair<decltype(i), decltype(o)>(ctx, a); });
}

pp_status pp_cuda_argminmax(pp_context *ctx, const pp_arg_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) {
        return a->max ? arg_launch<decltype(t), true>(ctx, a) : arg_launch<decltype(t), false>(ctx, a);
    });
}
