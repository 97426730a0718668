/* Operators of the user's own: pp_operator_create, pp_operator_destroy,
 * pp_reduce_op, pp_scan_op. The checks of parprim.h's contract; the text
 * is compiled by the backend's operator_build slot, which keeps the code
 * (the operator only points to it). */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define PP_OP_MAX_ELEM 256

pp_status pp_operator_create(pp_context *ctx, const char *source, size_t element_size, const void *identity,
                             int commutative, pp_operator **op)
{
    static const char fn[] = "pp_operator_create";
    PP_BEGIN(ctx, fn);
    NEED(op, "op");
    *op = NULL;
    NEED(source, "source");
    NEED(identity, "identity");
    if (element_size == 0 || element_size > PP_OP_MAX_ELEM)
        INVALID(ctx, "%s: argument 'element_size' (%zu) is not between 1 and %d bytes", fn, element_size,
                PP_OP_MAX_ELEM);
    if (!ctx->ops->operator_build)
        FAIL(ctx, PP_ERROR_UNSUPPORTED, "%s: operators of the user's own are not available on the %s backend yet",
             fn, pp_backend_name(ctx->ops->id));
    pp_operator *o = calloc(1, sizeof *o);
    unsigned char *id = malloc(element_size);
    if (!o || !id) {
        free(o);
        free(id);
        FAIL(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    memcpy(id, identity, element_size);
    o->ctx = ctx;
    o->elem = element_size;
    o->align = 1;
    o->commutative = commutative != 0;
    o->identity = id;
    o->hash = pp_hash_bytes(pp_hash_bytes(PP_HASH_START, source, strlen(source) + 1), &element_size,
                            sizeof element_size);
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = ctx->ops->operator_build(ctx, o, source);
    if (st == PP_SUCCESS && o->compiled_elem != element_size)
        st = pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                     "%s: argument 'element_size' (%zu) is not sizeof(pp_elem) of the source (%zu)", fn,
                     element_size, o->compiled_elem);
    if (st != PP_SUCCESS) {
        pp_operator_destroy(o);
        return pp_end(ctx, fn, st);
    }
    *op = o;
    return PP_SUCCESS;
}

uint64_t pp_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

void pp_operator_destroy(pp_operator *op)
{
    if (!op) return;
    free(op->identity);
    free(op);
}

pp_status pp_check_operator(pp_context *ctx, const char *fn, const pp_operator *op, size_t n)
{
    NEED(op, "op");
    if (op->ctx != ctx) INVALID(ctx, "%s: argument 'op' belongs to another context", fn);
    if (n > SIZE_MAX / op->elem) INVALID(ctx, "%s: argument 'n' (%zu) elements overflow size_t bytes", fn, n);
    return PP_SUCCESS;
}

pp_status pp_reduce_op(pp_context *ctx, const pp_operator *op, const void *in, size_t n, void *out)
{
    static const char fn[] = "pp_reduce_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    if (n) NEED(in, "in");
    NEED(out, "out");
    ALIGNED(in, op->align, "in");
    ALIGNED(out, op->align, "out");
    const pp_op_reduce_args a = {fn, op, in, n, out};
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = ctx->ops->reduce_op(ctx, &a);
    return pp_end(ctx, fn, st);
}

pp_status pp_scan_op(pp_context *ctx, const pp_operator *op, pp_scan_kind kind, const void *in, void *out, size_t n)
{
    static const char fn[] = "pp_scan_op";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_operator(ctx, fn, op, n));
    TRY(pp_check_kind(ctx, fn, kind));
    if (n == 0) return PP_SUCCESS;
    if (n > SIZE_MAX / op->elem) INVALID(ctx, "%s: argument 'n' (%zu) elements overflow size_t bytes", fn, n);
    NEED(in, "in");
    NEED(out, "out");
    ALIGNED(in, op->align, "in");
    ALIGNED(out, op->align, "out");
    if (in != out) NO_OVERLAP(out, n * op->elem, "out", in, n * op->elem, "in");
    const pp_op_scan_args a = {fn, op, kind, in, out, n};
    pp_status st = pp_enter(ctx, fn);
    if (st == PP_SUCCESS) st = ctx->ops->scan_op(ctx, &a);
    return pp_end(ctx, fn, st);
}
