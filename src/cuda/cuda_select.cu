// Placeholder until the cuda select lands: the backend reports it unsupported.
#include "cuda_internal.cuh"

pp_status pp_cuda_select(pp_context *ctx, const pp_select_args *)
{
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_select: not implemented on the cuda backend yet");
}
