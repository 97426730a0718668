/* Uses an installed parprim: sums 1..1000 and sorts a few keys. */
#include <parprim.h>
#include <stdio.h>

int main(void)
{
    pp_context *ctx;
    if (pp_create(&ctx, NULL) != PP_SUCCESS) {
        fprintf(stderr, "pp_create: %s\n", pp_last_error(NULL));
        return 1;
    }
    int32_t host[1000], sum = 0;
    for (int i = 0; i < 1000; i++) host[i] = 1000 - i;
    int32_t *d = NULL, *out = NULL;
    int ok = pp_malloc(ctx, (void **)&d, sizeof host) == PP_SUCCESS &&
             pp_malloc(ctx, (void **)&out, sizeof sum) == PP_SUCCESS &&
             pp_upload(ctx, d, host, sizeof host) == PP_SUCCESS &&
             pp_reduce(ctx, PP_I32, PP_SUM, d, 1000, out) == PP_SUCCESS &&
             pp_download(ctx, &sum, out, sizeof sum) == PP_SUCCESS &&
             pp_sort(ctx, PP_I32, d, 1000, PP_ASCENDING) == PP_SUCCESS &&
             pp_download(ctx, host, d, sizeof host) == PP_SUCCESS;
    ok = ok && sum == 500500 && host[0] == 1 && host[999] == 1000;
    unsigned v = pp_version();
    printf("parprim %u.%u.%u on %s: %s\n", v / 10000, v / 100 % 100, v % 100, pp_context_device_name(ctx),
           ok ? "ok" : "FAILED");
    pp_free(ctx, d);
    pp_free(ctx, out);
    pp_destroy(ctx);
    return ok ? 0 : 1;
}
