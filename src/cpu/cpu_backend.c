/* The cpu backend's table: contexts, memory and scratch. The primitives
 * live in cpu_reduce_scan.c, cpu_histogram.c, cpu_select.c, cpu_sort.c,
 * cpu_segmented.c, cpu_bykey.c and cpu_search.c. */
#define _DEFAULT_SOURCE /* sysconf's _SC_PHYS_PAGES and _SC_AVPHYS_PAGES (glibc) */
#include "cpu_internal.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PP_CPU_ALIGN 64

static void *aligned_bytes(size_t bytes)
{
    size_t rounded = (bytes + PP_CPU_ALIGN - 1) / PP_CPU_ALIGN * PP_CPU_ALIGN;
    if (rounded < bytes) return NULL;
    return aligned_alloc(PP_CPU_ALIGN, rounded);
}

static pp_status cpu_probe(void) { return PP_SUCCESS; }

static pp_status cpu_create(pp_context *ctx, const pp_options *opt)
{
    pp_cpu_state *st = (pp_cpu_state *)calloc(1, sizeof *st);
    if (!st) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_create: out of host memory");
    ctx->impl = st;
    ctx->threads = opt->threads > 0 ? opt->threads : omp_get_max_threads();
    if (ctx->threads < 1) ctx->threads = 1;
    snprintf(ctx->device_name, sizeof ctx->device_name, "CPU, %d OpenMP thread%s (%d cores available)",
             ctx->threads, ctx->threads == 1 ? "" : "s", omp_get_num_procs());
    return PP_SUCCESS;
}

static void cpu_destroy(pp_context *ctx)
{
    pp_cpu_state *st = (pp_cpu_state *)ctx->impl;
    if (!st) return;
    pp_cpu_operators_free(st);
    free(st->scratch);
    free(st->runs);
    free(st);
    ctx->impl = NULL;
}

/* *mem, of *have bytes, grown to at least bytes (its contents dropped). */
static void *grow(pp_context *ctx, void **mem, size_t *have, size_t bytes, const char *fn)
{
    if (bytes <= *have) return *mem;
    void *p = aligned_bytes(bytes);
    if (!p) {
        pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of working memory", fn, bytes);
        return NULL;
    }
    free(*mem);
    *mem = p;
    *have = bytes;
    return p;
}

void *pp_cpu_scratch(pp_context *ctx, size_t bytes, const char *fn)
{
    pp_cpu_state *st = (pp_cpu_state *)ctx->impl;
    return grow(ctx, &st->scratch, &st->scratch_bytes, bytes, fn);
}

void *pp_cpu_runs_scratch(pp_context *ctx, size_t bytes, const char *fn)
{
    pp_cpu_state *st = (pp_cpu_state *)ctx->impl;
    return grow(ctx, &st->runs, &st->runs_bytes, bytes, fn);
}

static void *cpu_stream(const pp_context *ctx)
{
    (void)ctx;
    return NULL;
}

static pp_status cpu_set_stream(pp_context *ctx, void *native)
{
    (void)ctx;
    (void)native;
    return PP_SUCCESS;
}

static pp_status cpu_synchronize(pp_context *ctx)
{
    (void)ctx;
    return PP_SUCCESS;
}

static pp_status cpu_alloc(pp_context *ctx, void **p, size_t bytes)
{
    *p = aligned_bytes(bytes);
    if (!*p) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "pp_malloc: cannot allocate %zu bytes", bytes);
    return PP_SUCCESS;
}

static pp_status cpu_free(pp_context *ctx, void *p)
{
    (void)ctx;
    free(p);
    return PP_SUCCESS;
}

/* memcpy cut into one piece per thread: one core cannot saturate the
 * memory system of a multi-core machine. */
void pp_cpu_parallel_copy(const pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    int nt = pp_cpu_threads_for(ctx, bytes, (size_t)1 << 20);
    if (nt <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
#pragma omp parallel num_threads(nt)
    {
        size_t b, e;
        pp_cpu_part(bytes, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &b, &e);
        memcpy((char *)dst + b, (const char *)src + b, e - b);
    }
}

/* Pages the process has never touched (a new array) are mapped at the
 * first write, and the kernel zeroes them through the cache: a streaming
 * store into such a page then writes its lines a second time, and threads
 * that meet in one huge page wait for each other's fault. Touched here
 * first, each thread in its own part, they are mapped at once, before a
 * sort's streaming stores; pages mapped already cost a store each. */
void pp_cpu_touch(const pp_context *ctx, void *p, size_t bytes)
{
    if (!bytes) return;
    const int nt = pp_cpu_threads_for(ctx, bytes, (size_t)1 << 20);
#pragma omp parallel num_threads(nt)
    {
        size_t b, e;
        pp_cpu_part(bytes, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &b, &e);
        char *c = (char *)p;
        for (size_t i = b; i < e; i += 4096) c[i] = 0;
        if (e > b) c[e - 1] = 0;
    }
}

static pp_status cpu_copy(pp_context *ctx, void *dst, const void *src, size_t bytes)
{
    pp_cpu_parallel_copy(ctx, dst, src, bytes);
    return PP_SUCCESS;
}

/* MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read. */
static uint64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

static pp_status cpu_memory_info(pp_context *ctx, pp_memory_info *info)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return pp_fail(ctx, PP_ERROR_BACKEND, "pp_context_memory: sysconf cannot tell the physical memory");
    info->total_bytes = (uint64_t)pages * (uint64_t)page;
    info->max_alloc_bytes = info->total_bytes;
    info->available_bytes = meminfo_available();
#ifdef _SC_AVPHYS_PAGES
    if (!info->available_bytes) {
        long avail = sysconf(_SC_AVPHYS_PAGES);
        if (avail > 0) info->available_bytes = (uint64_t)avail * (uint64_t)page;
    }
#endif
    return PP_SUCCESS;
}

/* Always usable: the registry's fallback for PP_BACKEND_AUTO. */
static int cpu_auto_choice(int device)
{
    (void)device;
    return 1;
}

const pp_backend_ops pp_cpu_ops = {
    .id = PP_BACKEND_CPU,
    .addressable = 1,
    .probe = cpu_probe,
    .auto_choice = cpu_auto_choice,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .set_stream = cpu_set_stream,
    .stream = cpu_stream,
    .synchronize = cpu_synchronize,
    .mem_alloc = cpu_alloc,
    .mem_free = cpu_free,
    .upload = cpu_copy, /* host to host */
    .download = cpu_copy,
    .copy = cpu_copy,
    .memory_info = cpu_memory_info,
    .operator_build = pp_cpu_operator_build,
    .reduce_op = pp_cpu_reduce_op,
    .scan_op = pp_cpu_scan_op,
    .segmented_reduce_op = pp_cpu_segmented_reduce_op,
    .segmented_scan_op = pp_cpu_segmented_scan_op,
    .reduce = {[PP_ALGO_AUTO] = pp_cpu_reduce,
               [PP_ALGO_SEQUENTIAL] = pp_cpu_reduce_sequential,
               [PP_ALGO_EXACT] = pp_cpu_reduce_exact},
    .scan = {[PP_ALGO_AUTO] = pp_cpu_scan,
             [PP_ALGO_SEQUENTIAL] = pp_cpu_scan_sequential,
             [PP_ALGO_REDUCE_THEN_SCAN] = pp_cpu_scan_reduce_then_scan,
             [PP_ALGO_EXACT] = pp_cpu_scan_exact},
    /* the scans themselves: they start from a->init where it is set */
    .scan_init = {[PP_ALGO_AUTO] = pp_cpu_scan,
                  [PP_ALGO_SEQUENTIAL] = pp_cpu_scan_sequential,
                  [PP_ALGO_REDUCE_THEN_SCAN] = pp_cpu_scan_reduce_then_scan,
                  [PP_ALGO_EXACT] = pp_cpu_scan_exact},
    .histogram = {[PP_ALGO_AUTO] = pp_cpu_histogram, [PP_ALGO_SEQUENTIAL] = pp_cpu_histogram_sequential},
    .select = {[PP_ALGO_AUTO] = pp_cpu_select, [PP_ALGO_SEQUENTIAL] = pp_cpu_select_sequential},
    .sort = {[PP_ALGO_AUTO] = pp_cpu_sort, [PP_ALGO_SEQUENTIAL] = pp_cpu_sort_sequential},
    /* out of place in their passes (cpu_sort.c) */
    .sort_reads_inputs = {[PP_ALGO_AUTO] = 1, [PP_ALGO_SEQUENTIAL] = 1},
    .top_k = {[PP_ALGO_AUTO] = pp_cpu_top_k, [PP_ALGO_SEQUENTIAL] = pp_cpu_top_k_sequential},
    .exact_sum = pp_cpu_exact_sum,
    .half_reduce = pp_cpu_half_reduce,
    .half_scan = pp_cpu_half_scan,
    .half_scan_init = pp_cpu_half_scan,
    .half_segmented_reduce = pp_cpu_segmented_reduce_exact, /* its half formats (cpu_exact.c) */
    .half_segmented_scan = pp_cpu_segmented_scan_exact,
    .half_reduce_by_key = pp_cpu_reduce_by_key_exact, /* the runs' exact segmented forms */
    .half_scan_by_key = pp_cpu_scan_by_key_exact,
    .half_map = pp_cpu_half_map,
    .segmented_reduce = {[PP_ALGO_AUTO] = pp_cpu_segmented_reduce, [PP_ALGO_EXACT] = pp_cpu_segmented_reduce_exact},
    .segmented_scan = {[PP_ALGO_AUTO] = pp_cpu_segmented_scan, [PP_ALGO_EXACT] = pp_cpu_segmented_scan_exact},
    .reduce_by_key = {[PP_ALGO_AUTO] = pp_cpu_reduce_by_key,
                      [PP_ALGO_SEQUENTIAL] = pp_cpu_reduce_by_key_sequential,
                      [PP_ALGO_EXACT] = pp_cpu_reduce_by_key_exact},
    .scan_by_key = {[PP_ALGO_AUTO] = pp_cpu_scan_by_key,
                    [PP_ALGO_SEQUENTIAL] = pp_cpu_scan_by_key_sequential,
                    [PP_ALGO_EXACT] = pp_cpu_scan_by_key_exact},
    .run_length_encode =
        {[PP_ALGO_AUTO] = pp_cpu_run_length_encode, [PP_ALGO_SEQUENTIAL] = pp_cpu_run_length_encode_sequential},
    /* runs the sort chosen for PP_PRIM_SORT (core/argsort.c) */
    .argsort = {[PP_ALGO_AUTO] = pp_cpu_argsort},
    .segmented_sort = {[PP_ALGO_AUTO] = pp_cpu_segmented_sort, [PP_ALGO_SEQUENTIAL] = pp_cpu_segmented_sort_sequential},
    .search = {[PP_ALGO_AUTO] = pp_cpu_search, [PP_ALGO_SEQUENTIAL] = pp_cpu_search_sequential},
    .merge = {[PP_ALGO_AUTO] = pp_cpu_merge, [PP_ALGO_SEQUENTIAL] = pp_cpu_merge_sequential},
    .reduce_to = {[PP_ALGO_AUTO] = pp_cpu_reduce_to},
    .scan_to = {[PP_ALGO_AUTO] = pp_cpu_scan_to},
    .arg = {[PP_ALGO_AUTO] = pp_cpu_arg},
};
