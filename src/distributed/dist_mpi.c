/* The MPI engine: a duplicated communicator that returns errors instead of
 * aborting, and the engine's collectives over it. Counts are 64-bit
 * throughout; every MPI call gets an int count: the all-to-all goes point to
 * point in pieces of at most 2^30 bytes, reductions in pieces of 2^27
 * elements. Context memory is handed to MPI where MPI can read it (cpu;
 * cuda where MPIX_Query_cuda_support says so), else the calls stage it. */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef PP_DIST_HAVE_MPI_EXT /* MPIX_Query_cuda_support (Open MPI, MVAPICH) */
#include <mpi-ext.h>
#endif

#define PIECE_BYTES ((uint64_t)1 << 30)
#define PIECE_ELEMS ((size_t)1 << 27)
#define EXCHANGE_TAG 0x7070

typedef struct mpi_state {
    MPI_Comm comm;
} mpi_state;

static MPI_Comm comm_of(const pp_dist *d) { return ((const mpi_state *)d->eng_state)->comm; }

static pp_status mpi_fail(pp_dist *d, const char *fn, const char *what, int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) len = 0;
    s[len] = '\0';
    return pp_dist_fail(d, PP_ERROR_BACKEND, "%s: %s failed: %s", fn, what, len ? s : "unknown MPI error");
}
#define MPI_TRY(what, call)                                     \
    do {                                                        \
        int rc_ = (call);                                       \
        if (rc_ != MPI_SUCCESS) return mpi_fail(d, fn, what, rc_); \
    } while (0)

static int cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT /* built with it; is it on now? */
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

pp_status pp_dist_mpi_attach(pp_dist *d, const char *fn, MPI_Comm comm)
{
    mpi_state *s = calloc(1, sizeof *s);
    if (!s) return pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    int rc = MPI_Comm_dup(comm, &s->comm);
    if (rc != MPI_SUCCESS) {
        free(s);
        return mpi_fail(d, fn, "MPI_Comm_dup", rc);
    }
    d->eng = &pp_dist_mpi_engine;
    d->eng_state = s;
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s->comm, &d->rank);
    MPI_Comm_size(s->comm, &d->size);
    const char *path = getenv("PARPRIM_DIST_PATH"); /* tests: force the paths of GPU backends on cpu */
    switch (d->backend) {
    case PP_BACKEND_CUDA:
        d->device_to_engine = cuda_aware();
#ifdef PP_DIST_HAVE_CUDART
        d->pinned = 1;
#endif
        break;
    case PP_BACKEND_OPENCL: break;
    default:
        d->host_direct = 1;
        d->device_to_engine = 1;
        break;
    }
    if (path && strcmp(path, "staged") == 0) {
        d->host_direct = 0;
        d->device_to_engine = 0;
    } else if (path && strcmp(path, "device") == 0 && d->backend != PP_BACKEND_OPENCL) {
        d->host_direct = 0;
    }
    d->engine_name = d->host_direct ? "mpi (host memory)"
                     : d->device_to_engine ? (d->backend == PP_BACKEND_CUDA ? "mpi (cuda-aware)" : "mpi (device memory)")
                                           : "mpi (staged through host)";
    return PP_SUCCESS;
}

static void mpi_destroy(pp_dist *d)
{
    mpi_state *s = d->eng_state;
    if (!s) return;
    MPI_Comm_free(&s->comm);
    free(s);
    d->eng_state = NULL;
}

static pp_status mpi_allgather(pp_dist *d, const char *fn, const void *rec, size_t rec_bytes, void *all)
{
    MPI_TRY("MPI_Allgather", MPI_Allgather(rec, (int)rec_bytes, MPI_BYTE, all, (int)rec_bytes, MPI_BYTE, comm_of(d)));
    return PP_SUCCESS;
}

static pp_status mpi_allreduce_sum(pp_dist *d, const char *fn, uint64_t *buf, size_t count, int on_device)
{
    (void)on_device;
    for (size_t off = 0; off < count; off += PIECE_ELEMS) {
        size_t c = count - off < PIECE_ELEMS ? count - off : PIECE_ELEMS;
        MPI_TRY("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, buf + off, (int)c, MPI_UINT64_T, MPI_SUM, comm_of(d)));
    }
    return PP_SUCCESS;
}

static pp_status mpi_prefix_sum(pp_dist *d, const char *fn, const uint64_t *v, size_t count, uint64_t *before,
                                uint64_t *total)
{
    for (size_t off = 0; off < count; off += PIECE_ELEMS) {
        size_t c = count - off < PIECE_ELEMS ? count - off : PIECE_ELEMS;
        MPI_TRY("MPI_Exscan", MPI_Exscan(v + off, before + off, (int)c, MPI_UINT64_T, MPI_SUM, comm_of(d)));
        MPI_TRY("MPI_Allreduce", MPI_Allreduce(v + off, total + off, (int)c, MPI_UINT64_T, MPI_SUM, comm_of(d)));
    }
    if (d->rank == 0) memset(before, 0, count * sizeof *before); /* MPI_Exscan leaves it undefined */
    return PP_SUCCESS;
}

static size_t pieces(uint64_t bytes) { return (size_t)((bytes + PIECE_BYTES - 1) / PIECE_BYTES); }

static pp_status mpi_alltoallv(pp_dist *d, const char *fn, const void *send, const uint64_t *scount,
                               const uint64_t *soff, void *recv, const uint64_t *rcount, const uint64_t *roff,
                               int on_device)
{
    (void)on_device;
    size_t nreq = 0;
    for (int r = 0; r < d->size; r++) nreq += pieces(scount[r]) + pieces(rcount[r]);
    if (nreq == 0) return PP_SUCCESS;
    MPI_Request *req = malloc(nreq * sizeof *req);
    if (!req) return pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%zu MPI requests)", fn, nreq);
    size_t k = 0;
    int rc = MPI_SUCCESS;
    const char *what = "MPI_Irecv";
    /* Receives first, then sends starting at the next rank (so that not
     * every rank sends to rank 0 first). Pieces between one pair share a
     * tag: MPI matches them in order. */
    for (int i = 0; i < d->size && rc == MPI_SUCCESS; i++) {
        int r = (d->rank + d->size - i) % d->size;
        for (uint64_t o = 0; o < rcount[r] && rc == MPI_SUCCESS; o += PIECE_BYTES) {
            uint64_t c = rcount[r] - o < PIECE_BYTES ? rcount[r] - o : PIECE_BYTES;
            rc = MPI_Irecv((char *)recv + roff[r] + o, (int)c, MPI_BYTE, r, EXCHANGE_TAG, comm_of(d), &req[k]);
            if (rc == MPI_SUCCESS) k++;
        }
    }
    if (rc == MPI_SUCCESS) what = "MPI_Isend";
    for (int i = 0; i < d->size && rc == MPI_SUCCESS; i++) {
        int r = (d->rank + i) % d->size;
        for (uint64_t o = 0; o < scount[r] && rc == MPI_SUCCESS; o += PIECE_BYTES) {
            uint64_t c = scount[r] - o < PIECE_BYTES ? scount[r] - o : PIECE_BYTES;
            rc = MPI_Isend((const char *)send + soff[r] + o, (int)c, MPI_BYTE, r, EXCHANGE_TAG, comm_of(d), &req[k]);
            if (rc == MPI_SUCCESS) k++;
        }
    }
    int wrc = MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
    free(req);
    if (rc != MPI_SUCCESS) return mpi_fail(d, fn, what, rc);
    if (wrc != MPI_SUCCESS) return mpi_fail(d, fn, "MPI_Waitall", wrc);
    return PP_SUCCESS;
}

const pp_dist_engine pp_dist_mpi_engine = {
    .allgather = mpi_allgather,
    .allreduce_sum = mpi_allreduce_sum,
    .prefix_sum = mpi_prefix_sum,
    .alltoallv = mpi_alltoallv,
    .destroy = mpi_destroy,
};
