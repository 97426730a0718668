/* The argument checks that the core's entry points share (api.c,
 * api_keyed.c, api_topk.c): each check once, named by the call in its message. */
#ifndef PP_CORE_CHECK_H
#define PP_CORE_CHECK_H

#include "internal.h"

#define FAIL(ctx, st, ...) return pp_fail((ctx), (st), __VA_ARGS__)
#define INVALID(ctx, ...) FAIL(ctx, PP_ERROR_INVALID_ARGUMENT, __VA_ARGS__)

/* The element type, and that n elements fit in size_t bytes; a half type
 * (PP_F16, PP_BF16) only in the calls that take it (check.c's list, by
 * fn; else PP_ERROR_UNSUPPORTED). */
pp_status pp_check_type_n(pp_context *ctx, const char *fn, pp_type type, size_t n);
/* pp_check_type_n for the keys of a by-key call or run-length encoding,
 * which take the half types whatever the call list says (compared as f32:
 * core/half_wide.c). */
pp_status pp_check_key_type_n(pp_context *ctx, const char *fn, pp_type type, size_t n);
/* op is a pp_op defined on type (integer-only operators on floats, and
 * operators fn does not take on a half type: PP_ERROR_UNSUPPORTED). */
pp_status pp_check_op(pp_context *ctx, const char *fn, pp_type type, pp_op op);
pp_status pp_check_cmp(pp_context *ctx, const char *fn, pp_cmp cmp);
pp_status pp_check_kind(pp_context *ctx, const char *fn, pp_scan_kind kind);
pp_status pp_check_order(pp_context *ctx, const char *fn, pp_order order);
/* The backend's enter hook (NULL: nothing to do). */
pp_status pp_enter(pp_context *ctx, const char *fn);
/* The arrays of a segmented reduce or scan (scan: out has n elements and
 * may be in; reduce: nseg) of elements of sz bytes aligned to align, and
 * nseg + 1 offsets (present, aligned, fitting size_t bytes, not under out).
 * nseg == 0: nothing else checked (the caller returns at once). */
pp_status pp_check_segmented(pp_context *ctx, const char *fn, const void *in, const void *out, size_t n,
                             const uint64_t *offsets, size_t nseg, size_t sz, size_t align, int scan);
/* The arrays of a by-key call (a->value_type unused: values of vs bytes
 * aligned to valign): present where n > 0, aligned, no overlap but out ==
 * values for the scan, count present for the reduce and RLE. */
pp_status pp_check_bykey(pp_context *ctx, const pp_bykey_args *a, size_t vs, size_t valign);
/* An operator of the user's own: given, of this context, and n of its
 * elements fit in size_t bytes (api_operator.c). */
pp_status pp_check_operator(pp_context *ctx, const char *fn, const pp_operator *op, size_t n);
/* The index of the slot to run among slots[] (present[a]: slot a is not
 * NULL) for a call that follows the algorithm chosen for prim: the chosen
 * one's, else the default's; where sums is 1, PP_ALGO_EXACT on a f32 or
 * f64 PP_SUM is served by its own slot alone (never an inexact sum for an
 * exact one), and its slot serves nothing else (other types and operators
 * run the default, as pp_reduce's). -1 with the message set where there
 * is none ("fn: not available on the X backend yet" where no slot is). */
int pp_pick_slot(pp_context *ctx, const char *fn, const int *present, pp_primitive prim, pp_type type, pp_op op,
                 int sums);

#define TRY(x)                             \
    do {                                   \
        pp_status st_ = (x);               \
        if (st_ != PP_SUCCESS) return st_; \
    } while (0)

/* The macros below name the call by a variable fn in scope. */
#define NEED(ptr, name)                                                  \
    do {                                                                 \
        if (!(ptr)) INVALID(ctx, "%s: argument '%s' is NULL", fn, name); \
    } while (0)

/* The backend's enter hook, then the slot of the algorithm chosen for the
 * primitive (pp_set_algorithm let only non-NULL slots be chosen). */
#define DISPATCH(slots, prim, args)                                               \
    do {                                                                          \
        pp_status st_ = pp_enter(ctx, fn);                                        \
        if (st_ == PP_SUCCESS) st_ = ctx->ops->slots[ctx->algo[prim]](ctx, args); \
        return pp_end(ctx, fn, st_);                                              \
    } while (0)

/* Context-memory arrays must be aligned to their element size (checked
 * where handles are addresses; cl_mem handles have no alignment). */
#define ALIGNED(ptr, align, name)                                                                     \
    do {                                                                                              \
        if (ctx->ops->addressable && (ptr) && (uintptr_t)(const void *)(ptr) % (align))               \
            INVALID(ctx, "%s: argument '%s' is not aligned to %zu bytes", fn, name, (size_t)(align)); \
    } while (0)

/* present[a] = (slots[a] != NULL) for every algorithm a. */
#define PRESENT(present, slots) \
    int present[PP_ALGO_COUNT]; \
    for (int a_ = 0; a_ < PP_ALGO_COUNT; a_++) present[a_] = (slots)[a_] != NULL

/* Runs slots[pp_pick_slot(...)] on args: enter hook, slot, end. */
#define RUN_PICKED(slots, prim, type, op, sums, args)                         \
    do {                                                                      \
        PRESENT(present_, slots);                                             \
        const int i_ = pp_pick_slot(ctx, fn, present_, prim, type, op, sums); \
        if (i_ < 0) return PP_ERROR_UNSUPPORTED;                              \
        pp_status st_ = pp_enter(ctx, fn);                                    \
        if (st_ == PP_SUCCESS) st_ = (slots)[i_](ctx, args);                  \
        return pp_end(ctx, fn, st_);                                          \
    } while (0)

#define NO_OVERLAP(a, abytes, aname, b, bbytes, bname)                         \
    do {                                                                       \
        if (pp_core_overlap(ctx, a, abytes, b, bbytes))                        \
            INVALID(ctx, "%s: argument '%s' overlaps '%s'", fn, aname, bname); \
    } while (0)

#endif
