/* The memory limits of the cpu compaction primitives on this machine: the
 * best time, over OpenMP threads, of reading an array (a sum), of memcpy,
 * and of copies with streaming and with ordinary 64-byte stores.
 *
 * partition_if keeps the rejected elements in input order, so none can be
 * written before the total of selected elements is known: it reads its input
 * twice and writes it once. Its least time is read(n) + copy(n), the copy
 * the faster of memcpy and the streaming-store loop; pp bench's yardstick is
 * pp_copy(n) (memcpy on each thread's part), so the most partition_if can
 * show there is about memcpy / (read + copy).
 *
 * Build and run (x86-64 with AVX-512):
 *   gcc -O2 -mavx512f -fopenmp bench/studies/cpu_bandwidth.c -o /tmp/cpu_bw && /tmp/cpu_bw [log2 n]
 */
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void keep_best(double *best, double t0) { double t = omp_get_wtime() - t0; if (t < *best) *best = t; }

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 24;
    const size_t n = (size_t)1 << lg, bytes = n * 4;
    uint32_t *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
    if (!a || !b || lg < 10 || lg > 32) return 1;
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)(i * 2654435761u), b[i] = (uint32_t)i;
    double rd = 1e9, mc = 1e9, nt = 1e9, pl = 1e9;
    uint64_t sink = 0;
    for (int r = 0; r < 15; r++) {
        double t0 = omp_get_wtime();
        uint64_t s = 0;
#pragma omp parallel for reduction(+ : s)
        for (size_t i = 0; i < n; i += 16) s += (uint32_t)_mm512_reduce_add_epi32(_mm512_load_si512(a + i));
        keep_best(&rd, t0);
        sink += s;
        t0 = omp_get_wtime();
#pragma omp parallel
        {
            const size_t parts = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
            const size_t lo = bytes / parts * me, hi = me + 1 == parts ? bytes : bytes / parts * (me + 1);
            memcpy((char *)b + lo, (const char *)a + lo, hi - lo);
        }
        keep_best(&mc, t0);
        t0 = omp_get_wtime();
#pragma omp parallel for
        for (size_t i = 0; i < n; i += 16) _mm512_stream_si512((void *)(b + i), _mm512_load_si512(a + i));
        _mm_sfence();
        keep_best(&nt, t0);
        t0 = omp_get_wtime();
#pragma omp parallel for
        for (size_t i = 0; i < n; i += 16) _mm512_store_si512((void *)(b + i), _mm512_load_si512(a + i));
        keep_best(&pl, t0);
    }
    printf("%zu MiB, %d threads, best of 15 (ms): read %.3f (%.1f GB/s), memcpy %.3f, streaming-store copy %.3f, "
           "plain-store copy %.3f; read + copy %.3f: a stable partition's limit, %.2f of memcpy\n",
           bytes >> 20, omp_get_max_threads(), 1e3 * rd, bytes / rd / 1e9, 1e3 * mc, 1e3 * nt, 1e3 * pl,
           1e3 * (rd + (nt < mc ? nt : mc)), mc / (rd + (nt < mc ? nt : mc)));
    free(a);
    free(b);
    return (int)(sink & 0);
}
