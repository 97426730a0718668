/* Uses an installed parprim_mpi (run under mpirun): rank r holds 1000 + r % 8
 * elements, the whole array being 1, 2, ..., N in rank order; pp_dist_reduce
 * sums it on every rank, which checks N (N + 1) / 2. A failure on one rank
 * (no context, no memory) fails the collective call on every rank, so no
 * rank waits for another. */
#include <parprim_mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t host[1008], sum = -1;
    const int64_t n = 1000 + rank % 8;
    int64_t first = 0, total = 0; /* this rank's first value - 1; N */
    for (int q = 0; q < size; q++) {
        const int64_t nq = 1000 + q % 8;
        if (q < rank) first += nq;
        total += nq;
    }
    for (int64_t i = 0; i < n; i++) host[i] = first + i + 1;

    pp_context *ctx = NULL;
    pp_dist *d = NULL;
    int64_t *in = NULL, *out = NULL;
    if (pp_create(&ctx, NULL) == PP_SUCCESS && (pp_malloc(ctx, (void **)&in, (size_t)n * sizeof *in) != PP_SUCCESS ||
                                                pp_malloc(ctx, (void **)&out, sizeof *out) != PP_SUCCESS ||
                                                pp_upload(ctx, in, host, (size_t)n * sizeof *in) != PP_SUCCESS)) {
        pp_free(ctx, in);
        in = NULL; /* pp_dist_reduce then fails on every rank */
    }
    pp_status st = pp_dist_create(&d, ctx, MPI_COMM_WORLD);
    if (st == PP_SUCCESS) st = pp_dist_reduce(d, PP_I64, PP_SUM, in, (size_t)n, out);
    if (st == PP_SUCCESS) st = pp_download(ctx, &sum, out, sizeof sum);
    int ok = st == PP_SUCCESS && sum == total * (total + 1) / 2, all_ok = 0;
    if (st != PP_SUCCESS) fprintf(stderr, "rank %d: %s\n", rank, d ? pp_dist_last_error(d) : pp_dist_last_error(NULL));
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) printf("parprim_mpi on %d ranks (%s): %s\n", size, pp_dist_engine_name(d), all_ok ? "ok" : "FAILED");
    pp_dist_destroy(d);
    pp_free(ctx, in);
    pp_free(ctx, out);
    pp_destroy(ctx);
    MPI_Finalize();
    return ok ? 0 : 1;
}
