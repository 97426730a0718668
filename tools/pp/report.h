/* pp bench: the rows of a run, printed as a table and written as JSON. */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include "bench.h"

#include <stdio.h>

typedef struct row {
    char label[48];
    variant v;
    int has_op;
    pp_op op;
    pp_type type;
    size_t n;
    pp_algorithm algo;
    dataset data;       /* histograms only */
    size_t nbins;       /* histograms only */
    char data_name[24]; /* the data set (histograms) or layout (segmented, by-key); "" for none */
    size_t nseg;        /* segmented, by-key: segments or runs */
    int has_ops;
    uint64_t ops;       /* operator applications (algo_ops), where has_ops */
    const char *status; /* ok, FAILED, unsupported, skipped, error */
    double median_ms, min_ms, bytes, gbps, copy_ms, copy_fraction, vs_auto;
    double loaded_ms, loaded_ratio; /* --load: median beside the busy processes, and / median_ms */
    int repeats;
    char message[400];
} row;

typedef struct row_table {
    row *rows;
    size_t count, cap;
} row_table;

/* A new row at the end of the table, its numbers -1 (none); NULL if out of
 * memory. */
row *row_new(row_table *t);
void row_table_free(row_table *t);

/* The table's header line, and one row (flushed), with the columns that
 * cfg asks for (the first one wider where rows name a layout). */
void print_header(const config *cfg);
void print_row(const row *r, const char *backend, const config *cfg);

/* The "*** CHECK FAILED" block on stderr. */
void report_failure(const row *r, const char *backend, const char *what);

/* Writes {"header": {...}, "rows": [...]} to f and closes it; returns 1,
 * or 0 (with a message naming path) on a write error. */
int write_json(FILE *f, const char *path, pp_context *ctx, const config *cfg, const row_table *t);

#endif
