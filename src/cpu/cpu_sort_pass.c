/* cpu sort: one pass over the tiles of a job's range (cpu_sort.h), the
 * building block of the LSD passes and of the MSD split: one region in
 * which a thread claims a tile, counts its digits (or sums the counts that
 * the sweep before left per tile), takes the counts of every earlier tile
 * from the look-back of cpu_tiles.h and scatters the tile in order from
 * there (docs/backends.md, "sort"). */
#include "cpu_sort.h"

#include <omp.h>

/* A tile of the counting sweep (range_starts): its digits counted into
 * the thread's row of j->hist, and kept per tile in j->tc where set. */
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

/* The look-back's value of tile t: its digit counts. */
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

/* Tile t's scatter, its digits' first places from the counts of the tiles
 * before it; in LSD passes it counts the next pass's digit as it goes. */
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

/* (copy_range) */
static void copy_tile(const void *job, size_t t, int thread)
{
    (void)thread;
    const sort_job *j = (const sort_job *)job;
    size_t b, e;
    job_tile(j, t, &b, &e);
    memcpy(j->dst + b * j->k->size, j->src + b * j->k->size, (e - b) * j->k->size);
    if (j->vsrc) memcpy(j->vdst + b * j->vsize, j->vsrc + b * j->vsize, (e - b) * j->vsize);
}

/* (cpu_sort.h) */
void pp_cpu_sort_digit_starts(const size_t *hist, int nt, size_t radix, size_t *start)
{
    size_t run = 0;
    for (size_t d = 0; d < radix; d++) {
        size_t c = 0;
        for (int u = 0; u < nt; u++) c += hist[(size_t)u * RADIX_MAX + d];
        start[d] = run;
        run += c;
    }
}

/* (cpu_sort.h) */
void pp_cpu_sort_copy_range(sort_job *j, int nt, char *dst, char *vdst)
{
    j->dst = dst;
    j->vdst = vdst;
    pp_cpu_for_tiles(nt, (j->n + j->tile - 1) / j->tile, copy_tile, j);
}

/* (cpu_sort.h) */
void pp_cpu_sort_chain_pass(sort_job *j, int nt)
{
    static const uint64_t zero[RADIX_MAX];
    const size_t ntiles = (j->n + j->tile - 1) / j->tile;
    memset(j->hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
    pp_cpu_chain_spec spec = {ntiles, j->dg.dmask + 1, zero, pass_counts, add_counts, pass_scatter, j, NULL};
    pp_cpu_chain(&spec, nt, j->chain, NULL);
}

/* (cpu_sort.h) */
void pp_cpu_sort_range_starts(sort_job *j, int nt, size_t *start)
{
    const size_t ntiles = (j->n + j->tile - 1) / j->tile;
    memset(j->hist, 0, (size_t)nt * RADIX_MAX * sizeof(size_t));
    j->tc_stride = j->dg.dmask + 1;
    j->tc_group = 0;
    const int used = pp_cpu_for_tiles(nt, ntiles, count_tile, j);
    pp_cpu_sort_digit_starts(j->hist, used, j->dg.dmask + 1, start);
    for (size_t d = 0; d <= j->dg.dmask; d++) start[d] += j->base;
}
