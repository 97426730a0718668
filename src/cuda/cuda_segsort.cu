// cuda segmented sort: pp_segmented_sort and pp_segmented_sort_pairs. Each
// segment is sorted in place exactly as pp_sort sorts (stable LSD radix
// sort on the radix keys of device/sort_keys.cuh: the same float and NaN
// rules, all three orders), the values moving with their keys.
//
// The offsets are never read on the host: the segments are classified on
// the device, and every later kernel is launched over a grid fixed from n
// and nseg alone and loops over the work the classification found (no
// host synchronization). Launches, all on the context's stream:
//  1. seg_classify_kernel (sort/segmented.cuh): each segment's bounds
//     clamped to n (an end before its begin: empty); segments of up to
//     kTiny keys sorted at once by one warp each; the others listed by
//     class: block (up to SmallCfg::CAP keys), cluster (up to
//     SmallCfg::CLUSTER_CAP), large.
//  2. seg_block_kernel and seg_cluster_kernel: a segment per block, or per
//     cluster of PP_CLUSTER blocks, sorted in shared memory by small_sort
//     (sort/small.cuh, pp_sort's one-block and one-cluster paths): keys read
//     once and written once.
//  3. the large segments: one batched Onesweep (sort/seg_onesweep.cuh:
//     plan, count, digits, a pass per digit position, copy back), whose
//     tiles never straddle a segment; the large segments together cost
//     about one pp_sort of their keys.
// Bad offsets: every segment is clamped into [0, n), so no kernel reads or
// writes outside keys[0 .. n) (values[0 .. n)); overlapping segments may
// be sorted concurrently by different blocks (results unspecified), and
// the batched passes write no destination outside their segment
// (pass_tile's GUARD).
//
// Memory (pp_cuda_scratch, carved): the control block, the three lists
// (16 bytes per entry, room for as many segments of the class as n keys can
// hold), the large path's tile numbering, digit counts and offsets (16 KiB
// per large segment for 4-byte keys), look-back rows and carries, and
// alternate arrays of n keys and n values (as pp_sort).
#include "cuda_state.cuh"
#include "device/dispatch.cuh"
#include "device/sort_keys.cuh"
#include "device/util.cuh"
#include "sort/seg_onesweep.cuh"

namespace
{

// Scratch carving, byte offsets (256-aligned).
struct SegLayout {
    size_t ctrl, list[kSegClasses], tile_start, portion_start, hist, pbase, status, carry, altk, altv, total;
};

template <bool FLOAT, typename U, typename V>
static pp_status segsort_kv(pp_context *ctx, const pp_segsort_args *in, const KeyMap &km)
{
    typedef SmallCfg<U, V> SC;
    typedef PassCfg<FLOAT, U, V> PC;
    pp_cuda_state *s = pp_cuda(ctx);
    const char *fn = in->fn;
    constexpr int NP = (int)sizeof(U);
    constexpr size_t KB = sizeof(U), VB = (size_t)VInfo<V>::bytes;
    const size_t n = in->n, nseg = in->nseg;
    if (n > ((size_t)1 << 46)) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);

    // The classes this device runs in shared memory (as pp_sort's short paths).
    const size_t optin = s->smem_optin;
    const unsigned long long block_max = SC::SMEM <= optin ? (unsigned long long)SC::CAP : (unsigned long long)kTiny;
    // The cluster class is left empty: segments longer than a block holds
    // go to the batched Onesweep, which sorted 16K-key segments six times
    // faster than a cluster per segment (bench/studies/cuda-segmented.md,
    // "2026-11-28: the cluster class"). Its kernel stays, launched over an
    // empty list, until the class is removed or earns its place back.
    const unsigned long long cluster_max = block_max;
    // Room in each list: as many segments longer than the class below as
    // n keys hold (disjoint segments never need more).
    unsigned long long cap[kSegClasses];
    cap[kSegBlock] = block_max > (unsigned long long)kTiny ? n / (kTiny + 1) + 1 : 0;
    cap[kSegCluster] = cluster_max > block_max ? n / (block_max + 1) + 1 : 0;
    cap[kSegLarge] = n / (cluster_max + 1) + 1;
    const size_t tile_cap = n / PC::TILE + cap[kSegLarge] + 1;
    const uint32_t tpp = kPortionLimit / PC::TILE;
    const size_t portion_cap = tile_cap / tpp + cap[kSegLarge] + 1;
    if (tile_cap > 0x7fffffffu) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: n = %zu is too large", fn, n);

    SegLayout l;
    size_t at = 0;
    auto carve = [&](size_t bytes) {
        const size_t here = at;
        at = align_up(at + bytes, 256);
        return here;
    };
    l.ctrl = carve(sizeof(SegCtrl));
    for (int c = 0; c < kSegClasses; c++)
        l.list[c] = carve(cap[c] * sizeof(Seg));
    l.tile_start = carve((cap[kSegLarge] + 1) * 4);
    l.portion_start = carve((cap[kSegLarge] + 1) * 4);
    l.hist = carve(cap[kSegLarge] * NP * kRadix * 8);
    l.pbase = carve(cap[kSegLarge] * NP * kRadix * 8);
    l.status = carve(2 * tile_cap * kRadix * 4);
    l.carry = carve((size_t)NP * portion_cap * kRadix * 8);
    l.altk = carve(n * KB + 16);
    l.altv = VB ? carve(n * VB + 16) : at;
    l.total = at;
    char *base = (char *)pp_cuda_scratch(ctx, l.total, fn);
    if (!base) return PP_ERROR_OUT_OF_MEMORY;
    SegCtrl *ctrl = (SegCtrl *)(base + l.ctrl);
    PP_CUDA_TRY(ctx, cudaMemsetAsync(ctrl, 0, sizeof(SegCtrl), s->stream), fn);

    // 1. classify; the tiny segments sorted.
    SegArgs a;
    a.keys = in->keys;
    a.vals = VInfo<V>::has ? in->values : NULL;
    a.offsets = in->offsets;
    a.n = n;
    a.nseg = nseg;
    a.xmask = km.xmask;
    a.nan_key = km.nan_key;
    a.block_max = block_max;
    a.cluster_max = cluster_max;
    for (int c = 0; c < kSegClasses; c++) {
        a.list[c] = (Seg *)(base + l.list[c]);
        a.cap[c] = cap[c];
    }
    a.large_hist = (unsigned long long *)(base + l.hist);
    a.passes = NP;
    a.ctrl = ctrl;
    const size_t warps = ceil_div(nseg, 32);
    seg_classify_kernel<FLOAT, U, V><<<grid_for(ceil_div(warps, 8), pp_cuda_resident(s, 8)), 256, 0, s->stream>>>(a);
    PP_CUDA_LAUNCHED(ctx, fn);

    // 2. the block and cluster classes.
    if (cap[kSegBlock]) {
        if (SC::SMEM > 48 * 1024)
            PP_CUDA_TRY(ctx,
                        cudaFuncSetAttribute(seg_block_kernel<FLOAT, U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)SC::SMEM),
                        fn);
        int per_sm = 1;
        PP_CUDA_TRY(
            ctx,
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, seg_block_kernel<FLOAT, U, V>, SC::BLOCK, SC::SMEM),
            fn);
        const unsigned grid = grid_for(cap[kSegBlock], pp_cuda_resident(s, per_sm > 0 ? (size_t)per_sm : 1));
        seg_block_kernel<FLOAT, U, V><<<grid, SC::BLOCK, SC::SMEM, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    if (cap[kSegCluster]) {
        PP_CUDA_TRY(ctx,
                    cudaFuncSetAttribute(seg_cluster_kernel<FLOAT, U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)SC::SMEM_CLUSTER),
                    fn);
        // Two clusters per SM's worth of blocks (each block takes a large part
        // of an SM's shared memory); clusters wait for no other, so more
        // than fit at once is harmless.
        const unsigned clusters = grid_for(cap[kSegCluster], pp_cuda_resident(s, 2) / PP_CLUSTER);
        seg_cluster_kernel<FLOAT, U, V><<<clusters * PP_CLUSTER, SC::BLOCK, SC::SMEM_CLUSTER, s->stream>>>(a);
        PP_CUDA_LAUNCHED(ctx, fn);
    }

    // 3. the large segments: one batched Onesweep.
    SegLargeArgs g;
    g.keys = in->keys;
    g.vals = a.vals;
    // The alternate arrays share the user's arrays' address modulo 16.
    g.alt_keys = base + l.altk + ((uintptr_t)in->keys & 15u);
    g.alt_vals = VB ? base + l.altv + ((uintptr_t)in->values & 15u) : NULL;
    g.list = a.list[kSegLarge];
    g.cap = cap[kSegLarge];
    g.tile_start = (unsigned int *)(base + l.tile_start);
    g.portion_start = (unsigned int *)(base + l.portion_start);
    g.hist = a.large_hist;
    g.pbase = (unsigned long long *)(base + l.pbase);
    g.status = (uint32_t *)(base + l.status);
    g.carry = (unsigned long long *)(base + l.carry);
    g.tile_cap = (unsigned)tile_cap;
    g.portion_cap = (unsigned)portion_cap;
    g.xmask = km.xmask;
    g.nan_key = km.nan_key;
    g.ctrl = ctrl;
    g.pass = 0;
    seg_plan_kernel<PC::TILE><<<1, kSegPlanBlock, 0, s->stream>>>(g, tpp);
    PP_CUDA_LAUNCHED(ctx, fn);
    seg_count_kernel<FLOAT, U, PC::TILE>
        <<<grid_for(tile_cap, pp_cuda_resident(s, 8)), kSegCountBlock, 0, s->stream>>>(g);
    PP_CUDA_LAUNCHED(ctx, fn);
    seg_digits_kernel<NP><<<grid_for(cap[kSegLarge] * NP, pp_cuda_resident(s, 8)), kRadix, 0, s->stream>>>(g);
    PP_CUDA_LAUNCHED(ctx, fn);
    if (PC::SMEM > 48 * 1024)
        PP_CUDA_TRY(ctx,
                    cudaFuncSetAttribute(seg_pass_kernel<FLOAT, U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)PC::SMEM),
                    fn);
    const unsigned pgrid = grid_for(tile_cap, pp_cuda_resident(s, PC::MIN_BLOCKS));
    for (int p = 0; p < NP; p++) {
        g.pass = p;
        seg_pass_kernel<FLOAT, U, V><<<pgrid, PC::BLOCK, PC::SMEM, s->stream>>>(g);
        PP_CUDA_LAUNCHED(ctx, fn);
    }
    seg_copy_back_kernel<U, V, PC::TILE><<<grid_for(tile_cap, pp_cuda_resident(s, 8)), 256, 0, s->stream>>>(g);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

template <typename T, typename V> static pp_status segsort_typed(pp_context *ctx, const pp_segsort_args *a)
{
    typedef typename pp_traits<T>::bits U;
    constexpr int KIND = pp_traits<T>::kind;
    return segsort_kv<KIND == PP_KIND_FLOAT, U, V>(ctx, a, pp_sort_keymap<KIND, U>(a->order));
}

} // namespace

pp_status pp_cuda_segmented_sort(pp_context *ctx, const pp_segsort_args *a)
{
    return pp_dispatch_type(ctx, a->fn, a->type, [&](auto t) {
        return pp_dispatch_values(ctx, a->fn, a->values, a->value_size,
                                  [&](auto v) { return segsort_typed<decltype(t), decltype(v)>(ctx, a); });
    });
}
