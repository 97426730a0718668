/* parprim opencl: PP_ALGO_COUNT_SCAN_SCATTER, program "sort_scatter" (every
 * device; host side: opencl_sort.c, pp_ocl_sort_count_scan_scatter). Built
 * after the prelude and sort_keys.cl (the defines, the radix key, the
 * control block, copy_back).
 *
 * Launches of one call (in order on the queue; no work-group ever waits for
 * another):
 *   key_bits   per chunk, the OR and the AND of the radix keys
 *   plan       one group: folds them; a digit position is active unless its
 *              digit is the same in every key (its bits equal in the OR and
 *              the AND); writes ctrl: which passes run, which buffers each
 *              reads and writes, whether the result must be copied back
 *   per digit position p (KS of them), each kernel exits at once when the
 *   pass is inactive (a device flag: the host never waits):
 *     count    per tile, the count of each digit: counts[d * ntiles + t]
 *     (host)   exclusive scan of counts in place (pp_ocl_scan_into): the
 *              global offset of every (digit, tile)
 *     scatter  per tile: stable local sort of the tile by digit (two 4-bit
 *              counting ranks with packed per-work-item counters), then
 *              each key (and value) goes to offset[d][t] + its rank among
 *              the tile's keys of digit d, written in sorted order (runs of
 *              one digit are contiguous in the output)
 *   copy_back  (sort_keys.cl) where the result is not in the user's buffers
 * 1-byte keys without values instead: hist8, starts8, fill8 (at the end).
 */

/* Local index padded by one slot every 32, against bank conflicts when
 * work-items read ITEMS consecutive elements each. */
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

/* ---- key_bits: OR and AND of the radix keys of every chunk ---------------------------------------------
 * Group g folds keys [g*chunk, min(n, (g+1)*chunk)) and writes
 * part[part_off + 2g] = OR, part[part_off + 2g + 1] = AND (as ulong). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void key_bits(__global const U *keys, ulong n, ulong chunk,
                                                                     uint is_float, ulong xmask,
                                                                     __global ulong *part, ulong part_off)
{
    __local U lor[L], land[L];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0);
    const ulong lo = g * chunk, hi = min(n, lo + chunk);
    U o = 0, a = (U)~(U)0;
    for (ulong i = lo + lid; i < hi; i += L) {
        const U r = radix_key(keys[i], is_float, (U)xmask);
        o |= r;
        a &= r;
    }
    lor[lid] = o;
    land[lid] = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (lid < s) {
            lor[lid] |= lor[lid + s];
            land[lid] &= land[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        part[part_off + 2 * g] = (ulong)lor[0];
        part[part_off + 2 * g + 1] = (ulong)land[0];
    }
}

/* ---- plan: one group; ctrl from the folded bits -------------------------------------------------------- */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void plan(__global const ulong *part, ulong part_off,
                                                                 uint ngroups, __global uint *ctrl, ulong ctrl_off,
                                                                 uint out_of_place)
{
    if (get_local_id(0) != 0) return;
    ulong o = 0, a = ~0ul;
    for (uint g = 0; g < ngroups; g++) {
        o |= part[part_off + 2 * g];
        a &= part[part_off + 2 * g + 1];
    }
    const ulong diff = o ^ a;
    for (uint p = 0; p < 8; p++) ctrl[ctrl_off + CTRL_ACTIVE + p] = p < KS && ((diff >> (8 * p)) & 255ul) != 0;
    plan_buffers(ctrl, ctrl_off, out_of_place);
}

/* ---- count: per tile, the count of each digit -----------------------------------------------------------
 * counts[counts_off + d * ntiles + t] = keys of tile t with digit d (digit-major,
 * so that one exclusive scan gives every (digit, tile) its output offset). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void count(
    __global const U *keys, __global const U *alt, ulong alt_off, __global const U *kin, ulong n, ulong ntiles,
    uint pass, uint is_float, ulong xmask, __global OFF *counts, ulong counts_off, __global const uint *ctrl,
    ulong ctrl_off)
{
    __local uint hist[RADIX];
    if (!ctrl[ctrl_off + CTRL_ACTIVE + pass]) return;
    __global const U *src = keys_at(ctrl[ctrl_off + CTRL_SRC + pass], keys, alt, alt_off, kin);
    const uint lid = get_local_id(0), shift = 8 * pass;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        for (uint d = lid; d < RADIX; d += L) hist[d] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong base = t * TILE;
        const uint valid = (uint)min((ulong)TILE, n - base);
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = k * L + lid;
            if (i < valid) atomic_inc(&hist[digit_of(radix_key(src[base + i], is_float, (U)xmask), shift)]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = lid; d < RADIX; d += L) counts[counts_off + d * ntiles + t] = (OFF)hist[d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Exclusive scan of v over the work-group (Kogge-Stone in sc[L]); *total
 * gets the sum of all. Starts and ends with every work-item past a barrier. */
uint group_scan_u32(uint v, __local uint *sc, uint lid, uint *total)
{
    sc[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < L; off <<= 1) {
        const uint left = lid >= off ? sc[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= off) sc[lid] += left;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint incl = sc[lid];
    *total = sc[L - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - v;
}

/* Stable ranking of the tile's TILE keys by a 4-bit digit q = (d >> qs) & 15.
 * Work-item lid holds keys lid*ITEMS .. lid*ITEMS + ITEMS - 1 (tile order) with
 * 8-bit digits d[0..ITEMS). Counters: 16-bit, two to a 32-bit word (word c
 * holds digits c and c + 8), one column of 8 words per work-item: word (c,
 * lid) at CNT(c * L + lid). Each work-item counts its keys in its own column
 * (rk = the count before it), then one exclusive scan over all words in (c,
 * work-item) order gives, in the low halves, the start of every (digit c,
 * work-item) and in the high halves that of digit c + 8 without the keys of
 * digits 0..7, which are then added. rank = scan + count before: the order
 * is (digit, work-item, item), i.e. stable. cnt: CNT_WORDS words (it may
 * alias other local memory: the caller puts a barrier before the call); sc:
 * L words. */
#define CNT(w) PAD(w) /* column accesses (w = c*L + lid) and raking (w = 8*lid + j) both spread over banks */
#define CNT_WORDS PADDED(8 * L)
void rank4(const uint *d, uint qs, uint *rk, __local uint *cnt, __local uint *sc, uint lid)
{
    for (uint c = 0; c < 8; c++) cnt[CNT(c * L + lid)] = 0;
    for (uint i = 0; i < ITEMS; i++) {
        const uint q = (d[i] >> qs) & 15u;
        const uint idx = CNT((q & 7u) * L + lid), sh = (q >> 3) * 16;
        const uint old = cnt[idx];
        rk[i] = (old >> sh) & 0xffffu;
        cnt[idx] = old + (1u << sh);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* raking: work-item lid scans words 8*lid .. 8*lid + 7 of the (c, lid) order */
    uint w[8], s = 0;
    for (uint j = 0; j < 8; j++) {
        w[j] = cnt[CNT(8 * lid + j)];
        s += w[j];
    }
    uint total;
    uint run = group_scan_u32(s, sc, lid, &total);
    run += (total & 0xffffu) << 16; /* digits 8..15 come after all keys of digits 0..7 */
    for (uint j = 0; j < 8; j++) {
        cnt[CNT(8 * lid + j)] = run;
        run += w[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < ITEMS; i++) {
        const uint q = (d[i] >> qs) & 15u;
        const uint idx = CNT((q & 7u) * L + lid), sh = (q >> 3) * 16;
        rk[i] += (cnt[idx] >> sh) & 0xffffu;
    }
}

/* Bytes of the exchange buffer and of the counters, which share memory. */
#define XBUF_BYTES (PADDED(TILE) * XS)
#define CNT_BYTES (CNT_WORDS * 4)
#define SHARED_BYTES (XBUF_BYTES > CNT_BYTES ? XBUF_BYTES : CNT_BYTES)

/* ---- scatter: one pass over tiles ----------------------------------------------------------------------------
 * Tile t: load (coalesced) into local memory; each work-item takes ITEMS
 * consecutive keys; rank by the low 4 bits of the digit, then (in that
 * order) by the high 4 bits: the tile's stable order by digit, fin[j] the
 * sorted position of the tile's key j. Keys past n get digit 255 and, being
 * last in the tile, sort after every real key. The keys are then exchanged
 * into sorted order in local memory and written out with consecutive
 * work-items at consecutive positions: position r of digit d goes to
 * offsets[d][t] + r - start[d]. Values follow the same way. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void scatter(
    __global U *keys, __global U *alt, ulong alt_off, __global V *vals, __global V *valt, ulong valt_off,
    __global const U *kin, __global const V *vin, ulong n, ulong ntiles, uint pass, uint is_float, ulong xmask,
    __global const OFF *offsets, ulong offsets_off, __global const uint *ctrl, ulong ctrl_off)
{
    __local ulong shared_mem[(SHARED_BYTES + 7) / 8];
    __local U *xk = (__local U *)shared_mem;    /* keys in tile order, then in sorted order */
#if VS
    __local V *xv = (__local V *)shared_mem;    /* values in sorted order (after the keys are out) */
#endif
    __local uint *cnt = (__local uint *)shared_mem; /* rank4's counters (between the two) */
    __local uchar sd[PADDED(TILE)];   /* digits in the order of the first rank, then sorted */
    __local ushort so[PADDED(TILE)];  /* tile positions in the order of the first rank, then fin[] */
    __local uint sc[L];
    __local ushort start[RADIX];
    __local ulong goff[RADIX];
    if (!ctrl[ctrl_off + CTRL_ACTIVE + pass]) return;
    PASS_BUFFERS;

    const uint lid = get_local_id(0), shift = 8 * pass;
    for (ulong t = get_group_id(0); t < ntiles; t += get_num_groups(0)) {
        const ulong base = t * TILE;
        const uint valid = (uint)min((ulong)TILE, n - base);
        for (uint k = 0; k < ITEMS; k++) {
            const uint i = k * L + lid;
            if (i < valid) xk[PAD(i)] = ksrc[base + i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        U key[ITEMS];
        uint d[ITEMS], rk[ITEMS], o2[ITEMS];
        for (uint i = 0; i < ITEMS; i++) {
            const uint j = lid * ITEMS + i;
            key[i] = j < valid ? xk[PAD(j)] : (U)0;
            d[i] = j < valid ? digit_of(radix_key(key[i], is_float, (U)xmask), shift) : 255u;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* xk is read: cnt may take its place */
        rank4(d, 0, rk, cnt, sc, lid);
        for (uint i = 0; i < ITEMS; i++) {
            sd[PAD(rk[i])] = (uchar)d[i];
            so[PAD(rk[i])] = (ushort)(lid * ITEMS + i);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint i = 0; i < ITEMS; i++) { /* now the digits in the first rank's order */
            const uint j = lid * ITEMS + i;
            d[i] = sd[PAD(j)];
            o2[i] = so[PAD(j)];
        }
        rank4(d, 4, rk, cnt, sc, lid); /* its barriers end every read of sd and so above */
        for (uint i = 0; i < ITEMS; i++) {
            sd[PAD(rk[i])] = (uchar)d[i]; /* sd: digits in sorted order */
            so[PAD(o2[i])] = (ushort)rk[i]; /* so: fin[tile position] */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* start of each digit's run in the sorted tile; the tile's offsets */
        for (uint k = 0; k < ITEMS; k++) {
            const uint r = k * L + lid;
            const uint dd = sd[PAD(r)];
            if (r == 0 || sd[PAD(r - 1)] != dd) start[dd] = (ushort)r;
        }
        for (uint dd = lid; dd < RADIX; dd += L) goff[dd] = (ulong)offsets[offsets_off + dd * ntiles + t];
        for (uint i = 0; i < ITEMS; i++) xk[PAD(so[PAD(lid * ITEMS + i)])] = key[i];
        barrier(CLK_LOCAL_MEM_FENCE);
#if VS
        ulong dst[ITEMS];
#endif
        for (uint k = 0; k < ITEMS; k++) {
            const uint r = k * L + lid;
            if (r < valid) {
                const uint dd = sd[PAD(r)];
                const ulong to = goff[dd] + (r - start[dd]);
                kdst[to] = xk[PAD(r)];
#if VS
                dst[k] = to;
#endif
            }
        }
#if VS
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++) {
            const uint j = k * L + lid;
            if (j < valid) xv[PAD(so[PAD(j)])] = vsrc[base + j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < ITEMS; k++) {
            const uint r = k * L + lid;
            if (r < valid) vdst[dst[k]] = xv[PAD(r)];
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#if KS == 1 && VS == 0
/* ---- 8-bit keys without values: count, then fill -------------------------------------------------------
 * A 1-byte key is its own digit (the radix key is key ^ xmask), so writing
 * the runs of each digit equals moving the keys: one read and one write of
 * the keys, no alternate buffer.
 * hist8: group g counts the digits of keys [g*chunk, min(n, (g+1)*chunk))
 * (chunk < 2^32) into part[part_off + 256 g + d]. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hist8(__global const uchar *keys, ulong n, ulong chunk,
                                                                  ulong xmask, __global ulong *part, ulong part_off)
{
    __local uint hist[RADIX];
    const uint lid = get_local_id(0);
    const ulong g = get_group_id(0);
    for (uint d = lid; d < RADIX; d += L) hist[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong lo = g * chunk, hi = min(n, lo + chunk);
    const uint x = (uint)(xmask & 255ul);
    for (ulong i = lo + lid; i < hi; i += L) atomic_inc(&hist[keys[i] ^ x]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < RADIX; d += L) part[part_off + g * RADIX + d] = hist[d];
}

/* starts8 (one group): starts[starts_off + d] = keys with a digit below d
 * (d = 0 .. 256), from the ngroups partial histograms. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void starts8(__global const ulong *part, ulong part_off,
                                                                    uint ngroups, __global ulong *starts,
                                                                    ulong starts_off)
{
    __local ulong tot[RADIX];
    const uint lid = get_local_id(0);
    for (uint d = lid; d < RADIX; d += L) {
        ulong s = 0;
        for (uint g = 0; g < ngroups; g++) s += part[part_off + (ulong)g * RADIX + d];
        tot[d] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        ulong run = 0;
        for (uint d = 0; d < RADIX; d++) {
            starts[starts_off + d] = run;
            run += tot[d];
        }
        starts[starts_off + RADIX] = run;
    }
}

/* fill8: keys[i] = the key of the digit whose run holds position i, over
 * chunks of `chunk` positions (grid-stride); work-item lid takes positions
 * lo + lid, lo + lid + L, ... and walks the runs forward. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void fill8(__global uchar *keys, ulong n, ulong chunk,
                                                                  ulong xmask, __global const ulong *starts,
                                                                  ulong starts_off)
{
    __local ulong st[RADIX + 1];
    const uint lid = get_local_id(0);
    for (uint d = lid; d <= RADIX; d += L) st[d] = starts[starts_off + d];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint x = (uint)(xmask & 255ul);
    for (ulong lo = get_group_id(0) * chunk; lo < n; lo += get_num_groups(0) * chunk) {
        const ulong hi = min(n, lo + chunk);
        ulong i = lo + lid;
        if (i >= hi) continue;
        uint a = 0, b = RADIX - 1; /* the last digit d with st[d] <= i */
        while (a < b) {
            const uint m = (a + b + 1) / 2;
            if (st[m] <= i) a = m;
            else b = m - 1;
        }
        uint d = a;
        for (; i < hi; i += L) {
            while (st[d + 1] <= i) d++;
            keys[i] = (uchar)(d ^ x);
        }
    }
}
#endif
