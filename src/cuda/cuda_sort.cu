// cuda sort: stable LSD radix sort with 8-bit digits, after Onesweep
// (Adinets and Merrill, 2022, "Onesweep: a faster least significant digit
// radix sort for GPUs").
//
// Radix keys are computed on the fly from a key's bits and the order
// (device/sort_keys.cuh: one XOR for integers; floats with -0.0 < +0.0 and
// every NaN after every other key, or before them in PP_DESCENDING), and
// keys are moved unchanged (so NaN payloads survive).
//
// Paths (chosen on the host from n and the types only, never from the data):
//  * n <= SmallCfg::CAP: one block sorts everything in shared memory, every
//    pass, one launch (small_kernel); up to SmallCfg::CLUSTER_CAP (8
//    times that), one cluster of PP_CLUSTER blocks does, their shared
//    memories holding the keys between passes (cluster_small_kernel).
//  * 8-bit integer keys without values: count_kernel, then fill_kernel
//    rewrites the runs (a key is its digit; rewriting equals moving).
//  * otherwise Onesweep:
//      1. count_kernel reads every key once and counts all digit positions
//         (shared-memory histograms, merged into global ones with atomics);
//         its last block turns the counts into per-pass digit offsets, marks
//         the passes whose digit is the same for every key, and decides on
//         the device which buffer each pass reads; for float keys it also
//         notes whether any key is a NaN (large sorts of NaN-free keys, and
//         sorts of such keys alone of about a tile per SM, then skip the
//         NaN check in every pass: kNanFreeMin).
//      2. one pass_kernel launch per digit position, each one kernel over
//         tiles: the tile's digit counts (published before the ranking, so
//         later tiles find them early), stable ranking of the tile's keys
//         by digit, decoupled look-back across tiles per digit, scatter
//         through shared memory.
//         A pass whose digit is constant exits at once (a device-side flag),
//         so no host synchronization is ever needed.
//      3. copy_back_kernel moves the data from the alternate buffers into the
//         user's if an odd number of passes ran (else it exits at once).
//
// Out of place (pp_sort_copy; keys_in != keys): every path reads the input
// and writes the output, with no copy of the input first. The small kernels
// load the input and store the output; the counting path counts the input
// and fills the output; in Onesweep, count_kernel reads the input and
// plans the active passes so that the first reads the input and the last
// writes the output (the first one writes the output if their number is
// odd, else the alternate buffers), so nothing is copied back; with no
// active pass (all keys equal), copy_back_kernel copies the input.
//
// Memory: everything comes from pp_cuda_scratch (one buffer, carved): the
// control block, histograms, portion carries, digit offsets, two rows of
// look-back status per tile (one set for even passes, one for odd), the
// alternate keys and values. One small cudaMemsetAsync per call clears the
// control block, histograms and carries; the status rows are cleared inside
// the kernels (see pass_kernel).
//
// Files: device/sort_keys.cuh (radix keys, value types), device/sort_rank.cuh
// (stable warp ranking by digit), sort/count.cuh (the control block,
// count_kernel), sort/pass_tile.cuh (one tile of a pass), sort/onesweep.cuh
// (pass_kernel, copy_back_kernel), sort/small.cuh (small_kernel,
// cluster_small_kernel, fill_kernel); this file is the host side: the
// choice of path, the scratch layout and the launches.
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/sort_keys.cuh"
#include "device/util.cuh"
#include "sort/onesweep.cuh"
#include "sort/small.cuh"

namespace {

// From this n on, float keys get pass kernels that skip the NaN check when
// the keys hold no NaN (faster from 2^28 on; slower at 2^24 and 2^16, so
// smaller sorts keep the kernels with the check alone; 2^26 lies between
// the sizes measured). So do float keys alone of at most 1.5 tiles per SM:
// a pass is then about one tile's work on each SM, and the shorter body
// wins there, while at twice that, and for pairs, it lost. (bench/studies/cuda-sort.md,
// "cuda sort: NaN-free pass kernels and two-part digit counting" and "cuda
// sort: float keys alone at about one tile per SM take the NaN-free pass
// kernels; ...".)
constexpr size_t kNanFreeMin = (size_t)1 << 26;

// The arrays of one call: the output and the input (the same, in place).
struct Bufs {
    void *keys, *vals; // vals: NULL without values
    const void *in_keys, *in_vals;
    int out_of_place() const { return in_keys != keys; }
};

template <typename K> static pp_status set_smem(pp_context *ctx, K kernel, size_t bytes, const char *fn)
{
    if (bytes > 48 * 1024)
        PP_CUDA_TRY(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), fn);
    return PP_SUCCESS;
}

// n <= SmallCfg::CAP: one block; up to SmallCfg::CLUSTER_CAP: one cluster.
template <bool FLOAT, typename U, typename V>
static pp_status sort_small(pp_context *ctx, const Bufs &b, size_t n, const KeyMap &km, const char *fn)
{
    typedef SmallCfg<U, V> C;
    const bool one = n <= (size_t)C::CAP;
    void (*const kernel)(const SmallArgs) = one ? small_kernel<FLOAT, U, V> : cluster_small_kernel<FLOAT, U, V>;
    const size_t smem = one ? C::SMEM : C::SMEM_CLUSTER;
    pp_status st = set_smem(ctx, kernel, smem, fn);
    if (st != PP_SUCCESS) return st;
    SmallArgs a;
    a.keys = b.keys;
    a.vals = b.vals;
    a.in_keys = b.in_keys;
    a.in_vals = b.in_vals;
    a.n = (int)n;
    a.xmask = km.xmask;
    a.nan_key = km.nan_key;
    PP_CUDA_CHECK_LAUNCH(ctx, fn, pp_cuda_launch(ctx, kernel, one ? 1 : PP_CLUSTER, C::BLOCK, smem, a));
    return PP_SUCCESS;
}

// Scratch carving: [control block | histograms | carries] (cleared by one
// cudaMemsetAsync), then digit offsets, look-back status, alternate buffers;
// offsets in bytes, 256-aligned.
struct Layout {
    size_t hist, carry, zero_bytes, pbase, status, altk, altv, total;
};

template <bool FLOAT, typename U>
static pp_status launch_count(pp_context *ctx, const Bufs &b, size_t n, const KeyMap &km, char *base,
                              const Layout &l, size_t zero_words, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    CountArgs c;
    c.keys = b.in_keys;
    c.out_of_place = b.out_of_place();
    c.n = n;
    c.xmask = km.xmask;
    c.nan_key = km.nan_key;
    c.hist = (unsigned long long *)(base + l.hist);
    c.pbase = (unsigned long long *)(base + l.pbase);
    c.ctrl = (SortCtrl *)base;
    c.zero = (uint32_t *)(base + l.status);
    c.zero_words = zero_words;
    // As many histogram copies as a block's shared memory holds beside the
    // kernel's static 1 KiB, up to one per lane (32: 128 KiB for 4-byte
    // keys; 8-byte keys get 16 where 227 KiB is the limit).
    c.copies_log2 = 5;
    while (c.copies_log2 > 0 && count_smem((int)sizeof(U), c.copies_log2) + 1024 > s->smem_optin) c.copies_log2--;
    const size_t smem = count_smem((int)sizeof(U), c.copies_log2);
    pp_status st = set_smem(ctx, count_kernel<FLOAT, U>, smem, fn);
    if (st != PP_SUCCESS) return st;
    // one block per SM (one per 8192 keys below that), and fewer than 2^31
    // keys per block
    size_t gx = grid_for(ceil_div(n, 8192), pp_cuda_resident(s, 1));
    const size_t need = (n >> 31) + 1;
    if (gx < need) gx = need;
    count_kernel<FLOAT, U><<<(unsigned)gx, kCountBlock, smem, s->stream>>>(c);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

// copy_back_kernel and fill_kernel: 256 threads, 16 bytes each.
static unsigned copy_grid(pp_cuda_state *s, size_t bytes)
{
    return grid_for(ceil_div(bytes / 16, 256), pp_cuda_resident(s, 8));
}

// 8-bit integer keys, keys only: count, then rewrite the runs.
template <typename U>
static pp_status sort_counting(pp_context *ctx, const Bufs &b, size_t n, const KeyMap &km, const char *fn)
{
    pp_cuda_state *s = pp_cuda(ctx);
    Layout l;
    l.hist = align_up(sizeof(SortCtrl), 256);
    l.carry = l.zero_bytes = align_up(l.hist + kRadix * 8, 256);
    l.pbase = l.zero_bytes;
    l.status = l.altk = l.altv = l.total = align_up(l.pbase + kRadix * 8, 256);
    char *base = (char *)pp_cuda_scratch(ctx, l.total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(base, 0, l.zero_bytes, s->stream), fn);
    pp_status st = launch_count<false, U>(ctx, b, n, km, base, l, 0, fn);
    if (st != PP_SUCCESS) return st;
    fill_kernel<<<copy_grid(s, n), 256, 0, s->stream>>>((const SortCtrl *)base, (unsigned char *)b.keys, n,
                                                         (const unsigned long long *)(base + l.pbase),
                                                         (unsigned)(km.xmask & 255u), b.out_of_place());
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <bool FLOAT, typename U, typename V>
static pp_status sort_onesweep(pp_context *ctx, const Bufs &b, size_t n, const KeyMap &km, const char *fn)
{
    typedef PassCfg<FLOAT, U, V> C;
    pp_cuda_state *s = pp_cuda(ctx);
    constexpr int NP = (int)sizeof(U);
    constexpr size_t KB = sizeof(U), VB = (size_t)VInfo<V>::bytes;
    if (n > ((size_t)1 << 46))
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    const size_t tiles = (n + C::TILE - 1) / C::TILE;
    const uint32_t tpp = kPortionLimit / C::TILE; // tiles per portion
    const size_t portions = (tiles + tpp - 1) / tpp;
    if (tiles > 0x7fffffffu)
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);
    const size_t regions = NP > 1 ? 2 : 1;
    const size_t status_words = tiles * kRadix;
    Layout l;
    l.hist = align_up(sizeof(SortCtrl), 256);
    l.carry = align_up(l.hist + (size_t)NP * kRadix * 8, 256);
    l.zero_bytes = align_up(l.carry + (size_t)NP * portions * kRadix * 8, 256);
    l.pbase = l.zero_bytes;
    l.status = align_up(l.pbase + (size_t)NP * kRadix * 8, 256);
    l.altk = align_up(l.status + regions * status_words * 4, 256);
    l.altv = align_up(l.altk + n * KB + 16, 256);
    l.total = VB ? align_up(l.altv + n * VB + 16, 256) : l.altv;
    char *base = (char *)pp_cuda_scratch(ctx, l.total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    // The alternate buffers share the user's buffers' address modulo 16, so
    // that the copy back can use 16-byte vectors throughout.
    unsigned char *altk = (unsigned char *)base + l.altk + ((uintptr_t)b.keys & 15u);
    unsigned char *altv = VB ? (unsigned char *)base + l.altv + ((uintptr_t)b.vals & 15u) : NULL;
    SortCtrl *ctrl = (SortCtrl *)base;
    uint32_t *status = (uint32_t *)(base + l.status);
    unsigned long long *carry = (unsigned long long *)(base + l.carry);

    // Float keys from kNanFreeMin on, and float keys alone of about one tile
    // per SM: pass kernels with a tile body without the NaN check, for keys
    // with no NaN (count_kernel's flag; see kNanFreeMin).
    const bool tile_per_sm = tiles <= pp_cuda_resident(s, 3) / 2;
    const bool nan_free = FLOAT && (n >= kNanFreeMin || (!VInfo<V>::has && tile_per_sm));
    void (*const pass)(const PassArgs) = nan_free ? pass_kernel<FLOAT, U, V, FLOAT> : pass_kernel<FLOAT, U, V, false>;
    pp_status st = set_smem(ctx, pass, C::SMEM, fn);
    if (st != PP_SUCCESS) return st;
    PP_CUDA_TRY(ctx, cudaMemsetAsync(base, 0, l.zero_bytes, s->stream), fn);
    st = launch_count<FLOAT, U>(ctx, b, n, km, base, l, status_words, fn);
    if (st != PP_SUCCESS) return st;

    PassArgs a;
    a.keys = b.keys;
    a.alt_keys = altk;
    a.vals = b.vals;
    a.alt_vals = altv;
    a.in_keys = b.in_keys;
    a.in_vals = b.in_vals;
    a.n = n;
    a.pbase = (const unsigned long long *)(base + l.pbase);
    a.ctrl = ctrl;
    a.xmask = km.xmask;
    a.nan_key = km.nan_key;
    a.tiles_per_portion = tpp;
    a.tiles = (unsigned)tiles;
    a.wide = n > ((size_t)1 << 32);
    for (int p = 0; p < NP; p++) {
        a.pass = p;
        a.status = status + (size_t)(p & 1) * status_words;
        a.next_status = p + 1 < NP ? status + (size_t)((p + 1) & 1) * status_words : NULL;
        a.carry = carry + (size_t)p * portions * kRadix;
        pass<<<(unsigned)tiles, C::BLOCK, C::SMEM, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    const size_t kbytes = n * KB, vbytes = n * VB;
    copy_back_kernel<<<copy_grid(s, kbytes > vbytes ? kbytes : vbytes), 256, 0, s->stream>>>(
        ctrl, (unsigned char *)b.keys, altk, (const unsigned char *)b.in_keys, kbytes, (unsigned char *)b.vals, altv,
        (const unsigned char *)b.in_vals, vbytes);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <bool FLOAT, typename U, typename V>
static pp_status sort_kv(pp_context *ctx, const Bufs &b, size_t n, const KeyMap &km, const char *fn)
{
    typedef SmallCfg<U, V> C;
    const size_t optin = pp_cuda(ctx)->smem_optin;
    if ((n <= (size_t)C::CAP && C::SMEM <= optin) || (n <= C::CLUSTER_CAP && C::SMEM_CLUSTER <= optin))
        return sort_small<FLOAT, U, V>(ctx, b, n, km, fn);
    if constexpr (!FLOAT && sizeof(U) == 1 && !VInfo<V>::has) return sort_counting<U>(ctx, b, n, km, fn);
    else return sort_onesweep<FLOAT, U, V>(ctx, b, n, km, fn);
}

// Keys of type T (sorted by their bits U = pp_traits<T>::bits), values V.
template <typename T, typename V> static pp_status sort_typed(pp_context *ctx, const pp_sort_args *a)
{
    typedef typename pp_traits<T>::bits U;
    constexpr int KIND = pp_traits<T>::kind;
    const KeyMap km = pp_sort_keymap<KIND, U>(a->order);
    Bufs b;
    b.keys = a->keys;
    b.vals = VInfo<V>::has ? a->values : NULL;
    b.in_keys = a->keys_in;
    b.in_vals = VInfo<V>::has ? a->values_in : NULL;
    return sort_kv<KIND == PP_KIND_FLOAT, U, V>(ctx, b, a->n, km, a->fn);
}

} // namespace

pp_status pp_cuda_sort(pp_context *ctx, const pp_sort_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) {
        return pp_dispatch_values(ctx, a->fn, a->values, a->value_size,
                                  [&](auto v) { return sort_typed<decltype(t), decltype(v)>(ctx, a); });
    });
}
