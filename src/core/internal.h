/* Internal interface between the core (argument checks, dispatch) and the
 * backends. Each backend is one table of function pointers; the core checks
 * every argument once before calling into it, so a backend may assume valid
 * arguments (non-NULL arrays for n > 0, enums in range, no bad overlap). */
#ifndef PP_CORE_INTERNAL_H
#define PP_CORE_INTERNAL_H

#include "parprim.h"
#include "types.h"

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PP_PRINTF(a, b)
#endif

/* What each primitive's backend function receives. Every struct starts
 * with fn, the name of the public call ("pp_select_if", ...), so that a
 * backend's error messages name the call the user made. */
typedef struct pp_reduce_args {
    const char *fn;
    pp_type type;
    pp_op op;
    const void *in;
    size_t n;
    void *out;
} pp_reduce_args;

typedef struct pp_scan_args {
    const char *fn;
    pp_type type;
    pp_op op;
    pp_scan_kind kind;
    const void *in;
    void *out; /* may be in */
    size_t n;  /* > 0 */
    /* pp_scan_init: one element of context memory, not overlapping out,
     * that the scan starts from (inclusive out[i] = init op in[0] op ...
     * op in[i], exclusive out[0] = init); NULL for pp_scan. Only the
     * scan_init slots are given a non-NULL init. */
    const void *init;
} pp_scan_args;

typedef struct pp_histogram_args {
    const char *fn;
    pp_type type;
    const void *samples;
    size_t n;
    size_t nbins;
    const void *lower, *upper; /* host, even bins; NULL for range bins */
    const void *edges;         /* host, nbins + 1 values; NULL for even bins */
    uint64_t *counts;
    /* Range bins whose edges are close to equal (set by the core, see
     * pp_hist_guess in api.c): guess_scale > 0, and for every sample x in
     * [edges[0], edges[nbins]) pp_hist_guess(x) is x's bin or a neighbour of
     * it, so one comparison with edges[g] and one with edges[g + 1] correct
     * it. guess_scale == 0: no guess, search the edges. */
    double guess_lo, guess_scale;
} pp_histogram_args;

/* The guessed bin of a range-bins sample x (converted to double): the
 * backends evaluate this same expression (no fused multiply-add: a product
 * alone) so that the core's check holds for them. */
static inline uint64_t pp_hist_guess(double x, double lo, double scale, uint64_t nbins)
{
    const double k = (x - lo) * scale;
    return k >= (double)(nbins - 1) ? nbins - 1 : k > 0 ? (uint64_t)k : 0;
}

typedef enum pp_select_mode {
    PP_SELECT_FLAGGED = 0,  /* flags[i] != 0 */
    PP_SELECT_IF = 1,       /* in[i] cmp value */
    PP_SELECT_UNIQUE = 2,   /* i == 0 || in[i] != in[i-1] */
    PP_SELECT_PARTITION = 3 /* as IF, the rest written after the selected */
} pp_select_mode;
#define PP_SELECT_MODE_COUNT 4

typedef struct pp_select_args {
    const char *fn;
    pp_type type;
    pp_select_mode mode;
    const void *in;
    const uint8_t *flags; /* FLAGGED only */
    size_t n;
    pp_cmp cmp;           /* IF and PARTITION */
    const void *value;    /* host pointer, IF and PARTITION */
    void *out;
    uint64_t *count;
} pp_select_args;

/* The sort reads keys_in (values_in) and leaves the result in keys
 * (values). keys_in == keys and values_in == values (in place: pp_sort,
 * pp_sort_pairs, and every call to a slot without sort_reads_inputs),
 * or neither (pp_sort_copy, pp_sort_pairs_copy on a backend with it):
 * then no array overlaps another. */
typedef struct pp_sort_args {
    const char *fn;
    pp_type type;
    void *keys;
    void *values;      /* NULL: keys only */
    size_t value_size; /* 1, 2, 4 or 8 with values */
    size_t n;          /* >= 2 */
    pp_order order;
    const void *keys_in;
    const void *values_in; /* NULL: keys only */
} pp_sort_args;

/* pp_segmented_reduce and pp_segmented_scan: segment s is
 * [offsets[s], offsets[s+1]), nseg + 1 offsets in context memory. The core
 * checks what it can without reading context memory (NULLs, sizes,
 * overlap, alignment); the offsets themselves (non-decreasing, at most n)
 * are the backend's to check where it can read them before writing
 * anything (cpu), or to clamp so that no kernel goes out of bounds. For
 * nseg == 0 the core returns before the backend. */
typedef struct pp_segmented_args {
    const char *fn;
    pp_type type;
    pp_op op;
    pp_scan_kind kind; /* scan only */
    const void *in;
    void *out;         /* reduce: nseg elements; scan: n elements, may be in */
    size_t n;
    const uint64_t *offsets;
    size_t nseg;       /* > 0 */
    /* pp_segmented_reduce_op, pp_segmented_scan_op and the by-key forms
     * with an operator (on the runs' offsets): the operator, whose
     * elements in and out hold (type and op unused); else NULL. */
    const pp_operator *user_op;
} pp_segmented_args;

/* pp_argsort: keys (n >= 1 elements, read only), indices (n elements of
 * index_type, PP_U32 or PP_U64, not overlapping keys). */
typedef struct pp_argsort_args {
    const char *fn;
    pp_type type;
    const void *keys;
    size_t n; /* >= 1 */
    pp_order order;
    pp_type index_type;
    void *indices;
} pp_argsort_args;

/* pp_segmented_sort and pp_segmented_sort_pairs: each segment
 * [offsets[s], offsets[s+1]) of keys (and values) sorted in place as
 * pp_sort sorts; elements outside every segment untouched. The offsets are
 * the backend's to check or clamp, as for pp_segmented_args. For nseg == 0
 * or n == 0 the core returns before the backend. */
typedef struct pp_segsort_args {
    const char *fn;
    pp_type type;
    void *keys;
    void *values;      /* NULL: keys only */
    size_t value_size; /* 1, 2, 4 or 8 with values */
    size_t n;          /* >= 1 */
    const uint64_t *offsets;
    size_t nseg;       /* >= 1 */
    pp_order order;
} pp_segsort_args;

/* pp_reduce_by_key, pp_scan_by_key and pp_run_length_encode: runs of equal
 * neighbouring keys (C's ==: NaNs never equal, -0.0 == +0.0). No two
 * arrays overlap, except values_out == values for the scan. n == 0 never
 * reaches the backend (the core writes count = 0). */
typedef enum pp_bykey_mode { PP_BYKEY_REDUCE, PP_BYKEY_SCAN, PP_BYKEY_RLE } pp_bykey_mode;
typedef struct pp_bykey_args {
    const char *fn;
    pp_bykey_mode mode;
    pp_type key_type;
    pp_type value_type;   /* reduce, scan (RLE: key_type) */
    pp_op op;             /* reduce, scan */
    pp_scan_kind kind;    /* scan */
    const void *keys;     /* n elements (RLE: in) */
    const void *values;   /* n elements (RLE: NULL) */
    size_t n;             /* >= 1 */
    void *keys_out;       /* reduce: first key of each run; RLE: values_out; room for n (scan: NULL) */
    void *values_out;     /* reduce: fold of each run, room for n; scan: out, n elements (RLE: NULL) */
    uint64_t *counts_out; /* RLE: length of each run, room for n (else NULL) */
    uint64_t *count;      /* reduce, RLE: the number of runs, one uint64_t (scan: NULL) */
} pp_bykey_args;

/* pp_top_k: the first k of the stable sort of in[0 .. n) in order
 * (pp_sort's order: ties by index ascending), sorted, into keys_out (k
 * elements) and indices_out (k uint64_t, or NULL: not wanted). 1 <= k <= n
 * (the core clamps k and returns before the backend for k == 0 or n == 0);
 * no output overlaps in or the other output. */
typedef struct pp_top_k_args {
    const char *fn;
    pp_type type;
    const void *in;
    size_t n; /* >= 1 */
    size_t k; /* 1 .. n */
    pp_order order;
    void *keys_out;
    uint64_t *indices_out; /* may be NULL */
} pp_top_k_args;

/* pp_lower_bound and pp_upper_bound: for each of the m queries, out[j] =
 * the first i in [0, n] with !(sorted[i] before queries[j]) (lower) or
 * with queries[j] before sorted[i] (upper), "before" pp_sort's order for
 * order. m == 0 never reaches the backend; n may be 0 (sorted then may be
 * NULL, every out[j] = 0). out overlaps neither input. The backend must
 * stay in bounds whatever sorted holds (unsorted: any out[j] in [0, n]). */
typedef struct pp_search_args {
    const char *fn;
    pp_type type;
    const void *sorted;
    size_t n;
    pp_order order;
    const void *queries;
    size_t m;  /* >= 1 */
    int upper; /* 0: lower bound, 1: upper bound */
    uint64_t *out;
} pp_search_args;

/* pp_merge and pp_merge_pairs: the stable merge of a (na keys) and b (nb
 * keys), each sorted in order, into keys_out (na + nb keys; an a key
 * before an equal b key), the values moving with their keys. na + nb ==
 * 0 never reaches the backend; a side of 0 keys may be NULL. The outputs
 * overlap no input nor each other. The backend must stay in bounds
 * whatever a and b hold (unsorted: some arrangement of outputs). */
typedef struct pp_merge_args {
    const char *fn;
    pp_type type;
    const void *a_keys, *a_values; /* a_values NULL: keys only */
    size_t na;
    const void *b_keys, *b_values;
    size_t nb;
    size_t value_size; /* 1, 2, 4 or 8 with values, else 0 */
    void *keys_out, *values_out;
    pp_order order;
} pp_merge_args;

/* pp_reduce_to and pp_scan_to with in_type != out_type, a pair of
 * PP_FOR_EACH_WIDEN (types.h), op defined on out_type: each input element
 * converted to out_type, then combined in out_type. n >= 1 (the core runs
 * pp_reduce's slot of out_type for n == 0, and a scan of n == 0 does
 * nothing); out: one out_type element (reduce) or n (scan), overlapping
 * nothing; kind read by the scan only. */
typedef struct pp_convert_args {
    const char *fn;
    pp_type in_type, out_type;
    pp_op op;
    pp_scan_kind kind;
    const void *in;
    size_t n;
    void *out;
} pp_convert_args;

/* pp_argmin (max == 0) and pp_argmax (max == 1): *index = the position of
 * the first minimum (maximum) of in[0 .. n), or of the first NaN where
 * floats hold one; -0.0 == +0.0. n >= 1; index (one uint64_t) overlaps
 * nothing. */
typedef struct pp_arg_args {
    const char *fn;
    pp_type type;
    const void *in;
    size_t n; /* >= 1 */
    int max;
    uint64_t *index;
} pp_arg_args;

typedef pp_status (*pp_reduce_fn)(pp_context *ctx, const pp_reduce_args *a);
typedef pp_status (*pp_scan_fn)(pp_context *ctx, const pp_scan_args *a);
typedef pp_status (*pp_histogram_fn)(pp_context *ctx, const pp_histogram_args *a);
typedef pp_status (*pp_select_fn)(pp_context *ctx, const pp_select_args *a);
typedef pp_status (*pp_sort_fn)(pp_context *ctx, const pp_sort_args *a);
typedef pp_status (*pp_segmented_fn)(pp_context *ctx, const pp_segmented_args *a);
typedef pp_status (*pp_argsort_fn)(pp_context *ctx, const pp_argsort_args *a);
typedef pp_status (*pp_segsort_fn)(pp_context *ctx, const pp_segsort_args *a);
typedef pp_status (*pp_bykey_fn)(pp_context *ctx, const pp_bykey_args *a);
typedef pp_status (*pp_top_k_fn)(pp_context *ctx, const pp_top_k_args *a);
typedef pp_status (*pp_search_fn)(pp_context *ctx, const pp_search_args *a);
typedef pp_status (*pp_merge_fn)(pp_context *ctx, const pp_merge_args *a);
typedef pp_status (*pp_convert_fn)(pp_context *ctx, const pp_convert_args *a);
typedef pp_status (*pp_arg_fn)(pp_context *ctx, const pp_arg_args *a);

/* A backend: one table with named slots (fill it with designated
 * initializers). The primitives have one slot per pp_algorithm: the
 * [PP_ALGO_AUTO] slot is never NULL, any other is NULL where the backend
 * has no such algorithm, so what a backend offers is read in its table
 * alone (pp_set_algorithm accepts exactly the non-NULL slots). */
/* ---- operators of the user's own (api_operator.c) ---------------------------- */
struct pp_operator {
    pp_context *ctx;          /* the context it belongs to */
    size_t elem;              /* element_size */
    size_t align;             /* the element type's alignment (set by the backend's build) */
    int commutative;
    unsigned char *identity;  /* elem bytes */
    uint64_t hash;            /* pp_hash_bytes of the source and elem: the backends' cache key */
    size_t compiled_elem;     /* sizeof(pp_elem) of the compiled source (set by the backend's build) */
    void *impl;               /* the backend's compiled code, owned by the context */
};
/* FNV-1a of bytes, continued from h (start: PP_HASH_START). */
#define PP_HASH_START 0xcbf29ce484222325ull
uint64_t pp_hash_bytes(uint64_t h, const void *p, size_t n);
typedef struct pp_op_reduce_args {
    const char *fn;
    const pp_operator *op;
    const void *in;
    size_t n;
    void *out;
} pp_op_reduce_args;
typedef struct pp_op_scan_args {
    const char *fn;
    const pp_operator *op;
    pp_scan_kind kind;
    const void *in;
    void *out;
    size_t n;
} pp_op_scan_args;

typedef struct pp_backend_ops {
    pp_backend id;
    /* 1 if memory handles are addresses, so the core can check overlap by
     * comparing ranges (cpu, cuda); 0 for opaque handles (cl_mem). */
    int addressable;
    pp_status (*probe)(void); /* PP_SUCCESS or PP_ERROR_BACKEND_UNAVAILABLE */
    /* pp_create with PP_BACKEND_AUTO, after probe succeeded: 1 if the
     * backend is a good choice for pp_options.device (opencl: only GPUs);
     * NULL: never chosen by AUTO before the fallback (core/registry.c). */
    int (*auto_choice)(int device);
    /* Called before every primitive's slot (NULL: nothing to do), e.g. to
     * make the context's device current. */
    pp_status (*enter)(pp_context *ctx, const char *fn);
    pp_status (*create)(pp_context *ctx, const pp_options *opt);
    void (*destroy)(pp_context *ctx);
    pp_status (*set_stream)(pp_context *ctx, void *native);
    /* The native stream or queue the context's work is queued on (cpu: NULL). */
    void *(*stream)(const pp_context *ctx);
    pp_status (*synchronize)(pp_context *ctx);
    pp_status (*mem_alloc)(pp_context *ctx, void **p, size_t bytes);
    pp_status (*mem_free)(pp_context *ctx, void *p);
    pp_status (*upload)(pp_context *ctx, void *dst, const void *host_src, size_t bytes);
    pp_status (*download)(pp_context *ctx, void *host_dst, const void *src, size_t bytes);
    pp_status (*copy)(pp_context *ctx, void *dst, const void *src, size_t bytes);
    /* pp_context_memory: fills every field (info is not NULL). */
    pp_status (*memory_info)(pp_context *ctx, pp_memory_info *info);
    pp_reduce_fn reduce[PP_ALGO_COUNT];
    pp_scan_fn scan[PP_ALGO_COUNT];
    /* pp_scan_init (a->init set) follows the algorithm chosen for
     * PP_PRIM_SCAN, picked as the segmented forms are (below): the chosen
     * algorithm's slot if not NULL, else [PP_ALGO_AUTO]; PP_ALGO_EXACT on a
     * f32 or f64 PP_SUM only from its own slot. All NULL:
     * PP_ERROR_UNSUPPORTED. */
    pp_scan_fn scan_init[PP_ALGO_COUNT];
    pp_histogram_fn histogram[PP_ALGO_COUNT];
    pp_select_fn select[PP_ALGO_COUNT];
    pp_sort_fn sort[PP_ALGO_COUNT];
    /* Per sort slot: 1 if it reads a->keys_in and a->values_in itself (an
     * out-of-place sort where they are not keys and values); 0: it sorts
     * in place (reads keys and values alone), and for pp_sort_copy and
     * pp_sort_pairs_copy the core first copies the inputs into the
     * outputs with the copy slot. */
    unsigned char sort_reads_inputs[PP_ALGO_COUNT];
    /* pp_top_k follows the algorithm chosen for PP_PRIM_SORT: its slot if
     * not NULL, else [PP_ALGO_AUTO]; all NULL: PP_ERROR_UNSUPPORTED. */
    pp_top_k_fn top_k[PP_ALGO_COUNT];
    /* The segmented forms follow the algorithm chosen for PP_PRIM_REDUCE
     * (segmented_reduce) and PP_PRIM_SCAN (segmented_scan), which
     * pp_set_algorithm checked against reduce and scan, not these slots.
     * So any slot may be NULL, [PP_ALGO_AUTO] too, and the core picks: the
     * chosen algorithm's slot if not NULL, else the [PP_ALGO_AUTO] slot,
     * except PP_ALGO_EXACT on a f32 or f64 PP_SUM, which only its own slot
     * serves (else PP_ERROR_UNSUPPORTED: never an inexact sum for an exact
     * one); the [PP_ALGO_EXACT] slot is given those calls alone (the rest
     * go to [PP_ALGO_AUTO]). No slot at all: PP_ERROR_UNSUPPORTED ("not available on the
     * cuda backend yet"). */
    pp_segmented_fn segmented_reduce[PP_ALGO_COUNT];
    pp_segmented_fn segmented_scan[PP_ALGO_COUNT];
    /* pp_argsort follows the algorithm chosen for PP_PRIM_SORT: its slot if
     * not NULL, else [PP_ALGO_AUTO]; all NULL: PP_ERROR_UNSUPPORTED. */
    pp_argsort_fn argsort[PP_ALGO_COUNT];
    /* pp_segmented_sort(_pairs) follows PP_PRIM_SORT, pp_run_length_encode
     * PP_PRIM_SELECT: the chosen algorithm's slot if not NULL, else
     * [PP_ALGO_AUTO]; all NULL: PP_ERROR_UNSUPPORTED. pp_reduce_by_key
     * follows PP_PRIM_REDUCE and pp_scan_by_key PP_PRIM_SCAN, picked as the
     * segmented forms are (exact float sums only from their own slot). */
    pp_segsort_fn segmented_sort[PP_ALGO_COUNT];
    pp_bykey_fn reduce_by_key[PP_ALGO_COUNT];
    pp_bykey_fn scan_by_key[PP_ALGO_COUNT];
    pp_bykey_fn run_length_encode[PP_ALGO_COUNT];
    /* pp_exact_accumulate: the exact accumulator of a f32 or f64 PP_SUM
     * (a->op == PP_SUM, a->n > 0), written normalized (src/core/exact_acc.h:
     * chunks, flags, deposit count 0) to acc, host memory of
     * PP_XACC_F64_WORDS or PP_XACC_F32_WORDS words, overwritten; the core
     * adds it to the caller's sum. NULL: the backend has no exact sums. */
    pp_status (*exact_sum)(pp_context *ctx, const pp_reduce_args *a, int64_t *acc);
    /* The half types (PP_F16, PP_BF16): pp_reduce (PP_SUM, PP_MIN, PP_MAX)
     * and pp_scan (PP_SUM), whatever algorithm is chosen (their sums are
     * exact: nothing to choose); the other half calls go through the slots
     * below and the u16 and f32 slots (core/half_sort.c, half_wide.c).
     * NULL: PP_ERROR_UNSUPPORTED on this backend. */
    pp_reduce_fn half_reduce;
    pp_scan_fn half_scan;
    /* pp_scan_init with PP_SUM (a->init: one element of context memory):
     * out[i] the exact sum of init and the prefix, rounded once; an
     * exclusive out[0] is init itself. NULL: PP_ERROR_UNSUPPORTED. */
    pp_scan_fn half_scan_init;
    /* Their PP_SUM segmented reduce and scan (core/half_wide.c), exact and
     * rounded once per output like the above, whatever algorithm is
     * chosen. NULL: PP_ERROR_UNSUPPORTED on this backend. */
    pp_segmented_fn half_segmented_reduce;
    pp_segmented_fn half_segmented_scan;
    /* pp_reduce_by_key and pp_scan_by_key with PP_SUM of half values (keys
     * of another type: half keys arrive widened to f32), exact and rounded
     * once per output. NULL: PP_ERROR_UNSUPPORTED on this backend. */
    pp_bykey_fn half_reduce_by_key;
    pp_bykey_fn half_scan_by_key;
    /* The elementwise maps of the half types (pp_half_map below) over n
     * elements of context memory, in to out (not overlapping): the sorts'
     * order keys (core/half_sort.c, which sorts them with the u16 sort
     * slot) and the widening to f32 and back (core/half_wide.c, which runs
     * the f32 slots between). NULL: PP_ERROR_UNSUPPORTED on this backend. */
    pp_status (*half_map)(pp_context *ctx, const char *fn, pp_type type, int map, const void *in, void *out,
                          size_t n);
    /* pp_lower_bound and pp_upper_bound (search), pp_merge and
     * pp_merge_pairs (merge) follow PP_PRIM_SORT: the chosen algorithm's
     * slot if not NULL, else [PP_ALGO_AUTO]; all NULL: PP_ERROR_UNSUPPORTED
     * ("not available on the opencl backend yet"). */
    pp_search_fn search[PP_ALGO_COUNT];
    pp_merge_fn merge[PP_ALGO_COUNT];
    /* pp_reduce_to (reduce_to) and pp_argmin / pp_argmax (arg) follow
     * PP_PRIM_REDUCE, pp_scan_to (scan_to) PP_PRIM_SCAN, picked as the
     * segmented forms are: the chosen algorithm's slot if not NULL, else
     * [PP_ALGO_AUTO]; PP_ALGO_EXACT on a PP_SUM to f32 or f64 only from its own
     * slot (never an inexact sum for an exact one); all NULL:
     * PP_ERROR_UNSUPPORTED. Calls with in_type == out_type never reach
     * them (the core runs pp_reduce's and pp_scan's slots). */
    pp_convert_fn reduce_to[PP_ALGO_COUNT];
    pp_convert_fn scan_to[PP_ALGO_COUNT];
    pp_arg_fn arg[PP_ALGO_COUNT];
    /* Operators of the user's own: compile source for op (op->elem,
     * identity and hash set; sets op->impl, op->align and
     * op->compiled_elem, which the core checks against elem; the compiled
     * code cached by the context), and the reduce and scan with one. NULL:
     * PP_ERROR_UNSUPPORTED. */
    pp_status (*operator_build)(pp_context *ctx, pp_operator *op, const char *source);
    pp_status (*reduce_op)(pp_context *ctx, const pp_op_reduce_args *a);
    pp_status (*scan_op)(pp_context *ctx, const pp_op_scan_args *a);
    /* The segmented forms with one (api_operator_seg.c; the by-key forms
     * run them on the runs found by run_length_encode). NULL:
     * PP_ERROR_UNSUPPORTED. */
    pp_segmented_fn segmented_reduce_op;
    pp_segmented_fn segmented_scan_op;
} pp_backend_ops;

struct pp_context {
    const pp_backend_ops *ops;
    pp_algorithm algo[PP_PRIM_COUNT];
    int threads;            /* cpu worker threads; 0 on GPU backends */
    void *impl;             /* backend state */
    char device_name[160];
    char error[512];        /* pp_last_error: kept until the next failure */
    int failed;             /* pp_fail was called since the public call began */
};

/* Records a formatted message on ctx (if not NULL) and returns status. Only
 * for a call that fails: the message stays until the next failure. */
pp_status pp_fail(pp_context *ctx, pp_status status, const char *fmt, ...) PP_PRINTF(3, 4);

/* Begins a public call on ctx: PP_ERROR_INVALID_ARGUMENT, with the message
 * "fn: argument 'ctx' is NULL" kept for pp_last_error(NULL) in this thread,
 * if ctx is NULL; else PP_SUCCESS. */
pp_status pp_begin(const pp_context *ctx, const char *fn);
/* Ends a public call with the backend's status st: a failure that left no
 * message of its own gets a generic one naming fn, so that pp_last_error
 * never shows an older call's message for it. Returns st. */
pp_status pp_end(pp_context *ctx, const char *fn, pp_status st);

#define PP_BEGIN(ctx, fn)                                      \
    do {                                                       \
        if (pp_begin((ctx), (fn)) != PP_SUCCESS)               \
            return PP_ERROR_INVALID_ARGUMENT;                  \
    } while (0)

/* The backends built in (core/registry.c, the one file of the core that
 * names them): the table of backend b, or NULL if it is not built; and the
 * tables in the order pp_create's AUTO tries them, the last being the
 * fallback that is always built. */
const pp_backend_ops *pp_backend_table(pp_backend b);
const pp_backend_ops *const *pp_backend_auto_order(size_t *count);

/* pp_argsort from a backend's sort (core/argsort.c), for a backend whose
 * iota writes 0 .. n-1 as index_type (PP_U32 or PP_U64) to n elements of
 * context memory at out. a->n >= 1. The chosen sort slot must read its
 * inputs (sort_reads_inputs), else the [PP_ALGO_AUTO] one, which must. */
typedef pp_status (*pp_iota_fn)(pp_context *ctx, const char *fn, pp_type index_type, void *out, size_t n);
pp_status pp_argsort_by_sort(pp_context *ctx, const pp_argsort_args *a, pp_iota_fn iota);
/* The backend's mem_alloc of bytes into *p (a buffer of the call's own,
 * apart from the scratch a sort reuses); a failure names fn and what
 * (core/argsort.c). */
pp_status pp_alloc_buffer(pp_context *ctx, const char *fn, void **p, size_t bytes, const char *what);
/* Its body on buffers the backend provides (a->n >= 2): sorted, room for
 * n keys, and seq, for n indices (cuda: a buffer kept by the context). */
pp_status pp_argsort_sort_into(pp_context *ctx, const pp_argsort_args *a, pp_iota_fn iota, void *sorted, void *seq);
/* pp_top_k on the same steps (core/argsort.c): the argsort of all n keys
 * into buffers of its own (n keys, 2n uint64_t indices), then the first k
 * keys and indices copied into the outputs. */
pp_status pp_top_k_by_sort(pp_context *ctx, const pp_top_k_args *a, pp_iota_fn iota);

/* The maps of the half_map slot: what out[i] is, from in[i]. */
typedef enum pp_half_map {
    /* 0, 1, 2 (a pp_order): the u16 order key PP_HALF_SORT_KEY (half_key.h) of the bits in that order */
    PP_HALF_MAP_WIDEN = 3,       /* u32: the f32 bits of the same value (pp_xacc_f16_to_f32 / _bf16_) */
    PP_HALF_MAP_NARROW = 4,      /* u16 from u32: pp_xacc_f32_to_half, the bits kept (NaN payloads) */
    PP_HALF_MAP_NARROW_QNAN = 5, /* the same, every NaN the format's quiet NaN but a kept one */
    PP_HALF_MAP_WIDEN_KEEP = 6,  /* WIDEN, a NaN marked as kept (pp_xacc_half_to_f32_keep) */
} pp_half_map;

/* The half types through f32 (core/half_wide.c), arguments checked (the
 * half type in a->type), entered and ended there: the inputs widened to
 * f32 in working memory, the f32 slot of the chosen algorithm, its
 * outputs narrowed. select: pp_select_flagged (the u16 slot, no
 * widening), pp_select_if, pp_unique, pp_partition_if; histogram: the
 * bounds or edges are widened on the host, then the core's own checks
 * run on them (pp_half_histogram_bounds); scan: PP_MIN / PP_MAX scans
 * (a->init: pp_scan_init's, host); segmented: PP_MIN / PP_MAX segmented
 * reduce and scan; arg: pp_argmin / pp_argmax. */
pp_status pp_half_select(pp_context *ctx, const pp_select_args *a);
pp_status pp_half_histogram(pp_context *ctx, const pp_histogram_args *a);
pp_status pp_half_scan_minmax(pp_context *ctx, const pp_scan_args *a, int with_init);
pp_status pp_half_segmented(pp_context *ctx, const pp_segmented_args *a, int scan);
pp_status pp_half_arg(pp_context *ctx, const pp_arg_args *a);
/* pp_reduce_to (scan: pp_scan_to) from a half type to f32 or f64 (checked,
 * n >= 1, out overlapping nothing): the elements widened to f32, then the
 * f32 call of the algorithm chosen (f32: pp_reduce's / pp_scan's slot;
 * f64: the f32 -> f64 reduce_to / scan_to slot). */
pp_status pp_half_convert(pp_context *ctx, const pp_convert_args *a, int scan);
/* pp_reduce's and pp_scan's dispatch after their checks (api.c), the half
 * types included (with_init: pp_scan_init's): pp_reduce_to and pp_scan_to
 * run them for equal types. */
pp_status pp_reduce_run(pp_context *ctx, const pp_reduce_args *a);
pp_status pp_scan_run(pp_context *ctx, const pp_scan_args *a, int with_init);
/* PP_SUM segmented reduce (scan: scan) of a half type: the backend's
 * half_segmented_reduce (half_segmented_scan) slot, whatever algorithm is
 * chosen; none: unsupported. */
pp_status pp_half_segmented_sum(pp_context *ctx, const pp_segmented_args *a, int scan);
/* A by-key call or run-length encoding with half keys or half values
 * (checked; half values: PP_SUM, through the half_reduce_by_key /
 * half_scan_by_key slots): half keys widened, the f32-keyed slot (of
 * slots, picked for prim, for other values), the first keys of the runs
 * narrowed back bit for bit. */
pp_status pp_half_bykey(pp_context *ctx, const pp_bykey_args *a, pp_bykey_fn const *slots, pp_primitive prim);
/* The f32 bits of n half values of type at src (host) into dst (host). */
void pp_half_widen_host(pp_type type, const void *src, float *dst, size_t n);

/* The sorts of the half types (core/half_sort.c), whatever algorithm is
 * chosen: pp_half_sort_check fails with PP_ERROR_UNSUPPORTED for a half
 * type on a backend without half_map; pp_half_sort sorts a (a->n >= 2,
 * in place or not, with or without values) in NumPy's order, stable, the
 * bits moved unchanged, from the backend's half_map and u16 sort. */
pp_status pp_half_sort_check(pp_context *ctx, const char *fn, pp_type type);
pp_status pp_half_sort(pp_context *ctx, const pp_sort_args *a);
/* pp_lower_bound / pp_upper_bound and pp_merge / pp_merge_pairs of the
 * half types (arguments checked): the same on the order keys, through
 * the slot of the algorithm chosen for PP_PRIM_SORT; enter and end too. */
pp_status pp_half_search(pp_context *ctx, const pp_search_args *a);
pp_status pp_half_merge(pp_context *ctx, const pp_merge_args *a);
/* pp_top_k of a half type (entered, checked, 1 <= k <= n): half_sort.c. */
pp_status pp_half_top_k(pp_context *ctx, const pp_top_k_args *a);
/* pp_segmented_sort(_pairs) of a half type (checked, n >= 1, nseg >= 1):
 * the order keys sorted per segment by the u16 segmented sort, the bits
 * (then the caller's values, by a second sort of the same keys) as their
 * values; enter and end too. */
pp_status pp_half_segsort(pp_context *ctx, const pp_segsort_args *a);

/* 1 if the backend's table has algo for prim. */
int pp_backend_has_algorithm(const pp_backend_ops *ops, pp_primitive prim, pp_algorithm algo);

/* Records, for a call with no context (pp_create, or ctx == NULL), a
 * message kept per thread for pp_last_error(NULL); returns status. */
pp_status pp_thread_fail(pp_status status, const char *fmt, ...) PP_PRINTF(2, 3);
/* The thread's message (read and restored by pp_create's AUTO tries). */
char *pp_thread_error(size_t *cap);

/* 1 if two context-memory ranges overlap (for opaque handles: if they are
 * the same handle). */
int pp_core_overlap(const pp_context *ctx, const void *a, size_t abytes, const void *b, size_t bbytes);

/* Type properties from the X-macro. */
int pp_type_kind(pp_type type);
/* 1 if (in, out) is a pair of PP_FOR_EACH_WIDEN (types.h). */
int pp_type_widens(pp_type in, pp_type out);

/* Exact sums as values (exact.c): pp_exact_merge and pp_exact_round, and
 * what pp_exact_accumulate (api.c) shares with them. The chunks of type's
 * accumulator (exact_acc.h), 0 for a type without exact sums (all but f32
 * and f64). */
int pp_exact_chunks(pp_type type);
/* NULL where the PP_EXACT_WORDS words w are a state of type's sum that the
 * API accepts (normalized, in range, consistent); else a description of
 * the first fault ("word 3 = -5 is a chunk outside [0, 2^32)") in buf. */
const char *pp_exact_malformed(pp_type type, const int64_t *w, char *buf, size_t cap);
/* w += src, both accepted states of type; 0 (w unchanged) where the sum
 * would leave the range of a pp_exact_sum. src may be w. */
int pp_exact_add(pp_type type, int64_t *w, const int64_t *src);
/* The message (after the call's name) where it does. */
#define PP_EXACT_RANGE_MSG \
    "the sum is beyond the range of a pp_exact_sum (2^108 times the largest f64, 2^73 times the largest f32)"

#ifdef __cplusplus
}
#endif

#endif
