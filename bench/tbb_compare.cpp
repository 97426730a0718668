// bench_tbb: parprim's cpu backend against oneTBB on the same data, in one
// process.
//
//   reduce  tbb::parallel_reduce (wrapping u32 sum)   vs pp_reduce PP_SUM
//   scan    tbb::parallel_scan (inclusive u32 sum)    vs pp_scan PP_INCLUSIVE PP_SUM
//   sort    tbb::parallel_sort (ascending u32)        vs pp_sort PP_ASCENDING
//
// Both sides use all cores by default (pp context threads = 0, TBB's default
// arena) and get identical input. Each side's result is checked against the
// other's. Times are the median of --repeat runs after --warmup runs, each a
// steady clock around the call (parprim: the call and pp_synchronize). The
// sorts get a fresh copy of the unsorted input before every run, outside the
// timed region. The two sides' runs alternate (in ABBA order), each followed
// by a short pause so that neither runtime's idle spinning threads steal
// cycles from the other's, and slow drifts of the machine hit both alike.
//
// This program is a benchmark only; the library never depends on oneTBB.

#include "harness.h"
#include "parprim.h"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#include <tbb/version.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using harness::clock_type;
using harness::seconds_since;

// Elements per leaf task. 64 Ki u32 (256 KiB) is large enough that the
// scheduler's per-task cost is negligible and small enough for good load
// balance on many cores; auto_partitioner splits further only on demand.
size_t kGrain = size_t(1) << 16;

// ---- oneTBB opponents ------------------------------------------------------

uint32_t tbb_reduce_sum(const uint32_t *a, size_t n)
{
    return tbb::parallel_reduce(
        tbb::blocked_range<size_t>(0, n, kGrain), uint32_t(0),
        [a](const tbb::blocked_range<size_t> &r, uint32_t acc) {
            uint32_t s = 0;  // unsigned: wraps, and the loop vectorizes
            for (size_t i = r.begin(); i != r.end(); ++i) s += a[i];
            return acc + s;
        },
        std::plus<uint32_t>());
}

// The classic parallel_scan body: a pre-scan pass only sums a range; the
// final pass writes prefix sums starting from the carry it was given.
class ScanSum {
public:
    ScanSum(const uint32_t *in, uint32_t *out) : sum_(0), in_(in), out_(out) {}
    ScanSum(ScanSum &other, tbb::split) : sum_(0), in_(other.in_), out_(other.out_) {}

    template <typename Tag>
    void operator()(const tbb::blocked_range<size_t> &r, Tag)
    {
        uint32_t s = sum_;
        const uint32_t *in = in_;
        if (Tag::is_final_scan()) {
            uint32_t *out = out_;
            for (size_t i = r.begin(); i != r.end(); ++i) {
                s += in[i];
                out[i] = s;
            }
        } else {
            uint32_t t = 0;
            for (size_t i = r.begin(); i != r.end(); ++i) t += in[i];
            s += t;
        }
        sum_ = s;
    }
    // this covers the range right after left's: prepend left's sum.
    void reverse_join(ScanSum &left) { sum_ = left.sum_ + sum_; }
    void assign(ScanSum &other) { sum_ = other.sum_; }
    uint32_t sum() const { return sum_; }

private:
    uint32_t sum_;
    const uint32_t *in_;
    uint32_t *out_;
};

void tbb_scan_inclusive(const uint32_t *in, uint32_t *out, size_t n)
{
    ScanSum body(in, out);
    tbb::parallel_scan(tbb::blocked_range<size_t>(0, n, kGrain), body);
}

// ---- options ---------------------------------------------------------------

struct Options {
    size_t n = size_t(1) << 26;
    int repeat = 9;
    int warmup = 2;
    int threads = 0;
    uint64_t seed = 1;
    double pause = 0.02;
    std::string json;
};

bool parse_size(const char *s, size_t *out)
{
    char *end = nullptr;
    if (!*s || *s == '-') return false;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (*end == '^') {
        unsigned long long e = std::strtoull(end + 1, &end, 10);
        if (v != 2 || *end || e > 40) return false;
        *out = size_t(1) << e;
        return true;
    }
    int shift = 0;
    if (*end == 'K' || *end == 'k') shift = 10, ++end;
    else if (*end == 'M' || *end == 'm') shift = 20, ++end;
    else if (*end == 'G' || *end == 'g') shift = 30, ++end;
    if (*end || v == 0) return false;
    *out = size_t(v) << shift;
    return true;
}

void usage(FILE *f)
{
    std::fprintf(f,
                 "usage: bench_tbb [--n N] [--repeat R] [--warmup W] [--threads T] [--seed X] [--grain G]\n"
                 "                 [--pause MS] [--json FILE]\n"
                 "\n"
                 "Times oneTBB's parallel_reduce, parallel_scan and parallel_sort against\n"
                 "pp_reduce, pp_scan and pp_sort (cpu backend) on the same u32 data and checks\n"
                 "that both give the same results.\n"
                 "  --n N        elements (default 2^26; also 64M, 67108864)\n"
                 "  --repeat R   timed runs per side, median reported (default 9)\n"
                 "  --warmup W   untimed runs first (default 2)\n"
                 "  --threads T  threads for both sides (default 0: all cores)\n"
                 "  --seed X     seed of the random input (default 1)\n"
                 "  --pause MS   idle milliseconds after each run (default 20)\n"
                 "  --grain G    elements per TBB leaf task for reduce and scan (default 64K)\n"
                 "  --json FILE  also write the results as JSON\n"
                 "Targets (speedup = tbb time / parprim time): reduce >= 1.0, scan >= 1.3,\n"
                 "sort >= 5.0. Exit status: 0 results agree, 1 a mismatch or a library error,\n"
                 "2 bad usage.\n");
}

// ---- results ---------------------------------------------------------------

struct Row {
    Row(const char *op_, double target_) : op(op_), target(target_) {}
    const char *op;
    double target;
    double tbb_ms = -1, pp_ms = -1;
    bool checked = false, agree = false;
    std::string note;
};

uint64_t splitmix(uint64_t &state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void pause(const Options &o)
{
    if (o.pause > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.pause));
}

// Times both sides warmup + repeat times, interleaved (tbb then parprim, then
// parprim then tbb, ...) so that slow drifts of the machine hit both alike,
// with a pause after each run so that the other runtime's threads have gone
// idle. prep runs untimed before each call; a call returns false on failure.
// Returns false if the parprim side failed (the tbb side is timed anyway).
template <typename TPrep, typename TRun, typename PPrep, typename PRun>
bool time_pair(const Options &o, TPrep tprep, TRun trun, PPrep pprep, PRun prun, double *tbb_ms, double *pp_ms)
{
    std::vector<double> tt, tp;
    bool pp_alive = true;
    auto one = [&](bool tbb_side) {
        if (tbb_side) {
            tprep();
            auto t0 = clock_type::now();
            trun();
            return seconds_since(t0);
        }
        if (!pprep()) return -1.0;
        auto t0 = clock_type::now();
        if (!prun()) return -1.0;
        return seconds_since(t0);
    };
    for (int i = 0; i < o.warmup + o.repeat; ++i) {
        for (int k = 0; k < 2; ++k) {
            bool tbb_side = (k == 0) == (i % 2 == 0);
            if (!tbb_side && !pp_alive) continue;
            double sec = one(tbb_side);
            pause(o);
            if (sec < 0) {
                pp_alive = false;
                continue;
            }
            if (i >= o.warmup) (tbb_side ? tt : tp).push_back(sec);
        }
    }
    *tbb_ms = 1e3 * harness::median(tt);
    *pp_ms = pp_alive ? 1e3 * harness::median(tp) : -1;
    return pp_alive;
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_tbb: %s needs a value\n", name);
                std::exit(2);
            }
            return argv[++i];
        };
        auto integer = [&](const char *name, long lo, long hi) {
            const char *v = value(name);
            char *end = nullptr;
            long x = std::strtol(v, &end, 10);
            if (!*v || *end || x < lo || x > hi) {
                std::fprintf(stderr, "bench_tbb: bad value '%s' for %s\n", v, name);
                std::exit(2);
            }
            return int(x);
        };
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        } else if (a == "--n") {
            const char *v = value("--n");
            if (!parse_size(v, &o.n)) {
                std::fprintf(stderr, "bench_tbb: bad value '%s' for --n\n", v);
                return 2;
            }
        } else if (a == "--grain") {
            const char *v = value("--grain");
            if (!parse_size(v, &kGrain)) {
                std::fprintf(stderr, "bench_tbb: bad value '%s' for --grain\n", v);
                return 2;
            }
        } else if (a == "--repeat") {
            o.repeat = integer("--repeat", 1, 1000);
        } else if (a == "--warmup") {
            o.warmup = integer("--warmup", 0, 1000);
        } else if (a == "--threads") {
            o.threads = integer("--threads", 0, 4096);
        } else if (a == "--pause") {
            o.pause = 1e-3 * integer("--pause", 0, 10000);
        } else if (a == "--seed") {
            o.seed = std::strtoull(value("--seed"), nullptr, 0);
        } else if (a == "--json") {
            o.json = value("--json");
        } else {
            std::fprintf(stderr, "bench_tbb: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    std::unique_ptr<tbb::global_control> limit;
    if (o.threads > 0)
        limit.reset(new tbb::global_control(tbb::global_control::max_allowed_parallelism, size_t(o.threads)));

    pp_options opt = PP_OPTIONS_INIT;
    opt.backend = PP_BACKEND_CPU;
    opt.threads = o.threads;
    pp_context *ctx = nullptr;
    pp_status st = pp_create(&ctx, &opt);
    if (st != PP_SUCCESS) {
        std::fprintf(stderr, "bench_tbb: pp_create: %s: %s\n", pp_status_string(st), pp_last_error(nullptr));
        return 1;
    }

    const size_t n = o.n, bytes = n * sizeof(uint32_t);
    int tbb_threads = tbb::this_task_arena::max_concurrency();
    if (o.threads > 0 && o.threads < tbb_threads) tbb_threads = o.threads;
    std::printf("n = %zu u32 (%.0f MiB per array), %d timed runs after %d warm-up, median\n", n,
                double(bytes) / (1 << 20), o.repeat, o.warmup);
    std::printf("oneTBB %d.%d: %d threads (default arena)\n", TBB_VERSION_MAJOR, TBB_VERSION_MINOR, tbb_threads);
    std::printf("parprim %s: %s\n\n", harness::pp_version_string().c_str(), pp_context_device_name(ctx));
    std::fflush(stdout);

    // Identical input for both sides.
    std::vector<uint32_t> input(n);
    uint64_t state = o.seed;
    for (size_t i = 0; i < n; ++i) input[i] = uint32_t(splitmix(state) >> 32);

    std::vector<uint32_t> t_out(n), t_work(n), host(n);
    void *d_in = nullptr, *d_out = nullptr, *d_scalar = nullptr;
    int failed = 0;
    auto pp_ok = [&](pp_status s, const char *what) {
        if (s == PP_SUCCESS) return true;
        std::fprintf(stderr, "bench_tbb: %s: %s: %s\n", what, pp_status_string(s), pp_last_error(ctx));
        return false;
    };
    if (!pp_ok(pp_malloc(ctx, &d_in, bytes), "pp_malloc") || !pp_ok(pp_malloc(ctx, &d_out, bytes), "pp_malloc") ||
        !pp_ok(pp_malloc(ctx, &d_scalar, sizeof(uint32_t)), "pp_malloc") ||
        !pp_ok(pp_upload(ctx, d_in, input.data(), bytes), "pp_upload")) {
        pp_free(ctx, d_in);
        pp_free(ctx, d_out);
        pp_free(ctx, d_scalar);
        pp_destroy(ctx);
        return 1;
    }

    std::vector<Row> rows;

    auto pp_fail_note = [&](Row &r, pp_status s) {
        r.pp_ms = -1;
        r.note = std::string(pp_status_string(s)) + ": " + pp_last_error(ctx);
    };
    auto compare_arrays = [&](Row &r, const std::vector<uint32_t> &tbb_result) {
        r.checked = true;
        r.agree = std::memcmp(host.data(), tbb_result.data(), bytes) == 0;
        if (!r.agree) {
            size_t i = 0;
            while (host[i] == tbb_result[i]) ++i;
            r.note = "outputs differ at " + std::to_string(i) + ": tbb " + std::to_string(tbb_result[i]) +
                     ", parprim " + std::to_string(host[i]);
        }
    };
    pp_status s = PP_SUCCESS;
    auto pp_done = [&](pp_status called) {
        s = called;
        if (s == PP_SUCCESS) s = pp_synchronize(ctx);
        return s == PP_SUCCESS;
    };
    auto nothing = [] { return true; };

    // ---- reduce ----
    {
        Row r("reduce (sum)", 1.0);
        uint32_t tsum = 0, psum = 0;
        bool ok = time_pair(
            o, nothing, [&] { tsum = tbb_reduce_sum(input.data(), n); }, nothing,
            [&] { return pp_done(pp_reduce(ctx, PP_U32, PP_SUM, d_in, n, d_scalar)); }, &r.tbb_ms, &r.pp_ms);
        if (!ok) {
            pp_fail_note(r, s);
        } else if (pp_ok(pp_download(ctx, &psum, d_scalar, sizeof psum), "pp_download")) {
            r.checked = true;
            r.agree = psum == tsum;
            if (!r.agree) r.note = "sums differ: tbb " + std::to_string(tsum) + ", parprim " + std::to_string(psum);
        }
        rows.push_back(r);
    }

    // ---- inclusive scan ----
    {
        Row r("scan (inclusive sum)", 1.3);
        bool ok = time_pair(
            o, nothing, [&] { tbb_scan_inclusive(input.data(), t_out.data(), n); }, nothing,
            [&] { return pp_done(pp_scan(ctx, PP_U32, PP_SUM, PP_INCLUSIVE, d_in, d_out, n)); }, &r.tbb_ms,
            &r.pp_ms);
        if (!ok) pp_fail_note(r, s);
        else if (pp_ok(pp_download(ctx, host.data(), d_out, bytes), "pp_download")) compare_arrays(r, t_out);
        rows.push_back(r);
    }

    // ---- sort ----
    {
        Row r("sort (ascending)", 5.0);
        bool ok = time_pair(
            o, [&] { std::copy(input.begin(), input.end(), t_work.begin()); },
            [&] { tbb::parallel_sort(t_work.begin(), t_work.end()); },
            [&] { return pp_done(pp_copy(ctx, d_out, d_in, bytes)); },
            [&] { return pp_done(pp_sort(ctx, PP_U32, d_out, n, PP_ASCENDING)); }, &r.tbb_ms, &r.pp_ms);
        if (!ok) pp_fail_note(r, s);
        else if (pp_ok(pp_download(ctx, host.data(), d_out, bytes), "pp_download")) compare_arrays(r, t_work);
        rows.push_back(r);
    }

    // ---- report ----
    std::printf("| operation | tbb ms | parprim ms | speedup (tbb/parprim) | target | met |\n");
    std::printf("|---|---:|---:|---:|---:|:---:|\n");
    for (const Row &r : rows) {
        bool have = r.pp_ms > 0 && r.tbb_ms > 0;
        double sp = have ? r.tbb_ms / r.pp_ms : 0;
        bool met = have && r.checked && r.agree && sp >= r.target;
        char pp_ms[32], speed[32];
        if (have) {
            std::snprintf(pp_ms, sizeof pp_ms, "%.3f", r.pp_ms);
            std::snprintf(speed, sizeof speed, "%.2f", sp);
        } else {
            std::snprintf(pp_ms, sizeof pp_ms, "n/a");
            std::snprintf(speed, sizeof speed, "n/a");
        }
        std::printf("| %s | %.3f | %s | %s | >= %.1f | %s |\n", r.op, r.tbb_ms, pp_ms, speed, r.target,
                    met ? "yes" : "no");
    }
    for (const Row &r : rows) {
        if (r.checked && !r.agree) {
            std::fprintf(stderr, "\n*** MISMATCH in %s: %s\n", r.op, r.note.c_str());
            failed = 1;
        } else if (!r.checked) {
            std::printf("\n%s: parprim failed: %s\n", r.op, r.note.c_str());
            if (r.note.rfind("unsupported", 0) != 0) failed = 1;
        }
    }
    std::printf("\nresults agree: %s\n", failed ? "NO" : "yes (every pair checked)");

    if (!o.json.empty()) {
        FILE *f = std::fopen(o.json.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "bench_tbb: cannot write '%s'\n", o.json.c_str());
            failed = 1;
        } else {
            std::fprintf(f, "{\n  \"n\": %zu, \"type\": \"u32\", \"repeat\": %d, \"warmup\": %d,\n", n, o.repeat,
                         o.warmup);
            std::fprintf(f, "  \"tbb_version\": \"%d.%d\", \"tbb_threads\": %d, \"parprim_version\": \"%s\",\n",
                         TBB_VERSION_MAJOR, TBB_VERSION_MINOR, tbb_threads, harness::pp_version_string().c_str());
            std::fprintf(f, "  \"parprim_threads\": %d, \"device\": ", pp_context_threads(ctx));
            harness::json_string(f, pp_context_device_name(ctx));
            std::fprintf(f, ", \"date\": \"%s\",\n  \"rows\": [", harness::utc_date().c_str());
            for (size_t i = 0; i < rows.size(); ++i) {
                const Row &r = rows[i];
                bool have = r.pp_ms > 0 && r.tbb_ms > 0;
                double sp = have ? r.tbb_ms / r.pp_ms : 0;
                std::fprintf(f, "%s\n    {\"operation\": ", i ? "," : "");
                harness::json_string(f, r.op);
                std::fprintf(f, ", \"tbb_ms\": %.6g, \"parprim_ms\": ", r.tbb_ms);
                if (have) std::fprintf(f, "%.6g, \"speedup\": %.6g", r.pp_ms, sp);
                else std::fprintf(f, "null, \"speedup\": null");
                std::fprintf(f, ", \"target\": %.2g, \"met\": %s, \"results_agree\": %s, \"note\": ", r.target,
                             have && r.agree && sp >= r.target ? "true" : "false",
                             r.checked ? (r.agree ? "true" : "false") : "null");
                harness::json_string(f, r.note);
                std::fputc('}', f);
            }
            std::fprintf(f, "\n  ]\n}\n");
            if (std::fclose(f) != 0) failed = 1;
        }
    }

    pp_free(ctx, d_in);
    pp_free(ctx, d_out);
    pp_free(ctx, d_scalar);
    pp_destroy(ctx);
    return failed;
}
