/* Shared pieces of the cpu backend: its state, scratch memory, work
 * splitting, and the per-type operators instantiated from the type list
 * (cpu_ops.inc; cpu_instances.h says how). */
#ifndef PP_CPU_INTERNAL_H
#define PP_CPU_INTERNAL_H

#include "internal.h"

#include <math.h>
#include <string.h>

typedef struct pp_cpu_state {
    void *scratch;        /* reusable working memory, 64-byte aligned */
    size_t scratch_bytes;
    void *runs;           /* the by-key forms' run offsets (pp_cpu_run_offsets), apart from scratch */
    size_t runs_bytes;
    void *op_cache;       /* the operators' compiled code loaded by this context (cpu_operator.c) */
} pp_cpu_state;

/* Operators of the user's own (cpu_operator.c): the backend's slots, and
 * the unloading of the compiled code at pp_destroy. */
pp_status pp_cpu_operator_build(pp_context *ctx, pp_operator *op, const char *source);
pp_status pp_cpu_reduce_op(pp_context *ctx, const pp_op_reduce_args *a);
pp_status pp_cpu_scan_op(pp_context *ctx, const pp_op_scan_args *a);
pp_status pp_cpu_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cpu_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a);
void pp_cpu_operators_free(pp_cpu_state *cs);

/* Returns scratch memory of at least bytes (kept by the context and reused
 * by later calls), or NULL with an out-of-memory message set on ctx. */
void *pp_cpu_scratch(pp_context *ctx, size_t bytes, const char *fn);
/* The same for a second region, which pp_cpu_scratch never moves: the run
 * offsets of the by-key forms stay there while the segmented kernels they
 * run use pp_cpu_scratch. */
void *pp_cpu_runs_scratch(pp_context *ctx, size_t bytes, const char *fn);

/* Reduce blocks and scan tiles (elements), shared by the plain and the
 * exact reduce and scan (cpu_reduce_scan.c, cpu_exact.c): the scan tile is
 * the unit of the prefix chain. */
#define PP_RB 8192
#define PP_ST 8192
/* The accumulators of a fold of sums (cpu_reduce_scan.inc, cpu_sum_vec.c):
 * element i + j into accumulator j, then a fixed tree; part of the bits. */
#define PP_LANES 16

/* ---- small arrays ------------------------------------------------------------------
 * Below these element counts a call runs inline on the calling thread: no
 * parallel region (whose start and join cost more than such work, and far
 * more when other processes hold the cores) and no scratch beyond what the
 * algorithm itself needs. From them on, one thread per half of the count
 * (pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_x / 2)). Measured in
 * bench/studies/cpu-small-arrays.md. */
#define PP_CPU_INLINE_REDUCE ((size_t)1 << 16)    /* reduce, reduce_to, argmin and argmax */
#define PP_CPU_INLINE_SCAN ((size_t)1 << 15)      /* scan, scan_to */
#define PP_CPU_INLINE_HISTOGRAM ((size_t)1 << 16) /* histogram_even, histogram_range */
#define PP_CPU_INLINE_SELECT ((size_t)1 << 16)    /* select, unique, partition */
#define PP_CPU_INLINE_SORT ((size_t)1 << 18)      /* sort, sort_pairs and their copies, argsort */
/* Sorts of at most this many keys: by insertion, stable, on the calling
 * thread, no scratch (the radix sort's setup costs more). */
#define PP_CPU_SORT_INSERTION 48

/* Threads worth using for work on n elements, at least grain per thread. */
static inline int pp_cpu_threads_for(const pp_context *ctx, size_t n, size_t grain)
{
    size_t t = n / grain;
    if (t < 1) t = 1;
    return t < (size_t)ctx->threads ? (int)t : ctx->threads;
}

/* [*b, *e) is part i of n items cut into parts nearly equal parts. */
static inline void pp_cpu_part(size_t n, size_t parts, size_t i, size_t *b, size_t *e)
{
    size_t q = n / parts, r = n % parts;
    *b = q * i + (i < r ? i : r);
    *e = *b + q + (i < r);
}

/* memcpy spread over the context's threads. */
void pp_cpu_parallel_copy(const pp_context *ctx, void *dst, const void *src, size_t bytes);
/* A zero byte into every page of [p, p + bytes), memory about to be
 * overwritten whole, a contiguous part per thread (cpu_backend.c). */
void pp_cpu_touch(const pp_context *ctx, void *p, size_t bytes);

/* The primitives: PP_ALGO_AUTO's, and PP_ALGO_SEQUENTIAL's (one thread,
 * one loop) in each file. */
pp_status pp_cpu_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_reduce_sequential(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cpu_scan_sequential(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cpu_scan_reduce_then_scan(pp_context *ctx, const pp_scan_args *a);
/* PP_ALGO_EXACT: f32 and f64 sums correctly rounded; the rest as AUTO. */
pp_status pp_cpu_reduce_exact(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_scan_exact(pp_context *ctx, const pp_scan_args *a);
/* The exact_sum slot (pp_exact_accumulate): the reduce's fold, not rounded. */
pp_status pp_cpu_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc);
/* The kernels of the exact sums for other files that fold and scan pieces
 * of arrays (cpu_segmented_exact.c): accumulators of `words` int64 words
 * (src/core/exact_acc.h), cleared by pp_xacc_clear(w, words - 2). */
typedef struct pp_cpu_xformat {
    size_t size;  /* element bytes */
    size_t words; /* accumulator words */
    void (*fold)(int64_t *w, const void *x, size_t n); /* w += x[0..n), not normalized */
    /* y[i] = the rounded prefix + x[0..i] (exclusive: x[0..i)); prefix
     * normalized; x must not be y (an uncertain output refolds x from the
     * last exact point) */
    void (*scan)(const int64_t *prefix, const void *x, void *y, size_t n, int excl);
    void (*result)(const int64_t *w, void *out); /* the rounding of w, one element */
} pp_cpu_xformat;
/* f32, f64, f16 and bf16 PP_SUM's format; NULL for every other type and
 * operator. */
const pp_cpu_xformat *pp_cpu_xformat_of(pp_type type, pp_op op);
/* Words between per-thread accumulators: whole 64-byte lines. */
size_t pp_cpu_xstride(const pp_cpu_xformat *f);
/* The half types' reduce (PP_SUM exact, PP_MIN, PP_MAX), scan (PP_SUM
 * exact) and sort keys (NumPy's order), cpu_half.c: the half slots. */
pp_status pp_cpu_half_reduce(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_half_scan(pp_context *ctx, const pp_scan_args *a);
pp_status pp_cpu_half_map(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out,
                           size_t n);
pp_status pp_cpu_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cpu_histogram_sequential(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a);
pp_status pp_cpu_select_sequential(pp_context *ctx, const pp_select_args *a);
pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a);
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a);
pp_status pp_cpu_segmented_reduce(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cpu_segmented_scan(pp_context *ctx, const pp_segmented_args *a);
/* PP_ALGO_EXACT's segmented forms (cpu_segmented_exact.c): f32 and f64 sums
 * exact per segment, every other type and operator the default's. */
pp_status pp_cpu_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cpu_segmented_scan_exact(pp_context *ctx, const pp_segmented_args *a);
/* Their work on offsets known to be good (non-decreasing, at most n: host
 * memory, checked or computed by the caller, as run offsets of a by-key
 * form are), for an f32 or f64 PP_SUM; scan: 0 reduce, 1 scan. */
pp_status pp_cpu_segmented_exact_run(pp_context *ctx, const pp_segmented_args *a, int scan);
/* The first s < nseg with off[s] >= x, else nseg (cpu_segmented.c). */
size_t pp_cpu_first_offset_at(const uint64_t *off, size_t nseg, uint64_t x);
pp_status pp_cpu_argsort(pp_context *ctx, const pp_argsort_args *a); /* every sort algorithm (cpu_sort.c) */
/* pp_top_k (cpu_topk.c): PP_ALGO_AUTO's, on up to every thread, and
 * PP_ALGO_SEQUENTIAL's on one. */
pp_status pp_cpu_top_k(pp_context *ctx, const pp_top_k_args *a);
pp_status pp_cpu_top_k_sequential(pp_context *ctx, const pp_top_k_args *a);
pp_status pp_cpu_segmented_sort(pp_context *ctx, const pp_segsort_args *a);
pp_status pp_cpu_segmented_sort_sequential(pp_context *ctx, const pp_segsort_args *a);
/* PP_SUCCESS if off[0 .. nseg] is non-decreasing and at most n; else
 * PP_ERROR_INVALID_ARGUMENT naming fn and the first bad offset. Reads
 * every offset, writes nothing (cpu_segmented.c). */
pp_status pp_cpu_check_offsets(pp_context *ctx, const char *fn, const uint64_t *off, size_t nseg, size_t n);
/* The segmented forms on offsets known to be valid (non-decreasing, at
 * most n: the by-key forms' own), without pp_cpu_segmented_*'s check. */
pp_status pp_cpu_segmented_reduce_trusted(pp_context *ctx, const pp_segmented_args *a);
pp_status pp_cpu_segmented_scan_trusted(pp_context *ctx, const pp_segmented_args *a);
/* The by-key forms (cpu_bykey.c): PP_ALGO_AUTO's, and PP_ALGO_SEQUENTIAL's
 * plain one-thread loops. */
pp_status pp_cpu_reduce_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_reduce_by_key_sequential(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_scan_by_key(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_scan_by_key_sequential(pp_context *ctx, const pp_bykey_args *a);
/* PP_ALGO_EXACT's (f32 and f64 sums): the exact segmented forms on the runs. */
pp_status pp_cpu_reduce_by_key_exact(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_scan_by_key_exact(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_run_length_encode(pp_context *ctx, const pp_bykey_args *a);
pp_status pp_cpu_run_length_encode_sequential(pp_context *ctx, const pp_bykey_args *a);
/* What every by-key form builds on: the runs of a->keys (a->n >= 1) as
 * *nruns + 1 offsets at *off (run r is [off[r], off[r+1]), off[*nruns] =
 * n), in pp_cpu_runs_scratch (valid until the next call that asks for it),
 * found on up to nt threads. */
pp_status pp_cpu_run_offsets(pp_context *ctx, const pp_bykey_args *a, int nt, uint64_t **off, size_t *nruns);
/* A by-key reduce or scan (a->mode) as a segmented one: the run offsets,
 * then seg on them (a pp_segmented_args over values, out values_out), then
 * for the reduce keys_out and count. An exact by-key slot is this with the
 * exact segmented slot as seg. */
pp_status pp_cpu_bykey_segmented(pp_context *ctx, const pp_bykey_args *a, pp_segmented_fn seg);
/* Search and merge (cpu_search.c): PP_ALGO_AUTO's, and PP_ALGO_SEQUENTIAL's
 * (the same kernels on one thread). */
pp_status pp_cpu_search(pp_context *ctx, const pp_search_args *a);
pp_status pp_cpu_search_sequential(pp_context *ctx, const pp_search_args *a);
pp_status pp_cpu_merge(pp_context *ctx, const pp_merge_args *a);
pp_status pp_cpu_merge_sequential(pp_context *ctx, const pp_merge_args *a);
/* pp_reduce_to, pp_scan_to (converting pairs) and pp_argmin / pp_argmax
 * (cpu_reduce_to.c). */
/* The default f32/f64 PP_SUM of pp_reduce, n >= 1, compensated (cpu_comp_sum.c). */
pp_status pp_cpu_comp_sum(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_cpu_reduce_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_cpu_scan_to(pp_context *ctx, const pp_convert_args *a);
pp_status pp_cpu_arg(pp_context *ctx, const pp_arg_args *a);
/* The f32 or f64 (type) MIN (max == 0) or MAX of x[0..n), n >= 1, into
 * *out, vectorized, in the bits of the operator's fold; 0 (nothing
 * written) if x holds a NaN, whose bits the caller's fold then decides
 * (cpu_minmax.c). */
int pp_cpu_fminmax(pp_type type, int max, const void *x, size_t n, void *out);
/* The first i < n with x[i] == *v, or (v NULL) with x[i] a NaN, in f32 or
 * f64 x (type); there must be one (cpu_minmax.c). */
size_t pp_cpu_ffirst(pp_type type, const void *x, size_t n, const void *v);
/* The number of i in [b, e) with i == 0 or in[i] != in[i - 1] (C's !=, as
 * pp_unique), in[] of type (cpu_select.c). */
size_t pp_cpu_count_heads(pp_type type, const void *in, size_t b, size_t e);

/* The vector kernels of sums of 4- (size 4) and 8-byte elements, integer
 * or float (flt), for the processor (cpu_sum_vec.c): the tile scan (nt:
 * streaming stores, for outputs larger than the caches) and the fold;
 * NULL where there is none (integers without AVX2), the template's then. */
typedef void (*pp_cpu_scan_fn)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
typedef uint64_t (*pp_cpu_fold_fn)(const void *x, size_t n);
pp_cpu_scan_fn pp_cpu_scan_sum_of(size_t size, int flt, int nt);
pp_cpu_fold_fn pp_cpu_fold_sum_of(size_t size, int flt);

/* The kernels of reduce and scan on one type and operator, for other
 * files that fold and scan pieces of arrays (cpu_segmented.c). Values
 * cross as the bits of one element in a uint64_t. */
typedef struct pp_cpu_fold_scan {
    size_t size;                                  /* element bytes */
    uint64_t identity;                            /* the accumulator's start (-0.0 for float sums) */
    uint64_t (*combine)(uint64_t a, uint64_t b);  /* a op b */
    uint64_t (*fold)(const void *x, size_t n);    /* n >= 1; a fixed order (cpu_reduce_scan.c) */
    /* y[0..n) = the scan of x[0..n) from carry; x == y is fine */
    void (*scan)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*public_identity)(void *out);           /* the identity the API writes */
} pp_cpu_fold_scan;
/* pp_reduce's and pp_scan's kernels for type and op (the vector ones where
 * the processor has them), for outputs of about out_bytes bytes. */
pp_cpu_fold_scan pp_cpu_fold_scan_of(pp_type type, pp_op op, size_t out_bytes);

/* Forces inlining, so that a loop written once with a compile-time constant
 * parameter is specialized in each function that calls it with one. */
#if defined(__GNUC__) || defined(__clang__)
#define PP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PP_ALWAYS_INLINE inline
#endif

/* ---- operators --------------------------------------------------------------------
 * pp_OP_S(a, b) and pp_id_OP_S() for every type suffix S and operator OP
 * (cpu_ops.inc). What the API writes as "the identity" of an operator is
 * PP_PUBLIC_ID(T, pp_id_OP_S()): +0.0 where the accumulator starts at -0.0. */
#define PP_PUBLIC_ID(T, id) ((T)((id) + 0))
#define PP_CPU_TEMPLATE "cpu_ops.inc"
#include "cpu_each_type.inc"

#endif
