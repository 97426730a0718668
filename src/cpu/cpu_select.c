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
 * The predicate loops are the template cpu_select.inc, instantiated for
 * every type of the list (cpu_instances.h), with a loop per predicate (the
 * predicate a compile-time constant in each); the tiling is plain C over
 * their table.
 */
#include "cpu_tiles.h"

#define SEL_BUF 256
#define SEL_TILE ((size_t)16384)

/* Predicates: the six comparisons keep their pp_cmp values. */
enum { MC_FLAG = 6, MC_UNIQUE = 7 };

/* Every predicate of the generic loops (unique has loops of its own). */
#define SEL_PREDICATES(X) X(PP_LT) X(PP_LE) X(PP_GT) X(PP_GE) X(PP_EQ) X(PP_NE) X(MC_FLAG)

#define PP_CPU_TEMPLATE "cpu_select.inc"
#include "cpu_each_type.inc"

/* Per type: counts, and writes, the elements of [b, e) that predicate mc
 * selects (to sel; with part the others to rej); unique looks at in[b - 1]. */
typedef struct sel_kernels {
    size_t (*count)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e, int mc);
    size_t (*write)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e, void *sel, void *rej, int mc,
                    int part);
} sel_kernels;
/* The table: the X-macro of types.h over the names the template defined. */
#define SEL_ENTRY(E, T, S, K, U, W) [E] = {count_##S, write_##S},
static const sel_kernels sel_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SEL_ENTRY)};

typedef struct select_job {
    const sel_kernels *k;
    int mc, part;
    const char *in;
    const uint8_t *flags;
    const void *value;
    char *out;
    size_t n, size;
    uint64_t *tile_count; /* partition: the selected count of each tile */
    uint64_t *offset;     /* partition: selected before each tile */
    uint64_t total;       /* partition */
} select_job;

static size_t count_range(const select_job *j, size_t b, size_t e)
{
    return j->k->count(j->in, j->flags, j->value, b, e, j->mc);
}

/* Writes the selected of [b, e) at out[sel], and with part the others at out[rej]. */
static size_t write_range(const select_job *j, size_t b, size_t e, size_t sel, size_t rej)
{
    return j->k->write(j->in, j->flags, j->value, b, e, j->out + sel * j->size,
                       j->part ? j->out + rej * j->size : NULL, j->mc, j->part);
}

static uint64_t tile_count(const void *job_, size_t t)
{
    const select_job *j = (const select_job *)job_;
    size_t b, e;
    pp_cpu_tile_range(j->n, SEL_TILE, t, &b, &e);
    return (uint64_t)count_range(j, b, e);
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
    pp_cpu_tile_range(j->n, SEL_TILE, t, &b, &e);
    write_range(j, b, e, (size_t)*before, 0);
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
    pp_cpu_tile_range(j->n, SEL_TILE, t, &b, &e);
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
    select_job j = {&sel_table[a->type], mc, part, (const char *)a->in, a->flags, value, (char *)a->out, n,
                    pp_type_size(a->type), NULL, NULL, 0};
    if (n == 0) { /* out may be NULL */
        *a->count = 0;
        return PP_SUCCESS;
    }
    const size_t ntiles = (n + SEL_TILE - 1) / SEL_TILE;
    const int nt = sequential ? 1 : pp_cpu_threads_for(ctx, n, 2 * SEL_TILE);
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
    void *scratch = pp_cpu_scratch(ctx, pp_cpu_chain_scratch_bytes(ntiles, 1), a->fn);
    if (!scratch) return PP_ERROR_OUT_OF_MEMORY;
    const uint64_t zero = 0;
    pp_cpu_chain_spec spec = {ntiles, 1, &zero, tile_count_value, add_count, select_tile, &j};
    pp_cpu_chain(&spec, nt, scratch, a->count);
    return PP_SUCCESS;
}

pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 0); }
pp_status pp_cpu_select_sequential(pp_context *ctx, const pp_select_args *a) { return cpu_select(ctx, a, 1); }
