/* pp bench: clock, timed runs, --load processes, copy timing (see timing.h). */
#include "timing.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double now_seconds(void)
{
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Warm-up, then timed runs: exactly plan->repeat; or, adaptive (the
 * default), as many as fit the budget B: stop once there are
 * ADAPTIVE_RUNS runs that took B/10 together, or MIN_REPEAT_ADAPTIVE
 * runs that took B, or any number that took 3B; never more than
 * MAX_REPEAT_ADAPTIVE. Short calls thus get many samples, long ones few. */
pp_status time_runs(pp_context *ctx, const time_plan *plan, run_fn fn, void *arg, int warmups, timing *t)
{
    double sec, total = 0, v[MAX_REPEAT_ADAPTIVE > 256 ? MAX_REPEAT_ADAPTIVE : 256];
    pp_status st;
    for (int i = 0; i < warmups; i++)
        if ((st = fn(ctx, arg, &sec)) != PP_SUCCESS) return st;
    int max = plan->repeat ? plan->repeat : MAX_REPEAT_ADAPTIVE;
    int k = 0;
    while (k < max) {
        if ((st = fn(ctx, arg, &sec)) != PP_SUCCESS) return st;
        v[k++] = sec;
        total += sec;
        if (!plan->repeat && ((k >= ADAPTIVE_RUNS && total >= 0.1 * plan->budget) ||
                              (k >= MIN_REPEAT_ADAPTIVE && total >= plan->budget) || total >= 3 * plan->budget))
            break;
    }
    t->min = v[0];
    for (int i = 1; i < k; i++)
        if (v[i] < t->min) t->min = v[i];
    t->median = median_of(v, k);
    t->repeats = k;
    return PP_SUCCESS;
}

void load_stop(load_set *l)
{
    for (int i = 0; i < l->running; i++) kill(l->pids[i], SIGKILL);
    for (int i = 0; i < l->running; i++) waitpid(l->pids[i], NULL, 0);
    l->running = 0;
}

int load_start(load_set *l, int n)
{
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p < 0) {
            load_stop(l);
            return -1;
        }
        if (p == 0) {
            volatile uint64_t x = 0;
            for (;;) x = x * 6364136223846793005ull + 1;
        }
        l->pids[l->running++] = p;
    }
    struct timespec ts = {0, 50 * 1000 * 1000}; /* let the scheduler spread them */
    nanosleep(&ts, NULL);
    return 0;
}

static pp_status copy_run_fn(pp_context *ctx, void *arg, double *sec)
{
    copy_bench *cb = (copy_bench *)arg;
    double t0 = now_seconds();
    pp_status st = pp_copy(ctx, cb->dst, cb->src, cb->bytes);
    if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    *sec = now_seconds() - t0;
    return st;
}

void copy_bench_free(pp_context *ctx, copy_bench *cb)
{
    pp_free(ctx, cb->src);
    pp_free(ctx, cb->dst);
    memset(cb, 0, sizeof *cb);
}

/* Grows the buffers to bytes, their pages touched (by an upload). */
static pp_status copy_grow(pp_context *ctx, copy_bench *cb, size_t bytes)
{
    copy_bench_free(ctx, cb);
    pp_status st = pp_malloc(ctx, &cb->src, bytes);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &cb->dst, bytes);
    if (st == PP_SUCCESS) {
        /* The content does not matter for a copy, but the pages must exist. */
        unsigned char *h = (unsigned char *)calloc(1, bytes);
        st = h ? pp_upload(ctx, cb->src, h, bytes) : PP_ERROR_OUT_OF_MEMORY;
        if (st == PP_SUCCESS) st = pp_upload(ctx, cb->dst, h, bytes);
        free(h);
    }
    if (st != PP_SUCCESS) {
        copy_bench_free(ctx, cb);
        return st;
    }
    cb->cap = bytes;
    return PP_SUCCESS;
}

pp_status copy_time(pp_context *ctx, copy_bench *cb, const time_plan *plan, size_t bytes, double *sec)
{
    if (bytes > cb->cap) {
        pp_status st = copy_grow(ctx, cb, bytes);
        if (st != PP_SUCCESS) return st;
    }
    cb->bytes = bytes;
    timing t = {0, 0, 0};
    pp_status st = time_runs(ctx, plan, copy_run_fn, cb, 1, &t);
    if (st == PP_SUCCESS) *sec = t.median;
    return st;
}
