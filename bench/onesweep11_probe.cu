// onesweep11_probe: does an 11-bit-digit Onesweep pass (3 passes of 11/11/10
// bits for 32-bit keys) beat the 8-bit one (4 passes)? A standalone probe,
// not part of the library; built as probe_onesweep11 beside bench_cub
// (PP_BUILD_PROBES), or by hand (what it found: bench/studies/cuda-sort.md,
// "one 11-bit Onesweep pass against 8-bit ones"):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Iinclude -Isrc/core bench/onesweep11_probe.cu -o /tmp/p11
//   /tmp/p11 [log2n=28] [repeats=15]
//
// What it times (CUDA events, median of `repeats` runs after 2 warm-ups, one
// stream, the same buffers): CUB DeviceRadixSort SortKeys / SortPairs on all
// 32 bits (temp storage allocated outside the timing), a device-to-device
// cudaMemcpyAsync of the keys (the copy ceiling), the count kernel (all digit
// positions in one read, then the exclusive digit offsets), ONE pass of this
// file's Onesweep kernel on bits 0..B-1 for several tile shapes, digit widths
// (8, 11) and ranking methods, and the whole sort built from those passes
// (count + 3 passes of 11/11/10 bits, or count + 4 passes of 8 bits).
// Every variant's output is compared with CUB's stable sort by the same bits
// (begin_bit 0, end_bit B for a pass, 0..32 for a whole sort) before it is
// timed; a wrong variant is reported as WRONG and not timed.
//
// The pass kernel (one block per tile, tiles numbered by an atomic ticket):
//  1. load ITEMS keys per thread, warp-striped (item i of lane l is key
//     32 i + l of the warp's chunk), so each warp's items are in input order;
//  2. stable rank per warp: peers with the same digit (__match_any_sync, or
//     one ballot per digit bit), the highest peer adds the peer count to the
//     warp's counter of that digit (shared atomic returning the old value);
//     counters are 16 bits, two digits per 32-bit word, per warp;
//  3. column scan over the warps per digit pair (warp-exclusive offsets, tile
//     totals); publish the tile's digit counts at once (one 64-bit word per
//     digit pair, both halves the same state);
//  4. block scan over the 2^B tile totals -> start of each digit in the tile;
//  5. final rank = digit start + warp offset + rank in warp; keys into shared
//     memory in digit order (that region aliases the warp counters);
//  6. decoupled look-back per digit pair over preceding tiles (windows of K
//     tiles read together), publish the inclusive counts, destination shift
//     of each digit = global digit offset + earlier tiles' count - start;
//  7. scatter from shared memory: position j goes to shift[digit] + j
//     (consecutive threads write consecutive addresses within a digit run).
// Status words: bits 31:30 an epoch (1..3, different in consecutive passes,
// so the rows need no clearing between passes), bit 29 inclusive (else
// aggregate), bits 28:0 the count (n < 2^29). Each word is self-contained,
// written and read with relaxed gpu-scope 64-bit accesses; no fence needed.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include "harness.h"
#include "../src/cuda/device/warp_scan.cuh"


static cudaStream_t g_s;
static int g_rep = 15;

// ---------------------------------------------------------------------------------------------
// small device helpers

__device__ __forceinline__ void st_relaxed64(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_relaxed64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

constexpr uint32_t kInclBit = 1u << 29;
constexpr uint32_t kValMask = (1u << 29) - 1;

__global__ void gen_keys(uint32_t *k, size_t n, uint32_t seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + seed;
        x ^= x >> 30;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 27;
        x *= 0x94D049BB133111EBull;
        x ^= x >> 31;
        k[i] = (uint32_t)x;
    }
}

__global__ void count_diff(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad)
{
    unsigned long long c = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

// ---------------------------------------------------------------------------------------------
// Digit schemes: scheme 11 = fields (0,11) (11,11) (22,10); scheme 8 = four 8-bit fields.

template <int SCHEME> struct Scheme;
template <> struct Scheme<11> {
    static constexpr int NP = 3;
    static __host__ __device__ constexpr int shift(int p) { return p == 0 ? 0 : (p == 1 ? 11 : 22); }
    static __host__ __device__ constexpr int bits(int p) { return p == 2 ? 10 : 11; }
    static __host__ __device__ constexpr int hoff(int p) { return p == 0 ? 0 : (p == 1 ? 2048 : 4096); }
    static constexpr int HBINS = 5120;
};
template <> struct Scheme<8> {
    static constexpr int NP = 4;
    static __host__ __device__ constexpr int shift(int p) { return 8 * p; }
    static __host__ __device__ constexpr int bits(int p) { return 8; }
    static __host__ __device__ constexpr int hoff(int p) { return 256 * p; }
    static constexpr int HBINS = 1024;
};

// Counting: every digit field of every key, in one read (shared histograms,
// COPIES copies for scheme 8 to spread equal digits, merged with global
// atomics; 32-bit counters, n < 2^32).
template <int SCHEME> __global__ void __launch_bounds__(512) count_kernel(const uint4 *keys, size_t nvec, uint32_t *hist)
{
    typedef Scheme<SCHEME> S;
    constexpr int COPIES = SCHEME == 8 ? 4 : 1;
    __shared__ uint32_t sh[S::HBINS * COPIES];
    for (int i = threadIdx.x; i < S::HBINS * COPIES; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    const int copy = threadIdx.x % COPIES;
    auto add = [&](uint32_t k) {
#pragma unroll
        for (int p = 0; p < S::NP; p++)
            atomicAdd(&sh[(S::hoff(p) + ((k >> S::shift(p)) & ((1u << S::bits(p)) - 1))) * COPIES + copy], 1u);
    };
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t v = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; v + 3 * stride < nvec; v += 4 * stride) {
        uint4 q[4];
#pragma unroll
        for (int u = 0; u < 4; u++) q[u] = __ldcs(keys + v + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            add(q[u].x);
            add(q[u].y);
            add(q[u].z);
            add(q[u].w);
        }
    }
    for (; v < nvec; v += stride) {
        const uint4 q = __ldcs(keys + v);
        add(q.x);
        add(q.y);
        add(q.z);
        add(q.w);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < S::HBINS; i += blockDim.x) {
        uint32_t c = 0;
#pragma unroll
        for (int k = 0; k < COPIES; k++) c += sh[i * COPIES + k];
        if (c) atomicAdd(&hist[i], c);
    }
}

// Exclusive offsets of each field's digits: block p scans field p (1024 threads).
template <int SCHEME> __global__ void __launch_bounds__(1024) offsets_kernel(const uint32_t *hist, uint32_t *base)
{
    typedef Scheme<SCHEME> S;
    __shared__ uint32_t wsum[32];
    const int p = blockIdx.x;
    const int D = 1 << S::bits(p);
    const int per = (D + 1023) / 1024; // 1 or 2
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    uint32_t v[2] = {0, 0}, s = 0;
    for (int j = 0; j < per; j++)
        if (t * per + j < D) {
            v[j] = hist[S::hoff(p) + t * per + j];
            s += v[j];
        }
    const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(s);
    if (lane == 31) wsum[w] = inc;
    __syncthreads();
    uint32_t ex = inc - s;
    for (int i = 0; i < w; i++) ex += wsum[i];
    for (int j = 0; j < per; j++)
        if (t * per + j < D) {
            base[S::hoff(p) + t * per + j] = ex;
            ex += v[j];
        }
}

// ---------------------------------------------------------------------------------------------
// The pass kernel.

enum { RANK_MATCH = 0, RANK_BALLOT = 1 };

template <int BITS, int BLOCK, int ITEMS> struct Cfg {
    static constexpr int D = 1 << BITS, PAIRS = D / 2, W = BLOCK / 32, TILE = BLOCK * ITEMS;
    static constexpr int CPT = (PAIRS + BLOCK - 1) / BLOCK; // digit pairs per thread
    static constexpr size_t CNT_B = (size_t)W * PAIRS * 4, KEYS_B = (size_t)TILE * 4;
    static constexpr size_t OFF_CNT = 0;                                  // counters / keys (aliased)
    static constexpr size_t OFF_START = CNT_B > KEYS_B ? CNT_B : KEYS_B;  // PAIRS packed words
    static constexpr size_t OFF_SHIFT = OFF_START + (size_t)PAIRS * 4;   // D words
    static constexpr size_t OFF_MISC = OFF_SHIFT + (size_t)D * 4;        // 64 words
    static constexpr size_t SMEM = OFF_MISC + 256;
    static_assert(TILE < 65536, "16-bit counters");
    static_assert(BLOCK % 32 == 0 && W <= 32, "block");
};

// ABL (timing diagnostics only; the output is then NOT a valid pass):
//   1: no look-back wait (earlier tiles' counts taken as 0; words still published)
//   2: scatter to sequential addresses (start of tile + j) instead of per digit
//   8: count look-back rounds (windows read per digit pair) into stats[0]
// and one design flag (a valid pass):
//  16: EARLY: look back right after publishing the aggregates (before the
//      tile's scan and shared-memory reorder), so the inclusive counts that
//      later tiles wait for appear sooner
//  32 / 64: look-back windows of 8 / 2 tiles instead of 4
template <int BITS, int BLOCK, int ITEMS, int RANK, int MINB, int ABL = 0>
__global__ void __launch_bounds__(BLOCK, MINB)
    pass_kernel(const uint32_t *__restrict__ src, uint32_t *__restrict__ dst, size_t n, int shift,
                const uint32_t *__restrict__ gbase, unsigned long long *status, unsigned int *ticket, uint32_t epoch,
                unsigned long long *stats)
{
    typedef Cfg<BITS, BLOCK, ITEMS> C;
    constexpr int D = C::D, PAIRS = C::PAIRS, W = C::W, TILE = C::TILE, CPT = C::CPT;
    constexpr bool EARLY = (ABL & 16) != 0;
    constexpr int kWindow = (ABL & 32) ? 8 : ((ABL & 64) ? 2 : 4);
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *sk = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *sstart = (uint32_t *)(smem + C::OFF_START);
    uint32_t *sshift = (uint32_t *)(smem + C::OFF_SHIFT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

    if (tid == 0) misc[40] = atomicAdd(ticket, 1u);
    {
        uint4 *c4 = (uint4 *)cnt;
        for (int i = tid; i < W * PAIRS / 4; i += BLOCK) c4[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    const uint32_t tile = misc[40];
    const size_t start = (size_t)tile * TILE;
    const size_t left = n - start;
    const int count = left < (size_t)TILE ? (int)left : TILE;
    const int wfirst = warp * 32 * ITEMS;
    const int lim = count - wfirst - lane; // item i exists if 32 i < lim

    // 1. load
    uint32_t k[ITEMS];
    {
        const uint32_t *p = src + start + wfirst + lane;
        if (count == TILE) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++) k[i] = __ldcs(p + 32 * i);
        } else {
#pragma unroll
            for (int i = 0; i < ITEMS; i++) k[i] = 32 * i < lim ? __ldcs(p + 32 * i) : 0xffffffffu; // digit D-1, last
        }
    }

    // 2. warp ranking (ranks < 2^16, kept two to a register)
    uint32_t rp[(ITEMS + 1) / 2];
    {
        const unsigned lower = (1u << lane) - 1u;
        uint32_t *wc = cnt + warp * PAIRS;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t d = (k[i] >> shift) & (D - 1);
            unsigned peers;
            if constexpr (RANK == RANK_MATCH) {
                peers = __match_any_sync(~0u, d);
            } else {
                peers = ~0u;
#pragma unroll
                for (int b = 0; b < BITS; b++) {
                    const unsigned m = __ballot_sync(~0u, (d >> b) & 1u);
                    peers &= ((d >> b) & 1u) ? m : ~m;
                }
            }
            const int leader = 31 - __clz(peers);
            const uint32_t sh16 = (d & 1u) * 16u;
            uint32_t old = 0;
            if (lane == leader) old = atomicAdd(&wc[d >> 1], (uint32_t)__popc(peers) << sh16);
            old = __shfl_sync(~0u, old, leader);
            const uint32_t r = ((old >> sh16) & 0xffffu) + (uint32_t)__popc(peers & lower);
            if (i % 2 == 0) rp[i / 2] = r;
            else rp[i / 2] |= r << 16;
            __syncwarp();
        }
    }
    __syncthreads();

    unsigned long long *row = status + (size_t)tile * PAIRS;
    const uint32_t ep = epoch << 30;
    // Look-back per digit pair over the preceding tiles (windows of kWindow
    // tiles read together), then the inclusive counts are published.
    uint32_t exlo[CPT], exhi[CPT];
    uint32_t tot[CPT];
    auto lookback_publish = [&]() {
        long long t[CPT];
        bool done[CPT];
#pragma unroll
        for (int q = 0; q < CPT; q++) {
            exlo[q] = exhi[q] = 0;
            t[q] = (long long)tile - 1;
            done[q] = tile == 0 || tid + q * BLOCK >= PAIRS || (ABL & 1);
        }
        uint32_t rounds = 0;
        for (;;) {
            unsigned long long w[CPT][kWindow];
#pragma unroll
            for (int q = 0; q < CPT; q++)
                if (!done[q]) {
#pragma unroll
                    for (int j = 0; j < kWindow; j++)
                        w[q][j] = t[q] - j >= 0 ? ld_relaxed64(status + (size_t)(t[q] - j) * PAIRS + tid + q * BLOCK)
                                                : (unsigned long long)(ep | kInclBit) | ((unsigned long long)(ep | kInclBit) << 32);
                }
            bool all = true;
#pragma unroll
            for (int q = 0; q < CPT; q++)
                if (!done[q]) {
                    int j = 0;
#pragma unroll
                    for (; j < kWindow; j++) {
                        const uint32_t a = (uint32_t)w[q][j], b = (uint32_t)(w[q][j] >> 32);
                        if ((a >> 30) != epoch) break; // not yet published in this pass
                        exlo[q] += a & kValMask;
                        exhi[q] += b & kValMask;
                        if (a & kInclBit) {
                            done[q] = true;
                            break;
                        }
                    }
                    t[q] -= j;
                    all = all && done[q];
                }
            if (all) break;
            rounds++;
        }
        if constexpr ((ABL & 8) != 0) {
            uint32_t r = rounds;
#pragma unroll
            for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(~0u, r, o);
            if (lane == 0 && r) atomicAdd(stats, (unsigned long long)r);
        }
#pragma unroll
        for (int q = 0; q < CPT; q++) {
            const int c = tid + q * BLOCK;
            if (c < PAIRS && tile != 0) {
                const uint32_t lo = tot[q] & 0xffffu, hi = tot[q] >> 16;
                st_relaxed64(row + c, (unsigned long long)(ep | kInclBit | (exlo[q] + lo)) |
                                          ((unsigned long long)(ep | kInclBit | (exhi[q] + hi)) << 32));
            }
        }
    };

    // 3. column scan over warps, publish aggregates (then, if EARLY, look back at once)
#pragma unroll
    for (int q = 0; q < CPT; q++) {
        const int c = tid + q * BLOCK;
        tot[q] = 0;
        if (c < PAIRS) {
            uint32_t s = 0;
#pragma unroll
            for (int w = 0; w < W; w++) {
                const uint32_t v = cnt[w * PAIRS + c];
                cnt[w * PAIRS + c] = s;
                s += v;
            }
            sstart[c] = s; // packed totals, incl. padding keys (digit D-1 of a partial tile)
            uint32_t lo = s & 0xffffu, hi = s >> 16;
            if (c == PAIRS - 1) hi -= (uint32_t)(TILE - count);
            tot[q] = lo | (hi << 16);
            const uint32_t f = ep | (tile == 0 ? kInclBit : 0u);
            st_relaxed64(row + c, (unsigned long long)(f | lo) | ((unsigned long long)(f | hi) << 32));
        }
    }
    if constexpr (EARLY) lookback_publish();
    __syncthreads();

    // 4. block exclusive scan over the tile's digit totals (thread t: pairs t*CPT ..)
    {
        uint32_t v[CPT], s = 0;
#pragma unroll
        for (int q = 0; q < CPT; q++) {
            const int c = tid * CPT + q;
            v[q] = c < PAIRS ? sstart[c] : 0u;
            s += (v[q] & 0xffffu) + (v[q] >> 16);
        }
        const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(s);
        if (lane == 31) misc[warp] = inc;
        __syncthreads();
        uint32_t ex = inc - s;
        for (int w = 0; w < warp; w++) ex += misc[w];
#pragma unroll
        for (int q = 0; q < CPT; q++) {
            const int c = tid * CPT + q;
            if (c < PAIRS) sstart[c] = ex | ((ex + (v[q] & 0xffffu)) << 16);
            ex += (v[q] & 0xffffu) + (v[q] >> 16);
        }
    }
    __syncthreads();

    // 5. final ranks (< TILE < 2^16, so the packed adds do not carry), then
    // keys into shared memory in digit order
    {
        const uint32_t *wc = cnt + warp * PAIRS;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t d = (k[i] >> shift) & (D - 1);
            const uint32_t sh16 = (d & 1u) * 16u;
            const uint32_t add = ((sstart[d >> 1] >> sh16) & 0xffffu) + ((wc[d >> 1] >> sh16) & 0xffffu);
            rp[i / 2] += add << (16 * (i % 2));
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) sk[(rp[i / 2] >> (16 * (i % 2))) & 0xffffu] = k[i];

    // 6. (look-back here unless done early) publish inclusive, destination shifts
    if constexpr (!EARLY) lookback_publish();
#pragma unroll
    for (int q = 0; q < CPT; q++) {
        const int c = tid + q * BLOCK;
        if (c < PAIRS) {
            const uint32_t st = sstart[c];
            sshift[2 * c] = gbase[2 * c] + exlo[q] - (st & 0xffffu);
            sshift[2 * c + 1] = gbase[2 * c + 1] + exhi[q] - (st >> 16);
        }
    }
    __syncthreads();

    // 7. scatter
    if (count == TILE) {
        // groups of SG items (unrolled), so that the loads of a group overlap
        // without holding every item's key and address at once
        constexpr int SG = 4;
#pragma unroll 1
        for (int g = 0; g < ITEMS; g += SG) {
            uint32_t kk[SG];
#pragma unroll
            for (int u = 0; u < SG; u++) kk[u] = (g + u < ITEMS) ? sk[(g + u) * BLOCK + tid] : 0u;
#pragma unroll
            for (int u = 0; u < SG; u++)
                if (g + u < ITEMS) {
                    const int j = (g + u) * BLOCK + tid;
                    if constexpr ((ABL & 2) != 0) __stcs(dst + start + j, kk[u]);
                    else __stcs(dst + (uint32_t)(sshift[(kk[u] >> shift) & (D - 1)] + (uint32_t)j), kk[u]);
                }
        }
    } else {
#pragma unroll 1
        for (int j = tid; j < count; j += BLOCK) {
            const uint32_t key = sk[j];
            dst[(uint32_t)(sshift[(key >> shift) & (D - 1)] + (uint32_t)j)] = key;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// host side

struct Bufs {
    size_t n;
    uint32_t *keys;   // pristine input
    uint32_t *a, *b;  // ping-pong outputs
    uint32_t *ref;    // CUB reference
    uint32_t *valt;   // CUB SortPairs' second value buffer
    uint32_t *hist, *base;
    unsigned long long *status;
    size_t status_words;
    unsigned int *tickets; // 8
    unsigned long long *bad;
    unsigned long long *stats;
    void *cub_temp;
    size_t cub_temp_bytes;
    uint32_t epoch_ctr = 0;
};

static uint32_t next_epoch(Bufs &B)
{
    const uint32_t e = (B.epoch_ctr % 3) + 1;
    B.epoch_ctr++;
    return e;
}

// Median over g_rep runs (after two warm-ups) of fn's time on g_s; setup
// runs before each, untimed. A failed launch in fn stops the probe.
template <typename S, typename F> static double time_median_after(S setup, F fn)
{
    const double ms = harness::event_median_ms(g_s, g_rep, 2, setup, fn);
    CK(cudaGetLastError());
    return ms;
}
template <typename F> static double time_median(F fn)
{
    return time_median_after([] {}, fn);
}

static unsigned long long ndiff(Bufs &B, const uint32_t *x, const uint32_t *y)
{
    CK(cudaMemsetAsync(B.bad, 0, 8, g_s));
    count_diff<<<1024, 256, 0, g_s>>>(x, y, B.n, B.bad);
    CK(cudaGetLastError());
    unsigned long long h;
    CK(cudaMemcpyAsync(&h, B.bad, 8, cudaMemcpyDeviceToHost, g_s));
    CK(cudaStreamSynchronize(g_s));
    return h;
}

template <int SCHEME> static void run_count(Bufs &B)
{
    CK(cudaMemsetAsync(B.hist, 0, 5120 * 4, g_s));
    count_kernel<SCHEME><<<132 * 4, 512, 0, g_s>>>((const uint4 *)B.keys, B.n / 4, B.hist);
    offsets_kernel<SCHEME><<<Scheme<SCHEME>::NP, 1024, 0, g_s>>>(B.hist, B.base);
}

template <int BITS, int BLOCK, int ITEMS, int RANK, int MINB, int ABL = 0>
static void launch_pass(Bufs &B, const uint32_t *src, uint32_t *dst, int shift, const uint32_t *gbase, int ticket_slot)
{
    typedef Cfg<BITS, BLOCK, ITEMS> C;
    auto kern = pass_kernel<BITS, BLOCK, ITEMS, RANK, MINB, ABL>;
    static bool init = false;
    if (!init) {
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)C::SMEM));
        init = true;
    }
    const size_t tiles = (B.n + C::TILE - 1) / C::TILE;
    if (tiles * C::PAIRS > B.status_words) {
        fprintf(stderr, "status too small\n");
        exit(3);
    }
    kern<<<(unsigned)tiles, BLOCK, C::SMEM, g_s>>>(src, dst, B.n, shift, gbase, B.status, B.tickets + ticket_slot,
                                                   next_epoch(B), B.stats);
    CK(cudaGetLastError());
}

struct Row {
    char name[96];
    double ms;
    double bytes;
    const char *status;
};
static std::vector<Row> g_rows;
static double g_copy_ms = 0;

static void add_row(const char *name, double ms, double bytes, const char *st)
{
    Row r;
    snprintf(r.name, sizeof r.name, "%s", name);
    r.ms = ms;
    r.bytes = bytes;
    r.status = st;
    g_rows.push_back(r);
    if (ms > 0)
        printf("  %-58s %8.3f ms %7.1f GB/s %6.2fx copy  %s\n", name, ms, bytes / (ms * 1e6), ms / g_copy_ms, st);
    else
        printf("  %-58s %8s    %7s        %6s       %s\n", name, "-", "-", "-", st);
    fflush(stdout);
}

struct Variant {
    double pass_ms = -1, sort_ms = -1, count_ms = -1;
};

// One tile shape and ranking: a single pass on bits 0..B-1 (verified, then
// timed), and the whole sort with the scheme's passes (verified, timed).
template <int SCHEME, int BLOCK, int ITEMS, int RANK, int MINB, int FL = 0> static Variant run_variant(Bufs &B, double count_ms)
{
    Variant res;
    const size_t n = B.n;
    char name[96];
    const char *rk = RANK == RANK_MATCH ? "match" : "ballot";
    constexpr int B0 = SCHEME == 11 ? 11 : 8;
    // Reference: stable sort by bits 0..B0-1.
    {
        size_t tb = B.cub_temp_bytes;
        CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb, B.keys, B.ref, n, 0, B0, g_s));
    }
    run_count<SCHEME>(B);
    CK(cudaMemsetAsync(B.status, 0, B.status_words * 8, g_s)); // new layout: clear once
    auto one_pass = [&] {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        launch_pass<B0, BLOCK, ITEMS, RANK, MINB, FL>(B, B.keys, B.a, 0, B.base, 0);
    };
    CK(cudaMemsetAsync(B.a, 0xA5, n * 4, g_s));
    one_pass();
    CK(cudaStreamSynchronize(g_s));
    CK(cudaGetLastError());
    unsigned long long bad = ndiff(B, B.a, B.ref);
    const char *fl = (FL & 16) ? ((FL & 32) ? " early w8" : ((FL & 64) ? " early w2" : " early")) : "";
    snprintf(name, sizeof name, "pass %2d-bit  %3dx%-2d (tile %5d) %s%s", B0, BLOCK, ITEMS, BLOCK * ITEMS, rk, fl);
    if (bad) {
        printf("  %s: %llu of %zu keys wrong\n", name, bad, n);
        add_row(name, -1, 0, "WRONG");
    } else {
        // second check on a second run (races show as moving errors)
        CK(cudaMemsetAsync(B.a, 0x5A, n * 4, g_s));
        one_pass();
        bad = ndiff(B, B.a, B.ref);
        if (bad) {
            printf("  %s: second run %llu wrong\n", name, bad);
            add_row(name, -1, 0, "WRONG (2nd run)");
        } else {
            res.pass_ms = time_median(one_pass);
            add_row(name, res.pass_ms, 8.0 * n, "ok");
        }
    }

    // Whole sort: count + passes, keys -> a -> b -> a (-> b).
    typedef Scheme<SCHEME> S;
    uint32_t *out = S::NP % 2 ? B.a : B.b;
    auto sort = [&] {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        run_count<SCHEME>(B);
        const uint32_t *src = B.keys;
        uint32_t *bufs[2] = {B.a, B.b};
        for (int p = 0; p < S::NP; p++) {
            uint32_t *dst = bufs[p & 1];
            if constexpr (SCHEME == 11) {
                if (p < 2) launch_pass<11, BLOCK, ITEMS, RANK, MINB, FL>(B, src, dst, S::shift(p), B.base + S::hoff(p), p);
                else launch_pass<10, BLOCK, ITEMS, RANK, MINB, FL>(B, src, dst, S::shift(p), B.base + S::hoff(p), p);
            } else {
                launch_pass<8, BLOCK, ITEMS, RANK, MINB, FL>(B, src, dst, S::shift(p), B.base + S::hoff(p), p);
            }
            src = dst;
        }
    };
    {
        size_t tb = B.cub_temp_bytes;
        CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb, B.keys, B.ref, n, 0, 32, g_s));
    }
    CK(cudaMemsetAsync(out, 0xA5, n * 4, g_s));
    sort();
    CK(cudaStreamSynchronize(g_s));
    CK(cudaGetLastError());
    bad = ndiff(B, out, B.ref);
    snprintf(name, sizeof name, "sort %d passes (%s) %3dx%-2d %s%s", S::NP, SCHEME == 11 ? "11/11/10" : "8/8/8/8", BLOCK,
             ITEMS, rk, fl);
    if (bad) {
        printf("  %s: %llu of %zu keys wrong\n", name, bad, n);
        add_row(name, -1, 0, "WRONG");
    } else {
        res.sort_ms = time_median(sort);
        add_row(name, res.sort_ms, 4.0 * n + S::NP * 8.0 * n, "ok");
        // projection from the measured single pass
        if (res.pass_ms > 0)
            printf("      projection: count %.3f + %d x pass %.3f = %.3f ms (measured whole sort %.3f)\n", count_ms,
                   S::NP, res.pass_ms, count_ms + S::NP * res.pass_ms, res.sort_ms);
    }
    res.count_ms = count_ms;
    return res;
}

// Diagnostics for one kernel shape (bits 0..BITS-1, full pass): look-back
// rounds per digit pair, then the times with the look-back wait removed
// and/or the scatter made sequential. Those outputs are not valid passes:
// reported as timings of partial kernels only.
template <int BITS, int BLOCK, int ITEMS, int RANK, int MINB, int FL = 0> static void run_ablation(Bufs &B, int scheme)
{
    typedef Cfg<BITS, BLOCK, ITEMS> C;
    const size_t n = B.n;
    char name[96];
    const char *rk = (FL & 16) ? (RANK == RANK_MATCH ? "match early" : "ballot early") : (RANK == RANK_MATCH ? "match" : "ballot");
    if (scheme == 11) run_count<11>(B);
    else run_count<8>(B);
    CK(cudaMemsetAsync(B.status, 0, B.status_words * 8, g_s));
    // look-back rounds (the kernel with ABL 8 is the full pass; its output is checked)
    {
        size_t tb = B.cub_temp_bytes;
        CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb, B.keys, B.ref, n, 0, BITS, g_s));
    }
    unsigned long long rounds = 0;
    for (int r = 0; r < 3; r++) {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        CK(cudaMemsetAsync(B.stats, 0, 8, g_s));
        launch_pass<BITS, BLOCK, ITEMS, RANK, MINB, FL | 8>(B, B.keys, B.a, 0, B.base, 0);
        CK(cudaMemcpyAsync(&rounds, B.stats, 8, cudaMemcpyDeviceToHost, g_s));
        CK(cudaStreamSynchronize(g_s));
        const double tiles = (double)((n + C::TILE - 1) / C::TILE);
        const unsigned long long bad = ndiff(B, B.a, B.ref);
        const double thr = (double)(C::PAIRS < BLOCK ? C::PAIRS : BLOCK); // threads that own digit pairs
        printf("  diag %2d-bit %3dx%-2d %s: look-back windows (%d tiles) read per thread beyond the first: %.2f "
               "(run %d, output %s)\n",
               BITS, BLOCK, ITEMS, rk, (FL & 32) ? 8 : ((FL & 64) ? 2 : 4), rounds / (tiles * thr), r, bad ? "WRONG" : "ok");
    }
    auto t1 = [&] {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        launch_pass<BITS, BLOCK, ITEMS, RANK, MINB, FL | 1>(B, B.keys, B.a, 0, B.base, 0);
    };
    auto t2 = [&] {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        launch_pass<BITS, BLOCK, ITEMS, RANK, MINB, FL | 2>(B, B.keys, B.a, 0, B.base, 0);
    };
    auto t3 = [&] {
        CK(cudaMemsetAsync(B.tickets, 0, 32, g_s));
        launch_pass<BITS, BLOCK, ITEMS, RANK, MINB, FL | 3>(B, B.keys, B.a, 0, B.base, 0);
    };
    snprintf(name, sizeof name, "diag %2d-bit %3dx%-2d %s: no look-back wait", BITS, BLOCK, ITEMS, rk);
    add_row(name, time_median(t1), 8.0 * n, "timing only (output invalid)");
    snprintf(name, sizeof name, "diag %2d-bit %3dx%-2d %s: sequential scatter", BITS, BLOCK, ITEMS, rk);
    add_row(name, time_median(t2), 8.0 * n, "timing only (output invalid)");
    snprintf(name, sizeof name, "diag %2d-bit %3dx%-2d %s: both", BITS, BLOCK, ITEMS, rk);
    add_row(name, time_median(t3), 8.0 * n, "timing only (output invalid)");
}

template <int BITS, int BLOCK, int ITEMS, int RANK, int MINB, int FL = 0> static void print_attr()
{
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, pass_kernel<BITS, BLOCK, ITEMS, RANK, MINB, FL>));
    typedef Cfg<BITS, BLOCK, ITEMS> C;
    CK(cudaFuncSetAttribute(pass_kernel<BITS, BLOCK, ITEMS, RANK, MINB, FL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)C::SMEM));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, pass_kernel<BITS, BLOCK, ITEMS, RANK, MINB, FL>, BLOCK, C::SMEM));
    printf("  kernel %2d-bit %3dx%-2d %-6s flags %2d: %3d regs, %5zu B local, smem %6zu B dyn, %d blocks/SM (%d threads)\n", BITS,
           BLOCK, ITEMS, RANK == RANK_MATCH ? "match" : "ballot", FL, fa.numRegs, (size_t)fa.localSizeBytes, C::SMEM, occ,
           occ * BLOCK);
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 28;
    if (argc > 2) g_rep = atoi(argv[2]);
    const size_t n = (size_t)1 << lg;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("onesweep11_probe: %s, %d SMs, L2 %d MiB, n = 2^%d u32, median of %d\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, lg, g_rep);
    CK(cudaStreamCreate(&g_s));
    Bufs B;
    B.n = n;
    CK(cudaMalloc(&B.keys, n * 4));
    CK(cudaMalloc(&B.a, n * 4));
    CK(cudaMalloc(&B.b, n * 4));
    CK(cudaMalloc(&B.ref, n * 4));
    CK(cudaMalloc(&B.valt, n * 4));
    CK(cudaMalloc(&B.hist, 5120 * 4));
    CK(cudaMalloc(&B.base, 5120 * 4));
    B.status_words = (n / 4096 + 2) * 1024; // smallest tile 4096 keys, 1024 pairs
    CK(cudaMalloc(&B.status, B.status_words * 8));
    CK(cudaMalloc(&B.tickets, 64));
    CK(cudaMalloc(&B.bad, 8));
    CK(cudaMalloc(&B.stats, 8));
    gen_keys<<<4096, 256, 0, g_s>>>(B.keys, n, 12345u);
    CK(cudaGetLastError());

    // CUB temp storage: the largest of what the calls below need.
    {
        size_t t1 = 0, t2 = 0, t3 = 0;
        cub::DoubleBuffer<uint32_t> kb(B.a, B.b), vb(B.ref, B.ref);
        CK(cub::DeviceRadixSort::SortKeys(nullptr, t1, B.keys, B.a, n, 0, 32, g_s));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, t2, kb, vb, n, 0, 32, g_s));
        CK(cub::DeviceRadixSort::SortKeys(nullptr, t3, kb, n, 0, 32, g_s));
        B.cub_temp_bytes = std::max(t1, std::max(t2, t3));
        CK(cudaMalloc(&B.cub_temp, B.cub_temp_bytes));
    }

    printf("\nkernel resources (flags 16: early look-back, +32: window 8, +64: window 2):\n");
    print_attr<11, 384, 24, RANK_BALLOT, 2>();
    print_attr<11, 384, 16, RANK_BALLOT, 3, 16>();
    print_attr<11, 384, 24, RANK_BALLOT, 2, 16>();
    print_attr<11, 512, 16, RANK_BALLOT, 2, 16>();
    print_attr<11, 384, 24, RANK_BALLOT, 2, 16 | 64>();
    print_attr<8, 384, 24, RANK_BALLOT, 2>();
    print_attr<8, 384, 16, RANK_BALLOT, 3, 16>();
    print_attr<8, 384, 24, RANK_BALLOT, 2, 16>();
    print_attr<8, 384, 24, RANK_BALLOT, 2, 16 | 32>();
    printf("\ntimes:\n");
    g_copy_ms = time_median([&] { CK(cudaMemcpyAsync(B.a, B.keys, n * 4, cudaMemcpyDeviceToDevice, g_s)); });
    add_row("cudaMemcpyAsync D2D (copy ceiling)", g_copy_ms, 8.0 * n, "-");

    // CUB, full 32 bits
    double cub_keys_db, cub_keys_io, cub_pairs_db;
    {
        size_t tb = B.cub_temp_bytes;
        cub::DoubleBuffer<uint32_t> kb(B.a, B.b);
        // DoubleBuffer form (what bench/cub_compare.cu times): restore the input first (untimed)
        cub_keys_db = time_median_after(
            [&] {
                CK(cudaMemcpyAsync(B.a, B.keys, n * 4, cudaMemcpyDeviceToDevice, g_s));
                kb.selector = 0;
            },
            [&] { CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb, kb, n, 0, 32, g_s)); });
        add_row("CUB SortKeys u32, DoubleBuffer, 32 bits", cub_keys_db, 4.0 * n + 4 * 8.0 * n, "ok (reference)");
        cub_keys_io = time_median([&] {
            size_t tb2 = B.cub_temp_bytes;
            CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb2, B.keys, B.a, n, 0, 32, g_s));
        });
        add_row("CUB SortKeys u32, in->out, 32 bits", cub_keys_io, 4.0 * n + 4 * 8.0 * n, "ok (reference)");
        // SortPairs u32/u32, DoubleBuffer (values: the keys buffer copy, any data)
        cub::DoubleBuffer<uint32_t> k2(B.a, B.b), v2(B.ref, B.valt);
        cub_pairs_db = time_median_after(
            [&] {
                CK(cudaMemcpyAsync(B.a, B.keys, n * 4, cudaMemcpyDeviceToDevice, g_s));
                CK(cudaMemcpyAsync(B.ref, B.keys, n * 4, cudaMemcpyDeviceToDevice, g_s));
                k2.selector = 0;
                v2.selector = 0;
            },
            [&] { CK(cub::DeviceRadixSort::SortPairs(B.cub_temp, tb, k2, v2, n, 0, 32, g_s)); });
        add_row("CUB SortPairs u32/u32, DoubleBuffer, 32 bits", cub_pairs_db, 8.0 * n + 4 * 16.0 * n, "ok (reference)");
        // CUB one 11-bit and one 8-bit pass (stable sort by bits 0..B-1), for scale
        double c11 = time_median([&] {
            size_t tb2 = B.cub_temp_bytes;
            CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb2, B.keys, B.a, n, 0, 11, g_s));
        });
        add_row("CUB SortKeys bits 0..10 (CUB: 2 passes 8+3 + count)", c11, 4.0 * n + 2 * 8.0 * n, "ok (reference)");
        double c8 = time_median([&] {
            size_t tb2 = B.cub_temp_bytes;
            CK(cub::DeviceRadixSort::SortKeys(B.cub_temp, tb2, B.keys, B.a, n, 0, 8, g_s));
        });
        add_row("CUB SortKeys bits 0..7 (1 pass + count)", c8, 4.0 * n + 8.0 * n, "ok (reference)");
    }

    // count kernels
    double count11 = time_median([&] { run_count<11>(B); });
    add_row("count 11/11/10 (3 histograms, 1 read) + offsets", count11, 4.0 * n, "-");
    double count8 = time_median([&] { run_count<8>(B); });
    add_row("count 8/8/8/8 (4 histograms, 1 read) + offsets", count8, 4.0 * n, "-");

    struct Res {
        const char *name;
        int np;
        Variant v;
    };
    std::vector<Res> res;
    res.push_back({"11-bit 384x24 ballot", 3, run_variant<11, 384, 24, RANK_BALLOT, 2>(B, count11)});
    res.push_back({"11-bit 384x16 ballot E", 3, run_variant<11, 384, 16, RANK_BALLOT, 3, 16>(B, count11)});
    res.push_back({"11-bit 384x24 ballot E", 3, run_variant<11, 384, 24, RANK_BALLOT, 2, 16>(B, count11)});
    res.push_back({"11-bit 512x16 ballot E", 3, run_variant<11, 512, 16, RANK_BALLOT, 2, 16>(B, count11)});
    res.push_back({"11-bit 384x24 ballot E w2", 3, run_variant<11, 384, 24, RANK_BALLOT, 2, 16 | 64>(B, count11)});
    res.push_back({"8-bit 384x24 ballot", 4, run_variant<8, 384, 24, RANK_BALLOT, 2>(B, count8)});
    res.push_back({"8-bit 384x16 ballot E", 4, run_variant<8, 384, 16, RANK_BALLOT, 3, 16>(B, count8)});
    res.push_back({"8-bit 384x24 ballot E", 4, run_variant<8, 384, 24, RANK_BALLOT, 2, 16>(B, count8)});
    res.push_back({"8-bit 384x24 ballot E w8", 4, run_variant<8, 384, 24, RANK_BALLOT, 2, 16 | 32>(B, count8)});

    printf("\ndiagnostics (same pass kernel, parts removed):\n");
    run_ablation<11, 384, 24, RANK_BALLOT, 2, 16>(B, 11);
    run_ablation<8, 384, 24, RANK_BALLOT, 2, 16>(B, 8);

    printf("\nsummary vs CUB SortKeys DoubleBuffer %.3f ms (in->out %.3f ms), copy %.3f ms:\n", cub_keys_db, cub_keys_io,
           g_copy_ms);
    double best8 = -1;
    for (auto &r : res) {
        if (r.v.pass_ms > 0)
            printf("  %-22s pass %.3f ms; projection count + %d x pass = %.3f ms -> %.3fx CUB", r.name, r.v.pass_ms, r.np,
                   r.v.count_ms + r.np * r.v.pass_ms, cub_keys_db / (r.v.count_ms + r.np * r.v.pass_ms));
        else
            printf("  %-22s pass WRONG", r.name);
        if (r.v.sort_ms > 0)
            printf("; measured sort %.3f ms -> %.3fx CUB\n", r.v.sort_ms, cub_keys_db / r.v.sort_ms);
        else
            printf("; sort WRONG\n");
        if (r.np == 4 && r.v.pass_ms > 0 && (best8 < 0 || r.v.pass_ms < best8)) best8 = r.v.pass_ms;
    }
    for (auto &r : res)
        if (r.np == 3 && r.v.pass_ms > 0 && best8 > 0)
            printf("  ratio 11-bit pass / best own 8-bit pass: %-22s %.3f (3 passes win if < 1.333)\n", r.name,
                   r.v.pass_ms / best8);
    return 0;
}
