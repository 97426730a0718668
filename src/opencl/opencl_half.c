/* opencl: the half types' slots (PP_F16, PP_BF16; parprim.h, "Half
 * precision"), whatever algorithm is chosen. PP_SUM reduce and scan are
 * the exact ones (opencl_exact.c, exact.cl: the f32 accumulator, one
 * rounding to the half format per output); PP_MIN and PP_MAX are half.cl's
 * integer min and max of order keys over G ranges, then one work-item;
 * the sorts' order keys (core/half_sort.c sorts them) are half.cl's
 * hsort_keys, the widening to f32 and back (core/half_wide.c) its hwiden
 * and hnarrow. */
#include "opencl_internal.h"

#include "exact_acc.h"

#define HGROUP_GPU 256
#define HGROUP_CPU 16

/* The kernel name of half.cl for type, and hminmax_parts with the group
 * size L it fits (one program per type for every kernel). */
static pp_status half_kernels(pp_context *ctx, const char *fn, pp_type type, const char *name, cl_kernel *k,
                              cl_kernel *parts, size_t *L)
{
    const int prec = PP_HALF_PREC(type);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, PP_U16));
    pp_ocl_def(&d, "HALF_INF=%uu", (unsigned)PP_XACC_HALF_INF(prec));
    pp_ocl_def(&d, "HALF_NAN=%uu", (unsigned)PP_XACC_HALF_NAN(prec));
    static const char *const names[] = {"hminmax_parts"};
    *L = pp_ocl_group_size(ctx, pp_ocl_cpu_shape(pp_ocl_device_caps(ctx)) ? HGROUP_CPU : HGROUP_GPU);
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "half", &d, names, 1, parts, L));
    pp_ocl_def(&d, "L=%zu", *L); /* the defines kernels_fit built with: the same program */
    return pp_ocl_kernel(ctx, fn, "half", &d, name, k);
}

static pp_status half_minmax(pp_context *ctx, const pp_reduce_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n;
    size_t L;
    cl_kernel parts, final;
    PP_OCL_STATUS(half_kernels(ctx, fn, a->type, "hminmax_final", &final, &parts, &L));
    /* G ranges: a few per compute unit, at least 16 elements per work-item */
    size_t groups = (size_t)pp_ocl_device_caps(ctx)->compute_units * 4;
    if (groups > 1024) groups = 1024;
    if (groups < 1) groups = 1;
    const size_t most = n / (16 * L) + 1;
    if (groups > most) groups = most;
    const size_t chunk = n / groups + (n % groups != 0);
    groups = n / chunk + (n % chunk != 0);
    cl_mem work;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, groups * 3 * sizeof(cl_uint), fn, &work));
    cl_mem in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out);
    cl_ulong n64 = n, chunk64 = chunk, g64 = groups;
    cl_uint is_max = a->op == PP_MAX;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, parts, groups, L, PP_OCL_ARG(in), PP_OCL_ARG(n64), PP_OCL_ARG(chunk64),
                                PP_OCL_ARG(work)));
    return PP_OCL_LAUNCH(ctx, fn, final, 1, 1, PP_OCL_ARG(work), PP_OCL_ARG(g64), PP_OCL_ARG(is_max), PP_OCL_ARG(out));
}

pp_status pp_ocl_half_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    const char *fn = a->fn;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->out, 2, "out"}, {a->n ? a->in : NULL, a->n * 2, "in"}));
    if (a->n == 0) { /* the identity: +0.0, +inf (min), -inf (max) */
        const int prec = PP_HALF_PREC(a->type);
        const uint16_t id = (uint16_t)(a->op == PP_SUM   ? 0u
                                       : a->op == PP_MIN ? PP_XACC_HALF_INF(prec)
                                                         : PP_XACC_HALF_INF(prec) | 0x8000u);
        return pp_ocl_fill(ctx, fn, pp_ocl_mem(a->out), &id, sizeof id, 0, sizeof id);
    }
    if (a->op == PP_SUM) return pp_ocl_reduce_exact(ctx, a);
    return half_minmax(ctx, a);
}

pp_status pp_ocl_half_scan(pp_context *ctx, const pp_scan_args *a) { return pp_ocl_scan_exact(ctx, a); }

pp_status pp_ocl_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out, size_t n)
{
    const int widen = map == PP_HALF_MAP_WIDEN || map == PP_HALF_MAP_WIDEN_KEEP,
              narrow = map == PP_HALF_MAP_NARROW || map == PP_HALF_MAP_NARROW_QNAN;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {in, n * (narrow ? 4 : 2), "half map's input"},
                                     {out, n * (widen ? 4 : 2), "half map's output"}));
    size_t L;
    cl_kernel k, parts;
    PP_OCL_STATUS(half_kernels(ctx, fn, type, widen ? "hwiden" : narrow ? "hnarrow" : "hsort_keys", &k, &parts, &L));
    cl_mem x = pp_ocl_mem(in), y = pp_ocl_mem(out);
    cl_ulong n64 = n;
    cl_uint bf = type == PP_BF16, qnan = map == PP_HALF_MAP_NARROW_QNAN, keep = map == PP_HALF_MAP_WIDEN_KEEP;
    cl_uint ord = (cl_uint)map;
    const size_t groups = pp_ocl_groups_for(n, L);
    if (widen)
        return PP_OCL_LAUNCH(ctx, fn, k, groups, L, PP_OCL_ARG(x), PP_OCL_ARG(n64), PP_OCL_ARG(bf), PP_OCL_ARG(keep),
                             PP_OCL_ARG(y));
    if (narrow)
        return PP_OCL_LAUNCH(ctx, fn, k, groups, L, PP_OCL_ARG(x), PP_OCL_ARG(n64), PP_OCL_ARG(bf), PP_OCL_ARG(qnan),
                             PP_OCL_ARG(y));
    return PP_OCL_LAUNCH(ctx, fn, k, groups, L, PP_OCL_ARG(x), PP_OCL_ARG(n64), PP_OCL_ARG(ord), PP_OCL_ARG(y));
}
