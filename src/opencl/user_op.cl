/* Reduce and scan with an operator of the user's own (opencl_operator.c):
 * built after the user's text, which defines pp_elem and pp_combine (no
 * prelude: its names would collide with the user's). Every fold combines
 * in element order, left to right (never commuted): a work-group takes a
 * contiguous range, each of its L work-items a contiguous part of it, and
 * the items' results are combined pairwise in item order. L (PP_L) is a
 * power of two. */

/* sizeof(pp_elem), for the host's check of element_size. */
__kernel void op_elem_size(__global ulong *out) { out[0] = (ulong)sizeof(pp_elem); }

/* The fold of in[lo, hi) from acc. */
static pp_elem fold_range(__global const pp_elem *in, ulong lo, ulong hi, pp_elem acc)
{
    for (ulong i = lo; i < hi; i++) acc = pp_combine(acc, in[i]);
    return acc;
}

/* l[0 .. PP_L) combined in order into l[0] (an in-order tree). */
static void group_fold(__local pp_elem *l, uint i)
{
    for (uint s = 1; s < PP_L; s *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i % (2 * s) == 0) l[i] = pp_combine(l[i], l[i + s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* l[0 .. PP_L) scanned in place, inclusive (Hillis-Steele, the left
 * operand always the earlier one); a barrier after it. */
static void group_scan(__local pp_elem *l, uint i)
{
    for (uint s = 1; s < PP_L; s *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        pp_elem v = l[i];
        if (i >= s) v = pp_combine(l[i - s], v);
        barrier(CLK_LOCAL_MEM_FENCE);
        l[i] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* out[a, b) = the scan of in[a, b) from carry . l[0] . ... . l[i - 1]
 * (l: the items' folds scanned by group_scan); in == out allowed. */
static void scan_part(__global const pp_elem *in, __global pp_elem *out, ulong a, ulong b, int exclusive,
                      pp_elem carry, __local const pp_elem *l, uint i)
{
    pp_elem acc = i ? pp_combine(carry, l[i - 1]) : carry;
    if (exclusive) {
        for (ulong k = a; k < b; k++) {
            pp_elem x = in[k];
            out[k] = acc;
            acc = pp_combine(acc, x);
        }
    } else {
        for (ulong k = a; k < b; k++) {
            acc = pp_combine(acc, in[k]);
            out[k] = acc;
        }
    }
}

/* aux: [the groups' results (groups), their carries (groups)]; the
 * identity comes by value. */

/* out[g] = the fold of in[g per, min(n, (g + 1) per)). */
__kernel void op_reduce_ranges(__global const pp_elem *in, ulong n, ulong per, __global pp_elem *out,
                               pp_elem identity, __local pp_elem *l)
{
    const uint i = (uint)get_local_id(0);
    const ulong g = get_group_id(0), lo = min(n, g * per), hi = min(n, lo + per);
    const ulong each = (hi - lo + PP_L - 1) / PP_L, a = min(hi, lo + i * each), b = min(hi, a + each);
    l[i] = fold_range(in, a, b, identity);
    group_fold(l, i);
    if (i == 0) out[g] = l[0];
}

/* carry[g] = identity . result[0] . ... . result[g - 1], by one work-item
 * (OP_MAX_GROUPS at most). */
__kernel void op_carries(__global pp_elem *aux, ulong groups, pp_elem identity)
{
    if (get_global_id(0) != 0) return;
    pp_elem acc = identity;
    for (ulong g = 0; g < groups; g++) {
        aux[groups + g] = acc;
        acc = pp_combine(acc, aux[g]);
    }
}

/* The scan of each group's range from its carry (exclusive: out[i] =
 * carry . in[lo] . ... . in[i - 1]). Each item folds its part, the items'
 * folds are scanned in order in local memory (group_scan), then each item
 * scans its part from its prefix. in == out is allowed: every read of a part precedes its writes. */
__kernel void op_scan_ranges(__global const pp_elem *in, __global pp_elem *out, ulong n, ulong per,
                             __global const pp_elem *aux, ulong groups, int exclusive, pp_elem identity,
                             __local pp_elem *l)
{
    const uint i = (uint)get_local_id(0);
    const ulong g = get_group_id(0), lo = min(n, g * per), hi = min(n, lo + per);
    const ulong each = (hi - lo + PP_L - 1) / PP_L, a = min(hi, lo + i * each), b = min(hi, a + each);
    l[i] = fold_range(in, a, b, identity);
    group_scan(l, i);
    scan_part(in, out, a, b, exclusive, aux[groups + g], l, i);
}

/* ---- the segmented forms (a work-group per segment) -------------------------
 * Group g takes segments g, g + groups, ...; a segment in tiles of PP_L *
 * PP_SEG_K elements, each item a contiguous part of the tile, the items'
 * folds combined (reduce) or scanned (scan) in item order, the running
 * value carried from tile to tile. Offsets are clamped where read: segment
 * s is [b, e) with lo <= b <= e <= hi, lo = min(offsets[0], n), hi =
 * max(lo, min(offsets[nseg], n)), so bad offsets write nothing outside
 * out[0 .. nseg) (reduce) or out[lo .. hi) (scan). */
#define PP_SEG_K 16

static void seg_bounds(__global const ulong *off, ulong nseg, ulong n, ulong s, ulong *b, ulong *e)
{
    const ulong lo = min(off[0], n), hi = max(lo, min(off[nseg], n));
    *b = clamp(off[s], lo, hi);
    *e = clamp(off[s + 1], *b, hi);
}

/* The item's part [*x, *y) of the tile [t, min(e, t + PP_L PP_SEG_K)). */
static void seg_part(ulong t, ulong e, uint i, ulong *x, ulong *y)
{
    const ulong te = min(e, t + (ulong)PP_L * PP_SEG_K), each = (te - t + PP_L - 1) / PP_L;
    *x = min(te, t + i * each);
    *y = min(te, *x + each);
}

/* scan 0: out[s] = the fold of segment s; 1: out = its scan from the
 * identity (exclusive with exclusive set). in == out allowed for the scan:
 * each item reads its part before it writes it. */
__kernel void op_seg(__global const pp_elem *in, __global pp_elem *out, ulong n, __global const ulong *off,
                     ulong nseg, int scan, int exclusive, pp_elem identity, __local pp_elem *l)
{
    const uint i = (uint)get_local_id(0);
    for (ulong s = get_group_id(0); s < nseg; s += get_num_groups(0)) {
        ulong b, e, x, y;
        seg_bounds(off, nseg, n, s, &b, &e);
        pp_elem carry = identity;
        for (ulong t = b; t < e; t += (ulong)PP_L * PP_SEG_K) {
            seg_part(t, e, i, &x, &y);
            l[i] = fold_range(in, x, y, identity);
            if (scan) {
                group_scan(l, i);
                scan_part(in, out, x, y, exclusive, carry, l, i);
                carry = pp_combine(carry, l[PP_L - 1]);
            } else {
                group_fold(l, i);
                carry = pp_combine(carry, l[0]);
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* l read by all before the next tile */
        }
        if (!scan && i == 0) out[s] = carry;
    }
}

/* The same forms for CPU devices: a work-item per segment, folding or
 * scanning it in order, no barrier at all (some PoCL versions abort
 * building a work-group function from op_seg, whose barriers sit in
 * loops). */
__kernel void op_seg_items(__global const pp_elem *in, __global pp_elem *out, ulong n, __global const ulong *off,
                           ulong nseg, int scan, int exclusive, pp_elem identity)
{
    const ulong s = get_global_id(0);
    if (s >= nseg) return;
    ulong b, e;
    seg_bounds(off, nseg, n, s, &b, &e);
    pp_elem acc = identity;
    for (ulong i = b; i < e; i++) {
        const pp_elem x = in[i];
        if (scan && exclusive) out[i] = acc;
        acc = pp_combine(acc, x);
        if (scan && !exclusive) out[i] = acc;
    }
    if (!scan) out[s] = acc;
}
