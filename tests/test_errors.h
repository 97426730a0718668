/* The pieces that the files of test_errors share: the fixture (device
 * buffers with known contents, one per backend and group), the checks of a
 * failed call's status, message and (non-)writes, and the groups of cases
 * that run on the fixture.
 *
 *   test_errors_fixture.c  the fixture and the checks
 *   test_errors_prims.c    the bad arguments of each primitive and of the
 *                          exact sums (pp_exact_*)
 *   test_errors_segsort.c  those of the segmented sort
 *   test_errors_keyed.c    those of the by-key forms
 *   test_errors_topk.c     those of pp_top_k and pp_scan_init
 *   test_errors_search.c   those of search and merge
 *   test_errors_reduce_to.c  those of pp_reduce_to, pp_scan_to, pp_argmin
 *                          and pp_argmax
 *   test_errors.c          memory, algorithms, pp_last_error, pp_create,
 *                          names; main
 */
#ifndef PP_TEST_ERRORS_H
#define PP_TEST_ERRORS_H

#include "test_common.h"

#define N 64          /* elements in each fixture array */
#define NB 16         /* bins of the fixture's counts */
#define BYTES (N * 8) /* room for N elements of any type */

/* ---- messages ---------------------------------------------------------------------------- */
/* 1 if msg names one of the '|'-separated alternatives in words, each as a
 * whole identifier (not inside a longer one). */
int msg_names(const char *msg, const char *words);

/* Checks status and message: the message names fn and each of the
 * '|'-separated alternatives in args (one of them suffices). */
void expect_at(const char *file, int line, pp_context *ctx, pp_status got, pp_status want, const char *fn,
               const char *args, const char *what);
#define EXPECT(ctx, call, want, fn, args) expect_at(__FILE__, __LINE__, ctx, (call), want, fn, args, #call)

/* ---- fixture: device buffers with known contents ------------------------------------------------ */
typedef struct fixture {
    pp_context *ctx;
    int addressable; /* handles are addresses: partial overlaps can be formed */
    void *in, *out, *keys, *vals, *counts, *count, *flags, *big;
    unsigned char h_in[BYTES], h_keys[BYTES], h_vals[BYTES], h_flags[N], h_big[4 * BYTES];
} fixture;

void fx_init(fixture *f, pp_context *ctx, tc_rng *r);
void fx_free(fixture *f);

/* Nothing was written: outputs still hold the sentinel, inputs and
 * in-place data their values. */
void fx_check_at(const char *file, int line, fixture *f, const char *what);
#define FX_CHECK(f, what) fx_check_at(__FILE__, __LINE__, f, what)

/* expect a failure and that nothing was written */
#define EXPECT_NOWRITE(f, call, want, fn, args)                                 \
    do {                                                                        \
        expect_at(__FILE__, __LINE__, (f)->ctx, (call), want, fn, args, #call); \
        fx_check_at(__FILE__, __LINE__, f, #call);                              \
    } while (0)

static inline char *at(void *p, size_t bytes) { return (char *)p + bytes; }

#define NBAD 3
extern const pp_type bad_types[NBAD];
extern const pp_op bad_ops[NBAD];

/* ---- the groups (each runs on one backend's fixture) ------------------------------------------ */
void errors_reduce_scan(fixture *f);
void errors_histogram(fixture *f);
void errors_select(fixture *f);
void errors_sort(fixture *f);
void errors_sort_copy(fixture *f);
void errors_exact(fixture *f);
void errors_segmented(fixture *f);
void errors_argsort(fixture *f);
void errors_segsort(fixture *f); /* test_errors_segsort.c */
void errors_bykey(fixture *f);  /* test_errors_keyed.c */
void errors_topk(fixture *f);   /* test_errors_topk.c: pp_top_k, pp_scan_init */
void errors_search(fixture *f); /* test_errors_search.c */
void errors_reduce_to(fixture *f); /* test_errors_reduce_to.c */

#endif
