/* parprim opencl: the sorts' shared head, embedded in front of both sort
 * programs (src/opencl/CMakeLists.txt): sort_scatter.cl (count, scan,
 * scatter: every device) and sort_onesweep.cl (NVIDIA GPUs). The prelude
 * (common.cl) comes first, without a PP_T: keys are handled as their bits,
 * so one program serves every key type of a width.
 *
 * Defines from the host (opencl_sort.c):
 *   PP_KS     key bytes (1, 2, 4, 8); keys are moved as U (uchar ... ulong)
 *   PP_VS     value bytes (0: keys only, 1, 2, 4, 8); values move as V
 *   PP_L      work-group size (a power of two; every kernel requires it)
 *   PP_ITEMS  keys per work-item in a tile; TILE = L * ITEMS <= 32768
 *   PP_OFF64  1: digit counts and offsets are ulong (n >= 2^32), else uint
 *   PP_NAN_LAST  1 (float keys in PP_DESCENDING_NAN_LAST only, where
 *             xmask is all ones): every NaN's radix key is all ones
 *
 * Stable LSD radix sort over 8-bit digits of the radix key (keys themselves
 * are moved unchanged, so NaN payloads survive):
 *   radix(bits) = map(bits) ^ xmask, where map is the identity for integers
 *   and, for floats (is_float), negative -> all bits flipped, else the sign
 *   bit set (so -0.0 < +0.0 < ... < +inf), every NaN -> all ones (after
 *   +inf); xmask (from the host) is the sign bit for signed integers, XOR
 *   all ones for descending order (so NaNs come first). With PP_NAN_LAST
 *   a NaN maps to 0 instead, so its radix key in descending order is all
 *   ones, after every other key. Ascending and descending programs
 *   are built without it, so their kernels are unchanged by it.
 *
 * Here: the types, the control block that places every pass (written by
 * plan or os_plan), the radix key and its digits, the buffers a pass reads
 * and writes, and copy_back, the last launch of both algorithms.
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
#if PP_NAN_LAST
        /* every NaN: 0, all ones after the descending order's XOR: last */
        if ((U)(b & (U)~KEY_SIGN) > (U)FLOAT_INF) r = (U)0;
#else
        if ((U)(b & (U)~KEY_SIGN) > (U)FLOAT_INF) r = (U)~(U)0; /* every NaN: after +inf */
#endif
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
