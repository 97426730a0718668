/* parprim opencl: stream compaction (pp_select_flagged, pp_select_if,
 * pp_unique and pp_partition_if). Program "select"; the prelude (common.cl)
 * comes first.
 *
 * Defines from the host (opencl_select.c), besides the type:
 *   PP_L       work-group size (every kernel requires exactly it)
 *   PP_ITEMS   consecutive elements per work-item in a tile; a tile is
 *              TILE = L * ITEMS elements
 *   PP_SEL     the predicate: 0 flags[i] != 0; 1 pp_compare(in[i], value)
 *              (with PP_CMP); 2 unique: i == 0 || in[i] != in[i - 1]
 * The build embeds it after group_scan.cl (group_scan, which bykey.cl
 * shares).
 *
 * Three passes, none waiting for another work-group:
 *   sel_count    tile t's selected count into cnt[t] (and cnt[ntiles] = 0)
 *   (host)       exclusive scan of cnt[0 .. ntiles] in place (u64): cnt[t]
 *                is tile t's output offset, cnt[ntiles] the total
 *   sel_scatter  each tile evaluates its predicate again, scans its flags in
 *                local memory (serial over each work-item's ITEMS elements,
 *                then over the work-items) and writes its selected
 *                elements, in order, to out[cnt[t] ..]; with `part` the
 *                rejected ones to out[total + t*TILE - cnt[t] ..], in order.
 *                The tile is staged in local memory so that both the reads
 *                and the writes are contiguous runs.
 */
#define L PP_L
#define ITEMS PP_ITEMS
#define TILE (L * ITEMS)

#if PP_SEL == 0
#define SEL_FLAGS_PARAM , __global const uchar *flags
#else
#define SEL_FLAGS_PARAM
#endif

/* cnt[cnt_off + t] = selected elements of tile t; cnt[cnt_off + ntiles] = 0. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void sel_count(__global const T *in SEL_FLAGS_PARAM,
                                                                      ulong n, ulong value_bits,
                                                                      __global ulong *cnt, ulong cnt_off,
                                                                      ulong ntiles)
{
    __local uint tot;
    const uint lid = get_local_id(0);
    const T value = PP_FROM_BITS((U)value_bits);
    (void)value;
    if (get_global_id(0) == 0) cnt[cnt_off + ntiles] = 0;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        uint c = 0;
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = base + (ulong)k * L + lid;
            if (i < n) {
#if PP_SEL == 0
                c += flags[i] != 0;
#elif PP_SEL == 1
                c += pp_compare(in[i], value) ? 1u : 0u;
#else
                c += (i == 0 || in[i] != in[i - 1]) ? 1u : 0u;
#endif
            }
        }
        if (lid == 0) tot = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (c) atomic_add(&tot, c);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) cnt[cnt_off + t] = tot;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* off[off_off + t]: tile t's output offset (exclusive scan of the counts),
 * off[off_off + ntiles]: the total, which work-item 0 writes to *count. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void sel_scatter(__global const T *in SEL_FLAGS_PARAM,
                                                                        ulong n, ulong value_bits,
                                                                        __global const ulong *off, ulong off_off,
                                                                        ulong ntiles, __global T *out,
                                                                        __global ulong *count, uint part)
{
    __local T src[TILE + 1]; /* src[0]: the element before the tile (unique) */
    __local T dst[TILE];
#if PP_SEL == 0
    __local uchar fl[TILE];
#endif
    __local uint sc[L];
    __local uint tot;
    const uint lid = get_local_id(0);
    const T value = PP_FROM_BITS((U)value_bits);
    (void)value;
    const ulong total = off[off_off + ntiles];
    if (get_global_id(0) == 0) count[0] = total;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        const uint cnt = (uint)min((ulong)TILE, n - base);
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = k * L + lid;
            if (i < cnt) {
                src[1 + i] = in[base + i];
#if PP_SEL == 0
                fl[i] = flags[base + i];
#endif
            }
        }
#if PP_SEL == 2
        if (lid == 0 && base > 0) src[0] = in[base - 1];
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        /* this work-item's elements: i0 .. i0 + ITEMS - 1 of the tile */
        const uint i0 = lid * ITEMS;
#if PP_SEL == 0
#define PRED(i) (fl[i] != 0)
#elif PP_SEL == 1
#define PRED(i) pp_compare(src[1 + (i)], value)
#else
#define PRED(i) ((i) == 0 && base == 0 ? 1 : src[1 + (i)] != src[(i)])
#endif
        uint c = 0;
        for (uint j = 0; j < ITEMS; j++) {
            const uint i = i0 + j;
            c += (i < cnt && PRED(i)) ? 1u : 0u;
        }
        uint s = group_scan(c, sc, &tot, lid); /* selected before i0 in the tile */
        const uint tile_sel = tot;
        /* every element gets its own slot (selected first, then the rest,
         * each in order), so the loop needs no branch on the predicate */
        for (uint j = 0; j < ITEMS; j++) {
            const uint i = i0 + j;
            if (i < cnt) {
                const uint p = PRED(i) ? 1u : 0u;
                dst[p ? s : tile_sel + (i - s)] = src[1 + i];
                s += p;
            }
        }
#undef PRED
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong sel_base = off[off_off + t];
        const ulong rej_base = total + (base - sel_base) - tile_sel;
        const uint wcount = part ? cnt : tile_sel;
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = k * L + lid;
            if (i < wcount) out[(i < tile_sel ? sel_base : rej_base) + i] = dst[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
