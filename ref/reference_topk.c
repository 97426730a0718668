/* The sequential references of pp_top_k and pp_scan_init (reference.h),
 * built from the plain ones of reference.c, written from the semantics of
 * include/parprim.h. */
#include "reference.h"

#include "reference_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t type_bytes(pp_type type)
{
    return type == PP_I8 || type == PP_U8                       ? 1
           : type == PP_I16 || type == PP_U16                   ? 2
           : type == PP_I64 || type == PP_U64 || type == PP_F64 ? 8
                                                                : 4;
}

/* The stable sort of (key, index) pairs by key, then its first k. */
size_t ref_top_k(pp_type type, const void *in, size_t n, size_t k, pp_order order, void *keys_out,
                 uint64_t *indices_out)
{
    const size_t sz = type_bytes(type);
    if (k > n) k = n;
    if (k == 0) return 0;
    unsigned char *keys = (unsigned char *)ref_xmalloc(n * sz);
    uint64_t *idx = (uint64_t *)ref_xmalloc(n * sizeof *idx);
    memcpy(keys, in, n * sz);
    for (size_t i = 0; i < n; i++) idx[i] = i;
    ref_sort_pairs(type, keys, idx, sizeof *idx, n, order);
    memcpy(keys_out, keys, k * sz);
    if (indices_out) memcpy(indices_out, idx, k * sizeof *idx);
    free(keys);
    free(idx);
    return k;
}

/* The scan of init followed by in (n + 1 elements): inclusive, its last n
 * results; exclusive, its first n (the first being init itself). */
void ref_scan_init(pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out, size_t n, const void *init)
{
    const size_t sz = type_bytes(type);
    if (n == 0) return;
    unsigned char *x = (unsigned char *)ref_xmalloc((n + 1) * sz), *y = (unsigned char *)ref_xmalloc((n + 1) * sz);
    memcpy(x, init, sz);
    memcpy(x + sz, in, n * sz);
    ref_scan(type, op, PP_INCLUSIVE, x, y, n + 1);
    memcpy(out, kind == PP_INCLUSIVE ? y + sz : y, n * sz);
    free(x);
    free(y);
}
