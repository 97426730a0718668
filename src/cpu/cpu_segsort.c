/* cpu segmented sort (pp_segmented_sort, pp_segmented_sort_pairs).
 *
 * Every offset is checked first (pp_cpu_check_offsets), before anything is
 * written. Then the segments are cut into tasks of about equal work (keys,
 * plus SEG_COST per segment, so that runs of empty segments are spread
 * too) that the threads claim one at a time; each segment is sorted by
 * the kernels of pp_sort (cpu_sort.h), so with its radix keys, float rules
 * and stability:
 *   - tiny ones (SEG_INSERT keys at most) by insertion on the radix keys;
 *   - the others by the in-cache bucket kernel of the MSD split (LSD passes
 *     over the digits where its keys differ, top digits and a fix-up), in
 *     a buffer of the thread's own;
 *   - those large enough to keep every thread busy (1 / SEG_LARGE_SHARE of
 *     a thread's share of the work or more, SEG_LARGE_MIN keys at least;
 *     on one thread, every segment of SEG_LARGE_MIN keys) by the whole
 *     sort (pp_cpu_sort on the segment), one after another.
 * A first pass over the tasks finds the largest segment left to a thread
 * (the size of the buffers) and the large ones (at most one per task: a
 * large segment weighs more than a task). The result is the unique stable
 * order, whatever the thread count.
 */
#include "cpu_sort.h"

#include <stdlib.h>

#define SEG_INSERT 48
#define SEG_COST 16
#define SEG_TASKS_PER_THREAD 16
#define SEG_LARGE_MIN (2 * SORT_TILE_MIN)
#define SEG_LARGE_SHARE 2
/* the bucket kernel counts in 32 bits: segments of more keys are large */
#define SEG_BUCKET_MAX ((uint64_t)1 << 31)

typedef struct segsort_job {
    const sort_kernels *k;
    char *keys, *vals;
    size_t vsize;
    uint64_t mask;
    const uint64_t *off;
    size_t nseg;
    uint64_t weight; /* the work: keys + SEG_COST per segment */
    size_t ntasks;
    uint64_t large; /* segments of this many keys or more are large */
    size_t *plan; /* per task: the largest segment left to a thread, then the
                     large one (or SIZE_MAX) */
    char *tmp; /* the threads' buffers, tmpbytes each */
    size_t tmpbytes;
} segsort_job;

/* The work before segment s. */
static uint64_t seg_weight(const segsort_job *j, size_t s) { return j->off[s] - j->off[0] + (uint64_t)s * SEG_COST; }

/* Task t's first segment: the first whose work before it reaches the
 * task's part of the whole (seg_weight grows strictly with s); task
 * ntasks: nseg. Task t holds [task_first(t), task_first(t + 1)). */
static size_t task_first(const segsort_job *j, size_t t)
{
    if (t == j->ntasks) return j->nseg;
    const uint64_t q = j->weight / j->ntasks, r = j->weight % j->ntasks;
    const uint64_t at = q * t + (t < r ? t : r);
    size_t lo = 0, hi = j->nseg;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (seg_weight(j, mid) < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void plan_task(const void *job, size_t t, int thread)
{
    (void)thread;
    const segsort_job *j = (const segsort_job *)job;
    size_t most = 0, large = SIZE_MAX;
    for (size_t s = task_first(j, t), s1 = task_first(j, t + 1); s < s1; s++) {
        const uint64_t m = j->off[s + 1] - j->off[s];
        if (m >= j->large)
            large = s;
        else if (m > most)
            most = (size_t)m;
    }
    j->plan[2 * t] = most;
    j->plan[2 * t + 1] = large;
}

static void sort_task(const void *job, size_t t, int thread)
{
    const segsort_job *j = (const segsort_job *)job;
    const sort_kernels *k = j->k;
    char *tmp = j->tmp + (size_t)thread * j->tmpbytes;
    const unsigned bits = 8 * (unsigned)k->size;
    for (size_t s = task_first(j, t), s1 = task_first(j, t + 1); s < s1; s++) {
        const size_t b = (size_t)j->off[s], e = (size_t)j->off[s + 1];
        if (e - b < 2 || e - b >= j->large) continue;
        if (e - b <= SEG_INSERT)
            k->insert(j->keys, j->vals, j->vsize, b, e, j->mask);
        else
            k->bucket(j->keys, j->keys, j->vals, j->vals, j->vsize, b, e, j->mask, 0, bits, 0, tmp);
    }
}

static pp_status cpu_segsort(pp_context *ctx, const pp_segsort_args *a, int sequential)
{
    const char *fn = a->fn;
    pp_status st = pp_cpu_check_offsets(ctx, fn, a->offsets, a->nseg, a->n);
    if (st != PP_SUCCESS) return st;
    segsort_job j;
    memset(&j, 0, sizeof j);
    j.k = pp_cpu_sort_kernels(a->type, a->order);
    j.keys = (char *)a->keys;
    j.vals = (char *)a->values;
    j.vsize = a->values ? a->value_size : 0;
    j.mask = pp_cpu_sort_mask(a->order);
    j.off = a->offsets;
    j.nseg = a->nseg;
    j.weight = seg_weight(&j, a->nseg);
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, j.weight, SORT_TILE_MIN);
    /* one thread: the whole sort (its MSD split) from SEG_LARGE_MIN keys */
    j.large = nt > 1 ? j.weight / ((uint64_t)nt * SEG_LARGE_SHARE) : 0;
    if (j.large < SEG_LARGE_MIN) j.large = SEG_LARGE_MIN;
    if (j.large > SEG_BUCKET_MAX) j.large = SEG_BUCKET_MAX;
    /* enough tasks that a large segment weighs more than one */
    j.ntasks = (size_t)nt * SEG_TASKS_PER_THREAD;
    if (j.ntasks < j.weight / (j.large / 2) + 1) j.ntasks = (size_t)(j.weight / (j.large / 2) + 1);
    /* the plan is the caller's memory (the parallel sort reuses the scratch) */
    j.plan = (size_t *)malloc(2 * j.ntasks * sizeof *j.plan);
    if (!j.plan) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: no memory for %zu tasks", fn, j.ntasks);
    pp_cpu_for_tiles(nt, j.ntasks, plan_task, &j);
    size_t most = 0;
    for (size_t t = 0; t < j.ntasks; t++)
        if (j.plan[2 * t] > most) most = j.plan[2 * t];

    /* The segments of the threads: buffers for the bucket kernel (its two
   * of keys and values, in lines). */
    if (most > SEG_INSERT) {
        j.tmpbytes = 2 * ((most * j.k->size + 63) / 64 * 64 + (most * j.vsize + 63) / 64 * 64);
        j.tmp = (char *)pp_cpu_scratch(ctx, (size_t)nt * j.tmpbytes, fn);
        if (!j.tmp) {
            free(j.plan);
            return PP_ERROR_OUT_OF_MEMORY;
        }
    }
    if (most > 1) pp_cpu_for_tiles(nt, j.ntasks, sort_task, &j);

    /* The large ones, each by the whole sort. */
    const size_t ks = j.k->size;
    for (size_t t = 0; t < j.ntasks && st == PP_SUCCESS; t++) {
        const size_t s = j.plan[2 * t + 1];
        if (s == SIZE_MAX) continue;
        const size_t b = (size_t)j.off[s];
        char *kp = j.keys + b * ks, *vp = j.vals ? j.vals + b * j.vsize : NULL;
        const pp_sort_args sa = {fn, a->type, kp, vp, j.vsize, (size_t)(j.off[s + 1] - b), a->order, kp, vp};
        st = sequential ? pp_cpu_sort_sequential(ctx, &sa) : pp_cpu_sort(ctx, &sa);
    }
    free(j.plan);
    return st;
}

pp_status pp_cpu_segmented_sort(pp_context *ctx, const pp_segsort_args *a) { return cpu_segsort(ctx, a, 0); }
pp_status pp_cpu_segmented_sort_sequential(pp_context *ctx, const pp_segsort_args *a) { return cpu_segsort(ctx, a, 1); }
