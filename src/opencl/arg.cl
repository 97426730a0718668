/* parprim opencl: pp_argmin and pp_argmax (program "arg", opencl_arg.c).
 *
 * Defines from the host: the type (common.cl), PP_L (work-group size, a
 * power of two; the kernel requires exactly it) and PP_ARG_MAX (1 for
 * argmax, 0 for argmin).
 *
 * A candidate is (nan, key, index): nan 1 for a NaN; key an unsigned
 * integer that orders like the element (pp_order_key, -0.0 taken as +0.0
 * so that the two zeros tie; argmax: its complement), smaller first. A
 * candidate comes before another if it is a NaN and the other is not,
 * else (neither a NaN) if its key is smaller, else if its index is. So the
 * best candidate of any set is its first NaN if it holds one, else its
 * first minimum (maximum), whatever the order in which candidates meet:
 * the result is exact and the same on every device. Keys compare the
 * bits, so flush-to-zero hardware cannot tie subnormals with zeros.
 */
#define L PP_L

U arg_key(T x)
{
    U b = PP_BITS(x);
#if T_IS_FLOAT
    if ((U)(b << 1) == 0) b = 0; /* -0.0 ranks as +0.0 */
#endif
    const U k = pp_order_key(PP_FROM_BITS(b));
#if PP_ARG_MAX
    return ~k;
#else
    return k;
#endif
}

int arg_before(uint na, U ka, ulong ia, uint nb, U kb, ulong ib)
{
    if (na != nb) return na > nb;
    if (!na && ka != kb) return ka < kb;
    return ia < ib;
}

/* Group g takes positions [g*chunk, min(n, (g+1)*chunk)) (grid-stride over
 * the groups): each work-item its candidates lid, lid + L, ..., then a
 * tree over local memory; out[g] = the index of the group's best. A
 * position t stands for the element in[t], or with indirect for
 * in[cand[t]] (the second launch: the first launch's winners). n > 0. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void arg_fold(__global const T *in, __global const ulong *cand,
                                                                     uint indirect, ulong n, ulong chunk,
                                                                     __global ulong *out)
{
    __local U lk[L];
    __local ulong li[L];
    __local uint ln[L];
    const uint lid = get_local_id(0);
    for (ulong g = get_group_id(0); g * chunk < n; g += get_num_groups(0)) {
        const ulong lo = g * chunk, hi = min(n, lo + chunk);
        uint bn = 0;
        U bk = (U)~(U)0;
        ulong bi = ~(ulong)0; /* no candidate: after every real one */
        for (ulong t = lo + lid; t < hi; t += L) {
            const ulong i = indirect ? cand[t] : t;
            const T x = in[i];
            const uint xn = pp_isnan(x) != 0;
            const U xk = arg_key(x);
            if (arg_before(xn, xk, i, bn, bk, bi)) bn = xn, bk = xk, bi = i;
        }
        lk[lid] = bk;
        li[lid] = bi;
        ln[lid] = bn;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = L / 2; s > 0; s >>= 1) {
            if (lid < s && arg_before(ln[lid + s], lk[lid + s], li[lid + s], ln[lid], lk[lid], li[lid])) {
                lk[lid] = lk[lid + s];
                li[lid] = li[lid + s];
                ln[lid] = ln[lid + s];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) out[g] = li[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
