/* pp_segmented_sort's kernels (opencl_segsort.c): T is the index type
 * (uint or ulong, pp_ocl_def_type); keys and values are moved as their
 * bits, PP_SEG_KS and PP_SEG_VS bytes (PP_SEG_VS 0: keys only). Every
 * offset read is clamped to n and every index read checked against n, so
 * bad offsets never make a kernel read or write outside the arrays. */
#if PP_SEG_KS == 1
#define KU uchar
#elif PP_SEG_KS == 2
#define KU ushort
#elif PP_SEG_KS == 4
#define KU uint
#else
#define KU ulong
#endif
#if PP_SEG_VS == 1
#define VU uchar
#elif PP_SEG_VS == 2
#define VU ushort
#elif PP_SEG_VS == 4
#define VU uint
#else
#define VU ulong /* (unused without values) */
#endif

/* g[r] = the start of the segment that holds element i = idx[r], or i
 * where none does (offsets clamped to n): sorted stably by g, the
 * elements of each segment gather at its start, the others stay where
 * they are. The segment: the last s <= nseg whose offset is at most i,
 * found by bisection (which ends, in bounds, whatever the offsets). */
__kernel void seg_group(__global const ulong *off, ulong nseg, ulong n, __global const T *idx, __global T *g)
{
    const ulong step = get_global_size(0);
    for (ulong r = get_global_id(0); r < n; r += step) {
        const ulong i = (ulong)idx[r];
        ulong lo = 0, hi = nseg + 1;
        while (lo < hi) {
            const ulong mid = lo + (hi - lo) / 2;
            if (min(off[mid], n) <= i) lo = mid + 1;
            else hi = mid;
        }
        T gi = (T)min(i, n);
        if (lo > 0 && lo <= nseg && i < min(off[lo], n)) gi = (T)min(off[lo - 1], n);
        g[r] = gi;
    }
}

/* keys[p] = kcopy[idx[p]] (values likewise) where idx[p] is not p (so
 * elements that stay, those outside every segment among them, are never
 * written). */
__kernel void seg_gather(__global KU *keys, __global const KU *kcopy, __global VU *vals, __global const VU *vcopy,
                         __global const T *idx, ulong n)
{
    const ulong step = get_global_size(0);
    for (ulong p = get_global_id(0); p < n; p += step) {
        const ulong j = (ulong)idx[p];
        if (j == p || j >= n) continue;
        keys[p] = kcopy[j];
#if PP_SEG_VS
        vals[p] = vcopy[j];
#else
        (void)vals;
        (void)vcopy;
#endif
    }
}
