/* The API fuzzer: the checks of a call: device buffers whose every byte
 * outside the call's outputs must stay unchanged, the status against what
 * the header predicts, and results against the reference. */
#include "fuzz_api.h"

#include <string.h>

/* ---- device buffers and the no-stray-write check -------------------------------------------------------- */
/* A device buffer of at least bytes (never NULL), filled from the data. */
char *buf_new(buffers *B, const input *in, size_t bytes)
{
    size_t alloc = bytes < 8 ? 8 : bytes;
    void *p = NULL;
    pp_status st = pp_malloc(B->ctx, &p, alloc);
    CHECK(st == PP_SUCCESS && p, "pp_malloc(%zu): %s", alloc, pp_last_error(B->ctx));
    unsigned char *h = (unsigned char *)malloc(alloc);
    CHECK(h != NULL, "out of memory");
    for (size_t i = 0; i < alloc; i++) h[i] = (unsigned char)(pool_byte(in, i * 7 + (size_t)B->nb) ^ 0xA5);
    CHECK(pp_upload(B->ctx, p, h, alloc) == PP_SUCCESS, "pp_upload");
    B->dev[B->nb] = p;
    B->bytes[B->nb] = alloc;
    B->snap[B->nb] = h;
    B->nb++;
    return (char *)p;
}

/* Sets the contents of [p, p + bytes) inside one of the buffers. */
void buf_set(buffers *B, const void *p, const void *host, size_t bytes)
{
    if (!bytes) return;
    for (int i = 0; i < B->nb; i++) {
        const char *b = (const char *)B->dev[i];
        if ((const char *)p >= b && (const char *)p + bytes <= b + B->bytes[i]) {
            memcpy(B->snap[i] + ((const char *)p - b), host, bytes);
            CHECK(pp_upload(B->ctx, B->dev[i], B->snap[i], B->bytes[i]) == PP_SUCCESS, "pp_upload");
            return;
        }
    }
    CHECK(0, "buf_set: range outside the buffers");
}

void may_write(buffers *B, const void *p, size_t bytes)
{
    if (!p || !bytes) return;
    B->wp[B->nw] = (const char *)p;
    B->wbytes[B->nw] = bytes;
    B->nw++;
}

static int writable(const buffers *B, const char *addr)
{
    for (int i = 0; i < B->nw; i++)
        if (addr >= B->wp[i] && addr < B->wp[i] + B->wbytes[i]) return 1;
    return 0;
}

/* Every byte outside the writable ranges (all bytes if !ok) is unchanged. */
void buf_check(const buffers *B, int ok, const char *what)
{
    for (int i = 0; i < B->nb; i++) {
        unsigned char *h = (unsigned char *)malloc(B->bytes[i]);
        CHECK(h != NULL, "out of memory");
        CHECK(pp_download(B->ctx, h, B->dev[i], B->bytes[i]) == PP_SUCCESS, "pp_download");
        for (size_t k = 0; k < B->bytes[i]; k++) {
            if (h[k] == B->snap[i][k]) continue;
            const char *addr = (const char *)B->dev[i] + k;
            CHECK(ok && writable(B, addr), "%s: byte %zu of buffer %d changed by a call that %s", what, k, i,
                  ok ? "must not write there" : "failed");
        }
        free(h);
    }
}

/* Downloads [p, p + bytes) of a buffer into host. */
void buf_read(const buffers *B, void *host, const void *p, size_t bytes)
{
    if (!bytes) return;
    CHECK(pp_download(B->ctx, host, p, bytes) == PP_SUCCESS, "pp_download: %s", pp_last_error(B->ctx));
}

void buf_free(buffers *B)
{
    for (int i = 0; i < B->nb; i++) {
        pp_free(B->ctx, B->dev[i]);
        free(B->snap[i]);
    }
    B->nb = 0;
}

/* ---- expectations -------------------------------------------------------------------------------------------- */
static int g_verbose = -1;

/* Checks the status against the expectation; returns 1 if the call
 * succeeded (and its result must be checked). */
int judge(const input *in, pp_context *ctx, const expect *e, pp_status st, const char *fn)
{
    const char *msg = pp_last_error(ctx);
    if (g_verbose < 0) g_verbose = getenv("PARPRIM_FUZZ_VERBOSE") != NULL;
    if (g_verbose)
        fprintf(stderr, "%s type=%d n=%zu nbins=%zu pm=%d dm=%d seq=%d: %s%s%s%s\n", fn, in->type_raw, in->n,
                in->nbins, in->pm, in->dm, in->seq, pp_status_string(st), *msg ? " (" : "", msg, *msg ? ")" : "");
    if (st != PP_SUCCESS) CHECK(msg && *msg, "%s failed with %s but pp_last_error is empty", fn, pp_status_string(st));
    if (e->invalid && e->unsupported) {
        CHECK(st == PP_ERROR_INVALID_ARGUMENT || st == PP_ERROR_UNSUPPORTED, "%s returned %s, expected an error", fn,
              pp_status_string(st));
        return 0;
    }
    if (e->invalid) {
        CHECK(st == PP_ERROR_INVALID_ARGUMENT, "%s returned %s (\"%s\"), expected invalid argument", fn,
              pp_status_string(st), msg);
        return 0;
    }
    if (e->unsupported) {
        CHECK(st == PP_ERROR_UNSUPPORTED, "%s returned %s (\"%s\"), expected unsupported", fn, pp_status_string(st), msg);
        return 0;
    }
    if (st == PP_ERROR_OUT_OF_MEMORY) return 0;
    if (st == PP_ERROR_UNSUPPORTED && in->seq) return 0; /* an algorithm may not serve every type */
    CHECK(st == PP_SUCCESS, "%s returned %s (\"%s\") for a valid call", fn, pp_status_string(st), msg);
    return 1;
}

void expect_equal(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t at = 0;
    if (ref_equal(t, got, want, n, &at)) return;
    char a[80], b[80];
    CHECK(0, "%s (%s, n=%zu): index %zu: got %s, expected %s", what, pp_type_name(t), n, at,
          ref_format(t, got, at, a, sizeof a), ref_format(t, want, at, b, sizeof b));
}

void expect_bits(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t sz = pp_type_size(t);
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) != 0) {
            char a[80], b[80];
            CHECK(0, "%s (%s, n=%zu): index %zu: got %s, expected %s", what, pp_type_name(t), n, i,
                  ref_format(t, got, i, a, sizeof a), ref_format(t, want, i, b, sizeof b));
        }
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    CHECK(p != NULL, "out of memory");
    return p;
}

int set_algo(pp_context *ctx, pp_primitive prim, int seq)
{
    pp_status st = pp_set_algorithm(ctx, prim, seq ? PP_ALGO_SEQUENTIAL : PP_ALGO_AUTO);
    CHECK(st == PP_SUCCESS || (seq && st == PP_ERROR_UNSUPPORTED), "pp_set_algorithm: %s", pp_status_string(st));
    return st == PP_SUCCESS;
}
