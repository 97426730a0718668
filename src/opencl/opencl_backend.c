/* The opencl backend's table: devices, contexts, queues, memory, scratch,
 * the program cache, defines and launches (the API of opencl_internal.h).
 * The primitives live in opencl_reduce_scan.c, opencl_histogram.c,
 * opencl_select.c and opencl_sort.c; their kernels in the .cl files next to
 * them, embedded at build time (cmake/embed_cl.cmake). */
#include "opencl_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* ---- errors ----------------------------------------------------------------------------------------- */

const char *pp_ocl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
        E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
        E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
        E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
        E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
        E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
        E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
    return "CL_UNKNOWN_ERROR";
}

pp_status pp_ocl_error(pp_context *ctx, cl_int err, const char *fn, const char *what)
{
    pp_status st = (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY)
                       ? PP_ERROR_OUT_OF_MEMORY
                       : PP_ERROR_BACKEND;
    return pp_fail(ctx, st, "%s: %s failed: %s (%d)", fn, what, pp_ocl_error_name(err), (int)err);
}

pp_status pp_ocl_alloc_error(pp_context *ctx, cl_int err, const char *fn, const char *what)
{
    if (err == CL_OUT_OF_RESOURCES || err == CL_INVALID_BUFFER_SIZE || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_HOST_MEMORY)
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: %s failed: %s (%d): out of device memory", fn, what,
                       pp_ocl_error_name(err), (int)err);
    return pp_ocl_error(ctx, err, fn, what);
}

/* ---- devices ------------------------------------------------------------------------------------------ */

/* Walks the devices of every platform, in platform order, all device types.
 * Returns CL_SUCCESS and the total in *count; if index < *count, the
 * device's platform and id. No platform (CL_PLATFORM_NOT_FOUND_KHR from the
 * ICD loader) counts as none. */
static cl_int find_device(int index, int *count, cl_platform_id *plat, cl_device_id *dev)
{
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) return CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    cl_platform_id *plats = (cl_platform_id *)calloc(np, sizeof *plats);
    if (!plats) return CL_OUT_OF_HOST_MEMORY;
    err = clGetPlatformIDs(np, plats, NULL);
    if (err != CL_SUCCESS) {
        free(plats);
        return err == CL_PLATFORM_NOT_FOUND_KHR ? CL_SUCCESS : err;
    }
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0) continue;
        if (index >= *count && index < *count + (int)nd) {
            cl_device_id *devs = (cl_device_id *)calloc(nd, sizeof *devs);
            if (!devs) {
                free(plats);
                return CL_OUT_OF_HOST_MEMORY;
            }
            err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
            if (err != CL_SUCCESS) {
                free(devs);
                free(plats);
                return err;
            }
            *plat = plats[p];
            *dev = devs[index - *count];
            free(devs);
        }
        *count += (int)nd;
    }
    free(plats);
    return CL_SUCCESS;
}

static pp_status ocl_probe(void)
{
    int count = 0;
    cl_platform_id p;
    cl_device_id d;
    return find_device(-1, &count, &p, &d) == CL_SUCCESS && count > 0 ? PP_SUCCESS : PP_ERROR_BACKEND_UNAVAILABLE;
}

/* pp_create's AUTO choice: only a GPU (the cpu backend serves a CPU better
 * than an OpenCL CPU device such as PoCL's). 1 if OpenCL device `device`
 * (counted as pp_options.device) is a GPU. */
static int ocl_auto_choice(int device)
{
    int count = 0;
    cl_platform_id p = NULL;
    cl_device_id d = NULL;
    if (device < 0 || find_device(device, &count, &p, &d) != CL_SUCCESS || device >= count) return 0;
    cl_device_type type = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) return 0;
    return (type & CL_DEVICE_TYPE_GPU) != 0;
}

/* A string property, trimmed of surrounding blanks; "" on failure. */
static void info_string(cl_device_id dev, cl_platform_id plat, cl_uint param, char *buf, size_t cap)
{
    buf[0] = '\0';
    cl_int err = dev ? clGetDeviceInfo(dev, param, cap, buf, NULL) : clGetPlatformInfo(plat, param, cap, buf, NULL);
    if (err != CL_SUCCESS) {
        /* too long for buf: take the start */
        size_t need = 0;
        err = dev ? clGetDeviceInfo(dev, param, 0, NULL, &need) : clGetPlatformInfo(plat, param, 0, NULL, &need);
        char *tmp = err == CL_SUCCESS ? (char *)malloc(need + 1) : NULL;
        if (tmp) {
            err = dev ? clGetDeviceInfo(dev, param, need, tmp, NULL) : clGetPlatformInfo(plat, param, need, tmp, NULL);
            if (err == CL_SUCCESS) {
                tmp[need] = '\0';
                snprintf(buf, cap, "%s", tmp);
            }
            free(tmp);
        }
    }
    buf[cap - 1] = '\0';
    size_t len = strlen(buf), b = 0;
    while (len && isspace((unsigned char)buf[len - 1])) buf[--len] = '\0';
    while (b < len && isspace((unsigned char)buf[b])) b++;
    if (b) memmove(buf, buf + b, len - b + 1);
}

/* 1 if the space-separated extension list has ext. */
static int has_extension(const char *list, const char *ext)
{
    size_t len = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)) != NULL; p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return 1;
    return 0;
}

static cl_int query_caps(cl_device_id dev, pp_ocl_caps *c)
{
    cl_int err;
    size_t items[3] = {0, 0, 0};
    cl_uint align_bits = 0;
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof c->max_work_group, &c->max_work_group,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof c->local_mem, &c->local_mem, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof c->compute_units, &c->compute_units,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof c->max_alloc, &c->max_alloc, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof c->global_mem, &c->global_mem, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL)) !=
            CL_SUCCESS)
        return err;
    c->max_work_item0 = items[0] ? items[0] : c->max_work_group;
    c->base_align = align_bits / 8 ? align_bits / 8 : 1;
    if (c->compute_units < 1) c->compute_units = 1;
    if (c->max_work_group < 1) c->max_work_group = 1;
    size_t need = 0;
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &need)) != CL_SUCCESS) return err;
    char *ext = (char *)malloc(need + 1);
    if (!ext) return CL_OUT_OF_HOST_MEMORY;
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, need, ext, NULL)) != CL_SUCCESS) {
        free(ext);
        return err;
    }
    ext[need] = '\0';
    c->fp64 = has_extension(ext, "cl_khr_fp64");
    c->int64_atomics = has_extension(ext, "cl_khr_int64_base_atomics");
    free(ext);
    char ver[128];
    info_string(dev, NULL, CL_DEVICE_OPENCL_C_VERSION, ver, sizeof ver);
    c->c_major = 1;
    c->c_minor = 0;
    if (sscanf(ver, "OpenCL C %d.%d", &c->c_major, &c->c_minor) != 2) c->c_major = 1, c->c_minor = 0;
    return CL_SUCCESS;
}

/* ---- contexts ------------------------------------------------------------------------------------------ */

struct pp_ocl_program {
    const pp_ocl_source *src;
    char *defines;       /* the defines text (the base options are the context's) */
    uint64_t hash;
    cl_program program;
    struct {
        char *name;
        cl_kernel kernel;
    } *kernels;
    size_t nkernels, cap_kernels;
};

static void free_programs(pp_ocl_state *s)
{
    for (size_t i = 0; i < s->nprograms; i++) {
        pp_ocl_program *p = &s->programs[i];
        for (size_t k = 0; k < p->nkernels; k++) {
            clReleaseKernel(p->kernels[k].kernel);
            free(p->kernels[k].name);
        }
        free(p->kernels);
        if (p->program) clReleaseProgram(p->program);
        free(p->defines);
    }
    free(s->programs);
    s->programs = NULL;
    s->nprograms = s->cap_programs = 0;
}

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
    free_programs(s);
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
    cl_int err = find_device(opt->device, &count, &plat, &dev);
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
    if ((err = query_caps(dev, &s->caps)) != CL_SUCCESS) {
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
    const pp_ocl_caps *c = &s->caps;
    const char *std = (c->c_major > 1 || c->c_minor >= 2) ? "-cl-std=CL1.2 " : c->c_minor >= 1 ? "-cl-std=CL1.1 " : "";
    snprintf(s->base_options, sizeof s->base_options, "%s-DPP_HAS_FP64=%d -DPP_HAS_INT64_ATOMICS=%d", std, c->fp64,
             c->int64_atomics);
    char dname[96], pname[64];
    info_string(dev, NULL, CL_DEVICE_NAME, dname, sizeof dname);
    info_string(NULL, plat, CL_PLATFORM_NAME, pname, sizeof pname);
    ctx->threads = 0;
    snprintf(ctx->device_name, sizeof ctx->device_name, "OpenCL: %.90s (%.56s)", dname[0] ? dname : "unnamed device",
             pname[0] ? pname : "unnamed platform");
    return PP_SUCCESS;
}

static pp_status ocl_set_stream(pp_context *ctx, void *native)
{
    static const char fn[] = "pp_set_stream";
    pp_ocl_state *s = pp_ocl(ctx);
    cl_command_queue q = native ? (cl_command_queue)native : s->own_queue;
    if (native) {
        cl_context qc = NULL;
        cl_device_id qd = NULL;
        cl_command_queue_properties qp = 0;
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL);
        if (err == CL_SUCCESS) err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL);
        if (err == CL_SUCCESS) err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL);
        if (err != CL_SUCCESS)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' is not a cl_command_queue (clGetCommandQueueInfo: %s (%d))",
                           fn, pp_ocl_error_name(err), (int)err);
        if (qc != s->context)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' belongs to another cl_context than the parprim context's "
                           "(get it with clGetMemObjectInfo(CL_MEM_CONTEXT) on pp_malloc memory)",
                           fn);
        if (qd != s->device)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                           "%s: argument 'native_stream' is a queue of another device than the context's", fn);
        if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
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
    PP_OCL_STATUS(pp_ocl_check_size(ctx, fn, dst, bytes, "dst"));
    PP_OCL_STATUS(pp_ocl_check_size(ctx, fn, src, bytes, "src"));
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

/* ---- defines ------------------------------------------------------------------------------------------------- */

void pp_ocl_def(pp_ocl_defines *d, const char *fmt, ...)
{
    size_t len = strlen(d->text);
    int k = snprintf(d->text + len, sizeof d->text - len, " -DPP_");
    if (k < 0 || (size_t)k >= sizeof d->text - len) {
        d->text[len] = '\0';
        d->overflow = 1;
        return;
    }
    size_t len2 = len + (size_t)k;
    va_list ap;
    va_start(ap, fmt);
    k = vsnprintf(d->text + len2, sizeof d->text - len2, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof d->text - len2) {
        d->text[len] = '\0';
        d->overflow = 1;
    }
}

static const char *cl_name(int kind, size_t size)
{
    static const char *const ints[2][4] = {{"char", "short", "int", "long"}, {"uchar", "ushort", "uint", "ulong"}};
    int w = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    if (kind == PP_KIND_FLOAT) return size == 4 ? "float" : "double";
    return ints[kind == PP_KIND_UINT][w];
}

const char *pp_ocl_type_name(pp_type type)
{
    switch (type) {
#define X(E, T, S, K, U, W) case E: return cl_name(PP_KIND_##K, sizeof(T));
        PP_FOR_EACH_TYPE(X)
#undef X
    }
    return "?";
}

pp_status pp_ocl_def_type(pp_context *ctx, const char *fn, pp_ocl_defines *d, pp_type type)
{
    int kind = -1;
    size_t size = 0;
    switch (type) {
#define X(E, T, S, K, U, W)   \
    case E:                   \
        kind = PP_KIND_##K;   \
        size = sizeof(T);     \
        break;
        PP_FOR_EACH_TYPE(X)
#undef X
    }
    if (kind < 0) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: type %d reached the opencl backend", fn, (int)type);
    if (kind == PP_KIND_FLOAT && size == 8 && !pp_ocl(ctx)->caps.fp64)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: type f64 is unsupported on this OpenCL device (%s): it has no double precision "
                       "(cl_khr_fp64)",
                       fn, ctx->device_name);
    pp_ocl_def(d, "T=%s", cl_name(kind, size));
    pp_ocl_def(d, "U=%s", cl_name(PP_KIND_UINT, size));
    pp_ocl_def(d, "W=%s", size <= 4 ? "uint" : "ulong");
    pp_ocl_def(d, "T_SIZE=%zu", size);
    pp_ocl_def(d, "T_KIND=%d", kind);
    pp_ocl_def(d, "T_VEC=%zu", 16 / size);
    return PP_SUCCESS;
}

static void def_upper(pp_ocl_defines *d, const char *prefix, const char *suffix)
{
    char up[16];
    size_t i = 0;
    for (; suffix[i] && i + 1 < sizeof up; i++) up[i] = (char)toupper((unsigned char)suffix[i]);
    up[i] = '\0';
    pp_ocl_def(d, "%s_%s=1", prefix, up);
}

void pp_ocl_def_op(pp_ocl_defines *d, pp_op op)
{
    pp_ocl_def(d, "OP=%d", (int)op);
    switch (op) {
#define X(E, S, I) case E: def_upper(d, "OP", #S); break;
        PP_FOR_EACH_OP(X)
#undef X
    }
}

void pp_ocl_def_cmp(pp_ocl_defines *d, pp_cmp cmp)
{
    pp_ocl_def(d, "CMP=%d", (int)cmp);
    switch (cmp) {
#define X(E, S) case E: def_upper(d, "CMP", #S); break;
        PP_FOR_EACH_CMP(X)
#undef X
    }
}

/* ---- programs and kernels ------------------------------------------------------------------------------------- */

static char *dup_string(const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = (char *)malloc(len);
    if (p) memcpy(p, s, len);
    return p;
}

static uint64_t hash_string(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Builds src with defines; on failure records a message with the start of
 * the build log. */
static pp_status build_program(pp_context *ctx, const char *fn, const pp_ocl_source *src, const char *defines,
                               cl_program *out)
{
    pp_ocl_state *s = pp_ocl(ctx);
    const char *texts[2] = {pp_ocl_prelude, src->text};
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(s->context, 2, texts, NULL, &err);
    if (!p || err != CL_SUCCESS) return pp_ocl_error(ctx, err, fn, "clCreateProgramWithSource");
    size_t olen = strlen(s->base_options) + strlen(defines) + 2;
    char *opts = (char *)malloc(olen);
    if (!opts) {
        clReleaseProgram(p);
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    snprintf(opts, olen, "%s %s", s->base_options, defines);
    err = clBuildProgram(p, 1, &s->device, opts, NULL, NULL);
    free(opts);
    if (err != CL_SUCCESS) {
        char log[320] = "";
        size_t need = 0;
        if (clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &need) == CL_SUCCESS && need) {
            char *full = (char *)malloc(need + 1);
            if (full && clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, need, full, NULL) == CL_SUCCESS) {
                full[need] = '\0';
                const char *b = full;
                while (*b && isspace((unsigned char)*b)) b++;
                snprintf(log, sizeof log, "%s", b);
                for (char *c = log; *c; c++)
                    if (*c == '\n' || *c == '\t') *c = ' ';
            }
            free(full);
        }
        clReleaseProgram(p);
        pp_status st = err == CL_OUT_OF_HOST_MEMORY ? PP_ERROR_OUT_OF_MEMORY : PP_ERROR_BACKEND;
        return pp_fail(ctx, st, "%s: building OpenCL program '%s' failed: %s (%d): %s [defines:%.100s]", fn,
                       src->name, pp_ocl_error_name(err), (int)err, log[0] ? log : "(no build log)", defines);
    }
    *out = p;
    return PP_SUCCESS;
}

pp_status pp_ocl_kernel(pp_context *ctx, const char *fn, const char *program, const pp_ocl_defines *defs,
                        const char *name, cl_kernel *out)
{
    pp_ocl_state *s = pp_ocl(ctx);
    *out = NULL;
    const char *defines = defs ? defs->text : "";
    if (defs && defs->overflow)
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: the defines of OpenCL program '%s' overflow their buffer", fn,
                       program);
    const pp_ocl_source *src = NULL;
    for (size_t i = 0; i < pp_ocl_source_count; i++)
        if (!strcmp(pp_ocl_sources[i].name, program)) {
            src = &pp_ocl_sources[i];
            break;
        }
    if (!src) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: no embedded OpenCL program '%s'", fn, program);

    uint64_t h = hash_string(defines);
    pp_ocl_program *p = NULL;
    for (size_t i = 0; i < s->nprograms; i++)
        if (s->programs[i].src == src && s->programs[i].hash == h && !strcmp(s->programs[i].defines, defines)) {
            p = &s->programs[i];
            break;
        }
    if (!p) {
        if (s->nprograms == s->cap_programs) {
            size_t cap = s->cap_programs ? 2 * s->cap_programs : 16;
            pp_ocl_program *np = (pp_ocl_program *)realloc(s->programs, cap * sizeof *np);
            if (!np) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
            s->programs = np;
            s->cap_programs = cap;
        }
        char *dcopy = dup_string(defines);
        if (!dcopy) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        cl_program prog = NULL;
        pp_status st = build_program(ctx, fn, src, defines, &prog);
        if (st != PP_SUCCESS) {
            free(dcopy);
            return st;
        }
        p = &s->programs[s->nprograms++];
        memset(p, 0, sizeof *p);
        p->src = src;
        p->defines = dcopy;
        p->hash = h;
        p->program = prog;
    }
    for (size_t k = 0; k < p->nkernels; k++)
        if (!strcmp(p->kernels[k].name, name)) {
            *out = p->kernels[k].kernel;
            return PP_SUCCESS;
        }
    if (p->nkernels == p->cap_kernels) {
        size_t cap = p->cap_kernels ? 2 * p->cap_kernels : 4;
        void *nk = realloc(p->kernels, cap * sizeof *p->kernels);
        if (!nk) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        p->kernels = nk;
        p->cap_kernels = cap;
    }
    char *ncopy = dup_string(name);
    if (!ncopy) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p->program, name, &err);
    if (!k || err != CL_SUCCESS) {
        free(ncopy);
        char what[96];
        snprintf(what, sizeof what, "clCreateKernel(%s.%.40s)", program, name);
        return pp_ocl_error(ctx, err, fn, what);
    }
    p->kernels[p->nkernels].name = ncopy;
    p->kernels[p->nkernels].kernel = k;
    p->nkernels++;
    *out = k;
    return PP_SUCCESS;
}

size_t pp_ocl_kernel_max_group(pp_context *ctx, cl_kernel k)
{
    pp_ocl_state *s = pp_ocl(ctx);
    size_t wg = 0;
    if (clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL) != CL_SUCCESS)
        return 0;
    return wg < s->caps.max_work_group ? wg : s->caps.max_work_group;
}

size_t pp_ocl_group_size(pp_context *ctx, size_t want)
{
    const pp_ocl_caps *c = &pp_ocl(ctx)->caps;
    size_t lim = c->max_work_group < c->max_work_item0 ? c->max_work_group : c->max_work_item0;
    if (want > lim) want = lim;
    size_t p = 1;
    while (p * 2 <= want) p *= 2;
    return p;
}

size_t pp_ocl_groups_for(size_t work, size_t per_group)
{
    size_t g = per_group ? work / per_group + (work % per_group != 0) : 1;
    if (g < 1) g = 1;
    return g < PP_OCL_MAX_GROUPS ? g : PP_OCL_MAX_GROUPS;
}

static void kernel_name(cl_kernel k, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, cap, buf, NULL) != CL_SUCCESS) snprintf(buf, cap, "?");
    buf[cap - 1] = '\0';
}

pp_status pp_ocl_launch(pp_context *ctx, const char *fn, cl_kernel k, size_t groups, size_t local,
                        const pp_ocl_arg *args, int nargs)
{
    char what[96], kn[64];
    for (int i = 0; i < nargs; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            kernel_name(k, kn, sizeof kn);
            snprintf(what, sizeof what, "clSetKernelArg(%s, %d)", kn, i);
            return pp_ocl_error(ctx, err, fn, what);
        }
    }
    size_t global = groups * local;
    cl_int err = clEnqueueNDRangeKernel(pp_ocl_queue(ctx), k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        kernel_name(k, kn, sizeof kn);
        snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", kn);
        return pp_ocl_error(ctx, err, fn, what);
    }
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
    .probe = ocl_probe,
    .auto_choice = ocl_auto_choice,
    .create = ocl_create,
    .destroy = ocl_destroy,
    .set_stream = ocl_set_stream,
    .synchronize = ocl_synchronize,
    .mem_alloc = ocl_alloc,
    .mem_free = ocl_free,
    .upload = ocl_upload,
    .download = ocl_download,
    .copy = ocl_copy,
    .memory_info = ocl_memory_info,
    .reduce = {[PP_ALGO_AUTO] = pp_ocl_reduce},
    .scan = {[PP_ALGO_AUTO] = pp_ocl_scan,
             [PP_ALGO_REDUCE_THEN_SCAN] = pp_ocl_scan,
             [PP_ALGO_BLELLOCH_PADDED] = pp_ocl_scan_blelloch_padded},
    .histogram = {[PP_ALGO_AUTO] = pp_ocl_histogram,
                  [PP_ALGO_PRIVATE_ATOMIC] = pp_ocl_histogram,
                  [PP_ALGO_GLOBAL_ATOMIC] = pp_ocl_histogram_global_atomic,
                  [PP_ALGO_PRIVATE_REDUCE] = pp_ocl_histogram_private_reduce},
    .select = {[PP_ALGO_AUTO] = pp_ocl_select},
    .sort = {[PP_ALGO_AUTO] = pp_ocl_sort},
};
