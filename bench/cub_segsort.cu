// bench_cub's rows of the segmented sorts (--only segsort), beside CUB's counterparts.
#include <cub/cub.cuh>

#include "cub_rows.cuh"

void run_segsort_rows(size_t n, int lg, double copy)
{
    (void)n;
    (void)lg;
    (void)copy;
}
