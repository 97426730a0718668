/* cpu pp_top_k: the keys cut into one part per thread; each part keeps its
 * best k (rank, index) pairs behind a threshold on the ranks (cpu_topk.inc:
 * a key's rank is its place in pp_sort's order as an unsigned number, so
 * the pairs order as the stable sort does), which for small k leaves the
 * pass over the keys a read and a compare per key. For large k, two
 * passes instead (by_digit): counts of the ranks' leading bits, then the
 * pairs up to the k-th one's digit. The candidates are cut to the best k
 * (a selection), and those are sorted: by insertion for a few, else with
 * the cpu radix sort (the sort chosen for PP_PRIM_SORT) of the pairs
 * packed into one 64-bit key where rank and index fit, else by index, then
 * stably by rank. The keys are gathered from the input by their indices
 * (their bits unchanged, NaN payloads too). The result is the unique best
 * k, whatever the parts and the threads. */
#include "cpu_internal.h"
#include "cpu_tiles.h"

typedef struct topk_job {
    const struct topk_kernels *kern;
    const char *in;
    size_t n, k;
    uint64_t flip, nan_rank; /* the order (cpu_topk.inc, rank) */
    size_t parts;
    uint64_t *r, *ix; /* the pairs' ranks and indices */
    void *out;        /* keys_out */
    /* by_threshold: room for cap pairs per part, count[p] kept */
    size_t cap;
    size_t *count;
    /* by_digit: the digit is the rank >> shift (bins of them); hist: bins
     * counts per part; the pairs of digits below digit go to (r, ix) from
     * lt[p], those of digit digit from lt_all + eq[p] */
    unsigned shift;
    size_t bins;
    uint64_t digit, *hist;
    size_t lt_all, *lt, *eq;
} topk_job;

typedef struct topk_kernels {
    size_t (*best)(const topk_job *j, size_t b, size_t e, uint64_t *r, uint64_t *ix);
    void (*count)(const topk_job *j, size_t b, size_t e, uint64_t *h);
    void (*split)(const topk_job *j, size_t b, size_t e, uint64_t *lr, uint64_t *li, uint64_t *er, uint64_t *ei);
    void (*gather)(const topk_job *j, size_t b, size_t e);
} topk_kernels;

/* The keys gathered by the final indices, in tiles of this many. */
#define TOPK_GATHER_TILE ((size_t)1 << 16)

/* (ra, ia) before (rb, ib). */
static inline int pair_less(uint64_t ra, uint64_t ia, uint64_t rb, uint64_t ib)
{
    return ra < rb || (ra == rb && ia < ib);
}

static inline void pair_swap(uint64_t *r, uint64_t *ix, size_t a, size_t b)
{
    const uint64_t t = r[a], u = ix[a];
    r[a] = r[b], ix[a] = ix[b];
    r[b] = t, ix[b] = u;
}

/* Sorts the pairs [lo, hi) by insertion. */
static void pair_insertion(uint64_t *r, uint64_t *ix, size_t lo, size_t hi)
{
    for (size_t i = lo + 1; i < hi; i++) {
        const uint64_t v = r[i], w = ix[i];
        size_t p = i;
        for (; p > lo && pair_less(v, w, r[p - 1], ix[p - 1]); p--) r[p] = r[p - 1], ix[p] = ix[p - 1];
        r[p] = v, ix[p] = w;
    }
}

/* Moves the k smallest of the m distinct pairs (0 < k <= m) to [0, k), in
 * no order (a quickselect: Hoare partitions around the median of three);
 * returns the largest rank among them. */
static uint64_t topk_keep_best(uint64_t *r, uint64_t *ix, size_t m, size_t k)
{
    size_t lo = 0, hi = m; /* the k-th boundary lies in [lo, hi] */
    while (hi - lo > 16 && lo < k && k < hi) {
        const size_t mid = lo + (hi - 1 - lo) / 2;
        if (pair_less(r[mid], ix[mid], r[lo], ix[lo])) pair_swap(r, ix, mid, lo);
        if (pair_less(r[hi - 1], ix[hi - 1], r[mid], ix[mid])) {
            pair_swap(r, ix, mid, hi - 1);
            if (pair_less(r[mid], ix[mid], r[lo], ix[lo])) pair_swap(r, ix, mid, lo);
        }
        const uint64_t pr = r[mid], pi = ix[mid];
        size_t i = lo, j = hi - 1;
        for (;;) { /* [lo, i) <= pivot, (j, hi) >= pivot */
            while (pair_less(r[i], ix[i], pr, pi)) i++;
            while (pair_less(pr, pi, r[j], ix[j])) j--;
            if (i >= j) break;
            pair_swap(r, ix, i, j);
            i++, j--;
        }
        /* [lo, j] <= pivot <= [j + 1, hi), both sides non-empty */
        if (k <= j + 1)
            hi = j + 1;
        else
            lo = j + 1;
    }
    if (lo < k && k < hi) pair_insertion(r, ix, lo, hi);
    uint64_t mx = r[0];
    for (size_t i = 1; i < k; i++) mx = r[i] > mx ? r[i] : mx;
    return mx;
}

#define PP_CPU_TEMPLATE "cpu_topk.inc"
#include "cpu_each_type.inc"

#define TOPK_ENTRY(E, T, S, K, U, W) [E] = {best_##S, count_##S, split_##S, gather_##S},
static const topk_kernels topk_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(TOPK_ENTRY)};

static void topk_part(const void *job, size_t p, int thread)
{
    (void)thread;
    const topk_job *j = (const topk_job *)job;
    size_t b, e;
    pp_cpu_part(j->n, j->parts, p, &b, &e);
    uint64_t *r = j->r + p * j->cap, *ix = j->ix + p * j->cap;
    size_t c = j->kern->best(j, b, e, r, ix);
    if (c > j->k) {
        topk_keep_best(r, ix, c, j->k);
        c = j->k;
    }
    j->count[p] = c;
}

/* Sorts the k distinct pairs by (rank, index) with the sort slot sort; w:
 * the ranks' bits. */
static pp_status sort_pairs(pp_context *ctx, const char *fn, pp_sort_fn sort, uint64_t *r, uint64_t *ix, size_t k,
                            size_t n, unsigned w)
{
    if (k <= 64) {
        pair_insertion(r, ix, 0, k);
        return PP_SUCCESS;
    }
    unsigned ib = 1;
    while (ib < 64 && ((n - 1) >> ib)) ib++;
    if (w + ib <= 64) { /* one key: rank above index */
        for (size_t i = 0; i < k; i++) r[i] = r[i] << ib | ix[i];
        const pp_sort_args s = {fn, PP_U64, r, NULL, 0, k, PP_ASCENDING, r, NULL};
        pp_status st = sort(ctx, &s);
        const uint64_t mask = ib == 64 ? ~(uint64_t)0 : ((uint64_t)1 << ib) - 1;
        for (size_t i = 0; i < k; i++) ix[i] = r[i] & mask;
        return st;
    }
    const pp_sort_args by_index = {fn, PP_U64, ix, r, 8, k, PP_ASCENDING, ix, r};
    const pp_sort_args by_rank = {fn, PP_U64, r, ix, 8, k, PP_ASCENDING, r, ix};
    pp_status st = sort(ctx, &by_index);
    return st == PP_SUCCESS ? sort(ctx, &by_rank) : st;
}

/* A small k: each part keeps its best k behind the threshold
 * (cpu_topk.inc, best), then the parts' candidates are cut to the best k.
 * The best k pairs end in (j->r, j->ix)[0, k), in *buf. */
static pp_status by_threshold(pp_context *ctx, const char *fn, topk_job *j, int nt, void **buf)
{
    const size_t part = (j->n + j->parts - 1) / j->parts;
    j->cap = part < 2 * j->k ? part : 2 * j->k;
    const size_t pairs = j->parts * j->cap;
    pp_status st =
        pp_alloc_buffer(ctx, fn, buf, pairs * 2 * sizeof(uint64_t) + j->parts * sizeof(size_t), "candidates' buffer");
    if (st != PP_SUCCESS) return st;
    j->r = (uint64_t *)*buf;
    j->ix = j->r + pairs;
    j->count = (size_t *)(void *)(j->ix + pairs);
    pp_cpu_for_tiles(nt, j->parts, topk_part, j);
    size_t m = j->count[0]; /* the parts' pairs together at the front */
    for (size_t p = 1; p < j->parts; p++) {
        memmove(j->r + m, j->r + p * j->cap, j->count[p] * sizeof(uint64_t));
        memmove(j->ix + m, j->ix + p * j->cap, j->count[p] * sizeof(uint64_t));
        m += j->count[p];
    }
    if (m > j->k) topk_keep_best(j->r, j->ix, m, j->k);
    return PP_SUCCESS;
}

static void digit_count(const void *job, size_t p, int thread)
{
    (void)thread;
    const topk_job *j = (const topk_job *)job;
    size_t b, e;
    pp_cpu_part(j->n, j->parts, p, &b, &e);
    uint64_t *h = j->hist + p * j->bins;
    memset(h, 0, j->bins * sizeof *h);
    j->kern->count(j, b, e, h);
}

static void digit_split(const void *job, size_t p, int thread)
{
    (void)thread;
    const topk_job *j = (const topk_job *)job;
    size_t b, e;
    pp_cpu_part(j->n, j->parts, p, &b, &e);
    const size_t q = j->lt_all + j->eq[p];
    j->kern->split(j, b, e, j->r + j->lt[p], j->ix + j->lt[p], j->r + q, j->ix + q);
}

/* A large k: the keys' counts per digit (the top bits of the ranks) find
 * the digit of the k-th key; a second pass takes every key of a smaller
 * digit (all among the best k) and the keys of that digit, whose best
 * ones a selection picks. The best k pairs end in (j->r, j->ix)[0, k), in
 * bufs[1] (bufs[0]: the counts). */
static pp_status by_digit(pp_context *ctx, const char *fn, topk_job *j, int nt, void **bufs)
{
    const size_t parts = j->parts, bins = j->bins;
    pp_status st = pp_alloc_buffer(ctx, fn, &bufs[0], (parts * bins + 2 * parts) * sizeof(uint64_t), "digit counts");
    if (st != PP_SUCCESS) return st;
    j->hist = (uint64_t *)bufs[0];
    j->lt = (size_t *)(void *)(j->hist + parts * bins);
    j->eq = j->lt + parts;
    pp_cpu_for_tiles(nt, parts, digit_count, j);
    size_t below = 0, d = 0;
    for (;; d++) { /* the digit of the k-th key: below < k <= below + its count */
        size_t c = 0;
        for (size_t p = 0; p < parts; p++) c += j->hist[p * bins + d];
        if (below + c >= j->k) break;
        below += c;
    }
    j->digit = d;
    j->lt_all = below;
    size_t lt = 0, eq = 0;
    for (size_t p = 0; p < parts; p++) {
        const uint64_t *h = j->hist + p * bins;
        size_t l = 0;
        for (size_t x = 0; x < d; x++) l += h[x];
        j->lt[p] = lt, j->eq[p] = eq;
        lt += l, eq += h[d];
    }
    const size_t pairs = below + eq;
    st = pp_alloc_buffer(ctx, fn, &bufs[1], pairs * 2 * sizeof(uint64_t), "candidates' buffer");
    if (st != PP_SUCCESS) return st;
    j->r = (uint64_t *)bufs[1];
    j->ix = j->r + pairs;
    pp_cpu_for_tiles(nt, parts, digit_split, j);
    if (pairs > j->k) topk_keep_best(j->r + below, j->ix + below, eq, j->k - below);
    return PP_SUCCESS;
}

static void gather_tile(const void *job, size_t t, int thread)
{
    (void)thread;
    const topk_job *j = (const topk_job *)job;
    size_t b, e;
    pp_cpu_tile_range(j->k, TOPK_GATHER_TILE, t, &b, &e);
    j->kern->gather(j, b, e);
}

/* By digit from this many keys, where k is at least this share of them. */
#define TOPK_DIGIT_MIN_N ((size_t)1 << 16)
#define TOPK_DIGIT_SHARE 256

static pp_status cpu_top_k(pp_context *ctx, const pp_top_k_args *a, int sequential)
{
    const size_t n = a->n, k = a->k, sz = pp_type_size(a->type);
    const unsigned w = (unsigned)(8 * sz), dbits = w < 16 ? w : 16;
    const uint64_t umax = sz == 8 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
    topk_job j = {.kern = &topk_table[a->type],
                  .in = (const char *)a->in,
                  .n = n,
                  .k = k,
                  .flip = a->order == PP_ASCENDING ? 0 : umax,
                  .nan_rank = a->order == PP_DESCENDING ? 0 : umax,
                  .parts = sequential ? 1 : (size_t)pp_cpu_threads_for(ctx, n, (size_t)1 << 16),
                  .shift = w - dbits,
                  .bins = (size_t)1 << dbits};
    const int nt = sequential ? 1 : (int)j.parts;
    void *bufs[2] = {NULL, NULL};
    pp_status st = n >= TOPK_DIGIT_MIN_N && k >= n / TOPK_DIGIT_SHARE ? by_digit(ctx, a->fn, &j, nt, bufs)
                                                                      : by_threshold(ctx, a->fn, &j, nt, &bufs[0]);
    if (st == PP_SUCCESS)
        st = sort_pairs(ctx, a->fn, sequential ? pp_cpu_sort_sequential : pp_cpu_sort, j.r, j.ix, k, n, w);
    if (st == PP_SUCCESS) {
        j.out = a->keys_out;
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, k, TOPK_GATHER_TILE), (k + TOPK_GATHER_TILE - 1) / TOPK_GATHER_TILE,
                         gather_tile, &j);
        if (a->indices_out) pp_cpu_parallel_copy(ctx, a->indices_out, j.ix, k * sizeof(uint64_t));
    }
    for (int b = 0; b < 2; b++)
        if (bufs[b]) (void)ctx->ops->mem_free(ctx, bufs[b]);
    return st;
}

pp_status pp_cpu_top_k(pp_context *ctx, const pp_top_k_args *a) { return cpu_top_k(ctx, a, 0); }
pp_status pp_cpu_top_k_sequential(pp_context *ctx, const pp_top_k_args *a) { return cpu_top_k(ctx, a, 1); }
