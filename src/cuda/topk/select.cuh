// The kernels of the cuda top-k's radix select (cuda_topk.cu runs them):
// a sampled threshold, one filtering read of the input, then digit passes
// over whichever source the device chose, and the compaction of the k.
//
// Order: the composite key (radix key r of the key's bits, index i), r from
// Radix::map of the call's KeyMap; the top k are the k smallest composite
// keys, all distinct.
//
// The fast path (the host chooses it where the k are a small part of n):
// tk_sample (one block) gathers a sample of keys spread over the input and
// finds the rank_s-th smallest of their radix keys, the threshold T, so
// that with high probability at least k keys of the input have r <= T and
// not many more. tk_filter reads the input once and appends every key with
// r <= T (bits and index) to the candidates; its last block decides: if
// the candidates hold at least k keys and did not overflow their capacity,
// they hold every key of the top k (every composite key before the k-th
// has r <= the k-th's r <= T), and the select continues over them; else
// (an unlucky sample, many keys equal to T) over the whole input. The
// decision only moves work: the result is the same either way.
//
// The select: tk_pass counts, per digit value, the source's keys whose
// digits so far equal the prefix found (the radix key's 8-bit digits, most
// significant first, then the index's); the launch's last block (a ticket)
// picks the digit whose bucket holds the need-th matching key, extends the
// prefix, narrows need and clears the counters. When the chosen bucket
// holds exactly need keys, the keys before the prefix and those matching
// it are exactly k: the select is done and later passes return at once.
// tk_compact writes those k keys and indices in no particular order.
#ifndef PP_CUDA_TOPK_SELECT_CUH
#define PP_CUDA_TOPK_SELECT_CUH

#include "../device/sort_keys.cuh"
#include "../device/util.cuh"
#include "../device/vec.cuh"

namespace
{

constexpr int TK_BLOCK = 256;
constexpr int TK_SAMPLE_BLOCK = 1024; // tk_sample's threads
// Keys of the sample: 32 KiB of them in shared memory.
template <typename U> __host__ __device__ constexpr int tk_sample_size() { return 32768 / (int)sizeof(U); }
// tk_filter's per-block staging of candidates: room for two of its
// iterations' worth (each thread takes at most a 16-byte vector of keys per
// iteration), at most 4096 keys.
template <typename U> __host__ __device__ constexpr int tk_stage_size()
{
    return 2 * TK_BLOCK * (16 / (int)sizeof(U)) < 4096 ? 2 * TK_BLOCK * (16 / (int)sizeof(U)) : 4096;
}

// The select's state, in device memory. A key (r, i) is before the prefix
// if (r & kmask) < kprefix, or (r & kmask) == kprefix and (i & imask) <
// iprefix; it matches it if both equal. need: the keys matching the prefix
// still to be taken. thresh: the fast path's T; ncand: the keys that
// tk_filter found with r <= T (also past the capacity); fast: 1 where the
// passes read the candidates, 0 where they read the input; m: the keys of
// that source. ticket: the blocks of the current launch that are through.
// count: tk_compact's fill.
struct tk_state {
    unsigned long long kprefix, kmask;
    unsigned long long iprefix, imask;
    unsigned long long need;
    unsigned long long count;
    unsigned long long thresh, ncand, m;
    unsigned int ticket;
    int done, fast;
};

// A key's composite order against the prefix: taken (before it or matching
// it, once the select is done).
template <typename U>
__device__ __forceinline__ bool tk_taken(U r, unsigned long long i, U kp, U km, unsigned long long ip,
                                         unsigned long long im)
{
    const U m = (U)(r & km);
    return m < kp || (m == kp && (i & im) <= ip);
}

// One block: the state set up for k of n keys (all: k == n, everything
// taken), the counters cleared, and where rank_s > 0, the threshold: the
// rank_s-th smallest radix key (1-based) of the sample, S =
// tk_sample_size<U>() keys, one from each of S equal strides of the input
// at a position scattered inside it.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_SAMPLE_BLOCK)
    tk_sample(const U *keys, size_t n, KeyMap map, tk_state *st, unsigned long long *hist, unsigned long long k,
              int all, unsigned rank_s)
{
    constexpr int S = tk_sample_size<U>();
    __shared__ U s[S];
    __shared__ unsigned h[kRadix];
    __shared__ unsigned long long sel[2]; // prefix, need
    if (threadIdx.x == 0) {
        st->kprefix = st->kmask = st->iprefix = st->imask = 0;
        st->need = k;
        st->count = st->ncand = 0;
        st->ticket = 0;
        st->done = all;
        st->fast = 0;
        st->m = n;
        st->thresh = 0;
    }
    for (int d = threadIdx.x; d < kRadix; d += blockDim.x) hist[d] = 0;
    if (rank_s == 0) return;
    const size_t stride = n / S;
    for (int j = threadIdx.x; j < S; j += blockDim.x) {
        unsigned long long x = (unsigned long long)j * 0x9E3779B97F4A7C15ull;
        x ^= x >> 29;
        const size_t pos = (size_t)j * stride + (size_t)(x % stride);
        s[j] = Radix<FLOAT, U>::map(keys[pos], (U)map.xmask, (U)map.nan_key);
    }
    U prefix = 0, mask = 0;
    unsigned long long need = rank_s;
    for (int shift = 8 * ((int)sizeof(U) - 1); shift >= 0; shift -= 8) {
        for (int d = threadIdx.x; d < kRadix; d += blockDim.x) h[d] = 0;
        __syncthreads();
        for (int j = threadIdx.x; j < S; j += blockDim.x)
            if ((U)(s[j] & mask) == prefix) atomicAdd(&h[Radix<FLOAT, U>::digit(s[j], shift)], 1u);
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned long long below = 0;
            int d = 0;
            for (; d < kRadix - 1; d++) {
                if (below + h[d] >= need) break;
                below += h[d];
            }
            sel[0] = (unsigned long long)(prefix | (U)((U)d << shift));
            sel[1] = need - below;
        }
        __syncthreads();
        prefix = (U)sel[0];
        need = sel[1];
        mask = (U)(mask | (U)((U)255 << shift));
    }
    if (threadIdx.x == 0) st->thresh = (unsigned long long)prefix;
}

// Appends the keys of one warp's lanes that have take set (bits, index) to
// the candidates at the next free places, counting every one in *count
// (places at or past cap are not written).
template <typename U>
__device__ __forceinline__ void tk_append(bool take, U bits, unsigned long long i, U *ckeys, uint64_t *cidx,
                                          unsigned long long cap, unsigned long long *count)
{
    const unsigned b = __ballot_sync(0xffffffffu, take);
    if (!b) return;
    const int lane = threadIdx.x & 31, leader = __ffs(b) - 1;
    unsigned long long p0 = 0;
    if (lane == leader) p0 = atomicAdd(count, (unsigned long long)__popc(b));
    p0 = __shfl_sync(0xffffffffu, p0, leader);
    const unsigned long long pos = p0 + (unsigned long long)__popc(b & ((1u << lane) - 1u));
    if (take && pos < cap) {
        ckeys[pos] = bits;
        cidx[pos] = i;
    }
}

// Whether this block is the launch's last through (after its writes are
// fenced); then the ticket is reset for the next launch. Called by every
// thread of every block.
__device__ __forceinline__ bool tk_last_block(tk_state *st)
{
    __shared__ unsigned last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&st->ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (last) {
        __threadfence();
        if (threadIdx.x == 0) st->ticket = 0;
    }
    return last;
}

// tk_filter's staging of candidates in shared memory: keys and indices
// appended by warps (one shared atomic per warp and key slot), copied to
// the candidates at a place taken with one global atomic per flush.
template <typename U> struct tk_stage {
    static constexpr int N = tk_stage_size<U>();
    U keys[N];
    unsigned long long idx[N];
    unsigned count;
    unsigned long long base;

    // Called by the lanes of a whole warp.
    __device__ __forceinline__ void append(bool take, U bits, unsigned long long i)
    {
        const unsigned b = __ballot_sync(0xffffffffu, take);
        if (!b) return;
        const int lane = threadIdx.x & 31, leader = __ffs(b) - 1;
        unsigned p0 = 0;
        if (lane == leader) p0 = atomicAdd(&count, (unsigned)__popc(b));
        p0 = __shfl_sync(0xffffffffu, p0, leader);
        if (take) {
            const unsigned p = p0 + (unsigned)__popc(b & ((1u << lane) - 1u));
            keys[p] = bits;
            idx[p] = i;
        }
    }
    // Called by the whole block, after a barrier: the staged candidates
    // moved out where more than `room` are staged (every ncand counted,
    // places at or past cap not written).
    __device__ __forceinline__ void flush(unsigned room, U *ckeys, uint64_t *cidx, unsigned long long cap,
                                          unsigned long long *ncand)
    {
        const unsigned c = count; // the same in every thread (read after a barrier)
        if (c <= room) return;
        if (threadIdx.x == 0) base = atomicAdd(ncand, (unsigned long long)c);
        __syncthreads();
        for (unsigned j = threadIdx.x; j < c; j += blockDim.x)
            if (base + j < cap) {
                ckeys[base + j] = keys[j];
                cidx[base + j] = idx[j];
            }
        __syncthreads();
        if (threadIdx.x == 0) count = 0;
        __syncthreads();
    }
};

// The fast path's filtering read: every key of the input with r <= thresh
// appended to the candidates (cap places); 16-byte loads from the first
// 16-byte boundary of keys on (the keys before it, and the tail, one at a
// time). The last block chooses the source of the passes.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_BLOCK) tk_filter(const U *keys, size_t n, KeyMap map, tk_state *st, U *ckeys,
                                                      uint64_t *cidx, unsigned long long cap, unsigned long long k)
{
    constexpr int V = 16 / (int)sizeof(U);
    constexpr unsigned ROOM = tk_stage<U>::N > TK_BLOCK * V ? tk_stage<U>::N - TK_BLOCK * V : 0;
    __shared__ tk_stage<U> stage;
    if (threadIdx.x == 0) stage.count = 0;
    __syncthreads();
    const U t = (U)st->thresh;
    const size_t head = ((16 - ((size_t)keys & 15)) & 15) / sizeof(U); // keys before the boundary
    const size_t h = head < n ? head : n;
    const size_t nvec = (n - h) / V;
    const uint4 *vkeys = (const uint4 *)(keys + h);
    const size_t stride = (size_t)gridDim.x * TK_BLOCK;
    for (size_t base = (size_t)blockIdx.x * TK_BLOCK; base < nvec; base += stride) { // base: the same in the block
        const size_t v = base + threadIdx.x;
        U bits[V];
        bool any = false;
        if (v < nvec) {
            const uint4 q = __ldcs(vkeys + v);
#pragma unroll
            for (int j = 0; j < V; j++) {
                bits[j] = pp_vget<U>(q, j);
                any |= Radix<FLOAT, U>::map(bits[j], (U)map.xmask, (U)map.nan_key) <= t;
            }
        }
        if (__any_sync(0xffffffffu, any)) {
#pragma unroll
            for (int j = 0; j < V; j++) {
                const bool take = v < nvec && Radix<FLOAT, U>::map(bits[j], (U)map.xmask, (U)map.nan_key) <= t;
                stage.append(take, bits[j], h + v * V + j);
            }
        }
        __syncthreads();
        stage.flush(ROOM, ckeys, cidx, cap, &st->ncand);
    }
    // the keys before the boundary and after the last whole vector
    const size_t rest = h + (n - h - nvec * V);
    for (size_t base = (size_t)blockIdx.x * TK_BLOCK; base < rest; base += stride) {
        const size_t j = base + threadIdx.x;
        const size_t i = j < h ? j : h + nvec * V + (j - h);
        U bits = 0;
        bool take = false;
        if (j < rest) {
            bits = keys[i];
            take = Radix<FLOAT, U>::map(bits, (U)map.xmask, (U)map.nan_key) <= t;
        }
        stage.append(take, bits, i);
        __syncthreads();
        stage.flush(ROOM, ckeys, cidx, cap, &st->ncand);
    }
    __syncthreads();
    stage.flush(0, ckeys, cidx, cap, &st->ncand);
    if (tk_last_block(st) && threadIdx.x == 0) {
        const unsigned long long c = *(volatile unsigned long long *)&st->ncand;
        const int fast = c >= k && c <= cap;
        st->fast = fast;
        st->m = fast ? c : n;
    }
}

// The key and index of the source's j-th key: the candidates' (fast) or
// the input's.
template <typename U> struct tk_source {
    const U *keys;
    const uint64_t *idx; // NULL: the input (the index is j)
    size_t m;
    __device__ __forceinline__ tk_source(const U *in, size_t n, const U *ckeys, const uint64_t *cidx,
                                         const tk_state *st)
    {
        const bool fast = st->fast;
        keys = fast ? ckeys : in;
        idx = fast ? cidx : nullptr;
        m = fast ? (size_t)st->m : n;
    }
    __device__ __forceinline__ unsigned long long index(size_t j) const { return idx ? idx[j] : j; }
};

// One pass of the select over the source: counts of the next digit (of the
// radix key at `shift`, or of the index where on_index) of the keys
// matching the prefix; the last block picks the digit.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_BLOCK)
    tk_pass(const U *keys, size_t n, const U *ckeys, const uint64_t *cidx, KeyMap map, tk_state *st,
            unsigned long long *hist, int shift, int on_index)
{
    __shared__ unsigned h[kRadix];
    __shared__ unsigned long long c[kRadix];
    if (st->done) return; // the same in every block of the launch
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK) h[d] = 0;
    __syncthreads();
    const tk_source<U> src(keys, n, ckeys, cidx, st);
    const U kp = (U)st->kprefix, km = (U)st->kmask;
    const unsigned long long ip = st->iprefix, im = st->imask;
    const size_t stride = (size_t)gridDim.x * TK_BLOCK;
    for (size_t j = (size_t)blockIdx.x * TK_BLOCK + threadIdx.x; j < src.m; j += stride) {
        const U r = Radix<FLOAT, U>::map(src.keys[j], (U)map.xmask, (U)map.nan_key);
        const unsigned long long i = src.index(j);
        if ((U)(r & km) != kp || (i & im) != ip) continue;
        const unsigned d = on_index ? (unsigned)(i >> shift) & 255u : Radix<FLOAT, U>::digit(r, shift);
        atomicAdd(&h[d], 1u);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK)
        if (h[d]) atomicAdd(&hist[d], (unsigned long long)h[d]);
    if (!tk_last_block(st)) return;
    // the last block: the digit whose bucket holds the need-th matching key
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK) c[d] = __ldcg(&hist[d]);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long need = st->need, below = 0;
        int d = 0;
        for (; d < kRadix - 1; d++) {
            if (below + c[d] >= need) break;
            below += c[d];
        }
        need -= below;
        if (on_index) {
            st->iprefix |= (unsigned long long)d << shift;
            st->imask |= 255ull << shift;
        } else {
            st->kprefix |= (unsigned long long)d << shift;
            st->kmask |= 255ull << shift;
        }
        st->need = need;
        if (c[d] == need) st->done = 1;
    }
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK) hist[d] = 0;
}

// The keys taken (exactly k once the select is done; guarded by k all the
// same) with their indices, from the source.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_BLOCK) tk_compact(const U *keys, size_t n, const U *ckeys, const uint64_t *cidx,
                                                       KeyMap map, tk_state *st, U *okeys, uint64_t *oidx, size_t k)
{
    const tk_source<U> src(keys, n, ckeys, cidx, st);
    const U kp = (U)st->kprefix, km = (U)st->kmask;
    const unsigned long long ip = st->iprefix, im = st->imask;
    const size_t stride = (size_t)gridDim.x * TK_BLOCK;
    for (size_t base = (size_t)blockIdx.x * TK_BLOCK; base < src.m; base += stride) { // base: the same in the block
        const size_t j = base + threadIdx.x;
        U bits = 0;
        unsigned long long i = 0;
        bool take = false;
        if (j < src.m) {
            bits = src.keys[j];
            i = src.index(j);
            take = tk_taken<U>(Radix<FLOAT, U>::map(bits, (U)map.xmask, (U)map.nan_key), i, kp, km, ip, im);
        }
        tk_append<U>(take, bits, i, okeys, oidx, k, &st->count);
    }
}

// Keys of at most 4 bytes and indices below 2^32: each selected key's
// composite (radix key, index) as one 64-bit word, in place over its index,
// so that one sort orders the k (ties by index).
template <bool FLOAT, typename U> __global__ void tk_compose(const U *ckeys, uint64_t *cidx, size_t k, KeyMap map)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x) {
        const U r = Radix<FLOAT, U>::map(ckeys[j], (U)map.xmask, (U)map.nan_key);
        cidx[j] = ((uint64_t)r << 32) | (cidx[j] & 0xffffffffu);
    }
}

// The sorted composites' keys (read back from the input, bits unchanged)
// and indices (where oidx is not NULL).
template <typename U> __global__ void tk_gather(const U *keys, const uint64_t *comp, size_t k, U *okeys, uint64_t *oidx)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x) {
        const uint64_t i = comp[j] & 0xffffffffu;
        okeys[j] = keys[i];
        if (oidx) oidx[j] = i;
    }
}

} // namespace

#endif
