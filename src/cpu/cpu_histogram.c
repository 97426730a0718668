/* cpu histograms.
 *
 * PP_ALGO_AUTO: threads claim tiles of samples one at a time
 * (cpu_tiles.h) and count them into a private histogram each, then add the
 * private histograms bin by bin, tiles of bins claimed the same way. Where
 * nbins * threads would not fit in a reasonable amount of memory, the
 * threads add into the result with atomic increments instead. 8- and 16-bit
 * samples are binned through a table of the bin of every possible value,
 * built once per call.
 * PP_ALGO_SEQUENTIAL: one thread, one loop.
 *
 * Even bins: integer samples are binned exactly, floor((x - lo) * nbins /
 * (hi - lo)), with a double estimate corrected to the exact quotient (or
 * 128-bit arithmetic where the product could exceed 63 bits); float samples
 * with the double formula documented in parprim.h. Range bins: the span of
 * the edges is cut into about 8 * nbins buckets by a monotone map; a table
 * gives the edges before each bucket, so a sample is compared only with the
 * edges inside its own bucket (usually none); binary search where a
 * bucket holds many, and for PP_ALGO_SEQUENTIAL. Near-equal edges (the
 * core's guess, pp_hist_guess) need no table: the guessed bin is corrected
 * by comparing with its two edges.
 *
 * The per-type binning and counting are the template cpu_histogram.inc,
 * instantiated for every type of the list (cpu_instances.h).
 */
#include "cpu_tiles.h"

#include <omp.h>

__extension__ typedef unsigned __int128 pp_u128;

/* Private histograms are used while threads * nbins stays below this. */
#define PP_PRIVATE_BINS_MAX ((size_t)1 << 21)

typedef struct even_int {
    uint64_t range, nbins; /* hi - lo >= 1 */
    double inv;            /* 1 / range */
    int fast;              /* range <= 2^32 and nbins < 2^31: 64-bit products suffice */
} even_int;

static even_int even_int_plan(uint64_t range, uint64_t nbins)
{
    even_int p;
    p.range = range;
    p.nbins = nbins;
    p.inv = 1.0 / (double)range;
    p.fast = range <= ((uint64_t)1 << 32) && nbins < ((uint64_t)1 << 31);
    return p;
}

/* floor(d * nbins / range) for 0 <= d < range, exactly. */
static inline uint64_t even_int_bin(const even_int *p, uint64_t d)
{
    if (p->fast) {
        uint64_t prod = d * p->nbins;
        uint64_t q = (uint64_t)((double)prod * p->inv);
        if (q * p->range > prod) q--;
        else if ((q + 1) * p->range <= prod) q++;
        return q;
    }
    return (uint64_t)(((pp_u128)d * p->nbins) / p->range);
}

typedef struct even_float {
    double lo, scale, nbins_minus_1;
    int halves; /* hi - lo overflows: work on halves */
} even_float;

static even_float even_float_plan(double lo, double hi, size_t nbins)
{
    even_float p;
    double r = hi - lo;
    p.halves = isinf(r);
    if (p.halves) r = 0.5 * hi - 0.5 * lo;
    p.lo = p.halves ? 0.5 * lo : lo;
    p.scale = (double)nbins / r;
    p.nbins_minus_1 = (double)(nbins - 1);
    return p;
}

static inline uint64_t even_float_bin(const even_float *p, double x)
{
    double d = p->halves ? 0.5 * x - p->lo : x - p->lo;
    double k = d * p->scale; /* NaN only for 0 * inf (a tiny range): bin 0 */
    return k >= p->nbins_minus_1 ? (uint64_t)p->nbins_minus_1 : k > 0 ? (uint64_t)k : 0;
}

/* What one call bins with; filled by the per-type kernels (cpu_histogram.inc). */
typedef struct hist_plan hist_plan;
/* Counts samples [b, e) into h, or with atomic into h shared by all. */
typedef void (*hist_count_fn)(const hist_plan *p, const void *in, size_t b, size_t e, uint64_t *h, int atomic);

struct hist_plan {
    hist_count_fn count;
    size_t value_bytes; /* the sample size */
    size_t nbins;
    const void *edges;  /* range bins */
    const int32_t *lut; /* bin of every value of an 8/16-bit type */
    const uint32_t *bstart; /* range bins: interior edges in buckets before each bucket */
    size_t nbuckets;
    double blo, bscale;     /* bucket(x) = clamp(floor(((double)x / 2 - blo) * bscale)) */
    double glo, gscale;     /* range bins: pp_hist_guess's (gscale == 0: none) */
    even_int ei;
    even_float ef;
    char lo[8], hi[8];  /* even bounds, in the sample type */
};

/* One more sample in bin k (none where k < 0), with an atomic increment
 * where h is shared by the threads. */
static PP_ALWAYS_INLINE void hist_add(uint64_t *h, int64_t k, int atomic)
{
    if (k < 0) return;
    if (atomic) __atomic_fetch_add(&h[k], 1, __ATOMIC_RELAXED);
    else h[k]++;
}

#define PP_CPU_TEMPLATE "cpu_histogram.inc"
#include "cpu_each_type.inc"

typedef struct hist_kernels {
    void (*plan)(const pp_histogram_args *a, hist_plan *p);
    void (*lut_fill)(hist_plan *p, int32_t *lut, size_t nvalues); /* 8/16-bit samples */
    void (*range_fill)(hist_plan *p, uint32_t *bstart, size_t nbuckets);
} hist_kernels;
/* The table: the X-macro of types.h over the names the template defined. */
#define HIST_ENTRY(E, T, S, K, U, W) [E] = {plan_##S, lut_fill_##S, range_fill_##S},
static const hist_kernels hist_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(HIST_ENTRY)};

#define HIST_TILE ((size_t)1 << 15)

typedef struct hist_job {
    const hist_plan *p;
    const char *in;
    size_t n;
    uint64_t *priv;   /* a private histogram per thread, or NULL: atomics into counts */
    uint64_t *counts;
    int nt;           /* private histograms */
} hist_job;

static void hist_tile(const void *job_, size_t t, int thread)
{
    const hist_job *j = (const hist_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, HIST_TILE, t, &b, &e);
    if (j->priv) j->p->count(j->p, j->in, b, e, j->priv + (size_t)thread * j->p->nbins, 0);
    else j->p->count(j->p, j->in, b, e, j->counts, 1);
}

/* Adds the private histograms, a tile of bins at a time. */
static void hist_merge(const void *job_, size_t t, int thread)
{
    (void)thread;
    const hist_job *j = (const hist_job *)job_;
    const size_t nb = j->p->nbins;
    size_t b, e;
    pp_cpu_tile_range(nb, HIST_TILE, t, &b, &e);
    for (size_t k = b; k < e; k++) {
        uint64_t s = 0;
        for (int u = 0; u < j->nt; u++) s += j->priv[(size_t)u * nb + k];
        j->counts[k] = s;
    }
}

/* Range bins: buckets over the edges' span, so that most samples compare
 * with one or two edges instead of log2(nbins). */
static size_t range_buckets(size_t nbins)
{
    size_t nb = 64;
    while (nb < 8 * nbins && nb < ((size_t)1 << 20)) nb *= 2;
    return nb;
}

/* PP_ALGO_AUTO: threads claim tiles of samples and count them into private
 * histograms (one per thread), then add those up; where nbins * threads
 * would not fit in a reasonable amount of memory, atomic increments into
 * the result instead. 8- and 16-bit samples are binned through a table of
 * the bin of every possible value. */
static pp_status cpu_histogram(pp_context *ctx, const pp_histogram_args *a, int seq)
{
    const hist_kernels *k = &hist_table[a->type];
    const char *fn = a->fn;
    hist_plan p;
    k->plan(a, &p);
    const size_t n = a->n, nb = a->nbins;
    const int nt = seq ? 1 : pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_HISTOGRAM / 2);
    const int atomic = nt > 1 && nb > PP_PRIVATE_BINS_MAX / (size_t)nt;
    const size_t nvalues = p.value_bytes <= 2 ? (size_t)1 << (8 * p.value_bytes) : 0;
    const int use_lut = !seq && nvalues && n >= 4 * nvalues && nb < ((size_t)1 << 31);
    const int use_buckets =
        !seq && !use_lut && a->edges && !(a->guess_scale > 0) && nb < ((size_t)1 << 31) && n >= 4 * nb;
    const size_t nbuckets = use_buckets ? range_buckets(nb) : 0;
    const size_t priv_bins = (nt > 1 && !atomic) ? (size_t)nt * nb : 0;
    const size_t bytes = priv_bins * sizeof(uint64_t) + (use_lut ? nvalues * sizeof(int32_t) : 0) +
                         (use_buckets ? (nbuckets + 1) * sizeof(uint32_t) : 0);
    char *scr = NULL;
    if (bytes) {
        scr = (char *)pp_cpu_scratch(ctx, bytes, fn);
        if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    }
    uint64_t *priv = (uint64_t *)scr;
    if (use_lut) k->lut_fill(&p, (int32_t *)(scr + priv_bins * sizeof(uint64_t)), nvalues);
    if (use_buckets) k->range_fill(&p, (uint32_t *)(scr + priv_bins * sizeof(uint64_t)), nbuckets);
    hist_job j = {&p, (const char *)a->samples, n, priv_bins ? priv : NULL, a->counts, nt};
    const size_t ntiles = (n + HIST_TILE - 1) / HIST_TILE;
    if (nt <= 1) {
        memset(a->counts, 0, nb * sizeof *a->counts);
        p.count(&p, a->samples, 0, n, a->counts, 0);
    } else if (atomic) {
        memset(a->counts, 0, nb * sizeof *a->counts);
        pp_cpu_for_tiles(nt, ntiles, hist_tile, &j);
    } else {
        memset(priv, 0, priv_bins * sizeof *priv);
        pp_cpu_for_tiles(nt, ntiles, hist_tile, &j);
        pp_cpu_for_tiles(nt, (nb + HIST_TILE - 1) / HIST_TILE, hist_merge, &j);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_histogram(pp_context *ctx, const pp_histogram_args *a) { return cpu_histogram(ctx, a, 0); }
pp_status pp_cpu_histogram_sequential(pp_context *ctx, const pp_histogram_args *a)
{
    return cpu_histogram(ctx, a, 1);
}
