// Shared pieces of the cuda backend: its state, scratch memory, error
// mapping, element traits and operators generated from the one type list,
// warp and block scans, and the decoupled look-back used by scan and select.
// C++ here only serves kernel generics (templates over element type and
// operator); no STL, no exceptions.
#ifndef PP_CUDA_INTERNAL_CUH
#define PP_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "cuda_entry.h"

// ---- backend state ---------------------------------------------------------

struct pp_cuda_state {
    int device;
    int sm_count;
    size_t smem_optin;        // largest dynamic shared memory a block may ask for
    cudaStream_t own_stream;  // created with the context
    cudaStream_t stream;      // where work is queued (own_stream or the user's)
    void *scratch;            // general working memory, grown on demand
    size_t scratch_bytes;
    // Look-back arena: flag words only, never anything else, so that a flag
    // from an earlier call can never be mistaken for one of this call.
    uint32_t *flags;
    size_t flag_words;
    uint32_t epoch;           // flags of this launch are (epoch << 2) | state
    unsigned long long *ticket; // monotonically increasing tile ticket (device)
    unsigned long long ticket_base; // tickets handed out so far (host's count)
    void *host_pinned;        // small pinned host buffer
};

static inline pp_cuda_state *pp_cuda(pp_context *ctx) { return (pp_cuda_state *)ctx->impl; }

// Maps a CUDA error to PP_ERROR_BACKEND (or OUT_OF_MEMORY) with a message.
pp_status pp_cuda_error(pp_context *ctx, cudaError_t err, const char *fn, const char *what);

// Checks for a launch error right after a kernel launch.
#define PP_CUDA_LAUNCHED(ctx, fn)                                                  \
    do {                                                                           \
        cudaError_t e_ = cudaGetLastError();                                       \
        if (e_ != cudaSuccess) return pp_cuda_error((ctx), e_, (fn), "kernel launch"); \
    } while (0)

#define PP_CUDA_TRY(ctx, call, fn)                                                 \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) return pp_cuda_error((ctx), e_, (fn), #call);       \
    } while (0)

// Working memory of at least bytes on the device, owned by the context and
// reused by later calls (reallocated only when it must grow). NULL with
// PP_ERROR_OUT_OF_MEMORY set on ctx on failure.
void *pp_cuda_scratch(pp_context *ctx, size_t bytes, const char *fn);

// Look-back flags for `tiles` tiles; sets *epoch to the tag for this launch
// and *ticket_base to the first ticket number of this launch (the launch
// must take exactly `tiles` tickets). NULL on failure (message set).
uint32_t *pp_cuda_lookback(pp_context *ctx, size_t tiles, uint32_t *epoch,
                           unsigned long long *ticket_base, const char *fn);

// After a launch that was to take look-back tickets failed: re-reads the
// device's ticket count so that later launches number their tiles right.
void pp_cuda_ticket_resync(pp_context *ctx);

// ---- element traits from the type list ---------------------------------------

template <typename T> struct pp_traits;
#define PP_CUDA_TRAITS(E, T, S, K, U, W)                    \
    template <> struct pp_traits<T> {                       \
        static constexpr int kind = PP_KIND_##K;            \
        static constexpr pp_type type = E;                  \
        typedef U bits;                                     \
        typedef W wide;                                     \
    };
PP_FOR_EACH_TYPE(PP_CUDA_TRAITS)
#undef PP_CUDA_TRAITS

template <typename T> __host__ __device__ constexpr bool pp_is_float() { return pp_traits<T>::kind == PP_KIND_FLOAT; }

template <typename A, typename B> struct pp_same { static constexpr bool value = false; };
template <typename A> struct pp_same<A, A> { static constexpr bool value = true; };

template <typename T> __host__ __device__ __forceinline__ T pp_max_value()
{
    typedef typename pp_traits<T>::bits U;
    if constexpr (pp_is_float<T>()) {
        U u = sizeof(T) == 4 ? (U)0x7f800000u : (U)0x7ff0000000000000ull; // +inf
        T r;
        memcpy(&r, &u, sizeof r);
        return r;
    } else if constexpr (pp_traits<T>::kind == PP_KIND_SINT) return (T)((U)~(U)0 >> 1);
    else return (T)~(T)0;
}
template <typename T> __host__ __device__ __forceinline__ T pp_min_value()
{
    if constexpr (pp_is_float<T>()) return -pp_max_value<T>();
    else if constexpr (pp_traits<T>::kind == PP_KIND_SINT) return (T)(-pp_max_value<T>() - 1);
    else return (T)0;
}

// ---- operators ----------------------------------------------------------------
// Op::apply(a, b) and Op::identity<T>() (the neutral element: -0.0 for a float
// sum, so that -0.0 inputs sum exactly as in sequence); public_identity is
// what the API writes as "the identity" (+0.0 for a float sum). Integer
// arithmetic wraps through the unsigned wide type. Float MIN and MAX give NaN
// if either side is NaN and order -0.0 below +0.0. AND, OR and XOR on floats
// are never dispatched (the core rejects them) and only make the tables
// complete.

struct Op_sum {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a + b;
        else { typedef typename pp_traits<T>::wide W; return (T)((W)a + (W)b); }
    }
    template <typename T> __device__ __forceinline__ static T identity()
    {
        if constexpr (pp_is_float<T>()) return (T)-0.0;
        else return (T)0;
    }
};
struct Op_prod {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a * b;
        else { typedef typename pp_traits<T>::wide W; return (T)((W)a * (W)b); }
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)1; }
};
struct Op_min {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return (a < b || a != a || (a == b && signbit(a))) ? a : b;
        else return b < a ? b : a;
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_max_value<T>(); }
};
struct Op_max {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return (a > b || a != a || (a == b && !signbit(a))) ? a : b;
        else return b > a ? b : a;
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_min_value<T>(); }
};
struct Op_and {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a & b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return pp_is_float<T>() ? (T)0 : (T)~(T)0; }
};
struct Op_or {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a | b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)0; }
};
struct Op_xor {
    template <typename T> __device__ __forceinline__ static T apply(T a, T b)
    {
        if constexpr (pp_is_float<T>()) return a;
        else return (T)(a ^ b);
    }
    template <typename T> __device__ __forceinline__ static T identity() { return (T)0; }
};

// The identity as the API writes it (+0.0 for a float sum); host and device.
template <typename T, typename Op> __host__ __device__ __forceinline__ T pp_public_identity()
{
    if constexpr (pp_same<Op, Op_sum>::value) return (T)0;
    else if constexpr (pp_same<Op, Op_prod>::value) return (T)1;
    else if constexpr (pp_same<Op, Op_min>::value) return pp_max_value<T>();
    else if constexpr (pp_same<Op, Op_max>::value) return pp_min_value<T>();
    else if constexpr (pp_same<Op, Op_and>::value) return pp_is_float<T>() ? (T)0 : (T)~(T)0;
    else return (T)0;
}

// Element j of a 16-byte vector holding 16 / sizeof(T) elements (j is a
// compile-time constant after unrolling, so this is register arithmetic).
template <typename T> __device__ __forceinline__ T pp_vget(const uint4 &q, int j)
{
    constexpr int S = (int)sizeof(T);
    const int k = (j * S) >> 2;
    const uint32_t w = k == 0 ? q.x : k == 1 ? q.y : k == 2 ? q.z : q.w;
    T r;
    if constexpr (S == 8) {
        const uint32_t w2 = k == 0 ? q.y : q.w;
        unsigned long long u = ((unsigned long long)w2 << 32) | w;
        memcpy(&r, &u, 8);
    } else {
        typedef typename pp_traits<T>::bits U;
        U b = (U)(w >> (((j * S) & 3) * 8));
        memcpy(&r, &b, S);
    }
    return r;
}

// ---- warp and block scans -------------------------------------------------------

// Shuffles any element type (1 to 8 bytes) through its bits: shfl is
// applied to a 64-bit word for 8-byte types, else to a 32-bit word.
template <typename T, typename F> __device__ __forceinline__ T pp_shfl_bits(T v, F shfl)
{
    if constexpr (sizeof(T) == 8) {
        unsigned long long u;
        memcpy(&u, &v, 8);
        u = shfl(u);
        memcpy(&v, &u, 8);
    } else {
        unsigned u = 0;
        memcpy(&u, &v, sizeof(T));
        u = shfl(u);
        memcpy(&v, &u, sizeof(T));
    }
    return v;
}
template <typename T> __device__ __forceinline__ T pp_shfl_up(T v, int delta)
{
    return pp_shfl_bits(v, [delta](auto u) { return __shfl_up_sync(0xffffffffu, u, delta); });
}
template <typename T> __device__ __forceinline__ T pp_shfl(T v, int lane)
{
    return pp_shfl_bits(v, [lane](auto u) { return __shfl_sync(0xffffffffu, u, lane); });
}
template <typename T> __device__ __forceinline__ T pp_shfl_xor(T v, int mask)
{
    return pp_shfl_bits(v, [mask](auto u) { return __shfl_xor_sync(0xffffffffu, u, mask); });
}

// Inclusive scan across the 32 lanes of a full warp (Hillis-Steele with
// shuffles, log2(32) steps).
template <typename T, typename Op> __device__ __forceinline__ T pp_warp_inclusive(T v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        T u = pp_shfl_up(v, d);
        if (lane >= d) v = Op::apply(u, v);
    }
    return v;
}

// Reduction across a full warp; every lane gets the result. The combination
// order is fixed (a butterfly), so results are reproducible.
template <typename T, typename Op> __device__ __forceinline__ T pp_warp_reduce(T v)
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2) v = Op::apply(v, pp_shfl_xor(v, m));
    return v;
}

// Exclusive scan of one value per thread across a block of BLOCK threads
// (a multiple of 32): returns the exclusive prefix (identity for thread 0)
// and the block's total in *total. smem: BLOCK / 32 elements. Contains
// __syncthreads(): every thread of the block must call it.
template <typename T, typename Op, int BLOCK>
__device__ __forceinline__ T pp_block_exclusive(T v, T *total, T *smem)
{
    constexpr int WARPS = BLOCK / 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inc = pp_warp_inclusive<T, Op>(v);
    if (lane == 31) smem[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        T w = lane < WARPS ? smem[lane] : Op::template identity<T>();
        w = pp_warp_inclusive<T, Op>(w);
        if (lane < WARPS) smem[lane] = w;
    }
    __syncthreads();
    T warp_prefix = warp > 0 ? smem[warp - 1] : Op::template identity<T>();
    *total = smem[WARPS - 1];
    T excl = pp_shfl_up(inc, 1);
    if (lane == 0) excl = Op::template identity<T>();
    T r = Op::apply(warp_prefix, excl);
    __syncthreads(); // smem may be reused by the caller
    return r;
}

// ---- memory-model helpers (release/acquire at device scope) -----------------------

__device__ __forceinline__ void pp_store_release(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t pp_load_acquire(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// Strong relaxed accesses at gpu scope: for words that carry their own
// payload, where a reader needs only to see a whole word, never a torn one.
__device__ __forceinline__ void pp_store_relaxed(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t pp_load_relaxed(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void pp_store_relaxed64(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ uint64_t pp_load_relaxed64(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// ---- decoupled look-back (Merrill and Garland, 2016) --------------------------------
// Each tile publishes its aggregate (state 1), looks back over earlier tiles
// until it meets one that has published its inclusive prefix (state 2),
// combines what it saw, and publishes its own inclusive prefix. Values are
// written before the flag is released; a reader acquires the flag before it
// reads a value. Flags carry the launch's epoch, so stale flags of earlier
// launches read as "not yet published".

enum { PP_LB_NONE = 0, PP_LB_AGGREGATE = 1, PP_LB_PREFIX = 2 };

// The arena holds one 64-bit word per tile. Packed mode (values that fit in
// 32 bits: elements of 4 bytes or less, or counts below 2^32): the word is
// (tag | state) << 32 | value, written and read whole by single 64-bit
// accesses, so a reader that sees the state sees its value: no fences. Else
// the low half of the word is the flag (release store after the value,
// acquire load before it) and the values live in agg / incl.
template <typename T> struct pp_lookback {
    uint32_t *flags; // the arena: 2 words per tile
    T *agg;          // per tile (unpacked mode only)
    T *incl;         // per tile (unpacked mode only)
    uint32_t epoch;
    int packed;      // values fit in 32 bits: use packed words
    unsigned first_ns; // sleep before the first poll (pp_lb_delays)
    unsigned poll_ns;  // sleep between polls that find a tile unpublished
};

template <typename T> __device__ __forceinline__ uint32_t pp_lb_bits(T v)
{
    if constexpr (sizeof(T) <= 4) {
        uint32_t u = 0;
        memcpy(&u, &v, sizeof(T));
        return u;
    } else {
        unsigned long long u;
        memcpy(&u, &v, 8);
        return (uint32_t)u; // counts below 2^32 only
    }
}
template <typename T> __device__ __forceinline__ T pp_lb_value(uint32_t u)
{
    T v;
    if constexpr (sizeof(T) <= 4) {
        memcpy(&v, &u, sizeof(T));
    } else {
        unsigned long long w = u;
        memcpy(&v, &w, 8);
    }
    return v;
}

template <typename T>
__device__ __forceinline__ void pp_lb_publish(const pp_lookback<T> &lb, unsigned long long tile, uint32_t state, T v)
{
    const uint32_t tag = lb.epoch << 2;
    if (lb.packed) {
        unsigned long long w = ((unsigned long long)(tag | state) << 32) | pp_lb_bits(v);
        pp_store_relaxed64((unsigned long long *)lb.flags + tile, w);
    } else {
        if (state == PP_LB_PREFIX) lb.incl[tile] = v;
        else lb.agg[tile] = v;
        pp_store_release(&lb.flags[2 * tile], tag | state);
    }
}

// Reads the state and (packed mode) value of tile idx's word; tiles before 0
// read as an empty inclusive prefix.
template <typename T>
__device__ __forceinline__ uint32_t pp_lb_read(const pp_lookback<T> &lb, long long idx, uint32_t tag, T &v)
{
    if (idx < 0) return PP_LB_PREFIX;
    uint32_t f;
    if (lb.packed) {
        unsigned long long w = pp_load_relaxed64((const unsigned long long *)lb.flags + idx);
        f = (uint32_t)(w >> 32);
        v = pp_lb_value<T>((uint32_t)w);
    } else {
        f = pp_load_acquire(&lb.flags[2 * idx]);
    }
    return (f & ~3u) == tag ? (f & 3u) : PP_LB_NONE;
}

// Called by all 32 lanes of ONE warp of the tile's block. Returns the
// exclusive prefix of tile (the identity for tile 0), the same in every
// lane, and publishes tile's inclusive prefix.
// The warp reads a window of 32 predecessors per round (lane l: tile
// base - l). A round ends when the nearest inclusive prefix in the window
// and every tile after it have published; it combines those and the
// look-back is over, or, where the window has no inclusive prefix and every
// tile in it has published, combines the whole window and moves 32 tiles
// further back.
// Polling. Every waiting tile reads the few cache lines just behind the
// frontier of published prefixes, and so do the tiles publishing there: on
// a full GPU, unthrottled polling slows every access to those lines, and
// the frontier with them. So a tile first sleeps lb.first_ns (about the
// time its predecessors need to publish), then lb.poll_ns between reads
// that find a predecessor not yet published (both 0 for small grids, where
// there is no contention and latency matters).
template <typename T, typename Op>
__device__ T pp_lookback_prefix(const pp_lookback<T> &lb, unsigned long long tile, T tile_agg)
{
    const int lane = threadIdx.x & 31;
    const uint32_t tag = lb.epoch << 2;
    const T id = Op::template identity<T>();
    if (tile == 0) {
        if (lane == 0) pp_lb_publish(lb, 0, PP_LB_PREFIX, tile_agg);
        return id;
    }
    if (lane == 0) pp_lb_publish(lb, tile, PP_LB_AGGREGATE, tile_agg);
    if (lb.first_ns) __nanosleep(lb.first_ns);
    T prefix = id;
    long long base = (long long)tile - 1;
    for (;;) {
        const long long idx = base - lane;
        uint32_t state;
        T v = id;
        for (;;) {
            state = pp_lb_read(lb, idx, tag, v);
            const unsigned with_prefix = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
            // Lanes up to and including the nearest prefix must have published.
            const unsigned needed = with_prefix ? (with_prefix & -with_prefix) * 2u - 1u : 0xffffffffu;
            if (!(__ballot_sync(0xffffffffu, state == PP_LB_NONE) & needed)) break;
            if (lb.poll_ns) __nanosleep(lb.poll_ns);
        }
        const unsigned with_prefix = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
        const int stop = with_prefix ? __ffs(with_prefix) - 1 : 31;
        if (!lb.packed && idx >= 0) v = state == PP_LB_PREFIX ? lb.incl[idx] : lb.agg[idx];
        if (lane > stop || idx < 0) v = id;
        v = pp_warp_reduce<T, Op>(v);
        prefix = Op::apply(v, prefix);
        if (with_prefix) break;
        base -= 32;
    }
    prefix = pp_shfl(prefix, 0); // one value in every lane (floats may round per lane)
    if (lane == 0) pp_lb_publish(lb, tile, PP_LB_PREFIX, Op::apply(prefix, tile_agg));
    return prefix;
}

// Polling delays for a look-back launch of `tiles` tiles (see
// pp_lookback_prefix): measured on an H200, a first sleep of 2 us and
// 0.5 us between polls gave scans about 25% faster than unthrottled polling
// at 2^28 elements; small launches poll without delay.
template <typename T> inline void pp_lb_delays(pp_lookback<T> &lb, size_t tiles)
{
    const bool busy = tiles >= 512;
    lb.first_ns = busy ? 2000u : 0u;
    lb.poll_ns = busy ? 500u : 0u;
}

// A dynamic tile index: tiles are numbered in the order blocks start, so a
// tile's predecessors have all started (the look-back's progress argument).
__device__ __forceinline__ unsigned long long pp_take_tile(unsigned long long *ticket, unsigned long long base)
{
    __shared__ unsigned long long t;
    if (threadIdx.x == 0) t = atomicAdd(ticket, 1ull) - base;
    __syncthreads();
    unsigned long long r = t;
    __syncthreads();
    return r;
}

// ---- packed 16-byte vectors and block reduction (added for reduce and scan) ----------

// Sixteen bytes of elements (16 / sizeof(T) of them) kept packed in four
// 32-bit registers, so that 1- and 2-byte types do not take a register per
// element. Call get/set with indices known at compile time (from unrolled
// loops): they become shifts and bit-field inserts. load/store are single
// 16-byte accesses, so their address must be 16-byte aligned.
template <typename T> struct pp_vec16 {
    static constexpr int N = 16 / (int)sizeof(T);
    uint32_t w[4];

    __device__ __forceinline__ void load(const T *p)
    {
        uint4 u = *reinterpret_cast<const uint4 *>(p);
        w[0] = u.x;
        w[1] = u.y;
        w[2] = u.z;
        w[3] = u.w;
    }
    __device__ __forceinline__ void store(T *p) const
    {
        *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    }
    __device__ __forceinline__ T get(int i) const
    {
        T r;
        if constexpr (sizeof(T) == 8) {
            unsigned long long u = ((unsigned long long)w[2 * i + 1] << 32) | w[2 * i];
            memcpy(&r, &u, 8);
        } else if constexpr (sizeof(T) == 4) {
            memcpy(&r, &w[i], 4);
        } else {
            constexpr int PER = 4 / (int)sizeof(T);
            typename pp_traits<T>::bits u = (typename pp_traits<T>::bits)(w[i / PER] >> (8 * (int)sizeof(T) * (i % PER)));
            memcpy(&r, &u, sizeof(T));
        }
        return r;
    }
    __device__ __forceinline__ void set(int i, T v)
    {
        if constexpr (sizeof(T) == 8) {
            unsigned long long u;
            memcpy(&u, &v, 8);
            w[2 * i] = (uint32_t)u;
            w[2 * i + 1] = (uint32_t)(u >> 32);
        } else if constexpr (sizeof(T) == 4) {
            memcpy(&w[i], &v, 4);
        } else {
            constexpr int PER = 4 / (int)sizeof(T);
            typename pp_traits<T>::bits u;
            memcpy(&u, &v, sizeof(T));
            const int sh = 8 * (int)sizeof(T) * (i % PER);
            const uint32_t m = ((1u << (8 * sizeof(T))) - 1u) << sh;
            w[i / PER] = (w[i / PER] & ~m) | ((uint32_t)u << sh);
        }
    }
};

// Reduction of one value per thread across a block of BLOCK threads (a
// multiple of 32) in a fixed order (reproducible); the result is valid in
// lane 0 of warp 0 (the other lanes of warp 0 hold it too, but float sums
// and products may round differently there: the butterfly pairs values
// differently in each lane). smem: BLOCK / 32 elements. For BLOCK > 32 it
// contains one __syncthreads(), so every thread of the block must call it,
// and the caller must synchronize again before smem is written anew.
template <typename T, typename Op, int BLOCK> __device__ __forceinline__ T pp_block_reduce(T v, T *smem)
{
    constexpr int WARPS = BLOCK / 32;
    v = pp_warp_reduce<T, Op>(v);
    if constexpr (WARPS > 1) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) smem[warp] = v;
        __syncthreads();
        if (warp == 0) {
            v = lane < WARPS ? smem[lane] : Op::template identity<T>();
            v = pp_warp_reduce<T, Op>(v);
        }
    }
    return v;
}

// Tables indexed [type][op] are filled from PP_FOR_EACH_TYPE_OP in list
// order; this checks that the list order is the enum order.
#define PP_TYPE_OP_ORDER_CELL_(E, T, S, K, OE, OS) (int)(E) * PP_OP_COUNT + (int)(OE),
constexpr int pp_type_op_order[] = {PP_FOR_EACH_TYPE_OP(PP_TYPE_OP_ORDER_CELL_)};
#undef PP_TYPE_OP_ORDER_CELL_
constexpr bool pp_type_op_order_ok()
{
    if (sizeof pp_type_op_order / sizeof pp_type_op_order[0] != PP_TYPE_COUNT * PP_OP_COUNT) return false;
    for (int i = 0; i < PP_TYPE_COUNT * PP_OP_COUNT; i++)
        if (pp_type_op_order[i] != i) return false;
    return true;
}
static_assert(pp_type_op_order_ok(), "the type and operator lists must be in enum order");

#endif
