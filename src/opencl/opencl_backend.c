/* The opencl backend's table (pp_opencl_ops) and what it does itself:
 * contexts (create, destroy, the queue of pp_set_stream, synchronize) and
 * memory (buffers, copies, size checks, fills, the context's scratch).
 * Devices are in opencl_device.c, programs and launches in
 * opencl_program.c, errors in opencl_error.c; the primitives in
 * opencl_reduce_scan.c, opencl_exact.c, opencl_segmented.c,
 * opencl_segmented_exact.c, opencl_segsort.c, opencl_bykey.c,
 * opencl_histogram.c, opencl_select.c and opencl_sort.c, their kernels in
 * the .cl files next to them, embedded at build time
 * (src/opencl/CMakeLists.txt). */
#include "opencl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- contexts ------------------------------------------------------------------------------------------ */

static void ocl_destroy(pp_context *ctx)
{
    pp_ocl_state *s = pp_ocl(ctx);
    if (!s) return;
    if (s->queue) clFinish(s->queue);
    if (s->queue && s->queue != s->own_queue) {
        clReleaseCommandQueue(s->queue);
    }
    if (s->own_queue) {
        clFinish(s->own_queue);
        clReleaseCommandQueue(s->own_queue);
    }
    pp_ocl_operators_free(s);
    pp_ocl_cache_free(&s->programs);
    if (s->scratch) clReleaseMemObject(s->scratch);
    if (s->context) clReleaseContext(s->context);
    free(s);
    ctx->impl = NULL;
}

static pp_status ocl_create(pp_context *ctx, const pp_options *opt)
{
    static const char fn[] = "pp_create";
    int count = 0;
    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    cl_int err = pp_ocl_find_device(opt->device, &count, &plat, &dev);
    if (err != CL_SUCCESS)
        return pp_fail(ctx, PP_ERROR_BACKEND_UNAVAILABLE, "pp_create: the opencl backend cannot list devices: %s (%d)",
                       pp_ocl_error_name(err), (int)err);
    if (count == 0)
        return pp_fail(ctx, PP_ERROR_BACKEND_UNAVAILABLE,
                       "pp_create: the opencl backend finds no OpenCL platform with a device");
    if (opt->device >= count)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                       "pp_create: opt->device = %d, but there %s %d OpenCL device%s (counted over all platforms)",
                       opt->device, count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
    pp_ocl_state *s = (pp_ocl_state *)calloc(1, sizeof *s);
    if (!s) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_create: out of host memory");
    ctx->impl = s;
    s->platform = plat;
    s->device = dev;
    pp_status st;
    if ((err = pp_ocl_query_caps(dev, &s->caps)) != CL_SUCCESS) {
        st = pp_ocl_error(ctx, err, fn, "clGetDeviceInfo");
        ocl_destroy(ctx);
        return st;
    }
    cl_context_properties props[3] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    s->context = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (!s->context || err != CL_SUCCESS) {
        s->context = NULL;
        st = err == CL_DEVICE_NOT_AVAILABLE
                 ? pp_fail(ctx, PP_ERROR_BACKEND_UNAVAILABLE, "pp_create: OpenCL device %d is not available",
                           opt->device)
                 : pp_ocl_error(ctx, err, fn, "clCreateContext");
        ocl_destroy(ctx);
        return st;
    }
    s->own_queue = clCreateCommandQueue(s->context, dev, 0, &err);
    if (!s->own_queue || err != CL_SUCCESS) {
        s->own_queue = NULL;
        st = pp_ocl_error(ctx, err, fn, "clCreateCommandQueue");
        ocl_destroy(ctx);
        return st;
    }
    s->queue = s->own_queue;
    pp_ocl_cache_init(&s->programs, &s->caps);
    char device_name[96], platform_name[64];
    pp_ocl_info_string(dev, NULL, CL_DEVICE_NAME, device_name, sizeof device_name);
    pp_ocl_info_string(NULL, plat, CL_PLATFORM_NAME, platform_name, sizeof platform_name);
    ctx->threads = 0;
    snprintf(ctx->device_name, sizeof ctx->device_name, "OpenCL: %.90s (%.56s)",
             device_name[0] ? device_name : "unnamed device", platform_name[0] ? platform_name : "unnamed platform");
    return PP_SUCCESS;
}

static void *ocl_stream(const pp_context *ctx) { return pp_ocl((pp_context *)ctx)->queue; }

static pp_status ocl_set_stream(pp_context *ctx, void *native)
{
    static const char fn[] = "pp_set_stream";
    pp_ocl_state *s = pp_ocl(ctx);
    cl_command_queue q = native ? (cl_command_queue)native : s->own_queue;
    if (native) {
        cl_context q_context = NULL;
        cl_device_id q_device = NULL;
        cl_command_queue_properties q_props = 0;
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof q_context, &q_context, NULL);
        if (err == CL_SUCCESS) err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof q_device, &q_device, NULL);
        if (err == CL_SUCCESS) err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof q_props, &q_props, NULL);
        if (err != CL_SUCCESS)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' is not a cl_command_queue (clGetCommandQueueInfo: %s (%d))",
                           fn, pp_ocl_error_name(err), (int)err);
        if (q_context != s->context)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' belongs to another cl_context than the parprim context's "
                           "(get it with clGetMemObjectInfo(CL_MEM_CONTEXT) on pp_malloc memory)",
                           fn);
        if (q_device != s->device)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' is a queue of another device than the context's", fn);
        if (q_props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' is an out-of-order queue; parprim needs an in-order queue",
                           fn);
    }
    if (q == s->queue) return PP_SUCCESS;
    /* All of the context's work shares its scratch: let the old queue's finish. */
    PP_OCL_TRY(ctx, clFinish(s->queue), fn, "clFinish");
    if (native) PP_OCL_TRY(ctx, clRetainCommandQueue(q), fn, "clRetainCommandQueue");
    if (s->queue != s->own_queue) clReleaseCommandQueue(s->queue);
    s->queue = q;
    return PP_SUCCESS;
}

static pp_status ocl_synchronize(pp_context *ctx)
{
    PP_OCL_TRY(ctx, clFinish(pp_ocl(ctx)->queue), "pp_synchronize", "clFinish");
    return PP_SUCCESS;
}

/* ---- memory ------------------------------------------------------------------------------------------------ */

/* Out of memory for a buffer larger than the device allows. */
static pp_status too_big(pp_context *ctx, const char *fn, size_t bytes, const char *what)
{
    return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY,
                   "%s: %s of %zu bytes exceeds the largest buffer the OpenCL device allows "
                   "(CL_DEVICE_MAX_MEM_ALLOC_SIZE = %llu bytes)",
                   fn, what, bytes, (unsigned long long)pp_ocl(ctx)->caps.max_alloc);
}

static pp_status ocl_alloc(pp_context *ctx, void **p, size_t bytes)
{
    pp_ocl_state *s = pp_ocl(ctx);
    *p = NULL;
    if (bytes > s->caps.max_alloc) return too_big(ctx, "pp_malloc", bytes, "a buffer");
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!m || err != CL_SUCCESS) return pp_ocl_alloc_error(ctx, err, "pp_malloc", "clCreateBuffer");
    *p = (void *)m;
    return PP_SUCCESS;
}

static pp_status ocl_free(pp_context *ctx, void *p)
{
    /* Work already queued that uses the buffer keeps it alive until done. */
    PP_OCL_TRY(ctx, clReleaseMemObject(pp_ocl_mem(p)), "pp_free", "clReleaseMemObject");
    return PP_SUCCESS;
}

pp_status pp_ocl_check_size(pp_context *ctx, const char *fn, const void *handle, size_t bytes, const char *name)
{
    size_t size = 0;
    cl_context c = NULL;
    cl_int err = clGetMemObjectInfo(pp_ocl_mem(handle), CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS) err = clGetMemObjectInfo(pp_ocl_mem(handle), CL_MEM_CONTEXT, sizeof c, &c, NULL);
    if (err != CL_SUCCESS)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is not a cl_mem (%s (%d))", fn, name,
                       pp_ocl_error_name(err), (int)err);
    if (c != pp_ocl(ctx)->context)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                       "%s: argument '%s' is a cl_mem of another cl_context (use pp_malloc memory)", fn, name);
    if (size < bytes)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' holds %zu bytes, %zu are needed", fn, name,
                       size, bytes);
    return PP_SUCCESS;
}

pp_status pp_ocl_check_sizes(pp_context *ctx, const char *fn, const pp_ocl_size_check *checks, int n)
{
    for (int i = 0; i < n; i++)
        if (checks[i].handle)
            PP_OCL_STATUS(pp_ocl_check_size(ctx, fn, checks[i].handle, checks[i].bytes, checks[i].name));
    return PP_SUCCESS;
}

static pp_status ocl_upload(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    static const char fn[] = "pp_upload";
    PP_OCL_STATUS(pp_ocl_check_size(ctx, fn, dst, bytes, "dst"));
    PP_OCL_TRY(ctx, clEnqueueWriteBuffer(pp_ocl_queue(ctx), pp_ocl_mem(dst), CL_TRUE, 0, bytes, src, 0, NULL, NULL),
               fn, "clEnqueueWriteBuffer");
    return PP_SUCCESS;
}

static pp_status ocl_download(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    static const char fn[] = "pp_download";
    PP_OCL_STATUS(pp_ocl_check_size(ctx, fn, src, bytes, "src"));
    PP_OCL_TRY(ctx, clEnqueueReadBuffer(pp_ocl_queue(ctx), pp_ocl_mem(src), CL_TRUE, 0, bytes, dst, 0, NULL, NULL),
               fn, "clEnqueueReadBuffer");
    return PP_SUCCESS;
}

static pp_status ocl_copy(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    static const char fn[] = "pp_copy";
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {dst, bytes, "dst"}, {src, bytes, "src"}));
    PP_OCL_TRY(ctx,
               clEnqueueCopyBuffer(pp_ocl_queue(ctx), pp_ocl_mem(src), pp_ocl_mem(dst), 0, 0, bytes, 0, NULL, NULL),
               fn, "clEnqueueCopyBuffer");
    return PP_SUCCESS;
}

pp_status pp_ocl_fill(pp_context *ctx, const char *fn, cl_mem buf, const void *pattern, size_t pattern_size,
                      size_t offset, size_t bytes)
{
    if (bytes == 0) return PP_SUCCESS;
    PP_OCL_TRY(ctx, clEnqueueFillBuffer(pp_ocl_queue(ctx), buf, pattern, pattern_size, offset, bytes, 0, NULL, NULL),
               fn, "clEnqueueFillBuffer");
    return PP_SUCCESS;
}

pp_status pp_ocl_scratch(pp_context *ctx, size_t bytes, const char *fn, cl_mem *out)
{
    pp_ocl_state *s = pp_ocl(ctx);
    *out = NULL;
    if (bytes < 64) bytes = 64;
    if (s->scratch && bytes <= s->scratch_bytes) {
        *out = s->scratch;
        return PP_SUCCESS;
    }
    if (bytes > s->caps.max_alloc) return too_big(ctx, fn, bytes, "working memory");
    /* Grow by a quarter more, so that slowly growing sizes do not allocate
     * every call; queued work that uses the old buffer keeps it alive. */
    size_t want = bytes + bytes / 4;
    if (want < bytes || want > s->caps.max_alloc) want = (size_t)s->caps.max_alloc;
    if (s->scratch) clReleaseMemObject(s->scratch);
    s->scratch = NULL;
    s->scratch_bytes = 0;
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(s->context, CL_MEM_READ_WRITE, want, NULL, &err);
    if ((!m || err != CL_SUCCESS) && want != bytes) {
        want = bytes;
        m = clCreateBuffer(s->context, CL_MEM_READ_WRITE, want, NULL, &err);
    }
    if (!m || err != CL_SUCCESS)
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of device working memory (%s (%d))",
                       fn, bytes, pp_ocl_error_name(err), (int)err);
    s->scratch = m;
    s->scratch_bytes = want;
    *out = m;
    return PP_SUCCESS;
}

/* ---- the table ---------------------------------------------------------------------------------------------- */

/* From the device's caps (pp_create): OpenCL 1.2 cannot tell free memory. */
static pp_status ocl_memory_info(pp_context *ctx, pp_memory_info *info)
{
    const pp_ocl_caps *c = &pp_ocl(ctx)->caps;
    info->total_bytes = c->global_mem;
    info->available_bytes = 0;
    info->max_alloc_bytes = c->max_alloc;
    return PP_SUCCESS;
}

const pp_backend_ops pp_opencl_ops = {
    .id = PP_BACKEND_OPENCL,
    .addressable = 0, /* handles are cl_mem: overlap is checked by handle equality */
    .probe = pp_ocl_probe,
    .auto_choice = pp_ocl_auto_choice,
    .create = ocl_create,
    .destroy = ocl_destroy,
    .set_stream = ocl_set_stream,
    .stream = ocl_stream,
    .operator_build = pp_ocl_operator_build,
    .reduce_op = pp_ocl_reduce_op,
    .scan_op = pp_ocl_scan_op,
    .segmented_reduce_op = pp_ocl_segmented_reduce_op,
    .segmented_scan_op = pp_ocl_segmented_scan_op,
    .synchronize = ocl_synchronize,
    .mem_alloc = ocl_alloc,
    .mem_free = ocl_free,
    .upload = ocl_upload,
    .download = ocl_download,
    .copy = ocl_copy,
    .memory_info = ocl_memory_info,
    .reduce = {[PP_ALGO_AUTO] = pp_ocl_reduce, [PP_ALGO_EXACT] = pp_ocl_reduce_exact},
    .scan = {[PP_ALGO_AUTO] = pp_ocl_scan,
             [PP_ALGO_REDUCE_THEN_SCAN] = pp_ocl_scan,
             [PP_ALGO_BLELLOCH_PADDED] = pp_ocl_scan_blelloch_padded,
             [PP_ALGO_EXACT] = pp_ocl_scan_exact},
    /* the scans themselves, from a->init where it is set (opencl_reduce_scan.c) */
    .scan_init = {[PP_ALGO_AUTO] = pp_ocl_scan,
                  [PP_ALGO_REDUCE_THEN_SCAN] = pp_ocl_scan,
                  [PP_ALGO_BLELLOCH_PADDED] = pp_ocl_scan_blelloch_padded,
                  [PP_ALGO_EXACT] = pp_ocl_scan_exact},
    .histogram = {[PP_ALGO_AUTO] = pp_ocl_histogram,
                  [PP_ALGO_PRIVATE_ATOMIC] = pp_ocl_histogram,
                  [PP_ALGO_GLOBAL_ATOMIC] = pp_ocl_histogram_global_atomic,
                  [PP_ALGO_PRIVATE_REDUCE] = pp_ocl_histogram_private_reduce},
    .select = {[PP_ALGO_AUTO] = pp_ocl_select},
    .sort = {[PP_ALGO_AUTO] = pp_ocl_sort,
             [PP_ALGO_ONESWEEP] = pp_ocl_sort_onesweep,
             [PP_ALGO_COUNT_SCAN_SCATTER] = pp_ocl_sort_count_scan_scatter},
    /* every sort reads the inputs in its first pass and leaves the result in
     * the outputs (opencl_sort.c) */
    .sort_reads_inputs = {[PP_ALGO_AUTO] = 1, [PP_ALGO_ONESWEEP] = 1, [PP_ALGO_COUNT_SCAN_SCATTER] = 1},
    /* the argsort's steps on the sort chosen for PP_PRIM_SORT (core/argsort.c) */
    .top_k = {[PP_ALGO_AUTO] = pp_ocl_top_k},
    .segmented_reduce = {[PP_ALGO_AUTO] = pp_ocl_segmented_reduce, [PP_ALGO_EXACT] = pp_ocl_segmented_reduce_exact},
    .segmented_scan = {[PP_ALGO_AUTO] = pp_ocl_segmented_scan},
    .reduce_by_key = {[PP_ALGO_AUTO] = pp_ocl_reduce_by_key},
    .scan_by_key = {[PP_ALGO_AUTO] = pp_ocl_scan_by_key},
    .run_length_encode = {[PP_ALGO_AUTO] = pp_ocl_run_length_encode},
    /* runs the sort chosen for PP_PRIM_SORT (core/argsort.c) */
    .argsort = {[PP_ALGO_AUTO] = pp_ocl_argsort},
    /* runs the sort chosen for PP_PRIM_SORT (opencl_segsort.c) */
    .segmented_sort = {[PP_ALGO_AUTO] = pp_ocl_segmented_sort},
    .search = {[PP_ALGO_AUTO] = pp_ocl_search},
    .merge = {[PP_ALGO_AUTO] = pp_ocl_merge},
    .reduce_to = {[PP_ALGO_AUTO] = pp_ocl_reduce_to},
    .scan_to = {[PP_ALGO_AUTO] = pp_ocl_scan_to},
    .arg = {[PP_ALGO_AUTO] = pp_ocl_argminmax},
    .exact_sum = pp_ocl_exact_sum,
    .half_reduce = pp_ocl_half_reduce,
    .half_scan = pp_ocl_half_scan,
    .half_scan_init = pp_ocl_half_scan,
    .half_segmented_reduce = pp_ocl_segmented_reduce_exact, /* exact.cl's XHALF */
    .half_segmented_scan = pp_ocl_half_segmented_scan,
    .half_map = pp_ocl_half_map,
};
