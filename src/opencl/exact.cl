/* PP_ALGO_EXACT on opencl: f32 and f64 sums correctly rounded
 * (docs/exact.md; the host side is opencl_exact.c). The program's text is
 * src/core/exact_acc.h (the accumulator: layout, deposits, normalization,
 * merge, the one rounding) followed by this file (src/opencl/CMakeLists.txt
 * concatenates them before embedding), after the prelude (common.cl).
 *
 * Defines: the element type (T: float or double), L (the work-group size
 * of xfold_groups).
 *
 * Group fold (xfold_group). A work-group folds its range in rounds of
 * XR = 2048 elements: XB = XR / L per work-item (strided by L, so loads
 * coalesce), held in registers as exact doubles (an f32 subnormal is
 * converted by its bits, so a device that flushes float denormals cannot
 * change it). Elements that are NaN, infinite or (f64) at or above
 * 2^XLIM are "direct": work-item 0 adds them one by one to the group's
 * accumulator (pp_xacc_add_*: flags and deposits), rare by nature. The
 * others are split level by level (exact_acc.h, "splitting"): with the
 * round's max |v| < 2^E and C = 1.5 * 2^(E+XK), h = (v + C) - C, v -= h;
 * the XR h's are multiples of ulp(C) below 2^53 ulp(C) (XR <= 2^(XK-1)),
 * so their sum over the work-group (any order, a tree in local memory) is
 * an exact double, deposited by work-item 0; the next level starts from
 * the max of the remainders, until it is zero. Uniform data takes two
 * levels, and usually one: where the round's values span few binades
 * (the least nonzero |v| is known), the plain double sum is exact (f32)
 * or one split leaves remainders whose sum is exact (f64), as on cpu.
 * The accumulator is work-item 0's private array (the header's
 * functions take private pointers); one per group goes to global memory,
 * normalized.
 *
 * Reduce: xfold_groups over G contiguous ranges, then xreduce_final (one
 * work-item) merges the G accumulators in order and rounds once; for
 * pp_exact_accumulate, xsum_final merges them into the first one, which
 * the host reads.
 *
 * Scan: xfold_groups over tiles of S elements (one accumulator per tile),
 * xscan_accs (the exclusive prefix of the tiles' accumulators, one
 * work-item per word: chunk sums without carries, flags OR'ed; exact, so
 * order does not matter), then xscan_tiles: one work-item per tile runs
 * the cpu's serial scan (cpu_exact.inc): a fast running sum (f64: a
 * double-double; f32: a double) with a rigorous error bound certifies
 * almost every output, the others come from the exact accumulator, into
 * which the elements since the last exact point are folded (so x must not
 * change during the kernel: the host passes a copy for an in-place scan).
 * Without cl_khr_fp64 (f32 only), and for f16 / bf16 (no fast sum for
 * them yet): every element is added to the accumulator and every output
 * rounded from it (slow, exact).
 *
 * f16 and bf16 (defines XHALF_PREC, XHALF_SHIFT, XHALF_BF; T is ushort):
 * each element's bits are widened to the f32 bits of the same value
 * (XLOAD) and everything runs as for f32, the f32 accumulator holding the
 * exact sum; results are rounded once to the half format (XROUND, XOUT).
 */

#define L PP_L
#define XR 2048
#define XK 12 /* XR <= 2^(XK - 1) */
#define XB (XR / L)

#ifdef PP_XHALF_PREC
/* f16 / bf16 (T: ushort, their bits): every element is widened to f32
 * bits exactly and folded as an f32; the outputs are the accumulator's
 * roundings to the half format (exact_acc.h, pp_xacc_bits_half) */
#define XHALF 1
#if PP_XHALF_BF
#define XLOAD(x, i) pp_xacc_bf16_to_f32((uint)(x)[i])
#else
#define XLOAD(x, i) pp_xacc_f16_to_f32((uint)(x)[i])
#endif
#define XOUT(b) ((T)(b))
#else
#define XHALF 0
#define XLOAD(x, i) PP_BITS((x)[i])
#define XOUT(b) PP_FROM_BITS(b)
#endif

#if T_IS_F64
#define XN PP_XACC_F64_CHUNKS
#define XUNIT PP_XACC_F64_UNIT
#define XBITS ulong
#define XNEG0 ((ulong)1 << 63)
#define XADD(w, b) pp_xacc_add_f64((w), (b))
#define XROUND(w) pp_xacc_bits_f64(w)
#define XLIM (1022 - XK) /* split path: |x| < 2^XLIM (C stays finite) */
#else
#define XN PP_XACC_F32_CHUNKS
#define XUNIT PP_XACC_F32_UNIT
#define XBITS uint
#define XNEG0 0x80000000u
#define XADD(w, b) pp_xacc_add_f32((w), (b))
#if XHALF
#define XROUND(w) pp_xacc_bits_half((w), PP_XHALF_PREC, PP_XHALF_SHIFT)
#else
#define XROUND(w) pp_xacc_bits_f32(w)
#endif
#endif
#define XW (XN + 2)

#if PP_XACC_DOUBLE
#define XLD double
#else
#define XLD long /* the unused local arrays' type where there are no doubles */
#endif

#define XF_DIRECT 1
#define XF_NOTNEG0 2

/* 1 where the element of bits b sets PP_XACC_NOT_NEG0, as pp_xacc_add_*
 * does: finite and not -0.0 (a NaN or an infinity sets its own flag only,
 * so the flags are the same on every backend). */
int xnotneg0(XBITS b)
{
#if T_IS_F64
    return b != XNEG0 && ((b >> 52) & 0x7ff) != 0x7ff;
#else
    return b != XNEG0 && ((b >> 23) & 0xff) != 0xff;
#endif
}

#if PP_XACC_DOUBLE
/* The element of bits b as an exact double; *direct where it goes to the
 * accumulator one by one (then 0.0). */
double xvalue(XBITS b, int *direct)
{
#if T_IS_F64
    const int ef = (int)((b >> 52) & 0x7ff);
    if (ef >= 1023 + XLIM) {
        *direct = 1;
        return 0.0;
    }
    return as_double(b);
#else
    const int ef = (int)((b >> 23) & 0xff);
    if (ef == 0xff) {
        *direct = 1;
        return 0.0;
    }
    if (ef) return (double)as_float(b);
    const double v = (double)(int)(b & 0x7fffffu) * 0x1p-149; /* subnormal, by its bits */
    return (b >> 31) ? -v : v;
#endif
}

/* Tree over the work-group: the sums of s and s2 (exact where called:
 * see above), the max of m, the min of mn and the OR of f. Every work-item
 * gets the results. */
void xgroup_reduce(__local double *ls, __local double *ls2, __local double *lm, __local double *ln, __local int *lf,
                   double *s, double *s2, double *m, double *mn, int *f)
{
    const uint lid = get_local_id(0);
    ls[lid] = *s;
    ls2[lid] = *s2;
    lm[lid] = *m;
    ln[lid] = *mn;
    lf[lid] = *f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = L / 2; w > 0; w >>= 1) {
        if (lid < w) {
            ls[lid] += ls[lid + w];
            ls2[lid] += ls2[lid + w];
            lm[lid] = lm[lid + w] > lm[lid] ? lm[lid + w] : lm[lid];
            ln[lid] = ln[lid + w] < ln[lid] ? ln[lid + w] : ln[lid];
            lf[lid] |= lf[lid + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *s = ls[0];
    *s2 = ls2[0];
    *m = lm[0];
    *mn = ln[0];
    *f = lf[0];
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* Adds x[lo, hi) to acc (work-item 0's accumulator; every work-item of
 * the group calls this, with the same lo and hi). */
void xfold_group(__global const T *x, ulong lo, ulong hi, long *acc, __local XLD *ls, __local XLD *ls2,
                 __local XLD *lm, __local XLD *ln, __local int *lf, __local XBITS *lb)
{
    const uint lid = get_local_id(0);
#if PP_XACC_DOUBLE
    for (ulong base = lo; base < hi; base += XR) {
        double v[XB];
        double mx = 0.0, mn = INFINITY, sum = 0.0, zero = 0.0;
        int flags = 0;
        for (int k = 0; k < XB; k++) {
            const ulong i = base + (ulong)k * L + lid;
            const XBITS b = i < hi ? XLOAD(x, i) : XNEG0;
            int direct = 0;
            const double d = xvalue(b, &direct);
            const double a = fabs(d), a0 = a == 0.0 ? INFINITY : a;
            v[k] = d;
            mx = a > mx ? a : mx;
            mn = a0 < mn ? a0 : mn;
            sum += d;
            flags |= (direct ? XF_DIRECT : 0) | (xnotneg0(b) ? XF_NOTNEG0 : 0);
        }
        xgroup_reduce(ls, ls2, lm, ln, lf, &sum, &zero, &mx, &mn, &flags);
        if (flags & XF_DIRECT) {
            for (int k = 0; k < XB; k++) {
                const ulong i = base + (ulong)k * L + lid;
                const XBITS b = i < hi ? XLOAD(x, i) : XNEG0;
                int direct = 0;
                (void)xvalue(b, &direct);
                lb[lid] = direct ? b : XNEG0; /* -0.0 adds nothing, not even a flag */
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    for (int j = 0; j < L; j++) XADD(acc, lb[j]);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
        }
        if (lid == 0 && (flags & XF_NOTNEG0)) acc[XN] |= PP_XACC_NOT_NEG0;
        if (!(mx > 0.0)) continue;
        /* every nonzero |v| >= 2^el, so v is a multiple of 2^(el - 23) (f32) or 2^(el - 52) (f64) */
        const int e = pp_xacc_exp_above(mx), el = pp_xacc_exp_above(mn) - 1;
#if !T_IS_F64
        if (e - el <= 19) { /* XR f32 values below 2^e: the plain double sum is exact (as on cpu) */
            if (lid == 0) pp_xacc_add_exact_double(acc, XN, XUNIT, sum);
            continue;
        }
#else
        if (e - el <= 43 - XK) {
            /* one split: the h's add up exactly, and so do the remainders
             * (multiples of 2^(el-52) below 2^(e+XK-53), XR of them) */
            const double c = pp_xacc_split_const(e + XK);
            double hs = 0.0, rs = 0.0, z1 = 0.0, z2 = 0.0;
            int unused = 0;
            for (int k = 0; k < XB; k++) {
                const double h = (v[k] + c) - c;
                hs += h;
                rs += v[k] - h;
            }
            xgroup_reduce(ls, ls2, lm, ln, lf, &hs, &rs, &z1, &z2, &unused);
            if (lid == 0) {
                pp_xacc_add_exact_double(acc, XN, XUNIT, hs);
                pp_xacc_add_exact_double(acc, XN, XUNIT, rs);
            }
            continue;
        }
#endif
        while (mx > 0.0) { /* level by level */
            const double c = pp_xacc_split_const(pp_xacc_exp_above(mx) + XK);
            double hs = 0.0, m2 = 0.0, z1 = 0.0, z2 = 0.0;
            int unused = 0;
            for (int k = 0; k < XB; k++) {
                const double h = (v[k] + c) - c, r = v[k] - h, a = fabs(r);
                v[k] = r;
                hs += h;
                m2 = a > m2 ? a : m2;
            }
            xgroup_reduce(ls, ls2, lm, ln, lf, &hs, &z1, &m2, &z2, &unused);
            if (lid == 0) pp_xacc_add_exact_double(acc, XN, XUNIT, hs);
            mx = m2;
        }
    }
#else
    /* no doubles: element by element, L at a time through local memory */
    for (ulong base = lo; base < hi; base += L) {
        const ulong i = base + lid;
        lb[lid] = i < hi ? XLOAD(x, i) : XNEG0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            for (int j = 0; j < L; j++) XADD(acc, lb[j]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* accs[g * XW ..] = the normalized accumulator of x[g * chunk, min(n, (g + 1) * chunk)),
 * for every g < ceil(n / chunk). */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void xfold_groups(__global const T *x, ulong xoff, ulong n,
                                                                          ulong chunk, __global long *accs,
                                                                          ulong accoff)
{
    __local XLD ls[L], ls2[L], lm[L], ln[L];
    __local int lf[L];
    __local XBITS lb[L];
    long acc[XW];
    x += xoff;
    accs += accoff;
    const ulong ng = n / chunk + (n % chunk != 0);
    for (ulong g = get_group_id(0); g < ng; g += get_num_groups(0)) {
        if (get_local_id(0) == 0) pp_xacc_clear(acc, XN);
        const ulong lo = g * chunk, hi = n - lo < chunk ? n : lo + chunk;
        xfold_group(x, lo, hi, acc, ls, ls2, lm, ln, lf, lb);
        if (get_local_id(0) == 0) {
            pp_xacc_normalize(acc, XN);
            for (int i = 0; i < XW; i++) accs[g * XW + i] = acc[i];
        }
    }
}

/* acc = the sum of accs[0 .. G) (normalized accumulators), normalized. */
void xmerge_accs(__global const long *accs, ulong G, long *acc)
{
    long src[XW];
    for (int i = 0; i < XW; i++) acc[i] = accs[i];
    for (ulong g = 1; g < G; g++) {
        for (int i = 0; i < XW; i++) src[i] = accs[g * XW + i];
        pp_xacc_merge(acc, src, XN);
    }
}

/* out[0] = the rounding of the sum of accs[0 .. G) (one work-item). */
__kernel void xreduce_final(__global const long *accs, ulong accoff, ulong G, __global T *out)
{
    long acc[XW];
    xmerge_accs(accs + accoff, G, acc);
    out[0] = XOUT(XROUND(acc));
}

/* accs[0 .. XW) = the sum of accs[0 .. G), the exact sum itself for the
 * host (pp_exact_accumulate; one work-item). */
__kernel void xsum_final(__global long *accs, ulong G)
{
    long acc[XW];
    xmerge_accs(accs, G, acc);
    for (int i = 0; i < XW; i++) accs[i] = acc[i];
}

/* accs[t] = the sum of accs[0 .. t) (exclusive, in place), one work-item
 * per word (global size >= XW): chunks added without carries (each
 * normalized chunk is below 2^32, so 2^31 tiles fit), flags OR'ed, the
 * deposit count 0. The readers normalize. */
__kernel void xscan_accs(__global long *accs, ulong accoff, ulong ntiles)
{
    const uint c = (uint)get_global_id(0);
    if (c >= XW) return;
    accs += accoff;
    long run = 0;
    for (ulong t = 0; t < ntiles; t++) {
        const long v = accs[t * XW + c];
        accs[t * XW + c] = run;
        if (c < XN) run += v;
        else if (c == XN) run |= v;
    }
}

#if PP_XACC_DOUBLE && T_IS_F64
/* The fast sum restarted from the exact one (cpu_exact.inc, xresync_f64). */
ulong xresync(const long *r, double *hi, double *lo, double *err, int *special)
{
    const ulong bits = pp_xacc_bits_f64(r);
    *special = (r[XN] & PP_XACC_SPECIAL) != 0;
    const double h = as_double(bits);
    if (*special || !(h - h == 0.0)) {
        *hi = (double)NAN;
        *lo = *err = 0.0;
        return bits;
    }
    long t[XW];
    for (int i = 0; i < XW; i++) t[i] = r[i];
    pp_xacc_add_exact_double(t, XN, XUNIT, -h);
    *hi = h;
    *lo = as_double(pp_xacc_bits_f64(t));
    *err = fabs(*lo) * 0x1p-52;
    return bits;
}
#elif PP_XACC_DOUBLE
ulong xresync(const long *r, double *s, double *lo, double *err, int *special)
{
    (void)lo;
    *special = (r[XN] & PP_XACC_SPECIAL) != 0;
    *s = pp_xacc_f32_to_double(r);
    *err = fabs(*s) * 0x1p-52;
    return pp_xacc_bits_f32(r);
}
#endif

/* One work-item per tile of S elements: y[i] = the correctly rounded sum of
 * the tile's prefix pre[t] (and ini[0] where has_init: pp_scan_init) and
 * x[tile start .. i] (exclusive: .. i-1; y[0]: +0.0, or ini[0] itself). */
__kernel void xscan_tiles(__global const T *x, ulong xoff, __global T *y, ulong n, ulong S, __global const long *pre,
                          ulong preoff, uint excl, __global const T *ini, uint has_init)
{
    x += xoff;
    pre += preoff;
    const ulong ntiles = n / S + (n % S != 0);
    for (ulong t = get_global_id(0); t < ntiles; t += get_global_size(0)) {
        const ulong lo = t * S, len = n - lo < S ? n - lo : S;
        __global const T *xt = x + lo;
        __global T *yt = y + lo;
        long r[XW];
        for (int i = 0; i < XW; i++) r[i] = pre[t * XW + i];
        if (has_init) XADD(r, XLOAD(ini, 0));
        pp_xacc_normalize(r, XN);
#if PP_XACC_DOUBLE && !XHALF
        ulong pend = 0;
        double hi, lo2, err;
        int special;
        XBITS cur = (XBITS)xresync(r, &hi, &lo2, &err, &special);
        for (ulong i = 0; i < len; i++) {
            const T v = xt[i];
            if (excl) yt[i] = XOUT(cur);
            if (special) {
                XADD(r, PP_BITS(v));
                cur = XROUND(r);
            } else {
#if T_IS_F64
                pp_xacc_dd_add(&hi, &lo2, &err, v);
                const int ok = fabs(lo2) + err < pp_xacc_half_gap_f64(hi);
                const XBITS fast = as_ulong(hi);
#else
                const uint vb = as_uint(v);
                int direct = 0;
                hi += xvalue(vb, &direct); /* never overflows: |s| < 2^128 * n; NaN/inf: direct, the fallback */
                err += fabs(hi) * 0x1p-52;
                const float tf = (float)hi;
                const int ok = !direct && (as_uint(tf) & 0x7f800000u) != 0x7f800000u &&
                               fabs(hi - (double)tf) + err < pp_xacc_half_gap_f32(tf);
                const XBITS fast = as_uint(tf);
#endif
                if (ok) {
                    cur = fast;
                } else {
                    for (ulong j = pend; j <= i; j++) XADD(r, XLOAD(xt, j));
                    pend = i + 1;
                    cur = (XBITS)xresync(r, &hi, &lo2, &err, &special);
                }
            }
            if (!excl) yt[i] = XOUT(cur);
        }
#else
        XBITS cur = XROUND(r);
        for (ulong i = 0; i < len; i++) {
            const XBITS b = XLOAD(xt, i);
            if (excl) yt[i] = XOUT(cur);
            XADD(r, b);
            cur = XROUND(r);
            if (!excl) yt[i] = XOUT(cur);
        }
#endif
        if (excl && t == 0) yt[0] = has_init ? ini[0] : XOUT((XBITS)0); /* init itself, or +0.0 */
    }
}

/* ---- segmented sums (opencl_segmented_exact.c) ---------------------------------------- */
/* Chunks of `chunk` elements cut the segments into pieces. Each offset is
 * clamped to n where it is read, and a segment whose clamped end is below
 * its start is empty, so bad offsets reach nothing out of bounds. */

/* The piece [*pb, ce) within [cb, ce) of the segment that runs on past ce
 * (*pb == ce: none). The binary search reads only off[0 .. nseg]. */
ulong xseg_open_piece(__global const ulong *off, ulong nseg, ulong n, ulong cb, ulong ce)
{
    ulong lo = 0, hi = nseg; /* the first s with offsets[s] >= ce (sorted offsets) */
    while (lo < hi) {
        const ulong mid = lo + (hi - lo) / 2;
        if (min(off[mid], n) < ce) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0 || min(off[lo], n) <= ce) return ce; /* no segment lo - 1 open across ce */
    const ulong b = min(off[lo - 1], n);
    return b >= ce ? ce : b > cb ? b : cb;
}

/* accs[c * XW ..] = the normalized accumulator of the piece in chunk c of
 * the segment that runs on past c's end (all zero where none), c < nopen. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void xseg_open(__global const T *x, ulong n,
                                                                       __global const ulong *off, ulong nseg,
                                                                       ulong chunk, __global long *accs, ulong nopen)
{
    __local XLD ls[L], ls2[L], lm[L], ln[L];
    __local int lf[L];
    __local XBITS lb[L];
    long acc[XW];
    for (ulong c = get_group_id(0); c < nopen; c += get_num_groups(0)) {
        const ulong ce = (c + 1) * chunk, pb = xseg_open_piece(off, nseg, n, c * chunk, ce);
        if (get_local_id(0) == 0) pp_xacc_clear(acc, XN);
        if (pb < ce) xfold_group(x, pb, ce, acc, ls, ls2, lm, ln, lf, lb); /* uniform across the group */
        if (get_local_id(0) == 0) {
            pp_xacc_normalize(acc, XN);
            for (int i = 0; i < XW; i++) accs[c * XW + i] = acc[i];
        }
    }
}

/* out[s] = the rounding of segment s's exact sum (+0.0 if empty), one
 * work-group per segment: its piece in its last chunk folded, the
 * accumulators (xseg_open) of the chunks before that in the segment added. */
__kernel __attribute__((reqd_work_group_size(L, 1, 1))) void xseg_reduce(__global const T *x, ulong n,
                                                                         __global const ulong *off, ulong nseg,
                                                                         ulong chunk, __global const long *accs,
                                                                         __global T *out)
{
    __local XLD ls[L], ls2[L], lm[L], ln[L];
    __local int lf[L];
    __local XBITS lb[L];
    long acc[XW], pre[XW];
    for (ulong s = get_group_id(0); s < nseg; s += get_num_groups(0)) {
        const ulong b = min(off[s], n), e = min(off[s + 1], n);
        if (e <= b) { /* empty (or bad offsets): +0.0, as pp_reduce of n == 0 */
            if (get_local_id(0) == 0) out[s] = XOUT((XBITS)0);
            continue;
        }
        const ulong first = b / chunk, last = (e - 1) / chunk, pb = max(b, last * chunk);
        if (get_local_id(0) == 0) pp_xacc_clear(acc, XN);
        xfold_group(x, pb, e, acc, ls, ls2, lm, ln, lf, lb);
        if (get_local_id(0) == 0) {
            if (first < last) { /* chunks first .. last - 1 < nopen */
                xmerge_accs(accs + first * XW, last - first, pre);
                pp_xacc_merge(acc, pre, XN);
            }
            out[s] = XOUT(XROUND(acc));
        }
    }
}

/* The half types' PP_SUM segmented scan (opencl_segmented_exact.c): one
 * work-item per segment (grid-strided), each element added to its exact
 * accumulator and each output rounded from it, the segments' offsets
 * clamped to n (bad ones: unspecified sums, nothing out of bounds). No
 * barrier: one work-item's loop. In place (x == y): each x[i] is read
 * before y[i] is written. */
__kernel void xseg_scan_items(__global const T *x, __global T *y, ulong n, __global const ulong *off, ulong nseg,
                              uint excl)
{
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0)) {
        const ulong b = min(off[s], n), e = min(off[s + 1], n);
        long acc[XW];
        pp_xacc_clear(acc, XN);
        for (ulong i = b; i < e; i++) {
            const XBITS v = XLOAD(x, i);
            if (excl) y[i] = i == b ? XOUT((XBITS)0) : XOUT(XROUND(acc));
            XADD(acc, v);
            if (!excl) y[i] = XOUT(XROUND(acc));
        }
    }
}
