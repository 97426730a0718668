// Binning of the cuda histograms, shared by cuda_histogram.cu (the default
// algorithm) and study/histogram.cu (the course notes' algorithms), so that
// every algorithm bins exactly alike: the binners (operator()(x) gives the
// bin of x, or `none`), their host-side parameter setup, and a call's
// scratch (range edges copied to the device) and choice of binners
// (hist_with_binners). See the top of
// cuda_histogram.cu for the arithmetic. Everything here is in an anonymous
// namespace: each including file gets its own copy.
#ifndef PP_CUDA_DEVICE_HIST_BINS_CUH
#define PP_CUDA_DEVICE_HIST_BINS_CUH

#include <float.h>

#include "../cuda_state.cuh"
#include "ops.cuh"
#include "util.cuh"
#include "vec.cuh"

namespace {

// Threads per block of every histogram kernel that uses BinRange<..., true>
// (its setup() copies the edges with this stride).
constexpr int HIST_BLOCK = 512; // threads per block

__extension__ typedef unsigned __int128 hist_u128;

// ---- binners: operator()(x) gives the bin of x, or `none` (== nbins) ----------

// Integer even bins with range < 2^32 and nbins < 2^32. M = ceil(2^64 *
// nbins / range) = m2 * 2^64 + m1 * 2^32 + m0. For 0 <= d < range:
// d * M / 2^64 = d * nbins / range + d * e / 2^64 with 0 <= e < 1; the first
// term is q + f / range with f <= range - 1, the second is below
// 2^32 / 2^64 = 2^-32 < 1 / range, so the floor is exactly q. The floor is
// evaluated without loss as d * m2 + ((d * m1 + hi32(d * m0)) >> 32), in
// 32 bits because q < nbins < 2^32.
template <typename T, typename I> struct BinFast {
    typedef I index;
    static constexpr int minb = sizeof(I) == 4 ? 3 : 2; // blocks per SM the registers must allow
    T lo, hi;
    uint32_t m0, m1, m2;
    I none;
    __device__ __forceinline__ void setup(unsigned char *) {}
    __device__ __forceinline__ I operator()(T x) const
    {
        typedef typename pp_traits<T>::bits U;
        const uint32_t d = (uint32_t)(U)((U)x - (U)lo); // exact when lo <= x < hi
        const uint32_t t = __umulhi(d, m0);
        const uint64_t u = (uint64_t)d * m1 + t;
        const uint32_t q = d * m2 + (uint32_t)(u >> 32);
        return (x >= lo && x < hi) ? (I)q : none;
    }
};

// Integer even bins, any 64-bit range and nbins. M = floor(2^64 * nbins /
// range) = mh * 2^64 + ml; q' = floor(d * M / 2^64) = d * mh + hi64(d * ml)
// lies in (d * nbins / range - 1, d * nbins / range], so q' is q or q - 1
// (and < nbins, so the 64-bit arithmetic is exact); it becomes q' + 1
// exactly when (q' + 1) * range <= d * nbins, compared in 128 bits.
template <typename T, typename I> struct BinWide {
    typedef I index;
    static constexpr int minb = 2;
    T lo, hi;
    uint64_t mh, ml, range, nbins;
    I none;
    __device__ __forceinline__ void setup(unsigned char *) {}
    __device__ __forceinline__ I operator()(T x) const
    {
        typedef typename pp_traits<T>::bits U;
        const uint64_t d = (uint64_t)(U)((U)x - (U)lo);
        uint64_t q = d * mh + __umul64hi(d, ml);
        const uint64_t c = q + 1;
        const uint64_t plo = d * nbins, phi = __umul64hi(d, nbins);
        const uint64_t clo = c * range, chi = __umul64hi(c, range);
        if (chi < phi || (chi == phi && clo <= plo)) q = c;
        return (x >= lo && x < hi) ? (I)q : none;
    }
};

// Float even bins: d = xs * x - dlo with xs = 1 (or 0.5 when upper - lower
// overflows, dlo then being 0.5 * lower; multiplying by 1 is exact), bin =
// (uint64_t)(d * scale) clamped to [0, nbins - 1], all in double with
// explicit rounding as on the cpu.
template <typename T, typename I> struct BinFloat {
    typedef I index;
    static constexpr int minb = sizeof(I) == 4 ? 3 : 2;
    T lo, hi;
    double xs, dlo, scale, top; // top = (double)(nbins - 1)
    I topbin, none;
    __device__ __forceinline__ void setup(unsigned char *) {}
    __device__ __forceinline__ I operator()(T x) const
    {
        const double d = __dsub_rn(__dmul_rn(xs, (double)x), dlo);
        const double k = __dmul_rn(d, scale);
        I b; // k is NaN only for 0 * inf (a tiny range): bin 0, as on the cpu
        if constexpr (sizeof(I) == 4) b = k >= top ? topbin : k > 0 ? (I)__double2uint_rz(k) : (I)0;
        else b = k >= top ? topbin : k > 0 ? (I)__double2ull_rz(k) : (I)0;
        return (x >= lo && x < hi) ? b : none;
    }
};

// Range bins: the a with e[a] <= x < e[a + 1], found by binary lifting with a
// fixed number of steps (top = the largest power of two <= nbins - 1): a
// starts at 0 (e[0] <= x) and takes each step s while e[a + s] <= x and
// a + s < nbins; as the edges increase strictly, this is the unique answer.
// SMEM: the edges are copied into shared memory by setup().
template <typename T, typename I, bool SMEM> struct BinRange {
    typedef I index;
    static constexpr int minb = 3;
    const T *edges; // device copy (global); after setup(), where to search
    uint64_t nbins, top;
    T first, last;
    I none;
    double glo, gscale; // the core's guess (pp_hist_guess in internal.h); gscale == 0: none
    __device__ __forceinline__ void setup(unsigned char *sm)
    {
        if constexpr (SMEM) {
            T *se = reinterpret_cast<T *>(sm);
            for (uint64_t i = threadIdx.x; i <= nbins; i += HIST_BLOCK) se[i] = pp_ldg(edges + i);
            edges = se; // the caller's __syncthreads() publishes them
        }
    }
    __device__ __forceinline__ T edge(I j) const { return SMEM ? edges[j] : pp_ldg(edges + j); }
    __device__ __forceinline__ I operator()(T x) const
    {
        if (gscale > 0) { // near-equal edges: the guess is x's bin or a neighbour (the core checked)
            if (!(x >= first && x < last)) return none;
            const double k = __dmul_rn(__dsub_rn((double)x, glo), gscale);
            const I g = k >= (double)(nbins - 1) ? (I)(nbins - 1) : k > 0 ? (I)k : (I)0;
            return g - (I)(x < edge(g)) + (I)(x >= edge(g + 1)); // at most one of them moves g
        }
        I a = 0;
        const I nb = (I)nbins;
        for (I s = (I)top; s != 0; s >>= 1) {
            const I j = a + s;
            if (j < nb) {
                if (x >= edge(j)) a = j;
            }
        }
        return (x >= first && x < last) ? a : none;
    }
};

// ---- host-side parameter setup ---------------------------------------------------

// Range bins: top = the largest power of two <= nbins - 1 (0 for one bin).
inline uint64_t hist_range_top(uint64_t nb)
{
    uint64_t top = 0;
    if (nb > 1) {
        top = 1;
        while (top <= (nb - 1) / 2) top *= 2;
    }
    return top;
}

// Range bins over dev_edges (device copy of the nbins + 1 edges; host_edges
// the caller's host array), with the core's guess of a's (guess_scale 0: none).
template <typename T, typename I, bool SMEM>
inline BinRange<T, I, SMEM> hist_make_range(const T *dev_edges, const T *host_edges, uint64_t nb,
                                            const pp_histogram_args *a)
{
    BinRange<T, I, SMEM> r;
    r.glo = a->guess_lo;
    r.gscale = a->guess_scale;
    r.edges = dev_edges;
    r.nbins = nb;
    r.top = hist_range_top(nb);
    r.first = host_edges[0];
    r.last = host_edges[nb];
    r.none = (I)nb;
    return r;
}

// Float even bins over [lo, hi). With I = uint32_t only for nbins < 2^31.
template <typename T, typename I> inline BinFloat<T, I> hist_make_float(T lo, T hi, uint64_t nb)
{
    const double dl = (double)lo, dh = (double)hi;
    double r = dh - dl;
    const bool halves = !(r <= DBL_MAX);
    if (halves) r = 0.5 * dh - 0.5 * dl;
    BinFloat<T, I> f;
    f.lo = lo;
    f.hi = hi;
    f.xs = halves ? 0.5 : 1.0;
    f.dlo = halves ? 0.5 * dl : dl;
    f.scale = (double)nb / r;
    f.top = (double)(nb - 1);
    uint64_t tb = (uint64_t)f.top;
    tb = tb < nb - 1 ? tb : nb - 1;
    f.topbin = (I)tb;
    f.none = (I)nb;
    return f;
}

// Integer even bins: hi - lo as an unsigned 64-bit range (>= 1).
template <typename T> inline uint64_t hist_int_range(T lo, T hi)
{
    typedef typename pp_traits<T>::bits U;
    return (uint64_t)(U)((U)hi - (U)lo);
}

// Whether BinFast serves the range and nbins (else BinWide).
inline bool hist_fast_fits(uint64_t range, uint64_t nb) { return range < (1ull << 32) && nb < (1ull << 32); }

// BinFast (only where hist_fast_fits).
template <typename T, typename I> inline BinFast<T, I> hist_make_fast(T lo, T hi, uint64_t nb)
{
    const uint64_t range = hist_int_range(lo, hi);
    const hist_u128 m = ((((hist_u128)nb) << 64) + range - 1) / range;
    BinFast<T, I> f;
    f.lo = lo;
    f.hi = hi;
    f.m0 = (uint32_t)m;
    f.m1 = (uint32_t)(m >> 32);
    f.m2 = (uint32_t)(m >> 64);
    f.none = (I)nb;
    return f;
}

// BinWide (any range and nbins; I = uint32_t only for nbins < 2^32).
template <typename T, typename I> inline BinWide<T, I> hist_make_wide(T lo, T hi, uint64_t nb)
{
    const uint64_t range = hist_int_range(lo, hi);
    const hist_u128 m = (((hist_u128)nb) << 64) / range;
    BinWide<T, I> w;
    w.lo = lo;
    w.hi = hi;
    w.mh = (uint64_t)(m >> 64);
    w.ml = (uint64_t)m;
    w.range = range;
    w.nbins = nb;
    w.none = (I)nb;
    return w;
}

// ---- a call's scratch and binners -----------------------------------------------------

// Stands for a binner that does not exist (see hist_with_binners).
struct HistNoBins {
};

// Bytes of a call's range edges (nbins + 1 of them; 0 for even bins).
template <typename T> inline uint64_t hist_edge_bytes(const pp_histogram_args *a)
{
    return a->edges ? (a->nbins + 1) * sizeof(T) : 0;
}

// Sets up a call's scratch and binners, then returns run(b32, b64, extra_at).
// Scratch: the range edges in a 256-byte aligned region (copied there from
// the host with cudaMemcpyAsync on the context's stream), then `extra` bytes
// at extra_at (NULL if extra is 0). Binners: b32 gives 32-bit bins (meant
// for nbins < 2^31; HistNoBins for narrow integer types whose range needs
// BinWide, which they do only with nbins >= 2^32), b64 gives 64-bit bins;
// range bins: b32 reads the edges from shared memory, b64 does where
// edges_smem.
template <typename T, typename Run>
pp_status hist_with_binners(pp_context *ctx, const pp_histogram_args *a, uint64_t extra, bool edges_smem,
                            const char *fn, Run run)
{
    const uint64_t edge_raw = hist_edge_bytes<T>(a);
    const uint64_t edge_region = align_up(edge_raw, 256);
    unsigned char *scratch = NULL;
    if (edge_region + extra) {
        scratch = (unsigned char *)pp_cuda_scratch(ctx, (size_t)(edge_region + extra), fn);
        if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    }
    void *extra_at = extra ? scratch + edge_region : NULL;
    const uint64_t nb = a->nbins;
    if (a->edges) {
        T *dev_edges = (T *)scratch;
        PP_CUDA_TRY(ctx, cudaMemcpyAsync(dev_edges, a->edges, (size_t)edge_raw, cudaMemcpyHostToDevice,
                                         pp_cuda(ctx)->stream), fn);
        const T *he = (const T *)a->edges;
        const BinRange<T, uint32_t, true> r32 = hist_make_range<T, uint32_t, true>(dev_edges, he, nb, a);
        if (edges_smem) return run(r32, hist_make_range<T, uint64_t, true>(dev_edges, he, nb, a), extra_at);
        return run(r32, hist_make_range<T, uint64_t, false>(dev_edges, he, nb, a), extra_at);
    }
    T lo, hi;
    memcpy(&lo, a->lower, sizeof lo);
    memcpy(&hi, a->upper, sizeof hi);
    if constexpr (pp_is_float<T>()) {
        return run(hist_make_float<T, uint32_t>(lo, hi, nb), hist_make_float<T, uint64_t>(lo, hi, nb), extra_at);
    } else {
        if (hist_fast_fits(hist_int_range(lo, hi), nb))
            return run(hist_make_fast<T, uint32_t>(lo, hi, nb), hist_make_fast<T, uint64_t>(lo, hi, nb), extra_at);
        if constexpr (sizeof(T) == 8)
            return run(hist_make_wide<T, uint32_t>(lo, hi, nb), hist_make_wide<T, uint64_t>(lo, hi, nb), extra_at);
        else return run(HistNoBins(), hist_make_wide<T, uint64_t>(lo, hi, nb), extra_at);
    }
}

} // namespace

#endif
