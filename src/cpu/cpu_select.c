/* cpu stream compaction: select_flagged, select_if, unique, partition_if.
 *
 * PP_ALGO_AUTO: each thread counts the selected elements of its part of the
 * input, the counts are scanned, and each thread writes its selected
 * elements from its offset (partition: its rejected ones from
 * total + offset). Writes go through a small buffer filled without
 * branches, so a random predicate costs no branch mispredictions.
 * PP_ALGO_SEQUENTIAL: the same loop on one thread.
 */
#include "cpu_internal.h"

#include <omp.h>

#if defined(__GNUC__) || defined(__clang__)
#define PP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PP_ALWAYS_INLINE inline
#endif

#define SEL_BUF 256

/* Predicate codes: the six comparisons keep their pp_cmp values. */
enum { MC_FLAG = 6, MC_UNIQUE = 7 };

#define DEF_SELECT(E, T, S, K, U, W)                                                               \
    static PP_ALWAYS_INLINE int pred_##S(int mc, const T *in, const uint8_t *fl, T v, size_t i)    \
    {                                                                                              \
        switch (mc) {                                                                              \
        case PP_LT: return in[i] < v;                                                              \
        case PP_LE: return in[i] <= v;                                                             \
        case PP_GT: return in[i] > v;                                                              \
        case PP_GE: return in[i] >= v;                                                             \
        case PP_EQ: return in[i] == v;                                                             \
        case PP_NE: return in[i] != v;                                                             \
        case MC_FLAG: return fl[i] != 0;                                                           \
        default: return i == 0 || in[i] != in[i - 1];                                              \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static PP_ALWAYS_INLINE size_t count_loop_##S(int mc, const T *in, const uint8_t *fl, T v,     \
                                                  size_t b, size_t e)                              \
    {                                                                                              \
        size_t c = 0;                                                                              \
        for (size_t i = b; i < e; i++) c += (size_t)pred_##S(mc, in, fl, v, i);                    \
        return c;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* Writes the selected of [b, e) to sel and, if part, the rest to rej. */                      \
    static PP_ALWAYS_INLINE size_t write_loop_##S(int mc, int part, const T *in, const uint8_t *fl, \
                                                  T v, size_t b, size_t e, T *sel, T *rej)         \
    {                                                                                              \
        T bs[SEL_BUF + 1], br[SEL_BUF + 1];                                                        \
        size_t ks = 0, kr = 0, total = 0;                                                          \
        for (size_t i = b; i < e; i++) {                                                           \
            T x = in[i];                                                                           \
            int p = pred_##S(mc, in, fl, v, i);                                                    \
            bs[ks] = x;                                                                            \
            ks += (size_t)p;                                                                       \
            if (part) {                                                                            \
                br[kr] = x;                                                                        \
                kr += (size_t)!p;                                                                  \
                if (kr == SEL_BUF) {                                                               \
                    memcpy(rej, br, sizeof br - sizeof br[0]);                                     \
                    rej += SEL_BUF;                                                                \
                    kr = 0;                                                                        \
                }                                                                                  \
            }                                                                                      \
            if (ks == SEL_BUF) {                                                                   \
                memcpy(sel, bs, sizeof bs - sizeof bs[0]);                                         \
                sel += SEL_BUF;                                                                    \
                total += SEL_BUF;                                                                  \
                ks = 0;                                                                            \
            }                                                                                      \
        }                                                                                          \
        memcpy(sel, bs, ks * sizeof(T));                                                           \
        if (part) memcpy(rej, br, kr * sizeof(T));                                                 \
        return total + ks;                                                                         \
    }                                                                                              \
                                                                                                   \
    static size_t count_##S(int mc, const T *in, const uint8_t *fl, T v, size_t b, size_t e)      \
    {                                                                                              \
        switch (mc) {                                                                              \
        case 0: return count_loop_##S(0, in, fl, v, b, e);                                         \
        case 1: return count_loop_##S(1, in, fl, v, b, e);                                         \
        case 2: return count_loop_##S(2, in, fl, v, b, e);                                         \
        case 3: return count_loop_##S(3, in, fl, v, b, e);                                         \
        case 4: return count_loop_##S(4, in, fl, v, b, e);                                         \
        case 5: return count_loop_##S(5, in, fl, v, b, e);                                         \
        case 6: return count_loop_##S(6, in, fl, v, b, e);                                         \
        default: return count_loop_##S(7, in, fl, v, b, e);                                        \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static size_t write_##S(int mc, int part, const T *in, const uint8_t *fl, T v, size_t b,       \
                            size_t e, T *sel, T *rej)                                              \
    {                                                                                              \
        if (part) {                                                                                \
            switch (mc) {                                                                          \
            case 0: return write_loop_##S(0, 1, in, fl, v, b, e, sel, rej);                        \
            case 1: return write_loop_##S(1, 1, in, fl, v, b, e, sel, rej);                        \
            case 2: return write_loop_##S(2, 1, in, fl, v, b, e, sel, rej);                        \
            case 3: return write_loop_##S(3, 1, in, fl, v, b, e, sel, rej);                        \
            case 4: return write_loop_##S(4, 1, in, fl, v, b, e, sel, rej);                        \
            default: return write_loop_##S(5, 1, in, fl, v, b, e, sel, rej);                       \
            }                                                                                      \
        }                                                                                          \
        switch (mc) {                                                                              \
        case 0: return write_loop_##S(0, 0, in, fl, v, b, e, sel, rej);                            \
        case 1: return write_loop_##S(1, 0, in, fl, v, b, e, sel, rej);                            \
        case 2: return write_loop_##S(2, 0, in, fl, v, b, e, sel, rej);                            \
        case 3: return write_loop_##S(3, 0, in, fl, v, b, e, sel, rej);                            \
        case 4: return write_loop_##S(4, 0, in, fl, v, b, e, sel, rej);                            \
        case 5: return write_loop_##S(5, 0, in, fl, v, b, e, sel, rej);                            \
        case 6: return write_loop_##S(6, 0, in, fl, v, b, e, sel, rej);                            \
        default: return write_loop_##S(7, 0, in, fl, v, b, e, sel, rej);                           \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static pp_status select_##S(pp_context *ctx, const pp_select_args *a)                          \
    {                                                                                              \
        const T *in = (const T *)a->in;                                                            \
        T *out = (T *)a->out;                                                                      \
        T v = 0;                                                                                   \
        if (a->value) memcpy(&v, a->value, sizeof v);                                              \
        const int part = a->mode == PP_SELECT_PARTITION;                                           \
        const int mc = a->mode == PP_SELECT_FLAGGED ? MC_FLAG                                      \
                       : a->mode == PP_SELECT_UNIQUE ? MC_UNIQUE : (int)a->cmp;                    \
        const size_t n = a->n;                                                                     \
        if (n == 0) { /* out may be NULL */                                                        \
            *a->count = 0;                                                                         \
            return PP_SUCCESS;                                                                     \
        }                                                                                          \
        int nt = pp_cpu_sequential(ctx, PP_PRIM_SELECT) ? 1 : pp_cpu_threads_for(ctx, n, 1 << 15); \
        size_t total;                                                                              \
        if (nt <= 1) {                                                                             \
            total = part ? count_##S(mc, in, a->flags, v, 0, n) : 0;                               \
            total = write_##S(mc, part, in, a->flags, v, 0, n, out, part ? out + total : NULL);    \
        } else {                                                                                   \
            size_t *cnt = (size_t *)pp_cpu_scratch(ctx, (size_t)nt * sizeof(size_t), "select");    \
            if (!cnt) return PP_ERROR_OUT_OF_MEMORY;                                               \
            _Pragma("omp parallel num_threads(nt)")                                                \
            {                                                                                      \
                size_t t = (size_t)omp_get_thread_num(), b, e, off = 0, all = 0;                   \
                pp_cpu_part(n, (size_t)nt, t, &b, &e);                                             \
                cnt[t] = count_##S(mc, in, a->flags, v, b, e);                                     \
                _Pragma("omp barrier")                                                             \
                for (size_t u = 0; u < (size_t)nt; u++) {                                          \
                    if (u < t) off += cnt[u];                                                      \
                    all += cnt[u];                                                                 \
                }                                                                                  \
                write_##S(mc, part, in, a->flags, v, b, e, out + off,                              \
                          part ? out + all + (b - off) : NULL);                                    \
            }                                                                                      \
            total = 0;                                                                             \
            for (int u = 0; u < nt; u++) total += cnt[u];                                          \
        }                                                                                          \
        *a->count = (uint64_t)total;                                                               \
        return PP_SUCCESS;                                                                         \
    }

PP_FOR_EACH_TYPE(DEF_SELECT)

typedef pp_status (*select_fn)(pp_context *, const pp_select_args *);
#define SELECT_ENTRY(E, T, S, K, U, W) [E] = select_##S,
static const select_fn select_table[PP_TYPE_COUNT] = {PP_FOR_EACH_TYPE(SELECT_ENTRY)};

pp_status pp_cpu_select(pp_context *ctx, const pp_select_args *a)
{
    return select_table[a->type](ctx, a);
}
