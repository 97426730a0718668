/* opencl histograms: pp_histogram_even and pp_histogram_range (kernels:
 * histogram.cl, program "histogram").
 *
 * Algorithms (pp_set_algorithm(ctx, PP_PRIM_HISTOGRAM, ...)):
 *   PP_ALGO_GLOBAL_ATOMIC   one atomic add into the counts per run of
 *                           samples in one bin (a work-item's consecutive
 *                           samples of one bin are one run).
 *   PP_ALGO_PRIVATE_ATOMIC  a few work-groups per compute unit each count
 *                           into a private histogram of 32-bit counters in
 *                           local memory, then add their nonzero bins into
 *                           the counts with atomics. The default (AUTO)
 *                           where nbins 32-bit counters fit local memory.
 *   PP_ALGO_PRIVATE_REDUCE  the same private histograms written out whole
 *                           to scratch, then summed bin by bin in group
 *                           order (hist_merge): no atomics on the result.
 * Where nbins counters do not fit local memory, the PRIVATE algorithms (and
 * AUTO) run GLOBAL_ATOMIC.
 *
 * 64-bit counts. With cl_khr_int64_base_atomics the atomics go straight into
 * the 64-bit counts (zeroed first). Without it they go into 32-bit counters
 * in scratch, and hist_merge adds those into the counts after every chunk.
 * Samples are counted in chunks of at most 2^31 per launch, so no 32-bit
 * counter (local or global) can overflow; larger inputs take several
 * launches.
 *
 * Binning (exact, as the cpu backend): even integer bins by a fixed-point
 * reciprocal computed here (range <= 2^32 and nbins < 2^32: a 96-bit
 * ceil(2^64 nbins / range), three 32-bit products; otherwise a 128-bit
 * floor(2^64 nbins / range) and one 128-bit correction); float bins by the
 * double expression of parprim.h with FP_CONTRACT off (so f32 samples need
 * cl_khr_fp64 too); range bins by a binary search over the edges, or where
 * the core found them near-equal (and the device has cl_khr_fp64) by its
 * guess corrected by one comparison with each of the bin's edges; they are
 * copied to a buffer of their own created with CL_MEM_COPY_HOST_PTR (read
 * before the call returns, without waiting for the queue) and released
 * once the kernels are queued (OpenCL keeps it until they finish). 8- and
 * 16-bit samples in range bins are looked up in a table of the bin of
 * every value (built in scratch by hist_lut) when n >= 4 * 2^bits.
 */
#include "opencl_internal.h"

#include <math.h>
#include <string.h>

__extension__ typedef unsigned __int128 hist_u128;

/* How a sample is binned: the program's define PP_HBIN (histogram.cl). */
#define BIN_INT_FAST 0 /* even integer bins, range <= 2^32 and nbins < 2^32: 32-bit products */
#define BIN_INT_WIDE 1 /* even integer bins, any 64-bit range and nbins */
#define BIN_FLOAT 2    /* even float bins: the double expression of parprim.h */
#define BIN_RANGE 3    /* range bins: a binary search over the edges */
#define BIN_GUESS 4    /* range bins with the core's guess (pp_hist_guess), corrected by one step */

/* Samples per launch: every 32-bit counter stays below 2^31. A multiple
 * of 16, so chunks start on 16-byte boundaries. */
#ifdef PP_OCL_HIST_CHUNK /* a build option to test the chunk loop on small inputs */
#define HIST_CHUNK ((size_t)(PP_OCL_HIST_CHUNK))
#else
#define HIST_CHUNK ((size_t)1 << 31)
#endif
/* Scratch for PRIVATE_REDUCE's rows: fewer groups when nbins is wide. */
#define HIST_ROWS_BYTES ((size_t)64 << 20)

typedef struct hist_params {
    int mode;               /* BIN_* */
    cl_ulong lo, hi;        /* even bounds, as the bits of the type */
    cl_ulong p[4];          /* see bin_of in histogram.cl */
} hist_params;

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void even_params(const pp_histogram_args *a, hist_params *hp)
{
    const size_t sz = pp_type_size(a->type);
    hp->lo = pp_ocl_bits_of(a->lower, sz);
    hp->hi = pp_ocl_bits_of(a->upper, sz);
    const uint64_t nbins = a->nbins;
    if (pp_type_kind(a->type) == PP_KIND_FLOAT) {
        double lo, hi;
        if (sz == 4) {
            float l, h;
            memcpy(&l, a->lower, 4);
            memcpy(&h, a->upper, 4);
            lo = l;
            hi = h;
        } else {
            memcpy(&lo, a->lower, 8);
            memcpy(&hi, a->upper, 8);
        }
        /* as the cpu backend's even_float_plan */
        double r = hi - lo;
        const int halves = isinf(r);
        if (halves) r = 0.5 * hi - 0.5 * lo;
        hp->mode = BIN_FLOAT;
        hp->p[0] = (cl_ulong)halves;
        hp->p[1] = double_bits(halves ? 0.5 * lo : lo);
        hp->p[2] = double_bits((double)nbins / r);
        hp->p[3] = double_bits((double)(nbins - 1));
        return;
    }
    /* hi - lo in the unsigned type of the width: the exact range (lo < hi) */
    const uint64_t mask = sz == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * sz)) - 1);
    const uint64_t range = (hp->hi - hp->lo) & mask;
    const hist_u128 num = (hist_u128)nbins << 64;
    if (range <= ((uint64_t)1 << 32) && nbins < ((uint64_t)1 << 32)) {
        const hist_u128 m = (num + range - 1) / range; /* < 2^96 */
        hp->mode = BIN_INT_FAST;
        hp->p[0] = (uint32_t)m;
        hp->p[1] = (uint32_t)(m >> 32);
        hp->p[2] = (uint64_t)(m >> 64);
        hp->p[3] = 0;
    } else {
        const hist_u128 m = num / range; /* < 2^128: nbins / range < 2^64 */
        hp->mode = BIN_INT_WIDE;
        hp->p[0] = (uint64_t)(m >> 64);
        hp->p[1] = (uint64_t)m;
        hp->p[2] = range;
        hp->p[3] = nbins;
    }
}

static void range_params(const pp_histogram_args *a, int fp64, hist_params *hp)
{
    uint64_t top = 0; /* the largest power of two <= nbins - 1, 0 for one bin */
    if (a->nbins > 1) {
        top = 1;
        while (top * 2 <= (uint64_t)a->nbins - 1) top *= 2;
    }
    hp->mode = BIN_RANGE;
    hp->lo = hp->hi = 0;
    hp->p[0] = top;
    hp->p[1] = hp->p[2] = hp->p[3] = 0;
    if (a->guess_scale > 0 && fp64) { /* the guess is a double expression */
        hp->mode = BIN_GUESS;
        hp->p[1] = double_bits(a->guess_lo);
        hp->p[2] = double_bits(a->guess_scale);
    }
}

/* Work-group shape (*L work-items of *vpi 16-byte vectors each): GPUs 256
 * work-items x 4 vectors; CPU devices (PoCL, where a group is a loop on one
 * thread) narrower groups with more serial work per work-item. */
static void shape_for(const pp_ocl_caps *caps, size_t *L, size_t *vpi)
{
    if (caps->type & CL_DEVICE_TYPE_CPU) {
        *L = 32;
        *vpi = 8;
    } else {
        *L = 256;
        *vpi = 4;
    }
}

typedef struct hist_kernels {
    cl_kernel global, priv, merge, lut; /* hist_global, hist_private, hist_merge, hist_lut */
    size_t L, vpi;                      /* work-group size, 16-byte vectors per work-item */
} hist_kernels;

static pp_status get_kernels(pp_context *ctx, const char *fn, pp_type type, int mode, int h64, int lut,
                             hist_kernels *hk)
{
    size_t L, vpi;
    shape_for(pp_ocl_device_caps(ctx), &L, &vpi);
    L = pp_ocl_group_size(ctx, L);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, type));
    pp_ocl_def(&d, "VPI=%zu", vpi);
    pp_ocl_def(&d, "HBIN=%d", mode);
    pp_ocl_def(&d, "H64=%d", h64);
    pp_ocl_def(&d, "LUT=%d", lut);
    static const char *const names[4] = {"hist_global", "hist_private", "hist_merge", "hist_lut"};
    cl_kernel k[4];
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "histogram", &d, names, 4, k, &L));
    hk->global = k[0];
    hk->priv = k[1];
    hk->merge = k[2];
    hk->lut = k[3];
    hk->L = L;
    hk->vpi = vpi;
    return PP_SUCCESS;
}

/* Work-groups for counting len samples: at most one per tile, at most
 * per_cu per compute unit. */
static size_t count_groups(pp_context *ctx, const hist_kernels *hk, pp_type type, size_t len, size_t per_cu)
{
    const size_t tile = hk->L * hk->vpi * (16 / pp_type_size(type));
    size_t g = len / tile + (len % tile != 0);
    size_t cap = (size_t)pp_ocl_device_caps(ctx)->compute_units * per_cu;
    if (cap < 1) cap = 1;
    if (cap > PP_OCL_MAX_GROUPS) cap = PP_OCL_MAX_GROUPS;
    if (g > cap) g = cap;
    return g ? g : 1;
}

static pp_status ocl_histogram(pp_context *ctx, const pp_histogram_args *a, pp_algorithm algo)
{
    const char *fn = a->fn;
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    const size_t sz = pp_type_size(a->type), n = a->n, nbins = a->nbins;
    const int is_float = pp_type_kind(a->type) == PP_KIND_FLOAT;

    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, fn, {a->counts, nbins * sizeof(uint64_t), "counts"},
                                     {n ? a->samples : NULL, n * sz, "samples"}));
    cl_mem counts = pp_ocl_mem(a->counts);
    PP_OCL_STATUS(pp_ocl_check_type(ctx, fn, a->type)); /* f64 without cl_khr_fp64, before anything is written */
    if (is_float && !a->edges && !caps->fp64)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: float samples need double precision (cl_khr_fp64), which this device lacks", fn);
    if (n == 0) {
        const cl_ulong zero = 0;
        return pp_ocl_fill(ctx, fn, counts, &zero, sizeof zero, 0, nbins * sizeof(uint64_t));
    }

    hist_params hp;
    if (a->edges) range_params(a, caps->fp64, &hp);
    else even_params(a, &hp);

#ifdef PP_OCL_HIST_NO_INT64 /* a build option to test the 32-bit counter path */
    const int h64 = 0;
#else
    const int h64 = caps->int64_atomics != 0;
#endif
#ifdef PP_OCL_HIST_LOCAL_BYTES /* a build option to test the fallback */
    const cl_ulong local_budget = PP_OCL_HIST_LOCAL_BYTES;
#else
    const cl_ulong local_budget = caps->local_mem > 1024 ? caps->local_mem - 1024 : 0;
#endif
    const int fits_local = nbins <= local_budget / sizeof(cl_uint);
    const int priv = fits_local && algo != PP_ALGO_GLOBAL_ATOMIC;
    const int reduce = priv && algo == PP_ALGO_PRIVATE_REDUCE;

    /* 8/16-bit samples in range bins: a table of the bin of every value
     * (one lookup instead of a binary search), where the input is large
     * enough to pay for it. Even bins cost a few multiplies: no table. */
    const size_t nvalues = sz <= 2 ? (size_t)1 << (8 * sz) : 0;
    const int use_lut = nvalues && a->edges && nbins < ((size_t)1 << 32) && n >= 4 * nvalues;

    hist_kernels hk;
    PP_OCL_STATUS(get_kernels(ctx, fn, a->type, hp.mode, h64, use_lut, &hk));

    /* groups of the first (largest) chunk; later chunks use no more */
    const size_t first = n < HIST_CHUNK ? n : HIST_CHUNK;
    size_t max_groups = count_groups(ctx, &hk, a->type, first, priv ? 2 : 8);
    if (reduce) {
        size_t rows_cap = HIST_ROWS_BYTES / (nbins * sizeof(cl_uint));
        if (rows_cap < 1) rows_cap = 1;
        if (max_groups > rows_cap) max_groups = rows_cap;
    }
    /* scratch, in 32-bit words: [rows or 32-bit counters][the table] */
    const size_t words = reduce ? max_groups * nbins : !h64 ? nbins : 0;
    const size_t lut_off = (words + 15) / 16 * 16;
    cl_mem work = NULL;
    if (words || use_lut)
        PP_OCL_STATUS(pp_ocl_scratch(ctx, (lut_off + (use_lut ? nvalues : 0)) * sizeof(cl_uint), fn, &work));

    cl_mem edges = NULL;
    if (a->edges) {
        cl_int err = CL_SUCCESS;
        edges = clCreateBuffer(pp_ocl(ctx)->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (nbins + 1) * sz,
                               (void *)(uintptr_t)a->edges, &err);
        if (!edges || err != CL_SUCCESS) return pp_ocl_alloc_error(ctx, err, fn, "clCreateBuffer(edges)");
    }
    cl_mem samples = pp_ocl_mem(a->samples);
    cl_mem edges_arg = edges ? edges : samples;
    cl_mem ctr = h64 ? counts : work; /* where the atomics go */
    cl_mem rows = work ? work : counts;
    cl_mem lut = use_lut ? work : samples;
    const cl_ulong lut_off64 = lut_off;
    const cl_ulong nb64 = nbins;
    size_t merge_groups = nbins / hk.L + (nbins % hk.L != 0);
    if (merge_groups > 1024) merge_groups = 1024;

    pp_status st = PP_SUCCESS;
    if (use_lut)
        st = PP_OCL_LAUNCH(ctx, fn, hk.lut, nvalues / hk.L < 64 ? nvalues / hk.L + 1 : 64, hk.L, PP_OCL_ARG(hp.lo),
                           PP_OCL_ARG(hp.hi), PP_OCL_ARG(hp.p[0]), PP_OCL_ARG(hp.p[1]), PP_OCL_ARG(hp.p[2]),
                           PP_OCL_ARG(hp.p[3]), PP_OCL_ARG(nb64), PP_OCL_ARG(edges_arg), PP_OCL_ARG(lut),
                           PP_OCL_ARG(lut_off64));
    if (st == PP_SUCCESS && h64 && !reduce) {
        const cl_ulong zero = 0;
        st = pp_ocl_fill(ctx, fn, counts, &zero, sizeof zero, 0, nbins * sizeof(uint64_t));
    }
    for (size_t base = 0; st == PP_SUCCESS && base < n; base += HIST_CHUNK) {
        const size_t len = n - base < HIST_CHUNK ? n - base : HIST_CHUNK;
        const cl_ulong base64 = base, len64 = len;
        const cl_uint acc = base != 0; /* hist_merge adds to the counts (after the first chunk) */
        size_t groups = count_groups(ctx, &hk, a->type, len, priv ? 2 : 8);
        if (groups > max_groups) groups = max_groups;
        if (!h64 && !reduce) {
            const cl_uint zero = 0;
            st = pp_ocl_fill(ctx, fn, work, &zero, sizeof zero, 0, nbins * sizeof(cl_uint));
            if (st != PP_SUCCESS) break;
        }
        if (priv) {
            const cl_uint red = (cl_uint)reduce;
            st = PP_OCL_LAUNCH(ctx, fn, hk.priv, groups, hk.L, PP_OCL_ARG(samples), PP_OCL_ARG(base64),
                               PP_OCL_ARG(len64), PP_OCL_ARG(hp.lo), PP_OCL_ARG(hp.hi), PP_OCL_ARG(hp.p[0]),
                               PP_OCL_ARG(hp.p[1]), PP_OCL_ARG(hp.p[2]), PP_OCL_ARG(hp.p[3]), PP_OCL_ARG(nb64),
                               PP_OCL_ARG(edges_arg), PP_OCL_ARG(lut), PP_OCL_ARG(lut_off64), PP_OCL_ARG(ctr),
                               PP_OCL_ARG(rows), PP_OCL_ARG(red), PP_OCL_LOCAL(nbins * sizeof(cl_uint)));
        } else {
            st = PP_OCL_LAUNCH(ctx, fn, hk.global, groups, hk.L, PP_OCL_ARG(samples), PP_OCL_ARG(base64),
                               PP_OCL_ARG(len64), PP_OCL_ARG(hp.lo), PP_OCL_ARG(hp.hi), PP_OCL_ARG(hp.p[0]),
                               PP_OCL_ARG(hp.p[1]), PP_OCL_ARG(hp.p[2]), PP_OCL_ARG(hp.p[3]), PP_OCL_ARG(nb64),
                               PP_OCL_ARG(edges_arg), PP_OCL_ARG(lut), PP_OCL_ARG(lut_off64), PP_OCL_ARG(ctr));
        }
        if (st != PP_SUCCESS) break;
        if (reduce || !h64) {
            const cl_ulong nrows = reduce ? groups : 1;
            st = PP_OCL_LAUNCH(ctx, fn, hk.merge, merge_groups, hk.L, PP_OCL_ARG(rows), PP_OCL_ARG(nrows),
                               PP_OCL_ARG(nb64), PP_OCL_ARG(counts), PP_OCL_ARG(acc));
        }
    }
    if (edges) clReleaseMemObject(edges); /* the queued kernels keep it until they finish */
    return st;
}

pp_status pp_ocl_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    return ocl_histogram(ctx, a, PP_ALGO_PRIVATE_ATOMIC);
}
pp_status pp_ocl_histogram_global_atomic(pp_context *ctx, const pp_histogram_args *a)
{
    return ocl_histogram(ctx, a, PP_ALGO_GLOBAL_ATOMIC);
}
pp_status pp_ocl_histogram_private_reduce(pp_context *ctx, const pp_histogram_args *a)
{
    return ocl_histogram(ctx, a, PP_ALGO_PRIVATE_REDUCE);
}
