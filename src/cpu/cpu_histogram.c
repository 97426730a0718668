/* cpu histograms.
 *
 * PP_ALGO_AUTO: each thread counts its part of the samples into a private
 * histogram, then the threads add the private histograms bin by bin (each
 * thread a range of bins). Where nbins * threads would not fit in a
 * reasonable amount of memory, the threads add into the result with atomic
 * increments instead. 8- and 16-bit samples are binned through a table of
 * the bin of every possible value, built once per call.
 * PP_ALGO_SEQUENTIAL: one thread, one loop.
 *
 * Even bins: integer samples are binned exactly, floor((x - lo) * nbins /
 * (hi - lo)), with a double estimate corrected to the exact quotient (or
 * 128-bit arithmetic where the product could exceed 63 bits); float samples
 * with the double formula documented in parprim.h. Range bins: binary search
 * over the edges.
 */
#include "cpu_internal.h"

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
typedef struct hist_plan {
    size_t nbins;
    const void *edges;  /* range bins */
    const int32_t *lut; /* bin of every value of an 8/16-bit type */
    even_int ei;
    even_float ef;
    uint64_t lo_bits;   /* integer lo, as the unsigned bits */
    char lo[8], hi[8];  /* even bounds, in the sample type */
} hist_plan;

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
    static inline int64_t range_bin_##S(const T *e, size_t nbins, T x)                             \
    {                                                                                              \
        if (!(x >= e[0] && x < e[nbins])) return -1;                                               \
        size_t a = 0, b = nbins; /* e[a] <= x < e[b] */                                            \
        while (b - a > 1) {                                                                        \
            size_t m = a + (b - a) / 2;                                                            \
            if (x >= e[m]) a = m;                                                                  \
            else b = m;                                                                            \
        }                                                                                          \
        return (int64_t)a;                                                                         \
    }                                                                                              \
                                                                                                   \
    static inline int64_t bin_of_##S(const hist_plan *p, T lo, T hi, T x)                          \
    {                                                                                              \
        return p->edges ? range_bin_##S((const T *)p->edges, p->nbins, x)                         \
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
            const T *ed = (const T *)p->edges;                                                     \
            for (size_t i = b; i < e; i++) {                                                       \
                int64_t k = range_bin_##S(ed, p->nbins, in[i]);                                    \
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
    static pp_status hist_##S(pp_context *ctx, const pp_histogram_args *a)                         \
    {                                                                                              \
        hist_plan p;                                                                               \
        memset(&p, 0, sizeof p);                                                                   \
        p.nbins = a->nbins;                                                                        \
        p.edges = a->edges;                                                                        \
        T lo = 0, hi = 0;                                                                          \
        if (!a->edges) {                                                                           \
            memcpy(&lo, a->lower, sizeof lo);                                                      \
            memcpy(&hi, a->upper, sizeof hi);                                                      \
            even_setup_##S(&p, lo, hi);                                                            \
        }                                                                                          \
        memcpy(p.lo, &lo, sizeof lo);                                                              \
        memcpy(p.hi, &hi, sizeof hi);                                                              \
        const T *in = (const T *)a->samples;                                                       \
        const size_t n = a->n, nb = a->nbins;                                                      \
        const int seq = pp_cpu_sequential(ctx, PP_PRIM_HISTOGRAM);                                 \
        int nt = seq ? 1 : pp_cpu_threads_for(ctx, n, (size_t)1 << 15);                            \
        const int atomic = nt > 1 && nb > PP_PRIVATE_BINS_MAX / (size_t)nt;                          \
        /* A table of the bin of every value pays off for 8/16-bit samples. */                     \
        const size_t nvalues = sizeof(T) <= 2 ? (size_t)1 << (8 * sizeof(T)) : 0;                  \
        const int use_lut = !seq && nvalues && n >= 4 * nvalues && nb < ((size_t)1 << 31);        \
        size_t priv_bins = (nt > 1 && !atomic) ? (size_t)nt * nb : 0;                              \
        size_t bytes = priv_bins * sizeof(uint64_t) + (use_lut ? nvalues * sizeof(int32_t) : 0);   \
        uint64_t *priv = NULL;                                                                     \
        if (bytes) {                                                                               \
            priv = (uint64_t *)pp_cpu_scratch(ctx, bytes, a->edges ? "pp_histogram_range"          \
                                                                   : "pp_histogram_even");         \
            if (!priv) return PP_ERROR_OUT_OF_MEMORY;                                              \
        }                                                                                          \
        if (use_lut) {                                                                             \
            int32_t *lut = (int32_t *)(priv + priv_bins);                                          \
            for (size_t v = 0; v < nvalues; v++) {                                                 \
                U bits = (U)v;                                                                     \
                T x;                                                                               \
                memcpy(&x, &bits, sizeof x);                                                       \
                lut[v] = (int32_t)bin_of_##S(&p, lo, hi, x);                                       \
            }                                                                                      \
            p.lut = lut;                                                                           \
        }                                                                                          \
        uint64_t *counts = a->counts;                                                              \
        if (nt <= 1) {                                                                             \
            memset(counts, 0, nb * sizeof *counts);                                                \
            count_##S(&p, in, 0, n, counts, 0);                                                    \
            return PP_SUCCESS;                                                                     \
        }                                                                                          \
        _Pragma("omp parallel num_threads(nt)")                                                    \
        {                                                                                          \
            size_t t = (size_t)omp_get_thread_num(), b, e;                                         \
            pp_cpu_part(nb, (size_t)nt, t, &b, &e);                                                \
            if (atomic) {                                                                          \
                memset(counts + b, 0, (e - b) * sizeof *counts);                                   \
                _Pragma("omp barrier")                                                             \
                pp_cpu_part(n, (size_t)nt, t, &b, &e);                                             \
                count_##S(&p, in, b, e, counts, 1);                                                \
            } else {                                                                               \
                uint64_t *h = priv + t * nb;                                                       \
                memset(h, 0, nb * sizeof *h);                                                      \
                size_t sb, se;                                                                     \
                pp_cpu_part(n, (size_t)nt, t, &sb, &se);                                           \
                count_##S(&p, in, sb, se, h, 0);                                                   \
                _Pragma("omp barrier")                                                             \
                for (size_t k = b; k < e; k++) {                                                   \
                    uint64_t s = 0;                                                                \
                    for (size_t u = 0; u < (size_t)nt; u++) s += priv[u * nb + k];                 \
                    counts[k] = s;                                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return PP_SUCCESS;                                                                         \
    }

PP_FOR_EACH_TYPE(DEF_HIST)

typedef pp_status (*hist_fn)(pp_context *, const pp_histogram_args *);
#define HIST_ENTRY(E, T, S, K, U, W) [E] = hist_##S,
static const hist_fn hist_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(HIST_ENTRY)};

pp_status pp_cpu_histogram(pp_context *ctx, const pp_histogram_args *a)
{
    return hist_table[a->type](ctx, a);
}
