// Placeholder until the cuda scan lands: the backend reports it unsupported.
#include "cuda_internal.cuh"

pp_status pp_cuda_scan(pp_context *ctx, pp_type, pp_op, pp_scan_kind, const void *, void *, size_t)
{
    return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_scan: not implemented on the cuda backend yet");
}
