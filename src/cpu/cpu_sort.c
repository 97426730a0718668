/* cpu sort: radix sort; an MSD split into cache-sized buckets where the
 * keys differ in more than 11 bits, one or two LSD passes otherwise.
 *
 * Keys are never rewritten: the radix key of an element is computed when it
 * is needed (integers: sign bit flipped for signed types; floats: sign bit
 * flipped for positives, all bits for negatives, every NaN mapped to the
 * largest key; descending order: all bits flipped). So NaN payloads survive
 * and no pass is spent transforming keys.
 *
 * PP_ALGO_AUTO: a first sweep over tiles that threads claim one at a time
 * takes the OR and the AND of all radix keys: the bits where keys differ
 * span [lo, hi), and only those are sorted on. For floats it also notes
 * whether any key is a NaN; if none is, every later step runs the kernels
 * instantiated without the NaN mapping (sort_nonan: the sign flip alone;
 * the mapping costs an f32 sort about a fifth of its time), and if the
 * keys are also all of one sign, the unsigned kernels of their width with
 * the map folded into the mask (no map at all).
 *
 * The pass (chain_pass): one region in which a thread claims a tile of
 * keys (sort_tile: 2^16 to 2^18 of them), counts its digits (or takes the
 * counts that the sweep before the pass left per tile, when the pass's
 * digit is the one that sweep counted or its leading bits: the first LSD
 * pass and every MSD split), takes the digit counts of every tile before
 * it from the look-back of cpu_tiles.h (no thread waits for another) and
 * scatters the tile in order from there (write-combining lines, streaming
 * stores), so it is stable; while scattering an LSD pass counts the digit
 * of the next pass, if any.
 *
 * Spans of at most 11 bits: LSD passes over digits of equal width (one of
 * up to 11 bits; below SORT_WIDE keys up to 8, so two for 9 to 11 bits),
 * the first digit counted by a second sweep. Integer keys of 8 bits
 * without values are counted and rewritten (counting sort), with no
 * scratch array.
 *
 * Wider spans, any n (msd_range): one pass on the leading digit of the
 * span (keys to scratch) cuts the keys into buckets that share it; then
 * each thread claims buckets one at a time and sorts each in its own cache
 * (cpu_sort_scatter.inc's bucket: one counting read, LSD passes of up to 9
 * bits (8 with values) between two buffers of the bucket's size, over its
 * top digits alone where they tell nearly every key apart, then a fix-up
 * of the runs they leave, the result copied into the user's arrays, with
 * streaming stores from PP_CPU_STREAM_BYTES). So the keys cross memory
 * about twice instead of once per pass, and a small input is one bucket
 * sorted in one thread's cache (faster than the passes at every size
 * measured). The top split's buckets are blocks of
 * prefixes (the leading 16 bits of the span at most) sized from a sample
 * of the keys (split_digit): a table maps each prefix to its bucket, so
 * skewed keys (floats' exponents) get buckets of about SORT_BUCKET bytes
 * as uniform ones do, each with as few bits left to sort as its block
 * allows. Below the top, the leading digit is counted on 11 bits, and
 * takes as few of them as leave no bucket above SORT_BUCKET_MAX bytes.
 * Buckets that are still larger (a sample that missed, duplicates) are
 * split again the second way: by the thread that claimed them up to
 * SORT_SEQ_MAX bytes (msd_seq: one scatter in order, no look-back, no
 * region), by all threads above that (msd_range). A digit that is the
 * same in every key of a range moves nothing. Every step is stable, so the
 * whole sort is; the sample decides only where buckets are cut.
 * PP_ALGO_SEQUENTIAL: the same passes on one thread.
 *
 * Out of place (a->keys_in != a->keys: pp_sort_copy, pp_sort_pairs_copy;
 * the table's sort_reads_inputs): every path reads the inputs where it
 * first reads keys (the bits sweep, the sample, the first count and pass)
 * and ends in the outputs: the MSD split scatters the input into scratch
 * and sorts the buckets into the output; LSD passes alternate between
 * scratch and the output from the input, so that the last one writes the
 * output; the counting sort counts the input and fills the output. The
 * outputs of a large sort are touched first (pp_cpu_touch), so that a new
 * array's pages are mapped before the streaming stores.
 *
 * The per-type kernels (radix keys, digit counts, scatters) are the
 * template cpu_sort.inc, instantiated for every type of the list
 * (cpu_instances.h); the passes are plain C over their table.
 */
#include "cpu_tiles.h"

#include <omp.h>
#include <stdlib.h>
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

/* A bucket's runs of keys equal in its top digits of this many keys at
 * most are put in order by insertion (cpu_sort_scatter.inc's fix-up),
 * longer ones by passes. */
#define FIXUP_RUN 16

/* A bucket's LSD digits: BUCKET_W bits at most for keys alone,
 * BUCKET_W_VALUES with values (each digit writes two streams). 9 lets a
 * bucket of 17 or 18 bits take 2 passes instead of 3 (floats' buckets
 * below the top binade have such spans): f32 keys from [0, 1) at 2^24
 * 52.1-53.9 -> 50.7-52.9 ms, u32 below 2^24 46.7-47.9 -> 45.6-47.4
 * (bench/RESULTS.md); 10 and 11 bits were no better. */
#define BUCKET_W 9
#define BUCKET_W_VALUES 8

/* A bucket's digit offsets: off[d] = the sum of cnt[0, d) for d < nd (off
 * may be cnt). */
static inline void bucket_offsets(uint32_t *off, const uint32_t *cnt, unsigned nd)
{
    uint32_t run = 0;
    for (unsigned d = 0; d < nd; d++) {
        const uint32_t c = cnt[d];
        off[d] = run;
        run += c;
    }
}

/* A pass's digit ((radix key >> shift) & dmask), and the next pass's, which
 * the scatter counts into next (a thread's counts; NULL: not counted, as
 * in the MSD split, whose buckets count their own digits) as it goes.
 * Where lut is not NULL (the top MSD split, split_digit), the digit is
 * lut[(radix key >> shift) & pmask] instead, one of dmask + 1; next is
 * then NULL (the scatter's loop with a table does not count). */
typedef struct sort_digits {
    unsigned shift, next_shift;
    size_t dmask, next_dmask;
    size_t *next;
    const uint16_t *lut;
    size_t pmask;
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

/* Bytes of keys the top split's sample reads at a time (split_digit). */
#define SAMPLE_RUN 64

/* The first of the len keys of the sample's run i, in the stride of
 * stride >= len keys from b + i * stride: a place that a hash of i picks. */
static inline size_t sample_at(size_t b, size_t stride, size_t len, size_t i)
{
    const uint64_t hash = ((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    return b + i * stride + (size_t)((hash >> 32) % (stride - len + 1));
}

#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"
/* The float kernels once more, for keys without a NaN (names ending _nn). */
#define PP_SORT_NONAN
#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"
#undef PP_SORT_NONAN

typedef struct sort_kernels {
    size_t size;
    int counting; /* 8-bit integer keys: a counting sort when there are no values */
    /* floats: the kernels for keys without a NaN, which the passes use when
     * the bits sweep found none (it takes the keys with NaN mapping, and
     * notes whether there is one) */
    const struct sort_kernels *nonan;
    void (*bits)(const void *k, size_t b, size_t e, uint64_t mask, uint64_t *or_, uint64_t *and_, uint64_t *nan_);
    void (*count_at)(const void *k, size_t b, size_t e, uint64_t mask, const sort_digits *dg, size_t *h);
    void (*sample)(const void *k, size_t b, size_t m, uint64_t mask, unsigned shift, size_t pmask, size_t runs,
                   uint32_t *cnt);
    void (*scatter)(const void *ks, void *kd, const void *vs, void *vd, size_t vsize, size_t b, size_t e,
                    uint64_t mask, const sort_digits *dg, const size_t *off, void *wc);
    void (*fill_digit)(void *keys, size_t b, size_t e, size_t d, uint64_t mask);
    void (*bucket)(const void *ks, void *kd, const void *vs, void *vd, size_t vsize, size_t b, size_t e,
                   uint64_t mask, unsigned lo, unsigned bits, int stream, char *tmp);
} sort_kernels;
/* The tables: the X-macro of types.h over the names the template defined
 * (sort_nonan: the float types only). */
#define SORT_KERNELS(S, nn) count_at_##S##nn, sample_##S##nn, scatter_##S##nn, fill_digit_##S##nn, bucket_##S##nn
/* (no bits sweep: it always runs the full kernels, which note the NaNs) */
#define SORT_NONAN_FLOAT(E, T, S) [E] = {sizeof(T), 0, NULL, NULL, SORT_KERNELS(S, _nn)},
#define SORT_NONAN_SINT(E, T, S)
#define SORT_NONAN_UINT(E, T, S)
#define SORT_NONAN_ENTRY(E, T, S, K, U, W) SORT_NONAN_##K(E, T, S)
static const sort_kernels sort_nonan[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_NONAN_ENTRY)};
#define SORT_NONAN_PTR_FLOAT(E) &sort_nonan[E]
#define SORT_NONAN_PTR_SINT(E) NULL
#define SORT_NONAN_PTR_UINT(E) NULL
#define SORT_ENTRY(E, T, S, K, U, W) \
    [E] = {sizeof(T), PP_KIND_##K != PP_KIND_FLOAT, SORT_NONAN_PTR_##K(E), bits_##S, SORT_KERNELS(S, )},
static const sort_kernels sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};

/* Keys a thread claims at once: from SORT_TILE_MIN, doubled up to
 * SORT_TILE_MAX while every thread keeps SORT_TILES_PER_THREAD tiles or
 * more (sort_tile). A scatter writes the partial lines at the edges of a
 * tile's run of each digit with plain stores, whose lines are read from
 * memory first; longer tiles have fewer of them (2^24 keys on 2 threads,
 * 2^18 keys a tile against 2^16: f32 keys from [0, 1) 53.3-54.8 -> 50.3-51.2
 * ms, u32 below 2^24 48.5-49.9 -> 45.8-46.9; bench/RESULTS.md). */
#define SORT_TILE_MIN ((size_t)1 << 16)
#define SORT_TILE_MAX ((size_t)1 << 18)
#define SORT_TILES_PER_THREAD 8

/* MSD split: buckets of about SORT_BUCKET bytes (the core's cache holds
 * one with its two buffers), SORT_BUCKET_MAX bytes at most. */
#define SORT_BUCKET ((size_t)256 << 10)
#define SORT_BUCKET_MAX ((size_t)1 << 20)
#define SORT_SEQ_MAX ((size_t)16 << 20)
/* Levels of the split: the top one takes at least one bit (split_digit);
 * below it a range is split again (or passed on whole, its leading digit
 * the same in every key) only when buckets of fewer than WIDTH_MAX bits
 * would not all fit SORT_BUCKET_MAX (leading_width), so every level but
 * the last takes WIDTH_MAX bits of at most 63. */
#define SORT_MSD_DEPTH (1 + (63 + WIDTH_MAX - 1) / WIDTH_MAX)

/* The top split's buckets (split_tree): blocks of prefixes of up to
 * SPLIT_BITS leading bits of the span (SPLIT_BITS_WIDE for 8-byte keys
 * from SPLIT_WIDE_N of them: the sign and exponent of a double take 12 of
 * the bits, so 16 left a block of one exponent's keys at 2 MiB, split a
 * second time), from the prefixes of a sample of up to SPLIT_SAMPLE keys
 * (split_digit); a block is halved while its keys (estimated) exceed
 * SPLIT_BIG bytes, or while that saves its bucket an LSD pass and it holds
 * more than SPLIT_MIN_KEYS keys. */
#define SPLIT_BITS 16
#define SPLIT_BITS_WIDE 20
#define SPLIT_WIDE_N ((size_t)1 << 23)
#define SPLIT_SAMPLE ((size_t)1 << 17)
#define SPLIT_BIG (SORT_BUCKET + SORT_BUCKET / 2)
#define SPLIT_MIN_KEYS 8192.0

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
    size_t base;           /* the tiles cover [base, base + n) */
    size_t tile;           /* keys a thread claims at once (sort_tile) */
    /* MSD split (msd_range) */
    char *ukeys, *uvals;   /* the user's output arrays (the results' place) */
    char *skeys, *svals;   /* scratch arrays of as many keys and values */
    unsigned lo, rest;     /* the buckets' bits [lo, lo + rest) */
    size_t buckets;        /* buckets (start[] has as many) */
    size_t bucket_max;     /* keys in the largest bucket sorted in cache */
    size_t seq_max;        /* keys in the largest range split by one thread (msd_seq) */
    int stream;            /* sorted buckets go out with streaming stores */
    char *tmp;             /* buffers of the buckets, tmpbytes per thread */
    size_t tmpbytes;
    void *chain;           /* the look-back's scratch */
    size_t *starts;        /* SORT_MSD_DEPTH rows of RADIX_MAX digit starts, one per level */
    uint32_t *orders;      /* as many rows of buckets in the order threads claim them */
    uint32_t *order;       /* this level's row */
    const uint8_t *bbits;  /* bits left to sort per bucket (the top split), else rest for all */
    uint32_t *split_cnt;   /* the top split's sample counts (2^split_p + 1), */
    uint16_t *split_lut;   /* buckets per prefix (2^split_p) */
    unsigned split_p;      /* the top split's prefix bits at most */
    uint8_t *split_bits;   /* and bits left per bucket (RADIX_MAX) */
    /* Per-tile digit counts left by range_starts (NULL: none valid), rows of
     * tc_stride counters; a pass on a digit of tc_group fewer bits (its
     * leading ones) takes its tiles' counts from them instead of reading
     * the keys again. */
    uint32_t *tc;
    size_t tc_stride;
    unsigned tc_group;
    int count_next;        /* scatters count the next pass's digit (LSD passes) */
} sort_job;

/* The tile of a sort of n keys on nt threads (see SORT_TILE_MIN). */
static size_t sort_tile(size_t n, int nt)
{
    size_t tile = SORT_TILE_MIN;
    while (tile < SORT_TILE_MAX && n / (2 * tile) >= (size_t)nt * SORT_TILES_PER_THREAD) tile *= 2;
    return tile;
}

/* [*b, *e): tile t of the job's range. */
static void job_tile(const sort_job *j, size_t t, size_t *b, size_t *e)
{
    pp_cpu_tile_range(j->n, j->tile, t, b, e);
    *b += j->base;
    *e += j->base;
}

static void bits_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    job_tile(j, t, &b, &e);
    j->k->bits(j->src, b, e, j->mask, &j->bits[8 * thread], &j->bits[8 * thread + 1], &j->bits[8 * thread + 2]);
}

static void count_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, c[RADIX_MAX];
    const size_t radix = j->dg.dmask + 1;
    size_t *h = j->hist + (size_t)thread * RADIX_MAX;
    job_tile(j, t, &b, &e);
    if (!j->tc) {
        j->k->count_at(j->src, b, e, j->mask, &j->dg, h);
        return;
    }
    memset(c, 0, radix * sizeof *c); /* the tile's own counts, kept for its pass */
    j->k->count_at(j->src, b, e, j->mask, &j->dg, c);
    uint32_t *row = j->tc + t * j->tc_stride;
    for (size_t d = 0; d < radix; d++) {
        row[d] = (uint32_t)c[d];
        h[d] += c[d];
    }
}

static void pass_counts(const void *job, size_t t, uint64_t *value)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e, h[RADIX_MAX];
    const size_t radix = j->dg.dmask + 1;
    if (j->tc) { /* counted already: groups of 2^tc_group counted digits */
        const uint32_t *row = j->tc + t * j->tc_stride;
        const size_t gs = (size_t)1 << j->tc_group;
        for (size_t d = 0; d < radix; d++) {
            uint64_t c = 0;
            for (size_t k = 0; k < gs; k++) c += row[d * gs + k];
            value[d] = c;
        }
        return;
    }
    job_tile(j, t, &b, &e);
    memset(h, 0, radix * sizeof *h);
    j->k->count_at(j->src, b, e, j->mask, &j->dg, h);
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
    job_tile(j, t, &b, &e);
    for (size_t d = 0; d < radix; d++) off[d] = j->start[d] + (size_t)before[d];
    sort_digits dg = j->dg;
    dg.next = j->count_next ? j->hist + (size_t)thread * RADIX_MAX : NULL;
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
    job_tile(j, t, &b, &e);
    memcpy(j->dst + b * j->k->size, j->src + b * j->k->size, (e - b) * j->k->size);
    if (j->vsrc) memcpy(j->vdst + b * j->vsize, j->vsrc + b * j->vsize, (e - b) * j->vsize);
}

/* Copies the job's range from j->src/vsrc to dst/vdst, a tile per claim. */
static void copy_range(sort_job *j, int nt, char *dst, char *vdst)
{
    j->dst = dst;
    j->vdst = vdst;
    pp_cpu_for_tiles(nt, (j->n + j->tile - 1) / j->tile, copy_tile, j);
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

/* One pass of the chained scatter over the job's range: the digit
 * (dg.shift, dg.dmask), from j->src/vsrc to j->dst/vdst, start[] the
 * digits' first positions; each scatter counts the digit (next_shift,
 * next_dmask) into the threads' rows of j->hist. */
static void chain_pass(sort_job *j, int nt)
{
    static const uint64_t zero[RADIX_MAX];
    const size_t ntiles = (j->n + j->tile - 1) / j->tile;
    memset(j->hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
    pp_cpu_chain_spec spec = {ntiles, j->dg.dmask + 1, zero, pass_counts, add_counts, pass_scatter, j, NULL};
    pp_cpu_chain(&spec, nt, j->chain, NULL);
}

/* Digit d's counts of the job's range per thread (j->hist), and from them
 * start[d] = base + the keys of the range with smaller digits. */
static void range_starts(sort_job *j, int nt, size_t *start)
{
    const size_t ntiles = (j->n + j->tile - 1) / j->tile;
    memset(j->hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
    j->tc_stride = j->dg.dmask + 1;
    j->tc_group = 0;
    const int used = pp_cpu_for_tiles(nt, ntiles, count_tile, j);
    digit_starts(j->hist, used, j->dg.dmask + 1, start);
    for (size_t d = 0; d <= j->dg.dmask; d++) start[d] += j->base;
}

/* The other place of keys at ks: the user's output arrays for scratch, and
 * scratch for them or for the inputs of an out-of-place sort. */
static char *other_keys(const sort_job *j, const char *ks) { return ks == j->skeys ? j->ukeys : j->skeys; }
static char *other_vals(const sort_job *j, const char *ks) { return ks == j->skeys ? j->uvals : j->svals; }

/* The leading digit of a range [b, e) of m keys with `bits` bits left,
 * given start[] of its top wc bits (counted): of those, the fewest bits
 * (from enough for buckets of SORT_BUCKET bytes on average) whose largest
 * bucket holds at most bucket_max keys, else all wc of them, so that skewed
 * keys (floats' exponents) get more buckets than uniform ones. start[]
 * becomes the chosen digit's; returns its width. */
static unsigned leading_width(const sort_job *j, size_t *start, unsigned wc, size_t e, size_t m, unsigned bits)
{
    const size_t esize = j->k->size + j->vsize;
    unsigned w = bits <= WIDTH_MAX ? bits : bit_length((m * esize + SORT_BUCKET - 1) / SORT_BUCKET - 1);
    if (w > wc) w = wc;
    if (w < 1) w = 1;
    for (; w < wc; w++) { /* buckets of w bits: groups of 2^(wc - w) counted digits */
        const unsigned g = wc - w;
        size_t most = 0;
        for (size_t d = 0; d < ((size_t)1 << w); d++) {
            const size_t c = ((d + 1) << g < ((size_t)1 << wc) ? start[(d + 1) << g] : e) - start[d << g];
            if (c > most) most = c;
        }
        if (most <= j->bucket_max) break;
    }
    for (size_t d = 0; d < ((size_t)1 << w); d++) start[d] = start[d << (wc - w)];
    return w;
}

/* The digit that holds all m keys of the range, else radix. */
static size_t one_digit(const size_t *start, size_t radix, size_t e, size_t m)
{
    for (size_t d = 0; d < radix; d++)
        if ((d + 1 < radix ? start[d + 1] : e) - start[d] == m) return d;
    return radix;
}

/* The top split's buckets from the sample's counts of prefixes (cum[p]:
 * samples of prefixes below p, 2^P + 1 of them; kps keys per sample):
 * aligned blocks of 2^lev prefixes, the whole split in two and each block
 * halved while it holds more keys (estimated) than SPLIT_BIG * scale
 * bytes, or while halving saves its bucket an LSD pass (its rest + lev
 * bits one above a multiple of 8) and it holds more than SPLIT_MIN_KEYS *
 * scale keys. Blocks in order: lut[p] = prefix p's bucket, bbits[d] =
 * the bits left to sort in bucket d. Returns the buckets, 0 if more than
 * RADIX_MAX. */
static size_t split_tree(const uint32_t *cum, unsigned P, unsigned rest, double kps, size_t esize, double scale,
                         uint16_t *lut, uint8_t *bbits)
{
    uint32_t sa[SPLIT_BITS_WIDE + 2]; /* blocks to do, the next on top: at most one per level, plus one */
    unsigned sl[SPLIT_BITS_WIDE + 2];
    size_t top = 0, nb = 0;
    sa[top] = 0;
    sl[top++] = P;
    while (top > 0) {
        top--;
        const uint32_t a = sa[top];
        const unsigned lev = sl[top], bb = rest + lev;
        const size_t p0 = (size_t)a << lev, p1 = ((size_t)a + 1) << lev;
        const double keys = (double)(cum[p1] - cum[p0]) * kps;
        if (lev > 0 && (lev == P || keys * (double)esize > (double)SPLIT_BIG * scale ||
                        (bb % 8 == 1 && keys > SPLIT_MIN_KEYS * scale))) {
            sa[top] = 2 * a + 1;
            sl[top++] = lev - 1;
            sa[top] = 2 * a;
            sl[top++] = lev - 1;
            continue;
        }
        if (nb == RADIX_MAX) return 0;
        for (size_t p = p0; p < p1; p++) lut[p] = (uint16_t)nb;
        bbits[nb++] = (uint8_t)bb;
    }
    return nb;
}

/* The top split's digit: the leading P < bits bits of the span [lo, lo +
 * bits) (so every bucket has bits left to sort) counted in a sample of
 * the range's keys, cut into blocks (split_tree, its thresholds raised
 * until there are at most RADIX_MAX), j->dg set to map keys to the blocks
 * through j->split_lut, j->bbits to their bits. Returns the buckets. */
static size_t split_digit(sort_job *j, const char *ks, size_t b, size_t m, unsigned lo, unsigned bits)
{
    const unsigned P = bits - 1 < j->split_p ? bits - 1 : j->split_p;
    const size_t np = (size_t)1 << P, esize = j->k->size + j->vsize;
    /* 256 keys per bucket of SORT_BUCKET bytes, 4096 at least, within
     * SPLIT_SAMPLE and one key in 16, in runs of SAMPLE_RUN bytes */
    const size_t run = SAMPLE_RUN / j->k->size;
    size_t s = 256 * (m * esize / SORT_BUCKET + 1);
    if (s < 4096) s = 4096;
    if (s > SPLIT_SAMPLE) s = SPLIT_SAMPLE;
    if (s > m / 16) s = m / 16;
    s = (s + run - 1) / run * run;
    uint32_t *cum = j->split_cnt;
    memset(cum, 0, (np + 1) * sizeof *cum);
    j->k->sample(ks, b, m, j->mask, lo + bits - P, np - 1, s / run, cum + 1);
    for (size_t p = 0; p < np; p++) cum[p + 1] += cum[p];
    /* too many buckets: thresholds a quarter higher each time (so that
     * the few blocks that sampling noise puts over one do not halve every
     * bucket's size) */
    size_t nb = 0;
    for (double scale = 1; !nb; scale *= 1.25)
        nb = split_tree(cum, P, bits - P, (double)m / (double)s, esize, scale, j->split_lut, j->split_bits);
    j->dg.shift = lo + bits - P;
    j->dg.pmask = np - 1;
    j->dg.lut = j->split_lut;
    j->dg.dmask = nb - 1;
    j->bbits = j->split_bits;
    /* blocks of two sizes at most (uniform keys, some blocks put over a
     * threshold by sampling noise): all of the smaller size, the plain
     * digit of their leading bits, no table */
    unsigned lmin = j->split_bits[0], lmax = lmin;
    for (size_t d = 1; d < nb; d++) {
        if (j->split_bits[d] < lmin) lmin = j->split_bits[d];
        if (j->split_bits[d] > lmax) lmax = j->split_bits[d];
    }
    const unsigned lev = lmin - (bits - P);
    if (lmax - lmin <= 1 && np >> lev <= RADIX_MAX) {
        nb = np >> lev;
        memset(j->split_bits, (int)lmin, nb);
        j->dg.shift += lev;
        j->dg.dmask = nb - 1;
        j->dg.lut = NULL;
    }
    return nb;
}

/* The MSD split of one range by one thread (thread: its buffers), as
 * msd_range does with all of them, but with a single scatter of the whole
 * range in order (no look-back) and no parallel region: for buckets of the
 * parallel split too large for the cache but not for a thread. */
static void msd_seq(const sort_job *j, const char *ks, const char *vs, size_t b, size_t e, unsigned lo,
                    unsigned bits, int thread)
{
    const size_t m = e - b, ksz = j->k->size;
    if (m <= j->bucket_max) {
        j->k->bucket(ks, j->ukeys, vs, j->uvals, j->vsize, b, e, j->mask, lo, bits, j->stream,
                     j->tmp + (size_t)thread * j->tmpbytes);
        return;
    }
    char *ok = other_keys(j, ks), *ov = vs ? other_vals(j, ks) : NULL;
    size_t *h = j->hist + (size_t)thread * RADIX_MAX, start[RADIX_MAX];
    const unsigned wc = bits < WIDTH_MAX ? bits : WIDTH_MAX;
    const size_t cmask = ((size_t)1 << wc) - 1;
    const sort_digits lead = {lo + bits - wc, lo + bits - wc, cmask, cmask, NULL, NULL, 0};
    memset(h, 0, ((size_t)1 << wc) * sizeof *h);
    j->k->count_at(ks, b, e, j->mask, &lead, h);
    for (size_t d = 0, run = b; d < ((size_t)1 << wc); d++) {
        start[d] = run;
        run += h[d];
    }
    const unsigned w = leading_width(j, start, wc, e, m, bits);
    const size_t radix = (size_t)1 << w;
    const char *src = ks, *vsrc = vs;
    if (one_digit(start, radix, e, m) == radix) {
        const sort_digits dg = {lo + bits - w, lo + bits - w, radix - 1, radix - 1, NULL, NULL, 0};
        j->k->scatter(ks, ok, vs, ov, j->vsize, b, e, j->mask, &dg, start, j->wc + (size_t)thread * j->wcbytes);
        src = ok;
        vsrc = ov;
    } else if (bits > w) { /* one digit in all keys: nothing to move */
        msd_seq(j, ks, vs, b, e, lo, bits - w, thread);
        return;
    }
    if (bits == w) { /* the last digit: in order now */
        if (src != j->ukeys) {
            memcpy(j->ukeys + b * ksz, src + b * ksz, m * ksz);
            if (vs) memcpy(j->uvals + b * j->vsize, vsrc + b * j->vsize, m * j->vsize);
        }
        return;
    }
    for (size_t d = 0; d < radix; d++)
        msd_seq(j, src, vsrc, start[d], d + 1 < radix ? start[d + 1] : e, lo, bits - w, thread);
}

/* A bucket of the parallel split larger than a cache's: its size and
 * digit, for the order of the claims. */
typedef struct big_bucket {
    size_t size;
    uint32_t d;
} big_bucket;

static int larger_first(const void *a_, const void *b_)
{
    const big_bucket *a = (const big_bucket *)a_, *b = (const big_bucket *)b_;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    return a->d < b->d ? -1 : a->d > b->d;
}

/* j->order (a row of j->orders): the buckets of more than bucket_max and
 * at most seq_max keys, largest first, then the others in digit order. */
static void bucket_order(sort_job *j, size_t radix, size_t e)
{
    big_bucket big[RADIX_MAX];
    uint32_t *order = j->order;
    size_t nbig = 0, k = 0;
    for (size_t d = 0; d < radix; d++) {
        const size_t c = (d + 1 < radix ? j->start[d + 1] : e) - j->start[d];
        if (c > j->bucket_max && c <= j->seq_max) big[nbig++] = (big_bucket){c, (uint32_t)d};
    }
    qsort(big, nbig, sizeof *big, larger_first);
    for (size_t i = 0; i < nbig; i++) order[k++] = big[i].d;
    for (size_t d = 0; d < radix; d++) {
        const size_t c = (d + 1 < radix ? j->start[d + 1] : e) - j->start[d];
        if (!(c > j->bucket_max && c <= j->seq_max)) order[k++] = (uint32_t)d;
    }
}

/* MSD split: the t-th bucket of the parallel split in j->order, by the
 * thread that claimed it, unless it is too large for one thread
 * (msd_range splits it further). */
static void bucket_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    const size_t d = j->order[t];
    const size_t e = d + 1 < j->buckets ? j->start[d + 1] : j->base + j->n;
    if (e - j->start[d] > j->seq_max) return;
    msd_seq(j, j->src, j->vsrc, j->start[d], e, j->lo, j->bbits ? j->bbits[d] : j->rest, thread);
}

/* The MSD split (see the top of the file). Keys [b, e) and their values
 * lie in ks/vs (the user's input or output arrays, or scratch's) and end
 * sorted in the user's output arrays, by the bits [lo, lo + bits) of their
 * radix keys (the others are equal in all of them). */
static void msd_range(const sort_job *j0, const char *ks, const char *vs, size_t b, size_t e, unsigned lo,
                      unsigned bits, int nt, unsigned depth)
{
    sort_job j = *j0;
    const size_t m = e - b;
    char *ok = other_keys(&j, ks), *ov = other_vals(&j, ks);
    j.base = b;
    j.n = m;
    j.src = ks;
    j.vsrc = vs;
    if (m <= j.seq_max) { /* one thread's */
        msd_seq(&j, ks, vs, b, e, lo, bits, 0);
        return;
    }
    /* The leading digit: at the top, blocks of prefixes of a sampled size
     * (split_digit); below, counted on up to WIDTH_MAX bits
     * (leading_width). w: its bits (0: the top's). */
    size_t *start = j.starts + (size_t)depth * RADIX_MAX; /* this level's row */
    size_t radix;
    unsigned w = 0;
    if (depth == 0) {
        radix = split_digit(&j, ks, b, m, lo, bits);
        range_starts(&j, nt, start);
    } else {
        const unsigned wc = bits < WIDTH_MAX ? bits : WIDTH_MAX;
        j.dg.shift = lo + bits - wc;
        j.dg.dmask = ((size_t)1 << wc) - 1;
        range_starts(&j, nt, start);
        w = leading_width(&j, start, wc, e, m, bits);
        radix = (size_t)1 << w;
        j.tc_group = wc - w; /* the pass's tile counts: groups of the counted ones */
        j.dg.shift = lo + bits - w;
        j.dg.dmask = radix - 1;
    }
    const size_t all = one_digit(start, radix, e, m);
    if (all < radix) { /* one digit in all keys: no move */
        const unsigned rest = j.bbits ? j.bbits[all] : bits - w;
        if (rest > 0) msd_range(j0, ks, vs, b, e, lo, rest, nt, depth + 1);
        else if (ks != j.ukeys) /* sorted already, in scratch or the input: copy out */
            copy_range(&j, nt, j.ukeys, j.uvals);
        return;
    }
    j.dst = ok;
    j.vdst = vs ? ov : NULL;
    j.start = start;
    j.dg.next_shift = j.dg.shift;
    j.dg.next_dmask = j.dg.dmask;
    chain_pass(&j, nt);
    if (!j.bbits && bits == w) { /* the last digit: in order now */
        if (ok != j.ukeys) {
            j.src = ok;
            j.vsrc = j.vdst;
            copy_range(&j, nt, j.ukeys, j.uvals);
        }
        return;
    }
    /* The buckets: each one of at most seq_max keys sorted by the thread
     * that claims it (bucket_tile), the ones larger than a cache's claimed
     * first, largest first (so that no thread is left with a large one at
     * the end while the others wait); then the larger ones split again. */
    j.src = ok;
    j.vsrc = j.vdst;
    j.lo = lo;
    j.rest = bits - w;
    j.buckets = radix;
    j.order = j.orders + (size_t)depth * RADIX_MAX;
    bucket_order(&j, radix, e);
    pp_cpu_for_tiles(nt, radix, bucket_tile, &j);
    for (size_t d = 0; d < radix; d++) {
        const size_t be = d + 1 < radix ? start[d + 1] : e;
        if (be - start[d] > j.seq_max)
            msd_range(j0, ok, j.vsrc, start[d], be, lo, j.bbits ? j.bbits[d] : bits - w, nt, depth + 1);
    }
}

/* PP_ALGO_AUTO (see the top of the file). */
static pp_status cpu_sort(pp_context *ctx, const pp_sort_args *a, int sequential)
{
    const sort_kernels *k = &sort_table[a->type];
    const char *fn = a->fn;
    char *keys = (char *)a->keys, *vals = (char *)a->values;
    const char *kin = (const char *)a->keys_in, *vin = (const char *)a->values_in;
    size_t vsize = a->value_size;
    const size_t n = a->n;
    const uint64_t mask = a->order == PP_DESCENDING ? ~(uint64_t)0 : 0;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SORT_TILE_MIN);
    const size_t tile = sort_tile(n, nt), ntiles = (n + tile - 1) / tile;
    if (!vals) vsize = 0;
    if (n > (SIZE_MAX / 4) / (k->size + vsize))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    sort_job j;
    memset(&j, 0, sizeof j);
    j.k = k;
    j.n = n;
    j.tile = tile;
    j.vsize = vsize;
    j.mask = mask;
    j.src = kin;
    j.vsrc = vin;

    /* The digits: the span of bits where radix keys differ (the bits sweep,
     * into a first, small scratch), in as few digits of WIDTH_MAX bits at
     * most as cover it, of equal widths. Counting sort: one 8-bit digit. */
    const int counting = k->counting && k->size == 1 && !vals;
    unsigned npass = 1, width = 8, lo = 0, span = 8;
    if (!counting) {
        j.bits = (uint64_t *)pp_cpu_scratch(ctx, (size_t)nt * 8 * sizeof(uint64_t), fn);
        if (!j.bits) return PP_ERROR_OUT_OF_MEMORY;
        for (int u = 0; u < nt; u++) {
            j.bits[8 * u] = 0;
            j.bits[8 * u + 1] = ~(uint64_t)0;
            j.bits[8 * u + 2] = 0;
        }
        const int used = pp_cpu_for_tiles(nt, ntiles, bits_tile, &j);
        uint64_t o = 0, an = ~(uint64_t)0, nan = 0;
        for (int u = 0; u < used; u++) {
            o |= j.bits[8 * u];
            an &= j.bits[8 * u + 1];
            nan |= j.bits[8 * u + 2];
        }
        const uint64_t differ = o ^ an;
        const uint64_t top = (uint64_t)1 << (8 * k->size - 1);
        if (k->nonan && !nan) {
            if (!(differ & top)) {
                /* and of one sign: the radix key is the bits XOR a constant
                 * (positive: the sign bit; negative: every bit; then the
                 * order's mask), so the unsigned kernels of that width
                 * serve, that constant as their mask (and the radix keys,
                 * thus every digit and bucket, are the same) */
                const int positive = ((o & top) != 0) != (mask != 0);
                j.mask = (positive ? top : top | (top - 1)) ^ mask;
                j.k = k = &sort_table[k->size == 4 ? PP_U32 : PP_U64];
            } else {
                j.k = k = k->nonan;
            }
        }
        if (!differ) { /* every radix key equal: already in (stable) order */
            if (kin != keys) copy_range(&j, nt, keys, vals);
            return PP_SUCCESS;
        }
        lo = low_bit(differ);
        span = bit_length(differ) - lo;
        const unsigned wmax = n >= SORT_WIDE ? WIDTH_MAX : 8;
        npass = (span + wmax - 1) / wmax;
        width = (span + npass - 1) / npass;
    }
    const int msd = !counting && span > WIDTH_MAX;
    const size_t radix = msd ? RADIX_MAX : (size_t)1 << width;

    /* Scratch: keys, values, per-thread digit counts, digit starts, the
     * write-combining buffers, the look-back's state and (MSD split) each
     * thread's two buffers of a bucket. */
    const size_t bmax = SORT_BUCKET_MAX / (k->size + vsize) < n ? SORT_BUCKET_MAX / (k->size + vsize) : n;
    const size_t kbytes = counting ? 0 : (n * k->size + 63) / 64 * 64;
    const size_t vbytes = (n * vsize + 63) / 64 * 64;
    const size_t hbytes = ((size_t)nt + 1) * RADIX_MAX * sizeof(size_t);
    const size_t wcbytes = counting ? 0 : WC_BYTES(k->size);
    const size_t tmpbytes = msd ? 2 * ((bmax * k->size + 63) / 64 * 64 + (bmax * vsize + 63) / 64 * 64) : 0;
    const size_t cbytes = counting ? 0 : (pp_cpu_chain_scratch_bytes(ntiles, radix) + 63) / 64 * 64;
    const size_t sbytes = msd ? SORT_MSD_DEPTH * RADIX_MAX * (sizeof(size_t) + sizeof(uint32_t)) : 0;
    const size_t tcbytes = counting ? 0 : ntiles * RADIX_MAX * sizeof(uint32_t); /* n / 8 bytes at most */
    const unsigned split_p = k->size == 8 && n >= SPLIT_WIDE_N ? SPLIT_BITS_WIDE : SPLIT_BITS;
    const size_t np = (size_t)1 << split_p;
    const size_t spbytes = msd ? (np + 1) * sizeof(uint32_t) + np * sizeof(uint16_t) + RADIX_MAX : 0;
    char *scr = (char *)pp_cpu_scratch(
        ctx, kbytes + vbytes + hbytes + (size_t)nt * (wcbytes + tmpbytes) + cbytes + sbytes + tcbytes + spbytes, fn);
    if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    if (kin != keys && n * (k->size + vsize) >= PP_CPU_STREAM_BYTES) { /* out of place: maybe a new array */
        pp_cpu_touch(ctx, keys, n * k->size);
        if (vals) pp_cpu_touch(ctx, vals, n * vsize);
    }
    j.hist = (size_t *)(scr + kbytes + vbytes);
    size_t *start = j.hist + (size_t)nt * RADIX_MAX;
    j.wc = scr + kbytes + vbytes + hbytes;
    j.wcbytes = wcbytes;
    j.tmp = j.wc + (size_t)nt * wcbytes;
    j.tmpbytes = tmpbytes;
    j.chain = j.tmp + (size_t)nt * tmpbytes;
    j.starts = (size_t *)((char *)j.chain + cbytes);
    j.orders = (uint32_t *)(j.starts + SORT_MSD_DEPTH * RADIX_MAX);
    j.tc = counting ? NULL : (uint32_t *)((char *)j.starts + sbytes);
    j.split_p = split_p;
    j.split_cnt = (uint32_t *)((char *)j.starts + sbytes + tcbytes);
    j.split_lut = (uint16_t *)(j.split_cnt + np + 1);
    j.split_bits = (uint8_t *)(j.split_lut + np);
    if (msd) {
        j.ukeys = keys;
        j.uvals = vals;
        j.skeys = scr;
        j.svals = vals ? scr + kbytes : NULL;
        j.bucket_max = bmax;
        j.stream = n * (k->size + vsize) >= PP_CPU_STREAM_BYTES;
        /* ranges one thread splits: up to SORT_SEQ_MAX bytes and a thread's
         * share (claimed largest first, they keep the threads balanced) */
        j.seq_max = SORT_SEQ_MAX / (k->size + vsize);
        if (j.seq_max > n / (size_t)nt) j.seq_max = n / (size_t)nt;
        if (j.seq_max < bmax) j.seq_max = bmax;
        msd_range(&j, kin, vin, 0, n, lo, span, nt, 0);
        return PP_SUCCESS;
    }

    /* The first digit's counts, per thread, then added. */
    j.dg.shift = lo;
    j.dg.dmask = radix - 1;
    range_starts(&j, nt, start);
    j.start = start;
    if (counting) {
        j.dst = keys;
        pp_cpu_for_tiles(nt, 256, fill_run, &j);
        return PP_SUCCESS;
    }

    /* The passes; each scatter counts the next pass's digit. The first
     * pass takes its tiles' counts from range_starts. They go from the
     * input to scratch and the output in turn: an odd number ends in the
     * output where the input is another array (the first pass writes it),
     * else in scratch, copied back. */
    j.count_next = 1;
    char *const sv = vals ? scr + kbytes : NULL;
    const int first_out = kin != keys && npass % 2;
    j.dst = first_out ? keys : scr;
    j.vdst = first_out ? vals : sv;
    for (unsigned p = 0; p < npass; p++) {
        const unsigned q = p + 1 < npass ? p + 1 : p; /* the last pass counts its own digit again, unused */
        j.dg.shift = lo + p * width;
        j.dg.next_shift = lo + q * width;
        j.dg.next_dmask = radix - 1;
        chain_pass(&j, nt);
        j.tc = NULL; /* later passes count their tiles themselves */
        digit_starts(j.hist, nt, radix, start);
        j.src = j.dst;
        j.vsrc = j.vdst;
        j.dst = j.src == scr ? keys : scr;
        j.vdst = j.src == scr ? vals : sv;
    }
    if (j.src != keys) copy_range(&j, nt, keys, vals); /* in place, an odd number of passes */
    return PP_SUCCESS;
}

pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 0); }
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 1); }
