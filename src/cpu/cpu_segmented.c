/* cpu segmented reduce and scan (pp_segmented_reduce, pp_segmented_scan).
 *
 * The offsets are checked first, all of them, before anything is written
 * (pp_cpu_check_offsets, which the segmented sort shares).
 * Then the element range is cut into fixed chunks of PP_RB elements, which
 * also cut the segments into pieces; each piece is folded or scanned with
 * pp_reduce's and pp_scan's own kernels (pp_cpu_fold_scan_of):
 *   1. per chunk (in parallel): the piece of the segment that runs into the
 *      chunk from before it is folded (part), and, for the scan, the first
 *      piece of that segment too where it starts in the chunk just before
 *      (head);
 *   2. scan only, one thread: each running segment's prefix at each chunk
 *      it runs into, from the heads and parts, left to right;
 *   3. in parallel, tasks of SEG_GROUP segments, each segment's first piece
 *      (reduce: folded, then the parts of the chunks it runs into combined
 *      left to right; scan: scanned from the identity), and (scan) tasks of
 *      one chunk, the piece running into it scanned from its prefix.
 * So a long segment is spread over the threads chunk by chunk, and many
 * short ones group by group. The pieces and the order of their combination
 * depend on the offsets alone, so float results do not change with the
 * thread count. In place (scan), every read of phase 1 ends before phase
 * 3 writes, and in phase 3 each task reads only what it writes.
 */
#include "cpu_tiles.h"

#include <inttypes.h>

#define SEG_CHUNK PP_RB
#define SEG_GROUP 256 /* segments per task of phase 3 */

typedef struct seg_job {
    pp_cpu_fold_scan k;
    const char *in;
    char *out;
    const uint64_t *off;
    size_t nseg;
    int scan, excl;
    size_t nchunks;
    size_t *open;     /* per chunk: the segment running into it from before, or nseg */
    uint64_t *part;   /* per chunk: the fold of that segment's piece in it */
    uint64_t *prefix; /* scan, per chunk: head (phase 1), then the segment's prefix there */
} seg_job;

size_t pp_cpu_first_offset_at(const uint64_t *off, size_t nseg, uint64_t x)
{
    size_t lo = 0, hi = nseg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (off[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Phase 1 for chunk c + 1 (chunk 0 has no segment running into it). */
static void seg_chunk_fold(const void *job_, size_t t, int thread)
{
    (void)thread;
    const seg_job *j = (const seg_job *)job_;
    const size_t c = t + 1, sz = j->k.size;
    const uint64_t b = (uint64_t)c * SEG_CHUNK;
    const size_t s1 = pp_cpu_first_offset_at(j->off, j->nseg, b);
    j->open[c] = j->nseg;
    if (s1 == 0 || j->off[s1] <= b) return; /* no segment s1 - 1 open across b */
    const size_t s = s1 - 1;
    const uint64_t e = min_u64(j->off[s + 1], b + SEG_CHUNK);
    j->open[c] = s;
    j->part[c] = j->k.fold(j->in + b * sz, (size_t)(e - b));
    if (j->scan && j->off[s] >= b - SEG_CHUNK)
        j->prefix[c] = j->k.fold(j->in + j->off[s] * sz, (size_t)(b - j->off[s]));
}

/* Phase 3: tasks [0, ngroups) are groups of segments, the rest (scan) the
 * chunks 1, 2, ... */
static void seg_finish(const void *job_, size_t t, int thread)
{
    (void)thread;
    const seg_job *j = (const seg_job *)job_;
    const size_t sz = j->k.size, ngroups = (j->nseg + SEG_GROUP - 1) / SEG_GROUP;
    if (t >= ngroups) {
        const size_t c = t - ngroups + 1, s = j->open[c];
        if (s == j->nseg) return;
        const uint64_t b = (uint64_t)c * SEG_CHUNK, e = min_u64(j->off[s + 1], b + SEG_CHUNK);
        j->k.scan(j->in + b * sz, j->out + b * sz, (size_t)(e - b), j->prefix[c], j->excl);
        return;
    }
    const size_t s_end = t * SEG_GROUP + SEG_GROUP < j->nseg ? t * SEG_GROUP + SEG_GROUP : j->nseg;
    for (size_t s = t * SEG_GROUP; s < s_end; s++) {
        const uint64_t b = j->off[s], e = j->off[s + 1];
        const uint64_t c0 = b / SEG_CHUNK, pe = min_u64(e, (c0 + 1) * SEG_CHUNK);
        if (j->scan) {
            if (b == e) continue;
            j->k.scan(j->in + b * sz, j->out + b * sz, (size_t)(pe - b), j->k.identity, j->excl);
            if (j->excl) j->k.public_identity(j->out + b * sz);
        } else if (b == e) {
            j->k.public_identity(j->out + s * sz);
        } else {
            uint64_t r = j->k.fold(j->in + b * sz, (size_t)(pe - b));
            for (uint64_t c = c0 + 1; c * SEG_CHUNK < e; c++) r = j->k.combine(r, j->part[c]);
            memcpy(j->out + s * sz, &r, sz);
        }
    }
}

pp_status pp_cpu_check_offsets(pp_context *ctx, const char *fn, const uint64_t *off, size_t nseg, size_t n)
{
    size_t bad = SIZE_MAX;
    const int nt = pp_cpu_threads_for(ctx, nseg, (size_t)1 << 16);
#pragma omp parallel for num_threads(nt) reduction(min : bad) schedule(static)
    for (size_t s = 0; s < nseg; s++)
        if (off[s] > off[s + 1] && s < bad) bad = s;
    if (bad != SIZE_MAX)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT,
                       "%s: offsets must not decrease: offsets[%zu] = %" PRIu64 " > offsets[%zu] = %" PRIu64, fn,
                       bad, off[bad], bad + 1, off[bad + 1]);
    if (off[nseg] > n)
        return pp_fail(ctx, PP_ERROR_INVALID_ARGUMENT, "%s: offsets[%zu] = %" PRIu64 " is past n = %zu", fn, nseg,
                       off[nseg], n);
    return PP_SUCCESS;
}

/* The segmented reduce or scan on valid offsets. */
static pp_status cpu_segmented(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const size_t n = a->n, nseg = a->nseg, nchunks = (n + SEG_CHUNK - 1) / SEG_CHUNK;
    const size_t sz = pp_type_size(a->type);
    seg_job j = {pp_cpu_fold_scan_of(a->type, a->op, (scan ? n : nseg) * sz),
                 (const char *)a->in, (char *)a->out, a->offsets, nseg, scan, a->kind == PP_EXCLUSIVE,
                 nchunks, NULL, NULL, NULL};
    if (nchunks > 1) {
        const size_t words = nchunks * (scan ? 3 : 2);
        uint64_t *w = (uint64_t *)pp_cpu_scratch(ctx, words * sizeof(uint64_t), a->fn);
        if (!w) return PP_ERROR_OUT_OF_MEMORY;
        j.open = (size_t *)(void *)w;
        j.part = w + nchunks;
        j.prefix = scan ? w + 2 * nchunks : NULL;
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, (size_t)1 << 15), nchunks - 1, seg_chunk_fold, &j);
        j.open[0] = nseg;
        if (scan) /* phase 2 */
            for (size_t c = 2; c < nchunks; c++) {
                const size_t s = j.open[c];
                if (s != nseg && j.off[s] < (uint64_t)(c - 1) * SEG_CHUNK)
                    j.prefix[c] = j.k.combine(j.prefix[c - 1], j.part[c - 1]);
            }
    }
    const size_t ngroups = (nseg + SEG_GROUP - 1) / SEG_GROUP;
    const size_t tasks = ngroups + (scan && nchunks > 1 ? nchunks - 1 : 0);
    pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n + nseg, (size_t)1 << 15), tasks, seg_finish, &j);
    return PP_SUCCESS;
}

pp_status pp_cpu_segmented_reduce_trusted(pp_context *ctx, const pp_segmented_args *a)
{
    return cpu_segmented(ctx, a, 0);
}

pp_status pp_cpu_segmented_scan_trusted(pp_context *ctx, const pp_segmented_args *a)
{
    return cpu_segmented(ctx, a, 1);
}

pp_status pp_cpu_segmented_reduce(pp_context *ctx, const pp_segmented_args *a)
{
    pp_status st = pp_cpu_check_offsets(ctx, a->fn, a->offsets, a->nseg, a->n);
    return st == PP_SUCCESS ? cpu_segmented(ctx, a, 0) : st;
}

pp_status pp_cpu_segmented_scan(pp_context *ctx, const pp_segmented_args *a)
{
    pp_status st = pp_cpu_check_offsets(ctx, a->fn, a->offsets, a->nseg, a->n);
    return st == PP_SUCCESS ? cpu_segmented(ctx, a, 1) : st;
}
