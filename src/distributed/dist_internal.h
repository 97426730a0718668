/* parprim_mpi's internals: the pp_dist object, the engine interface (how
 * bytes move between ranks: MPI or NCCL), the agreement every call makes
 * before it moves data, the buffers it keeps, and the host-side element
 * operations. The primitives (dist_reduce_scan.c, dist_histogram.c,
 * dist_select.c, dist_sort.c) use parprim's public API, this header and
 * nothing else (but src/core/exact_acc.h, the documented layout of a
 * pp_exact_sum, in the exact scan).
 * Naming, as the core's internal.h: every function, object and type here
 * is pp_dist_ (constants PP_DIST_), the prefix of the public functions of
 * parprim_mpi.h; the objects are compiled with hidden visibility, so the
 * shared library exports those public functions (PP_DIST_API) alone, and
 * the static library defines no global symbol outside the prefix (both
 * checked by the test check_exports_dist). */
#ifndef PP_DIST_INTERNAL_H
#define PP_DIST_INTERNAL_H

#include "parprim_mpi.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pp_dist_engine pp_dist_engine;

/* A buffer kept by the pp_dist and grown on demand. */
typedef struct pp_dist_buf {
    void *p;
    size_t cap;
} pp_dist_buf;

/* Host staging slots and context-memory slots (what each call uses them
 * for is the call's own business; a call never uses a slot twice). */
enum { PP_DIST_HOST_SLOTS = 7, PP_DIST_DEV_SLOTS = 3 };

struct pp_dist {
    pp_context *ctx;
    pp_backend backend;
    int rank, size;
    const pp_dist_engine *eng;
    void *eng_state;     /* the engine's own state */
    int host_direct;     /* context memory is host memory: read and write it in place */
    int device_to_engine;/* the engine takes context memory directly (else stage through host);
                            only where handles are addresses (cpu, cuda) */
    int ordered;         /* its collectives on context memory are queued on the context's stream:
                            no host wait for the context before them or after them */
    int pinned;          /* staging buffers are pinned (cudaMallocHost) */
    const char *engine_name;
    char msg[640];
    pp_dist_buf host[PP_DIST_HOST_SLOTS];
    pp_dist_buf dev[PP_DIST_DEV_SLOTS];
};

/* ---- engines ------------------------------------------------------------------------- */
/* Every function is collective over the pp_dist's ranks and returns
 * PP_SUCCESS or PP_ERROR_BACKEND (with the engine's message in d->msg,
 * prefixed by fn). on_device: the buffers are context memory (only where
 * d->device_to_engine), else host memory. */
struct pp_dist_engine {
    /* Every rank's rec_bytes bytes (host) into all (p records, rank order). */
    pp_status (*allgather)(pp_dist *d, const char *fn, const void *rec, size_t rec_bytes, void *all);
    /* In-place sum over the ranks of count uint64_t. */
    pp_status (*allreduce_sum)(pp_dist *d, const char *fn, uint64_t *buf, size_t count, int on_device);
    /* before[i] = the sum of v[i] over the ranks below (0 on rank 0),
     * total[i] = over every rank; host arrays of count. */
    pp_status (*prefix_sum)(pp_dist *d, const char *fn, const uint64_t *v, size_t count, uint64_t *before,
                            uint64_t *total);
    /* To rank r, scount[r] bytes from send + soff[r]; from rank r, rcount[r]
     * bytes to recv + roff[r] (the counts must match pairwise). */
    pp_status (*alltoallv)(pp_dist *d, const char *fn, const void *send, const uint64_t *scount,
                           const uint64_t *soff, void *recv, const uint64_t *rcount, const uint64_t *roff,
                           int on_device);
    /* Frees eng_state (collective where the engine's communicator is). */
    void (*destroy)(pp_dist *d);
};

extern const pp_dist_engine pp_dist_mpi_engine;
/* Sets d->eng, eng_state and the memory flags for MPI on comm (duplicated);
 * d->ctx, backend, rank and size are set by it. */
pp_status pp_dist_mpi_attach(pp_dist *d, const char *fn, MPI_Comm comm);

/* ---- the object, errors, agreement (dist_core.c) -------------------------------------- */
/* Allocates a pp_dist for ctx (fields zeroed, msg empty). */
pp_status pp_dist_alloc(pp_dist **d, pp_context *ctx, const char *fn);
/* Records a failure: the message in d->msg (or the thread's, d NULL). */
pp_status pp_dist_fail(pp_dist *d, pp_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A status of a parprim call on the context: its message, after fn. */
pp_status pp_dist_pp(pp_dist *d, const char *fn, pp_status st);

/* The record every rank contributes to an agreement: its status, a hash of
 * the parameters that must match, and up to six values of the call's own. */
typedef struct pp_dist_rec {
    int32_t status;
    uint32_t pad;
    uint64_t hash;
    uint64_t v[6];
} pp_dist_rec;

/* The agreement: all-gathers every rank's record (mine->status = st,
 * mine->hash = hash) and returns PP_SUCCESS where every rank succeeded with
 * the same hash; else the failing rank's status (its own message kept on
 * it; "rank R failed" elsewhere), or PP_ERROR_INVALID_ARGUMENT for hashes
 * that differ. *all: the p records (valid until the next call on d). */
pp_status pp_dist_agree(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_dist_rec *mine,
                     const pp_dist_rec **all);
/* An agreement on st alone (after local work, before the next collective
 * or at the end of a call): the same status on every rank. */
pp_status pp_dist_agree_status(pp_dist *d, const char *fn, pp_status st);
/* FNV-1a of bytes, continued from h (start: pp_dist_hash_start(fn)). */
uint64_t pp_dist_hash(uint64_t h, const void *p, size_t bytes);
uint64_t pp_dist_hash_start(const char *fn);

/* Argument checks (they record the failure and return its status). */
pp_status pp_dist_check_type(pp_dist *d, const char *fn, pp_type type);
pp_status pp_dist_check_op(pp_dist *d, const char *fn, pp_type type, pp_op op);
/* NULL with n > 0, and misalignment where handles are addresses. */
pp_status pp_dist_check_array(pp_dist *d, const char *fn, const char *name, const void *p, size_t n, size_t elem);
/* 1 where context-memory handles are addresses (cpu, cuda): ranges can be
 * compared and offsets taken; 0 on opencl (whole cl_mem buffers). */
int pp_dist_addressable(const pp_dist *d);
/* Overlap of two arrays where handles are addresses (handle equality on
 * opencl); allow_equal: a == b is fine (in place). */
pp_status pp_dist_check_overlap(pp_dist *d, const char *fn, const char *na, const void *a, size_t abytes,
                             const char *nb, const void *b, size_t bbytes, int allow_equal);
/* bytes = n * elem without overflow. */
pp_status pp_dist_check_bytes(pp_dist *d, const char *fn, size_t n, size_t elem, size_t *bytes);

/* ---- buffers (dist_buffers.c) -------------------------------------------------------- */
/* Host buffer of slot, at least bytes (pinned where d->pinned); NULL and a
 * recorded PP_ERROR_OUT_OF_MEMORY if it cannot grow. bytes == 0 gives a
 * valid (non-NULL) pointer. */
void *pp_dist_host(pp_dist *d, const char *fn, int slot, size_t bytes);
/* Context memory of slot, at least bytes (pp_malloc). */
pp_status pp_dist_dev(pp_dist *d, const char *fn, int slot, size_t bytes, void **p);
void pp_dist_buffers_free(pp_dist *d);
/* A host view of bytes of context memory: the memory itself where
 * host_direct, else a download into host slot. */
pp_status pp_dist_view(pp_dist *d, const char *fn, int slot, const void *src, size_t bytes, void **host);
/* Writes bytes of host memory to context memory (a memcpy where
 * host_direct and the two differ, else pp_upload). */
pp_status pp_dist_store(pp_dist *d, const char *fn, void *dst, const void *host, size_t bytes);

/* ---- host element operations (dist_ops.c) ---------------------------------------------- */
int pp_dist_is_float(pp_type t);
/* The identity of op (parprim.h's rules). */
void pp_dist_identity(pp_type t, pp_op op, void *out);
/* *acc = *acc op *x, with parprim's semantics (wrapping integers; MIN/MAX
 * propagate NaN and order -0.0 below +0.0). */
void pp_dist_combine(pp_type t, pp_op op, void *acc, const void *x);
/* C's == of two values of t (NaN never equal, -0.0 == +0.0). */
int pp_dist_equal(pp_type t, const void *a, const void *b);
/* A 64-bit key whose unsigned order is pp_sort's order of t in order
 * (every NaN equal: greatest in PP_ASCENDING and PP_DESCENDING_NAN_LAST,
 * least in PP_DESCENDING). */
uint64_t pp_dist_sort_key(pp_type t, pp_order order, const void *a, size_t i);
/* In a (n values sorted by pp_sort in order): how many have a key below
 * key (lower bound) and at most key (upper bound). */
size_t pp_dist_count_below(pp_type t, pp_order order, const void *a, size_t n, uint64_t key);
size_t pp_dist_count_upto(pp_type t, pp_order order, const void *a, size_t n, uint64_t key);
/* Writes to out the value of t whose pp_dist_sort_key in order is the
 * greatest at most c (a quiet NaN for a NaN's key) and returns 1; returns 0
 * (nothing written) where every value's key is above c. */
int pp_dist_key_at_most(pp_type t, pp_order order, uint64_t c, void *out);

#endif
