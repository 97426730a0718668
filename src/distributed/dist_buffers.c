/* The buffers a pp_dist keeps between calls: host staging (pinned with
 * cudaMallocHost for cuda contexts where the CUDA runtime is built in) and
 * context memory (pp_malloc), each grown on demand; and the host view of
 * context memory (in place on cpu, else a download). */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef PP_DIST_HAVE_CUDART
#include <cuda_runtime_api.h>
#endif

static void host_release(pp_dist *d, void *p)
{
    if (!p) return;
#ifdef PP_DIST_HAVE_CUDART
    if (d->pinned) {
        cudaFreeHost(p);
        return;
    }
#else
    (void)d;
#endif
    free(p);
}

static void *host_get(pp_dist *d, size_t bytes)
{
#ifdef PP_DIST_HAVE_CUDART
    if (d->pinned) {
        void *p = NULL;
        return cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;
    }
#else
    (void)d;
#endif
    return malloc(bytes);
}

void *pp_dist_host(pp_dist *d, const char *fn, int slot, size_t bytes)
{
    pp_dist_buf *b = &d->host[slot];
    if (bytes == 0) bytes = 1;
    if (b->cap >= bytes) return b->p;
    size_t want = bytes + bytes / 4; /* a quarter more: fewer regrowths */
    if (want < bytes) want = bytes;
    host_release(d, b->p);
    b->p = host_get(d, want);
    b->cap = b->p ? want : 0;
    if (!b->p) {
        pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory (a staging buffer of %zu bytes)", fn, bytes);
        return NULL;
    }
    return b->p;
}

pp_status pp_dist_dev(pp_dist *d, const char *fn, int slot, size_t bytes, void **p)
{
    pp_dist_buf *b = &d->dev[slot];
    if (bytes == 0) bytes = 1;
    if (b->cap < bytes) {
        pp_free(d->ctx, b->p);
        b->p = NULL;
        b->cap = 0;
        pp_status st = pp_malloc(d->ctx, &b->p, bytes);
        if (st != PP_SUCCESS) {
            b->p = NULL;
            return pp_dist_pp(d, fn, st);
        }
        b->cap = bytes;
    }
    *p = b->p;
    return PP_SUCCESS;
}

void pp_dist_buffers_free(pp_dist *d)
{
    for (int i = 0; i < PP_DIST_HOST_SLOTS; i++) {
        host_release(d, d->host[i].p);
        d->host[i].p = NULL;
        d->host[i].cap = 0;
    }
    for (int i = 0; i < PP_DIST_DEV_SLOTS; i++) {
        if (d->dev[i].p) pp_free(d->ctx, d->dev[i].p);
        d->dev[i].p = NULL;
        d->dev[i].cap = 0;
    }
}

pp_status pp_dist_view(pp_dist *d, const char *fn, int slot, const void *src, size_t bytes, void **host)
{
    if (d->host_direct) {
        *host = (void *)src;
        return PP_SUCCESS;
    }
    void *h = pp_dist_host(d, fn, slot, bytes);
    if (!h) return PP_ERROR_OUT_OF_MEMORY;
    if (bytes) {
        pp_status st = pp_download(d->ctx, h, src, bytes);
        if (st != PP_SUCCESS) return pp_dist_pp(d, fn, st);
    }
    *host = h;
    return PP_SUCCESS;
}

pp_status pp_dist_store(pp_dist *d, const char *fn, void *dst, const void *host, size_t bytes)
{
    if (bytes == 0) return PP_SUCCESS;
    if (d->host_direct) {
        if (dst != host) memmove(dst, host, bytes);
        return PP_SUCCESS;
    }
    return pp_dist_pp(d, fn, pp_upload(d->ctx, dst, host, bytes));
}
