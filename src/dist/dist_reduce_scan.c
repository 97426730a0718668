/* pp_dist_reduce and pp_dist_scan: a local pp_reduce of each rank's part,
 * one all-gather that is both the agreement and the exchange of the
 * per-rank totals, the totals combined in rank order by every rank (so the
 * float result does not depend on MPI's or NCCL's reduction order), then,
 * for the scan, the local scan from the rank's prefix and a final
 * agreement on the status. */
#include "dist_internal.h"

#include <string.h>

/* Argument checks shared by both; *bytes = n_local * element size. */
static pp_status check_common(pp_dist *d, const char *fn, pp_type type, pp_op op, size_t n, size_t *bytes)
{
    pp_status st = dist_check_type(d, fn, type);
    if (st == PP_SUCCESS) st = dist_check_op(d, fn, type, op);
    if (st == PP_SUCCESS) st = dist_check_bytes(d, fn, n, pp_type_size(type), bytes);
    return st;
}

/* The reduction of the part into *total (host), where n > 0. */
static pp_status local_total(pp_dist *d, const char *fn, pp_type type, pp_op op, const void *in, size_t n,
                             void *total)
{
    size_t sz = pp_type_size(type);
    if (d->host_direct) return dist_pp(d, fn, pp_reduce(d->ctx, type, op, in, n, total));
    void *cell;
    pp_status st = dist_dev(d, fn, 1, sz, &cell);
    if (st == PP_SUCCESS) st = dist_pp(d, fn, pp_reduce(d->ctx, type, op, in, n, cell));
    if (st == PP_SUCCESS) st = dist_pp(d, fn, pp_download(d->ctx, total, cell, sz));
    return st;
}

/* The agreement carrying each rank's (non-empty, total); then *acc = the
 * fold of the totals of the non-empty ranks in [0, upto) in rank order (the
 * identity if none; *any says whether there was one). */
static pp_status agree_totals(pp_dist *d, const char *fn, pp_status st, uint64_t hash, pp_type type, pp_op op,
                              size_t n, const void *total, int upto, void *acc, int *any)
{
    dist_rec rec;
    const dist_rec *all;
    size_t sz = pp_type_size(type);
    memset(&rec, 0, sizeof rec);
    rec.v[0] = n > 0;
    if (st == PP_SUCCESS) memcpy(&rec.v[1], total, sz);
    st = dist_agree(d, fn, st, hash, &rec, &all);
    if (st != PP_SUCCESS) return st;
    dist_identity(type, op, acc);
    *any = 0;
    for (int r = 0; r < upto; r++) {
        if (!all[r].v[0]) continue;
        if (*any) dist_combine(type, op, acc, &all[r].v[1]);
        else memcpy(acc, &all[r].v[1], sz);
        *any = 1;
    }
    return PP_SUCCESS;
}

pp_status pp_dist_reduce(pp_dist *d, pp_type type, pp_op op, const void *in, size_t n_local, void *out)
{
    static const char fn[] = "pp_dist_reduce";
    if (!d) return dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t bytes = 0;
    pp_status st = check_common(d, fn, type, op, n_local, &bytes);
    if (st == PP_SUCCESS) st = dist_check_array(d, fn, "in", in, n_local, pp_type_size(type));
    if (st == PP_SUCCESS && !out) st = dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
    if (st == PP_SUCCESS) st = dist_check_array(d, fn, "out", out, 1, pp_type_size(type));
    uint64_t total = 0, acc = 0;
    if (st == PP_SUCCESS && n_local > 0) st = local_total(d, fn, type, op, in, n_local, &total);
    uint64_t hash = dist_hash_start(fn);
    hash = dist_hash(hash, &type, sizeof type);
    hash = dist_hash(hash, &op, sizeof op);
    int any;
    st = agree_totals(d, fn, st, hash, type, op, n_local, &total, d->size, &acc, &any);
    if (st != PP_SUCCESS) return st;
    st = dist_store(d, fn, out, &acc, pp_type_size(type));
    return d->host_direct ? st : dist_agree_status(d, fn, st);
}

/* out = the scan of [prefix, in...] without its first element (inclusive),
 * or of [prefix, in[0 .. n-1)] (exclusive): the prefix enters the local
 * pp_scan itself (cuda: everything stays on the device). */
static pp_status seeded_scan(pp_dist *d, const char *fn, pp_type type, pp_op op, pp_scan_kind kind,
                             const void *in, void *out, size_t n, const void *prefix)
{
    size_t sz = pp_type_size(type);
    void *tmp;
    pp_status st = dist_dev(d, fn, 0, (n + 1) * sz, &tmp);
    char *t = tmp;
    size_t copied = kind == PP_INCLUSIVE ? n : n - 1;
    if (st == PP_SUCCESS) st = dist_pp(d, fn, pp_upload(d->ctx, t, prefix, sz));
    if (st == PP_SUCCESS && copied) st = dist_pp(d, fn, pp_copy(d->ctx, t + sz, in, copied * sz));
    if (kind == PP_EXCLUSIVE)
        return st == PP_SUCCESS ? dist_pp(d, fn, pp_scan(d->ctx, type, op, PP_INCLUSIVE, t, out, n)) : st;
    if (st == PP_SUCCESS) st = dist_pp(d, fn, pp_scan(d->ctx, type, op, PP_INCLUSIVE, t, t, n + 1));
    if (st == PP_SUCCESS) st = dist_pp(d, fn, pp_copy(d->ctx, out, t + sz, n * sz));
    return st;
}

/* out = the local scan, then prefix op out[i] on the host (exclusive: out[0]
 * is the prefix itself, so that a -0.0 prefix stays -0.0). */
static pp_status applied_scan(pp_dist *d, const char *fn, pp_type type, pp_op op, pp_scan_kind kind,
                              const void *in, void *out, size_t n, const void *prefix)
{
    size_t sz = pp_type_size(type);
    pp_status st = dist_pp(d, fn, pp_scan(d->ctx, type, op, kind, in, out, n));
    void *h = NULL;
    if (st == PP_SUCCESS) st = dist_view(d, fn, 0, out, n * sz, &h);
    if (st != PP_SUCCESS) return st;
    int threads = pp_context_threads(d->ctx);
    if (kind == PP_EXCLUSIVE) {
        memcpy(h, prefix, sz);
        dist_apply(type, op, prefix, (char *)h + sz, n - 1, threads);
    } else {
        dist_apply(type, op, prefix, h, n, threads);
    }
    return dist_store(d, fn, out, h, n * sz);
}

pp_status pp_dist_scan(pp_dist *d, pp_type type, pp_op op, pp_scan_kind kind, const void *in, void *out,
                       size_t n_local)
{
    static const char fn[] = "pp_dist_scan";
    if (!d) return dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t bytes = 0, sz = pp_type_size(type);
    pp_status st = check_common(d, fn, type, op, n_local, &bytes);
    if (st == PP_SUCCESS && (unsigned)kind > PP_EXCLUSIVE)
        st = dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'kind' (%d) is not a pp_scan_kind", fn, (int)kind);
    if (st == PP_SUCCESS) st = dist_check_array(d, fn, "in", in, n_local, sz);
    if (st == PP_SUCCESS) st = dist_check_array(d, fn, "out", out, n_local, sz);
    if (st == PP_SUCCESS) st = dist_check_overlap(d, fn, "out", out, bytes, "in", in, bytes, 1);
    void *tmp;
    if (st == PP_SUCCESS && d->seeded_scan && n_local > 0 && d->rank > 0)
        st = dist_dev(d, fn, 0, bytes + sz, &tmp); /* before the agreement: out of memory fails everywhere */
    uint64_t total = 0, prefix = 0;
    if (st == PP_SUCCESS && n_local > 0) st = local_total(d, fn, type, op, in, n_local, &total);
    uint64_t hash = dist_hash_start(fn);
    hash = dist_hash(hash, &type, sizeof type);
    hash = dist_hash(hash, &op, sizeof op);
    hash = dist_hash(hash, &kind, sizeof kind);
    int any;
    st = agree_totals(d, fn, st, hash, type, op, n_local, &total, d->rank, &prefix, &any);
    if (st != PP_SUCCESS) return st;
    if (n_local > 0) {
        if (!any) st = dist_pp(d, fn, pp_scan(d->ctx, type, op, kind, in, out, n_local));
        else if (d->seeded_scan) st = seeded_scan(d, fn, type, op, kind, in, out, n_local, &prefix);
        else st = applied_scan(d, fn, type, op, kind, in, out, n_local, &prefix);
    }
    return dist_agree_status(d, fn, st);
}
