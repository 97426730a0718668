/* cpu sort: LSD radix sort, digits of up to 11 bits.
 *
 * Keys are never rewritten: the radix key of an element is computed when it
 * is needed (integers: sign bit flipped for signed types; floats: sign bit
 * flipped for positives, all bits for negatives, every NaN mapped to the
 * largest key; descending order: all bits flipped). So NaN payloads survive
 * and no pass is spent transforming keys.
 *
 * PP_ALGO_AUTO: a first sweep over tiles that threads claim one at a time
 * takes the OR and the AND of all radix keys: the bits where keys differ
 * span [lo, hi), and the sort makes ceil((hi - lo) / 11) passes over
 * digits of equal width (8 bits at most below SORT_WIDE keys), so 32-bit
 * keys take 3 passes at most and keys that differ only in 24 bits 3 of 8.
 * A second sweep counts the first digit. Each pass is one region: a thread
 * claims a tile of SORT_TILE keys, counts its digits, takes the digit
 * counts of every tile before it from the look-back of cpu_tiles.h (no
 * thread waits for another) and scatters the tile in order from there, so
 * every pass is stable; while scattering it counts the next pass's digit,
 * which gives the next pass's digit starts without another sweep. Integer
 * keys of 8 bits without values are counted and rewritten (counting sort),
 * with no scratch array.
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

/* Digits of 11 bits at most (8 below SORT_WIDE keys). */
#define RADIX_MAX 2048
#define WIDTH_MAX 11
#define SORT_WIDE ((size_t)1 << 18)

/* The scatter's write-combining buffers (cpu_sort_scatter.inc): a line per
 * digit of keys, and the values of as many keys (8 bytes at most each). */
#define WC_LINE 64
#define WC_BYTES(ksize) ((size_t)RADIX_MAX * (WC_LINE + (WC_LINE / (ksize)) * 8))

/* A pass's digit ((radix key >> shift) & dmask), and the next pass's, which
 * the scatter counts into next (a thread's counts) as it goes. */
typedef struct sort_digits {
    unsigned shift, next_shift;
    size_t dmask, next_dmask;
    size_t *next;
} sort_digits;

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
    void (*bits)(const void *k, size_t b, size_t e, uint64_t mask, uint64_t *or_, uint64_t *and_);
    void (*count_at)(const void *k, size_t b, size_t e, uint64_t mask, unsigned shift, size_t dmask, size_t *h);
    void (*scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t vsize, size_t b, size_t e,
                    uint64_t mask, const sort_digits *dg, const size_t *off, void *wc);
    void (*fill_digit)(void *keys, size_t b, size_t e, size_t d, uint64_t mask);
} sort_kernels;
/* The table: the X-macro of types.h over the names the template defined. */
#define SORT_ENTRY(E, T, S, K, U, W) \
    [E] = {sizeof(T), PP_KIND_##K != PP_KIND_FLOAT, bits_##S, count_at_##S, scatter_##S, fill_digit_##S},
static const sort_kernels sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};

#define SORT_TILE ((size_t)1 << 16) /* keys a thread claims at once */

typedef struct sort_job {
    const sort_kernels *k;
    size_t n, vsize;
    uint64_t mask;
    sort_digits dg;        /* this pass's digit and the next's (next: unused) */
    uint64_t *bits;        /* bits sweep: OR and AND per thread, a line apart */
    size_t *hist;          /* RADIX_MAX counts per thread: a digit sweep's, or the next digit's */
    const size_t *start;   /* this pass: keys of smaller digits, per digit */
    const char *src;
    char *dst;
    const char *vsrc;
    char *vdst;
    char *wc;              /* write-combining buffers, wcbytes per thread */
    size_t wcbytes;
} sort_job;

static void bits_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    j->k->bits(j->src, b, e, j->mask, &j->bits[8 * thread], &j->bits[8 * thread + 1]);
}

static void count_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    j->k->count_at(j->src, b, e, j->mask, j->dg.shift, j->dg.dmask, j->hist + (size_t)thread * RADIX_MAX);
}

static void pass_counts(const void *job, size_t t, uint64_t *value)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[RADIX_MAX];
    const size_t radix = j->dg.dmask + 1;
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    memset(h, 0, radix * sizeof *h);
    j->k->count_at(j->src, b, e, j->mask, j->dg.shift, j->dg.dmask, h);
    for (size_t d = 0; d < radix; d++) value[d] = h[d];
}

static void add_counts(const void *job, uint64_t *acc, const uint64_t *b)
{
    const size_t radix = ((const sort_job *)job)->dg.dmask + 1;
    for (size_t d = 0; d < radix; d++) acc[d] += b[d];
}

static void pass_scatter(const void *job, size_t t, const uint64_t *before, const uint64_t *mine)
{
    (void)mine;
    const sort_job *j = (const sort_job *)job;
    const int thread = omp_get_thread_num();
    const size_t radix = j->dg.dmask + 1;
    size_t b, e, off[RADIX_MAX];
    pp_cpu_tile_range(j->n, SORT_TILE, t, &b, &e);
    for (size_t d = 0; d < radix; d++) off[d] = j->start[d] + (size_t)before[d];
    sort_digits dg = j->dg;
    dg.next = j->hist + (size_t)thread * RADIX_MAX;
    j->k->scatter(j->src, j->dst, j->vsrc, j->vdst, j->vsize, b, e, j->mask, &dg, off,
                  j->wc + (size_t)thread * j->wcbytes);
}

/* start[d] = the keys of digits below d, from the per-thread counts of nt
 * threads (radix digits). */
static void digit_starts(const size_t *hist, int nt, size_t radix, size_t *start)
{
    size_t run = 0;
    for (size_t d = 0; d < radix; d++) {
        size_t c = 0;
        for (int u = 0; u < nt; u++) c += hist[(size_t)u * RADIX_MAX + d];
        start[d] = run;
        run += c;
    }
}

/* Counting sort: the runs of each digit, a digit claimed at a time. */
static void fill_run(const void *job, size_t d, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t end = d + 1 < 256 ? j->start[d + 1] : j->n;
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

/* The lowest set bit of v != 0, and the number of bits up to its highest. */
static unsigned low_bit(uint64_t v)
{
    unsigned i = 0;
    while (!(v >> i & 1)) i++;
    return i;
}

static unsigned bit_length(uint64_t v)
{
    unsigned i = 64;
    while (!(v >> (i - 1) & 1)) i--;
    return i;
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
    const uint64_t mask = a->order == PP_DESCENDING ? ~(uint64_t)0 : 0;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SORT_TILE);
    const size_t ntiles = (n + SORT_TILE - 1) / SORT_TILE;
    if (!vals) vsize = 0;
    if (n > (SIZE_MAX / 4) / (k->size + vsize))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    sort_job j;
    memset(&j, 0, sizeof j);
    j.k = k;
    j.n = n;
    j.vsize = vsize;
    j.mask = mask;
    j.src = (const char *)keys;

    /* The digits: the span of bits where radix keys differ (the bits sweep,
     * into a first, small scratch), in as few digits of WIDTH_MAX bits at
     * most as cover it, of equal widths. Counting sort: one 8-bit digit. */
    const int counting = k->counting && k->size == 1 && !vals;
    unsigned npass = 1, width = 8, lo = 0;
    if (!counting) {
        j.bits = (uint64_t *)pp_cpu_scratch(ctx, (size_t)nt * 8 * sizeof(uint64_t), fn);
        if (!j.bits) return PP_ERROR_OUT_OF_MEMORY;
        for (int u = 0; u < nt; u++) {
            j.bits[8 * u] = 0;
            j.bits[8 * u + 1] = ~(uint64_t)0;
        }
        const int used = pp_cpu_for_tiles(nt, ntiles, bits_tile, &j);
        uint64_t o = 0, an = ~(uint64_t)0;
        for (int u = 0; u < used; u++) {
            o |= j.bits[8 * u];
            an &= j.bits[8 * u + 1];
        }
        const uint64_t differ = o ^ an;
        if (!differ) return PP_SUCCESS; /* every radix key equal: already in (stable) order */
        lo = low_bit(differ);
        const unsigned span = bit_length(differ) - lo, wmax = n >= SORT_WIDE ? WIDTH_MAX : 8;
        npass = (span + wmax - 1) / wmax;
        width = (span + npass - 1) / npass;
    }
    const size_t radix = (size_t)1 << width;

    /* Scratch: keys, values, per-thread digit counts, digit starts, the
     * write-combining buffers and the look-back's state. */
    const size_t kbytes = counting ? 0 : (n * k->size + 63) / 64 * 64;
    const size_t vbytes = (n * vsize + 63) / 64 * 64;
    const size_t hbytes = ((size_t)nt + 1) * RADIX_MAX * sizeof(size_t);
    const size_t wcbytes = counting ? 0 : WC_BYTES(k->size);
    const size_t cbytes = counting ? 0 : pp_cpu_chain_scratch_bytes(ntiles, radix);
    char *scr = (char *)pp_cpu_scratch(ctx, kbytes + vbytes + hbytes + (size_t)nt * wcbytes + cbytes, fn);
    if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    j.hist = (size_t *)(scr + kbytes + vbytes);
    size_t *start = j.hist + (size_t)nt * RADIX_MAX;
    j.wc = scr + kbytes + vbytes + hbytes;
    j.wcbytes = wcbytes;
    void *chain = j.wc + (size_t)nt * wcbytes;

    /* The first digit's counts, per thread, then added. */
    j.dg.shift = lo;
    j.dg.dmask = radix - 1;
    memset(j.hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
    const int used = pp_cpu_for_tiles(nt, ntiles, count_tile, &j);
    digit_starts(j.hist, used, radix, start);
    j.start = start;
    if (counting) {
        j.dst = (char *)keys;
        pp_cpu_for_tiles(nt, 256, fill_run, &j);
        return PP_SUCCESS;
    }

    /* The passes; each scatter counts the next pass's digit. */
    j.dst = scr;
    j.vsrc = (const char *)vals;
    j.vdst = vals ? scr + kbytes : NULL;
    static const uint64_t zero[RADIX_MAX];
    for (unsigned p = 0; p < npass; p++) {
        const unsigned q = p + 1 < npass ? p + 1 : p; /* the last pass counts its own digit again, unused */
        j.dg.shift = lo + p * width;
        j.dg.next_shift = lo + q * width;
        j.dg.next_dmask = radix - 1;
        memset(j.hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
        pp_cpu_chain_spec spec = {ntiles, radix, zero, pass_counts, add_counts, pass_scatter, &j, NULL};
        pp_cpu_chain(&spec, nt, chain, NULL);
        digit_starts(j.hist, nt, radix, start);
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
