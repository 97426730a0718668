/* opencl stream compaction: pp_select_flagged, pp_select_if, pp_unique and
 * pp_partition_if (kernels: select.cl, program "select").
 *
 * Scan-and-scatter over tiles of L * ITEMS elements, in three steps that
 * never make a work-group wait for another (OpenCL promises no forward
 * progress between work-groups):
 *   1. sel_count: each tile's selected count into a u64 array in scratch
 *      (ntiles + 1 slots, the last one 0);
 *   2. pp_ocl_scan_into: an exclusive scan of the ntiles + 1 counts in
 *      place, giving each tile's output offset and, in the last slot, the
 *      total;
 *   3. sel_scatter: each tile evaluates its predicate again, scans its flags
 *      in local memory and writes its selected elements (and, for
 *      partition, the rejected ones after the total) in input order; the
 *      first work-item copies the total to *count.
 * Nothing waits for the device; the count is written by it. The predicate
 * (flags, the comparison, unique) is a build define (one program per type
 * and predicate); partition is an argument of the select_if program.
 */
#include "opencl_internal.h"

/* The predicate, the program's define PP_SEL (select.cl). */
#define SEL_PRED_FLAGS 0  /* flags[i] != 0 */
#define SEL_PRED_CMP 1    /* in[i] cmp value (select_if and partition) */
#define SEL_PRED_UNIQUE 2 /* i == 0 || in[i] != in[i - 1] */

/* GPUs: 256 work-items, 2 to 4 KB of input per tile; CPU devices (PoCL) run
 * a group as a loop on one thread: narrow groups, long serial runs. */
static void shape_for(const pp_ocl_caps *caps, size_t size, size_t *L, size_t *items)
{
    if (caps->type & CL_DEVICE_TYPE_CPU) {
        *L = 16;
        *items = 128;
    } else {
        *L = 256;
        *items = size <= 2 ? 16 : size == 4 ? 8 : 4;
    }
}

/* local memory of sel_scatter: src (TILE + 1), dst (TILE), flags, L + 1 uints */
static size_t local_bytes(size_t L, size_t items, size_t size, int flags)
{
    const size_t tile = L * items;
    return (2 * tile + 1) * size + (flags ? tile : 0) + (L + 1) * 4;
}

typedef struct sel_kernels {
    cl_kernel count, scatter; /* sel_count, sel_scatter */
    size_t L, items, tile;    /* work-group size, elements per work-item, L * items */
} sel_kernels;

static pp_status get_kernels(pp_context *ctx, const char *fn, const pp_select_args *a, int pred, sel_kernels *sk)
{
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    const size_t sz = pp_type_size(a->type);
    size_t L, items;
    shape_for(caps, sz, &L, &items);
    L = pp_ocl_group_size(ctx, L);
    while (items > 1 && local_bytes(L, items, sz, pred == SEL_PRED_FLAGS) > caps->local_mem) items /= 2;
    while (L > 1 && local_bytes(L, items, sz, pred == SEL_PRED_FLAGS) > caps->local_mem) L /= 2;
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, a->type));
    if (pred == SEL_PRED_CMP) pp_ocl_def_cmp(&d, a->cmp);
    pp_ocl_def(&d, "ITEMS=%zu", items);
    pp_ocl_def(&d, "SEL=%d", pred);
    static const char *const names[2] = {"sel_count", "sel_scatter"};
    cl_kernel k[2];
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "select", &d, names, 2, k, &L));
    sk->count = k[0];
    sk->scatter = k[1];
    sk->L = L;
    sk->items = items;
    sk->tile = L * items;
    return PP_SUCCESS;
}

pp_status pp_ocl_select(pp_context *ctx, const pp_select_args *a)
{
    const char *fn = a->fn;
    const size_t sz = pp_type_size(a->type), n = a->n;

    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->count, sizeof(uint64_t), "count"}, {n ? a->in : NULL, n * sz, "in"},
                                     {n ? a->out : NULL, n * sz, "out"},
                                     {n && a->mode == PP_SELECT_FLAGGED ? a->flags : NULL, n, "flags"}));
    cl_mem count = pp_ocl_mem(a->count);
    /* the type is checked (f64 without cl_khr_fp64) before anything is written */
    PP_OCL_STATUS(pp_ocl_check_type(ctx, fn, a->type));
    if (n == 0) {
        const cl_ulong zero = 0;
        return pp_ocl_fill(ctx, fn, count, &zero, sizeof zero, 0, sizeof zero);
    }

    const int pred = a->mode == PP_SELECT_FLAGGED ? SEL_PRED_FLAGS
                     : a->mode == PP_SELECT_UNIQUE ? SEL_PRED_UNIQUE : SEL_PRED_CMP;
    sel_kernels sk;
    PP_OCL_STATUS(get_kernels(ctx, fn, a, pred, &sk));

    const size_t ntiles = n / sk.tile + (n % sk.tile != 0);
    const size_t slots = (ntiles + 1 + 15) / 16 * 16;
    size_t scan_work = 0;
    PP_OCL_STATUS(pp_ocl_scan_work(ctx, fn, PP_U64, PP_SUM, ntiles + 1, &scan_work));
    cl_mem work;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, (slots + scan_work) * sizeof(cl_ulong), fn, &work));

    const cl_ulong value_bits = a->value ? pp_ocl_bits_of(a->value, sz) : 0; /* as an integer of its width */
    cl_mem in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out);
    const cl_ulong n64 = n, nt64 = ntiles, zero64 = 0;
    const cl_uint part = a->mode == PP_SELECT_PARTITION;
    const size_t groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;

    if (pred == SEL_PRED_FLAGS) {
        cl_mem flags = pp_ocl_mem(a->flags);
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, sk.count, groups, sk.L, PP_OCL_ARG(in), PP_OCL_ARG(flags),
                                    PP_OCL_ARG(n64), PP_OCL_ARG(value_bits), PP_OCL_ARG(work), PP_OCL_ARG(zero64),
                                    PP_OCL_ARG(nt64)));
    } else {
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, sk.count, groups, sk.L, PP_OCL_ARG(in), PP_OCL_ARG(n64),
                                    PP_OCL_ARG(value_bits), PP_OCL_ARG(work), PP_OCL_ARG(zero64),
                                    PP_OCL_ARG(nt64)));
    }
    PP_OCL_STATUS(pp_ocl_scan_into(ctx, fn, PP_U64, PP_SUM, PP_EXCLUSIVE, work, 0, work, 0, ntiles + 1, work,
                                   slots));
    if (pred == SEL_PRED_FLAGS) {
        cl_mem flags = pp_ocl_mem(a->flags);
        return PP_OCL_LAUNCH(ctx, fn, sk.scatter, groups, sk.L, PP_OCL_ARG(in), PP_OCL_ARG(flags), PP_OCL_ARG(n64),
                             PP_OCL_ARG(value_bits), PP_OCL_ARG(work), PP_OCL_ARG(zero64), PP_OCL_ARG(nt64),
                             PP_OCL_ARG(out), PP_OCL_ARG(count), PP_OCL_ARG(part));
    }
    return PP_OCL_LAUNCH(ctx, fn, sk.scatter, groups, sk.L, PP_OCL_ARG(in), PP_OCL_ARG(n64), PP_OCL_ARG(value_bits),
                         PP_OCL_ARG(work), PP_OCL_ARG(zero64), PP_OCL_ARG(nt64), PP_OCL_ARG(out), PP_OCL_ARG(count),
                         PP_OCL_ARG(part));
}
