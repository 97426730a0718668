/*
 * pp bench: one case (variant, type, operator, n, data set): its host
 * input (bench_data.h's generators, picked and seeded per case) and context
 * buffers, the call that is timed, and the check of its result against the
 * sequential reference.
 */
#ifndef PP_BENCH_CASE_H
#define PP_BENCH_CASE_H

#include "bench.h"

typedef struct case_spec {
    variant v;
    pp_type type;
    pp_op op;
    size_t n;
    dataset data;         /* histograms: the --data set */
} case_spec;

typedef struct bench_case {
    variant v;
    pp_type type;
    pp_op op;
    size_t n, esz;
    uint64_t seed;        /* --seed */
    char label[48];
    dataset data;         /* histograms: the --data set */
    int skipped;          /* setup refused the case (not a failure): the message says why */

    /* host */
    void *h_in;
    uint8_t *h_flags;
    uint32_t *h_vals;
    unsigned char lower[8], upper[8], value[8];
    void *h_edges;
    size_t nbins;
    void *h_out;          /* downloads */
    uint32_t *h_out_vals;
    uint64_t h_count;

    /* reference results, computed on first use */
    int ref_ready;
    void *r_out;
    uint32_t *r_vals;
    uint64_t r_count;

    /* context memory */
    void *d_in, *d_out, *d_flags, *d_vals, *d_vals_work, *d_count;
} bench_case;

/* The reference sort is by far the slowest reference. sort_keys and
 * sort_pairs of one type and size sort the same keys and run one after the
 * other, so when both are benchmarked (want_vals), sort_keys computes the
 * reference with values and keeps it here for sort_pairs. */
typedef struct sort_ref_cache {
    int want_vals;
    int valid, has_vals;
    pp_type type;
    size_t n;
    uint64_t seed;
    void *keys;
    uint32_t *vals;
} sort_ref_cache;

/* Forgets the kept sort (want_vals stays). */
void sort_ref_clear(sort_ref_cache *cache);

/* Makes the input of the case and its context buffers. Returns NULL, or
 * why the case cannot run: c->skipped set if the case does not fit (not a
 * failure), else an error (a library call's status in *st). c is to be
 * freed with case_free either way. */
const char *case_setup(pp_context *ctx, bench_case *c, const case_spec *spec, const config *cfg, pp_status *st);
void case_free(pp_context *ctx, bench_case *c);

/* Bytes of the output array (and of its host copies). */
size_t case_out_bytes(const bench_case *c);

/* Prepares (untimed: sorts get a fresh copy of their input), runs and
 * waits for one call; *sec is the time of the call and pp_synchronize. */
pp_status case_run(pp_context *ctx, bench_case *c, double *sec);
/* case_run as a run_fn (arg: the bench_case). */
pp_status case_run_fn(pp_context *ctx, void *arg, double *sec);

/* Downloads the result of the last run and compares it with the reference.
 * Returns 1 if equal; else 0 with a description in msg (and the status of
 * a failed library call in *st). */
int case_check(pp_context *ctx, bench_case *c, sort_ref_cache *cache, char *msg, size_t cap, pp_status *st);

/* Bytes the primitive must move (the byte model of bench.h). */
double case_bytes(const bench_case *c);

/* Operator applications of the textbook algorithm a on one array of n, as
 * the course notes count them. Returns 0 where the notes count nothing for
 * the algorithm or the count does not fit 64 bits; else 1 with the count
 * in *ops. */
int algo_ops(variant v, pp_algorithm a, size_t n, uint64_t *ops);

#endif
