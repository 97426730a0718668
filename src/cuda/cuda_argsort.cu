// pp_argsort on the cuda backend: the index sequence (iota_kernel), then
// the sort chosen for PP_PRIM_SORT out of place (core/argsort.c,
// pp_argsort_sort_into), the keys sorted into a buffer the context keeps
// (pp_cuda_held) beside the sequence, so that a call allocates nothing
// once the buffer is large enough (cudaMalloc and cudaFree wait for the
// device); the sort takes the scratch for itself.
#include "cuda_state.cuh"
#include "device/util.cuh"

namespace {

template <typename I> __global__ void __launch_bounds__(256) iota_kernel(I *out, uint64_t n)
{
    const uint64_t stride = (uint64_t)gridDim.x * 256;
    for (uint64_t i = (uint64_t)blockIdx.x * 256 + threadIdx.x; i < n; i += stride) out[i] = (I)i;
}

pp_status cuda_iota(pp_context *ctx, const char *fn, pp_type index_type, void *out, size_t n)
{
    const unsigned grid = grid_for(ceil_div(n, 256), pp_cuda_resident(pp_cuda(ctx), 8));
    if (index_type == PP_U32)
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, iota_kernel<uint32_t>, grid, 256, 0, (uint32_t *)out, (uint64_t)n));
    else
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, iota_kernel<uint64_t>, grid, 256, 0, (uint64_t *)out, (uint64_t)n));
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_argsort(pp_context *ctx, const pp_argsort_args *a)
{
    const size_t n = a->n;
    if (n == 1) return cuda_iota(ctx, a->fn, a->index_type, a->indices, 1);
    const size_t kbytes = align_up(n * pp_type_size(a->type), 16);
    char *buf = (char *)pp_cuda_held(ctx, kbytes + n * pp_type_size(a->index_type), a->fn);
    if (!buf) return PP_ERROR_OUT_OF_MEMORY;
    return pp_argsort_sort_into(ctx, a, cuda_iota, buf, buf + kbytes);
}
