/* parprim opencl: histograms (pp_histogram_even and pp_histogram_range).
 * Program "histogram"; the prelude (common.cl) comes first.
 *
 * Defines from the host (opencl_histogram.c), besides the type:
 *   PP_L      work-group size (every kernel requires exactly it)
 *   PP_VPI    16-byte vectors per work-item in a tile (a tile is
 *             L * VPI vectors of T_VEC samples)
 *   PP_HBIN   how a sample is binned: 0 integer even bins, range < 2^32 and
 *             nbins < 2^32 (fixed-point reciprocal, 32-bit products);
 *             1 integer even bins, any 64-bit range and nbins; 2 float even
 *             bins (the double expression of parprim.h); 3 range bins
 *             (binary search over the edges); 4 range bins with the core's
 *             guess (pp_hist_guess: p1 = lo, p2 = scale as bits), corrected
 *             by one step
 *   PP_LUT    1 (8- and 16-bit samples only): the counting kernels look
 *             the bin of each sample up in a table of the bin of every value
 *             (built by hist_lut in scratch: lut[lut_off + bits] = bin, or
 *             nbins; nbins < 2^32) instead of computing it
 *   PP_H64    1: the counters in global memory are the 64-bit counts
 *             (atom_add of cl_khr_int64_base_atomics); 0: 32-bit counters
 *             in scratch, which the host adds into the counts (hist_merge)
 *             after each chunk of fewer than 2^32 samples.
 *
 * Every kernel counts the samples in[base .. base + len) (len < 2^32: the
 * host splits larger inputs into chunks), loops grid-stride over tiles and
 * indexes with ulong. No work-group waits for another.
 *
 * Binning arguments (BIN_PARAMS): lo_bits, hi_bits (the even bounds as the
 * bits of T), p0..p3 (by PP_HBIN, see bin_of), nbins, edges (range bins; an
 * unused buffer otherwise). bin_of returns nbins for a sample that is not
 * counted.
 */
#pragma OPENCL FP_CONTRACT OFF

#define L PP_L
#define VPI PP_VPI
#define TILE_VECS (L * VPI)

#if PP_H64
#define CTR ulong
#define GLOBAL_ADD(p, v) atom_add((p), (ulong)(v))
#else
#define CTR uint
#define GLOBAL_ADD(p, v) atomic_add((p), (uint)(v))
#endif

#define BIN_PARAMS ulong lo_bits, ulong hi_bits, ulong p0, ulong p1, ulong p2, ulong p3, ulong nbins, \
                   __global const T *edges
#define BIN_ARGS lo_bits, hi_bits, p0, p1, p2, p3, nbins, edges
#define LUT_PARAMS __global const uint *lut, ulong lut_off
#if PP_LUT
#define BIN(x) ((ulong)lut[lut_off + (U)(x)])
#else
#define BIN(x) bin_of((x), BIN_ARGS)
#endif

ulong bin_of(T x, BIN_PARAMS)
{
#if PP_HBIN == 4
    /* the guess is x's bin or a neighbour of it (the core checked the edges) */
    (void)lo_bits, (void)hi_bits, (void)p0, (void)p3;
    if (!(x >= edges[0] && x < edges[nbins])) return nbins;
    const double k = ((double)x - as_double(p1)) * as_double(p2);
    const ulong g = k >= (double)(nbins - 1) ? nbins - 1 : k > 0 ? (ulong)k : (ulong)0;
    return g - (x < edges[g] ? 1 : 0) + (x >= edges[g + 1] ? 1 : 0); /* at most one of them moves g */
#elif PP_HBIN == 3
    /* the a with edges[a] <= x < edges[a + 1]: binary lifting from a = 0 with
     * steps p0 (the largest power of two <= nbins - 1, or 0), p0 / 2, ... */
    (void)lo_bits, (void)hi_bits, (void)p1, (void)p2, (void)p3;
    if (!(x >= edges[0] && x < edges[nbins])) return nbins;
    ulong a = 0;
    for (ulong s = p0; s != 0; s >>= 1)
        if (a + s < nbins && edges[a + s] <= x) a += s;
    return a;
#else
    (void)edges;
    const T lo = PP_FROM_BITS((U)lo_bits), hi = PP_FROM_BITS((U)hi_bits);
    if (!(x >= lo && x < hi)) return nbins; /* NaN too */
#if PP_HBIN == 0
    /* M = ceil(2^64 * nbins / range) = p2 * 2^64 + p1 * 2^32 + p0 (96 bits);
     * floor(d * M / 2^64) is floor(d * nbins / range) exactly for d < range
     * <= 2^32 (the error term d * (M - 2^64 nbins/range) / 2^64 stays below
     * 1 / range), evaluated in 32/64-bit pieces; the quotient is < nbins < 2^32. */
    (void)p3;
    const uint d = (uint)(U)((U)x - (U)lo);
    const uint t = mul_hi(d, (uint)p0);
    const ulong u = (ulong)d * (uint)p1 + t;
    return (ulong)(d * (uint)p2 + (uint)(u >> 32));
#elif PP_HBIN == 1
    /* M = floor(2^64 * nbins / range) = p0 * 2^64 + p1; q = floor(d * M / 2^64)
     * is the exact quotient or one less; it is one less exactly when
     * (q + 1) * range <= d * nbins (compared in 128 bits). p2 = range, p3 = nbins. */
    const ulong d = (ulong)((U)x - (U)lo);
    ulong q = d * p0 + mul_hi(d, p1);
    const ulong c = q + 1;
    const ulong plo = d * p3, phi = mul_hi(d, p3);
    const ulong clo = c * p2, chi = mul_hi(c, p2);
    if (chi < phi || (chi == phi && clo <= plo)) q = c;
    return q;
#else
    /* d = xs * x - dlo (xs = 0.5 when upper - lower overflows, dlo then
     * 0.5 * lower), k = d * scale, clamped to [0, nbins - 1]; k is NaN only
     * for 0 * inf (a tiny range): bin 0. p0 = halves, p1 = dlo, p2 = scale,
     * p3 = (double)(nbins - 1), all as bits. */
    const double xs = p0 ? 0.5 : 1.0;
    const double d = xs * (double)x - as_double(p1);
    const double k = d * as_double(p2);
    return k >= as_double(p3) ? nbins - 1 : k > 0 ? (ulong)k : (ulong)0;
#endif
#endif
}

/* Calls COUNT(bin) for every sample of in[base .. base + len) that this
 * work-item owns: whole 16-byte vectors tile by tile (vector k*L + lid of
 * the tile, coalesced), the last len % T_VEC samples by the first
 * work-items of group 0. */
#define FOR_EACH_BIN(COUNT)                                                                  \
    do {                                                                                     \
        __global const T *p_ = in + base;                                                    \
        const ulong nvec_ = len / T_VEC;                                                     \
        const uint lid_ = get_local_id(0);                                                   \
        for (ulong t_ = get_group_id(0); t_ * TILE_VECS < nvec_; t_ += get_num_groups(0)) { \
            for (uint k_ = 0; k_ < VPI; k_++) {                                              \
                const ulong v_ = t_ * TILE_VECS + (ulong)k_ * L + lid_;                      \
                if (v_ < nvec_) {                                                            \
                    T e_[T_VEC];                                                             \
                    VSTORE(VLOAD(v_, p_), 0, e_);                                            \
                    for (int j_ = 0; j_ < T_VEC; j_++) {                                     \
                        const ulong b_ = BIN(e_[j_]);                                         \
                        COUNT(b_);                                                           \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
        }                                                                                    \
        if (get_group_id(0) == 0) {                                                          \
            for (ulong i_ = nvec_ * T_VEC + lid_; i_ < len; i_ += L) {                       \
                const ulong b_ = BIN(p_[i_]);                                                 \
                COUNT(b_);                                                                   \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* Runs: a work-item remembers the bin of its last counted samples and how
 * many there were, so sorted or clustered data cost few atomics. */
#define RUN_COUNT(b)                                 \
    if ((b) < nbins) {                               \
        if ((b) == run_bin) {                        \
            run_n++;                                 \
        } else {                                     \
            if (run_n) RUN_FLUSH(run_bin, run_n);    \
            run_bin = (b);                           \
            run_n = 1;                               \
        }                                            \
    }

/* PP_ALGO_GLOBAL_ATOMIC: every run goes into ctr[0 .. nbins) with one atomic. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hist_global(__global const T *in, ulong base,
                                                                        ulong len, BIN_PARAMS,
                                                                        LUT_PARAMS, __global CTR *ctr)
{
    ulong run_bin = nbins;
    uint run_n = 0;
#define RUN_FLUSH(b, c) GLOBAL_ADD(&ctr[b], c)
    FOR_EACH_BIN(RUN_COUNT);
    if (run_n) RUN_FLUSH(run_bin, run_n);
#undef RUN_FLUSH
}

/* PP_ALGO_PRIVATE_ATOMIC (reduce == 0): each work-group counts into h, a
 * private histogram of 32-bit counters in local memory (fewer than 2^32
 * samples per launch), then adds its nonzero bins into ctr with atomics.
 * PP_ALGO_PRIVATE_REDUCE (reduce == 1): the group writes h whole to
 * partials[group * nbins ..] (no atomics on global memory; hist_merge sums
 * the rows). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hist_private(__global const T *in, ulong base,
                                                                         ulong len, BIN_PARAMS,
                                                                         LUT_PARAMS, __global CTR *ctr,
                                                                         __global uint *partials, uint reduce,
                                                                         __local uint *h)
{
    const uint lid = get_local_id(0);
    for (ulong b = lid; b < nbins; b += L) h[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong run_bin = nbins;
    uint run_n = 0;
#define RUN_FLUSH(b, c) atomic_add(&h[b], (c))
    FOR_EACH_BIN(RUN_COUNT);
    if (run_n) RUN_FLUSH(run_bin, run_n);
#undef RUN_FLUSH
    barrier(CLK_LOCAL_MEM_FENCE);
    if (reduce) {
        __global uint *row = partials + (ulong)get_group_id(0) * nbins;
        for (ulong b = lid; b < nbins; b += L) row[b] = h[b];
    } else {
        for (ulong b = lid; b < nbins; b += L) {
            const uint c = h[b];
            if (c) GLOBAL_ADD(&ctr[b], c);
        }
    }
}

/* The table of PP_LUT: lut[lut_off + v] = the bin of the sample whose bits
 * are v, for all 2^T_BITS values (8/16-bit types). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hist_lut(BIN_PARAMS, __global uint *lut,
                                                                     ulong lut_off)
{
#if T_SIZE <= 2
    for (uint v = get_global_id(0); v < (1u << T_BITS); v += get_global_size(0))
        lut[lut_off + v] = (uint)bin_of(PP_FROM_BITS((U)v), BIN_ARGS);
#else
    (void)lo_bits, (void)hi_bits, (void)p0, (void)p1, (void)p2, (void)p3, (void)nbins, (void)edges;
    (void)lut, (void)lut_off;
#endif
}

/* counts[b] = (accumulate ? counts[b] : 0) + rows[b] + rows[nbins + b] + ...
 * (nrows rows of 32-bit counters, summed in row order in 64 bits). Bins
 * grid-stride over all work-items. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hist_merge(__global const uint *rows, ulong nrows,
                                                                       ulong nbins, __global ulong *counts,
                                                                       uint accumulate)
{
    for (ulong b = get_global_id(0); b < nbins; b += get_global_size(0)) {
        ulong s = accumulate ? counts[b] : 0;
        for (ulong r = 0; r < nrows; r++) s += rows[r * nbins + b];
        counts[b] = s;
    }
}
