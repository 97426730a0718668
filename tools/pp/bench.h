/*
 * pp bench: check every primitive against the sequential reference, then
 * time it and compare it with a plain device-to-device copy.
 *
 * Byte model (the bytes a primitive must move at the least: every input
 * read once, every output written once), used for GB/s and for the copy
 * comparison; s = element size, n = elements, k = elements selected:
 *
 *   reduce             n*s
 *   scan               2*n*s                      read in, write out
 *   histogram          n*s + nbins*8              read samples, write counts
 *   select_if, unique  n*s + k*s
 *   select_flagged     n*s + n + k*s              plus one flag byte each
 *   partition_if       2*n*s                      every element is written
 *   sort (keys)        2*n*s                      one read and one write
 *                                                 (sort_keys_copy too)
 *   sort_pairs         2*n*s + 2*n*value_size
 *
 * The segmented and by-key forms (nseg segments or runs; offsets are
 * nseg + 1 u64; keys and values are both of the row's type, ks = vs = s):
 *
 *   segmented_reduce   n*s + (nseg+1)*8 + nseg*s   in, offsets, out
 *   segmented_scan     2*n*s + (nseg+1)*8          inclusive
 *   reduce_by_key      n*ks + n*vs + runs*(ks+vs) + 8   keys, values, one
 *                                                 row per run, the count
 *   scan_by_key        n*ks + 2*n*vs               inclusive
 *   run_length_encode  n*s + runs*(s+8) + 8        a value and a u64
 *                                                 count per run, the count
 *   argsort            n*s + n*8                   keys read, u64 indices
 *   segmented_sort     2*n*s + (nseg+1)*8          as sort, plus offsets
 *   segmented_sort_pairs  2*n*s + 2*n*value_size + (nseg+1)*8
 *
 * "copy fraction" is t_copy / t_primitive, where t_copy is the time pp_copy
 * takes to copy bytes/2 from one buffer to another (so it also moves
 * `bytes`: one read and one write), measured in the same run with the same
 * timing method. 1.0 means the primitive is as fast as a copy of its data.
 *
 * The files: bench.c (the command: the run and its rows), bench_options.c
 * (options and help), bench_case.c (one case: its buffers, the call, the
 * check), bench_keyed.c (the same for the segmented, by-key and argsort
 * variants), bench_data.c (input data), timing.c, report.c (table and
 * JSON).
 */
#ifndef PP_BENCH_H
#define PP_BENCH_H

#include "bench_data.h"
#include "parprim.h"
#include "timing.h"

#include <stddef.h>
#include <stdint.h>

#define HIST_EVEN_BINS 1024
#define HIST_RANGE_BINS 64
#define MAX_BINS ((size_t)1 << 24)
#define SORT_VALUE_SIZE 4
#define MAX_SIZES 16
#define MAX_LAYOUTS 8

/* What a row benchmarks: a primitive, or one form of it. */
typedef enum variant {
    V_REDUCE, V_SCAN_INCL, V_SCAN_EXCL, V_HIST_EVEN, V_HIST_RANGE, V_SELECT_IF,
    V_SELECT_FLAGGED, V_UNIQUE, V_PARTITION_IF, V_SORT_KEYS, V_SORT_PAIRS,
    V_SORT_KEYS_COPY, /* pp_sort_copy; by its name only (in no group) */
    /* bench_keyed.c: group segmented, */
    V_SEG_REDUCE, V_SEG_SCAN, V_SEG_SORT, V_SEG_SORT_PAIRS,
    /* group bykey, */
    V_REDUCE_BY_KEY, V_SCAN_BY_KEY, V_RLE,
    V_ARGSORT,
    V_COUNT
} variant;

#define V_KEYED_FIRST V_SEG_REDUCE
#define variant_is_keyed(v) ((v) >= V_KEYED_FIRST)

typedef struct variant_info {
    const char *name;
    pp_primitive prim; /* whose pp_set_algorithm choice the call follows */
    int uses_op;
    int uses_layout;   /* one row per --segments layout */
} variant_info;

extern const variant_info VARIANTS[V_COUNT];

/* Histogram data sets (--data), after the three of the course notes'
 * histogram measurements: random, increasing (sample i in bin i mod B),
 * constant (every sample in one bin: all atomics hit one counter). */
typedef enum dataset { D_RAND, D_INC, D_CONST, D_COUNT } dataset;

extern const char *const DATASET_NAMES[D_COUNT];

/* A segment layout (--segments): avg<N>, fixed<N> or powerlaw (see
 * data_segments); by-key variants get runs of equal keys laid out alike. */
typedef struct seg_layout {
    data_layout kind;
    size_t len;    /* avg, fixed: the length */
    char name[24]; /* as given: the rows' label and JSON "data" */
} seg_layout;

/* The settings of a run: the options, read once (bench_options.c). */
typedef struct config {
    pp_backend backend;
    int device;
    int threads;
    int variants[V_COUNT];
    int types[PP_TYPE_COUNT];
    int ops[PP_OP_COUNT];
    int algos[PP_ALGO_COUNT];
    int algo_all;      /* --algorithm all: skip those the backend lacks */
    size_t sizes[MAX_SIZES];
    int nsizes;
    int sweep, sweep_large;
    time_plan plan;    /* --repeat (0: adaptive, see time_runs) and --budget */
    int warmup;
    uint64_t seed;
    const char *json;
    int quiet;
    size_t bins;       /* --bins: 0 = the defaults HIST_EVEN_BINS, HIST_RANGE_BINS */
    int datas[D_COUNT];/* --data: histogram data sets, in the order given */
    int ndatas;
    seg_layout layouts[MAX_LAYOUTS]; /* --segments, in the order given */
    int nlayouts;
    int load;          /* --load N: also time each row beside N busy processes */
    /* Derived from the above once they are read: */
    int show_data;     /* --data given: histogram labels name their data set */
    int show_vs_auto;  /* several algorithms with auto: the t/t_auto column */
    int show_load;     /* --load: the loaded columns */
} config;

/* Reads the options of pp bench into *cfg, with the defaults for those not
 * given. Returns CLI_PROCEED, or the exit status (help printed, or a usage
 * error). */
int bench_options(config *cfg, int argc, char **argv);

/* pp bench [options]; argv holds the arguments after "bench". */
int cmd_bench(int argc, char **argv);

#endif
