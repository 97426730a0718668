// Operators of the user's own on cuda: the user's text and nvrtc/user_op.cu
// (embedded at build time) compiled at run time by NVRTC for the context's
// device (a CUBIN for its sm_XY), loaded with the runtime's library calls
// (cudaLibraryLoadData: no link to the driver library, so the library still
// loads on machines without a GPU driver), and kept by the context per text
// and element size until pp_destroy. NVRTC itself is loaded at the first
// operator (dlopen of libnvrtc.so.<CUDA major>: where the system finds it,
// else in the toolkit the library was built with), so that the library
// loads, and its other calls run, where NVRTC is absent. The reduce: one pass of blocks over contiguous
// ranges (a contiguous range per warp; for a commutative operator each lane
// folds a strided share of it), then one warp over their results;
// the scan: the same first pass, the warps' carries in order by one warp,
// then each warp scans its range from its carry (two reads and one write of
// the array). Every launch goes on the context's stream. Working memory
// (scratch): the warps' results and their carries; the identity goes to the
// carries' kernel by value. The segmented forms: one launch, a warp per
// segment (grid-stride over the segments), carrying its running value
// across the segment's tiles; no scratch, the offsets never read back.
#include "cuda_state.cuh"

#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" const char pp_cuda_src_user_op[];

struct cuda_op_program {
    cuda_op_program *next;
    uint64_t hash;
    size_t elem, align;      // sizeof and alignof(pp_elem)
    unsigned threads, items; // PP_T and PP_K of the compiled kernels
    cudaLibrary_t lib;
    cudaKernel_t reduce, reduce_any, carries, scan, seg;
};

static cuda_op_program **cache_of(pp_context *ctx)
{
    return reinterpret_cast<cuda_op_program **>(&pp_cuda(ctx)->op_cache);
}

static void free_program(cuda_op_program *p)
{
    if (p->lib) cudaLibraryUnload(p->lib);
    free(p);
}

void pp_cuda_operators_free(pp_context *ctx)
{
    cuda_op_program *p = *cache_of(ctx);
    while (p) {
        cuda_op_program *next = p->next;
        free_program(p);
        p = next;
    }
    *cache_of(ctx) = NULL;
}

// The NVRTC calls used here, loaded once per process.
struct nvrtc_api {
    decltype(&nvrtcGetErrorString) error_string;
    decltype(&nvrtcCreateProgram) create;
    decltype(&nvrtcCompileProgram) compile;
    decltype(&nvrtcGetProgramLogSize) log_size;
    decltype(&nvrtcGetProgramLog) log;
    decltype(&nvrtcGetCUBINSize) cubin_size;
    decltype(&nvrtcGetCUBIN) cubin;
    decltype(&nvrtcDestroyProgram) destroy;
};
static nvrtc_api g_nvrtc;
static int g_nvrtc_ok;
static char g_nvrtc_why[300];
static pthread_once_t g_nvrtc_once = PTHREAD_ONCE_INIT;

static void load_nvrtc(void)
{
    char soname[40], path[600];
    snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDART_VERSION / 1000);
#ifdef PP_NVRTC_DIR
    snprintf(path, sizeof path, "%s/%s", PP_NVRTC_DIR, soname);
#else
    snprintf(path, sizeof path, "%s", soname);
#endif
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_nvrtc_why, sizeof g_nvrtc_why, "NVRTC (%s) not found (searched the library path and %s)", soname,
                 path);
        return;
    }
    void *f[8];
    static const char *names[8] = {"nvrtcGetErrorString", "nvrtcCreateProgram", "nvrtcCompileProgram",
                                   "nvrtcGetProgramLogSize", "nvrtcGetProgramLog", "nvrtcGetCUBINSize",
                                   "nvrtcGetCUBIN", "nvrtcDestroyProgram"};
    for (int i = 0; i < 8; i++)
        if (!(f[i] = dlsym(h, names[i]))) {
            snprintf(g_nvrtc_why, sizeof g_nvrtc_why, "%s has no %s", soname, names[i]);
            return;
        }
    g_nvrtc.error_string = (decltype(g_nvrtc.error_string))f[0];
    g_nvrtc.create = (decltype(g_nvrtc.create))f[1];
    g_nvrtc.compile = (decltype(g_nvrtc.compile))f[2];
    g_nvrtc.log_size = (decltype(g_nvrtc.log_size))f[3];
    g_nvrtc.log = (decltype(g_nvrtc.log))f[4];
    g_nvrtc.cubin_size = (decltype(g_nvrtc.cubin_size))f[5];
    g_nvrtc.cubin = (decltype(g_nvrtc.cubin))f[6];
    g_nvrtc.destroy = (decltype(g_nvrtc.destroy))f[7];
    g_nvrtc_ok = 1;
}

static pp_status nvrtc_fail(pp_context *ctx, const char *fn, const char *what, nvrtcResult r)
{
    return pp_fail(ctx, PP_ERROR_BACKEND, "%s: %s failed: %s", fn, what, g_nvrtc.error_string(r));
}

// Compiles source for the context's device and loads it into p.
static pp_status build(pp_context *ctx, const char *fn, const char *source, cuda_op_program *p)
{
    pp_cuda_state *s = pp_cuda(ctx);
    pthread_once(&g_nvrtc_once, load_nvrtc);
    if (!g_nvrtc_ok) return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: operators on cuda need NVRTC: %s", fn, g_nvrtc_why);
    const size_t len = strlen(source) + strlen(pp_cuda_src_user_op) + 64;
    char *text = (char *)malloc(len);
    if (!text) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    snprintf(text, len, "#line 1 \"operator\"\n%s\n#line 1 \"user_op.cu\"\n%s", source, pp_cuda_src_user_op);
    nvrtcProgram prog;
    nvrtcResult r = g_nvrtc.create(&prog, text, "operator.cu", 0, NULL, NULL);
    free(text);
    if (r != NVRTC_SUCCESS) return nvrtc_fail(ctx, fn, "nvrtcCreateProgram", r);
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, s->device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, s->device);
    char arch[40];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch, "--device-as-default-execution-space", "--std=c++17"};
    r = g_nvrtc.compile(prog, (int)(sizeof opts / sizeof *opts), opts);
    if (r != NVRTC_SUCCESS) {
        char log[360] = "";
        size_t need = 0;
        if (g_nvrtc.log_size(prog, &need) == NVRTC_SUCCESS && need > 1) {
            char *full = (char *)malloc(need);
            if (full && g_nvrtc.log(prog, full) == NVRTC_SUCCESS) {
                snprintf(log, sizeof log, "%s", full);
                for (char *c = log; *c; c++)
                    if (*c == '\n' || *c == '\t') *c = ' ';
            }
            free(full);
        }
        g_nvrtc.destroy(&prog);
        if (r == NVRTC_ERROR_COMPILATION)
            return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'source' does not compile (NVRTC): %s", fn,
                           log[0] ? log : "(no log)");
        return nvrtc_fail(ctx, fn, "nvrtcCompileProgram", r);
    }
    size_t bytes = 0;
    r = g_nvrtc.cubin_size(prog, &bytes);
    char *cubin = r == NVRTC_SUCCESS ? (char *)malloc(bytes) : NULL;
    if (r == NVRTC_SUCCESS && !cubin) r = NVRTC_ERROR_OUT_OF_MEMORY;
    if (r == NVRTC_SUCCESS) r = g_nvrtc.cubin(prog, cubin);
    g_nvrtc.destroy(&prog);
    if (r != NVRTC_SUCCESS) {
        free(cubin);
        return nvrtc_fail(ctx, fn, "nvrtcGetCUBIN", r);
    }
    cudaError_t e = cudaLibraryLoadData(&p->lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
    free(cubin);
    if (e != cudaSuccess) {
        p->lib = NULL;
        return pp_cuda_error(ctx, e, fn, "cudaLibraryLoadData");
    }
    PP_CUDA_TRY(ctx, cudaLibraryGetKernel(&p->reduce, p->lib, "pp_op_reduce_ranges"), fn);
    PP_CUDA_TRY(ctx, cudaLibraryGetKernel(&p->reduce_any, p->lib, "pp_op_reduce_any"), fn);
    PP_CUDA_TRY(ctx, cudaLibraryGetKernel(&p->carries, p->lib, "pp_op_carries"), fn);
    PP_CUDA_TRY(ctx, cudaLibraryGetKernel(&p->scan, p->lib, "pp_op_scan_ranges"), fn);
    PP_CUDA_TRY(ctx, cudaLibraryGetKernel(&p->seg, p->lib, "pp_op_segmented"), fn);
    void *dshape = NULL;
    size_t sbytes = 0;
    unsigned long long shape[4] = {0, 0, 0, 0};
    PP_CUDA_TRY(ctx, cudaLibraryGetGlobal(&dshape, &sbytes, p->lib, "pp_op_shape_"), fn);
    PP_CUDA_TRY(ctx, cudaMemcpy(shape, dshape, sizeof shape, cudaMemcpyDeviceToHost), fn);
    p->elem = (size_t)shape[0];
    p->align = (size_t)shape[1];
    p->threads = (unsigned)shape[2];
    p->items = (unsigned)shape[3];
    return PP_SUCCESS;
}

pp_status pp_cuda_operator_build(pp_context *ctx, pp_operator *op, const char *source)
{
    static const char fn[] = "pp_operator_create";
    cuda_op_program *p = *cache_of(ctx);
    while (p && p->hash != op->hash) p = p->next;
    if (!p) {
        cuda_op_program *np = (cuda_op_program *)calloc(1, sizeof *np);
        if (!np) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        pp_status st = build(ctx, fn, source, np);
        if (st != PP_SUCCESS) {
            free_program(np);
            return st;
        }
        np->hash = op->hash;
        np->next = *cache_of(ctx);
        *cache_of(ctx) = np;
        p = np;
    }
    op->impl = p;
    op->compiled_elem = p->elem;
    op->align = p->align;
    return PP_SUCCESS;
}

// Warps (each a contiguous range) for n elements, the elements per warp
// (a multiple of its tile), and the blocks that hold them.
static unsigned long long warps_of(const pp_cuda_state *s, const cuda_op_program *p, size_t n, unsigned long long *per,
                                   unsigned *blocks)
{
    const size_t tile = (size_t)32 * p->items, tiles = (n + tile - 1) / tile, wpb = p->threads / 32;
    size_t want = pp_cuda_resident(s, 8) * wpb;
    if (want > tiles) want = tiles ? tiles : 1;
    *per = ((tiles + want - 1) / want) * tile;
    const unsigned long long nw = n ? (n + *per - 1) / *per : 1;
    *blocks = (unsigned)((nw + wpb - 1) / wpb);
    return nw;
}

static pp_status launch(pp_context *ctx, const char *fn, cudaKernel_t k, unsigned blocks, unsigned threads,
                        void **args)
{
    pp_cuda_state *s = pp_cuda(ctx);
    PP_CUDA_TRY(ctx, cudaLaunchKernel((const void *)k, dim3(blocks), dim3(threads), args, 0, s->stream), fn);
    s->queued = 1;
    return PP_SUCCESS;
}

pp_status pp_cuda_reduce_op(pp_context *ctx, const pp_op_reduce_args *a)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const pp_operator *op = a->op;
    const cuda_op_program *p = (const cuda_op_program *)op->impl;
    if (a->n == 0) {
        PP_CUDA_TRY(ctx, cudaMemcpyAsync(a->out, op->identity, op->elem, cudaMemcpyHostToDevice, s->stream), a->fn);
        return PP_SUCCESS;
    }
    unsigned long long per = 0, n = a->n;
    unsigned blocks = 0;
    unsigned long long nw = warps_of(s, p, a->n, &per, &blocks);
    char *part = (char *)pp_cuda_scratch(ctx, (size_t)nw * op->elem + 256, a->fn);
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    const void *in = a->in;
    void *out = nw == 1 ? a->out : (void *)part;
    void *args[] = {&in, &n, &per, &out, &nw};
    /* commutative: each lane folds a strided share in registers */
    const cudaKernel_t k = op->commutative ? p->reduce_any : p->reduce;
    pp_status st = launch(ctx, a->fn, k, blocks, p->threads, args);
    if (st != PP_SUCCESS || nw == 1) return st;
    /* the warps' results by one warp: one range of all of them */
    unsigned long long m = nw, per2 = (nw + 32ull * p->items - 1) / (32ull * p->items) * (32ull * p->items), one = 1;
    const void *pin = part;
    void *final_out = a->out;
    void *args2[] = {&pin, &m, &per2, &final_out, &one};
    return launch(ctx, a->fn, k, 1, p->threads, args2);
}

pp_status pp_cuda_scan_op(pp_context *ctx, const pp_op_scan_args *a)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const pp_operator *op = a->op;
    const cuda_op_program *p = (const cuda_op_program *)op->impl;
    unsigned long long per = 0, n = a->n;
    unsigned blocks = 0;
    unsigned long long nw = warps_of(s, p, a->n, &per, &blocks);
    const size_t stride = ((size_t)nw * op->elem + 255) / 256 * 256;
    char *part = (char *)pp_cuda_scratch(ctx, 2 * stride, a->fn); /* the warps' results, their carries */
    if (!part) return PP_ERROR_OUT_OF_MEMORY;
    char *carry = part + stride;
    const void *in = a->in;
    void *pout = part;
    void *args[] = {&in, &n, &per, &pout, &nw};
    /* the ranges' folds; commutative: in any order within a range */
    pp_status st = launch(ctx, a->fn, op->commutative ? p->reduce_any : p->reduce, blocks, p->threads, args);
    const void *cpart = part;
    void *cout = carry;
    /* the identity by value: the launch copies its bytes */
    void *args2[] = {&cpart, &nw, &cout, op->identity};
    if (st == PP_SUCCESS) st = launch(ctx, a->fn, p->carries, 1, 32, args2);
    void *out = a->out;
    const void *ccarry = carry;
    int excl = a->kind == PP_EXCLUSIVE;
    void *args3[] = {&in, &out, &n, &per, &nw, &ccarry, &excl};
    if (st == PP_SUCCESS) st = launch(ctx, a->fn, p->scan, blocks, p->threads, args3);
    return st;
}

// The segmented forms: one launch of pp_op_segmented (a warp per segment).
static pp_status segmented(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const pp_operator *op = a->user_op;
    const cuda_op_program *p = (const cuda_op_program *)op->impl;
    if (scan && a->n == 0) return PP_SUCCESS; // every segment empty: nothing to write
    const unsigned long long wpb = p->threads / 32, want = (a->nseg + wpb - 1) / wpb;
    const unsigned blocks = (unsigned)(want < (1ull << 20) ? want : (1ull << 20));
    const void *in = a->in, *off = a->offsets;
    void *out = a->out;
    unsigned long long n = a->n, nseg = a->nseg;
    int sc = scan, excl = a->kind == PP_EXCLUSIVE;
    void *args[] = {&in, &out, &n, &off, &nseg, &sc, &excl, op->identity}; // the identity by value
    return launch(ctx, a->fn, p->seg, blocks, p->threads, args);
}

pp_status pp_cuda_segmented_reduce_op(pp_context *ctx, const pp_segmented_args *a)
{
    return segmented(ctx, a, 0);
}

pp_status pp_cuda_segmented_scan_op(pp_context *ctx, const pp_segmented_args *a)
{
    return segmented(ctx, a, 1);
}
