/* The half types' PP_MIN and PP_MAX reduce, the sorts' keys and the
 * widening to f32 and back on opencl (opencl_half.c; their sums are
 * exact.cl's), after src/core/exact_acc.h (the conversions) and
 * src/core/half_key.h (the keys' macros), both shared with cpu and cuda. T is ushort, the
 * element's bits. Defines: L (the work-group size), HALF_INF and HALF_NAN
 * (the format's infinity and quiet NaN bits: f16 0x7C00, 0x7E00; bf16
 * 0x7F80, 0x7FC0).
 *
 * Each bits h that is not NaN ((h & 0x7FFF) > HALF_INF) has the key
 * hkey(h), increasing with the value and -0.0 below +0.0, so min and max
 * are integer min and max of keys: the result does not depend on the
 * order, and every backend finds the same bits. */
#define L PP_L

uint hkey(uint h) { return PP_HALF_ORDER_KEY(h); }

/* The sorts' order keys (core/half_sort.c): k[i] = the sort key of x[i]
 * in order (a pp_order) for i < n, grid-stride. */
__kernel void hsort_keys(__global const T *x, ulong n, uint order, __global ushort *k)
{
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < n; i += step) {
        const uint h = (uint)x[i];
        k[i] = (ushort)PP_HALF_SORT_KEY(h, PP_HALF_INF, order);
    }
}

/* The widening to f32 and back (core/half_wide.c; exact_acc.h's
 * conversions): y[i] = the f32 bits of the value x[i] (keep: a NaN
 * marked as kept), for i < n. */
__kernel void hwiden(__global const T *x, ulong n, uint bf, uint keep, __global uint *y)
{
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < n; i += step) {
        const uint h = (uint)x[i];
        y[i] = keep ? pp_xacc_half_to_f32_keep(h, (int)bf) : bf ? pp_xacc_bf16_to_f32(h) : pp_xacc_f16_to_f32(h);
    }
}

/* y[i] = the half bits of the f32 bits x[i] of a half value (qnan: every NaN the quiet NaN). */
__kernel void hnarrow(__global const uint *x, ulong n, uint bf, uint qnan, __global T *y)
{
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < n; i += step) y[i] = (T)pp_xacc_f32_to_half(x[i], (int)bf, (int)qnan);
}

/* part[3 g ..] = (least key, greatest key, NaN seen) of x[g chunk, min(n, (g + 1) chunk)),
 * for every g < ceil(n / chunk). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void hminmax_parts(__global const T *x, ulong n, ulong chunk,
                                                                           __global uint *part)
{
    __local uint llo[L], lhi[L], lnan[L];
    const uint lid = get_local_id(0);
    const ulong ng = n / chunk + (n % chunk != 0);
    for (ulong g = get_group_id(0); g < ng; g += get_num_groups(0)) {
        const ulong b = g * chunk, e = n - b < chunk ? n : b + chunk;
        uint lo = 0xffffu, hi = 0u, nan = 0u;
        for (ulong i = b + lid; i < e; i += L) {
            const uint h = (uint)x[i], k = hkey(h);
            nan |= (h & 0x7fffu) > PP_HALF_INF;
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
        llo[lid] = lo;
        lhi[lid] = hi;
        lnan[lid] = nan;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint w = L / 2; w > 0; w >>= 1) {
            if (lid < w) {
                llo[lid] = llo[lid + w] < llo[lid] ? llo[lid + w] : llo[lid];
                lhi[lid] = lhi[lid + w] > lhi[lid] ? lhi[lid + w] : lhi[lid];
                lnan[lid] |= lnan[lid + w];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            part[3 * g] = llo[0];
            part[3 * g + 1] = lhi[0];
            part[3 * g + 2] = lnan[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* out[0] = the min (is_max: max) of the G parts' ranges, or the quiet NaN
 * where one saw a NaN. One work-item. */
__kernel void hminmax_final(__global const uint *part, ulong G, uint is_max, __global T *out)
{
    uint lo = 0xffffu, hi = 0u, nan = 0u;
    for (ulong g = 0; g < G; g++) {
        lo = part[3 * g] < lo ? part[3 * g] : lo;
        hi = part[3 * g + 1] > hi ? part[3 * g + 1] : hi;
        nan |= part[3 * g + 2];
    }
    const uint k = is_max ? hi : lo;
    const uint h = (k & 0x8000u) ? (k & 0x7fffu) : (~k & 0xffffu);
    out[0] = (T)(nan ? PP_HALF_NAN : h);
}
