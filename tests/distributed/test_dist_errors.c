/* Errors of parprim_mpi: a bad argument on one rank, parameters that differ
 * between ranks (type, operator, kind, order, value_size, bins, comparison
 * value, PP_ALGO_EXACT or not for a float sum), and even a different call
 * on one rank, must give an error on every rank, with a message naming the
 * call and the argument (or the rank that failed), outputs untouched, and
 * no rank left waiting (scripts/dist-check runs this under a timeout).
 * After each, a valid call must still work: the ranks are still in step. */
#include "dist_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dt_env e;
static int last; /* the last rank: the odd one out */

/* Every rank got want; msg (of the odd rank when odd, else of the others)
 * contains text. */
static void expect(pp_status st, pp_status want, int odd, const char *odd_text, const char *other_text)
{
    const char *msg = pp_dist_last_error(e.d);
    DT_CHECK(st == want, "status %s, expected %s (%s)", pp_status_string(st), pp_status_string(want), msg);
    const char *text = odd ? odd_text : other_text;
    if (st != PP_SUCCESS && text) DT_CHECK(strstr(msg, text) != NULL, "message '%s' lacks '%s'", msg, text);
}

static void still_in_step(void)
{
    uint32_t one = 1, sum = 0;
    void *din = dt_upload(&e, &one, 4), *dout = dt_upload(&e, NULL, 4);
    if (dt_ok(&e, pp_dist_reduce(e.d, PP_U32, PP_SUM, din, 1, dout), "pp_dist_reduce after an error")) {
        dt_download(&e, &sum, dout, 4);
        DT_CHECK(sum == (uint32_t)e.size, "sum of ones %u on %d ranks", sum, e.size);
    }
    dt_free(&e, din);
    dt_free(&e, dout);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv, "test_dist_errors");
    if (!dt_open(&e, PP_BACKEND_CPU)) return dt_finish("test_dist_errors");
    last = e.size - 1;
    int odd = e.rank == last, multi = e.size > 1;
    char other[64];
    snprintf(other, sizeof other, "rank %d failed", last);
    enum { N = 100 };
    uint32_t host[N], out_host[N];
    for (int i = 0; i < N; i++) host[i] = (uint32_t)(i * 7 + e.rank);
    void *din = dt_upload(&e, host, sizeof host), *dout = dt_upload(&e, host, sizeof host);

    dt_case("NULL 'out' of pp_dist_reduce on rank %d", last);
    expect(pp_dist_reduce(e.d, PP_U32, PP_SUM, din, N, odd ? NULL : dout), PP_ERROR_INVALID_ARGUMENT, odd,
           "pp_dist_reduce: argument 'out' is NULL", other);
    still_in_step();

    dt_case("NULL 'in' of pp_dist_scan with n_local > 0 on rank %d", last);
    expect(pp_dist_scan(e.d, PP_U32, PP_SUM, PP_INCLUSIVE, odd ? NULL : din, dout, N), PP_ERROR_INVALID_ARGUMENT, odd,
           "argument 'in' is NULL", other);
    dt_download(&e, out_host, dout, sizeof out_host);
    DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_scan wrote 'out' although it failed");
    still_in_step();

    dt_case("NULL 'in' of an exact pp_dist_scan (f32 sum) on rank %d", last);
    pp_set_algorithm(e.ctx, PP_PRIM_SCAN, PP_ALGO_EXACT);
    expect(pp_dist_scan(e.d, PP_F32, PP_SUM, PP_EXCLUSIVE, odd ? NULL : din, dout, N), PP_ERROR_INVALID_ARGUMENT, odd,
           "argument 'in' is NULL", other);
    dt_download(&e, out_host, dout, sizeof out_host);
    DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "the exact pp_dist_scan wrote 'out' although it failed");
    pp_set_algorithm(e.ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
    still_in_step();

    dt_case("a bitwise operator on f32 on rank %d only", last);
    expect(pp_dist_reduce(e.d, PP_F32, odd ? PP_XOR : PP_SUM, din, N, dout), PP_ERROR_UNSUPPORTED, odd,
           "argument 'op' xor is not defined on f32", other);
    still_in_step();

    dt_case("an unknown scan kind on rank %d", last);
    expect(pp_dist_scan(e.d, PP_U32, PP_SUM, odd ? (pp_scan_kind)7 : PP_INCLUSIVE, din, dout, N),
           PP_ERROR_INVALID_ARGUMENT, odd, "argument 'kind'", other);
    still_in_step();

    dt_case("value_size 3 of pp_dist_sort_pairs on rank %d", last);
    expect(pp_dist_sort_pairs(e.d, PP_U32, din, dout, odd ? 3 : 4, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, odd,
           "argument 'value_size'", other);
    dt_download(&e, out_host, din, sizeof out_host);
    DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_sort_pairs sorted the keys although it failed");
    still_in_step();

    dt_case("lower >= upper of pp_dist_histogram_even on every rank");
    {
        uint32_t lo = 10, hi = 5;
        void *dc = dt_upload(&e, NULL, 8 * 4);
        pp_status st = pp_dist_histogram_even(e.d, PP_U32, din, N, &lo, &hi, 4, dc);
        expect(st, PP_ERROR_INVALID_ARGUMENT, 1, "pp_histogram_even", NULL);
        dt_free(&e, dc);
    }
    still_in_step();

    dt_case("pp_dist_* with d == NULL");
    expect(pp_dist_sort(NULL, PP_U32, din, N, PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, 1, NULL, NULL);
    DT_CHECK(strstr(pp_dist_last_error(NULL), "pp_dist_sort: argument 'd' is NULL") != NULL, "message '%s'",
             pp_dist_last_error(NULL));

    if (multi) {
        dt_case("type i32 on rank %d, u32 elsewhere (pp_dist_scan)", last);
        expect(pp_dist_scan(e.d, odd ? PP_I32 : PP_U32, PP_SUM, PP_INCLUSIVE, din, dout, N), PP_ERROR_INVALID_ARGUMENT,
               odd, "different parameters", "different parameters");
        dt_download(&e, out_host, dout, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_scan wrote 'out' although the types differed");
        still_in_step();

        dt_case("operator max on rank %d, min elsewhere (pp_dist_reduce)", last);
        expect(pp_dist_reduce(e.d, PP_U32, odd ? PP_MAX : PP_MIN, din, N, dout), PP_ERROR_INVALID_ARGUMENT, odd,
               "different parameters", "different parameters");
        still_in_step();

        dt_case("scan kind exclusive on rank %d, inclusive elsewhere", last);
        expect(pp_dist_scan(e.d, PP_U32, PP_SUM, odd ? PP_EXCLUSIVE : PP_INCLUSIVE, din, dout, N),
               PP_ERROR_INVALID_ARGUMENT, odd, "different parameters", "different parameters");
        still_in_step();

        dt_case("order descending on rank %d, ascending elsewhere (pp_dist_sort)", last);
        expect(pp_dist_sort(e.d, PP_U32, din, N, odd ? PP_DESCENDING : PP_ASCENDING), PP_ERROR_INVALID_ARGUMENT, odd,
               "different parameters", "different parameters");
        dt_download(&e, out_host, din, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_sort sorted the keys although the orders differed");
        still_in_step();

        dt_case("nbins 5 on rank %d, 4 elsewhere (pp_dist_histogram_even)", last);
        {
            uint32_t lo = 0, hi = 1000;
            void *dc = dt_upload(&e, NULL, 8 * 5);
            expect(pp_dist_histogram_even(e.d, PP_U32, din, N, &lo, &hi, odd ? 5 : 4, dc), PP_ERROR_INVALID_ARGUMENT,
                   odd, "different parameters", "different parameters");
            dt_free(&e, dc);
        }
        still_in_step();

        dt_case("select_if value 7 on rank %d, 8 elsewhere", last);
        {
            uint32_t v = odd ? 7 : 8;
            pp_dist_counts c;
            expect(pp_dist_select_if(e.d, PP_U32, din, N, PP_LT, &v, dout, &c), PP_ERROR_INVALID_ARGUMENT, odd,
                   "different parameters", "different parameters");
        }
        still_in_step();

        dt_case("PP_ALGO_EXACT for reduce on rank %d only (an f32 sum)", last);
        if (odd) dt_ok(&e, pp_set_algorithm(e.ctx, PP_PRIM_REDUCE, PP_ALGO_EXACT), "pp_set_algorithm");
        expect(pp_dist_reduce(e.d, PP_F32, PP_SUM, din, N, dout), PP_ERROR_INVALID_ARGUMENT, odd,
               "different parameters", "different parameters");
        pp_set_algorithm(e.ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO);
        still_in_step();

        dt_case("PP_ALGO_EXACT for scan everywhere but on rank %d (an f64 sum)", last);
        if (!odd) dt_ok(&e, pp_set_algorithm(e.ctx, PP_PRIM_SCAN, PP_ALGO_EXACT), "pp_set_algorithm");
        expect(pp_dist_scan(e.d, PP_F64, PP_SUM, PP_INCLUSIVE, din, dout, N / 2), PP_ERROR_INVALID_ARGUMENT, odd,
               "different parameters", "different parameters");
        dt_download(&e, out_host, dout, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_scan wrote 'out' although the algorithms differed");
        pp_set_algorithm(e.ctx, PP_PRIM_SCAN, PP_ALGO_AUTO);
        still_in_step();

        dt_case("pp_dist_reduce on rank %d, pp_dist_scan elsewhere", last);
        pp_status st = odd ? pp_dist_reduce(e.d, PP_U32, PP_SUM, din, N, dout)
                           : pp_dist_scan(e.d, PP_U32, PP_SUM, PP_INCLUSIVE, din, dout, N);
        expect(st, PP_ERROR_INVALID_ARGUMENT, odd, "different parameters", "different parameters");
        still_in_step();
    }

    /* argsort, top_k, rebalance: outputs untouched (dout holds host) */
    dt_case("NULL 'indices_out' of pp_dist_argsort on rank %d", last);
    expect(pp_dist_argsort(e.d, PP_U32, din, N / 2, PP_ASCENDING, odd ? NULL : dout), PP_ERROR_INVALID_ARGUMENT, odd,
           "pp_dist_argsort: argument 'indices_out' is NULL", other);
    dt_download(&e, out_host, dout, sizeof out_host);
    DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_argsort wrote 'indices_out' although it failed");
    still_in_step();

    dt_case("k above the global length of pp_dist_top_k on every rank");
    expect(pp_dist_top_k(e.d, PP_U32, din, 2, (size_t)(2 * e.size + 1), PP_DESCENDING, dout, NULL),
           PP_ERROR_INVALID_ARGUMENT, 1, "pp_dist_top_k: argument 'k' (", NULL);
    DT_CHECK(strstr(pp_dist_last_error(e.d), "larger than the global length") != NULL, "message '%s'",
             pp_dist_last_error(e.d));
    dt_download(&e, out_host, dout, sizeof out_host);
    DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_top_k wrote 'keys_out' although it failed");
    still_in_step();

    dt_case("'out_capacity' below its share of pp_dist_rebalance on rank %d", last);
    {
        size_t n_out = 12345; /* N / 2 each: a share of N / 2 everywhere */
        char want[96];
        snprintf(want, sizeof want, "rank %d failed (its 'out_capacity'", last);
        expect(pp_dist_rebalance(e.d, 4, din, N / 2, dout, odd ? N / 2 - 1 : N / 2, &n_out), PP_ERROR_INVALID_ARGUMENT,
               odd, "pp_dist_rebalance: argument 'out_capacity' (49) is below this rank's share of 50", want);
        DT_CHECK(n_out == 12345, "pp_dist_rebalance wrote 'n_out' although it failed");
        dt_download(&e, out_host, dout, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_rebalance wrote 'out' although it failed");
    }
    still_in_step();

    if (multi) {
        dt_case("k 3 on rank %d, 2 elsewhere (pp_dist_top_k)", last);
        expect(pp_dist_top_k(e.d, PP_U32, din, N, odd ? 3 : 2, PP_ASCENDING, dout, NULL), PP_ERROR_INVALID_ARGUMENT,
               odd, "different parameters", "different parameters");
        dt_download(&e, out_host, dout, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_top_k wrote 'keys_out' although the k differed");
        still_in_step();

        dt_case("NULL 'indices_out' of pp_dist_top_k on rank %d only", last);
        {
            void *dind = dt_upload(&e, NULL, 2 * 8);
            expect(pp_dist_top_k(e.d, PP_U32, din, N, 2, PP_ASCENDING, dout, odd ? NULL : dind),
                   PP_ERROR_INVALID_ARGUMENT, odd, "different parameters", "different parameters");
            dt_free(&e, dind);
        }
        dt_download(&e, out_host, dout, sizeof out_host);
        DT_CHECK(memcmp(out_host, host, sizeof host) == 0, "pp_dist_top_k wrote 'keys_out' although it failed");
        still_in_step();
    }

    dt_case("pp_dist_create with a NULL context on rank %d", last);
    {
        pp_dist *d2 = (pp_dist *)&e; /* must become NULL */
        pp_status st = pp_dist_create(&d2, odd ? NULL : e.ctx, MPI_COMM_WORLD);
        DT_CHECK(st == PP_ERROR_INVALID_ARGUMENT && d2 == NULL, "pp_dist_create: %s, d %p", pp_status_string(st),
                 (void *)d2);
        const char *want = odd ? "argument 'ctx' is NULL" : other;
        DT_CHECK(strstr(pp_dist_last_error(NULL), want) != NULL, "message '%s' lacks '%s'", pp_dist_last_error(NULL), want);
    }
    still_in_step();

    dt_free(&e, din);
    dt_free(&e, dout);
    dt_close(&e);
    return dt_finish("test_dist_errors");
}
