/* What the files of the cpu sort share (docs/backends.md, "sort", says how
 * the sort works):
 *   cpu_sort.c          the entry: the bits sweep, the choice of path, the
 *                       scratch, the counting sort and the LSD passes
 *   cpu_sort_msd.c      the MSD split: buckets cut from a sample of key
 *                       prefixes, sorted per thread, split again where large
 *   cpu_sort_pass.c     one pass over the tiles: counts, the look-back,
 *                       the scatter (one region)
 *   cpu_sort_kernels.c  the per-type kernels (cpu_sort.inc,
 *                       cpu_sort_scatter.inc) and their tables
 * Private to src/cpu/. */
#ifndef PP_CPU_SORT_H
#define PP_CPU_SORT_H

#include "cpu_tiles.h"

/* Digits of 11 bits at most (8 below SORT_WIDE keys). */
#define RADIX_MAX 2048
#define WIDTH_MAX 11
#define SORT_WIDE ((size_t)1 << 18)

/* The scatter's write-combining buffers (cpu_sort_scatter.inc): a line per
 * digit of keys, and the values of as many keys (8 bytes at most each). */
#define WC_LINE 64
#define WC_BYTES(ksize) ((size_t)RADIX_MAX * (WC_LINE + (WC_LINE / (ksize)) * 8))

/* Keys a thread claims at once: from SORT_TILE_MIN, doubled up to
 * SORT_TILE_MAX while every thread keeps SORT_TILES_PER_THREAD tiles or
 * more (sort_tile). A scatter writes the partial lines at the edges of a
 * tile's run of each digit with plain stores, whose lines are read from
 * memory first; longer tiles have fewer of them (bench/studies/cpu-sort.md, "cpu
 * sort: tiles of up to 2^18 keys"). */
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

/* The top split's prefixes (cpu_sort_msd.c's split_tree): up to SPLIT_BITS
 * leading bits of the span, SPLIT_BITS_WIDE for 8-byte keys from
 * SPLIT_WIDE_N of them (the sign and exponent of a double take 12 of the
 * bits, so 16 left a block of one exponent's keys too large for a bucket,
 * split a second time). */
#define SPLIT_BITS 16
#define SPLIT_BITS_WIDE 20
#define SPLIT_WIDE_N ((size_t)1 << 23)
/* Bytes of keys the top split's sample reads at a time (split_digit). */
#define SAMPLE_RUN 64

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

/* The kernels of one key type (cpu_sort.inc), for one map of keys to
 * radix keys (pp_cpu_sort_kernels). */
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
    void (*insert)(void *keys, void *vals, size_t vsize, size_t b, size_t e, uint64_t mask);
} sort_kernels;

/* The kernels of keys of type t sorted in order o (cpu_sort_kernels.c):
 * their radix key is the order-preserving map of the type (floats: every
 * NaN above +inf), XOR the order's mask (pp_cpu_sort_mask); floats in
 * PP_DESCENDING_NAN_LAST map every NaN below -inf instead, so that the
 * mask puts them last. */
const sort_kernels *pp_cpu_sort_kernels(pp_type t, pp_order o);
/* The radix keys' mask of an order: every bit flipped for the descending
 * ones. */
static inline uint64_t pp_cpu_sort_mask(pp_order o) { return o != PP_ASCENDING ? ~(uint64_t)0 : 0; }

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
    /* MSD split (pp_cpu_sort_msd) */
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

/* [*b, *e): tile t of the job's range. */
static inline void job_tile(const sort_job *j, size_t t, size_t *b, size_t *e)
{
    pp_cpu_tile_range(j->n, j->tile, t, b, e);
    *b += j->base;
    *e += j->base;
}

/* The number of bits of v != 0 up to its highest set one. */
static inline unsigned bit_length(uint64_t v)
{
    unsigned i = 64;
    while (!(v >> (i - 1) & 1)) i--;
    return i;
}

/* ---- one pass (cpu_sort_pass.c) ---- */
/* One pass of the chained scatter over the job's range: the digit
 * (dg.shift, dg.dmask), from j->src/vsrc to j->dst/vdst, start[] the
 * digits' first positions; each scatter counts the digit (next_shift,
 * next_dmask) into the threads' rows of j->hist. */
void pp_cpu_sort_chain_pass(sort_job *j, int nt);
/* Digit d's counts of the job's range per thread (j->hist), and from them
 * start[d] = base + the keys of the range with smaller digits. */
void pp_cpu_sort_range_starts(sort_job *j, int nt, size_t *start);
/* start[d] = the keys of digits below d, from the per-thread counts of nt
 * threads (radix digits). */
void pp_cpu_sort_digit_starts(const size_t *hist, int nt, size_t radix, size_t *start);
/* Copies the job's range from j->src/vsrc to dst/vdst, a tile per claim. */
void pp_cpu_sort_copy_range(sort_job *j, int nt, char *dst, char *vdst);

/* ---- the MSD split (cpu_sort_msd.c) ---- */
/* Keys [b, e) and their values lie in ks/vs (the user's input or output
 * arrays, or scratch's) and end sorted in the user's output arrays, by the
 * bits [lo, lo + bits) of their radix keys (the others are equal in all of
 * them); depth: the level of the split (0: the top, cut from a sample). */
void pp_cpu_sort_msd(const sort_job *j, const char *ks, const char *vs, size_t b, size_t e, unsigned lo,
                     unsigned bits, int nt, unsigned depth);

#endif
