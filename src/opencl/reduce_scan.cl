/* parprim opencl: reduce and scan (program "reduce_scan").
 *
 * Defines from the host (opencl_reduce_scan.c): the type and operator
 * (common.cl), PP_L (work-group size, a power of two; every kernel here
 * requires exactly it) and PP_ITEMS (elements per work-item in a scan
 * tile, a power of two). A scan tile is TILE = L * ITEMS elements.
 *
 * Every kernel loops grid-stride over its units (chunks, tiles), indexes
 * with ulong, and never waits for another work-group: OpenCL does not
 * promise that work-groups run concurrently or make progress while others
 * wait (PoCL runs a few at a time on its threads), so the scan is
 * reduce-then-scan, in three launches, rather than a single pass with
 * look-back.
 *
 * Combination orders are fixed by n, L, ITEMS and the number of groups the
 * host chooses (from the device's compute units for reduce), so float
 * results are reproducible run to run on one device.
 *
 * pp_reduce_to and pp_scan_to (opencl_reduce_scan.c): with PP_IN_T defined
 * (the OpenCL type of in_type), the kernels' input `in` holds IN_T
 * elements, each converted to T as it is loaded (a pair of
 * PP_FOR_EACH_WIDEN: the conversion is exact); everything after the load
 * is T. Without it IN_T is T.
 */
#define L PP_L
#define ITEMS PP_ITEMS
#define TILE (L * ITEMS)
#ifdef PP_IN_T
#define IN_T PP_IN_T
#else
#define IN_T T
#endif

/* Local-memory index padded against bank conflicts: one spare slot every
 * 32 (the bank count of most GPUs), so strided accesses (stride ITEMS in
 * the serial phase, 2^k in Blelloch's sweeps) spread over the banks. */
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

/* Tree reduction of red[0..L) into red[0] (fixed order). Ends with a barrier. */
void group_reduce(__local T *red, uint lid)
{
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] = pp_combine(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Float sums fold with compensation: each lane accumulator s carries the
 * sum of the rounding errors of its additions in c (each error exact, by
 * Knuth's TwoSum), so a work-item's share is summed with an error that
 * does not grow with its length; s + c, rounded once, is the lane's value.
 * An infinity or NaN makes s non-finite (and c NaN): s alone is then the
 * value, as a plain sum gives it; c == 0 leaves s (a sum of -0.0 stays
 * -0.0). */
#if defined(OP_SUM) && T_IS_FLOAT
#define COMP_SUM 1
#define COMP_ADD(s, c, x)                                                                                    \
    do {                                                                                                     \
        const T t_ = (s) + (x), z_ = t_ - (s);                                                               \
        (c) += ((s) - (t_ - z_)) + ((x) - z_);                                                               \
        (s) = t_;                                                                                            \
    } while (0)
T comp_value(T s, T c) { return (c != (T)0 && isfinite(s) && isfinite(c)) ? s + c : s; }
#else
#define COMP_SUM 0
#endif

/* ---- reduce ---------------------------------------------------------------------------------------------
 * Group g folds in[in_off + g*chunk .. min(n, (g+1)*chunk)): work-item i
 * loads the 16-byte vectors i, i + L, ... of the chunk into T_VEC lane
 * accumulators; the few elements after the last whole vector go to lane 0
 * of work-items 0, 1, ...; then the lanes fold in a fixed tree and the
 * group in a tree over local memory: out[out_off + g] = the result
 * (n > 0: the host writes the identity for n == 0). chunk is a multiple
 * of T_VEC. With one group (chunk >= n) this is the
 * whole reduce; with several, a second launch (one group) folds the
 * partial results the same way. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void reduce_chunks(__global const IN_T *in, ulong in_off,
                                                                          ulong n, ulong chunk, __global T *out,
                                                                          ulong out_off)
{
    __local T red[L];
    const uint lid = get_local_id(0);
    for (ulong g = get_group_id(0); g * chunk < n; g += get_num_groups(0)) {
        const ulong lo = g * chunk;
        const ulong hi = min(n, lo + chunk);
        __global const IN_T *p = in + in_off + lo;
        T acc[T_VEC];
        for (int j = 0; j < T_VEC; j++) acc[j] = OP_NEUTRAL;
#if COMP_SUM
        T err[T_VEC]; /* the lanes' rounding errors */
        for (int j = 0; j < T_VEC; j++) err[j] = OP_NEUTRAL;
#endif
        const ulong nvec = (hi - lo) / T_VEC;
        for (ulong v = lid; v < nvec; v += L) {
            T e[T_VEC];
#ifdef PP_IN_T
            VSTORE(PP_CAT(convert_, TV)(VLOAD(v, p)), 0, e); /* T_VEC elements of IN_T, converted */
#else
            VSTORE(VLOAD(v, p), 0, e);
#endif
#if COMP_SUM
            for (int j = 0; j < T_VEC; j++) COMP_ADD(acc[j], err[j], e[j]);
#else
            for (int j = 0; j < T_VEC; j++) acc[j] = pp_combine(acc[j], e[j]);
#endif
        }
        for (ulong t = nvec * T_VEC + lid; lo + t < hi; t += L) acc[0] = pp_combine(acc[0], (T)p[t]);
#if COMP_SUM
        for (int j = 0; j < T_VEC; j++) acc[j] = comp_value(acc[j], err[j]);
#endif
        for (int w = T_VEC / 2; w > 0; w >>= 1)
            for (int j = 0; j < w; j++) acc[j] = pp_combine(acc[j], acc[j + w]);
        red[lid] = acc[0];
        barrier(CLK_LOCAL_MEM_FENCE);
        group_reduce(red, lid);
        if (lid == 0) out[out_off + g] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* ---- scan, pass 1: tile totals --------------------------------------------------------------------------
 * sums[sums_off + t] = in[TILE*t] op ... op in[TILE*t + TILE - 1] (within
 * n), folded column-wise (element k*L + i by work-item i, coalesced) and
 * then over the group. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scan_tile_sums(__global const IN_T *in, ulong in_off,
                                                                           ulong n, __global T *sums,
                                                                           ulong sums_off, ulong ntiles)
{
    __local T red[L];
    const uint lid = get_local_id(0);
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        T acc = OP_NEUTRAL;
        for (uint k = 0; k < ITEMS; k++) {
            const ulong i = base + k * L + lid;
            if (i < n) acc = pp_combine(acc, (T)in[in_off + i]);
        }
        red[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        group_reduce(red, lid);
        if (lid == 0) sums[sums_off + t] = red[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* ---- scan, pass 3: each tile from its carry -------------------------------------------------------------
 * flags: SCAN_EXCLUSIVE, SCAN_CARRIES (carries[carries_off + t] is the
 * exclusive prefix of tile t; without it tile 0 is the only tile),
 * SCAN_PUBLIC_FIRST (out[0] gets OP_IDENTITY, what the API calls the
 * identity, rather than the exact neutral element used inside).
 * in and out may be the same buffer at the same offset: a tile is read
 * whole into local memory before any of it is written. */
#define SCAN_EXCLUSIVE 1u
#define SCAN_CARRIES 2u
#define SCAN_PUBLIC_FIRST 4u

/* Loads tile t into tile_mem[PAD(i)] (identity past n) and, for the
 * Blelloch variant, keeps each work-item's column values in x. */
#define LOAD_TILE(keep)                                                   \
    for (uint k = 0; k < ITEMS; k++) {                                    \
        const uint i = k * L + lid;                                       \
        const ulong gi = base + i;                                        \
        const T v = gi < n ? (T)in[in_off + gi] : OP_NEUTRAL;             \
        keep;                                                             \
        tile_mem[PAD(i)] = v;                                             \
    }

/* Writes tile_mem back to out (coalesced), the identity at index 0 when asked. */
#define STORE_TILE(value_of)                                              \
    for (uint k = 0; k < ITEMS; k++) {                                    \
        const uint i = k * L + lid;                                       \
        const ulong gi = base + i;                                        \
        if (gi < n) {                                                     \
            T v = value_of;                                               \
            if ((flags & SCAN_PUBLIC_FIRST) && gi == 0) v = OP_IDENTITY;  \
            out[out_off + gi] = v;                                        \
        }                                                                 \
    }

/* Exclusive scan of v over the work-group (Hillis-Steele / Kogge-Stone:
 * log2(L) steps in local memory); the neutral element for work-item 0. */
T group_exclusive_scan(T v, __local T *sc, uint lid)
{
    sc[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < L; off <<= 1) {
        const T left = lid >= off ? sc[lid - off] : OP_NEUTRAL;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= off) {
            v = pp_combine(left, v);
            sc[lid] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const T r = lid ? sc[lid - 1] : OP_NEUTRAL;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* The default (PP_ALGO_AUTO, PP_ALGO_REDUCE_THEN_SCAN): each work-item
 * scans ITEMS consecutive elements of the tile in registers, the
 * work-items' totals are scanned over the group, and each work-item adds
 * its prefix to its elements. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scan_tiles(__global const IN_T *in, ulong in_off,
                                                                       __global T *out, ulong out_off, ulong n,
                                                                       __global const T *carries,
                                                                       ulong carries_off, ulong ntiles, uint flags)
{
    __local T tile_mem[PADDED(TILE)];
    __local T sc[L];
    const uint lid = get_local_id(0);
    const int excl = (flags & SCAN_EXCLUSIVE) != 0;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        const T carry = (flags & SCAN_CARRIES) ? carries[carries_off + t] : OP_NEUTRAL;
        LOAD_TILE((void)0)
        barrier(CLK_LOCAL_MEM_FENCE);
        T x[ITEMS]; /* inclusive prefixes of this work-item's ITEMS elements */
        x[0] = tile_mem[PAD(lid * ITEMS)];
        for (uint k = 1; k < ITEMS; k++) x[k] = pp_combine(x[k - 1], tile_mem[PAD(lid * ITEMS + k)]);
        const T pre = pp_combine(carry, group_exclusive_scan(x[ITEMS - 1], sc, lid));
        if (excl) {
            tile_mem[PAD(lid * ITEMS)] = pre;
            for (uint k = 1; k < ITEMS; k++) tile_mem[PAD(lid * ITEMS + k)] = pp_combine(pre, x[k - 1]);
        } else {
            for (uint k = 0; k < ITEMS; k++) tile_mem[PAD(lid * ITEMS + k)] = pp_combine(pre, x[k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        STORE_TILE(tile_mem[PAD(i)])
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* PP_ALGO_BLELLOCH: the whole tile is scanned in local memory by Blelloch's
 * work-efficient algorithm (up-sweep builds a tree of partial results in
 * place, the root is replaced by the neutral element, the down-sweep
 * pushes prefixes back down: 2 * (TILE - 1) operations), each work-item
 * taking several nodes per level. Exclusive by construction; inclusive adds
 * each element, kept in registers from the load. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scan_tiles_blelloch(
    __global const IN_T *in, ulong in_off, __global T *out, ulong out_off, ulong n, __global const T *carries,
    ulong carries_off, ulong ntiles, uint flags)
{
    __local T tile_mem[PADDED(TILE)];
    const uint lid = get_local_id(0);
    const int excl = (flags & SCAN_EXCLUSIVE) != 0;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        const T carry = (flags & SCAN_CARRIES) ? carries[carries_off + t] : OP_NEUTRAL;
        T x[ITEMS];
        LOAD_TILE(x[k] = v)
        barrier(CLK_LOCAL_MEM_FENCE);
        uint offset = 1;
        for (uint d = TILE >> 1; d > 0; d >>= 1) { /* up-sweep */
            for (uint j = lid; j < d; j += L) {
                const uint ai = offset * (2 * j + 1) - 1, bi = offset * (2 * j + 2) - 1;
                tile_mem[PAD(bi)] = pp_combine(tile_mem[PAD(ai)], tile_mem[PAD(bi)]);
            }
            offset <<= 1;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) tile_mem[PAD(TILE - 1)] = OP_NEUTRAL;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = 1; d < TILE; d <<= 1) { /* down-sweep */
            offset >>= 1;
            for (uint j = lid; j < d; j += L) {
                const uint ai = offset * (2 * j + 1) - 1, bi = offset * (2 * j + 2) - 1;
                const T left = tile_mem[PAD(ai)];
                tile_mem[PAD(ai)] = tile_mem[PAD(bi)];
                tile_mem[PAD(bi)] = pp_combine(tile_mem[PAD(bi)], left);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        STORE_TILE(excl ? pp_combine(carry, tile_mem[PAD(i)]) : pp_combine(carry, pp_combine(tile_mem[PAD(i)], x[k])))
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* ---- segmented reduce and scan (opencl_segmented.c) -------------------------------------------------------
 * A segmented scan is a scan of (head, value) pairs, head = 1 where a
 * segment starts: (f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 op v2),
 * which is associative, so it runs as the scan above: tiles' totals
 * (seg_tile_sums), their exclusive prefixes as carries (the same kernels
 * one level down, recursively), each tile from its carry (seg_scan_tiles).
 * Heads come as one byte per element (seg_heads marks them from the
 * offsets). Every offset is clamped to n where it is read, so no kernel
 * goes out of bounds whatever the offsets. The pairs of a work-item are
 * ITEMS consecutive elements, combined in order, then over the group in
 * order (seg_group_exclusive_scan), so combination orders are fixed by n,
 * L, ITEMS and the heads. */
#define SEG_EXCLUSIVE 1u /* exclusive: the prefix before each element */
#define SEG_RESET 2u     /* with SEG_EXCLUSIVE: a head's prefix is OP_IDENTITY (segment level, not carries) */
#define SEG_RANGE 4u     /* write only [offsets[0], offsets[nseg]) (clamped to n), else all n */

/* min(offsets[s], n) */
ulong seg_offset(__global const ulong *offsets, ulong s, ulong n) { return min(offsets[s], n); }

/* heads[heads_off + offsets[s]] = 1 for each non-empty segment s (the
 * host zeroed heads[heads_off .. + n) first). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void seg_heads(__global const ulong *offsets, ulong nseg,
                                                                      ulong n, __global uchar *heads,
                                                                      ulong heads_off)
{
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0)) {
        const ulong a = seg_offset(offsets, s, n);
        if (a < seg_offset(offsets, s + 1, n)) heads[heads_off + a] = 1;
    }
}

/* Folds this work-item's ITEMS consecutive elements of the tile in
 * tile_mem (after LOAD_TILE) as pairs from (*f, acc); heads past n are 0. */
T seg_item_fold(__local const T *tile_mem, __global const uchar *heads, ulong heads_off, ulong base, ulong n,
                uint lid, uchar *f, T acc)
{
    for (uint k = 0; k < ITEMS; k++) {
        const uint i = lid * ITEMS + k;
        const T e = tile_mem[PAD(i)];
        if (base + i < n && heads[heads_off + base + i]) {
            *f = 1;
            acc = e;
        } else {
            acc = pp_combine(acc, e);
        }
    }
    return acc;
}

/* Exclusive scan of the pairs (*f, v) over the work-group in order
 * (Kogge-Stone); returns the prefix's value, *f becomes its head bit
 * ((0, OP_NEUTRAL) for work-item 0). */
T seg_group_exclusive_scan(uchar *f, T v, __local T *sc, __local uchar *scf, uint lid)
{
    uchar g = *f;
    sc[lid] = v;
    scf[lid] = g;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < L; off <<= 1) {
        const uint src = lid >= off ? lid - off : lid;
        const T lv = sc[src];
        const uchar lf = scf[src];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= off) {
            if (!g) v = pp_combine(lv, v);
            g |= lf;
            sc[lid] = v;
            scf[lid] = g;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const T r = lid ? sc[lid - 1] : OP_NEUTRAL;
    *f = lid ? scf[lid - 1] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* sums[sums_off + t], sum_heads[sh_off + t] = the pair total of tile t. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void seg_tile_sums(
    __global const T *in, ulong in_off, __global const uchar *heads, ulong heads_off, ulong n, __global T *sums,
    ulong sums_off, __global uchar *sum_heads, ulong sh_off, ulong ntiles)
{
    __local T tile_mem[PADDED(TILE)];
    __local T sc[L];
    __local uchar scf[L];
    const uint lid = get_local_id(0);
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        LOAD_TILE((void)0)
        barrier(CLK_LOCAL_MEM_FENCE);
        uchar f = 0;
        const T v = seg_item_fold(tile_mem, heads, heads_off, base, n, lid, &f, OP_NEUTRAL);
        uchar pf = f;
        const T pre = seg_group_exclusive_scan(&pf, v, sc, scf, lid);
        if (lid == L - 1) {
            sums[sums_off + t] = f ? v : pp_combine(pre, v);
            sum_heads[sh_off + t] = f | pf;
        }
    }
}

/* Each tile scanned as pairs from its carry (carries[carries_off + t], the
 * value of the pairs before the tile; tile 0 and a lone tile start from
 * OP_NEUTRAL), written to out where flags' range allows. in and out may be
 * the same buffer at the same offset: a tile is read whole into local
 * memory before any of it is written. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void seg_scan_tiles(
    __global const T *in, ulong in_off, __global const uchar *heads, ulong heads_off, __global T *out,
    ulong out_off, ulong n, __global const T *carries, ulong carries_off, ulong ntiles,
    __global const ulong *offsets, ulong nseg, uint flags)
{
    __local T tile_mem[PADDED(TILE)];
    __local T sc[L];
    __local uchar scf[L];
    const uint lid = get_local_id(0);
    const int excl = (flags & SEG_EXCLUSIVE) != 0, reset = (flags & SEG_RESET) != 0;
    const ulong lo = (flags & SEG_RANGE) ? seg_offset(offsets, 0, n) : 0;
    const ulong hi = (flags & SEG_RANGE) ? seg_offset(offsets, nseg, n) : n;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        if (base + TILE <= lo || base >= hi) continue; /* nothing of the tile is written */
        const T carry = ntiles > 1 && t > 0 ? carries[carries_off + t] : OP_NEUTRAL;
        LOAD_TILE((void)0)
        barrier(CLK_LOCAL_MEM_FENCE);
        uchar f = 0;
        const T v = seg_item_fold(tile_mem, heads, heads_off, base, n, lid, &f, OP_NEUTRAL);
        const T pv = seg_group_exclusive_scan(&f, v, sc, scf, lid);
        T acc = f ? pv : pp_combine(carry, pv);
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = lid * ITEMS + k;
            const T e = tile_mem[PAD(i)];
            const int head = base + i < n && heads[heads_off + base + i];
            const T before = head && reset ? OP_IDENTITY : acc;
            acc = head ? e : pp_combine(acc, e);
            tile_mem[PAD(i)] = excl ? before : acc;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = k * L + lid;
            const ulong gi = base + i;
            if (gi >= lo && gi < hi) out[out_off + gi] = tile_mem[PAD(i)];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The fold of segment s: the carry of the tile holding its last element
 * where the segment starts before that tile (the carry is then the fold
 * from its head to the tile), and the elements from the later of its start
 * and that tile's on, in order, by one work-item; OP_IDENTITY for an empty
 * segment. */
T seg_fold_one(__global const T *in, ulong n, __global const ulong *offsets, ulong s, __global const T *carries,
               ulong carries_off)
{
    const ulong a = seg_offset(offsets, s, n), b = seg_offset(offsets, s + 1, n);
    T acc = OP_IDENTITY;
    if (a < b) {
        const ulong start = (b - 1) / TILE * TILE;
        ulong i = a;
        acc = OP_NEUTRAL;
        if (a < start) {
            acc = carries[carries_off + start / TILE];
            i = start;
        }
        for (; i < b; i++) acc = pp_combine(acc, in[i]);
    }
    return acc;
}

/* out[s] = the fold of segment s, for s < nseg. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void seg_reduce_out(
    __global const T *in, ulong n, __global const ulong *offsets, ulong nseg, __global const T *carries,
    ulong carries_off, __global T *out)
{
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0))
        out[s] = seg_fold_one(in, n, offsets, s, carries, carries_off);
}

/* The same for the by-key reduce, whose number of segments (runs) the host
 * does not know: nseg = min(nseg_at[0], n), read here. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void seg_reduce_runs(
    __global const T *in, ulong n, __global const ulong *offsets, __global const ulong *nseg_at,
    __global const T *carries, ulong carries_off, __global T *out)
{
    const ulong nseg = min(nseg_at[0], n);
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0))
        out[s] = seg_fold_one(in, n, offsets, s, carries, carries_off);
}
