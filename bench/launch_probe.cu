// Where a small call's time goes on cuda: an empty kernel launched with
// <<<>>>, from an instantiated graph, and from a graph whose kernel node's
// parameters are set before each launch (what pp_cuda_launch does); then
// pp_reduce and pp_scan (exclusive) against CUB's, plain and replayed from
// a captured graph. Each figure: median of 300 calls timed with CUDA events
// around the call (as bench_cub times), and in parentheses the host time
// of the call alone. u32 sums, n = 2^12, 2^16, 2^20.
// Usage: bench_launch
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <parprim.h>

#include "harness.h"

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>


__global__ void empty_kernel(int *p)
{
    if (p) *p = 1;
}

static cudaStream_t g_st;

template <class F> static double event_us(F f)
{
    return 1000.0 * harness::event_median_ms(g_st, 300, 5, [] {}, f);
}

template <class F> static double host_us(F f)
{
    const double us = harness::median_of_runs(300, [&] {
        CK(cudaStreamSynchronize(g_st));
        auto t0 = std::chrono::steady_clock::now();
        f();
        auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::micro>(t1 - t0).count();
    });
    CK(cudaStreamSynchronize(g_st));
    return us;
}

template <class F> static cudaGraphExec_t captured(F f)
{
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(g_st, cudaStreamCaptureModeThreadLocal));
    f();
    CK(cudaStreamEndCapture(g_st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphDestroy(g));
    return ge;
}

template <class F> static void row(const char *what, F f)
{
    const double e = event_us(f), h = host_us(f);
    printf("  %-44s %7.2f us  (host %5.2f us)\n", what, e, h);
}

int main()
{
    CK(cudaStreamCreateWithFlags(&g_st, cudaStreamNonBlocking));
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CUDA;
    pp_context *c;
    if (pp_create(&c, &o) != PP_SUCCESS) {
        fprintf(stderr, "bench_launch: %s\n", pp_last_error(NULL));
        return 1;
    }
    pp_set_stream(c, g_st);
    printf("bench_launch: %s\n", pp_context_device_name(c));

    // The empty kernel three ways.
    int *nul = NULL;
    void *args[] = {&nul};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)empty_kernel;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraph_t g;
    cudaGraphNode_t node;
    cudaGraphExec_t ge;
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CK(cudaGraphInstantiate(&ge, g, 0));
    printf("empty kernel, 1 block of 32 threads:\n");
    row("<<<>>>", [&] { empty_kernel<<<1, 32, 0, g_st>>>(NULL); });
    row("graph launch", [&] { CK(cudaGraphLaunch(ge, g_st)); });
    row("graph launch, node parameters set first", [&] {
        CK(cudaGraphExecKernelNodeSetParams(ge, node, &kp));
        CK(cudaGraphLaunch(ge, g_st));
    });

    int bad = 0;
    for (int lg : {12, 16, 20}) {
        const size_t n = (size_t)1 << lg;
        unsigned *in, *out;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&out, n * 4));
        std::vector<unsigned> h(n);
        for (size_t i = 0; i < n; i++) h[i] = (unsigned)(i * 2654435761u >> 7);
        CK(cudaMemcpyAsync(in, h.data(), n * 4, cudaMemcpyHostToDevice, g_st));
        CK(cudaStreamSynchronize(g_st));
        size_t tb = 0, tb2 = 0;
        CK(cub::DeviceReduce::Sum(NULL, tb, in, out, (int)n, g_st));
        CK(cub::DeviceScan::ExclusiveSum(NULL, tb2, in, out, (int)n, g_st));
        void *tmp;
        CK(cudaMalloc(&tmp, std::max(tb, tb2)));
        auto cr = [&] { size_t t = tb; CK(cub::DeviceReduce::Sum(tmp, t, in, out, (int)n, g_st)); };
        auto cs = [&] { size_t t = tb2; CK(cub::DeviceScan::ExclusiveSum(tmp, t, in, out, (int)n, g_st)); };
        printf("n = 2^%d u32:\n", lg);
        row("pp_reduce", [&] { bad |= pp_reduce(c, PP_U32, PP_SUM, in, n, out) != PP_SUCCESS; });
        unsigned got = 0, want = 0;
        CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) want += h[i];
        bad |= got != want;
        row("pp_scan (exclusive)", [&] { bad |= pp_scan(c, PP_U32, PP_SUM, PP_EXCLUSIVE, in, out, n) != PP_SUCCESS; });
        row("cub::DeviceReduce::Sum", cr);
        row("cub::DeviceScan::ExclusiveSum", cs);
        cudaGraphExec_t gr = captured(cr), gs = captured(cs);
        row("cub::DeviceReduce::Sum, replayed graph", [&] { CK(cudaGraphLaunch(gr, g_st)); });
        row("cub::DeviceScan::ExclusiveSum, replayed graph", [&] { CK(cudaGraphLaunch(gs, g_st)); });
        CK(cudaGraphExecDestroy(gr));
        CK(cudaGraphExecDestroy(gs));
        CK(cudaFree(in));
        CK(cudaFree(out));
        CK(cudaFree(tmp));
    }
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    pp_destroy(c);
    if (bad) fprintf(stderr, "bench_launch: a parprim call failed or pp_reduce's sum was wrong\n");
    return bad;
}
