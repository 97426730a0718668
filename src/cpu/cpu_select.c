/* cpu stream compaction: select_flagged, select_if, unique, partition_if.
 *
 * PP_ALGO_AUTO: tiles of SEL_TILE_MAX elements (fewer, down to SEL_TILE_MIN,
 * where that leaves under four tiles per thread) claimed one at a time by
 * the threads (cpu_tiles.h). select, select_flagged and unique: a thread
 * packs its tile's selected elements into its own staging buffer (their
 * number is the tile's value), gets the count of every tile before it from
 * a look-back that never waits for another thread, and copies them to the
 * output from there: one region, one read of the input. partition_if must know the total before any rejected
 * element is written: a first region counts every tile, the offsets are a
 * scan of the tile counts, and a second writes both sides. Writes go
 * through a small buffer filled without branches, so a random predicate
 * costs no branch mispredictions. Elements of 4 and 8 bytes, where the
 * processor has AVX-512, go 64 bytes at a time instead: a compare (or the
 * flags) gives a mask, the selected lanes are compressed and stored with a
 * mask straight into the output (vec_loop below); for large inputs through
 * a staging buffer and streaming stores of whole lines (vec_out). Where
 * it has AVX2 but not AVX-512, the twins in cpu_select_avx2.c go 32 bytes
 * at a time through a staging buffer, with the same output bytes.
 * PP_ALGO_SEQUENTIAL: the plain loop over the whole input on one thread.
 *
 * The predicate loops are the template cpu_select.inc, instantiated for
 * every type of the list (cpu_instances.h), with a loop per predicate (the
 * predicate a compile-time constant in each); the tiling is plain C over
 * their table.
 */
#include "cpu_select.h"

#include <omp.h>

#define SEL_BUF 256
/* Tile sizes in elements. Large tiles amortize each tile's look-back and
 * staging (bench/studies/cpu-memory-bound.md, "cpu compaction: larger tiles; partition_if
 * against its memory limit"); a thread's staged tile (65536 x 8 bytes at
 * most) stays within its L2. */
#define SEL_TILE_MAX ((size_t)65536)
#define SEL_TILE_MIN ((size_t)16384)

/* Every predicate of the generic loops (unique has loops of its own). */
#define SEL_PREDICATES(X) X(PP_LT) X(PP_LE) X(PP_GT) X(PP_GE) X(PP_EQ) X(PP_NE) X(MC_FLAG)

#define PP_CPU_TEMPLATE "cpu_select.inc"
#include "cpu_each_type.inc"

/* The table: the X-macro of types.h over the names the template defined. */
#define SEL_ENTRY(E, T, S, K, U, W) [E] = {count_##S, write_##S},
static const sel_kernels sel_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SEL_ENTRY)};

/* unique's count loop, for the by-key forms' run heads (cpu_bykey.c) */
size_t pp_cpu_count_heads(pp_type type, const void *in, size_t b, size_t e)
{
    static const uint64_t unused = 0; /* the comparison value, which unique does not read */
    return sel_table[type].count(in, NULL, &unused, b, e, MC_UNIQUE);
}

#if PP_CPU_HAVE_AVX512
/* ---- AVX-512: elements of 4 and 8 bytes, 64 bytes at a time ------------------------
 * A mask of the selected lanes (a compare, or the flags' nonzero bytes),
 * its popcount for a count; for a write the selected lanes compressed to
 * the low end of a register and stored with a mask of as many lanes
 * (nothing past them is touched), the rejected ones likewise. The last
 * partial vector loads under a mask of the live lanes. */

/* x cmp y lane by lane, as C compares T (kind, w bytes): floats ordered,
 * but != true for NaN. */
#define VEC_INT_CMP_(F, x, y, mc) \
    VEC_CMP_(F, x, y, mc, _MM_CMPINT_LT, _MM_CMPINT_LE, _MM_CMPINT_NLE, _MM_CMPINT_NLT, _MM_CMPINT_EQ, _MM_CMPINT_NE)
#define VEC_FLOAT_CMP_(F, x, y, mc) \
    VEC_CMP_(F, x, y, mc, _CMP_LT_OQ, _CMP_LE_OQ, _CMP_GT_OQ, _CMP_GE_OQ, _CMP_EQ_OQ, _CMP_NEQ_UQ)

PP_CPU_AVX512 static PP_ALWAYS_INLINE unsigned vec_cmp(__m512i x, __m512i y, int w, int kind, int mc)
{
    if (w == 4) {
        if (kind == PP_KIND_FLOAT) VEC_FLOAT_CMP_(_mm512_cmp_ps_mask, _mm512_castsi512_ps(x), _mm512_castsi512_ps(y), mc)
        if (kind == PP_KIND_SINT) VEC_INT_CMP_(_mm512_cmp_epi32_mask, x, y, mc)
        VEC_INT_CMP_(_mm512_cmp_epu32_mask, x, y, mc)
    }
    if (kind == PP_KIND_FLOAT) VEC_FLOAT_CMP_(_mm512_cmp_pd_mask, _mm512_castsi512_pd(x), _mm512_castsi512_pd(y), mc)
    if (kind == PP_KIND_SINT) VEC_INT_CMP_(_mm512_cmp_epi64_mask, x, y, mc)
    VEC_INT_CMP_(_mm512_cmp_epu64_mask, x, y, mc)
}

PP_CPU_AVX512 static PP_ALWAYS_INLINE __m512i vec_load(const char *p, unsigned live, int w)
{
    return w == 4 ? _mm512_maskz_loadu_epi32((__mmask16)live, p) : _mm512_maskz_loadu_epi64((__mmask8)live, p);
}

/* The lanes of m of x to p, packed. Returns how many. */
PP_CPU_AVX512 static PP_ALWAYS_INLINE size_t vec_pack(char *p, __m512i x, unsigned m, int w)
{
    const unsigned k = (unsigned)__builtin_popcount(m), first = (1u << k) - 1;
    if (w == 4) _mm512_mask_storeu_epi32(p, (__mmask16)first, _mm512_maskz_compress_epi32((__mmask16)m, x));
    else _mm512_mask_storeu_epi64(p, (__mmask8)first, _mm512_maskz_compress_epi64((__mmask8)m, x));
    return k;
}

/* Large outputs: the packed lanes go first to a staging buffer that stays
 * in L1, laid out like the output's 64-byte lines, and every VO_STAGE
 * bytes whole lines are copied out with streaming stores (an ordinary store
 * first reads its line from memory: a third of a compaction's traffic).
 * The partial lines at either end of a range, which neighbouring tiles'
 * ranges share, get masked ordinary stores of this range's bytes only. */
#define VO_STAGE 4096
typedef struct vec_out {
    char *line;      /* output address of stage[0] (64-byte aligned) */
    unsigned off;    /* bytes of stage in use */
    unsigned first;  /* bytes of stage[0..64) before the range (0 after its first line) */
    char stage[VO_STAGE + 128] __attribute__((aligned(64)));
} vec_out;

PP_CPU_AVX512 static PP_ALWAYS_INLINE void vec_out_start(vec_out *o, char *p)
{
    o->line = (char *)((uintptr_t)p & ~(uintptr_t)63);
    o->off = o->first = (unsigned)((uintptr_t)p & 63u);
}

/* Bytes [from, to) of line l of the stage (to <= 64), with a masked store. */
PP_CPU_AVX512 static PP_ALWAYS_INLINE void vec_out_part(vec_out *o, unsigned l, unsigned from, unsigned to)
{
    const unsigned long long m = (to >= 64 ? ~0ull : (1ull << to) - 1) & ~((1ull << from) - 1);
    _mm512_mask_storeu_epi8(o->line + 64 * l, (__mmask64)m, _mm512_load_si512((const void *)(o->stage + 64 * l)));
}

/* Writes the first `lines` whole lines of the stage out. */
PP_CPU_AVX512 static PP_ALWAYS_INLINE void vec_out_flush(vec_out *o, unsigned lines)
{
    unsigned l = 0;
    if (o->first && lines) vec_out_part(o, l++, o->first, 64);
    for (; l < lines; l++)
        _mm512_stream_si512((__m512i *)(void *)(o->line + 64 * l), _mm512_load_si512((const void *)(o->stage + 64 * l)));
    o->first = 0;
}

/* Appends the lanes of m of x. Returns how many. */
PP_CPU_AVX512 static PP_ALWAYS_INLINE size_t vec_out_put(vec_out *o, __m512i x, unsigned m, int w)
{
    const size_t k = vec_pack(o->stage + o->off, x, m, w);
    o->off += (unsigned)k * (unsigned)w;
    if (o->off >= VO_STAGE) {
        vec_out_flush(o, VO_STAGE / 64);
        _mm512_store_si512((void *)o->stage, _mm512_load_si512((const void *)(o->stage + VO_STAGE)));
        o->off -= VO_STAGE;
        o->line += VO_STAGE;
    }
    return k;
}

PP_CPU_AVX512 static PP_ALWAYS_INLINE void vec_out_finish(vec_out *o)
{
    const unsigned whole = o->off / 64, rest = o->off % 64;
    if (whole) vec_out_flush(o, whole);
    if (rest > o->first) vec_out_part(o, whole, o->first, rest);
}

/* The vector L elements from i (live: the lanes inside the range). With
 * os (and, partitioning, orj), writes through those. */
PP_CPU_AVX512 static PP_ALWAYS_INLINE void vec_step(const select_job *j, __m512i v, size_t i, unsigned live, int w,
                                                     int kind, int mc, int mode, size_t *ks, size_t *kr, vec_out *os,
                                                     vec_out *orj)
{
    PP_CPU_PREFETCH(j->in + i * w + PP_CPU_AHEAD);
    const __m512i x = vec_load(j->in + i * w, live, w);
    unsigned m;
    if (mc == MC_FLAG) {
        const __m128i f = w == 4 ? _mm_maskz_loadu_epi8((__mmask16)live, j->flags + i)
                                 : _mm_maskz_loadu_epi8((__mmask16)(live & 0xff), j->flags + i);
        m = _mm_test_epi8_mask(f, f);
    } else if (mc == MC_UNIQUE) {
        m = vec_cmp(x, vec_load(j->in + (i - 1) * w, live, w), w, kind, PP_NE);
    } else {
        m = vec_cmp(x, v, w, kind, mc);
    }
    m &= live;
    if (mode == VEC_COUNT) {
        *ks += (size_t)__builtin_popcount(m);
        return;
    }
    if (os) {
        *ks += vec_out_put(os, x, m, w);
        if (mode == VEC_PARTITION) *kr += vec_out_put(orj, x, ~m & live, w);
        return;
    }
    *ks += vec_pack(j->out + *ks * w, x, m, w);
    if (mode == VEC_PARTITION) *kr += vec_pack(j->out + *kr * w, x, ~m & live, w);
}

/* A vector kernel's loop (cpu_select.h). */
PP_CPU_AVX512 static PP_ALWAYS_INLINE size_t vec_loop(const select_job *j, size_t b, size_t e, size_t sel, size_t rej,
                                                       int w, int kind, int mc, int mode)
{
    const size_t lanes = (size_t)(64 / w);
    const unsigned full = w == 4 ? 0xffffu : 0xffu;
    int64_t value = 0;
    memcpy(&value, j->value, (size_t)w);
    const __m512i v = w == 4 ? _mm512_set1_epi32((int32_t)value) : _mm512_set1_epi64(value);
    size_t ks = sel, kr = rej, i = b;
    if (mc == MC_UNIQUE && b == 0 && e > 0) { /* the first element has no neighbour before it */
        if (mode != VEC_COUNT) memcpy(j->out + ks * w, j->in, (size_t)w);
        ks++;
        i = 1;
    }
    vec_out os, orj, *pos = NULL, *prj = NULL;
    if (mode != VEC_COUNT && j->stream) {
        vec_out_start(pos = &os, j->out + ks * w);
        if (mode == VEC_PARTITION) vec_out_start(prj = &orj, j->out + kr * w);
    }
    for (; i + lanes <= e; i += lanes) vec_step(j, v, i, full, w, kind, mc, mode, &ks, &kr, pos, prj);
    if (i < e) vec_step(j, v, i, (1u << (e - i)) - 1, w, kind, mc, mode, &ks, &kr, pos, prj);
    if (pos) {
        vec_out_finish(pos);
        if (prj) vec_out_finish(prj);
        _mm_sfence();
    }
    return ks - sel;
}

VEC_KERNELS_(PP_CPU_AVX512, vec512, vec_loop)

/* The kernel of the type, or NULL where the plain loops serve it. */
static vec_kernel vec_kernel_of(pp_type type) { return pp_cpu_avx512() ? vec512_of(type) : pp_cpu_select_avx2(type); }
#else
static vec_kernel vec_kernel_of(pp_type type)
{
    (void)type;
    return NULL;
}
#endif

static size_t count_range(const select_job *j, size_t b, size_t e)
{
    if (j->vec) return j->vec(j, b, e, 0, 0, VEC_COUNT);
    return j->k->count(j->in, j->flags, j->value, b, e, j->mc);
}

/* Writes the selected of [b, e) at out[sel], and with part the others at out[rej]. */
static size_t write_range(const select_job *j, size_t b, size_t e, size_t sel, size_t rej)
{
    if (j->vec) return j->vec(j, b, e, sel, rej, j->part ? VEC_PARTITION : VEC_SELECT);
    return j->k->write(j->in, j->flags, j->value, b, e, j->out + sel * j->size,
                       j->part ? j->out + rej * j->size : NULL, j->mc, j->part);
}

static uint64_t tile_count(const void *job_, size_t t)
{
    const select_job *j = (const select_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, j->tile, t, &b, &e);
    return (uint64_t)count_range(j, b, e);
}

static void tile_count_value(const void *job, size_t t, uint64_t *value) { *value = tile_count(job, t); }

static void add_count(const void *job, uint64_t *acc, const uint64_t *b)
{
    (void)job;
    *acc += *b;
}

/* With several threads (select, select_flagged, unique): one read of the
 * input. A thread packs its own tile's selected elements into its staging
 * buffer as it counts them, and once the look-back has given the tile's
 * offset copies them to the output (streaming stores for large outputs). */
static void select_own(const void *job_, size_t t, uint64_t *value, int thread)
{
    const select_job *j = (const select_job *)job_;
    select_job c = *j;
    c.out = j->stage + (size_t)thread * j->tile * j->size;
    c.stream = 0;
    size_t b, e;
    pp_cpu_tile_range(j->n, j->tile, t, &b, &e);
    *value = (uint64_t)write_range(&c, b, e, 0, 0);
}


static void select_staged(const void *job_, size_t t, const uint64_t *before, const uint64_t *mine)
{
    (void)t;
    const select_job *j = (const select_job *)job_;
    const char *src = j->stage + (size_t)omp_get_thread_num() * j->tile * j->size;
    char *dst = j->out + (size_t)*before * j->size;
    const size_t bytes = (size_t)*mine * j->size;
    if (j->stream) pp_cpu_copy_stream(dst, src, bytes);
    else memcpy(dst, src, bytes);
}

static void partition_count(const void *job_, size_t t, int thread)
{
    (void)thread;
    const select_job *j = (const select_job *)job_;
    j->tile_count[t] = tile_count(job_, t);
}

static void partition_tile(const void *job_, size_t t, int thread)
{
    (void)thread;
    const select_job *j = (const select_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, j->tile, t, &b, &e);
    size_t sel = (size_t)j->offset[t], rej = (size_t)j->total + (b - sel);
    write_range(j, b, e, sel, rej);
}

static pp_status cpu_select(pp_context *ctx, const pp_select_args *a, int sequential)
{
    const int part = a->mode == PP_SELECT_PARTITION;
    const int mc = a->mode == PP_SELECT_FLAGGED  ? MC_FLAG
                   : a->mode == PP_SELECT_UNIQUE ? MC_UNIQUE
                                                 : (int)a->cmp;
    const size_t n = a->n;
    char value[8] = {0};
    if (a->value) memcpy(value, a->value, pp_type_size(a->type));
    select_job j = {&sel_table[a->type], sequential ? NULL : vec_kernel_of(a->type), mc, part, (const char *)a->in, a->flags, value, (char *)a->out, n,
                    pp_type_size(a->type), NULL, NULL, 0, n * pp_type_size(a->type) >= PP_CPU_STREAM_BYTES, 0, NULL};
    if (n == 0) { /* out may be NULL */
        *a->count = 0;
        return PP_SUCCESS;
    }
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, PP_CPU_INLINE_SELECT / 2);
    j.tile = SEL_TILE_MAX;
    while (j.tile > SEL_TILE_MIN && n / j.tile < 4 * (size_t)nt) j.tile /= 2;
    const size_t ntiles = (n + j.tile - 1) / j.tile;
    if (nt <= 1) {
        size_t total = part ? count_range(&j, 0, n) : 0;
        *a->count = (uint64_t)write_range(&j, 0, n, 0, total);
        return PP_SUCCESS;
    }
    if (part) {
        uint64_t *cnt = (uint64_t *)pp_cpu_scratch(ctx, 2 * ntiles * sizeof(uint64_t), a->fn);
        if (!cnt) return PP_ERROR_OUT_OF_MEMORY;
        j.tile_count = cnt;
        j.offset = cnt + ntiles;
        pp_cpu_for_tiles(nt, ntiles, partition_count, &j);
        for (size_t t = 0; t < ntiles; t++) {
            j.offset[t] = j.total;
            j.total += cnt[t];
        }
        pp_cpu_for_tiles(nt, ntiles, partition_tile, &j);
        *a->count = j.total;
        return PP_SUCCESS;
    }
    const size_t chain_bytes = (pp_cpu_chain_scratch_bytes(ntiles, 1) + 63) & ~(size_t)63;
    char *scratch = (char *)pp_cpu_scratch(ctx, chain_bytes + (size_t)nt * j.tile * j.size, a->fn);
    if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    j.stage = scratch + chain_bytes;
    const uint64_t zero = 0;
    pp_cpu_chain_spec spec = {ntiles, 1, &zero, tile_count_value, add_count, select_staged, &j, select_own};
    pp_cpu_chain(&spec, nt, scratch, a->count);
    return PP_SUCCESS;
}

pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 0); }
pp_status pp_cpu_select_sequential(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 1); }
