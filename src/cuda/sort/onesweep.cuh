// The Onesweep kernels of cuda_sort.cu (see the top of that file): the
// per-call control block, count_kernel (all digit counts in one read, and
// the per-pass plan it leaves on the device), pass_kernel (one digit
// position: stable ranking per tile, decoupled look-back per digit,
// scatter) and copy_back_kernel. Internal linkage: included by cuda_sort.cu
// only.
#ifndef PP_CUDA_SORT_ONESWEEP_CUH
#define PP_CUDA_SORT_ONESWEEP_CUH

#include "../device/block_scan.cuh"
#include "../device/memory_order.cuh"
#include "../device/ops.cuh"
#include "../device/sort_keys.cuh"
#include "../device/sort_rank.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"

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

constexpr int kMaxPasses = 8;

// The buffers of a sort: the user's outputs (keys and values), the
// alternate ones in the scratch, the user's inputs (out of place only).
enum Buf : unsigned int { kBufOut = 0, kBufAlt = 1, kBufIn = 2 };

// Device-side control block of one call. ticket, done and nans must be zero
// when the call starts (cudaMemsetAsync); the rest is written by
// count_kernel.
struct SortCtrl {
    unsigned int ticket[kMaxPasses]; // tile tickets of each pass
    unsigned int done;               // count_kernel blocks finished
    unsigned int active[kMaxPasses]; // 0: every key has the same digit, pass skipped;
                                     // else bit 0 set, and bit 1 where some key is a NaN
    unsigned int src_of[kMaxPasses]; // the buffers the pass reads: a Buf
    unsigned int dst_of[kMaxPasses]; // the buffers it writes: a Buf
    unsigned int copy_back;          // the buffers the final copy reads (kBufOut: no copy)
    unsigned int nans;               // 1: some key is a NaN (float keys; blocks of count_kernel)
};

// ---- small device helpers --------------------------------------------------------

// The look-back status words carry their own payload (count and state in
// one 32-bit word) and nothing else is published through them, so relaxed
// accesses (pp_store_relaxed, pp_load_relaxed) suffice: a reader sees either
// 0 or a whole word that some tile published. The 64-bit portion carries
// hold value + 1, so 0 means "not yet".

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

// ---- the counting step ---------------------------------------------------------------

struct CountArgs {
    const void *keys;          // the keys to sort (the input, out of place)
    int out_of_place;          // 1: the passes read the input first, and never write it
    size_t n;
    unsigned long long xmask;
    unsigned long long *hist;  // [passes][256], zero on entry
    unsigned long long *pbase; // [passes][256] exclusive digit offsets, written by the last block
    SortCtrl *ctrl;
    uint32_t *zero;            // look-back status of the first pass, cleared here
    size_t zero_words;         // a multiple of 256 (zero is 256-byte aligned)
    int copies_log2;           // histogram copies in shared memory: 2^copies_log2 (0 .. 5)
};

constexpr int kCountBlock = 1024;

// Each block counts the digits of every pass over its share of the keys in
// shared memory, in 2^copies_log2 copies of the histograms (up to 32, as
// many as the device's shared memory holds; launch_count chooses), laid out
// so that lane l increments word (pass * 256 + digit) * copies + (l mod
// copies): with 32 copies every lane of a warp hits its own bank whatever
// the digits (random digits into 4 copies cost about 3-way bank conflicts),
// so the count runs at the speed of its loads. A block counts fewer than
// 2^31 keys, so 32-bit counters suffice. Then it adds its counts to the
// global 64-bit histograms with atomics. The last block to finish (every
// thread fences after its atomics, then one atomic counts the block done:
// the classic threadfence pattern; the last block fences again and reads
// the histograms from L2) computes for every pass the exclusive digit
// offsets, whether the pass is constant (some digit has all n keys), and
// from that which buffers each pass reads and writes and whether a copy
// back is needed.
// Counts do not depend on the order of the keys, so they hold for every
// pass. Dynamic shared memory: count_smem bytes.
__host__ __device__ constexpr size_t count_smem(int key_bytes, int copies_log2)
{
    return (size_t)key_bytes * kRadix * ((size_t)1 << copies_log2) * sizeof(uint32_t);
}

template <bool FLOAT, typename U> __global__ void __launch_bounds__(kCountBlock) count_kernel(const CountArgs a)
{
    typedef Radix<FLOAT, U> R;
    constexpr int NP = (int)sizeof(U);
    constexpr int PER = 16 / (int)sizeof(U);
    extern __shared__ __align__(16) uint32_t sh[];
    __shared__ unsigned int s_last;
    __shared__ uint64_t s_scan[kCountBlock / 32];
    const int tid = threadIdx.x, lane = tid & 31;
    const int cl = a.copies_log2;
    const int words = NP * kRadix << cl;
    const int copy = lane & ((1 << cl) - 1);
    const U xm = (U)a.xmask;

    for (int i = tid; i < words / 4; i += kCountBlock) ((uint4 *)sh)[i] = make_uint4(0, 0, 0, 0);
    // Clear the first pass's look-back status (the pass kernels run after this
    // kernel has completed).
    {
        uint4 *z = (uint4 *)a.zero;
        for (size_t i = (size_t)blockIdx.x * kCountBlock + tid; i < a.zero_words / 4; i += (size_t)gridDim.x * kCountBlock)
            z[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();

    bool nan = false; // this thread met a NaN key (floats)
    auto count_key = [&](U bits) {
        const U r = R::map(bits, xm);
        if constexpr (FLOAT) nan |= R::is_nan(bits);
#pragma unroll
        for (int p = 0; p < NP; p++) atomicAdd(&sh[((p * kRadix + (int)R::digit(r, 8 * p)) << cl) + copy], 1u);
    };

    const U *keys = (const U *)a.keys;
    const size_t n = a.n;
    // Elements before the first 16-byte boundary, then 16-byte vectors, then
    // the rest (counting does not depend on order).
    const size_t mis = (size_t)((uintptr_t)keys & 15u);
    size_t head = mis ? (16 - mis) / sizeof(U) : 0;
    if (head > n) head = n;
    const size_t nvec = (n - head) / PER;
    const uint4 *vp = (const uint4 *)(keys + head);
    const size_t stride = (size_t)gridDim.x * kCountBlock;
    size_t v = (size_t)blockIdx.x * kCountBlock + tid;
    for (; v + 3 * stride < nvec; v += 4 * stride) {
        uint4 q[4];
#pragma unroll
        for (int u = 0; u < 4; u++) q[u] = __ldcs(vp + v + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            U e[PER];
            memcpy(e, &q[u], 16);
#pragma unroll
            for (int j = 0; j < PER; j++) count_key(e[j]);
        }
    }
    for (; v < nvec; v += stride) {
        const uint4 q = __ldcs(vp + v);
        U e[PER];
        memcpy(e, &q, 16);
#pragma unroll
        for (int j = 0; j < PER; j++) count_key(e[j]);
    }
    if (blockIdx.x == 0) {
        const size_t tail = head + nvec * PER;
        if ((size_t)tid < head) count_key(keys[tid]);
        if (tail + tid < n) count_key(keys[tail + tid]);
    }
    if (__syncthreads_or(nan) && tid == 0) a.ctrl->nans = 1u; // read by the passes, later kernels

    // Merge into the global histograms (the copies read from a rotated
    // start, so that a warp's reads fall in distinct banks).
    for (int i = tid; i < NP * kRadix; i += kCountBlock) {
        uint32_t c = 0;
        const int nc = 1 << cl;
        for (int k = 0; k < nc; k++) c += sh[(i << cl) + ((k + lane) & (nc - 1))];
        if (c) atomicAdd(&a.hist[i], (unsigned long long)c);
    }

    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(&a.ctrl->done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();

    const int d = tid; // digits: threads below kRadix
    // Every block stored its NaN flag before it counted itself done.
    const unsigned int run = FLOAT && __ldcg(&a.ctrl->nans) ? 3u : 1u;
    for (int p = 0; p < NP; p++) {
        const uint64_t tot = d < kRadix ? __ldcg(&a.hist[p * kRadix + d]) : 0;
        const int constant = __syncthreads_or(d < kRadix && tot == (uint64_t)n);
        uint64_t all;
        const uint64_t ex = pp_block_exclusive<uint64_t, Op_sum, kCountBlock>(tot, &all, s_scan);
        if (d < kRadix) a.pbase[p * kRadix + d] = ex;
        if (tid == 0) a.ctrl->active[p] = constant ? 0u : run;
        // (pp_block_exclusive ends with a barrier: s_scan is free for the next pass)
    }
    if (tid == 0) {
        // One rule places every pass. Active pass r (counted from 0) writes
        // the user's output where end - r is odd and the alternate buffers
        // where it is even, end being the number of active passes out of
        // place (the last one writes the output) and 0 in place (the first
        // writes the alternates, so the passes alternate from the user's
        // buffers). Each reads what the one before it wrote, the first the
        // input (in place, the output itself). The copy back reads the
        // buffers the last active pass wrote: the alternates after an odd
        // number in place, nothing out of place; the input where no pass ran
        // out of place (every key equal).
        unsigned int total = 0;
        for (int p = 0; p < NP; p++) total += a.ctrl->active[p] != 0;
        const unsigned int end = a.out_of_place ? total : 0u;
        unsigned int held = a.out_of_place ? kBufIn : kBufOut, ran = 0;
        for (int p = 0; p < NP; p++) {
            a.ctrl->src_of[p] = held;
            a.ctrl->dst_of[p] = (end - ran) & 1u ? kBufOut : kBufAlt;
            if (a.ctrl->active[p]) held = a.ctrl->dst_of[p], ran++;
        }
        a.ctrl->copy_back = held;
    }
}

// ---- one Onesweep pass -------------------------------------------------------------

// Tile shape. Keys alone of up to 4 bytes: 320 threads (10 warps) x 24
// keys, three blocks per SM; 30 warps per SM leave 64 registers a thread
// (384 threads x 20 keys, CUB's shape, leave 56 and spill more), the
// ranking's ballots issued two items ahead. Otherwise: 384 threads (12
// warps), two blocks per SM (80 registers), every item's ballots first, 20
// keys per thread with values, 16 for 8-byte keys alone and 14 for 8-byte
// keys with values (on an H100, 8-byte keys alone at 2^28: 14 -> 16 keys
// 16.84 -> 16.29 ms, while u64 pairs lost 5% at 16); fewer where the
// staging area would pass 48 KiB. Keys and then values are staged in the
// same area (one at a time), so a tile takes less than 64 KiB of shared
// memory and fits every GPU from sm_75 on. (bench/RESULTS.md: these
// against other shapes.)
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
    // Two copies for keys alone of up to 4 bytes (on an H100, u32 keys 2^28
    // 5.78 -> 5.43 ms, 2^30 20.97 -> 20.00); one, counted in place, for the
    // others, where two lost up to 3% (f32 pairs 2^28 8.98 -> 9.16-9.23) or
    // changed nothing (bench/RESULTS.md).
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
    // pairs with staged digits: kernels 14-22% smaller, fewer instruction
    // fetch stalls and global stores queued at once; on an H100, u32 keys
    // 2^28 5.18-5.23 -> 4.99 ms, 2^24 0.390-0.393 -> 0.368; u32 pairs 2^24
    // 0.641-0.643 -> 0.625-0.634, f32 pairs 2^28 9.09 -> 8.77-8.82), fully
    // where the digits are in registers (unrolled by 2 or 4 they would be
    // indexed at run time and live in local memory: 5-7% slower).
    static constexpr bool DIG_FITS = OFF_DIG + (size_t)TILE <= 64 * 1024; // a byte per position at OFF_DIG
    static constexpr bool DIGITS_STAGED = VB && DIG_FITS;
    static constexpr int WRITE_UNROLL = VB && !DIGITS_STAGED ? ITEMS : 2;
    // Float keys alone: the ranking stages each key's digit (a byte at its
    // sorted position, in the same area), and write_keys reads it instead of
    // mapping the key again (on an H200, f32 keys 2^24 0.415 -> 0.392 ms,
    // 2^28 5.17 -> 5.00). Integer keys keep recomputing it: their map is one
    // XOR.
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
    int pass, npass;
    unsigned int tiles_per_portion;
    unsigned int tiles;
    int wide; // 1: n > 2^32, destination indices need 64 bits
};

// Tiles a look-back reads per round trip (per digit): with one, a walk of L
// tiles costs L dependent L2 round trips, and walks are long (while a tile
// walks, many later tiles start and publish only aggregates). Measured on an
// H200, 2^28 u32 keys: windows of 1, 4, 8, 16 tiles gave 7.25, 6.51, 6.40,
// 6.51 ms with 18 keys per thread.
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
// in od).
template <bool FLOAT, bool NANS, typename U, typename V, bool FULL, bool WIDE>
__device__ __forceinline__ void write_keys(unsigned char *smem, int count, U xm, int shift, U *dst,
                                           Digits<PassCfg<FLOAT, U, V>::ITEMS> &od)
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
            else d = R::digit(R::map(key, xm), shift);
            dst[dest_of<FLOAT, U, V, WIDE>(smem, d, j)] = key;
            if constexpr (C::DIGITS_STAGED) dig[j] = (unsigned char)d;
            else if constexpr (VInfo<V>::has) od.set(k, d);
        }
    }
}

// Writes the staged values to the destinations of the keys at the same
// sorted positions (digits from write_keys).
template <bool FLOAT, typename U, typename V, bool FULL, bool WIDE>
__device__ __forceinline__ void write_values(const unsigned char *smem, int count, V *dstv,
                                             const Digits<PassCfg<FLOAT, U, V>::ITEMS> &od)
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
            dstv[dest_of<FLOAT, U, V, WIDE>(smem, d, j)] = sv[j];
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

template <bool FLOAT, bool NANS, typename U, typename V, bool FULL>
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
    const U xm = (U)a.xmask;
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
    for (int i = 0; i < ITEMS; i++) dg.set(i, R::digit(R::map(k.get(i), xm), shift));
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
    if (a.wide) write_keys<FLOAT, NANS, U, V, FULL, true>(smem, count, xm, shift, dst, od);
    else write_keys<FLOAT, NANS, U, V, FULL, false>(smem, count, xm, shift, dst, od);
    if constexpr (VInfo<V>::has) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (FULL || 32 * i < lim) sv[(rp[i / 2] >> (16 * (i % 2))) & 0xffffu] = v[i];
        __syncthreads();
        if (a.wide) write_values<FLOAT, U, V, FULL, true>(smem, count, dstv, od);
        else write_values<FLOAT, U, V, FULL, false>(smem, count, dstv, od);
    }
}

// One pass over digit a.pass. Every block first clears its row of the next
// pass's look-back status: those rows were last used by the pass before this
// one, which has completed (kernels on one stream run in order), and the next
// pass starts only after this one completes; so each pass finds its rows
// zero without a memset, and two sets of rows serve all passes. Then, if
// count_kernel found the digit constant, the block exits (the pass is
// skipped; the device-side src_of and dst_of already account for it, and no block of
// the pass takes a ticket). Otherwise the block takes a ticket (tiles are
// numbered in the order blocks start), counts its tile's digits, publishes
// per digit its count, ranks the tile stably, then publishes per digit its
// inclusive count within the portion
// (decoupled look-back; the portion's start comes from the carry chain), and
// scatters keys (and values): within the tile by stable rank, across tiles
// by the counts of the digit in all earlier tiles, so equal digits keep
// input order across the whole array, i.e. the pass is stable.
// Memory ordering: a status word or carry holds its payload and its state
// in one aligned word, written and read with strong (relaxed, gpu-scope)
// accesses, and nothing else is communicated through it, so a reader that
// sees a non-zero word sees the complete value; no fence is needed.
// SPLIT (float keys): the kernel also holds a tile body without the NaN
// check, taken when count_kernel found no NaN (see cuda_sort.cu for when the
// host launches it).
template <bool FLOAT, typename U, typename V, bool SPLIT>
__global__ void __launch_bounds__(PassCfg<FLOAT, U, V>::BLOCK, PassCfg<FLOAT, U, V>::MIN_BLOCKS)
    pass_kernel(const PassArgs a)
{
    typedef PassCfg<FLOAT, U, V> C;
    extern __shared__ __align__(16) unsigned char smem[];
    const int tid = threadIdx.x;
    if (a.next_status != NULL && tid < kRadix) a.next_status[(size_t)blockIdx.x * kRadix + tid] = 0;
    const unsigned int act = a.ctrl->active[a.pass]; // the same for every thread
    if (!act) return;
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    if (tid == 0) misc[8] = atomicAdd(&a.ctrl->ticket[a.pass], 1u);
    // the counters of the tile's digit counting (pass_tile, step 1)
    uint32_t *const zero = C::COUNT_PARTS > 1 ? (uint32_t *)(smem + C::OFF_STAGE) : cnt;
    for (int i = tid; i < C::WARPS * kRadix * C::COUNT_PARTS; i += C::BLOCK) zero[i] = 0;
    const unsigned int from = a.ctrl->src_of[a.pass], to = a.ctrl->dst_of[a.pass];
    const U *src = (const U *)(from == kBufIn ? a.in_keys : from == kBufAlt ? a.alt_keys : a.keys);
    U *dst = (U *)(to == kBufAlt ? a.alt_keys : a.keys);
    const V *srcv = (const V *)(from == kBufIn ? a.in_vals : from == kBufAlt ? a.alt_vals : a.vals);
    V *dstv = (V *)(to == kBufAlt ? a.alt_vals : a.vals);
    __syncthreads();
    const uint32_t tile = misc[8];
    const size_t left = a.n - (size_t)tile * C::TILE;
    const int count = left < (size_t)C::TILE ? (int)left : C::TILE;
    // Float keys without a NaN (count_kernel's flag, the same for every
    // thread) take the tile body without the NaN check.
    if constexpr (FLOAT && SPLIT) {
        if (!(act & 2u)) {
            if (count == C::TILE) pass_tile<true, false, U, V, true>(a, smem, tile, count, src, dst, srcv, dstv);
            else pass_tile<true, false, U, V, false>(a, smem, tile, count, src, dst, srcv, dstv);
            return;
        }
    }
    if (count == C::TILE) pass_tile<FLOAT, true, U, V, true>(a, smem, tile, count, src, dst, srcv, dstv);
    else pass_tile<FLOAT, true, U, V, false>(a, smem, tile, count, src, dst, srcv, dstv);
}

// ---- final copy ------------------------------------------------------------------------

// A grid-wide copy of a byte range: where dst and src have the same
// address modulo 16 (the alternate buffers are placed so), one head, 16-byte
// vectors and one tail; else (an input copied as is, out of place) bytes.
__device__ __forceinline__ void copy_range(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    if (bytes == 0) return;
    const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    if (((uintptr_t)dst ^ (uintptr_t)src) & 15u) {
        for (size_t i = gt; i < bytes; i += stride) dst[i] = src[i];
        return;
    }
    size_t h = (16 - ((uintptr_t)dst & 15u)) & 15u;
    if (h > bytes) h = bytes;
    const size_t nv = (bytes - h) / 16, t0 = h + nv * 16;
    uint4 *dv = (uint4 *)(dst + h);
    const uint4 *sv = (const uint4 *)(src + h);
    for (size_t i = gt; i < nv; i += stride) dv[i] = __ldcs(sv + i);
    if (gt < h) dst[gt] = src[gt];
    if (t0 + gt < bytes) dst[t0 + gt] = src[t0 + gt];
}

// Copies the buffers the passes left the result in (ctrl->copy_back: the
// alternate ones after an odd number of passes in place, the input where
// no pass ran out of place) into the user's; exits at once otherwise.
__global__ void __launch_bounds__(256) copy_back_kernel(const SortCtrl *ctrl, unsigned char *keys,
                                                         const unsigned char *alt_keys, const unsigned char *in_keys,
                                                         size_t kbytes, unsigned char *vals,
                                                         const unsigned char *alt_vals, const unsigned char *in_vals,
                                                         size_t vbytes)
{
    const unsigned int from = ctrl->copy_back;
    if (from == kBufOut) return;
    copy_range(keys, from == kBufIn ? in_keys : alt_keys, kbytes);
    if (vbytes) copy_range(vals, from == kBufIn ? in_vals : alt_vals, vbytes);
}

} // namespace

#endif
