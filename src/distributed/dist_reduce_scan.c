/* pp_dist_reduce and pp_dist_scan: a local pp_reduce of each rank's part,
 * one all-gather that is both the agreement and the exchange of the
 * per-rank totals, the totals combined in rank order by every rank (so the
 * float result does not depend on MPI's or NCCL's reduction order), then,
 * for the scan, the local scan from the rank's prefix and a final
 * agreement on the status; the local scan is pp_scan_init from the prefix.
 * Exact float sums (PP_ALGO_EXACT chosen on the context for the
 * primitive): the ranks exchange exact sums (pp_exact_sum: an agreement,
 * then an all-gather of every rank's sum of its part) instead of rounded
 * totals; the reduce rounds the merge of all of them once, the scan seeds
 * its local exact scan with a few elements whose exact sum is the merge of
 * the ranks before it (pp_xacc_expand of src/core/exact_acc.h, the layout
 * of a pp_exact_sum). So both give the single-device exact result, bit
 * for bit, whatever the rank count and parts. */
#include "dist_internal.h"

#include "exact_acc.h"

#include <string.h>

/* At most this many elements seed a rank's exact scan with its prefix
 * (exact_acc.h: enough for a prefix of 20 times the largest finite value). */
#define EXPAND_MAX 64

/* Argument checks shared by both; *bytes = n_local * element size. */
static pp_status check_common(pp_dist *d, const char *fn, pp_type type, pp_op op, size_t n, size_t *bytes)
{
    pp_status st = pp_dist_check_type(d, fn, type);
    if (st == PP_SUCCESS) st = pp_dist_check_op(d, fn, type, op);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, n, pp_type_size(type), bytes);
    return st;
}

/* The reduction of the part into *total (host), where n > 0. */
static pp_status local_total(pp_dist *d, const char *fn, pp_type type, pp_op op, const void *in, size_t n,
                             void *total)
{
    size_t sz = pp_type_size(type);
    if (d->host_direct) return pp_dist_pp(d, fn, pp_reduce(d->ctx, type, op, in, n, total));
    void *cell;
    pp_status st = pp_dist_dev(d, fn, 1, sz, &cell);
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_reduce(d->ctx, type, op, in, n, cell));
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_download(d->ctx, total, cell, sz));
    return st;
}

/* The agreement carrying each rank's (non-empty, total); then *acc = the
 * fold of the totals of the non-empty ranks in [0, upto) in rank order (the
 * identity if none; *any says whether there was one). */
static pp_status agree_totals(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_type type, pp_op op,
                              size_t n, const void *total, int upto, void *acc, int *any)
{
    pp_dist_rec rec;
    const pp_dist_rec *all;
    size_t sz = pp_type_size(type);
    memset(&rec, 0, sizeof rec);
    rec.v[0] = n > 0;
    if (st == PP_SUCCESS) memcpy(&rec.v[1], total, sz);
    st = pp_dist_agree(d, fn, st, hash, &rec, &all);
    if (st != PP_SUCCESS) return st;
    pp_dist_identity(type, op, acc);
    *any = 0;
    for (int r = 0; r < upto; r++) {
        if (!all[r].v[0]) continue;
        if (*any) pp_dist_combine(type, op, acc, &all[r].v[1]);
        else memcpy(acc, &all[r].v[1], sz);
        *any = 1;
    }
    return PP_SUCCESS;
}

/* ---- exact sums ------------------------------------------------------------------------ */
/* 1 where the call is an exact float sum: PP_ALGO_EXACT for prim on the
 * context, PP_SUM on f32 or f64. Part of the agreement's hash: ranks that
 * differ would not make the same collectives. */
static int exact_call(const pp_dist *d, pp_primitive prim, pp_type type, pp_op op)
{
    return op == PP_SUM && (type == PP_F32 || type == PP_F64) && pp_get_algorithm(d->ctx, prim) == PP_ALGO_EXACT;
}

/* The exact sum of this rank's part, the agreement (status and hash), and
 * an all-gather of every rank's sum into *all (host slot 1, p sums in
 * rank order; valid until the next call on d). The local work and the
 * buffer come before the agreement, so their failures are every rank's. */
static pp_status exchange_sums(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_type type,
                               const void *in, size_t n, const pp_exact_sum **all)
{
    pp_exact_sum mine;
    memset(&mine, 0, sizeof mine);
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_exact_accumulate(d->ctx, type, in, n, &mine));
    pp_exact_sum *sums = NULL;
    if (st == PP_SUCCESS && !(sums = pp_dist_host(d, fn, 1, (size_t)d->size * sizeof *sums)))
        st = PP_ERROR_OUT_OF_MEMORY;
    pp_dist_rec rec;
    const pp_dist_rec *recs;
    memset(&rec, 0, sizeof rec);
    st = pp_dist_agree(d, fn, st, hash, &rec, &recs);
    if (st == PP_SUCCESS) st = d->eng->allgather(d, fn, &mine, sizeof mine, sums);
    *all = sums;
    return st;
}

/* *acc = the merge of sums[0 .. upto) in rank order (the empty sum if none). */
static pp_status merge_sums(pp_dist *d, const char *fn, pp_type type, const pp_exact_sum *sums, int upto,
                            pp_exact_sum *acc)
{
    memset(acc, 0, sizeof *acc);
    for (int r = 0; r < upto; r++) {
        pp_status st = pp_exact_merge(type, acc, &sums[r]);
        if (st != PP_SUCCESS)
            return pp_dist_fail(d, st, "%s: the exact sum of rank %d: %s", fn, r, pp_last_error(NULL));
    }
    return PP_SUCCESS;
}

static pp_status exact_reduce(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_type type, const void *in,
                              size_t n, void *out)
{
    const pp_exact_sum *sums;
    pp_exact_sum total;
    uint64_t v = 0;
    st = exchange_sums(d, fn, st, hash, type, in, n, &sums);
    if (st != PP_SUCCESS) return st;
    st = merge_sums(d, fn, type, sums, d->size, &total); /* the same on every rank: the same status */
    if (st == PP_SUCCESS && (st = pp_exact_round(type, &total, &v)) != PP_SUCCESS)
        st = pp_dist_fail(d, st, "%s: %s", fn, pp_last_error(NULL));
    if (st == PP_SUCCESS) st = pp_dist_store(d, fn, out, &v, pp_type_size(type));
    return d->host_direct ? st : pp_dist_agree_status(d, fn, st);
}

pp_status pp_dist_reduce(pp_dist *d, pp_type type, pp_op op, const void *in, size_t n_local, void *out)
{
    static const char fn[] = "pp_dist_reduce";
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t bytes = 0;
    pp_status st = check_common(d, fn, type, op, n_local, &bytes);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "in", in, n_local, pp_type_size(type));
    if (st == PP_SUCCESS && !out) st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "out", out, 1, pp_type_size(type));
    const int exact = exact_call(d, PP_PRIM_REDUCE, type, op);
    uint64_t hash = pp_dist_hash_start(fn);
    hash = pp_dist_hash(hash, &type, sizeof type);
    hash = pp_dist_hash(hash, &op, sizeof op);
    hash = pp_dist_hash(hash, &exact, sizeof exact);
    if (exact) return exact_reduce(d, fn, st, hash, type, in, n_local, out);
    uint64_t total = 0, acc = 0;
    if (st == PP_SUCCESS && n_local > 0) st = local_total(d, fn, type, op, in, n_local, &total);
    int any;
    st = agree_totals(d, fn, st, hash, type, op, n_local, &total, d->size, &acc, &any);
    if (st != PP_SUCCESS) return st;
    st = pp_dist_store(d, fn, out, &acc, pp_type_size(type));
    return d->host_direct ? st : pp_dist_agree_status(d, fn, st);
}

/* out = the local scan seeded with the rank's prefix (pp_scan_init): the
 * part is read once more than by pp_scan and written once. The prefix is
 * the init element: host memory where the context's is (host_direct), else
 * uploaded into the one-element buffer of local_total. */
static pp_status init_scan(pp_dist *d, const char *fn, pp_type type, pp_op op, pp_scan_kind kind, const void *in,
                           void *out, size_t n, const void *prefix)
{
    const void *init = prefix;
    if (!d->host_direct) {
        void *cell;
        pp_status st = pp_dist_dev(d, fn, 1, pp_type_size(type), &cell);
        if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_upload(d->ctx, cell, prefix, pp_type_size(type)));
        if (st != PP_SUCCESS) return st;
        init = cell;
    }
    return pp_dist_pp(d, fn, pp_scan_init(d->ctx, type, op, kind, in, out, n, init));
}

/* out = the exact scan of [e[0 .. k), in...] from position k on: the
 * elements e, whose exact sum is the rank's prefix, seed the local exact
 * pp_scan (cuda, cpu: in a buffer of context memory, part copied in place;
 * opencl, whose handles take no offsets: built and taken apart on the
 * host). The buffers were reserved before the agreement. */
static pp_status expanded_scan(pp_dist *d, const char *fn, pp_type type, pp_scan_kind kind, const void *in,
                               void *out, size_t n, const void *e, size_t k)
{
    const size_t sz = pp_type_size(type), bytes = (n + k) * sz;
    void *tmp;
    char *h = NULL;
    pp_status st = pp_dist_dev(d, fn, 0, bytes, &tmp);
    if (st == PP_SUCCESS && !pp_dist_addressable(d) && !(h = pp_dist_host(d, fn, 0, bytes)))
        st = PP_ERROR_OUT_OF_MEMORY;
    if (st != PP_SUCCESS) return st;
    char *t = tmp;
    if (h) {
        memcpy(h, e, k * sz);
        st = pp_dist_pp(d, fn, pp_download(d->ctx, h + k * sz, in, n * sz));
        if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_upload(d->ctx, t, h, bytes));
    } else {
        st = pp_dist_pp(d, fn, pp_upload(d->ctx, t, e, k * sz));
        if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_copy(d->ctx, t + k * sz, in, n * sz));
    }
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_scan(d->ctx, type, PP_SUM, kind, t, t, n + k));
    if (st != PP_SUCCESS) return st;
    if (!h) return pp_dist_pp(d, fn, pp_copy(d->ctx, out, t + k * sz, n * sz));
    st = pp_dist_pp(d, fn, pp_download(d->ctx, h, t, bytes));
    return st == PP_SUCCESS ? pp_dist_store(d, fn, out, h + k * sz, n * sz) : st;
}

/* The rank's prefix, the merge of the sums of the ranks before it, enters
 * its local exact scan as elements (pp_xacc_expand); none before it: the
 * local exact scan alone. */
static pp_status exact_scan(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_type type, pp_scan_kind kind,
                            const void *in, void *out, size_t n)
{
    const size_t sz = pp_type_size(type);
    void *tmp;
    if (st == PP_SUCCESS && n > 0 && d->rank > 0) { /* before the agreement: out of memory fails everywhere */
        if (n > SIZE_MAX / sz - EXPAND_MAX)
            st = pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: a working buffer of n_local + %d elements", fn,
                              EXPAND_MAX);
        if (st == PP_SUCCESS) st = pp_dist_dev(d, fn, 0, (n + EXPAND_MAX) * sz, &tmp);
        if (st == PP_SUCCESS && !pp_dist_addressable(d) && !pp_dist_host(d, fn, 0, (n + EXPAND_MAX) * sz))
            st = PP_ERROR_OUT_OF_MEMORY;
    }
    const pp_exact_sum *sums;
    pp_exact_sum prefix;
    st = exchange_sums(d, fn, st, hash, type, in, n, &sums);
    if (st != PP_SUCCESS) return st;
    st = merge_sums(d, fn, type, sums, d->rank, &prefix);
    if (st == PP_SUCCESS && n > 0) {
        uint64_t bits[EXPAND_MAX];
        const int k = pp_xacc_expand(prefix.word, type == PP_F64, bits, EXPAND_MAX); /* 0: nothing before */
        if (k == 0) {
            st = pp_dist_pp(d, fn, pp_scan(d->ctx, type, PP_SUM, kind, in, out, n));
        } else if (k < 0) {
            st = pp_dist_fail(d, PP_ERROR_UNSUPPORTED, "%s: the exact sum of the elements before rank %d is too large "
                           "to seed its exact scan: it takes more than %d values of %s (parprim_mpi.h, "
                           "pp_dist_scan)", fn, d->rank, EXPAND_MAX, pp_type_name(type));
        } else {
            unsigned char e[EXPAND_MAX * sizeof(uint64_t)];
            for (int i = 0; i < k; i++) {
                const uint32_t b32 = (uint32_t)bits[i]; /* f32: the low half */
                if (sz == sizeof b32) memcpy(e + (size_t)i * sz, &b32, sz);
                else memcpy(e + (size_t)i * sz, &bits[i], sz);
            }
            st = expanded_scan(d, fn, type, kind, in, out, n, e, (size_t)k);
        }
    }
    return pp_dist_agree_status(d, fn, st);
}

pp_status pp_dist_scan(pp_dist *d, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                       size_t n_local)
{
    static const char fn[] = "pp_dist_scan";
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t bytes = 0, sz = pp_type_size(type);
    pp_status st = check_common(d, fn, type, op, n_local, &bytes);
    if (st == PP_SUCCESS && (unsigned)kind > PP_EXCLUSIVE)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'kind' (%d) is not a pp_scan_kind", fn,
                          (int)kind);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "in", in, n_local, sz);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "out", out, n_local, sz);
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "out", out, bytes, "in", in, bytes, 1);
    const int exact = exact_call(d, PP_PRIM_SCAN, type, op);
    uint64_t hash = pp_dist_hash_start(fn);
    hash = pp_dist_hash(hash, &type, sizeof type);
    hash = pp_dist_hash(hash, &op, sizeof op);
    hash = pp_dist_hash(hash, &kind, sizeof kind);
    hash = pp_dist_hash(hash, &exact, sizeof exact);
    if (exact) return exact_scan(d, fn, st, hash, type, kind, in, out, n_local);
    void *cell;
    if (st == PP_SUCCESS && !d->host_direct) /* before the agreement: out of memory fails everywhere */
        st = pp_dist_dev(d, fn, 1, sz, &cell);
    uint64_t total = 0, prefix = 0;
    /* the last rank's total is no rank's prefix: not computed (one rank: the local scan alone) */
    if (st == PP_SUCCESS && n_local > 0 && d->rank < d->size - 1)
        st = local_total(d, fn, type, op, in, n_local, &total);
    int any;
    st = agree_totals(d, fn, st, hash, type, op, n_local, &total, d->rank, &prefix, &any);
    if (st != PP_SUCCESS) return st;
    if (n_local > 0) {
        if (!any) st = pp_dist_pp(d, fn, pp_scan(d->ctx, type, op, kind, in, out, n_local));
        else st = init_scan(d, fn, type, op, kind, in, out, n_local, &prefix);
    }
    return pp_dist_agree_status(d, fn, st);
}
