/* Dynamic tile claiming and the wait-free chained scan (see cpu_tiles.h). */
#include "cpu_tiles.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { HAS_VALUE = 1, HAS_INCLUSIVE = 2 };

/* Per tile: flags, the tile's value and its inclusive prefix (width words
 * each). Several threads may store a value or a prefix: they store the same
 * bits, word by word, before setting the flag. */
typedef struct chain_state {
    const pp_cpu_chain_spec *sp;
    _Atomic uint32_t *flag;
    _Atomic uint64_t *value;
    _Atomic uint64_t *inclusive;
} chain_state;

size_t pp_cpu_chain_scratch_bytes(size_t ntiles, size_t width)
{
    return ntiles * (sizeof(uint32_t) + 2 * width * sizeof(uint64_t)) + 64;
}

static void publish(const chain_state *s, _Atomic uint64_t *slots, size_t k, const uint64_t *v, uint32_t what)
{
    const size_t w = s->sp->width;
    for (size_t i = 0; i < w; i++) atomic_store_explicit(&slots[k * w + i], v[i], memory_order_relaxed);
    atomic_fetch_or_explicit(&s->flag[k], what, memory_order_release);
}

static void load(const chain_state *s, _Atomic uint64_t *slots, size_t k, uint64_t *v)
{
    const size_t w = s->sp->width;
    for (size_t i = 0; i < w; i++) v[i] = atomic_load_explicit(&slots[k * w + i], memory_order_relaxed);
}

static uint32_t flags(const chain_state *s, size_t k)
{
    return atomic_load_explicit(&s->flag[k], memory_order_acquire);
}

/* The value of tile k: the published one, or computed here from the input.
 * An owner writing in place publishes first and writes after, so if what
 * was read here raced with its writes, the flag shows the value by the time
 * it is checked again, and that value is taken instead. */
static void value_of(const chain_state *s, size_t k, uint64_t *v)
{
    if (flags(s, k) & HAS_VALUE) {
        load(s, s->value, k, v);
        return;
    }
    s->sp->value(s->sp->job, k, v);
    atomic_thread_fence(memory_order_acquire);
    if (flags(s, k) & HAS_VALUE) load(s, s->value, k, v);
    else publish(s, s->value, k, v, HAS_VALUE);
}

/* run = the fold of the values of tiles [0, t): from the nearest published
 * inclusive prefix, forward; publishes every inclusive prefix it passes. */
static void prefix_of(const chain_state *s, size_t t, uint64_t *run)
{
    const pp_cpu_chain_spec *sp = s->sp;
    uint64_t v[PP_CPU_CHAIN_MAX_WIDTH];
    size_t k = t;
    memcpy(run, sp->identity, sp->width * sizeof *run);
    while (k > 0) {
        if (flags(s, k - 1) & HAS_INCLUSIVE) {
            load(s, s->inclusive, k - 1, run);
            break;
        }
        k--;
    }
    for (; k < t; k++) {
        value_of(s, k, v);
        sp->combine(sp->job, run, v);
        if (!(atomic_load_explicit(&s->flag[k], memory_order_relaxed) & HAS_INCLUSIVE))
            publish(s, s->inclusive, k, run, HAS_INCLUSIVE);
    }
}

/* pp_cpu_chain on the calling thread: the tiles in order, each prefix the
 * running fold of the values before it (the same combinations, in the same
 * order, as every look-back makes), no state. */
static void chain_inline(const pp_cpu_chain_spec *sp, uint64_t *total)
{
    uint64_t v[PP_CPU_CHAIN_MAX_WIDTH], prefix[PP_CPU_CHAIN_MAX_WIDTH];
    memcpy(prefix, sp->identity, sp->width * sizeof *prefix);
    for (size_t t = 0; t < sp->ntiles; t++) {
        if (sp->own) sp->own(sp->job, t, v, 0);
        else sp->value(sp->job, t, v);
        sp->body(sp->job, t, prefix, v);
        sp->combine(sp->job, prefix, v);
    }
    if (total) memcpy(total, prefix, sp->width * sizeof *total);
}

void pp_cpu_chain(const pp_cpu_chain_spec *sp, int nt, void *scratch, uint64_t *total)
{
    const size_t ntiles = sp->ntiles, w = sp->width;
    if (nt <= 1 || ntiles <= 1) {
        chain_inline(sp, total);
        return;
    }
    chain_state s;
    s.sp = sp;
    s.value = (_Atomic uint64_t *)scratch;
    s.inclusive = s.value + ntiles * w;
    s.flag = (_Atomic uint32_t *)(s.inclusive + ntiles * w);
    for (size_t k = 0; k < ntiles; k++) atomic_init(&s.flag[k], 0);
    _Atomic size_t next;
    atomic_init(&next, 0);
    if ((size_t)nt > ntiles) nt = ntiles ? (int)ntiles : 1;
#pragma omp parallel num_threads(nt)
    {
        uint64_t v[PP_CPU_CHAIN_MAX_WIDTH], prefix[PP_CPU_CHAIN_MAX_WIDTH], incl[PP_CPU_CHAIN_MAX_WIDTH];
        const int me = omp_get_thread_num();
        for (;;) {
            size_t t = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
            if (t >= ntiles) break;
            if (sp->own) sp->own(sp->job, t, v, me);
            else sp->value(sp->job, t, v);
            publish(&s, s.value, t, v, HAS_VALUE);
            prefix_of(&s, t, prefix);
            memcpy(incl, prefix, w * sizeof *incl);
            sp->combine(sp->job, incl, v);
            publish(&s, s.inclusive, t, incl, HAS_INCLUSIVE);
            /* The value is visible before any output of this tile is. */
            atomic_thread_fence(memory_order_seq_cst);
            sp->body(sp->job, t, prefix, v);
        }
    }
    if (!total) return;
    if (ntiles) load(&s, s.inclusive, ntiles - 1, total);
    else memcpy(total, sp->identity, w * sizeof *total);
}

int pp_cpu_for_tiles(int nt, size_t ntiles, pp_cpu_tile_fn fn, const void *job)
{
    if ((size_t)nt > ntiles) nt = ntiles ? (int)ntiles : 1;
    if (nt <= 1) {
        for (size_t t = 0; t < ntiles; t++) fn(job, t, 0);
        return 1;
    }
    _Atomic size_t next;
    atomic_init(&next, 0);
#pragma omp parallel num_threads(nt)
    {
        const int me = omp_get_thread_num();
        for (;;) {
            size_t t = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
            if (t >= ntiles) break;
            fn(job, t, me);
        }
    }
    return nt;
}

void pp_cpu_copy_stream(void *dst_, const void *src_, size_t bytes)
{
    char *dst = (char *)dst_;
    const char *src = (const char *)src_;
#if defined(__SSE2__)
    size_t head = (64 - ((uintptr_t)dst & 63u)) & 63u;
    if (head > bytes) head = bytes;
    memcpy(dst, src, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64) {
        __m128i *d = (__m128i *)(void *)(dst + i);
        const __m128i *s = (const __m128i *)(const void *)(src + i);
        _mm_stream_si128(d, _mm_loadu_si128(s));
        _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
        _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
        _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
    }
    memcpy(dst + i, src + i, bytes - i);
    _mm_sfence();
#else
    memcpy(dst, src, bytes);
#endif
}

#if PP_CPU_HAVE_AVX512
int pp_cpu_avx512(void)
{
    static _Atomic int known; /* 0: not yet asked; 1: no; 2: yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        const char *off = getenv("PARPRIM_CPU_NO_AVX512");
        const int has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
        k = has && !(off && *off && strcmp(off, "0")) ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif
