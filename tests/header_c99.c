/* parprim.h must compile as strict C99 (built with -std=c99 -pedantic-errors
 * -Wall -Wextra -Werror) and work: a small reduce through the public API,
 * after asking the device's memory. */
#include "parprim.h"

#include <stdio.h>

int main(void)
{
    pp_options opt = PP_OPTIONS_INIT;
    pp_context *ctx = NULL;
    uint32_t host[5] = {1, 2, 3, 4, 5};
    uint32_t sum = 0;
    void *in = NULL, *out = NULL;
    pp_memory_info mem = {0, 0, 0};
    pp_status st;

    opt.backend = PP_BACKEND_AUTO;
    st = pp_create(&ctx, &opt);
    if (st != PP_SUCCESS) {
        fprintf(stderr, "pp_create: %s: %s\n", pp_status_string(st), pp_last_error(NULL));
        return 1;
    }
    if (pp_context_memory(ctx, &mem) != PP_SUCCESS || mem.max_alloc_bytes < sizeof host ||
        pp_malloc(ctx, &in, sizeof host) != PP_SUCCESS || pp_malloc(ctx, &out, sizeof sum) != PP_SUCCESS ||
        pp_upload(ctx, in, host, sizeof host) != PP_SUCCESS ||
        pp_reduce(ctx, PP_U32, PP_SUM, in, 5, out) != PP_SUCCESS ||
        pp_download(ctx, &sum, out, sizeof sum) != PP_SUCCESS) {
        fprintf(stderr, "header_c99: %s\n", pp_last_error(ctx));
        return 1;
    }
    pp_free(ctx, in);
    pp_free(ctx, out);
    pp_destroy(ctx);
    if (sum != 15 || pp_version() != PP_VERSION_NUMBER) {
        fprintf(stderr, "header_c99: sum %u, version %u\n", (unsigned)sum, pp_version());
        return 1;
    }
    printf("header_c99: ok\n");
    return 0;
}
