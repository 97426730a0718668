/* pp bench: table and JSON output (see report.h). */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

row *row_new(row_table *t)
{
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        row *r = (row *)realloc(t->rows, cap * sizeof *r);
        if (!r) return NULL;
        t->rows = r;
        t->cap = cap;
    }
    row *r = &t->rows[t->count++];
    memset(r, 0, sizeof *r);
    r->median_ms = r->min_ms = r->gbps = r->copy_ms = r->copy_fraction = r->vs_auto = -1;
    r->loaded_ms = r->loaded_ratio = -1;
    return r;
}

void row_table_free(row_table *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- the table ------------------------------------------------------------ */

/* The width of the primitive column: the labels of segmented and by-key
 * rows carry their layout. */
static int label_width(const config *cfg)
{
    for (int v = 0; v < V_COUNT; v++)
        if (cfg->variants[v] && VARIANTS[v].uses_layout) return 32;
    return 22;
}

void print_header(const config *cfg)
{
    printf("%-*s %-4s %10s %-7s %-21s %10s %10s %8s %6s", label_width(cfg), "primitive", "type", "n", "backend",
           "algorithm", "median ms", "min ms", "GB/s", "copy");
    if (cfg->show_vs_auto) printf(" %8s", "t/t_auto");
    if (cfg->show_load) printf(" %10s %7s", "loaded ms", "x idle");
    printf(" %16s", "ops");
    printf("  %s\n", "check");
}

static void print_num(double x, int width, int prec)
{
    if (x < 0) printf(" %*s", width, "-");
    else printf(" %*.*f", width, prec, x);
}

/* Milliseconds with at least four significant digits (down to 1 ns). */
static void print_ms(double x, int width)
{
    print_num(x, width, x < 0 ? 0 : x >= 100 ? 2 : x >= 1 ? 3 : x >= 0.1 ? 4 : x >= 0.01 ? 5 : 6);
}

void print_row(const row *r, const char *backend, const config *cfg)
{
    printf("%-*s %-4s %10zu %-7s %-21s", label_width(cfg), r->label, pp_type_name(r->type), r->n, backend,
           pp_algorithm_name(r->algo));
    print_ms(r->median_ms, 10);
    print_ms(r->min_ms, 10);
    print_num(r->gbps, 8, 2);
    print_num(r->copy_fraction, 6, 2);
    if (cfg->show_vs_auto) print_num(r->vs_auto, 8, 2);
    if (cfg->show_load) {
        print_ms(r->loaded_ms, 10);
        print_num(r->loaded_ratio, 7, 2);
    }
    if (r->has_ops) printf(" %16" PRIu64, r->ops);
    else printf(" %16s", "-");
    printf("  %s", r->status);
    if (r->message[0] && strcmp(r->status, "FAILED")) printf(" (%s)", r->message);
    printf("\n");
    fflush(stdout);
}

void report_failure(const row *r, const char *backend, const char *what)
{
    fprintf(stderr,
            "\n*** CHECK FAILED: %s %s n=%zu backend=%s algorithm=%s\n"
            "***   %s\n\n",
            r->label, pp_type_name(r->type), r->n, backend, pp_algorithm_name(r->algo), what);
    fflush(stderr);
}

/* ---- JSON ------------------------------------------------------------------- */

/* Writes s as a JSON string literal. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* A number, null where negative (none) or NaN. */
static void json_number(FILE *f, double x)
{
    if (x != x || x < 0) fputs("null", f);
    else fprintf(f, "%.6g", x);
}

/* ", "key": " then the string s, or null where s is NULL. */
static void json_key_string(FILE *f, const char *key, const char *s)
{
    fprintf(f, ", \"%s\": ", key);
    if (s) json_string(f, s);
    else fputs("null", f);
}

static void json_key_number(FILE *f, const char *key, double x)
{
    fprintf(f, ", \"%s\": ", key);
    json_number(f, x);
}

static void write_json_header(FILE *f, pp_context *ctx, const config *cfg)
{
    char date[32];
    time_t tt = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
    unsigned ver = pp_version();
    char vs[32];
    snprintf(vs, sizeof vs, "%u.%u.%u", ver / 10000, ver / 100 % 100, ver % 100);
    fprintf(f, "{\n  \"header\": {\"version\": ");
    json_string(f, vs);
    json_key_string(f, "backend", pp_backend_name(pp_context_backend(ctx)));
    json_key_string(f, "device", pp_context_device_name(ctx));
    fprintf(f, ", \"threads\": %d", pp_context_threads(ctx));
    json_key_string(f, "date", date);
    fprintf(f, ", \"seed\": %" PRIu64 ", \"repeat\": ", cfg->seed);
    if (cfg->plan.repeat) fprintf(f, "%d", cfg->plan.repeat);
    else fputs("\"adaptive\"", f);
    fprintf(f, ", \"budget_s\": %g,\n    \"byte_model\": ", cfg->plan.budget);
    json_string(f, "reduce n*s; scan 2*n*s; histogram n*s+nbins*8; select_if,unique n*s+k*s; "
                   "select_flagged n*s+n+k*s; partition_if 2*n*s; sort 2*n*s (+2*n*value_size); "
                   "segmented_reduce n*s+(nseg+1)*8+nseg*s; segmented_scan, segmented_sort 2*n*s+(nseg+1)*8 "
                   "(segmented_sort_pairs +2*n*value_size); reduce_by_key 2*n*s+runs*2*s+8; scan_by_key 3*n*s; "
                   "run_length_encode n*s+runs*(s+8)+8; argsort n*s+n*8 (u64 indices); "
                   "copy_fraction = t(pp_copy of bytes/2) / t(primitive)");
    fprintf(f, ",\n    \"ops_model\": ");
    json_string(f, "operator applications of the textbook algorithm on one array of n, as the course notes "
                   "count them: reduce n-1; scan sequential n-1, naive n(n-1)/2, hillis-steele-horn "
                   "n*L-(2^L-1) with L=ceil(log2 n), blelloch(-padded) up-sweep plus down-sweep of the "
                   "inclusive work-efficient scan (2n-log2(n)-2 for n a power of two); null elsewhere");
    fprintf(f, "},\n  \"rows\": [");
}

static void write_json_row(FILE *f, const row *r, const char *backend)
{
    int hist = r->v == V_HIST_EVEN || r->v == V_HIST_RANGE;
    int seg = VARIANTS[r->v].uses_layout;
    fprintf(f, "\n    {\"primitive\": ");
    json_string(f, VARIANTS[r->v].name);
    json_key_string(f, "op", r->has_op ? pp_op_name(r->op) : NULL);
    json_key_string(f, "type", pp_type_name(r->type));
    fprintf(f, ", \"n\": %zu", r->n);
    json_key_string(f, "backend", backend);
    json_key_string(f, "algorithm", pp_algorithm_name(r->algo));
    json_key_string(f, "data", r->data_name[0] ? r->data_name : NULL);
    fprintf(f, ", \"bins\": ");
    if (hist) fprintf(f, "%zu", r->nbins);
    else fputs("null", f);
    fprintf(f, ", \"segments\": ");
    if (seg) fprintf(f, "%zu", r->nseg);
    else fputs("null", f);
    fprintf(f, ", \"ops\": ");
    if (r->has_ops) fprintf(f, "%" PRIu64, r->ops);
    else fputs("null", f);
    json_key_string(f, "status", r->status);
    json_key_number(f, "median_ms", r->median_ms);
    json_key_number(f, "min_ms", r->min_ms);
    fprintf(f, ", \"repeats\": %d, \"bytes\": ", r->repeats);
    if (r->bytes > 0) fprintf(f, "%.0f", r->bytes);
    else fputs("null", f);
    json_key_number(f, "gbps", r->gbps);
    json_key_number(f, "copy_ms", r->copy_ms);
    json_key_number(f, "copy_fraction", r->copy_fraction);
    json_key_number(f, "loaded_ms", r->loaded_ms);
    json_key_number(f, "loaded_over_idle", r->loaded_ratio);
    json_key_number(f, "ratio_to_auto", r->vs_auto);
    json_key_string(f, "message", r->message);
    fputc('}', f);
}

int write_json(FILE *f, const char *path, pp_context *ctx, const config *cfg, const row_table *t)
{
    const char *backend = pp_backend_name(pp_context_backend(ctx));
    write_json_header(f, ctx, cfg);
    for (size_t i = 0; i < t->count; i++) {
        if (i) fputc(',', f);
        write_json_row(f, &t->rows[i], backend);
    }
    fprintf(f, "\n  ]\n}\n");
    int ok = !ferror(f);
    if (fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "pp bench: error writing '%s'\n", path);
    return ok;
}
