// parprim's cuda backend against NVIDIA CUB (the toolkit's own), in one
// process, on the same device buffers and the same stream, timed with CUDA
// events: median of repeats after warm-up. Each row also gives the fraction
// of a device-to-device copy's rate (bytes read + written per second)
// measured in the same run. Results of both libraries are compared before
// anything is timed.
//
//   bench_cub [--sizes 16,28,30] [--repeat R] [--json FILE] [--only reduce,scan,...,exact]
//
// The exact rows (PP_ALGO_EXACT, f32 and f64 sums) compare with CUB's plain
// DeviceReduce::Sum / DeviceScan::InclusiveSum on the same data (CUB's sums
// are rounded differently, so their results are not compared); they are
// checked against the cpu backend's exact sums instead (bit for bit: the
// correctly rounded value is unique): the whole reduce, and the first 2^20
// outputs of the scan plus its last one (the exact reduce of everything).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <parprim.h>

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <algorithm>

#define PK(ctx, call)                                                                     \
    do {                                                                                  \
        pp_status s_ = (call);                                                            \
        if (s_ != PP_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, pp_status_string(s_), \
                    pp_last_error(ctx));                                                  \
            exit(3);                                                                      \
        }                                                                                 \
    } while (0)

static cudaStream_t g_stream;
static pp_context *g_ctx;
static int g_repeat = 10;
static int g_failures = 0;
static char g_only[128] = "reduce,scan,histogram,select,sort,exact";
static pp_context *g_cpu; // the cpu backend: the exact reference of the exact rows
static bool want(const char *what) { return strstr(g_only, what) != NULL; }

// Times fn (a callable that queues work on g_stream) with CUDA events;
// setup (untimed) runs before each repetition. Returns the median in ms of
// g_repeat runs (256 at most) after 2 warm-up runs.
template <typename F, typename S> static double time_median(F fn, S setup)
{
    return harness::event_median_ms(g_stream, g_repeat > 256 ? 256 : g_repeat, 2, setup, fn);
}
template <typename F> static double time_median(F fn)
{
    return time_median(fn, [] {});
}

// Rate of a device-to-device copy, bytes read + written per second.
static double copy_rate(void *dst, const void *src, size_t bytes)
{
    double ms = time_median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_stream)); });
    return 2.0 * (double)bytes / (ms * 1e-3);
}

struct Row {
    char name[48];
    const char *type;
    size_t n;
    double ours_ms, cub_ms, bytes, copy_gbs;
    double target; // minimum ours-over-CUB speed ratio
    int checked;   // results equal to CUB's
};
static Row rows[128];
static int nrows;

static void add_row(const char *name, const char *type, size_t n, double ours, double cub, double bytes,
                    double copy, double target, int checked)
{
    Row &r = rows[nrows++];
    snprintf(r.name, sizeof r.name, "%s", name);
    r.type = type;
    r.n = n;
    r.ours_ms = ours;
    r.cub_ms = cub;
    r.bytes = bytes;
    r.copy_gbs = copy;
    r.target = target;
    r.checked = checked;
    double gbs = bytes / (ours * 1e-3) / 1e9;
    printf("  %-22s %-4s 2^%-2d  ours %8.3f ms %7.1f GB/s (%.2f of copy)  cub %8.3f ms  ratio %.2fx  %s%s\n", name,
           type, (int)(log2((double)n) + 0.5), ours, gbs, gbs / copy, cub, cub / ours,
           cub / ours >= target ? "met" : "MISSED", checked ? "" : "  RESULTS DIFFER");
    fflush(stdout);
}

__global__ void fill_u32(uint32_t *p, size_t n, uint64_t seed, uint32_t mask)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBull;
        x ^= x >> 33;
        p[i] = (uint32_t)x & mask;
    }
}
// Small integers (exact float sums in any order).
__global__ void u32_to_small(const uint32_t *in, void *out, size_t n, int as_float)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int v = (int)(in[i] % 17u) - 8;
        if (as_float) ((float *)out)[i] = (float)v;
        else ((int *)out)[i] = v;
    }
}

static int equal_dev(const void *a, const void *b, size_t bytes)
{
    // Compare on the host in chunks.
    const size_t chunk = 64u << 20;
    char *ha = (char *)malloc(chunk), *hb = (char *)malloc(chunk);
    int eq = 1;
    for (size_t off = 0; off < bytes && eq; off += chunk) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        CK(cudaMemcpy(ha, (const char *)a + off, len, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hb, (const char *)b + off, len, cudaMemcpyDeviceToHost));
        eq = memcmp(ha, hb, len) == 0;
    }
    free(ha);
    free(hb);
    return eq;
}

__global__ void empty_kernel() {}

// ---- exact rows: data ----
__device__ __forceinline__ uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 33;
    return x;
}
// kind 0: uniform [0, 1); 1: mixed signs over 81 binades (2^-40 .. 2^40);
// 2: adversarial cancellation: +B, r, -B, r' (B = (1+u) 2^(90..110), the
// residues r small), so every partial sum is far above the total.
template <typename T> __global__ void fill_exact(T *p, size_t n, int kind, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t h = mix64((i + 1) * 0x9E3779B97F4A7C15ull ^ seed);
        const double u = (double)(h >> 11) * 0x1p-53, sg = (h >> 10) & 1 ? -1.0 : 1.0;
        double v;
        if (kind == 0) v = u;
        else if (kind == 1) v = sg * ldexp(1.0 + u, (int)(h % 81) - 40);
        else {
            const uint64_t hb = mix64((i / 4 + 1) * 0xD1B54A32D192ED03ull ^ seed);
            const double b = ldexp(1.0 + (double)(hb >> 11) * 0x1p-53, 90 + (int)(hb % 21));
            const int k = (int)(i & 3);
            v = k == 0 ? b : k == 2 ? -b : sg * ldexp(1.0 + u, -(int)(h % 40));
        }
        p[i] = (T)v;
    }
}

static const char *const exact_kinds[3] = {"uniform", "81 binades", "cancellation"};

template <typename T> static void run_exact(size_t n, int lg, double copy)
{
    const bool f64 = sizeof(T) == 8;
    const pp_type ty = f64 ? PP_F64 : PP_F32;
    const char *tn = f64 ? "f64" : "f32";
    T *x, *y, *o1, *o2;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&o1, 64));
    CK(cudaMalloc(&o2, 64));
    size_t tb = 0, t = 0;
    cub::DeviceReduce::Sum(nullptr, t, x, o2, (int64_t)n);
    tb = std::max(tb, t);
    cub::DeviceScan::InclusiveSum(nullptr, t, x, y, (int64_t)n);
    tb = std::max(tb, t);
    void *temp;
    CK(cudaMalloc(&temp, tb));
    // the cpu reference buffers
    const size_t sample = n < ((size_t)1 << 20) ? n : ((size_t)1 << 20);
    T *hx = (T *)malloc(n * sizeof(T)), *hy = (T *)malloc(sample * sizeof(T));
    void *cx = NULL, *cy = NULL, *co = NULL;
    if (g_cpu) {
        PK(g_cpu, pp_malloc(g_cpu, &cx, n * sizeof(T)));
        PK(g_cpu, pp_malloc(g_cpu, &cy, sample * sizeof(T)));
        PK(g_cpu, pp_malloc(g_cpu, &co, 64));
    }
    for (int kind = 0; kind < 3; kind++) {
        fill_exact<T><<<1024, 256, 0, g_stream>>>(x, n, kind, 4242u + lg);
        CK(cudaStreamSynchronize(g_stream));
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT));
        double ours = time_median([&] { PK(g_ctx, pp_reduce(g_ctx, ty, PP_SUM, x, n, o1)); });
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
        double cub = time_median([&] { cub::DeviceReduce::Sum(temp, tb, x, o2, (int64_t)n, g_stream); });
        CK(cudaStreamSynchronize(g_stream));
        // the reference: the cpu backend's exact reduce of the same data
        T got, want = 0;
        CK(cudaMemcpy(&got, o1, sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hx, x, n * sizeof(T), cudaMemcpyDeviceToHost));
        int ok = 0;
        if (g_cpu) {
            PK(g_cpu, pp_upload(g_cpu, cx, hx, n * sizeof(T)));
            PK(g_cpu, pp_reduce(g_cpu, ty, PP_SUM, cx, n, co));
            PK(g_cpu, pp_download(g_cpu, &want, co, sizeof(T)));
            ok = memcmp(&got, &want, sizeof(T)) == 0;
            if (!ok) printf("  exact reduce %s %s: got %.17g, cpu exact %.17g\n", tn, exact_kinds[kind], (double)got, (double)want);
        }
        char name[48];
        const double target = kind == 0 ? 0.95 : kind == 1 ? (f64 ? 0.90 : 0.80) : 0.50;
        snprintf(name, sizeof name, "exact reduce %s", exact_kinds[kind]);
        add_row(name, tn, n, ours, cub, (double)sizeof(T) * n, copy, lg <= 16 ? 0.0 : target, ok);

        if (kind != 0) continue;
        // exact inclusive scan vs CUB's plain InclusiveSum (uniform data)
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_EXACT));
        ours = time_median([&] { PK(g_ctx, pp_scan(g_ctx, ty, PP_SUM, PP_INCLUSIVE, x, y, n)); });
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
        CK(cudaStreamSynchronize(g_stream));
        T last;
        CK(cudaMemcpy(hy, y, sample * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, y + n - 1, sizeof(T), cudaMemcpyDeviceToHost));
        cub = time_median([&] { cub::DeviceScan::InclusiveSum(temp, tb, x, y, (int64_t)n, g_stream); });
        CK(cudaStreamSynchronize(g_stream));
        ok = 0;
        if (g_cpu) {
            PK(g_cpu, pp_set_algorithm(g_cpu, PP_PRIM_SCAN, PP_ALGO_EXACT));
            PK(g_cpu, pp_scan(g_cpu, ty, PP_SUM, PP_INCLUSIVE, cx, cy, sample));
            T *ref = (T *)malloc(sample * sizeof(T));
            PK(g_cpu, pp_download(g_cpu, ref, cy, sample * sizeof(T)));
            ok = memcmp(ref, hy, sample * sizeof(T)) == 0 && memcmp(&last, &want, sizeof(T)) == 0;
            if (!ok) printf("  exact scan %s: differs from the cpu's exact scan\n", tn);
            free(ref);
        }
        add_row("exact incl. scan", tn, n, ours, cub, 2.0 * sizeof(T) * n, copy, lg <= 16 ? 0.0 : 0.5, ok);
    }
    // CUB's gpu_to_gpu deterministic reduce (cuda::execution::determinism)
    // came after CCCL 3.0: where the toolkit's CCCL lacks it, no row.
#if defined(CCCL_VERSION) && CCCL_VERSION >= 3001000
    printf("  (CCCL %d has gpu_to_gpu determinism: row not written yet)\n", CCCL_VERSION);
#else
    static bool said = false;
    if (!said) printf("  no gpu_to_gpu row: this CCCL has no gpu_to_gpu determinism for DeviceReduce\n");
    said = true;
#endif
    if (g_cpu) {
        pp_free(g_cpu, cx);
        pp_free(g_cpu, cy);
        pp_free(g_cpu, co);
    }
    free(hx);
    free(hy);
    CK(cudaFree(temp));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(o1));
    CK(cudaFree(o2));
}

struct Less {
    uint32_t v;
    __host__ __device__ bool operator()(const uint32_t &x) const { return x < v; }
};

static void run_size(int lg)
{
    const size_t n = (size_t)1 << lg;
    printf("n = 2^%d\n", lg);
    uint32_t *a, *b, *k2, *v1, *v2, *pk, *pv;
    void *x, *y;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    fill_u32<<<1024, 256, 0, g_stream>>>(a, n, 12345u + lg, 0xFFFFFFFFu);
    CK(cudaStreamSynchronize(g_stream));
    double copy = copy_rate(b, a, n * 4) / 1e9;
    printf("  device-to-device copy: %.1f GB/s (read + write)\n", copy);

    // Temporary storage for CUB: the largest of its needs.
    size_t tb = 0, t;
    unsigned long long *nsel;
    CK(cudaMalloc(&nsel, 8));
    cub::DeviceReduce::Sum(nullptr, t, (int *)x, (int *)y, (int64_t)n);
    tb = std::max(tb, t);
    cub::DeviceScan::ExclusiveSum(nullptr, t, (int *)x, (int *)y, (int64_t)n);
    tb = std::max(tb, t);
    cub::DeviceScan::InclusiveSum(nullptr, t, (float *)x, (float *)y, (int64_t)n);
    tb = std::max(tb, t);
    cub::DeviceHistogram::HistogramEven(nullptr, t, a, (unsigned *)y, 1025, 0u, 0xFFFFFFFFu, (int64_t)n);
    tb = std::max(tb, t);
    cub::DeviceSelect::If(nullptr, t, a, b, nsel, (int64_t)n, Less{0x80000000u});
    tb = std::max(tb, t);
    {
        cub::DoubleBuffer<uint32_t> kb(b, b), vb(b, b);
        cub::DeviceRadixSort::SortPairs(nullptr, t, kb, vb, (int64_t)n);
        tb = std::max(tb, t);
    }
    void *temp;
    CK(cudaMalloc(&temp, tb));
    void *out1, *out2;
    CK(cudaMalloc(&out1, 64));
    CK(cudaMalloc(&out2, 64));

    // ---- the launch floor at small n: what one and two empty kernels take
    // under the same timing (our small reduce and scan are one launch; CUB's
    // reduce is two, its scan two) ----
    if (lg <= 16) {
        double one = time_median([&] { empty_kernel<<<1, 32, 0, g_stream>>>(); });
        double two = time_median([&] {
            empty_kernel<<<1, 32, 0, g_stream>>>();
            empty_kernel<<<1, 32, 0, g_stream>>>();
        });
        printf("  launch floor: one empty kernel %.4f ms, two %.4f ms\n", one, two);
        add_row("1 vs 2 empty kernels", "-", n, one, two, 0.0, copy, 0.0, 1);
    }

    // ---- reduce (sum) i32 and f32 ----
    for (int f = 0; f < 2 && want("reduce"); f++) {
        u32_to_small<<<1024, 256, 0, g_stream>>>(a, x, n, f);
        const char *ty = f ? "f32" : "i32";
        double ours = time_median([&] { PK(g_ctx, pp_reduce(g_ctx, f ? PP_F32 : PP_I32, PP_SUM, x, n, out1)); });
        double cub = time_median([&] {
            if (f) cub::DeviceReduce::Sum(temp, tb, (float *)x, (float *)out2, (int64_t)n, g_stream);
            else cub::DeviceReduce::Sum(temp, tb, (int *)x, (int *)out2, (int64_t)n, g_stream);
        });
        CK(cudaStreamSynchronize(g_stream));
        int ok = equal_dev(out1, out2, 4);
        add_row("reduce sum", ty, n, ours, cub, 4.0 * n, copy, lg <= 16 ? 2.0 : 1.0, ok);
    }
    // ---- exclusive scan i32, inclusive scan f32 ----
    for (int f = 0; f < 2 && want("scan"); f++) {
        u32_to_small<<<1024, 256, 0, g_stream>>>(a, x, n, f);
        const char *ty = f ? "f32" : "i32";
        double ours = time_median([&] {
            PK(g_ctx, pp_scan(g_ctx, f ? PP_F32 : PP_I32, PP_SUM, f ? PP_INCLUSIVE : PP_EXCLUSIVE, x, y, n));
        });
        CK(cudaStreamSynchronize(g_stream));
        CK(cudaMemcpy(b, y, n * 4, cudaMemcpyDeviceToDevice));
        double cub = time_median([&] {
            if (f) cub::DeviceScan::InclusiveSum(temp, tb, (float *)x, (float *)y, (int64_t)n, g_stream);
            else cub::DeviceScan::ExclusiveSum(temp, tb, (int *)x, (int *)y, (int64_t)n, g_stream);
        });
        CK(cudaStreamSynchronize(g_stream));
        int ok = equal_dev(b, y, n * 4);
        add_row(f ? "inclusive scan sum" : "exclusive scan sum", ty, n, ours, cub, 8.0 * n, copy,
                lg <= 16 ? 2.0 : 1.2, ok);
        if (!f) { // the forward-progress-free alternative, for reference (no target)
            PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_REDUCE_THEN_SCAN));
            ours = time_median([&] { PK(g_ctx, pp_scan(g_ctx, PP_I32, PP_SUM, PP_EXCLUSIVE, x, b, n)); });
            PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
            CK(cudaStreamSynchronize(g_stream));
            add_row("excl. scan (r-t-s)", ty, n, ours, cub, 8.0 * n, copy, 0.0, equal_dev(b, y, n * 4));
        }
    }
    if (lg > 16) {
        // ---- histogram_even u32, 1024 bins over [0, 2^32 - 1) ----
        if (want("histogram")) {
        uint64_t *h64;
        unsigned *h32;
        CK(cudaMalloc(&h64, 1024 * 8));
        CK(cudaMalloc(&h32, 1024 * 4));
        uint32_t lo = 0, hi = 0xFFFFFFFFu;
        double ours = time_median([&] { PK(g_ctx, pp_histogram_even(g_ctx, PP_U32, a, n, &lo, &hi, 1024, h64)); });
        double cub = time_median([&] {
            cub::DeviceHistogram::HistogramEven(temp, tb, a, h32, 1025, 0u, 0xFFFFFFFFu, (int64_t)n, g_stream);
        });
        CK(cudaStreamSynchronize(g_stream));
        uint64_t c64[1024];
        unsigned c32[1024];
        CK(cudaMemcpy(c64, h64, sizeof c64, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(c32, h32, sizeof c32, cudaMemcpyDeviceToHost));
        int ok = 1;
        for (int i = 0; i < 1024; i++) ok &= c64[i] == c32[i];
        add_row("histogram_even 1024", "u32", n, ours, cub, 4.0 * n, copy, 3.0, ok);
        CK(cudaFree(h64));
        CK(cudaFree(h32));
        }

        // ---- select_if x < 2^31 (about half) ----
        if (want("select")) {
        uint64_t *cnt;
        CK(cudaMalloc(&cnt, 8));
        uint32_t v = 0x80000000u;
        double ours = time_median([&] { PK(g_ctx, pp_select_if(g_ctx, PP_U32, a, n, PP_LT, &v, (void *)x, cnt)); });
        double cub = time_median([&] { cub::DeviceSelect::If(temp, tb, a, (uint32_t *)y, nsel, (int64_t)n, Less{v}, g_stream); });
        CK(cudaStreamSynchronize(g_stream));
        uint64_t c1;
        unsigned long long c2;
        CK(cudaMemcpy(&c1, cnt, 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&c2, nsel, 8, cudaMemcpyDeviceToHost));
        int ok = c1 == c2 && equal_dev(x, y, c1 * 4);
        add_row("select_if 50%", "u32", n, ours, cub, 4.0 * n + 4.0 * (double)c1, copy, 1.25, ok);
        CK(cudaFree(cnt));
        }

        // ---- sort u32 keys; sort_pairs u32/u32 ----
        if (want("sort")) {
        CK(cudaMalloc(&k2, n * 4));
        CK(cudaMalloc(&v1, n * 4));
        CK(cudaMalloc(&v2, n * 4));
        CK(cudaMalloc(&pv, n * 4));
        pk = a; // pristine keys
        fill_u32<<<1024, 256, 0, g_stream>>>(pv, n, 777u, 0xFFFFFFFFu);
        uint32_t *kk = (uint32_t *)x, *kc = (uint32_t *)y;
        double ours = time_median([&] { PK(g_ctx, pp_sort(g_ctx, PP_U32, kk, n, PP_ASCENDING)); },
                           [&] { CK(cudaMemcpyAsync(kk, pk, n * 4, cudaMemcpyDeviceToDevice, g_stream)); });
        cub::DoubleBuffer<uint32_t> kb(kc, k2);
        double cub = time_median([&] { cub::DeviceRadixSort::SortKeys(temp, tb, kb, (int64_t)n, 0, 32, g_stream); },
                          [&] {
                              kb.selector = 0;
                              CK(cudaMemcpyAsync(kc, pk, n * 4, cudaMemcpyDeviceToDevice, g_stream));
                          });
        CK(cudaStreamSynchronize(g_stream));
        int ok = equal_dev(kk, kb.Current(), n * 4);
        add_row("sort keys", "u32", n, ours, cub, 8.0 * n, copy, 1.0, ok);

        ours = time_median([&] { PK(g_ctx, pp_sort_pairs(g_ctx, PP_U32, kk, v1, 4, n, PP_ASCENDING)); },
                           [&] {
                               CK(cudaMemcpyAsync(kk, pk, n * 4, cudaMemcpyDeviceToDevice, g_stream));
                               CK(cudaMemcpyAsync(v1, pv, n * 4, cudaMemcpyDeviceToDevice, g_stream));
                           });
        uint32_t *vc = b;
        cub::DoubleBuffer<uint32_t> kb2(kc, k2), vb2(vc, v2);
        cub = time_median([&] { cub::DeviceRadixSort::SortPairs(temp, tb, kb2, vb2, (int64_t)n, 0, 32, g_stream); },
                          [&] {
                              kb2.selector = 0;
                              vb2.selector = 0;
                              CK(cudaMemcpyAsync(kc, pk, n * 4, cudaMemcpyDeviceToDevice, g_stream));
                              CK(cudaMemcpyAsync(vc, pv, n * 4, cudaMemcpyDeviceToDevice, g_stream));
                          });
        CK(cudaStreamSynchronize(g_stream));
        ok = equal_dev(kk, kb2.Current(), n * 4) && equal_dev(v1, vb2.Current(), n * 4);
        add_row("sort_pairs", "u32/u32", n, ours, cub, 16.0 * n, copy, 1.0, ok);
        CK(cudaFree(k2));
        CK(cudaFree(v1));
        CK(cudaFree(v2));
        CK(cudaFree(pv));
        }
    }
    if (want("exact")) {
        CK(cudaFree(temp));
        temp = NULL;
        run_exact<float>(n, lg, copy);
        run_exact<double>(n, lg, copy);
    }
    if (temp) CK(cudaFree(temp));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(nsel));
    CK(cudaFree(out1));
    CK(cudaFree(out2));
}

int main(int argc, char **argv)
{
    int sizes[8] = {16, 28, 30}, nsizes = 3;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) g_repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) snprintf(g_only, sizeof g_only, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < 8; s = strtok(NULL, ",")) sizes[nsizes++] = atoi(s);
        } else {
            fprintf(stderr, "usage: bench_cub [--sizes 16,28,30] [--repeat R] [--json FILE]\n"
                            "                 [--only reduce,scan,histogram,select,sort,exact]\n");
            return 2;
        }
    }
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CUDA;
    if (pp_create(&g_ctx, &o) != PP_SUCCESS) {
        fprintf(stderr, "bench_cub: %s\n", pp_last_error(NULL));
        return 3;
    }
    {
        pp_options oc = PP_OPTIONS_INIT;
        oc.backend = PP_BACKEND_CPU;
        if (pp_create(&g_cpu, &oc) != PP_SUCCESS) g_cpu = NULL; // exact rows then unchecked
        else if (pp_set_algorithm(g_cpu, PP_PRIM_REDUCE, PP_ALGO_EXACT) != PP_SUCCESS) {
            pp_destroy(g_cpu);
            g_cpu = NULL;
        }
    }
    CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    PK(g_ctx, pp_set_stream(g_ctx, g_stream));
    int cubv = CUB_VERSION;
    printf("parprim %s vs CUB %d.%d.%d on %s, median of %d\n", harness::pp_version_string().c_str(),
           cubv / 100000, cubv / 100 % 1000, cubv % 100, pp_context_device_name(g_ctx), g_repeat);
    for (int i = 0; i < nsizes; i++) run_size(sizes[i]);

    printf("\n| primitive | type | n | parprim ms | GB/s | of copy | CUB ms | vs CUB | target | met |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < nrows; i++) {
        Row &r = rows[i];
        double gbs = r.bytes / (r.ours_ms * 1e-3) / 1e9;
        const double ratio = r.cub_ms / r.ours_ms;
        char target[32], met[8];
        if (r.target > 0) { // three decimals, so that a miss by less than 0.5% does not print as 1.00x
            snprintf(target, sizeof target, ">= %.2fx", r.target);
            snprintf(met, sizeof met, "%s", ratio >= r.target ? "yes" : "no");
        } else {
            snprintf(target, sizeof target, "(reference)");
            met[0] = 0;
        }
        printf("| %s | %s | 2^%d | %.3f | %.0f | %.2f | %.3f | %.3fx | %s | %s%s |\n", r.name, r.type,
               (int)(log2((double)r.n) + 0.5), r.ours_ms, gbs, gbs / r.copy_gbs, r.cub_ms, ratio, target, met,
               r.checked ? "" : " (results differ)");
        if (!r.checked) g_failures++;
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "{\"device\": ");
            harness::json_string(f, pp_context_device_name(g_ctx));
            fprintf(f, ", \"repeat\": %d, \"rows\": [\n", g_repeat);
            for (int i = 0; i < nrows; i++) {
                Row &r = rows[i];
                fprintf(f, "  {\"primitive\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"parprim_ms\": %.6f, \"cub_ms\": %.6f, "
                        "\"bytes\": %.0f, \"copy_gbs\": %.3f, \"target\": %.2f, \"checked\": %s}%s\n",
                        r.name, r.type, r.n, r.ours_ms, r.cub_ms, r.bytes, r.copy_gbs, r.target,
                        r.checked ? "true" : "false", i + 1 < nrows ? "," : "");
            }
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    pp_destroy(g_ctx);
    if (g_cpu) pp_destroy(g_cpu);
    return g_failures ? 1 : 0;
}
