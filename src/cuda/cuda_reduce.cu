// Placeholder until the cuda reduce lands: the backend reports it unsupported.
#include "cuda_internal.cuh"

pp_status pp_cuda_reduce(pp_context *ctx, pp_type, pp_op, const void *, size_t, void *)
{
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_reduce: not implemented on the cuda backend yet");
}
