// One tile of an Onesweep pass (cuda_sort.cu; the kernel is pass_kernel in
// sort/onesweep.cuh): the tile shape and shared-memory layout, the pass's
// arguments, the decoupled look-back over earlier tiles, and pass_tile
// (load, digit counts published early, stable ranking, look-back, scatter of
// keys and values). Internal linkage: included through sort/onesweep.cuh.
#ifndef PP_CUDA_SORT_PASS_TILE_CUH
#define PP_CUDA_SORT_PASS_TILE_CUH

#include "../device/memory_order.cuh"
#include "../device/ops.cuh"
#include "../device/sort_keys.cuh"
#include "../device/sort_rank.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"
#include "count.cuh"

namespace {

// Look-back status word: state in bits 31:30, a count in bits 29:0; 0 means
// "not published yet".
constexpr uint32_t kAgg = 1u << 30;   // the tile's own count of the digit
constexpr uint32_t kIncl = 2u << 30;  // count of the digit in all tiles of the portion up to this one
constexpr uint32_t kValueMask = (1u << 30) - 1;
// Tiles are grouped in portions of fewer than 2^30 keys, so that every
// inclusive count within a portion fits the 30 bits. The look-back stays
// inside a portion; across portions, per pass and digit, the last tile of
// portion k publishes the 64-bit start of portion k + 1 (a "carry").
constexpr uint32_t kPortionLimit = (1u << 30) - 1;

// An identity the optimizer cannot see through: keeps one base register for
// a run of loads at constant offsets (instead of an address per load).
template <typename T> __device__ __forceinline__ T *opaque(T *p)
{
    asm("mov.b64 %0, %0;" : "+l"(p));
    return p;
}

// The same, pinned in program order (volatile): keeps an address from being
// computed early and held in a register across a long stretch of code.
template <typename T> __device__ __forceinline__ T *opaque_here(T *p)
{
    asm volatile("mov.b64 %0, %0;" : "+l"(p));
    return p;
}

// Tile shape. Keys alone of up to 4 bytes: 320 threads (10 warps) x 24
// keys, three blocks per SM; 30 warps per SM leave 64 registers a thread
// (384 threads x 20 keys, CUB's shape, leave 56 and spill more), the
// ranking's ballots issued two items ahead. Otherwise: 384 threads (12
// warps), two blocks per SM (80 registers), every item's ballots first, 20
// keys per thread with values, 16 for 8-byte keys alone and 14 for 8-byte
// keys with values (16 made u64 pairs slower); fewer where the staging
// area would pass 48 KiB. Keys and then values are staged in the same area
// (one at a time), so a tile takes less than 64 KiB of shared memory and
// fits every GPU from sm_75 on. (bench/studies/cuda-sort.md: these against other
// shapes; 8-byte keys in "cuda: out-of-place sorts without a copy; 16 keys
// per thread for 8-byte keys; ...".)
template <bool FLOAT, typename U, typename V> struct PassCfg {
    static constexpr int KB = (int)sizeof(U), VB = VInfo<V>::bytes;
    static constexpr bool LEAN = KB <= 4 && VB == 0; // keys alone, 3 blocks per SM
    static constexpr int BLOCK = LEAN ? 320 : 384, WARPS = BLOCK / 32;
    static constexpr int MIN_BLOCKS = LEAN ? 3 : 2;
    static constexpr int SB = KB > VB ? KB : VB; // bytes per staged item
    static constexpr int IK = KB == 1 && VB == 0 ? 16 : (KB > 4 ? (VB ? 14 : 16) : (LEAN ? 24 : 20));
    static constexpr int FIT = (48 * 1024) / (BLOCK * SB);
    static constexpr int ITEMS = IK < FIT ? IK : FIT;
    static constexpr int RANK_GROUP = LEAN ? 2 : ITEMS; // warp_rank_each's G
    static constexpr int TILE = BLOCK * ITEMS;
    // The tile's digit counting (before the ranking) keeps COUNT_PARTS
    // copies of each warp's counters, interleaved per digit, lane l counting
    // into copy l % COUNT_PARTS: where many keys of a warp share a digit
    // (skewed data: the exponent digit of floats), their shared-memory
    // increments on one word wait for each other, and two copies halve that
    // wait. The copies live in the staging area (unused until the ranking).
    // Two copies for keys alone of up to 4 bytes; one, counted in place, for
    // the others, where two were slower or changed nothing (bench/studies/cuda-sort.md,
    // "cuda sort: NaN-free pass kernels and two-part digit counting").
    static constexpr int COUNT_PARTS = LEAN && (size_t)TILE * SB >= (size_t)WARPS * kRadix * 4 * 2 ? 2 : 1;
    // shared memory: per-warp digit counters, per-digit destination shifts
    // (64-bit, or 32-bit when every index fits), small scratch, the staging
    // area (keys, then values), and with values where it fits the digit of
    // each sorted position (DIGITS_STAGED)
    static constexpr size_t OFF_CNT = 0;
    static constexpr size_t OFF_SHIFT = OFF_CNT + (size_t)WARPS * kRadix * 4;
    static constexpr size_t OFF_MISC = OFF_SHIFT + (size_t)kRadix * 8;
    static constexpr size_t OFF_STAGE = OFF_MISC + 64;
    static constexpr size_t OFF_DIG = OFF_STAGE + (size_t)TILE * SB;
    // write_keys leaves each key's digit for write_values: in shared memory
    // (a byte per sorted position) where that fits the 64 KiB (every pair
    // but 4-byte or smaller keys with 8-byte values), else in registers
    // (Digits). The item loops of both are unrolled by 2 (keys alone, and
    // pairs with staged digits: smaller kernels, fewer instruction fetch
    // stalls and global stores queued at once), fully where the digits are
    // in registers (unrolled by 2 or 4 they would be indexed at run time and
    // live in local memory). (bench/studies/cuda-sort.md, "cuda sort: the pairs'
    // digits staged in shared memory, write loops unrolled by 2".)
    static constexpr bool DIG_FITS = OFF_DIG + (size_t)TILE <= 64 * 1024; // a byte per position at OFF_DIG
    static constexpr bool DIGITS_STAGED = VB && DIG_FITS;
    static constexpr int WRITE_UNROLL = VB && !DIGITS_STAGED ? ITEMS : 2;
    // Float keys alone: the ranking stages each key's digit (a byte at its
    // sorted position, in the same area), and write_keys reads it instead of
    // mapping the key again (bench/studies/cuda-sort.md, "cuda sort: a float's radix
    // key in one XOR, digits staged by the ranking"). Integer keys keep
    // recomputing it: their map is one XOR.
    static constexpr bool RANK_DIGITS = FLOAT && !VB && DIG_FITS;
    static constexpr size_t SMEM = OFF_DIG + (DIGITS_STAGED || RANK_DIGITS ? (size_t)TILE : 0);
    static_assert(ITEMS >= 1 && TILE <= 65536, "tile shape: ranks are tile positions kept in 16 bits");
    static_assert(SMEM <= 64 * 1024, "pass tile must fit 64 KiB of shared memory");
};

struct PassArgs {
    void *keys, *alt_keys, *vals, *alt_vals;
    const void *in_keys, *in_vals; // out of place: the inputs (else keys, vals)
    size_t n;
    uint32_t *status;      // this pass's look-back rows, zero on entry
    uint32_t *next_status; // the next pass's rows, cleared here (NULL on the last pass)
    const unsigned long long *pbase; // [passes][256] exclusive digit offsets
    unsigned long long *carry;       // this pass's [portions][256] portion starts + 1, zero on entry
    SortCtrl *ctrl;
    unsigned long long xmask;
    int pass;
    int nan_key; // with xmask, the KeyMap of Radix::map
    unsigned int tiles_per_portion;
    unsigned int tiles;
    int wide; // 1: n > 2^32, destination indices need 64 bits
};

// Tiles a look-back reads per round trip (per digit): with one, a walk of L
// tiles costs L dependent L2 round trips, and walks are long (while a tile
// walks, many later tiles start and publish only aggregates). 8 against 1,
// 4 and 16: bench/studies/cuda-overall.md, "cuda backend against CUB — 2026-11-21
// (third run, after the sort look-back change)".
constexpr int kLookbackWindow = 8;

// Look-back for digit d of tile `tile` (not the first of its portion): walks
// to earlier tiles, kLookbackWindow at a time (a window's words are read
// together, then used in order up to the first one not yet published), adding
// aggregates, until a tile's inclusive count; returns
// the count of the digit in the portion's earlier tiles. The first tile of
// each portion publishes an inclusive count at once, so the walk never leaves
// the portion. Progress: tiles are numbered by a ticket taken when the block
// starts, so every tile waited on is running (or done) and publishes without
// waiting for later tiles.
__device__ __forceinline__ uint32_t lookback(const uint32_t *status, uint32_t tile, int d)
{
    constexpr int K = kLookbackWindow;
    uint32_t sum = 0;
    long long t = (long long)tile - 1; // next tile to read; t >= 0
    for (;;) {
        uint32_t w[K];
#pragma unroll
        for (int j = 0; j < K; j++) w[j] = t - j >= 0 ? pp_load_relaxed(status + (size_t)(t - j) * kRadix + d) : kIncl;
        int j = 0;
        bool done = false;
#pragma unroll
        for (; j < K; j++) {
            if (w[j] == 0) break;
            sum += w[j] & kValueMask;
            if (w[j] & kIncl) {
                done = true;
                break;
            }
        }
        if (done) return sum;
        t -= j;
    }
}

// Destination of sorted position j of the tile: shift[digit] + j, so that
// consecutive threads write consecutive addresses within each digit's run.
template <bool FLOAT, typename U, typename V, bool WIDE>
__device__ __forceinline__ size_t dest_of(const unsigned char *smem, uint32_t d, int j)
{
    typedef PassCfg<FLOAT, U, V> C;
    if constexpr (WIDE) return (size_t)((const unsigned long long *)(smem + C::OFF_SHIFT))[d] + (size_t)j;
    else return (uint32_t)(((const uint32_t *)(smem + C::OFF_SHIFT))[d] + (uint32_t)j);
}

// Writes the tile's staged keys (sorted position j = k * BLOCK + tid, those
// below count), their digits recomputed or, with RANK_DIGITS, read from
// OFF_DIG; with values, records the digits (in shared memory at OFF_DIG, or
// in od). GUARD: destinations from lim on are not written (the segmented
// sort, where bad offsets can make segments overlap, so that a tile's keys
// need not match the counts its destinations come from).
template <bool FLOAT, bool NANS, typename U, typename V, bool FULL, bool WIDE, bool GUARD>
__device__ __forceinline__ void write_keys(unsigned char *smem, int count, U xm, U nk, int shift, U *dst,
                                           Digits<PassCfg<FLOAT, U, V>::ITEMS> &od, size_t lim)
{
    typedef PassCfg<FLOAT, U, V> C;
    typedef Radix<FLOAT, U, NANS> R;
    const U *sk = (const U *)(smem + C::OFF_STAGE);
    unsigned char *const dig = smem + C::OFF_DIG;
#pragma unroll C::WRITE_UNROLL
    for (int k = 0; k < C::ITEMS; k++) {
        const int j = k * C::BLOCK + threadIdx.x;
        if (FULL || j < count) {
            const U key = sk[j];
            uint32_t d;
            if constexpr (C::RANK_DIGITS) d = dig[j];
            else d = R::digit(R::map(key, xm, nk), shift);
            const size_t at = dest_of<FLOAT, U, V, WIDE>(smem, d, j);
            if (!GUARD || at < lim) dst[at] = key;
            if constexpr (C::DIGITS_STAGED) dig[j] = (unsigned char)d;
            else if constexpr (VInfo<V>::has) od.set(k, d);
        }
    }
}

// Writes the staged values to the destinations of the keys at the same
// sorted positions (digits from write_keys; GUARD and lim as there).
template <bool FLOAT, typename U, typename V, bool FULL, bool WIDE, bool GUARD>
__device__ __forceinline__ void write_values(const unsigned char *smem, int count, V *dstv,
                                             const Digits<PassCfg<FLOAT, U, V>::ITEMS> &od, size_t lim)
{
    typedef PassCfg<FLOAT, U, V> C;
    const V *sv = (const V *)(smem + C::OFF_STAGE);
    const unsigned char *const dig = smem + C::OFF_DIG;
#pragma unroll C::WRITE_UNROLL
    for (int k = 0; k < C::ITEMS; k++) {
        const int j = k * C::BLOCK + threadIdx.x;
        if (FULL || j < count) {
            uint32_t d;
            if constexpr (C::DIGITS_STAGED) d = dig[j];
            else d = od.get(k);
            const size_t at = dest_of<FLOAT, U, V, WIDE>(smem, d, j);
            if (!GUARD || at < lim) dstv[at] = sv[j];
        }
    }
}

// Loads the thread's items (item i is key 32 i of p; it exists if 32 i < lim).
template <typename U, int ITEMS, bool FULL>
__device__ __forceinline__ void load_keys(KeyRegs<U, ITEMS> &k, const U *p, int lim)
{
    const U *ps = opaque(p);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) k.set(i, (FULL || 32 * i < lim) ? ps[32 * i] : (U)0);
}

// GUARD (the segmented sort): no destination from a.n on is written.
template <bool FLOAT, bool NANS, typename U, typename V, bool FULL, bool GUARD = false>
__device__ __forceinline__ void pass_tile(const PassArgs &a, unsigned char *smem, uint32_t tile, int count, const U *src,
                                          U *dst, const V *srcv, V *dstv)
{
    typedef PassCfg<FLOAT, U, V> C;
    typedef Radix<FLOAT, U, NANS> R;
    constexpr int ITEMS = C::ITEMS;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *wc = cnt + warp * kRadix;
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    U *sk = (U *)(smem + C::OFF_STAGE);
    V *sv = (V *)(smem + C::OFF_STAGE);
    const U xm = (U)a.xmask, nk = (U)a.nan_key;
    const int shift = 8 * a.pass;
    const size_t start = (size_t)tile * C::TILE;
    const int wfirst = warp * 32 * ITEMS;
    // Item i of this thread is key wfirst + 32 i + lane of the tile; it exists
    // if 32 i < lim.
    const int lim = count - wfirst - lane;
    const size_t mine = start + (size_t)(wfirst + lane);

    // 1. Load (coalesced: item i of the warp is 32 consecutive keys) and
    // count the digits of each warp's keys (one shared-memory reduction per
    // key), before ranking: the tile's counts go out as early as possible.
    Digits<ITEMS> dg;
    KeyRegs<U, ITEMS> k;
    load_keys<U, ITEMS, FULL>(k, src + mine, lim);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) dg.set(i, R::digit(R::map(k.get(i), xm, nk), shift));
    constexpr int P = C::COUNT_PARTS;
    uint32_t *const parts = P > 1 ? (uint32_t *)(smem + C::OFF_STAGE) : cnt; // zeroed by pass_kernel
    {
        uint32_t *const pc = parts + (size_t)warp * kRadix * P + (lane & (P - 1));
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (FULL || 32 * i < lim) shared_increment(pc + dg.get(i) * P);
    }
    __syncthreads();

    // 2. Per digit: the tile's count, published at once (the first tile of a
    // portion publishes it as its inclusive count); the tile's exclusive
    // digit offsets (a scan over the 256 digits by warps 0-7); each warp's
    // counter of each digit becomes the tile position of its first key.
    const uint32_t tpp = a.tiles_per_portion;
    const bool first = tile % tpp == 0;
    uint32_t *row = a.status + (size_t)tile * kRadix;
    uint32_t total = 0, excl = 0;
    if (tid < kRadix) {
        total = column_scan<C::WARPS, P>(parts, cnt, tid);
        pp_store_relaxed(row + tid, (first ? kIncl : kAgg) | total);
        const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(total);
        if (lane == 31) misc[warp] = inc;
        excl = inc - total;
    }
    __syncthreads();
    if (tid < kRadix) {
        for (int w = 0; w < warp; w++) excl += misc[w];
#pragma unroll
        for (int w = 0; w < C::WARPS; w++) cnt[w * kRadix + tid] += excl;
    }
    __syncthreads();

    // 3. Stable ranking within the warp, counting on from those positions:
    // each rank is the key's position in the tile; the keys are staged there
    // (in digit order). The ranks (< 2^16) are kept two to a register for
    // the values.
    [[maybe_unused]] uint32_t rp[(ITEMS + 1) / 2];
    warp_rank_each<ITEMS, FULL, C::RANK_GROUP>(
        dg, wc, count - wfirst, [&](int i, uint32_t r) {
            if (FULL || 32 * i < lim) {
                sk[r] = k.get(i);
                if constexpr (C::RANK_DIGITS) smem[C::OFF_DIG + r] = (unsigned char)dg.get(i);
            }
            if constexpr (VInfo<V>::has) {
                if (i % 2 == 0) rp[i / 2] = r & 0xffffu;
                else rp[i / 2] |= r << 16;
            }
        });
    // 4. Look-back per digit (threads 0-255), then the destination shift of
    // each digit: global start of the digit's keys of this tile minus its
    // start within the tile. The global start is the portion's start of the
    // digit (the pass's digit offset for portion 0, else the carry published
    // by the previous portion's last tile; waiting for it is safe for the
    // same reason as the look-back) plus the look-back's count. The last tile
    // of a portion publishes the next portion's start.
    if (tid < kRadix) {
        uint32_t ex = 0;
        if (!first) {
            ex = lookback(a.status, tile, tid);
            pp_store_relaxed(row + tid, kIncl | (ex + total));
        }
        const uint32_t portion = tile / tpp;
        unsigned long long base;
        if (portion == 0) {
            base = opaque_here(a.pbase)[a.pass * kRadix + tid];
        } else {
            const unsigned long long *c = a.carry + (size_t)portion * kRadix + tid;
            unsigned long long w;
            while ((w = pp_load_relaxed64(c)) == 0) {
            }
            base = w - 1;
        }
        if (tile + 1 - portion * tpp == tpp && tile + 1 < a.tiles)
            pp_store_relaxed64(a.carry + (size_t)(portion + 1) * kRadix + tid, base + ex + total + 1);
        const unsigned long long sh = base + ex - excl;
        if (a.wide) ((unsigned long long *)(smem + C::OFF_SHIFT))[tid] = sh;
        else ((uint32_t *)(smem + C::OFF_SHIFT))[tid] = (uint32_t)sh;
    }
    __syncthreads();

    // 5. Scatter to global memory. Values: loaded now (their latency is
    // hidden behind the keys' writes), staged by the same ranks once every
    // key has left the staging area, then written to the keys' destinations.
    [[maybe_unused]] V v[VInfo<V>::has ? ITEMS : 1];
    if constexpr (VInfo<V>::has) {
        const V *pv = opaque(srcv + mine);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = (FULL || 32 * i < lim) ? pv[32 * i] : (V)0;
    }
    Digits<ITEMS> od;
    if (a.wide) write_keys<FLOAT, NANS, U, V, FULL, true, GUARD>(smem, count, xm, nk, shift, dst, od, a.n);
    else write_keys<FLOAT, NANS, U, V, FULL, false, GUARD>(smem, count, xm, nk, shift, dst, od, a.n);
    if constexpr (VInfo<V>::has) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (FULL || 32 * i < lim) sv[(rp[i / 2] >> (16 * (i % 2))) & 0xffffu] = v[i];
        __syncthreads();
        if (a.wide) write_values<FLOAT, U, V, FULL, true, GUARD>(smem, count, dstv, od, a.n);
        else write_values<FLOAT, U, V, FULL, false, GUARD>(smem, count, dstv, od, a.n);
    }
}

} // namespace

#endif
