// bench_cub's rows of the segmented reduce and scan, reduce_by_key, scan_by_key, run_length_encode and argsort (--only segmented,bykey,argsort), beside CUB's counterparts.
#include <cub/cub.cuh>

#include "cub_rows.cuh"

void run_keyed_rows(size_t n, int lg, double copy)
{
    (void)n;
    (void)lg;
    (void)copy;
}
