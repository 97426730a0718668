// Placeholder until the cuda histogram lands: the backend reports it unsupported.
#include "cuda_internal.cuh"

pp_status pp_cuda_histogram(pp_context *ctx, const pp_histogram_args *)
{
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_histogram: not implemented on the cuda backend yet");
}
