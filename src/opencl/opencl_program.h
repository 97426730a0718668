/* OpenCL programs for the opencl backend (opencl_program.c): the embedded
 * .cl sources, the defines a program is built with, the per-context cache
 * of built programs and their kernels, work-group sizes, and launches. */
#ifndef PP_OPENCL_PROGRAM_H
#define PP_OPENCL_PROGRAM_H

#include "opencl_device.h"

/* ---- embedded sources (generated: cl_<name>.c and cl_registry.c) ------------------------ */
typedef struct pp_ocl_source {
    const char *name; /* base name of the .cl file: "reduce_scan" */
    const char *text; /* its text, NUL-terminated */
} pp_ocl_source;
extern const pp_ocl_source pp_ocl_sources[];
extern const size_t pp_ocl_source_count;
extern const char *const pp_ocl_prelude; /* common.cl */

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
/* Appends " " followed by the formatted text: a build option of the
 * device's compiler (pp_ocl_option(&d, "-cl-nv-maxrregcount=%d", 80)). */
void pp_ocl_option(pp_ocl_defines *d, const char *fmt, ...) PP_PRINTF(2, 3);
/* The element type; PP_ERROR_UNSUPPORTED (with a message naming fn) for f64
 * on a device without cl_khr_fp64. */
pp_status pp_ocl_def_type(pp_context *ctx, const char *fn, pp_ocl_defines *d, pp_type type);
/* IN_T: the OpenCL type of in_type (an integer or f32; the input type of
 * pp_reduce_to and pp_scan_to, reduce_scan.cl). */
void pp_ocl_def_in_type(pp_ocl_defines *d, pp_type in_type);
/* pp_ocl_def_type's check alone, for a primitive that must fail before it
 * writes anything. */
pp_status pp_ocl_check_type(pp_context *ctx, const char *fn, pp_type type);
/* The operator (after pp_ocl_def_type). */
void pp_ocl_def_op(pp_ocl_defines *d, pp_op op);
/* The comparison (after pp_ocl_def_type). */
void pp_ocl_def_cmp(pp_ocl_defines *d, pp_cmp cmp);

/* ---- the program cache ------------------------------------------------------------------------------ */
typedef struct pp_ocl_program pp_ocl_program; /* one built program and its kernels */

/* A context's programs: each (source, defines) is built on first use and
 * kept, with every cl_kernel made from it, until pp_destroy. */
typedef struct pp_ocl_program_cache {
    char base_options[128];      /* -cl-std and device defines, before every program's defines */
    pp_ocl_program *items;
    size_t count, cap;
} pp_ocl_program_cache;

/* An empty cache for a device with caps (pp_create). */
void pp_ocl_cache_init(pp_ocl_program_cache *cache, const pp_ocl_caps *caps);
/* Releases every program and kernel of the cache and empties it. */
void pp_ocl_cache_free(pp_ocl_program_cache *cache);

/* ---- kernels and work-group sizes --------------------------------------------------------------------- */
/* The kernel `name` of program `program` (a .cl base name) built with the
 * prelude and defs (NULL: none). Builds and caches on first use; a build
 * failure is PP_ERROR_BACKEND with the start of the build log in the
 * message; an unknown program is PP_ERROR_INTERNAL. *out is owned by the
 * context (never release it). */
pp_status pp_ocl_kernel(pp_context *ctx, const char *fn, const char *program, const pp_ocl_defines *defs,
                        const char *name, cl_kernel *out);
/* The kernels names[0..nk) of `program`, built with defs and "-DPP_L=<*L>"
 * (the work-group size every kernel of a program requires) for the widest
 * *L every one of them can run with on this device: *L (a power of two,
 * from pp_ocl_group_size) is halved until no kernel's
 * pp_ocl_kernel_max_group is below it, or it is 1. */
pp_status pp_ocl_kernels_fit(pp_context *ctx, const char *fn, const char *program, const pp_ocl_defines *defs,
                             const char *const *names, int nk, cl_kernel *kernels, size_t *L);
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

#endif
