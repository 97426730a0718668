// The course notes' stream compactions on cuda (see cuda_entry.h and the
// notes' part 004): select_flagged, select_if, unique and partition_if,
// stable, with *count written by the device (nothing waits for it).
//
// Both algorithms cut the input into tiles of TILE = SEL_BLOCK * ROUNDS
// elements; a tile is processed in ROUNDS rounds of SEL_BLOCK consecutive
// elements (round r, thread t: element tile * TILE + r * SEL_BLOCK + t), so
// input order is (tile, round, warp, lane). Several kernels loop grid-stride over the tiles
// (64-bit indices throughout). Predicates: flags[i] != 0; in[i] cmp value
// (C's comparison in the element type); unique: i == 0 || !(in[i] ==
// in[i - 1]) (C's ==: NaN never equal, -0.0 == +0.0).
//
// PP_ALGO_SCAN_SCATTER (the textbook pipeline, each stage its own kernel):
//  1. flags: f[i] = predicate (one byte per element, scratch);
//  2. exclusive scan of f, hierarchically: each tile scans its flags (ROUNDS
//     block scans, warp shuffles then a scan of the warp totals) into
//     ls[i] (16 bits: the number of selected before i inside its tile) and
//     writes its total ts[tile]; ts is scanned (exclusive, 64-bit) by the
//     count scan of device/count_scan.cuh (block scans, a scan of their
//     totals, a fix-up adding each block's offset); the last fix-up,
//     ts[tile] + ls[i], is done by the scatter where it reads the position;
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
#include "../cuda_state.cuh"
#include "../device/block_scan.cuh"
#include "../device/count_scan.cuh"
#include "../device/dispatch.cuh"
#include "../device/ops.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"

namespace {

constexpr int SEL_BLOCK = 256;                          // threads per block of the tile kernels
constexpr int SEL_WARPS = SEL_BLOCK / 32;
constexpr int ROUNDS = 8;                               // rounds per tile
constexpr uint64_t TILE = (uint64_t)SEL_BLOCK * ROUNDS; // elements per tile (< 2^16: ls fits 16 bits)
constexpr int MAP_BLOCK = 256;                          // threads per block of the element-wise kernels

template <typename T> struct StudySel {
    const T *in;
    const uint8_t *flags; // FLAGGED: the user's flags
    uint64_t n;
    uint64_t ntiles;
    T value;              // IF and PART
    pp_cmp cmp;           // IF and PART
    T *out;
    uint64_t *count;
    uint8_t *f;           // SCAN_SCATTER: 0/1 flags
    uint16_t *ls;         // SCAN_SCATTER: exclusive scan of f inside each tile
    uint64_t *ts;         // per-tile counts, scanned in place into offsets
};

// The predicate of element i (< n) with value x = in[i]; prev = in[i - 1]
// for unique (ignored for i == 0).
template <typename T, pp_select_mode MODE>
__device__ __forceinline__ bool study_pred(const StudySel<T> &p, uint64_t i, T x, T prev)
{
    if constexpr (MODE == PP_SELECT_FLAGGED) return p.flags[i] != 0;
    else if constexpr (MODE == PP_SELECT_UNIQUE) return i == 0 || !(x == prev);
    else return pp_compare_by<T>(p.cmp, x, p.value);
}

// A grid of `want` blocks, at most per_sm resident on each SM.
inline unsigned study_grid(uint64_t want, const pp_cuda_state *s, uint64_t per_sm)
{
    return grid_for(want, pp_cuda_resident(s, per_sm));
}

// ---- PP_ALGO_SCAN_SCATTER (ss_) ----------------------------------------------------------

template <typename T, pp_select_mode MODE> __global__ void __launch_bounds__(MAP_BLOCK) ss_flags(const StudySel<T> p)
{
    const uint64_t stride = (uint64_t)gridDim.x * MAP_BLOCK;
    for (uint64_t i = (uint64_t)blockIdx.x * MAP_BLOCK + threadIdx.x; i < p.n; i += stride) {
        T x = (T)0, prev = (T)0;
        if constexpr (MODE != PP_SELECT_FLAGGED) x = p.in[i];
        if constexpr (MODE == PP_SELECT_UNIQUE) prev = i > 0 ? p.in[i - 1] : x;
        p.f[i] = study_pred<T, MODE>(p, i, x, prev) ? 1 : 0;
    }
}

// Scan of the flags inside each tile (ls, 16 bits: at most TILE - 1) and the
// tile's total (ts).
__global__ void __launch_bounds__(SEL_BLOCK) ss_tile_scan(const uint8_t *__restrict__ f, uint64_t n, uint64_t ntiles,
                                                   uint16_t *__restrict__ ls, uint64_t *__restrict__ ts)
{
    __shared__ uint32_t sm[SEL_WARPS];
    for (uint64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        uint32_t carry = 0;
        for (int r = 0; r < ROUNDS; r++) {
            const uint64_t i = t * TILE + (uint64_t)r * SEL_BLOCK + threadIdx.x;
            const uint32_t v = i < n ? (uint32_t)f[i] : 0u;
            uint32_t tot;
            const uint32_t ex = pp_block_exclusive<uint32_t, Op_sum, SEL_BLOCK>(v, &tot, sm);
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

template <typename T, pp_select_mode MODE> __global__ void __launch_bounds__(MAP_BLOCK) ss_scatter(const StudySel<T> p)
{
    const uint64_t c = MODE == PP_SELECT_PARTITION ? *p.count : 0; // written by ss_count earlier on the stream
    const uint64_t stride = (uint64_t)gridDim.x * MAP_BLOCK;
    for (uint64_t i = (uint64_t)blockIdx.x * MAP_BLOCK + threadIdx.x; i < p.n; i += stride) {
        const uint64_t before = p.ts[i / TILE] + p.ls[i]; // selected elements before i
        if (p.f[i]) p.out[before] = p.in[i];
        else if (MODE == PP_SELECT_PARTITION) p.out[c + (i - before)] = p.in[i];
    }
}

template <typename T, pp_select_mode MODE> pp_status ss_run(pp_context *ctx, StudySel<T> p, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t n = p.n;
    const uint64_t f_bytes = align_up(n, 256);
    const uint64_t ls_bytes = align_up(2 * n, 256);
    const uint64_t ts_bytes = p.ntiles * 8;
    const uint64_t work_bytes = pp_count_scan_work(p.ntiles) * 8;
    unsigned char *sc = (unsigned char *)pp_cuda_scratch(ctx, (size_t)(f_bytes + ls_bytes + ts_bytes + work_bytes), fn);
    if (!sc) return PP_ERROR_OUT_OF_MEMORY;
    p.f = sc;
    p.ls = (uint16_t *)(sc + f_bytes);
    p.ts = (uint64_t *)(sc + f_bytes + ls_bytes);
    uint64_t *work = p.ts + p.ntiles;

    const unsigned map_grid = study_grid(ceil_div(n, MAP_BLOCK), s, 16);
    ss_flags<T, MODE><<<map_grid, MAP_BLOCK, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    ss_tile_scan<<<study_grid(p.ntiles, s, 8), SEL_BLOCK, 0, s->stream>>>(p.f, n, p.ntiles, p.ls, p.ts);
    PP_CUDA_LAUNCHED(ctx, fn);
    const pp_status st = pp_count_scan(ctx, p.ts, p.ntiles, work, fn);
    if (st != PP_SUCCESS) return st;
    ss_count<<<1, 32, 0, s->stream>>>(p.f, p.ls, p.ts, n, p.count);
    PP_CUDA_LAUNCHED(ctx, fn);
    ss_scatter<T, MODE><<<map_grid, MAP_BLOCK, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// ---- PP_ALGO_BALLOT ------------------------------------------------------------------------

// Element i of this thread (x = in[i], loaded where LOADX or the predicate
// needs it) and its predicate (false past n). Called by every thread of the
// block (unique's shuffle needs full warps).
template <typename T, pp_select_mode MODE, bool LOADX>
__device__ __forceinline__ bool ballot_load(const StudySel<T> &p, uint64_t i, T &x)
{
    const bool in_range = i < p.n;
    x = (T)0;
    if constexpr (LOADX || MODE != PP_SELECT_FLAGGED) {
        if (in_range) x = p.in[i];
    }
    T prev = (T)0;
    if constexpr (MODE == PP_SELECT_UNIQUE) {
        prev = pp_shfl_up(x, 1); // lane - 1 holds element i - 1
        if ((threadIdx.x & 31) == 0 && in_range && i > 0) prev = p.in[i - 1];
    }
    return in_range && study_pred<T, MODE>(p, i, x, prev);
}

// Per tile, the number of selected elements: per round and warp the
// population count of the ballot; warps' counts added in shared memory.
template <typename T, pp_select_mode MODE>
__global__ void __launch_bounds__(SEL_BLOCK) ballot_count(const StudySel<T> p)
{
    __shared__ uint32_t wc[SEL_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (uint64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        uint32_t c = 0;
        for (int r = 0; r < ROUNDS; r++) {
            const uint64_t i = t * TILE + (uint64_t)r * SEL_BLOCK + threadIdx.x;
            T x;
            const bool f = ballot_load<T, MODE, false>(p, i, x);
            c += __popc(__ballot_sync(0xffffffffu, f));
        }
        if (lane == 0) wc[warp] = c;
        __syncthreads();
        if (threadIdx.x == 0) {
            uint64_t sum = 0;
            for (int w = 0; w < SEL_WARPS; w++) sum += wc[w];
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
template <typename T, pp_select_mode MODE>
__global__ void __launch_bounds__(SEL_BLOCK) ballot_scatter(const StudySel<T> p)
{
    __shared__ uint32_t wc[2][SEL_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    const uint64_t total = p.ts[p.ntiles];
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.count = total;
    unsigned k = 0;
    for (uint64_t t = blockIdx.x; t < p.ntiles; t += gridDim.x) {
        const uint64_t off = p.ts[t];
        uint64_t carry = 0;
        for (int r = 0; r < ROUNDS; r++, k++) {
            const uint64_t i = t * TILE + (uint64_t)r * SEL_BLOCK + threadIdx.x;
            T x;
            const bool f = ballot_load<T, MODE, true>(p, i, x);
            const unsigned bits = __ballot_sync(0xffffffffu, f);
            uint32_t *buf = wc[k & 1];
            if (lane == 0) buf[warp] = (uint32_t)__popc(bits);
            __syncthreads();
            uint32_t wpre = 0, rt = 0;
#pragma unroll
            for (int w = 0; w < SEL_WARPS; w++) {
                const uint32_t c = buf[w];
                wpre += w < warp ? c : 0u;
                rt += c;
            }
            const uint64_t before = off + carry + wpre + (uint32_t)__popc(bits & lower);
            if (f) p.out[before] = x;
            else if (MODE == PP_SELECT_PARTITION && i < p.n) p.out[total + (i - before)] = x;
            carry += rt;
        }
    }
}

template <typename T, pp_select_mode MODE> pp_status ballot_run(pp_context *ctx, StudySel<T> p, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    const uint64_t m = p.ntiles + 1; // the last entry becomes the total
    const uint64_t work = pp_count_scan_work(m);
    uint64_t *sc = (uint64_t *)pp_cuda_scratch(ctx, (size_t)((m + work) * 8), fn);
    if (!sc) return PP_ERROR_OUT_OF_MEMORY;
    p.ts = sc;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(p.ts + p.ntiles, 0, sizeof(uint64_t), s->stream), fn);
    const unsigned grid = study_grid(p.ntiles, s, 8);
    ballot_count<T, MODE><<<grid, SEL_BLOCK, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    const pp_status st = pp_count_scan(ctx, p.ts, m, sc + m, fn);
    if (st != PP_SUCCESS) return st;
    ballot_scatter<T, MODE><<<grid, SEL_BLOCK, 0, s->stream>>>(p);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// ---- dispatch ------------------------------------------------------------------------------

template <pp_algorithm ALGO, typename T, pp_select_mode MODE>
pp_status study_sel_run(pp_context *ctx, const StudySel<T> &p, const char *fn)
{
    if constexpr (ALGO == PP_ALGO_BALLOT) return ballot_run<T, MODE>(ctx, p, fn);
    else {
        static_assert(ALGO == PP_ALGO_SCAN_SCATTER, "not a select algorithm of study/select.cu");
        return ss_run<T, MODE>(ctx, p, fn);
    }
}

template <pp_algorithm ALGO, typename T> pp_status study_sel_typed(pp_context *ctx, const pp_select_args *a)
{
    const char *fn = a->fn;
    const uint64_t n = a->n;
    if (n == 0) return pp_cuda_zero(ctx, a->count, sizeof(uint64_t), fn);
    StudySel<T> p;
    memset(&p, 0, sizeof p);
    p.in = (const T *)a->in;
    p.flags = a->flags;
    p.n = n;
    p.ntiles = ceil_div(n, TILE);
    p.value = (T)0;
    if (a->value) memcpy(&p.value, a->value, sizeof(T));
    p.cmp = a->cmp;
    p.out = (T *)a->out;
    p.count = a->count;
    switch (a->mode) {
    case PP_SELECT_FLAGGED: return study_sel_run<ALGO, T, PP_SELECT_FLAGGED>(ctx, p, fn);
    case PP_SELECT_IF: return study_sel_run<ALGO, T, PP_SELECT_IF>(ctx, p, fn);
    case PP_SELECT_UNIQUE: return study_sel_run<ALGO, T, PP_SELECT_UNIQUE>(ctx, p, fn);
    default: return study_sel_run<ALGO, T, PP_SELECT_PARTITION>(ctx, p, fn);
    }
}

template <pp_algorithm ALGO> pp_status study_select(pp_context *ctx, const pp_select_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) { return study_sel_typed<ALGO, decltype(t)>(ctx, a); });
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
pp_status pp_cuda_study_select_scan_scatter(pp_context *ctx, const pp_select_args *a)
{
    return study_select<PP_ALGO_SCAN_SCATTER>(ctx, a);
}
pp_status pp_cuda_study_select_ballot(pp_context *ctx, const pp_select_args *a)
{
    return study_select<PP_ALGO_BALLOT>(ctx, a);
}
