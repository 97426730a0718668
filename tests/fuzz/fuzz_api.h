/* The pieces that the files of the API fuzzer share (fuzz_api.c describes
 * the harness and the input layout):
 *
 *   fuzz_api.c    the libFuzzer entry and the contexts
 *   fuzz_input.c  decoding an input into a call: its arguments and data
 *   fuzz_check.c  buffers, the no-stray-write check, judging the status and
 *                 comparing with the reference
 *   fuzz_calls.c  one call of each primitive (and of the rest of the API),
 *                 run and checked
 */
#ifndef PP_FUZZ_API_H
#define PP_FUZZ_API_H

#include "parprim.h"
#include "reference.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the entry points (fuzz_api.c; replay.c declares them too) ------------------------------------ */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_api_cleanup(void);

/* The cpu contexts: 1 thread and 3 threads. */
extern pp_context *g_ctx[2];

#define MAX_N 32767
#define MAX_BINS 1100

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "fuzz_api: check failed: %s\n  ", #cond);    \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
            abort();                                                     \
        }                                                                \
    } while (0)

/* ---- input (fuzz_input.c; the layout: fuzz_api.c) ---------------------------------------------------- */
typedef struct input {
    int sel, type_raw, param, seq, ctx_i, pm, dm;
    pp_type type;
    size_t sz; /* 0 for a type out of range */
    size_t n, nbins;
    unsigned char s1[8], s2[8];
    unsigned ovl;
    const uint8_t *pool;
    size_t npool;
} input;

void decode(const uint8_t *d, size_t size, input *in);
uint8_t pool_byte(const input *in, size_t i);

/* element data */
int is_float(pp_type t);
void gen_elems(const input *in, pp_type t, size_t n, size_t off, void *buf);
void make_exact(const input *in, pp_type t, pp_op op, size_t n, void *buf);
void hist_bounds(const input *in, unsigned char *lo, unsigned char *hi);
void make_edges(const input *in, size_t nb, void *edges);

/* pointers */
int overlap(const void *a, size_t an, const void *b, size_t bn);
size_t pick_offset(const input *in, size_t room, size_t align, unsigned salt);
char *misalign_if_overlapping(const input *in, char *p, const char *other, size_t pbytes, size_t obytes,
                              const char *lo, const char *hi);

/* ---- checking (fuzz_check.c) ------------------------------------------------------------------- */
#define MAX_BUF 8
typedef struct buffers {
    pp_context *ctx;
    int nb;
    void *dev[MAX_BUF];
    size_t bytes[MAX_BUF];
    unsigned char *snap[MAX_BUF];
    int nw;
    const char *wp[MAX_BUF]; /* ranges the call may write on success */
    size_t wbytes[MAX_BUF];
} buffers;

char *buf_new(buffers *B, const input *in, size_t bytes);
void buf_set(buffers *B, const void *p, const void *host, size_t bytes);
void may_write(buffers *B, const void *p, size_t bytes);
void buf_check(const buffers *B, int ok, const char *what);
void buf_read(const buffers *B, void *host, const void *p, size_t bytes);
void buf_free(buffers *B);

typedef struct expect {
    int invalid;     /* some argument is invalid */
    int unsupported; /* a bitwise operator on a float type */
} expect;

int judge(const input *in, pp_context *ctx, const expect *e, pp_status st, const char *fn);
void expect_equal(pp_type t, const void *got, const void *want, size_t n, const char *what);
void expect_bits(pp_type t, const void *got, const void *want, size_t n, const char *what);
void *xmalloc(size_t bytes);
int set_algo(pp_context *ctx, pp_primitive prim, int seq);

/* ---- the calls (fuzz_calls.c) ------------------------------------------------------------------- */
enum { SEL_FLAGGED, SEL_IF, SEL_UNIQUE, SEL_PARTITION };

void fuzz_reduce_scan(const input *in, int scan);
void fuzz_histogram(const input *in, int range);
void fuzz_select(const input *in, int which);
void fuzz_sort(const input *in, int pairs);
void fuzz_misc(const input *in);

#endif
