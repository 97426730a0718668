/* Contexts, memory and algorithm choice: everything of the API that is
 * neither a primitive (api.c) nor a name (names.c) nor an error (error.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- backends and contexts ------------------------------------------------ */

static int backend_valid(pp_backend b) { return b >= PP_BACKEND_AUTO && b <= PP_BACKEND_OPENCL; }

pp_status pp_backend_status(pp_backend backend)
{
    if (!backend_valid(backend)) return PP_ERROR_INVALID_ARGUMENT;
    if (backend == PP_BACKEND_AUTO) return PP_SUCCESS;
    const pp_backend_ops *ops = pp_backend_table(backend);
    if (!ops) return PP_ERROR_UNSUPPORTED;
    return ops->probe();
}

/* Smallest options struct accepted: the fields of version 0.1. */
#define PP_OPTIONS_MIN_SIZE (offsetof(pp_options, threads) + sizeof(int))

pp_status pp_create(pp_context **ctxp, const pp_options *opt)
{
    if (!ctxp) return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "pp_create: argument 'ctx' is NULL");
    *ctxp = NULL;
    pp_options o = PP_OPTIONS_INIT;
    if (opt) {
        if (opt->size < PP_OPTIONS_MIN_SIZE)
            return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT,
                               "pp_create: opt->size is %zu, expected sizeof(pp_options) = %zu "
                               "(initialize with PP_OPTIONS_INIT)",
                               opt->size, sizeof(pp_options));
        memcpy(&o, opt, PP_OPTIONS_MIN_SIZE);
        o.size = sizeof o;
    }
    if (!backend_valid(o.backend))
        return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "pp_create: opt->backend = %d is not a pp_backend",
                           (int)o.backend);
    if (o.device < 0)
        return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "pp_create: opt->device = %d is negative", o.device);
    if (o.threads < 0)
        return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "pp_create: opt->threads = %d is negative", o.threads);

    pp_backend chosen = o.backend;
    if (chosen == PP_BACKEND_AUTO) {
        const char *env = getenv("PARPRIM_BACKEND");
        if (env && *env) {
            if (!strcmp(env, "cpu")) chosen = PP_BACKEND_CPU;
            else if (!strcmp(env, "cuda")) chosen = PP_BACKEND_CUDA;
            else if (!strcmp(env, "opencl")) chosen = PP_BACKEND_OPENCL;
            else
                return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT,
                                   "pp_create: PARPRIM_BACKEND='%.64s' is not one of cpu, cuda, opencl",
                                   env);
        }
    }
    if (chosen == PP_BACKEND_AUTO) {
        /* The registry's order: each backend that is present and calls
         * opt->device a good choice (auto_choice), then the fallback. */
        size_t count;
        const pp_backend_ops *const *order = pp_backend_auto_order(&count);
        /* An attempt that fails is not a failure of this call: its message
         * must not replace the thread's. */
        size_t cap;
        char *thread_error = pp_thread_error(&cap);
        char kept[512];
        memcpy(kept, thread_error, cap < sizeof kept ? cap : sizeof kept);
        for (size_t i = 0; i + 1 < count; i++) {
            const pp_backend_ops *ops = order[i];
            if (!ops->auto_choice || ops->probe() != PP_SUCCESS || !ops->auto_choice(o.device)) continue;
            pp_context *c = NULL;
            pp_options oo = o;
            oo.backend = ops->id;
            if (pp_create(&c, &oo) == PP_SUCCESS) {
                *ctxp = c;
                return PP_SUCCESS;
            }
            memcpy(thread_error, kept, cap < sizeof kept ? cap : sizeof kept);
        }
        chosen = order[count - 1]->id;
    }

    const pp_backend_ops *ops = pp_backend_table(chosen);
    if (!ops)
        return pp_thread_fail(PP_ERROR_UNSUPPORTED, "pp_create: backend '%s' is not built into this library",
                           pp_backend_name(chosen));
    pp_context *ctx = (pp_context *)calloc(1, sizeof *ctx);
    if (!ctx) return pp_thread_fail(PP_ERROR_OUT_OF_MEMORY, "pp_create: out of host memory");
    ctx->ops = ops;
    o.backend = chosen;
    pp_status st = ops->create(ctx, &o);
    if (st != PP_SUCCESS) {
        pp_thread_fail(st, "%s", ctx->error[0] ? ctx->error : pp_status_string(st));
        free(ctx);
        return st;
    }
    ctx->error[0] = '\0';
    *ctxp = ctx;
    return PP_SUCCESS;
}

void pp_destroy(pp_context *ctx)
{
    if (!ctx) return;
    ctx->ops->destroy(ctx);
    free(ctx);
}

pp_backend pp_context_backend(const pp_context *ctx) { return ctx ? ctx->ops->id : PP_BACKEND_AUTO; }
int pp_context_threads(const pp_context *ctx) { return ctx ? ctx->threads : 0; }
const char *pp_context_device_name(const pp_context *ctx) { return ctx ? ctx->device_name : ""; }

pp_status pp_set_stream(pp_context *ctx, void *native)
{
    PP_BEGIN(ctx, "pp_set_stream");
    return pp_end(ctx, "pp_set_stream", ctx->ops->set_stream(ctx, native));
}

pp_status pp_context_stream(const pp_context *ctx, void **native_stream)
{
    static const char fn[] = "pp_context_stream";
    PP_BEGIN(ctx, fn);
    pp_context *c = (pp_context *)ctx;
    if (!native_stream) return pp_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'native_stream' is NULL", fn);
    *native_stream = ctx->ops->stream(ctx);
    return PP_SUCCESS;
}

pp_status pp_synchronize(pp_context *ctx)
{
    PP_BEGIN(ctx, "pp_synchronize");
    return pp_end(ctx, "pp_synchronize", ctx->ops->synchronize(ctx));
}

/* ---- memory ------------------------------------------------------------------ */

pp_status pp_context_memory(const pp_context *ctx, pp_memory_info *info)
{
    static const char fn[] = "pp_context_memory";
    PP_BEGIN(ctx, fn);
    /* A failure is recorded on the context like any call's (see pp_begin). */
    pp_context *c = (pp_context *)ctx;
    if (!info) return pp_fail(c, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'info' is NULL", fn);
    if (!c->ops->memory_info)
        return pp_fail(c, PP_ERROR_UNSUPPORTED, "%s: the %s backend cannot tell its memory", fn,
                       pp_backend_name(c->ops->id));
    pp_memory_info mi = {0, 0, 0};
    pp_status st = pp_end(c, fn, c->ops->memory_info(c, &mi));
    if (st != PP_SUCCESS) return st;
    if (mi.total_bytes == 0)
        return pp_fail(c, PP_ERROR_BACKEND, "%s: the %s backend reports no memory", fn, pp_backend_name(c->ops->id));
    if (mi.max_alloc_bytes > mi.total_bytes) mi.max_alloc_bytes = mi.total_bytes;
    if (mi.available_bytes > mi.total_bytes) mi.available_bytes = mi.total_bytes;
    *info = mi;
    return PP_SUCCESS;
}

pp_status pp_malloc(pp_context *ctx, void **p, size_t bytes)
{
    PP_BEGIN(ctx, "pp_malloc");
    if (!p) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_malloc: argument 'p' is NULL");
    *p = NULL;
    if (bytes == 0) return PP_SUCCESS;
    return pp_end(ctx, "pp_malloc", ctx->ops->mem_alloc(ctx, p, bytes));
}

pp_status pp_free(pp_context *ctx, void *p)
{
    PP_BEGIN(ctx, "pp_free");
    if (!p) return PP_SUCCESS;
    return pp_end(ctx, "pp_free", ctx->ops->mem_free(ctx, p));
}

static int ranges_overlap(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    if (!abytes || !bbytes) return 0;
    return x < y + bbytes && y < x + abytes;
}

pp_status pp_upload(pp_context *ctx, void *dst, const void *host_src, size_t bytes)
{
    PP_BEGIN(ctx, "pp_upload");
    if (bytes == 0) return PP_SUCCESS;
    if (!dst) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_upload: argument 'dst' is NULL");
    if (!host_src) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_upload: argument 'host_src' is NULL");
    if (ctx->ops->addressable && ranges_overlap(dst, bytes, host_src, bytes))
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_upload: 'dst' and 'host_src' overlap");
    return pp_end(ctx, "pp_upload", ctx->ops->upload(ctx, dst, host_src, bytes));
}

pp_status pp_download(pp_context *ctx, void *host_dst, const void *src, size_t bytes)
{
    PP_BEGIN(ctx, "pp_download");
    if (bytes == 0) return PP_SUCCESS;
    if (!host_dst) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_download: argument 'host_dst' is NULL");
    if (!src) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_download: argument 'src' is NULL");
    if (ctx->ops->addressable && ranges_overlap(host_dst, bytes, src, bytes))
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_download: 'host_dst' and 'src' overlap");
    return pp_end(ctx, "pp_download", ctx->ops->download(ctx, host_dst, src, bytes));
}

pp_status pp_copy(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    PP_BEGIN(ctx, "pp_copy");
    if (bytes == 0) return PP_SUCCESS;
    if (!dst) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_copy: argument 'dst' is NULL");
    if (!src) return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_copy: argument 'src' is NULL");
    if (ctx->ops->addressable ? ranges_overlap(dst, bytes, src, bytes) : dst == src)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_copy: 'dst' and 'src' overlap");
    return pp_end(ctx, "pp_copy", ctx->ops->copy(ctx, dst, src, bytes));
}

/* ---- algorithm choice ------------------------------------------------------------ */

pp_status pp_set_algorithm(pp_context *ctx, pp_primitive prim, pp_algorithm algo)
{
    PP_BEGIN(ctx, "pp_set_algorithm");
    if ((unsigned)prim >= PP_PRIM_COUNT)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm: prim = %d is not a pp_primitive",
                       (int)prim);
    if ((unsigned)algo >= PP_ALGO_COUNT)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm: algo = %d is not a pp_algorithm",
                       (int)algo);
    if (!pp_backend_has_algorithm(ctx->ops, prim, algo))
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "pp_set_algorithm: the %s backend has no '%s' algorithm for %s",
                       pp_backend_name(ctx->ops->id), pp_algorithm_name(algo), pp_primitive_name(prim));
    ctx->algo[prim] = algo;
    return PP_SUCCESS;
}

pp_algorithm pp_get_algorithm(const pp_context *ctx, pp_primitive prim)
{
    if (!ctx || (unsigned)prim >= PP_PRIM_COUNT) return PP_ALGO_AUTO;
    return ctx->algo[prim];
}

/* Shared with api.c. */
int pp_core_overlap(const pp_context *ctx, const void *a, size_t abytes, const void *b, size_t bbytes)
{
    if (!a || !b || !abytes || !bbytes) return 0;
    if (!ctx->ops->addressable) return a == b;
    return ranges_overlap(a, abytes, b, bbytes);
}
