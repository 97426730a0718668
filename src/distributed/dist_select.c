/* Compaction over ranks: pp_dist_select_flagged, pp_dist_select_if,
 * pp_dist_unique and pp_dist_partition_if. An agreement on the parameters,
 * the local compaction of each rank's part, then an agreement that carries
 * every rank's count: each rank learns its offset and the total (no
 * element moves between ranks). unique also compares its first element
 * with the last element of the nearest non-empty rank before it, carried
 * by the first agreement. */
#include "dist_internal.h"

#include <string.h>

typedef enum sel_kind { SEL_FLAGGED, SEL_IF, SEL_UNIQUE, SEL_PARTITION } sel_kind;

typedef struct sel_args {
    sel_kind kind;
    pp_type type;
    const void *in;
    const uint8_t *flags;
    size_t n;
    pp_cmp cmp;
    const void *value;
    void *out;
    pp_dist_counts *counts;
} sel_args;

static pp_status check(pp_dist *d, const char *fn, const sel_args *a)
{
    size_t sz = pp_type_size(a->type), bytes = 0;
    pp_status st = pp_dist_check_type(d, fn, a->type);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, a->n, pp_type_size(a->type), &bytes);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "in", a->in, a->n, sz);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "out", a->out, a->n, sz);
    if (st == PP_SUCCESS && a->kind == SEL_FLAGGED) st = pp_dist_check_array(d, fn, "flags", a->flags, a->n, 1);
    if (st == PP_SUCCESS && (a->kind == SEL_IF || a->kind == SEL_PARTITION)) {
        if ((unsigned)a->cmp > PP_NE)
            st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'cmp' (%d) is not a pp_cmp", fn, (int)a->cmp);
        else if (!a->value)
            st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'value' is NULL", fn);
    }
    if (st == PP_SUCCESS && !a->counts) st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'counts' is NULL", fn);
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "out", a->out, bytes, "in", a->in, bytes, 0);
    if (st == PP_SUCCESS && a->kind == SEL_FLAGGED) {
        st = pp_dist_check_overlap(d, fn, "out", a->out, bytes, "flags", a->flags, a->n, 0);
        if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "in", a->in, bytes, "flags", a->flags, a->n, 0);
    }
    return st;
}

/* Element i of arr (context memory) into host *v. opencl has no offsets
 * into a buffer: the first i + 1 elements come down. */
static pp_status read_elem(pp_dist *d, const char *fn, const void *arr, size_t i, size_t sz, void *v)
{
    if (d->host_direct) {
        memcpy(v, (const char *)arr + i * sz, sz);
        return PP_SUCCESS;
    }
    if (d->backend != PP_BACKEND_OPENCL)
        return pp_dist_pp(d, fn, pp_download(d->ctx, v, (const char *)arr + i * sz, sz));
    void *h;
    pp_status st = pp_dist_view(d, fn, 0, arr, (i + 1) * sz, &h);
    if (st == PP_SUCCESS) memcpy(v, (char *)h + i * sz, sz);
    return st;
}

/* out[0 .. c-1) = out[1 .. c) */
static pp_status drop_first(pp_dist *d, const char *fn, void *out, size_t c, size_t sz)
{
    if (c <= 1) return PP_SUCCESS;
    if (d->host_direct) {
        memmove(out, (char *)out + sz, (c - 1) * sz);
        return PP_SUCCESS;
    }
    void *h;
    pp_status st = pp_dist_view(d, fn, 0, out, c * sz, &h);
    if (st == PP_SUCCESS) st = pp_dist_store(d, fn, out, (char *)h + sz, (c - 1) * sz);
    return st;
}

static pp_status local_pass(pp_dist *d, const sel_args *a, void *cell)
{
    switch (a->kind) {
    case SEL_FLAGGED: return pp_select_flagged(d->ctx, a->type, a->in, a->flags, a->n, a->out, cell);
    case SEL_IF: return pp_select_if(d->ctx, a->type, a->in, a->n, a->cmp, a->value, a->out, cell);
    case SEL_UNIQUE: return pp_unique(d->ctx, a->type, a->in, a->n, a->out, cell);
    default: return pp_partition_if(d->ctx, a->type, a->in, a->n, a->cmp, a->value, a->out, cell);
    }
}

static pp_status run(pp_dist *d, const char *fn, const sel_args *a)
{
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t sz = pp_type_size(a->type);
    pp_status st = check(d, fn, a);
    uint64_t hcount = 0, *cell = &hcount;
    if (st == PP_SUCCESS && !d->host_direct) st = pp_dist_dev(d, fn, 1, sizeof(uint64_t), (void **)&cell);
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    rec.v[0] = a->n > 0;
    if (st == PP_SUCCESS && a->kind == SEL_UNIQUE && a->n > 0) {
        st = read_elem(d, fn, a->in, 0, sz, &rec.v[1]);
        if (st == PP_SUCCESS) st = read_elem(d, fn, a->in, a->n - 1, sz, &rec.v[2]);
    }
    uint64_t hash = pp_dist_hash_start(fn);
    hash = pp_dist_hash(hash, &a->type, sizeof a->type);
    if (st == PP_SUCCESS && (a->kind == SEL_IF || a->kind == SEL_PARTITION)) {
        hash = pp_dist_hash(hash, &a->cmp, sizeof a->cmp);
        hash = pp_dist_hash(hash, a->value, sz);
    }
    st = pp_dist_agree(d, fn, st, hash, &rec, &all);
    if (st != PP_SUCCESS) return st;
    int drop = 0;
    if (a->kind == SEL_UNIQUE && a->n > 0)
        for (int r = d->rank - 1; r >= 0; r--)
            if (all[r].v[0]) {
                drop = pp_dist_equal(a->type, &rec.v[1], &all[r].v[2]);
                break;
            }
    st = pp_dist_pp(d, fn, local_pass(d, a, cell));
    if (st == PP_SUCCESS && cell != &hcount) st = pp_dist_pp(d, fn, pp_download(d->ctx, &hcount, cell, sizeof hcount));
    if (st == PP_SUCCESS && drop) {
        st = drop_first(d, fn, a->out, (size_t)hcount, sz);
        hcount--;
    }
    memset(&rec, 0, sizeof rec);
    rec.v[0] = hcount;
    rec.v[1] = a->n;
    st = pp_dist_agree(d, fn, st, 0, &rec, &all);
    if (st != PP_SUCCESS) return st;
    pp_dist_counts c = {hcount, 0, 0, 0};
    for (int r = 0; r < d->size; r++) {
        if (r < d->rank) {
            c.offset += all[r].v[0];
            c.input_offset += all[r].v[1];
        }
        c.total += all[r].v[0];
    }
    *a->counts = c;
    return PP_SUCCESS;
}

pp_status pp_dist_select_flagged(pp_dist *d, pp_type type, const void *in, const uint8_t *flags, size_t n_local,
                                 void *out, pp_dist_counts *counts)
{
    sel_args a = {SEL_FLAGGED, type, in, flags, n_local, PP_LT, NULL, out, counts};
    return run(d, "pp_dist_select_flagged", &a);
}

pp_status pp_dist_select_if(pp_dist *d, pp_type type, const void *in, size_t n_local, pp_cmp cmp,
                            const void *value, void *out, pp_dist_counts *counts)
{
    sel_args a = {SEL_IF, type, in, NULL, n_local, cmp, value, out, counts};
    return run(d, "pp_dist_select_if", &a);
}

pp_status pp_dist_unique(pp_dist *d, pp_type type, const void *in, size_t n_local, void *out,
                         pp_dist_counts *counts)
{
    sel_args a = {SEL_UNIQUE, type, in, NULL, n_local, PP_LT, NULL, out, counts};
    return run(d, "pp_dist_unique", &a);
}

pp_status pp_dist_partition_if(pp_dist *d, pp_type type, const void *in, size_t n_local, pp_cmp cmp,
                               const void *value, void *out, pp_dist_counts *counts)
{
    sel_args a = {SEL_PARTITION, type, in, NULL, n_local, cmp, value, out, counts};
    return run(d, "pp_dist_partition_if", &a);
}
