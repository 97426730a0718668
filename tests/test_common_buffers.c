/* Device buffers with guard bytes after their payload, checked on every
 * download (test_common.h). */
#include "test_common_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ----------------------------------------------------------------------------------- */
static unsigned char guard_byte(size_t i) { return (unsigned char)(0xA5 ^ (i * 29)); }

void *tc_halloc(size_t bytes)
{
    void *p = malloc(bytes + TC_GUARD);
    if (!p) {
        fprintf(stderr, "%s: out of host memory (%zu bytes)\n", tc_program(), bytes);
        abort();
    }
    return p;
}

static void *dev_with(pp_context *ctx, const void *host, size_t bytes, int fill)
{
    unsigned char *tmp = (unsigned char *)tc_halloc(bytes);
    if (host) {
        if (bytes) memcpy(tmp, host, bytes);
    } else {
        memset(tmp, fill, bytes);
    }
    for (size_t i = 0; i < TC_GUARD; i++) tmp[bytes + i] = guard_byte(i);
    void *d = NULL;
    pp_status st = pp_malloc(ctx, &d, bytes + TC_GUARD);
    if (st != PP_SUCCESS || !d) {
        free(tmp);
        TC_FAIL("pp_malloc(%zu) returned %s: %s", bytes + TC_GUARD, pp_status_string(st), pp_last_error(ctx));
    }
    st = pp_upload(ctx, d, tmp, bytes + TC_GUARD);
    free(tmp);
    if (st != PP_SUCCESS) TC_FAIL("pp_upload returned %s: %s", pp_status_string(st), pp_last_error(ctx));
    return d;
}

void *tc_dev_upload(pp_context *ctx, const void *host, size_t bytes)
{
    static const char empty = 0;
    return dev_with(ctx, host ? host : &empty, host ? bytes : 0, 0);
}

void *tc_dev_filled(pp_context *ctx, size_t bytes, unsigned char fill) { return dev_with(ctx, NULL, bytes, fill); }

void tc_dev_download_at(const char *file, int line, pp_context *ctx, void *host, const void *dev, size_t bytes,
                        const char *what)
{
    pp_status st = pp_download(ctx, host, dev, bytes + TC_GUARD);
    if (st != PP_SUCCESS)
        tc_fail_at(file, line, "pp_download(%s) returned %s: %s", what, pp_status_string(st), pp_last_error(ctx));
    const unsigned char *g = (const unsigned char *)host + bytes;
    for (size_t i = 0; i < TC_GUARD; i++)
        if (g[i] != guard_byte(i))
            tc_fail_at(file, line, "%s: written past its end (guard byte %zu after %zu bytes changed)", what, i,
                       bytes);
}

void tc_dev_free(pp_context *ctx, void *p)
{
    pp_status st = pp_free(ctx, p);
    if (st != PP_SUCCESS) TC_FAIL("pp_free returned %s", pp_status_string(st));
}
