/* cpu compaction (cpu_select.c): the job its tiles share, and the vector
 * kernels' interface, which the AVX-512 kernels (cpu_select.c) and the AVX2
 * ones (cpu_select_avx2.c) implement. */
#ifndef PP_CPU_SELECT_H
#define PP_CPU_SELECT_H

#include "cpu_tiles.h"

/* Predicates: the six comparisons keep their pp_cmp values. */
enum { MC_FLAG = 6, MC_UNIQUE = 7 };

/* Per type: counts, and writes, the elements of [b, e) that predicate mc
 * selects (to sel; with part the others to rej); unique looks at in[b - 1]. */
typedef struct sel_kernels {
    size_t (*count)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e, int mc);
    size_t (*write)(const void *in, const uint8_t *fl, const void *v, size_t b, size_t e, void *sel, void *rej, int mc,
                    int part);
} sel_kernels;

typedef struct select_job select_job;
typedef size_t (*vec_kernel)(const select_job *j, size_t b, size_t e, size_t sel, size_t rej, int mode);
struct select_job {
    const sel_kernels *k;
    vec_kernel vec; /* AVX-512 or AVX2 loops, or NULL: the table's */
    int mc, part;
    const char *in;
    const uint8_t *flags;
    const void *value;
    char *out;
    size_t n, size;
    uint64_t *tile_count; /* partition: the selected count of each tile */
    uint64_t *offset;     /* partition: selected before each tile */
    uint64_t total;       /* partition */
    int stream;           /* vector kernels: write whole output lines with streaming stores */
    size_t tile;          /* elements per tile */
    char *stage;          /* select, unique: per thread, `tile` elements (select_own) */
};

/* What a vector kernel does with a range: counts (VEC_COUNT), or writes the
 * selected of [b, e) from out[sel] and with VEC_PARTITION the rejected from
 * out[rej]; it returns the selected. */
enum { VEC_COUNT, VEC_SELECT, VEC_PARTITION };

/* The mask of F(x, y, P) for the predicate P of comparison mc, returned. */
#define VEC_CMP_(F, x, y, mc, LT, LE, GT, GE, EQ, NE) \
    switch (mc) {                                     \
    case PP_LT:                                       \
        return F(x, y, LT);                           \
    case PP_LE:                                       \
        return F(x, y, LE);                           \
    case PP_GT:                                       \
        return F(x, y, GT);                           \
    case PP_GE:                                       \
        return F(x, y, GE);                           \
    case PP_EQ:                                       \
        return F(x, y, EQ);                           \
    default:                                          \
        return F(x, y, NE);                           \
    }
/* One vector kernel per element width W and kind K: LOOP(j, b, e, sel, rej,
 * W, K, mc, mode), a loop per predicate and mode (each a compile-time
 * constant in it), compiled for ATTR. */
#define VEC_MODES_(LOOP, MC, W, K)                                                  \
    case MC:                                                                        \
        return mode == VEC_COUNT    ? LOOP(j, b, e, sel, rej, W, K, MC, VEC_COUNT)  \
               : mode == VEC_SELECT ? LOOP(j, b, e, sel, rej, W, K, MC, VEC_SELECT) \
                                    : LOOP(j, b, e, sel, rej, W, K, MC, VEC_PARTITION);
#define VEC_KERNEL_(ATTR, NAME, LOOP, W, K)                                                                         \
    ATTR static size_t NAME(const select_job *j, size_t b, size_t e, size_t sel, size_t rej, int mode)              \
    {                                                                                                               \
        switch (j->mc) {                                                                                            \
            VEC_MODES_(LOOP, PP_LT, W, K)                                                                           \
            VEC_MODES_(LOOP, PP_LE, W, K) VEC_MODES_(LOOP, PP_GT, W, K) VEC_MODES_(LOOP, PP_GE, W, K)               \
                VEC_MODES_(LOOP, PP_EQ, W, K) VEC_MODES_(LOOP, PP_NE, W, K) VEC_MODES_(LOOP, MC_FLAG, W, K) default \
                : return LOOP(j, b, e, sel, rej, W, K, MC_UNIQUE, mode == VEC_COUNT ? VEC_COUNT : VEC_SELECT);      \
        }                                                                                                           \
    }
/* The six kernels (4 and 8 bytes; signed, unsigned, float) and the choice
 * among them by type: NULL for other sizes. */
#define VEC_KERNELS_(ATTR, PREFIX, LOOP)                                                                \
    VEC_KERNEL_(ATTR, PREFIX##_4_sint, LOOP, 4, PP_KIND_SINT)                                           \
    VEC_KERNEL_(ATTR, PREFIX##_4_uint, LOOP, 4, PP_KIND_UINT)                                           \
    VEC_KERNEL_(ATTR, PREFIX##_4_float, LOOP, 4, PP_KIND_FLOAT)                                         \
    VEC_KERNEL_(ATTR, PREFIX##_8_sint, LOOP, 8, PP_KIND_SINT)                                           \
    VEC_KERNEL_(ATTR, PREFIX##_8_uint, LOOP, 8, PP_KIND_UINT)                                           \
    VEC_KERNEL_(ATTR, PREFIX##_8_float, LOOP, 8, PP_KIND_FLOAT)                                         \
    static vec_kernel PREFIX##_of(pp_type type)                                                         \
    {                                                                                                   \
        static const vec_kernel by_kind[2][3] = {{PREFIX##_4_sint, PREFIX##_4_uint, PREFIX##_4_float},  \
                                                 {PREFIX##_8_sint, PREFIX##_8_uint, PREFIX##_8_float}}; \
        const size_t size = pp_type_size(type);                                                         \
        return size == 4 || size == 8 ? by_kind[size == 8][pp_type_kind(type)] : NULL;                  \
    }

#if PP_CPU_HAVE_AVX512
/* The AVX2 kernel of the type (cpu_select_avx2.c), or NULL where the
 * processor lacks AVX2 or the type is not of 4 or 8 bytes. */
vec_kernel pp_cpu_select_avx2(pp_type type);
#endif

#endif
