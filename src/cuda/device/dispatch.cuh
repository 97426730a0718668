// From the run-time element type (and operator) of a call to the templates:
// one switch over the type list (types.h) for the whole backend.
//
//   pp_dispatch_type(ctx, fn, type, f)        returns f(T()), T the C type
//   pp_dispatch_type_op(ctx, fn, type, op, f) returns f(T(), Op()), Op one
//                                             of Op_sum ... Op_xor
//
// f is typically a generic lambda that takes the types of its arguments:
//   [&](auto t, auto op) { return launch<decltype(t), decltype(op)>(...); }
// An integer-only operator (the list's fourth column: AND, OR, XOR) on a
// float type is rejected here, once for every launcher (the core rejects it
// before dispatch, so this is never reached, and those instantiations are
// never made). fn names the public call in the messages of failures that
// cannot happen (a type or operator outside the lists).
#ifndef PP_CUDA_DEVICE_DISPATCH_CUH
#define PP_CUDA_DEVICE_DISPATCH_CUH

#include "internal.h"
#include "ops.cuh"

template <typename F> pp_status pp_dispatch_type(pp_context *ctx, const char *fn, pp_type type, F f)
{
    switch (type) {
#define PP_DISPATCH_TYPE_CASE_(E, T, S, K, U, W) \
    case E: return f(T());
        PP_FOR_EACH_TYPE(PP_DISPATCH_TYPE_CASE_)
#undef PP_DISPATCH_TYPE_CASE_
    default: break;
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: type %d not dispatched", fn, (int)type);
}

template <typename T, typename Op, bool INTEGER_ONLY, typename F>
pp_status pp_dispatch_call_(pp_context *ctx, const char *fn, F &f)
{
    if constexpr (INTEGER_ONLY && pp_is_float<T>()) {
        (void)f;
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: bitwise operator on a float type reached the cuda backend", fn);
    } else {
        return f(T(), Op());
    }
}

template <typename T, typename F> pp_status pp_dispatch_op_(pp_context *ctx, const char *fn, pp_op op, F &f)
{
    switch (op) {
#define PP_DISPATCH_OP_CASE_(E, S, I) \
    case E: return pp_dispatch_call_<T, Op_##S, (I) != 0>(ctx, fn, f);
        PP_FOR_EACH_OP(PP_DISPATCH_OP_CASE_)
#undef PP_DISPATCH_OP_CASE_
    default: break;
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: operator %d not dispatched", fn, (int)op);
}

template <typename F> pp_status pp_dispatch_type_op(pp_context *ctx, const char *fn, pp_type type, pp_op op, F f)
{
    return pp_dispatch_type(ctx, fn, type, [&](auto t) { return pp_dispatch_op_<decltype(t)>(ctx, fn, op, f); });
}

#endif
