/* The NCCL engine (built where NCCL is found): one rank per GPU (ranks
 * share a GPU where there are fewer GPUs than ranks: NCCL needs one rank per
 * device, so then only rank counts up to the GPU count run), a cuda context
 * per rank, an NCCL communicator made from MPI (ncclGetUniqueId broadcast),
 * then reduce, scan, histogram, a compaction and sort through
 * pp_dist_create_nccl, against the reference on the gathered input. Run by
 * scripts/gpu-check with 1 rank (more where there are GPUs):
 *   mpirun -np 1 build/.../tests/distributed/test_dist_nccl */
#include "dist_common.h"
#include "parprim_nccl.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_cases(dt_env *e)
{
    static const pp_type types[4] = {PP_U8, PP_I32, PP_F32, PP_F64};
    for (int ti = 0; ti < 4; ti++) {
        pp_type t = types[ti];
        size_t sz = pp_type_size(t);
        for (int layout = 0; layout < DT_LAYOUTS; layout++) {
            char name[64];
            snprintf(name, sizeof name, "nccl %d %d", ti, layout);
            tc_rng r = dt_rng(name);
            size_t n = dt_layout_n(layout, 100000, &r);
            pp_op op = tc_is_float(t) ? (pp_op)(layout % 4) : (pp_op)(layout % 7);
            pp_scan_kind kind = (pp_scan_kind)(layout % 2);
            dt_case("nccl %s %s, %s, n_local %zu on rank %d", pp_type_name(t), pp_op_name(op), dt_layout_name(layout), n,
                    e->rank);
            unsigned char *in = malloc(n * sz + 1), *out = malloc(n * sz + 1), *keys = malloc(n * sz + 1);
            uint64_t red = 0, counts[16] = {0};
            dt_fill(&r, t, op, in, n);
            dt_fill_keys(&r, t, keys, n);
            void *din = dt_upload(e, in, n * sz), *dout = dt_upload(e, NULL, n * sz), *dred = dt_upload(e, NULL, 8);
            void *dk = dt_upload(e, keys, n * sz), *dc = dt_upload(e, NULL, sizeof counts);
            if (dt_ok(e, pp_dist_reduce(e->d, t, op, din, n, dred), "pp_dist_reduce")) dt_download(e, &red, dred, sz);
            if (dt_ok(e, pp_dist_scan(e->d, t, op, kind, din, dout, n), "pp_dist_scan")) dt_download(e, out, dout, n * sz);
            unsigned char lo[8], hi[8];
            dt_set_num(t, lo, 0, 0.0);
            dt_set_num(t, hi, 0, 100.0);
            if (dt_ok(e, pp_dist_histogram_even(e->d, t, dk, n, lo, hi, 16, dc), "pp_dist_histogram_even"))
                dt_download(e, counts, dc, sizeof counts);
            unsigned char *sorted = malloc(n * sz + 1);
            if (dt_ok(e, pp_dist_sort(e->d, t, dk, n, layout % 2 ? PP_DESCENDING : PP_ASCENDING), "pp_dist_sort"))
                dt_download(e, sorted, dk, n * sz);
            void *all_in, *all_out, *all_red, *all_keys, *all_sorted, *all_counts;
            size_t total = dt_gather(in, n * sz, &all_in, NULL) / sz;
            dt_gather(out, n * sz, &all_out, NULL);
            dt_gather(&red, sz, &all_red, NULL);
            dt_gather(keys, n * sz, &all_keys, NULL);
            dt_gather(sorted, n * sz, &all_sorted, NULL);
            dt_gather(counts, sizeof counts, &all_counts, NULL);
            if (e->rank == 0) {
                uint64_t want = 0, wc[16];
                ref_reduce(t, op, all_in, total, &want);
                for (int k = 0; k < e->size; k++) dt_equal(t, (char *)all_red + (size_t)k * sz, &want, 1, "reduce");
                void *ref = malloc(total * sz + 1);
                ref_scan(t, op, kind, all_in, ref, total);
                dt_equal(t, all_out, ref, total, "scan (gathered)");
                ref_histogram_even(t, all_keys, total, lo, hi, 16, wc);
                for (int k = 0; k < e->size; k++) dt_equal(PP_U64, (uint64_t *)all_counts + 16 * k, wc, 16, "histogram");
                ref_sort_pairs(t, all_keys, NULL, 0, total, layout % 2 ? PP_DESCENDING : PP_ASCENDING);
                dt_bits(t, all_sorted, all_keys, total, "sort (gathered)");
                free(ref);
            }
            free(all_in), free(all_out), free(all_red), free(all_keys), free(all_sorted), free(all_counts);
            dt_free(e, din), dt_free(e, dout), dt_free(e, dred), dt_free(e, dk), dt_free(e, dc);
            free(in), free(out), free(keys), free(sorted);
        }
    }
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv, "test_dist_nccl");
    int rank, size, ngpu = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess) ngpu = 0;
    int min_gpu = ngpu;
    MPI_Allreduce(&ngpu, &min_gpu, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (min_gpu == 0 || pp_backend_status(PP_BACKEND_CUDA) != PP_SUCCESS) {
        if (rank == 0) tc_skip(NULL, "no GPU for the cuda backend here");
        return dt_finish("test_dist_nccl");
    }
    if (min_gpu < size) { /* NCCL: one rank per device */
        if (rank == 0) tc_skip(NULL, "%d ranks on %d GPUs: NCCL needs one rank per GPU", size, min_gpu);
        return dt_finish("test_dist_nccl");
    }
    dt_env e;
    memset(&e, 0, sizeof e);
    e.rank = rank;
    e.size = size;
    e.backend = PP_BACKEND_CUDA;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CUDA;
    o.device = rank;
    ncclUniqueId id;
    if (rank == 0) ncclGetUniqueId(&id);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    cudaSetDevice(rank);
    ncclComm_t comm;
    ncclResult_t nr = ncclCommInitRank(&comm, size, id, rank);
    pp_status st = pp_create(&e.ctx, &o);
    if (nr != ncclSuccess || st != PP_SUCCESS) {
        dt_fail("setup: ncclCommInitRank %s, pp_create %s", ncclGetErrorString(nr), pp_status_string(st));
        return dt_finish("test_dist_nccl");
    }
    if (dt_ok(&e, pp_dist_create_nccl(&e.d, e.ctx, comm), "pp_dist_create_nccl")) {
        if (rank == 0) printf("engine %s on %s\n", pp_dist_engine_name(e.d), pp_context_device_name(e.ctx));
        run_cases(&e);
        pp_dist_destroy(e.d);
    }
    pp_destroy(e.ctx);
    ncclCommDestroy(comm);
    return dt_finish("test_dist_nccl");
}
