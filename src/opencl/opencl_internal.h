/* The opencl backend's internal API, what its primitive files
 * (opencl_reduce_scan.c, opencl_histogram.c, opencl_select.c,
 * opencl_sort.c, opencl_exact.c, opencl_segmented.c,
 * opencl_segmented_exact.c) include: the context's state and memory
 * (opencl_backend.c) and, through opencl_program.h, opencl_device.h and
 * opencl_error.h, the rest of the backend.
 *
 * How a primitive runs on opencl
 * ------------------------------
 *   1. Build the defines of the call: pp_ocl_def_type (element type; fails
 *      with PP_ERROR_UNSUPPORTED for f64 on a device without cl_khr_fp64),
 *      then pp_ocl_def_op / pp_ocl_def_cmp and pp_ocl_def for anything else
 *      ("-DPP_ITEMS=8"). Each define becomes part of the program's build
 *      options; the prelude (common.cl, prepended to every program) turns
 *      them into T, U, W, pp_combine(), OP_NEUTRAL, pp_compare() ... (see
 *      the top of common.cl for the full list).
 *   2. pp_ocl_kernel(ctx, fn, "<program>", &defs, "<kernel>", &k), or
 *      pp_ocl_kernels_fit for several kernels at a work-group size they
 *      all run with: the program is the base name of a .cl file in
 *      src/opencl/ (embedded at build time: list it in PP_OPENCL_CL_FILES
 *      in src/opencl/CMakeLists.txt). The first call with given (program,
 *      defines) builds it (PoCL: ~0.1-1 s); the context caches the
 *      cl_program and every cl_kernel made from it, so later calls cost a
 *      string compare.
 *   3. Working memory: pp_ocl_scratch (one growable buffer per context;
 *      use element offsets into it, there is no pointer arithmetic on
 *      cl_mem).
 *   4. PP_OCL_LAUNCH(ctx, fn, k, groups, local, args...): sets the
 *      arguments and enqueues groups * local work-items (1-D) on the
 *      context's queue. Returns without waiting.
 *   Every failure goes through pp_fail with a message naming fn (a->fn,
 *   the public call), so a primitive just returns the status.
 *
 * Memory handles. Context memory is a cl_mem cast to void *: the core hands
 * the backend whole-buffer handles (offset 0, never pointer arithmetic:
 * the core checks overlap by handle equality on opencl). pp_ocl_mem()
 * turns a handle back into a cl_mem.
 *
 * Queue order. The context's queue is in order (ours, or one passed to
 * pp_set_stream that was checked to be in order), so launches of one
 * primitive run one after another and may share scratch without events.
 *
 * Threads. A context is used by one thread at a time (parprim.h), which is
 * what makes the cached cl_kernel objects safe: clSetKernelArg on one
 * cl_kernel from two threads at once would not be. Nothing here is
 * thread-safe across threads sharing one context.
 *
 * Sizes. n is size_t on the host and ulong in kernels (pass cl_ulong);
 * kernels index with size_t/ulong and loop grid-stride, so launches are
 * capped (pp_ocl_groups_for) and nothing overflows for n > 2^32.
 */
#ifndef PP_OPENCL_INTERNAL_H
#define PP_OPENCL_INTERNAL_H

#include "opencl_program.h"

#include <stdint.h>
#include <string.h>

/* ---- context state ------------------------------------------------------------------------- */
typedef struct pp_ocl_state {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue own_queue;  /* created by pp_create, in order */
    cl_command_queue queue;      /* where work goes: own_queue or pp_set_stream's (retained) */
    pp_ocl_caps caps;
    pp_ocl_program_cache programs;
    cl_mem scratch;              /* see pp_ocl_scratch */
    size_t scratch_bytes;
    void *op_cache;              /* the user operators' programs (opencl_operator.c) */
} pp_ocl_state;

/* Operators of the user's own (opencl_operator.c): the backend's slots, and
 * the release of their programs at pp_destroy. */
pp_status pp_ocl_operator_build(pp_context *ctx, pp_operator *op, const char *source);
pp_status pp_ocl_reduce_op(pp_context *ctx, const pp_op_reduce_args *a);
pp_status pp_ocl_scan_op(pp_context *ctx, const pp_op_scan_args *a);
pp_status pp_ocl_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_ocl_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a);
void pp_ocl_operators_free(pp_ocl_state *s);

static inline pp_ocl_state *pp_ocl(pp_context *ctx) { return (pp_ocl_state *)ctx->impl; }
static inline const pp_ocl_caps *pp_ocl_device_caps(pp_context *ctx) { return &pp_ocl(ctx)->caps; }
static inline cl_command_queue pp_ocl_queue(pp_context *ctx) { return pp_ocl(ctx)->queue; }
/* A context-memory handle (what pp_malloc returned) as the cl_mem it is. */
static inline cl_mem pp_ocl_mem(const void *handle) { return (cl_mem)(uintptr_t)handle; }

/* ---- memory -------------------------------------------------------------------------------------------------- */
/* The context's working memory: one cl_mem of at least bytes (kept and
 * reused by later calls, grown by a quarter more when too small; work
 * already queued that uses the old buffer keeps it alive). The handle is
 * valid until the next pp_ocl_scratch call. Out of memory (or more than
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE) is PP_ERROR_OUT_OF_MEMORY. bytes == 0 gives
 * a valid buffer too. */
pp_status pp_ocl_scratch(pp_context *ctx, size_t bytes, const char *fn, cl_mem *out);
/* PP_ERROR_INVALID_ARGUMENT unless handle is a cl_mem of the context whose
 * buffer holds at least bytes ("fn: argument 'name' holds 64 bytes, 400
 * are needed"). */
pp_status pp_ocl_check_size(pp_context *ctx, const char *fn, const void *handle, size_t bytes, const char *name);
/* One argument for pp_ocl_check_sizes; handle NULL: not checked (an
 * argument this call does not read or write). */
typedef struct pp_ocl_size_check {
    const void *handle;
    size_t bytes;
    const char *name;
} pp_ocl_size_check;
/* pp_ocl_check_size for each of checks[0..n) in order; the first failure. */
pp_status pp_ocl_check_sizes(pp_context *ctx, const char *fn, const pp_ocl_size_check *checks, int n);
/* PP_OCL_CHECK_SIZES(ctx, fn, {out, sz, "out"}, {n ? in : NULL, n * sz, "in"}) */
#define PP_OCL_CHECK_SIZES(ctx, fn, ...)                                                                  \
    pp_ocl_check_sizes((ctx), (fn), (const pp_ocl_size_check[]){__VA_ARGS__},                             \
                       (int)(sizeof((const pp_ocl_size_check[]){__VA_ARGS__}) / sizeof(pp_ocl_size_check)))
/* Fills bytes at byte offset of buf with a pattern of pattern_size bytes
 * (1, 2, 4, 8, ... 128; offset and bytes multiples of it), queued in order. */
pp_status pp_ocl_fill(pp_context *ctx, const char *fn, cl_mem buf, const void *pattern, size_t pattern_size,
                      size_t offset, size_t bytes);
/* The size bytes at p (1, 2, 4 or 8: a host value of an element type) as
 * an unsigned integer of that width. */
static inline uint64_t pp_ocl_bits_of(const void *p, size_t size)
{
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* ---- the primitives (one file each) -------------------------------------------------------------------------- */
pp_status pp_ocl_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_ocl_scan(pp_context *ctx, const pp_scan_args *a);                  /* reduce-then-scan */
pp_status pp_ocl_scan_blelloch_padded(pp_context *ctx, const pp_scan_args *a);
pp_status pp_ocl_histogram(pp_context *ctx, const pp_histogram_args *a);        /* private-atomic where it fits */
pp_status pp_ocl_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_ocl_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_ocl_select(pp_context *ctx, const pp_select_args *a);
pp_status pp_ocl_sort(pp_context *ctx, const pp_sort_args *a);                  /* Onesweep where it runs */
pp_status pp_ocl_sort_onesweep(pp_context *ctx, const pp_sort_args *a);         /* NVIDIA GPUs only */
pp_status pp_ocl_sort_count_scan_scatter(pp_context *ctx, const pp_sort_args *a);
pp_status pp_ocl_argsort(pp_context *ctx, const pp_argsort_args *a);               /* every sort algorithm; iota: argsort.cl */
pp_status pp_ocl_top_k(pp_context *ctx, const pp_top_k_args *a); /* the argsort's steps, the first k copied */
/* The index sequence 0 .. n-1 of index_type (PP_U32, PP_U64) into out
 * (argsort.cl), for core/argsort.c's pp_argsort_by_sort. */
pp_status pp_ocl_iota(pp_context *ctx, const char *fn, pp_type index_type, void *out, size_t n);
/* The sort's key map (opencl_sort.c, sort_keys.cl's radix_key): its XOR
 * for keys of type (ks bytes) in order (signed: the sign bit; descending:
 * every bit flipped too), and whether programs need PP_NAN_LAST (float
 * keys in PP_DESCENDING_NAN_LAST). */
cl_ulong pp_ocl_sort_xmask(pp_type type, size_t ks, pp_order order);
int pp_ocl_sort_nan_last(pp_type type, pp_order order);
/* pp_lower_bound, pp_upper_bound, pp_merge, pp_merge_pairs
 * (opencl_search.c, kernels search.cl). */
pp_status pp_ocl_search(pp_context *ctx, const pp_search_args *a);
pp_status pp_ocl_merge(pp_context *ctx, const pp_merge_args *a);
/* pp_reduce_to and pp_scan_to of converting pairs (opencl_reduce_scan.c:
 * reduce_scan.cl's kernels reading in_type, PP_IN_T), pp_argmin and
 * pp_argmax (opencl_arg.c, arg.cl). */
pp_status pp_ocl_reduce_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_ocl_scan_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_ocl_argminmax(pp_context *ctx, const pp_arg_args *a);
/* pp_segmented_sort(_pairs) (opencl_segsort.c, kernels segsort.cl): the
 * sort chosen for PP_PRIM_SORT, on (segment, key) through an argsort. */
pp_status pp_ocl_segmented_sort(pp_context *ctx, const pp_segsort_args *a);
/* PP_ALGO_EXACT (opencl_exact.c, kernels exact.cl): f32 and f64 PP_SUM
 * correctly rounded; every other type and operator the default's. */
pp_status pp_ocl_reduce_exact(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_ocl_scan_exact(pp_context *ctx, const pp_scan_args *a);
/* The half types' slots (opencl_half.c): PP_SUM reduce and scan exact
 * (the two above), PP_MIN / PP_MAX reduce and the sorts' keys (half.cl). */
pp_status pp_ocl_half_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_ocl_half_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_ocl_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out,
                           size_t n);
/* The exact_sum slot (pp_exact_accumulate): the reduce's fold, read back. */
pp_status pp_ocl_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc);
/* The exact program's kernels names[0..nk) for type (f32 or f64), built
 * at the work-group size *L that each of them and xfold_group's local
 * arrays can run with; defs (if not NULL): the program's defines, for more
 * kernels of it (pp_ocl_kernel). */
pp_status pp_ocl_exact_kernels(pp_context *ctx, const char *fn, pp_type type, const char *const *names, int nk,
                               cl_kernel *k, size_t *L, pp_ocl_defines *defs);
/* pp_segmented_reduce and pp_segmented_scan (opencl_segmented.c, kernels
 * in reduce_scan.cl): every algorithm but PP_ALGO_EXACT's f32/f64 sums. */
pp_status pp_ocl_segmented_reduce(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_ocl_segmented_scan(pp_context *ctx, const pp_segmented_args *a);
/* pp_reduce_by_key, pp_scan_by_key, pp_run_length_encode (opencl_bykey.c,
 * kernels bykey.cl and the segmented ones of reduce_scan.cl). */
pp_status pp_ocl_reduce_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_ocl_scan_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_ocl_run_length_encode(pp_context *ctx, const pp_bykey_args *a);

/* PP_ALGO_EXACT pp_segmented_reduce of f32 and f64 sums
 * (opencl_segmented_exact.c, kernels in exact.cl); the rest: the default. */
pp_status pp_ocl_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_ocl_half_segmented_scan(pp_context *ctx, const pp_segmented_args *a);

/* Reduce and scan on buffers at element offsets, for the other primitives
 * (counts, offsets): launches only, no allocation, no size checks. Working
 * memory is the caller's: `work` from element work_off on (elements of
 * `type`; it may be a region of the caller's pp_ocl_scratch buffer, apart
 * from everything else the call uses).
 *   pp_ocl_reduce_into: out[out_off] = in[in_off] op ... op in[in_off+n-1]
 *     (the identity for n == 0); needs PP_OCL_REDUCE_WORK work elements.
 *   pp_ocl_scan_into: the scan of pp_scan (default algorithm), in place
 *     allowed (in == out, in_off == out_off); needs the number of work
 *     elements pp_ocl_scan_work gives for (type, op, n) (0 when n fits one
 *     tile: work may then be NULL). An exclusive scan writes the API's
 *     identity at out[out_off]. */
#define PP_OCL_REDUCE_WORK 256
pp_status pp_ocl_reduce_into(pp_context *ctx, const char *fn, pp_type type, pp_op op, cl_mem in, size_t in_off,
                             size_t n, cl_mem out, size_t out_off, cl_mem work, size_t work_off);
pp_status pp_ocl_scan_work(pp_context *ctx, const char *fn, pp_type type, pp_op op, size_t n, size_t *elems);
pp_status pp_ocl_scan_into(pp_context *ctx, const char *fn, pp_type type, pp_op op, pp_scan_kind kind, cl_mem in,
                           size_t in_off, cl_mem out, size_t out_off, size_t n, cl_mem work, size_t work_off);

/* The shape of the reduce_scan program's kernels for one call. */
typedef struct pp_ocl_tile_plan {
    size_t size;  /* element size */
    size_t L;     /* work-group size: every kernel of the program requires it */
    size_t items; /* elements per work-item in a scan tile */
    size_t tile;  /* L * items */
} pp_ocl_tile_plan;
/* The kernels names[0..nk) of the reduce_scan program for (type, op),
 * built for the largest group size (up to the device's shape for these
 * kernels) that each of them can run with; their shape in *plan. */
pp_status pp_ocl_reduce_scan_kernels(pp_context *ctx, const char *fn, pp_type type, pp_op op,
                                     const char *const *names, int nk, cl_kernel *k, pp_ocl_tile_plan *plan);

/* The segmented machinery (opencl_segmented.c) on heads marked by the
 * caller, for the by-key forms: one byte per element (1 where a segment
 * starts) at byte heads_at of c->work, and the levels' working memory from
 * byte work_at of it (pp_ocl_seg_levels_bytes, a multiple of 128 bytes;
 * work_at a multiple of 128). */
typedef struct pp_ocl_seg {
    pp_context *ctx;
    const char *fn;
    cl_kernel heads, sums, tiles, reduce_out, reduce_runs;
    pp_ocl_tile_plan p;
    cl_mem work;     /* heads, then each level's pair totals (values, then heads) */
    cl_mem offsets;  /* nseg + 1 (seg_reduce_runs: n + 1) u64 at element 0 */
    cl_ulong nseg;
} pp_ocl_seg;
/* The kernels for (type, op) and their shape; work, offsets unset. */
pp_status pp_ocl_seg_kernels(pp_context *ctx, const char *fn, pp_type type, pp_op op, pp_ocl_seg *c);
/* Working bytes of the levels for n elements (after the heads). */
size_t pp_ocl_seg_levels_bytes(const pp_ocl_seg *c, size_t n);
/* out = the scan of in restarting at each head (n > 0; in == out allowed). */
pp_status pp_ocl_seg_scan(const pp_ocl_seg *c, cl_mem in, cl_mem out, size_t n, pp_scan_kind kind, size_t heads_at,
                          size_t work_at);
/* out[s] = the fold of segment s of in for s < min(nseg_at[0], n), read on
 * the device; segment s is [c->offsets[s], c->offsets[s + 1]) and starts
 * at a head (n > 0). */
pp_status pp_ocl_seg_reduce_runs(const pp_ocl_seg *c, cl_mem in, size_t n, size_t heads_at, size_t work_at,
                                 cl_mem nseg_at, cl_mem out);

#endif
