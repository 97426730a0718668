/* The sequential reference of pp_scan_init (reference.h),
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
