/* opencl segmented reduce and scan (pp_segmented_reduce, pp_segmented_scan;
 * kernels: the segmented part of reduce_scan.cl).
 *
 * Both run the scan's reduce-then-scan over tiles of L * ITEMS elements
 * (opencl_reduce_scan.c), on (head, value) pairs: a zeroed byte per
 * element in working memory, marked at each non-empty segment's start
 * (seg_heads, one work-item per segment), then
 *   scan: the tiles' pair totals (seg_tile_sums), their exclusive
 *     prefixes as the tiles' carries (the same two steps one level down,
 *     recursively, until one tile holds them), each tile scanned from its
 *     carry (seg_scan_tiles), written only within [offsets[0],
 *     offsets[nseg]);
 *   reduce: the same carries, then one work-item per segment
 *     (seg_reduce_out) folds the segment's part in the tile of its last
 *     element onto that tile's carry (or from its start if it starts
 *     there): a long segment is so folded by every work-group, tile by
 *     tile, short ones by one work-item each.
 * No work-group waits for another, so no look-back. The offsets stay in
 * device memory and are never read back: every kernel clamps each offset
 * it reads to n, so bad offsets (decreasing, past n) give unspecified
 * results but no access out of bounds, and the call succeeds. The
 * combination order depends on n, the offsets and the device's tile
 * shape alone, so float results are reproducible run to run on one device.
 * The by-key forms (opencl_bykey.c) run the same kernels on heads they
 * mark themselves (pp_ocl_seg_*, opencl_internal.h); their reduce has a
 * kernel of its own (seg_reduce_runs) that reads the number of runs on
 * the device.
 */
#include "opencl_internal.h"

/* The flags of seg_scan_tiles (as reduce_scan.cl defines them). */
#define SEG_EXCLUSIVE 1u /* the prefix before each element */
#define SEG_RESET 2u     /* a head's exclusive prefix is the API's identity (elements, not carries) */
#define SEG_RANGE 4u     /* write only within [offsets[0], offsets[nseg]) */

/* Regions of working memory start at multiples of 128 bytes (any element's). */
static size_t round128(size_t bytes) { return (bytes + 127) / 128 * 128; }

typedef pp_ocl_seg seg_call;

static size_t ntiles_of(const seg_call *c, size_t m) { return m / c->p.tile + (m % c->p.tile != 0); }

size_t pp_ocl_seg_levels_bytes(const pp_ocl_seg *c, size_t n)
{
    size_t bytes = 0;
    for (size_t m = n; m > c->p.tile;) {
        m = ntiles_of(c, m);
        bytes += round128(m * c->p.size) + round128(m);
    }
    return bytes;
}

/* Working bytes for n elements: their heads and every level's totals. */
static size_t work_bytes(const seg_call *c, size_t n) { return round128(n) + pp_ocl_seg_levels_bytes(c, n); }

static pp_status seg_scan_level(const seg_call *c, cl_mem in, size_t in_off, size_t heads_at, cl_mem out,
                                size_t out_off, size_t m, cl_uint flags, size_t work_at);

/* The carries of the tiles of m pairs (values in at in_off, heads at byte
 * heads_at of work): the tiles' totals at byte work_at of work (values,
 * then heads), scanned exclusively in place; *carries: their element
 * offset. m spans more than one tile. */
static pp_status seg_carries(const seg_call *c, cl_mem in, size_t in_off, size_t heads_at, size_t m,
                             size_t work_at, size_t *carries)
{
    const size_t ntiles = ntiles_of(c, m), sz = c->p.size;
    const size_t sums_heads_at = work_at + round128(ntiles * sz), below = sums_heads_at + round128(ntiles);
    const size_t groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;
    cl_ulong in64 = in_off, h64 = heads_at, m64 = m, s64 = work_at / sz, sh64 = sums_heads_at, nt64 = ntiles;
    PP_OCL_STATUS(PP_OCL_LAUNCH(c->ctx, c->fn, c->sums, groups, c->p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64),
                                PP_OCL_ARG(c->work), PP_OCL_ARG(h64), PP_OCL_ARG(m64), PP_OCL_ARG(c->work),
                                PP_OCL_ARG(s64), PP_OCL_ARG(c->work), PP_OCL_ARG(sh64), PP_OCL_ARG(nt64)));
    *carries = work_at / sz;
    return seg_scan_level(c, c->work, *carries, sums_heads_at, c->work, *carries, ntiles, SEG_EXCLUSIVE, below);
}

/* Scans m pairs (values in at in_off, heads at byte heads_at of work) into
 * out at out_off, as flags say; levels below use work from byte work_at. */
static pp_status seg_scan_level(const seg_call *c, cl_mem in, size_t in_off, size_t heads_at, cl_mem out,
                                size_t out_off, size_t m, cl_uint flags, size_t work_at)
{
    const size_t ntiles = ntiles_of(c, m);
    size_t carries = 0;
    if (ntiles > 1) PP_OCL_STATUS(seg_carries(c, in, in_off, heads_at, m, work_at, &carries));
    const size_t groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;
    cl_ulong in64 = in_off, h64 = heads_at, out64 = out_off, m64 = m, c64 = carries, nt64 = ntiles;
    return PP_OCL_LAUNCH(c->ctx, c->fn, c->tiles, groups, c->p.L, PP_OCL_ARG(in), PP_OCL_ARG(in64),
                         PP_OCL_ARG(c->work), PP_OCL_ARG(h64), PP_OCL_ARG(out), PP_OCL_ARG(out64), PP_OCL_ARG(m64),
                         PP_OCL_ARG(c->work), PP_OCL_ARG(c64), PP_OCL_ARG(nt64), PP_OCL_ARG(c->offsets),
                         PP_OCL_ARG(c->nseg), PP_OCL_ARG(flags));
}

pp_status pp_ocl_seg_kernels(pp_context *ctx, const char *fn, pp_type type, pp_op op, pp_ocl_seg *c)
{
    static const char *const names[] = {"seg_heads", "seg_tile_sums", "seg_scan_tiles", "seg_reduce_out",
                                        "seg_reduce_runs"};
    cl_kernel k[5];
    pp_ocl_tile_plan p;
    PP_OCL_STATUS(pp_ocl_reduce_scan_kernels(ctx, fn, type, op, names, 5, k, &p));
    const pp_ocl_seg s = {ctx, fn, k[0], k[1], k[2], k[3], k[4], p, NULL, NULL, 0};
    *c = s;
    return PP_SUCCESS;
}

pp_status pp_ocl_seg_scan(const pp_ocl_seg *c, cl_mem in, cl_mem out, size_t n, pp_scan_kind kind, size_t heads_at,
                          size_t work_at)
{
    const cl_uint flags = kind == PP_EXCLUSIVE ? SEG_EXCLUSIVE | SEG_RESET : 0;
    return seg_scan_level(c, in, 0, heads_at, out, 0, n, flags, work_at);
}

pp_status pp_ocl_seg_reduce_runs(const pp_ocl_seg *c, cl_mem in, size_t n, size_t heads_at, size_t work_at,
                                 cl_mem nseg_at, cl_mem out)
{
    size_t carries = 0;
    if (n > c->p.tile) PP_OCL_STATUS(seg_carries(c, in, 0, heads_at, n, work_at, &carries));
    cl_ulong n64 = n, c64 = carries;
    cl_mem carries_mem = n > c->p.tile ? c->work : in; /* one tile: no carry is read */
    return PP_OCL_LAUNCH(c->ctx, c->fn, c->reduce_runs, pp_ocl_groups_for(n, c->p.L), c->p.L, PP_OCL_ARG(in),
                         PP_OCL_ARG(n64), PP_OCL_ARG(c->offsets), PP_OCL_ARG(nseg_at), PP_OCL_ARG(carries_mem),
                         PP_OCL_ARG(c64), PP_OCL_ARG(out));
}

/* Checks the handles, gets the kernels and working memory, and marks the
 * heads of the n elements (n > 0) at byte 0 of it. */
static pp_status seg_prepare(pp_context *ctx, const pp_segmented_args *a, size_t out_elems, seg_call *c)
{
    const size_t n = a->n, sz = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {n ? a->in : NULL, n * sz, "in"},
                                     {a->out != a->in ? a->out : NULL, out_elems * sz, "out"},
                                     {a->offsets, (a->nseg + 1) * sizeof(uint64_t), "offsets"}));
    PP_OCL_STATUS(pp_ocl_seg_kernels(ctx, a->fn, a->type, a->op, c));
    c->offsets = pp_ocl_mem(a->offsets);
    c->nseg = a->nseg;
    if (n == 0) return PP_SUCCESS;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, work_bytes(c, n), a->fn, &c->work));
    static const unsigned char zero[16] = {0};
    PP_OCL_STATUS(pp_ocl_fill(ctx, a->fn, c->work, zero, sizeof zero, 0, round128(n)));
    cl_ulong n64 = n, zero64 = 0;
    return PP_OCL_LAUNCH(ctx, a->fn, c->heads, pp_ocl_groups_for(a->nseg, c->p.L), c->p.L,
                         PP_OCL_ARG(c->offsets), PP_OCL_ARG(c->nseg), PP_OCL_ARG(n64), PP_OCL_ARG(c->work),
                         PP_OCL_ARG(zero64));
}

pp_status pp_ocl_segmented_reduce(pp_context *ctx, const pp_segmented_args *a)
{
    seg_call c;
    PP_OCL_STATUS(seg_prepare(ctx, a, a->nseg, &c));
    cl_mem out = pp_ocl_mem(a->out);
    /* n == 0: every segment is empty, in and the carries are not read */
    cl_mem in = a->n ? pp_ocl_mem(a->in) : out, carries_mem = a->n ? c.work : out;
    size_t carries = 0;
    if (a->n > c.p.tile) PP_OCL_STATUS(seg_carries(&c, in, 0, 0, a->n, round128(a->n), &carries));
    cl_ulong n64 = a->n, c64 = carries;
    return PP_OCL_LAUNCH(ctx, a->fn, c.reduce_out, pp_ocl_groups_for(a->nseg, c.p.L), c.p.L, PP_OCL_ARG(in),
                         PP_OCL_ARG(n64), PP_OCL_ARG(c.offsets), PP_OCL_ARG(c.nseg), PP_OCL_ARG(carries_mem),
                         PP_OCL_ARG(c64), PP_OCL_ARG(out));
}

pp_status pp_ocl_segmented_scan(pp_context *ctx, const pp_segmented_args *a)
{
    if (a->n == 0) return PP_SUCCESS; /* every segment empty: nothing to write */
    seg_call c;
    PP_OCL_STATUS(seg_prepare(ctx, a, a->n, &c));
    const cl_uint flags = SEG_RANGE | (a->kind == PP_EXCLUSIVE ? SEG_EXCLUSIVE | SEG_RESET : 0);
    return seg_scan_level(&c, pp_ocl_mem(a->in), 0, 0, pp_ocl_mem(a->out), 0, a->n, flags, round128(a->n));
}
