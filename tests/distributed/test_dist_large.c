/* More than 2^31 elements over the ranks: a u8 inclusive SUM scan (out of
 * place) and a u8 sort, on the cpu backend. Each rank checks its own part
 * (no gathering: rank 0 could not hold it all): the scan from the prefix of
 * the ranks below (MPI_Exscan of the part sums, mod 256), the sort against
 * the global histogram of the input (the sorted sequence is fully known
 * from it). Memory is asked for first: about 2 bytes per element over all
 * ranks (input and output; then the keys and the library's receive
 * buffer), against what the host has free (cgroup limit included); where
 * it is short the test is skipped with the reason. PARPRIM_TEST_LARGE_N
 * sets another total. */
#include "dist_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOTAL (((uint64_t)1 << 31) + ((uint64_t)1 << 20) + 7)

static void fill(tc_rng *r, uint8_t *p, size_t n) { tc_fill_random(r, p, n); }

int main(int argc, char **argv)
{
    dt_init(&argc, &argv, "test_dist_large");
    dt_env e;
    if (!dt_open(&e, PP_BACKEND_CPU)) return dt_finish("test_dist_large");
    const char *s = getenv("PARPRIM_TEST_LARGE_N");
    uint64_t total = s && *s ? strtoull(s, NULL, 10) : DEFAULT_TOTAL;
    /* uneven parts: rank r gets a share in proportion to r + 1 */
    uint64_t weights = (uint64_t)e.size * (e.size + 1) / 2, before = 0;
    for (int r = 0; r < e.rank; r++) before += total * (uint64_t)(r + 1) / weights;
    size_t n = e.rank == e.size - 1 ? (size_t)(total - before) : (size_t)(total * (uint64_t)(e.rank + 1) / weights);
    int go = 1;
    if (e.rank == 0) {
        uint64_t need = 2 * total + ((uint64_t)e.size << 28) + TC_HOST_RESERVE, have = tc_host_available();
        if (have < need) {
            go = 0;
            tc_skip(NULL, "u8 scan and sort of %llu elements over %d ranks: need %.1f GiB of host memory, %.1f GiB available",
                    (unsigned long long)total, e.size, (double)need / (1 << 30), (double)have / (1 << 30));
        } else {
            printf("  %llu u8 elements over %d ranks (%.1f GiB of %.1f GiB available)\n", (unsigned long long)total,
                   e.size, (double)need / (1 << 30), (double)have / (1 << 30));
        }
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    uint8_t *in = NULL, *out = NULL;
    if (go) {
        in = malloc(n + 1);
        out = malloc(n + 1);
        DT_CHECK(in && out, "malloc of %zu bytes failed", n);
    }
    int ok = in && out, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!go || !all_ok) {
        free(in);
        free(out);
        dt_close(&e);
        return dt_finish("test_dist_large");
    }
    tc_rng r = dt_rng("large");
    fill(&r, in, n);
    double t0 = MPI_Wtime();

    /* scan */
    dt_case("u8 inclusive SUM scan, %llu elements in all, %zu on rank %d", (unsigned long long)total, n, e.rank);
    unsigned long long part = 0, prefix = 0;
    for (size_t i = 0; i < n; i++) part += in[i];
    MPI_Exscan(&part, &prefix, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (e.rank == 0) prefix = 0;
    if (dt_ok(&e, pp_dist_scan(e.d, PP_U8, PP_SUM, PP_INCLUSIVE, in, out, n), "pp_dist_scan")) {
        uint8_t acc = (uint8_t)prefix;
        for (size_t i = 0; i < n; i++) {
            acc = (uint8_t)(acc + in[i]);
            if (out[i] != acc) {
                dt_fail("scan: index %zu of rank %d: got %u, expected %u", i, e.rank, out[i], acc);
                break;
            }
        }
    }
    free(out);
    double t1 = MPI_Wtime();

    /* sort */
    dt_case("u8 sort, %llu elements in all, %zu on rank %d", (unsigned long long)total, n, e.rank);
    unsigned long long hist[256] = {0}, global[256];
    for (size_t i = 0; i < n; i++) hist[in[i]]++;
    MPI_Allreduce(hist, global, 256, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (dt_ok(&e, pp_dist_sort(e.d, PP_U8, in, n, PP_ASCENDING), "pp_dist_sort")) {
        uint64_t pos = before; /* global position of in[0] */
        unsigned v = 0;
        uint64_t end = global[0]; /* the sorted sequence holds value v at [end - global[v], end) */
        for (size_t i = 0; i < n; i++, pos++) {
            while (pos >= end) end += global[++v];
            if (in[i] != v) {
                dt_fail("sort: index %zu of rank %d (global %llu): got %u, expected %u", i, e.rank,
                        (unsigned long long)pos, in[i], v);
                break;
            }
        }
    }
    double t2 = MPI_Wtime();
    if (e.rank == 0) printf("  scan %.1f s, sort %.1f s (with the checks)\n", t1 - t0, t2 - t1);
    free(in);
    dt_close(&e);
    return dt_finish("test_dist_large");
}
