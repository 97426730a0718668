/* cpu sort: LSD radix sort, 8-bit digits.
 *
 * Keys are never rewritten: the radix key of an element is computed when it
 * is needed (integers: sign bit flipped for signed types; floats: sign bit
 * flipped for positives, all bits for negatives, every NaN mapped to the
 * largest key; descending order: all bits flipped). So NaN payloads survive
 * and no pass is spent transforming keys.
 *
 * PP_ALGO_AUTO: one sweep counts all digits of all keys over tiles that
 * threads claim one at a time; digit positions where every key has the
 * same digit are skipped. Each remaining pass is one region: a thread
 * claims a tile of SORT_TILE keys, counts its digits, takes the digit
 * counts of every tile before it from the look-back of cpu_tiles.h (no
 * thread waits for another) and scatters the tile in order from there, so
 * every pass is stable. Integer keys of 8 bits without values are counted
 * and rewritten (counting sort), with no scratch array.
 * PP_ALGO_SEQUENTIAL: the same passes on one thread.
 *
 * The per-type kernels (radix keys, digit counts, scatters) are the
 * template cpu_sort.inc, instantiated for every type of the list
 * (cpu_instances.h); the passes are plain C over their table.
 */
#include "cpu_tiles.h"

#include <omp.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define RADIX 256

/* The scatter's write-combining buffers (cpu_sort_scatter.inc): a line per
 * digit of keys, and the values of as many keys (8 bytes at most each). */
#define WC_LINE 64
#define WC_BYTES(ksize) ((size_t)RADIX * (WC_LINE + (WC_LINE / (ksize)) * 8))

/* Copies one 64-byte line from an aligned buffer to aligned memory. */
static inline void pp_line_store(void *dst, const void *src, int stream)
{
#if defined(__SSE2__)
    if (stream) {
        const __m128i *s = (const __m128i *)src;
        __m128i *d = (__m128i *)dst;
        _mm_stream_si128(d, _mm_load_si128(s));
        _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
        _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
        _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
        return;
    }
#endif
    (void)stream;
    memcpy(dst, src, WC_LINE);
}

static inline void pp_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"

typedef struct sort_kernels {
    size_t size;
    int counting; /* 8-bit integer keys: a counting sort when there are no values */
    void (*count_all)(const void *k, size_t b, size_t e, uint64_t mask, unsigned npass, size_t *h);
    void (*count_at)(const void *k, size_t b, size_t e, uint64_t mask, unsigned shift, size_t *h);
    void (*scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t vsize, size_t b, size_t e,
                    unsigned shift, uint64_t mask, const size_t *off, void *wc);
    void (*fill_digit)(void *keys, size_t b, size_t e, size_t d, uint64_t mask);
} sort_kernels;
/* The table: the X-macro of types.h over the names the template defined. */
#define SORT_ENTRY(E, T, S, K, U, W) \
    [E] = {sizeof(T), PP_KIND_##K != PP_KIND_FLOAT, count_all_##S, count_at_##S, scatter_##S, fill_digit_##S},
static const sort_kernels sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};

#define SORT_TILE ((size_t)1 << 16) /* keys a thread claims at once */

typedef struct sort_job {
    const sort_kernels *k;
    size_t n, vsize;
    uint64_t mask;
    unsigned npass, shift;
    size_t *priv;          /* count sweep: npass x RADIX counts per thread */
    const size_t *start;   /* this pass: keys of smaller digits, per digit */
    const char *src;
    char *dst;
    const char *vsrc;
    char *vdst;
    char *wc;              /* write-combining buffers, wcbytes per thread */
    size_t wcbytes;
} sort_job;

static void sweep_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[8 * RADIX];
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    j->k->count_all(j->src, b, e, j->mask, j->npass, h);
    size_t *mine = j->priv + (size_t)thread * j->npass * RADIX;
    for (size_t i = 0; i < (size_t)j->npass * RADIX; i++) mine[i] += h[i];
}

static void pass_counts(const void *job, size_t t, uint64_t *value)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[RADIX];
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    j->k->count_at(j->src, b, e, j->mask, j->shift, h);
    for (size_t d = 0; d < RADIX; d++) value[d] = h[d];
}

static void add_counts(const void *job, uint64_t *acc, const uint64_t *b)
{
    (void)job;
    for (size_t d = 0; d < RADIX; d++) acc[d] += b[d];
}

static void pass_scatter(const void *job, size_t t, const uint64_t *before, const uint64_t *mine)
{
    (void)mine;
    const sort_job *j = (const sort_job *)job;
    size_t b, e, off[RADIX];
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    for (size_t d = 0; d < RADIX; d++) off[d] = j->start[d] + (size_t)before[d];
    j->k->scatter(j->src, j->dst, j->vsrc, j->vdst, j->vsize, b, e, j->shift, j->mask, off,
                  j->wc + (size_t)omp_get_thread_num() * j->wcbytes);
}

/* Counting sort: the runs of each digit, a digit claimed at a time. */
static void fill_run(const void *job, size_t d, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t end = d + 1 < RADIX ? j->start[d + 1] : j->n;
    j->k->fill_digit(j->dst, j->start[d], end, d, j->mask);
}

static void copy_tile(const void *job, size_t t, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    memcpy(j->dst + b * j->k->size, j->src + b * j->k->size, (e - b) * j->k->size);
    if (j->vsrc) memcpy(j->vdst + b * j->vsize, j->vsrc + b * j->vsize, (e - b) * j->vsize);
}

/* PP_ALGO_AUTO (see the top of the file): a count sweep of every digit over
 * tiles claimed one at a time; then per pass one region in which each
 * thread claims a tile, counts its digits, gets the counts of every tile
 * before it from the look-back (cpu_tiles.h: no thread waits for another)
 * and scatters the tile from there. Only the passes themselves are
 * ordered (a pass reads what the one before wrote). */
static pp_status cpu_sort(pp_context *ctx, const pp_sort_args *a, int sequential)
{
    const sort_kernels *k = &sort_table[a->type];
    const char *fn = a->fn;
    void *keys = a->keys, *vals = a->values;
    size_t vsize = a->value_size;
    const size_t n = a->n;
    const unsigned npass = (unsigned)k->size;
    const uint64_t mask = a->order == PP_DESCENDING ? ~(uint64_t)0 : 0;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SORT_TILE);
    const size_t ntiles = (n + SORT_TILE - 1) / SORT_TILE;
    if (!vals) vsize = 0;
    if (n > (SIZE_MAX / 4) / (k->size + vsize))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    /* Scratch: keys, values, per-thread sweep counts, digit starts, the
     * write-combining buffers and the look-back's state. */
    const int counting = k->counting && k->size == 1 && !vals;
    const size_t kbytes = counting ? 0 : (n * k->size + 63) / 64 * 64;
    const size_t vbytes = (n * vsize + 63) / 64 * 64;
    const size_t hbytes = ((size_t)nt * npass * RADIX + npass * RADIX) * sizeof(size_t);
    const size_t wcbytes = WC_BYTES(k->size);
    const size_t cbytes = counting ? 0 : pp_cpu_chain_scratch_bytes(ntiles, RADIX);
    char *scr = (char *)pp_cpu_scratch(ctx, kbytes + vbytes + hbytes + (size_t)nt * wcbytes + cbytes, fn);
    if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    sort_job j;
    memset(&j, 0, sizeof j);
    j.k = k;
    j.n = n;
    j.vsize = vsize;
    j.mask = mask;
    j.npass = counting ? 1 : npass;
    j.priv = (size_t *)(scr + kbytes + vbytes);
    size_t *start = j.priv + (size_t)nt * npass * RADIX; /* npass x RADIX */
    j.wc = scr + kbytes + vbytes + hbytes;
    j.wcbytes = wcbytes;
    void *chain = j.wc + (size_t)nt * wcbytes;

    /* The count sweep: every digit of every key, per thread, then added. */
    j.src = (const char *)keys;
    memset(j.priv, 0, (size_t)nt * j.npass * RADIX * sizeof(size_t));
    const int used = pp_cpu_for_tiles(nt, ntiles, sweep_tile, &j);
    int skip[8];
    for (unsigned p = 0; p < j.npass; p++) {
        size_t run = 0;
        skip[p] = 0;
        for (size_t d = 0; d < RADIX; d++) {
            size_t c = 0;
            for (int u = 0; u < used; u++) c += j.priv[((size_t)u * j.npass + p) * RADIX + d];
            if (c == n) skip[p] = 1; /* one digit for every key: the pass changes nothing */
            start[p * RADIX + d] = run;
            run += c;
        }
    }
    if (counting) {
        j.start = start;
        j.dst = (char *)keys;
        pp_cpu_for_tiles(nt, RADIX, fill_run, &j);
        return PP_SUCCESS;
    }

    j.src = (const char *)keys;
    j.dst = scr;
    j.vsrc = (const char *)vals;
    j.vdst = vals ? scr + kbytes : NULL;
    const uint64_t zero[RADIX] = {0};
    for (unsigned p = 0; p < npass; p++) {
        if (skip[p]) continue;
        j.shift = 8 * p;
        j.start = start + p * RADIX;
        pp_cpu_chain_spec spec = {ntiles, RADIX, zero, pass_counts, add_counts, pass_scatter, &j};
        pp_cpu_chain(&spec, nt, chain, NULL);
        const char *ts = j.src, *tv = j.vsrc;
        j.src = j.dst;
        j.dst = (char *)ts;
        j.vsrc = j.vdst;
        j.vdst = (char *)tv;
    }
    if (j.src != (const char *)keys) { /* an odd number of passes: copy back */
        j.dst = (char *)keys;
        j.vdst = (char *)vals;
        pp_cpu_for_tiles(nt, ntiles, copy_tile, &j);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 0); }
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 1); }
