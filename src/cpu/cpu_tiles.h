/* Device-level building blocks of the cpu backend: work split into fixed
 * tiles that threads claim one at a time from a shared counter, and a
 * chained scan of per-tile values (a decoupled look-back) in which no
 * thread ever waits for another.
 *
 * Why: a library is rarely alone on a machine. Work cut into one part per
 * thread, or rounds separated by barriers, runs at the pace of the slowest
 * thread, and a thread the OS has descheduled is very slow. Here a thread
 * that is descheduled holds at most one tile, and the others go on: when a
 * look-back finds a tile whose value is not yet published, it computes that
 * value itself from the tile's input (values are pure functions of the
 * input), publishes it, and moves on. The only remaining wait is the join at
 * the end of the OpenMP region.
 *
 * Values are the bits of one element (at most 8 bytes) in a uint64_t.
 * Tile t's prefix is the left fold id op v(0) op ... op v(t-1), whoever
 * computes it: a look-back starts from the nearest published inclusive
 * prefix and folds forward, which gives the same bits as the sequential
 * fold. So float results depend on the tile size alone, never on the
 * thread count or the timing. */
#ifndef PP_CPU_TILES_H
#define PP_CPU_TILES_H

#include "cpu_internal.h"

/* Values are `width` words (1 for an element or a count, up to 2048 for a
 * radix sort's digit counts). */
#define PP_CPU_CHAIN_MAX_WIDTH 2048

/* The tile's value from the tile's input (a pure function of it). */
typedef void (*pp_cpu_tile_value_fn)(const void *job, size_t tile, uint64_t *value);
/* acc = acc op b. */
typedef void (*pp_cpu_combine_fn)(const void *job, uint64_t *acc, const uint64_t *b);
/* The tile's work, given the fold of the values of the tiles before it and
 * the tile's own value. */
typedef void (*pp_cpu_tile_body_fn)(const void *job, size_t tile, const uint64_t *prefix, const uint64_t *value);
/* The value of the calling thread's own tile (thread: 0 .. nt-1), whose
 * body the same thread runs next: it may leave per-thread work for the
 * body (look-backs still call the value function for other tiles). */
typedef void (*pp_cpu_tile_own_fn)(const void *job, size_t tile, uint64_t *value, int thread);

typedef struct pp_cpu_chain_spec {
    size_t ntiles;
    size_t width;             /* words per value, 1 .. PP_CPU_CHAIN_MAX_WIDTH */
    const uint64_t *identity; /* width words */
    pp_cpu_tile_value_fn value;
    pp_cpu_combine_fn combine;
    pp_cpu_tile_body_fn body;
    const void *job;
    pp_cpu_tile_own_fn own; /* NULL: value serves the thread's own tile too */
} pp_cpu_chain_spec;

/* Scratch bytes pp_cpu_chain needs. */
size_t pp_cpu_chain_scratch_bytes(size_t ntiles, size_t width);

/* Runs spec->body on every tile on up to nt threads, tiles claimed in
 * increasing order, each body given its exclusive prefix. scratch:
 * pp_cpu_chain_scratch_bytes bytes, 64-byte aligned; with nt <= 1 the
 * tiles run in order on the calling thread, which needs no scratch (NULL
 * is fine). A body may overwrite
 * its own tile's input (in-place scans): a look-back that reads an input to
 * compute a missing value discards what it read if the owner published the
 * value meanwhile, and owners write only after publishing. total (width
 * words, or NULL) receives the fold of every tile's value. */
void pp_cpu_chain(const pp_cpu_chain_spec *spec, int nt, void *scratch, uint64_t *total);

/* [*b, *e): tile t of n items cut into tiles of `tile` items (the last
 * one shorter). */
static inline void pp_cpu_tile_range(size_t n, size_t tile, size_t t, size_t *b, size_t *e)
{
    *b = t * tile;
    *e = n - *b < tile ? n : *b + tile;
}

/* The length of tile t (pp_cpu_tile_range). */
static inline size_t pp_cpu_tile_len(size_t n, size_t tile, size_t t)
{
    size_t b, e;
    pp_cpu_tile_range(n, tile, t, &b, &e);
    return e - b;
}

/* Runs fn(job, tile, thread) for every tile in [0, ntiles) on up to nt
 * threads that claim tiles one at a time (thread: 0 .. nt-1, for private
 * state). Returns the number of threads that took part. */
typedef void (*pp_cpu_tile_fn)(const void *job, size_t tile, int thread);
int pp_cpu_for_tiles(int nt, size_t ntiles, pp_cpu_tile_fn fn, const void *job);

/* ---- reading ahead ----------------------------------------------------------------
 * Loops that stream through an array ask for the line PP_CPU_AHEAD bytes
 * ahead, once per line they read: the hardware prefetcher alone left a
 * digit count from memory far slower than in cache (bench/studies/cpu-memory-bound.md,
 * "cpu: compaction, sort and read-ahead against copy and np.sort"). A
 * prefetch past the end of an array is harmless (it never faults). */
#define PP_CPU_AHEAD 4096
#if defined(__GNUC__) || defined(__clang__)
#define PP_CPU_PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define PP_CPU_PREFETCH(p) ((void)(p))
#endif

/* Outputs of this many bytes or more are written with streaming stores
 * (compaction, the sort's buckets): they would not stay in the caches. */
#define PP_CPU_STREAM_BYTES ((size_t)16 << 20)

/* dst[0, bytes) = src[0, bytes): the whole 64-byte lines of dst with
 * streaming stores (no read for ownership; the lines go to memory, not to
 * the cache), the partial lines at either end with plain copies. For
 * outputs larger than the caches. */
void pp_cpu_copy_stream(void *dst, const void *src, size_t bytes);

/* ---- vector instructions ----------------------------------------------------------
 * The library is compiled for generic x86-64; kernels written with AVX-512
 * or AVX2 intrinsics carry PP_CPU_AVX512 or PP_CPU_AVX2 (a target
 * attribute: that function alone is compiled for it, and so must be every
 * inline function it calls) and run only where pp_cpu_avx512() or
 * pp_cpu_avx2() finds the instructions. Elsewhere, or built with
 * -DPP_CPU_NO_AVX512, the plain C loops run. PARPRIM_CPU_NO_AVX512=1 (or
 * any value but 0) in the environment makes pp_cpu_avx512() say no, so an
 * AVX-512 machine takes the paths of an AVX2-only one (docs/backends.md). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(PP_CPU_NO_AVX512)
#define PP_CPU_HAVE_AVX512 1
#include <immintrin.h>
#define PP_CPU_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")))
#define PP_CPU_AVX2 __attribute__((target("avx2,popcnt,bmi,bmi2")))
/* pp_cpu_avx512() (cpu_tiles.c): the processor's answer and the
 * environment's, read once. */
int pp_cpu_avx512(void);
static inline int pp_cpu_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
#define PP_CPU_HAVE_AVX512 0
static inline int pp_cpu_avx512(void) { return 0; }
static inline int pp_cpu_avx2(void) { return 0; }
#endif

#endif
