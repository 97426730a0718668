/* pp_dist_bench: times parprim_mpi's primitives on p ranks and compares
 * each with the cost model of docs/distributed.md, whose inputs are
 * measured in the same run on the same ranks: the local primitives on one
 * rank's part (pp_reduce, pp_scan, pp_histogram_even, pp_select_if,
 * pp_sort, pp_sort_pairs, pp_copy), the latency of a 64-byte
 * MPI_Allgather and of an 8 (p - 1)-byte MPI_Allreduce, and an
 * MPI_Alltoall of the bytes a sort exchanges.
 *
 *   mpirun -np 4 pp_dist_bench [--n 4194304] [--repeat 5] [--backend cpu|cuda|opencl]
 *                              [--engine mpi|nccl] [--gpu-per-rank]
 *
 * --gpu-per-rank: each rank's cuda context on GPU (rank on its node); with
 * --engine nccl (where parprim_mpi has the NCCL engine) the data moves
 * through NCCL, and the link is measured as grouped ncclSend/ncclRecv of
 * the bytes a sort exchanges, between device buffers; with MPI, as an
 * MPI_Alltoall of those bytes between host buffers. Sizes may pass 2^31
 * bytes (the all-to-all counts in 4 KiB blocks).
 *
 * Each time is the median over the repeats of the slowest rank's time
 * (MPI_Barrier, then the call, then MPI_Allreduce(MAX)). "sent/rank" is
 * what one rank sends to the others (its part of the exchange, the
 * agreements' records); the model's terms are printed per row. */
#include "parprim_mpi.h"
#ifdef PP_BENCH_NCCL
#include "parprim_nccl.h"

#include <cuda_runtime.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPEAT 101

static int g_rank, g_size, g_repeat = 5;

typedef pp_status (*call_fn)(void *arg);

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median over the repeats of the slowest rank's time of fn (after
 * prep, untimed, if any), in seconds; a failed call ends the program. */
typedef struct bench {
    pp_context *ctx;
    pp_dist *d;
    size_t n;
    uint32_t *src, *keys, *vals, *vsrc, *out;
    uint64_t *counts, *cell;
    void *a2a_send, *a2a_recv;
    size_t a2a_bytes; /* per peer, a multiple of A2A_BLOCK */
    MPI_Datatype a2a_block; /* A2A_BLOCK contiguous bytes */
    int nccl;         /* the NCCL engine: the link measured between device buffers */
#ifdef PP_BENCH_NCCL
    ncclComm_t comm;
#endif
    pp_dist_counts sel;
} bench;
static bench B;

static double timed(call_fn fn, call_fn prep, void *arg, const char *what)
{
    double t[MAX_REPEAT];
    for (int i = -1; i < g_repeat; i++) { /* one warm-up */
        if (prep) prep(arg);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pp_status st = fn(arg);
        if (st == PP_SUCCESS) st = pp_synchronize(B.ctx); /* a call may return before its device work ends */
        double dt = MPI_Wtime() - t0, worst = 0;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (st != PP_SUCCESS) {
            fprintf(stderr, "rank %d: %s failed: %s\n", g_rank, what, pp_status_string(st));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (i >= 0) t[i] = worst;
    }
    qsort(t, (size_t)g_repeat, sizeof t[0], cmp_d);
    return t[g_repeat / 2];
}


static pp_status restore(void *a)
{
    (void)a;
    pp_status st = pp_copy(B.ctx, B.keys, B.src, B.n * 4);
    if (st == PP_SUCCESS) st = pp_copy(B.ctx, B.vals, B.vsrc, B.n * 4);
    return st == PP_SUCCESS ? pp_synchronize(B.ctx) : st;
}
static const uint32_t lo_bound = 0, hi_bound = 1u << 31, sel_value = 1u << 30;
/* local */
static pp_status l_reduce(void *a) { (void)a; pp_status s = pp_reduce(B.ctx, PP_U32, PP_SUM, B.src, B.n, B.cell); return s ? s : pp_synchronize(B.ctx); }
static pp_status l_scan(void *a) { (void)a; pp_status s = pp_scan(B.ctx, PP_U32, PP_SUM, PP_INCLUSIVE, B.src, B.out, B.n); return s ? s : pp_synchronize(B.ctx); }
static pp_status l_hist(void *a) { (void)a; pp_status s = pp_histogram_even(B.ctx, PP_U32, B.src, B.n, &lo_bound, &hi_bound, 256, B.counts); return s ? s : pp_synchronize(B.ctx); }
static pp_status l_select(void *a) { (void)a; pp_status s = pp_select_if(B.ctx, PP_U32, B.src, B.n, PP_LT, &sel_value, B.out, B.cell); return s ? s : pp_synchronize(B.ctx); }
static pp_status l_sort(void *a) { (void)a; pp_status s = pp_sort(B.ctx, PP_U32, B.keys, B.n, PP_ASCENDING); return s ? s : pp_synchronize(B.ctx); }
static pp_status l_pairs(void *a) { (void)a; pp_status s = pp_sort_pairs(B.ctx, PP_U32, B.keys, B.vals, 4, B.n, PP_ASCENDING); return s ? s : pp_synchronize(B.ctx); }
/* the two sorted halves of the keys (sorted by l_sort) merged: step 6 of
 * the distributed sort, one level */
static pp_status l_merge(void *a)
{
    (void)a;
    size_t h = B.n / 2;
    pp_status s = pp_merge(B.ctx, PP_U32, B.keys, h, (uint32_t *)B.keys + h, B.n - h, B.out, PP_ASCENDING);
    return s ? s : pp_synchronize(B.ctx);
}
static pp_status l_copy(void *a) { (void)a; pp_status s = pp_copy(B.ctx, B.out, B.src, B.n * 4); return s ? s : pp_synchronize(B.ctx); }
/* links */
static pp_status m_allgather(void *a)
{
    (void)a;
    char rec[64] = {0}, *all = malloc((size_t)g_size * 64);
    int rc = MPI_Allgather(rec, 64, MPI_BYTE, all, 64, MPI_BYTE, MPI_COMM_WORLD);
    free(all);
    return rc == MPI_SUCCESS ? PP_SUCCESS : PP_ERROR_BACKEND;
}
static pp_status m_allreduce(void *a)
{
    (void)a;
    uint64_t v[1024] = {0};
    int cnt = g_size - 1 < 1024 ? (g_size > 1 ? g_size - 1 : 1) : 1024;
    return MPI_Allreduce(MPI_IN_PLACE, v, cnt, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS ? PP_SUCCESS
                                                                                              : PP_ERROR_BACKEND;
}
#define A2A_BLOCK 4096 /* bytes: MPI counts are int, so the all-to-all counts blocks */
static pp_status m_alltoall(void *a)
{
    (void)a;
#ifdef PP_BENCH_NCCL
    if (B.nccl) { /* what the NCCL engine's exchange does: grouped sends and receives */
        const char *snd = (const char *)B.a2a_send;
        char *rcv = (char *)B.a2a_recv;
        ncclGroupStart();
        for (int r = 0; r < g_size; r++) {
            if (r == g_rank) continue;
            ncclSend(snd + (size_t)r * B.a2a_bytes, B.a2a_bytes, ncclUint8, r, B.comm, 0);
            ncclRecv(rcv + (size_t)r * B.a2a_bytes, B.a2a_bytes, ncclUint8, r, B.comm, 0);
        }
        if (ncclGroupEnd() != ncclSuccess) return PP_ERROR_BACKEND;
        return cudaStreamSynchronize(0) == cudaSuccess ? PP_SUCCESS : PP_ERROR_BACKEND;
    }
#endif
    int cnt = (int)(B.a2a_bytes / A2A_BLOCK);
    return MPI_Alltoall(B.a2a_send, cnt, B.a2a_block, B.a2a_recv, cnt, B.a2a_block, MPI_COMM_WORLD) == MPI_SUCCESS
               ? PP_SUCCESS
               : PP_ERROR_BACKEND;
}
/* distributed */
static pp_status d_reduce(void *a) { (void)a; return pp_dist_reduce(B.d, PP_U32, PP_SUM, B.src, B.n, B.cell); }
static pp_status d_scan(void *a) { (void)a; return pp_dist_scan(B.d, PP_U32, PP_SUM, PP_INCLUSIVE, B.src, B.out, B.n); }
static pp_status d_hist(void *a) { (void)a; return pp_dist_histogram_even(B.d, PP_U32, B.src, B.n, &lo_bound, &hi_bound, 256, B.counts); }
static pp_status d_select(void *a) { (void)a; return pp_dist_select_if(B.d, PP_U32, B.src, B.n, PP_LT, &sel_value, B.out, &B.sel); }
static pp_status d_sort(void *a) { (void)a; return pp_dist_sort(B.d, PP_U32, B.keys, B.n, PP_ASCENDING); }
static pp_status d_pairs(void *a) { (void)a; return pp_dist_sort_pairs(B.d, PP_U32, B.keys, B.vals, 4, B.n, PP_ASCENDING); }

static void row(const char *name, double measured, double model, double sent, const char *terms)
{
    if (g_rank == 0)
        printf("%-14s %10.3f %10.3f %6.2f %12.0f  %s\n", name, measured * 1e3, model * 1e3, measured / model, sent, terms);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    size_t n = (size_t)1 << 22;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CPU;
    for (int i = 1; i + 1 < argc; i++) { /* options with a value; --gpu-per-rank below */
        if (!strcmp(argv[i], "--gpu-per-rank")) continue;
        if (!strcmp(argv[i], "--n")) n = (size_t)strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--repeat")) g_repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--backend"))
            o.backend = !strcmp(argv[i + 1], "opencl") ? PP_BACKEND_OPENCL
                        : !strcmp(argv[i + 1], "cuda") ? PP_BACKEND_CUDA : PP_BACKEND_CPU;
        else if (!strcmp(argv[i], "--threads")) o.threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--engine")) B.nccl = !strcmp(argv[i + 1], "nccl");
        else continue;
        i++; /* the value */
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--gpu-per-rank")) { /* the rank on its node picks the GPU */
            MPI_Comm node;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_rank(node, &o.device);
            MPI_Comm_free(&node);
        }
    if (g_repeat < 1) g_repeat = 1;
    if (g_repeat > MAX_REPEAT) g_repeat = MAX_REPEAT;
    pp_status made = pp_create(&B.ctx, &o);
    if (B.nccl) {
#ifdef PP_BENCH_NCCL
        ncclUniqueId id;
        if (g_rank == 0) ncclGetUniqueId(&id);
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
        cudaSetDevice(o.device);
        if (ncclCommInitRank(&B.comm, g_size, id, g_rank) != ncclSuccess) made = PP_ERROR_BACKEND;
        if (made == PP_SUCCESS) made = pp_dist_create_nccl(&B.d, B.ctx, B.comm);
#else
        if (g_rank == 0) fprintf(stderr, "pp_dist_bench: built without the NCCL engine\n");
        MPI_Finalize();
        return 2;
#endif
    } else if (made == PP_SUCCESS) {
        made = pp_dist_create(&B.d, B.ctx, MPI_COMM_WORLD);
    }
    if (made != PP_SUCCESS) {
        fprintf(stderr, "rank %d: setup failed: %s %s\n", g_rank, pp_last_error(NULL), pp_dist_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    B.n = n;
    uint32_t *h = malloc(n * 4 + 4);
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(g_rank + 1);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h[i] = (uint32_t)(x >> 11);
    }
    void **bufs[] = {(void **)&B.src, (void **)&B.keys, (void **)&B.vals, (void **)&B.vsrc, (void **)&B.out};
    for (int i = 0; i < 5; i++) pp_malloc(B.ctx, bufs[i], n * 4);
    pp_malloc(B.ctx, (void **)&B.counts, 256 * 8);
    pp_malloc(B.ctx, (void **)&B.cell, 8);
    pp_upload(B.ctx, B.src, h, n * 4);
    for (size_t i = 0; i < n; i++) h[i] = (uint32_t)i;
    pp_upload(B.ctx, B.vsrc, h, n * 4);
    free(h);
    int p = g_size;
    double share = (double)(p - 1) / p; /* of a rank's keys, what leaves it (uniform keys) */
    B.a2a_bytes = n * 4 / (size_t)p / A2A_BLOCK * A2A_BLOCK;
    if (B.nccl) { /* device buffers: the keys' (restored before every sort) and the output's */
        B.a2a_send = B.out;
        B.a2a_recv = B.keys;
    } else {
        MPI_Type_contiguous(A2A_BLOCK, MPI_BYTE, &B.a2a_block);
        MPI_Type_commit(&B.a2a_block);
        B.a2a_send = malloc(B.a2a_bytes * p + 1);
        B.a2a_recv = malloc(B.a2a_bytes * p + 1);
        memset(B.a2a_send, 1, B.a2a_bytes * p + 1);
    }
    if (g_rank == 0)
        printf("pp_dist_bench: %d ranks, n = %zu u32 per rank, %s, engine %s, median of %d\n", p, n,
               pp_context_device_name(B.ctx), pp_dist_engine_name(B.d), g_repeat);

    /* the model's inputs, measured on every rank at once */
    double t_red = timed(l_reduce, NULL, NULL, "pp_reduce"), t_scan = timed(l_scan, NULL, NULL, "pp_scan");
    double t_hist = timed(l_hist, NULL, NULL, "pp_histogram_even"), t_sel = timed(l_select, NULL, NULL, "pp_select_if");
    double t_sort = timed(l_sort, restore, NULL, "pp_sort"), t_pairs = timed(l_pairs, restore, NULL, "pp_sort_pairs");
    double t_merge = timed(l_merge, NULL, NULL, "pp_merge"), t_copy = timed(l_copy, NULL, NULL, "pp_copy");
    int levels = 0;
    while ((1 << levels) < p) levels++;
    double t_ag = timed(m_allgather, NULL, NULL, "MPI_Allgather"), t_ar = timed(m_allreduce, NULL, NULL, "MPI_Allreduce");
    double t_a2a = p > 1 ? timed(m_alltoall, NULL, NULL, "MPI_Alltoall") : 0;
    double bw = p > 1 ? (double)B.a2a_bytes * (p - 1) / t_a2a : 0; /* bytes a rank sends per second */
    if (g_rank == 0) {
        printf("local (ms): reduce %.3f scan %.3f histogram %.3f select %.3f sort %.3f sort_pairs %.3f merge %.3f "
               "copy %.3f\n", t_red * 1e3, t_scan * 1e3, t_hist * 1e3, t_sel * 1e3, t_sort * 1e3, t_pairs * 1e3,
               t_merge * 1e3, t_copy * 1e3);
        printf("links: allgather(64 B) %.1f us, allreduce(8(p-1) B) %.1f us, %s of %.1f MB per rank %.3f ms "
               "= %.2f GB/s sent per rank\n", t_ag * 1e6, t_ar * 1e6,
               B.nccl ? "ncclSend/ncclRecv all-to-all" : "MPI_Alltoall", (double)B.a2a_bytes * (p - 1) / 1e6,
               t_a2a * 1e3, bw / 1e9);
        printf("%-14s %10s %10s %6s %12s  %s\n", "primitive", "ms", "model ms", "x", "sent/rank B", "model terms");
    }
    double rec = 64.0 * (p - 1); /* an agreement: a rank's 64-byte record to every other rank */
    double T;
    T = timed(d_reduce, NULL, NULL, "pp_dist_reduce");
    row("reduce", T, t_red + t_ag, rec, "reduce + allgather");
    T = timed(d_scan, NULL, NULL, "pp_dist_scan");
    row("scan", T, t_red + t_scan + 2 * t_ag, 2 * rec, "reduce + scan (from the prefix) + 2 allgather");
    T = timed(d_hist, NULL, NULL, "pp_dist_histogram_even");
    row("histogram", T, t_hist + 2 * t_ag + (p > 1 ? t_ar : 0), 2 * rec + 2.0 * 256 * 8 * share,
        "histogram + 2 allgather + allreduce(2 KB)");
    T = timed(d_select, NULL, NULL, "pp_dist_select_if");
    row("select_if", T, t_sel + 2 * t_ag, 2 * rec, "select + 2 allgather");
    /* sort: 4 agreements, local sort, 4 rounds of the splitters' 1024-way
     * search (u32 keys, full range; each an allreduce of 8 KB per boundary,
     * modelled as a small one) and a prefix (allreduce-sized), the counts (allreduce-sized),
     * the exchange (the alltoall of the same bytes), ceil(log2 p) merge
     * levels of the received runs, the final agreement (opencl sorts them
     * again instead: the model is then low by t_sort - levels t_merge). */
    double rounds = p > 1 ? 4 + 2 + 1 : 0;
    char terms[160];
    T = timed(d_sort, restore, NULL, "pp_dist_sort");
    double model = p > 1 ? t_sort + levels * t_merge + 4 * t_ag + rounds * t_ar + t_a2a : t_sort + t_ag;
    snprintf(terms, sizeof terms, "sort + %d merge + 4 allgather + 7 allreduce + alltoall(n k (p-1)/p)", levels);
    row("sort", T, model, p > 1 ? 4 * rec + share * n * 4 + 8.0 * (p - 1) : rec, p > 1 ? terms : "sort + allgather");
    if (g_rank == 0) printf("%-14s %10.3f Gkeys/s in all (%zu keys)\n", "", (double)n * p / T / 1e9, n * (size_t)p);
    T = timed(d_pairs, restore, NULL, "pp_dist_sort_pairs");
    model = p > 1 ? t_pairs + 2 * levels * t_merge + 4 * t_ag + rounds * t_ar + 2 * t_a2a : t_pairs + t_ag;
    snprintf(terms, sizeof terms, "sort_pairs + %d merge_pairs (~2 merge) + 4 allgather + 7 allreduce + 2 alltoall",
             levels);
    row("sort_pairs", T, model, p > 1 ? 4 * rec + 2 * share * n * 4 + 8.0 * (p - 1) : rec,
        p > 1 ? terms : "sort_pairs + allgather");
    if (g_rank == 0) printf("%-14s %10.3f Gpairs/s in all\n", "", (double)n * p / T / 1e9);

    for (int i = 0; i < 5; i++) pp_free(B.ctx, *bufs[i]);
    pp_free(B.ctx, B.counts);
    pp_free(B.ctx, B.cell);
    if (!B.nccl) {
        free(B.a2a_send);
        free(B.a2a_recv);
        MPI_Type_free(&B.a2a_block);
    }
    pp_dist_destroy(B.d);
    pp_destroy(B.ctx);
#ifdef PP_BENCH_NCCL
    if (B.nccl) ncclCommDestroy(B.comm);
#endif
    MPI_Finalize();
    return 0;
}
