/* The order keys of the half types (PP_F16, PP_BF16), one text for C99
 * (cpu), CUDA and OpenCL C (src/opencl/half.cl is this file followed by
 * its kernels): macros only, on unsigned ints holding the 16 bits h.
 * Both formats have the sign in bit 15, so one key serves both. */
#ifndef PP_HALF_KEY_H
#define PP_HALF_KEY_H

/* The key of the bits h of a value that is not NaN: increasing with the
 * value, -0.0 below +0.0. */
#define PP_HALF_ORDER_KEY(h) (((h)&0x8000u) ? (~(h)&0xffffu) : ((h) | 0x8000u))

/* The u16 sort key of the bits h in order (a pp_order: 0 ascending, 1
 * descending, 2 descending with NaNs last), inf the format's infinity
 * (0x7C00 f16, 0x7F80 bf16; core/half_sort.c): the order key, complemented
 * in the descending orders; every NaN (|h| above inf) gets one key, 0xFFFF
 * (last), or 0 (first) in PP_DESCENDING, so NaNs keep their input order.
 * The other keys lie in [0x03FF, 0xFC00] (f16) or [0x007F, 0xFF80] (bf16):
 * no value shares the NaNs' key. */
#define PP_HALF_SORT_KEY(h, inf, order) \
    (((h)&0x7fffu) > (inf) ? ((order) == 1 ? 0u : 0xffffu) : (PP_HALF_ORDER_KEY(h) ^ ((order) ? 0xffffu : 0u)))

#endif
