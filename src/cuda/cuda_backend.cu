// The cuda backend's contexts, streams, memory, scratch and the look-back
// arena (cuda_state.cuh). Its table is cuda_table.c; the primitives live in
// cuda_reduce.cu, cuda_scan.cu, cuda_histogram.cu, cuda_select.cu and
// cuda_sort.cu, the course notes' algorithms in study/.
#include "cuda_state.cuh"

#include <stdio.h>
#include <stdlib.h>

pp_status pp_cuda_error(pp_context *ctx, cudaError_t err, const char *fn, const char *what)
{
    pp_status st = err == cudaErrorMemoryAllocation ? PP_ERROR_OUT_OF_MEMORY : PP_ERROR_BACKEND;
    return pp_fail(ctx, st, "%s: %s failed: %s (%s)", fn, what, cudaGetErrorString(err), cudaGetErrorName(err));
}

// Makes the context's device current: first thing in every entry point.
static pp_status bind(pp_context *ctx, const char *fn)
{
    PP_CUDA_TRY(ctx, cudaSetDevice(pp_cuda(ctx)->device), fn);
    return PP_SUCCESS;
}

#define ENTER(ctx, fn)                               \
    do {                                             \
        pp_status st_ = bind((ctx), (fn));           \
        if (st_ != PP_SUCCESS) return st_;           \
    } while (0)

// Before every primitive. A primitive's launches carry values that the
// host hands out per call (tile tickets, look-back epochs, the arguments of
// the cached graphs of pp_cuda_launch), so a CUDA graph captured from one
// call and replayed would reuse them and give wrong results: refuse a
// stream that is being captured.
pp_status pp_cuda_enter(pp_context *ctx, const char *fn)
{
    ENTER(ctx, fn);
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(pp_cuda(ctx)->stream, &cs) != cudaSuccess) {
        cudaGetLastError();
        cs = cudaStreamCaptureStatusActive; // the stream is in a state that capture left it in
    }
    if (cs != cudaStreamCaptureStatusNone)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: the context's stream is being captured into a CUDA graph; parprim's primitives "
                       "cannot be replayed from a graph (each call numbers its tiles afresh): call them outside "
                       "the capture",
                       fn);
    pp_cuda(ctx)->queued = 1;
    return PP_SUCCESS;
}

// ---- launches through cached one-node graphs ----------------------------------
// Launching the kernel node of an instantiated graph, its parameters
// updated first, costs the host less than a <<<>>> launch, and an empty
// kernel launched so finishes sooner (bench/studies/cuda-small-calls.md, "cuda at small n:
// cached graph launches and one-cluster kernels"): the launch is most of a
// small call's time. The context keeps one graph per kernel function, the
// least recently used one replaced.

static void graph_slot_free(pp_cuda_graph_slot *g)
{
    if (g->exec) cudaGraphExecDestroy(g->exec);
    if (g->graph) cudaGraphDestroy(g->graph);
    memset(g, 0, sizeof *g);
}

cudaError_t pp_cuda_launch_node(pp_context *ctx, const void *func, dim3 grid, dim3 block, size_t smem, void **args)
{
    pp_cuda_state *s = pp_cuda(ctx);
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)func;
    kp.gridDim = grid;
    kp.blockDim = block;
    kp.sharedMemBytes = (unsigned)smem;
    kp.kernelParams = args;
    pp_cuda_graph_slot *g = NULL, *lru = &s->graphs[0];
    for (int i = 0; i < PP_CUDA_GRAPHS; i++) {
        if (s->graphs[i].func == func) g = &s->graphs[i];
        if (s->graphs[i].used < lru->used) lru = &s->graphs[i];
    }
    if (g && cudaGraphExecKernelNodeSetParams(g->exec, g->node, &kp) != cudaSuccess) {
        cudaGetLastError(); // rebuilt below, in the same slot
        lru = g;
        g = NULL;
    }
    if (!g) {
        g = lru;
        graph_slot_free(g);
        if (cudaGraphCreate(&g->graph, 0) != cudaSuccess || cudaGraphAddKernelNode(&g->node, g->graph, NULL, 0, &kp) != cudaSuccess ||
            cudaGraphInstantiate(&g->exec, g->graph, 0) != cudaSuccess) {
            // No graph (a launch configuration the node refuses, or no
            // memory for one): a plain launch, which reports any error.
            cudaGetLastError();
            graph_slot_free(g);
            return cudaLaunchKernel(func, grid, block, args, smem, s->stream);
        }
        g->func = func;
    }
    g->used = ++s->graph_clock;
    return cudaGraphLaunch(g->exec, s->stream);
}

// Grows the buffer *buf of *have bytes to at least bytes (by at least a
// quarter, so that slowly growing sizes do not reallocate every call);
// cudaFree waits for work that may still use it. NULL on failure (message
// set, the buffer freed).
static void *grow_buffer(pp_context *ctx, void **buf, size_t *have, size_t bytes, const char *fn)
{
    if (bytes <= *have) return *buf;
    size_t want = bytes + bytes / 4;
    if (want < bytes) want = bytes;
    if (*buf) cudaFree(*buf);
    *buf = NULL;
    *have = 0;
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, want);
    if (e != cudaSuccess && want != bytes) {
        cudaGetLastError();
        e = cudaMalloc(&p, bytes);
        want = bytes;
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of device working memory", fn, bytes);
        return NULL;
    }
    *buf = p;
    *have = want;
    return p;
}

void *pp_cuda_scratch(pp_context *ctx, size_t bytes, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    return grow_buffer(ctx, &s->scratch, &s->scratch_bytes, bytes, fn);
}

void *pp_cuda_held(pp_context *ctx, size_t bytes, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    return grow_buffer(ctx, &s->held, &s->held_bytes, bytes, fn);
}

uint32_t *pp_cuda_lookback(pp_context *ctx, size_t tiles, uint32_t *epoch, unsigned long long *ticket_base,
                           const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const size_t words = tiles * 2 * PP_CUDA_LB_STRIDE; // 32-bit words
    if (words > s->flag_words) {
        size_t want = words + words / 4;
        if (s->flags) cudaFree(s->flags);
        s->flags = NULL;
        s->flag_words = 0;
        if (cudaMalloc((void **)&s->flags, want * sizeof(uint32_t)) != cudaSuccess) {
            cudaGetLastError();
            s->flags = NULL;
            pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of look-back flags", fn,
                    want * sizeof(uint32_t));
            return NULL;
        }
        s->flag_words = want;
        cudaMemsetAsync(s->flags, 0, want * sizeof(uint32_t), s->stream);
    }
    // Epochs 1 .. 2^30 - 1; on wrap, clear the arena so no stale tag survives.
    if (s->epoch == 0 || s->epoch >= (1u << 30) - 1) {
        cudaMemsetAsync(s->flags, 0, s->flag_words * sizeof(uint32_t), s->stream);
        s->epoch = 0;
    }
    *epoch = ++s->epoch;
    *ticket_base = s->ticket_base;
    s->ticket_base += tiles;
    return s->flags;
}

pp_status pp_cuda_zero(pp_context *ctx, void *p, size_t bytes, const char *fn)
{
    PP_CUDA_TRY(ctx, cudaMemsetAsync(p, 0, bytes, pp_cuda(ctx)->stream), fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_launched_tickets(pp_context *ctx, const char *fn, cudaError_t e)
{
    if (e == cudaSuccess) return PP_SUCCESS;
    const pp_status st = pp_cuda_error(ctx, e, fn, "kernel launch");
    pp_cuda_state *s = pp_cuda(ctx);
    cudaStreamSynchronize(s->stream);
    // The launch took no tickets: read the device's count.
    unsigned long long v = 0;
    cudaGetLastError();
    if (cudaMemcpy(&v, s->ticket, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess) s->ticket_base = v;
    return st;
}

pp_status pp_cuda_probe(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) cudaGetLastError();
    return e == cudaSuccess && n > 0 ? PP_SUCCESS : PP_ERROR_BACKEND_UNAVAILABLE;
}


pp_status pp_cuda_create(pp_context *ctx, const pp_options *opt)
{
    static const char fn[] = "pp_create";
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        cudaGetLastError();
        return pp_fail(ctx, PP_ERROR_BACKEND_UNAVAILABLE, "%s: the cuda backend finds no CUDA device (%s)", fn,
                       e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    }
    if (opt->device >= count)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: opt->device = %d, but there are %d CUDA devices", fn,
                       opt->device, count);
    pp_cuda_state *s = (pp_cuda_state *)calloc(1, sizeof *s);
    if (!s) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    ctx->impl = s;
    s->device = opt->device;
    pp_status st = PP_SUCCESS;
    cudaDeviceProp prop;
    if ((e = cudaSetDevice(s->device)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, s->device)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&s->own_stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = cudaMalloc((void **)&s->ticket, sizeof *s->ticket)) != cudaSuccess ||
        (e = cudaMemset(s->ticket, 0, sizeof *s->ticket)) != cudaSuccess) {
        st = pp_cuda_error(ctx, e, fn, "device setup");
        pp_cuda_destroy(ctx);
        return st;
    }
    s->stream = s->own_stream;
    s->sm_count = prop.multiProcessorCount;
    s->smem_optin = prop.sharedMemPerBlockOptin;
    ctx->threads = 0;
    snprintf(ctx->device_name, sizeof ctx->device_name, "%s (CUDA device %d, %d SMs, compute capability %d.%d)",
             prop.name, s->device, prop.multiProcessorCount, prop.major, prop.minor);
    return PP_SUCCESS;
}

void pp_cuda_destroy(pp_context *ctx)
{
    pp_cuda_state *s = pp_cuda(ctx);
    if (!s) return;
    cudaSetDevice(s->device);
    if (s->own_stream) cudaStreamSynchronize(s->own_stream);
    if (s->stream && s->stream != s->own_stream) cudaStreamSynchronize(s->stream);
    for (int i = 0; i < PP_CUDA_GRAPHS; i++) graph_slot_free(&s->graphs[i]);
    pp_cuda_operators_free(ctx);
    cudaFree(s->scratch);
    cudaFree(s->held);
    cudaFree(s->flags);
    cudaFree(s->ticket);
    if (s->own_stream) cudaStreamDestroy(s->own_stream);
    cudaGetLastError();
    free(s);
    ctx->impl = NULL;
}

void *pp_cuda_stream(const pp_context *ctx) { return (void *)pp_cuda((pp_context *)ctx)->stream; }

pp_status pp_cuda_set_stream(pp_context *ctx, void *native)
{
    static const char fn[] = "pp_set_stream";
    ENTER(ctx, fn);
    pp_cuda_state *s = pp_cuda(ctx);
    // The scratch and look-back arena are shared by all of the context's
    // work: let what was queued on the old stream finish first.
    // A stream being captured cannot be waited for; parprim queued nothing
    // on it since the capture began (pp_cuda_enter refuses that), so only
    // work from before the capture could still run.
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s->stream, &cs) != cudaSuccess) cudaGetLastError(); // the synchronize reports it
    if (cs == cudaStreamCaptureStatusNone) PP_CUDA_TRY(ctx, cudaStreamSynchronize(s->stream), fn);
    else if (s->queued)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: the context's stream is being captured into a CUDA graph, and parprim work queued on "
                       "it before the capture began may still be running: call pp_synchronize before the capture",
                       fn);
    s->queued = 0;
    s->stream = native ? (cudaStream_t)native : s->own_stream;
    return PP_SUCCESS;
}

pp_status pp_cuda_synchronize(pp_context *ctx)
{
    static const char fn[] = "pp_synchronize";
    ENTER(ctx, fn);
    PP_CUDA_TRY(ctx, cudaStreamSynchronize(pp_cuda(ctx)->stream), fn);
    pp_cuda(ctx)->queued = 0;
    return PP_SUCCESS;
}

pp_status pp_cuda_alloc(pp_context *ctx, void **p, size_t bytes)
{
    static const char fn[] = "pp_malloc";
    ENTER(ctx, fn);
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        if (e == cudaErrorMemoryAllocation)
            return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of device memory", fn,
                           bytes);
        return pp_cuda_error(ctx, e, fn, "cudaMalloc");
    }
    return PP_SUCCESS;
}

pp_status pp_cuda_free(pp_context *ctx, void *p)
{
    static const char fn[] = "pp_free";
    ENTER(ctx, fn);
    PP_CUDA_TRY(ctx, cudaFree(p), fn);
    return PP_SUCCESS;
}

// Host <-> device copy on the context's stream, complete when it returns.
static pp_status copy_sync(pp_context *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                           const char *fn)
{
    ENTER(ctx, fn);
    cudaStream_t st = pp_cuda(ctx)->stream;
    PP_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, kind, st), fn);
    PP_CUDA_TRY(ctx, cudaStreamSynchronize(st), fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_upload(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_sync(ctx, dst, src, bytes, cudaMemcpyHostToDevice, "pp_upload");
}

pp_status pp_cuda_download(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_sync(ctx, dst, src, bytes, cudaMemcpyDeviceToHost, "pp_download");
}

pp_status pp_cuda_copy(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    static const char fn[] = "pp_copy";
    ENTER(ctx, fn);
    PP_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, pp_cuda(ctx)->stream), fn);
    return PP_SUCCESS;
}

pp_status pp_cuda_memory_info(pp_context *ctx, pp_memory_info *info)
{
    static const char fn[] = "pp_context_memory";
    ENTER(ctx, fn);
    size_t free_bytes = 0, total_bytes = 0;
    PP_CUDA_TRY(ctx, cudaMemGetInfo(&free_bytes, &total_bytes), fn);
    info->total_bytes = total_bytes;
    info->available_bytes = free_bytes;
    info->max_alloc_bytes = total_bytes; // no per-allocation limit below the device's memory
    return PP_SUCCESS;
}

// pp_create's AUTO: a CUDA device is always the first choice.
int pp_cuda_auto_choice(int device)
{
    (void)device;
    return 1;
}
