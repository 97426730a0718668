/* The plain sequential reference (see reference.h). Written from the
 * semantics documented in include/parprim.h; it shares no code with the
 * library. Every function is a textbook loop over host memory, generated per
 * element type by the macros below. (Over 600 lines: the per-type macros
 * and the primitives they generate are read together; the search, top-k
 * and converting references are files of their own.) */
#include "reference.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The switches below cover the arithmetic types; the half types (PP_F16,
 * PP_BF16) have their own reference in tests/test_half.c. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wswitch"
#endif

/* ---- element types --------------------------------------------------------------------
 * X(ENUM, ctype, name, is_signed, min, max) for the integer types. */
#define REF_INT_TYPES(X)                                    \
    X(PP_I8, int8_t, i8, 1, INT8_MIN, INT8_MAX)             \
    X(PP_U8, uint8_t, u8, 0, 0, UINT8_MAX)                  \
    X(PP_I16, int16_t, i16, 1, INT16_MIN, INT16_MAX)        \
    X(PP_U16, uint16_t, u16, 0, 0, UINT16_MAX)              \
    X(PP_I32, int32_t, i32, 1, INT32_MIN, INT32_MAX)        \
    X(PP_U32, uint32_t, u32, 0, 0, UINT32_MAX)              \
    X(PP_I64, int64_t, i64, 1, INT64_MIN, INT64_MAX)        \
    X(PP_U64, uint64_t, u64, 0, 0, UINT64_MAX)

/* X(ENUM, ctype, name, bits_type) for the floating-point types. */
#define REF_FLOAT_TYPES(X)            \
    X(PP_F32, float, f32, uint32_t)   \
    X(PP_F64, double, f64, uint64_t)

size_t ref_type_size(pp_type type)
{
    switch (type) {
    case PP_I8: case PP_U8: return 1;
    case PP_I16: case PP_U16: return 2;
    case PP_I32: case PP_U32: case PP_F32: return 4;
    case PP_I64: case PP_U64: case PP_F64: return 8;
    }
    return 0;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "reference: out of memory (%zu bytes)\n", bytes);
        abort();
    }
    return p;
}

void *ref_xmalloc(size_t bytes) { return xmalloc(bytes); }

/* ---- scalar operators ------------------------------------------------------------------
 * Integers: SUM and PROD are computed in uint64_t (at least as wide as
 * unsigned int, so there is no promotion to a signed type) and reduced
 * modulo 2^width when converted back: exactly the two's complement wrap. */
#define DEF_INT_SCALARS(E, T, S, SIGNED, MINV, MAXV)                          \
    static T comb_##S(pp_op op, T a, T b)                                     \
    {                                                                         \
        switch (op) {                                                         \
        case PP_SUM: return (T)((uint64_t)a + (uint64_t)b);                   \
        case PP_PROD: return (T)((uint64_t)a * (uint64_t)b);                  \
        case PP_MIN: return b < a ? b : a;                                    \
        case PP_MAX: return b > a ? b : a;                                    \
        case PP_AND: return (T)((uint64_t)a & (uint64_t)b);                   \
        case PP_OR: return (T)((uint64_t)a | (uint64_t)b);                    \
        case PP_XOR: return (T)((uint64_t)a ^ (uint64_t)b);                   \
        }                                                                     \
        return a;                                                             \
    }                                                                         \
    static T ident_##S(pp_op op)                                              \
    {                                                                         \
        switch (op) {                                                         \
        case PP_SUM: return 0;                                                \
        case PP_PROD: return 1;                                               \
        case PP_MIN: return MAXV;                                             \
        case PP_MAX: return MINV;                                             \
        case PP_AND: return (T)~(uint64_t)0;                                  \
        case PP_OR: return 0;                                                 \
        case PP_XOR: return 0;                                                \
        }                                                                     \
        return 0;                                                             \
    }
REF_INT_TYPES(DEF_INT_SCALARS)

/* Floats: MIN and MAX give NaN if either side is NaN and order -0.0 below
 * +0.0. The bitwise operators do not exist on floats (never called). */
#define DEF_FLOAT_SCALARS(E, T, S, B)                                         \
    static T min_##S(T a, T b)                                                \
    {                                                                         \
        if (isnan(a)) return a;                                               \
        if (isnan(b)) return b;                                               \
        if (a == b) return signbit(a) ? a : b;                                \
        return a < b ? a : b;                                                 \
    }                                                                         \
    static T max_##S(T a, T b)                                                \
    {                                                                         \
        if (isnan(a)) return a;                                               \
        if (isnan(b)) return b;                                               \
        if (a == b) return signbit(a) ? b : a;                                \
        return a > b ? a : b;                                                 \
    }                                                                         \
    static T comb_##S(pp_op op, T a, T b)                                     \
    {                                                                         \
        switch (op) {                                                         \
        case PP_SUM: return a + b;                                            \
        case PP_PROD: return a * b;                                           \
        case PP_MIN: return min_##S(a, b);                                    \
        case PP_MAX: return max_##S(a, b);                                    \
        default: return a;                                                    \
        }                                                                     \
    }                                                                         \
    static T ident_##S(pp_op op)                                              \
    {                                                                         \
        switch (op) {                                                         \
        case PP_SUM: return (T)0.0;                                           \
        case PP_PROD: return (T)1.0;                                          \
        case PP_MIN: return (T)INFINITY;                                      \
        case PP_MAX: return (T)-INFINITY;                                     \
        default: return (T)0.0;                                               \
        }                                                                     \
    }
REF_FLOAT_TYPES(DEF_FLOAT_SCALARS)

/* ---- reduce and scan ------------------------------------------------------------------ */
#define DEF_REDUCE_SCAN(S, T)                                                  \
    static void reduce_##S(pp_op op, const T *in, size_t n, T *out)           \
    {                                                                         \
        T r;                                                                  \
        if (n == 0) {                                                         \
            r = ident_##S(op);                                                \
        } else {                                                              \
            r = in[0];                                                        \
            for (size_t i = 1; i < n; i++) r = comb_##S(op, r, in[i]);        \
        }                                                                     \
        memcpy(out, &r, sizeof r);                                            \
    }                                                                         \
    static void scan_##S(pp_op op, int exclusive, const T *in, T *out, size_t n) \
    {                                                                         \
        if (n == 0) return;                                                   \
        T r = in[0];                                                          \
        if (exclusive) {                                                      \
            out[0] = ident_##S(op);                                           \
            for (size_t i = 1; i < n; i++) {                                  \
                T x = in[i]; /* read before out[i] is written (in == out) */  \
                out[i] = r;                                                   \
                r = comb_##S(op, r, x);                                       \
            }                                                                 \
        } else {                                                              \
            out[0] = r;                                                       \
            for (size_t i = 1; i < n; i++) {                                  \
                r = comb_##S(op, r, in[i]);                                   \
                out[i] = r;                                                   \
            }                                                                 \
        }                                                                     \
    }
#define DEF_REDUCE_SCAN_INT(E, T, S, SIGNED, MINV, MAXV) DEF_REDUCE_SCAN(S, T)
#define DEF_REDUCE_SCAN_FLOAT(E, T, S, B) DEF_REDUCE_SCAN(S, T)
REF_INT_TYPES(DEF_REDUCE_SCAN_INT)
REF_FLOAT_TYPES(DEF_REDUCE_SCAN_FLOAT)

void ref_reduce(pp_type type, pp_op op, const void *in, size_t n, void *out)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: reduce_##S(op, (const T *)in, n, (T *)out); return;
#define CASE_FLOAT(E, T, S, B) \
    case E: reduce_##S(op, (const T *)in, n, (T *)out); return;
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
}

void ref_scan(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n)
{
    int excl = kind == PP_EXCLUSIVE;
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: scan_##S(op, excl, (const T *)in, (T *)out, n); return;
#define CASE_FLOAT(E, T, S, B) \
    case E: scan_##S(op, excl, (const T *)in, (T *)out, n); return;
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
}

/* ---- histograms ------------------------------------------------------------------------ */

/* Integers: bin = floor((x - lower) * nbins / (upper - lower)), exactly.
 * x - lower and upper - lower are taken modulo 2^64, which gives the exact
 * (non-negative) differences because lower <= x < upper; the product needs
 * up to 128 bits. */
#define DEF_HIST_INT(E, T, S, SIGNED, MINV, MAXV)                                          \
    static void hist_even_##S(const T *x, size_t n, T lo, T hi, size_t nbins, uint64_t *c) \
    {                                                                                      \
        if (!(lo < hi)) return;                                                            \
        uint64_t range = (uint64_t)hi - (uint64_t)lo;                                      \
        for (size_t i = 0; i < n; i++) {                                                   \
            T v = x[i];                                                                    \
            if (v < lo || v >= hi) continue;                                               \
            uint64_t d = (uint64_t)v - (uint64_t)lo;                                       \
            unsigned __int128 b = (unsigned __int128)d * (unsigned __int128)nbins / range; \
            c[(size_t)b]++;                                                                \
        }                                                                                  \
    }
REF_INT_TYPES(DEF_HIST_INT)

/* Floats: in double precision, as documented; r = upper - lower may
 * overflow to infinity (f64 only), and then both differences are halved. */
static size_t float_bin(double x, double lo, double hi, size_t nbins)
{
    double d = x - lo, r = hi - lo;
    if (isinf(r)) {
        d = 0.5 * x - 0.5 * lo;
        r = 0.5 * hi - 0.5 * lo;
    }
    double v = d * ((double)nbins / r);
    /* v is NaN only when d == 0 and nbins / r overflowed (a range of a few
     * subnormals): the sample sits on the lower edge. */
    if (v != v) return 0;
    if (v >= (double)nbins) return nbins - 1; /* also keeps the conversion defined */
    uint64_t b = (uint64_t)v;
    return b >= nbins ? nbins - 1 : (size_t)b;
}

#define DEF_HIST_FLOAT(E, T, S, B)                                                         \
    static void hist_even_##S(const T *x, size_t n, T lo, T hi, size_t nbins, uint64_t *c) \
    {                                                                                      \
        if (!(lo < hi)) return;                                                            \
        for (size_t i = 0; i < n; i++) {                                                   \
            T v = x[i];                                                                    \
            if (!(v >= lo && v < hi)) continue; /* NaN fails both */                       \
            c[float_bin((double)v, (double)lo, (double)hi, nbins)]++;                      \
        }                                                                                  \
    }
REF_FLOAT_TYPES(DEF_HIST_FLOAT)

/* Range bins: the largest i with edges[i] <= x, by bisection. */
#define DEF_HIST_RANGE(S, T)                                                                   \
    static void hist_range_##S(const T *x, size_t n, const T *e, size_t nbins, uint64_t *c)    \
    {                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                       \
            T v = x[i];                                                                        \
            if (!(v >= e[0] && v < e[nbins])) continue;                                        \
            size_t lo = 0, hi = nbins; /* e[lo] <= v < e[hi] */                                \
            while (hi - lo > 1) {                                                              \
                size_t mid = lo + (hi - lo) / 2;                                               \
                if (e[mid] <= v) lo = mid;                                                     \
                else hi = mid;                                                                 \
            }                                                                                  \
            c[lo]++;                                                                           \
        }                                                                                      \
    }
#define DEF_HIST_RANGE_INT(E, T, S, SIGNED, MINV, MAXV) DEF_HIST_RANGE(S, T)
#define DEF_HIST_RANGE_FLOAT(E, T, S, B) DEF_HIST_RANGE(S, T)
REF_INT_TYPES(DEF_HIST_RANGE_INT)
REF_FLOAT_TYPES(DEF_HIST_RANGE_FLOAT)

void ref_histogram_even(pp_type type, const void *samples, size_t n, const void *lower, const void *upper,
                        size_t nbins, uint64_t *counts)
{
    for (size_t b = 0; b < nbins; b++) counts[b] = 0;
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV)                                     \
    case E: {                                                                     \
        T lo, hi;                                                                 \
        memcpy(&lo, lower, sizeof lo);                                            \
        memcpy(&hi, upper, sizeof hi);                                            \
        hist_even_##S((const T *)samples, n, lo, hi, nbins, counts);              \
        return;                                                                   \
    }
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
}

void ref_histogram_range(pp_type type, const void *samples, size_t n, const void *edges, size_t nbins,
                         uint64_t *counts)
{
    for (size_t b = 0; b < nbins; b++) counts[b] = 0;
    size_t sz = ref_type_size(type);
    if (!sz || nbins == 0) return;
    /* edges is a host pointer that need not be aligned for T. */
    void *e = xmalloc((nbins + 1) * sz);
    memcpy(e, edges, (nbins + 1) * sz);
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: hist_range_##S((const T *)samples, n, (const T *)e, nbins, counts); break;
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    free(e);
}

/* ---- compaction ------------------------------------------------------------------------ */
#define DEF_SELECT(S, T)                                                                     \
    static int cmp_##S(T x, T v, pp_cmp cmp)                                                \
    {                                                                                       \
        switch (cmp) {                                                                      \
        case PP_LT: return x < v;                                                           \
        case PP_LE: return x <= v;                                                          \
        case PP_GT: return x > v;                                                           \
        case PP_GE: return x >= v;                                                          \
        case PP_EQ: return x == v;                                                          \
        case PP_NE: return x != v;                                                          \
        }                                                                                   \
        return 0;                                                                           \
    }                                                                                       \
    static uint64_t flagged_##S(const T *in, const uint8_t *f, size_t n, T *out)            \
    {                                                                                       \
        uint64_t k = 0;                                                                     \
        for (size_t i = 0; i < n; i++)                                                      \
            if (f[i] != 0) out[k++] = in[i];                                                \
        return k;                                                                           \
    }                                                                                       \
    static uint64_t if_##S(const T *in, size_t n, pp_cmp cmp, T v, T *out)                  \
    {                                                                                       \
        uint64_t k = 0;                                                                     \
        for (size_t i = 0; i < n; i++)                                                      \
            if (cmp_##S(in[i], v, cmp)) out[k++] = in[i];                                   \
        return k;                                                                           \
    }                                                                                       \
    static uint64_t unique_##S(const T *in, size_t n, T *out)                               \
    {                                                                                       \
        uint64_t k = 0;                                                                     \
        for (size_t i = 0; i < n; i++)                                                      \
            if (i == 0 || !(in[i] == in[i - 1])) out[k++] = in[i];                          \
        return k;                                                                           \
    }                                                                                       \
    static uint64_t partition_##S(const T *in, size_t n, pp_cmp cmp, T v, T *out)           \
    {                                                                                       \
        uint64_t k = 0;                                                                     \
        for (size_t i = 0; i < n; i++)                                                      \
            if (cmp_##S(in[i], v, cmp)) out[k++] = in[i];                                   \
        size_t j = (size_t)k;                                                               \
        for (size_t i = 0; i < n; i++)                                                      \
            if (!cmp_##S(in[i], v, cmp)) out[j++] = in[i];                                  \
        return k;                                                                           \
    }
#define DEF_SELECT_INT(E, T, S, SIGNED, MINV, MAXV) DEF_SELECT(S, T)
#define DEF_SELECT_FLOAT(E, T, S, B) DEF_SELECT(S, T)
REF_INT_TYPES(DEF_SELECT_INT)
REF_FLOAT_TYPES(DEF_SELECT_FLOAT)

uint64_t ref_select_flagged(pp_type type, const void *in, const uint8_t *flags, size_t n, void *out)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: return flagged_##S((const T *)in, flags, n, (T *)out);
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    return 0;
}

uint64_t ref_select_if(pp_type type, const void *in, size_t n, pp_cmp cmp, const void *value, void *out)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV)                   \
    case E: {                                                   \
        T v;                                                    \
        memcpy(&v, value, sizeof v);                            \
        return if_##S((const T *)in, n, cmp, v, (T *)out);      \
    }
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    return 0;
}

uint64_t ref_unique(pp_type type, const void *in, size_t n, void *out)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: return unique_##S((const T *)in, n, (T *)out);
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    return 0;
}

uint64_t ref_partition_if(pp_type type, const void *in, size_t n, pp_cmp cmp, const void *value, void *out)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV)                        \
    case E: {                                                        \
        T v;                                                         \
        memcpy(&v, value, sizeof v);                                 \
        return partition_##S((const T *)in, n, cmp, v, (T *)out);    \
    }
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    return 0;
}

/* ---- sort ------------------------------------------------------------------------------
 * Each key is mapped to an unsigned 64-bit rank whose numeric order is the
 * documented order: signed integers with the sign bit flipped; floats with
 * the usual sign-magnitude flip (so -0.0 < +0.0 and -inf < every finite
 * value < +inf), and every NaN to UINT64_MAX, above +inf and equal to the
 * other NaNs. Descending order is the complement of the rank; in
 * PP_DESCENDING_NAN_LAST a NaN keeps UINT64_MAX (after every key). The (rank,
 * index) pairs are sorted with a stable merge sort, and the permutation is
 * applied to the keys (their bits unchanged) and the values. */
typedef struct ref_item {
    uint64_t rank;
    size_t index;
} ref_item;

static uint64_t rank_of(pp_type type, const unsigned char *p)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV)                                      \
    case E: {                                                                      \
        T v;                                                                       \
        memcpy(&v, p, sizeof v);                                                   \
        return SIGNED ? ((uint64_t)(int64_t)v ^ ((uint64_t)1 << 63)) : (uint64_t)v; \
    }
        REF_INT_TYPES(CASE_INT)
#undef CASE_INT
    case PP_F32: {
        float v;
        uint32_t b;
        memcpy(&v, p, sizeof v);
        memcpy(&b, p, sizeof b);
        if (isnan(v)) return UINT64_MAX;
        return (b & 0x80000000u) ? (uint64_t)(uint32_t)~b : (uint64_t)(b | 0x80000000u);
    }
    case PP_F64: {
        double v;
        uint64_t b;
        memcpy(&v, p, sizeof v);
        memcpy(&b, p, sizeof b);
        if (isnan(v)) return UINT64_MAX;
        return (b >> 63) ? ~b : (b | ((uint64_t)1 << 63));
    }
    }
    return 0;
}

uint64_t ref_order_rank(pp_type type, const void *key, pp_order order)
{
    const uint64_t r = rank_of(type, (const unsigned char *)key);
    const int nan = (type == PP_F32 || type == PP_F64) && r == UINT64_MAX; /* only a NaN's rank */
    return order == PP_ASCENDING || (nan && order == PP_DESCENDING_NAN_LAST) ? r : ~r;
}

static void insertion_sort(ref_item *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        ref_item x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].rank > x.rank) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Stable: on equal ranks the left run's element is taken first. */
static void merge_runs(const ref_item *a, size_t na, const ref_item *b, size_t nb, ref_item *out)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb) {
        if (b[j].rank < a[i].rank) out[k++] = b[j++];
        else out[k++] = a[i++];
    }
    while (i < na) out[k++] = a[i++];
    while (j < nb) out[k++] = b[j++];
}

/* LSD radix sort by rank, 16 bits a pass over the digits where the ranks
 * differ (stable: each pass keeps the order of equal digits). */
static void radix_sort_items(ref_item *a, size_t n)
{
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        all_or |= a[i].rank;
        all_and &= a[i].rank;
    }
    ref_item *tmp = (ref_item *)xmalloc(n * sizeof *tmp);
    size_t *count = (size_t *)xmalloc(65536 * sizeof *count);
    ref_item *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 16) {
        if ((((all_or ^ all_and) >> shift) & 0xffff) == 0) continue;
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[(src[i].rank >> shift) & 0xffff]++;
        size_t sum = 0;
        for (size_t d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i].rank >> shift) & 0xffff]++] = src[i];
        ref_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(count);
    free(tmp);
}

/* Merge sort of runs of 32 sorted by insertion; from 2^16 items the radix
 * sort above (the large tests' references took most of their time here). */
static void stable_sort_items(ref_item *a, size_t n)
{
    if (n >= 65536) {
        radix_sort_items(a, n);
        return;
    }
    const size_t run = 32;
    for (size_t lo = 0; lo < n; lo += run) insertion_sort(a + lo, n - lo < run ? n - lo : run);
    if (n <= run) return;
    ref_item *tmp = (ref_item *)xmalloc(n * sizeof *tmp);
    ref_item *src = a, *dst = tmp;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            merge_runs(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
        }
        ref_item *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(tmp);
}

/* dst[i] = src[items[i].index], elements of size bytes (a copy of a
 * constant size per case, not a library call per element) */
static void permute(unsigned char *dst, const unsigned char *src, const ref_item *items, size_t n, size_t size)
{
#define PERMUTE(S)                                                                      \
    for (size_t i = 0; i < n; i++) memcpy(dst + i * (S), src + items[i].index * (S), (S)); \
    return;
    switch (size) {
    case 1: PERMUTE(1)
    case 2: PERMUTE(2)
    case 4: PERMUTE(4)
    case 8: PERMUTE(8)
    default: PERMUTE(size)
    }
#undef PERMUTE
}

void ref_sort_pairs(pp_type type, void *keys, void *values, size_t value_size, size_t n, pp_order order)
{
    size_t ks = ref_type_size(type);
    if (n < 2 || !ks) return;
    unsigned char *k = (unsigned char *)keys;
    ref_item *items = (ref_item *)xmalloc(n * sizeof *items);
    for (size_t i = 0; i < n; i++) {
        items[i].rank = ref_order_rank(type, k + i * ks, order);
        items[i].index = i;
    }
    stable_sort_items(items, n);

    unsigned char *copy = (unsigned char *)xmalloc(n * ks);
    memcpy(copy, k, n * ks);
    permute(k, copy, items, n, ks);
    free(copy);
    if (values && value_size) {
        unsigned char *v = (unsigned char *)values;
        unsigned char *vcopy = (unsigned char *)xmalloc(n * value_size);
        memcpy(vcopy, v, n * value_size);
        permute(v, vcopy, items, n, value_size);
        free(vcopy);
    }
    free(items);
}

/* ---- comparison and formatting ----------------------------------------------------------- */
int ref_equal(pp_type type, const void *a, const void *b, size_t n, size_t *where)
{
    size_t sz = ref_type_size(type);
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    if (!sz) return 1;
    /* Fast path: identical bytes. */
    if (n == 0 || memcmp(x, y, n * sz) == 0) return 1;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = x + i * sz, *q = y + i * sz;
        if (memcmp(p, q, sz) == 0) continue;
        if (type == PP_F32) {
            float u, v;
            memcpy(&u, p, sizeof u);
            memcpy(&v, q, sizeof v);
            if (isnan(u) && isnan(v)) continue;
        } else if (type == PP_F64) {
            double u, v;
            memcpy(&u, p, sizeof u);
            memcpy(&v, q, sizeof v);
            if (isnan(u) && isnan(v)) continue;
        }
        if (where) *where = i;
        return 0;
    }
    return 1;
}

const char *ref_format(pp_type type, const void *array, size_t i, char *buf, size_t cap)
{
    size_t sz = ref_type_size(type);
    const unsigned char *p = (const unsigned char *)array + i * sz;
    if (!buf || cap == 0) return "";
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV)                                  \
    case E: {                                                                  \
        T v;                                                                   \
        memcpy(&v, p, sizeof v);                                               \
        if (SIGNED) snprintf(buf, cap, "%" PRId64, (int64_t)v);                \
        else snprintf(buf, cap, "%" PRIu64, (uint64_t)v);                      \
        return buf;                                                            \
    }
        REF_INT_TYPES(CASE_INT)
#undef CASE_INT
    case PP_F32: {
        float v;
        uint32_t b;
        memcpy(&v, p, sizeof v);
        memcpy(&b, p, sizeof b);
        snprintf(buf, cap, "%.9g (0x%08" PRIx32 ")", (double)v, b);
        return buf;
    }
    case PP_F64: {
        double v;
        uint64_t b;
        memcpy(&v, p, sizeof v);
        memcpy(&b, p, sizeof b);
        snprintf(buf, cap, "%.17g (0x%016" PRIx64 ")", v, b);
        return buf;
    }
    }
    snprintf(buf, cap, "?");
    return buf;
}

void ref_segmented_reduce(pp_type type, pp_op op, const void *in, const uint64_t *offsets, size_t nseg, void *out)
{
    const size_t sz = pp_type_size(type);
    for (size_t s = 0; s < nseg; s++)
        ref_reduce(type, op, (const char *)in + offsets[s] * sz, (size_t)(offsets[s + 1] - offsets[s]),
                   (char *)out + s * sz);
}

void ref_segmented_scan(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                        const uint64_t *offsets, size_t nseg)
{
    const size_t sz = pp_type_size(type);
    for (size_t s = 0; s < nseg; s++)
        ref_scan(type, op, kind, (const char *)in + offsets[s] * sz, (char *)out + offsets[s] * sz,
                 (size_t)(offsets[s + 1] - offsets[s]));
}

void ref_segmented_sort_pairs(pp_type type, void *keys, void *values, size_t value_size, const uint64_t *offsets,
                              size_t nseg, pp_order order)
{
    const size_t sz = pp_type_size(type);
    for (size_t s = 0; s < nseg; s++)
        ref_sort_pairs(type, (char *)keys + offsets[s] * sz,
                       values ? (char *)values + offsets[s] * value_size : NULL, value_size,
                       (size_t)(offsets[s + 1] - offsets[s]), order);
}

/* ---- by key ------------------------------------------------------------------------------- */

/* The end of the run of keys that starts at b (b < n): the first i > b with
 * !(keys[i] == keys[i - 1]), else n. */
#define DEF_RUN_END(S, T)                                                 \
    static size_t run_end_##S(const T *k, size_t b, size_t n)             \
    {                                                                     \
        size_t i = b + 1;                                                 \
        while (i < n && k[i] == k[i - 1]) i++;                            \
        return i;                                                         \
    }
#define DEF_RUN_END_INT(E, T, S, SIGNED, MINV, MAXV) DEF_RUN_END(S, T)
#define DEF_RUN_END_FLOAT(E, T, S, B) DEF_RUN_END(S, T)
REF_INT_TYPES(DEF_RUN_END_INT)
REF_FLOAT_TYPES(DEF_RUN_END_FLOAT)

static size_t run_end(pp_type type, const void *keys, size_t b, size_t n)
{
    switch (type) {
#define CASE_INT(E, T, S, SIGNED, MINV, MAXV) \
    case E: return run_end_##S((const T *)keys, b, n);
#define CASE_FLOAT(E, T, S, B) CASE_INT(E, T, S, 0, 0, 0)
        REF_INT_TYPES(CASE_INT)
        REF_FLOAT_TYPES(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    }
    return n;
}

uint64_t ref_reduce_by_key(pp_type key_type, pp_type value_type, pp_op op, const void *keys, const void *values,
                           size_t n, void *keys_out, void *values_out)
{
    const size_t ks = ref_type_size(key_type), vs = ref_type_size(value_type);
    uint64_t r = 0;
    for (size_t b = 0, e; b < n; b = e, r++) {
        e = run_end(key_type, keys, b, n);
        memcpy((char *)keys_out + r * ks, (const char *)keys + b * ks, ks);
        ref_reduce(value_type, op, (const char *)values + b * vs, e - b, (char *)values_out + r * vs);
    }
    return r;
}

void ref_scan_by_key(pp_type key_type, pp_type value_type, pp_op op, pp_scan_kind kind, const void *keys,
                     const void *values, void *out, size_t n)
{
    const size_t vs = ref_type_size(value_type);
    for (size_t b = 0, e; b < n; b = e) {
        e = run_end(key_type, keys, b, n);
        ref_scan(value_type, op, kind, (const char *)values + b * vs, (char *)out + b * vs, e - b);
    }
}

uint64_t ref_run_length_encode(pp_type type, const void *in, size_t n, void *values_out, uint64_t *counts_out)
{
    const size_t sz = ref_type_size(type);
    uint64_t r = 0;
    for (size_t b = 0, e; b < n; b = e, r++) {
        e = run_end(type, in, b, n);
        memcpy((char *)values_out + r * sz, (const char *)in + b * sz, sz);
        counts_out[r] = e - b;
    }
    return r;
}
