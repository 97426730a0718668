/* parprim opencl prelude: prepended to every program (OpenCL C 1.2); the
 * build embeds it after src/core/nv_ptx.h (PTX text shared with the cuda
 * backend).
 *
 * The host passes -DPP_<NAME> defines (opencl_program.h: pp_ocl_def_type,
 * pp_ocl_def_op, pp_ocl_def_cmp); this file maps them to the short names
 * kernels use and defines the operators once, with the semantics of
 * include/parprim.h:
 *
 *   with a type (PP_T):
 *     T, U, W            element type, its unsigned bits type, the unsigned
 *                        type integer arithmetic wraps in (uint or ulong)
 *     T_SIZE, T_BITS, T_KIND (PP_KIND_SINT/UINT/FLOAT), T_IS_SIGNED,
 *     T_IS_FLOAT, T_IS_F64, T_VEC (elements per 16 bytes)
 *     T_MAX_VAL, T_MIN_VAL   largest and smallest value (floats: +-inf)
 *     PP_BITS(x), PP_FROM_BITS(u)   reinterpretation T <-> U
 *     pp_isnan(x)        1 for a float NaN (by its bits), 0 for integers
 *     pp_min(a, b), pp_max(a, b)   floats: NaN if either is NaN, -0.0 < +0.0
 *                        (decided on the bits, so flush-to-zero hardware
 *                        cannot change the result)
 *     pp_order_key(x)    U that orders like x: integers by value, floats by
 *                        -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN
 *     TV                 the 16-byte vector type of T (T_VEC lanes: uint4, char16, ...)
 *     VLOAD(i, p), VSTORE(v, i, p)   vload/vstore<T_VEC> (p aligned to T only)
 *   with an operator (PP_OP):
 *     OP_SUM ... OP_XOR  1 for the operator
 *     pp_combine(a, b)   a op b; integers wrap; AND/OR/XOR never on floats
 *     OP_NEUTRAL         exact neutral element: -0.0 for a float sum (so
 *                        that -0.0 inputs sum as in sequence)
 *     OP_IDENTITY        what the API writes as "the identity" (+0.0 for a
 *                        float sum)
 *   with a comparison (PP_CMP):
 *     CMP_LT ... CMP_NE  1 for the comparison
 *     pp_compare(x, v)   C's x cmp v (NaN only satisfies NE)
 *   with PP_NV_PTX (NVIDIA GPUs of compute capability 7.0 on; the host
 *   defines it only there: pp_ocl_nv_ptx): warp-level operations in inline
 *   PTX, the block below (nv_same_bit, nv_shfl, nv_shfl_up, nv_syncwarp,
 *   nv_load_relaxed, nv_store_relaxed and their 64-bit twins, nv_red_add64)
 *   always:
 *     PP_HAS_FP64, PP_HAS_INT64_ATOMICS (0/1; extensions enabled when 1)
 *     PP_KIND_SINT 0, PP_KIND_UINT 1, PP_KIND_FLOAT 2
 */
#if PP_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if PP_HAS_INT64_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define PP_KIND_SINT 0
#define PP_KIND_UINT 1
#define PP_KIND_FLOAT 2

#define PP_CAT2_(a, b) a##b
#define PP_CAT(a, b) PP_CAT2_(a, b)

/* ---- the element type ----------------------------------------------------------------------------- */
#ifdef PP_T
#define T PP_T
#define U PP_U
#define W PP_W
#define T_SIZE PP_T_SIZE
#define T_BITS (8 * PP_T_SIZE)
#define T_KIND PP_T_KIND
#define T_IS_SIGNED (PP_T_KIND == PP_KIND_SINT)
#define T_IS_FLOAT (PP_T_KIND == PP_KIND_FLOAT)
#define T_IS_F64 (PP_T_KIND == PP_KIND_FLOAT && PP_T_SIZE == 8)
#define T_VEC PP_T_VEC
#define TV PP_CAT(T, PP_T_VEC)
#define VLOAD(i, p) PP_CAT(vload, PP_T_VEC)((i), (p))
#define VSTORE(v, i, p) PP_CAT(vstore, PP_T_VEC)((v), (i), (p))

#define PP_SIGN_BIT ((U)1 << (T_BITS - 1))
#define PP_BITS(x) PP_CAT(as_, U)(x)
#define PP_FROM_BITS(u) PP_CAT(as_, T)(u)

#if PP_T_KIND == PP_KIND_FLOAT
#define T_MAX_VAL ((T)INFINITY)
#define T_MIN_VAL ((T)-INFINITY)
#if PP_T_SIZE == 4
#define PP_EXP_MASK ((U)0x7f800000u)
#else
#define PP_EXP_MASK ((U)0x7ff0000000000000ul)
#endif
int pp_isnan(T x) { return (PP_BITS(x) & ~PP_SIGN_BIT) > PP_EXP_MASK; }
U pp_order_key(T x)
{
    U u = PP_BITS(x);
    return (u & PP_SIGN_BIT) ? ~u : (u | PP_SIGN_BIT);
}
/* NaN wins (the left one if both are), then the order of the keys, which
 * puts -0.0 below +0.0; equal bits give a. */
T pp_min(T a, T b)
{
    if (pp_isnan(a)) return a;
    if (pp_isnan(b)) return b;
    return pp_order_key(b) < pp_order_key(a) ? b : a;
}
T pp_max(T a, T b)
{
    if (pp_isnan(a)) return a;
    if (pp_isnan(b)) return b;
    return pp_order_key(b) > pp_order_key(a) ? b : a;
}
#else /* integers */
#if PP_T_KIND == PP_KIND_SINT
#define T_MAX_VAL ((T)((U) ~(U)0 >> 1))
#define T_MIN_VAL ((T)(-T_MAX_VAL - 1))
U pp_order_key(T x) { return (U)x ^ PP_SIGN_BIT; }
#else
#define T_MAX_VAL ((T) ~(T)0)
#define T_MIN_VAL ((T)0)
U pp_order_key(T x) { return (U)x; }
#endif
int pp_isnan(T x) { return (void)x, 0; }
T pp_min(T a, T b) { return b < a ? b : a; }
T pp_max(T a, T b) { return b > a ? b : a; }
#endif
#endif /* PP_T */

/* ---- the operator ----------------------------------------------------------------------------------- */
#if defined(PP_T) && defined(PP_OP)
#define OP PP_OP
#if defined(PP_OP_SUM)
#define OP_SUM 1
#if T_IS_FLOAT
T pp_combine(T a, T b) { return a + b; }
#define OP_NEUTRAL ((T)-0.0f)
#else
T pp_combine(T a, T b) { return (T)((W)a + (W)b); }
#define OP_NEUTRAL ((T)0)
#endif
#define OP_IDENTITY ((T)0)
#elif defined(PP_OP_PROD)
#define OP_PROD 1
#if T_IS_FLOAT
T pp_combine(T a, T b) { return a * b; }
#else
T pp_combine(T a, T b) { return (T)((W)a * (W)b); }
#endif
#define OP_NEUTRAL ((T)1)
#define OP_IDENTITY ((T)1)
#elif defined(PP_OP_MIN)
#define OP_MIN 1
T pp_combine(T a, T b) { return pp_min(a, b); }
#define OP_NEUTRAL T_MAX_VAL
#define OP_IDENTITY T_MAX_VAL
#elif defined(PP_OP_MAX)
#define OP_MAX 1
T pp_combine(T a, T b) { return pp_max(a, b); }
#define OP_NEUTRAL T_MIN_VAL
#define OP_IDENTITY T_MIN_VAL
#elif defined(PP_OP_AND) || defined(PP_OP_OR) || defined(PP_OP_XOR)
#if T_IS_FLOAT
#error "parprim: bitwise operators are not defined on floats"
#endif
#if defined(PP_OP_AND)
#define OP_AND 1
T pp_combine(T a, T b) { return a & b; }
#define OP_NEUTRAL ((T) ~(U)0)
#elif defined(PP_OP_OR)
#define OP_OR 1
T pp_combine(T a, T b) { return a | b; }
#define OP_NEUTRAL ((T)0)
#else
#define OP_XOR 1
T pp_combine(T a, T b) { return a ^ b; }
#define OP_NEUTRAL ((T)0)
#endif
#define OP_IDENTITY OP_NEUTRAL
#else
#error "parprim: PP_OP without one of PP_OP_SUM ... PP_OP_XOR"
#endif
#endif /* PP_OP */

/* ---- the comparison ------------------------------------------------------------------------------------- */
#if defined(PP_T) && defined(PP_CMP)
#define CMP PP_CMP
#if defined(PP_CMP_LT)
#define CMP_LT 1
int pp_compare(T x, T v) { return x < v; }
#elif defined(PP_CMP_LE)
#define CMP_LE 1
int pp_compare(T x, T v) { return x <= v; }
#elif defined(PP_CMP_GT)
#define CMP_GT 1
int pp_compare(T x, T v) { return x > v; }
#elif defined(PP_CMP_GE)
#define CMP_GE 1
int pp_compare(T x, T v) { return x >= v; }
#elif defined(PP_CMP_EQ)
#define CMP_EQ 1
int pp_compare(T x, T v) { return x == v; }
#elif defined(PP_CMP_NE)
#define CMP_NE 1
int pp_compare(T x, T v) { return x != v; }
#else
#error "parprim: PP_CMP without one of PP_CMP_LT ... PP_CMP_NE"
#endif
#endif /* PP_CMP */

/* ---- warp level, NVIDIA only (PP_NV_PTX) ------------------------------------------------------------
 * OpenCL 1.2 on NVIDIA GPUs has no sub-group functions, but its compiler
 * takes inline PTX. A warp is 32 consecutive work-items of a 1-D work-group
 * (local ids 32w .. 32w + 31), lane = local id % 32. The *_sync operations
 * name all 32 lanes: every lane of the warp must reach them together. */
#if PP_NV_PTX
/* For helpers that take a work-item's private arrays: inlined, so that
 * those stay in registers. */
#define NV_INLINE __attribute__((always_inline))
/* The lanes whose w has the bit(s) `bit` set exactly when this lane's has. */
uint nv_same_bit(uint w, uint bit)
{
    uint r;
    asm volatile(PP_PTX_SAME_BIT : "=r"(r) : "r"(w), "r"(bit));
    return r;
}
/* v of lane src. */
uint nv_shfl(uint v, uint src)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src));
    return r;
}
/* v of lane (this lane - delta); this lane's own v where that is below 0. */
uint nv_shfl_up(uint v, uint delta)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
    return r;
}
/* Orders the warp's local-memory accesses before it against those after. */
void nv_syncwarp(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
/* Strong relaxed accesses at device scope, for words that carry their own
 * payload (a reader sees 0 or a whole published word, never a torn or a
 * stale cached one): look-back status words between work-groups. */
#define NV_RELAXED_(T, SUFFIX, C, LOAD, STORE)                                                            \
    T nv_load_relaxed##SUFFIX(__global const T *p)                                                          \
    {                                                                                                       \
        T v;                                                                                                \
        asm volatile(LOAD : "=" C(v) : "l"((ulong)p) : "memory");                                           \
        return v;                                                                                           \
    }                                                                                                       \
    void nv_store_relaxed##SUFFIX(__global T *p, T v) { asm volatile(STORE ::"l"((ulong)p), C(v) : "memory"); }
NV_RELAXED_(uint, , "r", PP_PTX_LD_RELAXED_U32, PP_PTX_ST_RELAXED_U32)
NV_RELAXED_(ulong, 64, "l", PP_PTX_LD_RELAXED_U64, PP_PTX_ST_RELAXED_U64)
/* *p += v at device scope, no result (the hardware's 64-bit reduction; no
 * cl_khr_int64_base_atomics needed). */
void nv_red_add64(__global ulong *p, ulong v)
{
    asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"((ulong)p), "l"(v) : "memory");
}
#endif /* PP_NV_PTX */

/* ---- from here on: the program ---------------------------------------------------------------------------- */
