/* cpu sort: the entry of PP_ALGO_AUTO and PP_ALGO_SEQUENTIAL (the same
 * steps on one thread). A sweep takes the OR and the AND of the radix keys
 * (and notes NaNs), so that only the bits where keys differ are sorted on
 * and float keys without a NaN take kernels without the NaN mapping; then
 * spans of at most WIDTH_MAX bits take LSD passes (8-bit integer keys
 * without values a counting sort), wider ones the MSD split
 * (cpu_sort_msd.c). Keys are never rewritten: radix keys are computed
 * where they are needed (cpu_sort.inc), so NaN payloads survive. Last,
 * pp_argsort's slot: the index sequence for core/argsort.c. The other
 * files: cpu_sort.h; how it all works: docs/backends.md, "sort". */
#include "cpu_sort.h"

/* The tile of a sort of n keys on nt threads (see SORT_TILE_MIN). */
static size_t sort_tile(size_t n, int nt)
{
    size_t tile = SORT_TILE_MIN;
    while (tile < SORT_TILE_MAX && n / (2 * tile) >= (size_t)nt * SORT_TILES_PER_THREAD) tile *= 2;
    return tile;
}

static void bits_tile(const void *job, size_t t, int thread)
{
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    job_tile(j, t, &b, &e);
    j->k->bits(j->src, b, e, j->mask, &j->bits[8 * thread], &j->bits[8 * thread + 1], &j->bits[8 * thread + 2]);
}

/* Counting sort: the runs of each digit, a digit claimed at a time. */
static void fill_run(const void *job, size_t d, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t end = d + 1 < 256 ? j->start[d + 1] : j->n;
    j->k->fill_digit(j->dst, j->start[d], end, d, j->mask);
}

/* The lowest set bit of v != 0. */
static unsigned low_bit(uint64_t v)
{
    unsigned i = 0;
    while (!(v >> i & 1)) i++;
    return i;
}

/* Scratch regions: *off = *at rounded up to 64 bytes, the region count
 * elements of size bytes from there; 0 where that overflows. */
static int carve(size_t *at, size_t count, size_t size, size_t *off)
{
    const size_t a = (*at + 63) / 64 * 64;
    if (a < *at || (size && count > (SIZE_MAX - a) / size)) return 0;
    *off = a;
    *at = a + count * size;
    return 1;
}

/* The LSD passes, npass digits of width bits from bit lo, radix = 2^width,
 * start[] the first digit's starts (range_starts, which left each tile's
 * counts in j->tc); each scatter counts the next pass's digit. They go
 * from the input to scratch (sk, sv) and the output (keys, vals) in turn:
 * an odd number ends in the output where the input is another array (the
 * first pass writes it), else in scratch, copied back. */
static void lsd_passes(sort_job *j, int nt, unsigned npass, unsigned lo, unsigned width, size_t *start, char *keys,
                       char *vals, char *sk, char *sv)
{
    const size_t radix = (size_t)1 << width;
    j->count_next = 1;
    const int first_out = j->src != keys && npass % 2;
    j->dst = first_out ? keys : sk;
    j->vdst = first_out ? vals : sv;
    for (unsigned p = 0; p < npass; p++) {
        const unsigned q = p + 1 < npass ? p + 1 : p; /* the last pass counts its own digit again, unused */
        j->dg.shift = lo + p * width;
        j->dg.next_shift = lo + q * width;
        j->dg.next_dmask = radix - 1;
        pp_cpu_sort_chain_pass(j, nt);
        j->tc = NULL; /* later passes count their tiles themselves */
        pp_cpu_sort_digit_starts(j->hist, nt, radix, start);
        j->src = j->dst;
        j->vsrc = j->vdst;
        j->dst = j->src == sk ? keys : sk;
        j->vdst = j->src == sk ? vals : sv;
    }
    if (j->src != keys) pp_cpu_sort_copy_range(j, nt, keys, vals); /* in place, an odd number of passes */
}

/* PP_ALGO_AUTO, and PP_ALGO_SEQUENTIAL where sequential is set. */
static pp_status cpu_sort(pp_context *ctx, const pp_sort_args *a, int sequential)
{
    const sort_kernels *k = pp_cpu_sort_kernels(a->type, a->order);
    const char *fn = a->fn;
    char *keys = (char *)a->keys, *vals = (char *)a->values;
    const char *kin = (const char *)a->keys_in, *vin = (const char *)a->values_in;
    size_t vsize = a->value_size;
    const size_t n = a->n;
    const uint64_t mask = pp_cpu_sort_mask(a->order);
    if (n <= PP_CPU_SORT_INSERTION) { /* by insertion of radix keys: stable, the same order */
        if (kin != keys) memcpy(keys, kin, n * k->size);
        if (vals && vin != vals) memcpy(vals, vin, n * vsize);
        k->insert(keys, vals, vals ? vsize : 0, 0, n, mask);
        return PP_SUCCESS;
    }
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SORT / 2);
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
                j.k = k = pp_cpu_sort_kernels(k->size == 4 ? PP_U32 : PP_U64, PP_ASCENDING);
            } else {
                j.k = k = k->nonan;
            }
        }
        if (!differ) { /* every radix key equal: already in (stable) order */
            if (kin != keys) pp_cpu_sort_copy_range(&j, nt, keys, vals);
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

    /* Scratch, carved by name: keys and values (none for the counting
     * sort), per-thread digit counts and a row of digit starts, each
     * thread's write-combining buffers and (MSD split) its two buffers of a
     * bucket, the look-back's state, the MSD split's rows of digit starts
     * and bucket orders per level, the tiles' digit counts (n / 8 bytes at
     * most), the top split's sample counts, prefix table and bits left per
     * bucket. */
    const size_t ksize = k->size, bmax = SORT_BUCKET_MAX / (ksize + vsize) < n ? SORT_BUCKET_MAX / (ksize + vsize) : n;
    const size_t wcbytes = counting ? 0 : WC_BYTES(ksize);
    const size_t tmpbytes = msd ? 2 * ((bmax * ksize + 63) / 64 * 64 + (bmax * vsize + 63) / 64 * 64) : 0;
    const unsigned split_p = ksize == 8 && n >= SPLIT_WIDE_N ? SPLIT_BITS_WIDE : SPLIT_BITS;
    const size_t np = (size_t)1 << split_p, levels = msd ? SORT_MSD_DEPTH : 0, split = msd;
    size_t at = 0, o_keys, o_vals, o_hist, o_wc, o_tmp, o_chain, o_starts, o_orders, o_tc, o_cnt, o_lut, o_bbits;
    const int fits = carve(&at, counting ? 0 : n, ksize, &o_keys) && carve(&at, n, vsize, &o_vals) &&
                     carve(&at, ((size_t)nt + 1) * RADIX_MAX, sizeof(size_t), &o_hist) &&
                     carve(&at, (size_t)nt, wcbytes, &o_wc) && carve(&at, (size_t)nt, tmpbytes, &o_tmp) &&
                     carve(&at, counting ? 0 : pp_cpu_chain_scratch_bytes(ntiles, radix), 1, &o_chain) &&
                     carve(&at, levels * RADIX_MAX, sizeof(size_t), &o_starts) &&
                     carve(&at, levels * RADIX_MAX, sizeof(uint32_t), &o_orders) &&
                     carve(&at, counting ? 0 : ntiles * RADIX_MAX, sizeof(uint32_t), &o_tc) &&
                     carve(&at, split * (np + 1), sizeof(uint32_t), &o_cnt) &&
                     carve(&at, split * np, sizeof(uint16_t), &o_lut) && carve(&at, split * RADIX_MAX, 1, &o_bbits);
    if (!fits) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    char *scr = (char *)pp_cpu_scratch(ctx, at, fn);
    if (!scr) return PP_ERROR_OUT_OF_MEMORY;
    if (kin != keys && n * (ksize + vsize) >= PP_CPU_STREAM_BYTES) { /* out of place: maybe a new array */
        pp_cpu_touch(ctx, keys, n * ksize);
        if (vals) pp_cpu_touch(ctx, vals, n * vsize);
    }
    char *const sk = scr + o_keys, *const sv = vals ? scr + o_vals : NULL;
    j.hist = (size_t *)(scr + o_hist);
    size_t *start = j.hist + (size_t)nt * RADIX_MAX;
    j.wc = scr + o_wc;
    j.wcbytes = wcbytes;
    j.chain = scr + o_chain;
    j.tc = counting ? NULL : (uint32_t *)(scr + o_tc);
    if (msd) {
        j.tmp = scr + o_tmp;
        j.tmpbytes = tmpbytes;
        j.starts = (size_t *)(scr + o_starts);
        j.orders = (uint32_t *)(scr + o_orders);
        j.split_p = split_p;
        j.split_cnt = (uint32_t *)(scr + o_cnt);
        j.split_lut = (uint16_t *)(scr + o_lut);
        j.split_bits = (uint8_t *)(scr + o_bbits);
        j.ukeys = keys;
        j.uvals = vals;
        j.skeys = sk;
        j.svals = sv;
        j.bucket_max = bmax;
        j.stream = n * (ksize + vsize) >= PP_CPU_STREAM_BYTES;
        /* ranges one thread splits: up to SORT_SEQ_MAX bytes and a thread's
         * share (claimed largest first, they keep the threads balanced) */
        j.seq_max = SORT_SEQ_MAX / (ksize + vsize);
        if (j.seq_max > n / (size_t)nt) j.seq_max = n / (size_t)nt;
        if (j.seq_max < bmax) j.seq_max = bmax;
        pp_cpu_sort_msd(&j, kin, vin, 0, n, lo, span, nt, 0);
        return PP_SUCCESS;
    }

    /* The first digit's counts, per thread, then added (and kept per tile
     * for the first LSD pass). */
    j.dg.shift = lo;
    j.dg.dmask = radix - 1;
    pp_cpu_sort_range_starts(&j, nt, start);
    j.start = start;
    if (counting) {
        j.dst = keys;
        pp_cpu_for_tiles(nt, 256, fill_run, &j);
        return PP_SUCCESS;
    }
    lsd_passes(&j, nt, npass, lo, width, start, keys, vals, sk, sv);
    return PP_SUCCESS;
}

pp_status pp_cpu_sort(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 0); }
pp_status pp_cpu_sort_sequential(pp_context *ctx, const pp_sort_args *a) { return cpu_sort(ctx, a, 1); }

/* pp_argsort (core/argsort.c): the index sequence, tiles of SORT_TILE_MIN
 * on the threads, then the sort. */
typedef struct iota_job {
    void *out;
    size_t n;
    int wide; /* PP_U64 */
} iota_job;

static void iota_tile(const void *job, size_t t, int thread)
{
    const iota_job *j = (const iota_job *)job;
    const size_t b = t * SORT_TILE_MIN, e = b + pp_cpu_tile_len(j->n, SORT_TILE_MIN, t);
    (void)thread;
    if (j->wide)
        for (size_t i = b; i < e; i++) ((uint64_t *)j->out)[i] = i;
    else
        for (size_t i = b; i < e; i++) ((uint32_t *)j->out)[i] = (uint32_t)i;
}

static pp_status cpu_iota(pp_context *ctx, const char *fn, pp_type index_type, void *out, size_t n)
{
    (void)fn;
    const iota_job j = {out, n, index_type == PP_U64};
    pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SORT / 2), (n + SORT_TILE_MIN - 1) / SORT_TILE_MIN,
                     iota_tile, &j);
    return PP_SUCCESS;
}

pp_status pp_cpu_argsort(pp_context *ctx, const pp_argsort_args *a) { return pp_argsort_by_sort(ctx, a, cpu_iota); }
