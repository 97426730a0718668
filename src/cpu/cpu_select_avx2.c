/* cpu compaction's AVX2 kernels: the twins of the AVX-512 ones in
 * cpu_select.c for processors without AVX-512 (or PARPRIM_CPU_NO_AVX512),
 * elements of 4 and 8 bytes, 32 bytes at a time, the same output bytes.
 *
 * A vector's lanes are seen as 8 lanes of 4 bytes (an 8-byte element is two
 * of them), and every mask is one of those 8 lanes: a compare's movemask,
 * or the flags' nonzero bytes (each doubled for 8-byte elements). The
 * selected lanes are moved to the low end by a permutation from a table
 * indexed by the mask, and stored whole (32 bytes) into a staging buffer
 * that advances by the selected bytes; AVX2 has no masked store that is
 * cheap, and what lies past the selected lanes is overwritten by the next
 * store. The staging buffer goes to the output every V2_STAGE bytes and at
 * the end of the range: with streaming stores of whole lines for large
 * outputs (pp_cpu_copy_stream), else a plain copy; so nothing outside the
 * range's own output bytes is written. */
#include "cpu_select.h"

#if PP_CPU_HAVE_AVX512

/* perm[m]: the positions of the set bits of the 8-bit mask m in increasing
 * order, one byte each (the rest 0): lane r of the permuted vector is
 * source lane perm[m] byte r. Built by the compiler. */
#define PERM_BIT_(m, j) (((m) >> (j)&1u) ? (uint64_t)(j) << (8 * __builtin_popcount((m) & ((1u << (j)) - 1u))) : 0u)
#define PERM_(m)                                                                                                 \
    (PERM_BIT_(m, 0) | PERM_BIT_(m, 1) | PERM_BIT_(m, 2) | PERM_BIT_(m, 3) | PERM_BIT_(m, 4) | PERM_BIT_(m, 5) | \
     PERM_BIT_(m, 6) | PERM_BIT_(m, 7))
#define PERM4_(m) PERM_(m), PERM_((m) + 1u), PERM_((m) + 2u), PERM_((m) + 3u)
#define PERM16_(m) PERM4_(m), PERM4_((m) + 4u), PERM4_((m) + 8u), PERM4_((m) + 12u)
#define PERM64_(m) PERM16_(m), PERM16_((m) + 16u), PERM16_((m) + 32u), PERM16_((m) + 48u)
static const uint64_t perm[256] = {PERM64_(0u), PERM64_(64u), PERM64_(128u), PERM64_(192u)};

/* The staging buffer of one side (selected, or partition's rejected). */
#define V2_STAGE 4096
typedef struct v2_out {
    char *dst;    /* output address of stage[0] */
    unsigned off; /* bytes of stage in use */
    int stream;
    char stage[V2_STAGE + 32] __attribute__((aligned(32)));
} v2_out;

/* The first `bytes` of the stage to the output. */
static void v2_copy(v2_out *o, unsigned bytes)
{
    if (o->stream)
        pp_cpu_copy_stream(o->dst, o->stage, bytes);
    else
        memcpy(o->dst, o->stage, bytes);
    o->dst += bytes;
}

/* Appends the 4-byte lanes of m of x. */
PP_CPU_AVX2 static PP_ALWAYS_INLINE void v2_put(v2_out *o, __m256i x, unsigned m)
{
    const __m256i ix = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)perm[m]));
    _mm256_storeu_si256((__m256i *)(void *)(o->stage + o->off), _mm256_permutevar8x32_epi32(x, ix));
    o->off += 4u * (unsigned)__builtin_popcount(m);
    if (o->off >= V2_STAGE) {
        v2_copy(o, V2_STAGE);
        o->off -= V2_STAGE;
        memcpy(o->stage, o->stage + V2_STAGE, 32);
    }
}

/* The 4-byte lane mask of x cmp y (kind, w bytes), as C compares T. */
#define V2_MASK_(c) ((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(c)))
#define V2_PS_(x, y, P) ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(x, y, P)))
#define V2_PD_(x, y, P) ((unsigned)_mm256_movemask_ps(_mm256_castpd_ps(_mm256_cmp_pd(x, y, P))))
#define V2_FLOAT_CMP_(F, x, y, mc) \
    VEC_CMP_(F, x, y, mc, _CMP_LT_OQ, _CMP_LE_OQ, _CMP_GT_OQ, _CMP_GE_OQ, _CMP_EQ_OQ, _CMP_NEQ_UQ)
PP_CPU_AVX2 static PP_ALWAYS_INLINE unsigned v2_cmp(__m256i x, __m256i y, int w, int kind, int mc)
{
    if (kind == PP_KIND_FLOAT) {
        if (w == 4) V2_FLOAT_CMP_(V2_PS_, _mm256_castsi256_ps(x), _mm256_castsi256_ps(y), mc)
        V2_FLOAT_CMP_(V2_PD_, _mm256_castsi256_pd(x), _mm256_castsi256_pd(y), mc)
    }
    if (kind == PP_KIND_UINT && mc != PP_EQ && mc != PP_NE) { /* unsigned order: signed order of x ^ sign bit */
        const __m256i s = w == 4 ? _mm256_set1_epi32(INT32_MIN) : _mm256_set1_epi64x(INT64_MIN);
        x = _mm256_xor_si256(x, s);
        y = _mm256_xor_si256(y, s);
    }
    if (mc == PP_EQ || mc == PP_NE) {
        const unsigned eq = V2_MASK_(w == 4 ? _mm256_cmpeq_epi32(x, y) : _mm256_cmpeq_epi64(x, y));
        return mc == PP_EQ ? eq : eq ^ 0xffu;
    }
    const int less = mc == PP_LT || mc == PP_GE; /* LT = y > x, GE = !(y > x); GT = x > y, LE = !(x > y) */
    const __m256i a = less ? y : x, b = less ? x : y;
    const unsigned gt = V2_MASK_(w == 4 ? _mm256_cmpgt_epi32(a, b) : _mm256_cmpgt_epi64(a, b));
    return mc == PP_LT || mc == PP_GT ? gt : gt ^ 0xffu;
}

/* The 4-byte lane mask of the flags of the vector's elements (8 flags for
 * 4-byte elements, 4 for 8-byte ones, each bit doubled). */
PP_CPU_AVX2 static PP_ALWAYS_INLINE unsigned v2_flags(const uint8_t *f, int w)
{
    uint64_t b = 0;
    memcpy(&b, f, (size_t)(32 / w));
    const unsigned zero =
        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_cvtsi64_si128((long long)b), _mm_setzero_si128()));
    if (w == 4) return ~zero & 0xffu;
    const unsigned m = ~zero & 0xfu;
    return (m & 1u) * 3u | (m & 2u) * 6u | (m & 4u) * 12u | (m & 8u) * 24u;
}

/* The vector at xp (pp: the one an element before, for unique; fp: its
 * flags), live: the 4-byte lanes inside the range. */
PP_CPU_AVX2 static PP_ALWAYS_INLINE void v2_step(const char *xp, const char *pp, const uint8_t *fp, __m256i v,
                                                 unsigned live, int w, int kind, int mc, int mode, size_t *ks,
                                                 size_t *kr, v2_out *os, v2_out *orj)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)xp);
    unsigned m;
    if (mc == MC_FLAG)
        m = v2_flags(fp, w);
    else if (mc == MC_UNIQUE)
        m = v2_cmp(x, _mm256_loadu_si256((const __m256i *)(const void *)pp), w, kind, PP_NE);
    else
        m = v2_cmp(x, v, w, kind, mc);
    m &= live;
    const size_t k = (size_t)__builtin_popcount(m) * 4 / (size_t)w;
    *ks += k;
    if (mode == VEC_COUNT) return;
    v2_put(os, x, m);
    if (mode == VEC_PARTITION) {
        v2_put(orj, x, ~m & live);
        *kr += (size_t)__builtin_popcount(live) * 4 / (size_t)w - k;
    }
}

PP_CPU_AVX2 static PP_ALWAYS_INLINE size_t v2_loop(const select_job *j, size_t b, size_t e, size_t sel, size_t rej,
                                                   int w, int kind, int mc, int mode)
{
    const size_t lanes = (size_t)(32 / w);
    int64_t value = 0;
    memcpy(&value, j->value, (size_t)w);
    const __m256i v = w == 4 ? _mm256_set1_epi32((int32_t)value) : _mm256_set1_epi64x(value);
    const char *in = j->in;
    const uint8_t *fl = j->flags;
    size_t ks = sel, kr = rej, i = b;
    if (mc == MC_UNIQUE && b == 0 && e > 0) { /* the first element has no neighbour before it */
        if (mode != VEC_COUNT) memcpy(j->out + ks * w, in, (size_t)w);
        ks++;
        i = 1;
    }
    v2_out os, orj; /* the stages are not cleared: only what was put is copied out */
    os.dst = j->out + ks * w, orj.dst = j->out + kr * w;
    os.off = orj.off = 0;
    os.stream = orj.stream = j->stream;
#define V2_AT_(i)                                                                                                  \
    in + (i)*w, mc == MC_UNIQUE ? in + ((i)-1) * w : NULL, mc == MC_FLAG ? fl + (i) : NULL, v, 0xffu, w, kind, mc, \
        mode, &ks, &kr, &os, &orj
    for (; i + 2 * lanes <= e; i += 2 * lanes) { /* a 64-byte line at a time */
        PP_CPU_PREFETCH(in + i * w + PP_CPU_AHEAD);
        v2_step(V2_AT_(i));
        v2_step(V2_AT_(i + lanes));
    }
    for (; i + lanes <= e; i += lanes) v2_step(V2_AT_(i));
#undef V2_AT_
    if (i < e) { /* the last partial vector, from copies of what lies in the range */
        const size_t r = e - i;
        char xb[32] = {0}, pb[32] = {0};
        uint8_t fb[8] = {0};
        memcpy(xb, in + i * w, r * w);
        if (mc == MC_UNIQUE) memcpy(pb, in + (i - 1) * w, r * w);
        if (mc == MC_FLAG) memcpy(fb, fl + i, r);
        v2_step(xb, pb, fb, v, (1u << (r * w / 4)) - 1, w, kind, mc, mode, &ks, &kr, &os, &orj);
    }
    if (mode != VEC_COUNT) {
        v2_copy(&os, os.off);
        if (mode == VEC_PARTITION) v2_copy(&orj, orj.off);
    }
    return ks - sel;
}

VEC_KERNELS_(PP_CPU_AVX2, vec2, v2_loop)

vec_kernel pp_cpu_select_avx2(pp_type type) { return pp_cpu_avx2() ? vec2_of(type) : NULL; }

#endif
