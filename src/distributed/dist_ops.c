/* Host-side element operations of parprim_mpi: identities, the combine of
 * two values, a prefix applied to an array, C's equality and the sort-order
 * key. Written from the rules of parprim.h (integers wrap; MIN/MAX propagate
 * NaN and order -0.0 below +0.0; floats sort with -0.0 < +0.0 and every NaN
 * above +inf, but after every number in PP_DESCENDING_NAN_LAST). One
 * template per element type, expanded below. */
#include "dist_internal.h"

#include <math.h>
#include <string.h>

int pp_dist_is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }

/* Integer operators in the unsigned type U widened to W (no promotion to a
 * signed int: u16 * u16 would overflow int). */
#define IADD(T, U, W, a, b) ((T)(U)((W)(U)(a) + (W)(U)(b)))
#define IMUL(T, U, W, a, b) ((T)(U)((W)(U)(a) * (W)(U)(b)))
#define IMIN(a, b) ((b) < (a) ? (b) : (a))
#define IMAX(a, b) ((a) < (b) ? (b) : (a))
#define FMIN_(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) < (b) ? (a) : (b) < (a) ? (b) : signbit(a) ? (a) : (b))
#define FMAX_(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (a) > (b) ? (a) : (b) > (a) ? (b) : signbit(a) ? (b) : (a))

/* One integer type: name, T, its unsigned U, the width W of arithmetic,
 * minimum and maximum. */
#define DIST_INT_TYPE(N, T, U, W, MINV, MAXV)                                                        \
    static T comb_##N(pp_op op, T a, T b)                                                         \
    {                                                                                             \
        switch (op) {                                                                             \
        case PP_SUM: return IADD(T, U, W, a, b);                                                  \
        case PP_PROD: return IMUL(T, U, W, a, b);                                                 \
        case PP_MIN: return IMIN(a, b);                                                           \
        case PP_MAX: return IMAX(a, b);                                                           \
        case PP_AND: return (T)((U)a & (U)b);                                                     \
        case PP_OR: return (T)((U)a | (U)b);                                                      \
        default: return (T)((U)a ^ (U)b);                                                         \
        }                                                                                         \
    }                                                                                             \
    static T ident_##N(pp_op op)                                                                  \
    {                                                                                             \
        switch (op) {                                                                             \
        case PP_PROD: return (T)1;                                                                \
        case PP_MIN: return MAXV;                                                                 \
        case PP_MAX: return MINV;                                                                 \
        case PP_AND: return (T)(U)~(U)0;                                                          \
        default: return (T)0;                                                                     \
        }                                                                                         \
    }                                                                                             \

#define DIST_FLOAT_TYPE(N, T)                                                                      \
    static T comb_##N(pp_op op, T a, T b)                                                         \
    {                                                                                             \
        switch (op) {                                                                             \
        case PP_SUM: return a + b;                                                                \
        case PP_PROD: return a * b;                                                               \
        case PP_MIN: return FMIN_(a, b);                                                          \
        default: return FMAX_(a, b);                                                              \
        }                                                                                         \
    }                                                                                             \
    static T ident_##N(pp_op op)                                                                  \
    {                                                                                             \
        switch (op) {                                                                             \
        case PP_PROD: return (T)1;                                                                \
        case PP_MIN: return (T)INFINITY;                                                          \
        case PP_MAX: return (T)-INFINITY;                                                         \
        default: return (T)0;                                                                     \
        }                                                                                         \
    }                                                                                             \

DIST_INT_TYPE(i8, int8_t, uint8_t, unsigned, INT8_MIN, INT8_MAX)
DIST_INT_TYPE(u8, uint8_t, uint8_t, unsigned, 0, UINT8_MAX)
DIST_INT_TYPE(i16, int16_t, uint16_t, unsigned, INT16_MIN, INT16_MAX)
DIST_INT_TYPE(u16, uint16_t, uint16_t, unsigned, 0, UINT16_MAX)
DIST_INT_TYPE(i32, int32_t, uint32_t, uint32_t, INT32_MIN, INT32_MAX)
DIST_INT_TYPE(u32, uint32_t, uint32_t, uint32_t, 0, UINT32_MAX)
DIST_INT_TYPE(i64, int64_t, uint64_t, uint64_t, INT64_MIN, INT64_MAX)
DIST_INT_TYPE(u64, uint64_t, uint64_t, uint64_t, 0, UINT64_MAX)
DIST_FLOAT_TYPE(f32, float)
DIST_FLOAT_TYPE(f64, double)

/* Expands X(name, T) for each type, as the case of a switch on t. */
#define DIST_EACH_TYPE(X)                                                                               \
    case PP_I8: X(i8, int8_t); break;                                                                   \
    case PP_U8: X(u8, uint8_t); break;                                                                  \
    case PP_I16: X(i16, int16_t); break;                                                                \
    case PP_U16: X(u16, uint16_t); break;                                                               \
    case PP_I32: X(i32, int32_t); break;                                                                \
    case PP_U32: X(u32, uint32_t); break;                                                               \
    case PP_I64: X(i64, int64_t); break;                                                                \
    case PP_U64: X(u64, uint64_t); break;                                                               \
    case PP_F32: X(f32, float); break;                                                                  \
    case PP_F64: X(f64, double); break

void pp_dist_identity(pp_type t, pp_op op, void *out)
{
#define X(N, T)                 \
    {                           \
        T v_ = ident_##N(op);   \
        memcpy(out, &v_, sizeof v_); \
    }
    switch (t) { DIST_EACH_TYPE(X); default: break; } /* the half types: refused by pp_dist_check_type */
#undef X
}

void pp_dist_combine(pp_type t, pp_op op, void *acc, const void *x)
{
#define X(N, T)                            \
    {                                      \
        T a_, b_;                          \
        memcpy(&a_, acc, sizeof a_);       \
        memcpy(&b_, x, sizeof b_);         \
        a_ = comb_##N(op, a_, b_);         \
        memcpy(acc, &a_, sizeof a_);       \
    }
    switch (t) { DIST_EACH_TYPE(X); default: break; } /* the half types: refused by pp_dist_check_type */
#undef X
}

int pp_dist_equal(pp_type t, const void *a, const void *b)
{
    int eq = 0;
#define X(N, T)                      \
    {                                \
        T a_, b_;                    \
        memcpy(&a_, a, sizeof a_);   \
        memcpy(&b_, b, sizeof b_);   \
        eq = a_ == b_;               \
    }
    switch (t) { DIST_EACH_TYPE(X); default: break; } /* the half types: refused by pp_dist_check_type */
#undef X
    return eq;
}

uint64_t pp_dist_sort_key(pp_type t, pp_order order, const void *a, size_t i)
{
    size_t sz = pp_type_size(t);
    const unsigned char *p = (const unsigned char *)a + i * sz;
    uint64_t k = 0;
    switch (t) {
    case PP_U8: k = p[0]; break;
    case PP_I8: k = (uint8_t)(p[0] ^ 0x80u); break;
    case PP_U16: case PP_I16: { uint16_t v; memcpy(&v, p, 2); k = t == PP_I16 ? (uint16_t)(v ^ 0x8000u) : v; break; }
    case PP_U32: case PP_I32: { uint32_t v; memcpy(&v, p, 4); k = t == PP_I32 ? v ^ 0x80000000u : v; break; }
    case PP_U64: case PP_I64: { uint64_t v; memcpy(&v, p, 8); k = t == PP_I64 ? v ^ (1ull << 63) : v; break; }
    case PP_F32: {
        float f; uint32_t v;
        memcpy(&f, p, 4); memcpy(&v, p, 4);
        k = isnan(f) ? UINT32_MAX : (v & 0x80000000u) ? (uint32_t)~v : v | 0x80000000u;
        break;
    }
    case PP_F64: {
        double f; uint64_t v;
        memcpy(&f, p, 8); memcpy(&v, p, 8);
        k = isnan(f) ? UINT64_MAX : (v >> 63) ? ~v : v | (1ull << 63);
        break;
    }
    default: break; /* the half types: refused by pp_dist_check_type */
    }
    if (order == PP_ASCENDING) return k;
    /* descending: the keys reversed (every NaN, kmax above, first); in
     * PP_DESCENDING_NAN_LAST every NaN keeps kmax instead, above every
     * reversed key of a number (a float's key is kmax only for a NaN) */
    uint64_t kmax = sz == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sz)) - 1;
    if (order == PP_DESCENDING_NAN_LAST && pp_dist_is_float(t) && k == kmax) return kmax;
    return kmax - k;
}

/* The first index in [0, n) whose key is above key (upto) or at least key. */
static size_t bound(pp_type t, pp_order order, const void *a, size_t n, uint64_t key, int upto)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = pp_dist_sort_key(t, order, a, mid);
        if (upto ? k <= key : k < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

size_t pp_dist_count_below(pp_type t, pp_order order, const void *a, size_t n, uint64_t key)
{
    return bound(t, order, a, n, key, 0);
}

size_t pp_dist_count_upto(pp_type t, pp_order order, const void *a, size_t n, uint64_t key)
{
    return bound(t, order, a, n, key, 1);
}

int pp_dist_key_at_most(pp_type t, pp_order order, uint64_t c, void *out)
{
    size_t sz = pp_type_size(t);
    uint64_t kmax = sz == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sz)) - 1, sign = (uint64_t)1 << (8 * sz - 1), k, v;
    if (c > kmax) c = kmax;
    if (!pp_dist_is_float(t)) {
        k = order == PP_ASCENDING ? c : kmax - c;
        v = t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64 ? k ^ sign : k;
    } else {
        /* The keys of numbers fill [bottom, top] (the keys of -inf and +inf
         * ascending, and of +inf and -inf in the reversed orders, which map
         * that range onto itself); a NaN's key is kmax (0 in PP_DESCENDING). */
        const uint64_t inf = sz == 8 ? 0x7FF0000000000000ull : 0x7F800000u, top = inf | sign, bottom = kmax - top;
        uint64_t o;
        if (order == PP_DESCENDING) {
            o = c > top ? top : c >= bottom ? c : 0;
            k = kmax - o;
        } else {
            if (c == kmax)
                o = kmax;
            else if (c > top)
                o = top;
            else if (c >= bottom)
                o = c;
            else
                return 0;
            k = order == PP_ASCENDING || o == kmax ? o : kmax - o;
        }
        /* k ascending: a quiet NaN, a number >= +0.0 (sign bit set) or below */
        v = k == kmax ? inf | (inf >> 1 & ~inf) : (k & sign) ? k ^ sign : ~k & kmax;
    }
    switch (sz) {
    case 1: {
        uint8_t x = (uint8_t)v;
        memcpy(out, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(out, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(out, &x, 4);
        break;
    }
    default:
        memcpy(out, &v, 8);
        break;
    }
    return 1;
}
