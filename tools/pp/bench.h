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
 * "copy fraction" is t_copy / t_primitive, where t_copy is the time pp_copy
 * takes to copy bytes/2 from one buffer to another (so it also moves
 * `bytes`: one read and one write), measured in the same run with the same
 * timing method. 1.0 means the primitive is as fast as a copy of its data.
 *
 * The files: bench.c (the command: the run and its rows), bench_options.c
 * (options and help), bench_case.c (one case: its buffers, the call, the
 * check), bench_data.c (input data), timing.c, report.c (table and JSON).
 */
#ifndef PP_BENCH_H
#define PP_BENCH_H

#include "parprim.h"
#include "timing.h"

#include <stddef.h>
#include <stdint.h>

#define HIST_EVEN_BINS 1024
#define HIST_RANGE_BINS 64
#define MAX_BINS ((size_t)1 << 24)
#define SORT_VALUE_SIZE 4
#define MAX_SIZES 16

/* What a row benchmarks: a primitive, or one form of it. */
typedef enum variant {
    V_REDUCE, V_SCAN_INCL, V_SCAN_EXCL, V_HIST_EVEN, V_HIST_RANGE, V_SELECT_IF,
    V_SELECT_FLAGGED, V_UNIQUE, V_PARTITION_IF, V_SORT_KEYS, V_SORT_PAIRS,
    V_SORT_KEYS_COPY, /* pp_sort_copy; by its name only (in no group) */
    V_COUNT
} variant;

typedef struct variant_info {
    const char *name;
    pp_primitive prim;
    int uses_op;
} variant_info;

extern const variant_info VARIANTS[V_COUNT];

/* Histogram data sets (--data), after the three of the course notes'
 * histogram measurements: random, increasing (sample i in bin i mod B),
 * constant (every sample in one bin: all atomics hit one counter). */
typedef enum dataset { D_RAND, D_INC, D_CONST, D_COUNT } dataset;

extern const char *const DATASET_NAMES[D_COUNT];

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
