// pp_top_k on the cuda backend: a radix select, then a sort of the k keys
// it selects. No host synchronization: every decision is taken on the
// device, and the host knows every size in advance (exactly k candidates).
//
// The order is the sort's: each key's radix key (device/sort_keys.cuh,
// Radix::map with pp_sort_keymap: NaN last or first as the order says,
// -0.0 before +0.0, descending by complement), ties by index. So the first
// k of the stable sort are the k smallest composite keys (radix key,
// index), all distinct. The select finds the k-th of them digit by digit,
// most significant first: the radix key's 8-bit digits, then the index's
// (only the digits below n). A pass is two launches: tk_hist counts, per
// digit value, the keys whose digits so far equal the prefix found
// (shared-memory counters, merged into 256 global counters with atomics),
// and tk_find (one thread) picks the digit whose bucket holds the k-th
// key, narrows `need` (how many keys matching the prefix are still to be
// taken) and clears the counters. When the chosen bucket holds exactly
// `need` keys, every key matching the prefix is taken and the select is
// done: the later passes return at once (state.done). Once done (at the
// latest after the index's last digit, where one key matches), the keys
// before the prefix and those matching it are exactly k.
//
// tk_compact writes those k keys and their indices (in no particular
// order: a warp's candidates take their places with one atomic). Two
// stable sorts of the library (pp_cuda_sort, out of place) then order
// them: by index first, then by key in the call's order, so equal keys end
// by index; the second writes keys_out and indices_out. k == 1: one copy.
//
// Memory: the context's held buffer (pp_cuda_held; the sorts take the
// scratch): the select's state and counters, and k keys and k indices
// three times over (candidates, after the first sort, and indices where
// indices_out is NULL).
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/sort_keys.cuh"
#include "device/util.cuh"

namespace
{

constexpr int TK_BLOCK = 256;
constexpr int TK_BLOCKS_PER_SM = 8;

// The select's state, in device memory. A key i is before the prefix if
// (r & kmask) < kprefix, or (r & kmask) == kprefix and (i & imask) <
// iprefix; it matches it if both equal. need: the keys matching the
// prefix still to be taken (k less the keys before it). count: tk_compact's
// fill of the candidates.
struct tk_state {
    unsigned long long kprefix, kmask; // radix-key digits found (the key's width)
    unsigned long long iprefix, imask; // index digits found
    unsigned long long need;
    unsigned long long count;
    int done;
};

__global__ void tk_init(tk_state *st, unsigned long long *hist, unsigned long long k, int all)
{
    if (threadIdx.x == 0) {
        st->kprefix = st->kmask = st->iprefix = st->imask = 0;
        st->need = k;
        st->count = 0;
        st->done = all; // k == n: every key is taken
    }
    for (int d = threadIdx.x; d < kRadix; d += blockDim.x) hist[d] = 0;
}

// Whether key i (radix key r) is before the prefix or matches it.
template <typename U>
__device__ __forceinline__ bool tk_taken(U r, unsigned long long i, U kp, U km, unsigned long long ip,
                                         unsigned long long im)
{
    const U m = (U)(r & km);
    return m < kp || (m == kp && (i & im) <= ip);
}

// One pass's counts: hist[d] += the keys matching the prefix whose next
// digit (of the radix key at `shift`, or of the index where on_index) is d.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_BLOCK)
    tk_hist(const U *keys, size_t n, KeyMap map, const tk_state *st, unsigned long long *hist, int shift, int on_index)
{
    __shared__ unsigned h[kRadix];
    if (st->done) return; // the same in every thread
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK) h[d] = 0;
    __syncthreads();
    const U kp = (U)st->kprefix, km = (U)st->kmask;
    const unsigned long long ip = st->iprefix, im = st->imask;
    const size_t stride = (size_t)gridDim.x * TK_BLOCK;
    for (size_t i = (size_t)blockIdx.x * TK_BLOCK + threadIdx.x; i < n; i += stride) {
        const U r = Radix<FLOAT, U>::map(keys[i], (U)map.xmask, (U)map.nan_key);
        if ((U)(r & km) != kp || ((unsigned long long)i & im) != ip) continue;
        const unsigned d =
            on_index ? (unsigned)((unsigned long long)i >> shift) & 255u : Radix<FLOAT, U>::digit(r, shift);
        atomicAdd(&h[d], 1u);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < kRadix; d += TK_BLOCK)
        if (h[d]) atomicAdd(&hist[d], (unsigned long long)h[d]);
}

// One thread: the digit whose bucket holds the need-th matching key (the
// counts add up to at least need, so one does), the prefix extended by it,
// need less the buckets before it, done where the bucket is exactly need;
// the counters cleared for the next pass.
__global__ void tk_find(tk_state *st, unsigned long long *hist, int shift, int on_index)
{
    if (st->done) return; // tk_hist counted nothing: the counters are still 0
    unsigned long long need = st->need, below = 0;
    int d = 0;
    for (; d < kRadix - 1; d++) {
        if (below + hist[d] >= need) break;
        below += hist[d];
    }
    need -= below;
    if (on_index) {
        st->iprefix |= (unsigned long long)d << shift;
        st->imask |= 255ull << shift;
    } else {
        st->kprefix |= (unsigned long long)d << shift;
        st->kmask |= 255ull << shift;
    }
    st->need = need;
    if (hist[d] == need) st->done = 1;
    for (int e = 0; e < kRadix; e++) hist[e] = 0;
}

// The keys taken (exactly k once the select is done; guarded by k all the
// same) with their indices, a warp's at a time.
template <bool FLOAT, typename U>
__global__ void __launch_bounds__(TK_BLOCK)
    tk_compact(const U *keys, size_t n, KeyMap map, tk_state *st, U *ckeys, uint64_t *cidx, size_t k)
{
    const int lane = threadIdx.x & 31;
    const U kp = (U)st->kprefix, km = (U)st->kmask;
    const unsigned long long ip = st->iprefix, im = st->imask;
    const size_t stride = (size_t)gridDim.x * TK_BLOCK;
    for (size_t base = (size_t)blockIdx.x * TK_BLOCK; base < n; base += stride) { // base: the same in the block
        const size_t i = base + threadIdx.x;
        U bits = 0;
        bool take = false;
        if (i < n) {
            bits = keys[i];
            take = tk_taken<U>(Radix<FLOAT, U>::map(bits, (U)map.xmask, (U)map.nan_key), i, kp, km, ip, im);
        }
        const unsigned b = __ballot_sync(0xffffffffu, take);
        if (!b) continue;
        const int leader = __ffs(b) - 1;
        unsigned long long p0 = 0;
        if (lane == leader) p0 = atomicAdd(&st->count, (unsigned long long)__popc(b));
        p0 = __shfl_sync(0xffffffffu, p0, leader);
        const unsigned long long pos = p0 + (unsigned long long)__popc(b & ((1u << lane) - 1u));
        if (take && pos < k) {
            ckeys[pos] = bits;
            cidx[pos] = i;
        }
    }
}

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
    // tk_hist's shared counters: a block sees at most this many keys
    if (ceil_div(n, (size_t)grid * TK_BLOCK) * TK_BLOCK >= 0xffffffffull)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: n = %zu is too large", fn, n);

    // the held buffer: state, counters, candidates (keys, indices), the
    // first sort's output (indices, keys), spare indices
    const size_t kb = align_up(k * sizeof(U), 16), ib = k * sizeof(uint64_t);
    const size_t o_hist = align_up(sizeof(tk_state), 16), o_ck = o_hist + kRadix * sizeof(unsigned long long);
    const size_t o_ci = o_ck + kb, o_si = o_ci + ib, o_sk = o_si + ib, o_spare = o_sk + kb;
    const size_t total = o_spare + (a->indices_out ? 0 : ib);
    char *buf = (char *)pp_cuda_held(ctx, total, fn);
    if (!buf) return PP_ERROR_OUT_OF_MEMORY;
    tk_state *st = (tk_state *)buf;
    unsigned long long *hist = (unsigned long long *)(buf + o_hist);
    U *ckeys = (U *)(buf + o_ck), *skeys = (U *)(buf + o_sk);
    uint64_t *cidx = (uint64_t *)(buf + o_ci), *sidx = (uint64_t *)(buf + o_si);
    uint64_t *idx_out = a->indices_out ? a->indices_out : (uint64_t *)(buf + o_spare);

    const KeyMap map = pp_sort_keymap<KIND, U>(a->order);
    PP_CUDA_CHECK_LAUNCH(ctx, fn,
                         pp_cuda_launch(ctx, tk_init, 1, TK_BLOCK, 0, st, hist, (unsigned long long)k, (int)(k == n)));
    // the radix key's digits, then the index's, most significant first
    const int ipasses = (int)ceil_div((size_t)index_bits(n), 8);
    for (int p = 0; p < (int)sizeof(U) + ipasses; p++) {
        const int on_index = p >= (int)sizeof(U);
        const int shift = on_index ? 8 * (ipasses - 1 - (p - (int)sizeof(U))) : 8 * ((int)sizeof(U) - 1 - p);
        PP_CUDA_CHECK_LAUNCH(ctx, fn,
                             pp_cuda_launch(ctx, tk_hist<FLOAT, U>, grid, TK_BLOCK, 0, keys, n, map,
                                            (const tk_state *)st, hist, shift, on_index));
        PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, tk_find, 1, 1, 0, st, hist, shift, on_index));
    }
    PP_CUDA_CHECK_LAUNCH(
        ctx, fn,
        pp_cuda_launch(ctx, tk_compact<FLOAT, U>, grid, TK_BLOCK, 0, keys, n, map, st, ckeys, (uint64_t *)cidx, k));
    if (k == 1) { // nothing to sort: the one candidate copied out
        PP_CUDA_TRY(ctx, cudaMemcpyAsync(a->keys_out, ckeys, sizeof(U), cudaMemcpyDeviceToDevice, s->stream), fn);
        if (a->indices_out)
            PP_CUDA_TRY(
                ctx, cudaMemcpyAsync(a->indices_out, cidx, sizeof(uint64_t), cudaMemcpyDeviceToDevice, s->stream), fn);
        return PP_SUCCESS;
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
