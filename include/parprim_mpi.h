/*
 * parprim_mpi: parprim's primitives over data spread across the ranks of an
 * MPI communicator (library parprim_mpi; libparprim itself needs no MPI).
 *
 * Each rank holds a part of one distributed array in its own context's
 * memory (cpu, cuda or opencl, as for the single-device calls); the array is
 * the concatenation of the parts in rank order (rank 0's elements first).
 * n_local may differ from rank to rank and may be 0 on some or all ranks.
 * The semantics of every element (types, operators, identities, NaN, -0.0,
 * float sort order, stability, binning) are those of the single-device call
 * of the same name in parprim.h, applied to the concatenation. Algorithms,
 * communication volume and the cost model: docs/distributed.md.
 *
 * General rules:
 * Collective.  Every function except pp_dist_last_error, pp_dist_rank,
 *              pp_dist_size, pp_dist_context and pp_dist_engine_name is
 *              collective: every rank of the communicator calls it, in the
 *              same order, with the same type, operator, scan kind, order,
 *              value_size, comparison and value, bins, k and elem_size.
 *              Each call validates its arguments on every rank and then
 *              agrees (one small all-gather of a status and a hash of
 *              those parameters) before it moves any data: a bad argument
 *              or a failure on one rank, or parameters that differ between
 *              ranks, make the call return an error on every rank (never a
 *              rank left waiting).
 *              A call also ends with such an agreement when local work
 *              follows its last data collective, so every rank returns the
 *              same status. A rank that does not call at all (or calls a
 *              different collective of another library) cannot be detected:
 *              that hangs, as in MPI.
 * Status.      parprim's pp_status codes. The message of a failed call
 *              (naming the call, and the argument or the rank that failed)
 *              is kept by the pp_dist object: pp_dist_last_error. A rank
 *              whose own arguments were fine reports "rank R failed: ..."
 *              with the status of the lowest failing rank. Parameters that
 *              differ between ranks are PP_ERROR_INVALID_ARGUMENT. An error
 *              of MPI (or NCCL) is PP_ERROR_BACKEND with its message; the
 *              duplicated communicator returns MPI errors (MPI_ERRORS_RETURN)
 *              instead of aborting. The library never prints or aborts.
 * Writes.      A call that fails in its agreement has written nothing. One
 *              whose local pass fails on some rank after the agreement (out
 *              of memory inside a primitive, a backend error) may have
 *              written its outputs on other ranks; it still returns the
 *              error everywhere.
 * Sizes.       Element counts are size_t; totals over the ranks are 64-bit
 *              and may exceed 2^31 (MPI's int counts are never the limit:
 *              messages are sent in pieces of at most 2^30 bytes).
 * Memory.      cuda: where the MPI library reports CUDA support at run time
 *              (MPIX_Query_cuda_support), device memory is handed to MPI;
 *              else data is staged through pinned host buffers. opencl:
 *              staged through host buffers. The pp_dist object keeps its
 *              staging and working buffers for later calls (freed by
 *              pp_dist_destroy).
 * Threads.     A pp_dist and its context are used by one thread at a time;
 *              MPI must be initialized (MPI_THREAD_SINGLE is enough when
 *              only that thread calls MPI).
 */
#ifndef PARPRIM_MPI_H
#define PARPRIM_MPI_H

#include <mpi.h>

#include "parprim.h"

#ifndef PP_DIST_API
#if defined(__GNUC__) || defined(__clang__)
#define PP_DIST_API __attribute__((visibility("default")))
#else
#define PP_DIST_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_dist pp_dist;

/** Creates a distributed context over comm (duplicated inside) for the
 *  data of ctx (each rank its own context; ranks may use different
 *  backends). Collective over comm. MPI must be initialized. On failure
 *  *d is NULL and pp_dist_last_error(NULL) says why (in the calling
 *  thread). A NULL ctx or d on one rank is an error on every rank; a NULL
 *  or MPI_COMM_NULL comm, or MPI not initialized, is reported at once on
 *  the ranks that have it (they cannot take part in an agreement). */
PP_DIST_API pp_status pp_dist_create(pp_dist **d, pp_context *ctx, MPI_Comm comm);
/** Frees the duplicated communicator and the buffers. Collective (it calls
 *  MPI_Comm_free); NULL is fine. The context is not destroyed. */
PP_DIST_API void pp_dist_destroy(pp_dist *d);

/** The rank and the number of ranks; -1 and 0 for NULL. */
PP_DIST_API int pp_dist_rank(const pp_dist *d);
PP_DIST_API int pp_dist_size(const pp_dist *d);
/** The context given to pp_dist_create (NULL for NULL). */
PP_DIST_API pp_context *pp_dist_context(const pp_dist *d);
/** How data moves on this rank: "mpi (host memory)", "mpi (cuda-aware)",
 *  "mpi (staged through host)" or "nccl". Static string; "?" for NULL. */
PP_DIST_API const char *pp_dist_engine_name(const pp_dist *d);
/** The message of the last failed call on d ("" if none), as
 *  pp_last_error; with d == NULL, that of the calling thread's last failed
 *  call that had no pp_dist (a failed pp_dist_create, or d == NULL). */
PP_DIST_API const char *pp_dist_last_error(const pp_dist *d);

/* ---- reduce and scan -------------------------------------------------------------- */
/** out (one element of context memory, on every rank) = the reduction of
 *  every rank's elements; the identity when all ranks are empty. out may
 *  lie inside in, as for pp_reduce.
 *  Float results: each rank reduces its part with pp_reduce; the per-rank
 *  results of the non-empty ranks are combined left to right in rank order
 *  on every rank. So the result is the same on every rank and reproducible
 *  for a given backend, rank count and n_local per rank (integer results,
 *  and MIN/MAX, are exact).
 *  Exact sums: where the context's algorithm for PP_PRIM_REDUCE is
 *  PP_ALGO_EXACT (pp_set_algorithm; on every rank: a rank that differs is
 *  PP_ERROR_INVALID_ARGUMENT everywhere), a PP_SUM of f32 or f64 is the
 *  exact pp_reduce of the whole array, bit for bit, whatever the rank
 *  count, the parts and the ranks' backends: the ranks exchange the exact
 *  sums of their parts (pp_exact_accumulate, 560 bytes each), not rounded
 *  totals, and every rank rounds their merge once. A backend without
 *  exact accumulators (pp_exact_accumulate: PP_ERROR_UNSUPPORTED) fails
 *  the call on every rank. */
PP_DIST_API pp_status pp_dist_reduce(pp_dist *d, pp_type type, pp_op op, const void *in, size_t n_local,
                                     void *out);

/** The scan of the concatenation, each rank writing its n_local outputs
 *  (in == out allowed). Exclusive: the first element of the whole array
 *  gets the identity, and a rank's first element the reduction of every
 *  element before it (for floats: -0.0 where all of those are -0.0).
 *  Float results: out = P op s, where s is the local pp_scan of the rank's
 *  part and P the reduction of the ranks before it (combined as in
 *  pp_dist_reduce); on cuda the local pass is pp_scan of P followed by the
 *  part. Reproducible wherever the local pp_scan is (see pp_scan), for a
 *  given rank count and n_local per rank.
 *  Exact sums: where the context's algorithm for PP_PRIM_SCAN is
 *  PP_ALGO_EXACT (on every rank, as for pp_dist_reduce), a PP_SUM of f32
 *  or f64 writes the exact pp_scan of the whole array, bit for bit (every
 *  output the correctly rounded sum of its prefix, with the exact rules of
 *  NaN, infinities and -0.0), whatever the rank count and the parts. The
 *  ranks exchange the exact sums of their parts; a rank's prefix (their
 *  merge over the ranks before it) enters its local exact pp_scan as a few
 *  elements whose exact sum it is (a working buffer of n_local + 64
 *  elements). One limit: a prefix whose finite part needs more than 64
 *  elements is PP_ERROR_UNSUPPORTED on every rank (other ranks may have
 *  written their outputs, as under Writes above). Up to 20 times the
 *  largest finite value of the type (f32: 50 times) it never does; beyond
 *  that it may (the later elements could still cancel such a prefix, so
 *  it cannot be taken for an infinity). A prefix with a NaN or an infinity
 *  has no such limit. */
PP_DIST_API pp_status pp_dist_scan(pp_dist *d, pp_type type, pp_op op, pp_scan_kind kind, const void *in,
                                   void *out, size_t n_local);

/* ---- histograms ------------------------------------------------------------------- */
/** The global histogram (counts of every rank's samples, exact), written to
 *  counts (nbins uint64_t of context memory) on every rank. Arguments as
 *  pp_histogram_even; lower, upper and nbins must be the same on every
 *  rank (compared bytewise). */
PP_DIST_API pp_status pp_dist_histogram_even(pp_dist *d, pp_type type, const void *samples, size_t n_local,
                                             const void *lower, const void *upper, size_t nbins,
                                             uint64_t *counts);
/** As pp_histogram_range; edges (host, nbins + 1 values) the same on every
 *  rank. */
PP_DIST_API pp_status pp_dist_histogram_range(pp_dist *d, pp_type type, const void *samples, size_t n_local,
                                              const void *edges, size_t nbins, uint64_t *counts);

/* ---- compaction --------------------------------------------------------------------- */
/** Where a rank's selected elements lie in the distributed result (host
 *  memory). The result of a compaction is the concatenation, in rank
 *  order, of every rank's out[0 .. local): the stable compaction of the
 *  whole array. No element moves between ranks: to have the result evenly
 *  spread ("rebalanced on request"), call pp_dist_rebalance on out and
 *  local (below). */
typedef struct pp_dist_counts {
    uint64_t local;        /* elements this rank selected: out[0 .. local) */
    uint64_t offset;       /* global index of out[0] in the result: selected on ranks below */
    uint64_t total;        /* selected over all ranks: the result's length */
    uint64_t input_offset; /* global index of this rank's in[0]: n_local of ranks below */
} pp_dist_counts;

/** As pp_select_flagged on each rank's part; *counts (host) as above. */
PP_DIST_API pp_status pp_dist_select_flagged(pp_dist *d, pp_type type, const void *in, const uint8_t *flags,
                                             size_t n_local, void *out, pp_dist_counts *counts);
/** As pp_select_if; cmp and *value the same on every rank. */
PP_DIST_API pp_status pp_dist_select_if(pp_dist *d, pp_type type, const void *in, size_t n_local, pp_cmp cmp,
                                        const void *value, void *out, pp_dist_counts *counts);
/** The first element of each run of equal neighbours of the whole array
 *  (as pp_unique): a rank's first element is dropped when it equals the
 *  last element of the nearest non-empty rank before it (runs cross rank
 *  boundaries). */
PP_DIST_API pp_status pp_dist_unique(pp_dist *d, pp_type type, const void *in, size_t n_local, void *out,
                                     pp_dist_counts *counts);
/** As pp_partition_if on each rank's part: out[0 .. local) selected, then
 *  out[local .. n_local) the rest. Globally, the stable partition of the
 *  whole array is every rank's selected part in rank order, then every
 *  rank's rest in rank order: a rank's rest starts at global index total +
 *  (input_offset - offset). cmp and *value the same on every rank. */
PP_DIST_API pp_status pp_dist_partition_if(pp_dist *d, pp_type type, const void *in, size_t n_local,
                                           pp_cmp cmp, const void *value, void *out, pp_dist_counts *counts);

/* ---- sort --------------------------------------------------------------------------- */
/** Sorts the distributed array in place; every rank keeps its n_local:
 *  afterwards rank r holds global positions [sum of n_local of ranks < r,
 *  + n_local) of the stable sorted sequence (order and float rules of
 *  pp_sort; equal keys keep their global input order). */
PP_DIST_API pp_status pp_dist_sort(pp_dist *d, pp_type type, void *keys, size_t n_local, pp_order order);
/** As pp_dist_sort, moving values[i] (value_size bytes: 1, 2, 4 or 8, the
 *  same on every rank) with keys[i]. */
PP_DIST_API pp_status pp_dist_sort_pairs(pp_dist *d, pp_type type, void *keys, void *values, size_t value_size,
                                         size_t n_local, pp_order order);

/** The global stable argsort, spread as the keys are: rank r writes to
 *  indices_out (n_local uint64_t of context memory) positions [sum of
 *  n_local of ranks < r, + n_local) of the stable sorted order's
 *  permutation of the whole array, each entry a global input index (rank
 *  s's keys[i] is global index i + the n_local of the ranks below s). So
 *  the gathered indices_out is pp_argsort (PP_U64) of the concatenation,
 *  and rank r holds the indices of the keys that pp_dist_sort would leave
 *  on it. keys: n_local elements of context memory, not written; order and
 *  float rules of pp_sort. indices_out must not overlap keys. Working
 *  memory: a copy of the keys (n_local elements of context memory,
 *  allocated for the call) beside pp_dist_sort_pairs' own: it runs
 *  pp_dist_sort_pairs of that copy with the global indices as 8-byte
 *  values (one rank: pp_argsort). */
PP_DIST_API pp_status pp_dist_argsort(pp_dist *d, pp_type type, const void *keys, size_t n_local, pp_order order,
                                      uint64_t *indices_out);

/** The global top k on every rank: keys_out (k elements) and indices_out
 *  (k uint64_t; both context memory) receive, the same on every rank,
 *  what pp_top_k of the concatenation would write: the first k keys of
 *  its stable sort in order (bits unchanged), equal keys by global index
 *  ascending, and their global input indices. k (the same on every rank)
 *  may not exceed the global length: k > the sum of n_local is
 *  PP_ERROR_INVALID_ARGUMENT on every rank (unlike pp_top_k, which clamps:
 *  a rank does not know the global length). k == 0 succeeds and writes
 *  nothing. indices_out may be NULL (on every rank, or on none:
 *  PP_ERROR_INVALID_ARGUMENT where it differs). No output may overlap in
 *  or the other. Each rank runs pp_top_k on its part (into its outputs),
 *  every rank receives every rank's min(k, n_local) candidates (keys and
 *  indices, one all-to-all through host memory) and merges them on the
 *  host: host memory of (key size + 8) bytes per candidate, at most
 *  p * k of them. */
PP_DIST_API pp_status pp_dist_top_k(pp_dist *d, pp_type type, const void *in, size_t n_local, size_t k,
                                    pp_order order, void *keys_out, uint64_t *indices_out);

/* ---- rebalance ---------------------------------------------------------------------- */
/** Moves elements between ranks so that the concatenation is unchanged
 *  and rank r holds an even share of the total n (the sum of n_local):
 *  floor(n / p) elements, and one more on the n % p lowest ranks. For the
 *  output of a compaction (pp_dist_select_*, pp_dist_unique: in = out of
 *  that call, n_local = its counts.local), or of any uneven distributed
 *  array. elem_size: the bytes of an element (any
 *  size > 0, the same on every rank; elements are moved as bytes, so no
 *  alignment is asked). in: n_local elements of context memory, not
 *  written; out: out_capacity elements of context memory, not overlapping
 *  in; *n_out (host) receives this rank's share. A rank whose out_capacity
 *  is below its share fails the call on every rank
 *  (PP_ERROR_INVALID_ARGUMENT) before anything moves; a capacity of
 *  ceil(n / p) always suffices (after a compaction: ceil(counts.total /
 *  p)). Volume: only the elements whose rank changes cross, each once:
 *  one all-to-all (context memory where the engine takes it, else staged
 *  through host buffers). */
PP_DIST_API pp_status pp_dist_rebalance(pp_dist *d, size_t elem_size, const void *in, size_t n_local, void *out,
                                        size_t out_capacity, size_t *n_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PARPRIM_MPI_H */
