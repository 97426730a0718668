/* cpu sort: the per-type kernels (radix keys, the bits sweep, digit
 * counts, the sample, scatters, in-cache buckets) instantiated from the
 * template cpu_sort.inc for every type of the list (cpu_instances.h), and
 * their tables; the float kernels twice more, for keys without a NaN and
 * for PP_DESCENDING_NAN_LAST. The passes that call them are plain C over
 * the tables (cpu_sort.h lists the files; docs/backends.md, "sort", says
 * how the sort works). */
#include "cpu_sort.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A bucket's runs of keys equal in its top digits of this many keys at
 * most are put in order by insertion (cpu_sort_scatter.inc's fix-up),
 * longer ones by passes. */
#define FIXUP_RUN 16

/* A bucket's LSD digits: BUCKET_W bits at most for keys alone,
 * BUCKET_W_VALUES with values (each digit writes two streams). 9 lets a
 * bucket of 17 or 18 bits take 2 passes instead of 3 (floats' buckets
 * below the top binade have such spans); 10 and 11 bits were no better
 * (bench/studies/cpu-sort.md, "cpu sort: 9-bit digits in the buckets of keys
 * alone"). */
#define BUCKET_W 9
#define BUCKET_W_VALUES 8

/* A bucket's digit offsets: off[d] = the sum of cnt[0, d) for d < nd (off
 * may be cnt). */
static inline void bucket_offsets(uint32_t *off, const uint32_t *cnt, unsigned nd)
{
    uint32_t run = 0;
    for (unsigned d = 0; d < nd; d++) {
        const uint32_t c = cnt[d];
        off[d] = run;
        run += c;
    }
}

/* Copies one 64-byte line from an aligned buffer to aligned memory. */
static inline void pp_line_store(void *dst, const void *src, int stream)
{
#if defined(__SSE2__)
    if (stream) {
        const __m128i *s = (const __m128i *)src;
        __m128i *d = (__m128i *)dst;
        _mm_stream_si128(d, _mm_load_si128(s));
        _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
        _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
        _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
        return;
    }
#endif
    (void)stream;
    memcpy(dst, src, WC_LINE);
}

static inline void pp_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* The first of the len keys of the sample's run i, in the stride of
 * stride >= len keys from b + i * stride: a place that a hash of i picks. */
static inline size_t sample_at(size_t b, size_t stride, size_t len, size_t i)
{
    const uint64_t hash = ((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    return b + i * stride + (size_t)((hash >> 32) % (stride - len + 1));
}

#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"
/* The float kernels once more, for keys without a NaN (names ending _nn). */
#define PP_SORT_NONAN
#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"
#undef PP_SORT_NONAN

/* The float kernels once more for PP_DESCENDING_NAN_LAST (names ending
 * _nl): every NaN's radix key below -inf's, so that the descending mask
 * puts NaNs after every other key. */
#define PP_SORT_NAN_LOW
#define PP_CPU_TEMPLATE "cpu_sort.inc"
#include "cpu_each_type.inc"
#undef PP_SORT_NAN_LOW

/* The tables: the X-macro of types.h over the names the template defined
 * (sort_nonan and sort_nan_low: the float types only). */
#define SORT_KERNELS(S, nn) \
    count_at_##S##nn, sample_##S##nn, scatter_##S##nn, fill_digit_##S##nn, bucket_##S##nn, insert_##S##nn
/* (no bits sweep: it always runs the full kernels, which note the NaNs) */
#define SORT_NONAN_FLOAT(E, T, S) [E] = {sizeof(T), 0, NULL, NULL, SORT_KERNELS(S, _nn)},
#define SORT_NONAN_SINT(E, T, S)
#define SORT_NONAN_UINT(E, T, S)
#define SORT_NONAN_ENTRY(E, T, S, K, U, W) SORT_NONAN_##K(E, T, S)
static const sort_kernels sort_nonan[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_NONAN_ENTRY)};
#define SORT_NONAN_PTR_FLOAT(E) &sort_nonan[E]
#define SORT_NONAN_PTR_SINT(E) NULL
#define SORT_NONAN_PTR_UINT(E) NULL
#define SORT_ENTRY(E, T, S, K, U, W) \
    [E] = {sizeof(T), PP_KIND_##K != PP_KIND_FLOAT, SORT_NONAN_PTR_##K(E), bits_##S, SORT_KERNELS(S, )},
static const sort_kernels sort_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_ENTRY)};
/* (without a NaN, the keys of PP_DESCENDING_NAN_LAST sort as PP_DESCENDING's) */
#define SORT_NAN_LOW_FLOAT(E, T, S) [E] = {sizeof(T), 0, &sort_nonan[E], bits_##S##_nl, SORT_KERNELS(S, _nl)},
#define SORT_NAN_LOW_SINT(E, T, S)
#define SORT_NAN_LOW_UINT(E, T, S)
#define SORT_NAN_LOW_ENTRY(E, T, S, K, U, W) SORT_NAN_LOW_##K(E, T, S)
static const sort_kernels sort_nan_low[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SORT_NAN_LOW_ENTRY)};

const sort_kernels *pp_cpu_sort_kernels(pp_type t, pp_order o)
{
    if (o == PP_DESCENDING_NAN_LAST && sort_nan_low[t].size) return &sort_nan_low[t];
    return &sort_table[t]; /* integers: PP_DESCENDING_NAN_LAST is PP_DESCENDING */
}
