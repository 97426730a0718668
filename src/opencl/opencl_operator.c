/* Operators of the user's own on opencl: the user's text and user_op.cl
 * built as one program (with the device's compiler, as every program of
 * the backend; without the prelude, whose names could collide with the
 * user's), kept by the context per text and element size. The reduce: one
 * pass of work-groups over contiguous ranges, then one work-group over
 * their results; the scan: the same first pass, the groups' carries in
 * order by one work-item, then each group scans its range from its carry
 * (two reads and one write of the array). Working memory (scratch): the
 * groups' results, then their carries; the identity is a by-value kernel
 * argument. The segmented forms: one pass, a work-group per segment
 * (op_seg: at most OP_SEG_GROUPS groups, each taking every
 * OP_SEG_GROUPS-th segment) carrying its running value across the
 * segment's tiles, on CPU devices a work-item per segment (op_seg_items:
 * no barrier, which some PoCL versions cannot place in a loop); no
 * scratch. */
#include "opencl_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* Work-items per group (local memory: OP_L elements of up to 256 bytes). */
#define OP_L 64
/* At most this many groups (their carries are folded by one work-item). */
#define OP_MAX_GROUPS 1024

typedef struct ocl_op_program {
    struct ocl_op_program *next;
    uint64_t hash;
    size_t elem;
    cl_program program;
    cl_kernel reduce, carries, scan, seg, seg_items;
} ocl_op_program;

static const char *template_text(void)
{
    for (size_t i = 0; i < pp_ocl_source_count; i++)
        if (!strcmp(pp_ocl_sources[i].name, "user_op")) return pp_ocl_sources[i].text;
    return NULL;
}

static void free_program(ocl_op_program *p)
{
    if (p->reduce) clReleaseKernel(p->reduce);
    if (p->carries) clReleaseKernel(p->carries);
    if (p->scan) clReleaseKernel(p->scan);
    if (p->seg) clReleaseKernel(p->seg);
    if (p->seg_items) clReleaseKernel(p->seg_items);
    if (p->program) clReleaseProgram(p->program);
    free(p);
}

void pp_ocl_operators_free(pp_ocl_state *s)
{
    ocl_op_program *p = (ocl_op_program *)s->op_cache;
    while (p) {
        ocl_op_program *next = p->next;
        free_program(p);
        p = next;
    }
    s->op_cache = NULL;
}

/* The start of the build log, on one line. */
static void build_log(pp_ocl_state *s, cl_program p, char *log, size_t cap)
{
    size_t need = 0;
    log[0] = 0;
    if (clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &need) != CL_SUCCESS || !need) return;
    char *full = (char *)malloc(need + 1);
    if (full && clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, need, full, NULL) == CL_SUCCESS) {
        full[need] = 0;
        const char *b = full;
        while (*b && isspace((unsigned char)*b)) b++;
        snprintf(log, cap, "%s", b);
        for (char *c = log; *c; c++)
            if (*c == '\n' || *c == '\t') *c = ' ';
    }
    free(full);
}

/* Builds the program of source; its element size into *elem. */
static pp_status build(pp_context *ctx, const char *fn, const char *source, ocl_op_program *p, size_t *elem)
{
    pp_ocl_state *s = pp_ocl(ctx);
    const char *tmpl = template_text();
    if (!tmpl) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: no embedded OpenCL program 'user_op'", fn);
    const char *texts[4] = {"#if PP_HAS_FP64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n"
                            "#line 1 \"operator\"\n",
                            source, "\n#line 1 \"user_op.cl\"\n", tmpl};
    cl_int err = CL_SUCCESS;
    p->program = clCreateProgramWithSource(s->context, 4, texts, NULL, &err);
    if (!p->program || err != CL_SUCCESS) return pp_ocl_error(ctx, err, fn, "clCreateProgramWithSource");
    char opts[200];
    snprintf(opts, sizeof opts, "%s -DPP_L=%d", s->programs.base_options, OP_L);
    err = clBuildProgram(p->program, 1, &s->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[360];
        build_log(s, p->program, log, sizeof log);
        if (err == CL_BUILD_PROGRAM_FAILURE)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'source' does not compile (OpenCL): %s", fn,
                           log[0] ? log : "(no build log)");
        return pp_ocl_error(ctx, err, fn, "clBuildProgram");
    }
    cl_kernel size_k = clCreateKernel(p->program, "op_elem_size", &err);
    if (err == CL_SUCCESS) p->reduce = clCreateKernel(p->program, "op_reduce_ranges", &err);
    if (err == CL_SUCCESS) p->carries = clCreateKernel(p->program, "op_carries", &err);
    if (err == CL_SUCCESS) p->scan = clCreateKernel(p->program, "op_scan_ranges", &err);
    if (err == CL_SUCCESS) p->seg = clCreateKernel(p->program, "op_seg", &err);
    if (err == CL_SUCCESS) p->seg_items = clCreateKernel(p->program, "op_seg_items", &err);
    if (err != CL_SUCCESS) {
        if (size_k) clReleaseKernel(size_k);
        return pp_ocl_error(ctx, err, fn, "clCreateKernel(user_op)");
    }
    cl_mem out = NULL;
    pp_status st = pp_ocl_scratch(ctx, sizeof(cl_ulong), fn, &out);
    cl_ulong size = 0;
    if (st == PP_SUCCESS) st = PP_OCL_LAUNCH(ctx, fn, size_k, 1, 1, PP_OCL_ARG(out));
    clReleaseKernel(size_k);
    if (st != PP_SUCCESS) return st;
    PP_OCL_TRY(ctx, clEnqueueReadBuffer(pp_ocl_queue(ctx), out, CL_TRUE, 0, sizeof size, &size, 0, NULL, NULL), fn,
               "clEnqueueReadBuffer(element size)");
    *elem = (size_t)size;
    return PP_SUCCESS;
}

pp_status pp_ocl_operator_build(pp_context *ctx, pp_operator *op, const char *source)
{
    static const char fn[] = "pp_operator_create";
    pp_ocl_state *s = pp_ocl(ctx);
    const uint64_t h = op->hash;
    ocl_op_program *p = (ocl_op_program *)s->op_cache;
    while (p && p->hash != h) p = p->next;
    if (!p) {
        ocl_op_program *np = (ocl_op_program *)calloc(1, sizeof *np);
        if (!np) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        np->hash = h;
        pp_status st = build(ctx, fn, source, np, &np->elem);
        if (st != PP_SUCCESS) {
            free_program(np);
            return st;
        }
        np->next = (ocl_op_program *)s->op_cache;
        s->op_cache = np;
        p = np;
    }
    op->impl = p;
    op->compiled_elem = p->elem;
    op->align = 1; /* cl_mem handles: no alignment to check */
    return PP_SUCCESS;
}

/* The groups of a pass over n elements and the elements per group. */
static size_t groups_of(size_t n, cl_ulong *per)
{
    size_t g = n / ((size_t)OP_L * 32);
    if (g < 1) g = 1;
    if (g > OP_MAX_GROUPS) g = OP_MAX_GROUPS;
    *per = (n + g - 1) / g;
    return *per ? (n + *per - 1) / *per : 1;
}

/* The identity as a by-value kernel argument (copied when it is set). */
#define OP_IDENTITY(op) {(op)->elem, (op)->identity}
#define OP_LOCAL(op) PP_OCL_LOCAL(OP_L * (op)->elem)

pp_status pp_ocl_reduce_op(pp_context *ctx, const pp_op_reduce_args *a)
{
    const pp_operator *op = a->op;
    const ocl_op_program *p = (const ocl_op_program *)op->impl;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->out, op->elem, "out"}, {a->n ? a->in : NULL, a->n * op->elem, "in"}));
    cl_mem aux, in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out);
    if (a->n == 0) { /* the identity (op->identity may be freed once the call returns: a blocking write) */
        PP_OCL_TRY(ctx, clEnqueueWriteBuffer(pp_ocl_queue(ctx), out, CL_TRUE, 0, op->elem, op->identity, 0, NULL, NULL),
                   a->fn, "clEnqueueWriteBuffer(identity)");
        return PP_SUCCESS;
    }
    cl_ulong per = 0, n = a->n;
    const size_t groups = groups_of(a->n, &per);
    if (groups == 1)
        return PP_OCL_LAUNCH(ctx, a->fn, p->reduce, 1, OP_L, PP_OCL_ARG(in), PP_OCL_ARG(n), PP_OCL_ARG(per),
                             PP_OCL_ARG(out), OP_IDENTITY(op), OP_LOCAL(op));
    PP_OCL_STATUS(pp_ocl_scratch(ctx, groups * op->elem, a->fn, &aux));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, a->fn, p->reduce, groups, OP_L, PP_OCL_ARG(in), PP_OCL_ARG(n), PP_OCL_ARG(per),
                                PP_OCL_ARG(aux), OP_IDENTITY(op), OP_LOCAL(op)));
    cl_ulong g = groups;
    return PP_OCL_LAUNCH(ctx, a->fn, p->reduce, 1, OP_L, PP_OCL_ARG(aux), PP_OCL_ARG(g), PP_OCL_ARG(g), PP_OCL_ARG(out),
                         OP_IDENTITY(op), OP_LOCAL(op));
}

pp_status pp_ocl_scan_op(pp_context *ctx, const pp_op_scan_args *a)
{
    const pp_operator *op = a->op;
    const ocl_op_program *p = (const ocl_op_program *)op->impl;
    const size_t bytes = a->n * op->elem;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->in, bytes, "in"}, {a->out, bytes, "out"}));
    cl_ulong per = 0, n = a->n;
    const size_t groups = groups_of(a->n, &per);
    cl_ulong g = groups;
    cl_int excl = a->kind == PP_EXCLUSIVE;
    cl_mem aux, in = pp_ocl_mem(a->in), out = pp_ocl_mem(a->out);
    PP_OCL_STATUS(pp_ocl_scratch(ctx, 2 * groups * op->elem, a->fn, &aux)); /* results, carries */
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, a->fn, p->reduce, groups, OP_L, PP_OCL_ARG(in), PP_OCL_ARG(n), PP_OCL_ARG(per),
                                PP_OCL_ARG(aux), OP_IDENTITY(op), OP_LOCAL(op)));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, a->fn, p->carries, 1, 1, PP_OCL_ARG(aux), PP_OCL_ARG(g), OP_IDENTITY(op)));
    return PP_OCL_LAUNCH(ctx, a->fn, p->scan, groups, OP_L, PP_OCL_ARG(in), PP_OCL_ARG(out), PP_OCL_ARG(n),
                         PP_OCL_ARG(per), PP_OCL_ARG(aux), PP_OCL_ARG(g), PP_OCL_ARG(excl), OP_IDENTITY(op),
                         OP_LOCAL(op));
}

/* Groups of op_seg (each takes every OP_SEG_GROUPS-th segment). */
#define OP_SEG_GROUPS 16384

static pp_status segmented(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const pp_operator *op = a->user_op;
    const ocl_op_program *p = (const ocl_op_program *)op->impl;
    const size_t bytes = a->n * op->elem, obytes = scan ? bytes : a->nseg * op->elem;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {obytes ? a->out : NULL, obytes, "out"},
                                     {a->n ? a->in : NULL, bytes, "in"},
                                     {a->offsets, (a->nseg + 1) * sizeof(cl_ulong), "offsets"}));
    if (obytes == 0) return PP_SUCCESS; /* a scan of n == 0 */
    cl_ulong n = a->n, nseg = a->nseg;
    cl_int sc = scan, excl = a->kind == PP_EXCLUSIVE;
    /* n == 0 (reduce): every segment is empty and in is never read; out stands in for it */
    cl_mem in = pp_ocl_mem(a->n ? a->in : a->out), out = pp_ocl_mem(a->out), off = pp_ocl_mem(a->offsets);
    if (pp_ocl_cpu_shape(pp_ocl_device_caps(ctx))) /* a work-item per segment */
        return PP_OCL_LAUNCH(ctx, a->fn, p->seg_items, (a->nseg + OP_L - 1) / OP_L, OP_L, PP_OCL_ARG(in),
                             PP_OCL_ARG(out), PP_OCL_ARG(n), PP_OCL_ARG(off), PP_OCL_ARG(nseg), PP_OCL_ARG(sc),
                             PP_OCL_ARG(excl), OP_IDENTITY(op));
    const size_t groups = a->nseg < OP_SEG_GROUPS ? a->nseg : OP_SEG_GROUPS;
    return PP_OCL_LAUNCH(ctx, a->fn, p->seg, groups, OP_L, PP_OCL_ARG(in), PP_OCL_ARG(out), PP_OCL_ARG(n),
                         PP_OCL_ARG(off), PP_OCL_ARG(nseg), PP_OCL_ARG(sc), PP_OCL_ARG(excl), OP_IDENTITY(op),
                         OP_LOCAL(op));
}

pp_status pp_ocl_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a) { return segmented(ctx, a, 0); }

pp_status pp_ocl_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a) { return segmented(ctx, a, 1); }
