/* parprim opencl: search and merge (opencl_search.c), embedded after
 * sort_keys.cl (src/opencl/CMakeLists.txt) for its radix key: keys are
 * compared as radix_key(bits, is_float, xmask), the sort's own order
 * (PP_NAN_LAST: NaNs last in descending order), so "before" is the
 * unsigned < of radix keys. Keys move as their bits U (KS bytes), values
 * as V (VS bytes, 0: none). Every index stays in bounds whatever the keys
 * hold: results on unsorted inputs are unspecified, accesses are not. */

/* The first i in [0, n] (n >= 1) with !(s[i] before key) (upper: with key
 * before s[i]): the range [base, base + len] that holds the answer halves
 * by a select, every probe base + hl < base + len <= n in the array. */
ulong bound_of(__global const U *s, ulong n, U key, uint is_float, U xmask, uint upper)
{
    ulong base = 0, len = n;
    while (len > 1) {
        const ulong hl = len / 2; /* (half is a type in OpenCL C) */
        const U k = radix_key(s[base + hl], is_float, xmask);
        base = (upper ? k <= key : k < key) ? base + hl : base;
        len -= hl;
    }
    const U k = radix_key(s[base], is_float, xmask);
    return base + (ulong)(upper ? k <= key : k < key);
}

/* out[j] for every query j < m, grid-stride. */
__kernel void search_bounds(__global const U *s, ulong n, __global const U *q, ulong m, __global ulong *out,
                            uint is_float, ulong xmask, uint upper)
{
    const ulong step = get_global_size(0);
    for (ulong j = get_global_id(0); j < m; j += step)
        out[j] = n ? bound_of(s, n, radix_key(q[j], is_float, (U)xmask), is_float, (U)xmask, upper) : 0;
}

/* The merge path's split of diagonal d <= na + nb: how many of the first d
 * outputs come from a, a's key first among equals. */
ulong merge_split(__global const U *a, ulong na, __global const U *b, ulong nb, ulong d, uint is_float, U xmask)
{
    ulong lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2; /* mid < na, d - 1 - mid < nb */
        if (!(radix_key(b[d - 1 - mid], is_float, xmask) < radix_key(a[mid], is_float, xmask)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Part p of the outputs, [p * chunk, min((p + 1) * chunk, n)), for every
 * part p, grid-stride: both ends' splits, a's share clamped to what both
 * inputs hold (on sorted keys exactly the split's), then the two-finger
 * merge. Empty inputs are passed as any buffer (never read). */
__kernel void merge_path(__global const U *a, __global const V *av, ulong na, __global const U *b, __global const V *bv,
                         ulong nb, __global U *ko, __global V *vo, ulong chunk, uint is_float, ulong xmask_)
{
    const U xmask = (U)xmask_;
    const ulong n = na + nb, parts = (n + chunk - 1) / chunk, step = get_global_size(0);
#if !VS
    (void)av;
    (void)bv;
    (void)vo;
#endif
    for (ulong p = get_global_id(0); p < parts; p += step) {
        const ulong d0 = p * chunk, d1 = min(d0 + chunk, n), cnt = d1 - d0;
        const ulong i0 = merge_split(a, na, b, nb, d0, is_float, xmask), j0 = d0 - i0;
        const ulong i1 = merge_split(a, na, b, nb, d1, is_float, xmask);
        const ulong lo = cnt > nb - j0 ? cnt - (nb - j0) : 0, hi = min(cnt, na - i0);
        const ulong an = clamp(i1 > i0 ? i1 - i0 : (ulong)0, lo, hi);
        ulong i = i0, j = j0;
        const ulong ie = i0 + an, je = j0 + (cnt - an);
        for (ulong k = d0; k < d1; k++) {
            /* b's key first only where it is before a's */
            const int tb = i >= ie || (j < je && radix_key(b[j], is_float, xmask) < radix_key(a[i], is_float, xmask));
            if (tb) {
                ko[k] = b[j];
#if VS
                vo[k] = bv[j];
#endif
                j++;
            } else {
                ko[k] = a[i];
#if VS
                vo[k] = av[i];
#endif
                i++;
            }
        }
    }
}
