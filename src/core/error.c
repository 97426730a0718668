/* Errors: the messages of failed calls (pp_last_error), and the begin and
 * end of every public call on a context. */
#include "internal.h"

#include <stdio.h>

/* ---- errors --------------------------------------------------------------
 * A message is written only by a call that fails, and stays until the next
 * failure (pp_last_error). Calls without a context (pp_create, or any call
 * given ctx == NULL) keep theirs per thread. */

static _Thread_local char thread_error[512];

char *pp_thread_error(size_t *cap)
{
    *cap = sizeof thread_error;
    return thread_error;
}

static void vformat(char *buf, size_t cap, const char *fmt, va_list ap)
{
    vsnprintf(buf, cap, fmt, ap);
}

pp_status pp_fail(pp_context *ctx, pp_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vformat(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
        ctx->failed = 1;
    }
    return status;
}

pp_status pp_thread_fail(pp_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vformat(thread_error, sizeof thread_error, fmt, ap);
    va_end(ap);
    return status;
}

pp_status pp_begin(const pp_context *ctx, const char *fn)
{
    if (!ctx) return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    /* The context is the caller's (never a const object): the flag is
     * bookkeeping of the call, like the message. */
    ((pp_context *)ctx)->failed = 0;
    return PP_SUCCESS;
}

pp_status pp_end(pp_context *ctx, const char *fn, pp_status st)
{
    if (st != PP_SUCCESS && !ctx->failed)
        pp_fail(ctx, st, "%s: failed in the %s backend (%s)", fn, pp_backend_name(ctx->ops->id),
                pp_status_string(st));
    return st;
}

const char *pp_last_error(const pp_context *ctx)
{
    return ctx ? ctx->error : thread_error;
}
