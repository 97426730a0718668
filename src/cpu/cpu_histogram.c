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
 * bucket holds many, and for PP_ALGO_SEQUENTIAL.
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

/* Per type: bin_S(plan, x) gives the bin of x or -1. */
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
    even_int ei;
    even_float ef;
    uint64_t lo_bits;   /* integer lo, as the unsigned bits */
    char lo[8], hi[8];  /* even bounds, in the sample type */
};

#define DEF_BIN_SINT DEF_BIN_INT
#define DEF_BIN_UINT DEF_BIN_INT
#define DEF_BIN_INT(T, S, U)                                                              \
    static inline int64_t even_bin_##S(const hist_plan *p, T lo, T hi, T x)               \
    {                                                                                     \
        if (x < lo || x >= hi) return -1;                                                 \
        uint64_t d = (U)((U)x - (U)lo);                                                   \
        return (int64_t)even_int_bin(&p->ei, d);                                          \
    }                                                                                     \
    static void even_setup_##S(hist_plan *p, T lo, T hi)                                  \
    {                                                                                     \
        p->ei = even_int_plan((U)((U)hi - (U)lo), p->nbins);                              \
    }
#define DEF_BIN_FLOAT(T, S, U)                                                            \
    static inline int64_t even_bin_##S(const hist_plan *p, T lo, T hi, T x)               \
    {                                                                                     \
        if (!(x >= lo && x < hi)) return -1;                                              \
        return (int64_t)even_float_bin(&p->ef, (double)x);                                \
    }                                                                                     \
    static void even_setup_##S(hist_plan *p, T lo, T hi)                                  \
    {                                                                                     \
        p->ef = even_float_plan((double)lo, (double)hi, p->nbins);                        \
    }

#define DEF_HIST(E, T, S, K, U, W)                                                                 \
    DEF_BIN_##K(T, S, U)                                                                           \
                                                                                                   \
    /* Binary search over the edges e[a..b] (e[a] <= x < e[b]). */                               \
    static inline int64_t range_search_##S(const T *e, size_t a, size_t b, T x)                    \
    {                                                                                              \
        while (b - a > 1) {                                                                        \
            size_t m = a + (b - a) / 2;                                                            \
            if (x >= e[m]) a = m;                                                                  \
            else b = m;                                                                            \
        }                                                                                          \
        return (int64_t)a;                                                                         \
    }                                                                                              \
    static inline size_t bucket_##S(const hist_plan *p, T x)                                       \
    {                                                                                              \
        double k = ((double)x * 0.5 - p->blo) * p->bscale, top = (double)(p->nbuckets - 1);        \
        k = k > 0 ? k : 0; /* min and max without branches; monotone, NaN to 0 */                  \
        k = k < top ? k : top;                                                                     \
        return (size_t)(int64_t)k; /* (one instruction, where double to size_t is several) */      \
    }                                                                                              \
    /* bucket() is monotone in x, so an interior edge in an earlier bucket is <= x and one in   \
     * a later bucket is > x: only the edges in x's own bucket need comparing. */               \
    static inline int64_t range_bin_##S(const hist_plan *p, T x)                                   \
    {                                                                                              \
        const T *e = (const T *)p->edges;                                                          \
        if (!(x >= e[0] && x < e[p->nbins])) return -1;                                            \
        if (!p->bstart) return range_search_##S(e, 0, p->nbins, x);                                \
        size_t k = bucket_##S(p, x), a = p->bstart[k], last = p->bstart[k + 1];                    \
        if (last - a > 4) return range_search_##S(e, a, last + 1, x);                              \
        if (a == last) return (int64_t)a; /* no edge inside the bucket: most samples */          \
        while (a < last && e[a + 1] <= x) a++;                                                     \
        return (int64_t)a;                                                                         \
    }                                                                                              \
    static void range_setup_##S(hist_plan *p, uint32_t *bstart, size_t nbuckets)                  \
    {                                                                                              \
        const T *e = (const T *)p->edges;                                                          \
        /* The span of the finite edges (an infinite outer edge would squeeze every bucket). */ \
        double lo = (double)e[0], hi = (double)e[p->nbins];                                        \
        if (isinf(lo) && p->nbins > 1) lo = (double)e[1];                                          \
        if (isinf(hi) && p->nbins > 1) hi = (double)e[p->nbins - 1];                               \
        double r = hi * 0.5 - lo * 0.5;                                                            \
        p->blo = lo * 0.5;                                                                         \
        p->bscale = (double)nbuckets / r;                                                          \
        if (!(r > 0) || !isfinite(p->bscale)) return; /* a tiny range: plain search */             \
        p->nbuckets = nbuckets;                                                                    \
        size_t b = 1;                                                                              \
        for (size_t k = 0; k <= nbuckets; k++) {                                                   \
            while (b < p->nbins && bucket_##S(p, e[b]) < k) b++;                                   \
            bstart[k] = (uint32_t)(b - 1);                                                         \
        }                                                                                          \
        p->bstart = bstart;                                                                        \
    }                                                                                              \
                                                                                                   \
    static inline int64_t bin_of_##S(const hist_plan *p, T lo, T hi, T x)                          \
    {                                                                                              \
        return p->edges ? range_bin_##S(p, x)                                                      \
                        : even_bin_##S(p, lo, hi, x);                                              \
    }                                                                                              \
                                                                                                   \
    /* Counts in[b..e) into h (plain) or, with atomic, into h shared by all. */                    \
    static void count_##S(const hist_plan *p, const T *in, size_t b, size_t e, uint64_t *h,        \
                          int atomic)                                                              \
    {                                                                                              \
        T lo, hi;                                                                                  \
        memcpy(&lo, p->lo, sizeof lo);                                                             \
        memcpy(&hi, p->hi, sizeof hi);                                                             \
        if (p->lut) {                                                                              \
            const int32_t *lut = p->lut;                                                           \
            if (atomic) {                                                                          \
                for (size_t i = b; i < e; i++) {                                                   \
                    int32_t k = lut[(U)in[i]];                                                     \
                    if (k >= 0) __atomic_fetch_add(&h[k], 1, __ATOMIC_RELAXED);                    \
                }                                                                                  \
            } else {                                                                               \
                for (size_t i = b; i < e; i++) {                                                   \
                    int32_t k = lut[(U)in[i]];                                                     \
                    if (k >= 0) h[k]++;                                                            \
                }                                                                                  \
            }                                                                                      \
        } else if (p->edges) {                                                                     \
            for (size_t i = b; i < e; i++) {                                                       \
                int64_t k = range_bin_##S(p, in[i]);                                               \
                if (k < 0) continue;                                                               \
                if (atomic) __atomic_fetch_add(&h[k], 1, __ATOMIC_RELAXED);                        \
                else h[k]++;                                                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (size_t i = b; i < e; i++) {                                                       \
                int64_t k = even_bin_##S(p, lo, hi, in[i]);                                        \
                if (k < 0) continue;                                                               \
                if (atomic) __atomic_fetch_add(&h[k], 1, __ATOMIC_RELAXED);                        \
                else h[k]++;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void count_any_##S(const hist_plan *p, const void *in, size_t b, size_t e, uint64_t *h, \
                              int atomic)                                                          \
    {                                                                                              \
        count_##S(p, (const T *)in, b, e, h, atomic);                                              \
    }                                                                                              \
                                                                                                   \
    /* Fills the plan: bounds, and the tables that pay off (see hist_run). */                      \
    static void plan_##S(const pp_histogram_args *a, hist_plan *p)                                 \
    {                                                                                              \
        memset(p, 0, sizeof *p);                                                                   \
        p->nbins = a->nbins;                                                                       \
        p->edges = a->edges;                                                                       \
        p->count = count_any_##S;                                                                  \
        p->value_bytes = sizeof(T);                                                                \
        T lo = 0, hi = 0;                                                                          \
        if (!a->edges) {                                                                           \
            memcpy(&lo, a->lower, sizeof lo);                                                      \
            memcpy(&hi, a->upper, sizeof hi);                                                      \
            even_setup_##S(p, lo, hi);                                                             \
        }                                                                                          \
        memcpy(p->lo, &lo, sizeof lo);                                                             \
        memcpy(p->hi, &hi, sizeof hi);                                                             \
    }                                                                                              \
    static void lut_fill_##S(hist_plan *p, int32_t *lut, size_t nv)                                        \
    {                                                                                              \
        T lo, hi;                                                                                  \
        memcpy(&lo, p->lo, sizeof lo);                                                             \
        memcpy(&hi, p->hi, sizeof hi);                                                             \
        for (size_t v = 0; v < nv; v++) {                                                          \
            U bits = (U)v;                                                                         \
            T x;                                                                                   \
            memcpy(&x, &bits, sizeof x);                                                           \
            lut[v] = (int32_t)bin_of_##S(p, lo, hi, x);                                            \
        }                                                                                          \
        p->lut = lut;                                                                              \
    }                                                                                              \
    static void range_fill_##S(hist_plan *p, uint32_t *bstart, size_t nbuckets)                    \
    {                                                                                              \
        range_setup_##S(p, bstart, nbuckets);                                                      \
    }

PP_FOR_EACH_TYPE(DEF_HIST)

typedef struct hist_kernels {
    void (*plan)(const pp_histogram_args *a, hist_plan *p);
    void (*lut_fill)(hist_plan *p, int32_t *lut, size_t nvalues); /* 8/16-bit samples */
    void (*range_fill)(hist_plan *p, uint32_t *bstart, size_t nbuckets);
} hist_kernels;
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
    size_t b = t * HIST_TILE, e = j->n - b < HIST_TILE ? j->n : b + HIST_TILE;
    if (j->priv) j->p->count(j->p, j->in, b, e, j->priv + (size_t)thread * j->p->nbins, 0);
    else j->p->count(j->p, j->in, b, e, j->counts, 1);
}

/* Adds the private histograms, a tile of bins at a time. */
static void hist_merge(const void *job_, size_t t, int thread)
{
    (void)thread;
    const hist_job *j = (const hist_job *)job_;
    const size_t nb = j->p->nbins, b = t * HIST_TILE, e = nb - b < HIST_TILE ? nb : b + HIST_TILE;
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
    const int nt = seq ? 1 : pp_cpu_threads_for(ctx, n, 2 * HIST_TILE);
    const int atomic = nt > 1 && nb > PP_PRIVATE_BINS_MAX / (size_t)nt;
    const size_t nvalues = p.value_bytes <= 2 ? (size_t)1 << (8 * p.value_bytes) : 0;
    const int use_lut = !seq && nvalues && n >= 4 * nvalues && nb < ((size_t)1 << 31);
    const int use_buckets = !seq && !use_lut && a->edges && nb < ((size_t)1 << 31) && n >= 4 * nb;
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
