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
#include "cuda_internal.cuh"
#include "cuda_entry.h"

namespace {

constexpr size_t NAIVE_MAX = 65536;     // the naive scan's cap on n
constexpr int NAIVE_BLOCK = 256;
constexpr int HS_BLOCK = 1024;          // Hillis-Steele: threads = elements per segment
constexpr int BL_BLOCK = 512;           // Blelloch: threads per block
constexpr int BL_SEG = 2 * BL_BLOCK;    // Blelloch: elements per segment
constexpr int LOG_NUM_BANKS = 5;        // 32 banks of shared memory
constexpr int WS_BLOCK = 1024;          // warp shuffle: threads = elements per segment
constexpr int WS_WARPS = WS_BLOCK / 32;
constexpr int FIX_BLOCK = 256;          // fix-up: threads per block
constexpr unsigned MAX_GRID = 1u << 20; // blocks per launch (kernels loop over segments)
constexpr int MAX_LEVELS = 16;          // SEG >= 1024: 7 levels cover 2^64 elements

static_assert(WS_WARPS == 32, "the warp totals are scanned by one full warp");

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
__global__ void __launch_bounds__(HS_BLOCK)
    hs_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    __shared__ T buf[2][HS_BLOCK];
    const int t = threadIdx.x;
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * HS_BLOCK + t;
        __syncthreads(); // the previous segment's reads of buf are done
        buf[0][t] = i < n ? in[i] : id;
        int cur = 0;
#pragma unroll
        for (int d = 1; d < HS_BLOCK; d *= 2) {
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
        if (totals && t == 0) totals[tile] = res[HS_BLOCK - 1];
    }
}

// Blelloch up-sweep / down-sweep, PAD: shared indices padded against bank
// conflicts.
template <bool PAD> __device__ __forceinline__ int bl_index(int i) { return PAD ? i + (i >> LOG_NUM_BANKS) : i; }

template <typename T, typename Op, bool PAD>
__global__ void __launch_bounds__(BL_BLOCK)
    blelloch_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    constexpr int SIZE = PAD ? BL_SEG + (BL_SEG >> LOG_NUM_BANKS) : BL_SEG;
    __shared__ T s[SIZE];
    __shared__ T s_total;
    const int t = threadIdx.x;
    const int a = t, b = t + BL_BLOCK; // this thread's two elements
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t base = tile * BL_SEG;
        __syncthreads(); // the previous segment's reads of s and s_total are done
        s[bl_index<PAD>(a)] = base + a < n ? in[base + a] : id;
        s[bl_index<PAD>(b)] = base + b < n ? in[base + b] : id;
        // Up-sweep: d nodes combine their two children, stride `offset`.
        int offset = 1;
#pragma unroll
        for (int d = BL_SEG / 2; d > 0; d /= 2) {
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                s[bl_index<PAD>(bi)] = Op::apply(s[bl_index<PAD>(ai)], s[bl_index<PAD>(bi)]);
            }
            offset *= 2;
        }
        __syncthreads();
        if (t == 0) {
            s_total = s[bl_index<PAD>(BL_SEG - 1)];
            s[bl_index<PAD>(BL_SEG - 1)] = id;
        }
        // Down-sweep: a node's prefix goes to its left child; the right
        // child gets prefix op (left child's total).
#pragma unroll
        for (int d = 1; d < BL_SEG; d *= 2) {
            offset /= 2;
            __syncthreads();
            if (t < d) {
                const int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
                const T left = s[bl_index<PAD>(ai)];
                const T pre = s[bl_index<PAD>(bi)];
                s[bl_index<PAD>(ai)] = pre;
                s[bl_index<PAD>(bi)] = Op::apply(pre, left);
            }
        }
        __syncthreads();
        // s[k]: exclusive prefix of element k in the segment.
        const T total = s_total;
        T ra, rb;
        if (excl) {
            ra = s[bl_index<PAD>(a)];
            rb = s[bl_index<PAD>(b)];
            if (pub && tile == 0 && t == 0) ra = pp_public_identity<T, Op>();
        } else {
            ra = s[bl_index<PAD>(a + 1)];
            rb = b + 1 < BL_SEG ? s[bl_index<PAD>(b + 1)] : total;
        }
        if (base + a < n) out[base + a] = ra;
        if (base + b < n) out[base + b] = rb;
        if (totals && t == 0) totals[tile] = total;
    }
}

// Warp-shuffle multiscan.
template <typename T, typename Op>
__global__ void __launch_bounds__(WS_BLOCK)
    warp_scan(const T *in, T *out, size_t n, size_t tiles, int excl, int pub, T *totals)
{
    __shared__ T s_warp[WS_WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const T id = Op::template identity<T>();
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t i = tile * WS_BLOCK + t;
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
        if (totals && t == 0) totals[tile] = s_warp[WS_WARPS - 1];
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

inline unsigned grid_for(size_t blocks) { return blocks < MAX_GRID ? (unsigned)blocks : MAX_GRID; }
inline size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

template <typename T, typename Op>
pp_status seed_scan(pp_context *ctx, pp_algorithm algo, pp_scan_kind kind, const void *in_, void *out_, size_t n)
{
    if constexpr (pp_is_float<T>() && (pp_same<Op, Op_and>::value || pp_same<Op, Op_or>::value ||
                                       pp_same<Op, Op_xor>::value)) {
        (void)algo;
        (void)kind;
        (void)in_;
        (void)out_;
        (void)n;
        return pp_fail(ctx, PP_ERROR_INTERNAL, "pp_scan: bitwise operator on a float type reached the cuda backend");
    } else {
        static const char fn[] = "pp_scan";
        if (n == 0) return PP_SUCCESS;
        const T *in = (const T *)in_;
        T *out = (T *)out_;
        const int excl = kind == PP_EXCLUSIVE;
        cudaStream_t st = pp_cuda(ctx)->stream;

        if (algo == PP_ALGO_NAIVE) {
            if (n > NAIVE_MAX)
                return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                               "%s: algorithm %s does quadratic work (each output folds its own prefix); n = %zu is "
                               "above its cap of %zu",
                               fn, pp_algorithm_name(algo), n, NAIVE_MAX);
            const T *src = in;
            if (in_ == out_) {
                T *copy = (T *)pp_cuda_scratch(ctx, n * sizeof(T), fn);
                if (!copy) return PP_ERROR_OUT_OF_MEMORY;
                PP_CUDA_TRY(ctx, cudaMemcpyAsync(copy, in, n * sizeof(T), cudaMemcpyDeviceToDevice, st), fn);
                src = copy;
            }
            naive_scan<T, Op><<<grid_for(ceil_div(n, NAIVE_BLOCK)), NAIVE_BLOCK, 0, st>>>(src, out, n, excl);
            PP_CUDA_LAUNCHED(ctx, fn);
            return PP_SUCCESS;
        }

        size_t seg;
        switch (algo) {
        case PP_ALGO_HILLIS_STEELE: seg = HS_BLOCK; break;
        case PP_ALGO_BLELLOCH:
        case PP_ALGO_BLELLOCH_PADDED: seg = BL_SEG; break;
        case PP_ALGO_WARP_SHUFFLE: seg = WS_BLOCK; break;
        default:
            return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: algorithm %s is not available on cuda", fn,
                           pp_algorithm_name(algo));
        }

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
            bytes += (len[L] * sizeof(T) + 15) & ~(size_t)15; // 16-byte aligned arrays
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
            const unsigned grid = grid_for(tiles);
            switch (algo) {
            case PP_ALGO_HILLIS_STEELE:
                hs_scan<T, Op><<<grid, HS_BLOCK, 0, st>>>(src, arr[k], len[k], tiles, ex, pub, totals);
                break;
            case PP_ALGO_BLELLOCH:
                blelloch_scan<T, Op, false><<<grid, BL_BLOCK, 0, st>>>(src, arr[k], len[k], tiles, ex, pub, totals);
                break;
            case PP_ALGO_BLELLOCH_PADDED:
                blelloch_scan<T, Op, true><<<grid, BL_BLOCK, 0, st>>>(src, arr[k], len[k], tiles, ex, pub, totals);
                break;
            default: warp_scan<T, Op><<<grid, WS_BLOCK, 0, st>>>(src, arr[k], len[k], tiles, ex, pub, totals); break;
            }
            PP_CUDA_LAUNCHED(ctx, fn);
        }
        // Fix-ups, top down: level k's segments get their carries from the
        // (by then complete) exclusive scan of their totals.
        for (int k = L - 1; k >= 0; k--) {
            const size_t tiles = len[k + 1]; // >= 2
            add_carries<T, Op><<<grid_for(tiles - 1), FIX_BLOCK, 0, st>>>(arr[k], len[k], seg, tiles, arr[k + 1]);
            PP_CUDA_LAUNCHED(ctx, fn);
        }
        return PP_SUCCESS;
    }
}

typedef pp_status (*seed_scan_fn)(pp_context *, pp_algorithm, pp_scan_kind, const void *, void *, size_t);

// Filled in list order, which is enum order (pp_type_op_order_ok in cuda_internal.cuh).
#define PP_SEED_SCAN_ENTRY(E, T, S, K, OE, OS) seed_scan<T, Op_##OS>,
const seed_scan_fn seed_scan_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(PP_SEED_SCAN_ENTRY)};
#undef PP_SEED_SCAN_ENTRY

} // namespace

static pp_status study_scan(pp_context *ctx, pp_algorithm algo, const pp_scan_args *a)
{
    return seed_scan_table[a->type][a->op](ctx, algo, a->kind, a->in, a->out, a->n);
}

// One entry per algorithm, for the backend's table (cuda_table.c).
#define PP_STUDY_ENTRY(NAME, ALGO) \
    pp_status pp_cuda_study_scan_##NAME(pp_context *ctx, const pp_scan_args *a) { return study_scan(ctx, ALGO, a); }
PP_STUDY_ENTRY(naive, PP_ALGO_NAIVE)
PP_STUDY_ENTRY(hillis_steele, PP_ALGO_HILLIS_STEELE)
PP_STUDY_ENTRY(blelloch, PP_ALGO_BLELLOCH)
PP_STUDY_ENTRY(blelloch_padded, PP_ALGO_BLELLOCH_PADDED)
PP_STUDY_ENTRY(warp_shuffle, PP_ALGO_WARP_SHUFFLE)
#undef PP_STUDY_ENTRY
