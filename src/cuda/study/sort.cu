// The course notes' sort algorithms on cuda (see cuda_entry.h): two LSD
// radix sorts built on an exclusive scan, as the notes use scan for
// compaction and sorting.
//
//  * PP_ALGO_SPLIT_RADIX: one bit per pass (8 * key size passes). Per pass:
//      1. split_count_kernel: per tile, the number of keys whose bit is 0
//         (warp ballots and popcounts); block 0 also zeroes the slot after
//         the last tile.
//      2. pp_count_scan (device/count_scan.cuh): exclusive scan of the
//         tiles+1 counts, hierarchical (per block scans, a scan of the block
//         totals, a fix-up adding them); the extra slot becomes f, the
//         number of keys whose bit is 0.
//      3. split_scatter_kernel: per tile, the scan is finished: the tile's
//         offset plus the warp prefixes plus the ballot ranks give, for each
//         key i, s = number of keys with bit 0 before i; the key goes to s
//         if its bit is 0, else to f + i - s (stable).
//  * PP_ALGO_COUNT_SCAN_SCATTER: 4-bit digits (2 * key size passes). Per pass:
//      1. css_count_kernel: per tile, a 16-bin histogram of the digit,
//         written digit-major: counts[digit * tiles + tile]; block 0 also
//         zeroes the slot after the last one.
//      2. pp_count_scan over the 16 * tiles + 1 counts (the same
//         hierarchical scan): counts[d * tiles + t] becomes where tile t's keys of digit
//         d start; the last slot becomes n.
//      3. css_scatter_kernel: each warp ranks its keys by digit, item by
//         item in input order (peers found with __match_any_sync, per-warp
//         running counters of each digit in shared memory), the warps'
//         counts are scanned per digit, and each key (and value) is written
//         to counts[d * tiles + t] + its rank in the tile (stable).
//
// Both: the radix key is cuda_sort.cu's (device/sort_keys.cuh), computed on
// the fly; keys and values are moved unchanged. Passes ping-pong between the
// user's buffers and alternate buffers in scratch. A pass whose bit or digit
// is the same in every key (f == 0 or f == n; some digit with n keys) is
// skipped on the device: each scatter kernel reads from the control block
// which buffer holds the data (src[p]), exits at once if its pass is
// constant, and its block 0 writes src[p + 1] (read only by later kernels).
// copy_kernel moves the data back into the user's buffers if it ended in
// the alternate ones. No host synchronization; one cudaMemsetAsync of the
// control block per call.
//
// Indices and offsets are 64-bit (size_t, uint64_t) throughout; counts within
// a tile (2048 keys) are 32-bit.
//
// Memory (one pp_cuda_scratch buffer, carved, 256-byte aligned pieces):
// control block | alternate keys | alternate values | counts | scan levels.
#include "../cuda_state.cuh"
#include "../device/count_scan.cuh"
#include "../device/dispatch.cuh"
#include "../device/ops.cuh"
#include "../device/sort_keys.cuh"
#include "../device/util.cuh"

namespace {

constexpr int kBlock = 256;               // threads of the count and scatter kernels
constexpr int kWarps = kBlock / 32;
constexpr int kItems = 8;                 // keys per thread
constexpr int kWarpKeys = 32 * kItems;    // keys per warp: item i of lane l is key i * 32 + l
constexpr int kTile = kBlock * kItems;    // keys per block (2048)

constexpr int kDigitBits = 4;             // count-scan-scatter digits
constexpr int kDigits = 1 << kDigitBits;

constexpr int kMaxPasses = 64;            // split radix of 64-bit keys

// ---- scratch layout and control ----------------------------------------------------

struct Ctrl {
    uint32_t src[kMaxPasses + 1]; // 1: pass p reads the alternate buffers; src[0] == 0
};

// Arguments of one pass of either algorithm.
struct PassArgs {
    void *keys, *vals;       // the user's buffers
    void *alt_keys, *alt_vals;
    size_t n;
    size_t tiles;
    unsigned long long xmask;
    uint64_t *counts;        // split: tiles + 1; count-scan-scatter: kDigits * tiles + 1
    uint32_t *src;           // Ctrl::src
    int pass;
    int shift;               // lowest bit of the pass's bit or digit
    int nan_key;             // with xmask, the KeyMap of Radix::map
};

// ---- split radix: one bit per pass ---------------------------------------------------

template <bool FLOAT, typename U> __device__ __forceinline__ uint32_t key_bit(U k, U xm, U nk, int shift)
{
    return (uint32_t)((U)(Radix<FLOAT, U>::map(k, xm, nk) >> shift) & 1u);
}

template <bool FLOAT, typename U> __global__ void __launch_bounds__(kBlock) split_count_kernel(const PassArgs a)
{
    __shared__ uint32_t s_zeros[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const U *keys = (const U *)(a.src[a.pass] ? a.alt_keys : a.keys);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const size_t n = a.n;
    const size_t base = (size_t)blockIdx.x * kTile + (size_t)warp * kWarpKeys + lane;
    uint32_t zeros = 0;
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        const bool z = idx < n && key_bit<FLOAT, U>(keys[idx], xm, nk, a.shift) == 0;
        zeros += (uint32_t)__popc(__ballot_sync(0xffffffffu, z));
    }
    if (lane == 0) s_zeros[warp] = zeros;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t t = 0;
#pragma unroll
        for (int w = 0; w < kWarps; w++) t += s_zeros[w];
        a.counts[blockIdx.x] = t;
        if (blockIdx.x == 0) a.counts[a.tiles] = 0; // becomes f after the scan
    }
}

template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(kBlock) split_scatter_kernel(const PassArgs a)
{
    __shared__ uint32_t s_zeros[kWarps];
    __shared__ uint64_t s_f;
    __shared__ uint32_t s_src, s_active;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t n = a.n;
    if (threadIdx.x == 0) {
        const uint64_t f = a.counts[a.tiles];
        const uint32_t src = a.src[a.pass];
        const uint32_t active = f != 0 && f != (uint64_t)n;
        if (blockIdx.x == 0) a.src[a.pass + 1] = src ^ active;
        s_f = f;
        s_src = src;
        s_active = active;
    }
    __syncthreads();
    if (!s_active) return; // the bit is the same in every key: order unchanged
    const uint64_t f = s_f;
    const U *sk = (const U *)(s_src ? a.alt_keys : a.keys);
    U *dk = (U *)(s_src ? a.keys : a.alt_keys);
    [[maybe_unused]] const V *sv = (const V *)(s_src ? a.alt_vals : a.vals);
    [[maybe_unused]] V *dv = (V *)(s_src ? a.vals : a.alt_vals);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const size_t base = (size_t)blockIdx.x * kTile + (size_t)warp * kWarpKeys + lane;

    U k[kItems];
    uint32_t bal[kItems]; // lanes of the warp whose key of item i has bit 0 (same in every lane)
    uint32_t zeros = 0;
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        bool z = false;
        k[i] = (U)0;
        if (idx < n) {
            k[i] = sk[idx];
            z = key_bit<FLOAT, U>(k[i], xm, nk, a.shift) == 0;
        }
        bal[i] = __ballot_sync(0xffffffffu, z);
        zeros += (uint32_t)__popc(bal[i]);
    }
    if (lane == 0) s_zeros[warp] = zeros;
    __syncthreads();
    // s: keys with bit 0 before this warp's current item (exclusive scan value)
    uint64_t s = a.counts[blockIdx.x];
    for (int w = 0; w < warp; w++) s += s_zeros[w];
    const uint32_t lower = (1u << lane) - 1u;
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        if (idx < n) {
            const uint64_t si = s + (uint64_t)__popc(bal[i] & lower);
            const size_t dst = (bal[i] >> lane) & 1u ? (size_t)si : (size_t)(f + (uint64_t)idx - si);
            dk[dst] = k[i];
            if constexpr (VInfo<V>::has) dv[dst] = sv[idx];
        }
        s += (uint64_t)__popc(bal[i]);
    }
}

// ---- count, scan, scatter: 4-bit digits ------------------------------------------------

template <bool FLOAT, typename U> __device__ __forceinline__ uint32_t key_digit(U k, U xm, U nk, int shift)
{
    return (uint32_t)((U)(Radix<FLOAT, U>::map(k, xm, nk) >> shift) & (U)(kDigits - 1));
}

template <bool FLOAT, typename U> __global__ void __launch_bounds__(kBlock) css_count_kernel(const PassArgs a)
{
    __shared__ uint32_t hist[kWarps * kDigits];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const U *keys = (const U *)(a.src[a.pass] ? a.alt_keys : a.keys);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const size_t n = a.n;
    if (threadIdx.x < kWarps * kDigits) hist[threadIdx.x] = 0;
    __syncthreads();
    const size_t base = (size_t)blockIdx.x * kTile + (size_t)warp * kWarpKeys + lane;
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        if (idx < n) atomicAdd(&hist[warp * kDigits + key_digit<FLOAT, U>(keys[idx], xm, nk, a.shift)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < kDigits) {
        uint32_t t = 0;
#pragma unroll
        for (int w = 0; w < kWarps; w++) t += hist[w * kDigits + threadIdx.x];
        a.counts[(size_t)threadIdx.x * a.tiles + blockIdx.x] = t; // digit-major
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) a.counts[(size_t)kDigits * a.tiles] = 0; // becomes n
}

template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(kBlock) css_scatter_kernel(const PassArgs a)
{
    __shared__ uint32_t wcnt[kWarps * kDigits];   // per warp: running count of each digit
    __shared__ uint64_t woff[kWarps * kDigits];   // per warp: where its keys of each digit start
    __shared__ uint32_t s_src, s_active;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t n = a.n;
    const size_t tiles = a.tiles;
    if (threadIdx.x == 0) {
        // Digit d has counts[(d + 1) * tiles] - counts[d * tiles] keys (the
        // last slot holds n); a digit with all n keys makes the pass constant.
        uint32_t active = 1;
        for (int d = 0; d < kDigits; d++)
            if (a.counts[(size_t)(d + 1) * tiles] - a.counts[(size_t)d * tiles] == (uint64_t)n) active = 0;
        const uint32_t src = a.src[a.pass];
        if (blockIdx.x == 0) a.src[a.pass + 1] = src ^ active;
        s_src = src;
        s_active = active;
    }
    if (threadIdx.x < kWarps * kDigits) wcnt[threadIdx.x] = 0;
    __syncthreads();
    if (!s_active) return; // the digit is the same in every key: order unchanged
    const U *sk = (const U *)(s_src ? a.alt_keys : a.keys);
    U *dk = (U *)(s_src ? a.keys : a.alt_keys);
    [[maybe_unused]] const V *sv = (const V *)(s_src ? a.alt_vals : a.vals);
    [[maybe_unused]] V *dv = (V *)(s_src ? a.vals : a.alt_vals);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const size_t base = (size_t)blockIdx.x * kTile + (size_t)warp * kWarpKeys + lane;
    const uint32_t lower = (1u << lane) - 1u;
    uint32_t *cnt = wcnt + warp * kDigits;

    U k[kItems];
    uint32_t dg[kItems], rk[kItems];
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        const bool valid = idx < n;
        k[i] = valid ? sk[idx] : (U)0;
        dg[i] = valid ? key_digit<FLOAT, U>(k[i], xm, nk, a.shift) : (uint32_t)kDigits; // kDigits: no key
    }
    // Stable ranking within the warp, item by item (input order): the lanes
    // with the same digit (peers) take consecutive ranks after the warp's
    // running count of that digit, which their highest lane advances.
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const uint32_t d = dg[i];
        const uint32_t peers = __match_any_sync(0xffffffffu, d);
        const int leader = 31 - __clz(peers);
        uint32_t old = 0;
        if (d < (uint32_t)kDigits && lane == leader) {
            old = cnt[d];
            cnt[d] = old + (uint32_t)__popc(peers);
        }
        old = __shfl_sync(0xffffffffu, old, leader);
        rk[i] = old + (uint32_t)__popc(peers & lower);
        __syncwarp();
    }
    __syncthreads();
    // Per digit: the tile's start from the scan, then the warps in order.
    if (threadIdx.x < kDigits) {
        uint64_t s = a.counts[(size_t)threadIdx.x * tiles + blockIdx.x];
#pragma unroll
        for (int w = 0; w < kWarps; w++) {
            woff[w * kDigits + threadIdx.x] = s;
            s += wcnt[w * kDigits + threadIdx.x];
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kItems; i++) {
        const size_t idx = base + (size_t)i * 32;
        if (idx < n) {
            const size_t dst = (size_t)(woff[warp * kDigits + dg[i]] + rk[i]);
            dk[dst] = k[i];
            if constexpr (VInfo<V>::has) dv[dst] = sv[idx];
        }
    }
}

// ---- copy back -----------------------------------------------------------------------

// Copies src to dst if *flag (the data ended in the alternate buffers).
template <typename T> __global__ void __launch_bounds__(256) copy_kernel(const uint32_t *flag, T *dst, const T *src, size_t n)
{
    if (!*flag) return;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// ---- host side -------------------------------------------------------------------------

// Algorithm ALGO on keys whose bits are U (FLOAT: float keys) with values V.
template <pp_algorithm ALGO, bool FLOAT, typename U, typename V>
static pp_status sort_kv(pp_context *ctx, void *keys, void *vals, size_t n, const KeyMap &km, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    constexpr size_t KB = sizeof(U);
    constexpr size_t VB = (size_t)VInfo<V>::bytes;
    constexpr bool split = ALGO == PP_ALGO_SPLIT_RADIX;
    static_assert(split || ALGO == PP_ALGO_COUNT_SCAN_SCATTER, "not a sort algorithm of study/sort.cu");
    constexpr int passes = split ? (int)(8 * KB) : (int)(8 * KB / kDigitBits);
    constexpr int step = split ? 1 : kDigitBits;
    const size_t tiles = ceil_div(n, kTile);
    if (tiles > 0x7fffffffu) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    const size_t ncounts = (split ? tiles : (size_t)kDigits * tiles) + 1;

    const size_t off_altk = align_up(sizeof(Ctrl), 256);
    const size_t off_altv = align_up(off_altk + n * KB, 256);
    const size_t off_cnt = align_up(off_altv + n * VB, 256);
    const size_t off_work = align_up(off_cnt + ncounts * 8, 256);
    const size_t total = align_up(off_work + pp_count_scan_work(ncounts) * 8, 256);
    char *base = (char *)pp_cuda_scratch(ctx, total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    Ctrl *ctrl = (Ctrl *)base;
    uint64_t *counts = (uint64_t *)(base + off_cnt);
    uint64_t *work = (uint64_t *)(base + off_work);
    PP_CUDA_TRY(ctx, cudaMemsetAsync(ctrl, 0, sizeof(Ctrl), s->stream), fn);

    PassArgs a;
    a.keys = keys;
    a.vals = vals;
    a.alt_keys = base + off_altk;
    a.alt_vals = VB ? base + off_altv : NULL;
    a.n = n;
    a.tiles = tiles;
    a.xmask = km.xmask;
    a.nan_key = km.nan_key;
    a.counts = counts;
    a.src = ctrl->src;
    for (int p = 0; p < passes; p++) {
        a.pass = p;
        a.shift = p * step;
        if constexpr (split) split_count_kernel<FLOAT, U><<<(unsigned)tiles, kBlock, 0, s->stream>>>(a);
        else css_count_kernel<FLOAT, U><<<(unsigned)tiles, kBlock, 0, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
        pp_status st = pp_count_scan(ctx, counts, ncounts, work, fn);
        if (st != PP_SUCCESS) return st;
        if constexpr (split) split_scatter_kernel<FLOAT, U, V><<<(unsigned)tiles, kBlock, 0, s->stream>>>(a);
        else css_scatter_kernel<FLOAT, U, V><<<(unsigned)tiles, kBlock, 0, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    const uint32_t *flag = ctrl->src + passes;
    const unsigned copy_grid = grid_for(ceil_div(n, 256), pp_cuda_resident(s, 8));
    copy_kernel<U><<<copy_grid, 256, 0, s->stream>>>(flag, (U *)keys, (const U *)a.alt_keys, n);
    PP_CUDA_LAUNCHED(ctx, fn);
    if constexpr (VInfo<V>::has) {
        copy_kernel<V><<<copy_grid, 256, 0, s->stream>>>(flag, (V *)vals, (const V *)a.alt_vals, n);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    return PP_SUCCESS;
}

// Keys of type T (sorted by their bits U = pp_traits<T>::bits), values V;
// the key map as in cuda_sort.cu (pp_sort_keymap).
template <pp_algorithm ALGO, typename T, typename V> static pp_status sort_typed(pp_context *ctx, const pp_sort_args *a)
{
    typedef typename pp_traits<T>::bits U;
    constexpr int KIND = pp_traits<T>::kind;
    const KeyMap km = pp_sort_keymap<KIND, U>(a->order);
    return sort_kv<ALGO, KIND == PP_KIND_FLOAT, U, V>(ctx, a->keys, VInfo<V>::has ? a->values : NULL, a->n, km, a->fn);
}

template <pp_algorithm ALGO> pp_status study_sort(pp_context *ctx, const pp_sort_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) {
        return pp_dispatch_values(ctx, a->fn, a->values, a->value_size,
                                  [&](auto v) { return sort_typed<ALGO, decltype(t), decltype(v)>(ctx, a); });
    });
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
pp_status pp_cuda_study_sort_split_radix(pp_context *ctx, const pp_sort_args *a)
{
    return study_sort<PP_ALGO_SPLIT_RADIX>(ctx, a);
}
pp_status pp_cuda_study_sort_count_scan_scatter(pp_context *ctx, const pp_sort_args *a)
{
    return study_sort<PP_ALGO_COUNT_SCAN_SCATTER>(ctx, a);
}
