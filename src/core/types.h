/* The one list of element types and operators. Every instantiation in every
 * backend is generated from these X-macros, so adding a type or an operator
 * is a change in one place. Internal header: not installed. */
#ifndef PP_CORE_TYPES_H
#define PP_CORE_TYPES_H

#include <stdint.h>

/* Element kinds, as values (the lists below use the bare tokens SINT, UINT
 * and FLOAT so that a backend can paste them: PP_KIND_##K). */
#define PP_KIND_SINT 0
#define PP_KIND_UINT 1
#define PP_KIND_FLOAT 2

/*
 * X(ARGS, ENUM, ctype, suffix, kind, utype, wtype)
 *   kind:  SINT, UINT or FLOAT (bare tokens)
 *   utype: the unsigned integer of the same width (the bits of a key)
 *   wtype: the unsigned type integer arithmetic is done in (at least as wide
 *          as int, so that promotion never makes a signed overflow)
 * ARGS is passed through untouched, so that lists can be nested.
 */
#define PP_FOR_EACH_TYPE_WITH(X, ARGS)                                   \
    X(ARGS, PP_I8, int8_t, i8, SINT, uint8_t, uint32_t)                  \
    X(ARGS, PP_U8, uint8_t, u8, UINT, uint8_t, uint32_t)                 \
    X(ARGS, PP_I16, int16_t, i16, SINT, uint16_t, uint32_t)              \
    X(ARGS, PP_U16, uint16_t, u16, UINT, uint16_t, uint32_t)             \
    X(ARGS, PP_I32, int32_t, i32, SINT, uint32_t, uint32_t)              \
    X(ARGS, PP_U32, uint32_t, u32, UINT, uint32_t, uint32_t)             \
    X(ARGS, PP_I64, int64_t, i64, SINT, uint64_t, uint64_t)              \
    X(ARGS, PP_U64, uint64_t, u64, UINT, uint64_t, uint64_t)             \
    X(ARGS, PP_F32, float, f32, FLOAT, uint32_t, uint32_t)               \
    X(ARGS, PP_F64, double, f64, FLOAT, uint64_t, uint64_t)

/* The arithmetic types above, the ones every instantiation is made for
 * (the half types below are not among them). */
#define PP_ARITH_TYPE_COUNT 10

/* The half types (PP_F16, PP_BF16): 16 bits per element, no C arithmetic
 * type, so they are not in the list above (whose instantiations compute
 * on ctype). Each backend serves them by its own code, which widens them
 * to f32 exactly; the core lets through only the calls of
 * src/core/check.c's list (PP_ERROR_UNSUPPORTED for the rest).
 * X(ENUM, suffix). PP_HALF_PREC: significant bits; PP_HALF_SHIFT: the
 * smallest subnormal is 2^PP_HALF_SHIFT units of the f32 accumulator
 * (src/core/exact_acc.h; 2^-24 = 2^125 * 2^-149, 2^-133 = 2^16 * 2^-149). */
#define PP_FOR_EACH_HALF(X) X(PP_F16, f16) X(PP_BF16, bf16)
#define PP_HALF_PREC(type) ((type) == PP_BF16 ? 8 : 11)
#define PP_HALF_SHIFT(type) ((type) == PP_BF16 ? 16 : 125)
#define PP_IS_HALF(type) ((type) == PP_F16 || (type) == PP_BF16)

/* X(ARGS, ENUM, suffix, integer_only) */
#define PP_FOR_EACH_OP_WITH(X, ARGS) \
    X(ARGS, PP_SUM, sum, 0)          \
    X(ARGS, PP_PROD, prod, 0)        \
    X(ARGS, PP_MIN, min, 0)          \
    X(ARGS, PP_MAX, max, 0)          \
    X(ARGS, PP_AND, and, 1)          \
    X(ARGS, PP_OR, or, 1)            \
    X(ARGS, PP_XOR, xor, 1)

/* X(ENUM, suffix) */
#define PP_FOR_EACH_CMP(X) X(PP_LT, lt) X(PP_LE, le) X(PP_GT, gt) X(PP_GE, ge) X(PP_EQ, eq) X(PP_NE, ne)

/* Plain forms without ARGS:
 *   PP_FOR_EACH_TYPE(X): X(ENUM, ctype, suffix, kind, utype, wtype)
 *   PP_FOR_EACH_OP(X):   X(ENUM, suffix, integer_only) */
#define PP_DROP_ARGS7_(X, a, b, c, d, e, f) X(a, b, c, d, e, f)
#define PP_DROP_ARGS4_(X, a, b, c) X(a, b, c)
#define PP_FOR_EACH_TYPE(X) PP_FOR_EACH_TYPE_WITH(PP_DROP_ARGS7_, X)
#define PP_FOR_EACH_OP(X) PP_FOR_EACH_OP_WITH(PP_DROP_ARGS4_, X)

/* PP_FOR_EACH_TYPE_OP(M) calls M(TYPE_ENUM, ctype, type_suffix, kind,
 * OP_ENUM, op_suffix) for every type and every operator, integer-only
 * operators on float types included: the core rejects such calls before
 * dispatch, so those instantiations are never reached. */
#define PP_UNPACK_(...) __VA_ARGS__
#define PP_CALL_(...) PP_CALL2_(__VA_ARGS__)
#define PP_CALL2_(M, ...) M(__VA_ARGS__)
#define PP_TYPE_OP_CELL_(ARGS, OE, OS, I) PP_CALL_(PP_UNPACK_ ARGS, OE, OS)
#define PP_TYPE_OP_ROW_(M, E, T, S, K, U, W) PP_FOR_EACH_OP_WITH(PP_TYPE_OP_CELL_, (M, E, T, S, K))
#define PP_FOR_EACH_TYPE_OP(M) PP_FOR_EACH_TYPE_WITH(PP_TYPE_OP_ROW_, M)

/* The conversions of pp_reduce_to and pp_scan_to: every (in, out) pair of
 * different types whose out type holds every value of the in type
 * exactly (integers to wider integers that hold them, never signed to
 * unsigned; 8- and 16-bit integers to f32 and f64, 32-bit ones to f64; f32
 * to f64). Backends instantiate these pairs only (pairs of equal types go
 * to pp_reduce / pp_scan).
 * X(ARGS, IN_ENUM, in_ctype, in_suffix, OUT_ENUM, out_ctype, out_suffix) */
#define PP_FOR_EACH_WIDEN_WITH(X, ARGS)                   \
    X(ARGS, PP_I8, int8_t, i8, PP_I16, int16_t, i16)       \
    X(ARGS, PP_I8, int8_t, i8, PP_I32, int32_t, i32)       \
    X(ARGS, PP_I8, int8_t, i8, PP_I64, int64_t, i64)       \
    X(ARGS, PP_I8, int8_t, i8, PP_F32, float, f32)         \
    X(ARGS, PP_I8, int8_t, i8, PP_F64, double, f64)        \
    X(ARGS, PP_U8, uint8_t, u8, PP_I16, int16_t, i16)      \
    X(ARGS, PP_U8, uint8_t, u8, PP_U16, uint16_t, u16)     \
    X(ARGS, PP_U8, uint8_t, u8, PP_I32, int32_t, i32)      \
    X(ARGS, PP_U8, uint8_t, u8, PP_U32, uint32_t, u32)     \
    X(ARGS, PP_U8, uint8_t, u8, PP_I64, int64_t, i64)      \
    X(ARGS, PP_U8, uint8_t, u8, PP_U64, uint64_t, u64)     \
    X(ARGS, PP_U8, uint8_t, u8, PP_F32, float, f32)        \
    X(ARGS, PP_U8, uint8_t, u8, PP_F64, double, f64)       \
    X(ARGS, PP_I16, int16_t, i16, PP_I32, int32_t, i32)    \
    X(ARGS, PP_I16, int16_t, i16, PP_I64, int64_t, i64)    \
    X(ARGS, PP_I16, int16_t, i16, PP_F32, float, f32)      \
    X(ARGS, PP_I16, int16_t, i16, PP_F64, double, f64)     \
    X(ARGS, PP_U16, uint16_t, u16, PP_I32, int32_t, i32)   \
    X(ARGS, PP_U16, uint16_t, u16, PP_U32, uint32_t, u32)  \
    X(ARGS, PP_U16, uint16_t, u16, PP_I64, int64_t, i64)   \
    X(ARGS, PP_U16, uint16_t, u16, PP_U64, uint64_t, u64)  \
    X(ARGS, PP_U16, uint16_t, u16, PP_F32, float, f32)     \
    X(ARGS, PP_U16, uint16_t, u16, PP_F64, double, f64)    \
    X(ARGS, PP_I32, int32_t, i32, PP_I64, int64_t, i64)    \
    X(ARGS, PP_I32, int32_t, i32, PP_F64, double, f64)     \
    X(ARGS, PP_U32, uint32_t, u32, PP_I64, int64_t, i64)   \
    X(ARGS, PP_U32, uint32_t, u32, PP_U64, uint64_t, u64)  \
    X(ARGS, PP_U32, uint32_t, u32, PP_F64, double, f64)    \
    X(ARGS, PP_F32, float, f32, PP_F64, double, f64)
/* PP_FOR_EACH_WIDEN(X): X(IN_ENUM, in_ctype, in_suffix, OUT_ENUM, out_ctype, out_suffix) */
#define PP_FOR_EACH_WIDEN(X) PP_FOR_EACH_WIDEN_WITH(PP_DROP_ARGS7_, X)

#endif
