/*
 * parprim: data-parallel primitives with one C API on every backend.
 *
 * This header is the manual: what a caller can rely on (residency,
 * aliasing, determinism, errors, semantics). It compiles as C99, C11 and
 * C++. How each backend does its work (tiles, launches, work-groups,
 * scratch layout), which may change from one version to the next:
 * docs/backends.md; the algorithms of pp_set_algorithm: docs/algorithms.md.
 * One file past the 600-line rule on purpose: the whole manual in one place,
 * every call beside the promises it shares with the others.
 *
 * ---------------------------------------------------------------------------
 * General rules (they hold for every function unless its comment says more)
 * ---------------------------------------------------------------------------
 * Status.     Every function that can fail returns a pp_status. On failure
 *             the context keeps a message naming the call and the argument
 *             that was wrong (pp_last_error). The library never aborts,
 *             never prints and never calls exit().
 * Checks.     All arguments are checked before any work starts. A call that
 *             returns an error other than PP_ERROR_BACKEND has written
 *             nothing: outputs and in-place data are as they were.
 * Residency.  Every array argument of a primitive lives in the context's
 *             memory ("device memory"): ordinary host memory on the cpu
 *             backend, a device pointer on cuda, a cl_mem handle cast to
 *             void * on opencl. pp_malloc returns such memory on every
 *             backend. Scalar parameters (lower, upper, value, edges) are
 *             host pointers to values of the element type. Arrays must be
 *             aligned to their element size (pp_malloc memory is; edges,
 *             a host array, too); a misaligned array is
 *             PP_ERROR_INVALID_ARGUMENT.
 * Sizes.      Element counts are size_t (64-bit on every supported
 *             platform); inputs of more than 2^31 elements are supported.
 *             n == 0 is always valid: reduce writes the identity, counts
 *             become 0, nothing else is touched; the input and output
 *             arrays may then be NULL (not what is still written: reduce's
 *             out, histogram counts, compaction's count).
 * Arithmetic. Integer arithmetic wraps (two's complement), with no undefined
 *             behaviour. Identities: SUM 0 (+0.0 for floats), PROD 1, MIN
 *             the type's largest value (+inf for floats), MAX the smallest
 *             (-inf), AND all ones, OR and XOR 0. AND, OR and XOR exist on
 *             integer types only (PP_ERROR_UNSUPPORTED on floats). MIN and
 *             MAX propagate NaN: any NaN in the input makes the result NaN
 *             (in a scan, every output from the first NaN on); they order
 *             -0.0 below +0.0, so that they are exactly associative and
 *             commutative. A float SUM of zeros has the sign that IEEE
 *             addition in input order gives: -0.0 if every element summed
 *             is -0.0 (and there is at least one), else +0.0. So reduce of
 *             all -0.0 is -0.0, of any mix with a +0.0 is +0.0, of n == 0
 *             the identity +0.0; a scan's outputs follow the same rule for
 *             their prefixes, and an exclusive scan's out[0] is +0.0. This
 *             holds on every backend and algorithm.
 * Ordering.   cpu calls are complete when they return. GPU calls are queued
 *             in order on the context's stream or queue and may return
 *             before they finish; pp_download, pp_upload and
 *             pp_synchronize wait for everything queued before them.
 *             Host arguments (lower, upper, value, edges) are read before a
 *             call returns, so they may be reused at once. Results that are
 *             single values (reduce's out, a histogram's counts,
 *             compaction's count) are written by the device: no call waits
 *             for the GPU to hand a value to the host.
 * cuda.       Every primitive runs without host synchronization, allocation
 *             or device-wide synchronization once the context's scratch has
 *             grown to the size needed (it is reused by later calls). Work
 *             goes to the context's stream (pp_set_stream).
 * opencl.     Arrays are whole cl_mem buffers: an array starts at offset 0
 *             of its buffer, there is no pointer arithmetic on handles, and
 *             overlap is checked by handle equality (sub-buffers of one
 *             buffer are arrays of their own; an overlap between them is
 *             not detected). A buffer smaller than an array needs, or a
 *             cl_mem of another cl_context, is PP_ERROR_INVALID_ARGUMENT;
 *             one array is at most the device's
 *             CL_DEVICE_MAX_MEM_ALLOC_SIZE (PP_ERROR_OUT_OF_MEMORY beyond).
 *             Kernels are compiled the first time a context needs them
 *             (once per type and operator, then cached by the context), so
 *             a context's first call of a kind takes longer than later
 *             ones. f64 needs the cl_khr_fp64 extension (else
 *             PP_ERROR_UNSUPPORTED; not for sorting, which moves bits
 *             only). Work goes, in order, to the context's command queue
 *             (pp_set_stream). A primitive only queues its work: none
 *             waits for the device. No primitive relies on work-groups
 *             making progress concurrently (which OpenCL does not promise:
 *             a CPU device may run them one after another), except
 *             PP_ALGO_ONESWEEP, which runs only on NVIDIA GPUs, where it
 *             holds as on cuda (docs/backends.md, opencl).
 * Threads.    A context may be used by one thread at a time. Distinct
 *             contexts may be used from different threads at once (except
 *             opencl contexts on PoCL, whose shared kernel cache can abort
 *             the process then: docs/backends.md).
 * Memory.     A context owns reusable scratch memory; if it cannot get it
 *             the call returns PP_ERROR_OUT_OF_MEMORY and in-place data is
 *             left as it was.
 */
#ifndef PARPRIM_H
#define PARPRIM_H

#include <stddef.h>
#include <stdint.h>

/* PP_API marks the functions the library exports: the functions of this
 * header are its whole binary interface, everything else in it is hidden.
 * The library's own build defines PP_BUILDING; on Windows, a program that
 * links the static library defines PP_STATIC (the CMake target
 * parprim::parprim_static does that for it). Define PP_API before including
 * this header to override it. */
#ifndef PP_API
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(PP_STATIC)
#define PP_API
#elif defined(PP_BUILDING)
#define PP_API __declspec(dllexport)
#else
#define PP_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define PP_API __attribute__((visibility("default")))
#else
#define PP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PP_VERSION_MAJOR 0
#define PP_VERSION_MINOR 1
#define PP_VERSION_PATCH 0
/** The version as MAJOR * 10000 + MINOR * 100 + PATCH. */
#define PP_VERSION_NUMBER (PP_VERSION_MAJOR * 10000 + PP_VERSION_MINOR * 100 + PP_VERSION_PATCH)

/** Version of the library actually linked, as PP_VERSION_NUMBER. */
PP_API unsigned pp_version(void);

/* ------------------------------------------------------------------------ */
/* Status codes (pinned values)                                             */
/* ------------------------------------------------------------------------ */
typedef enum pp_status {
    PP_SUCCESS = 0,
    PP_ERROR_INVALID_ARGUMENT = 1,   /* a NULL, an enum out of range, a bad size, overlap */
    PP_ERROR_UNSUPPORTED = 2,        /* valid request this backend or algorithm cannot serve */
    PP_ERROR_OUT_OF_MEMORY = 3,      /* host or device memory could not be allocated */
    PP_ERROR_BACKEND_UNAVAILABLE = 4,/* backend built in, but no usable device */
    PP_ERROR_BACKEND = 5,            /* the backend's runtime reported an error */
    PP_ERROR_INTERNAL = 6            /* a bug in parprim: please report it */
} pp_status;

/** A static English description of a status; never NULL ("unknown status"
 *  for values outside the enum). */
PP_API const char *pp_status_string(pp_status status);

/* ------------------------------------------------------------------------ */
/* Element types and operators                                              */
/* ------------------------------------------------------------------------ */
typedef enum pp_type {
    PP_I8 = 0, PP_U8 = 1, PP_I16 = 2, PP_U16 = 3, PP_I32 = 4,
    PP_U32 = 5, PP_I64 = 6, PP_U64 = 7, PP_F32 = 8, PP_F64 = 9,
    PP_F16 = 10, PP_BF16 = 11
} pp_type;
#define PP_TYPE_COUNT 12
/*
 * Half precision. PP_F16 is IEEE 754 binary16 (1 sign, 5 exponent, 10
 * fraction bits), PP_BF16 is bfloat16 (the top 16 bits of an f32: 1, 8,
 * 7); an element is its 16 bits as a uint16_t in memory (2 bytes, aligned
 * to 2), so no compiler half type is needed to call the library. Every f16
 * and bf16 value is exactly an f32 value.
 * What takes them today (phase 1; every other call, operator and
 * primitive returns PP_ERROR_UNSUPPORTED with a message naming the call
 * and the type, on every backend, never a wrong answer):
 *   pp_reduce with PP_SUM, PP_MIN or PP_MAX; pp_scan with PP_SUM;
 *   pp_sort, pp_sort_copy, pp_sort_pairs, pp_sort_pairs_copy and
 *   pp_argsort, in the order of f32 keys (NumPy's: -0.0 before +0.0,
 *   every NaN last ascending, first in PP_DESCENDING, last in
 *   PP_DESCENDING_NAN_LAST; NaNs in input order), stable, the bits moved
 *   unchanged; pp_lower_bound, pp_upper_bound, pp_merge and
 *   pp_merge_pairs in the same order; pp_top_k in that order, as the
 *   first k of such a sort (with indices, of an argsort too: ties by
 *   input position; n keys and n u64 indices of working memory) (every
 *   backend);
 *   pp_segmented_reduce and pp_segmented_scan with PP_SUM: each segment's
 *   sums exact and rounded once, as pp_reduce's and pp_scan's below (an
 *   empty segment: +0.0), whatever algorithm is chosen (on cuda and
 *   opencl the segmented scan is a thread's loop per segment: slow for few
 *   long segments);
 *   pp_scan_init with PP_SUM: out[i] the exact sum of init and in[0 ..
 *   i] rounded once (exclusive: of init and in[0 .. i-1]; out[0] is init
 *   itself);
 *   pp_scan and pp_scan_init with PP_MIN or PP_MAX, pp_segmented_reduce
 *   and pp_segmented_scan with PP_MIN or PP_MAX (empty segments: +inf,
 *   -inf), pp_argmin and pp_argmax, pp_histogram_even and
 *   pp_histogram_range, pp_select_flagged, pp_select_if, pp_unique and
 *   pp_partition_if: the results of the f32 call on the same values
 *   (every half value is an f32 value, so comparisons, bins and positions
 *   are exact: C's comparisons for compaction, -0.0 == +0.0 and NaN never
 *   equal; the histograms' documented expression with the bounds or edges
 *   of the half type, checked as f32's), the elements returned with their
 *   bits unchanged (NaN payloads kept) by compaction, MIN and MAX giving
 *   the quiet NaN as pp_reduce does. These take 4 bytes of working memory
 *   per element (and per output element) besides the f32 call's, and two
 *   passes more than it; pp_select_flagged moves the bits as u16;
 *   half values summed (PP_SUM) by pp_reduce_by_key and pp_scan_by_key,
 *   each run's sums exact and rounded once (an exclusive scan's first of
 *   a run: +0.0); on cuda and opencl these read the run count back (one
 *   host synchronization, unlike the other by-key calls) and take 8
 *   bytes of working memory per element (pp_scan_by_key: and a key);
 *   half keys in pp_reduce_by_key and pp_scan_by_key, and
 *   pp_run_length_encode of a half type: runs of
 *   equal neighbours by C's == (NaNs never equal, -0.0 == +0.0), each
 *   run's first key with its bits (the keys widened to f32 as above);
 *   pp_segmented_sort and pp_segmented_sort_pairs in pp_sort's order;
 *   pp_reduce_to and pp_scan_to to f32 or f64 (the values widened, then
 *   folded in that type as pp_reduce_to says)
 *   (every backend). The sorts cost
 *   about a 16-bit integer sort of pairs (two with values or indices)
 *   plus a pass over the keys, and take about 2n bytes (4n with values)
 *   besides the sort's scratch; search and merge take 2 bytes per key
 *   (and per query) of working memory.
 * Sums are exact on every backend, whatever pp_set_algorithm chose (there
 * is no algorithm to choose): out is the exact sum of the inputs (for a
 * scan, of each prefix) rounded once to the half format, to nearest with
 * ties to even (never rounded through f32: 70000 bf16 ones give 70144,
 * the bf16 nearest to 70000), with the special values and signs of zero
 * of an exact f32 sum (pp_reduce): a NaN input, or both infinities, gives
 * the quiet NaN 0x7E00 (f16) / 0x7FC0 (bf16); else an infinite input gives
 * that infinity; else a sum whose rounding overflows gives the infinity of
 * its sign; an exact zero is -0.0 if every input is -0.0, else +0.0 (n ==
 * 0: +0.0); an exclusive scan's out[0] is +0.0. The bits are identical on
 * every backend, device, thread count and run (docs/exact.md). On cpu and
 * opencl the scans round every prefix from the exact accumulator: correct,
 * but far slower per element than the f32 exact scan.
 * PP_MIN / PP_MAX order -0.0 below +0.0, and any NaN input gives the quiet
 * NaN above (the identities: +inf, -inf).
 */

/** Size in bytes of one element; 0 for a value outside pp_type. */
PP_API size_t pp_type_size(pp_type type);
/** "i8", "u8", ..., "f64"; "?" for a value outside pp_type. */
PP_API const char *pp_type_name(pp_type type);

typedef enum pp_op {
    PP_SUM = 0, PP_PROD = 1, PP_MIN = 2, PP_MAX = 3,
    PP_AND = 4, PP_OR = 5, PP_XOR = 6
} pp_op;
#define PP_OP_COUNT 7

/** "sum", "prod", ...; "?" for a value outside pp_op. */
PP_API const char *pp_op_name(pp_op op);

/* ------------------------------------------------------------------------ */
/* Backends and contexts                                                    */
/* ------------------------------------------------------------------------ */
typedef enum pp_backend {
    PP_BACKEND_AUTO = 0, PP_BACKEND_CPU = 1, PP_BACKEND_CUDA = 2, PP_BACKEND_OPENCL = 3
} pp_backend;

/** "auto", "cpu", "cuda", "opencl"; "?" outside the enum. */
PP_API const char *pp_backend_name(pp_backend backend);

/** Whether a backend can be used here: PP_SUCCESS if a context of it can be
 *  created, PP_ERROR_UNSUPPORTED if this build of the library does not
 *  contain it, PP_ERROR_BACKEND_UNAVAILABLE if it is built in but finds no
 *  device, PP_ERROR_INVALID_ARGUMENT outside the enum. For PP_BACKEND_AUTO,
 *  always PP_SUCCESS (the cpu backend is always present). */
PP_API pp_status pp_backend_status(pp_backend backend);

typedef struct pp_options {
    size_t size;        /* sizeof(pp_options): lets the struct grow compatibly */
    pp_backend backend; /* PP_BACKEND_AUTO: CUDA, then an OpenCL GPU, then CPU */
    int device;         /* device index, >= 0 (unused on cpu). cuda: the CUDA device.
                           opencl: devices of every type counted over all platforms,
                           in platform order (as clGetPlatformIDs, then
                           clGetDeviceIDs(CL_DEVICE_TYPE_ALL), list them) */
    int threads;        /* cpu threads; 0 means all cores (OpenMP's default count) */
} pp_options;

/** Initializer for pp_options: `pp_options o = PP_OPTIONS_INIT;` */
#define PP_OPTIONS_INIT { sizeof(pp_options), PP_BACKEND_AUTO, 0, 0 }

typedef struct pp_context pp_context;

/**
 * Creates a context. opt may be NULL (all defaults).
 * Backend choice: an explicit opt->backend is used as given. With
 * PP_BACKEND_AUTO the environment variable PARPRIM_BACKEND (cpu, cuda or
 * opencl) decides if set; otherwise CUDA, then OpenCL if opt->device is a
 * GPU (not a CPU OpenCL device such as PoCL's: cpu serves those better),
 * then cpu.
 * Returns PP_ERROR_UNSUPPORTED for a backend not built into this library,
 * PP_ERROR_BACKEND_UNAVAILABLE where it finds no device,
 * PP_ERROR_INVALID_ARGUMENT for bad options or a bad PARPRIM_BACKEND value.
 * On failure *ctx is set to NULL and pp_last_error(NULL) describes why (in
 * the calling thread).
 */
PP_API pp_status pp_create(pp_context **ctx, const pp_options *opt);

/** Destroys a context and its scratch memory; NULL is fine. Memory from
 *  pp_malloc must be freed before. */
PP_API void pp_destroy(pp_context *ctx);

/** The backend the context runs on (never PP_BACKEND_AUTO). */
PP_API pp_backend pp_context_backend(const pp_context *ctx);

/** Worker threads the cpu backend uses; 0 on GPU backends. */
PP_API int pp_context_threads(const pp_context *ctx);

/** A static description of the device, e.g. "CPU, 16 OpenMP threads". */
PP_API const char *pp_context_device_name(const pp_context *ctx);

/** The message of the last failed call on ctx, naming the call and the
 *  argument or cause ("pp_scan: argument 'out' overlaps 'in'"); "" if no call
 *  on ctx has failed yet. Never NULL.
 *  A failed call replaces the message; a successful call leaves it as it is
 *  (like errno): after a success it still describes the last failure, which
 *  may be older. So read it when a call has returned an error, not to find
 *  out whether one did.
 *  With ctx == NULL: the same for the calls of the calling thread that had
 *  no context to keep their message: a failed pp_create, or any call given
 *  ctx == NULL.
 *  The pointer stays valid until pp_destroy(ctx) (with ctx == NULL: for the
 *  life of the thread); its text changes only when a call fails. */
PP_API const char *pp_last_error(const pp_context *ctx);

/** Sets the native stream the context queues its work on: a cudaStream_t on
 *  cuda, a cl_command_queue on opencl (NULL restores the context's own).
 *  Work already queued on the previous stream is waited for first, since all
 *  work of a context shares its scratch memory. The stream must outlive its
 *  use by the context. Ignored on cpu (returns PP_SUCCESS).
 *  opencl: the queue must be an in-order queue of the context's cl_context
 *  and device, else PP_ERROR_INVALID_ARGUMENT (get the cl_context with
 *  clGetMemObjectInfo(CL_MEM_CONTEXT) on memory from pp_malloc, its one
 *  device with clGetContextInfo(CL_CONTEXT_DEVICES)). The context retains
 *  the queue (clRetainCommandQueue) until it is replaced or destroyed.
 *  CUDA graphs (cuda): a primitive called while the context's stream is
 *  being captured returns PP_ERROR_UNSUPPORTED and queues nothing, since a
 *  replayed graph would reuse values that each call sets afresh
 *  (docs/backends.md, cuda); call primitives outside a capture.
 *  Switching away from a stream under capture needs no wait, unless
 *  parprim work was queued on it before the capture began and not waited
 *  for (pp_synchronize): then PP_ERROR_UNSUPPORTED. */
PP_API pp_status pp_set_stream(pp_context *ctx, void *native_stream);

/** *native_stream = the native stream the context queues its work on: the
 *  cudaStream_t on cuda (the one given to pp_set_stream, else the context's
 *  own, never the legacy default stream), the cl_command_queue on opencl
 *  (not retained for the caller), NULL on cpu, whose calls finish before
 *  they return. Valid until the next pp_set_stream or pp_destroy. Every
 *  call queues its device work on that stream in call order, so work the
 *  caller queues there after a call (a cudaMemcpyAsync, an NCCL
 *  collective, an event) runs after that call's work, and a call's work
 *  runs after what was queued there before it: ordering without a host
 *  synchronization. native_stream NULL: PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_context_stream(const pp_context *ctx, void **native_stream);

/** Waits until all work queued on the context is complete. */
PP_API pp_status pp_synchronize(pp_context *ctx);

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */
/** The memory of a context's device, in bytes (pp_context_memory). */
typedef struct pp_memory_info {
    uint64_t total_bytes;     /* the device's memory (cpu: physical memory) */
    uint64_t available_bytes; /* free now as far as the backend can tell; 0 if it cannot tell */
    uint64_t max_alloc_bytes; /* the largest single pp_malloc the device allows */
} pp_memory_info;

/** Fills *info (host memory) with what the context's device has of memory,
 *  so that a caller can size its work before allocating. NULL ctx or info
 *  is PP_ERROR_INVALID_ARGUMENT (*info unchanged; a failure's message is
 *  kept for pp_last_error as for any call). It queues no work.
 *  The values are the backend's view when the call is made, not a promise:
 *  other processes, and this context's buffers and scratch memory (see
 *  Memory at the top), use the same memory. Always 0 < total_bytes,
 *  max_alloc_bytes <= total_bytes and available_bytes <= total_bytes.
 *  cpu:    total_bytes is the physical memory (sysconf), available_bytes
 *          the kernel's estimate of the memory available to new
 *          allocations (MemAvailable of /proc/meminfo; where that cannot be
 *          read, the free pages from sysconf), max_alloc_bytes = total_bytes.
 *          Limits on the process (cgroup memory.max, ulimit -v) are not
 *          taken into account.
 *  cuda:   total_bytes and available_bytes are cudaMemGetInfo's total and
 *          free memory of the context's device (free: less what every
 *          process holds). max_alloc_bytes = total_bytes: CUDA has no
 *          per-allocation limit below the device's memory, so in practice
 *          a single pp_malloc is bounded by available_bytes.
 *  opencl: total_bytes = CL_DEVICE_GLOBAL_MEM_SIZE, max_alloc_bytes =
 *          CL_DEVICE_MAX_MEM_ALLOC_SIZE (a pp_malloc, or an array, beyond it
 *          is PP_ERROR_OUT_OF_MEMORY), available_bytes = 0 (OpenCL 1.2
 *          cannot tell). On PoCL's CPU device total_bytes and
 *          max_alloc_bytes can be far below the host's memory and vary
 *          from run to run (docs/backends.md, opencl). */
PP_API pp_status pp_context_memory(const pp_context *ctx, pp_memory_info *info);

/** Allocates bytes of context memory into *p (64-byte aligned on cpu).
 *  bytes == 0 gives *p == NULL and PP_SUCCESS. */
PP_API pp_status pp_malloc(pp_context *ctx, void **p, size_t bytes);
/** Frees memory from pp_malloc; NULL is fine. */
PP_API pp_status pp_free(pp_context *ctx, void *p);
/** Copies bytes from host memory to context memory, after every earlier
 *  call on the context; complete when it returns. bytes == 0 does nothing.
 *  On cpu, overlapping ranges are PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_upload(pp_context *ctx, void *dst, const void *host_src, size_t bytes);
/** Copies bytes from context memory to host memory, after every earlier
 *  call on the context; complete when it returns. bytes == 0 does nothing.
 *  On cpu, overlapping ranges are PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_download(pp_context *ctx, void *host_dst, const void *src, size_t bytes);
/** Copies bytes within context memory (device to device), ordered like a
 *  primitive. The ranges must not overlap (PP_ERROR_INVALID_ARGUMENT). */
PP_API pp_status pp_copy(pp_context *ctx, void *dst, const void *src, size_t bytes);

/* ------------------------------------------------------------------------ */
/* Primitives                                                               */
/* ------------------------------------------------------------------------ */

/**
 * out[0] = in[0] op in[1] op ... op in[n-1]; the identity for n == 0.
 * in: n elements; out: one element; both in context memory. out may lie
 * inside in (on opencl: out may be in's buffer, the result in element 0).
 * Determinism: integer results are exact. Float results are reproducible
 * run to run: on cpu they are also independent of the thread count; on
 * cuda and opencl they may differ from one device model to another, but
 * not from run to run on one device. The rounding differs from a
 * left-to-right sum. A PP_SUM of f32 or f64 under PP_ALGO_AUTO is
 * compensated on every backend: each running partial sum keeps the
 * rounding errors of its additions beside it (each found exactly), and the
 * partials are combined in a fixed tree, so the error is at most about
 * (2 log2(n) + 8) u sum|in[i]| (u = 2^-24 for f32, 2^-53 for f64), however
 * long the stretch one thread folds, where sequential summation's bound is
 * n u sum|in[i]| (tests/test_sum_accuracy.c checks the bound against an
 * exact sum). Special values are plain summation's: a NaN input, or both
 * infinities, gives NaN; else an infinity gives that infinity; a sum of
 * -0.0 alone is -0.0. (The named algorithms of pp_set_algorithm fold as
 * named, without compensation; PP_ALGO_EXACT rounds once.)
 * Exact sums (pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT); cpu, cuda
 * and opencl; a backend without it refuses the choice with
 * PP_ERROR_UNSUPPORTED; opencl without cl_khr_fp64 returns
 * PP_ERROR_UNSUPPORTED for f64, as for all f64 work there): a PP_SUM of f32 or f64 writes the exact sum of the
 * n inputs rounded once to the type, to nearest with ties to even (an f32
 * sum is rounded from the exact value, never through a double). The bits
 * are identical on every backend, device, thread count and run. Special
 * values: any NaN input, or both +inf and -inf, gives NaN (always the quiet
 * NaN 0x7FC00000 / 0x7FF8000000000000, whatever the inputs' payloads); else
 * an infinite input gives that infinity; else an exact sum whose rounding
 * overflows gives the infinity of its sign, and one that does not is
 * finite even where partial sums would overflow. An exact sum of zero is
 * -0.0 if every input is -0.0, else +0.0 (n == 0: +0.0), as under Arithmetic
 * above. For every other operator and for integer types, PP_ALGO_EXACT runs
 * the default algorithm (those results are exact, or independent of the
 * order, already). Cost on cpu: the input is read once; working memory:
 * a 576-byte (f32: 128) accumulator per thread. Data whose values span
 * many binades, or hold NaN, infinities or (f64) extreme magnitudes, take
 * slower paths (how: docs/backends.md, cpu; measured: docs/exact.md). The
 * exact sum before its rounding, to keep, combine or send:
 * pp_exact_accumulate (below pp_scan).
 */
PP_API pp_status pp_reduce(pp_context *ctx, pp_type type, pp_op op,
                    const void *in, size_t n, void *out);

typedef enum pp_scan_kind { PP_INCLUSIVE = 0, PP_EXCLUSIVE = 1 } pp_scan_kind;

/**
 * Prefix scan: inclusive out[i] = in[0] op ... op in[i]; exclusive
 * out[0] = identity, out[i] = in[0] op ... op in[i-1].
 * in, out: n elements of context memory. in == out (in place) is allowed;
 * any other overlap is PP_ERROR_INVALID_ARGUMENT.
 * Determinism: integer results are exact. Float results on cpu (every
 * algorithm) depend only on the input (not on the thread count). On cuda,
 * PP_ALGO_REDUCE_THEN_SCAN is reproducible run to run; the default
 * (PP_ALGO_AUTO) and PP_ALGO_DECOUPLED_LOOKBACK are not for floats: the
 * order of their additions depends on timing. On
 * opencl both algorithms (PP_ALGO_REDUCE_THEN_SCAN, the default, and
 * PP_ALGO_BLELLOCH_PADDED) are reproducible run to run on one device.
 * Exact scans (PP_ALGO_EXACT for PP_PRIM_SCAN, where pp_set_algorithm
 * accepts it: cpu, cuda, opencl): with PP_SUM on f32 or f64, out[i] is the exact sum
 * of in[0..i] (exclusive: of in[0..i-1]; out[0] = +0.0) rounded once, to
 * nearest with ties to even, with the special values and signs of zero of
 * an exact pp_reduce of that prefix (so every output from a NaN on is NaN;
 * an inclusive out[i] is bit for bit the exact pp_reduce of in[0..i]). The
 * bits are identical on every backend, device, thread count and run. Other
 * operators and integer types: the default algorithm. Cost on cpu: the
 * default scan's reads of the input; an output whose rounding is hard to
 * decide (a tie or near-tie, zero, a subnormal, overflow, NaN or
 * infinity) costs far more than the others (how: docs/backends.md, cpu;
 * measured: docs/exact.md).
 */
PP_API pp_status pp_scan(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind,
                  const void *in, void *out, size_t n);

/**
 * pp_scan starting from a given value: inclusive out[i] = init op in[0] op
 * ... op in[i]; exclusive out[0] = init, out[i] = init op in[0] op ... op
 * in[i-1]. init: one element of context memory, read, never written; it
 * must not overlap out (PP_ERROR_INVALID_ARGUMENT). in, out: n elements of
 * context memory; in == out is allowed, any other overlap is
 * PP_ERROR_INVALID_ARGUMENT, as for pp_scan. n == 0 succeeds and writes nothing (in, out and init
 * may then be NULL). Determinism: as pp_scan's for the algorithm chosen
 * for PP_PRIM_SCAN (on cpu float results depend only on the input and
 * init). PP_ALGO_EXACT (pp_set_algorithm(ctx, PP_PRIM_SCAN, ...)) on f32
 * or f64 PP_SUM: out[i] is the exact sum of init and in[0..i] (exclusive:
 * of init and in[0..i-1]) rounded once, with the special values and signs
 * of zero of pp_scan's exact results (init takes part in the exact sum as
 * one more element before in[0]); exclusive out[0] is init itself (every
 * backend).
 * Cost: that of pp_scan (init is the carry of the scan's first tile, read
 * on the device; on cuda the study algorithms run the default scan).
 * Backends: cpu, cuda and opencl.
 */
PP_API pp_status pp_scan_init(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                              size_t n, const void *init);

/**
 * pp_reduce and pp_scan into a wider type: each element of in (in_type) is
 * converted to out_type, then combined with op in out_type, so integer sums
 * do not wrap in the narrow input type and f32 data are summed in f64.
 * Pairs: out_type == in_type (then exactly pp_reduce / pp_scan, every
 * algorithm included), or an out_type that holds every value of in_type
 * exactly: a wider integer of a kind that holds them (u8 to u16, i16, u32,
 * i32, u64, i64; i8 to i16, i32, i64; u16 to u32, i32, u64, i64; i16 to
 * i32, i64; u32 to u64, i64; i32 to i64; never signed to unsigned), f32 or
 * f64 from 8- and 16-bit integers and from f16 and bf16, f64 from 32-bit
 * integers and from f32.
 * Any other pair is PP_ERROR_INVALID_ARGUMENT ("pp_reduce_to: out_type u8
 * cannot hold every value of in_type i32 ..."). op: an operator of
 * pp_reduce for out_type (PP_AND, PP_OR, PP_XOR on integer out types only:
 * else PP_ERROR_UNSUPPORTED). in: n elements of in_type; out: one element
 * (pp_reduce_to) or n elements (pp_scan_to) of out_type; all in context
 * memory. n == 0: pp_reduce_to writes op's identity in out_type,
 * pp_scan_to writes nothing (in and out may then be NULL; pp_reduce_to's
 * out may not). Aliasing: with in_type == out_type as pp_reduce and pp_scan
 * (in == out allowed for the scan); with different types out must not
 * overlap in (PP_ERROR_INVALID_ARGUMENT). Determinism: that of pp_reduce /
 * pp_scan of out_type on the converted data (integer results exact; float
 * results reproducible run to run, on cpu independent of the thread
 * count). Algorithms: pp_reduce_to follows PP_PRIM_REDUCE, pp_scan_to
 * PP_PRIM_SCAN (an algorithm a backend lacks for a converting call runs
 * its default); PP_ALGO_EXACT on a PP_SUM to f32 or f64 from another type
 * is PP_ERROR_UNSUPPORTED on every backend (no exact converting sums yet;
 * equal types are pp_reduce's and pp_scan's exact sums), but from f16 and
 * bf16 to f32, which is pp_reduce's and pp_scan's f32 call on the widened
 * elements, the exact one included. From f16 and bf16 the elements are
 * widened to f32 first (working memory: 4 bytes per element, none for
 * pp_scan_to to f32, which widens into out), then folded as f32 or
 * converted to f64. Cost: one read
 * of in and the writes of out (cpu and opencl convert as elements are
 * loaded, inside pp_reduce's and pp_scan's own loops; cuda's pp_scan_to
 * converts into out, then scans out in place: a second pass over out).
 * Sizes and positions are 64-bit. Backends: cpu, cuda and opencl (opencl:
 * f64 only where the device has cl_khr_fp64, else PP_ERROR_UNSUPPORTED).
 */
PP_API pp_status pp_reduce_to(pp_context *ctx, pp_type in_type, pp_type out_type, pp_op op, const void *in, size_t n,
                              void *out);
PP_API pp_status pp_scan_to(pp_context *ctx, pp_type in_type, pp_type out_type, pp_op op, pp_scan_kind kind,
                            const void *in, void *out, size_t n);

/**
 * Arg-reductions, NumPy's np.argmin / np.argmax: *index = the position of
 * the first minimum (pp_argmin) or maximum (pp_argmax) of in[0 .. n): ties
 * go to the lowest index; floats: -0.0 and +0.0 are equal, and if any
 * element is NaN the result is the position of the first NaN (whatever its
 * sign or payload). in: n elements of type; index: one uint64_t; both in
 * context memory, index not overlapping in (PP_ERROR_INVALID_ARGUMENT).
 * n == 0 is PP_ERROR_INVALID_ARGUMENT ("pp_argmin: attempt to get argmin
 * of an empty sequence", as NumPy raises), index not written. Results are
 * exact and identical on every backend, algorithm and thread count. Sizes
 * and positions are 64-bit. Algorithms: follow PP_PRIM_REDUCE (a backend
 * without the chosen algorithm's slot runs its default). Cost: one read of
 * in. Backends: cpu, cuda and opencl (opencl f64 only with cl_khr_fp64).
 */
PP_API pp_status pp_argmin(pp_context *ctx, pp_type type, const void *in, size_t n, uint64_t *index);
PP_API pp_status pp_argmax(pp_context *ctx, pp_type type, const void *in, size_t n, uint64_t *index);

/*
 * Segmented forms. Segments are given by offsets: nseg + 1 uint64_t in
 * context memory; segment s is in[offsets[s] .. offsets[s+1]). Offsets
 * must be non-decreasing and at most n; segments may be empty, need not
 * start at 0 nor end at n. Elements outside every segment are neither read
 * into a result nor written. nseg == 0 succeeds at once: nothing is read
 * or written (in, out and offsets may be NULL). n == 0 succeeds with every
 * segment empty (offsets all 0): the reduce writes nseg identities, the
 * scan nothing (in and out may then be NULL). offsets must not overlap out
 * (PP_ERROR_INVALID_ARGUMENT).
 * Bad offsets (decreasing, or past n) never make a call read or write out
 * of bounds. Where they are checked: on cpu every offset is checked before
 * anything is written: PP_ERROR_INVALID_ARGUMENT naming the first bad one,
 * nothing written. On opencl the offsets are never read back (no host
 * synchronization): the kernels clamp each offset to n, the call succeeds,
 * and with bad offsets the results are unspecified, but the reduce writes
 * only out[0 .. nseg) and the scan only out[min(offsets[0], n) ..
 * min(offsets[nseg], n)). cuda does the same: nothing is checked on the
 * host, the kernels clamp. Working memory on cuda: 128 bytes per tile
 * of a few thousand elements (the context's look-back arena).
 * Algorithms: the segmented reduce follows the choice made for
 * PP_PRIM_REDUCE, the segmented scan that for PP_PRIM_SCAN; a backend runs
 * its own form of the chosen algorithm where it has one, else its default.
 * PP_ALGO_EXACT on a f32 or f64 PP_SUM (cpu): each segment's results are
 * bit for bit the exact pp_reduce and pp_scan of its elements (an empty
 * segment's sum +0.0; the same bits on every thread count); working
 * memory: 584 bytes (f32: 136) per 8192 elements, and for an in-place
 * scan 8192 elements per thread. On cuda and opencl the reduce alone (the
 * same bits; the offsets never read back, clamped as on opencl above;
 * working memory 560 bytes, f32: 96, per 16384 elements on cuda, per 65536
 * on opencl GPUs and 8192 on CPU devices); their segmented scan returns
 * PP_ERROR_UNSUPPORTED for such a call (never an inexact sum) and writes
 * nothing. Other types and operators under PP_ALGO_EXACT run the default.
 * Backends: cpu, cuda and opencl. Float results on cuda are reproducible
 * run to run on one device (fixed tiles and combination order), for the
 * segmented scan too.
 */
/**
 * out[s] = in[offsets[s]] op ... op in[offsets[s+1] - 1] for s < nseg; the
 * op's identity (as pp_reduce of n == 0) for an empty segment. in: n
 * elements, out: nseg elements, both context memory; out must not overlap
 * in or offsets. Determinism and the sign of zero sums: as pp_reduce for
 * each segment (on cpu, float results depend only on the input and the
 * offsets, not on the thread count).
 */
PP_API pp_status pp_segmented_reduce(pp_context *ctx, pp_type type, pp_op op, const void *in, size_t n,
                                     const uint64_t *offsets, size_t nseg, void *out);

/**
 * pp_scan within each segment: the scan restarts at each segment's first
 * element (exclusive: whose output is the op's identity, +0.0 for float
 * sums). out[i] for i outside every segment is left untouched. in, out: n
 * elements of context memory; in == out (in place) is allowed, any other
 * overlap of in and out, and any overlap of out and offsets, is
 * PP_ERROR_INVALID_ARGUMENT. Determinism: as pp_scan (on cpu, float
 * results depend only on the input and the offsets).
 */
PP_API pp_status pp_segmented_scan(pp_context *ctx, pp_type type, pp_op op, pp_scan_kind kind,
                                   const void *in, void *out, size_t n, const uint64_t *offsets, size_t nseg);

/*
 * By-key forms. A run is a maximal range of equal neighbouring keys,
 * compared by C's == (as pp_unique: NaNs are never equal, so each NaN is a
 * run of its own; -0.0 == +0.0). Keys and values may be of any two types;
 * op must be defined on the value type. The number of runs is written to
 * count, one uint64_t of context memory, as pp_select_if writes its count;
 * the output arrays have room for n elements (as many runs as keys at
 * most) and only their first *count are written. No array may overlap
 * another (PP_ERROR_INVALID_ARGUMENT), but out == values for
 * pp_scan_by_key. n == 0 succeeds: count = 0, nothing else written (the
 * arrays may be NULL). Algorithms: pp_reduce_by_key follows the choice
 * made for PP_PRIM_REDUCE, pp_scan_by_key that for PP_PRIM_SCAN,
 * pp_run_length_encode that for PP_PRIM_SELECT, as the segmented forms
 * do: PP_ALGO_EXACT on f32 or f64 PP_SUM values is exact per run (the
 * bits of the exact pp_reduce or pp_scan of the run's values) where a
 * backend has that form (cpu), else PP_ERROR_UNSUPPORTED (never an inexact
 * sum).
 * Determinism: float results as pp_reduce and pp_scan give for each run
 * (on cpu they depend on the keys and values alone, not on the thread
 * count). Working memory: on cpu the runs' offsets, up to 8 (n + 1) bytes
 * kept by the context beside its scratch; on opencl the offsets, n bytes
 * of run heads and the segmented scan's levels in the context's scratch.
 * On cuda and opencl the count is written by the device and nothing is
 * read back (no host synchronization), as for pp_unique; cuda's working
 * memory is 128 bytes per tile of a few thousand elements (the
 * context's look-back arena).
 * Backends: cpu, cuda and opencl.
 */
/**
 * One row per run: keys_out[r] = the first key of run r, values_out[r] =
 * the values of run r folded with op in order.
 */
PP_API pp_status pp_reduce_by_key(pp_context *ctx, pp_type key_type, pp_type value_type, pp_op op,
                                  const void *keys, const void *values, size_t n,
                                  void *keys_out, void *values_out, uint64_t *count);

/**
 * pp_scan of values restarting at the first element of each run (there,
 * exclusive: the op's identity, +0.0 for float sums). out: n elements;
 * out == values (in place) is allowed. No count is written.
 */
PP_API pp_status pp_scan_by_key(pp_context *ctx, pp_type key_type, pp_type value_type, pp_op op, pp_scan_kind kind,
                                const void *keys, const void *values, void *out, size_t n);

/**
 * values_out[r] = the first element of run r of in, counts_out[r] = its
 * length (n uint64_t of room); count = the number of runs.
 */
PP_API pp_status pp_run_length_encode(pp_context *ctx, pp_type type, const void *in, size_t n,
                                      void *values_out, uint64_t *counts_out, uint64_t *count);

/*
 * Exact sums as values. The exact sum of f32 or f64 elements (what
 * PP_ALGO_EXACT rounds once) as a host object: accumulate pieces of an
 * array, anywhere and in any order, merge the sums (across contexts,
 * backends, threads or processes), round once, and get the bits of an
 * exact pp_reduce of the whole array. parprim_mpi's exact pp_dist_reduce
 * and pp_dist_scan exchange them between ranks.
 *
 * pp_exact_sum is an integer M (the sum is M * 2^-1074 for f64, M * 2^-149
 * for f32) in 32-bit chunks held in int64_t words, then flags (NaN, +inf,
 * -inf, a finite element other than -0.0, any element) and a word that is
 * 0; docs/exact.md gives the layout, the same on every backend. An f32 sum
 * uses words 0 to 11, the others are 0. All zero is the empty sum. It is a
 * plain value: copy it, store it, send its 560 bytes to another process of
 * the same byte order. Every state these functions write is normalized:
 * the words are a function of the elements summed alone (not of their
 * order, grouping, backend, device or thread count), so equal words mean
 * the same sum. Every state they are given is checked first, in one pass
 * over its words: one that no sum of elements gives (a chunk outside
 * [0, 2^32), a sum beyond the range below, unknown flags, flags that
 * contradict the chunks, a nonzero word where the layout has 0) is
 * PP_ERROR_INVALID_ARGUMENT naming the call, the argument and the word,
 * and nothing is written. Range: |M| below 2^108 times the largest f64
 * (f32: 2^73 times the largest f32), so any sum of up to 2^64 elements; a
 * call whose result would go beyond returns PP_ERROR_UNSUPPORTED and
 * leaves *sum as it was.
 */
#define PP_EXACT_WORDS 70
typedef struct pp_exact_sum {
    int64_t word[PP_EXACT_WORDS];
} pp_exact_sum;

/** *sum += the exact sum of in[0..n): type f32 or f64 (other types are
 *  PP_ERROR_UNSUPPORTED), in n elements of context memory, sum a host
 *  object of that type's sum (all zero to start). Whatever algorithm ctx
 *  has chosen: the result is that of PP_ALGO_EXACT. n == 0 leaves *sum as
 *  it is. Unlike the primitives it is complete when it returns on every
 *  backend (on cuda and opencl it waits for the work queued before it and
 *  its own): *sum is host memory. Cost: that of an exact pp_reduce of the
 *  same elements, and a copy of 560 bytes to the host. A backend without
 *  exact accumulators returns PP_ERROR_UNSUPPORTED (opencl without
 *  cl_khr_fp64: for f64). On failure *sum is unchanged. */
PP_API pp_status pp_exact_accumulate(pp_context *ctx, pp_type type, const void *in, size_t n,
                                     pp_exact_sum *sum);
/** *sum += *other, both sums of type (f32 or f64). Exact: merging is
 *  associative and commutative, so any order and grouping of merges gives
 *  the same words. other may be sum (the sum doubles). No context: a
 *  failure's message is kept for pp_last_error(NULL) in the calling thread;
 *  *sum is then unchanged. */
PP_API pp_status pp_exact_merge(pp_type type, pp_exact_sum *sum, const pp_exact_sum *other);
/** *out (host memory, one element of type, any alignment) = the sum
 *  rounded once, to nearest with ties to even, with the rules of an exact
 *  pp_reduce: NaN (0x7FC00000 / 0x7FF8000000000000) if a NaN, or both
 *  +inf and -inf, were added; else the infinity that was added; else the
 *  finite sum, an infinity of its sign where its rounding overflows; a
 *  zero sum is -0.0 if every element was -0.0, else +0.0, and the empty
 *  sum +0.0. So pp_exact_round of what pp_exact_accumulate gave for any
 *  pieces of an array is bit for bit the exact pp_reduce of the array
 *  (n == 0 included). No context: messages as pp_exact_merge. */
PP_API pp_status pp_exact_round(pp_type type, const pp_exact_sum *sum, void *out);

/**
 * Histogram of nbins equal bins over [*lower, *upper).
 * Bin of x: floor((x - lower) * nbins / (upper - lower)). Integer samples
 * are binned exactly (the formula is evaluated in exact integer arithmetic
 * for any 64-bit range and any nbins). Float samples (f32 and f64): in
 * double precision, d = x - lower, r = upper - lower (if r overflows to
 * infinity: d = 0.5*x - 0.5*lower, r = 0.5*upper - 0.5*lower), bin =
 * (uint64_t)(d * ((double)nbins / r)), clamped to [0, nbins - 1] (so a
 * sample equal to lower is in bin 0 even when nbins / r overflows). Every
 * backend evaluates this same expression. Samples outside [lower, upper) (compared
 * in the sample type) and NaN are not counted.
 * samples: n elements, counts: nbins uint64_t, both context memory; counts
 * is overwritten (not accumulated) and must not overlap samples.
 * lower, upper: host pointers to one value each of the sample type;
 * lower < upper is required, compared in the sample type as the samples
 * are (the bytes are read as that type: 0xFFFFFFF0 is -16 as i32; floats
 * compare as numbers, -0.0 == +0.0, so lower = -0.0, upper = +0.0 is an
 * empty range: PP_ERROR_INVALID_ARGUMENT), and float bounds must be finite.
 * nbins == 0 is PP_ERROR_INVALID_ARGUMENT. Results are exact (and so
 * deterministic) on every backend, with every algorithm.
 * Algorithms (pp_set_algorithm, PP_PRIM_HISTOGRAM), besides PP_ALGO_AUTO:
 * cuda and opencl accept PP_ALGO_GLOBAL_ATOMIC, PP_ALGO_PRIVATE_ATOMIC and
 * PP_ALGO_PRIVATE_REDUCE (for pp_histogram_range too). On cuda the PRIVATE
 * ones return PP_ERROR_UNSUPPORTED where the bins do not fit a block's
 * shared memory; on opencl, where nbins 32-bit counters do not fit the
 * device's local memory, they run PP_ALGO_GLOBAL_ATOMIC instead (no error).
 * opencl: float samples (f32 too) need cl_khr_fp64, since the documented
 * expression is evaluated in double (else PP_ERROR_UNSUPPORTED).
 * NumPy's bins (np.histogram: edges computed with np.linspace in the sample
 * type, the last bin closed) are not this expression's: count them with
 * pp_histogram_range over NumPy's edges (the Python package's
 * parprim.histogram does), which bins such near-equal edges as fast.
 */
PP_API pp_status pp_histogram_even(pp_context *ctx, pp_type type, const void *samples, size_t n,
                            const void *lower, const void *upper, size_t nbins,
                            uint64_t *counts);

/**
 * Histogram with explicit edges: bin i counts edges[i] <= x < edges[i+1].
 * edges: host pointer to nbins + 1 values of the sample type, strictly
 * increasing in the sample type (so -0.0 followed by +0.0 is not; NaN edges
 * are rejected; infinite float edges are allowed).
 * Samples outside [edges[0], edges[nbins]) and NaN are not counted.
 * samples, counts: context memory, as for pp_histogram_even.
 * Near-equal edges (np.linspace's, rounded to the type: where a double
 * estimate of each edge's bin is within one of it) are binned in constant
 * time per sample, others by a search; the counts are exact either way.
 */
PP_API pp_status pp_histogram_range(pp_context *ctx, pp_type type, const void *samples, size_t n,
                             const void *edges, size_t nbins, uint64_t *counts);

typedef enum pp_cmp { PP_LT = 0, PP_LE = 1, PP_GT = 2, PP_GE = 3, PP_EQ = 4, PP_NE = 5 } pp_cmp;

/*
 * Stream compaction. All four are stable (input order is kept on both
 * sides). in, flags, out: context memory, n elements each (flags: n bytes);
 * *count (one uint64_t in context memory) receives the number of selected
 * elements. No two of out, in, flags and count may overlap, whichever pair
 * (PP_ERROR_INVALID_ARGUMENT; on opencl, where overlap is handle equality:
 * no two may be the same buffer).
 * Results are exact and deterministic. Comparisons are C's: `x cmp value`,
 * so NaN is selected only by PP_NE. *count is written by the device: on
 * GPUs nothing waits for it (see Ordering at the top).
 * opencl: working memory is small beside the data (about 8 bytes per 1024
 * to 4096 elements).
 */

/** Copies in[i] with flags[i] != 0 to out[0 .. *count). */
PP_API pp_status pp_select_flagged(pp_context *ctx, pp_type type, const void *in,
                            const uint8_t *flags, size_t n, void *out, uint64_t *count);
/** Copies in[i] with (in[i] cmp *value) to out[0 .. *count). value: host. */
PP_API pp_status pp_select_if(pp_context *ctx, pp_type type, const void *in, size_t n,
                       pp_cmp cmp, const void *value, void *out, uint64_t *count);
/** Keeps the first element of each run of equal neighbours (C's ==: NaNs
 *  are never equal, -0.0 equals +0.0). */
PP_API pp_status pp_unique(pp_context *ctx, pp_type type, const void *in, size_t n,
                    void *out, uint64_t *count);
/** Selected elements first (out[0 .. *count)), then the rest in input order
 *  (out[*count .. n)). */
PP_API pp_status pp_partition_if(pp_context *ctx, pp_type type, const void *in, size_t n,
                          pp_cmp cmp, const void *value, void *out, uint64_t *count);

/** Sort orders. PP_DESCENDING is the exact reverse of PP_ASCENDING's keys
 *  (NaNs first), stable. PP_DESCENDING_NAN_LAST is PP_DESCENDING with every
 *  NaN moved after every other key (NaNs as "missing": the order of
 *  pandas' sort_values(ascending=False) and of a NumPy user's descending
 *  sort), stable among the NaNs too; for integer keys it is PP_DESCENDING. */
typedef enum pp_order { PP_ASCENDING = 0, PP_DESCENDING = 1, PP_DESCENDING_NAN_LAST = 2 } pp_order;

/**
 * Sorts keys in place, stable in every order (equal keys keep input order).
 * Floats: -0.0 sorts before +0.0 in ascending order, and every NaN, whatever
 * its sign or payload, sorts as greater than +inf (so last in ascending,
 * first in descending order, last in PP_DESCENDING_NAN_LAST); key bits are moved unchanged (NaN payloads
 * survive). NaNs compare equal to one another, so NaNs of different signs
 * and payloads keep their input order among themselves, in every order.
 * keys: n elements of context memory.
 */
PP_API pp_status pp_sort(pp_context *ctx, pp_type type, void *keys, size_t n, pp_order order);
/* (Results of pp_sort and pp_sort_pairs are fully determined by the input on
 * every backend. Working memory: about n * (key size + value size) bytes of
 * scratch, kept by the context; on cpu, 8-bit integer keys without values
 * need none. opencl: the scratch, n * (key size + value size) bytes plus up
 * to about one byte per key, is one buffer, so it must fit
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE (else PP_ERROR_OUT_OF_MEMORY); 8-bit keys
 * without values need only a few KB. f64 keys do not need cl_khr_fp64: the
 * sort moves key bits only.) */

/** Sorts keys as pp_sort does and moves values[i] (value_size bytes each:
 *  1, 2, 4 or 8) with keys[i]. keys and values must not overlap. */
PP_API pp_status pp_sort_pairs(pp_context *ctx, pp_type type, void *keys, void *values,
                        size_t value_size, size_t n, pp_order order);

/*
 * Out-of-place sorts: keys_out (and values_out) receive exactly the bits
 * that pp_sort (pp_sort_pairs) would leave in keys (values) given keys_in
 * (values_in): the same order, stability, float and NaN rules, algorithm
 * (pp_set_algorithm's PP_PRIM_SORT) and working memory. The inputs are
 * not written. All four arrays are context memory of n elements (values:
 * n * value_size bytes). keys_out == keys_in is allowed and sorts the keys
 * in place (as pp_sort); so is values_out == values_in, independently.
 * Any other overlap among the arrays is PP_ERROR_INVALID_ARGUMENT (on
 * opencl, where overlap is handle equality: no two may be the same buffer
 * but those pairs). n == 1 copies the element (and its value). Cost: on
 * cpu, on opencl, and on cuda with PP_ALGO_AUTO or PP_ALGO_ONESWEEP, that
 * of pp_sort alone (no copy); cuda's other algorithms copy the inputs into
 * the outputs, then sort there in place (a pp_copy, then a pp_sort). Where a
 * backend copies first, a failure after the checks
 * (PP_ERROR_OUT_OF_MEMORY, PP_ERROR_UNSUPPORTED, PP_ERROR_BACKEND) may
 * leave copies of the inputs in the outputs; they hold nothing else, and
 * the inputs are unchanged.
 */
PP_API pp_status pp_sort_copy(pp_context *ctx, pp_type type, const void *keys_in, void *keys_out, size_t n,
                              pp_order order);
PP_API pp_status pp_sort_pairs_copy(pp_context *ctx, pp_type type, const void *keys_in,
                                    const void *values_in, void *keys_out, void *values_out,
                                    size_t value_size, size_t n, pp_order order);

/**
 * The k first keys of the stable sort of in (pp_sort's order for order:
 * floats -0.0 before +0.0 ascending, every NaN after +inf ascending, first
 * in PP_DESCENDING, last in PP_DESCENDING_NAN_LAST; equal keys by index
 * ascending in every order): keys_out[j] = the j-th key of that sort (its
 * bits unchanged), indices_out[j] = its position in in. So the k smallest
 * (PP_ASCENDING) or largest (PP_DESCENDING) keys, sorted, ties by index.
 * in: n elements of context memory, not written; keys_out: k elements and
 * indices_out: k uint64_t of context memory, or NULL where the indices
 * are not wanted. k > n is clamped to n; k == 0 or n == 0 succeeds and
 * writes nothing (the arrays may then be NULL). Neither output may
 * overlap in or the other (PP_ERROR_INVALID_ARGUMENT). Deterministic (the
 * result is a function of in, k and order alone). Algorithms: it follows
 * the choice made for PP_PRIM_SORT (pp_set_algorithm): the backend's
 * top-k for that sort where it has one, else its default top-k. On cpu
 * (PP_ALGO_AUTO) each thread keeps the best candidates of its part of in
 * behind a threshold on the keys' ordered bits (in read once; working
 * memory 32 * k bytes per thread, at most 16 * n bytes in all); from k =
 * n / 256 on (n >= 65536), counts of the ordered bits' leading 16 find the
 * k-th key's neighbourhood and a second read of in takes the keys up to
 * it (working memory 16 bytes per key taken, at least k of them, and up
 * to 512 KiB of counters per thread). The best k are then sorted with the
 * cpu sort (its scratch for k 8-byte keys, or for k pairs of them). The
 * buffers are allocated for the call. PP_ALGO_SEQUENTIAL: the same on one
 * thread. On opencl: pp_argsort's steps on all n keys with 8-byte indices
 * (its working memory, plus n * 8 bytes for the permutation), then the
 * first k keys and indices copied out. On cuda: a radix select on the
 * device without a host synchronization (where the k are few, over the
 * candidates that one read of in keeps behind a sampled threshold; else
 * passes over in), the k keys compacted and sorted with the cuda sort
 * (working memory: the candidates, at most n / 16 of (8 + the key's size)
 * bytes, and about 3 * k * (8 + the key's size) bytes, kept by the
 * context, and the sort's scratch). Backends: cpu, cuda and opencl.
 */
PP_API pp_status pp_top_k(pp_context *ctx, pp_type type, const void *in, size_t n, size_t k, pp_order order,
                          void *keys_out, uint64_t *indices_out);

/**
 * The stable sort's permutation: indices[i] = the input position of the
 * i-th key of keys sorted as pp_sort sorts them in order (stable; floats:
 * -0.0 before +0.0, NaNs where pp_sort puts them, in input order among
 * themselves). keys: n elements of context memory, not written; indices:
 * n elements of index_type (PP_U32 or PP_U64, else
 * PP_ERROR_INVALID_ARGUMENT) in context memory, not overlapping keys.
 * PP_U32 with n > UINT32_MAX is PP_ERROR_INVALID_ARGUMENT (checked before
 * anything is read). n == 0 succeeds (keys and indices may be NULL);
 * n == 1 writes 0. Deterministic: the result is a function of the keys
 * and order alone (the stable order's permutation is unique). It runs
 * the sort chosen for PP_PRIM_SORT (pp_set_algorithm), with that sort's
 * failures (PP_ERROR_UNSUPPORTED where it does not run). Working memory: a
 * buffer for the sorted keys and one for the index sequence, n * (key size
 * + index size) bytes, allocated for the call, plus the sort's scratch.
 * Backends: cpu, cuda and opencl. On cuda the two buffers are one that
 * the context keeps and grows (freed by pp_destroy), not allocated per
 * call.
 */
PP_API pp_status pp_argsort(pp_context *ctx, pp_type type, const void *keys, size_t n, pp_order order,
                            pp_type index_type, void *indices);

/* ------------------------------------------------------------------------ */
/* Search and merge                                                         */
/* ------------------------------------------------------------------------ */
/*
 * "Before" is pp_sort's order for the pp_order given: ascending, -0.0
 * before +0.0 and every NaN after +inf (NaNs equal to one another, whatever
 * their sign and payload); PP_DESCENDING its exact reverse (NaNs first,
 * +0.0 before -0.0); PP_DESCENDING_NAN_LAST PP_DESCENDING with the NaNs
 * after every other key. Two keys neither of which is before the other
 * are equal (so -0.0 and +0.0 are not; any two NaNs are). On data without
 * -0.0, pp_lower_bound on the output of an ascending pp_sort is NumPy's
 * np.searchsorted(side='left') on np.sort's output, pp_upper_bound its
 * side='right'.
 * Sorted inputs. The arrays named sorted, a and b must be sorted in order
 * (as pp_sort leaves them). That is a precondition, not checked (on GPUs
 * checking would need a host synchronization): on unsorted inputs the
 * results are unspecified, but the call succeeds, reads only its inputs,
 * writes only its outputs, and every access stays in bounds (a search
 * writes m values in [0, n]).
 * Arrays are context memory; keys aligned to their size, out to 8 bytes,
 * values to value_size. The outputs may not overlap any input nor each
 * other (PP_ERROR_INVALID_ARGUMENT; on opencl, where overlap is handle
 * equality: no output may be the buffer of an input or of the other
 * output); the inputs may overlap one another (they are only read).
 * Empty inputs succeed: m == 0 (search) or na + nb == 0 (merge) reads and
 * writes nothing, and the arrays may then be NULL; so may sorted where
 * n == 0 (every out[j] is then 0) and a side of a merge that has 0 keys.
 * Checked before anything is read: the type, the order, NULLs, sizes
 * (64-bit: n, m, na, nb above 2^31 are fine; na + nb, or a byte count,
 * overflowing size_t is PP_ERROR_INVALID_ARGUMENT), value_size,
 * alignment and overlap. Deterministic: the results are functions of the
 * inputs alone (a stable merge is unique), the same on every backend,
 * algorithm and thread count. Algorithms: these calls follow the choice
 * made for PP_PRIM_SORT (pp_set_algorithm): that algorithm's form of the
 * call where the backend has one, else its default. Working memory: none
 * (cpu, opencl; the cuda search), 8 bytes per 1792 outputs of a merge on
 * cuda (the context's scratch). Backends: cpu, cuda and opencl
 * (docs/backends.md). opencl: f64 keys do not need cl_khr_fp64 (keys are
 * compared as bits mapped to the sort's order).
 */
/** out[j] = the first i in [0, n] with !(sorted[i] before queries[j]):
 *  the number of keys before queries[j]. sorted: n keys, queries: m keys
 *  of type (in any order), out: m uint64_t. */
PP_API pp_status pp_lower_bound(pp_context *ctx, pp_type type, const void *sorted, size_t n, pp_order order,
                                const void *queries, size_t m, uint64_t *out);
/** out[j] = the first i in [0, n] with queries[j] before sorted[i]: the
 *  number of keys before queries[j] or equal to it. Arrays as
 *  pp_lower_bound's. */
PP_API pp_status pp_upper_bound(pp_context *ctx, pp_type type, const void *sorted, size_t n, pp_order order,
                                const void *queries, size_t m, uint64_t *out);
/** out (na + nb keys) = the stable merge of a (na keys) and b (nb keys):
 *  a's and b's keys in order, each in its own input order, and of two
 *  equal keys, a's first. The key bits are moved unchanged (NaN payloads,
 *  the sign of zeros). */
PP_API pp_status pp_merge(pp_context *ctx, pp_type type, const void *a, size_t na, const void *b, size_t nb,
                          void *out, pp_order order);
/** pp_merge of a_keys and b_keys into keys_out, each key's value (value_size
 *  bytes: 1, 2, 4 or 8, else PP_ERROR_INVALID_ARGUMENT) moving with it from
 *  a_values or b_values (na and nb values) into values_out (na + nb). */
PP_API pp_status pp_merge_pairs(pp_context *ctx, pp_type type, const void *a_keys, const void *a_values, size_t na,
                                const void *b_keys, const void *b_values, size_t nb, size_t value_size,
                                void *keys_out, void *values_out, pp_order order);

/**
 * Sorts each segment of keys in place, as pp_sort sorts (stable; floats:
 * -0.0 before +0.0, NaNs where order puts them): keys[offsets[s] ..
 * offsets[s+1]) for every s < nseg; keys outside every segment are left
 * untouched. Segments and bad offsets: as the segmented reduce and scan (the
 * same checks on cpu, the same clamping elsewhere: with bad offsets the
 * results are unspecified, but nothing outside keys[0 .. n) is written).
 * keys: n elements of context memory, not overlapping offsets
 * (PP_ERROR_INVALID_ARGUMENT). n == 0 or nseg == 0 succeeds, nothing
 * read or written. Deterministic (a stable order is unique). Algorithms:
 * the sort chosen for PP_PRIM_SORT where the backend has a segmented form
 * of it, else its default. Backends: cpu, cuda and opencl. cpu
 * checks every offset before anything is written (PP_ERROR_INVALID_ARGUMENT
 * naming the first bad one, nothing written); its working memory is two
 * buffers of the largest segment it leaves to one thread (key and value
 * bytes) per thread, and pp_sort's scratch for segments large enough to
 * take every thread. opencl never reads the offsets back (no host
 * synchronization): its kernels clamp each offset to n, so the call
 * succeeds and with bad offsets results are unspecified, but nothing
 * outside keys[0 .. n) (values[0 .. n)) is written; it runs pp_argsort's
 * steps on all n keys (the sort chosen for PP_PRIM_SORT, with its
 * PP_ERROR_UNSUPPORTED where that does not run), then a stable sort of
 * each element's segment start, with buffers of n * (2 * index size + key
 * size + value size) bytes allocated for the call (index size 4 bytes, 8
 * where n > 2^32 - 1) beside the argsort's and the sort's scratch.
 * On cuda the offsets are never read on the host (no synchronization):
 * each is clamped to n on the device and bad ones are not reported (the
 * results are then unspecified, nothing outside keys[0 .. n) written),
 * and the working memory is pp_sort's (n keys, and n values) plus up to
 * about 2 bytes per key.
 */
PP_API pp_status pp_segmented_sort(pp_context *ctx, pp_type type, void *keys, size_t n,
                                   const uint64_t *offsets, size_t nseg, pp_order order);

/**
 * pp_segmented_sort of keys, the values moving with their keys: values
 * holds n elements of value_size bytes (1, 2, 4 or 8, else
 * PP_ERROR_INVALID_ARGUMENT) in context memory, not overlapping keys or
 * offsets. Stable: equal keys keep their values in input order.
 */
PP_API pp_status pp_segmented_sort_pairs(pp_context *ctx, pp_type type, void *keys, void *values, size_t value_size,
                                         size_t n, const uint64_t *offsets, size_t nseg, pp_order order);

/* ------------------------------------------------------------------------ */
/* Operators of the user's own                                              */
/* ------------------------------------------------------------------------ */
/**
 * An associative operator on elements of the user's own type, given as
 * source text, for reductions and scans. The text defines the element type
 * and the operator, with these two names:
 *
 *     typedef struct { float a, b; } pp_elem;          any type of element_size bytes
 *     pp_elem pp_combine(pp_elem x, pp_elem y) { ... }  associative: (x.y).z == x.(y.z)
 *
 * It may define other types, constants and functions before them (no other
 * name that starts with pp_ or PP_: the library's code beside it uses
 * those). Write it
 * in the language C99, OpenCL C and CUDA C++ share (int, unsigned, float,
 * double, structs and arrays of them; no headers, no globals that change,
 * no recursion), so that the same text can run on every backend.
 * identity (element_size host bytes, copied) must be an identity of
 * pp_combine: combine(identity, x) == combine(x, identity) == x. It is the
 * result of an empty reduction and the first output of an exclusive scan.
 * commutative: 1 where pp_combine(x, y) == pp_combine(y, x) for all x, y
 * (a hint a backend may use to reorder); with 0 every result combines the
 * elements in their order (left to right, never commuted), on every
 * backend. element_size: 1 to 256 bytes, sizeof(pp_elem) (checked once
 * the text is compiled: PP_ERROR_INVALID_ARGUMENT where they differ).
 * Arrays of elements are context memory aligned to the type's alignment.
 *
 * Compilation: the text is compiled when the operator is created, and the
 * compiled code is kept by the context for later operators of the same
 * text and size (and, on cpu, in a cache directory for later processes).
 * A text that does not compile is PP_ERROR_INVALID_ARGUMENT with the
 * compiler's first messages in pp_last_error(ctx).
 * cpu: the text is compiled by the system's C compiler (the command in
 * PARPRIM_CC, else cc) with the library's loops around it into a shared
 * object, loaded with dlopen, cached in PARPRIM_CACHE_DIR (else
 * $XDG_CACHE_HOME/parprim, ~/.cache/parprim or the temporary directory)
 * under a hash of the text, the size, the command and the library's version;
 * no compiler found: PP_ERROR_UNSUPPORTED. (Only run text you trust: it is
 * compiled and run as the calling process.) opencl: built with the
 * device's compiler as one program with the library's kernels (cl_khr_fp64
 * enabled where the device has it). cuda: compiled by NVRTC into a CUBIN
 * for the context's device and loaded with the runtime (cudaLibraryLoadData);
 * NVRTC (libnvrtc.so of the CUDA major version built with) is loaded at the
 * first operator from the library path, else from the toolkit the library
 * was built with; not found: PP_ERROR_UNSUPPORTED naming it.
 * An operator belongs to its context: use it with that context only (else
 * PP_ERROR_INVALID_ARGUMENT) and destroy it before the context.
 * Determinism: results are functions of the input and the context's thread
 * count; where pp_combine is exactly associative (integers, max, min,
 * composition of integer maps) they are the sequential fold's.
 */
typedef struct pp_operator pp_operator;
PP_API pp_status pp_operator_create(pp_context *ctx, const char *source, size_t element_size, const void *identity,
                                    int commutative, pp_operator **op);
/** Frees op (NULL: nothing). The compiled code stays with the context. */
PP_API void pp_operator_destroy(pp_operator *op);
/** out (one element) = in[0] . in[1] . ... . in[n-1] (n == 0: the
 *  identity). in: n elements, out: one, context memory. */
PP_API pp_status pp_reduce_op(pp_context *ctx, const pp_operator *op, const void *in, size_t n, void *out);
/** out[i] = in[0] . ... . in[i] (inclusive), or the identity . in[0] . ...
 *  . in[i-1] (exclusive: out[0] is the identity). in == out is allowed,
 *  any other overlap is PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_scan_op(pp_context *ctx, const pp_operator *op, pp_scan_kind kind, const void *in, void *out,
                            size_t n);
/*
 * Segmented and by-key forms with an operator of the user's own: the same
 * semantics as pp_segmented_reduce, pp_segmented_scan, pp_reduce_by_key and
 * pp_scan_by_key, with op replacing (type, op). in, out, values and
 * values_out are arrays of op's elements, context memory aligned to the
 * element type; an empty segment's result is op's identity, an exclusive
 * scan starts each segment (run) with it; the elements of a segment are
 * combined in order, never commuted. The offsets: nseg + 1 uint64_t of
 * context memory, checked as for the built-in forms (on cpu every offset
 * before anything is written; on opencl and cuda clamped to n on the
 * device, never read back, with the same bounds on what is written).
 * nseg == 0 succeeds at once (in, out and offsets may be NULL); n == 0
 * gives every segment empty. Determinism: as pp_reduce_op and pp_scan_op
 * (the grouping of a segment's elements may follow the backend and the
 * thread count; exactly associative operators give the sequential fold).
 * Algorithms: one per backend (the choices of pp_set_algorithm do not
 * apply). Backends: cpu, cuda and opencl; elsewhere PP_ERROR_UNSUPPORTED.
 */
/** out[s] = in[offsets[s]] . ... . in[offsets[s+1] - 1] (empty: the
 *  identity); out: nseg elements, not overlapping in or offsets. */
PP_API pp_status pp_segmented_reduce_op(pp_context *ctx, const pp_operator *op, const void *in, size_t n,
                                        const uint64_t *offsets, size_t nseg, void *out);
/** pp_scan_op within each segment (exclusive: the identity at each
 *  segment's first element); out[i] outside every segment untouched; in ==
 *  out allowed, any other overlap, or out over offsets, is
 *  PP_ERROR_INVALID_ARGUMENT. */
PP_API pp_status pp_segmented_scan_op(pp_context *ctx, const pp_operator *op, pp_scan_kind kind,
                                      const void *in, void *out, size_t n, const uint64_t *offsets, size_t nseg);
/** Runs of equal neighbouring keys of key_type (compared as
 *  pp_reduce_by_key compares: NaNs never equal, -0.0 == +0.0):
 *  keys_out[r] = the first key of run r, values_out[r] = its values folded
 *  with op in order, count = the number of runs (one uint64_t of context
 *  memory); keys_out and values_out have room for n. No array overlaps
 *  another. n == 0: count = 0, nothing else written. How: the runs are
 *  found by pp_run_length_encode's slot, their offsets by a scan of the
 *  lengths, then the segmented reduce; the number of runs is read back to
 *  the host once (one synchronization on cuda and opencl). Working memory:
 *  16 (n + 1) bytes of context memory, allocated for the call. */
PP_API pp_status pp_reduce_by_key_op(pp_context *ctx, pp_type key_type, const pp_operator *op,
                                     const void *keys, const void *values, size_t n,
                                     void *keys_out, void *values_out, uint64_t *count);
/** pp_scan_op of values restarting at each run's first element (runs as
 *  for pp_reduce_by_key_op; exclusive: the identity there); out: n
 *  elements, out == values allowed. The same route and host read as
 *  pp_reduce_by_key_op; working memory 16 (n + 1) bytes plus n keys. */
PP_API pp_status pp_scan_by_key_op(pp_context *ctx, pp_type key_type, const pp_operator *op, pp_scan_kind kind,
                                   const void *keys, const void *values, void *out, size_t n);

/* ------------------------------------------------------------------------ */
/* Algorithm selection                                                      */
/* ------------------------------------------------------------------------ */
typedef enum pp_primitive {
    PP_PRIM_REDUCE = 0, PP_PRIM_SCAN = 1, PP_PRIM_HISTOGRAM = 2,
    PP_PRIM_SELECT = 3,  /* select_flagged, select_if, unique, partition_if */
    PP_PRIM_SORT = 4     /* sort, sort_pairs, their _copy forms and argsort */
} pp_primitive;
#define PP_PRIM_COUNT 5

/* Algorithms, for study and benchmarking; the default (AUTO) is what an
 * application should use. Which backends accept which value, for which
 * primitives, is listed per value; any other choice is PP_ERROR_UNSUPPORTED
 * from pp_set_algorithm. Each one's idea, work and pitfalls:
 * docs/algorithms.md; what each backend's AUTO runs, in a matrix of
 * primitive, backend and algorithm: docs/backends.md. */
typedef enum pp_algorithm {
    PP_ALGO_AUTO = 0,                /* every backend, every primitive (the default) */
    PP_ALGO_SEQUENTIAL = 1,          /* cpu, every primitive: the plain one-thread loops */
    PP_ALGO_DECOUPLED_LOOKBACK = 2,  /* cuda scan and select: a single pass in which tiles
                                        find their prefix by looking back at earlier
                                        tiles' published results */
    PP_ALGO_REDUCE_THEN_SCAN = 3,    /* cpu, cuda and opencl scan: tile totals, a scan of
                                        them, then a scan of each tile from its prefix */
    PP_ALGO_ONESWEEP = 4,            /* cuda sort, and opencl sort on NVIDIA GPUs of
                                        compute capability 7.0 on (elsewhere a sort call
                                        returns PP_ERROR_UNSUPPORTED): LSD radix sort, one
                                        pass per digit with look-back over digit offsets */
    PP_ALGO_BLELLOCH = 5,            /* cuda scan: Blelloch's work-efficient up-sweep and
                                        down-sweep, unpadded */
    PP_ALGO_GLOBAL_ATOMIC = 6,       /* cuda and opencl histogram: samples counted straight
                                        into the result with atomics */
    PP_ALGO_PRIVATE_ATOMIC = 7,      /* cuda and opencl histogram: each block (work-group)
                                        counts into a private histogram, then adds its
                                        bins into the result with atomics (where the bins
                                        do not fit: see pp_histogram_even) */
    PP_ALGO_PRIVATE_REDUCE = 8,      /* cuda and opencl histogram: private histograms as
                                        above, summed bin by bin in a fixed order (no
                                        atomics on the result) */
    /* The course notes' path from naive to efficient, on cuda (values 5 to
     * 8 above belong to it too; see docs/algorithms.md for each one's idea,
     * work, steps, pitfalls and measured speed). Every one serves every type,
     * operator and size, except PP_ALGO_NAIVE (n <= 65536: PP_ERROR_UNSUPPORTED
     * above) and the PRIVATE histograms on cuda where the bins do not fit
     * shared memory (PP_ERROR_UNSUPPORTED). They are for study and
     * comparison, not speed: use AUTO for speed. */
    PP_ALGO_BLELLOCH_PADDED = 9,     /* cuda and opencl scan: Blelloch with shared (opencl:
                                        local) memory padded against bank conflicts */
    PP_ALGO_INTERLEAVED_DIVERGENT = 10, /* cuda reduce: interleaved addressing, active threads
                                        chosen by t % (2 * stride) (divergent warps) */
    PP_ALGO_INTERLEAVED_STRIDED = 11,/* cuda reduce: interleaved addressing, index
                                        2 * stride * t (no divergence, bank conflicts) */
    PP_ALGO_SEQUENTIAL_ADDRESSING = 12, /* cuda reduce: stride halving, consecutive active
                                        threads */
    PP_ALGO_FIRST_ADD = 13,          /* cuda reduce: first add during load (two elements
                                        per thread) */
    PP_ALGO_CASCADE = 14,            /* cuda reduce: grid-stride accumulation, then tile
                                        reduction */
    PP_ALGO_LAUNCH_PER_STEP = 15,    /* cuda reduce: one launch per halving step */
    PP_ALGO_WINDOWED = 16,           /* cuda reduce: each thread folds a window of elements
                                        per launch */
    PP_ALGO_WARP_SHUFFLE = 17,       /* cuda reduce: warp-shuffle tree; cuda scan:
                                        warp-shuffle multiscan (warp scans, then a scan of
                                        warp totals) */
    PP_ALGO_NAIVE = 18,              /* cuda scan: each output sums its own prefix
                                        (quadratic work; n <= 65536) */
    PP_ALGO_HILLIS_STEELE = 19,      /* cuda scan: Hillis-Steele-Horn, double-buffered */
    PP_ALGO_SCAN_SCATTER = 20,       /* cuda select: exclusive scan of flags, then scatter */
    PP_ALGO_BALLOT = 21,             /* cuda select: warp ballot and popcount */
    PP_ALGO_SPLIT_RADIX = 22,        /* cuda sort: split radix sort, one bit per pass, on a
                                        scan */
    PP_ALGO_COUNT_SCAN_SCATTER = 23, /* cuda and opencl sort: LSD radix sort with
                                        multi-bit digits, each pass a count, a scan and a
                                        scatter */
    PP_ALGO_EXACT = 24               /* cpu, cuda and opencl reduce and scan: f32 and f64 sums correctly
                                        rounded, the same bits on every backend, device,
                                        thread count and run (see pp_reduce); for every
                                        other type and operator, the default algorithm */
} pp_algorithm;
#define PP_ALGO_COUNT 25

PP_API const char *pp_primitive_name(pp_primitive prim);
PP_API const char *pp_algorithm_name(pp_algorithm algo);

/** Chooses the algorithm for later calls of a primitive on ctx.
 *  PP_ERROR_UNSUPPORTED if the backend does not have it (the choice is then
 *  unchanged). An algorithm that cannot serve a particular type or operator
 *  makes that call return PP_ERROR_UNSUPPORTED. */
PP_API pp_status pp_set_algorithm(pp_context *ctx, pp_primitive prim, pp_algorithm algo);

/** The algorithm chosen for a primitive (PP_ALGO_AUTO unless set). */
PP_API pp_algorithm pp_get_algorithm(const pp_context *ctx, pp_primitive prim);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PARPRIM_H */
