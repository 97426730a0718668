/* cpu by-key forms: pp_reduce_by_key, pp_scan_by_key, pp_run_length_encode.
 *
 * Every one starts from the runs' offsets (pp_cpu_run_offsets): the keys
 * are cut into chunks of RUN_CHUNK, each chunk's heads (i == 0 or keys[i]
 * != keys[i - 1]) counted in parallel (pp_unique's count loop), the counts
 * scanned on one thread, and each chunk's head positions written from its
 * place (cpu_bykey.inc), so off[r] is where run r starts and off[nruns] =
 * n. The offsets live in a region of their own (pp_cpu_runs_scratch), so
 * that the segmented kernels that follow can use the scratch.
 *   reduce and scan: the segmented reduce or scan of the values on these
 *     offsets (cpu_segmented.c), so float results depend on the input
 *     alone, as the segmented forms' do; the reduce then gathers
 *     keys_out[r] = keys[off[r]] and writes the count.
 *   run-length encoding: values_out[r] = in[off[r]], counts_out[r] =
 *     off[r + 1] - off[r].
 * PP_ALGO_SEQUENTIAL: the same offsets found on one thread, then each run
 * folded or scanned by pp_reduce's and pp_scan's sequential loops.
 */
#include "cpu_tiles.h"

#define RUN_CHUNK ((size_t)1 << 16) /* keys per task of the head search */
#define HEAD_BUF 256                /* head positions buffered per write */

#define PP_CPU_TEMPLATE "cpu_bykey.inc"
#include "cpu_each_type.inc"

typedef void (*heads_fn)(const void *k, size_t b, size_t e, uint64_t *pos);
#define HEADS_ENTRY(E, T, S, K, U, W) [E] = write_heads_##S,
static const heads_fn heads_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(HEADS_ENTRY)};

typedef struct runs_job {
    pp_type type;
    const void *keys;
    size_t n;
    uint64_t *first; /* per chunk: its head count, then the index of its first head */
    uint64_t *off;
} runs_job;

static void runs_count(const void *job_, size_t t, int thread)
{
    (void)thread;
    const runs_job *j = (const runs_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, RUN_CHUNK, t, &b, &e);
    j->first[t] = pp_cpu_count_heads(j->type, j->keys, b, e);
}

static void runs_write(const void *job_, size_t t, int thread)
{
    (void)thread;
    const runs_job *j = (const runs_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, RUN_CHUNK, t, &b, &e);
    heads_table[j->type](j->keys, b, e, j->off + j->first[t]);
}

pp_status pp_cpu_run_offsets(pp_context *ctx, const pp_bykey_args *a, int nt, uint64_t **off, size_t *nruns)
{
    const size_t n = a->n, nchunks = (n + RUN_CHUNK - 1) / RUN_CHUNK;
    uint64_t *first = (uint64_t *)pp_cpu_scratch(ctx, nchunks * sizeof(uint64_t), a->fn);
    if (!first) return PP_ERROR_OUT_OF_MEMORY;
    runs_job j = {a->key_type, a->keys, n, first, NULL};
    pp_cpu_for_tiles(nt, nchunks, runs_count, &j);
    uint64_t total = 0;
    for (size_t c = 0; c < nchunks; c++) {
        const uint64_t k = first[c];
        first[c] = total;
        total += k;
    }
    j.off = (uint64_t *)pp_cpu_runs_scratch(ctx, ((size_t)total + 1) * sizeof(uint64_t), a->fn);
    if (!j.off) return PP_ERROR_OUT_OF_MEMORY;
    pp_cpu_for_tiles(nt, nchunks, runs_write, &j);
    j.off[total] = n;
    *off = j.off;
    *nruns = (size_t)total;
    return PP_SUCCESS;
}

/* dst[r] = src[off[r]] for r < nruns, elements of sz bytes, on nt threads. */
static void gather_heads(int nt, const void *src, size_t sz, const uint64_t *off, size_t nruns, void *dst)
{
#define GATHER_(UT)                                                                                                 \
    _Pragma("omp parallel for num_threads(nt) schedule(static)") for (size_t r = 0; r < nruns; r++)((UT *)dst)[r] = \
        ((const UT *)src)[off[r]];                                                                                  \
    break;
    switch (sz) {
    case 1:
        GATHER_(uint8_t)
    case 2:
        GATHER_(uint16_t)
    case 4:
        GATHER_(uint32_t)
    default:
        GATHER_(uint64_t)
    }
#undef GATHER_
}

/* The reduce's keys_out and count from the offsets. */
static void reduce_keys(int nt, const pp_bykey_args *a, const uint64_t *off, size_t nruns)
{
    gather_heads(nt, a->keys, pp_type_size(a->key_type), off, nruns, a->keys_out);
    *a->count = nruns;
}

pp_status pp_cpu_bykey_segmented(pp_context *ctx, const pp_bykey_args *a, pp_segmented_fn seg)
{
    uint64_t *off;
    size_t nruns;
    pp_status st = pp_cpu_run_offsets(ctx, a, pp_cpu_threads_for(ctx, a->n, (size_t)1 << 15), &off, &nruns);
    if (st != PP_SUCCESS) return st;
    const pp_segmented_args s = {a->fn, a->value_type, a->op, a->kind, a->values, a->values_out, a->n, off, nruns, NULL};
    st = seg(ctx, &s);
    if (st == PP_SUCCESS && a->mode == PP_BYKEY_REDUCE)
        reduce_keys(pp_cpu_threads_for(ctx, nruns, (size_t)1 << 16), a, off, nruns);
    return st;
}

pp_status pp_cpu_reduce_by_key(pp_context *ctx, const pp_bykey_args *a)
{
    return pp_cpu_bykey_segmented(ctx, a, pp_cpu_segmented_reduce_trusted);
}

pp_status pp_cpu_scan_by_key(pp_context *ctx, const pp_bykey_args *a)
{
    return pp_cpu_bykey_segmented(ctx, a, pp_cpu_segmented_scan_trusted);
}

/* The reduce or scan on one thread: each run through pp_reduce's or
 * pp_scan's sequential loop. */
static pp_status bykey_sequential(pp_context *ctx, const pp_bykey_args *a)
{
    uint64_t *off;
    size_t nruns;
    pp_status st = pp_cpu_run_offsets(ctx, a, 1, &off, &nruns);
    if (st != PP_SUCCESS) return st;
    const size_t vs = pp_type_size(a->value_type);
    const char *in = (const char *)a->values;
    char *out = (char *)a->values_out;
    for (size_t r = 0; r < nruns && st == PP_SUCCESS; r++) {
        const size_t b = (size_t)off[r], len = (size_t)(off[r + 1] - off[r]);
        if (a->mode == PP_BYKEY_REDUCE) {
            const pp_reduce_args ra = {a->fn, a->value_type, a->op, in + b * vs, len, out + r * vs};
            st = pp_cpu_reduce_sequential(ctx, &ra);
        } else {
            const pp_scan_args sa = {a->fn, a->value_type, a->op, a->kind, in + b * vs, out + b * vs, len, NULL};
            st = pp_cpu_scan_sequential(ctx, &sa);
        }
    }
    if (st == PP_SUCCESS && a->mode == PP_BYKEY_REDUCE) reduce_keys(1, a, off, nruns);
    return st;
}

pp_status pp_cpu_reduce_by_key_sequential(pp_context *ctx, const pp_bykey_args *a) { return bykey_sequential(ctx, a); }
pp_status pp_cpu_scan_by_key_sequential(pp_context *ctx, const pp_bykey_args *a) { return bykey_sequential(ctx, a); }

/* Run-length encoding on up to nt threads. */
static pp_status rle(pp_context *ctx, const pp_bykey_args *a, int nt)
{
    uint64_t *off;
    size_t nruns;
    pp_status st = pp_cpu_run_offsets(ctx, a, nt, &off, &nruns);
    if (st != PP_SUCCESS) return st;
    const int ntw = nt > 1 ? pp_cpu_threads_for(ctx, nruns, (size_t)1 << 16) : 1;
    gather_heads(ntw, a->keys, pp_type_size(a->key_type), off, nruns, a->keys_out);
    uint64_t *counts = a->counts_out;
#pragma omp parallel for num_threads(ntw) schedule(static)
    for (size_t r = 0; r < nruns; r++) counts[r] = off[r + 1] - off[r];
    *a->count = nruns;
    return PP_SUCCESS;
}

pp_status pp_cpu_run_length_encode(pp_context *ctx, const pp_bykey_args *a)
{
    return rle(ctx, a, pp_cpu_threads_for(ctx, a->n, (size_t)1 << 15));
}

pp_status pp_cpu_run_length_encode_sequential(pp_context *ctx, const pp_bykey_args *a) { return rle(ctx, a, 1); }

/* The exact segmented forms on the runs' offsets, which need no check (the
 * core hands the exact slots f32 and f64 sums alone). */
static pp_status exact_reduce_runs(pp_context *ctx, const pp_segmented_args *a)
{
    return pp_cpu_segmented_exact_run(ctx, a, 0);
}

static pp_status exact_scan_runs(pp_context *ctx, const pp_segmented_args *a)
{
    return pp_cpu_segmented_exact_run(ctx, a, 1);
}

pp_status pp_cpu_reduce_by_key_exact(pp_context *ctx, const pp_bykey_args *a)
{
    return pp_cpu_bykey_segmented(ctx, a, exact_reduce_runs);
}

pp_status pp_cpu_scan_by_key_exact(pp_context *ctx, const pp_bykey_args *a)
{
    return pp_cpu_bykey_segmented(ctx, a, exact_scan_runs);
}
