/* The NCCL engine (built where nccl.h and libnccl are found with the cuda
 * backend): the engine's collectives as NCCL calls on the context's own
 * stream (pp_context_stream), in order with parprim's work on it. Context
 * memory goes to NCCL as it is, with no host wait before or after (d->ordered):
 * parprim work queued before a collective runs before it, and work queued
 * after runs after it. Host buffers (the agreements, the counts of the
 * sort) are staged through a device buffer of the engine, and those
 * collectives wait for the stream before they return, since the host reads
 * their results. */
#include "dist_internal.h"
#include "parprim_nccl.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

typedef struct nccl_state {
    ncclComm_t comm;
    cudaStream_t stream; /* the context's, read at the start of every collective */
    int device;
    void *scratch; /* device staging of host buffers */
    size_t cap;
} nccl_state;

static nccl_state *st_of(pp_dist *d) { return (nccl_state *)d->eng_state; }

static pp_status nccl_fail(pp_dist *d, const char *fn, const char *what, ncclResult_t r)
{
    return pp_dist_fail(d, PP_ERROR_BACKEND, "%s: %s failed: %s", fn, what, ncclGetErrorString(r));
}
static pp_status cuda_fail(pp_dist *d, const char *fn, const char *what, cudaError_t e)
{
    return pp_dist_fail(d, PP_ERROR_BACKEND, "%s: %s failed: %s", fn, what, cudaGetErrorString(e));
}
#define NCCL_TRY(what, call)                                        \
    do {                                                            \
        ncclResult_t r_ = (call);                                   \
        if (r_ != ncclSuccess) return nccl_fail(d, fn, what, r_);   \
    } while (0)
#define CUDA_TRY(what, call)                                        \
    do {                                                            \
        cudaError_t e_ = (call);                                    \
        if (e_ != cudaSuccess) return cuda_fail(d, fn, what, e_);   \
    } while (0)

/* The communicator's device, current, and the context's stream; finish:
 * that stream waited for. */
static pp_status enter(pp_dist *d, const char *fn)
{
    void *native = NULL;
    pp_status st = pp_dist_pp(d, fn, pp_context_stream(d->ctx, &native));
    if (st != PP_SUCCESS) return st;
    st_of(d)->stream = (cudaStream_t)native;
    CUDA_TRY("cudaSetDevice", cudaSetDevice(st_of(d)->device));
    return PP_SUCCESS;
}
static pp_status finish(pp_dist *d, const char *fn)
{
    CUDA_TRY("cudaStreamSynchronize", cudaStreamSynchronize(st_of(d)->stream));
    return PP_SUCCESS;
}

static pp_status scratch(pp_dist *d, const char *fn, size_t bytes, char **p)
{
    nccl_state *s = st_of(d);
    if (s->cap < bytes) {
        if (s->scratch) cudaFree(s->scratch);
        s->scratch = NULL;
        s->cap = 0;
        CUDA_TRY("cudaMalloc", cudaMalloc(&s->scratch, bytes));
        s->cap = bytes;
    }
    *p = s->scratch;
    return PP_SUCCESS;
}

static pp_status nccl_allgather(pp_dist *d, const char *fn, const void *rec, size_t rec_bytes, void *all)
{
    nccl_state *s = st_of(d);
    size_t total = rec_bytes * (size_t)d->size;
    char *buf = NULL;
    pp_status st = enter(d, fn);
    if (st == PP_SUCCESS) st = scratch(d, fn, total + rec_bytes, &buf);
    if (st != PP_SUCCESS) return st;
    CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(buf + total, rec, rec_bytes, cudaMemcpyHostToDevice, s->stream));
    NCCL_TRY("ncclAllGather", ncclAllGather(buf + total, buf, rec_bytes, ncclUint8, s->comm, s->stream));
    CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(all, buf, total, cudaMemcpyDeviceToHost, s->stream));
    return finish(d, fn);
}

static pp_status nccl_allreduce_sum(pp_dist *d, const char *fn, uint64_t *buf, size_t count, int on_device)
{
    nccl_state *s = st_of(d);
    pp_status st = enter(d, fn);
    if (st != PP_SUCCESS) return st;
    void *dev = buf;
    if (!on_device) {
        char *b = NULL;
        st = scratch(d, fn, count * sizeof *buf, &b);
        if (st != PP_SUCCESS) return st;
        dev = b;
        CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(dev, buf, count * sizeof *buf, cudaMemcpyHostToDevice, s->stream));
    }
    NCCL_TRY("ncclAllReduce", ncclAllReduce(dev, dev, count, ncclUint64, ncclSum, s->comm, s->stream));
    if (on_device) return PP_SUCCESS; /* in order on the context's stream */
    CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(buf, dev, count * sizeof *buf, cudaMemcpyDeviceToHost, s->stream));
    return finish(d, fn);
}

/* NCCL has no scan: every rank's vector, summed on the host in rank order. */
static pp_status nccl_prefix_sum(pp_dist *d, const char *fn, const uint64_t *v, size_t count, uint64_t *before,
                                 uint64_t *total)
{
    size_t bytes = count * sizeof *v;
    uint64_t *all = malloc(bytes * (size_t)d->size + 1);
    if (!all) return pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    pp_status st = nccl_allgather(d, fn, v, bytes, all);
    if (st == PP_SUCCESS) {
        memset(before, 0, bytes);
        memset(total, 0, bytes);
        for (int r = 0; r < d->size; r++)
            for (size_t i = 0; i < count; i++) {
                if (r < d->rank) before[i] += all[(size_t)r * count + i];
                total[i] += all[(size_t)r * count + i];
            }
    }
    free(all);
    return st;
}

static pp_status nccl_alltoallv(pp_dist *d, const char *fn, const void *send, const uint64_t *scount,
                                const uint64_t *soff, void *recv, const uint64_t *rcount, const uint64_t *roff,
                                int on_device)
{
    nccl_state *s = st_of(d);
    pp_status st = enter(d, fn);
    if (st != PP_SUCCESS) return st;
    const char *sb = send;
    char *rb = recv;
    uint64_t sbytes = 0, rbytes = 0;
    for (int r = 0; r < d->size; r++) {
        if (soff[r] + scount[r] > sbytes) sbytes = soff[r] + scount[r];
        if (roff[r] + rcount[r] > rbytes) rbytes = roff[r] + rcount[r];
    }
    if (!on_device) { /* small host messages (the counts): through the scratch */
        char *b = NULL;
        st = scratch(d, fn, (size_t)(sbytes + rbytes) + 1, &b);
        if (st != PP_SUCCESS) return st;
        if (sbytes) CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(b, send, sbytes, cudaMemcpyHostToDevice, s->stream));
        sb = b;
        rb = b + sbytes;
    }
    /* This rank's own run in device memory: one device copy on the stream,
     * not a send to itself, which NCCL moved at a fraction of a copy's
     * rate (bench/studies/distributed.md). */
    const int me = d->rank, copy_own = on_device && scount[me] && scount[me] == rcount[me];
    if (copy_own)
        CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(rb + roff[me], sb + soff[me], (size_t)scount[me],
                                                    cudaMemcpyDeviceToDevice, s->stream));
    NCCL_TRY("ncclGroupStart", ncclGroupStart());
    ncclResult_t r = ncclSuccess;
    for (int i = 0; i < d->size && r == ncclSuccess; i++) {
        if (i == me && copy_own) continue;
        if (scount[i]) r = ncclSend(sb + soff[i], scount[i], ncclUint8, i, s->comm, s->stream);
        if (r == ncclSuccess && rcount[i]) r = ncclRecv(rb + roff[i], rcount[i], ncclUint8, i, s->comm, s->stream);
    }
    ncclResult_t e = ncclGroupEnd();
    if (r != ncclSuccess) return nccl_fail(d, fn, "ncclSend/ncclRecv", r);
    if (e != ncclSuccess) return nccl_fail(d, fn, "ncclGroupEnd", e);
    if (on_device) return PP_SUCCESS; /* in order on the context's stream */
    if (rbytes) CUDA_TRY("cudaMemcpyAsync", cudaMemcpyAsync(recv, rb, rbytes, cudaMemcpyDeviceToHost, s->stream));
    return finish(d, fn);
}

static void nccl_destroy(pp_dist *d)
{
    nccl_state *s = st_of(d);
    if (!s) return;
    cudaSetDevice(s->device);
    if (s->scratch) cudaFree(s->scratch);
    free(s);
    d->eng_state = NULL;
}

static const pp_dist_engine nccl_engine = {
    .allgather = nccl_allgather,
    .allreduce_sum = nccl_allreduce_sum,
    .prefix_sum = nccl_prefix_sum,
    .alltoallv = nccl_alltoallv,
    .destroy = nccl_destroy,
};

static pp_status attach(pp_dist *d, const char *fn, ncclComm_t comm)
{
    nccl_state *s = calloc(1, sizeof *s);
    if (!s) return pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    d->eng = &nccl_engine;
    d->eng_state = s;
    s->comm = comm;
    NCCL_TRY("ncclCommCuDevice", ncclCommCuDevice(comm, &s->device));
    NCCL_TRY("ncclCommUserRank", ncclCommUserRank(comm, &d->rank));
    NCCL_TRY("ncclCommCount", ncclCommCount(comm, &d->size));
    CUDA_TRY("cudaSetDevice", cudaSetDevice(s->device));
    d->host_direct = 0;
    d->device_to_engine = 1;
    d->ordered = 1;
    d->pinned = 1;
    d->engine_name = "nccl";
    return PP_SUCCESS;
}

pp_status pp_dist_create_nccl(pp_dist **dp, pp_context *ctx, ncclComm_t comm)
{
    static const char fn[] = "pp_dist_create_nccl";
    if (dp) *dp = NULL;
    if (!comm) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'comm' is NULL", fn);
    pp_status st = PP_SUCCESS;
    pp_dist *d = NULL, scratch_d;
    memset(&scratch_d, 0, sizeof scratch_d);
    if (!dp) st = pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    else if (!ctx) st = pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    else if (pp_context_backend(ctx) != PP_BACKEND_CUDA)
        st = pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is a %s context (NCCL needs cuda)", fn,
                       pp_backend_name(pp_context_backend(ctx)));
    if (st == PP_SUCCESS) st = pp_dist_alloc(&d, ctx, fn);
    if (st != PP_SUCCESS) d = &scratch_d; /* takes part in the agreement only */
    pp_status ast = attach(d, fn, comm);
    if (ast != PP_SUCCESS) {
        if (d != &scratch_d) pp_dist_fail(NULL, ast, "%s", d->msg);
        nccl_destroy(d);
        if (d != &scratch_d) free(d);
        return ast;
    }
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    pp_status agreed = pp_dist_agree(d, fn, st, pp_dist_hash_start(fn), &rec, &all);
    if (agreed == PP_SUCCESS) {
        *dp = d;
        return PP_SUCCESS;
    }
    if (st == PP_SUCCESS) pp_dist_fail(NULL, agreed, "%s", d->msg);
    pp_dist_buffers_free(d);
    nccl_destroy(d);
    if (d != &scratch_d) free(d);
    return agreed;
}
