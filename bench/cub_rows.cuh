// What the rows of bench_cub share (cub_compare.cu: main and the five
// primitives' rows; cub_keyed.cu: the segmented, by-key and argsort rows;
// cub_segsort.cu: the segmented sorts; cub_search.cu: top-k, search, merge
// and the seeded scan; cub_half.cu: the f16 and bf16 rows): the stream and contexts, timing in
// alternation, the row table with its checks, CUB's temporary storage and
// the device buffers of a group of rows. Definitions: cub_rows.cu.
#ifndef PP_BENCH_CUB_ROWS_CUH
#define PP_BENCH_CUB_ROWS_CUH

#include <cuda_runtime.h>

#include <parprim.h>

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PK(ctx, call)                                                                     \
    do {                                                                                  \
        pp_status s_ = (call);                                                            \
        if (s_ != PP_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call, pp_status_string(s_), \
                    pp_last_error(ctx));                                                  \
            exit(3);                                                                      \
        }                                                                                 \
    } while (0)

extern cudaStream_t g_stream;
extern pp_context *g_ctx;
extern int g_repeat;
extern int g_failures;
extern char g_only[128];
extern pp_context *g_cpu; // the cpu backend: the exact reference of the exact rows
extern char g_types[64];
// Row groups asked for by --only (a substring match), element types by --types.
bool want(const char *what);
bool want_type(const char *t);

// Times fn (a callable that queues work on g_stream) with CUDA events;
// setup (untimed) runs before each repetition. Returns the median in ms of
// g_repeat runs (256 at most) after 2 warm-up runs.
// Warm-up before each timing: 2 runs, and runs until WARM_MS of wall time
// have passed (a device left idle, for instance while buffers are
// allocated, runs its first milliseconds of work slower).
constexpr double WARM_MS = 20.0;
template <typename F, typename S> double time_median(F fn, S setup)
{
    return harness::event_median_ms(g_stream, g_repeat > 256 ? 256 : g_repeat, 2, setup, fn, WARM_MS);
}
template <typename F> double time_median(F fn)
{
    return time_median(fn, [] {});
}
// parprim's and CUB's timings of one row, taken in alternation
// (harness::event_median_pair_ms): *ours, *cub in ms.
template <typename FA, typename FB, typename SA, typename SB>
void time_pair(double *ours, double *cub, FA fa, FB fb, SA sa, SB sb)
{
    harness::event_median_pair_ms(g_stream, g_repeat > 256 ? 256 : g_repeat, 2, WARM_MS, sa, fa, sb, fb, ours, cub);
}
template <typename FA, typename FB> void time_pair(double *ours, double *cub, FA fa, FB fb)
{
    time_pair(ours, cub, fa, fb, [] {}, [] {});
}

// Rate of a device-to-device copy, bytes read + written per second.
double copy_rate(void *dst, const void *src, size_t bytes);

// One row: parprim's and CUB's times, the bytes the operation must move,
// the copy rate of the run, the target (minimum ours-over-CUB speed ratio;
// 0: a reference row) and whether the results were checked equal. Printed
// at once; main prints the table and writes the JSON at the end.
void add_row(const char *name, const char *type, size_t n, double ours, double cub, double bytes, double copy,
             double target, int checked);
// Prints the table of every row (a row whose results differ counts as a
// failure), writes them to json as records when json is not NULL, and
// frees CUB's temporary storage.
void finish_rows(const char *json);
// 1 if bytes of device memory at a and b are equal.
int equal_dev(const void *a, const void *b, size_t bytes);
// CUB's temporary storage, grown as rows need it (not timed).
void *cub_temp(size_t bytes);

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


// A 64-bit mix (splitmix64's finalizer): fresh data from a seed.
__host__ __device__ inline uint64_t bench_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Fresh u32 data (cub_rows.cu): p[i] = bench_mix(seed ^ i) & mask.
__global__ void fill_u32(uint32_t *p, size_t n, uint64_t seed, uint32_t mask);

// An empty kernel (cub_compare.cu): the launch floor of small calls.
__global__ void empty_kernel();

// The row groups of the other files, called by run_size for each size.
void run_keyed_rows(size_t n, int lg, double copy);   // cub_keyed.cu
void run_segsort_rows(size_t n, int lg, double copy); // cub_segsort.cu
void run_search_rows(size_t n, int lg, double copy);  // cub_search.cu
void run_half_rows(size_t n, int lg, double copy);    // cub_half.cu

#endif
