// parprim.h must compile as C++11 (built with -std=c++11 -pedantic-errors
// -Wall -Wextra -Werror), with C linkage, and work from C++.
#include "parprim.h"

#include <cstdio>
#include <type_traits>

static_assert(std::is_standard_layout<pp_options>::value, "pp_options is a plain C struct");
static_assert(std::is_standard_layout<pp_memory_info>::value && sizeof(pp_memory_info) == 3 * sizeof(uint64_t),
              "pp_memory_info is three uint64_t");
static_assert(PP_VERSION_NUMBER == PP_VERSION_MAJOR * 10000 + PP_VERSION_MINOR * 100 + PP_VERSION_PATCH,
              "PP_VERSION_NUMBER");

int main()
{
    pp_options opt = PP_OPTIONS_INIT;
    pp_context *ctx = nullptr;
    pp_status st = pp_create(&ctx, &opt);
    if (st != PP_SUCCESS) {
        std::fprintf(stderr, "pp_create: %s: %s\n", pp_status_string(st), pp_last_error(nullptr));
        return 1;
    }
    double host[4] = {-1.5, 2.0, -0.0, 8.25};
    double mx = 0;
    void *in = nullptr, *out = nullptr;
    pp_memory_info mem = {};
    const pp_context *cctx = ctx;
    bool ok = pp_context_memory(cctx, &mem) == PP_SUCCESS && mem.total_bytes >= mem.max_alloc_bytes &&
              pp_malloc(ctx, &in, sizeof host) == PP_SUCCESS && pp_malloc(ctx, &out, sizeof mx) == PP_SUCCESS &&
              pp_upload(ctx, in, host, sizeof host) == PP_SUCCESS &&
              pp_reduce(ctx, PP_F64, PP_MAX, in, 4, out) == PP_SUCCESS &&
              pp_download(ctx, &mx, out, sizeof mx) == PP_SUCCESS;
    if (!ok) std::fprintf(stderr, "header_cxx: %s\n", pp_last_error(ctx));
    pp_free(ctx, in);
    pp_free(ctx, out);
    pp_destroy(ctx);
    if (!ok || mx != 8.25) return 1;
    std::printf("header_cxx: ok\n");
    return 0;
}
