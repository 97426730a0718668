/* The entry point of pp_top_k: arguments checked here, once, then the slot
 * of the backend table that the algorithm chosen for PP_PRIM_SORT picks
 * (internal.h, pp_backend_ops; pp_pick_slot in check.c). pp_scan_init is
 * pp_scan's neighbour in api.c. */
#include "check.h"

pp_status pp_top_k(pp_context *ctx, pp_type type, const void *in, size_t n, size_t k, pp_order order, void *keys_out,
                   uint64_t *indices_out)
{
    static const char fn[] = "pp_top_k";
    PP_BEGIN(ctx, fn);
    TRY(pp_check_type_n(ctx, fn, type, n));
    TRY(pp_check_order(ctx, fn, order));
    if (k > n) k = n;
    if (k > SIZE_MAX / sizeof(uint64_t)) INVALID(ctx, "%s: k = %zu indices overflow size_t bytes", fn, k);
    if (k == 0) return PP_SUCCESS;
    const size_t sz = pp_type_size(type), inb = n * sz, kb = k * sz, ib = indices_out ? k * sizeof(uint64_t) : 0;
    NEED(in, "in");
    NEED(keys_out, "keys_out");
    ALIGNED(in, sz, "in");
    ALIGNED(keys_out, sz, "keys_out");
    ALIGNED(indices_out, sizeof(uint64_t), "indices_out");
    NO_OVERLAP(keys_out, kb, "keys_out", in, inb, "in");
    if (indices_out) {
        NO_OVERLAP(indices_out, ib, "indices_out", in, inb, "in");
        NO_OVERLAP(indices_out, ib, "indices_out", keys_out, kb, "keys_out");
    }
    const pp_top_k_args a = {fn, type, in, n, k, order, keys_out, indices_out};
    if (PP_IS_HALF(type)) { /* by a sort of the order keys (half_sort.c) */
        TRY(pp_half_sort_check(ctx, fn, type));
        pp_status st = pp_enter(ctx, fn);
        if (st == PP_SUCCESS) st = pp_half_top_k(ctx, &a);
        return pp_end(ctx, fn, st);
    }
    RUN_PICKED(ctx->ops->top_k, PP_PRIM_SORT, type, PP_SUM, 0, &a);
}
