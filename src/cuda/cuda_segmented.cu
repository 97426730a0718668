// The cuda backend's segmented and by-key calls: pp_segmented_reduce,
// pp_segmented_scan, pp_reduce_by_key, pp_scan_by_key and
// pp_run_length_encode, all one kernel over tiles whose heads come from
// offsets or from neighbouring keys (segmented/tile.cuh: one pass, with a
// look-back between tiles). This file is the host side: the parameters of
// each call, the look-back state, the launch.
//
// Offsets are never read back to the host (no synchronization): the
// kernels clamp each one to n, so that any offsets (decreasing, past n)
// make no read outside in[0 .. n) and offsets[0 .. nseg], and no write
// outside out[0 .. nseg) (reduce) or out[min(offsets[0], n) ..
// min(offsets[nseg], n)) (scan). With bad offsets the results are
// unspecified; the call succeeds.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/util.cuh"
#include "segmented/tile.cuh"

namespace {

// Runs the kernel on p (ntiles and the look-back state filled in here):
// one block per tile, each taking one ticket.
template <typename T, typename Op> pp_status seg_run(pp_context *ctx, SegParams<T> p, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    p.ntiles = p.n == 0 ? 1 : ceil_div(p.n, seg_tile<T>());
    if (p.ntiles > 0x7fffffffu)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %llu is too large for one launch", fn,
                       (unsigned long long)p.n);
    const pp_status st = pp_lookback_setup(ctx, (size_t)p.ntiles, false, &p.lb, &p.tbase, fn);
    if (st != PP_SUCCESS) return st;
    p.ticket = s->ticket;
    auto *const kernel = seg_tiles<T, Op>;
    const size_t smem = seg_dynamic_smem<T>(p.mode);
    PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), fn);
    return pp_cuda_launched_tickets(ctx, fn, pp_cuda_launch(ctx, kernel, (unsigned)p.ntiles, SEG_BLOCK, smem, p));
}

template <typename T> SegParams<T> seg_params(int mode, const void *in, void *out, size_t n)
{
    SegParams<T> p;
    memset(&p, 0, sizeof p);
    p.mode = mode;
    p.in = (const T *)in;
    p.out = (T *)out;
    p.n = n;
    return p;
}

pp_status segmented(pp_context *ctx, const pp_segmented_args *a, int mode)
{
    if (mode == SEG_SCAN && a->n == 0) return PP_SUCCESS; // every segment empty: nothing to write
    return pp_dispatch_type_op(ctx, a->fn, a->type, a->op, [&](auto t, auto op) {
        typedef decltype(t) T;
        SegParams<T> p = seg_params<T>(mode, a->in, a->out, a->n);
        p.heads = HEADS_OFFSETS;
        p.exclusive = mode == SEG_SCAN && a->kind == PP_EXCLUSIVE;
        p.offsets = a->offsets;
        p.nseg = a->nseg;
        return seg_run<T, decltype(op)>(ctx, p, a->fn);
    });
}

pp_status by_key(pp_context *ctx, const pp_bykey_args *a, int mode)
{
    const pp_op op = mode == KEY_RLE ? PP_SUM : a->op;
    const pp_type vt = mode == KEY_RLE ? PP_U64 : a->value_type;
    return pp_dispatch_type_op(ctx, a->fn, vt, op, [&](auto t, auto opv) {
        typedef decltype(t) T;
        // RLE: the values are implicit ones, their sums the counts.
        SegParams<T> p = seg_params<T>(mode, mode == KEY_RLE ? NULL : a->values,
                                       mode == KEY_RLE ? (void *)a->counts_out : a->values_out, a->n);
        p.heads = seg_key_class(a->key_type);
        p.exclusive = mode == KEY_SCAN && a->kind == PP_EXCLUSIVE;
        p.keys = a->keys;
        p.keys_out = a->keys_out;
        p.count = a->count;
        return seg_run<T, decltype(opv)>(ctx, p, a->fn);
    });
}

} // namespace

pp_status pp_cuda_segmented_reduce(pp_context *ctx, const pp_segmented_args *a)
{
    return segmented(ctx, a, SEG_REDUCE);
}

pp_status pp_cuda_segmented_scan(pp_context *ctx, const pp_segmented_args *a) { return segmented(ctx, a, SEG_SCAN); }

pp_status pp_cuda_reduce_by_key(pp_context *ctx, const pp_bykey_args *a) { return by_key(ctx, a, KEY_REDUCE); }

pp_status pp_cuda_scan_by_key(pp_context *ctx, const pp_bykey_args *a) { return by_key(ctx, a, KEY_SCAN); }

pp_status pp_cuda_run_length_encode(pp_context *ctx, const pp_bykey_args *a) { return by_key(ctx, a, KEY_RLE); }
