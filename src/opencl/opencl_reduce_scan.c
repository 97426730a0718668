/* opencl reduce and scan (kernels: reduce_scan.cl).
 *
 * Reduce: one launch of reduce_chunks over G contiguous chunks (G from the
 * device's compute units and n), each folded with 16-byte vector loads into
 * per-lane accumulators and a tree over the work-group; when G > 1 a second
 * one-group launch folds the G partial results (kept in the context's
 * scratch). n == 0 fills out with the identity. The combination order
 * depends on n and the device only, so float results are reproducible run
 * to run on one device.
 *
 * Scan: reduce-then-scan over tiles of L * ITEMS elements, three launches
 * per level: the tiles' totals (scan_tile_sums), an exclusive scan of the
 * totals (the same algorithm, recursively, in scratch; one tile needs no
 * more), then every tile scanned from its carry. No work-group ever waits
 * for another, which OpenCL could not promise to terminate. The tile scan
 * is PP_ALGO_REDUCE_THEN_SCAN's (the default: per-work-item serial scans
 * and a Kogge-Stone scan of their totals) or PP_ALGO_BLELLOCH_PADDED's (up-sweep
 * and down-sweep over the whole tile in padded local memory). pp_scan_init
 * (the same slots, a->init set) starts the chain of carries from init: the
 * one tile's carry, or that of the scan of the totals, recursively.
 *
 * Floats: sums start from -0.0, the exact neutral element (so -0.0 inputs
 * sum as in sequence); what is written as "the identity" (n == 0, an
 * exclusive scan's out[0]) is +0.0. MIN and MAX propagate NaN and order
 * -0.0 below +0.0 (common.cl).
 */
#include "opencl_internal.h"

#include <math.h>
#include <string.h>

#define REDUCE_SCAN_GROUP 256 /* work-items per group on GPUs, if the device allows */

/* The flags of scan_tiles and scan_tiles_blelloch (as reduce_scan.cl defines them). */
#define SCAN_EXCLUSIVE 1u    /* an exclusive scan */
#define SCAN_CARRIES 2u      /* start each tile from its carry (the exclusive prefix of the tiles' totals) */
#define SCAN_PUBLIC_FIRST 4u /* an exclusive scan's out[0] is the API's identity, not the exact neutral element */

/* Work-group size and elements per work-item in a scan tile.
 * GPUs: 256 work-items, tiles of 4 KB (1-byte types) to 8 KB, which local
 * memory holds on every device (OpenCL 1.2 promises 32 KB).
 * CPU devices (PoCL): a work-group runs on one thread, its work-items as a
 * loop that every barrier splits in two, so narrow groups with long serial
 * runs are much faster; local memory is ordinary memory there. */
static void shape_for(const pp_ocl_caps *caps, size_t size, size_t *group, size_t *items)
{
    if (pp_ocl_cpu_shape(caps)) {
        *group = 8;
        *items = 256;
    } else {
        *group = REDUCE_SCAN_GROUP;
        *items = size <= 2 ? 16 : size == 4 ? 8 : 4;
    }
}

/* The identity as the API writes it, as bytes of the type. */
static void host_identity(pp_type type, pp_op op, void *out)
{
    switch (type) {
#define ID_SINT(T, U)                                                                                  \
    (op == PP_PROD  ? (T)1                                                                             \
     : op == PP_MIN ? (T)((U) ~(U)0 >> 1)                                                              \
     : op == PP_MAX ? (T)(-(T)((U) ~(U)0 >> 1) - 1)                                                    \
     : op == PP_AND ? (T)~(U)0                                                                         \
                    : (T)0)
#define ID_UINT(T, U) (op == PP_PROD ? (T)1 : op == PP_MIN ? (T)~(T)0 : op == PP_AND ? (T)~(T)0 : (T)0)
#define ID_FLOAT(T, U) (op == PP_PROD ? (T)1 : op == PP_MIN ? (T)INFINITY : op == PP_MAX ? (T)-INFINITY : (T)0)
#define X(E, T, S, K, U, W)              \
    case E: {                            \
        T v = ID_##K(T, U);              \
        memcpy(out, &v, sizeof v);       \
        return;                          \
    }
        PP_FOR_EACH_TYPE(X)
#undef X
#undef ID_SINT
#undef ID_UINT
#undef ID_FLOAT
    default: break; /* the half types: never here (src/core/check.c) */
    }
}

/* The kernels of the program for type and op, reading in_type (converted
 * to type as loaded: PP_IN_T) where it is not type. */
static pp_status kernels_from(pp_context *ctx, const char *fn, pp_type in_type, pp_type type, pp_op op,
                              const char *const *names, int nk, cl_kernel *k, pp_ocl_tile_plan *plan)
{
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    size_t sz = pp_type_size(type);
    size_t L, items;
    shape_for(caps, sz, &L, &items);
    L = pp_ocl_group_size(ctx, L);
    /* local memory: the padded tile and one element per work-item (and,
     * for the segmented kernels, one head byte per work-item) */
#define LOCAL_BYTES(L, it) (((L) * (it) + (L) * (it) / 32 + 1 + (L)) * sz + (L))
    while (items > 1 && LOCAL_BYTES(L, items) > caps->local_mem) items /= 2;
    while (L > 1 && LOCAL_BYTES(L, items) > caps->local_mem) L /= 2;
#undef LOCAL_BYTES
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, type));
    pp_ocl_def_op(&d, op);
    pp_ocl_def(&d, "ITEMS=%zu", items);
    if (in_type != type) pp_ocl_def_in_type(&d, in_type);
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "reduce_scan", &d, names, nk, k, &L));
    plan->size = sz;
    plan->L = L;
    plan->items = items;
    plan->tile = L * items;
    return PP_SUCCESS;
}

/* (opencl_internal.h; the segmented forms, opencl_segmented.c, run this
 * program's kernels too) */
pp_status pp_ocl_reduce_scan_kernels(pp_context *ctx, const char *fn, pp_type type, pp_op op, const char *const *names,
                                     int nk, cl_kernel *k, pp_ocl_tile_plan *plan)
{
    return kernels_from(ctx, fn, type, type, op, names, nk, k, plan);
}

/* ---- reduce ---------------------------------------------------------------------------------------------------- */

/* pp_ocl_reduce_into of in holding in_type elements, each converted to
 * type as loaded (the first launch's program reads in_type; the partial
 * results are folded by type's own). */
static pp_status reduce_from(pp_context *ctx, const char *fn, pp_type in_type, pp_type type, pp_op op, cl_mem in,
                             size_t in_off, size_t n, cl_mem out, size_t out_off, cl_mem work, size_t work_off)
{
    const size_t sz = pp_type_size(type);
    if (n == 0) {
        unsigned char id[8];
        host_identity(type, op, id);
        return pp_ocl_fill(ctx, fn, out, id, sz, out_off * sz, sz);
    }
    static const char *const names[] = {"reduce_chunks"};
    cl_kernel k, kin;
    pp_ocl_tile_plan p;
    PP_OCL_STATUS(pp_ocl_reduce_scan_kernels(ctx, fn, type, op, names, 1, &k, &p));
    kin = k;
    if (in_type != type) PP_OCL_STATUS(kernels_from(ctx, fn, in_type, type, op, names, 1, &kin, &p));

    /* G chunks: a few per compute unit, at least 4 vectors per work-item,
     * at most L (the second launch's work-items, and at most
     * PP_OCL_REDUCE_WORK partial results). */
    const size_t vec = 16 / sz, quantum = p.L * vec;
    size_t max_groups = (size_t)pp_ocl_device_caps(ctx)->compute_units * 4;
    if (max_groups > p.L) max_groups = p.L;
    if (max_groups > PP_OCL_REDUCE_WORK) max_groups = PP_OCL_REDUCE_WORK;
    size_t groups = n / (4 * quantum) + 1;
    if (groups > max_groups) groups = max_groups;
    size_t chunk = n / groups + (n % groups != 0);
    chunk = (chunk / quantum + (chunk % quantum != 0)) * quantum;
    groups = n / chunk + (n % chunk != 0);

    cl_ulong in64 = in_off, out64 = out_off, n64 = n, chunk64 = chunk;
    if (groups == 1)
        return PP_OCL_LAUNCH(ctx, fn, kin, 1, p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64), PP_OCL_ARG(n64),
                             PP_OCL_ARG(chunk64), PP_OCL_ARG(out), PP_OCL_ARG(out64));
    cl_ulong work64 = work_off;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, kin, groups, p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64), PP_OCL_ARG(n64),
                                PP_OCL_ARG(chunk64), PP_OCL_ARG(work), PP_OCL_ARG(work64)));
    cl_ulong g64 = groups, gchunk = (groups + vec - 1) / vec * vec;
    return PP_OCL_LAUNCH(ctx, fn, k, 1, p.L, PP_OCL_ARG(work), PP_OCL_ARG(work64), PP_OCL_ARG(g64), PP_OCL_ARG(gchunk),
                         PP_OCL_ARG(out), PP_OCL_ARG(out64));
}

pp_status pp_ocl_reduce_into(pp_context *ctx, const char *fn, pp_type type, pp_op op, cl_mem in, size_t in_off,
                             size_t n, cl_mem out, size_t out_off, cl_mem work, size_t work_off)
{
    return reduce_from(ctx, fn, type, type, op, in, in_off, n, out, out_off, work, work_off);
}

/* pp_reduce (in_type == type) and pp_reduce_to. */
static pp_status ocl_reduce(pp_context *ctx, const char *fn, pp_type in_type, pp_type type, pp_op op, const void *in,
                            size_t n, void *out)
{
    const size_t sz = pp_type_size(type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {out, sz, "out"}, {n ? in : NULL, n * pp_type_size(in_type), "in"}));
    cl_mem work = NULL;
    if (n) PP_OCL_STATUS(pp_ocl_scratch(ctx, PP_OCL_REDUCE_WORK * sz, fn, &work));
    return reduce_from(ctx, fn, in_type, type, op, n ? pp_ocl_mem(in) : NULL, 0, n, pp_ocl_mem(out), 0, work, 0);
}

pp_status pp_ocl_reduce(pp_context *ctx, const pp_reduce_args *a)
{
    return ocl_reduce(ctx, a->fn, a->type, a->type, a->op, a->in, a->n, a->out);
}

pp_status pp_ocl_reduce_to(pp_context *ctx, const pp_convert_args *a)
{
    return ocl_reduce(ctx, a->fn, a->in_type, a->out_type, a->op, a->in, a->n, a->out);
}

/* ---- scan ---------------------------------------------------------------------------------------------------- */

typedef struct scan_call {
    pp_context *ctx;
    const char *fn;
    cl_kernel sums, tiles; /* scan_tile_sums, and scan_tiles or scan_tiles_blelloch */
    /* the same kernels reading the call's input (pp_scan_to: its in_type,
     * converted as loaded); the levels below read the totals, of type */
    cl_kernel in_sums, in_tiles;
    pp_ocl_tile_plan p;
    cl_mem work;
} scan_call;

static size_t tiles_of(size_t n, size_t tile) { return n / tile + (n % tile != 0); }
/* Working elements of one level's totals, rounded to 16 elements. */
static size_t level_slots(size_t ntiles) { return (ntiles + 15) / 16 * 16; }

/* Working elements a scan of n elements needs with tiles of `tile`. */
static size_t work_elems(size_t n, size_t tile)
{
    size_t slots = 0;
    for (size_t m = n; m > tile;) {
        m = tiles_of(m, tile);
        slots += level_slots(m);
    }
    return slots;
}

/* Scans n elements of in (element offset in_off) into out (out_off) with
 * flags, from the carry init[0] where init is not NULL (pp_scan_init: it
 * becomes the one tile's carry, or the carry of the scan of the tiles'
 * totals, so every tile's carry starts from it); the levels below use work
 * from element work_off on. */
static pp_status scan_level(const scan_call *c, cl_mem in, size_t in_off, cl_mem out, size_t out_off, size_t n,
                            cl_uint flags, size_t work_off, cl_mem init, int top)
{
    const cl_kernel sums = top ? c->in_sums : c->sums, tiles = top ? c->in_tiles : c->tiles;
    const size_t ntiles = tiles_of(n, c->p.tile);
    cl_ulong in64 = in_off, out64 = out_off, n64 = n, nt64 = ntiles, zero = 0;
    const size_t groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;
    if (ntiles == 1) { /* one tile: no carries, or init's */
        const cl_mem carries = init ? init : in;
        const cl_uint f1 = init ? flags | SCAN_CARRIES : flags;
        return PP_OCL_LAUNCH(c->ctx, c->fn, tiles, 1, c->p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64), PP_OCL_ARG(out),
                             PP_OCL_ARG(out64), PP_OCL_ARG(n64), PP_OCL_ARG(carries), PP_OCL_ARG(zero),
                             PP_OCL_ARG(nt64), PP_OCL_ARG(f1));
    }
    cl_mem w = c->work;
    cl_ulong sums64 = work_off;
    PP_OCL_STATUS(PP_OCL_LAUNCH(c->ctx, c->fn, sums, groups, c->p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64), PP_OCL_ARG(n64),
                                PP_OCL_ARG(w), PP_OCL_ARG(sums64), PP_OCL_ARG(nt64)));
    /* the totals become their exclusive prefixes, in place */
    PP_OCL_STATUS(
        scan_level(c, w, work_off, w, work_off, ntiles, SCAN_EXCLUSIVE, work_off + level_slots(ntiles), init, 0));
    cl_uint f = flags | SCAN_CARRIES;
    return PP_OCL_LAUNCH(c->ctx, c->fn, tiles, groups, c->p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64), PP_OCL_ARG(out),
                         PP_OCL_ARG(out64), PP_OCL_ARG(n64), PP_OCL_ARG(w), PP_OCL_ARG(sums64), PP_OCL_ARG(nt64),
                         PP_OCL_ARG(f));
}

/* The kernels of a scan of type and op whose input holds in_type. */
static pp_status scan_prepare_from(pp_context *ctx, const char *fn, pp_type in_type, pp_type type, pp_op op,
                                   int blelloch, scan_call *c)
{
    const char *const names[] = {"scan_tile_sums", blelloch ? "scan_tiles_blelloch" : "scan_tiles"};
    cl_kernel k[2];
    c->ctx = ctx;
    c->fn = fn;
    c->work = NULL;
    PP_OCL_STATUS(pp_ocl_reduce_scan_kernels(ctx, fn, type, op, names, 2, k, &c->p));
    c->sums = c->in_sums = k[0];
    c->tiles = c->in_tiles = k[1];
    if (in_type == type) return PP_SUCCESS;
    pp_ocl_tile_plan same; /* the same shape: it depends on type alone */
    PP_OCL_STATUS(kernels_from(ctx, fn, in_type, type, op, names, 2, k, &same));
    if (same.L != c->p.L || same.items != c->p.items)
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: the converting scan's kernels took another shape", fn);
    c->in_sums = k[0];
    c->in_tiles = k[1];
    return PP_SUCCESS;
}

static pp_status scan_prepare(pp_context *ctx, const char *fn, pp_type type, pp_op op, int blelloch, scan_call *c)
{
    return scan_prepare_from(ctx, fn, type, type, op, blelloch, c);
}

pp_status pp_ocl_scan_work(pp_context *ctx, const char *fn, pp_type type, pp_op op, size_t n, size_t *elems)
{
    scan_call c;
    *elems = 0;
    PP_OCL_STATUS(scan_prepare(ctx, fn, type, op, 0, &c));
    *elems = work_elems(n, c.p.tile);
    return PP_SUCCESS;
}

pp_status pp_ocl_scan_into(pp_context *ctx, const char *fn, pp_type type, pp_op op, pp_scan_kind kind, cl_mem in,
                           size_t in_off, cl_mem out, size_t out_off, size_t n, cl_mem work, size_t work_off)
{
    if (n == 0) return PP_SUCCESS;
    scan_call c;
    PP_OCL_STATUS(scan_prepare(ctx, fn, type, op, 0, &c));
    c.work = work;
    cl_uint flags = kind == PP_EXCLUSIVE ? SCAN_EXCLUSIVE | SCAN_PUBLIC_FIRST : 0;
    return scan_level(&c, in, in_off, out, out_off, n, flags, work_off, NULL, 1);
}

/* pp_scan, pp_scan_init (a->init) and pp_scan_to (in_type != a->type; no
 * init). */
static pp_status ocl_scan(pp_context *ctx, const pp_scan_args *a, pp_type in_type, int blelloch)
{
    const char *fn = a->fn;
    const pp_type type = a->type;
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    const size_t sz = pp_type_size(type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {in, n * pp_type_size(in_type), "in"},
                                     {out != in ? out : NULL, n * sz, "out"}, {a->init, sz, "init"}));
    scan_call c;
    PP_OCL_STATUS(scan_prepare_from(ctx, fn, in_type, type, a->op, blelloch, &c));
    size_t slots = work_elems(n, c.p.tile);
    if (slots) PP_OCL_STATUS(pp_ocl_scratch(ctx, slots * sz, fn, &c.work));
    /* pp_scan_init: an exclusive out[0] is init op the neutral element,
     * init itself, not the API's identity */
    cl_uint flags = a->kind == PP_EXCLUSIVE ? SCAN_EXCLUSIVE | (a->init ? 0 : SCAN_PUBLIC_FIRST) : 0;
    return scan_level(&c, pp_ocl_mem(in), 0, pp_ocl_mem(out), 0, n, flags, 0, a->init ? pp_ocl_mem(a->init) : NULL, 1);
}

pp_status pp_ocl_scan(pp_context *ctx, const pp_scan_args *a) { return ocl_scan(ctx, a, a->type, 0); }
pp_status pp_ocl_scan_blelloch_padded(pp_context *ctx, const pp_scan_args *a) { return ocl_scan(ctx, a, a->type, 1); }

pp_status pp_ocl_scan_to(pp_context *ctx, const pp_convert_args *a)
{
    const pp_scan_args s = {a->fn, a->out_type, a->op, a->kind, a->in, a->out, a->n, NULL};
    return ocl_scan(ctx, &s, a->in_type, 0);
}
