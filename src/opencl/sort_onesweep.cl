/* parprim opencl: PP_ALGO_ONESWEEP, program "sort_onesweep" (NVIDIA GPUs
 * only: built with PP_NV_PTX; host side: opencl_sort.c,
 * pp_ocl_sort_onesweep). Built after the prelude and sort_keys.cl (the
 * defines, the radix key, the control block, copy_back); one more define:
 *   PP_DIG_STAGED  (with values) 1: os_pass keeps each sorted position's
 *             digit in local memory between its write loops
 *
 * The cuda backend's sort, in OpenCL C with the warp operations of the
 * prelude (inline PTX): every digit count in one read of the keys, then per
 * digit position one pass that reads each key once, ranks each tile's keys
 * stably by warp ballots and finds the tile's offsets by a decoupled
 * look-back over the digit counts of earlier tiles. A tile waits for
 * earlier tiles, which OpenCL does not promise will progress; on NVIDIA's
 * GPUs they do, as in CUDA: tiles are numbered by tickets drawn when a
 * work-group starts, so every tile waited on belongs to a running group
 * that publishes without waiting for later ones. Launches of one call:
 *   os_count  (every key) the digit counts of every pass, global atomics;
 *             clears the first pass's look-back rows
 *   os_plan   (one group) the exclusive digit offsets of each pass, and ctrl
 *             as plan makes it: which passes run (a digit that every key
 *             has makes its pass a no-op), which buffers each reads
 *   os_pass   per digit position: tile = one ticket; count the tile's
 *             digits per warp, publish the tile's counts, stable rank (warp
 *             ballots counting on from each warp's start), look back,
 *             scatter keys (values after them, ranked alike)
 *   copy_back (sort_keys.cl) where the result is not in the user's buffers.
 * PP_L is 384 or 256 work-items (12 or 8 warps; the digit steps use the
 * first 256), ITEMS keys per work-item (a tile of L * ITEMS).
 *
 * Look-back status word (uint) per (tile, digit): state in bits 31:30
 * (ST_AGG: the tile's own count; ST_INCL: the count in every tile of the
 * portion up to this one), count in bits 29:0, 0 = not published. Tiles
 * are grouped in portions of fewer than 2^30 keys so that counts fit; the
 * last tile of portion k publishes, per digit, the 64-bit start of portion
 * k + 1 (+ 1, so that 0 means not yet) in carry. Every such word carries its
 * own payload, so strong relaxed accesses suffice (no fence). */
#define WARPS (L / 32)
#define ST_AGG (1u << 30)
#define ST_INCL (2u << 30)
#define ST_VALUE ((1u << 30) - 1)
#define LOOKBACK_WINDOW 8 /* status words read per round trip (the cuda sort's measured best) */
#define COUNT_COPIES 4    /* os_count's copies of the counters, against same-address atomics */

/* os_count: the digit counts of every pass over the keys (grid-stride),
 * hist[hist_off + p * 256 + d] += count of digit d at position p (zero on
 * entry). Each group's counts are 32-bit: the host sizes the grid so that
 * no group counts 2^32 keys. Also clears status[status_off ..
 * status_off + status_words), the first pass's look-back rows. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void os_count(__global const U *keys, ulong n, uint is_float,
                                                                     ulong xmask, __global ulong *hist, ulong hist_off,
                                                                     __global uint *status, ulong status_off,
                                                                     ulong status_words)
{
    __local uint sh[KS * RADIX * COUNT_COPIES];
    const uint lid = get_local_id(0), copy = lid & (COUNT_COPIES - 1);
    for (uint i = lid; i < KS * RADIX * COUNT_COPIES; i += L) sh[i] = 0;
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < status_words; i += step) status[status_off + i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong i = get_global_id(0);
    for (; i + 3 * step < n; i += 4 * step) {
        U r[4];
        for (uint u = 0; u < 4; u++) r[u] = radix_key(keys[i + u * step], is_float, (U)xmask);
        for (uint u = 0; u < 4; u++)
            for (uint p = 0; p < KS; p++) atomic_inc(&sh[(p * RADIX + digit_of(r[u], 8 * p)) * COUNT_COPIES + copy]);
    }
    for (; i < n; i += step) {
        const U r = radix_key(keys[i], is_float, (U)xmask);
        for (uint p = 0; p < KS; p++) atomic_inc(&sh[(p * RADIX + digit_of(r, 8 * p)) * COUNT_COPIES + copy]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < KS * RADIX; d += L) {
        uint c = 0;
        for (uint k = 0; k < COUNT_COPIES; k++) c += sh[d * COUNT_COPIES + k];
        if (c) nv_red_add64(&hist[hist_off + d], (ulong)c);
    }
}

/* os_plan (one group): pbase[pbase_off + p * 256 + d] = keys whose digit at
 * position p is below d; ctrl as the portable plan writes it (a pass is
 * active unless one digit has all n keys), tickets zeroed. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void os_plan(__global const ulong *hist, ulong hist_off,
                                                                    ulong n, __global ulong *pbase, ulong pbase_off,
                                                                    __global uint *ctrl, ulong ctrl_off,
                                                                    uint out_of_place)
{
    __local ulong sc[RADIX];
    __local uint full;
    const uint lid = get_local_id(0);
    for (uint p = 0; p < KS; p++) {
        if (lid == 0) full = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        ulong tot = 0;
        if (lid < RADIX) {
            tot = hist[hist_off + p * RADIX + lid];
            sc[lid] = tot;
            if (tot == n) full = 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint off = 1; off < RADIX; off <<= 1) { /* inclusive scan of sc (Hillis-Steele) */
            const ulong left = lid < RADIX && lid >= off ? sc[lid - off] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid < RADIX) sc[lid] += left;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid < RADIX) pbase[pbase_off + p * RADIX + lid] = sc[lid] - tot;
        if (lid == 0) ctrl[ctrl_off + CTRL_ACTIVE + p] = !full;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        for (uint p = 0; p < 8; p++) {
            if (p >= KS) ctrl[ctrl_off + CTRL_ACTIVE + p] = 0;
            ctrl[ctrl_off + CTRL_TICKET + p] = 0;
        }
        plan_buffers(ctrl, ctrl_off, out_of_place);
    }
}

/* Digit i of a work-item's ITEMS (four 8-bit digits to a uint). */
#define DG_GET(dg, i) (((dg)[(i) / 4] >> (8 * ((i) % 4))) & 255u)
#define DG_SET(dg, i, d) ((dg)[(i) / 4] = (i) % 4 == 0 ? (d) : (dg)[(i) / 4] | ((d) << (8 * ((i) % 4))))

/* Items whose ballots os_warp_rank issues before their atomics: all of
 * them with values (ranks kept for the values anyway), two for keys alone
 * (fewer live registers; the cuda sort's measured choice). */
#if VS
#define RANK_GROUP ITEMS
#else
#define RANK_GROUP 2
#endif

/* Stable ranking of the warp's 32 * ITEMS keys k (item i of lane l is key
 * 32 i + l of the warp's part of the tile, so "item by item, lane by lane"
 * is input order; valid of them exist), each key staged at its rank in xk.
 * For each item the lanes with the same digit (peers) are found with eight
 * ballots; the highest peer adds their number to the warp's counter of the
 * digit and hands the old value to its peers; a lane's rank is that plus
 * its lower peers. nv_syncwarp orders the items, so ranks follow input
 * order. The counters count on from their values at entry c[d]: item i's
 * rank is c[d] plus its rank among the warp's keys of digit d; on return
 * wcnt[d] is c[d] plus the warp's count of digit d. With values, the ranks
 * (< 2^16) are also kept two to a register in rp, for the values. */
NV_INLINE void os_warp_rank(const uint *dg, const U *k, __local U *xk, uint *rp, __local uint *wcnt, int valid,
                            uint lane)
{
    const uint lower = (1u << lane) - 1u;
#pragma unroll
    for (int g = 0; g < ITEMS; g += RANK_GROUP) {
        uint pm[RANK_GROUP];
#pragma unroll
        for (int u = 0; u < RANK_GROUP; u++) { /* the peers of the group's items first: independent ballots */
            const int i = g + u;
            pm[u] = 0;
            if (i >= ITEMS || valid - 32 * i <= 0) continue; /* warp-uniform */
            const uint w = dg[i / 4], b0 = 8 * (i % 4);
            pm[u] = nv_same_bit(w, 1u << b0) & nv_same_bit(w, 1u << (b0 + 1)) & nv_same_bit(w, 1u << (b0 + 2)) &
                    nv_same_bit(w, 1u << (b0 + 3)) & nv_same_bit(w, 1u << (b0 + 4)) &
                    nv_same_bit(w, 1u << (b0 + 5)) & nv_same_bit(w, 1u << (b0 + 6)) & nv_same_bit(w, 1u << (b0 + 7));
        }
#pragma unroll
        for (int u = 0; u < RANK_GROUP; u++) {
            const int i = g + u;
            if (i >= ITEMS) break;
            const int nv = valid - 32 * i;
            uint r = 0;
            if (nv > 0) { /* warp-uniform */
                const uint live = nv >= 32 ? ~0u : (1u << nv) - 1u;
                const uint peers = pm[u] & live;
                const uint ok = (live >> lane) & 1u;
                const uint leader = ok ? 31u - clz(peers) : lane;
                uint base = 0;
                if (ok && lane == leader) base = atomic_add(&wcnt[DG_GET(dg, i)], popcount(peers));
                base = nv_shfl(base, leader);
                r = base + popcount(peers & lower);
                if (ok) xk[r] = k[i];
                nv_syncwarp();
            }
#if VS
            if (i % 2 == 0) rp[i / 2] = r & 0xffffu;
            else rp[i / 2] |= r << 16;
#else
            (void)rp;
#endif
        }
    }
}

/* The count of digit d in the portion's tiles before `tile` (not the first
 * of its portion): walks back LOOKBACK_WINDOW status words at a time,
 * adding counts, to the first inclusive one. */
NV_INLINE uint os_lookback(__global const uint *status, uint tile, uint d)
{
    uint sum = 0;
    long t = (long)tile - 1;
    for (;;) {
        uint w[LOOKBACK_WINDOW];
#pragma unroll
        for (int j = 0; j < LOOKBACK_WINDOW; j++)
            w[j] = t - j >= 0 ? nv_load_relaxed(status + (ulong)(t - j) * RADIX + d) : ST_INCL;
        int j = 0, done = 0;
#pragma unroll
        for (; j < LOOKBACK_WINDOW; j++) {
            if (w[j] == 0) break;
            sum += w[j] & ST_VALUE;
            if (w[j] & ST_INCL) {
                done = 1;
                break;
            }
        }
        if (done) return sum;
        t -= j;
    }
}

/* os_pass: one digit position `pass`, one tile per work-group (by ticket;
 * the grid is exactly `tiles` groups). First every group clears its row of
 * the next pass's look-back status (rows the pass before this one used;
 * has_next 0 on the last pass); then, if the pass is inactive, it exits.
 * Keys of tile t: [t * TILE, min(n, (t + 1) * TILE)); item i of work-item
 * (warp w, lane l) is key w * 32 * ITEMS + 32 i + l of the tile. The local
 * buffer xk holds the tile's keys in sorted order, then (pairs) its values:
 * sorted position j goes to shiftv[digit] + j, so consecutive work-items
 * write consecutive addresses within each digit's run. With values, the key
 * loop leaves each sorted position's digit for the value loop: in local
 * memory (xd, a byte per position) with DIG_STAGED, else in registers (od).
 * The write loops are unrolled by 2 where their digits are not in registers
 * (indexed at run time, those would live in private memory). */
/* Copies of each warp's digit counters in the tile's counting: keys alone
 * of up to 4 bytes count into two (lane l into copy l % 2, interleaved per
 * digit), held in the staging area, which is unused until the ranking: many
 * keys of a warp with one digit wait less for each other's increments (the
 * cuda sort's measured choice). */
#if VS == 0 && KS <= 4 && TILE * XS >= WARPS * RADIX * 4 * 2
#define COUNT_PARTS 2
#else
#define COUNT_PARTS 1
#endif
#if VS && PP_DIG_STAGED
#define DIG_STAGED 1
#else
#define DIG_STAGED 0
#endif
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void os_pass(
    __global U *keys, __global U *alt, ulong alt_off, __global V *vals, __global V *valt, ulong valt_off,
    __global const U *kin, __global const V *vin, ulong n, uint pass, uint is_float, ulong xmask, __global uint *status, ulong status_off, ulong next_off, uint has_next,
    __global const ulong *pbase, ulong pbase_off, __global ulong *carry, ulong carry_off, __global uint *ctrl,
    ulong ctrl_off, uint tiles_per_portion, uint tiles)
{
    __local uint cnt[WARPS * RADIX]; /* per warp, per digit: counts, then the warp's start in the tile */
    __local OFF shiftv[RADIX];
    __local uint misc[WARPS + 1];    /* warp sums of the digit scan; [WARPS]: the ticket */
    __local ulong xmem[(TILE * XS + 7) / 8];
    __local U *xk = (__local U *)xmem;
#if VS
    __local V *xv = (__local V *)xmem;
#endif
#if DIG_STAGED
    __local uchar xd[TILE];
#endif
#if COUNT_PARTS == 2
    __local uint *parts = (__local uint *)xmem; /* [warp][digit][copy] */
#else
    __local uint *parts = cnt;
#endif
    const uint lid = get_local_id(0), lane = lid & 31u, warp = lid >> 5;
    if (has_next && lid < RADIX) status[next_off + (ulong)get_group_id(0) * RADIX + lid] = 0;
    if (!ctrl[ctrl_off + CTRL_ACTIVE + pass]) return; /* the same in every work-item */
    if (lid == 0) misc[WARPS] = atomic_inc(&ctrl[ctrl_off + CTRL_TICKET + pass]);
    for (uint i = lid; i < WARPS * RADIX * COUNT_PARTS; i += L) parts[i] = 0;
    PASS_BUFFERS;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint tile = misc[WARPS];
    const ulong start = (ulong)tile * TILE;
    const uint count = (uint)min((ulong)TILE, n - start);
    const uint wfirst = warp * 32u * ITEMS;
    const int lim = (int)count - (int)(wfirst + lane); /* item i exists if 32 i < lim */
    const ulong mine = start + wfirst + lane;
    const uint shift = 8 * pass;

    /* 1. load (coalesced) and count each warp's digits (before ranking:
     * the tile's counts go out as early as possible) */
    U k[ITEMS];
    uint dg[(ITEMS + 3) / 4], rp[(ITEMS + 1) / 2];
    {
        __global const U *p = ksrc + mine;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) k[i] = 32 * i < lim ? p[32 * i] : (U)0;
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) DG_SET(dg, i, digit_of(radix_key(k[i], is_float, (U)xmask), shift));
    {
        __local uint *pc = parts + warp * RADIX * COUNT_PARTS + (lane & (COUNT_PARTS - 1));
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (32 * i < lim) atomic_inc(&pc[DG_GET(dg, i) * COUNT_PARTS]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. per digit (work-items 0-255): the tile's count, published at once
     * (inclusive for a portion's first tile); each warp's start within the
     * digit; the digit's start in the tile (a scan over the 256 digits) */
    const uint tpp = tiles_per_portion;
    const int first = tile % tpp == 0;
    __global uint *row = status + status_off + (ulong)tile * RADIX;
    uint total = 0, excl = 0;
    if (lid < RADIX) {
        for (uint w = 0; w < WARPS; w++) {
#if COUNT_PARTS == 2
            const uint c = parts[(w * RADIX + lid) * 2] + parts[(w * RADIX + lid) * 2 + 1];
#else
            const uint c = cnt[w * RADIX + lid];
#endif
            cnt[w * RADIX + lid] = total;
            total += c;
        }
        nv_store_relaxed(row + lid, (first ? ST_INCL : ST_AGG) | total);
        uint inc = total;
        for (uint dlt = 1; dlt < 32; dlt <<= 1) {
            const uint y = nv_shfl_up(inc, dlt);
            if (lane >= dlt) inc += y;
        }
        if (lane == 31) misc[warp] = inc;
        excl = inc - total;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX) {
        for (uint w = 0; w < warp; w++) excl += misc[w];
        for (uint w = 0; w < WARPS; w++) cnt[w * RADIX + lid] += excl;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 3. stable ranks within the warp, counting on from the warp's starts:
     * each is the key's position in the tile, where it goes in local memory
     * (digit order); kept for the values */
    os_warp_rank(dg, k, xk, rp, cnt + warp * RADIX, (int)count - (int)wfirst, lane);

    /* 4. look-back per digit, then each digit's shift: its global start for
     * this tile (the portion's start, from pbase or the carry of the previous
     * portion's last tile, plus the earlier tiles' count) minus its start in
     * the tile */
    if (lid < RADIX) {
        uint ex = 0;
        if (!first) {
            ex = os_lookback(status + status_off, tile, lid);
            nv_store_relaxed(row + lid, ST_INCL | (ex + total));
        }
        const uint portion = tile / tpp;
        ulong base;
        if (portion == 0) {
            base = pbase[pbase_off + pass * RADIX + lid];
        } else {
            __global const ulong *c = carry + carry_off + (ulong)portion * RADIX + lid;
            ulong w;
            while ((w = nv_load_relaxed64(c)) == 0) {
            }
            base = w - 1;
        }
        if (tile + 1 - portion * tpp == tpp && tile + 1 < tiles)
            nv_store_relaxed64(carry + carry_off + (ulong)(portion + 1) * RADIX + lid, base + ex + total + 1);
        shiftv[lid] = (OFF)(base + ex - excl);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 5. scatter: sorted position j = k L + lid (values loaded first, their
     * latency behind the keys' writes) */
#if VS
    V v[ITEMS];
    {
        __global const V *p = vsrc + mine;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) v[i] = 32 * i < lim ? p[32 * i] : (V)0;
    }
#if !DIG_STAGED
    uint od[(ITEMS + 3) / 4];
#endif
#endif
#if VS && !DIG_STAGED
#pragma unroll
#else
#pragma unroll 2
#endif
    for (int q = 0; q < ITEMS; q++) {
        const uint j = q * L + lid;
        if (j < count) {
            const U key = xk[j];
            const uint d = digit_of(radix_key(key, is_float, (U)xmask), shift);
            kdst[(ulong)(OFF)(shiftv[d] + j)] = key;
#if DIG_STAGED
            xd[j] = (uchar)d;
#elif VS
            DG_SET(od, q, d);
#endif
        }
    }
#if VS
    barrier(CLK_LOCAL_MEM_FENCE); /* xk read: xv takes its place */
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (32 * i < lim) xv[(rp[i / 2] >> (16 * (i % 2))) & 0xffffu] = v[i];
    barrier(CLK_LOCAL_MEM_FENCE);
#if DIG_STAGED
#pragma unroll 2
#else
#pragma unroll
#endif
    for (int q = 0; q < ITEMS; q++) {
        const uint j = q * L + lid;
#if DIG_STAGED
        if (j < count) vdst[(ulong)(OFF)(shiftv[xd[j]] + j)] = xv[j];
#else
        if (j < count) vdst[(ulong)(OFF)(shiftv[DG_GET(od, q)] + j)] = xv[j];
#endif
    }
#endif
}
