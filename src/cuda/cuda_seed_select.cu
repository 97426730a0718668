// The course notes' stream compactions on cuda (see cuda_entry.h and the
// notes of seed 004): select_flagged, select_if, unique and partition_if,
// stable, with *count written by the device (nothing waits for it).
//
// Both algorithms cut the input into tiles of TILE = SB * SI elements; a
// tile is processed in SI rounds of SB consecutive elements (round r,
// thread t: element tile * TILE + r * SB + t), so input order is (tile,
// round, warp, lane). Several kernels loop grid-stride over the tiles
// (64-bit indices throughout). Predicates: flags[i] != 0; in[i] cmp value
// (C's comparison in the element type); unique: i == 0 || !(in[i] ==
// in[i - 1]) (C's ==: NaN never equal, -0.0 == +0.0).
//
// PP_ALGO_SCAN_SCATTER (the textbook pipeline, each stage its own kernel):
//  1. flags: f[i] = predicate (one byte per element, scratch);
//  2. exclusive scan of f, hierarchically: each tile scans its flags (SI
//     block scans, warp shuffles then a scan of the warp totals) into
//     ls[i] (16 bits: the number of selected before i inside its tile) and
//     writes its total ts[tile]; ts is scanned (exclusive, 64-bit) by the
//     same scheme recursively (tile scans, a scan of their totals, a fix-up
//     adding each tile's offset); the last fix-up, ts[tile] + ls[i], is
//     done by the scatter where it reads the position;
//  3. count: one thread writes *count = scan[n - 1] + f[n - 1];
//  4. scatter: a selected element i goes to out[ts[i / TILE] + ls[i]]; for
//     partition_if a rejected one goes to out[count + (i - selected before
//     i)], i.e. the rejected in input order after the selected.
// PP_ALGO_BALLOT (warp-level compaction):
//  1. count: per round each warp takes __ballot_sync of its 32 predicates;
//     __popc of the ballot is the warp's count; the warps' counts of the
//     tile are summed into ts[tile] (ts has ntiles + 1 entries, the last 0);
//  2. exclusive 64-bit scan of ts (as above): ts[ntiles] is the total;
//  3. scatter: per round again, the ballot gives each lane its offset in
//     the warp (__popc of the bits of lower lanes), the warps' counts of
//     the round are scanned through shared memory (double-buffered: one
//     barrier per round), plus the tile's offset and the earlier rounds'
//     counts: the element's rank among the selected. Block 0 writes
//     *count = ts[ntiles].
// Both are deterministic (integer ranks; the output is fully determined).
// Scratch: SCAN_SCATTER 3 bytes per element plus 8 per tile; BALLOT 8 bytes
// per tile (plus the small upper levels of the scan).
#include "cuda_internal.cuh"
#include "cuda_entry.h"

namespace {

constexpr int SB = 256;                 // threads per block
constexpr int SWARPS = SB / 32;
constexpr int SI = 8;                   // rounds per tile
constexpr uint64_t TILE = (uint64_t)SB * SI; // elements per tile (< 2^16: ls fits 16 bits)
constexpr int MAP_B = 256;              // threads per block of the element-wise kernels

enum { M_FLAGGED = 0, M_IF = 1, M_UNIQUE = 2, M_PART = 3 };

template <typename T> struct SeedSel {
    const T *in;
    const uint8_t *flags; // FLAGGED: the user's flags
    uint64_t n;
    uint64_t ntiles;
    T value;              // IF and PART
    int cmp;              // IF and PART (pp_cmp)
    T *out;
    uint64_t *count;
    uint8_t *f;           // SCAN_SCATTER: 0/1 flags
    uint16_t *ls;         // SCAN_SCATTER: exclusive scan of f inside each tile
    uint64_t *ts;         // per-tile counts, scanned in place into offsets
};

template <typename T> __device__ __forceinline__ bool seed_cmp(int cmp, T x, T v)
{
    switch (cmp) {
    case PP_LT: return x < v;
    case PP_LE: return x <= v;
    case PP_GT: return x > v;
    case PP_GE: return x >= v;
    case PP_EQ: return x == v;
    default: return x != v;
    }
}

// The predicate of element i (< n) with value x = in[i]; prev = in[i - 1]
// for unique (ignored for i == 0).
template <typename T, int MODE>
__device__ __forceinline__ bool seed_pred(const SeedSel<T> &p, uint64_t i, T x, T prev)
{
    if constexpr (MODE == M_FLAGGED) return p.flags[i] != 0;
    else if constexpr (MODE == M_UNIQUE) return i == 0 || !(x == prev);
    else return seed_cmp<T>(p.cmp, x, p.value);
}

// ---- a hierarchical exclusive scan of 64-bit counts ----------------------------------

// Each tile of TILE values of d (m of them) is replaced by its exclusive
// scan; its total goes to sums[tile] when sums is not NULL. SI block scans
// per tile, a running carry between them.
__global__ void __launch_bounds__(SB) seed_scan_u64_tiles(uint64_t *d, uint64_t m, uint64_t *sums)
{
    __shared__ uint64_t sm[SWARPS];
    const uint64_t ntiles = (m + TILE - 1) / TILE;
    for (uint64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        uint64_t carry = 0;
        for (int r = 0; r < SI; r++) {
            const uint64_t i = t * TILE + (uint64_t)r * SB + threadIdx.x;
            const uint64_t v = i < m ? d[i] : 0;
            uint64_t tot;
            const uint64_t ex = pp_block_exclusive<uint64_t, Op_sum, SB>(v, &tot, sm);
            if (i < m) d[i] = carry + ex;
            carry += tot;
        }
        if (threadIdx.x == 0 && sums) sums[t] = carry;
    }
}

// The fix-up: d[i] += sums[i / TILE] (sums already scanned exclusively).
__global__ void __launch_bounds__(MAP_B) seed_add_u64(uint64_t *d, uint64_t m, const uint64_t *sums)
{
    const uint64_t stride = (uint64_t)gridDim.x * MAP_B;
    for (uint64_t i = (uint64_t)blockIdx.x * MAP_B + threadIdx.x; i < m; i += stride) d[i] += sums[i / TILE];
}

// Entries of working memory the scan of m values needs for its upper levels.
inline uint64_t seed_scan_u64_work(uint64_t m)
{
    if (m <= TILE) return 0;
    const uint64_t nt = (m + TILE - 1) / TILE;
    return nt + seed_scan_u64_work(nt);
}

inline unsigned seed_grid(uint64_t want, const pp_cuda_state *s, uint64_t per_sm)
{
    const uint64_t cap = (uint64_t)s->sm_count * per_sm;
    if (want > cap) want = cap;
    if (want < 1) want = 1;
    return (unsigned)want;
}

// Exclusive scan of d[0 .. m) in place; work: seed_scan_u64_work(m) entries.
pp_status seed_scan_u64(pp_context *ctx, uint64_t *d, uint64_t m, uint64_t *work, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    if (m == 0) return PP_SUCCESS;
    if (m <= TILE) {
        seed_scan_u64_tiles<<<1, SB, 0, s->stream>>>(d, m, NULL);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    const uint64_t nt = (m + TILE - 1) / TILE;
    seed_scan_u64_tiles<<<seed_grid(nt, s, 8), SB, 0, s->stream>>>(d, m, work);
    PP_CUDA_LAUNCHED(ctx, fn);
    const pp_status st = seed_scan_u64(ctx, work, nt, work + nt, fn);
    if (st != PP_SUCCESS) return st;
    seed_add_u64<<<seed_grid((m + MAP_B - 1) / MAP_B, s, 16), MAP_B, 0, s->stream>>>(d, m, work);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// ---- PP_ALGO_SCAN_SCATTER ----------------------------------------------------------------

template <typename T, int MODE> __global__ void __launch_bounds__(MAP_B) ss_flags(const SeedSel<T> p)
{
    const uint64_t stride = (uint64_t)gridDim.x * MAP_B;
    for (uint64_t i = (uint64_t)blockIdx.x * MAP_B + threadIdx.x; i < p.n; i += stride) {
        T x = (T)0, prev = (T)0;
        if constexpr (MODE != M_FLAGGED) x = p.in[i];
        if constexpr (MODE == M_UNIQUE) prev = i > 0 ? p.in[i - 1] : x;
        p.f[i] = seed_pred<T, MODE>(p, i, x, prev) ? 1 : 0;
    }
}

// Scan of the flags inside each tile (ls, 16 bits: at most TILE - 1) and the
// tile's total (ts).
__global__ void __launch_bounds__(SB) ss_tile_scan(const uint8_t *__restrict__ f, uint64_t n, uint64_t ntiles,
                                                   uint16_t *__restrict__ ls, uint64_t *__restrict__ ts)
{
    __shared__ uint32_t sm[SWARPS];
    for (uint64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        uint32_t carry = 0;
        for (int r = 0; r < SI; r++) {
            const uint64_t i = t * TILE + (uint64_t)r * SB + threadIdx.x;
            const uint32_t v = i < n ? (uint32_t)f[i] : 0u;
            uint32_t tot;
            const uint32_t ex = pp_block_exclusive<uint32_t, Op_sum, SB>(v, &tot, sm);
            if (i < n) ls[i] = (uint16_t)(carry + ex);
            carry += tot;
        }
        if (threadIdx.x == 0) ts[t] = carry;
    }
}

// count = (exclusive scan at n - 1) + f[n - 1].
__global__ void ss_count(const uint8_t *f, const uint16_t *ls, const uint64_t *ts, uint64_t n, uint64_t *count)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const uint64_t l = n - 1;
        *count = ts[l / TILE] + ls[l] + f[l];
    }
}

template <typename T, int MODE> __global__ void __launch_bounds__(MAP_B) ss_scatter(const SeedSel<T> p)
{
    const uint64_t c = MODE == M_PART ? *p.count : 0; // written by ss_count earlier on the stream
    const uint64_t stride = (uint64_t)gridDim.x * MAP_B;
    for (uint64_t i = (uint64_t)blockIdx.x * MAP_B + threadIdx.x; i < p.n; i += stride) {
        const uint64_t before = p.ts[i / TILE] + p.ls[i]; // selected elements before i
        if (p.f[i]) p.out[before] = p.in[i];
        else if (MODE == M_PART) p.out[c + (i - before)] = p.in[i];
    }
}

template <typename T, int MODE> pp_status ss_run(pp_context *ctx, SeedSel<T> p, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = p.n;
    const uint64_t f_bytes = (n + 255) & ~(uint64_t)255;
    const uint64_t ls_bytes = (2 * n + 255) & ~(uint64_t)255;
    const uint64_t ts_bytes = p.ntiles * 8;
    const uint64_t work_bytes = seed_scan_u64_work(p.ntiles) * 8;
    unsigned char *sc = (unsigned char *)pp_cuda_scratch(ctx, (size_t)(f_bytes + ls_bytes + ts_bytes + work_bytes), fn);
    if (!sc) return PP_ERROR_OUT_OF_MEMORY;
    p.f = sc;
    p.ls = (uint16_t *)(sc + f_bytes);
    p.ts = (uint64_t *)(sc + f_bytes + ls_bytes);
    uint64_t *work = p.ts + p.ntiles;

    const unsigned map_grid = seed_grid((n + MAP_B - 1) / MAP_B, s, 16);
    ss_flags<T, MODE><<<map_grid, MAP_B, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    ss_tile_scan<<<seed_grid(p.ntiles, s, 8), SB, 0, s->stream>>>(p.f, n, p.ntiles, p.ls, p.ts);
    PP_CUDA_LAUNCHED(ctx, fn);
    const pp_status st = seed_scan_u64(ctx, p.ts, p.ntiles, work, fn);
    if (st != PP_SUCCESS) return st;
    ss_count<<<1, 32, 0, s->stream>>>(p.f, p.ls, p.ts, n, p.count);
    PP_CUDA_LAUNCHED(ctx, fn);
    ss_scatter<T, MODE><<<map_grid, MAP_B, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// ---- PP_ALGO_BALLOT ------------------------------------------------------------------------

// Element i of this thread (x = in[i], loaded where LOADX or the predicate
// needs it) and its predicate (false past n). Called by every thread of the
// block (unique's shuffle needs full warps).
template <typename T, int MODE, bool LOADX>
__device__ __forceinline__ bool bl_load(const SeedSel<T> &p, uint64_t i, T &x)
{
    const bool in_range = i < p.n;
    x = (T)0;
    if constexpr (LOADX || MODE != M_FLAGGED) {
        if (in_range) x = p.in[i];
    }
    T prev = (T)0;
    if constexpr (MODE == M_UNIQUE) {
        prev = pp_shfl_up(x, 1); // lane - 1 holds element i - 1
        if ((threadIdx.x & 31) == 0 && in_range && i > 0) prev = p.in[i - 1];
    }
    return in_range && seed_pred<T, MODE>(p, i, x, prev);
}

// Per tile, the number of selected elements: per round and warp the
// population count of the ballot; warps' counts added in shared memory.
template <typename T, int MODE> __global__ void __launch_bounds__(SB) bl_count(const SeedSel<T> p)
{
    __shared__ uint32_t wc[SWARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (uint64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        uint32_t c = 0;
        for (int r = 0; r < SI; r++) {
            const uint64_t i = t * TILE + (uint64_t)r * SB + threadIdx.x;
            T x;
            const bool f = bl_load<T, MODE, false>(p, i, x);
            c += __popc(__ballot_sync(0xffffffffu, f));
        }
        if (lane == 0) wc[warp] = c;
        __syncthreads();
        if (threadIdx.x == 0) {
            uint64_t sum = 0;
            for (int w = 0; w < SWARPS; w++) sum += wc[w];
            p.ts[t] = sum;
        }
        __syncthreads(); // wc is rewritten for the next tile
    }
}

// The scatter: ranks from the ballots (see the top of the file).
// Correctness: the rank of selected element i counts exactly the selected
// elements before it: earlier tiles (ts[t], scanned), earlier rounds of the
// tile (carry), earlier warps of the round (wpre), earlier lanes of the warp
// (popc of the lower ballot bits). wc is double-buffered by the parity of a
// running round number k: the write of round k follows this thread's
// barrier of round k - 1, which every thread reaches only after reading
// round k - 2's buffer, the same one.
template <typename T, int MODE> __global__ void __launch_bounds__(SB) bl_scatter(const SeedSel<T> p)
{
    __shared__ uint32_t wc[2][SWARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    const uint64_t total = p.ts[p.ntiles];
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.count = total;
    unsigned k = 0;
    for (uint64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        const uint64_t off = p.ts[t];
        uint64_t carry = 0;
        for (int r = 0; r < SI; r++, k++) {
            const uint64_t i = t * TILE + (uint64_t)r * SB + threadIdx.x;
            T x;
            const bool f = bl_load<T, MODE, true>(p, i, x);
            const unsigned bits = __ballot_sync(0xffffffffu, f);
            uint32_t *buf = wc[k & 1];
            if (lane == 0) buf[warp] = (uint32_t)__popc(bits);
            __syncthreads();
            uint32_t wpre = 0, rt = 0;
#pragma unroll
            for (int w = 0; w < SWARPS; w++) {
                const uint32_t c = buf[w];
                wpre += w < warp ? c : 0u;
                rt += c;
            }
            const uint64_t before = off + carry + wpre + (uint32_t)__popc(bits & lower);
            if (f) p.out[before] = x;
            else if (MODE == M_PART && i < p.n) p.out[total + (i - before)] = x;
            carry += rt;
        }
    }
}

template <typename T, int MODE> pp_status bl_run(pp_context *ctx, SeedSel<T> p, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t m = p.ntiles + 1; // the last entry becomes the total
    const uint64_t work = seed_scan_u64_work(m);
    uint64_t *sc = (uint64_t *)pp_cuda_scratch(ctx, (size_t)((m + work) * 8), fn);
    if (!sc) return PP_ERROR_OUT_OF_MEMORY;
    p.ts = sc;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(p.ts + p.ntiles, 0, sizeof(uint64_t), s->stream), fn);
    const unsigned grid = seed_grid(p.ntiles, s, 8);
    bl_count<T, MODE><<<grid, SB, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    const pp_status st = seed_scan_u64(ctx, p.ts, m, sc + m, fn);
    if (st != PP_SUCCESS) return st;
    bl_scatter<T, MODE><<<grid, SB, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// ---- dispatch ------------------------------------------------------------------------------

template <typename T, int MODE> pp_status seed_sel_mode(pp_context *ctx, pp_algorithm algo, const SeedSel<T> &p, const char *fn)
{
    if (algo == PP_ALGO_BALLOT) return bl_run<T, MODE>(ctx, p, fn);
    return ss_run<T, MODE>(ctx, p, fn);
}

template <typename T> pp_status seed_sel_typed(pp_context *ctx, pp_algorithm algo, const pp_select_args *a, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = a->n;
    if (n == 0) {
        PP_CUDA_TRY(ctx, cudaMemsetAsync(a->count, 0, sizeof(uint64_t), s->stream), fn);
        return PP_SUCCESS;
    }
    SeedSel<T> p;
    memset(&p, 0, sizeof p);
    p.in = (const T *)a->in;
    p.flags = a->flags;
    p.n = n;
    p.ntiles = (n + TILE - 1) / TILE;
    p.value = (T)0;
    if (a->value) memcpy(&p.value, a->value, sizeof(T));
    p.cmp = (int)a->cmp;
    p.out = (T *)a->out;
    p.count = a->count;
    switch (a->mode) {
    case PP_SELECT_FLAGGED: return seed_sel_mode<T, M_FLAGGED>(ctx, algo, p, fn);
    case PP_SELECT_IF: return seed_sel_mode<T, M_IF>(ctx, algo, p, fn);
    case PP_SELECT_UNIQUE: return seed_sel_mode<T, M_UNIQUE>(ctx, algo, p, fn);
    default: return seed_sel_mode<T, M_PART>(ctx, algo, p, fn);
    }
}

} // namespace

static pp_status study_select(pp_context *ctx, pp_algorithm algo, const pp_select_args *a)
{
    switch (a->type) {
#define PP_SEED_SEL_CASE(E, T, S, K, U, W) \
    case E: return seed_sel_typed<T>(ctx, algo, a, a->fn);
        PP_FOR_EACH_TYPE(PP_SEED_SEL_CASE)
#undef PP_SEED_SEL_CASE
    default: break;
    }
    return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: type %d not dispatched", a->fn, (int)a->type);
}

// One entry per algorithm, for the backend's table (cuda_table.c).
pp_status pp_cuda_study_select_scan_scatter(pp_context *ctx, const pp_select_args *a)
{
    return study_select(ctx, PP_ALGO_SCAN_SCATTER, a);
}
pp_status pp_cuda_study_select_ballot(pp_context *ctx, const pp_select_args *a)
{
    return study_select(ctx, PP_ALGO_BALLOT, a);
}
