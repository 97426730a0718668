// pp_top_k on the cuda backend: a radix select (topk/select.cuh: its
// kernels and how they decide), then a sort of the k keys it selects. No
// host synchronization: every decision is taken on the device, and the
// host knows every size in advance (exactly k keys are selected).
//
// The host chooses the fast path (a sampled threshold and one filtering
// read, then passes over the candidates) where the candidates' capacity
// is a small part of n (tk_plan); else the passes read the input. Each
// pass is one launch; at most the radix key's bytes plus the index's.
//
// Then the k are ordered by (radix key, index). Keys of at most 4 bytes of
// an input of at most 2^32 keys: one sort of the library (pp_cuda_sort)
// of 64-bit composites (radix key, index), then the keys read back from
// the input by index. Else two stable sorts, out of place: by index
// first, then by key in the call's order, so equal keys end by index; the
// second writes keys_out and indices_out. k == 1: one copy.
//
// Memory: the context's held buffer (pp_cuda_held; the sorts take the
// scratch): the select's state and counters, the candidates (capacity
// times the key's size plus 8 bytes, fast path only), and k keys and k
// indices three times over (selected, after the first sort, and indices
// where indices_out is NULL).
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "topk/select.cuh"

#include <math.h>

namespace
{

constexpr int TK_BLOCKS_PER_SM = 8;

// The fast path's sample rank and the candidates' capacity for k of n
// keys of key_size bytes (rank 0: the fast path is not taken). The sample
// (S keys) holds about mu = k * S / n keys of the top k; the rank mu + 5
// sqrt(mu) + 8 puts the threshold past the k-th key unless the sample is
// far off; the input holds about rank * n / S keys up to the threshold (a
// spread of about rank^(-1/2) of that), and the capacity is three times
// that. Taken where n is at least 2^16, the capacity is at most n / 16
// (the candidates are few) and the keys are wider than a byte (256 values:
// the keys equal to the threshold would overflow any small capacity).
struct tk_plan {
    unsigned rank;
    unsigned long long cap;
    tk_plan(size_t n, size_t k, int sample, size_t key_size) : rank(0), cap(0)
    {
        if (key_size < 2 || n < ((size_t)1 << 16)) return;
        const double mu = (double)k * sample / (double)n;
        const double r = ceil(mu + 5.0 * sqrt(mu)) + 8.0;
        if (r >= sample) return;
        const double c = 3.0 * r * ceil((double)n / sample) + 4096.0;
        if (c > (double)n / 16) return;
        rank = (unsigned)r;
        cap = (unsigned long long)c;
    }
};

// Bits of the largest index, n - 1 (n >= 2): the index digits to select.
int index_bits(size_t n)
{
    int b = 0;
    for (unsigned long long v = (unsigned long long)n - 1; v; v >>= 1) b++;
    return b;
}

template <typename T> pp_status top_k_typed(pp_context *ctx, const pp_top_k_args *a)
{
    typedef typename pp_traits<T>::bits U;
    constexpr int KIND = pp_traits<T>::kind;
    constexpr bool FLOAT = KIND == PP_KIND_FLOAT;
    const char *fn = a->fn;
    const size_t n = a->n, k = a->k; // 1 <= k <= n
    const U *keys = (const U *)a->in;
    pp_cuda_state *s = pp_cuda(ctx);
    const unsigned grid = grid_for(ceil_div(n, TK_BLOCK), pp_cuda_resident(s, TK_BLOCKS_PER_SM));
    // tk_pass's shared counters: a block sees at most this many keys
    if (ceil_div(n, (size_t)grid * TK_BLOCK) * TK_BLOCK >= 0xffffffffull)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large", fn, n);

    const tk_plan plan(n, k, tk_sample_size<U>(), sizeof(U));

    // the held buffer: state, counters, the fast path's candidates (keys,
    // indices), the k selected (keys, indices), the first sort's output
    // (indices, keys), spare indices
    const size_t kb = align_up(k * sizeof(U), 16), ib = k * sizeof(uint64_t);
    const size_t o_hist = align_up(sizeof(tk_state), 16), o_fk = o_hist + kRadix * sizeof(unsigned long long);
    const size_t o_fi = o_fk + align_up(plan.cap * sizeof(U), 16), o_ck = o_fi + plan.cap * sizeof(uint64_t);
    const size_t o_ci = o_ck + kb, o_si = o_ci + ib, o_sk = o_si + ib, o_spare = o_sk + kb;
    const size_t total = o_spare + (a->indices_out ? 0 : ib);
    char *buf = (char *)pp_cuda_held(ctx, total, fn);
    if (!buf) return PP_ERROR_OUT_OF_MEMORY;
    tk_state *st = (tk_state *)buf;
    unsigned long long *hist = (unsigned long long *)(buf + o_hist);
    U *fkeys = (U *)(buf + o_fk), *ckeys = (U *)(buf + o_ck), *skeys = (U *)(buf + o_sk);
    uint64_t *fidx = (uint64_t *)(buf + o_fi), *cidx = (uint64_t *)(buf + o_ci), *sidx = (uint64_t *)(buf + o_si);
    uint64_t *idx_out = a->indices_out ? a->indices_out : (uint64_t *)(buf + o_spare);

    const KeyMap map = pp_sort_keymap<KIND, U>(a->order);
    PP_CUDA_CHECK_LAUNCH(ctx, fn,
                         pp_cuda_launch(ctx, tk_sample<FLOAT, U>, 1, TK_SAMPLE_BLOCK, 0, keys, n, map, st, hist,
                                        (unsigned long long)k, (int)(k == n), plan.rank));
    if (plan.rank)
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, tk_filter<FLOAT, U>, grid, TK_BLOCK, 0, keys, n, map, st, fkeys, fidx,
                                            plan.cap, (unsigned long long)k));
    // the radix key's digits, then the index's, most significant first
    const int ipasses = (int)ceil_div((size_t)index_bits(n), 8);
    for (int p = 0; p < (int)sizeof(U) + ipasses; p++) {
        const int on_index = p >= (int)sizeof(U);
        const int shift = on_index ? 8 * (ipasses - 1 - (p - (int)sizeof(U))) : 8 * ((int)sizeof(U) - 1 - p);
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, tk_pass<FLOAT, U>, grid, TK_BLOCK, 0, keys, n, (const U *)fkeys,
                                            (const uint64_t *)fidx, map, st, hist, shift, on_index));
    }
    PP_CUDA_CHECK_LAUNCH(ctx, fn,
                         pp_cuda_launch(ctx, tk_compact<FLOAT, U>, grid, TK_BLOCK, 0, keys, n, (const U *)fkeys,
                                        (const uint64_t *)fidx, map, st, ckeys, cidx, k));
    if (k == 1) { // nothing to sort: the one candidate copied out
        PP_CUDA_TRY(ctx, cudaMemcpyAsync(a->keys_out, ckeys, sizeof(U), cudaMemcpyDeviceToDevice, s->stream), fn);
        if (a->indices_out)
            PP_CUDA_TRY(
                ctx, cudaMemcpyAsync(a->indices_out, cidx, sizeof(uint64_t), cudaMemcpyDeviceToDevice, s->stream), fn);
        return PP_SUCCESS;
    }
    if constexpr (sizeof(U) <= 4) {
        if (n <= ((size_t)1 << 32)) { // one sort of the composites, then the keys read back
            const unsigned g = grid_for(ceil_div(k, TK_BLOCK), pp_cuda_resident(s, TK_BLOCKS_PER_SM));
            PP_CUDA_CHECK_LAUNCH(
                ctx, fn, pp_cuda_launch(ctx, tk_compose<FLOAT, U>, g, TK_BLOCK, 0, (const U *)ckeys, cidx, k, map));
            const pp_sort_args by_comp = {fn, PP_U64, sidx, NULL, 0, k, PP_ASCENDING, cidx, NULL};
            const pp_status r = pp_cuda_sort(ctx, &by_comp);
            if (r != PP_SUCCESS) return r;
            PP_CUDA_CHECK_LAUNCH(ctx, fn,
                                 pp_cuda_launch(ctx, tk_gather<U>, g, TK_BLOCK, 0, keys, (const uint64_t *)sidx, k,
                                                (U *)a->keys_out, a->indices_out));
            return PP_SUCCESS;
        }
    }
    // by index, then stably by key in the call's order
    const pp_sort_args by_index = {fn, PP_U64, sidx, skeys, sizeof(U), k, PP_ASCENDING, cidx, ckeys};
    pp_status r = pp_cuda_sort(ctx, &by_index);
    if (r != PP_SUCCESS) return r;
    const pp_sort_args by_key = {fn, a->type, a->keys_out, idx_out, sizeof(uint64_t), k, a->order, skeys, sidx};
    return pp_cuda_sort(ctx, &by_key);
}

} // namespace

pp_status pp_cuda_top_k(pp_context *ctx, const pp_top_k_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) { return top_k_typed<decltype(t)>(ctx, a); });
}
