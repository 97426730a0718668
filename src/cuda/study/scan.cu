// The course notes' scan algorithms on cuda (see cuda_entry.h): the path
// from a naive scan to work-efficient block scans, each selectable with
// pp_set_algorithm(ctx, PP_PRIM_SCAN, ...) for study and benchmarking.
//
// PP_ALGO_NAIVE: one launch; output i folds in[0..i] (inclusive) or
//   in[0..i-1] (exclusive) left to right by itself. Quadratic work, so only
//   for n <= NAIVE_MAX (PP_ERROR_UNSUPPORTED above). In place, the input is
//   first copied to scratch (cudaMemcpyAsync on the stream), since later
//   outputs read inputs that earlier ones overwrite.
//
// The other four are block scans inside the notes' hierarchical scan of
// large vectors. A block scans a segment of SEG elements (those past n are
// the operator's identity) and writes the segment's total; the totals are
// scanned the same way (exclusive, in place, recursively: as many levels as
// needed until one segment holds them all); then, from the top level down,
// a fix-up kernel combines each segment's carry-in (the exclusive scan of
// the totals) into its elements. Launches per call: L + 1 block scans and L
// fix-ups, where L = ceil(log_SEG(n)) - 1 (L = 0: one launch). Every kernel
// loops over its segments grid-stride (64-bit indices), so any n works.
// Every combination follows a fixed tree for a given n, so float results are
// reproducible run to run. Exclusive scans are computed as exclusive scans
// (never inclusive minus element), so MIN/MAX/AND/OR serve too; the first
// output of an exclusive scan is the API's identity (+0.0 for a float sum).
// A segment reads all of its input before it writes, and segments are
// disjoint, so in == out works.
//
// PP_ALGO_HILLIS_STEELE: 1024 threads, one element each, two shared buffers
//   swapped every step (read one, write the other), one __syncthreads per
//   step and none inside a branch. log2(1024) = 10 steps.
// PP_ALGO_BLELLOCH: 512 threads, two elements each (SEG 1024), up-sweep
//   (reduce) then down-sweep (distribute) in place in shared memory; the
//   inclusive result is the exclusive one shifted left by one (the last
//   from the tile total). 2 * 10 steps.
// PP_ALGO_BLELLOCH_PADDED: the same, every shared index i stored at
//   i + (i >> LOG_NUM_BANKS) against bank conflicts.
// PP_ALGO_WARP_SHUFFLE: 1024 threads, one element each: each warp scans its
//   32 values with __shfl_up_sync, lane 31 writes the warp total, warp 0
//   scans the 32 totals the same way, each thread adds its warp's prefix.
#include "../cuda_state.cuh"
#include "../device/dispatch.cuh"
#include "../device/ops.cuh"
#include "../device/util.cuh"
#include "../device/warp_scan.cuh"

namespace {

constexpr size_t NAIVE_MAX = 65536;              // the naive scan's cap on n
constexpr int NAIVE_BLOCK = 256;                 // naive: threads per block
constexpr int HILLIS_STEELE_BLOCK = 1024;        // Hillis-Steele: threads = elements per segment
constexpr int BLELLOCH_BLOCK = 512;              // Blelloch: threads per block
constexpr int BLELLOCH_SEG = 2 * BLELLOCH_BLOCK; // Blelloch: elements per segment
constexpr int LOG_NUM_BANKS = 5;                 // 32 banks of shared memory
constexpr int WARP_SCAN_BLOCK = 1024;            // warp shuffle: threads = elements per segment
constexpr int WARP_SCAN_WARPS = WARP_SCAN_BLOCK / 32;
constexpr int FIX_BLOCK = 256;                   // fix-up: threads per block
constexpr unsigned MAX_GRID = 1u << 20;          // blocks per launch (kernels loop over segments)
constexpr int MAX_LEVELS = 16;                   // SEG >= 1024: 7 levels cover 2^64 elements

static_assert(WARP_SCAN_WARPS == 32, "the warp totals are scanned by one full warp");

// ---- naive: each output folds its own prefix ------------------------------------

template <typename T, typename Op>
__global__ void __launch_bounds__(NAIVE_BLOCK)
    naive_scan(const T *__restrict__ in, T *__restrict__ out, size_t n, int excl)
{
    for (size_t i = (size_t)blockIdx.x * NAIVE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * NAIVE_BLOCK) {
        const size_t end = excl ? i : i + 1; // fold in[0 .. end)
        T r;
        if (end == 0) {
            r = pp_public_identity<T, Op>();
        } else {
            r = in[0];
            for (size_t j = 1; j < end; j++) r = Op::apply(r, in[j]);
        }
        out[i] = r;
    }
}

// ---- block scans: each scans segments of its SEG elements -------------------------
// Common arguments: data in[0..n) scanned to out[0..n) (in may equal out),
// `tiles` segments, excl: exclusive scan, pub: the first output of an
// exclusive scan is the API's identity (level 0 only), totals: where
// segment totals go (NULL: not needed, one segment).

// Hillis-Steele-Horn, double-buffered.
template <typename T, typename Op>
__global__ void __launch_bounds__(HILLIS_STEELE_BLOCK)
    hillis_steele_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    __shared__ T buf[2][HILLIS_STEELE_BLOCK];
    const int t = threadIdx.x;
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * HILLIS_STEELE_BLOCK + t;
        __syncthreads(); // the previous segment's reads of buf are done
        buf[0][t] = i < n ? in[i] : id;
        int cur = 0;
#pragma unroll
        for (int d = 1; d < HILLIS_STEELE_BLOCK; d *= 2) {
            // One barrier per step: the last step's writes to buf[cur] are
            // visible, and its reads of buf[cur ^ 1] are done before this
            // step overwrites it. Every thread writes (a copy where it does
            // not combine), so no thread skips the barrier.
            __syncthreads();
            const T *src = buf[cur];
            T *dst = buf[cur ^ 1];
            dst[t] = t >= d ? Op::apply(src[t - d], src[t]) : src[t];
            cur ^= 1;
        }
        __syncthreads();
        const T *res = buf[cur]; // inclusive scan of the segment
        T r = res[t];
        if (excl) r = t > 0 ? res[t - 1] : id;
        if (pub && excl && i == 0) r = pp_public_identity<T, Op>();
        if (i < n) out[i] = r;
        if (totals && t == 0) totals[tile] = res[HILLIS_STEELE_BLOCK - 1];
    }
}

// Blelloch up-sweep / down-sweep, PAD: shared indices padded against bank
// conflicts.
template <bool PAD> __device__ __forceinline__ int blelloch_index(int i) { return PAD ? i + (i >> LOG_NUM_BANKS) : i; }

template <typename T, typename Op, bool PAD>
__global__ void __launch_bounds__(BLELLOCH_BLOCK)
    blelloch_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    constexpr int SIZE = PAD ? BLELLOCH_SEG + (BLELLOCH_SEG >> LOG_NUM_BANKS) : BLELLOCH_SEG;
    __shared__ T s[SIZE];
    __shared__ T s_total;
    const int t = threadIdx.x;
    const int a = t, b = t + BLELLOCH_BLOCK; // this thread's two elements
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * BLELLOCH_SEG;
        __syncthreads(); // the previous segment's reads of s and s_total are done
        s[blelloch_index<PAD>(a)] = base + a < n ? in[base + a] : id;
        s[blelloch_index<PAD>(b)] = base + b < n ? in[base + b] : id;
        // Up-sweep: d nodes combine their two children, stride `offset`.
        int offset = 1;
#pragma unroll
        for (int d = BLELLOCH_SEG / 2; d > 0; d /= 2) {
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                s[blelloch_index<PAD>(bi)] = Op::apply(s[blelloch_index<PAD>(ai)], s[blelloch_index<PAD>(bi)]);
            }
            offset *= 2;
        }
        __syncthreads();
        if (t == 0) {
            s_total = s[blelloch_index<PAD>(BLELLOCH_SEG - 1)];
            s[blelloch_index<PAD>(BLELLOCH_SEG - 1)] = id;
        }
        // Down-sweep: a node's prefix goes to its left child; the right
        // child gets prefix op (left child's total).
#pragma unroll
        for (int d = 1; d < BLELLOCH_SEG; d *= 2) {
            offset /= 2;
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                const T left = s[blelloch_index<PAD>(ai)];
                const T pre = s[blelloch_index<PAD>(bi)];
                s[blelloch_index<PAD>(ai)] = pre;
                s[blelloch_index<PAD>(bi)] = Op::apply(pre, left);
            }
        }
        __syncthreads();
        // s[k]: exclusive prefix of element k in the segment.
        const T total = s_total;
        T ra, rb;
        if (excl) {
            ra = s[blelloch_index<PAD>(a)];
            rb = s[blelloch_index<PAD>(b)];
            if (pub && tile == 0 && t == 0) ra = pp_public_identity<T, Op>();
        } else {
            ra = s[blelloch_index<PAD>(a + 1)];
            rb = b + 1 < BLELLOCH_SEG ? s[blelloch_index<PAD>(b + 1)] : total;
        }
        if (base + a < n) out[base + a] = ra;
        if (base + b < n) out[base + b] = rb;
        if (totals && t == 0) totals[tile] = total;
    }
}

// Warp-shuffle multiscan.
template <typename T, typename Op>
__global__ void __launch_bounds__(WARP_SCAN_BLOCK)
    warp_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    __shared__ T s_warp[WARP_SCAN_WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * WARP_SCAN_BLOCK + t;
        const T x = i < n ? in[i] : id;
        const T inc = pp_warp_inclusive<T, Op>(x); // scan within the warp
        T ex = pp_shfl_up(inc, 1);                   // exclusive within the warp
        if (lane == 0) ex = id;
        __syncthreads(); // the previous segment's reads of s_warp are done
        if (lane == 31) s_warp[warp] = inc;
        __syncthreads();
        if (warp == 0) s_warp[lane] = pp_warp_inclusive<T, Op>(s_warp[lane]); // each lane its own word
        __syncthreads();
        const T prefix = warp > 0 ? s_warp[warp - 1] : id;
        T r = Op::apply(prefix, excl ? ex : inc);
        if (pub && excl && i == 0) r = pp_public_identity<T, Op>();
        if (i < n) out[i] = r;
        if (totals && t == 0) totals[tile] = s_warp[WARP_SCAN_WARPS - 1];
    }
}

// ---- fix-up: segment `tile` (>= 1) gets its carry-in carries[tile] ----------------

template <typename T, typename Op>
__global__ void __launch_bounds__(FIX_BLOCK)
    add_carries(T *__restrict__ data, size_t n, size_t seg, size_t tiles, const T *__restrict__ carries)
{
    for (size_t tile = 1 + (size_t)blockIdx.x; tile < tiles; tile += gridDim.x) {
        const T c = carries[tile];
        const size_t base = tile * seg;
        const size_t len = n - base < seg ? n - base : seg;
        for (size_t k = threadIdx.x; k < len; k += FIX_BLOCK) data[base + k] = Op::apply(c, data[base + k]);
    }
}

// A launch's grid for `blocks` segments (blocks loop over the rest).
inline unsigned seg_grid(size_t blocks) { return grid_for(blocks, MAX_GRID); }

// The segment of algorithm ALGO's block scan (elements).
template <pp_algorithm ALGO> constexpr size_t seg_of()
{
    if constexpr (ALGO == PP_ALGO_HILLIS_STEELE) return HILLIS_STEELE_BLOCK;
    else if constexpr (ALGO == PP_ALGO_BLELLOCH || ALGO == PP_ALGO_BLELLOCH_PADDED) return BLELLOCH_SEG;
    else return WARP_SCAN_BLOCK;
}

// Algorithm ALGO on elements T with operator Op.
template <pp_algorithm ALGO, typename T, typename Op> pp_status study_scan(pp_context *ctx, const pp_scan_args *a)
{
    const char *fn = a->fn;
    const size_t n = a->n;
    if (n == 0) return PP_SUCCESS;
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    const int excl = a->kind == PP_EXCLUSIVE;
    cudaStream_t st = pp_cuda(ctx)->stream;

    if constexpr (ALGO == PP_ALGO_NAIVE) {
        if (n > NAIVE_MAX)
            return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                           "%s: algorithm %s does quadratic work (each output folds its own prefix); n = %zu is "
                           "above its cap of %zu",
                           fn, pp_algorithm_name(ALGO), n, NAIVE_MAX);
        const T *src = in;
        if (a->in == a->out) {
            T *copy = (T *)pp_cuda_scratch(ctx, n * sizeof(T), fn);
            if (!copy) return PP_ERROR_OUT_OF_MEMORY;
            PP_CUDA_TRY(ctx, cudaMemcpyAsync(copy, in, n * sizeof(T), cudaMemcpyDeviceToDevice, st), fn);
            src = copy;
        }
        naive_scan<T, Op><<<seg_grid(ceil_div(n, NAIVE_BLOCK)), NAIVE_BLOCK, 0, st>>>(src, out, n, excl);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    } else {
        constexpr size_t seg = seg_of<ALGO>();

        // Levels: len[0] = n elements (in -> out); len[k + 1] = the number
        // of segments of level k, whose totals arr[k + 1] (scratch) hold;
        // the top level L fits one segment.
        size_t len[MAX_LEVELS];
        T *arr[MAX_LEVELS];
        size_t off[MAX_LEVELS];
        int L = 0;
        len[0] = n;
        size_t bytes = 0;
        while (len[L] > seg) {
            if (L + 1 >= MAX_LEVELS) return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: too many scan levels", fn);
            len[L + 1] = ceil_div(len[L], seg);
            L++;
            off[L] = bytes;
            bytes += align_up(len[L] * sizeof(T), 16); // 16-byte aligned arrays
        }
        arr[0] = out;
        if (L > 0) {
            char *sc = (char *)pp_cuda_scratch(ctx, bytes, fn);
            if (!sc) return PP_ERROR_OUT_OF_MEMORY;
            for (int k = 1; k <= L; k++) arr[k] = (T *)(sc + off[k]);
        }

        // Scan every level's segments, bottom up: level 0 from in to out as
        // asked, the totals exclusively in place (their carries).
        for (int k = 0; k <= L; k++) {
            const T *src = k == 0 ? in : arr[k];
            const size_t tiles = k < L ? len[k + 1] : 1;
            const int ex = k == 0 ? excl : 1;
            const int pub = k == 0;
            T *totals = k < L ? arr[k + 1] : NULL;
            const unsigned grid = seg_grid(tiles);
            T *dst = arr[k];
            const size_t m = len[k];
            if constexpr (ALGO == PP_ALGO_HILLIS_STEELE)
                hillis_steele_scan<T, Op><<<grid, HILLIS_STEELE_BLOCK, 0, st>>>(src, dst, m, tiles, ex, pub, totals);
            else if constexpr (ALGO == PP_ALGO_BLELLOCH)
                blelloch_scan<T, Op, false><<<grid, BLELLOCH_BLOCK, 0, st>>>(src, dst, m, tiles, ex, pub, totals);
            else if constexpr (ALGO == PP_ALGO_BLELLOCH_PADDED)
                blelloch_scan<T, Op, true><<<grid, BLELLOCH_BLOCK, 0, st>>>(src, dst, m, tiles, ex, pub, totals);
            else {
                static_assert(ALGO == PP_ALGO_WARP_SHUFFLE, "not a scan algorithm of study/scan.cu");
                warp_scan<T, Op><<<grid, WARP_SCAN_BLOCK, 0, st>>>(src, dst, m, tiles, ex, pub, totals);
            }
            PP_CUDA_LAUNCHED(ctx, fn);
        }
        // Fix-ups, top down: level k's segments get their carries from the
        // (by then complete) exclusive scan of their totals.
        for (int k = L - 1; k >= 0; k--) {
            const size_t tiles = len[k + 1]; // >= 2
            add_carries<T, Op><<<seg_grid(tiles - 1), FIX_BLOCK, 0, st>>>(arr[k], len[k], seg, tiles, arr[k + 1]);
            PP_CUDA_LAUNCHED(ctx, fn);
        }
        return PP_SUCCESS;
    }
}

template <pp_algorithm ALGO> pp_status study_scan_entry(pp_context *ctx, const pp_scan_args *a)
{
    return pp_dispatch_type_op(ctx, a->fn, a->type, a->op, [&](auto t, auto op) {
        return study_scan<ALGO, decltype(t), decltype(op)>(ctx, a);
    });
}

} // namespace

// One entry per algorithm, for the backend's table (cuda_table.c).
#define PP_STUDY_ENTRY(NAME, ALGO) \
    pp_status pp_cuda_study_scan_##NAME(pp_context *ctx, const pp_scan_args *a) \
    {                                                                             \
        return study_scan_entry<ALGO>(ctx, a);                                    \
    }
PP_STUDY_ENTRY(naive, PP_ALGO_NAIVE)
PP_STUDY_ENTRY(hillis_steele, PP_ALGO_HILLIS_STEELE)
PP_STUDY_ENTRY(blelloch, PP_ALGO_BLELLOCH)
PP_STUDY_ENTRY(blelloch_padded, PP_ALGO_BLELLOCH_PADDED)
PP_STUDY_ENTRY(warp_shuffle, PP_ALGO_WARP_SHUFFLE)
#undef PP_STUDY_ENTRY
