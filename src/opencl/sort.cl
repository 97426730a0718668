/* parprim opencl: sorting (pp_sort and pp_sort_pairs). Program "sort"; the
 * prelude (common.cl) comes first, without a PP_T: keys are handled as their
 * bits, so one program serves every key type of a width.
 *
 * Defines from the host (opencl_sort.c):
 *   PP_KS     key bytes (1, 2, 4, 8); keys are moved as U (uchar ... ulong)
 *   PP_VS     value bytes (0: keys only, 1, 2, 4, 8); values move as V
 *   PP_L      work-group size (a power of two; every kernel requires it)
 *   PP_ITEMS  keys per work-item in a tile; TILE = L * ITEMS <= 32768
 *   PP_OFF64  1: digit counts and offsets are ulong (n >= 2^32), else uint
 *   PP_DIG_STAGED  (Onesweep, with values) 1: os_pass keeps each sorted
 *             position's digit in local memory between its write loops
 *
 * Stable LSD radix sort over 8-bit digits of the radix key (keys themselves
 * are moved unchanged, so NaN payloads survive):
 *   radix(bits) = map(bits) ^ xmask, where map is the identity for integers
 *   and, for floats (is_float), every NaN -> all ones, negative -> all bits
 *   flipped, else the sign bit set (so -0.0 < +0.0 < ... < +inf < NaN);
 *   xmask (from the host) is the sign bit for signed integers, XOR all ones
 *   for descending order.
 *
 * Launches of one call (in order on the queue; no work-group ever waits for
 * another):
 *   key_bits   per chunk, the OR and the AND of the radix keys
 *   plan       one group: folds them; a digit position is active unless its
 *              digit is the same in every key (its bits equal in the OR and
 *              the AND); writes ctrl (below): which passes run, which buffer
 *              each reads, whether the result must be copied back
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
 *   copy_back  if an odd number of passes ran, the data is in the alternate
 *              buffers: copies it into the user's
 *
 * ctrl (uint, in scratch): [p] pass p active, [8 + p] pass p reads the
 * alternate buffers, [16] the result is in the alternate buffers.
 */
#define L PP_L
#define ITEMS PP_ITEMS
#define TILE (L * ITEMS)
#define KS PP_KS
#define VS PP_VS
#define RADIX 256

#if KS == 1
#define U uchar
#elif KS == 2
#define U ushort
#elif KS == 4
#define U uint
#define FLOAT_INF 0x7f800000u
#else
#define U ulong
#define FLOAT_INF 0x7ff0000000000000ul
#endif
#define KEY_SIGN ((U)((U)1 << (8 * KS - 1)))

#if VS == 1
#define V uchar
#elif VS == 2
#define V ushort
#elif VS == 4
#define V uint
#elif VS == 8
#define V ulong
#else
#define V uchar /* unused */
#endif

#if PP_OFF64
#define OFF ulong
#else
#define OFF uint
#endif

/* Element size of the exchange buffer: the larger of key and value. */
#if VS > KS
#define XS VS
#else
#define XS KS
#endif

/* Local index padded by one slot every 32, against bank conflicts when
 * work-items read ITEMS consecutive elements each. */
#define PAD(i) ((i) + ((i) >> 5))
#define PADDED(n) ((n) + ((n) >> 5) + 1)

/* The control block (ctrl, written by plan or os_plan): per pass p, whether
 * it runs and which buffers it reads and writes; the buffers the final copy
 * reads (BUF_OUT: no copy); (Onesweep) the tickets of each pass. */
#define CTRL_ACTIVE 0     /* ctrl[0 + p]: 1 if pass p runs */
#define CTRL_SRC 8        /* ctrl[8 + p]: the buffers pass p reads (a BUF_) */
#define CTRL_DST 16       /* ctrl[16 + p]: the buffers it writes */
#define CTRL_TICKET 24    /* ctrl[24 + p]: tickets drawn in pass p (Onesweep; zeroed by os_plan) */
#define CTRL_COPY_BACK 32 /* the buffers copy_back reads */
#define BUF_OUT 0         /* the user's keys and values (the output) */
#define BUF_ALT 1         /* the alternate ones in scratch */
#define BUF_IN 2          /* the user's inputs (out of place only) */

/* After CTRL_ACTIVE is written: one rule places every pass. Active pass r
 * (counted from 0) writes the output where end - r is odd and the alternate
 * buffers where it is even, end being the number of active passes out of
 * place (the last one writes the output) and 0 in place (the first writes
 * the alternates). Each reads what the one before it wrote, the first the
 * input (in place: the output itself). copy_back reads what the last active
 * pass wrote: the alternates after an odd number in place, nothing out of
 * place; the input where no pass ran out of place. (The cuda sort's rule.) */
void plan_buffers(__global uint *ctrl, ulong ctrl_off, uint out_of_place)
{
    uint total = 0;
    for (uint p = 0; p < 8; p++) total += ctrl[ctrl_off + CTRL_ACTIVE + p] != 0;
    const uint end = out_of_place ? total : 0u;
    uint held = out_of_place ? BUF_IN : BUF_OUT, ran = 0;
    for (uint p = 0; p < 8; p++) {
        const uint dst = (end - ran) & 1u ? BUF_OUT : BUF_ALT;
        ctrl[ctrl_off + CTRL_SRC + p] = held;
        ctrl[ctrl_off + CTRL_DST + p] = dst;
        if (ctrl[ctrl_off + CTRL_ACTIVE + p]) {
            held = dst;
            ran++;
        }
    }
    ctrl[ctrl_off + CTRL_COPY_BACK] = held;
}

U radix_key(U b, uint is_float, U xmask)
{
#ifdef FLOAT_INF
    if (is_float) {
        /* one XOR: with all ones for a negative key (0 - its sign bit), else
         * with the sign bit (cheaper than choosing between ~b and b | sign) */
        U r = (U)(b ^ (U)((U)((U)0 - (U)(b >> (8 * KS - 1))) | KEY_SIGN));
        if ((U)(b & (U)~KEY_SIGN) > (U)FLOAT_INF) r = (U)~(U)0; /* every NaN: after +inf */
        b = r;
    }
#else
    (void)is_float;
#endif
    return (U)(b ^ xmask);
}

uint digit_of(U r, uint shift)
{
#if KS == 8
    return (uint)(r >> shift) & 255u;
#else
    return ((uint)r >> shift) & 255u;
#endif
}

/* The keys (values) of buffers b (a BUF_): the user's, the alternate ones
 * at alt + alt_off, or the inputs. */
__global const U *keys_at(uint b, __global const U *keys, __global const U *alt, ulong alt_off,
                          __global const U *kin)
{
    return b == BUF_IN ? kin : b == BUF_ALT ? alt + alt_off : keys;
}
__global const V *vals_at(uint b, __global const V *vals, __global const V *valt, ulong valt_off,
                          __global const V *vin)
{
    return b == BUF_IN ? vin : b == BUF_ALT ? valt + valt_off : vals;
}

/* In a pass's kernel (parameters keys, alt, alt_off, vals, valt, valt_off,
 * kin, vin, ctrl, ctrl_off, pass): ksrc, kdst (and with values vsrc, vdst),
 * the buffers the pass reads and writes, as ctrl says. */
#define PASS_KEYS_                                                                                              \
    const uint src_ = ctrl[ctrl_off + CTRL_SRC + pass], dst_ = ctrl[ctrl_off + CTRL_DST + pass];            \
    __global const U *ksrc = keys_at(src_, keys, alt, alt_off, kin);                                        \
    __global U *kdst = dst_ == BUF_ALT ? alt + alt_off : keys
#if VS
#define PASS_BUFFERS                                                                                            \
    PASS_KEYS_;                                                                                             \
    __global const V *vsrc = vals_at(src_, vals, valt, valt_off, vin);                                      \
    __global V *vdst = dst_ == BUF_ALT ? valt + valt_off : vals
#else
#define PASS_BUFFERS                                                                                            \
    PASS_KEYS_;                                                                                             \
    (void)vals;                                                                                             \
    (void)valt;                                                                                             \
    (void)valt_off;                                                                                         \
    (void)vin
#endif

#if !PP_ONESWEEP /* the portable passes: key_bits, plan, count, scatter */

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

#endif /* !PP_ONESWEEP */

/* ---- copy_back: the result into the user's buffers, where it is not there ---------------------------------
 * From the alternate buffers (after an odd number of passes in place) or
 * from the inputs (out of place, where no pass ran: every key equal). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void copy_back(__global U *keys, __global const U *alt,
                                                                      ulong alt_off, __global V *vals,
                                                                      __global const V *valt, ulong valt_off,
                                                                      __global const U *kin, __global const V *vin,
                                                                      ulong n, __global const uint *ctrl,
                                                                      ulong ctrl_off)
{
    const uint from = ctrl[ctrl_off + CTRL_COPY_BACK];
    if (from == BUF_OUT) return;
    __global const U *ks = keys_at(from, keys, alt, alt_off, kin);
#if VS
    __global const V *vs = vals_at(from, vals, valt, valt_off, vin);
#else
    (void)vals;
    (void)valt;
    (void)valt_off;
    (void)vin;
#endif
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < n; i += step) {
        keys[i] = ks[i];
#if VS
        vals[i] = vs[i];
#endif
    }
}

#if KS == 1 && VS == 0 && !PP_ONESWEEP
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

#if PP_ONESWEEP
/* ---- Onesweep: NVIDIA GPUs (PP_NV_PTX) -----------------------------------------------------------------
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
 *   copy_back as above.
 * Defines: PP_L = 384 work-items (12 warps; the digit steps use the first
 * 256), ITEMS keys per work-item (a tile of L * ITEMS).
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
#endif /* PP_ONESWEEP */
