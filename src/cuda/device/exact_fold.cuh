// Warp level of PP_ALGO_EXACT on the cuda backend (cuda_exact.cu): a
// warp's batches of the input loaded (pp_xload) and folded into its
// accumulator in shared memory, batch by batch (pp_xwarp_fold: warp
// batches, device/exact.cuh pp_xwarp_batch) or through per-lane expansions
// (pp_xthread_fold: pp_xexp_add, deposits only where a lane's expansion
// cannot hold an error), each batch loaded while the one before is added
// (pp_xfor_batches); and the block's accumulator from its warps'
// (pp_xblock_write).
#ifndef PP_CUDA_DEVICE_EXACT_FOLD_CUH
#define PP_CUDA_DEVICE_EXACT_FOLD_CUH

#include "exact.cuh"
#include "util.cuh"

// Loads batch b (elements b * BATCH ..) of in[0..n): lane l's V elements.
// Whole batches of an aligned input: 16-byte vectors (vector k*32 + l of
// the batch); else guarded element loads (element j*32 + l), absent ones
// +0.0. valid: bit j set where element j is present.
template <typename T>
__device__ __forceinline__ void pp_xload(const T *in, size_t n, size_t b, bool vec, T (&x)[pp_xfmt<T>::V],
                                      unsigned &valid)
{
    typedef pp_xfmt<T> F;
    const int lane = threadIdx.x & 31;
    const size_t base = b * F::BATCH;
    if (vec && n - base >= (size_t)F::BATCH) {
        valid = (1u << F::V) - 1u;
#pragma unroll
        for (int k = 0; k < F::V / F::VEC; k++) {
            const T *p = in + base + ((size_t)k * 32 + lane) * F::VEC;
            if constexpr (sizeof(T) == 8) {
                const double2 v = __ldcs(reinterpret_cast<const double2 *>(p));
                x[k * 2] = v.x;
                x[k * 2 + 1] = v.y;
            } else {
                const float4 v = __ldcs(reinterpret_cast<const float4 *>(p));
                x[k * 4] = v.x;
                x[k * 4 + 1] = v.y;
                x[k * 4 + 2] = v.z;
                x[k * 4 + 3] = v.w;
            }
        }
    } else {
        valid = 0;
#pragma unroll
        for (int j = 0; j < F::V; j++) {
            const size_t i = base + (size_t)j * 32 + lane;
            const bool ok = i < n;
            x[j] = ok ? in[i] : (T)-0.0; // -0.0: adds nothing, not even to a sum of -0.0
            valid |= (unsigned)ok << j;
        }
    }
}

// Batches b0, b0 + stride, ... of in[0..n), each loaded (pp_xload) while
// the one before is added: body(x, valid) per batch, called by the whole
// warp (the batch index is warp-uniform).
template <typename T, typename Body>
__device__ __forceinline__ void pp_xfor_batches(const T *in, size_t n, size_t b0, size_t stride, bool vec, Body body)
{
    typedef pp_xfmt<T> F;
    const size_t nb = ceil_div(n, (size_t)F::BATCH);
    T x[F::V];
    unsigned valid = 0;
    if (b0 < nb) pp_xload<T>(in, n, b0, vec, x, valid);
    for (size_t b = b0; b < nb; b += stride) {
        T y[F::V];
        unsigned yvalid = 0;
        const bool more = b + stride < nb;
        if (more) pp_xload<T>(in, n, b + stride, vec, y, yvalid); // in flight while this batch is added
        body(x, valid);
        if (more) {
#pragma unroll
            for (int j = 0; j < F::V; j++) x[j] = y[j];
            valid = yvalid;
        }
    }
}

// The warps of a block add batches b0, b0 + stride, ... (warp w starts at
// b0 + w * bstep) of in[0..n) into their accumulators acc[warp] (chunks),
// flags in fl, one warp batch (pp_xwarp_batch) at a time. Ends with each
// warp's chunks renormalized (|chunk| < 2^33).
template <typename T>
__device__ __forceinline__ void pp_xwarp_fold(const T *in, size_t n, size_t b0, size_t stride, bool vec, int64_t *w,
                                           unsigned &fl)
{
    typedef pp_xfmt<T> F;
    int dep = 0;
    pp_xfor_batches<T>(in, n, b0, stride, vec, [&](const T (&x)[F::V], unsigned valid) {
        if (dep > PP_XACC_DEPOSITS - F::BATCH) {
            pp_xwarp_renorm(w, F::CHUNKS);
            dep = 0;
        }
        dep += pp_xwarp_batch<T, F::V>(w, fl, x, valid);
    });
    pp_xwarp_renorm(w, F::CHUNKS);
}

// The reduce's fold: as pp_xwarp_fold, but each lane keeps its own
// expansion (pp_xexp_add), so a batch costs no warp reduction; the warp's
// accumulator takes only the rare deposits and, at the end, the lanes'
// terms. Renormalizes whenever a lane may have reached DEP_LANE deposits:
// between renormalizations each lane deposits at most DEP_LANE + V +
// PP_XEXP_TERMS times, so the warp stays within PP_XACC_DEPOSITS per chunk.
template <typename T>
__device__ __forceinline__ void pp_xthread_fold(const T *in, size_t n, size_t b0, size_t stride, bool vec, int64_t *w,
                                             unsigned &fl)
{
    typedef pp_xfmt<T> F;
    constexpr int DEP_LANE = PP_XACC_DEPOSITS / 32 - F::V - PP_XEXP_TERMS;
    static_assert(DEP_LANE > 0, "deposit headroom");
    pp_xexp e = {{-0.0}, 0}; // a[0] = -0.0, the rest +0.0
    pp_xfor_batches<T>(in, n, b0, stride, vec, [&](const T (&x)[F::V], unsigned) {
        if (__any_sync(0xffffffffu, e.dep > DEP_LANE)) {
            pp_xwarp_renorm(w, F::CHUNKS);
            e.dep = 0;
        }
#pragma unroll
        for (int j = 0; j < F::V; j++) pp_xexp_add<T>(e, w, fl, x[j]); // absent elements: -0.0
    });
    pp_xexp_flush<T>(e, w, fl);
    pp_xwarp_renorm(w, F::CHUNKS);
}

// The block's accumulator: its WARPS warps' chunks (acc[k], after their
// folds) added, their flags (sflags[k]) ORed, written as words c of
// dst[c * stride] (deposit count 0). Called by all threads after a
// __syncthreads that follows the folds. Each chunk stays below
// WARPS * 2^33 in magnitude (the folds end renormalized).
template <typename T, int WARPS>
__device__ __forceinline__ void pp_xblock_write(int64_t (*acc)[pp_xfmt<T>::WORDS], const unsigned *sflags,
                                                int64_t *dst, size_t stride)
{
    typedef pp_xfmt<T> F;
    for (int c = threadIdx.x; c < F::WORDS; c += blockDim.x) {
        int64_t s = 0;
        if (c < F::CHUNKS) {
            for (int k = 0; k < WARPS; k++) s += acc[k][c];
        } else if (c == F::CHUNKS) {
            for (int k = 0; k < WARPS; k++) s |= (int64_t)sflags[k];
        }
        dst[(size_t)c * stride] = s;
    }
}

#endif
