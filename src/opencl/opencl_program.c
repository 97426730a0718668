/* OpenCL programs (opencl_program.h): the defines a program is built with,
 * the context's cache of built programs and kernels, work-group sizes and
 * launches. The sources are the .cl files embedded at build time
 * (src/opencl/CMakeLists.txt generates pp_ocl_sources). */
#include "opencl_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- defines ------------------------------------------------------------------------------------------------- */

/* Appends prefix and the formatted text to d (on overflow: d unchanged, marked). */
static void append_option(pp_ocl_defines *d, const char *prefix, const char *fmt, va_list ap)
{
    size_t len = strlen(d->text);
    int k = snprintf(d->text + len, sizeof d->text - len, "%s", prefix);
    if (k < 0 || (size_t)k >= sizeof d->text - len) {
        d->text[len] = '\0';
        d->overflow = 1;
        return;
    }
    size_t len2 = len + (size_t)k;
    k = vsnprintf(d->text + len2, sizeof d->text - len2, fmt, ap);
    if (k < 0 || (size_t)k >= sizeof d->text - len2) {
        d->text[len] = '\0';
        d->overflow = 1;
    }
}

void pp_ocl_def(pp_ocl_defines *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_option(d, " -DPP_", fmt, ap);
    va_end(ap);
}

void pp_ocl_option(pp_ocl_defines *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_option(d, " ", fmt, ap);
    va_end(ap);
}

/* The OpenCL C type of `size` bytes of kind (PP_KIND_*). */
static const char *cl_type_name(int kind, size_t size)
{
    static const char *const ints[2][4] = {{"char", "short", "int", "long"}, {"uchar", "ushort", "uint", "ulong"}};
    int w = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    if (kind == PP_KIND_FLOAT) return size == 4 ? "float" : "double";
    return ints[kind == PP_KIND_UINT][w];
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
    default: break; /* the half types: never here (src/core/check.c) */
    }
    if (kind < 0) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: type %d reached the opencl backend", fn, (int)type);
    if (kind == PP_KIND_FLOAT && size == 8 && !pp_ocl(ctx)->caps.fp64)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: type f64 is unsupported on this OpenCL device (%s): it has no double precision "
                       "(cl_khr_fp64)",
                       fn, ctx->device_name);
    pp_ocl_def(d, "T=%s", cl_type_name(kind, size));
    pp_ocl_def(d, "U=%s", cl_type_name(PP_KIND_UINT, size));
    pp_ocl_def(d, "W=%s", size <= 4 ? "uint" : "ulong");
    pp_ocl_def(d, "T_SIZE=%zu", size);
    pp_ocl_def(d, "T_KIND=%d", kind);
    pp_ocl_def(d, "T_VEC=%zu", 16 / size);
    return PP_SUCCESS;
}

void pp_ocl_def_in_type(pp_ocl_defines *d, pp_type in_type)
{
    pp_ocl_def(d, "IN_T=%s", cl_type_name(pp_type_kind(in_type), pp_type_size(in_type)));
}

pp_status pp_ocl_check_type(pp_context *ctx, const char *fn, pp_type type)
{
    pp_ocl_defines unused = PP_OCL_DEFINES_INIT;
    return pp_ocl_def_type(ctx, fn, &unused, type);
}

/* Defines <prefix>_<SUFFIX>=1: def_upper(d, "OP", "sum") gives -DPP_OP_SUM=1. */
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

/* ---- the program cache ------------------------------------------------------------------------------------- */

struct pp_ocl_program {
    const pp_ocl_source *src;
    char *defines;       /* the defines text (the base options are the context's) */
    uint64_t hash;       /* hash_string(defines) */
    cl_program program;
    struct {
        char *name;
        cl_kernel kernel;
    } *kernels;
    size_t nkernels, cap_kernels;
};

void pp_ocl_cache_init(pp_ocl_program_cache *cache, const pp_ocl_caps *c)
{
    cache->items = NULL;
    cache->count = cache->cap = 0;
    const char *std = (c->c_major > 1 || c->c_minor >= 2) ? "-cl-std=CL1.2 " : c->c_minor >= 1 ? "-cl-std=CL1.1 " : "";
    snprintf(cache->base_options, sizeof cache->base_options, "%s-DPP_HAS_FP64=%d -DPP_HAS_INT64_ATOMICS=%d", std,
             c->fp64, c->int64_atomics);
}

void pp_ocl_cache_free(pp_ocl_program_cache *cache)
{
    for (size_t i = 0; i < cache->count; i++) {
        pp_ocl_program *p = &cache->items[i];
        for (size_t k = 0; k < p->nkernels; k++) {
            clReleaseKernel(p->kernels[k].kernel);
            free(p->kernels[k].name);
        }
        free(p->kernels);
        if (p->program) clReleaseProgram(p->program);
        free(p->defines);
    }
    free(cache->items);
    cache->items = NULL;
    cache->count = cache->cap = 0;
}

static pp_status out_of_host_memory(pp_context *ctx, const char *fn)
{
    return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
}

/* items (an array of *cap elements of size bytes, count of them used) with
 * room for one more: as it is, or reallocated to twice *cap (first when
 * *cap is 0), *cap updated. NULL if out of memory (items is then kept). */
static void *room_for_one(void *items, size_t count, size_t *cap, size_t size, size_t first)
{
    if (count < *cap) return items;
    size_t grown_cap = *cap ? 2 * *cap : first;
    void *grown = realloc(items, grown_cap * size);
    if (grown) *cap = grown_cap;
    return grown;
}

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
    const char *base = s->programs.base_options;
    size_t olen = strlen(base) + strlen(defines) + 2;
    char *opts = (char *)malloc(olen);
    if (!opts) {
        clReleaseProgram(p);
        return out_of_host_memory(ctx, fn);
    }
    snprintf(opts, olen, "%s %s", base, defines);
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

    pp_ocl_program_cache *cache = &pp_ocl(ctx)->programs;
    uint64_t h = hash_string(defines);
    pp_ocl_program *p = NULL;
    for (size_t i = 0; i < cache->count; i++)
        if (cache->items[i].src == src && cache->items[i].hash == h && !strcmp(cache->items[i].defines, defines)) {
            p = &cache->items[i];
            break;
        }
    if (!p) {
        pp_ocl_program *items = room_for_one(cache->items, cache->count, &cache->cap, sizeof *items, 16);
        if (!items) return out_of_host_memory(ctx, fn);
        cache->items = items;
        char *dcopy = dup_string(defines);
        if (!dcopy) return out_of_host_memory(ctx, fn);
        cl_program prog = NULL;
        pp_status st = build_program(ctx, fn, src, defines, &prog);
        if (st != PP_SUCCESS) {
            free(dcopy);
            return st;
        }
        p = &cache->items[cache->count++];
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
    void *kernels = room_for_one(p->kernels, p->nkernels, &p->cap_kernels, sizeof *p->kernels, 4);
    if (!kernels) return out_of_host_memory(ctx, fn);
    p->kernels = kernels;
    char *ncopy = dup_string(name);
    if (!ncopy) return out_of_host_memory(ctx, fn);
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

/* ---- kernels and work-group sizes ------------------------------------------------------------------------------ */

pp_status pp_ocl_kernels_fit(pp_context *ctx, const char *fn, const char *program, const pp_ocl_defines *defs,
                             const char *const *names, int nk, cl_kernel *kernels, size_t *L)
{
    for (;;) {
        pp_ocl_defines d = *defs;
        pp_ocl_def(&d, "L=%zu", *L);
        size_t fits = *L;
        for (int i = 0; i < nk; i++) {
            PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, program, &d, names[i], &kernels[i]));
            size_t m = pp_ocl_kernel_max_group(ctx, kernels[i]);
            if (m && m < fits) fits = m;
        }
        if (fits >= *L || *L == 1) return PP_SUCCESS;
        while (*L > 1 && *L > fits) *L /= 2; /* the kernels cannot run this wide here: narrower */
    }
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

/* ---- launches ---------------------------------------------------------------------------------------------- */

/* The kernel's function name, for messages ("?" if the query fails). */
static void kernel_name(cl_kernel k, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, cap, buf, NULL) != CL_SUCCESS) snprintf(buf, cap, "?");
    buf[cap - 1] = '\0';
}

pp_status pp_ocl_launch(pp_context *ctx, const char *fn, cl_kernel k, size_t groups, size_t local,
                        const pp_ocl_arg *args, int nargs)
{
    char what[96], kname[64];
    for (int i = 0; i < nargs; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            kernel_name(k, kname, sizeof kname);
            snprintf(what, sizeof what, "clSetKernelArg(%s, %d)", kname, i);
            return pp_ocl_error(ctx, err, fn, what);
        }
    }
    size_t global = groups * local;
    cl_int err = clEnqueueNDRangeKernel(pp_ocl_queue(ctx), k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        kernel_name(k, kname, sizeof kname);
        snprintf(what, sizeof what, "clEnqueueNDRangeKernel(%s)", kname);
        return pp_ocl_error(ctx, err, fn, what);
    }
    return PP_SUCCESS;
}
