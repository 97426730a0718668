// harness.h: what the comparison benchmarks share (bench_tbb,
// tbb_compare.cpp; bench_cub, cub_compare.cu; the CUDA probes): the median
// of timed runs, the host clock and CUDA events (event_median_ms), the
// pieces of their reports (parprim's version, the date, JSON strings), and
// CK for CUDA calls. Header-only C++ (C++17; nvcc compiles it as host code).
// Each benchmark keeps its own options and its own report layout.
#ifndef PP_BENCH_HARNESS_H
#define PP_BENCH_HARNESS_H

#include "parprim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

// A CUDA runtime call that must succeed (CUDA benchmarks): otherwise the
// benchmark stops with the call and CUDA's message, exit status 3.
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <cstdlib>
#define CK(call)                                                                                      \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
            exit(3);                                                                                  \
        }                                                                                             \
    } while (0)
#endif

namespace harness {

// ---- timing ----------------------------------------------------------------

using clock_type = std::chrono::steady_clock;

// Seconds on the steady clock since t0.
inline double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// The median of the samples (the mean of the middle two for an even
// count); NaN if there are none.
inline double median(std::vector<double> v)
{
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t k = v.size();
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

// The median of runs samples, each what one call of timed_run() returns
// (the time of one run, in any unit).
template <typename F>
double median_of_runs(int runs, F timed_run)
{
    std::vector<double> t;
    t.reserve(runs > 0 ? size_t(runs) : 0);
    for (int i = 0; i < runs; ++i) t.push_back(timed_run());
    return median(t);
}

#if defined(__CUDACC__)
// The time in ms of one run of fn (a callable that queues work on stream)
// between two CUDA events, after setup (untimed, before the start event in
// stream order); waits for the run.
template <typename S, typename F> double event_time_ms(cudaStream_t stream, cudaEvent_t a, cudaEvent_t b, S &setup, F &fn)
{
    setup();
    CK(cudaEventRecord(a, stream));
    fn();
    CK(cudaEventRecord(b, stream));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return double(ms);
}

// The median, in ms, of runs timings of fn (event_time_ms), after `warmups`
// untimed runs and, beyond those, warm-up runs until warm_ms of wall time
// have passed (a device that has been idle runs its first milliseconds of
// work slower).
template <typename S, typename F>
double event_median_ms(cudaStream_t stream, int runs, int warmups, S setup, F fn, double warm_ms = 0.0)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    const clock_type::time_point t0 = clock_type::now();
    for (int w = 0; w < warmups || (seconds_since(t0) * 1e3 < warm_ms && w < 10000); w++)
        event_time_ms(stream, a, b, setup, fn);
    const double med = median_of_runs(runs, [&] { return event_time_ms(stream, a, b, setup, fn); });
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return med;
}

// Two callables timed in alternation (setup_a + fa, setup_b + fb, then
// again), so that drift in the device's state during the measurement
// (clocks, temperature) falls on both alike: the medians in ms of runs
// timings of each, after warm-up rounds as in event_median_ms.
template <typename SA, typename FA, typename SB, typename FB>
void event_median_pair_ms(cudaStream_t stream, int runs, int warmups, double warm_ms, SA setup_a, FA fa, SB setup_b,
                          FB fb, double *ms_a, double *ms_b)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    const clock_type::time_point t0 = clock_type::now();
    for (int w = 0; w < warmups || (seconds_since(t0) * 1e3 < warm_ms && w < 10000); w++) {
        event_time_ms(stream, a, b, setup_a, fa);
        event_time_ms(stream, a, b, setup_b, fb);
    }
    std::vector<double> ta, tb;
    for (int r = 0; r < runs; r++) {
        ta.push_back(event_time_ms(stream, a, b, setup_a, fa));
        tb.push_back(event_time_ms(stream, a, b, setup_b, fb));
    }
    *ms_a = median(ta);
    *ms_b = median(tb);
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
}
#endif

// ---- reports ---------------------------------------------------------------

// parprim's version, "X.Y.Z" (of the library loaded, pp_version()).
inline std::string pp_version_string()
{
    unsigned v = pp_version();
    char s[32];
    std::snprintf(s, sizeof s, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    return s;
}

// The time now, UTC, as 2026-01-31T12:00:00Z.
inline std::string utc_date()
{
    char date[32];
    std::time_t tt = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&tt));
    return date;
}

// Writes s as a JSON string literal.
inline void json_string(FILE *f, const std::string &s)
{
    std::fputc('"', f);
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') std::fprintf(f, "\\%c", c);
        else if (c < 0x20) std::fprintf(f, "\\u%04x", c);
        else std::fputc(c, f);
    }
    std::fputc('"', f);
}

}  // namespace harness

#endif
