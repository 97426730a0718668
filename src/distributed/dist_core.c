/* The pp_dist object: creation over MPI, destruction, accessors, failure
 * messages, the agreement that every collective call makes before it moves
 * data, and the argument checks the calls share. */
#include "dist_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages of calls that had no pp_dist (a failed create, d == NULL). */
static _Thread_local char g_thread_msg[640];

const char *pp_dist_last_error(const pp_dist *d) { return d ? d->msg : g_thread_msg; }
int pp_dist_rank(const pp_dist *d) { return d ? d->rank : -1; }
int pp_dist_size(const pp_dist *d) { return d ? d->size : 0; }
pp_context *pp_dist_context(const pp_dist *d) { return d ? d->ctx : NULL; }
const char *pp_dist_engine_name(const pp_dist *d) { return d ? d->engine_name : "?"; }

pp_status pp_dist_fail(pp_dist *d, pp_status st, const char *fmt, ...)
{
    char *buf = d ? d->msg : g_thread_msg;
    size_t cap = d ? sizeof d->msg : sizeof g_thread_msg;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return st;
}

pp_status pp_dist_pp(pp_dist *d, const char *fn, pp_status st)
{
    if (st == PP_SUCCESS) return st;
    return pp_dist_fail(d, st, "%s: %s", fn, pp_last_error(d->ctx));
}

pp_status pp_dist_alloc(pp_dist **out, pp_context *ctx, const char *fn)
{
    pp_dist *d = calloc(1, sizeof *d);
    if (!d) return pp_dist_fail(NULL, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    d->ctx = ctx;
    d->backend = pp_context_backend(ctx);
    d->engine_name = "?";
    *out = d;
    return PP_SUCCESS;
}

pp_status pp_dist_create(pp_dist **dp, pp_context *ctx, MPI_Comm comm)
{
    static const char fn[] = "pp_dist_create";
    int inited = 0, finalized = 0;
    if (dp) *dp = NULL;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: MPI is not initialized", fn);
    if (comm == MPI_COMM_NULL) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'comm' is MPI_COMM_NULL", fn);
    /* A bad d or ctx on one rank: every rank still duplicates the
     * communicator and agrees, so that all of them return the error. */
    pp_status st = PP_SUCCESS;
    pp_dist *d = NULL;
    if (!dp) st = pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    else if (!ctx) st = pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'ctx' is NULL", fn);
    pp_dist scratch_d;
    memset(&scratch_d, 0, sizeof scratch_d);
    if (st == PP_SUCCESS) st = pp_dist_alloc(&d, ctx, fn);
    if (st != PP_SUCCESS) {
        d = &scratch_d; /* takes part in the agreement only */
        d->backend = PP_BACKEND_CPU;
    }
    pp_status ast = pp_dist_mpi_attach(d, fn, comm);
    if (ast != PP_SUCCESS) { /* no communicator to agree over */
        if (d != &scratch_d) {
            pp_dist_fail(NULL, ast, "%s", d->msg);
            free(d);
        }
        return ast;
    }
    pp_dist_rec rec;
    memset(&rec, 0, sizeof rec);
    const pp_dist_rec *all;
    pp_status agreed = pp_dist_agree(d, fn, st, pp_dist_hash_start(fn), &rec, &all);
    if (agreed == PP_SUCCESS) {
        *dp = d;
        return PP_SUCCESS;
    }
    if (st == PP_SUCCESS) pp_dist_fail(NULL, agreed, "%s", d->msg); /* keep a copy: d goes */
    pp_dist_buffers_free(d);
    d->eng->destroy(d);
    if (d != &scratch_d) free(d);
    return agreed;
}

void pp_dist_destroy(pp_dist *d)
{
    if (!d) return;
    pp_dist_buffers_free(d);
    if (d->eng) d->eng->destroy(d);
    free(d);
}

/* ---- agreement ----------------------------------------------------------------------- */
uint64_t pp_dist_hash(uint64_t h, const void *p, size_t bytes)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++) h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

uint64_t pp_dist_hash_start(const char *fn) { return pp_dist_hash(0xcbf29ce484222325ull, fn, strlen(fn)); }

pp_status pp_dist_agree(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_dist_rec *mine,
                     const pp_dist_rec **all)
{
    mine->status = (int32_t)st;
    mine->pad = 0;
    mine->hash = hash;
    pp_dist_rec *recs = pp_dist_host(d, fn, PP_DIST_HOST_SLOTS - 1, (size_t)d->size * sizeof *recs);
    if (!recs) {
        /* Cannot take part: no rank can be told. 64 bytes per rank is all it
         * needs, so this is a host that is out of memory. */
        return PP_ERROR_OUT_OF_MEMORY;
    }
    pp_status est = d->eng->allgather(d, fn, mine, sizeof *mine, recs);
    if (est != PP_SUCCESS) return est;
    *all = recs;
    for (int r = 0; r < d->size; r++) {
        if (recs[r].status != PP_SUCCESS) {
            if (st != PP_SUCCESS) return st; /* this rank's own message stays */
            return pp_dist_fail(d, (pp_status)recs[r].status, "%s: rank %d failed (%s); its pp_dist_last_error names the cause",
                             fn, r, pp_status_string((pp_status)recs[r].status));
        }
    }
    for (int r = 1; r < d->size; r++)
        if (recs[r].hash != recs[0].hash)
            return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT,
                             "%s: ranks 0 and %d called it with different parameters (type, operator, kind, "
                             "order, value_size, comparison, value, bins, k, elem_size, and PP_ALGO_EXACT or not for a float "
                             "sum, must match on every rank)", fn, r);
    return PP_SUCCESS;
}

pp_status pp_dist_agree_status(pp_dist *d, const char *fn, pp_status st)
{
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    return pp_dist_agree(d, fn, st, 0, &rec, &all);
}

/* ---- argument checks --------------------------------------------------------------------- */
pp_status pp_dist_check_type(pp_dist *d, const char *fn, pp_type type)
{
    if ((unsigned)type >= PP_TYPE_COUNT)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'type' (%d) is not a pp_type", fn, (int)type);
    if (type == PP_F16 || type == PP_BF16) /* no half rows in dist_ops.c's folds yet */
        return pp_dist_fail(d, PP_ERROR_UNSUPPORTED, "%s: type %s is not supported by the distributed calls yet", fn,
                            pp_type_name(type));
    return PP_SUCCESS;
}

pp_status pp_dist_check_op(pp_dist *d, const char *fn, pp_type type, pp_op op)
{
    if ((unsigned)op >= PP_OP_COUNT)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'op' (%d) is not a pp_op", fn, (int)op);
    if (pp_dist_is_float(type) && (op == PP_AND || op == PP_OR || op == PP_XOR))
        return pp_dist_fail(d, PP_ERROR_UNSUPPORTED, "%s: argument 'op' %s is not defined on %s", fn, pp_op_name(op),
                         pp_type_name(type));
    return PP_SUCCESS;
}

int pp_dist_addressable(const pp_dist *d) { return d->backend != PP_BACKEND_OPENCL; }

pp_status pp_dist_check_array(pp_dist *d, const char *fn, const char *name, const void *p, size_t n, size_t elem)
{
    if (n > 0 && !p) return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", fn, name);
    if (p && elem > 1 && pp_dist_addressable(d) && (uintptr_t)p % elem != 0)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is not aligned to its element size %zu",
                         fn, name, elem);
    return PP_SUCCESS;
}

pp_status pp_dist_check_overlap(pp_dist *d, const char *fn, const char *na, const void *a, size_t abytes,
                             const char *nb, const void *b, size_t bbytes, int allow_equal)
{
    if (!a || !b || abytes == 0 || bbytes == 0) return PP_SUCCESS;
    if (a == b && allow_equal) return PP_SUCCESS;
    int overlap;
    if (pp_dist_addressable(d)) {
        uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
        overlap = pa < pb + bbytes && pb < pa + abytes;
    } else {
        overlap = a == b;
    }
    if (overlap)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' overlaps '%s'", fn, na, nb);
    return PP_SUCCESS;
}

pp_status pp_dist_check_bytes(pp_dist *d, const char *fn, size_t n, size_t elem, size_t *bytes)
{
    if (elem && n > SIZE_MAX / elem)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'n_local' (%zu) times the element size overflows size_t",
                         fn, n);
    *bytes = n * elem;
    return PP_SUCCESS;
}
