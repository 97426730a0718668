/*
 * pp bench: the clock, the timed runs and their median, the busy processes
 * of --load, and the pp_copy timing that every row is compared with.
 */
#ifndef PP_TIMING_H
#define PP_TIMING_H

#include "parprim.h"

#include <stddef.h>
#include <sys/types.h>

/* Adaptive timing (the default; see time_runs). */
#define ADAPTIVE_RUNS 10
#define MIN_REPEAT_ADAPTIVE 3
#define MAX_REPEAT_ADAPTIVE 200

/* --load: at most this many busy processes. */
#define LOAD_MAX 64

/* Seconds on a monotonic clock. */
double now_seconds(void);

/* The median of v[0 .. n-1] (n >= 1); sorts v. */
double median_of(double *v, int n);

/* How many timed runs: repeat of them, or, with repeat 0, as many as fit
 * budget seconds (see time_runs). */
typedef struct time_plan {
    int repeat;
    double budget;
} time_plan;

/* One run: prepares (untimed) and times one call; *sec is its time. */
typedef pp_status (*run_fn)(pp_context *ctx, void *arg, double *sec);

typedef struct timing {
    double median, min;
    int repeats;
} timing;

/* warmups untimed runs, then the timed runs of plan; their median and
 * minimum in *t. Stops at the first run that fails and returns its status. */
pp_status time_runs(pp_context *ctx, const time_plan *plan, run_fn fn, void *arg, int warmups, timing *t);

/* --load: busy processes (one spinning loop each) that share the cores
 * with the timed runs, started before and killed after each loaded timing. */
typedef struct load_set {
    pid_t pids[LOAD_MAX];
    int running;
} load_set;

/* Starts n (<= LOAD_MAX) busy processes; returns 0, or -1 (none left
 * running) if one cannot be started. */
int load_start(load_set *l, int n);
/* Kills and reaps them. */
void load_stop(load_set *l);

/* Two context buffers for the copy timing, kept and grown as needed. */
typedef struct copy_bench {
    void *dst, *src;
    size_t bytes, cap;
} copy_bench;

/* The median time of a pp_copy of bytes bytes (with 1 warm-up run),
 * measured anew for every row, right after the primitive, so that both see
 * the same machine. */
pp_status copy_time(pp_context *ctx, copy_bench *cb, const time_plan *plan, size_t bytes, double *sec);
void copy_bench_free(pp_context *ctx, copy_bench *cb);

#endif
