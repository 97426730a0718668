// The tile level of cuda_scan.cu, shared by every scan kernel (scan/
// tile_kernels.cuh, scan/ahead.cuh): the tile's shape, its loads and
// stores, and the in-tile scan. Internal linkage: included by cuda_scan.cu
// only.
//
// A block of SCAN_BLOCK threads scans one tile of TILE elements; every
// thread holds SCAN_V 16-byte vectors (128 bytes: 32 items of a 4-byte type,
// 16 of an 8-byte type, 128 of a 1-byte type; a tile is 32 KB). The arrangement is warp-striped:
// warp w owns the WARP_ITEMS consecutive elements from w * WARP_ITEMS, and
// its vector j of lane l holds the E = 16 / sizeof(T) elements from
// (j * 32 + l) * E. Every load and store instruction of a warp therefore
// covers 512 consecutive bytes, and no shared-memory transpose is needed.
// (Only the last, partial tile, or any tile when `in` or `out` is not 16-byte
// aligned, goes through shared memory: coalesced element accesses there,
// 16-byte accesses to shared memory by each thread.)
// In-tile scan: each thread folds each of its vectors; SCAN_V interleaved
// warp scans (one per vector index j, in j-major element order) give each
// vector its prefix within the warp and the warp's total; one warp scans the
// warp totals. The tile then finds its exclusive prefix (as its kernel
// does), and each thread rescans its vectors serially from their prefixes
// and stores them. A tile reads all of its input into registers before it
// writes anything, and tiles touch disjoint ranges, so in == out works.
// Why 32 KB tiles and shape::MIN_BLOCKS: see scan_tiles
// (scan/tile_kernels.cuh).
#ifndef PP_CUDA_SCAN_TILE_CUH
#define PP_CUDA_SCAN_TILE_CUH

#include "../device/ops.cuh"
#include "../device/vec.cuh"
#include "../device/warp_scan.cuh"

namespace {

constexpr int SCAN_BLOCK = 256;      // threads per tile
constexpr int SCAN_V = 8;            // 16-byte vectors per thread
constexpr int SCAN_WARPS = SCAN_BLOCK / 32;

template <typename T> struct shape {
    static constexpr int E = pp_vec16<T>::N;             // elements per vector
    static constexpr int ITEMS = SCAN_V * E;              // per thread
    static constexpr int WARP_ITEMS = 32 * ITEMS;         // per warp
    static constexpr int TILE = SCAN_BLOCK * ITEMS;       // per block
    // Resident blocks per SM asked of ptxas (at least): 4 for elements of up
    // to 4 bytes (64 registers), 2 for 8-byte ones. More resident tiles keep
    // more loads in flight while tiles wait in the look-back; for 8-byte
    // types more than 2 did not pay (bench/studies/cuda-scan.md, "cuda scan: four
    // resident tiles per SM for elements up to 4 bytes").
    static constexpr int MIN_BLOCKS = sizeof(T) <= 4 ? 4 : 2;
};

// Hides the words of x from the optimizer (no instruction is emitted), so
// that element extractions after this point are not merged with those before
// it: between the fold and the rescan only the 16 packed words stay live,
// not every extracted element (which matters for 1- and 2-byte types).
template <typename T> __device__ __forceinline__ void launder(pp_vec16<T> (&x)[SCAN_V])
{
#pragma unroll
    for (int j = 0; j < SCAN_V; j++)
#pragma unroll
        for (int k = 0; k < 4; k++) asm volatile("" : "+r"(x[j].w[k]));
}

// Loads this thread's SCAN_V vectors. `off` is the offset in the tile of the
// thread's vector 0 (vector j is at off + j * 32 * E). vec (whole tile,
// `in` 16-byte aligned): one 16-byte load per vector. Otherwise (the last,
// partial tile, or a misaligned `in`) the block stages the tile through
// shared memory: element loads, coalesced and guarded by n, with the
// identity past the end, then 16-byte reads from `stage`. vec is the same in
// the whole block, so the barriers are reached by all threads.
template <typename T, typename Op>
__device__ __forceinline__ void load_tile(const T *in, size_t tile_base, int off, size_t n, bool vec, T *stage,
                                          pp_vec16<T> (&x)[SCAN_V])
{
    constexpr int E = shape<T>::E, TILE = shape<T>::TILE;
    if (vec) {
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].load(in + tile_base + off + j * 32 * E);
    } else {
        const size_t len = n - tile_base < (size_t)TILE ? n - tile_base : (size_t)TILE;
        __syncthreads(); // earlier users of stage are done
#pragma unroll 4
        for (int k = threadIdx.x; k < TILE; k += SCAN_BLOCK)
            stage[k] = (size_t)k < len ? in[tile_base + k] : Op::template identity<T>();
        __syncthreads();
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].load(stage + off + j * 32 * E);
    }
    launder<T>(x);
}

// Stores this thread's vectors, the same way round (staged: only the first
// n - tile_base elements of the tile are written).
template <typename T>
__device__ __forceinline__ void store_tile(T *out, size_t tile_base, int off, size_t n, bool vec, T *stage,
                                           const pp_vec16<T> (&x)[SCAN_V])
{
    constexpr int E = shape<T>::E, TILE = shape<T>::TILE;
    if (vec) {
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].store(out + tile_base + off + j * 32 * E);
    } else {
        const size_t len = n - tile_base < (size_t)TILE ? n - tile_base : (size_t)TILE;
        __syncthreads(); // every thread has read its vectors from stage
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) x[j].store(stage + off + j * 32 * E);
        __syncthreads();
#pragma unroll 4
        for (int k = threadIdx.x; k < TILE; k += SCAN_BLOCK)
            if ((size_t)k < len) out[tile_base + k] = stage[k];
    }
}

enum { F_EXCL = 1, F_IN16 = 2, F_OUT16 = 4 };

// The in-tile part shared by both algorithms. tile_local: each thread folds
// each of its vectors, SCAN_V interleaved warp scans give pre[j] (everything
// of the warp before vector j of this lane), and lane 0 of each warp leaves
// the warp's total in s_warp[warp]. The caller synchronizes, then
// tile_prefixes (warp 0 only) scans the warp totals and, given the tile's
// exclusive prefix from `get_prefix(tile_agg)`, leaves each warp's exclusive
// prefix in s_warp (lane k reads and then writes only s_warp[k]).
template <typename T, typename Op>
__device__ __forceinline__ void tile_local(const pp_vec16<T> (&x)[SCAN_V], T (&pre)[SCAN_V], T *s_warp)
{
    constexpr int E = shape<T>::E;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T id = Op::template identity<T>();
    T inc[SCAN_V];
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T r = x[j].get(0);
#pragma unroll
        for (int e = 1; e < E; e++) r = Op::apply(r, x[j].get(e));
        inc[j] = r;
    }
#pragma unroll
    for (int d = 1; d < 32; d *= 2)
#pragma unroll
        for (int j = 0; j < SCAN_V; j++) {
            T u = pp_shfl_up(inc[j], d);
            if (lane >= d) inc[j] = Op::apply(u, inc[j]);
        }
    T run = id;
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T ex = pp_shfl_up(inc[j], 1);
        if (lane == 0) ex = id;
        pre[j] = j == 0 ? ex : Op::apply(run, ex);
        run = Op::apply(run, pp_shfl(inc[j], 31));
    }
    if (lane == 0) s_warp[warp] = run;
}

template <typename T, typename Op, typename G>
__device__ __forceinline__ void tile_prefixes(T *s_warp, G get_prefix)
{
    const int lane = threadIdx.x & 31;
    const T id = Op::template identity<T>();
    T wi = pp_warp_inclusive<T, Op>(lane < SCAN_WARPS ? s_warp[lane] : id);
    T tile_agg = pp_shfl(wi, SCAN_WARPS - 1);
    T wex = pp_shfl_up(wi, 1);
    if (lane == 0) wex = id;
    T prefix = get_prefix(tile_agg);
    if (lane < SCAN_WARPS) s_warp[lane] = Op::apply(prefix, wex);
}

// Rescans each vector serially from its prefix wp (the warp's) combined
// with pre[j], in registers; exclusive or inclusive outputs replace x.
template <typename T, typename Op>
__device__ __forceinline__ void tile_rescan(pp_vec16<T> (&x)[SCAN_V], const T (&pre)[SCAN_V], T wp, bool excl)
{
    constexpr int E = shape<T>::E;
#pragma unroll
    for (int j = 0; j < SCAN_V; j++) {
        T c = Op::apply(wp, pre[j]);
        if constexpr (sizeof(T) >= 4) {
#pragma unroll
            for (int e = 0; e < E; e++) {
                T v = x[j].get(e);
                T nc = Op::apply(c, v);
                x[j].set(e, excl ? c : nc);
                c = nc;
            }
        } else {
            // Sub-word types: rebuild each 32-bit word from its outputs.
            constexpr int PER = 4 / (int)sizeof(T);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                uint32_t word = 0;
#pragma unroll
                for (int b = 0; b < PER; b++) {
                    T v = x[j].get(k * PER + b);
                    T nc = Op::apply(c, v);
                    T y = excl ? c : nc;
                    typename pp_traits<T>::bits u;
                    memcpy(&u, &y, sizeof(T));
                    word |= (uint32_t)u << (8 * (int)sizeof(T) * b);
                    c = nc;
                }
                x[j].w[k] = word;
            }
        }
    }
}

// The carry into tile 0: pp_scan_init's initial value (init, one element
// of device memory), else the identity. Every kernel reads *init only in
// the threads that start tile 0's prefix (or the block's running prefix).
template <typename T, typename Op> __device__ __forceinline__ T scan_carry0(const T *init)
{
    return init ? *init : Op::template identity<T>();
}

// An exclusive scan's out[0]: init's own bits (pp_scan_init), else the
// public identity.
template <typename T, typename Op> __device__ __forceinline__ T scan_first_out(const T *init)
{
    return init ? *init : pp_public_identity<T, Op>();
}

// The end of a tile for both kernels, once s_warp holds each warp's
// exclusive prefix (wp, this warp's): rescans the thread's vectors from it
// (the first element of an exclusive scan is scan_first_out) and stores
// them.
template <typename T, typename Op>
__device__ __forceinline__ void tile_finish(pp_vec16<T> (&x)[SCAN_V], const T (&pre)[SCAN_V], T wp, bool first,
                                            const T *init, int flags, T *out, size_t tile_base, int off, size_t n,
                                            bool whole, T *stage)
{
    launder<T>(x);
    tile_rescan<T, Op>(x, pre, wp, flags & F_EXCL);
    if ((flags & F_EXCL) && first && threadIdx.x == 0) x[0].set(0, scan_first_out<T, Op>(init));
    store_tile<T>(out, tile_base, off, n, whole && (flags & F_OUT16), stage, x);
}

} // namespace

#endif
