/* pp_dist_histogram_even and pp_dist_histogram_range: an agreement on the
 * bins (a hash of type, nbins and the bounds or edges), the local
 * histogram, an agreement on its status, then one all-reduce (sum) of the
 * nbins counts: in place in context memory where the engine takes it,
 * else through a host buffer. Counts are exact integers, so the reduction
 * order does not matter. */
#include "dist_internal.h"

#include <string.h>

typedef struct hist_args {
    pp_type type;
    const void *samples;
    size_t n;
    const void *lower, *upper, *edges; /* even: lower, upper; range: edges */
    size_t nbins;
    uint64_t *counts;
    int range;
} hist_args;

static pp_status run(pp_dist *d, const char *fn, const hist_args *a)
{
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t sz = pp_type_size(a->type), cbytes = 0, sbytes = 0;
    pp_status st = pp_dist_check_type(d, fn, a->type);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, a->n, sz, &sbytes);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "samples", a->samples, a->n, sz);
    if (st == PP_SUCCESS && a->nbins == 0)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'nbins' is 0", fn);
    if (st == PP_SUCCESS && a->nbins > SIZE_MAX / sizeof(uint64_t))
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'nbins' (%zu) is too large", fn, a->nbins);
    if (st == PP_SUCCESS) {
        cbytes = a->nbins * sizeof(uint64_t);
        if (!a->counts) st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'counts' is NULL", fn);
    }
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "counts", a->counts, a->nbins, sizeof(uint64_t));
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "counts", a->counts, cbytes, "samples", a->samples,
                                                     sbytes, 0);
    if (st == PP_SUCCESS && !a->range && (!a->lower || !a->upper))
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", fn, a->lower ? "upper" : "lower");
    if (st == PP_SUCCESS && a->range && !a->edges)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'edges' is NULL", fn);
    if (st == PP_SUCCESS && a->range && a->nbins + 1 > SIZE_MAX / sz)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'nbins' (%zu) is too large", fn, a->nbins);
    uint64_t *host = NULL;
    if (st == PP_SUCCESS && !d->device_to_engine && !(host = pp_dist_host(d, fn, 0, cbytes)))
        st = PP_ERROR_OUT_OF_MEMORY;
    uint64_t hash = pp_dist_hash_start(fn);
    hash = pp_dist_hash(hash, &a->type, sizeof a->type);
    hash = pp_dist_hash(hash, &a->nbins, sizeof a->nbins);
    if (st == PP_SUCCESS) {
        if (a->range) hash = pp_dist_hash(hash, a->edges, (a->nbins + 1) * sz);
        else hash = pp_dist_hash(pp_dist_hash(hash, a->lower, sz), a->upper, sz);
    }
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    st = pp_dist_agree(d, fn, st, hash, &rec, &all);
    if (st != PP_SUCCESS) return st;
    if (a->range)
        st = pp_histogram_range(d->ctx, a->type, a->samples, a->n, a->edges, a->nbins, a->counts);
    else
        st = pp_histogram_even(d->ctx, a->type, a->samples, a->n, a->lower, a->upper, a->nbins, a->counts);
    st = pp_dist_pp(d, fn, st);
    /* The engine reads context memory: the local histogram must be done. */
    if (st == PP_SUCCESS && d->device_to_engine && !d->host_direct && !d->ordered)
        st = pp_dist_pp(d, fn, pp_synchronize(d->ctx));
    st = pp_dist_agree_status(d, fn, st);
    if (st != PP_SUCCESS) return st;
    if (d->device_to_engine) return d->eng->allreduce_sum(d, fn, a->counts, a->nbins, 1);
    st = pp_dist_pp(d, fn, pp_download(d->ctx, host, a->counts, cbytes));
    st = pp_dist_agree_status(d, fn, st);
    if (st == PP_SUCCESS) st = d->eng->allreduce_sum(d, fn, host, a->nbins, 0);
    if (st != PP_SUCCESS) return st;
    return pp_dist_agree_status(d, fn, pp_dist_store(d, fn, a->counts, host, cbytes));
}

pp_status pp_dist_histogram_even(pp_dist *d, pp_type type, const void *samples, size_t n_local, const void *lower,
                                 const void *upper, size_t nbins, uint64_t *counts)
{
    hist_args a = {type, samples, n_local, lower, upper, NULL, nbins, counts, 0};
    return run(d, "pp_dist_histogram_even", &a);
}

pp_status pp_dist_histogram_range(pp_dist *d, pp_type type, const void *samples, size_t n_local, const void *edges,
                                  size_t nbins, uint64_t *counts)
{
    hist_args a = {type, samples, n_local, NULL, NULL, edges, nbins, counts, 1};
    return run(d, "pp_dist_histogram_range", &a);
}
