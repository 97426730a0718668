/* cpu reduce and scan.
 *
 * Reduce (PP_ALGO_AUTO): the input is cut into fixed blocks of PP_RB
 * elements; each block is folded with PP_LANES independent accumulators
 * (which the compiler turns into SIMD) and a fixed lane tree. Threads claim
 * blocks one at a time; the block results are folded left to right. The
 * combination order depends only on n, so float results do not change with
 * the thread count.
 *
 * Scan (PP_ALGO_AUTO): fixed tiles of PP_ST elements, claimed one at a time
 * by the threads (cpu_tiles.h): a thread folds its tile (first read), gets
 * the tile's prefix from a look-back that never waits for another thread,
 * and scans the tile from it (second read, from cache): sums of 4- and
 * 8-byte elements a 64-byte vector at a time (scan_sum_*, AVX-512 or AVX2
 * where the processor has it, the same additions in plain C for floats
 * where not),
 * other types and operators PP_GROUP elements at a time. Main memory sees
 * one read and one write per element (large outputs of the vector sums:
 * streaming stores, so no read of the output's lines either). Tiles,
 * vectors, groups and the prefix chain are fixed, so float results depend
 * only on the input, not on the thread count, the processor or on which
 * thread ran what.
 *
 * PP_ALGO_REDUCE_THEN_SCAN: the same tiles in three phases with a join
 * between them: every tile's fold, an exclusive scan of the folds on one
 * thread, every tile scanned from its prefix. The input is read twice from
 * memory and no tile reads another's state: the textbook form, for study
 * and comparison. Deterministic too (fixed tiles, folds left to right).
 *
 * PP_ALGO_SEQUENTIAL: the plain one-thread loops.
 *
 * The per-type kernels (fold, tile scan, combine) are the template
 * cpu_reduce_scan.inc, instantiated for every type and operator of the
 * lists (cpu_instances.h); the orchestration is plain C over their table.
 */
#include "cpu_tiles.h"

#include <omp.h>

#define PP_LANES 16
#define PP_GROUP 8   /* scan group within a tile */

typedef struct rs_kernels {
    size_t size;
    uint64_t (*identity)(void);                            /* the accumulator's start */
    uint64_t (*combine)(uint64_t a, uint64_t b);
    uint64_t (*fold)(const void *x, size_t n);             /* n >= 1 */
    void (*scan)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*reduce_seq)(const void *x, size_t n, void *out);
    void (*scan_seq)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);
    void (*public_identity)(void *out);                    /* what n == 0 writes, and exclusive out[0] */
} rs_kernels;

#define PP_CPU_TEMPLATE "cpu_reduce_scan.inc"
#define PP_CPU_EACH_OP
#include "cpu_each_type.inc"

/* The table: the X-macro of types.h over the names the template defined. */
#define RS_ENTRY(E, T, S, K, OE, O)                                                                   \
    [E][OE] = {sizeof(T), identity_##S##_##O, combine_##S##_##O, fold_##S##_##O, scan_##S##_##O, reduce_seq_##S##_##O, \
               scan_seq_##S##_##O, public_id_##S##_##O},
static const rs_kernels rs_table[PP_TYPE_COUNT][PP_OP_COUNT] = {PP_FOR_EACH_TYPE_OP(RS_ENTRY)};

static const rs_kernels *kernels(pp_type type, pp_op op) { return &rs_table[type][op]; }

/* ---- vector kernels of sums ------------------------------------------------------ */


typedef void (*scan_fn)(const void *x, void *y, size_t n, uint64_t carry, int exclusive);

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
 * With nt (large outputs, y 64-byte aligned), y is written with streaming
 * stores, which do not first read each line from memory as ordinary stores
 * do: a third of the scan's memory traffic. x == y is fine. */
/* y[i, end) from carry c, one element at a time (i, c advance). */
#define SCAN_SEQ_(U, x, y, i, end, c, excl)                                                              \
    for (; i < (end); i++) {                                                                             \
        const U v_ = x[i];                                                                               \
        y[i] = excl ? c : (U)(c + v_);                                                                   \
        c = (U)(c + v_);                                                                                 \
    }
#define SCAN_LANES_PLAIN_(NAME, U, L)                                                                    \
    static void NAME(const void *x_, void *y_, size_t n, uint64_t cb, int excl)                          \
    {                                                                                                    \
        const U *x = (const U *)x_;                                                                      \
        U *y = (U *)y_, c;                                                                               \
        memcpy(&c, &cb, sizeof c);                                                                       \
        size_t i = 0;                                                                                    \
        for (; i + L <= n; i += L) {                                                                     \
            U v[L];                                                                                      \
            memcpy(v, x + i, sizeof v);                                                                  \
            for (int k = 1; k < L; k *= 2)                                                               \
                for (int j = L - 1; j >= k; j--) v[j] = v[j] + v[j - k];                                 \
            for (int j = L - 1; j > 0; j--) y[i + j] = excl ? c + v[j - 1] : c + v[j];                   \
            y[i] = excl ? c : c + v[0];                                                                  \
            c = c + v[L - 1];                                                                            \
        }                                                                                                \
        SCAN_SEQ_(U, x, y, i, n, c, excl)                                                                \
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
 * The same additions in the same order for both widths and for the plain
 * twins above, so a float scan's bits do not depend on the processor. */
#define SCAN_SUM_VEC_(NAME, ATTR, V, U, W, FLT, LOAD, STORE, STREAM, SET1, STEPS, ADD, EXCL, LAST, LOW)    \
    ATTR static inline void NAME##_body(const void *x_, void *y_, size_t n, uint64_t cb, int excl, int nt) \
    {                                                                                                      \
        enum { L = 64 / W };                                                                               \
        const U *x = (const U *)x_;                                                                        \
        U *y = (U *)y_, carry;                                                                             \
        memcpy(&carry, &cb, sizeof carry);                                                                 \
        size_t i = 0;                                                                                      \
        if (nt && !FLT) { /* integers: plain up to the first 64-byte boundary of y */                      \
            size_t h = ((64u - ((uintptr_t)y & 63u)) & 63u) / W;                                           \
            SCAN_SEQ_(U, x, y, i, h < n ? h : n, carry, excl)                                              \
        }                                                                                                  \
        nt = nt && !((uintptr_t)(y + i) & 63u);                                                            \
        V c = SET1(carry);                                                                                 \
        for (; i + L <= n; i += L) {                                                                       \
            V v = LOAD(x + i);                                                                             \
            PP_CPU_PREFETCH((const char *)(x + i) + PP_CPU_AHEAD);                                         \
            STEPS(v);                                                                                      \
            const V inc = ADD(v, c), o = excl ? EXCL(inc, c) : inc;                                        \
            if (nt)                                                                                        \
                STREAM(y + i, o);                                                                          \
            else                                                                                           \
                STORE(y + i, o);                                                                           \
            c = ADD(LAST(v), c);                                                                           \
        }                                                                                                  \
        if (nt) _mm_sfence();                                                                              \
        unsigned char lo_[16];                                                                             \
        _mm_storeu_si128((__m128i *)(void *)lo_, LOW(c));                                                  \
        memcpy(&carry, lo_, sizeof carry);                                                                 \
        SCAN_SEQ_(U, x, y, i, n, carry, excl)                                                              \
    }                                                                                                      \
    ATTR static void NAME(const void *x, void *y, size_t n, uint64_t cb, int excl)                         \
    {                                                                                                      \
        NAME##_body(x, y, n, cb, excl, 0);                                                                 \
    }                                                                                                      \
    ATTR static void NAME##_nt(const void *x, void *y, size_t n, uint64_t cb, int excl)                    \
    {                                                                                                      \
        NAME##_body(x, y, n, cb, excl, 1);                                                                 \
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

/* ---- AVX-512: V = __m512i */
#define LD512_(p) _mm512_loadu_si512((const void *)(p))
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
#define SCAN512_(NAME, U, W, FLT, SET1, STEPS, ADD, EXCL, LAST)                                                  \
    SCAN_SUM_VEC_(NAME, PP_CPU_AVX512, __m512i, U, W, FLT, LD512_, ST512_, NT512_, SET1, STEPS, ADD, EXCL, LAST, \
                  LOW512_)
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
                  v2_add_##S, v2_excl_##S, v2_last_##S, V2_LOW_)
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

typedef uint64_t (*fold_fn)(const void *x, size_t n);

/* Float MIN and MAX: pp_cpu_fminmax, and the template's fold where it
 * finds a NaN. */
#define FMINMAX_(S, O, TYPE, MAX)                                              \
    static uint64_t fold_vec_##S##_##O(const void *x, size_t n)                \
    {                                                                          \
        uint64_t b = 0;                                                        \
        return pp_cpu_fminmax(TYPE, MAX, x, n, &b) ? b : fold_##S##_##O(x, n); \
    }
FMINMAX_(f32, min, PP_F32, 0)
FMINMAX_(f32, max, PP_F32, 1)
FMINMAX_(f64, min, PP_F64, 0)
FMINMAX_(f64, max, PP_F64, 1)

/* The fold for type and op: float MIN and MAX vectorized (above); the
 * AVX-512 or AVX2 one for sums of 4- and 8-byte elements where the
 * processor has it; else the template's. */
static fold_fn fold_kernel_of(pp_type type, pp_op op)
{
    if ((type == PP_F32 || type == PP_F64) && (op == PP_MIN || op == PP_MAX)) {
        static const fold_fn by[2][2] = {{fold_vec_f32_min, fold_vec_f32_max}, {fold_vec_f64_min, fold_vec_f64_max}};
        return by[type == PP_F64][op == PP_MAX];
    }
#if PP_CPU_HAVE_AVX512
    const size_t size = pp_type_size(type);
    if (op == PP_SUM && (size == 4 || size == 8) && (pp_cpu_avx512() || pp_cpu_avx2())) {
        static const fold_fn by[2][2][2] = {{{fold2_sum_4, fold2_sum_8}, {fold2_sum_f4, fold2_sum_f8}},
                                            {{fold_sum_4, fold_sum_8}, {fold_sum_f4, fold_sum_f8}}};
        return by[pp_cpu_avx512()][pp_type_kind(type) == PP_KIND_FLOAT][size == 8];
    }
#endif
    return kernels(type, op)->fold;
}

/* The tile scan for type and op: the AVX-512 or AVX2 one where there is
 * one and the processor has the instructions, else the template's. */
static scan_fn scan_kernel_of(pp_type type, pp_op op, size_t n)
{
    const size_t size = pp_type_size(type);
    const int flt = pp_type_kind(type) == PP_KIND_FLOAT;
    if (op != PP_SUM || (size != 4 && size != 8)) return kernels(type, op)->scan;
#if PP_CPU_HAVE_AVX512
    if (pp_cpu_avx512()) {
        static const scan_fn by[2][2][2] = {{{scan_sum_4, scan_sum_4_nt}, {scan_sum_8, scan_sum_8_nt}},
                                            {{scan_sum_f4, scan_sum_f4_nt}, {scan_sum_f8, scan_sum_f8_nt}}};
        return by[flt][size == 8][n * size >= PP_CPU_STREAM_BYTES];
    }
    if (pp_cpu_avx2()) {
        static const scan_fn by[2][2][2] = {{{scan2_sum_4, scan2_sum_4_nt}, {scan2_sum_8, scan2_sum_8_nt}},
                                            {{scan2_sum_f4, scan2_sum_f4_nt}, {scan2_sum_f8, scan2_sum_f8_nt}}};
        return by[flt][size == 8][n * size >= PP_CPU_STREAM_BYTES];
    }
#else
    (void)n;
#endif
    if (flt) return size == 4 ? scan_sum_f32 : scan_sum_f64;
    return kernels(type, op)->scan;
}

pp_cpu_fold_scan pp_cpu_fold_scan_of(pp_type type, pp_op op, size_t out_bytes)
{
    const rs_kernels *k = kernels(type, op);
    pp_cpu_fold_scan f = {k->size, k->identity(), k->combine, fold_kernel_of(type, op),
                          scan_kernel_of(type, op, out_bytes / k->size), k->public_identity};
    return f;
}

/* ---- reduce ---------------------------------------------------------------------- */

typedef struct reduce_job {
    const rs_kernels *k;
    fold_fn fold; /* fold_kernel_of */
    const char *in;
    size_t n;
    uint64_t *part;
} reduce_job;

static void reduce_block(const void *job_, size_t b, int thread)
{
    (void)thread;
    const reduce_job *j = (const reduce_job *)job_;
    size_t lo, hi;
    pp_cpu_tile_range(j->n, PP_RB, b, &lo, &hi);
    j->part[b] = j->fold(j->in + lo * j->k->size, hi - lo);
}

static pp_status cpu_reduce(pp_context *ctx, const pp_reduce_args *a, int sequential)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    if (n == 0) {
        k->public_identity(out);
    } else if (sequential) {
        k->reduce_seq(in, n, out);
    } else if (a->op == PP_SUM && pp_type_kind(a->type) == PP_KIND_FLOAT) {
        return pp_cpu_comp_sum(ctx, a); /* compensated (cpu_comp_sum.c) */
    } else if (pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_REDUCE / 2) <= 1) {
        /* on one thread: the blocks in order, combined as they come */
        const fold_fn fold = fold_kernel_of(a->type, a->op);
        uint64_t r = fold(in, n < PP_RB ? n : PP_RB);
        for (size_t lo = PP_RB; lo < n; lo += PP_RB)
            r = k->combine(r, fold((const char *)in + lo * k->size, n - lo < PP_RB ? n - lo : PP_RB));
        memcpy(out, &r, k->size);
    } else {
        size_t nb = (n + PP_RB - 1) / PP_RB;
        uint64_t *part = (uint64_t *)pp_cpu_scratch(ctx, nb * sizeof(uint64_t), a->fn);
        if (!part) return PP_ERROR_OUT_OF_MEMORY;
        reduce_job j = {k, fold_kernel_of(a->type, a->op), (const char *)in, n, part};
        pp_cpu_for_tiles(pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_REDUCE / 2), nb, reduce_block, &j);
        uint64_t r = part[0];
        for (size_t b = 1; b < nb; b++) r = k->combine(r, part[b]);
        memcpy(out, &r, k->size);
    }
    return PP_SUCCESS;
}

pp_status pp_cpu_reduce(pp_context *ctx, const pp_reduce_args *a) { return cpu_reduce(ctx, a, 0); }
pp_status pp_cpu_reduce_sequential(pp_context *ctx, const pp_reduce_args *a) { return cpu_reduce(ctx, a, 1); }

/* ---- scan ------------------------------------------------------------------------ */

typedef struct scan_chain_job {
    const rs_kernels *k;
    scan_fn scan; /* the tile scan (scan_kernel_of) */
    fold_fn fold; /* the tile fold (fold_kernel_of) */
    const char *in;
    char *out;
    size_t n;
    int exclusive;
} scan_chain_job;


static const scan_chain_job *scan_chain_job_of(const void *job) { return (const scan_chain_job *)job; }

static void scan_tile_value(const void *job, size_t t, uint64_t *value)
{
    const scan_chain_job *j = scan_chain_job_of(job);
    *value = j->fold(j->in + t * PP_ST * j->k->size, pp_cpu_tile_len(j->n, PP_ST, t));
}

static void scan_combine(const void *job, uint64_t *acc, const uint64_t *b)
{
    *acc = scan_chain_job_of(job)->k->combine(*acc, *b);
}

static void scan_tile_body(const void *job, size_t t, const uint64_t *prefix, const uint64_t *value)
{
    (void)value;
    const scan_chain_job *j = scan_chain_job_of(job);
    size_t off = t * PP_ST * j->k->size;
    j->scan(j->in + off, j->out + off, pp_cpu_tile_len(j->n, PP_ST, t), *prefix, j->exclusive);
}

/* The scan's carry into its first element: the operator's identity, or
 * pp_scan_init's initial value (whose bits an exclusive scan's out[0]
 * then holds). */
static uint64_t scan_start(const rs_kernels *k, const pp_scan_args *a)
{
    uint64_t c = 0;
    if (!a->init) return k->identity();
    memcpy(&c, a->init, k->size);
    return c;
}

static pp_status cpu_scan(pp_context *ctx, const pp_scan_args *a, int sequential)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const int excl = a->kind == PP_EXCLUSIVE;
    const void *in = a->in;
    void *out = a->out;
    const size_t n = a->n;
    const uint64_t start = scan_start(k, a);
    if (sequential) {
        k->scan_seq(in, out, n, start, excl);
    } else if (n <= PP_ST) {
        scan_kernel_of(a->type, a->op, n)(in, out, n, start, excl);
    } else {
        const size_t ntiles = (n + PP_ST - 1) / PP_ST;
        const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SCAN / 2);
        void *scratch = nt > 1 ? pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn) : NULL;
        if (nt > 1 && !scratch) return PP_ERROR_OUT_OF_MEMORY;
        scan_chain_job j = {k, scan_kernel_of(a->type, a->op, n), fold_kernel_of(a->type, a->op), (const char *)in, (char *)out, n, excl};
        pp_cpu_chain_spec spec = {ntiles, 1, &start, scan_tile_value, scan_combine, scan_tile_body, &j, NULL};
        pp_cpu_chain(&spec, nt, scratch, NULL);
    }
    if (excl && !a->init) k->public_identity(out);
    return PP_SUCCESS;
}

pp_status pp_cpu_scan(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 0); }
pp_status pp_cpu_scan_sequential(pp_context *ctx, const pp_scan_args *a) { return cpu_scan(ctx, a, 1); }

typedef struct rts_job {
    scan_chain_job s;
    uint64_t *prefix; /* per tile: its fold, then the fold of the tiles before it */
} rts_job;

static void rts_fold(const void *job, size_t t, int thread)
{
    (void)thread;
    const rts_job *j = (const rts_job *)job;
    scan_tile_value(&j->s, t, &j->prefix[t]);
}

static void rts_scan(const void *job, size_t t, int thread)
{
    (void)thread;
    const rts_job *j = (const rts_job *)job;
    scan_tile_body(&j->s, t, &j->prefix[t], NULL);
}

pp_status pp_cpu_scan_reduce_then_scan(pp_context *ctx, const pp_scan_args *a)
{
    const rs_kernels *k = kernels(a->type, a->op);
    const size_t n = a->n, ntiles = (n + PP_ST - 1) / PP_ST;
    uint64_t *prefix = (uint64_t *)pp_cpu_scratch(ctx, ntiles * sizeof(uint64_t), a->fn);
    if (!prefix) return PP_ERROR_OUT_OF_MEMORY;
    const int excl = a->kind == PP_EXCLUSIVE;
    rts_job j = {{k, scan_kernel_of(a->type, a->op, n), fold_kernel_of(a->type, a->op), (const char *)a->in, (char *)a->out, n, excl}, prefix};
    const int nt = pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SCAN / 2);
    pp_cpu_for_tiles(nt, ntiles, rts_fold, &j);
    uint64_t acc = scan_start(k, a);
    for (size_t t = 0; t < ntiles; t++) {
        const uint64_t v = prefix[t];
        prefix[t] = acc;
        acc = k->combine(acc, v);
    }
    pp_cpu_for_tiles(nt, ntiles, rts_scan, &j);
    if (excl && !a->init) k->public_identity(a->out);
    return PP_SUCCESS;
}
