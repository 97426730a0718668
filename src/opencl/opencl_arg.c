/* opencl pp_argmin and pp_argmax (kernels: arg.cl).
 *
 * One launch of arg_fold over G contiguous chunks (G from the device's
 * compute units and n, at most PP_OCL_REDUCE_WORK), each group's best
 * index into the context's scratch; when G > 1 a second one-group launch
 * folds the G winners (reading their elements again) into index. The
 * candidates' order (arg.cl) makes the result the first NaN, else the
 * first minimum (maximum), however the work is split. Nothing is read
 * back to the host. */
#include "opencl_internal.h"

#define ARG_GROUP 256 /* work-items per group, if the device allows */

pp_status pp_ocl_argminmax(pp_context *ctx, const pp_arg_args *a)
{
    const char *fn = a->fn;
    const size_t sz = pp_type_size(a->type), n = a->n;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->in, n * sz, "in"}, {a->index, sizeof(uint64_t), "index"}));
    size_t L = pp_ocl_group_size(ctx, pp_ocl_cpu_shape(pp_ocl_device_caps(ctx)) ? 8 : ARG_GROUP);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, a->type));
    pp_ocl_def(&d, "ARG_MAX=%d", a->max ? 1 : 0);
    static const char *const names[] = {"arg_fold"};
    cl_kernel k;
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "arg", &d, names, 1, &k, &L));

    /* G chunks: a few per compute unit, at least 4 elements per work-item */
    size_t max_groups = (size_t)pp_ocl_device_caps(ctx)->compute_units * 4;
    if (max_groups > PP_OCL_REDUCE_WORK) max_groups = PP_OCL_REDUCE_WORK;
    size_t groups = n / (4 * L) + 1;
    if (groups > max_groups) groups = max_groups;
    const size_t chunk = n / groups + (n % groups != 0);
    groups = n / chunk + (n % chunk != 0);

    cl_mem in = pp_ocl_mem(a->in), index = pp_ocl_mem(a->index), work = NULL;
    cl_ulong n64 = n, chunk64 = chunk;
    cl_uint direct = 0, indirect = 1;
    if (groups == 1) /* cand: in's buffer, never read */
        return PP_OCL_LAUNCH(ctx, fn, k, 1, L, PP_OCL_ARG(in), PP_OCL_ARG(in), PP_OCL_ARG(direct), PP_OCL_ARG(n64),
                             PP_OCL_ARG(chunk64), PP_OCL_ARG(index));
    PP_OCL_STATUS(pp_ocl_scratch(ctx, groups * sizeof(cl_ulong), fn, &work));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, k, groups, L, PP_OCL_ARG(in), PP_OCL_ARG(in), PP_OCL_ARG(direct),
                                PP_OCL_ARG(n64), PP_OCL_ARG(chunk64), PP_OCL_ARG(work)));
    cl_ulong g64 = groups;
    return PP_OCL_LAUNCH(ctx, fn, k, 1, L, PP_OCL_ARG(in), PP_OCL_ARG(work), PP_OCL_ARG(indirect), PP_OCL_ARG(g64),
                         PP_OCL_ARG(g64), PP_OCL_ARG(index));
}
