/* cpu sort: the MSD split (docs/backends.md, "sort"), for spans of more
 * than WIDTH_MAX bits. One pass on the leading digit of the span cuts the
 * keys into buckets that share it (at the top, blocks of prefixes sized
 * from a sample of the keys, split_digit; below, a counted digit of as few
 * bits as keep the buckets small, leading_width); each thread then claims
 * buckets and sorts each in its own cache (the kernels' bucket: LSD passes
 * and a fix-up), and splits again those too large for that (msd_seq by
 * one thread, pp_cpu_sort_msd by all). Every step is stable; the sample decides
 * only where buckets are cut. */
#include "cpu_sort.h"

#include <stdlib.h>

/* The top split's buckets (split_tree): blocks of prefixes of up to
 * SPLIT_BITS (SPLIT_BITS_WIDE) leading bits of the span, from the prefixes
 * of a sample of up to SPLIT_SAMPLE keys (split_digit); a block is halved
 * while its keys (estimated) exceed SPLIT_BIG bytes, or while that saves
 * its bucket an LSD pass and it holds more than SPLIT_MIN_KEYS keys. */
#define SPLIT_SAMPLE ((size_t)1 << 17)
#define SPLIT_BIG (SORT_BUCKET + SORT_BUCKET / 2)
#define SPLIT_MIN_KEYS 8192.0

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
 * pp_cpu_sort_msd does with all of them, but with a single scatter of the
 * whole range in order (no look-back) and no parallel region: for buckets
 * of the parallel split too large for the cache but not for a thread. */
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
 * (pp_cpu_sort_msd splits it further). */
static void bucket_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    const size_t d = j->order[t];
    const size_t e = d + 1 < j->buckets ? j->start[d + 1] : j->base + j->n;
    if (e - j->start[d] > j->seq_max) return;
    msd_seq(j, j->src, j->vsrc, j->start[d], e, j->lo, j->bbits ? j->bbits[d] : j->rest, thread);
}

/* (cpu_sort.h) */
void pp_cpu_sort_msd(const sort_job *j0, const char *ks, const char *vs, size_t b, size_t e, unsigned lo,
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
        pp_cpu_sort_range_starts(&j, nt, start);
    } else {
        const unsigned wc = bits < WIDTH_MAX ? bits : WIDTH_MAX;
        j.dg.shift = lo + bits - wc;
        j.dg.dmask = ((size_t)1 << wc) - 1;
        pp_cpu_sort_range_starts(&j, nt, start);
        w = leading_width(&j, start, wc, e, m, bits);
        radix = (size_t)1 << w;
        j.tc_group = wc - w; /* the pass's tile counts: groups of the counted ones */
        j.dg.shift = lo + bits - w;
        j.dg.dmask = radix - 1;
    }
    const size_t all = one_digit(start, radix, e, m);
    if (all < radix) { /* one digit in all keys: no move */
        const unsigned rest = j.bbits ? j.bbits[all] : bits - w;
        if (rest > 0) pp_cpu_sort_msd(j0, ks, vs, b, e, lo, rest, nt, depth + 1);
        else if (ks != j.ukeys) /* sorted already, in scratch or the input: copy out */
            pp_cpu_sort_copy_range(&j, nt, j.ukeys, j.uvals);
        return;
    }
    j.dst = ok;
    j.vdst = vs ? ov : NULL;
    j.start = start;
    j.dg.next_shift = j.dg.shift;
    j.dg.next_dmask = j.dg.dmask;
    pp_cpu_sort_chain_pass(&j, nt);
    if (!j.bbits && bits == w) { /* the last digit: in order now */
        if (ok != j.ukeys) {
            j.src = ok;
            j.vsrc = j.vdst;
            pp_cpu_sort_copy_range(&j, nt, j.ukeys, j.uvals);
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
            pp_cpu_sort_msd(j0, ok, j.vsrc, start[d], be, lo, j.bbits ? j.bbits[d] : bits - w, nt, depth + 1);
    }
}

