/* test_errors: the checks of a failed call (status, message) and the
 * fixture whose buffers show that it wrote nothing (test_errors.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_errors.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pp_type bad_types[NBAD] = {(pp_type)-1, (pp_type)PP_TYPE_COUNT, (pp_type)1000};
const pp_op bad_ops[NBAD] = {(pp_op)-1, (pp_op)PP_OP_COUNT, (pp_op)99};

/* ---- messages ---------------------------------------------------------------------------- */
/* 1 if word occurs in msg as a whole identifier (not inside a longer one). */
static int names(const char *msg, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = msg; (p = strstr(p, word)) != NULL; p++) {
        int before = p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[len]) || p[len] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

int msg_names(const char *msg, const char *words)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", words);
    int found = 0;
    for (char *tok = strtok(buf, "|"); tok && !found; tok = strtok(NULL, "|")) found = names(msg, tok);
    return found;
}

void expect_at(const char *file, int line, pp_context *ctx, pp_status got, pp_status want, const char *fn,
               const char *args, const char *what)
{
    if (got != want)
        tc_fail_at(file, line, "%s: %s returned %s, expected %s (message: \"%s\")", what, fn, pp_status_string(got),
                   pp_status_string(want), pp_last_error(ctx));
    if (want == PP_SUCCESS) return;
    const char *msg = pp_last_error(ctx); /* ctx == NULL: the thread's */
    if (!msg || !*msg) tc_fail_at(file, line, "%s: %s failed with an empty pp_last_error", what, fn);
    if (!strstr(msg, fn)) tc_fail_at(file, line, "%s: message \"%s\" does not name %s", what, msg, fn);
    if (args && *args && !msg_names(msg, args))
        tc_fail_at(file, line, "%s: message \"%s\" does not name the argument (%s)", what, msg, args);
}

/* ---- fixture: device buffers with known contents ------------------------------------------------ */
void fx_init(fixture *f, pp_context *ctx, tc_rng *r)
{
    memset(f, 0, sizeof *f);
    f->ctx = ctx;
    f->addressable = pp_context_backend(ctx) != PP_BACKEND_OPENCL;
    tc_fill_random(r, f->h_in, BYTES);
    tc_fill_random(r, f->h_keys, BYTES);
    tc_fill_random(r, f->h_vals, BYTES);
    tc_fill_random(r, f->h_big, sizeof f->h_big);
    for (size_t i = 0; i < N; i++) f->h_flags[i] = (unsigned char)(i & 1);
    f->in = tc_dev_upload(ctx, f->h_in, BYTES);
    f->keys = tc_dev_upload(ctx, f->h_keys, BYTES);
    f->vals = tc_dev_upload(ctx, f->h_vals, BYTES);
    f->flags = tc_dev_upload(ctx, f->h_flags, N);
    f->big = tc_dev_upload(ctx, f->h_big, sizeof f->h_big);
    f->out = tc_dev_filled(ctx, BYTES, 0x5A);
    f->counts = tc_dev_filled(ctx, NB * 8, 0x5A);
    f->count = tc_dev_filled(ctx, 8, 0x5A);
}

void fx_free(fixture *f)
{
    void *p[] = {f->in, f->keys, f->vals, f->flags, f->big, f->out, f->counts, f->count};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) tc_dev_free(f->ctx, p[i]);
}

static void check_same(const char *file, int line, fixture *f, const void *dev, const void *want, size_t bytes,
                       const char *name, const char *what)
{
    unsigned char *h = (unsigned char *)tc_halloc(bytes);
    tc_dev_download_at(file, line, f->ctx, h, dev, bytes, name);
    for (size_t i = 0; i < bytes; i++)
        if (h[i] != ((const unsigned char *)want)[i]) {
            free(h);
            tc_fail_at(file, line, "after %s: '%s' was written (byte %zu) by a call that failed", what, name, i);
        }
    free(h);
}

void fx_check_at(const char *file, int line, fixture *f, const char *what)
{
    static unsigned char sentinel[BYTES];
    if (!sentinel[0]) memset(sentinel, 0x5A, sizeof sentinel);
    check_same(file, line, f, f->out, sentinel, BYTES, "out", what);
    check_same(file, line, f, f->counts, sentinel, NB * 8, "counts", what);
    check_same(file, line, f, f->count, sentinel, 8, "count", what);
    check_same(file, line, f, f->in, f->h_in, BYTES, "in", what);
    check_same(file, line, f, f->keys, f->h_keys, BYTES, "keys", what);
    check_same(file, line, f, f->vals, f->h_vals, BYTES, "values", what);
    check_same(file, line, f, f->flags, f->h_flags, N, "flags", what);
    check_same(file, line, f, f->big, f->h_big, sizeof f->h_big, "big", what);
}
