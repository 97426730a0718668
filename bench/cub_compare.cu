// parprim's cuda backend against NVIDIA CUB (the toolkit's own), in one
// process, on the same device buffers and the same stream, timed with CUDA
// events: median of repeats after warm-up, parprim's and CUB's runs of a row
// alternated (so drift in clocks or temperature falls on both alike). Each
// row also gives the fraction of a device-to-device copy's rate (bytes read
// + written per second) measured in the same run. The results of both libraries are compared
// after they are timed: a row whose results differ says so, and the exit
// status is then 1. --json FILE also writes every row as a record (device,
// versions, date, times, ratio to CUB, fraction of a copy): what
// bench/render.py files under bench/data/<device>/ and renders.
//
//   bench_cub [--sizes 16,20,24,28,30] [--repeat R] [--json FILE]
//             [--only reduce,scan,histogram,select,sort,exact] [--types u32,f32,u64,f64]
//
// Each primitive runs for each element type (u32, f32, u64, f64; the
// histogram for u32 only), sizes 2^lg. Rows whose buffers do not fit in the
// device's free memory are skipped with the reason printed (on an 80 GB
// H100, the 8-byte sorts at 2^30).
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
static char g_types[64] = "u32,f32,u64,f64";
static bool want(const char *what) { return strstr(g_only, what) != NULL; }
static bool want_type(const char *t) { return strstr(g_types, t) != NULL; }

// Times fn (a callable that queues work on g_stream) with CUDA events;
// setup (untimed) runs before each repetition. Returns the median in ms of
// g_repeat runs (256 at most) after 2 warm-up runs.
// Warm-up before each timing: 2 runs, and runs until WARM_MS of wall time
// have passed (a device left idle, for instance while buffers are
// allocated, runs its first milliseconds of work slower).
static const double WARM_MS = 20.0;
template <typename F, typename S> static double time_median(F fn, S setup)
{
    return harness::event_median_ms(g_stream, g_repeat > 256 ? 256 : g_repeat, 2, setup, fn, WARM_MS);
}
template <typename F> static double time_median(F fn)
{
    return time_median(fn, [] {});
}
// parprim's and CUB's timings of one row, taken in alternation
// (harness::event_median_pair_ms): *ours, *cub in ms.
template <typename FA, typename FB, typename SA, typename SB>
static void time_pair(double *ours, double *cub, FA fa, FB fb, SA sa, SB sb)
{
    harness::event_median_pair_ms(g_stream, g_repeat > 256 ? 256 : g_repeat, 2, WARM_MS, sa, fa, sb, fb, ours, cub);
}
template <typename FA, typename FB> static void time_pair(double *ours, double *cub, FA fa, FB fb)
{
    time_pair(ours, cub, fa, fb, [] {}, [] {});
}

// Rate of a device-to-device copy, bytes read + written per second.
static double copy_rate(void *dst, const void *src, size_t bytes)
{
    double ms = time_median([&] { CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_stream)); });
    return 2.0 * (double)bytes / (ms * 1e-3);
}

struct Row {
    char name[48];
    char type[16];
    size_t n;
    double ours_ms, cub_ms, bytes, copy_gbs;
    double target; // minimum ours-over-CUB speed ratio
    int checked;   // results equal to CUB's
};
static Row rows[512];
static int nrows;

static void add_row(const char *name, const char *type, size_t n, double ours, double cub, double bytes,
                    double copy, double target, int checked)
{
    if (nrows == (int)(sizeof rows / sizeof rows[0])) {
        fprintf(stderr, "bench_cub: more than %d rows\n", nrows);
        exit(3);
    }
    Row &r = rows[nrows++];
    snprintf(r.name, sizeof r.name, "%s", name);
    snprintf(r.type, sizeof r.type, "%s", type);
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
        double ours, cub;
        time_pair(&ours, &cub, [&] { PK(g_ctx, pp_reduce(g_ctx, ty, PP_SUM, x, n, o1)); },
                  [&] { cub::DeviceReduce::Sum(temp, tb, x, o2, (int64_t)n, g_stream); });
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
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
        time_pair(&ours, &cub, [&] { PK(g_ctx, pp_scan(g_ctx, ty, PP_SUM, PP_INCLUSIVE, x, y, n)); },
                  [&] { cub::DeviceScan::InclusiveSum(temp, tb, x, y, (int64_t)n, g_stream); });
        PK(g_ctx, pp_scan(g_ctx, ty, PP_SUM, PP_INCLUSIVE, x, y, n)); // ours again: CUB's ran last into y
        PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
        CK(cudaStreamSynchronize(g_stream));
        T last;
        CK(cudaMemcpy(hy, y, sample * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, y + n - 1, sizeof(T), cudaMemcpyDeviceToHost));
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

// ---- the element types of the main rows: u32, f32, u64, f64 ----
// bits: the unsigned type of the same width (the sort's values).
template <typename B, pp_type ID, bool FLOAT> struct tinfo_of {
    typedef B bits;
    static constexpr pp_type id = ID;
    static constexpr bool is_float = FLOAT;
};
template <typename T> struct tinfo;
template <> struct tinfo<uint32_t> : tinfo_of<uint32_t, PP_U32, false> {};
template <> struct tinfo<float> : tinfo_of<uint32_t, PP_F32, true> {};
template <> struct tinfo<uint64_t> : tinfo_of<uint64_t, PP_U64, false> {};
template <> struct tinfo<double> : tinfo_of<uint64_t, PP_F64, true> {};

// Fresh data from a seed. SMALL: integers in [-8, 8] (unsigned types wrap),
// whose sums are exact in any order, so both libraries' sums and scans must
// agree bit for bit, floats included. RANDOM: every bit pattern of the
// integer types; floats from a nonzero random integer of their width
// (finite, never zero, about half negative).
enum Fill { SMALL, RANDOM };
template <typename T> __global__ void make_data(T *p, size_t n, uint64_t seed, Fill kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t h = mix64((i + 1) * 0x9E3779B97F4A7C15ull ^ seed);
        T v;
        if (kind == SMALL) v = (T)((int)(h % 17u) - 8);
        else if (!tinfo<T>::is_float) v = (T)h;
        else if (sizeof(T) == 4) v = (T)(int32_t)((uint32_t)h | 1u);
        else v = (T)(int64_t)(h | 1u);
        p[i] = v;
    }
}
template <typename T> static void fill(T *p, size_t n, uint64_t seed, Fill kind)
{
    make_data<T><<<1024, 256, 0, g_stream>>>(p, n, seed, kind);
    CK(cudaGetLastError());
}

// The select predicate x < v, v the middle of the range (about half kept).
template <typename T> struct Less {
    T v;
    __host__ __device__ bool operator()(const T &x) const { return x < v; }
};
template <typename T> static T middle()
{
    return tinfo<T>::is_float ? (T)0 : (T)((typename tinfo<T>::bits)1 << (8 * sizeof(T) - 1));
}

// CUB's temporary storage, grown as rows need it (not timed).
static void *g_temp;
static size_t g_temp_bytes;
static void *cub_temp(size_t bytes)
{
    if (bytes > g_temp_bytes) {
        if (g_temp) CK(cudaFree(g_temp));
        CK(cudaMalloc(&g_temp, bytes));
        g_temp_bytes = bytes;
    }
    return g_temp;
}

// Device buffers of one group of rows: count buffers of bytes each, if the
// device has them free with `extra` bytes to spare (parprim's scratch);
// otherwise the rows are skipped with the reason printed.
struct Buffers {
    void *p[8] = {};
    int count = 0;
    bool get(const char *what, int k, size_t bytes, size_t extra)
    {
        size_t freeb = 0, total = 0;
        CK(cudaMemGetInfo(&freeb, &total));
        const double need = (double)k * bytes + (double)extra + (double)(256u << 20);
        if (need > (double)freeb) {
            printf("  %s: skipped, needs %.1f GiB of device memory and %.1f GiB are free\n", what, need / 1073741824.0,
                   freeb / 1073741824.0);
            return false;
        }
        for (count = 0; count < k; count++) CK(cudaMalloc(&p[count], bytes));
        return true;
    }
    ~Buffers()
    {
        for (int i = 0; i < count; i++) CK(cudaFree(p[i]));
    }
};

// Targets, as ours-over-CUB speed ratios: the issue's at 2^28 and above;
// at 2^16 and below 2.0 for reduce and scan (one launch against CUB's two)
// and 1.0 (ahead of CUB) for the rest; 1.0 in between.
enum Prim { P_REDUCE, P_SCAN, P_HIST, P_SELECT, P_SORT };
static double target(Prim p, int lg)
{
    if (lg <= 16) return p == P_REDUCE || p == P_SCAN ? 2.0 : 1.0;
    if (lg < 28) return 1.0;
    switch (p) {
    case P_REDUCE: return 1.0;
    case P_SCAN: return 1.2;
    case P_HIST: return 3.0;
    case P_SELECT: return 1.3;
    default: return 1.1;
    }
}

// Reduce (sum) and scan (sum: exclusive for integers, inclusive for floats)
// of small integers; select_if x < middle; sort keys; sort pairs with values
// of the key's width (u32 or u64). Results of both libraries are compared.
template <typename T> static void run_type(size_t n, int lg, double copy)
{
    typedef typename tinfo<T>::bits V;
    const pp_type pt = tinfo<T>::id;
    const char *tn = pp_type_name(pt);
    const size_t s = sizeof(T), bytes = n * s;
    size_t t = 0;
    void *out1, *out2;
    CK(cudaMalloc(&out1, 64));
    CK(cudaMalloc(&out2, 64));

    if (want("reduce")) {
        Buffers B;
        if (B.get("reduce", 1, bytes, 0)) {
            T *x = (T *)B.p[0];
            fill<T>(x, n, 100 + lg, SMALL);
            cub::DeviceReduce::Sum(nullptr, t, x, (T *)out2, (int64_t)n);
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(&ours, &cub, [&] { PK(g_ctx, pp_reduce(g_ctx, pt, PP_SUM, x, n, out1)); },
                      [&] { cub::DeviceReduce::Sum(temp, t, x, (T *)out2, (int64_t)n, g_stream); });
            CK(cudaStreamSynchronize(g_stream));
            add_row("reduce sum", tn, n, ours, cub, (double)bytes, copy, target(P_REDUCE, lg), equal_dev(out1, out2, s));
        }
    }
    if (want("scan")) {
        Buffers B;
        if (B.get("scan", 3, bytes, 0)) {
            T *x = (T *)B.p[0], *y = (T *)B.p[1], *ref = (T *)B.p[2];
            const bool incl = tinfo<T>::is_float;
            fill<T>(x, n, 200 + lg, SMALL);
            if (incl) cub::DeviceScan::InclusiveSum(nullptr, t, x, y, (int64_t)n);
            else cub::DeviceScan::ExclusiveSum(nullptr, t, x, y, (int64_t)n);
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(
                &ours, &cub, [&] { PK(g_ctx, pp_scan(g_ctx, pt, PP_SUM, incl ? PP_INCLUSIVE : PP_EXCLUSIVE, x, y, n)); },
                [&] {
                    if (incl) cub::DeviceScan::InclusiveSum(temp, t, x, ref, (int64_t)n, g_stream);
                    else cub::DeviceScan::ExclusiveSum(temp, t, x, ref, (int64_t)n, g_stream);
                });
            CK(cudaStreamSynchronize(g_stream));
            add_row(incl ? "inclusive scan sum" : "exclusive scan sum", tn, n, ours, cub, 2.0 * bytes, copy,
                    target(P_SCAN, lg), equal_dev(y, ref, bytes));
            if (pt == PP_U32) { // the forward-progress-free alternative, for reference (no target)
                PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_REDUCE_THEN_SCAN));
                ours = time_median([&] { PK(g_ctx, pp_scan(g_ctx, pt, PP_SUM, PP_EXCLUSIVE, x, y, n)); });
                PK(g_ctx, pp_set_algorithm(g_ctx, PP_PRIM_SCAN, PP_ALGO_AUTO));
                CK(cudaStreamSynchronize(g_stream));
                add_row("excl. scan (r-t-s)", tn, n, ours, cub, 2.0 * bytes, copy, 0.0, equal_dev(y, ref, bytes));
            }
        }
    }
    // histogram_even, 1024 bins over [0, 2^32 - 1): u32 only (CUB's and
    // parprim's bin arithmetic for floats may round differently at edges)
    if (want("histogram") && pt == PP_U32) {
        Buffers B;
        if (B.get("histogram", 1, bytes, 0)) {
            const uint32_t *a = (const uint32_t *)B.p[0];
            fill<uint32_t>((uint32_t *)B.p[0], n, 300 + lg, RANDOM);
            uint64_t *h64;
            unsigned *h32;
            CK(cudaMalloc(&h64, 1024 * 8));
            CK(cudaMalloc(&h32, 1024 * 4));
            uint32_t lo = 0, hi = 0xFFFFFFFFu;
            cub::DeviceHistogram::HistogramEven(nullptr, t, a, h32, 1025, 0u, 0xFFFFFFFFu, (int64_t)n);
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(&ours, &cub, [&] { PK(g_ctx, pp_histogram_even(g_ctx, PP_U32, a, n, &lo, &hi, 1024, h64)); },
                      [&] { cub::DeviceHistogram::HistogramEven(temp, t, a, h32, 1025, 0u, 0xFFFFFFFFu, (int64_t)n, g_stream); });
            CK(cudaStreamSynchronize(g_stream));
            uint64_t c64[1024];
            unsigned c32[1024];
            CK(cudaMemcpy(c64, h64, sizeof c64, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(c32, h32, sizeof c32, cudaMemcpyDeviceToHost));
            int ok = 1;
            for (int i = 0; i < 1024; i++) ok &= c64[i] == c32[i];
            add_row("histogram_even 1024", tn, n, ours, cub, (double)bytes, copy, target(P_HIST, lg), ok);
            CK(cudaFree(h64));
            CK(cudaFree(h32));
        }
    }
    if (want("select")) {
        Buffers B;
        if (B.get("select_if", 3, bytes, 0)) {
            T *x = (T *)B.p[0], *y = (T *)B.p[1], *z = (T *)B.p[2];
            fill<T>(x, n, 400 + lg, RANDOM);
            const T v = middle<T>();
            uint64_t *cnt;
            unsigned long long *nsel;
            CK(cudaMalloc(&cnt, 8));
            CK(cudaMalloc(&nsel, 8));
            cub::DeviceSelect::If(nullptr, t, x, z, nsel, (int64_t)n, Less<T>{v});
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(&ours, &cub, [&] { PK(g_ctx, pp_select_if(g_ctx, pt, x, n, PP_LT, &v, y, cnt)); },
                      [&] { cub::DeviceSelect::If(temp, t, x, z, nsel, (int64_t)n, Less<T>{v}, g_stream); });
            CK(cudaStreamSynchronize(g_stream));
            uint64_t c1;
            unsigned long long c2;
            CK(cudaMemcpy(&c1, cnt, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&c2, nsel, 8, cudaMemcpyDeviceToHost));
            const int ok = c1 == c2 && equal_dev(y, z, c1 * s);
            add_row("select_if 50%", tn, n, ours, cub, (double)bytes + (double)c1 * s, copy, target(P_SELECT, lg), ok);
            CK(cudaFree(cnt));
            CK(cudaFree(nsel));
        }
    }
    // Sorts: each repetition sorts fresh copies of the same pristine keys
    // (and values); the copies are made before the timed part.
    if (want("sort")) {
        Buffers B; // pristine, ours, CUB's two: keys, then values
        if (B.get("sort", 8, bytes, 2 * bytes)) {
            T *pk = (T *)B.p[0], *kk = (T *)B.p[1], *kc = (T *)B.p[2], *k2 = (T *)B.p[3];
            V *pv = (V *)B.p[4], *vv = (V *)B.p[5], *vc = (V *)B.p[6], *v2 = (V *)B.p[7];
            fill<T>(pk, n, 500 + lg, RANDOM);
            fill<V>(pv, n, 600 + lg, RANDOM);
            const int bits = 8 * (int)s;
            {
                cub::DoubleBuffer<T> kb(kc, k2);
                cub::DeviceRadixSort::SortKeys(nullptr, t, kb, (int64_t)n, 0, bits);
                void *temp = cub_temp(t);
                double ours, cub;
                time_pair(
                    &ours, &cub, [&] { PK(g_ctx, pp_sort(g_ctx, pt, kk, n, PP_ASCENDING)); },
                    [&] { cub::DeviceRadixSort::SortKeys(temp, t, kb, (int64_t)n, 0, bits, g_stream); },
                    [&] { CK(cudaMemcpyAsync(kk, pk, bytes, cudaMemcpyDeviceToDevice, g_stream)); },
                    [&] {
                        kb.selector = 0;
                        CK(cudaMemcpyAsync(kc, pk, bytes, cudaMemcpyDeviceToDevice, g_stream));
                    });
                CK(cudaStreamSynchronize(g_stream));
                add_row("sort keys", tn, n, ours, cub, 2.0 * bytes, copy, target(P_SORT, lg),
                        equal_dev(kk, kb.Current(), bytes));
            }
            {
                cub::DoubleBuffer<T> kb(kc, k2);
                cub::DoubleBuffer<V> vb(vc, v2);
                cub::DeviceRadixSort::SortPairs(nullptr, t, kb, vb, (int64_t)n, 0, bits);
                void *temp = cub_temp(t);
                double ours, cub;
                time_pair(
                    &ours, &cub, [&] { PK(g_ctx, pp_sort_pairs(g_ctx, pt, kk, vv, s, n, PP_ASCENDING)); },
                    [&] { cub::DeviceRadixSort::SortPairs(temp, t, kb, vb, (int64_t)n, 0, bits, g_stream); },
                    [&] {
                        CK(cudaMemcpyAsync(kk, pk, bytes, cudaMemcpyDeviceToDevice, g_stream));
                        CK(cudaMemcpyAsync(vv, pv, bytes, cudaMemcpyDeviceToDevice, g_stream));
                    },
                    [&] {
                        kb.selector = 0;
                        vb.selector = 0;
                        CK(cudaMemcpyAsync(kc, pk, bytes, cudaMemcpyDeviceToDevice, g_stream));
                        CK(cudaMemcpyAsync(vc, pv, bytes, cudaMemcpyDeviceToDevice, g_stream));
                    });
                CK(cudaStreamSynchronize(g_stream));
                char ty[16];
                snprintf(ty, sizeof ty, "%s/%s", tn, s == 4 ? "u32" : "u64");
                add_row("sort_pairs", ty, n, ours, cub, 4.0 * bytes, copy, target(P_SORT, lg),
                        equal_dev(kk, kb.Current(), bytes) && equal_dev(vv, vb.Current(), bytes));
            }
            // Out of place: pp_sort_copy and pp_sort_pairs_copy against CUB's
            // SortKeys and SortPairs from an input array into an output array
            // (the pristine arrays are the inputs; nothing to refresh).
            {
                size_t t2 = 0;
                cub::DeviceRadixSort::SortKeys(nullptr, t2, pk, kc, (int64_t)n, 0, bits);
                void *temp = cub_temp(t2);
                double ours, cub;
                time_pair(&ours, &cub, [&] { PK(g_ctx, pp_sort_copy(g_ctx, pt, pk, kk, n, PP_ASCENDING)); },
                          [&] { cub::DeviceRadixSort::SortKeys(temp, t2, pk, kc, (int64_t)n, 0, bits, g_stream); });
                CK(cudaStreamSynchronize(g_stream));
                add_row("sort keys copy", tn, n, ours, cub, 2.0 * bytes, copy, target(P_SORT, lg),
                        equal_dev(kk, kc, bytes));
            }
            {
                size_t t2 = 0;
                cub::DeviceRadixSort::SortPairs(nullptr, t2, pk, kc, pv, vc, (int64_t)n, 0, bits);
                void *temp = cub_temp(t2);
                double ours, cub;
                time_pair(&ours, &cub,
                          [&] { PK(g_ctx, pp_sort_pairs_copy(g_ctx, pt, pk, pv, kk, vv, s, n, PP_ASCENDING)); },
                          [&] {
                              cub::DeviceRadixSort::SortPairs(temp, t2, pk, kc, pv, vc, (int64_t)n, 0, bits, g_stream);
                          });
                CK(cudaStreamSynchronize(g_stream));
                char ty[16];
                snprintf(ty, sizeof ty, "%s/%s", tn, s == 4 ? "u32" : "u64");
                add_row("sort_pairs copy", ty, n, ours, cub, 4.0 * bytes, copy, target(P_SORT, lg),
                        equal_dev(kk, kc, bytes) && equal_dev(vv, vc, bytes));
            }
        }
    }
    CK(cudaFree(out1));
    CK(cudaFree(out2));
}

static void run_size(int lg)
{
    const size_t n = (size_t)1 << lg;
    printf("n = 2^%d\n", lg);
    double copy;
    {
        Buffers B;
        if (!B.get("copy", 2, n * 4, 0)) return;
        fill<uint32_t>((uint32_t *)B.p[0], n, 12345u + lg, RANDOM);
        copy = copy_rate(B.p[1], B.p[0], n * 4) / 1e9;
    }
    printf("  device-to-device copy: %.1f GB/s (read + write)\n", copy);

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
    if (want_type("u32")) run_type<uint32_t>(n, lg, copy);
    if (want_type("f32")) run_type<float>(n, lg, copy);
    if (want_type("u64")) run_type<uint64_t>(n, lg, copy);
    if (want_type("f64")) run_type<double>(n, lg, copy);
    if (want("exact")) {
        run_exact<float>(n, lg, copy);
        run_exact<double>(n, lg, copy);
    }
}

int main(int argc, char **argv)
{
    int sizes[8] = {16, 20, 24, 28, 30}, nsizes = 5;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc) g_repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) snprintf(g_only, sizeof g_only, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--types") && i + 1 < argc) snprintf(g_types, sizeof g_types, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < 8; s = strtok(NULL, ",")) sizes[nsizes++] = atoi(s);
        } else {
            fprintf(stderr, "usage: bench_cub [--sizes 16,20,24,28,30] [--repeat R] [--json FILE]\n"
                            "                 [--only reduce,scan,histogram,select,sort,exact]\n"
                            "                 [--types u32,f32,u64,f64]\n");
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
            // The records bench/render.py files under bench/data/<device>/
            // (it adds the commit measured).
            fprintf(f, "{\"tool\": \"bench_cub\", \"device\": ");
            harness::json_string(f, pp_context_device_name(g_ctx));
            fprintf(f, ", \"version\": ");
            harness::json_string(f, harness::pp_version_string());
            fprintf(f, ", \"cub_version\": \"%d.%d.%d\", \"date\": ", cubv / 100000, cubv / 100 % 1000, cubv % 100);
            harness::json_string(f, harness::utc_date());
            fprintf(f, ", \"repeat\": %d, \"rows\": [\n", g_repeat);
            for (int i = 0; i < nrows; i++) {
                Row &r = rows[i];
                const double gbs = r.bytes / (r.ours_ms * 1e-3) / 1e9;
                fprintf(f, "  {\"primitive\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"parprim_ms\": %.6f, \"cub_ms\": %.6f, "
                        "\"vs_cub\": %.4f, \"bytes\": %.0f, \"gbps\": %.1f, \"copy_gbs\": %.3f, \"copy_fraction\": %.4f, "
                        "\"target\": %.2f, \"checked\": %s}%s\n",
                        r.name, r.type, r.n, r.ours_ms, r.cub_ms, r.cub_ms / r.ours_ms, r.bytes, gbs, r.copy_gbs,
                        gbs / r.copy_gbs, r.target, r.checked ? "true" : "false", i + 1 < nrows ? "," : "");
            }
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    if (g_temp) CK(cudaFree(g_temp));
    pp_destroy(g_ctx);
    if (g_cpu) pp_destroy(g_cpu);
    return g_failures ? 1 : 0;
}
