/* opencl by-key forms: pp_reduce_by_key, pp_scan_by_key and
 * pp_run_length_encode (kernels: bykey.cl on the key type, and the
 * segmented ones of reduce_scan.cl on the value type).
 *
 * Every one marks the runs' heads first (bykey_heads: one byte per key, 1
 * where keys[i] != keys[i - 1] or i == 0, and each tile's head count);
 *   scan: the segmented scan of the values on those heads
 *     (pp_ocl_seg_scan), as pp_segmented_scan runs it;
 *   reduce and run-length encoding: the tiles' counts scanned
 *     (pp_ocl_scan_into), then bykey_scatter writes each run's start to an
 *     offsets array in working memory and its first key to keys_out
 *     (values_out of the encoding), and the number of runs to *count on the
 *     device, as pp_unique does; the encoding's lengths are differences of
 *     neighbouring offsets (bykey_lengths), the reduce's folds come from
 *     the segmented reduce's kernels on the heads and offsets, with the
 *     number of runs read by the kernel from *count (seg_reduce_runs,
 *     launched over n).
 * Nothing is read back and the host waits for nothing. Working memory (one
 * pp_ocl_scratch buffer): the offsets (n + 1 u64; reduce and encoding),
 * the tiles' counts and their scan's work, the heads (n bytes), the
 * segmented levels (reduce and scan). */
#include "opencl_internal.h"

/* Regions of working memory start at multiples of 128 bytes. */
static size_t round128(size_t bytes) { return (bytes + 127) / 128 * 128; }

typedef struct bykey_call {
    cl_kernel heads, scatter, lengths; /* bykey.cl */
    size_t L, tile, ntiles;
    pp_ocl_seg seg; /* reduce and scan */
    cl_mem work;
    size_t cnt_at, slots, heads_at, work_at; /* byte offsets in work; slots: the counts' u64 */
} bykey_call;

/* The kernels of bykey.cl for the key type: GPUs 256 work-items of 8 keys,
 * CPU devices (PoCL run a group as a loop on one thread) 16 of 128. */
static pp_status key_kernels(pp_context *ctx, const pp_bykey_args *a, bykey_call *c)
{
    const int cpu = (pp_ocl_device_caps(ctx)->type & CL_DEVICE_TYPE_CPU) != 0;
    size_t L = pp_ocl_group_size(ctx, cpu ? 16 : 256);
    const size_t items = cpu ? 128 : 8;
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, a->fn, &d, a->key_type));
    pp_ocl_def(&d, "ITEMS=%zu", items);
    static const char *const names[3] = {"bykey_heads", "bykey_scatter", "bykey_lengths"};
    cl_kernel k[3];
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, a->fn, "bykey", &d, names, 3, k, &L));
    c->heads = k[0];
    c->scatter = k[1];
    c->lengths = k[2];
    c->L = L;
    c->tile = L * items;
    c->ntiles = a->n / c->tile + (a->n % c->tile != 0);
    return PP_SUCCESS;
}

/* Checks the handles, gets every kernel and the working memory (nothing
 * written before all of it succeeded), then marks the heads. */
static pp_status bykey_begin(pp_context *ctx, const pp_bykey_args *a, bykey_call *c)
{
    const char *fn = a->fn;
    const size_t n = a->n, ks = pp_type_size(a->key_type), vs = pp_type_size(a->value_type);
    const int rle = a->mode == PP_BYKEY_RLE, scan = a->mode == PP_BYKEY_SCAN;
    PP_OCL_STATUS(
        PP_OCL_CHECK_SIZES(ctx, fn, {a->keys, n * ks, rle ? "in" : "keys"}, {a->values, n * vs, "values"},
                           {a->values_out != a->values ? a->values_out : NULL, n * vs, scan ? "out" : "values_out"},
                           {a->keys_out, n * ks, rle ? "values_out" : "keys_out"},
                           {a->counts_out, n * sizeof(uint64_t), "counts_out"}, {a->count, sizeof(uint64_t), "count"}));
    PP_OCL_STATUS(key_kernels(ctx, a, c));
    if (!rle) PP_OCL_STATUS(pp_ocl_seg_kernels(ctx, fn, a->value_type, a->op, &c->seg));
    size_t scan_work = 0;
    if (!scan) PP_OCL_STATUS(pp_ocl_scan_work(ctx, fn, PP_U64, PP_SUM, c->ntiles + 1, &scan_work));
    c->slots = (c->ntiles + 1 + 15) / 16 * 16;
    c->cnt_at = scan ? 0 : round128((n + 1) * sizeof(uint64_t));
    c->heads_at = c->cnt_at + round128((c->slots + scan_work) * sizeof(uint64_t));
    c->work_at = c->heads_at + round128(n);
    const size_t bytes = c->work_at + (rle ? 0 : pp_ocl_seg_levels_bytes(&c->seg, n));
    PP_OCL_STATUS(pp_ocl_scratch(ctx, bytes, fn, &c->work));
    c->seg.work = c->work;
    c->seg.offsets = c->work; /* the offsets at element 0 (the scan reads none) */
    const cl_ulong n64 = n, h64 = c->heads_at, c64 = c->cnt_at / sizeof(uint64_t), nt64 = c->ntiles;
    cl_mem keys = pp_ocl_mem(a->keys);
    const size_t groups = c->ntiles < PP_OCL_MAX_GROUPS ? c->ntiles : PP_OCL_MAX_GROUPS;
    return PP_OCL_LAUNCH(ctx, fn, c->heads, groups, c->L, PP_OCL_ARG(keys), PP_OCL_ARG(n64), PP_OCL_ARG(c->work),
                         PP_OCL_ARG(h64), PP_OCL_ARG(c->work), PP_OCL_ARG(c64), PP_OCL_ARG(nt64));
}

/* The runs' offsets (element 0 of work), first keys and count. */
static pp_status bykey_offsets(pp_context *ctx, const pp_bykey_args *a, const bykey_call *c)
{
    const size_t cnt = c->cnt_at / sizeof(uint64_t);
    PP_OCL_STATUS(pp_ocl_scan_into(ctx, a->fn, PP_U64, PP_SUM, PP_EXCLUSIVE, c->work, cnt, c->work, cnt, c->ntiles + 1,
                                   c->work, cnt + c->slots));
    const cl_ulong n64 = a->n, h64 = c->heads_at, c64 = cnt, nt64 = c->ntiles;
    cl_mem keys = pp_ocl_mem(a->keys), keys_out = pp_ocl_mem(a->keys_out), count = pp_ocl_mem(a->count);
    const size_t groups = c->ntiles < PP_OCL_MAX_GROUPS ? c->ntiles : PP_OCL_MAX_GROUPS;
    return PP_OCL_LAUNCH(ctx, a->fn, c->scatter, groups, c->L, PP_OCL_ARG(keys), PP_OCL_ARG(n64), PP_OCL_ARG(c->work),
                         PP_OCL_ARG(h64), PP_OCL_ARG(c->work), PP_OCL_ARG(c64), PP_OCL_ARG(nt64), PP_OCL_ARG(c->work),
                         PP_OCL_ARG(keys_out), PP_OCL_ARG(count));
}

pp_status pp_ocl_reduce_by_key(pp_context *ctx, const pp_bykey_args *a)
{
    bykey_call c;
    PP_OCL_STATUS(bykey_begin(ctx, a, &c));
    PP_OCL_STATUS(bykey_offsets(ctx, a, &c));
    return pp_ocl_seg_reduce_runs(&c.seg, pp_ocl_mem(a->values), a->n, c.heads_at, c.work_at, pp_ocl_mem(a->count),
                                  pp_ocl_mem(a->values_out));
}

pp_status pp_ocl_scan_by_key(pp_context *ctx, const pp_bykey_args *a)
{
    bykey_call c;
    PP_OCL_STATUS(bykey_begin(ctx, a, &c));
    return pp_ocl_seg_scan(&c.seg, pp_ocl_mem(a->values), pp_ocl_mem(a->values_out), a->n, a->kind, c.heads_at,
                           c.work_at);
}

pp_status pp_ocl_run_length_encode(pp_context *ctx, const pp_bykey_args *a)
{
    bykey_call c;
    PP_OCL_STATUS(bykey_begin(ctx, a, &c));
    PP_OCL_STATUS(bykey_offsets(ctx, a, &c));
    const cl_ulong n64 = a->n;
    cl_mem count = pp_ocl_mem(a->count), counts_out = pp_ocl_mem(a->counts_out);
    return PP_OCL_LAUNCH(ctx, a->fn, c.lengths, pp_ocl_groups_for(a->n, c.L), c.L, PP_OCL_ARG(c.work),
                         PP_OCL_ARG(count), PP_OCL_ARG(n64), PP_OCL_ARG(counts_out));
}
