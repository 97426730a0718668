/* Shared pieces of the distributed test programs (run under mpirun by
 * scripts/dist-check): MPI start and the run's seed (rank 0 draws it, or
 * takes PARPRIM_TEST_SEED, and every rank gets it), the backends under
 * test (PARPRIM_TEST_BACKENDS: cpu, cuda and/or opencl; each present one in
 * turn; ranks on one GPU share it), the pp_dist of each, per-rank random
 * data, gathering to rank 0, and failures counted on every rank (a failure never stops a rank: all ranks go on
 * through the same collectives, and the counts are summed at the end).
 * Data helpers (random numbers, NaNs, element access) and the sequential
 * reference come from tests/test_common.h and ref/reference.h. */
#ifndef PP_DIST_COMMON_H
#define PP_DIST_COMMON_H

#include "parprim_mpi.h"
#include "test_common.h"

#include <stdint.h>

typedef struct dt_env {
    int rank, size;
    pp_backend backend;
    pp_context *ctx;
    pp_dist *d;
} dt_env;

/* MPI_Init, the seed (printed by rank 0). */
void dt_init(int *argc, char ***argv, const char *program);
/* The backends to run on here: cpu, and cuda and opencl where a device is present
 * (PARPRIM_TEST_BACKENDS restricts them); the count, the list in *list. */
int dt_backends(const pp_backend **list);
/* A context of backend and its pp_dist over MPI_COMM_WORLD (cpu: 1 or 2
 * threads, by rank). Returns 0 (and prints why on rank 0) where the
 * backend cannot be used. */
int dt_open(dt_env *e, pp_backend backend);
void dt_close(dt_env *e);
/* Prints the failures and skips summed over ranks; MPI_Finalize; the exit
 * status (0 when nothing failed on any rank). */
int dt_finish(const char *program);

uint64_t dt_seed(void);
/* A generator for this rank and name (and the run's seed). */
tc_rng dt_rng(const char *name);

/* A generator that is the same on every rank (case parameters). */
tc_rng dt_rng_all(const char *name);

/* Describes the case (printed with a failure). */
void dt_case(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Records a failure on this rank (printed with rank and case). */
void dt_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
#define DT_CHECK(cond, ...)          \
    do {                             \
        if (!(cond)) dt_fail(__VA_ARGS__); \
    } while (0)
/* A status that must be PP_SUCCESS; 1 if it is. */
int dt_ok(const dt_env *e, pp_status st, const char *call);
/* Compares n elements with ref_equal (NaN equal) or bit for bit; 1 if equal. */
int dt_equal(pp_type t, const void *got, const void *want, size_t n, const char *what);
int dt_bits(pp_type t, const void *got, const void *want, size_t n, const char *what);
/* The number of failures on this rank so far. */
unsigned long dt_failures(void);

/* Context memory holding bytes of host (NULL for 0 bytes); its contents
 * back into host. Failures are recorded. */
void *dt_upload(const dt_env *e, const void *host, size_t bytes);
void dt_download(const dt_env *e, void *host, const void *dev, size_t bytes);
void dt_free(const dt_env *e, void *dev);

/* Rank 0 receives every rank's bytes, in rank order, into a malloc'ed
 * buffer (*all, NULL elsewhere); counts[r] (rank 0) the bytes of rank r.
 * Returns the total on rank 0. */
size_t dt_gather(const void *mine, size_t bytes, void **all, size_t *counts);

/* The n_local of each layout: 0 random sizes up to max, 1 odd ranks empty,
 * 2 all empty, 3 only the last rank, 4 equal, 5 one element on each. */
#define DT_LAYOUTS 6
size_t dt_layout_n(int layout, size_t max, tc_rng *r);
const char *dt_layout_name(int layout);

/* Stores v at buf[i]: converted for floats, rounded for integer types. */
void dt_set_num(pp_type t, void *buf, size_t i, double v);

/* Random data for op on type: duplicates, NaN and +-0.0 where they do not
 * make the result depend on the evaluation order (SUM: quarter integers or
 * all -0.0; PROD: +-1 and a few factors of 2; MIN/MAX: any values, NaN
 * and -0.0 included). */
void dt_fill(tc_rng *r, pp_type t, pp_op op, void *buf, size_t n);
/* Keys for sorting and compaction: few distinct values (duplicates), NaNs
 * of both signs, -0.0 and +0.0, infinities. */
void dt_fill_keys(tc_rng *r, pp_type t, void *buf, size_t n);

#endif
