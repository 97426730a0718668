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
 */
#define L PP_L
#define ITEMS PP_ITEMS
#define TILE (L * ITEMS)

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
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void reduce_chunks(__global const T *in, ulong in_off,
                                                                          ulong n, ulong chunk, __global T *out,
                                                                          ulong out_off)
{
    __local T red[L];
    const uint lid = get_local_id(0);
    for (ulong g = get_group_id(0); g * chunk < n; g += get_num_groups(0)) {
        const ulong lo = g * chunk;
        const ulong hi = min(n, lo + chunk);
        __global const T *p = in + in_off + lo;
        T acc[T_VEC];
        for (int j = 0; j < T_VEC; j++) acc[j] = OP_NEUTRAL;
        const ulong nvec = (hi - lo) / T_VEC;
        for (ulong v = lid; v < nvec; v += L) {
            T e[T_VEC];
            VSTORE(VLOAD(v, p), 0, e);
            for (int j = 0; j < T_VEC; j++) acc[j] = pp_combine(acc[j], e[j]);
        }
        for (ulong t = nvec * T_VEC + lid; lo + t < hi; t += L) acc[0] = pp_combine(acc[0], p[t]);
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
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scan_tile_sums(__global const T *in, ulong in_off,
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
            if (i < n) acc = pp_combine(acc, in[in_off + i]);
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
        const T v = gi < n ? in[in_off + gi] : OP_NEUTRAL;                \
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
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scan_tiles(__global const T *in, ulong in_off,
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
    __global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n, __global const T *carries,
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
