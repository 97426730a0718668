/* parprim opencl: the runs of the by-key forms (pp_reduce_by_key,
 * pp_scan_by_key, pp_run_length_encode; opencl_bykey.c). Program "bykey",
 * on the key type; the build embeds it after group_scan.cl.
 *
 * Defines from the host, besides the key type: PP_L (work-group size,
 * every kernel requires exactly it) and PP_ITEMS (consecutive keys per
 * work-item in a tile; TILE = L * ITEMS).
 *
 *   bykey_heads    heads[i] = 1 where a run starts (i == 0 or keys[i] !=
 *                  keys[i - 1], C's !=: a NaN differs from everything),
 *                  else 0; cnt[t] = the heads of tile t, cnt[ntiles] = 0
 *   (host)         exclusive scan of cnt[0 .. ntiles] (u64): each tile's
 *                  first run, and the number of runs in cnt[ntiles]
 *   bykey_scatter  each run's start to off[r] and its first key to
 *                  keys_out[r]; off[nruns] = n, *count = nruns
 *   bykey_lengths  counts_out[r] = off[r + 1] - off[r] for r < *count
 * No work-group waits for another, and nothing is read back by the host.
 */
#define L PP_L
#define ITEMS PP_ITEMS
#define TILE (L * ITEMS)

__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void bykey_heads(__global const T *keys, ulong n,
                                                                        __global uchar *heads, ulong heads_off,
                                                                        __global ulong *cnt, ulong cnt_off,
                                                                        ulong ntiles)
{
    __local uint sc[L];
    __local uint tot;
    const uint lid = get_local_id(0);
    if (get_global_id(0) == 0) cnt[cnt_off + ntiles] = 0;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong end = min(n, (t + 1) * TILE);
        uint c = 0;
        for (ulong i = t * TILE + lid; i < end; i += L) { /* coalesced */
            const uchar h = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
            heads[heads_off + i] = h;
            c += h;
        }
        group_scan(c, sc, &tot, lid);
        if (lid == 0) cnt[cnt_off + t] = tot;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* first[first_off + t]: the index of tile t's first run (the scanned
 * counts), first[first_off + ntiles] the number of runs. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void bykey_scatter(
    __global const T *keys, ulong n, __global const uchar *heads, ulong heads_off, __global const ulong *first,
    ulong first_off, ulong ntiles, __global ulong *off, __global T *keys_out, __global ulong *count)
{
    __local uint sc[L];
    __local uint tot;
    const uint lid = get_local_id(0);
    if (get_global_id(0) == 0) {
        const ulong total = first[first_off + ntiles];
        count[0] = total;
        off[total] = n;
    }
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong i0 = t * TILE + (ulong)lid * ITEMS;
        const ulong i1 = min(n, i0 + ITEMS);
        uint c = 0;
        for (ulong i = i0; i < i1; i++) c += heads[heads_off + i];
        ulong r = first[first_off + t] + group_scan(c, sc, &tot, lid);
        for (ulong i = i0; i < i1; i++)
            if (heads[heads_off + i]) {
                off[r] = i;
                keys_out[r] = keys[i];
                r++;
            }
    }
}

__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void bykey_lengths(__global const ulong *off,
                                                                          __global const ulong *count, ulong n,
                                                                          __global ulong *counts_out)
{
    const ulong nruns = min(count[0], n);
    for (ulong r = get_global_id(0); r < nruns; r += get_global_size(0)) counts_out[r] = off[r + 1] - off[r];
}
