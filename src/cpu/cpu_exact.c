/* cpu PP_ALGO_EXACT: f32 and f64 sums correctly rounded (docs/exact.md), and the f16 and bf16
 * sums of the half slots (cpu_half.c, the f32 accumulator); every other type and
 * operator is the default's. Reduce: threads claim blocks of PP_RB and fold
 * them into an exact accumulator each (src/core/exact_acc.h); the
 * accumulators are added (exact integer addition, in thread order, though
 * any order gives the same integer) and rounded once, or (pp_cpu_exact_sum,
 * the exact_sum slot) handed to the core as they are. Scan: the tiles of
 * the default scan, whose values are exact accumulators of PP_XACC_*_WORDS
 * words passed along the same look-back chain; each tile is scanned from
 * its exact prefix (cpu_exact.inc). In place, a tile is first copied to
 * the thread's working memory: an uncertain output refolds the input
 * since the last exact point. */

#include "cpu_internal.h"
#include "cpu_tiles.h"

#include <omp.h>
#include <string.h>

#include "exact_acc.h"
#include "cpu_exact.inc"

typedef pp_cpu_xformat xformat;

static const xformat xformats[4] = {
    {sizeof(float), PP_XACC_F32_WORDS, xfold_f32, xscan_f32, xresult_f32},
    {sizeof(double), PP_XACC_F64_WORDS, xfold_f64, xscan_f64, xresult_f64},
    {sizeof(uint16_t), PP_XACC_F32_WORDS, xfold_f16, xscan_f16, xresult_f16},
    {sizeof(uint16_t), PP_XACC_F32_WORDS, xfold_bf16, xscan_bf16, xresult_bf16},
};

/* The format of an exact sum, or NULL where EXACT is the default algorithm. */
const pp_cpu_xformat *pp_cpu_xformat_of(pp_type type, pp_op op)
{
    if (op != PP_SUM) return NULL;
    switch (type) {
    case PP_F32: return &xformats[0];
    case PP_F64: return &xformats[1];
    case PP_F16: return &xformats[2];
    case PP_BF16: return &xformats[3];
    default: return NULL;
    }
}

size_t pp_cpu_xstride(const pp_cpu_xformat *f) { return (f->words + 7) / 8 * 8; }

typedef struct xreduce_job {
    const xformat *f;
    const char *in;
    size_t n;
    int64_t *acc; /* one per thread, xstride words apart */
} xreduce_job;

static void xreduce_block(const void *job_, size_t b, int thread)
{
    const xreduce_job *j = (const xreduce_job *)job_;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    j->f->fold(j->acc + (size_t)thread * pp_cpu_xstride(j->f), j->in + lo * j->f->size, hi - lo);
}

/* The exact sum of a->in[0 .. a->n) (n > 0), normalized, in the context's
 * scratch (NULL: out of memory, the message set): the fold that the
 * reduce rounds and the exact_sum slot hands to the core. */
static const int64_t *xreduce_acc(pp_context *ctx, const xformat *f, const pp_reduce_args *a)
{
    const size_t n = a->n, nb = (n + PP_RB - 1) / PP_RB, stride = pp_cpu_xstride(f);
    const int nt = pp_cpu_threads_for(ctx, n, (size_t)1 << 15);
    int64_t *acc = (int64_t *)pp_cpu_scratch(ctx, (size_t)nt * stride * sizeof(int64_t), a->fn);
    if (!acc) return NULL;
    const int nc = (int)f->words - 2;
    for (int t = 0; t < nt; t++) pp_xacc_clear(acc + (size_t)t * stride, nc);
    xreduce_job j = {f, (const char *)a->in, n, acc};
    const int used = pp_cpu_for_tiles(nt, nb, xreduce_block, &j);
    pp_xacc_normalize(acc, nc);
    for (int t = 1; t < used; t++) {
        pp_xacc_normalize(acc + (size_t)t * stride, nc);
        pp_xacc_merge(acc, acc + (size_t)t * stride, nc);
    }
    return acc;
}

pp_status pp_cpu_reduce_exact(pp_context *ctx, const pp_reduce_args *a)
{
    const xformat *f = pp_cpu_xformat_of(a->type, a->op);
    if (!f || a->n == 0) return pp_cpu_reduce(ctx, a);
    const int64_t *acc = xreduce_acc(ctx, f, a);
    if (!acc) return PP_ERROR_OUT_OF_MEMORY;
    f->result(acc, a->out);
    return PP_SUCCESS;
}

pp_status pp_cpu_exact_sum(pp_context *ctx, const pp_reduce_args *a, int64_t *acc)
{
    const xformat *f = pp_cpu_xformat_of(a->type, a->op);
    const int64_t *w = xreduce_acc(ctx, f, a);
    if (!w) return PP_ERROR_OUT_OF_MEMORY;
    memcpy(acc, w, f->words * sizeof *w);
    return PP_SUCCESS;
}

typedef struct xscan_job {
    const xformat *f;
    const char *in;
    char *out;
    size_t n;
    int exclusive;
    char *copies; /* in place: PP_ST elements per thread */
} xscan_job;

static void xscan_value(const void *job, size_t t, uint64_t *value)
{
    const xscan_job *j = (const xscan_job *)job;
    int64_t *w = (int64_t *)value;
    const int nc = (int)j->f->words - 2;
    pp_xacc_clear(w, nc);
    j->f->fold(w, j->in + t * PP_ST * j->f->size, pp_cpu_tile_len(j->n, PP_ST, t));
    pp_xacc_normalize(w, nc);
}

static void xscan_combine(const void *job, uint64_t *acc, const uint64_t *b)
{
    const xscan_job *j = (const xscan_job *)job;
    pp_xacc_merge((int64_t *)acc, (const int64_t *)b, (int)j->f->words - 2);
}

static void xscan_body(const void *job, size_t t, const uint64_t *prefix, const uint64_t *value)
{
    (void)value;
    const xscan_job *j = (const xscan_job *)job;
    const size_t sz = j->f->size, off = t * PP_ST * sz, len = pp_cpu_tile_len(j->n, PP_ST, t);
    const char *x = j->in + off;
    if (j->copies) {
        char *copy = j->copies + (size_t)omp_get_thread_num() * PP_ST * sz;
        memcpy(copy, x, len * sz);
        x = copy;
    }
    j->f->scan((const int64_t *)prefix, x, j->out + off, len, j->exclusive);
}

pp_status pp_cpu_scan_exact(pp_context *ctx, const pp_scan_args *a)
{
    const xformat *f = pp_cpu_xformat_of(a->type, a->op);
    if (!f) return pp_cpu_scan(ctx, a);
    const size_t n = a->n, ntiles = (n + PP_ST - 1) / PP_ST;
    const int nt = pp_cpu_threads_for(ctx, n, 2 * PP_ST);
    const int inplace = a->in == a->out;
    const size_t chain = (pp_cpu_chain_scratch_bytes(ntiles, f->words) + 63) / 64 * 64;
    const size_t copies = inplace ? (size_t)nt * PP_ST * f->size : 0;
    char *scratch = (char *)pp_cpu_scratch(ctx, chain + copies, a->fn);
    if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    xscan_job j = {f, (const char *)a->in, (char *)a->out, n, a->kind == PP_EXCLUSIVE, inplace ? scratch + chain : NULL};
    /* the chain starts from the exact sum of nothing, or of pp_scan_init's
     * initial value (then the bits of an exclusive out[0]) */
    int64_t id[PP_XACC_F64_WORDS] = {0};
    if (a->init) {
        f->fold(id, a->init, 1);
        pp_xacc_normalize(id, (int)f->words - 2);
    }
    pp_cpu_chain_spec spec = {ntiles, f->words, (const uint64_t *)id, xscan_value, xscan_combine, xscan_body, &j, NULL};
    pp_cpu_chain(&spec, nt, scratch, NULL);
    if (j.exclusive) { /* +0.0, or the initial value */
        if (a->init) memcpy(a->out, a->init, f->size);
        else memset(a->out, 0, f->size);
    }
    return PP_SUCCESS;
}
