// Placeholder until the cuda sort lands: the backend reports it unsupported.
#include "cuda_internal.cuh"

pp_status pp_cuda_sort(pp_context *ctx, pp_type, void *, void *, size_t, size_t, pp_order)
{
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_sort: not implemented on the cuda backend yet");
}
