// scan_ws_probe: does a warp-specialized single-pass scan beat the
// look-back kernel of cuda_scan.cu? A standalone probe of u32 exclusive
// sums, not part of the library; built as probe_scan_ws beside bench_cub
// (PP_BUILD_PROBES), or by hand (what it found: bench/studies/cuda-scan.md,
// "a warp-specialized look-ahead scan"):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc/core bench/scan_ws_probe.cu -Lbuild/gpu -lparprim -o /tmp/pws
//   /tmp/pws [repeats=15] [log2n ...]          (default sizes 16 20 24 26 28 30)
//
// The design (one block per SM, persistent; 32 KB tiles of 8192 u32):
// - a load warp draws tile tickets (one atomic counter; tickets are tiles in
//   the order blocks ask for them) whenever a stage of a ring of S tiles in
//   shared memory is free, and fills the stage with one cp.async.bulk;
// - a reduce squad (SW warps) folds each tile as soon as it lands and
//   publishes its aggregate (one word per tile: the launch's tag and the
//   value). Nothing else waits before it, so aggregates are out about when
//   the data is in, up to S tiles ahead of their use;
// - a look-ahead warp keeps its block's running prefix: the exclusive prefix
//   of its previous tile plus the aggregates of every tile since, read 32 x
//   LA words per round. There are no inclusive prefixes and no frontier: a
//   tile waits only for aggregates of tiles whose loads were issued before
//   its own;
// - a scan-store squad (SW warps) scans the tile in shared memory (warp-
//   striped 16-byte vectors, as cuda_scan.cu), adds the prefix, writes the
//   result in place and stores the stage with one cp.async.bulk; a stage is
//   handed back to the load warp when that store has read it.
// Variants: SW (squad warps), S (stages), STRIDE (state words 8 bytes or a
// 128-byte line apart), LA (look-ahead words per lane per round).
// The library's form (scan_ahead, src/cuda/scan/ahead.cuh) differs: every
// type and operator of 4 bytes, partial tiles, stores from registers, and
// every thread arriving on the barriers itself (so that compute-sanitizer's
// racecheck follows each hand-over; bench/studies/cuda-scan.md).
//
// What it prints per size: the copy (cudaMemcpyAsync device to device), CUB
// DeviceScan::ExclusiveSum, parprim's pp_scan (its default, and
// PP_ALGO_DECOUPLED_LOOKBACK: the kernel before this design), and each
// variant: median ms of `repeats` event-timed runs, its ratio to
// CUB and its fraction of the copy's time. Each variant's output is first
// compared with CUB's, element by element, and a wrong one is reported as
// WRONG and not timed. n must be a multiple of 8192 (a probe: no partial
// tiles).
#include "../bench/harness.h"
#include "../src/cuda/device/bulk.cuh"
#include "../src/cuda/device/memory_order.cuh"

#include <cub/device/device_scan.cuh>
#include <cstdint>
#include <cstdlib>

namespace {

constexpr int TILE_BYTES = 32768;
constexpr int TILE = TILE_BYTES / 4; // u32 elements
constexpr int TILE_VEC = TILE_BYTES / 16;

// The library's mbarrier, bulk-load and named-barrier helpers and strong
// relaxed accesses; the bulk stores are the probe's own.
__device__ __forceinline__ void bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(pp_smem_addr(src)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

template <int SW, int S> struct layout {
    static constexpr int V = 64 / SW; // 16-byte vectors per thread of a squad
    static constexpr int THREADS = (2 * SW + 2) * 32;
    static constexpr size_t BARS = (size_t)S * TILE_BYTES;         // full, rdone, preb, empty: S each
    static constexpr size_t TIX = BARS + 4 * S * sizeof(uint64_t); // S ints
    static constexpr size_t PRE = TIX + S * sizeof(int);           // S u32
    static constexpr size_t RED = PRE + S * sizeof(uint32_t);      // S x SW u32
    static constexpr size_t WTOT = RED + S * SW * sizeof(uint32_t);
    static constexpr size_t BYTES = WTOT + S * SW * sizeof(uint32_t);
};

template <int SW, int S, int STRIDE, int LA>
__global__ void __launch_bounds__(layout<SW, S>::THREADS, 1)
    ws_scan(const uint32_t *__restrict__ in, uint32_t *__restrict__ out, long long tiles,
            unsigned long long *states, unsigned long long *counter, unsigned long long base, unsigned tag)
{
    using L = layout<SW, S>;
    constexpr int V = L::V;
    extern __shared__ __align__(128) unsigned char smem[];
    uint4 *stage = reinterpret_cast<uint4 *>(smem);
    uint64_t *bars = reinterpret_cast<uint64_t *>(smem + L::BARS);
    uint64_t *full = bars, *rdone = bars + S, *preb = bars + 2 * S, *empty = bars + 3 * S;
    int *tix = reinterpret_cast<int *>(smem + L::TIX);
    uint32_t *pre = reinterpret_cast<uint32_t *>(smem + L::PRE);
    uint32_t *red = reinterpret_cast<uint32_t *>(smem + L::RED);
    uint32_t *wtot = reinterpret_cast<uint32_t *>(smem + L::WTOT);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++) {
            pp_mb_init(full + s, 1);
            pp_mb_init(rdone + s, 1);
            pp_mb_init(preb + s, 1);
            pp_mb_init(empty + s, 1);
        }
        pp_mb_init_fence();
    }
    __syncthreads();

    if (warp == 2 * SW) { // load warp: tickets and bulk loads
        if (lane == 0) {
            for (int i = 0;; i++) {
                const int s = i % S;
                if (i >= S) pp_mb_wait(empty + s, (i / S - 1) & 1);
                const unsigned long long tk = atomicAdd(counter, 1ull) - base;
                if (tk >= (unsigned long long)tiles) {
                    tix[s] = -1;
                    pp_mb_arrive(full + s);
                    break;
                }
                tix[s] = (int)tk;
                pp_mb_arrive_tx(full + s, TILE_BYTES);
                pp_bulk_load(stage + (size_t)s * TILE_VEC, in + (size_t)tk * TILE, TILE_BYTES, full + s);
            }
        }
        return;
    }
    if (warp == 2 * SW + 1) { // look-ahead warp: the block's running prefix
        long long cur = 0;
        uint32_t acc = 0;
        for (int i = 0;; i++) {
            const int s = i % S;
            pp_mb_wait(full + s, (i / S) & 1);
            const int t = tix[s];
            if (t < 0) break;
            while (cur < t) {
                unsigned long long wd[LA];
#pragma unroll
                for (int k = 0; k < LA; k++) {
                    const long long idx = cur + k * 32 + lane;
                    wd[k] = idx < t ? pp_load_relaxed64(states + idx * STRIDE) : ((unsigned long long)tag << 32);
                }
                int adv = 0;
                bool stop = false;
#pragma unroll
                for (int k = 0; k < LA; k++) {
                    if (stop) break;
                    const bool ok = (unsigned)(wd[k] >> 32) == tag;
                    const unsigned m = __ballot_sync(~0u, ok);
                    const int ready = m == ~0u ? 32 : __ffs(~m) - 1;
                    acc += __reduce_add_sync(~0u, lane < ready ? (uint32_t)wd[k] : 0u);
                    adv += ready;
                    stop = ready < 32;
                }
                cur += adv;
                if (cur > t) cur = t;
                if (adv == 0) __nanosleep(64);
            }
            if (lane == 0) {
                pre[s] = acc;
                pp_mb_arrive(preb + s);
            }
        }
        return;
    }
    if (warp >= SW) { // reduce squad: aggregates as tiles land
        const int w = warp - SW;
        for (int i = 0;; i++) {
            const int s = i % S;
            pp_mb_wait(full + s, (i / S) & 1);
            const int t = tix[s];
            if (t < 0) break;
            const uint4 *st = stage + (size_t)s * TILE_VEC + w * 32 * V;
            uint32_t sum = 0;
#pragma unroll
            for (int j = 0; j < V; j++) {
                const uint4 x = st[j * 32 + lane];
                sum += (x.x + x.y) + (x.z + x.w);
            }
            sum = __reduce_add_sync(~0u, sum);
            if (lane == 0) red[s * SW + w] = sum;
            pp_named_barrier(1, SW * 32);
            if (w == 0 && lane == 0) {
                uint32_t agg = 0;
#pragma unroll
                for (int k = 0; k < SW; k++) agg += red[s * SW + k];
                pp_store_relaxed64(states + (size_t)t * STRIDE, ((unsigned long long)tag << 32) | agg);
                pp_mb_arrive(rdone + s);
            }
        }
        return;
    }
    // scan-store squad
    const int w = warp;
    for (int i = 0;; i++) {
        const int s = i % S;
        const unsigned par = (i / S) & 1;
        pp_mb_wait(full + s, par);
        const int t = tix[s];
        if (t < 0) break;
        uint4 *st = stage + (size_t)s * TILE_VEC + w * 32 * V;
        uint4 x[V];
        uint32_t ex[V];
#pragma unroll
        for (int j = 0; j < V; j++) x[j] = st[j * 32 + lane];
        uint32_t inc[V];
#pragma unroll
        for (int j = 0; j < V; j++) inc[j] = (x[j].x + x[j].y) + (x[j].z + x[j].w);
#pragma unroll
        for (int j = 0; j < V; j++) ex[j] = inc[j];
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
            for (int j = 0; j < V; j++) {
                const uint32_t y = __shfl_up_sync(~0u, inc[j], d);
                if (lane >= d) inc[j] += y;
            }
        }
        uint32_t run = 0;
#pragma unroll
        for (int j = 0; j < V; j++) {
            ex[j] = run + inc[j] - ex[j];
            run += __shfl_sync(~0u, inc[j], 31);
        }
        if (lane == 0) wtot[s * SW + w] = run;
        pp_named_barrier(2, SW * 32);
        uint32_t off = 0;
#pragma unroll
        for (int k = 0; k < SW; k++)
            if (k < w) off += wtot[s * SW + k];
        pp_mb_wait(preb + s, par);
        off += pre[s];
        pp_mb_wait(rdone + s, par);
#pragma unroll
        for (int j = 0; j < V; j++) {
            uint4 o;
            o.x = off + ex[j];
            o.y = o.x + x[j].x;
            o.z = o.y + x[j].y;
            o.w = o.z + x[j].z;
            st[j * 32 + lane] = o;
        }
        fence_proxy_async();
        pp_named_barrier(2, SW * 32);
        if (w == 0 && lane == 0) {
            bulk_store(out + (size_t)t * TILE, stage + (size_t)s * TILE_VEC, TILE_BYTES);
            if (i > 0) {
                bulk_wait_read<1>();
                pp_mb_arrive(empty + (i - 1) % S);
            }
        }
    }
    if (w == 0 && lane == 0) bulk_wait_all();
}

__global__ void fill(uint32_t *x, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 0x9E3779B1u ^ seed;
        h ^= h >> 16;
        h *= 0x85EBCA6Bu;
        h ^= h >> 13;
        h *= 0xC2B2AE35u;
        h ^= h >> 16;
        x[i] = h;
    }
}

__global__ void count_diff(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

struct ctx_t {
    cudaStream_t stream;
    int sms;
    int repeats;
    unsigned long long *states, *counter, *bad;
    unsigned long long launches = 0;
    unsigned tag = 0;
};

template <int SW, int S, int STRIDE, int LA>
void run_variant(ctx_t &c, const uint32_t *x, uint32_t *y, const uint32_t *ref, size_t n, double copy_ms,
                 double cub_ms)
{
    using L = layout<SW, S>;
    auto k = ws_scan<SW, S, STRIDE, LA>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L::BYTES));
    const long long tiles = (long long)(n / TILE);
    const int grid = c.sms;
    auto launch = [&] {
        c.tag = c.tag + 1 ? c.tag + 1 : 1;
        k<<<grid, L::THREADS, L::BYTES, c.stream>>>(x, y, tiles, c.states, c.counter, c.launches, c.tag);
        c.launches += (unsigned long long)tiles + grid;
    };
    char name[96];
    snprintf(name, sizeof name, "ws SW=%d S=%d stride=%d LA=%d", SW, S, STRIDE * 8, LA);
    CK(cudaMemsetAsync(y, 0xA5, n * 4, c.stream));
    launch();
    CK(cudaGetLastError());
    CK(cudaMemsetAsync(c.bad, 0, 8, c.stream));
    count_diff<<<1024, 256, 0, c.stream>>>(y, ref, n, c.bad);
    unsigned long long bad = 0;
    CK(cudaMemcpyAsync(&bad, c.bad, 8, cudaMemcpyDeviceToHost, c.stream));
    CK(cudaStreamSynchronize(c.stream));
    if (bad) {
        printf("  %-34s WRONG (%llu of %zu elements differ from CUB)\n", name, bad, n);
        return;
    }
    const double ms = harness::event_median_ms(c.stream, c.repeats, 3, [] {}, launch, 20.0);
    // checked again after the timed runs (tags and tickets across launches)
    CK(cudaMemsetAsync(c.bad, 0, 8, c.stream));
    count_diff<<<1024, 256, 0, c.stream>>>(y, ref, n, c.bad);
    CK(cudaMemcpyAsync(&bad, c.bad, 8, cudaMemcpyDeviceToHost, c.stream));
    CK(cudaStreamSynchronize(c.stream));
    printf("  %-34s %8.4f ms  %.3fx CUB  %.3f of copy%s\n", name, ms, cub_ms / ms, copy_ms / ms,
           bad ? "  (WRONG after the timed runs)" : "");
}

} // namespace

int main(int argc, char **argv)
{
    ctx_t c;
    c.repeats = argc > 1 ? atoi(argv[1]) : 15;
    std::vector<int> sizes;
    for (int i = 2; i < argc; i++) sizes.push_back(atoi(argv[i]));
    if (sizes.empty()) sizes = {16, 20, 24, 26, 28, 30};
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    c.sms = prop.multiProcessorCount;
    printf("scan_ws_probe: %s, %d SMs, repeats %d\n", prop.name, c.sms, c.repeats);
    CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    const size_t maxn = (size_t)1 << *std::max_element(sizes.begin(), sizes.end());
    uint32_t *x, *y, *ref;
    CK(cudaMalloc(&x, maxn * 4));
    CK(cudaMalloc(&y, maxn * 4));
    CK(cudaMalloc(&ref, maxn * 4));
    const size_t max_tiles = maxn / TILE + 1;
    CK(cudaMalloc(&c.states, (max_tiles * 16 + 64) * 8));
    CK(cudaMemset(c.states, 0, (max_tiles * 16 + 64) * 8));
    c.counter = c.states + max_tiles * 16 + 16;
    c.bad = c.states + max_tiles * 16 + 32;
    pp_context *pctx = nullptr;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CUDA;
    if (pp_create(&pctx, &o) != PP_SUCCESS || pp_set_stream(pctx, c.stream) != PP_SUCCESS) {
        fprintf(stderr, "pp_create (cuda) failed\n");
        return 3;
    }
    for (int lg : sizes) {
        const size_t n = (size_t)1 << lg;
        if (n % TILE) {
            printf("2^%d: not a multiple of %d, skipped\n", lg, TILE);
            continue;
        }
        fill<<<1024, 256, 0, c.stream>>>(x, n, 0x1234567u + lg);
        void *temp = nullptr;
        size_t tb = 0;
        CK(cub::DeviceScan::ExclusiveSum(temp, tb, x, ref, (int64_t)n, c.stream));
        CK(cudaMalloc(&temp, tb));
        const double copy_ms = harness::event_median_ms(c.stream, c.repeats, 3, [] {}, [&] {
            CK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice, c.stream));
        }, 20.0);
        const double cub_ms = harness::event_median_ms(c.stream, c.repeats, 3, [] {}, [&] {
            CK(cub::DeviceScan::ExclusiveSum(temp, tb, x, ref, (int64_t)n, c.stream));
        }, 20.0);
        printf("2^%d u32 exclusive sum (%lld tiles of 32 KB)\n", lg, (long long)(n / TILE));
        printf("  %-34s %8.4f ms  (%.0f GB/s)\n", "copy", copy_ms, 2.0 * n * 4 / copy_ms / 1e6);
        printf("  %-34s %8.4f ms  1.000x CUB  %.3f of copy\n", "CUB", cub_ms, copy_ms / cub_ms);
        // the library: its default and its decoupled look-back alone
        static const pp_algorithm algos[] = {PP_ALGO_AUTO, PP_ALGO_DECOUPLED_LOOKBACK};
        static const char *const names[] = {"pp_scan default", "pp_scan decoupled-lookback"};
        for (int a = 0; a < 2; a++) {
            if (pp_set_algorithm(pctx, PP_PRIM_SCAN, algos[a]) != PP_SUCCESS) {
                fprintf(stderr, "pp_set_algorithm: %s\n", pp_last_error(pctx));
                return 3;
            }
            const double pp_ms = harness::event_median_ms(c.stream, c.repeats, 3, [] {}, [&] {
                if (pp_scan(pctx, PP_U32, PP_SUM, PP_EXCLUSIVE, x, y, n) != PP_SUCCESS) {
                    fprintf(stderr, "pp_scan: %s\n", pp_last_error(pctx));
                    exit(3);
                }
            }, 20.0);
            CK(cudaMemsetAsync(c.bad, 0, 8, c.stream));
            count_diff<<<1024, 256, 0, c.stream>>>(y, ref, n, c.bad);
            unsigned long long bad = 0;
            CK(cudaMemcpyAsync(&bad, c.bad, 8, cudaMemcpyDeviceToHost, c.stream));
            CK(cudaStreamSynchronize(c.stream));
            printf("  %-34s %8.4f ms  %.3fx CUB  %.3f of copy%s\n", names[a], pp_ms, cub_ms / pp_ms, copy_ms / pp_ms,
                   bad ? "  WRONG" : "");
        }
        run_variant<4, 6, 1, 4>(c, x, y, ref, n, copy_ms, cub_ms);
        run_variant<8, 6, 1, 4>(c, x, y, ref, n, copy_ms, cub_ms);
        run_variant<8, 7, 1, 4>(c, x, y, ref, n, copy_ms, cub_ms);
        run_variant<8, 6, 1, 2>(c, x, y, ref, n, copy_ms, cub_ms);
        CK(cudaFree(temp));
    }
    pp_destroy(pctx);
    return 0;
}
