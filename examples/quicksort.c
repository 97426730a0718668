/* Blelloch's quicksort, all segments at once (examples/quicksort.md): each
 * round splits every unfinished segment around its first element into
 * the keys below it, equal to it and above it, until every segment holds
 * one key or equal keys; checked against qsort, and timed beside pp_sort.
 *
 * parprim has no elementwise map yet (issue 46's user operators), so the
 * comparison of each key with its own segment's pivot cannot be a flag
 * computed per element. It is a search instead: a segment is always the
 * set of keys between two neighbouring pivots chosen so far, so a sorted
 * array Q of every pivot's two markers tells each key its segment. Keys
 * are held as X = 2k + 1 (u64, odd), a pivot p as the markers 2p and
 * 2p + 2 (even); the number of markers below X (pp_lower_bound) counts 2
 * for each pivot below k, 1 for a pivot equal to k, 0 for one above: its
 * value is the key's new segment id (odd: equal to a pivot, finished), in
 * the order of the segments. One round:
 *   g = pp_lower_bound(Q, X)                      the split's three flags
 *   pp_sort_pairs(g, X), stable                   the scatter into segments
 *   pp_run_length_encode(g)                       segment sizes (host: offsets)
 *   rank = pp_segmented_scan(ones), exclusive     position in the segment
 *   pp_sort_pairs_copy(rank, X), stable           heads (rank 0) to the front
 *   host: each open segment's head X gives 2 markers; pp_merge them into Q
 * The host does per-segment bookkeeping only (offsets, markers): no pass
 * over the keys. */
#include "example_common.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "quicksort: out of host memory\n");
        exit(2);
    }
    return p;
}

/* Sorts the n keys of d_x (X = 2k + 1 form) in place; returns the number
 * of rounds, or -1 where max_rounds did not suffice. */
static int quicksort_rounds(pp_context *ctx, void *d_x, size_t n, int max_rounds)
{
    void *d_g = ex_alloc(ctx, n * 8), *d_gv = ex_alloc(ctx, n * 8), *d_cnt = ex_alloc(ctx, n * 8);
    void *d_count = ex_alloc(ctx, 8), *d_off = ex_alloc(ctx, (n + 1) * 8), *d_ones = ex_alloc(ctx, n * 4);
    void *d_rank = ex_alloc(ctx, n * 4), *d_ranks = ex_alloc(ctx, n * 4), *d_heads = ex_alloc(ctx, n * 8);
    void *d_q = ex_alloc(ctx, (2 * n + 2) * 8), *d_q2 = ex_alloc(ctx, (2 * n + 2) * 8), *d_m = ex_alloc(ctx, 2 * n * 8);
    uint64_t *gv = host_alloc(n * 8), *cnt = host_alloc(n * 8), *off = host_alloc((n + 1) * 8);
    uint64_t *heads = host_alloc(n * 8), *mark = host_alloc(2 * n * 8);
    uint32_t *ones = host_alloc(n * 4);
    for (size_t i = 0; i < n; i++) ones[i] = 1;
    ex_ok(ctx, pp_upload(ctx, d_ones, ones, n * 4), "pp_upload");
    size_t nq = 0; /* markers in d_q */
    int round = 0;
    for (;; round++) {
        uint64_t nseg = 0;
        ex_ok(ctx, pp_lower_bound(ctx, PP_U64, d_q, nq, PP_ASCENDING, d_x, n, d_g), "pp_lower_bound");
        ex_ok(ctx, pp_sort_pairs(ctx, PP_U64, d_g, d_x, 8, n, PP_ASCENDING), "pp_sort_pairs");
        ex_ok(ctx, pp_run_length_encode(ctx, PP_U64, d_g, n, d_gv, d_cnt, d_count), "pp_run_length_encode");
        ex_ok(ctx, pp_download(ctx, &nseg, d_count, 8), "pp_download");
        ex_ok(ctx, pp_download(ctx, gv, d_gv, nseg * 8), "pp_download");
        ex_ok(ctx, pp_download(ctx, cnt, d_cnt, nseg * 8), "pp_download");
        size_t open = 0;
        off[0] = 0;
        for (size_t s = 0; s < nseg; s++) {
            off[s + 1] = off[s] + cnt[s];
            open += (gv[s] % 2 == 0 && cnt[s] > 1); /* between pivots, two keys or more */
        }
        if (!open) break;
        if (round == max_rounds) {
            round = -1;
            break;
        }
        /* the first key of every segment: its rank in the segment is 0 */
        ex_ok(ctx, pp_upload(ctx, d_off, off, (nseg + 1) * 8), "pp_upload");
        ex_ok(ctx, pp_segmented_scan(ctx, PP_U32, PP_SUM, PP_EXCLUSIVE, d_ones, d_rank, n, d_off, nseg),
              "pp_segmented_scan");
        ex_ok(ctx, pp_sort_pairs_copy(ctx, PP_U32, d_rank, d_x, d_ranks, d_heads, 8, n, PP_ASCENDING),
              "pp_sort_pairs_copy");
        ex_ok(ctx, pp_download(ctx, heads, d_heads, nseg * 8), "pp_download");
        size_t nm = 0;
        for (size_t s = 0; s < nseg; s++) {
            if (gv[s] % 2 || cnt[s] < 2) continue;
            mark[nm++] = heads[s] - 1;
            mark[nm++] = heads[s] + 1;
        }
        ex_ok(ctx, pp_upload(ctx, d_m, mark, nm * 8), "pp_upload");
        ex_ok(ctx, pp_merge(ctx, PP_U64, d_q, nq, d_m, nm, d_q2, PP_ASCENDING), "pp_merge");
        void *t = d_q;
        d_q = d_q2;
        d_q2 = t;
        nq += nm;
    }
    void *bufs[] = {d_g, d_gv, d_cnt, d_count, d_off, d_ones, d_rank, d_ranks, d_heads, d_q, d_q2, d_m};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) pp_free(ctx, bufs[i]);
    free(gv), free(cnt), free(off), free(heads), free(mark), free(ones);
    return round;
}

static int body(pp_context *ctx, const ex_args *a)
{
    size_t n = a->n;
    uint64_t rng = a->seed, few[16];
    uint32_t *key = host_alloc(n * 4), *ref = host_alloc(n * 4), *out = host_alloc(n * 4);
    uint64_t *x = host_alloc(n * 8);
    /* three keys in four uniform, one in four from 16 values (runs of
     * equal keys: the split's middle part) */
    for (int i = 0; i < 16; i++) few[i] = ex_next(&rng) >> 32;
    for (size_t i = 0; i < n; i++)
        key[i] = (uint32_t)(ex_below(&rng, 4) ? ex_next(&rng) >> 32 : few[ex_below(&rng, 16)]);
    memcpy(ref, key, n * 4);
    double t0 = ex_now();
    qsort(ref, n, 4, cmp_u32);
    double t_seq = ex_now() - t0;

    void *d_x = ex_alloc(ctx, n * 8), *d_k = ex_alloc(ctx, n * 4);
    for (size_t i = 0; i < n; i++) x[i] = 2 * (uint64_t)key[i] + 1;
    ex_ok(ctx, pp_upload(ctx, d_x, x, n * 8), "pp_upload");
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    /* a cap far above the expected rounds (about 4.3 ln n, the height of a
     * random binary search tree), reached only by degenerate pivots */
    int cap = 64;
    for (size_t m = n; m > 1; m /= 2) cap += 8;
    t0 = ex_now();
    int rounds = quicksort_rounds(ctx, d_x, n, cap);
    ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
    double t_qs = ex_now() - t0;
    if (rounds < 0)
        fprintf(stderr,
                "quicksort: still unsorted after %d rounds, stopped: the first-element pivots split too "
                "unevenly (presorted input takes n rounds)\n",
                cap);
    ex_ok(ctx, pp_download(ctx, x, d_x, n * 8), "pp_download");
    for (size_t i = 0; i < n; i++) out[i] = (uint32_t)(x[i] >> 1);

    /* pp_sort of the same keys, timed on the second run (the first sets up
     * the context's scratch) */
    double t_sort = 0;
    for (int rep = 0; rep < 2; rep++) {
        ex_ok(ctx, pp_upload(ctx, d_k, key, n * 4), "pp_upload");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        t0 = ex_now();
        ex_ok(ctx, pp_sort(ctx, PP_U32, d_k, n, PP_ASCENDING), "pp_sort");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        t_sort = ex_now() - t0;
    }
    ex_ok(ctx, pp_download(ctx, key, d_k, n * 4), "pp_download");

    size_t bad = 0, bad_sort = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i] != ref[i] && bad++ < 5)
            fprintf(stderr, "quicksort: key %zu is %u, qsort has %u\n", i, out[i], ref[i]);
        bad_sort += key[i] != ref[i];
    }
    if (rounds >= 0) printf("  quicksort by segmented scans: %d rounds, %.3f ms\n", rounds, 1e3 * t_qs);
    printf("  pp_sort (radix): %.3f ms; qsort on the host: %.3f ms\n", 1e3 * t_sort, 1e3 * t_seq);
    if (bad || bad_sort) fprintf(stderr, "quicksort: %zu keys differ (pp_sort: %zu)\n", bad, bad_sort);
    pp_free(ctx, d_x);
    pp_free(ctx, d_k);
    free(key), free(ref), free(out), free(x);
    return bad || bad_sort || rounds < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 20000);
    /* ranks in a segment are u32, positions in Q below 2^31 */
    if (a.n >= 1 && a.n <= (1u << 30)) return ex_run(&a, "quicksort", body);
    fprintf(stderr, "quicksort: --n must be in [1, 2^30]\n");
    return 2;
}
