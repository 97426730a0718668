/* cpu PP_ALGO_EXACT for pp_segmented_reduce and pp_segmented_scan: f32 and
 * f64 sums exact per segment, so each segment's results are bit for bit
 * those of the exact pp_reduce and pp_scan of its elements (docs/exact.md);
 * every other type and operator runs the default (cpu_segmented.c).
 *
 * The offsets are checked first, as by the default. Then the elements are
 * cut into chunks of XSEG_CHUNK, which cut the segments into pieces, each
 * folded into an exact accumulator or scanned from one with the exact
 * reduce's and scan's kernels (cpu_exact.c, pp_cpu_xformat_of):
 *   1. per chunk c but the last (in parallel): the piece in c of the
 *      segment that runs on past c's end is folded: acc[c];
 *   2. one thread, left to right: where that segment also ran into c from
 *      before, acc[c] += acc[c - 1], so that acc[c] is the segment's exact
 *      sum up to the end of chunk c;
 *   3. in parallel, tasks of XSEG_GROUP segments (reduce: the piece in the
 *      segment's last chunk folded, acc of the chunk before added, rounded
 *      once; scan: the segment's first piece scanned from zero) and (scan)
 *      tasks of one chunk (the piece of the segment running into it scanned
 *      from acc of the chunk before).
 * A long segment is spread over the threads chunk by chunk, short ones
 * group by group. The accumulators are integers, so the result depends on
 * the elements alone, not on the pieces nor on the order of the merges.
 * In place (scan), every read of step 1 ends before step 3 writes; in step
 * 3 each task reads only the piece it writes, copied first to the thread's
 * working memory (an uncertain output refolds inputs already passed). */
#include "cpu_internal.h"
#include "cpu_tiles.h"

#include "exact_acc.h"

#define XSEG_CHUNK PP_RB
#define XSEG_GROUP 256 /* segments per task of step 3 */

typedef struct xseg_job {
    const pp_cpu_xformat *f;
    size_t stride; /* words between accumulators */
    const char *in;
    char *out;
    const uint64_t *off;
    size_t nseg, nchunks;
    int scan, excl;
    size_t *open; /* per chunk: the segment running on past its end, or nseg */
    int64_t *acc; /* per chunk: that segment's exact sum (steps 1, 2) */
    char *copies; /* in-place scan: XSEG_CHUNK elements per thread */
} xseg_job;

static int64_t *acc_at(const xseg_job *j, size_t c) { return j->acc + c * j->stride; }

/* Step 1 for chunk c < nchunks - 1. */
static void xseg_tail(const void *job_, size_t c, int thread)
{
    (void)thread;
    const xseg_job *j = (const xseg_job *)job_;
    const uint64_t b = (uint64_t)c * XSEG_CHUNK, e = b + XSEG_CHUNK;
    const size_t s1 = pp_cpu_first_offset_at(j->off, j->nseg, e);
    j->open[c] = j->nseg;
    if (s1 == 0 || j->off[s1] <= e) return; /* no segment s1 - 1 open across e */
    const size_t s = s1 - 1;
    const uint64_t pb = j->off[s] > b ? j->off[s] : b; /* off[s] < e */
    int64_t *w = acc_at(j, c);
    const int nc = (int)j->f->words - 2;
    j->open[c] = s;
    pp_xacc_clear(w, nc);
    j->f->fold(w, j->in + pb * j->f->size, (size_t)(e - pb));
    pp_xacc_normalize(w, nc);
}

/* y[0..len) = the exact scan of x[0..len) from prefix; in place through a
 * copy of x in the thread's working memory. */
static void xseg_scan_piece(const xseg_job *j, const int64_t *prefix, uint64_t at, size_t len, int thread)
{
    const size_t sz = j->f->size;
    const char *x = j->in + at * sz;
    if (j->copies) {
        char *copy = j->copies + (size_t)thread * XSEG_CHUNK * sz;
        memcpy(copy, x, len * sz);
        x = copy;
    }
    j->f->scan(prefix, x, j->out + at * sz, len, j->excl);
}

/* The exact sum of segment s rounded into out[s] (an empty one: +0.0). */
static void xseg_reduce_one(const xseg_job *j, size_t s)
{
    const size_t sz = j->f->size;
    const uint64_t b = j->off[s], e = j->off[s + 1];
    if (b == e) {
        memset(j->out + s * sz, 0, sz); /* +0.0, as pp_reduce of n == 0 */
        return;
    }
    const uint64_t last = (e - 1) / XSEG_CHUNK, pb = b > last * XSEG_CHUNK ? b : last * XSEG_CHUNK;
    const int nc = (int)j->f->words - 2;
    int64_t w[PP_XACC_F64_WORDS];
    pp_xacc_clear(w, nc);
    j->f->fold(w, j->in + pb * sz, (size_t)(e - pb));
    if (pb > b) pp_xacc_merge(w, acc_at(j, (size_t)last - 1), nc); /* the sum before chunk `last` */
    j->f->result(w, j->out + s * sz);
}

/* Step 3: tasks [0, ngroups) are groups of segments, the rest (scan) the
 * chunks 1, 2, ... */
static void xseg_finish(const void *job_, size_t t, int thread)
{
    static const int64_t zero[PP_XACC_F64_WORDS];
    const xseg_job *j = (const xseg_job *)job_;
    const size_t sz = j->f->size, ngroups = (j->nseg + XSEG_GROUP - 1) / XSEG_GROUP;
    if (t >= ngroups) {
        const size_t c = t - ngroups + 1, s = j->open[c - 1];
        if (s == j->nseg) return;
        const uint64_t b = (uint64_t)c * XSEG_CHUNK,
                       e = j->off[s + 1] < b + XSEG_CHUNK ? j->off[s + 1] : b + XSEG_CHUNK;
        xseg_scan_piece(j, acc_at(j, c - 1), b, (size_t)(e - b), thread);
        return;
    }
    const size_t s_end = t * XSEG_GROUP + XSEG_GROUP < j->nseg ? t * XSEG_GROUP + XSEG_GROUP : j->nseg;
    for (size_t s = t * XSEG_GROUP; s < s_end; s++) {
        if (!j->scan) {
            xseg_reduce_one(j, s);
            continue;
        }
        const uint64_t b = j->off[s], e = j->off[s + 1], ce = (b / XSEG_CHUNK + 1) * XSEG_CHUNK;
        if (b == e) continue;
        xseg_scan_piece(j, zero, b, (size_t)((e < ce ? e : ce) - b), thread);
        if (j->excl) memset(j->out + b * sz, 0, sz); /* +0.0, as the exact pp_scan's out[0] */
    }
}

pp_status pp_cpu_segmented_exact_run(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    const pp_cpu_xformat *f = pp_cpu_xformat_of(a->type, a->op);
    const size_t n = a->n, nseg = a->nseg, nchunks = (n + XSEG_CHUNK - 1) / XSEG_CHUNK;
    const size_t stride = pp_cpu_xstride(f), ngroups = (nseg + XSEG_GROUP - 1) / XSEG_GROUP;
    const int nt = pp_cpu_threads_for(ctx, n + nseg, (size_t)1 << 15);
    const int inplace = scan && n && a->in == a->out;
    /* accumulators first (64-byte lines), then open, then the copies */
    const size_t acc_bytes = nchunks * stride * sizeof(int64_t);
    const size_t open_bytes = (nchunks * sizeof(size_t) + 63) / 64 * 64;
    const size_t copy_bytes = inplace ? (size_t)nt * XSEG_CHUNK * f->size : 0;
    char *scratch = NULL;
    if (acc_bytes + open_bytes + copy_bytes) {
        scratch = (char *)pp_cpu_scratch(ctx, acc_bytes + open_bytes + copy_bytes, a->fn);
        if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    }
    xseg_job j = {.f = f,
                  .stride = stride,
                  .in = (const char *)a->in,
                  .out = (char *)a->out,
                  .off = a->offsets,
                  .nseg = nseg,
                  .nchunks = nchunks,
                  .scan = scan,
                  .excl = a->kind == PP_EXCLUSIVE,
                  .open = (size_t *)(void *)(scratch + acc_bytes),
                  .acc = (int64_t *)(void *)scratch,
                  .copies = inplace ? scratch + acc_bytes + open_bytes : NULL};
    if (nchunks > 1) {
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, (size_t)1 << 15), nchunks - 1, xseg_tail, &j);
        const int nc = (int)f->words - 2;
        for (size_t c = 1; c + 1 < nchunks; c++) /* step 2 */
            if (j.open[c] != nseg && j.open[c - 1] == j.open[c]) pp_xacc_merge(acc_at(&j, c), acc_at(&j, c - 1), nc);
    }
    const size_t tasks = ngroups + (scan && nchunks > 1 ? nchunks - 1 : 0);
    pp_cpu_for_tiles(nt, tasks, xseg_finish, &j);
    return PP_SUCCESS;
}

/* The table's slots: exact sums here, the rest to the default. */
static pp_status xseg_entry(pp_context *ctx, const pp_segmented_args *a, int scan)
{
    if (!pp_cpu_xformat_of(a->type, a->op))
        return scan ? pp_cpu_segmented_scan(ctx, a) : pp_cpu_segmented_reduce(ctx, a);
    const pp_status st = pp_cpu_check_offsets(ctx, a->fn, a->offsets, a->nseg, a->n);
    return st != PP_SUCCESS ? st : pp_cpu_segmented_exact_run(ctx, a, scan);
}

pp_status pp_cpu_segmented_reduce_exact(pp_context *ctx, const pp_segmented_args *a) { return xseg_entry(ctx, a, 0); }
pp_status pp_cpu_segmented_scan_exact(pp_context *ctx, const pp_segmented_args *a) { return xseg_entry(ctx, a, 1); }
