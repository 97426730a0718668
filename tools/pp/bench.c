/* pp bench: the command (see bench.h). */
#include "bench.h"
#include "bench_case.h"
#include "bench_data.h"
#include "cli.h"
#include "info.h"
#include "report.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const variant_info VARIANTS[V_COUNT] = {
    {"reduce", PP_PRIM_REDUCE, 1, 0},
    {"scan_inclusive", PP_PRIM_SCAN, 1, 0},
    {"scan_exclusive", PP_PRIM_SCAN, 1, 0},
    {"histogram_even", PP_PRIM_HISTOGRAM, 0, 0},
    {"histogram_range", PP_PRIM_HISTOGRAM, 0, 0},
    {"select_if", PP_PRIM_SELECT, 0, 0},
    {"select_flagged", PP_PRIM_SELECT, 0, 0},
    {"unique", PP_PRIM_SELECT, 0, 0},
    {"partition_if", PP_PRIM_SELECT, 0, 0},
    {"sort_keys", PP_PRIM_SORT, 0, 0},
    {"sort_pairs", PP_PRIM_SORT, 0, 0},
    {"sort_keys_copy", PP_PRIM_SORT, 0, 0},
    {"segmented_reduce", PP_PRIM_REDUCE, 1, 1},
    {"segmented_scan", PP_PRIM_SCAN, 1, 1},
    {"segmented_sort", PP_PRIM_SORT, 0, 1},
    {"segmented_sort_pairs", PP_PRIM_SORT, 0, 1},
    {"reduce_by_key", PP_PRIM_REDUCE, 1, 1},
    {"scan_by_key", PP_PRIM_SCAN, 1, 1},
    {"run_length_encode", PP_PRIM_SELECT, 0, 1},
    {"argsort", PP_PRIM_SORT, 0, 0},
};

const char *const DATASET_NAMES[D_COUNT] = {"rand", "inc", "const"};

/* All the state of one run, passed to every step. */
typedef struct bench_run {
    const config *cfg;
    pp_context *ctx;
    const char *backend;      /* the context's backend, by name */
    row_table rows;           /* every row so far, for the JSON file and the summary */
    int failures;             /* failed checks and library calls */
    sort_ref_cache sort_ref;  /* the reference sort, kept from sort_keys for sort_pairs */
    copy_bench copy;          /* the buffers of the copy timing */
    load_set load;            /* the busy processes of --load, while they run */
} bench_run;

/* Reports the failure of row r and counts it. */
static void fail(bench_run *run, const row *r)
{
    report_failure(r, run->backend, r->message);
    run->failures++;
}

/* A new row describing case c (no algorithm yet); NULL if out of memory. */
static row *case_row(bench_run *run, const bench_case *c)
{
    row *r = row_new(&run->rows);
    if (!r) return NULL;
    snprintf(r->label, sizeof r->label, "%s", c->label);
    r->v = c->v;
    r->has_op = VARIANTS[c->v].uses_op;
    r->op = c->op;
    r->type = c->type;
    r->n = c->n;
    r->data = c->data;
    r->nbins = c->nbins;
    if (c->v == V_HIST_EVEN || c->v == V_HIST_RANGE)
        snprintf(r->data_name, sizeof r->data_name, "%s", DATASET_NAMES[c->data]);
    if (VARIANTS[c->v].uses_layout) {
        snprintf(r->data_name, sizeof r->data_name, "%s", c->layout.name);
        r->nseg = c->nseg;
    }
    return r;
}

/* The row of a library call that failed with st ("unsupported" is no
 * failure). */
static void call_failed(bench_run *run, row *r, pp_status st, const char *prefix)
{
    r->status = st == PP_ERROR_UNSUPPORTED ? "unsupported" : "error";
    snprintf(r->message, sizeof r->message, "%s%s: %s", prefix, pp_status_string(st), pp_last_error(run->ctx));
    if (st != PP_ERROR_UNSUPPORTED) fail(run, r);
}

/* One run, checked; *first is its time. Returns 0 (the row printed) if the
 * run failed or its result is wrong. */
static int checked_run(bench_run *run, bench_case *c, row *r, double *first)
{
    pp_status st = case_run(run->ctx, c, first);
    if (st != PP_SUCCESS) {
        call_failed(run, r, st, "");
        print_row(r, run->backend, run->cfg);
        return 0;
    }
    if (!case_check(run->ctx, c, &run->sort_ref, r->message, sizeof r->message, &st)) {
        r->status = st == PP_SUCCESS ? "FAILED" : "error";
        fail(run, r);
        print_row(r, run->backend, run->cfg);
        return 0;
    }
    return 1;
}

/* The copy of the row's bytes: copy_ms and copy_fraction, t the primitive's
 * timing. */
static void time_copy(bench_run *run, row *r, const timing *t)
{
    double tc;
    size_t half = (size_t)(r->bytes / 2);
    pp_status st = half ? copy_time(run->ctx, &run->copy, &run->cfg->plan, half, &tc) : PP_SUCCESS;
    if (st != PP_SUCCESS) {
        snprintf(r->message, sizeof r->message, "copy: %s: %s", pp_status_string(st), pp_last_error(run->ctx));
        fail(run, r);
    } else if (half) {
        r->copy_ms = 1e3 * tc;
        r->copy_fraction = t->median > 0 ? tc / t->median : -1;
    }
}

/* --load: the case timed again beside the busy processes. */
static void time_loaded(bench_run *run, bench_case *c, row *r, const timing *t)
{
    timing tl;
    if (load_start(&run->load, run->cfg->load) != 0) {
        snprintf(r->message, sizeof r->message, "--load: cannot start the busy processes");
        fail(run, r);
        return;
    }
    pp_status st = time_runs(run->ctx, &run->cfg->plan, case_run_fn, c, run->cfg->warmup, &tl);
    load_stop(&run->load);
    if (st != PP_SUCCESS) {
        snprintf(r->message, sizeof r->message, "loaded: %s: %s", pp_status_string(st), pp_last_error(run->ctx));
        fail(run, r);
    } else {
        r->loaded_ms = 1e3 * tl.median;
        r->loaded_ratio = t->median > 0 ? tl.median / t->median : -1;
    }
}

/* The timed runs of a checked case (first: the time of the check run).
 * Returns 0 (the row printed) if a run failed. */
static int timed_runs(bench_run *run, bench_case *c, row *r, double first, timing *t)
{
    /* A check run that took long has warmed up enough. */
    int warm = first > 0.2 ? 0 : run->cfg->warmup;
    pp_status st = time_runs(run->ctx, &run->cfg->plan, case_run_fn, c, warm, t);
    if (st == PP_SUCCESS && t->repeats >= 3 && t->median > 1.3 * t->min)
        snprintf(r->message, sizeof r->message, "noisy: median/min = %.2f", t->median / t->min);
    if (st != PP_SUCCESS) {
        r->status = "error";
        snprintf(r->message, sizeof r->message, "%s: %s", pp_status_string(st), pp_last_error(run->ctx));
        fail(run, r);
        print_row(r, run->backend, run->cfg);
        return 0;
    }
    r->status = "ok";
    r->median_ms = 1e3 * t->median;
    r->min_ms = 1e3 * t->min;
    r->repeats = t->repeats;
    r->bytes = case_bytes(c);
    r->gbps = t->median > 0 ? r->bytes / t->median * 1e-9 : -1;
    return 1;
}

/* One row: case c with algorithm a (already set; st: what pp_set_algorithm
 * said). *t_auto: the median of auto, once timed. Returns 0 if out of host
 * memory. */
static int bench_algo(bench_run *run, bench_case *c, pp_algorithm a, pp_status st, double *t_auto)
{
    row *r = case_row(run, c);
    if (!r) {
        fprintf(stderr, "pp bench: out of host memory\n");
        run->failures++;
        return 0;
    }
    r->algo = a;
    r->has_ops = algo_ops(c->v, a, c->n, &r->ops);
    if (st != PP_SUCCESS) {
        r->status = st == PP_ERROR_UNSUPPORTED ? "unsupported" : "error";
        snprintf(r->message, sizeof r->message, "%s", pp_last_error(run->ctx));
        if (st != PP_ERROR_UNSUPPORTED) fail(run, r);
        if (!run->cfg->quiet || st != PP_ERROR_UNSUPPORTED) print_row(r, run->backend, run->cfg);
        return 1;
    }
    double first = 0;
    timing t;
    if (!checked_run(run, c, r, &first) || !timed_runs(run, c, r, first, &t)) return 1;
    time_copy(run, r, &t);
    if (run->cfg->load > 0) time_loaded(run, c, r, &t);
    if (a == PP_ALGO_AUTO) *t_auto = t.median;
    if (a != PP_ALGO_AUTO && *t_auto > 0) r->vs_auto = t.median / *t_auto;
    if (a == PP_ALGO_AUTO && run->cfg->show_vs_auto) r->vs_auto = 1.0;
    print_row(r, run->backend, run->cfg);
    return 1;
}

/* Benchmarks one case with every chosen algorithm. */
static void bench_case_all_algos(bench_run *run, bench_case *c)
{
    pp_primitive prim = VARIANTS[c->v].prim;
    double t_auto = -1;
    for (int a = 0; a < PP_ALGO_COUNT; a++) {
        if (!run->cfg->algos[a]) continue;
        pp_status st = pp_set_algorithm(run->ctx, prim, (pp_algorithm)a);
        if (st == PP_ERROR_UNSUPPORTED && run->cfg->algo_all) continue;
        if (!bench_algo(run, c, (pp_algorithm)a, st, &t_auto)) return; /* out of host memory */
    }
    pp_set_algorithm(run->ctx, prim, PP_ALGO_AUTO);
}

/* Sets up one case, benchmarks it with every chosen algorithm, frees it. */
static void bench_one(bench_run *run, const case_spec *spec)
{
    bench_case c;
    pp_status st;
    const char *err = case_setup(run->ctx, &c, spec, run->cfg, &st);
    if (!err) {
        bench_case_all_algos(run, &c);
    } else {
        row *r = case_row(run, &c);
        if (r) {
            r->status = c.skipped ? "skipped" : "error";
            snprintf(r->message, sizeof r->message, "%s%s", c.skipped ? "" : "setup: ", err);
            if (!c.skipped) fail(run, r);
            print_row(r, run->backend, run->cfg);
        } else {
            run->failures++;
        }
    }
    case_free(run->ctx, &c);
}

/* The cases of variant v at size n: type by type, operator by operator
 * (where it takes one), then data set (histograms) or layout (segmented
 * and by-key variants). */
static void bench_variant(bench_run *run, variant v, size_t n)
{
    const config *cfg = run->cfg;
    int hist = v == V_HIST_EVEN || v == V_HIST_RANGE;
    int nalt = hist ? cfg->ndatas : VARIANTS[v].uses_layout ? cfg->nlayouts : 1;
    for (int t = 0; t < PP_TYPE_COUNT; t++) {
        if (!cfg->types[t]) continue;
        for (int op = 0; op < PP_OP_COUNT; op++) {
            if (VARIANTS[v].uses_op) {
                if (!cfg->ops[op]) continue;
                if (type_is_float((pp_type)t) && op >= PP_AND) continue;
            } else if (op != 0) {
                break;
            }
            for (int i = 0; i < nalt; i++) {
                case_spec spec = {v, (pp_type)t, (pp_op)op, n, hist ? (dataset)cfg->datas[i] : D_RAND, NULL};
                if (VARIANTS[v].uses_layout) spec.layout = &cfg->layouts[i];
                bench_one(run, &spec);
            }
        }
    }
}

/* The cases of one size: primitive by primitive, type by type; but the two
 * sorts of one type run next to each other, so that they can share the
 * reference. */
static void bench_size(bench_run *run, size_t n)
{
    const config *cfg = run->cfg;
    for (int v = 0; v < V_SORT_KEYS; v++)
        if (cfg->variants[v]) bench_variant(run, (variant)v, n);
    for (int t = 0; t < PP_TYPE_COUNT; t++) {
        if (!cfg->types[t]) continue;
        for (int v = V_SORT_KEYS; v <= V_SORT_KEYS_COPY; v++) {
            case_spec spec = {(variant)v, (pp_type)t, PP_SUM, n, D_RAND, NULL};
            if (cfg->variants[v]) bench_one(run, &spec);
        }
    }
    sort_ref_clear(&run->sort_ref);
    for (int v = V_KEYED_FIRST; v < V_COUNT; v++)
        if (cfg->variants[v]) bench_variant(run, (variant)v, n);
}

/* The context of the run; prints why not and returns 0 if it cannot be had. */
static int open_context(bench_run *run)
{
    const config *cfg = run->cfg;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = cfg->backend;
    o.device = cfg->device;
    o.threads = cfg->threads;
    pp_status st = pp_create(&run->ctx, &o);
    if (st != PP_SUCCESS) {
        fprintf(stderr, "pp bench: cannot create a context (backend %s): %s: %s\n", pp_backend_name(cfg->backend),
                pp_status_string(st), pp_last_error(NULL));
        return 0;
    }
    run->backend = pp_backend_name(pp_context_backend(run->ctx));
    if (!cfg->quiet) {
        print_version();
        printf("backend %s: %s; threads %d\n", run->backend, pp_context_device_name(run->ctx),
               pp_context_threads(run->ctx));
        printf("GB/s: bytes the primitive must move / median time; copy: t(pp_copy of the same bytes) / t"
               " (1.0 = copy speed)\n\n");
    }
    return 1;
}

/* The last lines: rows, time, what was skipped or failed. */
static void print_summary(const bench_run *run, double elapsed)
{
    size_t unsupported = 0, skipped = 0, nrows = run->rows.count;
    int failures = run->failures;
    for (size_t i = 0; i < nrows; i++) unsupported += !strcmp(run->rows.rows[i].status, "unsupported");
    for (size_t i = 0; i < nrows; i++) skipped += !strcmp(run->rows.rows[i].status, "skipped");
    if (!run->cfg->quiet) {
        printf("\n%zu row%s in %.1f s", nrows, nrows == 1 ? "" : "s", elapsed);
        if (unsupported) printf(", %zu unsupported by this backend", unsupported);
        if (skipped) printf(", %zu skipped (data set or bins do not fit the type)", skipped);
        if (failures) printf(", %d FAILED", failures);
        printf("\n");
    }
    if (failures) fprintf(stderr, "pp bench: %d check%s or call%s FAILED\n", failures, failures == 1 ? "" : "s",
                          failures == 1 ? "" : "s");
}

int cmd_bench(int argc, char **argv)
{
    config cfg;
    int rc = bench_options(&cfg, argc, argv);
    if (rc != CLI_PROCEED) return rc;
    /* Opened before the work starts, so that a bad path fails at once. */
    FILE *json = NULL;
    if (cfg.json && !(json = fopen(cfg.json, "w"))) {
        fprintf(stderr, "pp bench: cannot write '%s': %s\n", cfg.json, strerror(errno));
        return EXIT_FAILED;
    }
    bench_run run;
    memset(&run, 0, sizeof run);
    run.cfg = &cfg;
    if (!open_context(&run)) {
        if (json) {
            fclose(json);
            remove(cfg.json);
        }
        return EXIT_FAILED;
    }
    print_header(&cfg);
    run.sort_ref.want_vals = cfg.variants[V_SORT_PAIRS];
    double t_start = now_seconds();
    for (int si = 0; si < cfg.nsizes; si++) {
        if (cfg.sizes[si] > SIZE_MAX / 64) {
            fprintf(stderr, "pp bench: n = %zu is too large\n", cfg.sizes[si]);
            run.failures++;
            continue;
        }
        bench_size(&run, cfg.sizes[si]);
    }
    double elapsed = now_seconds() - t_start;
    int ok_json = json ? write_json(json, cfg.json, run.ctx, &cfg, &run.rows) : 1;
    copy_bench_free(run.ctx, &run.copy);
    pp_destroy(run.ctx);
    print_summary(&run, elapsed);
    row_table_free(&run.rows);
    return run.failures || !ok_json ? EXIT_FAILED : EXIT_OK;
}
