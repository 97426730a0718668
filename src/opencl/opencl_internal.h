/* The opencl backend's internal API, shared by its primitive files
 * (opencl_reduce_scan.c, opencl_histogram.c, opencl_select.c,
 * opencl_sort.c) and implemented in opencl_backend.c.
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
 *   2. pp_ocl_kernel(ctx, fn, "<program>", &defs, "<kernel>", &k): the
 *      program is the base name of a .cl file in src/opencl/ (embedded at
 *      build time: list it in PP_OPENCL_CL_FILES in CMakeLists.txt). The
 *      first call with given (program, defines) builds it (PoCL: ~0.1-1 s);
 *      the context caches the cl_program and every cl_kernel made from it,
 *      so later calls cost a string compare.
 *   3. Working memory: pp_ocl_scratch (one growable buffer per context;
 *      use element offsets into it, there is no pointer arithmetic on
 *      cl_mem).
 *   4. PP_OCL_LAUNCH(ctx, fn, k, groups, local, args...): sets the
 *      arguments and enqueues groups * local work-items (1-D) on the
 *      context's queue. Returns without waiting.
 *   Every failure goes through pp_fail with a message naming fn, so a
 *   primitive just returns the status.
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

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#include "internal.h"

#include <stdint.h>

/* ---- embedded sources (generated: cl_<name>.c and cl_registry.c) ------------------------ */
typedef struct pp_ocl_source {
    const char *name; /* base name of the .cl file: "reduce_scan" */
    const char *text; /* its text, NUL-terminated */
} pp_ocl_source;
extern const pp_ocl_source pp_ocl_sources[];
extern const size_t pp_ocl_source_count;
extern const char *const pp_ocl_prelude; /* common.cl */

/* ---- device capabilities (queried once at pp_create) ------------------------------------- */
typedef struct pp_ocl_caps {
    cl_device_type type;         /* CL_DEVICE_TYPE_GPU, _CPU, ... */
    size_t max_work_group;       /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_work_item0;       /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    cl_ulong local_mem;          /* CL_DEVICE_LOCAL_MEM_SIZE, bytes */
    cl_uint compute_units;       /* CL_DEVICE_MAX_COMPUTE_UNITS */
    cl_ulong max_alloc;          /* CL_DEVICE_MAX_MEM_ALLOC_SIZE, bytes */
    cl_ulong global_mem;         /* CL_DEVICE_GLOBAL_MEM_SIZE, bytes */
    cl_uint base_align;          /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes (sub-buffer origins) */
    int fp64;                    /* cl_khr_fp64 */
    int int64_atomics;           /* cl_khr_int64_base_atomics (global 64-bit atom_add, ...) */
    int c_major, c_minor;        /* OpenCL C version (CL_DEVICE_OPENCL_C_VERSION) */
} pp_ocl_caps;

/* ---- context state ------------------------------------------------------------------------- */
typedef struct pp_ocl_program pp_ocl_program; /* a cache entry (opencl_backend.c) */

typedef struct pp_ocl_state {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue own_queue;  /* created by pp_create, in order */
    cl_command_queue queue;      /* where work goes: own_queue or pp_set_stream's (retained) */
    pp_ocl_caps caps;
    char base_options[128];      /* -cl-std and device defines, before every program's defines */
    cl_mem scratch;              /* see pp_ocl_scratch */
    size_t scratch_bytes;
    pp_ocl_program *programs;    /* the program cache */
    size_t nprograms, cap_programs;
} pp_ocl_state;

static inline pp_ocl_state *pp_ocl(pp_context *ctx) { return (pp_ocl_state *)ctx->impl; }
static inline const pp_ocl_caps *pp_ocl_device_caps(pp_context *ctx) { return &pp_ocl(ctx)->caps; }
static inline cl_command_queue pp_ocl_queue(pp_context *ctx) { return pp_ocl(ctx)->queue; }
/* A context-memory handle (what pp_malloc returned) as the cl_mem it is. */
static inline cl_mem pp_ocl_mem(const void *handle) { return (cl_mem)(uintptr_t)handle; }

/* ---- errors ------------------------------------------------------------------------------------ */
/* "CL_INVALID_VALUE", ...; "CL_UNKNOWN_ERROR" for codes outside OpenCL 1.2's list. */
const char *pp_ocl_error_name(cl_int err);
/* Records "fn: what failed: CL_NAME (code)" and returns PP_ERROR_BACKEND, or
 * PP_ERROR_OUT_OF_MEMORY for CL_MEM_OBJECT_ALLOCATION_FAILURE and
 * CL_OUT_OF_HOST_MEMORY (an allocation made lazily by the driver). */
pp_status pp_ocl_error(pp_context *ctx, cl_int err, const char *fn, const char *what);
/* The same for an allocation call (clCreateBuffer): CL_OUT_OF_RESOURCES
 * and CL_INVALID_BUFFER_SIZE are out of memory too. */
pp_status pp_ocl_alloc_error(pp_context *ctx, cl_int err, const char *fn, const char *what);
#define PP_OCL_TRY(ctx, call, fn, what)                                  \
    do {                                                                 \
        cl_int e_ = (call);                                              \
        if (e_ != CL_SUCCESS) return pp_ocl_error((ctx), e_, (fn), (what)); \
    } while (0)
#define PP_OCL_STATUS(call)                      \
    do {                                         \
        pp_status st_ = (call);                  \
        if (st_ != PP_SUCCESS) return st_;       \
    } while (0)

/* ---- defines: the build options of a program ------------------------------------------------------
 * Every define is passed as -DPP_<NAME>=<value>; the prelude (common.cl)
 * maps them to the short names kernels use (T, U, W, T_SIZE, OP_SUM, ...),
 * because a -D macro with a short name could collide with identifiers in
 * the driver's built-in headers.
 *
 * pp_ocl_def_type(type) defines (after the prelude's mapping):
 *   T            the element type (char, uchar, short, ..., ulong, float, double)
 *   U            the unsigned integer of the same width (a key's bits)
 *   W            the unsigned type integer arithmetic is done in (uint or ulong)
 *   T_SIZE       sizeof(T); T_BITS = 8 * T_SIZE
 *   T_KIND       PP_KIND_SINT (0), PP_KIND_UINT (1) or PP_KIND_FLOAT (2)
 *   T_IS_SIGNED, T_IS_FLOAT, T_IS_F64   0 or 1
 *   T_VEC        16 / T_SIZE: elements in a 16-byte vector (vloadn)
 * pp_ocl_def_op(op): OP (its pp_op value) and OP_SUM / OP_PROD / OP_MIN /
 *   OP_MAX / OP_AND / OP_OR / OP_XOR = 1 for that one; the prelude then
 *   gives pp_combine(a, b), OP_NEUTRAL (exact neutral element: -0.0 for a
 *   float sum) and OP_IDENTITY (what the API writes as "the identity":
 *   +0.0 for a float sum).
 * pp_ocl_def_cmp(cmp): CMP and CMP_LT ... CMP_NE = 1; the prelude gives
 *   pp_compare(x, v) = C's (x cmp v) (NaN selected only by NE).
 * Every program also gets, from the device: PP_HAS_FP64 and
 * PP_HAS_INT64_ATOMICS (0 or 1; the prelude enables the extensions).
 */
typedef struct pp_ocl_defines {
    char text[480];
    int overflow; /* set when text was too short: pp_ocl_kernel then fails (PP_ERROR_INTERNAL) */
} pp_ocl_defines;

#define PP_OCL_DEFINES_INIT {"", 0}
/* Appends " -DPP_" followed by the formatted text: pp_ocl_def(&d, "ITEMS=%d", 8). */
void pp_ocl_def(pp_ocl_defines *d, const char *fmt, ...) PP_PRINTF(2, 3);
/* The element type; PP_ERROR_UNSUPPORTED (with a message naming fn) for f64
 * on a device without cl_khr_fp64. */
pp_status pp_ocl_def_type(pp_context *ctx, const char *fn, pp_ocl_defines *d, pp_type type);
/* The operator (after pp_ocl_def_type). */
void pp_ocl_def_op(pp_ocl_defines *d, pp_op op);
/* The comparison (after pp_ocl_def_type). */
void pp_ocl_def_cmp(pp_ocl_defines *d, pp_cmp cmp);
/* OpenCL C name of a type's elements ("uchar", "double"). */
const char *pp_ocl_type_name(pp_type type);

/* ---- programs and kernels --------------------------------------------------------------------------- */
/* The kernel `name` of program `program` (a .cl base name) built with the
 * prelude and defs (NULL: none). Builds and caches on first use; a build
 * failure is PP_ERROR_BACKEND with the start of the build log in the
 * message; an unknown program is PP_ERROR_INTERNAL. *out is owned by the
 * context (never release it). */
pp_status pp_ocl_kernel(pp_context *ctx, const char *fn, const char *program, const pp_ocl_defines *defs,
                        const char *name, cl_kernel *out);
/* The largest work-group size the kernel can run with on this device
 * (CL_KERNEL_WORK_GROUP_SIZE, at most the device's); 0 if the query fails. */
size_t pp_ocl_kernel_max_group(pp_context *ctx, cl_kernel k);
/* The largest power of two <= want, <= the device's work-group and
 * work-item limits (at least 1). */
size_t pp_ocl_group_size(pp_context *ctx, size_t want);
/* Work-groups for `work` units of `per_group` each, at least 1 and at most
 * PP_OCL_MAX_GROUPS (kernels then loop grid-stride). */
#define PP_OCL_MAX_GROUPS ((size_t)1 << 16)
size_t pp_ocl_groups_for(size_t work, size_t per_group);

/* ---- launches -------------------------------------------------------------------------------------------- */
/* One kernel argument: size and address of its value (a cl_mem, cl_ulong,
 * cl_int, ...: the host type must have the size of the kernel's parameter),
 * or a __local buffer of `size` bytes (value NULL). */
typedef struct pp_ocl_arg {
    size_t size;
    const void *value;
} pp_ocl_arg;
#define PP_OCL_ARG(v) {sizeof(v), &(v)}
#define PP_OCL_LOCAL(bytes) {(bytes), NULL}
/* Sets the nargs arguments of k and enqueues groups * local work-items
 * (1-D, local work-group size `local`) on the context's queue. Errors name
 * fn and the kernel: "pp_scan: clEnqueueNDRangeKernel(scan_tiles) failed:
 * CL_INVALID_WORK_GROUP_SIZE (-54)". */
pp_status pp_ocl_launch(pp_context *ctx, const char *fn, cl_kernel k, size_t groups, size_t local,
                        const pp_ocl_arg *args, int nargs);
/* PP_OCL_LAUNCH(ctx, fn, k, groups, local, PP_OCL_ARG(in), PP_OCL_ARG(n), ...) */
#define PP_OCL_LAUNCH(ctx, fn, k, groups, local, ...)                                          \
    pp_ocl_launch((ctx), (fn), (k), (groups), (local), (const pp_ocl_arg[]){__VA_ARGS__},     \
                  (int)(sizeof((const pp_ocl_arg[]){__VA_ARGS__}) / sizeof(pp_ocl_arg)))

/* ---- memory -------------------------------------------------------------------------------------------------- */
/* The context's working memory: one cl_mem of at least bytes (kept and
 * reused by later calls, grown by a quarter more when too small; work
 * already queued that uses the old buffer keeps it alive). The handle is
 * valid until the next pp_ocl_scratch call. Out of memory (or more than
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE) is PP_ERROR_OUT_OF_MEMORY. bytes == 0 gives
 * a valid buffer too. */
pp_status pp_ocl_scratch(pp_context *ctx, size_t bytes, const char *fn, cl_mem *out);
/* PP_ERROR_INVALID_ARGUMENT unless the buffer behind handle holds at least
 * bytes ("fn: argument 'name' holds 64 bytes, 400 are needed"). */
pp_status pp_ocl_check_size(pp_context *ctx, const char *fn, const void *handle, size_t bytes, const char *name);
/* Fills bytes at byte offset of buf with a pattern of pattern_size bytes
 * (1, 2, 4, 8, ... 128; offset and bytes multiples of it), queued in order. */
pp_status pp_ocl_fill(pp_context *ctx, const char *fn, cl_mem buf, const void *pattern, size_t pattern_size,
                      size_t offset, size_t bytes);

/* ---- the primitives (one file each) -------------------------------------------------------------------------- */
pp_status pp_ocl_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_ocl_scan(pp_context *ctx, const pp_scan_args *a);                  /* reduce-then-scan */
pp_status pp_ocl_scan_blelloch_padded(pp_context *ctx, const pp_scan_args *a);
pp_status pp_ocl_histogram(pp_context *ctx, const pp_histogram_args *a);        /* private-atomic where it fits */
pp_status pp_ocl_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_ocl_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_ocl_select(pp_context *ctx, const pp_select_args *a);
pp_status pp_ocl_sort(pp_context *ctx, const pp_sort_args *a);

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

/* The API function a call came from, for messages. */
#endif
