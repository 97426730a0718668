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
    const seg_layout *layout; /* segmented and by-key variants: the --segments layout */
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
    seg_layout layout;    /* segmented and by-key variants: segments, or runs of keys */
    size_t nseg;          /* their number */

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

    /* segmented and by-key variants (bench_keyed.c); segmented_sort_pairs
     * has its values in h_vals, d_vals and d_vals_work as sort_pairs */
    uint64_t *h_offsets;   /* nseg + 1 bounds of the segments (by-key: of the runs) */
    void *h_values;        /* by-key values (of the case's type) */
    void *h_out2, *r_out2; /* the second output: values_out (reduce_by_key), counts (run_length_encode) */

    /* context memory */
    void *d_in, *d_out, *d_flags, *d_vals, *d_vals_work, *d_count;
    void *d_offsets, *d_values, *d_out2;
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

/* *p = a context buffer of b bytes, with the host data h if h is not NULL.
 * Returns NULL, or the library's message (its status in *st). */
const char *context_buffer(pp_context *ctx, void **p, const void *h, size_t b, pp_status *st);

/* The segmented, by-key and argsort variants (variant_is_keyed), in
 * bench_keyed.c; bench_case.c and bench_check.c hand these cases over. */
/* Input and context buffers (c->v, type, op, n, esz, seed, layout set);
 * as case_setup. */
const char *keyed_setup(pp_context *ctx, bench_case *c, pp_status *st);
/* Untimed preparation (the segmented sorts' fresh input); the timed call. */
pp_status keyed_prepare(pp_context *ctx, bench_case *c);
pp_status keyed_call(pp_context *ctx, bench_case *c);
/* As case_check. */
int keyed_check(pp_context *ctx, bench_case *c, char *msg, size_t cap, pp_status *st);
/* The byte model of bench.h. */
double keyed_bytes(const bench_case *c);
/* Downloads into h and compares count elements of type with want (the
 * reference); returns 1 if equal, else 0 with a message: "name[i] is X,
 * expected Y", or the failed download's (its status in *st). */
int check_array(pp_context *ctx, pp_type type, void *h, const void *d, const void *want, size_t count,
                const char *name, char *msg, size_t cap, pp_status *st);

/* Operator applications of the textbook algorithm a on one array of n, as
 * the course notes count them. Returns 0 where the notes count nothing for
 * the algorithm or the count does not fit 64 bits; else 1 with the count
 * in *ops. */
int algo_ops(variant v, pp_algorithm a, size_t n, uint64_t *ops);

#endif
