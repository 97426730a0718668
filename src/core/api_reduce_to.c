/* The entry points of pp_reduce_to, pp_scan_to, pp_argmin and pp_argmax:
 * arguments checked here, once; a pair of equal types runs pp_reduce's
 * and pp_scan's slots, any other pair the backend's reduce_to / scan_to
 * slot, and the arg-reductions its arg slot, each picked by the algorithm
 * chosen for PP_PRIM_REDUCE or PP_PRIM_SCAN (internal.h, pp_backend_ops;
 * pp_pick_slot in check.c). */
#include "check.h"

int pp_type_widens(pp_type in, pp_type out)
{
#define X(IE, IT, IS, OE, OT, OS) \
    if (in == IE && out == OE) return 1;
    PP_FOR_EACH_WIDEN(X)
#undef X
    return 0;
}

/* The types, the pair, n, op (on out_type) and kind. */
static pp_status check_convert(pp_context *ctx, const pp_convert_args *a)
{
    const char *fn = a->fn;
    if (!pp_type_size(a->in_type)) INVALID(ctx, "%s: in_type = %d is not a pp_type", fn, (int)a->in_type);
    if (!pp_type_size(a->out_type)) INVALID(ctx, "%s: out_type = %d is not a pp_type", fn, (int)a->out_type);
    TRY(pp_check_type_n(ctx, fn, a->in_type, a->n)); /* first: the half types are unsupported, not invalid */
    TRY(pp_check_type_n(ctx, fn, a->out_type, a->n));
    const int half_wide = PP_IS_HALF(a->in_type) && (a->out_type == PP_F32 || a->out_type == PP_F64);
    if (a->in_type != a->out_type && !pp_type_widens(a->in_type, a->out_type) && !half_wide)
        INVALID(ctx,
                "%s: out_type %s cannot hold every value of in_type %s (allowed: out_type == in_type, a wider "
                "integer that holds them, f32 or f64 from 8- and 16-bit integers, f16 and bf16, f64 from 32-bit "
                "ones and f32)",
                fn, pp_type_name(a->out_type), pp_type_name(a->in_type));
    return pp_check_op(ctx, fn, a->out_type, a->op);
}

/* in (where n > 0) and out present and aligned to their element types. */
static pp_status check_arrays(pp_context *ctx, const pp_convert_args *a)
{
    const char *fn = a->fn;
    if (a->n) NEED(a->in, "in");
    NEED(a->out, "out");
    ALIGNED(a->in, pp_type_size(a->in_type), "in");
    ALIGNED(a->out, pp_type_size(a->out_type), "out");
    return PP_SUCCESS;
}

pp_status pp_reduce_to(pp_context *ctx, pp_type in_type, pp_type out_type, pp_op op, const void *in, size_t n,
                       void *out)
{
    static const char fn[] = "pp_reduce_to";
    PP_BEGIN(ctx, fn);
    const pp_convert_args a = {fn, in_type, out_type, op, PP_INCLUSIVE, in, n, out};
    TRY(check_convert(ctx, &a));
    TRY(check_arrays(ctx, &a));
    const size_t isz = pp_type_size(in_type), osz = pp_type_size(out_type);
    if (in_type == out_type || n == 0) {
        /* pp_reduce itself; n == 0: its identity of out_type */
        const pp_reduce_args r = {fn, out_type, op, in, n, out};
        return pp_reduce_run(ctx, &r);
    }
    NO_OVERLAP(out, osz, "out", in, n * isz, "in (out may lie in in only where in_type == out_type)");
    if (PP_IS_HALF(in_type)) return pp_half_convert(ctx, &a, 0); /* half_wide.c */
    RUN_PICKED(ctx->ops->reduce_to, PP_PRIM_REDUCE, out_type, op, 1, &a);
}

pp_status pp_scan_to(pp_context *ctx, pp_type in_type, pp_type out_type, pp_op op, pp_scan_kind kind, const void *in,
                     void *out, size_t n)
{
    static const char fn[] = "pp_scan_to";
    PP_BEGIN(ctx, fn);
    const pp_convert_args a = {fn, in_type, out_type, op, kind, in, n, out};
    TRY(check_convert(ctx, &a));
    TRY(pp_check_kind(ctx, fn, kind));
    if (n == 0) return PP_SUCCESS;
    TRY(check_arrays(ctx, &a));
    const size_t isz = pp_type_size(in_type), osz = pp_type_size(out_type);
    if (in_type == out_type) { /* pp_scan itself */
        if (in != out) NO_OVERLAP(out, n * osz, "out", in, n * isz, "in (only in == out is allowed)");
        const pp_scan_args s = {fn, in_type, op, kind, in, out, n, NULL};
        return pp_scan_run(ctx, &s, 0);
    }
    NO_OVERLAP(out, n * osz, "out", in, n * isz, "in (in == out only where in_type == out_type)");
    if (PP_IS_HALF(in_type)) return pp_half_convert(ctx, &a, 1); /* half_wide.c */
    RUN_PICKED(ctx->ops->scan_to, PP_PRIM_SCAN, out_type, op, 1, &a);
}

static pp_status arg_common(pp_context *ctx, const pp_arg_args *a, const char *what)
{
    const char *fn = a->fn;
    TRY(pp_check_type_n(ctx, fn, a->type, a->n));
    if (a->n == 0) INVALID(ctx, "%s: attempt to get %s of an empty sequence (n == 0)", fn, what);
    const size_t sz = pp_type_size(a->type);
    NEED(a->in, "in");
    NEED(a->index, "index");
    ALIGNED(a->in, sz, "in");
    ALIGNED(a->index, sizeof(uint64_t), "index");
    NO_OVERLAP(a->index, sizeof(uint64_t), "index", a->in, a->n * sz, "in");
    if (PP_IS_HALF(a->type)) return pp_half_arg(ctx, a); /* half_wide.c */
    RUN_PICKED(ctx->ops->arg, PP_PRIM_REDUCE, a->type, a->max ? PP_MAX : PP_MIN, 0, a);
}

pp_status pp_argmin(pp_context *ctx, pp_type type, const void *in, size_t n, uint64_t *index)
{
    static const char fn[] = "pp_argmin";
    PP_BEGIN(ctx, fn);
    const pp_arg_args a = {fn, type, in, n, 0, index};
    return arg_common(ctx, &a, "argmin");
}

pp_status pp_argmax(pp_context *ctx, pp_type type, const void *in, size_t n, uint64_t *index)
{
    static const char fn[] = "pp_argmax";
    PP_BEGIN(ctx, fn);
    const pp_arg_args a = {fn, type, in, n, 1, index};
    return arg_common(ctx, &a, "argmax");
}
