// cuda stream compaction: select_flagged, select_if, unique, partition_if.
//
// One pass with decoupled look-back (PP_ALGO_DECOUPLED_LOOKBACK, also what
// AUTO runs). The input is cut into tiles of TILE = SELECT_BLOCK * ROUNDS *
// VEC elements: 32 KB of input for 4- and 8-byte types, 16 KB for smaller
// ones (VEC = 16 / sizeof(T) elements per 16-byte vector, ROUNDS =
// sel_rounds<T>() vectors per thread).
// One block per tile, tiles numbered by a ticket in the order blocks start.
// Tiles are aligned to 16-byte boundaries of the input: a "virtual" index
// v = i + a, where in - a is 16-byte aligned, so every tile but the first
// and the last is read with whole, aligned vector loads; those two are read
// element by element with bounds checks.
//
// In a tile, warp w owns the contiguous segment [w * SEG, (w + 1) * SEG); in
// round r lane l holds the vector at r * 32 + l of that segment. Input order
// is therefore (warp, round, lane, element). Each lane counts its selected
// elements per round; the ROUNDS counts are packed into one integer (fields
// wide enough for a round's warp total) so that ONE warp-wide inclusive sum
// gives every lane its exclusive rank base in every round. Warp totals are
// combined through shared memory; every warp stages its selected elements
// in shared memory at their tile-local ranks, and warp 0, once it has
// staged its own, runs the look-back over the tiles' selected counts
// (uint64, Op_sum) while the other warps are still staging. After a barrier
// the block writes the staged elements to consecutive positions of out
// (coalesced). The last tile writes *count.
//
// partition_if: rejected elements are staged after the selected ones in
// reverse order and written to the end of out in reverse order (the r-th
// rejected element of the input at out[n - 1 - r]); a second small kernel
// then reverses out[count, n) in place, reading count from device memory.
// A single-tile input knows count at once and writes the rejected elements
// in place directly (one launch).
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/lookback.cuh"
#include "device/ops.cuh"
#include "device/util.cuh"
#include "device/vec.cuh"
#include "device/warp_scan.cuh"

namespace {

constexpr int SELECT_BLOCK = 256; // threads per block
constexpr int SELECT_WARPS = SELECT_BLOCK / 32;
// 16-byte vectors per thread (rounds): 8 for 4- and 8-byte elements (32 KB
// tiles), 4 for 1- and 2-byte ones (16 KB; more rounds would not fit the
// packed counts, see SelPack). For 4-byte elements 8 rounds beat 4, with
// 4 blocks per SM rather than 5, where the registers spill
// (bench/studies/cuda-overall.md, "cuda backend against CUB").
template <typename T> __host__ __device__ constexpr int sel_rounds() { return sizeof(T) >= 4 ? 8 : 4; }
// Blocks per SM the registers must allow: 4 (64 registers) for 4- and
// 8-byte elements; 8- and 16-bit elements (32 and 64 per thread) get 5.
template <typename T> constexpr int sel_minb() { return sizeof(T) >= 4 ? 4 : 5; }

template <typename T> struct SelParams {
    const T *in;
    const uint8_t *flags;
    uint64_t n;
    uint64_t a;      // in - a is 16-byte aligned (elements)
    uint64_t ntiles;
    T value;
    T *out;
    uint64_t *count;
    pp_lookback<uint64_t> lb;
    unsigned long long *ticket;
    unsigned long long tbase;
};


// Bit j set when flag byte j of VEC bytes at p (VEC-byte aligned) is nonzero.
template <int VEC> __device__ __forceinline__ uint32_t sel_flag_mask(const uint8_t *p)
{
    uint32_t w[4] = {0, 0, 0, 0};
    if constexpr (VEC == 16) {
        uint4 q = __ldg(reinterpret_cast<const uint4 *>(p));
        w[0] = q.x;
        w[1] = q.y;
        w[2] = q.z;
        w[3] = q.w;
    } else if constexpr (VEC == 8) {
        uint2 q = __ldg(reinterpret_cast<const uint2 *>(p));
        w[0] = q.x;
        w[1] = q.y;
    } else if constexpr (VEC == 4) {
        w[0] = __ldg(reinterpret_cast<const unsigned int *>(p));
    } else {
        w[0] = __ldg(reinterpret_cast<const unsigned short *>(p));
    }
    uint32_t m = 0;
#pragma unroll
    for (int j = 0; j < VEC; j++) m |= (((w[j >> 2] >> ((j & 3) * 8)) & 0xffu) != 0 ? 1u : 0u) << j;
    return m;
}

// Packed per-round counts: one field per round, 8 bits wide while a round's
// warp total fits (32 lanes * VEC <= 128, i.e. VEC <= 4), else 16 bits; the
// fields of all rounds must fit 64 bits.
template <bool WIDE> struct SelWord {
    typedef uint32_t type;
};
template <> struct SelWord<true> {
    typedef uint64_t type;
};
template <int VEC, int R> struct SelPack {
    static constexpr int bits = 32 * VEC < 256 ? 8 : 16;
    static_assert(R * bits <= 64, "select: the packed round counts must fit 64 bits");
    typedef typename SelWord<(R * bits > 32)>::type type;
};

// One tile of a select (see the top of the file).
// Correctness: the packed scan gives each selected element its rank among
// the tile's selected elements in input order (rounds before, lanes before,
// elements before in the lane's vector; fields never carry: a round's warp
// total is at most 32 * VEC < 2^bits); warps before it add their totals.
// Ranks are distinct and < tsel, so staging has no write conflicts, and the
// staged elements are read only after the barrier. The look-back gives the
// number selected in all earlier tiles (tiles are numbered in start order,
// so every earlier tile has started and will publish). Rejected elements of
// a partition are staged at valid - 1 - r (r = their rank among the tile's
// rejected), which maps them onto out[n - 1 - R] for their global rejected
// rank R = rejected_before_tile + r, always >= count; selected ones land
// below count.
template <typename T, pp_select_mode MODE, int CMP, bool FVEC>
__global__ void __launch_bounds__(SELECT_BLOCK, sel_minb<T>()) select_kernel(const SelParams<T> p)
{
    constexpr int VEC = 16 / (int)sizeof(T);
    constexpr int ROUNDS = sel_rounds<T>();
    constexpr int SEG = 32 * ROUNDS * VEC;
    constexpr int TILE = SELECT_BLOCK * ROUNDS * VEC;
    typedef typename SelPack<VEC, ROUNDS>::type P;
    constexpr int FIELD_BITS = SelPack<VEC, ROUNDS>::bits;
    constexpr P FIELD_MASK = (P)((1u << FIELD_BITS) - 1);

    __shared__ __align__(16) T stage[TILE];
    __shared__ uint32_t wtot[SELECT_WARPS];
    __shared__ uint64_t s_prefix;

    const unsigned long long tile = pp_take_tile(p.ticket, p.tbase);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t vbeg = (uint64_t)tile * TILE; // virtual index of the tile's first slot
    const uint64_t vend = p.a + p.n;              // virtual end of the input
    const bool full = vbeg >= p.a && vbeg + TILE <= vend;

    uint4 raw[ROUNDS];
    uint32_t fm[ROUNDS]; // selected, bit j = element j of the lane's vector in round r

    if (full) {
        const uint4 *vin = reinterpret_cast<const uint4 *>(reinterpret_cast<uintptr_t>(p.in) - p.a * sizeof(T));
        const uint64_t v0 = vbeg / VEC + (uint64_t)warp * 32 * ROUNDS + lane;
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) raw[r] = __ldg(vin + v0 + 32 * r);
        if constexpr (MODE == PP_SELECT_IF || MODE == PP_SELECT_PARTITION) {
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                uint32_t m = 0;
#pragma unroll
                for (int j = 0; j < VEC; j++) m |= (pp_compare<CMP>(pp_vget<T>(raw[r], j), p.value) ? 1u : 0u) << j;
                fm[r] = m;
            }
        } else if constexpr (MODE == PP_SELECT_FLAGGED) {
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                const uint64_t i0 = (v0 + 32 * r) * VEC - p.a; // real index of the vector's first element
                if constexpr (FVEC) {
                    fm[r] = sel_flag_mask<VEC>(p.flags + i0);
                } else {
                    uint32_t m = 0;
#pragma unroll
                    for (int j = 0; j < VEC; j++) m |= (__ldg(p.flags + i0 + j) != 0 ? 1u : 0u) << j;
                    fm[r] = m;
                }
            }
        } else { // PP_SELECT_UNIQUE: the element before each one comes from the lane itself,
                 // the lane before (shuffle), lane 31 of the round before, or memory.
            const uint64_t seg = vbeg + (uint64_t)warp * SEG - p.a; // real index of the segment start
            T gprev = (T)0;
            if (lane == 0 && seg > 0) gprev = p.in[seg - 1];
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                const T from31 = r > 0 ? pp_shfl(pp_vget<T>(raw[r > 0 ? r - 1 : 0], VEC - 1), 31) : gprev;
                const T up = pp_shfl_up(pp_vget<T>(raw[r], VEC - 1), 1);
                const T p0 = lane == 0 ? from31 : up;
                uint32_t m = 0;
#pragma unroll
                for (int j = 0; j < VEC; j++) {
                    const T x = pp_vget<T>(raw[r], j);
                    const T pv = j == 0 ? p0 : pp_vget<T>(raw[r], j > 0 ? j - 1 : 0);
                    bool f = !(x == pv);
                    if (r == 0 && j == 0 && lane == 0 && seg == 0) f = true;
                    m |= (f ? 1u : 0u) << j;
                }
                fm[r] = m;
            }
        }
    } else {
        // First or last tile: element by element, with bounds.
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            T e[VEC];
            uint32_t m = 0;
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                const uint64_t vp = vbeg + (uint64_t)warp * SEG + r * 32 * VEC + lane * VEC + j;
                e[j] = (T)0;
                if (vp >= p.a && vp < vend) {
                    const uint64_t i = vp - p.a;
                    const T x = p.in[i];
                    bool f;
                    if constexpr (MODE == PP_SELECT_IF || MODE == PP_SELECT_PARTITION) f = pp_compare<CMP>(x, p.value);
                    else if constexpr (MODE == PP_SELECT_FLAGGED) f = p.flags[i] != 0;
                    else f = i == 0 || !(x == p.in[i - 1]);
                    e[j] = x;
                    m |= (f ? 1u : 0u) << j;
                }
            }
            memcpy(&raw[r], e, 16);
            fm[r] = m;
        }
    }

    // Ranks: one packed warp scan for all rounds.
    P packed = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) packed |= (P)__popc(fm[r]) << (FIELD_BITS * r);
    const P incl = pp_warp_inclusive<P, Op_sum>(packed);
    const P excl = incl - packed;
    const P wt = pp_shfl(incl, 31);
    uint32_t acc = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) acc += (uint32_t)((wt >> (FIELD_BITS * r)) & FIELD_MASK);
    if (lane == 0) wtot[warp] = acc;
    __syncthreads();
    uint32_t wpre = 0, tsel = 0;
#pragma unroll
    for (int w = 0; w < SELECT_WARPS; w++) {
        const uint32_t t = wtot[w];
        wpre += w < warp ? t : 0;
        tsel += t;
    }
    const uint64_t lo_v = vbeg > p.a ? vbeg : p.a;            // first real slot (virtual)
    const uint64_t hi_v = vbeg + TILE < vend ? vbeg + TILE : vend; // end of the real slots
    const uint32_t valid = (uint32_t)(hi_v - lo_v);
    const uint32_t front = (uint32_t)(lo_v - vbeg);
    const bool single = p.ntiles == 1;

    // Stage: selected at their ranks; a partition's rejected from the end.
    // before: selected in earlier warps and in this warp's earlier rounds;
    // sr: selected elements before the current one in the tile.
    uint32_t before = wpre;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        uint32_t sr = before + (uint32_t)((excl >> (FIELD_BITS * r)) & FIELD_MASK);
        before += (uint32_t)((wt >> (FIELD_BITS * r)) & FIELD_MASK);
        const uint32_t pos0 = warp * SEG + r * 32 * VEC + lane * VEC;
#pragma unroll
        for (int j = 0; j < VEC; j++) {
            const T x = pp_vget<T>(raw[r], j);
            if ((fm[r] >> j) & 1u) {
                stage[sr] = x;
                sr++;
            } else if (MODE == PP_SELECT_PARTITION && pos0 + j - front < valid) { // inside the input
                const uint32_t rej = pos0 + j - front - sr; // rejected before it in the tile
                stage[single ? tsel + rej : valid - 1 - rej] = x;
            }
        }
    }

    // The look-back runs after warp 0 has staged its elements, so that their
    // registers are free; the other warps stage meanwhile.
    if (warp == 0) {
        const uint64_t pre = pp_lookback_prefix<uint64_t, Op_sum>(p.lb, tile, (uint64_t)tsel);
        if (lane == 0) {
            s_prefix = pre;
            if (tile == p.ntiles - 1) *p.count = pre + tsel;
        }
    }
    __syncthreads();

    const uint64_t pre = s_prefix;
    if constexpr (MODE != PP_SELECT_PARTITION) {
        for (uint32_t i = threadIdx.x; i < tsel; i += SELECT_BLOCK) p.out[pre + i] = stage[i];
    } else {
        // stage[i], i >= tsel, is rejected number valid - 1 - i of the tile:
        // it goes to out[n - 1 - (rej_before + valid - 1 - i)] = out[rdst + i].
        const uint64_t rej_before = (lo_v - p.a) - pre;
        const uint64_t rdst = single ? 0 : p.n - rej_before - valid;
        for (uint32_t i = threadIdx.x; i < valid; i += SELECT_BLOCK) p.out[i < tsel ? pre + i : rdst + i] = stage[i];
    }
}

// Reverses out[count, n) in place: thread k swaps out[count + k] and
// out[n - 1 - k] for k < (n - count) / 2. The pairs are disjoint, so no two
// threads touch one element, and each thread reads all its pairs before it
// writes any. count was written by the select kernel earlier on the stream.
template <typename U>
__global__ void __launch_bounds__(256) reverse_tail_kernel(U *out, uint64_t n, const uint64_t *count)
{
    constexpr int K = 4;
    const uint64_t c = *count;
    const uint64_t pairs = (n - c) / 2;
    const uint64_t stride = (uint64_t)gridDim.x * 256;
    for (uint64_t k = (uint64_t)blockIdx.x * 256 + threadIdx.x; k < pairs; k += K * stride) {
        U lo[K], hi[K];
#pragma unroll
        for (int u = 0; u < K; u++) {
            const uint64_t kk = k + u * stride;
            if (kk < pairs) {
                lo[u] = out[c + kk];
                hi[u] = out[n - 1 - kk];
            }
        }
#pragma unroll
        for (int u = 0; u < K; u++) {
            const uint64_t kk = k + u * stride;
            if (kk < pairs) {
                out[c + kk] = hi[u];
                out[n - 1 - kk] = lo[u];
            }
        }
    }
}

template <typename T, pp_select_mode MODE, int CMP, bool FVEC>
pp_status sel_launch(pp_context *ctx, const SelParams<T> &p, const char *fn)
{
    return pp_cuda_launched_tickets(ctx, fn,
                                    pp_cuda_launch(ctx, select_kernel<T, MODE, CMP, FVEC>, (unsigned)p.ntiles,
                                                   SELECT_BLOCK, 0, p));
}

template <typename T, pp_select_mode MODE>
pp_status sel_cmp_dispatch(pp_context *ctx, const SelParams<T> &p, pp_cmp cmp, const char *fn)
{
    switch (cmp) {
    case PP_LT: return sel_launch<T, MODE, PP_LT, false>(ctx, p, fn);
    case PP_LE: return sel_launch<T, MODE, PP_LE, false>(ctx, p, fn);
    case PP_GT: return sel_launch<T, MODE, PP_GT, false>(ctx, p, fn);
    case PP_GE: return sel_launch<T, MODE, PP_GE, false>(ctx, p, fn);
    case PP_EQ: return sel_launch<T, MODE, PP_EQ, false>(ctx, p, fn);
    default: return sel_launch<T, MODE, PP_NE, false>(ctx, p, fn);
    }
}

template <typename T> pp_status select_typed(pp_context *ctx, const pp_select_args *a)
{
    typedef typename pp_traits<T>::bits U;
    constexpr uint64_t VEC = 16 / sizeof(T);
    constexpr uint64_t TILE = (uint64_t)SELECT_BLOCK * sel_rounds<T>() * VEC;
    const char *fn = a->fn;
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = a->n;
    if (n == 0) return pp_cuda_zero(ctx, a->count, sizeof(uint64_t), fn);

    SelParams<T> p;
    memset(&p, 0, sizeof p);
    p.in = (const T *)a->in;
    p.flags = a->flags;
    p.n = n;
    p.a = ((uintptr_t)a->in & 15) / sizeof(T);
    p.ntiles = (n + p.a + TILE - 1) / TILE;
    p.value = (T)0;
    if (a->value) memcpy(&p.value, a->value, sizeof(T));
    p.out = (T *)a->out;
    p.count = a->count;

    // Look-back over the tiles' selected counts; packed words while the
    // counts fit 32 bits.
    const pp_status st_lb = pp_lookback_setup(ctx, (size_t)p.ntiles, n < ((uint64_t)1 << 32), &p.lb, &p.tbase, fn);
    if (st_lb != PP_SUCCESS) return st_lb;
    p.ticket = s->ticket;

    switch (a->mode) {
    case PP_SELECT_FLAGGED: {
        const bool fvec = (((uintptr_t)a->flags - p.a) % VEC) == 0;
        return fvec ? sel_launch<T, PP_SELECT_FLAGGED, 0, true>(ctx, p, fn)
                    : sel_launch<T, PP_SELECT_FLAGGED, 0, false>(ctx, p, fn);
    }
    case PP_SELECT_IF: return sel_cmp_dispatch<T, PP_SELECT_IF>(ctx, p, a->cmp, fn);
    case PP_SELECT_UNIQUE: return sel_launch<T, PP_SELECT_UNIQUE, 0, false>(ctx, p, fn);
    default: break;
    }
    pp_status st = sel_cmp_dispatch<T, PP_SELECT_PARTITION>(ctx, p, a->cmp, fn);
    if (st != PP_SUCCESS || p.ntiles == 1) return st;
    const unsigned blocks = grid_for(ceil_div(n / 2, 256 * 4), pp_cuda_resident(s, 8));
    PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, reverse_tail_kernel<U>, blocks, 256, 0, (U *)a->out, n, a->count));
    return PP_SUCCESS;
}

} // namespace

pp_status pp_cuda_select(pp_context *ctx, const pp_select_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) { return select_typed<decltype(t)>(ctx, a); });
}
