/* opencl PP_ALGO_EXACT for pp_segmented_reduce (kernels: the segmented
 * part of exact.cl): f32, f64 and (whatever algorithm is chosen: the core
 * sends them here) f16 and bf16 sums, each segment's sum bit for bit the
 * exact pp_reduce of its elements (docs/exact.md), with the exact reduce's
 * group fold (xfold_group) and its one rounding (to the half format for
 * the half types: exact.cl's XHALF). Every other type and
 * operator runs the default (opencl_segmented.c).
 *
 * Chunks of XSEG_CHUNK elements cut the segments into pieces; two launches:
 *   1. xseg_open, one work-group per chunk but the last: the piece in it of
 *      the segment that runs on past its end (a binary search of the
 *      offsets) folded into an exact accumulator in scratch;
 *   2. xseg_reduce, one work-group per segment: its piece in its last chunk
 *      folded, the accumulators of its chunks before that added (integers:
 *      exact, in any order), the sum rounded once.
 * The offsets are never read back (no host synchronization): the kernels
 * clamp each offset to n where they read it, so bad offsets (decreasing,
 * past n) give unspecified sums but no access out of bounds, the call
 * succeeds, and only out[0 .. nseg) is written.
 * f64 on a device without cl_khr_fp64: PP_ERROR_UNSUPPORTED, as every
 * exact sum there. */
#include "opencl_internal.h"

#include "exact_acc.h"

/* Elements per chunk: a multiple of exact.cl's round (2048); CPU devices
 * (PoCL: a work-group is a loop on one thread) take smaller ones. */
#define XSEG_CHUNK_GPU 65536
#define XSEG_CHUNK_CPU 8192

pp_status pp_ocl_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a)
{
    if (a->op != PP_SUM || (a->type != PP_F32 && a->type != PP_F64 && !PP_IS_HALF(a->type)))
        return pp_ocl_segmented_reduce(ctx, a); /* the half types: only from the half slot */
    const char *fn = a->fn;
    const size_t n = a->n, nseg = a->nseg, sz = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {n ? a->in : NULL, n * sz, "in"}, {a->out, nseg * sz, "out"},
                                     {a->offsets, (nseg + 1) * sizeof(uint64_t), "offsets"}));
    static const char *const names[] = {"xseg_open", "xseg_reduce"};
    cl_kernel k[2];
    size_t L;
    PP_OCL_STATUS(pp_ocl_exact_kernels(ctx, fn, a->type, names, 2, k, &L, NULL));
    const size_t chunk = pp_ocl_cpu_shape(pp_ocl_device_caps(ctx)) ? XSEG_CHUNK_CPU : XSEG_CHUNK_GPU;
    const size_t nchunks = n / chunk + (n % chunk != 0), nopen = nchunks ? nchunks - 1 : 0;
    const size_t words = a->type == PP_F64 ? PP_XACC_F64_WORDS : PP_XACC_F32_WORDS;
    cl_mem accs, out = pp_ocl_mem(a->out), off = pp_ocl_mem(a->offsets);
    PP_OCL_STATUS(pp_ocl_scratch(ctx, nopen * words * sizeof(cl_long), fn, &accs));
    /* n == 0: every segment is empty, in is not read */
    cl_mem in = n ? pp_ocl_mem(a->in) : out;
    cl_ulong n64 = n, nseg64 = nseg, chunk64 = chunk, nopen64 = nopen;
    if (nopen)
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, k[0], nopen < PP_OCL_MAX_GROUPS ? nopen : PP_OCL_MAX_GROUPS, L,
                                    PP_OCL_ARG(in), PP_OCL_ARG(n64), PP_OCL_ARG(off), PP_OCL_ARG(nseg64),
                                    PP_OCL_ARG(chunk64), PP_OCL_ARG(accs), PP_OCL_ARG(nopen64)));
    return PP_OCL_LAUNCH(ctx, fn, k[1], nseg < PP_OCL_MAX_GROUPS ? nseg : PP_OCL_MAX_GROUPS, L, PP_OCL_ARG(in),
                         PP_OCL_ARG(n64), PP_OCL_ARG(off), PP_OCL_ARG(nseg64), PP_OCL_ARG(chunk64), PP_OCL_ARG(accs),
                         PP_OCL_ARG(out));
}

/* The half types' PP_SUM segmented scan (the half_segmented_scan slot):
 * exact.cl's xseg_scan_items, a work-item per segment (plain: a long
 * segment is one work-item's loop). */
pp_status pp_ocl_half_segmented_scan(pp_context *ctx, const pp_segmented_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n, nseg = a->nseg;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {n ? a->in : NULL, n * 2, "in"}, {n ? a->out : NULL, n * 2, "out"},
                                     {a->offsets, (nseg + 1) * sizeof(uint64_t), "offsets"}));
    if (n == 0) return PP_SUCCESS; /* every segment is empty */
    static const char *const names[] = {"xseg_scan_items"};
    cl_kernel k;
    size_t L;
    PP_OCL_STATUS(pp_ocl_exact_kernels(ctx, fn, a->type, names, 1, &k, &L, NULL));
    cl_mem in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out), off = pp_ocl_mem(a->offsets);
    cl_ulong n64 = n, nseg64 = nseg;
    cl_uint excl = a->kind == PP_EXCLUSIVE;
    return PP_OCL_LAUNCH(ctx, fn, k, pp_ocl_groups_for(nseg, L), L, PP_OCL_ARG(in), PP_OCL_ARG(out), PP_OCL_ARG(n64),
                         PP_OCL_ARG(off), PP_OCL_ARG(nseg64), PP_OCL_ARG(excl));
}
