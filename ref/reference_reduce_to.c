/* The sequential references of pp_reduce_to, pp_scan_to, pp_argmin and
 * pp_argmax (reference.h), written from the semantics of
 * include/parprim.h: each input element converted to the output type by a
 * C conversion, then ref_reduce / ref_scan in the output type; the
 * arg-reductions as the textbook loop. */
#include "reference.h"

#include "reference_internal.h"

#include <stdlib.h>
#include <string.h>

static int is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
static int is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }

/* Element i of in as the widest value of its kind: floats as double;
 * integers from their bytes (little-endian hosts), zero-extended (get_u)
 * or sign-extended (get_i). */
static double get_f(pp_type t, const void *in, size_t i)
{
    if (t == PP_F32) return ((const float *)in)[i];
    return ((const double *)in)[i];
}

static uint64_t get_u(pp_type t, const void *in, size_t i)
{
    const size_t sz = ref_type_size(t);
    uint64_t u = 0;
    memcpy(&u, (const char *)in + i * sz, sz);
    return u;
}

static int64_t get_i(pp_type t, const void *in, size_t i)
{
    const unsigned shift = 64 - 8 * (unsigned)ref_type_size(t);
    const uint64_t u = get_u(t, in, i) << shift;
    const int64_t v = u >> 63 ? -(int64_t)(~u >> shift) - 1 : (int64_t)(u >> shift);
    return v;
}

/* out[i] = element i of in (in_type) converted to out_type: C's conversion
 * to a float; to an integer, the low bytes of the value's two's complement
 * (little-endian hosts, as the library's). */
static void convert(pp_type in_type, pp_type out_type, const void *in, void *out, size_t n)
{
    const size_t osz = ref_type_size(out_type);
    for (size_t i = 0; i < n; i++) {
        const int fi = is_float(in_type), si = is_signed(in_type);
        const double d = fi   ? get_f(in_type, in, i)
                         : si ? (double)get_i(in_type, in, i)
                              : (double)get_u(in_type, in, i);
        const uint64_t u = si ? (uint64_t)get_i(in_type, in, i) : fi ? 0 : get_u(in_type, in, i);
        if (out_type == PP_F32)
            ((float *)out)[i] = (float)d;
        else if (out_type == PP_F64)
            ((double *)out)[i] = d;
        else
            memcpy((char *)out + i * osz, &u, osz);
    }
}

void ref_reduce_to(pp_type in_type, pp_type out_type, pp_op op, const void *in, size_t n, void *out)
{
    void *x = ref_xmalloc(n ? n * ref_type_size(out_type) : 1);
    convert(in_type, out_type, in, x, n);
    ref_reduce(out_type, op, x, n, out);
    free(x);
}

void ref_scan_to(pp_type in_type, pp_type out_type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n)
{
    convert(in_type, out_type, in, out, n);
    ref_scan(out_type, op, kind, out, out, n);
}

/* x[i] before x[k] for argmin (argmax: after), NaNs excluded. */
static int better(pp_type t, const void *in, size_t i, size_t k, int max)
{
    if (is_float(t)) {
        const double a = get_f(t, in, i), b = get_f(t, in, k);
        return max ? a > b : a < b;
    }
    if (is_signed(t)) {
        const int64_t a = get_i(t, in, i), b = get_i(t, in, k);
        return max ? a > b : a < b;
    }
    const uint64_t a = get_u(t, in, i), b = get_u(t, in, k);
    return max ? a > b : a < b;
}

uint64_t ref_arg(pp_type type, const void *in, size_t n, int max)
{
    uint64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_float(type) && get_f(type, in, i) != get_f(type, in, i)) return i; /* the first NaN */
        if (better(type, in, i, best, max)) best = i;
    }
    return best;
}
