/* cpu stream compaction: select_flagged, select_if, unique, partition_if.
 *
 * PP_ALGO_AUTO: fixed tiles of SEL_TILE elements claimed one at a time by
 * the threads (cpu_tiles.h). select, select_flagged and unique: a thread
 * counts its tile's selected elements, gets the count of every tile before
 * it from a look-back that never waits for another thread, and writes the
 * tile's selected elements from there: one region, one read of the input
 * from memory. partition_if must know the total before any rejected
 * element is written: a first region counts every tile, the offsets are a
 * scan of the tile counts, and a second writes both sides. Writes go
 * through a small buffer filled without branches, so a random predicate
 * costs no branch mispredictions.
 * PP_ALGO_SEQUENTIAL: the same loop over the whole input on one thread.
 *
 * The predicate loops are generated per type and predicate (the predicate a
 * compile-time constant in each); the tiling is plain C over their table.
 */
#include "cpu_tiles.h"

#if defined(__GNUC__) || defined(__clang__)
#define PP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PP_ALWAYS_INLINE inline
#endif

#define SEL_BUF 256
#define SEL_TILE ((size_t)16384)

/* Predicates: the six comparisons keep their pp_cmp values. */
enum { MC_FLAG = 6, MC_UNIQUE = 7, MC_COUNT = 8 };

/* Counts, and writes, the selected of [b, e); unique looks at in[b - 1]. */
typedef size_t (*count_fn)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e);
typedef size_t (*write_fn)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e, void *sel,
                           void *rej);

#define SEL_PRED(T, MC, in, fl, v, i)                                                             \
    ((MC) == PP_LT   ? in[i] < v                                                                  \
     : (MC) == PP_LE ? in[i] <= v                                                                 \
     : (MC) == PP_GT ? in[i] > v                                                                  \
     : (MC) == PP_GE ? in[i] >= v                                                                 \
     : (MC) == PP_EQ ? in[i] == v                                                                 \
     : (MC) == PP_NE ? in[i] != v                                                                 \
     : (MC) == MC_FLAG ? fl[i] != 0                                                               \
                       : (i == 0 || in[i] != in[i - 1]))

#define DEF_SEL_LOOPS(T, S, MC, PART)                                                              \
    static size_t count_##S##_##MC##_##PART(const void *in_, const uint8_t *fl, const void *v_,    \
                                            size_t b, size_t e)                                    \
    {                                                                                              \
        const T *in = (const T *)in_;                                                              \
        T v;                                                                                       \
        memcpy(&v, v_, sizeof v);                                                                  \
        size_t c = 0;                                                                              \
        for (size_t i = b; i < e; i++) c += (size_t)(SEL_PRED(T, MC, in, fl, v, i));               \
        return c;                                                                                  \
    }                                                                                              \
    static size_t write_##S##_##MC##_##PART(const void *in_, const uint8_t *fl, const void *v_,    \
                                            size_t b, size_t e, void *sel_, void *rej_)            \
    {                                                                                              \
        const T *in = (const T *)in_;                                                              \
        T *sel = (T *)sel_, *rej = (T *)rej_, v;                                                   \
        memcpy(&v, v_, sizeof v);                                                                  \
        T bs[SEL_BUF + 1], br[SEL_BUF + 1];                                                        \
        size_t ks = 0, kr = 0, total = 0;                                                          \
        for (size_t i = b; i < e; i++) {                                                           \
            T x = in[i];                                                                           \
            int p = SEL_PRED(T, MC, in, fl, v, i);                                                 \
            bs[ks] = x;                                                                            \
            ks += (size_t)p;                                                                       \
            if (PART) {                                                                            \
                br[kr] = x;                                                                        \
                kr += (size_t)!p;                                                                  \
                if (kr == SEL_BUF) {                                                               \
                    memcpy(rej, br, SEL_BUF * sizeof(T));                                          \
                    rej += SEL_BUF;                                                                \
                    kr = 0;                                                                        \
                }                                                                                  \
            }                                                                                      \
            if (ks == SEL_BUF) {                                                                   \
                memcpy(sel, bs, SEL_BUF * sizeof(T));                                              \
                sel += SEL_BUF;                                                                    \
                total += SEL_BUF;                                                                  \
                ks = 0;                                                                            \
            }                                                                                      \
        }                                                                                          \
        memcpy(sel, bs, ks * sizeof(T));                                                           \
        if (PART) memcpy(rej, br, kr * sizeof(T));                                                 \
        return total + ks;                                                                         \
    }

/* The unique predicate on a run of neighbours: compare with the element
 * before, loaded once per element (no i == 0 test inside the loop). */
#define DEF_UNIQUE_LOOPS(T, S)                                                                     \
    static size_t count_##S##_uq(const void *in_, const uint8_t *fl, const void *v_, size_t b,     \
                                 size_t e)                                                         \
    {                                                                                              \
        (void)fl;                                                                                  \
        (void)v_;                                                                                  \
        const T *in = (const T *)in_;                                                              \
        size_t c = b == 0 && e > 0;                                                                \
        for (size_t i = b ? b : 1; i < e; i++) c += (size_t)(in[i] != in[i - 1]);                  \
        return c;                                                                                  \
    }                                                                                              \
    static size_t write_##S##_uq(const void *in_, const uint8_t *fl, const void *v_, size_t b,     \
                                 size_t e, void *sel_, void *rej_)                                 \
    {                                                                                              \
        (void)fl;                                                                                  \
        (void)v_;                                                                                  \
        (void)rej_;                                                                                \
        const T *in = (const T *)in_;                                                              \
        T *sel = (T *)sel_, bs[SEL_BUF + 1];                                                       \
        size_t ks = 0, total = 0;                                                                  \
        if (b == e) return 0;                                                                      \
        T prev = in[b];                                                                            \
        bs[0] = prev;                                                                              \
        ks = b == 0 || prev != in[b - 1];                                                          \
        for (size_t i = b + 1; i < e; i++) {                                                       \
            T x = in[i];                                                                           \
            bs[ks] = x;                                                                            \
            ks += (size_t)(x != prev);                                                             \
            prev = x;                                                                              \
            if (ks == SEL_BUF) {                                                                   \
                memcpy(sel, bs, SEL_BUF * sizeof(T));                                              \
                sel += SEL_BUF;                                                                    \
                total += SEL_BUF;                                                                  \
                ks = 0;                                                                            \
            }                                                                                      \
        }                                                                                          \
        memcpy(sel, bs, ks * sizeof(T));                                                           \
        return total + ks;                                                                         \
    }

#define DEF_SELECT(E, T, S, K, U, W)                                                               \
    DEF_SEL_LOOPS(T, S, 0, 0) DEF_SEL_LOOPS(T, S, 1, 0) DEF_SEL_LOOPS(T, S, 2, 0)                  \
    DEF_SEL_LOOPS(T, S, 3, 0) DEF_SEL_LOOPS(T, S, 4, 0) DEF_SEL_LOOPS(T, S, 5, 0)                  \
    DEF_SEL_LOOPS(T, S, 6, 0) DEF_SEL_LOOPS(T, S, 0, 1) DEF_SEL_LOOPS(T, S, 1, 1)                  \
    DEF_SEL_LOOPS(T, S, 2, 1) DEF_SEL_LOOPS(T, S, 3, 1) DEF_SEL_LOOPS(T, S, 4, 1)                  \
    DEF_SEL_LOOPS(T, S, 5, 1) DEF_UNIQUE_LOOPS(T, S)

PP_FOR_EACH_TYPE(DEF_SELECT)

/* [type][predicate][partition]: predicates 0-5 the comparisons, 6 flags, 7 unique. */
typedef struct sel_kernels {
    count_fn count;
    write_fn write;
} sel_kernels;
#define SEL_K(S, MC, PART) {count_##S##_##MC##_##PART, write_##S##_##MC##_##PART}
#define SEL_ENTRY(E, T, S, K, U, W)                                                                \
    [E] = {{SEL_K(S, 0, 0), SEL_K(S, 0, 1)}, {SEL_K(S, 1, 0), SEL_K(S, 1, 1)},                     \
           {SEL_K(S, 2, 0), SEL_K(S, 2, 1)}, {SEL_K(S, 3, 0), SEL_K(S, 3, 1)},                     \
           {SEL_K(S, 4, 0), SEL_K(S, 4, 1)}, {SEL_K(S, 5, 0), SEL_K(S, 5, 1)},                     \
           {SEL_K(S, 6, 0), {NULL, NULL}}, {{count_##S##_uq, write_##S##_uq}, {NULL, NULL}}},
static const sel_kernels sel_table[PP_TYPE_COUNT][MC_COUNT][2] = {PP_FOR_EACH_TYPE(SEL_ENTRY)};

typedef struct select_job {
    const sel_kernels *k;
    const char *in;
    const uint8_t *flags;
    const void *value;
    char *out;
    size_t n, size;
    uint64_t *tile_count; /* partition: the selected count of each tile */
    uint64_t *offset;     /* partition: selected before each tile */
    uint64_t total;       /* partition */
} select_job;

static void tile_range(const select_job *j, size_t t, size_t *b, size_t *e)
{
    *b = t * SEL_TILE;
    *e = j->n - *b < SEL_TILE ? j->n : *b + SEL_TILE;
}

static uint64_t tile_count(const void *job_, size_t t)
{
    const select_job *j = (const select_job *)job_;
    size_t b, e;
    tile_range(j, t, &b, &e);
    return (uint64_t)j->k->count(j->in, j->flags, j->value, b, e);
}

static void tile_count_value(const void *job, size_t t, uint64_t *value) { *value = tile_count(job, t); }

static void add_count(const void *job, uint64_t *acc, const uint64_t *b)
{
    (void)job;
    *acc += *b;
}

static void select_tile(const void *job_, size_t t, const uint64_t *before, const uint64_t *mine)
{
    (void)mine;
    const select_job *j = (const select_job *)job_;
    size_t b, e;
    tile_range(j, t, &b, &e);
    j->k->write(j->in, j->flags, j->value, b, e, j->out + (size_t)*before * j->size, NULL);
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
    tile_range(j, t, &b, &e);
    size_t sel = (size_t)j->offset[t], rej = (size_t)j->total + (b - sel);
    j->k->write(j->in, j->flags, j->value, b, e, j->out + sel * j->size, j->out + rej * j->size);
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
    select_job j = {&sel_table[a->type][mc][part], (const char *)a->in, a->flags, value, (char *)a->out, n,
                    pp_type_size(a->type), NULL, NULL, 0};
    if (n == 0) { /* out may be NULL */
        *a->count = 0;
        return PP_SUCCESS;
    }
    const size_t ntiles = (n + SEL_TILE - 1) / SEL_TILE;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SEL_TILE);
    if (nt <= 1) {
        size_t total = part ? j.k->count(j.in, j.flags, value, 0, n) : 0;
        total = j.k->write(j.in, j.flags, value, 0, n, j.out, part ? j.out + total * j.size : NULL);
        *a->count = (uint64_t)total;
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
    void *scratch = pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn);
    if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    const uint64_t zero = 0;
    pp_cpu_chain_spec spec = {ntiles, 1, &zero, tile_count_value, add_count, select_tile, &j};
    pp_cpu_chain(&spec, nt, scratch, a->count);
    return PP_SUCCESS;
}

pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 0); }
pp_status pp_cpu_select_sequential(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 1); }
