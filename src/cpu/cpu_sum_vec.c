/* cpu: the vector kernels of sums of 4- and 8-byte elements, the tile scan
 * and the fold of pp_reduce and pp_scan (cpu_reduce_scan.c), AVX-512 or
 * AVX2 where the processor has it, and the plain-C twins of the float scans
 * that do the same additions where it has neither. */
#include "cpu_tiles.h"

/* Sums of 4- and 8-byte elements, a vector of L = 64 / size elements at a
 * time: each vector gets its inclusive prefix in registers (log2(L) steps,
 * lane j adding lane j - k for k = 1, 2, 4, ..., independent of the
 * carry), then the carry is added; the only chain from vector to vector is
 * one add: the carry plus the vector's last prefix lane, broadcast before
 * the carry is known (the template's loop, a
 * chain from element to element, runs far below a copy's rate:
 * bench/studies/cpu-memory-bound.md, "cpu reduce and scan sums with 64-byte vectors,
 * one-pass compaction with streaming stores"). Float sums take this order
 * on every machine: the AVX2 kernels and the plain-C twins scan_sum_f32 /
 * scan_sum_f64 below do the same additions where AVX-512 is missing, so
 * their bits do not depend on the processor.
 * With nt (large outputs), y is written with streaming stores, which do
 * not first read each line from memory as ordinary stores do: a third of
 * the scan's memory traffic. Integer scans reach y's first 64-byte boundary
 * one element at a time; float scans, whose vectors stay where the tile
 * puts them (their bits), stream each line from the two vectors it
 * straddles where y is off its line. x == y is fine. */
/* y[i, end) from carry c, one element at a time (i, c advance). */
#define SCAN_SEQ_(U, x, y, i, end, c, excl) \
    for (; i < (end); i++) {                \
        const U v_ = x[i];                  \
        y[i] = excl ? c : (U)(c + v_);      \
        c = (U)(c + v_);                    \
    }
#define SCAN_LANES_PLAIN_(NAME, U, L)                                                  \
    static void NAME(const void *x_, void *y_, size_t n, uint64_t cb, int excl)        \
    {                                                                                  \
        const U *x = (const U *)x_;                                                    \
        U *y = (U *)y_, c;                                                             \
        memcpy(&c, &cb, sizeof c);                                                     \
        size_t i = 0;                                                                  \
        for (; i + L <= n; i += L) {                                                   \
            U v[L];                                                                    \
            memcpy(v, x + i, sizeof v);                                                \
            for (int k = 1; k < L; k *= 2)                                             \
                for (int j = L - 1; j >= k; j--) v[j] = v[j] + v[j - k];               \
            for (int j = L - 1; j > 0; j--) y[i + j] = excl ? c + v[j - 1] : c + v[j]; \
            y[i] = excl ? c : c + v[0];                                                \
            c = c + v[L - 1];                                                          \
        }                                                                              \
        SCAN_SEQ_(U, x, y, i, n, c, excl)                                              \
    }
SCAN_LANES_PLAIN_(scan_sum_f32, float, 16)
SCAN_LANES_PLAIN_(scan_sum_f64, double, 8)

#if PP_CPU_HAVE_AVX512
/* One scan loop for both vector widths: a 64-byte vector V of L = 64 / W
 * elements is one __m512i (AVX-512) or two __m256i (AVX2). The operations
 * a width supplies, with ATTR its target attribute:
 *   LOAD(p), STORE(p, v), STREAM(p, v), SET1(bits of U)    64 bytes
 *   STEPS(v)       v's inclusive prefix in place: the log2(L) steps, lane j
 *                  adding lane j - k for k = 1, 2, 4, ...; lanes j < k
 *                  masked (AVX-512) or adding the sum's identity (AVX2:
 *                  0, or -0.0 for floats, as x + -0.0 is x bit for bit)
 *   ADD(v, c)      lane-wise sum
 *   EXCL(inc, c)   the exclusive form: c's lane, inc's lanes 0 .. L-2
 *   LAST(v)        v's lane L-1 in every lane; the next carry is
 *                  LAST(v) + c, the bits of inc's last lane, so the chain
 *                  from vector to vector is one add (not an add and a
 *                  permute)
 *   LOW(c)         the low 16 bytes of c, to read lane 0 from
 *   RS, RS_INIT(s), RS_LINE(prev, o, rs)   streaming a float scan to a y
 *                  that is not 64-byte aligned: RS_INIT takes y's offset
 *                  past its line in 4-byte lanes (s, 1 .. 15); RS_LINE(prev,
 *                  o, rs) is the aligned line that ends s lanes into o
 *                  (prev's last s lanes, then o's first 16 - s)
 * The same additions in the same order for both widths and for the plain
 * twins above, so a float scan's bits do not depend on the processor.
 * Each vector is loaded one iteration ahead, before the previous vector's
 * store: where y lies up to 64 bytes past x modulo 4096, that store's
 * address matches the next load's in the bits the processor compares first,
 * and a load after it waits for the store's data (the whole chain of a
 * float vector's prefix) before it may run. */
#define SCAN_SUM_VEC_(NAME, ATTR, V, U, W, FLT, LOAD, STORE, STREAM, SET1, STEPS, ADD, EXCL, LAST, LOW, RS, RS_INIT, \
                      RS_LINE)                                                                                       \
    ATTR static inline void NAME##_body(const void *x_, void *y_, size_t n, uint64_t cb, int excl, int nt)           \
    {                                                                                                                \
        enum { L = 64 / W };                                                                                         \
        const U *x = (const U *)x_;                                                                                  \
        U *y = (U *)y_, carry;                                                                                       \
        memcpy(&carry, &cb, sizeof carry);                                                                           \
        size_t i = 0;                                                                                                \
        if (nt && !FLT) { /* integers: plain up to the first 64-byte boundary of y */                                \
            size_t h = ((64u - ((uintptr_t)y & 63u)) & 63u) / W;                                                     \
            SCAN_SEQ_(U, x, y, i, h < n ? h : n, carry, excl)                                                        \
        }                                                                                                            \
        /* floats keep their vectors where the tile puts them: with y off its                                        \
         * line (shift), the first vector is stored plainly, each line that                                          \
         * two vectors straddle is streamed from both, the last vector plainly */                                    \
        const unsigned off = (unsigned)((uintptr_t)(y + i) & 63u);                                                   \
        const int shift = nt && FLT && off && !(off & 3u);                                                           \
        const RS rs = RS_INIT(shift ? off / 4 : 1);                                                                  \
        nt = nt && !off;                                                                                             \
        V c = SET1(carry), prev = c, next = c;                                                                       \
        if (i + L <= n) next = LOAD(x + i);                                                                          \
        for (const size_t i0 = i; i + L <= n; i += L) {                                                              \
            V v = next;                                                                                              \
            if (i + 2 * L <= n) next = LOAD(x + i + L); /* before this vector's store */                             \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                                                   \
            STEPS(v);                                                                                                \
            const V inc = ADD(v, c), o = excl ? EXCL(inc, c) : inc;                                                  \
            if (nt)                                                                                                  \
                STREAM(y + i, o);                                                                                    \
            else if (shift && i != i0)                                                                               \
                STREAM((char *)(y + i) - off, RS_LINE(prev, o, rs));                                                 \
            else                                                                                                     \
                STORE(y + i, o);                                                                                     \
            prev = o;                                                                                                \
            c = ADD(LAST(v), c);                                                                                     \
        }                                                                                                            \
        if (shift && i >= 2 * L) STORE(y + i - L, prev);                                                             \
        if (nt || shift) _mm_sfence();                                                                               \
        unsigned char lo_[16];                                                                                       \
        _mm_storeu_si128((__m128i *)(void *)lo_, LOW(c));                                                            \
        memcpy(&carry, lo_, sizeof carry);                                                                           \
        SCAN_SEQ_(U, x, y, i, n, carry, excl)                                                                        \
    }                                                                                                                \
    ATTR static void NAME(const void *x, void *y, size_t n, uint64_t cb, int excl)                                   \
    {                                                                                                                \
        NAME##_body(x, y, n, cb, excl, 0);                                                                           \
    }                                                                                                                \
    ATTR static void NAME##_nt(const void *x, void *y, size_t n, uint64_t cb, int excl)                              \
    {                                                                                                                \
        NAME##_body(x, y, n, cb, excl, 1);                                                                           \
    }
static inline uint32_t f32_bits_(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline uint64_t f64_bits_(double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* The scan's loads keep the loaded vector in a register (an empty asm that
 * the compiler must assume changes it): without that, GCC reads x again for
 * every instruction that uses the vector (each with a memory operand: two
 * reads of every line, the float kernels' alignr and masked add, the AVX2
 * permute and add), and the float scans ran at two thirds of the integer
 * ones' rate from memory (bench/studies/cpu-avx2.md). */
#define IN_REG512_(v) __asm__("" : "+v"(v))
#define IN_REG256_(v) __asm__("" : "+x"(v))
PP_CPU_AVX512 static inline __m512i ld512_(const void *p)
{
    __m512i v = _mm512_loadu_si512(p);
    IN_REG512_(v);
    return v;
}

/* ---- AVX-512: V = __m512i */
#define LD512_(p) ld512_((const void *)(p))
#define ST512_(p, v) _mm512_storeu_si512((void *)(p), v)
#define NT512_(p, v) _mm512_stream_si512((__m512i *)(void *)(p), v)
#define LOW512_(c) _mm512_castsi512_si128(c)
#define SET1_4_(v) _mm512_set1_epi32((int)(v))
#define SET1_8_(v) _mm512_set1_epi64((long long)(v))
#define SET1_F4_(v) _mm512_set1_epi32((int)f32_bits_(v))
#define SET1_F8_(v) _mm512_set1_epi64((long long)f64_bits_(v))
#define EXCL_4_(inc, c) _mm512_alignr_epi32(inc, c, 15)
#define EXCL_8_(inc, c) _mm512_alignr_epi64(inc, c, 7)
#define LAST_4_(inc) _mm512_permutexvar_epi32(_mm512_set1_epi32(15), inc)
#define LAST_8_(inc) _mm512_permutexvar_epi64(_mm512_set1_epi64(7), inc)
#define ADD_F4_(a, b) _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b)))
#define ADD_F8_(a, b) _mm512_castpd_si512(_mm512_add_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b)))
#define ZERO512_ _mm512_setzero_si512()
#define STEP_I4_(v, k) _mm512_add_epi32(v, _mm512_alignr_epi32(v, ZERO512_, 16 - (k)))
#define STEP_I8_(v, k) _mm512_add_epi64(v, _mm512_alignr_epi64(v, ZERO512_, 8 - (k)))
#define STEP_F4_(v, k)                                                                          \
    _mm512_castps_si512(_mm512_mask_add_ps(_mm512_castsi512_ps(v), (__mmask16)(0xffffu << (k)), \
                                           _mm512_castsi512_ps(v),                              \
                                           _mm512_castsi512_ps(_mm512_alignr_epi32(v, ZERO512_, 16 - (k)))))
#define STEP_F8_(v, k)                                                                                               \
    _mm512_castpd_si512(_mm512_mask_add_pd(_mm512_castsi512_pd(v), (__mmask8)(0xffu << (k)), _mm512_castsi512_pd(v), \
                                           _mm512_castsi512_pd(_mm512_alignr_epi64(v, ZERO512_, 8 - (k)))))
#define STEPS_I4_(v) (v = STEP_I4_(v, 1), v = STEP_I4_(v, 2), v = STEP_I4_(v, 4), v = STEP_I4_(v, 8))
#define STEPS_I8_(v) (v = STEP_I8_(v, 1), v = STEP_I8_(v, 2), v = STEP_I8_(v, 4))
#define STEPS_F4_(v) (v = STEP_F4_(v, 1), v = STEP_F4_(v, 2), v = STEP_F4_(v, 4), v = STEP_F4_(v, 8))
#define STEPS_F8_(v) (v = STEP_F8_(v, 1), v = STEP_F8_(v, 2), v = STEP_F8_(v, 4))
/* The line of 16 lanes from lane 16 - s of prev on (prev's last s lanes,
 * o's first 16 - s): one two-register permute by the index set once. */
PP_CPU_AVX512 static inline __m512i rs512_init(unsigned s)
{
    return _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                            _mm512_set1_epi32((int)(16 - s)));
}
PP_CPU_AVX512 static inline __m512i rs512_line(__m512i prev, __m512i o, __m512i idx)
{
    return _mm512_permutex2var_epi32(prev, idx, o);
}
#define SCAN512_(NAME, U, W, FLT, SET1, STEPS, ADD, EXCL, LAST)                                                  \
    SCAN_SUM_VEC_(NAME, PP_CPU_AVX512, __m512i, U, W, FLT, LD512_, ST512_, NT512_, SET1, STEPS, ADD, EXCL, LAST, \
                  LOW512_, __m512i, rs512_init, rs512_line)
SCAN512_(scan_sum_4, uint32_t, 4, 0, SET1_4_, STEPS_I4_, _mm512_add_epi32, EXCL_4_, LAST_4_)
SCAN512_(scan_sum_8, uint64_t, 8, 0, SET1_8_, STEPS_I8_, _mm512_add_epi64, EXCL_8_, LAST_8_)
SCAN512_(scan_sum_f4, float, 4, 1, SET1_F4_, STEPS_F4_, ADD_F4_, EXCL_4_, LAST_4_)
SCAN512_(scan_sum_f8, double, 8, 1, SET1_F8_, STEPS_F8_, ADD_F8_, EXCL_8_, LAST_8_)

/* ---- AVX2: V = v2x (lanes 0 .. L/2-1 in lo). Shifts move 32-bit lanes
 * (an 8-byte element is two); E is the element's count of them. */
typedef struct v2x {
    __m256i lo, hi;
} v2x;
PP_CPU_AVX2 static inline v2x v2_load(const void *p)
{
    v2x v = {_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)p + 1)};
    IN_REG256_(v.lo);
    IN_REG256_(v.hi);
    return v;
}
PP_CPU_AVX2 static inline void v2_store(void *p, v2x v)
{
    _mm256_storeu_si256((__m256i *)p, v.lo);
    _mm256_storeu_si256((__m256i *)p + 1, v.hi);
}
PP_CPU_AVX2 static inline void v2_stream(void *p, v2x v)
{
    _mm256_stream_si256((__m256i *)p, v.lo);
    _mm256_stream_si256((__m256i *)p + 1, v.hi);
}
PP_CPU_AVX2 static inline v2x v2_set1(__m256i c)
{
    v2x v = {c, c};
    return v;
}
/* Lanes (32-bit) of r rotated up by s (< 8): lane j gets lane j - s mod 8. */
#define V2_ROT_(r, s)                                                                                     \
    _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(-(s)&7, (1 - (s)) & 7, (2 - (s)) & 7, (3 - (s)) & 7, \
                                                     (4 - (s)) & 7, (5 - (s)) & 7, (6 - (s)) & 7, (7 - (s)) & 7))
/* v moved up by s lanes across both registers (lanes 8 - s .. 7 of lo into
 * hi's lanes 0 .. s-1), lanes 0 .. s-1 of lo from fill. */
#define V2_UP_(v, s, fill, lo_out, hi_out)                                \
    do {                                                                  \
        const __m256i rl_ = V2_ROT_((v).lo, s), rh_ = V2_ROT_((v).hi, s); \
        lo_out = _mm256_blend_epi32(rl_, fill, (1 << (s)) - 1);           \
        hi_out = _mm256_blend_epi32(rh_, rl_, (1 << (s)) - 1);            \
    } while (0)
/* One step of the prefix: lanes j >= s add lane j - s, lanes below add
 * the identity id. */
#define V2_STEP_(v, s, ADD, id)   \
    do {                          \
        __m256i l_, h_;           \
        V2_UP_(v, s, id, l_, h_); \
        (v).lo = ADD((v).lo, l_); \
        (v).hi = ADD((v).hi, h_); \
    } while (0)
#define V2_ADDF4_(a, b) _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)))
#define V2_ADDF8_(a, b) _mm256_castpd_si256(_mm256_add_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b)))
/* The ops of elements of E 32-bit lanes: the steps k = 1, 2, (4 for
 * E = 1) elements, then k = L/2, which is hi += lo. */
#define V2_OPS_(S, E, ADD, ID, SET1)                                                                               \
    PP_CPU_AVX2 static inline v2x v2_add_##S(v2x a, v2x c)                                                         \
    {                                                                                                              \
        v2x r = {ADD(a.lo, c.lo), ADD(a.hi, c.lo)};                                                                \
        return r;                                                                                                  \
    }                                                                                                              \
    PP_CPU_AVX2 static inline void v2_steps_##S(v2x *v)                                                            \
    {                                                                                                              \
        const __m256i id = ID;                                                                                     \
        V2_STEP_(*v, E, ADD, id);                                                                                  \
        V2_STEP_(*v, 2 * (E), ADD, id);                                                                            \
        if ((E) == 1) V2_STEP_(*v, 4, ADD, id);                                                                    \
        v->hi = ADD(v->hi, v->lo);                                                                                 \
    }                                                                                                              \
    PP_CPU_AVX2 static inline v2x v2_excl_##S(v2x inc, v2x c)                                                      \
    {                                                                                                              \
        v2x r;                                                                                                     \
        V2_UP_(inc, E, c.lo, r.lo, r.hi);                                                                          \
        return r;                                                                                                  \
    }                                                                                                              \
    PP_CPU_AVX2 static inline v2x v2_last_##S(v2x inc)                                                             \
    {                                                                                                              \
        return v2_set1(_mm256_permutevar8x32_epi32(inc.hi, (E) == 1 ? _mm256_set1_epi32(7)                         \
                                                                    : _mm256_setr_epi32(6, 7, 6, 7, 6, 7, 6, 7))); \
    }                                                                                                              \
    PP_CPU_AVX2 static inline v2x v2_set1_##S(uint64_t bits) { return v2_set1(SET1(bits)); }
#define V2_SET1_4_(b) _mm256_set1_epi32((int)(uint32_t)(b))
#define V2_SET1_8_(b) _mm256_set1_epi64x((long long)(b))
V2_OPS_(4, 1, _mm256_add_epi32, _mm256_setzero_si256(), V2_SET1_4_)
V2_OPS_(8, 2, _mm256_add_epi64, _mm256_setzero_si256(), V2_SET1_8_)
V2_OPS_(f4, 1, V2_ADDF4_, _mm256_set1_epi32((int)0x80000000u), V2_SET1_4_)
V2_OPS_(f8, 2, V2_ADDF8_, _mm256_set1_epi64x((long long)0x8000000000000000ull), V2_SET1_8_)
#define V2_LOW_(c) _mm256_castsi256_si128((c).lo)
/* The AVX2 line from lane 16 - s of (prev.lo, prev.hi, o.lo, o.hi) on: the
 * registers from q = (16 - s) / 8 on, each half the lanes r = (16 - s) % 8
 * up of one register and the lanes below r of the next (a rotation of
 * both, then a blend). */
typedef struct v2_rs {
    __m256i rot, take_next;
    int q;
} v2_rs;
PP_CPU_AVX2 static inline v2_rs v2_rs_init(unsigned s)
{
    const int d = (int)(16 - s), r = d % 8;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), rv = _mm256_set1_epi32(r);
    v2_rs st = {_mm256_and_si256(_mm256_add_epi32(lane, rv), _mm256_set1_epi32(7)),
                _mm256_cmpgt_epi32(_mm256_add_epi32(lane, rv), _mm256_set1_epi32(7)), d / 8};
    return st;
}
PP_CPU_AVX2 static inline __m256i v2_rs_half(__m256i a, __m256i b, const v2_rs *st)
{
    return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(a, st->rot), _mm256_permutevar8x32_epi32(b, st->rot),
                              st->take_next);
}
PP_CPU_AVX2 static inline v2x v2_rs_line(v2x prev, v2x o, v2_rs st)
{
    const __m256i r0 = st.q ? prev.hi : prev.lo, r1 = st.q ? o.lo : prev.hi, r2 = st.q ? o.hi : o.lo;
    v2x line = {v2_rs_half(r0, r1, &st), v2_rs_half(r1, r2, &st)};
    return line;
}
#define SCAN2_(NAME, U, W, FLT, S)                                                                              \
    static inline uint64_t NAME##_bits(U v)                                                                     \
    {                                                                                                           \
        uint64_t b = 0;                                                                                         \
        memcpy(&b, &v, sizeof v);                                                                               \
        return b;                                                                                               \
    }                                                                                                           \
    PP_CPU_AVX2 static inline v2x NAME##_set1(U v) { return v2_set1_##S(NAME##_bits(v)); }                      \
    PP_CPU_AVX2 static inline void NAME##_steps(v2x *v) { v2_steps_##S(v); }                                    \
    SCAN_SUM_VEC_(NAME, PP_CPU_AVX2, v2x, U, W, FLT, v2_load, v2_store, v2_stream, NAME##_set1, NAME##_steps2_, \
                  v2_add_##S, v2_excl_##S, v2_last_##S, V2_LOW_, v2_rs, v2_rs_init, v2_rs_line)
#define scan2_sum_4_steps2_(v) scan2_sum_4_steps(&(v))
#define scan2_sum_8_steps2_(v) scan2_sum_8_steps(&(v))
#define scan2_sum_f4_steps2_(v) scan2_sum_f4_steps(&(v))
#define scan2_sum_f8_steps2_(v) scan2_sum_f8_steps(&(v))
SCAN2_(scan2_sum_4, uint32_t, 4, 0, 4)
SCAN2_(scan2_sum_8, uint64_t, 8, 0, 8)
SCAN2_(scan2_sum_f4, float, 4, 1, f4)
SCAN2_(scan2_sum_f8, double, 8, 1, f8)

/* The fold of sums (the template's fold: PP_LANES accumulators, element
 * i + j into accumulator j, then a fixed tree) with the accumulators in
 * vector registers of VB bytes: the same additions in the same order, so
 * the same bits. (GCC leaves the template's 8-byte folds scalar.) */
#define FOLD_SUM_VEC_(NAME, ATTR, VEC, VB, U, W, ID, LOADU, STOREU, ADD)                        \
    ATTR static uint64_t NAME(const void *x_, size_t n)                                         \
    {                                                                                           \
        enum { L = VB / W, R = PP_LANES / L };                                                  \
        const U *x = (const U *)x_;                                                             \
        U acc[PP_LANES];                                                                        \
        for (int j = 0; j < PP_LANES; j++) acc[j] = ID;                                         \
        VEC a[R];                                                                               \
        for (int r = 0; r < R; r++) a[r] = LOADU((const void *)(acc + r * L));                  \
        size_t i = 0;                                                                           \
        for (; i + PP_LANES <= n; i += PP_LANES) {                                              \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                              \
            for (int r = 0; r < R; r++) a[r] = ADD(a[r], LOADU((const void *)(x + i + r * L))); \
        }                                                                                       \
        for (int r = 0; r < R; r++) STOREU((void *)(acc + r * L), a[r]);                        \
        for (int j = 0; i < n; i++, j++) acc[j] = (U)(acc[j] + x[i]);                           \
        for (int w = PP_LANES / 2; w > 0; w /= 2)                                               \
            for (int j = 0; j < w; j++) acc[j] = (U)(acc[j] + acc[j + w]);                      \
        uint64_t b = 0;                                                                         \
        memcpy(&b, &acc[0], sizeof acc[0]);                                                     \
        return b;                                                                               \
    }
#define FOLD512_(NAME, U, W, ID, ADD) \
    FOLD_SUM_VEC_(NAME, PP_CPU_AVX512, __m512i, 64, U, W, ID, _mm512_loadu_si512, _mm512_storeu_si512, ADD)
#define LD256_(p) _mm256_loadu_si256((const __m256i *)(p))
#define ST256_(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define FOLD256_(NAME, U, W, ID, ADD) FOLD_SUM_VEC_(NAME, PP_CPU_AVX2, __m256i, 32, U, W, ID, LD256_, ST256_, ADD)
FOLD512_(fold_sum_4, uint32_t, 4, 0u, _mm512_add_epi32)
FOLD512_(fold_sum_8, uint64_t, 8, 0u, _mm512_add_epi64)
FOLD512_(fold_sum_f4, float, 4, -0.0f, ADD_F4_)
FOLD512_(fold_sum_f8, double, 8, -0.0, ADD_F8_)
FOLD256_(fold2_sum_4, uint32_t, 4, 0u, _mm256_add_epi32)
FOLD256_(fold2_sum_8, uint64_t, 8, 0u, _mm256_add_epi64)
FOLD256_(fold2_sum_f4, float, 4, -0.0f, V2_ADDF4_)
FOLD256_(fold2_sum_f8, double, 8, -0.0, V2_ADDF8_)
#endif

pp_cpu_scan_fn pp_cpu_scan_sum_of(size_t size, int flt, int nt)
{
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) {
        static const pp_cpu_scan_fn by[2][2][2] = {{{scan_sum_4, scan_sum_4_nt}, {scan_sum_8, scan_sum_8_nt}},
                                                   {{scan_sum_f4, scan_sum_f4_nt}, {scan_sum_f8, scan_sum_f8_nt}}};
        return by[flt][size == 8][nt];
    }
    if (pp_cpu_avx2()) {
        static const pp_cpu_scan_fn by[2][2][2] = {{{scan2_sum_4, scan2_sum_4_nt}, {scan2_sum_8, scan2_sum_8_nt}},
                                                   {{scan2_sum_f4, scan2_sum_f4_nt}, {scan2_sum_f8, scan2_sum_f8_nt}}};
        return by[flt][size == 8][nt];
    }
#else
    (void)nt;
#endif
    if (flt) return size == 4 ? scan_sum_f32 : scan_sum_f64;
    return NULL;
}

pp_cpu_fold_fn pp_cpu_fold_sum_of(size_t size, int flt)
{
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512() || pp_cpu_avx2()) {
        static const pp_cpu_fold_fn by[2][2][2] = {{{fold2_sum_4, fold2_sum_8}, {fold2_sum_f4, fold2_sum_f8}},
                                                   {{fold_sum_4, fold_sum_8}, {fold_sum_f4, fold_sum_f8}}};
        return by[pp_cpu_avx512()][flt][size == 8];
    }
#else
    (void)size, (void)flt;
#endif
    return NULL;
}
