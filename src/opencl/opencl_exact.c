/* opencl PP_ALGO_EXACT (kernels: exact.cl, which is src/core/exact_acc.h
 * followed by src/opencl/exact.cl): f32 and f64 PP_SUM reduce and scan
 * correctly rounded, the same bits as the cpu backend (the accumulator and
 * its one rounding are the same code); every other type and operator runs
 * the default algorithm.
 *
 * Reduce: xfold_groups folds G contiguous ranges (a few per compute unit)
 * into one exact accumulator each (PP_XACC_*_WORDS words, in the context's
 * scratch); xreduce_final merges them in order and rounds once (integer
 * addition: the order could not change the result anyway). The exact_sum
 * slot (pp_exact_accumulate) is the same fold, merged by xsum_final and
 * read back instead of rounded.
 * Scan: xfold_groups over tiles of S elements, xscan_accs (the tiles'
 * exclusive prefixes, exact), xscan_tiles (one work-item per tile, one
 * correct rounding per output: a certified fast sum, the accumulator where
 * it cannot decide). In place, the input is first copied to scratch: the
 * fallback re-reads inputs whose outputs are already written.
 * f64 on a device without cl_khr_fp64: PP_ERROR_UNSUPPORTED (pp_ocl_def_type),
 * as for every f64 primitive there.
 * f16 and bf16 sums (the half slots, opencl_half.c) are the same kernels
 * on their bits, widened to f32 as loaded, the f32 accumulator, and one
 * rounding to the half format per output (exact.cl). */
#include "opencl_internal.h"

#include "exact_acc.h"

/* Work-items of xfold_groups: GPUs 256; CPU devices (PoCL: a work-group is
 * a loop on one thread) 16, each with 128 elements per round. */
#define XGROUP_GPU 256
#define XGROUP_CPU 16
#define XROUND_ELEMS 2048 /* XR of exact.cl: elements a group folds per round */
/* Scan tiles (one work-item each in xscan_tiles) and that kernel's work-group. */
#define XTILE_GPU 512
#define XTILE_CPU 2048
#define XTILES_GROUP 64

typedef struct xcall {
    cl_kernel fold, final, sum, accs, tiles;
    size_t L;     /* xfold_groups' work-group size */
    size_t words; /* accumulator words */
} xcall;

static int is_exact(pp_type type, pp_op op)
{
    return op == PP_SUM && (type == PP_F32 || type == PP_F64 || PP_IS_HALF(type));
}

pp_status pp_ocl_exact_kernels(pp_context *ctx, const char *fn, pp_type type, const char *const *names, int nk,
                               cl_kernel *k, size_t *L_out, pp_ocl_defines *defs)
{
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    size_t L = pp_ocl_group_size(ctx, pp_ocl_cpu_shape(caps) ? XGROUP_CPU : XGROUP_GPU);
    /* local memory: four doubles, an int and an element's bits per work-item */
    while (L > 1 && L * 44 > caps->local_mem) L /= 2;
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, PP_IS_HALF(type) ? PP_U16 : type));
    if (PP_IS_HALF(type)) { /* its bits as T, widened by the kernels (exact.cl) */
        pp_ocl_def(&d, "XHALF_PREC=%d", PP_HALF_PREC(type));
        pp_ocl_def(&d, "XHALF_SHIFT=%d", PP_HALF_SHIFT(type));
        pp_ocl_def(&d, "XHALF_BF=%d", type == PP_BF16);
    }
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "exact", &d, names, nk, k, &L));
    pp_ocl_def(&d, "L=%zu", L); /* the defines kernels_fit built with: the same program */
    if (defs) *defs = d;
    *L_out = L;
    return PP_SUCCESS;
}

static pp_status xprepare(pp_context *ctx, const char *fn, pp_type type, xcall *c)
{
    static const char *const fold[] = {"xfold_groups"};
    pp_ocl_defines d;
    PP_OCL_STATUS(pp_ocl_exact_kernels(ctx, fn, type, fold, 1, &c->fold, &c->L, &d));
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "exact", &d, "xreduce_final", &c->final));
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "exact", &d, "xsum_final", &c->sum));
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "exact", &d, "xscan_accs", &c->accs));
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "exact", &d, "xscan_tiles", &c->tiles));
    c->words = type == PP_F64 ? PP_XACC_F64_WORDS : PP_XACC_F32_WORDS;
    return PP_SUCCESS;
}

/* Queues the fold of a->in[0 .. a->n) (n > 0) into *groups accumulators
 * at the start of *work (the context's scratch), to be merged by c->final
 * or c->sum. */
static pp_status xfold_ranges(pp_context *ctx, const pp_reduce_args *a, xcall *c, cl_mem *work, size_t *groups_out)
{
    const char *fn = a->fn;
    const size_t n = a->n;
    PP_OCL_STATUS(xprepare(ctx, fn, a->type, c));
    /* G ranges: a few per compute unit, whole rounds each */
    size_t max_groups = (size_t)pp_ocl_device_caps(ctx)->compute_units * 4;
    if (max_groups > 1024) max_groups = 1024;
    if (max_groups < 1) max_groups = 1;
    const size_t rounds = n / XROUND_ELEMS + (n % XROUND_ELEMS != 0);
    size_t groups = rounds < max_groups ? rounds : max_groups;
    const size_t chunk = (rounds / groups + (rounds % groups != 0)) * XROUND_ELEMS;
    groups = n / chunk + (n % chunk != 0);
    PP_OCL_STATUS(pp_ocl_scratch(ctx, groups * c->words * sizeof(cl_long), fn, work));
    cl_mem in = pp_ocl_mem(a->in);
    cl_ulong zero = 0, n64 = n, chunk64 = chunk;
    *groups_out = groups;
    return PP_OCL_LAUNCH(ctx, fn, c->fold, groups, c->L, PP_OCL_ARG(in), PP_OCL_ARG(zero), PP_OCL_ARG(n64),
                         PP_OCL_ARG(chunk64), PP_OCL_ARG(*work), PP_OCL_ARG(zero));
}

pp_status pp_ocl_reduce_exact(pp_context *ctx, const pp_reduce_args *a)
{
    if (!is_exact(a->type, a->op) || a->n == 0) return pp_ocl_reduce(ctx, a);
    const char *fn = a->fn;
    const size_t sz = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->out, sz, "out"}, {a->in, a->n * sz, "in"}));
    xcall c;
    cl_mem work;
    size_t groups;
    PP_OCL_STATUS(xfold_ranges(ctx, a, &c, &work, &groups));
    cl_mem out = pp_ocl_mem(a->out);
    cl_ulong zero = 0, g64 = groups;
    return PP_OCL_LAUNCH(ctx, fn, c.final, 1, 1, PP_OCL_ARG(work), PP_OCL_ARG(zero), PP_OCL_ARG(g64), PP_OCL_ARG(out));
}

pp_status pp_ocl_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc)
{
    const char *fn = a->fn;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->in, a->n * pp_type_size(a->type), "in"}));
    xcall c;
    cl_mem work;
    size_t groups;
    PP_OCL_STATUS(xfold_ranges(ctx, a, &c, &work, &groups));
    cl_ulong g64 = groups;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, c.sum, 1, 1, PP_OCL_ARG(work), PP_OCL_ARG(g64)));
    /* blocking: the sum is the caller's host memory when the call returns */
    PP_OCL_TRY(ctx, clEnqueueReadBuffer(pp_ocl_queue(ctx), work, CL_TRUE, 0, c.words * sizeof(cl_long), acc, 0, NULL,
                                        NULL), fn, "clEnqueueReadBuffer");
    return PP_SUCCESS;
}

pp_status pp_ocl_scan_exact(pp_context *ctx, const pp_scan_args *a)
{
    if (!is_exact(a->type, a->op)) return pp_ocl_scan(ctx, a);
    const char *fn = a->fn;
    const size_t n = a->n, sz = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->in, n * sz, "in"}, {a->out != a->in ? a->out : NULL, n * sz, "out"},
                                     {a->init, sz, "init"}));
    xcall c;
    PP_OCL_STATUS(xprepare(ctx, fn, a->type, &c));
    const size_t S = pp_ocl_cpu_shape(pp_ocl_device_caps(ctx)) ? XTILE_CPU : XTILE_GPU;
    const size_t ntiles = n / S + (n % S != 0);
    const int inplace = a->in == a->out;
    const size_t acc_bytes = (ntiles * c.words * sizeof(cl_long) + 127) / 128 * 128;
    cl_mem work;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, acc_bytes + (inplace ? n * sz : 0), fn, &work));
    cl_mem in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out), x = in;
    cl_ulong zero = 0, n64 = n, S64 = S, nt64 = ntiles, xoff = 0;
    const size_t fold_groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, c.fold, fold_groups, c.L, PP_OCL_ARG(in), PP_OCL_ARG(zero), PP_OCL_ARG(n64),
                                PP_OCL_ARG(S64), PP_OCL_ARG(work), PP_OCL_ARG(zero)));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, c.accs, c.words, 1, PP_OCL_ARG(work), PP_OCL_ARG(zero), PP_OCL_ARG(nt64)));
    if (inplace) {
        PP_OCL_TRY(ctx, clEnqueueCopyBuffer(pp_ocl_queue(ctx), in, work, 0, acc_bytes, n * sz, 0, NULL, NULL), fn,
                   "clEnqueueCopyBuffer");
        x = work;
        xoff = acc_bytes / sz;
    }
    size_t tl = pp_ocl_kernel_max_group(ctx, c.tiles);
    if (tl == 0 || tl > XTILES_GROUP) tl = XTILES_GROUP;
    tl = pp_ocl_group_size(ctx, tl);
    size_t groups = ntiles / tl + (ntiles % tl != 0);
    if (groups > PP_OCL_MAX_GROUPS) groups = PP_OCL_MAX_GROUPS;
    cl_uint excl = a->kind == PP_EXCLUSIVE, has_init = a->init != NULL;
    cl_mem ini = a->init ? pp_ocl_mem(a->init) : in; /* in: a stand-in the kernel does not read */
    return PP_OCL_LAUNCH(ctx, fn, c.tiles, groups, tl, PP_OCL_ARG(x), PP_OCL_ARG(xoff), PP_OCL_ARG(out),
                         PP_OCL_ARG(n64), PP_OCL_ARG(S64), PP_OCL_ARG(work), PP_OCL_ARG(zero), PP_OCL_ARG(excl),
                         PP_OCL_ARG(ini), PP_OCL_ARG(has_init));
}
