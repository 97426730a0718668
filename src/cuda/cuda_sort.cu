// cuda sort: stable LSD radix sort with 8-bit digits, after Onesweep
// (Adinets and Merrill, 2022, "Onesweep: a faster least significant digit
// radix sort for GPUs").
//
// Radix keys are computed on the fly and keys are moved unchanged (so NaN
// payloads survive): unsigned as is; signed: sign bit flipped; floats: every
// NaN -> all ones (after +inf), negative -> all bits flipped, else the sign
// bit flipped (-0.0 < +0.0); descending: all bits of the radix key flipped.
// For integers the whole map is one XOR with a mask computed on the host.
//
// Paths (chosen on the host from n and the types only, never from the data):
//  * n <= SmallCfg::CAP: one block sorts everything in shared memory, every
//    pass, one launch (small_kernel).
//  * 8-bit integer keys without values: count_kernel, then fill_kernel
//    rewrites the runs (a key is its digit; rewriting equals moving).
//  * otherwise Onesweep:
//      1. count_kernel reads every key once and counts all digit positions
//         (shared-memory histograms, merged into global ones with atomics);
//         its last block turns the counts into per-pass digit offsets, marks
//         the passes whose digit is the same for every key, and decides on
//         the device which buffer each pass reads.
//      2. one pass_kernel launch per digit position, each one kernel over
//         tiles: stable ranking of the tile's keys by digit, decoupled
//         look-back across tiles per digit, scatter through shared memory.
//         A pass whose digit is constant exits at once (a device-side flag),
//         so no host synchronization is ever needed.
//      3. copy_back_kernel moves the data from the alternate buffers into the
//         user's if an odd number of passes ran (else it exits at once).
//
// Memory: everything comes from pp_cuda_scratch (one buffer, carved): the
// control block, histograms, portion carries, digit offsets, two rows of
// look-back status per tile (one set for even passes, one for odd), the
// alternate keys and values. One small cudaMemsetAsync per call clears the
// control block, histograms and carries; the status rows are cleared inside
// the kernels (see pass_kernel).
#include "cuda_internal.cuh"
#include "cuda_sort_keys.cuh"

namespace {

constexpr int kRadix = 256;

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

// Device-side control block of one call. ticket and done must be zero when
// the call starts (cudaMemsetAsync); the rest is written by count_kernel.
struct SortCtrl {
    unsigned int ticket[kMaxPasses]; // tile tickets of each pass
    unsigned int done;               // count_kernel blocks finished
    unsigned int active[kMaxPasses]; // 0: every key has the same digit, pass skipped
    unsigned int src_alt[kMaxPasses];// 1: the pass reads the alternate buffers
    unsigned int copy_back;          // 1: the result ended in the alternate buffers
};

// ---- small device helpers --------------------------------------------------------

// The look-back status words carry their own payload (count and state in
// one 32-bit word) and nothing else is published through them, so relaxed
// accesses (pp_store_relaxed, pp_load_relaxed) suffice: a reader sees either
// 0 or a whole word that some tile published. The 64-bit portion carries
// hold value + 1, so 0 means "not yet".

// Streaming load (each key is read once per pass).
template <typename T> __device__ __forceinline__ T ld_stream(const T *p)
{
    if constexpr (sizeof(T) == 1) return (T)__ldcs((const unsigned char *)p);
    else if constexpr (sizeof(T) == 2) return (T)__ldcs((const unsigned short *)p);
    else if constexpr (sizeof(T) == 4) return (T)__ldcs((const unsigned int *)p);
    else return (T)__ldcs((const unsigned long long *)p);
}

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

// Value types: NoValue for keys only.
struct NoValue {
    unsigned char unused;
};
template <typename V> struct VInfo {
    static constexpr bool has = true;
    static constexpr int bytes = (int)sizeof(V);
};
template <> struct VInfo<NoValue> {
    static constexpr bool has = false;
    static constexpr int bytes = 0;
};

constexpr size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

// ---- stable ranking within a warp ---------------------------------------------------

// The digits of a thread's ITEMS keys, four to a register (indices are known
// at compile time in the unrolled loops, so get and set are bit-field ops).
template <int ITEMS> struct Digits {
    uint32_t w[(ITEMS + 3) / 4];
    __device__ __forceinline__ void set(int i, uint32_t d)
    {
        if (i % 4 == 0) w[i / 4] = d;
        else w[i / 4] |= d << (8 * (i % 4));
    }
    __device__ __forceinline__ uint32_t get(int i) const { return (w[i / 4] >> (8 * (i % 4))) & 255u; }
};

// Lanes of the warp whose word w has the same value as this lane's at the
// bit(s) of `bit`: a ballot of the bit, inverted in the lanes where the bit
// is clear. All 32 lanes must call it.
__device__ __forceinline__ unsigned same_bit(uint32_t w, uint32_t bit)
{
    unsigned r;
    asm volatile("{\n\t.reg .pred q;\n\t"
                 "and.b32 %0, %1, %2;\n\t"
                 "setp.ne.u32 q, %0, 0;\n\t"
                 "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t"
                 "@!q not.b32 %0, %0;\n\t}"
                 : "=r"(r)
                 : "r"(w), "r"(bit));
    return r;
}

// *p += v by the lanes where `leader` is set, returning the old value there
// (0 elsewhere): one predicated shared-memory atomic instead of a branch.
__device__ __forceinline__ uint32_t leader_add(uint32_t *p, uint32_t v, bool leader)
{
    uint32_t old;
    asm volatile("{\n\t.reg .pred q;\n\t"
                 "setp.ne.u32 q, %3, 0;\n\t"
                 "mov.u32 %0, 0;\n\t"
                 "@q atom.shared.add.u32 %0, [%1], %2;\n\t}"
                 : "=r"(old)
                 : "r"((uint32_t)__cvta_generic_to_shared(p)), "r"(v), "r"((uint32_t)leader)
                 : "memory");
    return old;
}

// A thread's ITEMS keys; keys of 1 or 2 bytes are kept packed in 32-bit
// registers (get/set with compile-time indices become bit-field ops).
template <typename U, int ITEMS, bool SMALL = (sizeof(U) < 4)> struct KeyRegs {
    U r[ITEMS];
    __device__ __forceinline__ U get(int i) const { return r[i]; }
    __device__ __forceinline__ void set(int i, U v) { r[i] = v; }
};
template <typename U, int ITEMS> struct KeyRegs<U, ITEMS, true> {
    static constexpr int PER = 4 / (int)sizeof(U);
    uint32_t w[(ITEMS + PER - 1) / PER];
    __device__ __forceinline__ U get(int i) const { return (U)(w[i / PER] >> (8 * (int)sizeof(U) * (i % PER))); }
    __device__ __forceinline__ void set(int i, U v)
    {
        if (i % PER == 0) w[i / PER] = (uint32_t)v;
        else w[i / PER] |= (uint32_t)v << (8 * (int)sizeof(U) * (i % PER));
    }
};

// The warp holds 32 * ITEMS consecutive keys of the tile, item i of lane l
// being key i * 32 + l of the warp's chunk; so "item by item, lane by lane"
// is input order. For each item, the lanes with the same digit (peers) are
// found with 8 ballots; the highest peer (leader) adds the number of peers to
// the warp's running counter of that digit (an atomic that returns the old
// value; no other lane touches that counter in this item) and later hands
// the old value to its peers; each lane's rank is the old value plus the
// number of lower peers. __syncwarp orders the items, so the counters and ranks follow
// input order: the ranking is stable. On return wcnt[d] holds the warp's count
// of digit d, rk[i] the rank of item i among the warp's keys of digit d.
// valid: keys of the warp's chunk that exist (FULL: all of them).
template <int ITEMS, bool FULL>
__device__ __forceinline__ void warp_rank(const Digits<ITEMS> &dg, uint32_t (&rk)[ITEMS], uint32_t *wcnt, int valid)
{
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    // Peers of every item first: the ballots are independent of each other.
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        if (!FULL && valid - i * 32 <= 0) { // warp-uniform
            rk[i] = 0;
            continue;
        }
        const uint32_t w = dg.w[i / 4];
        const int b0 = 8 * (i % 4);
        rk[i] = same_bit(w, 1u << b0) & same_bit(w, 1u << (b0 + 1)) & same_bit(w, 1u << (b0 + 2)) &
                same_bit(w, 1u << (b0 + 3)) & same_bit(w, 1u << (b0 + 4)) & same_bit(w, 1u << (b0 + 5)) &
                same_bit(w, 1u << (b0 + 6)) & same_bit(w, 1u << (b0 + 7));
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        unsigned peers = rk[i];
        bool ok = true;
        if (!FULL) {
            const int nv = valid - i * 32;
            if (nv <= 0) continue; // warp-uniform; rk[i] stays 0
            const unsigned live = nv >= 32 ? ~0u : (1u << nv) - 1u;
            peers &= live;
            ok = (live >> lane) & 1u;
        }
        const int leader = ok ? 31 - __clz(peers) : lane;
        uint32_t base = leader_add(&wcnt[dg.get(i)], (uint32_t)__popc(peers), ok && lane == leader);
        base = __shfl_sync(~0u, base, leader);
        rk[i] = base + (uint32_t)__popc(peers & lower);
        __syncwarp();
    }
}

// For digit d (thread d < 256, after a __syncthreads that follows the
// ranking): turns the column cnt[w][d] over the warps into exclusive prefixes
// and returns the tile's count of digit d.
template <int WARPS> __device__ __forceinline__ uint32_t column_scan(uint32_t *cnt, int d)
{
    uint32_t s = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        const uint32_t c = cnt[w * kRadix + d];
        cnt[w * kRadix + d] = s;
        s += c;
    }
    return s;
}

// ---- the counting step ---------------------------------------------------------------

struct CountArgs {
    const void *keys;
    size_t n;
    unsigned long long xmask;
    unsigned long long *hist;  // [passes][256], zero on entry
    unsigned long long *pbase; // [passes][256] exclusive digit offsets, written by the last block
    SortCtrl *ctrl;
    uint32_t *zero;            // look-back status of the first pass, cleared here
    size_t zero_words;         // a multiple of 256 (zero is 256-byte aligned)
};

constexpr int kCountBlock = 256;
constexpr int kCountCopies = 4; // histogram copies, so that lanes with equal digits spread

// Each block counts the digits of every pass over its share of the keys in
// shared memory (kCountCopies copies, indexed by lane, which cuts
// same-address conflicts of equal digits; a block counts fewer than 2^31
// keys, so 32-bit counters suffice), then adds its counts to the global
// 64-bit histograms with atomics. The last block to finish (every thread
// fences after its atomics, then one atomic counts the block done: the
// classic threadfence pattern; the last block fences again and reads the
// histograms from L2) computes for every pass the exclusive digit offsets,
// whether the pass is constant (some digit has all n keys), and from that
// which buffer each pass reads and whether a copy back is needed. Counts do
// not depend on the order of the keys, so they hold for every pass.
template <bool FLOAT, typename U> __global__ void __launch_bounds__(kCountBlock) count_kernel(const CountArgs a)
{
    typedef Radix<FLOAT, U> R;
    constexpr int NP = (int)sizeof(U);
    constexpr int PER = 16 / (int)sizeof(U);
    __shared__ uint32_t sh[NP * kRadix * kCountCopies];
    __shared__ unsigned int s_last;
    __shared__ uint64_t s_scan[kCountBlock / 32];
    const int tid = threadIdx.x;
    const int copy = tid & (kCountCopies - 1);
    const U xm = (U)a.xmask;

    for (int i = tid; i < NP * kRadix * kCountCopies; i += kCountBlock) sh[i] = 0;
    // Clear the first pass's look-back status (the pass kernels run after this
    // kernel has completed).
    {
        uint4 *z = (uint4 *)a.zero;
        for (size_t i = (size_t)blockIdx.x * kCountBlock + tid; i < a.zero_words / 4; i += (size_t)gridDim.x * kCountBlock)
            z[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();

    auto count_key = [&](U bits) {
        const U r = R::map(bits, xm);
#pragma unroll
        for (int p = 0; p < NP; p++) atomicAdd(&sh[(p * kRadix + R::digit(r, 8 * p)) * kCountCopies + copy], 1u);
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
    __syncthreads();

    // Merge into the global histograms.
    for (int i = tid; i < NP * kRadix; i += kCountBlock) {
        uint32_t c = 0;
#pragma unroll
        for (int k = 0; k < kCountCopies; k++) c += sh[i * kCountCopies + k];
        if (c) atomicAdd(&a.hist[i], (unsigned long long)c);
    }

    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(&a.ctrl->done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();

    const int d = tid; // kCountBlock == kRadix
    for (int p = 0; p < NP; p++) {
        const uint64_t tot = __ldcg(&a.hist[p * kRadix + d]);
        const int constant = __syncthreads_or(tot == (uint64_t)n);
        uint64_t all;
        a.pbase[p * kRadix + d] = pp_block_exclusive<uint64_t, Op_sum, kCountBlock>(tot, &all, s_scan);
        if (tid == 0) a.ctrl->active[p] = !constant;
    }
    if (tid == 0) {
        // Pass p reads the user's buffers after an even number of active
        // passes, the alternate ones after an odd number.
        unsigned int ran = 0;
        for (int p = 0; p < NP; p++) {
            a.ctrl->src_alt[p] = ran & 1u;
            ran += a.ctrl->active[p];
        }
        a.ctrl->copy_back = ran & 1u;
    }
}

// ---- one Onesweep pass -------------------------------------------------------------

// Tile shape: 384 threads (12 warps); keys per thread by key size, fewer when
// keys and values together would need more than 48 KiB of shared memory (so
// that the whole tile, 63.5 KiB at most, fits every GPU from sm_75 on).
template <typename U, typename V> struct PassCfg {
    static constexpr int BLOCK = 384, WARPS = BLOCK / 32;
    static constexpr int KB = (int)sizeof(U), VB = VInfo<V>::bytes;
    static constexpr int IK = KB == 1 && VB == 0 ? 16 : (KB <= 4 ? 18 : 10);
    static constexpr int FIT = (48 * 1024) / (BLOCK * (KB + VB));
    static constexpr int ITEMS = IK < FIT ? IK : FIT;
    static constexpr int TILE = BLOCK * ITEMS;
    // shared memory: per-warp digit counters, per-digit destination shifts
    // (64-bit, or 32-bit when every index fits), small scratch, keys, values
    static constexpr size_t OFF_CNT = 0;
    static constexpr size_t OFF_SHIFT = OFF_CNT + (size_t)WARPS * kRadix * 4;
    static constexpr size_t OFF_MISC = OFF_SHIFT + (size_t)kRadix * 8;
    static constexpr size_t OFF_KEYS = OFF_MISC + 64;
    static constexpr size_t OFF_VALS = OFF_KEYS + align_up((size_t)TILE * KB, 16);
    static constexpr size_t SMEM = OFF_VALS + (size_t)TILE * VB;
    static_assert(ITEMS >= 1 && 32 * ITEMS <= 65535, "tile shape");
    static_assert(SMEM <= 64 * 1024, "pass tile must fit 64 KiB of shared memory");
};

struct PassArgs {
    void *keys, *alt_keys, *vals, *alt_vals;
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
template <typename U, typename V, bool WIDE>
__device__ __forceinline__ size_t dest_of(const unsigned char *smem, uint32_t d, int j)
{
    typedef PassCfg<U, V> C;
    if constexpr (WIDE) return (size_t)((const unsigned long long *)(smem + C::OFF_SHIFT))[d] + (size_t)j;
    else return (uint32_t)(((const uint32_t *)(smem + C::OFF_SHIFT))[d] + (uint32_t)j);
}

// Writes the tile's keys (sorted position j = k * BLOCK + tid); in full tiles
// records their digits in od for the values. The last (partial) tile runs a
// rolled loop, to keep the kernel's register count that of the full tiles.
template <bool FLOAT, typename U, typename V, bool FULL, bool WIDE>
__device__ __forceinline__ void write_keys(const unsigned char *smem, int count, U xm, int shift, U *dst,
                                           Digits<PassCfg<U, V>::ITEMS> &od)
{
    typedef PassCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    const U *sk = (const U *)(smem + C::OFF_KEYS);
    if constexpr (FULL) {
#pragma unroll
        for (int k = 0; k < C::ITEMS; k++) {
            const int j = k * C::BLOCK + threadIdx.x;
            const U key = sk[j];
            const uint32_t d = R::digit(R::map(key, xm), shift);
            dst[dest_of<U, V, WIDE>(smem, d, j)] = key;
            if constexpr (VInfo<V>::has) od.set(k, d);
        }
    } else {
#pragma unroll 1
        for (int j = threadIdx.x; j < count; j += C::BLOCK) {
            const U key = sk[j];
            dst[dest_of<U, V, WIDE>(smem, R::digit(R::map(key, xm), shift), j)] = key;
        }
    }
}

template <bool FLOAT, typename U, typename V, bool FULL, bool WIDE>
__device__ __forceinline__ void write_values(const unsigned char *smem, int count, U xm, int shift, V *dstv,
                                             const Digits<PassCfg<U, V>::ITEMS> &od)
{
    typedef PassCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    const V *sv = (const V *)(smem + C::OFF_VALS);
    if constexpr (FULL) {
#pragma unroll
        for (int k = 0; k < C::ITEMS; k++) {
            const int j = k * C::BLOCK + threadIdx.x;
            dstv[dest_of<U, V, WIDE>(smem, od.get(k), j)] = sv[j];
        }
    } else {
        const U *sk = (const U *)(smem + C::OFF_KEYS);
#pragma unroll 1
        for (int j = threadIdx.x; j < count; j += C::BLOCK)
            dstv[dest_of<U, V, WIDE>(smem, R::digit(R::map(sk[j], xm), shift), j)] = sv[j];
    }
}

// Loads the thread's items (item i is key 32 i of p; it exists if 32 i < lim).
template <typename U, int ITEMS, bool FULL>
__device__ __forceinline__ void load_keys(KeyRegs<U, ITEMS> &k, const U *p, int lim)
{
    const U *ps = opaque(p);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) k.set(i, (FULL || 32 * i < lim) ? ld_stream(ps + 32 * i) : (U)0);
}

template <bool FLOAT, typename U, typename V, bool FULL>
__device__ __forceinline__ void pass_tile(const PassArgs &a, unsigned char *smem, uint32_t tile, int count, const U *src,
                                          U *dst, const V *srcv, V *dstv,
                                          KeyRegs<U, PassCfg<U, V>::ITEMS> &k, bool loaded)
{
    typedef PassCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    constexpr int ITEMS = C::ITEMS;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    U *sk = (U *)(smem + C::OFF_KEYS);
    V *sv = (V *)(smem + C::OFF_VALS);
    const U xm = (U)a.xmask;
    const int shift = 8 * a.pass;
    const size_t start = (size_t)tile * C::TILE;
    const int wfirst = warp * 32 * ITEMS;
    // Item i of this thread is key wfirst + 32 i + lane of the tile; it exists
    // if 32 i < lim.
    const int lim = count - wfirst - lane;
    const size_t mine = start + (size_t)(wfirst + lane);

    // 1. Load (coalesced: item i of the warp is 32 consecutive keys; unless
    // already loaded, see pass_kernel) and rank.
    Digits<ITEMS> dg;
    uint32_t rk[ITEMS];
    if (!loaded) load_keys<U, ITEMS, FULL>(k, src + mine, lim);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) dg.set(i, R::digit(R::map(k.get(i), xm), shift));
    warp_rank<ITEMS, FULL>(dg, rk, cnt + warp * kRadix, count - wfirst);
    __syncthreads();

    // 2. Per digit: the tile's count, published at once (the first tile of a
    // portion publishes it as its inclusive count); warp offsets; the tile's
    // exclusive digit offsets (a scan over the 256 digits by warps 0-7).
    const uint32_t tpp = a.tiles_per_portion;
    const bool first = tile % tpp == 0;
    uint32_t *row = a.status + (size_t)tile * kRadix;
    uint32_t total = 0, excl = 0;
    if (tid < kRadix) {
        total = column_scan<C::WARPS>(cnt, tid);
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

    // 3. Keys into shared memory in (stable) digit order. The final ranks
    // (< 2^16) are kept two to a register for the values.
    [[maybe_unused]] uint32_t rp[(ITEMS + 1) / 2];
    {
        const uint32_t *wc = cnt + warp * kRadix;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t r = rk[i] + wc[dg.get(i)];
            if (FULL || 32 * i < lim) sk[r] = k.get(i);
            if constexpr (VInfo<V>::has) {
                if (i % 2 == 0) rp[i / 2] = r & 0xffffu;
                else rp[i / 2] |= r << 16;
            }
        }
    }
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
    // hidden behind the keys' writes), put in digit order in shared memory by
    // the same ranks, then written to the keys' destinations.
    [[maybe_unused]] V v[VInfo<V>::has ? ITEMS : 1];
    if constexpr (VInfo<V>::has) {
        const V *pv = opaque(srcv + mine);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = (FULL || 32 * i < lim) ? ld_stream(pv + 32 * i) : (V)0;
    }
    Digits<ITEMS> od;
    if (a.wide) write_keys<FLOAT, U, V, FULL, true>(smem, count, xm, shift, dst, od);
    else write_keys<FLOAT, U, V, FULL, false>(smem, count, xm, shift, dst, od);
    if constexpr (VInfo<V>::has) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (FULL || 32 * i < lim) sv[(rp[i / 2] >> (16 * (i % 2))) & 0xffffu] = v[i];
        __syncthreads();
        if (a.wide) write_values<FLOAT, U, V, FULL, true>(smem, count, xm, shift, dstv, od);
        else write_values<FLOAT, U, V, FULL, false>(smem, count, xm, shift, dstv, od);
    }
}

// One pass over digit a.pass. Every block first clears its row of the next
// pass's look-back status: those rows were last used by the pass before this
// one, which has completed (kernels on one stream run in order), and the next
// pass starts only after this one completes; so each pass finds its rows
// zero without a memset, and two sets of rows serve all passes. Then, if
// count_kernel found the digit constant, the block exits (the pass is
// skipped; the device-side src_alt already accounts for it, and no block of
// the pass takes a ticket). Otherwise the block takes a ticket (tiles are
// numbered in the order blocks start), ranks its tile stably, publishes per
// digit its count and then its inclusive count within the portion
// (decoupled look-back; the portion's start comes from the carry chain), and
// scatters keys (and values): within the tile by stable rank, across tiles
// by the counts of the digit in all earlier tiles, so equal digits keep
// input order across the whole array, i.e. the pass is stable.
// Memory ordering: a status word or carry holds its payload and its state
// in one aligned word, written and read with strong (relaxed, gpu-scope)
// accesses, and nothing else is communicated through it, so a reader that
// sees a non-zero word sees the complete value; no fence is needed.
template <bool FLOAT, typename U, typename V>
__global__ void __launch_bounds__(384, 2) pass_kernel(const PassArgs a)
{
    typedef PassCfg<U, V> C;
    extern __shared__ __align__(16) unsigned char smem[];
    const int tid = threadIdx.x;
    if (a.next_status != NULL && tid < kRadix) a.next_status[(size_t)blockIdx.x * kRadix + tid] = 0;
    if (!a.ctrl->active[a.pass]) return; // same value for every thread
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *misc = (uint32_t *)(smem + C::OFF_MISC);
    if (tid == 0) misc[8] = atomicAdd(&a.ctrl->ticket[a.pass], 1u);
    for (int i = tid; i < C::WARPS * kRadix; i += C::BLOCK) cnt[i] = 0;
    const bool from_alt = a.ctrl->src_alt[a.pass] != 0;
    const U *src = (const U *)(from_alt ? a.alt_keys : a.keys);
    U *dst = (U *)(from_alt ? a.keys : a.alt_keys);
    const V *srcv = (const V *)(from_alt ? a.alt_vals : a.vals);
    V *dstv = (V *)(from_alt ? a.vals : a.alt_vals);
    // While the ticket is on its way, load the keys of tile blockIdx.x if it
    // is a full one: blocks usually start in index order, so the ticket is
    // usually that tile; if not, the keys are loaded again below.
    const int lane_first = (threadIdx.x >> 5) * 32 * C::ITEMS + (threadIdx.x & 31);
    const bool guess = (size_t)(blockIdx.x + 1) * C::TILE <= a.n;
    KeyRegs<U, C::ITEMS> k;
    if (guess) load_keys<U, C::ITEMS, true>(k, src + (size_t)blockIdx.x * C::TILE + lane_first, C::TILE);
    __syncthreads();
    const uint32_t tile = misc[8];
    const size_t left = a.n - (size_t)tile * C::TILE;
    const int count = left < (size_t)C::TILE ? (int)left : C::TILE;
    const bool loaded = guess && tile == blockIdx.x; // same for every thread
    if (count == C::TILE) pass_tile<FLOAT, U, V, true>(a, smem, tile, count, src, dst, srcv, dstv, k, loaded);
    else pass_tile<FLOAT, U, V, false>(a, smem, tile, count, src, dst, srcv, dstv, k, false);
}

// ---- final copy, 8-bit fill ------------------------------------------------------------

// dst and src have the same address modulo 16 (the alternate buffers are
// placed so), so one head, 16-byte vectors and one tail cover the range.
__device__ __forceinline__ void copy_range(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    if (bytes == 0) return;
    size_t h = (16 - ((uintptr_t)dst & 15u)) & 15u;
    if (h > bytes) h = bytes;
    const size_t nv = (bytes - h) / 16, t0 = h + nv * 16;
    const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    uint4 *dv = (uint4 *)(dst + h);
    const uint4 *sv = (const uint4 *)(src + h);
    for (size_t i = gt; i < nv; i += stride) dv[i] = __ldcs(sv + i);
    if (gt < h) dst[gt] = src[gt];
    if (t0 + gt < bytes) dst[t0 + gt] = src[t0 + gt];
}

// Copies the alternate buffers into the user's if the passes that ran left
// the result there (an odd number of them); exits at once otherwise.
__global__ void __launch_bounds__(256) copy_back_kernel(const SortCtrl *ctrl, unsigned char *keys,
                                                         const unsigned char *alt_keys, size_t kbytes,
                                                         unsigned char *vals, const unsigned char *alt_vals,
                                                         size_t vbytes)
{
    if (!ctrl->copy_back) return;
    copy_range(keys, alt_keys, kbytes);
    if (vbytes) copy_range(vals, alt_vals, vbytes);
}

// 8-bit integer keys without values: position i of the output holds the key
// whose digit d has start[d] <= i < start[d + 1] (starts from count_kernel);
// the key's bits are d XOR xmask. Each thread writes 16 bytes at a time.
// Exits at once if all keys are equal (nothing to do).
__global__ void __launch_bounds__(256) fill_kernel(const SortCtrl *ctrl, unsigned char *keys, size_t n,
                                                    const unsigned long long *start, unsigned int xmask)
{
    __shared__ unsigned long long s[kRadix + 1];
    if (!ctrl->active[0]) return;
    for (int i = threadIdx.x; i < kRadix; i += blockDim.x) s[i] = start[i];
    if (threadIdx.x == 0) s[kRadix] = n;
    __syncthreads();
    // The digit of position i: the largest d with s[d] <= i (s[0] == 0).
    auto find = [&](size_t i) {
        int d = 0;
#pragma unroll
        for (int step = 128; step > 0; step >>= 1)
            if (s[d + step] <= i) d += step;
        return d;
    };
    size_t h = (16 - ((uintptr_t)keys & 15u)) & 15u;
    if (h > n) h = n;
    const size_t nv = (n - h) / 16, t0 = h + nv * 16;
    const size_t gt = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t v = gt; v < nv; v += stride) {
        const size_t p0 = h + v * 16;
        int d = find(p0);
        uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
        for (int j = 0; j < 16; j++) {
            while (s[d + 1] <= p0 + j) d++;
            w[j >> 2] |= (uint32_t)((d ^ xmask) & 255u) << (8 * (j & 3));
        }
        *(uint4 *)(keys + p0) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    if (gt < h) keys[gt] = (unsigned char)(find(gt) ^ xmask);
    if (t0 + gt < n) keys[t0 + gt] = (unsigned char)(find(t0 + gt) ^ xmask);
}

// ---- small inputs: one block, all in shared memory ------------------------------------

template <typename U, typename V> struct SmallCfg {
    static constexpr int BLOCK = 512, WARPS = BLOCK / 32;
    static constexpr int KB = (int)sizeof(U), VB = VInfo<V>::bytes;
    static constexpr int ITEMS = KB + VB <= 8 ? 16 : 8;
    static constexpr int CAP = BLOCK * ITEMS;
    static constexpr size_t OFF_CNT = 0;
    static constexpr size_t OFF_MISC = OFF_CNT + (size_t)WARPS * kRadix * 4; // 16 u32, then 16 u64
    static constexpr size_t OFF_KEYS = OFF_MISC + 256;
    static constexpr size_t OFF_VALS = OFF_KEYS + align_up((size_t)CAP * KB, 16);
    static constexpr size_t SMEM = OFF_VALS + (size_t)CAP * VB;
};

struct SmallArgs {
    void *keys, *vals;
    int n;
    unsigned long long xmask;
};

// n <= CAP keys (and values) are loaded into shared memory; the digit
// positions where some key differs from the first key are found with one
// block-wide OR; each such pass ranks the keys exactly as a pass tile does
// (warp_rank, then offsets over warps and digits; stable) and permutes keys
// and values within shared memory; the result is written back.
template <bool FLOAT, typename U, typename V> __global__ void __launch_bounds__(512, 1) small_kernel(const SmallArgs a)
{
    typedef SmallCfg<U, V> C;
    typedef Radix<FLOAT, U> R;
    constexpr int ITEMS = C::ITEMS;
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *cnt = (uint32_t *)(smem + C::OFF_CNT);
    uint32_t *wsum = (uint32_t *)(smem + C::OFF_MISC);
    unsigned long long *wor = (unsigned long long *)(smem + C::OFF_MISC + 64);
    U *sk = (U *)(smem + C::OFF_KEYS);
    V *sv = (V *)(smem + C::OFF_VALS);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int n = a.n;
    const U xm = (U)a.xmask;
    U *keys = (U *)a.keys;
    V *vals = (V *)a.vals;

    const U r0 = R::map(keys[0], xm);
    unsigned long long vary = 0;
    for (int i = tid; i < n; i += C::BLOCK) {
        const U x = keys[i];
        sk[i] = x;
        vary |= (unsigned long long)(U)(R::map(x, xm) ^ r0);
        if constexpr (VInfo<V>::has) sv[i] = vals[i];
    }
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) vary |= __shfl_xor_sync(~0u, vary, m);
    if (lane == 0) wor[warp] = vary;
    __syncthreads();
    vary = 0;
#pragma unroll
    for (int w = 0; w < C::WARPS; w++) vary |= wor[w];

    const int wfirst = warp * 32 * ITEMS;
    for (int p = 0; p < (int)sizeof(U); p++) {
        if (((vary >> (8 * p)) & 255u) == 0) continue; // same for every thread
        const int shift = 8 * p;
        for (int i = lane; i < kRadix; i += 32) cnt[warp * kRadix + i] = 0;
        __syncwarp();
        U k[ITEMS];
        [[maybe_unused]] V v[VInfo<V>::has ? ITEMS : 1];
        Digits<ITEMS> dg;
        uint32_t rk[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = wfirst + i * 32 + lane;
            k[i] = e < n ? sk[e] : (U)0;
            if constexpr (VInfo<V>::has) {
                if (e < n) v[i] = sv[e];
            }
            dg.set(i, R::digit(R::map(k[i], xm), shift));
        }
        warp_rank<ITEMS, false>(dg, rk, cnt + warp * kRadix, n - wfirst);
        __syncthreads(); // ranks done, every key of this pass read from sk
        uint32_t total = 0, excl = 0;
        if (tid < kRadix) {
            total = column_scan<C::WARPS>(cnt, tid);
            const uint32_t inc = pp_warp_inclusive<uint32_t, Op_sum>(total);
            if (lane == 31) wsum[warp] = inc;
            excl = inc - total;
        }
        __syncthreads();
        if (tid < kRadix) {
            for (int w = 0; w < warp; w++) excl += wsum[w];
#pragma unroll
            for (int w = 0; w < C::WARPS; w++) cnt[w * kRadix + tid] += excl;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const int e = wfirst + i * 32 + lane;
            if (e < n) {
                const uint32_t r = rk[i] + cnt[warp * kRadix + dg.get(i)];
                sk[r] = k[i];
                if constexpr (VInfo<V>::has) sv[r] = v[i];
            }
        }
        __syncthreads(); // permutation complete; counters free for the next pass
    }
    for (int i = tid; i < n; i += C::BLOCK) {
        keys[i] = sk[i];
        if constexpr (VInfo<V>::has) vals[i] = sv[i];
    }
}

// ---- host side -------------------------------------------------------------------------

template <typename K> static pp_status set_smem(pp_context *ctx, K kernel, size_t bytes, const char *fn)
{
    if (bytes > 48 * 1024)
        PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), fn);
    return PP_SUCCESS;
}

template <bool FLOAT, typename U, typename V>
static pp_status sort_small(pp_context *ctx, void *keys, void *vals, size_t n, unsigned long long xmask, const char *fn)
{
    typedef SmallCfg<U, V> C;
    pp_status st = set_smem(ctx, small_kernel<FLOAT, U, V>, C::SMEM, fn);
    if (st != PP_SUCCESS) return st;
    SmallArgs a;
    a.keys = keys;
    a.vals = vals;
    a.n = (int)n;
    a.xmask = xmask;
    small_kernel<FLOAT, U, V><<<1, C::BLOCK, C::SMEM, pp_cuda(ctx)->stream>>>(a);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// Scratch carving: [control block | histograms | carries] (cleared by one
// cudaMemsetAsync), then digit offsets, look-back status, alternate buffers;
// offsets in bytes, 256-aligned.
struct Layout {
    size_t hist, carry, zero_bytes, pbase, status, altk, altv, total;
};

template <bool FLOAT, typename U>
static pp_status launch_count(pp_context *ctx, const void *keys, size_t n, unsigned long long xmask, char *base,
                              const Layout &l, size_t zero_words, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    CountArgs c;
    c.keys = keys;
    c.n = n;
    c.xmask = xmask;
    c.hist = (unsigned long long *)(base + l.hist);
    c.pbase = (unsigned long long *)(base + l.pbase);
    c.ctrl = (SortCtrl *)base;
    c.zero = (uint32_t *)(base + l.status);
    c.zero_words = zero_words;
    // enough blocks to fill the GPU, and fewer than 2^31 keys per block
    size_t gx = (n + 8191) / 8192;
    const size_t cap = (size_t)(s->sm_count > 0 ? s->sm_count : 1) * 4;
    if (gx > cap) gx = cap;
    const size_t need = (n >> 31) + 1;
    if (gx < need) gx = need;
    if (gx < 1) gx = 1;
    count_kernel<FLOAT, U><<<(unsigned)gx, kCountBlock, 0, s->stream>>>(c);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

static unsigned copy_grid(pp_cuda_state *s, size_t bytes)
{
    size_t g = (bytes / 16 + 255) / 256;
    const size_t cap = (size_t)(s->sm_count > 0 ? s->sm_count : 1) * 8;
    if (g > cap) g = cap;
    if (g < 1) g = 1;
    return (unsigned)g;
}

// 8-bit integer keys, keys only: count, then rewrite the runs.
template <typename U>
static pp_status sort_counting(pp_context *ctx, void *keys, size_t n, unsigned long long xmask, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    Layout l;
    l.hist = align_up(sizeof(SortCtrl), 256);
    l.carry = l.zero_bytes = align_up(l.hist + kRadix * 8, 256);
    l.pbase = l.zero_bytes;
    l.status = l.altk = l.altv = l.total = align_up(l.pbase + kRadix * 8, 256);
    char *base = (char *)pp_cuda_scratch(ctx, l.total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(base, 0, l.zero_bytes, s->stream), fn);
    pp_status st = launch_count<false, U>(ctx, keys, n, xmask, base, l, 0, fn);
    if (st != PP_SUCCESS) return st;
    fill_kernel<<<copy_grid(s, n), 256, 0, s->stream>>>((const SortCtrl *)base, (unsigned char *)keys, n,
                                                         (const unsigned long long *)(base + l.pbase),
                                                         (unsigned)(xmask & 255u));
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <bool FLOAT, typename U, typename V>
static pp_status sort_onesweep(pp_context *ctx, void *keys, void *vals, size_t n, unsigned long long xmask,
                               const char *fn)
{
    typedef PassCfg<U, V> C;
    pp_cuda_state *s = pp_cuda(ctx);
    constexpr int NP = (int)sizeof(U);
    constexpr size_t KB = sizeof(U), VB = (size_t)VInfo<V>::bytes;
    if (n > ((size_t)1 << 46))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    const size_t tiles = (n + C::TILE - 1) / C::TILE;
    const uint32_t tpp = kPortionLimit / C::TILE; // tiles per portion
    const size_t portions = (tiles + tpp - 1) / tpp;
    if (tiles > 0x7fffffffu)
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    const size_t regions = NP > 1 ? 2 : 1;
    const size_t status_words = tiles * kRadix;
    Layout l;
    l.hist = align_up(sizeof(SortCtrl), 256);
    l.carry = align_up(l.hist + (size_t)NP * kRadix * 8, 256);
    l.zero_bytes = align_up(l.carry + (size_t)NP * portions * kRadix * 8, 256);
    l.pbase = l.zero_bytes;
    l.status = align_up(l.pbase + (size_t)NP * kRadix * 8, 256);
    l.altk = align_up(l.status + regions * status_words * 4, 256);
    l.altv = align_up(l.altk + n * KB + 16, 256);
    l.total = VB ? align_up(l.altv + n * VB + 16, 256) : l.altv;
    char *base = (char *)pp_cuda_scratch(ctx, l.total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    // The alternate buffers share the user's buffers' address modulo 16, so
    // that the copy back can use 16-byte vectors throughout.
    unsigned char *altk = (unsigned char *)base + l.altk + ((uintptr_t)keys & 15u);
    unsigned char *altv = VB ? (unsigned char *)base + l.altv + ((uintptr_t)vals & 15u) : NULL;
    SortCtrl *ctrl = (SortCtrl *)base;
    uint32_t *status = (uint32_t *)(base + l.status);
    unsigned long long *carry = (unsigned long long *)(base + l.carry);

    pp_status st = set_smem(ctx, pass_kernel<FLOAT, U, V>, C::SMEM, fn);
    if (st != PP_SUCCESS) return st;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(base, 0, l.zero_bytes, s->stream), fn);
    st = launch_count<FLOAT, U>(ctx, keys, n, xmask, base, l, status_words, fn);
    if (st != PP_SUCCESS) return st;

    PassArgs a;
    a.keys = keys;
    a.alt_keys = altk;
    a.vals = vals;
    a.alt_vals = altv;
    a.n = n;
    a.pbase = (const unsigned long long *)(base + l.pbase);
    a.ctrl = ctrl;
    a.xmask = xmask;
    a.npass = NP;
    a.tiles_per_portion = tpp;
    a.tiles = (unsigned)tiles;
    a.wide = n > ((size_t)1 << 32);
    for (int p = 0; p < NP; p++) {
        a.pass = p;
        a.status = status + (size_t)(p & 1) * status_words;
        a.next_status = p + 1 < NP ? status + (size_t)((p + 1) & 1) * status_words : NULL;
        a.carry = carry + (size_t)p * portions * kRadix;
        pass_kernel<FLOAT, U, V><<<(unsigned)tiles, C::BLOCK, C::SMEM, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    const size_t kbytes = n * KB, vbytes = n * VB;
    copy_back_kernel<<<copy_grid(s, kbytes > vbytes ? kbytes : vbytes), 256, 0, s->stream>>>(
        ctrl, (unsigned char *)keys, altk, kbytes, (unsigned char *)vals, altv, vbytes);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <bool FLOAT, typename U, typename V>
static pp_status sort_kv(pp_context *ctx, void *keys, void *vals, size_t n, unsigned long long xmask, const char *fn)
{
    if (n <= (size_t)SmallCfg<U, V>::CAP && SmallCfg<U, V>::SMEM <= pp_cuda(ctx)->smem_optin)
        return sort_small<FLOAT, U, V>(ctx, keys, vals, n, xmask, fn);
    if constexpr (!FLOAT && sizeof(U) == 1 && !VInfo<V>::has) return sort_counting<U>(ctx, keys, n, xmask, fn);
    else return sort_onesweep<FLOAT, U, V>(ctx, keys, vals, n, xmask, fn);
}

template <int KIND, typename U>
static pp_status sort_typed(pp_context *ctx, void *keys, void *vals, size_t vsize, size_t n, pp_order order,
                            const char *fn)
{
    constexpr bool FLOAT = KIND == PP_KIND_FLOAT;
    const unsigned long long ones = sizeof(U) == 8 ? ~0ull : (1ull << (8 * sizeof(U))) - 1;
    const unsigned long long sign = 1ull << (8 * sizeof(U) - 1);
    const unsigned long long xmask = (KIND == PP_KIND_SINT ? sign : 0) ^ (order == PP_DESCENDING ? ones : 0);
    switch (vals ? vsize : 0) {
    case 0: return sort_kv<FLOAT, U, NoValue>(ctx, keys, NULL, n, xmask, fn);
    case 1: return sort_kv<FLOAT, U, uint8_t>(ctx, keys, vals, n, xmask, fn);
    case 2: return sort_kv<FLOAT, U, uint16_t>(ctx, keys, vals, n, xmask, fn);
    case 4: return sort_kv<FLOAT, U, uint32_t>(ctx, keys, vals, n, xmask, fn);
    default: return sort_kv<FLOAT, U, unsigned long long>(ctx, keys, vals, n, xmask, fn);
    }
}

} // namespace

pp_status pp_cuda_sort(pp_context *ctx, const pp_sort_args *a)
{
    const char *fn = a->fn;
    const pp_type type = a->type;
    switch (type) {
#define PP_SORT_CASE(E, T, S, K, U, W) \
    case E: return sort_typed<PP_KIND_##K, U>(ctx, a->keys, a->values, a->value_size, a->n, a->order, fn);
        PP_FOR_EACH_TYPE(PP_SORT_CASE)
#undef PP_SORT_CASE
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: unknown type %d", fn, (int)type);
}
