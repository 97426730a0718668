/* libFuzzer target over the whole API (cpu backend).
 *
 * Each input decodes into one call: any primitive, with type, operator,
 * comparison, order and scan kind possibly out of range, n up to 32767,
 * element data taken from the input, and sometimes NULL pointers,
 * overlapping buffers, nbins 0 or huge, bad edges or a bad value_size.
 *
 * The harness predicts from the header whether the call must fail
 * (PP_ERROR_INVALID_ARGUMENT, or PP_ERROR_UNSUPPORTED for bitwise operators
 * on floats) or must succeed, and aborts when the library disagrees. On
 * success the result is compared with the reference (ref/reference.c);
 * every byte of every buffer outside the call's outputs must be unchanged;
 * on failure nothing at all may have changed and pp_last_error must say
 * why. The harness may abort; the library never may.
 *
 * Input layout (missing bytes read as 0):
 *   [0] selector: 0 reduce, 1 scan, 2 histogram_even, 3 histogram_range,
 *       4 select_flagged, 5 select_if, 6 unique, 7 partition_if, 8 sort,
 *       9 sort_pairs, 10 the rest of the API (memory, names, algorithms)
 *   [1] type: % 12 (10 and 11 are out of range: 10 and -1)
 *   [2] parameter: operator (% 8, 7 out of range), scan kind (>> 3, % 3),
 *       comparison (% 7), order (% 3), value_size (>> 2, % 8 -> table)
 *   [3] bit 0: sequential algorithm; bit 1: the 3-thread context;
 *       bits 2-4: pointer mode (0-3 normal, 4 NULL input, 5 NULL output,
 *       6 overlapping buffers, 7 NULL scalar or in place);
 *       bits 5-7: data mode (how elements are made from the data bytes)
 *   [4..5] n (little-endian): bit 15 set: n = v & 0x7fff, else v & 0xfff
 *   [6..7] nbins: 0xffff SIZE_MAX, 0xfffe SIZE_MAX / 8 + 1, else v % 1100
 *   [8..15] first scalar (lower, value), [16..23] second scalar (upper)
 *   [24..25] overlap offset selector
 *   [26..]  data bytes, used cyclically
 */
#include "parprim.h"
#include "reference.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_api_cleanup(void);

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

/* ---- contexts ---------------------------------------------------------------------------------- */
static pp_context *g_ctx[2];

static void init_once(void)
{
    if (g_ctx[0]) return;
    for (int i = 0; i < 2; i++) {
        pp_options o = PP_OPTIONS_INIT;
        o.backend = PP_BACKEND_CPU;
        o.threads = i ? 3 : 1;
        pp_status st = pp_create(&g_ctx[i], &o);
        CHECK(st == PP_SUCCESS, "pp_create: %s", pp_last_error(NULL));
    }
}

void fuzz_api_cleanup(void)
{
    for (int i = 0; i < 2; i++) {
        pp_destroy(g_ctx[i]);
        g_ctx[i] = NULL;
    }
}

/* ---- input ------------------------------------------------------------------------------------- */
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

static uint8_t at_(const uint8_t *d, size_t size, size_t i) { return i < size ? d[i] : 0; }

static void decode(const uint8_t *d, size_t size, input *in)
{
    memset(in, 0, sizeof *in);
    in->sel = at_(d, size, 0) % 11;
    in->type_raw = at_(d, size, 1) % 12;
    in->type = in->type_raw == 11 ? (pp_type)-1 : (pp_type)in->type_raw;
    in->sz = in->type_raw < 10 ? pp_type_size(in->type) : 0;
    in->param = at_(d, size, 2);
    uint8_t f = at_(d, size, 3);
    in->seq = f & 1;
    in->ctx_i = (f >> 1) & 1;
    in->pm = (f >> 2) & 7;
    in->dm = (f >> 5) & 7;
    unsigned v = at_(d, size, 4) | (unsigned)at_(d, size, 5) << 8;
    in->n = (v & 0x8000) ? (v & 0x7fff) : (v & 0xfff);
    unsigned nb = at_(d, size, 6) | (unsigned)at_(d, size, 7) << 8;
    in->nbins = nb == 0xffff ? SIZE_MAX : nb == 0xfffe ? SIZE_MAX / 8 + 1 : nb % MAX_BINS;
    for (int i = 0; i < 8; i++) {
        in->s1[i] = at_(d, size, 8 + (size_t)i);
        in->s2[i] = at_(d, size, 16 + (size_t)i);
    }
    in->ovl = at_(d, size, 24) | (unsigned)at_(d, size, 25) << 8;
    in->pool = size > 26 ? d + 26 : NULL;
    in->npool = size > 26 ? size - 26 : 0;
}

static uint8_t pool_byte(const input *in, size_t i) { return in->npool ? in->pool[i % in->npool] : 0; }

/* ---- element data ---------------------------------------------------------------------------------- */
static void put_f(pp_type t, void *buf, size_t i, double v)
{
    if (t == PP_F32) {
        float x = (float)v;
        memcpy((char *)buf + 4 * i, &x, 4);
    } else {
        memcpy((char *)buf + 8 * i, &v, 8);
    }
}

static void put_i(pp_type t, void *buf, size_t i, uint64_t v)
{
    size_t sz = pp_type_size(t);
    for (size_t k = 0; k < sz; k++) ((unsigned char *)buf)[i * sz + k] = (unsigned char)(v >> (8 * k));
}

static int is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
static int is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }

static uint64_t type_max(pp_type t)
{
    size_t bits = 8 * pp_type_size(t);
    uint64_t m = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    return is_signed(t) ? m >> 1 : m;
}

static uint64_t type_min(pp_type t) { return is_signed(t) ? ~type_max(t) : 0; }

/* Makes n elements of type t (valid types only) from the data bytes. */
static void gen_elems(const input *in, pp_type t, size_t n, size_t off, void *buf)
{
    size_t sz = pp_type_size(t);
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, off + i * sz);
        switch (in->dm) {
        case 3: { /* pseudo-random from the index */
            uint64_t x = (i + 1 + off) * 0x9e3779b97f4a7c15ull;
            x ^= x >> 29;
            x *= (uint64_t)b | 1;
            put_i(t, buf, i, x ^ (x >> 31));
            break;
        }
        case 4: /* small values, duplicates */
            if (is_float(t)) put_f(t, buf, i, b == 0x80 ? -0.0 : ((int)(b % 9) - 4) * 0.5);
            else put_i(t, buf, i, is_signed(t) ? (uint64_t)(int64_t)((int)(b % 7) - 3) : (uint64_t)(b % 7));
            break;
        case 5: /* special values */
            if (is_float(t)) {
                static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0, DBL_MIN, DBL_MAX};
                if (b % 9 == 8) { /* NaN with a payload and sign from the data */
                    uint8_t c = pool_byte(in, off + i * sz + 1);
                    if (t == PP_F32) {
                        uint32_t bits = 0x7f800001u | ((uint32_t)c << 8) | ((uint32_t)(c & 0x80) << 24);
                        memcpy((char *)buf + 4 * i, &bits, 4);
                    } else {
                        uint64_t bits = 0x7ff0000000000001ull | ((uint64_t)c << 20) | ((uint64_t)(c & 0x80) << 56);
                        memcpy((char *)buf + 8 * i, &bits, 8);
                    }
                } else {
                    put_f(t, buf, i, sp[b % 9]);
                }
            } else {
                uint64_t sp[4] = {type_min(t), type_max(t), 0, (uint64_t)-1};
                put_i(t, buf, i, sp[b % 4]);
            }
            break;
        case 6: /* ascending runs */
            if (is_float(t)) put_f(t, buf, i, (double)(i / 3) * 0.5 - (double)(b & 3));
            else put_i(t, buf, i, type_min(t) + i / 3 + (b & 3));
            break;
        default: /* raw bytes */
            for (size_t k = 0; k < sz; k++)
                ((unsigned char *)buf)[i * sz + k] = pool_byte(in, off + i * sz + k);
            break;
        }
    }
}

/* Float SUM and PROD: values whose every evaluation order gives the same
 * bits (quarter integers; +-1 with at most 60 factors of 2 or 1/2; zeros,
 * infinities and NaNs, whose effect does not depend on the order). */
static void make_exact(const input *in, pp_type t, pp_op op, size_t n, void *buf)
{
    int scaled = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, i);
        double v;
        if (op == PP_SUM) {
            switch (b) {
            case 0x80: v = INFINITY; break;
            case 0x81: v = -INFINITY; break;
            case 0x82: v = NAN; break;
            case 0x83: v = -0.0; break;
            default: v = (double)(int8_t)b * 0.25; break;
            }
        } else {
            double s = (b & 0x10) ? -1.0 : 1.0;
            switch (b % 16) {
            case 10: v = scaled < 60 ? (scaled++, 2.0) : 1.0; break;
            case 11: v = scaled < 60 ? (scaled++, 0.5) : 1.0; break;
            case 12: v = (b & 0x20) ? 0.0 : 1.0; break;
            case 13: v = (b & 0x20) ? INFINITY : 1.0; break;
            case 14: v = (b & 0x60) == 0x60 ? NAN : 1.0; break;
            default: v = 1.0; break;
            }
            v *= s;
        }
        put_f(t, buf, i, v);
    }
}

static int overlap(const void *a, size_t an, const void *b, size_t bn)
{
    if (!a || !b || !an || !bn) return 0;
    const char *x = (const char *)a, *y = (const char *)b;
    return x < y + bn && y < x + an;
}

/* ---- device buffers and the no-stray-write check -------------------------------------------------------- */
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

/* A device buffer of at least bytes (never NULL), filled from the data. */
static char *buf_new(buffers *B, const input *in, size_t bytes)
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
static void buf_set(buffers *B, const void *p, const void *host, size_t bytes)
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

static void may_write(buffers *B, const void *p, size_t bytes)
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
static void buf_check(const buffers *B, int ok, const char *what)
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
static void buf_read(const buffers *B, void *host, const void *p, size_t bytes)
{
    if (!bytes) return;
    CHECK(pp_download(B->ctx, host, p, bytes) == PP_SUCCESS, "pp_download: %s", pp_last_error(B->ctx));
}

static void buf_free(buffers *B)
{
    for (int i = 0; i < B->nb; i++) {
        pp_free(B->ctx, B->dev[i]);
        free(B->snap[i]);
    }
    B->nb = 0;
}

/* ---- expectations -------------------------------------------------------------------------------------------- */

typedef struct expect {
    int invalid;     /* some argument is invalid */
    int unsupported; /* a bitwise operator on a float type */
} expect;

static int g_verbose = -1;

/* Checks the status against the expectation; returns 1 if the call
 * succeeded (and its result must be checked). */
static int judge(const input *in, pp_context *ctx, const expect *e, pp_status st, const char *fn)
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

static void expect_equal(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t at = 0;
    if (ref_equal(t, got, want, n, &at)) return;
    char a[80], b[80];
    CHECK(0, "%s (%s, n=%zu): index %zu: got %s, expected %s", what, pp_type_name(t), n, at,
          ref_format(t, got, at, a, sizeof a), ref_format(t, want, at, b, sizeof b));
}

static void expect_bits(pp_type t, const void *got, const void *want, size_t n, const char *what)
{
    size_t sz = pp_type_size(t);
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) != 0) {
            char a[80], b[80];
            CHECK(0, "%s (%s, n=%zu): index %zu: got %s, expected %s", what, pp_type_name(t), n, i,
                  ref_format(t, got, i, a, sizeof a), ref_format(t, want, i, b, sizeof b));
        }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    CHECK(p != NULL, "out of memory");
    return p;
}

static int set_algo(pp_context *ctx, pp_primitive prim, int seq)
{
    pp_status st = pp_set_algorithm(ctx, prim, seq ? PP_ALGO_SEQUENTIAL : PP_ALGO_AUTO);
    CHECK(st == PP_SUCCESS || (seq && st == PP_ERROR_UNSUPPORTED), "pp_set_algorithm: %s", pp_status_string(st));
    return st == PP_SUCCESS;
}

/* An offset in [0, room], a multiple of align, chosen by the input (salt
 * gives independent choices for several offsets). */
static size_t pick_offset(const input *in, size_t room, size_t align, unsigned salt)
{
    if (room == 0) return 0;
    uint32_t v = (in->ovl + 1u) * (2654435761u + 2u * salt);
    v ^= v >> 15;
    size_t o = (in->ovl & 0x2000) ? (size_t)(v % (room + 1)) : (size_t)(in->ovl % (room + 1));
    return o - o % align;
}

/* Moves p by a byte when the input asks for a misaligned pointer; used
 * only where the call is then invalid anyway (an overlap), so that no
 * valid call gets a misaligned array. */
static char *misalign_if_overlapping(const input *in, char *p, const char *other, size_t pbytes, size_t obytes,
                                     const char *lo, const char *hi)
{
    if (!(in->ovl & 0x8000) || p + 1 + pbytes > hi || p + 1 < lo) return p;
    if (overlap(p + 1, pbytes, other, obytes)) return p + 1;
    return p;
}

/* ---- reduce and scan ----------------------------------------------------------------------------------------------- */
static void fuzz_reduce_scan(const input *in, int scan)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    pp_op op = (in->param % 8) == 7 ? (in->param & 0x80 ? (pp_op)-1 : (pp_op)7) : (pp_op)(in->param % 8);
    pp_scan_kind kind = (pp_scan_kind)((in->param >> 3) % 3);
    int op_ok = (unsigned)op < PP_OP_COUNT;
    int raw_float = 0;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    if (!set_algo(ctx, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE, in->seq)) return;

    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (!op_ok) e.invalid = 1;
    if (scan && (unsigned)kind > PP_EXCLUSIVE) e.invalid = 1;
    if (in->sz && op_ok && is_float(in->type) && op >= PP_AND) e.unsupported = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    if (in->sz) {
        gen_elems(in, in->type, n, 0, host);
        if (is_float(in->type) && (op == PP_SUM || op == PP_PROD)) {
            if (in->dm == 7) raw_float = 1; /* any order may round differently */
            else make_exact(in, in->type, op, n, host);
        }
    } else {
        for (size_t i = 0; i < bytes; i++) host[i] = pool_byte(in, i);
    }

    char *pin, *pout;
    int inplace_ok = 0;
    size_t outbytes = scan ? bytes : sz;
    if (in->pm == 6 || (scan && in->pm == 7)) {
        /* one buffer: out at an offset from in (reduce: out inside in is
         * allowed; scan: only in == out is) */
        size_t total = 2 * bytes + 2 * sz + 64;
        char *big = buf_new(&B, in, total);
        pin = big + pick_offset(in, total - bytes, sz, 1);
        if (in->pm == 7) {
            pout = pin;
        } else {
            pout = big + pick_offset(in, total - outbytes, sz, 2);
            if ((in->ovl & 0x4000) && bytes >= outbytes) /* inside in */
                pout = pin + pick_offset(in, bytes - outbytes, sz, 3);
            if (scan) pout = misalign_if_overlapping(in, pout, pin, outbytes, bytes, big, big + total);
        }
        buf_set(&B, pin, host, bytes);
        inplace_ok = pin == pout;
    } else {
        pin = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pin) buf_set(&B, pin, host, bytes);
        pout = in->pm == 5 ? NULL : buf_new(&B, in, scan ? bytes : sz);
    }
    if (n && !pin) e.invalid = 1;
    if (scan ? (n && !pout) : !pout) e.invalid = 1;
    if (scan && n && !inplace_ok && overlap(pin, bytes, pout, bytes)) e.invalid = 1;

    may_write(&B, pout, outbytes);
    pp_status st = scan ? pp_scan(ctx, in->type, op, kind, pin, pout, n) : pp_reduce(ctx, in->type, op, pin, n, pout);
    int ok = judge(in, ctx, &e, st, scan ? "pp_scan" : "pp_reduce");
    buf_check(&B, ok, scan ? "pp_scan" : "pp_reduce");
    if (ok) {
        unsigned char *want = (unsigned char *)xmalloc(outbytes + 8), *got = (unsigned char *)xmalloc(outbytes + 8);
        if (scan) ref_scan(in->type, op, kind, host, want, n);
        else ref_reduce(in->type, op, host, n, want);
        buf_read(&B, got, pout, outbytes);
        if (!raw_float) {
            expect_equal(in->type, got, want, scan ? n : 1, scan ? "pp_scan" : "pp_reduce");
        } else {
            /* no exact answer, but the cpu result does not depend on the
             * thread count: the other context must give the same bits */
            pp_context *other = g_ctx[!in->ctx_i];
            if (set_algo(other, scan ? PP_PRIM_SCAN : PP_PRIM_REDUCE, in->seq)) {
                void *o1 = NULL, *o2 = NULL;
                CHECK(pp_malloc(other, &o1, bytes + 8) == PP_SUCCESS, "pp_malloc");
                CHECK(pp_malloc(other, &o2, outbytes + 8) == PP_SUCCESS, "pp_malloc");
                if (bytes) CHECK(pp_upload(other, o1, host, bytes) == PP_SUCCESS, "pp_upload");
                st = scan ? pp_scan(other, in->type, op, kind, o1, o2, n) : pp_reduce(other, in->type, op, o1, n, o2);
                if (st == PP_SUCCESS) {
                    CHECK(pp_download(other, want, o2, outbytes) == PP_SUCCESS, "pp_download");
                    expect_equal(in->type, got, want, scan ? n : 1, "float result differs between 1 and 3 threads");
                }
                pp_free(other, o1);
                pp_free(other, o2);
            }
        }
        free(want);
        free(got);
    }
    free(host);
    buf_free(&B);
}

/* ---- histograms ---------------------------------------------------------------------------------------------------------- */
static int host_less(pp_type t, const void *a, const void *b)
{
    switch (t) {
#define L(E, T)                            \
    case E: {                              \
        T x, y;                            \
        memcpy(&x, a, sizeof x);           \
        memcpy(&y, b, sizeof y);           \
        return x < y;                      \
    }
        L(PP_I8, int8_t) L(PP_U8, uint8_t) L(PP_I16, int16_t) L(PP_U16, uint16_t) L(PP_I32, int32_t)
        L(PP_U32, uint32_t) L(PP_I64, int64_t) L(PP_U64, uint64_t) L(PP_F32, float) L(PP_F64, double)
#undef L
    }
    return 0;
}

static int host_finite(pp_type t, const void *a)
{
    if (t == PP_F32) {
        float x;
        memcpy(&x, a, 4);
        return isfinite(x);
    }
    if (t == PP_F64) {
        double x;
        memcpy(&x, a, 8);
        return isfinite(x);
    }
    return 1;
}

/* "Nice" scalars and edges (valid most of the time) or raw bytes. */
static void hist_bounds(const input *in, unsigned char *lo, unsigned char *hi)
{
    memcpy(lo, in->s1, 8);
    memcpy(hi, in->s2, 8);
    if (!in->sz || (in->dm & 1)) return; /* raw */
    pp_type t = in->type;
    int8_t a = (int8_t)in->s1[0];
    unsigned w = 1 + in->s2[0] + ((unsigned)in->s2[1] << 8);
    if (is_float(t)) {
        double l = a * 0.5, h = l + w * 0.125;
        if (in->s1[1] == 0xff) { /* the widest range */
            l = t == PP_F32 ? -FLT_MAX : -DBL_MAX;
            h = -l;
        }
        put_f(t, lo, 0, l);
        put_f(t, hi, 0, h);
    } else if (in->s1[1] == 0xff) { /* the whole type */
        put_i(t, lo, 0, type_min(t));
        put_i(t, hi, 0, type_max(t));
    } else {
        put_i(t, lo, 0, (uint64_t)(int64_t)a);
        put_i(t, hi, 0, (uint64_t)(int64_t)a + w);
    }
}

static void make_edges(const input *in, size_t nb, void *edges)
{
    pp_type t = in->type;
    size_t sz = in->sz;
    if (in->dm & 1) { /* raw */
        for (size_t i = 0; i < (nb + 1) * sz; i++) ((unsigned char *)edges)[i] = pool_byte(in, i + 3);
        return;
    }
    double e = (int8_t)in->s1[0];
    uint64_t ie = (uint64_t)(int64_t)(int8_t)in->s1[0];
    for (size_t i = 0; i <= nb; i++) {
        uint8_t g = pool_byte(in, i + 5);
        if (is_float(t)) {
            put_f(t, edges, i, e);
            e += (g % 8 + 1) * 0.25;
        } else {
            put_i(t, edges, i, ie);
            ie += (uint64_t)(g % 4 + 1);
        }
    }
    if (is_float(t) && (in->s2[0] & 1)) put_f(t, edges, 0, -INFINITY);
    if (is_float(t) && (in->s2[0] & 2)) put_f(t, edges, nb, INFINITY);
}

static void fuzz_histogram(const input *in, int range)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_HISTOGRAM, in->seq)) return;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    size_t nbins = in->nbins, nb_alloc = nbins < MAX_BINS ? nbins : MAX_BINS;
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (nbins == 0 || nbins > MAX_BINS) e.invalid = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    if (in->sz) gen_elems(in, in->type, n, 0, host);
    else memset(host, 1, bytes);

    char *ps, *pc;
    if (in->pm == 6) {
        char *big = buf_new(&B, in, bytes + nb_alloc * 8 + 64);
        int counts_first = (in->ovl >> 12) & 1;
        ps = counts_first ? big + pick_offset(in, nb_alloc * 8 + 64, 8, 1) : big;
        pc = counts_first ? big : big + pick_offset(in, bytes + 64, 8, 2);
        buf_set(&B, ps, host, bytes);
    } else {
        ps = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (ps) buf_set(&B, ps, host, bytes);
        pc = in->pm == 5 ? NULL : buf_new(&B, in, nb_alloc * 8);
    }
    if (n && !ps) e.invalid = 1;
    if (!pc) e.invalid = 1;
    if (overlap(pc, nb_alloc * 8, ps, bytes)) e.invalid = 1;

    unsigned char lo[8], hi[8];
    unsigned char *edges = NULL;
    const void *plo = lo, *phi = hi, *pe = NULL;
    if (!range) {
        hist_bounds(in, lo, hi);
        if (in->pm == 7) {
            if (in->ovl & 1) plo = NULL;
            else phi = NULL;
        }
        if (!plo || !phi) e.invalid = 1;
        else if (in->sz && (!host_finite(in->type, lo) || !host_finite(in->type, hi) || !host_less(in->type, lo, hi)))
            e.invalid = 1;
    } else {
        edges = (unsigned char *)xmalloc((nb_alloc + 1) * sz);
        if (in->sz) make_edges(in, nb_alloc, edges);
        pe = in->pm == 7 ? NULL : edges;
        if (!pe) e.invalid = 1;
        else if (in->sz && !e.invalid)
            for (size_t i = 0; i < nbins; i++)
                if (!host_less(in->type, edges + i * sz, edges + (i + 1) * sz)) {
                    e.invalid = 1;
                    break;
                }
    }
    may_write(&B, pc, nbins * 8);
    pp_status st = range ? pp_histogram_range(ctx, in->type, ps, n, pe, nbins, (uint64_t *)pc)
                         : pp_histogram_even(ctx, in->type, ps, n, plo, phi, nbins, (uint64_t *)pc);
    const char *fn = range ? "pp_histogram_range" : "pp_histogram_even";
    int ok = judge(in, ctx, &e, st, fn);
    buf_check(&B, ok, fn);
    if (ok) {
        uint64_t *want = (uint64_t *)xmalloc(nbins * 8), *got = (uint64_t *)xmalloc(nbins * 8);
        if (range) ref_histogram_range(in->type, host, n, edges, nbins, want);
        else ref_histogram_even(in->type, host, n, lo, hi, nbins, want);
        buf_read(&B, got, pc, nbins * 8);
        for (size_t b = 0; b < nbins; b++)
            CHECK(got[b] == want[b], "%s (%s, n=%zu, nbins=%zu): bin %zu: got %llu, expected %llu", fn,
                  pp_type_name(in->type), n, nbins, b, (unsigned long long)got[b], (unsigned long long)want[b]);
        free(want);
        free(got);
    }
    free(edges);
    free(host);
    buf_free(&B);
}

/* ---- compaction -------------------------------------------------------------------------------------------------------------- */
enum { SEL_FLAGGED, SEL_IF, SEL_UNIQUE, SEL_PARTITION };

static void fuzz_select(const input *in, int which)
{
    static const char *const names[] = {"pp_select_flagged", "pp_select_if", "pp_unique", "pp_partition_if"};
    const char *fn = names[which];
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_SELECT, in->seq)) return;
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    pp_cmp cmp = (in->param % 7) == 6 ? (in->param & 0x80 ? (pp_cmp)-1 : (pp_cmp)6) : (pp_cmp)(in->param % 7);
    int uses_cmp = which == SEL_IF || which == SEL_PARTITION;
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if (uses_cmp && (unsigned)cmp > PP_NE) e.invalid = 1;

    unsigned char *host = (unsigned char *)xmalloc(bytes + 8);
    uint8_t *hflags = (uint8_t *)xmalloc(n + 1);
    if (in->sz) gen_elems(in, in->type, n, 0, host);
    else memset(host, 2, bytes);
    for (size_t i = 0; i < n; i++) {
        uint8_t b = pool_byte(in, i * 3 + 1);
        hflags[i] = in->dm == 4 ? (uint8_t)(b & 1) : in->dm == 5 ? (uint8_t)(b | 1) : b;
    }
    unsigned char value[8];
    memcpy(value, in->s1, 8);
    if (in->sz && !(in->dm & 1) && n) memcpy(value, host + (in->ovl % n) * sz, sz); /* a value of the data */

    char *pin, *pout, *pflags = NULL, *pcount;
    const void *pvalue = value;
    if (in->pm == 6) {
        /* out overlapping in, flags or count */
        char *big = buf_new(&B, in, 3 * bytes + n + 64);
        pin = big;
        pflags = big + bytes + 8;
        pout = big + 2 * bytes + n + 16;
        pcount = big + 3 * bytes + n + 24;
        pcount -= (size_t)(pcount - big) % 8;
        pout -= (size_t)(pout - big) % 8;
        switch (in->ovl % 4) {
        case 0: pout = pin + pick_offset(in, bytes, sz, 1); break;
        case 1: pout = big + pick_offset(in, bytes + 8, sz, 2); break; /* towards flags */
        case 2: pcount = pout + pick_offset(in, bytes > 8 ? bytes - 8 : 0, 8, 3); break;
        default: pin = pout + pick_offset(in, bytes, sz, 4); break; /* in after out */
        }
        if (pin + bytes > big + B.bytes[0]) pin = big;
        pout = misalign_if_overlapping(in, pout, pin, bytes, bytes, big, big + B.bytes[0]);
        buf_set(&B, pin, host, bytes);
        if (which == SEL_FLAGGED && !overlap(pflags, n, pin, bytes)) buf_set(&B, pflags, hflags, n);
        /* count overlapping in or flags is not specified: make it not */
        if (overlap(pcount, 8, pin, bytes) || overlap(pcount, 8, pflags, n)) pcount = buf_new(&B, in, 8);
        if (which != SEL_FLAGGED) pflags = NULL;
        else if (overlap(pflags, n, pin, bytes)) pflags = buf_new(&B, in, n), buf_set(&B, pflags, hflags, n);
    } else {
        pin = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pin) buf_set(&B, pin, host, bytes);
        if (which == SEL_FLAGGED) {
            pflags = buf_new(&B, in, n);
            buf_set(&B, pflags, hflags, n);
        }
        pout = in->pm == 5 && !(in->ovl & 1) ? NULL : buf_new(&B, in, bytes);
        pcount = in->pm == 5 && (in->ovl & 1) ? NULL : buf_new(&B, in, 8);
        if (in->pm == 7) {
            if (which == SEL_FLAGGED) pflags = NULL;
            else if (uses_cmp) pvalue = NULL;
            else pcount = NULL;
        }
    }
    if (n && (!pin || !pout || (which == SEL_FLAGGED && !pflags))) e.invalid = 1;
    if (!pcount) e.invalid = 1;
    if (uses_cmp && !pvalue) e.invalid = 1;
    if (overlap(pout, bytes, pin, bytes) || overlap(pout, bytes, pflags, which == SEL_FLAGGED ? n : 0) ||
        overlap(pcount, 8, pout, bytes))
        e.invalid = 1;

    may_write(&B, pout, bytes);
    may_write(&B, pcount, 8);
    pp_status st = PP_SUCCESS;
    switch (which) {
    case SEL_FLAGGED: st = pp_select_flagged(ctx, in->type, pin, (const uint8_t *)pflags, n, pout, (uint64_t *)pcount); break;
    case SEL_IF: st = pp_select_if(ctx, in->type, pin, n, cmp, pvalue, pout, (uint64_t *)pcount); break;
    case SEL_UNIQUE: st = pp_unique(ctx, in->type, pin, n, pout, (uint64_t *)pcount); break;
    default: st = pp_partition_if(ctx, in->type, pin, n, cmp, pvalue, pout, (uint64_t *)pcount); break;
    }
    int ok = judge(in, ctx, &e, st, fn);
    buf_check(&B, ok, fn);
    if (ok) {
        unsigned char *want = (unsigned char *)xmalloc(bytes + 8), *got = (unsigned char *)xmalloc(bytes + 8);
        uint64_t k = 0, gk = 0;
        switch (which) {
        case SEL_FLAGGED: k = ref_select_flagged(in->type, host, hflags, n, want); break;
        case SEL_IF: k = ref_select_if(in->type, host, n, cmp, value, want); break;
        case SEL_UNIQUE: k = ref_unique(in->type, host, n, want); break;
        default: k = ref_partition_if(in->type, host, n, cmp, value, want); break;
        }
        buf_read(&B, &gk, pcount, 8);
        CHECK(gk == k, "%s (%s, n=%zu): count %llu, expected %llu", fn, pp_type_name(in->type), n,
              (unsigned long long)gk, (unsigned long long)k);
        buf_read(&B, got, pout, bytes);
        expect_bits(in->type, got, want, which == SEL_PARTITION ? n : (size_t)k, fn);
        free(want);
        free(got);
    }
    free(host);
    free(hflags);
    buf_free(&B);
}

/* ---- sort -------------------------------------------------------------------------------------------------------------------- */
static void fuzz_sort(const input *in, int pairs)
{
    const char *fn = pairs ? "pp_sort_pairs" : "pp_sort";
    pp_context *ctx = g_ctx[in->ctx_i];
    if (!set_algo(ctx, PP_PRIM_SORT, in->seq)) return;
    static const size_t vsizes[8] = {1, 2, 4, 8, 0, 3, 16, 8};
    size_t vs = pairs ? vsizes[(in->param >> 2) % 8] : 0;
    pp_order order = (pp_order)(in->param % 3);
    size_t sz = in->sz ? in->sz : 8, n = in->n, bytes = n * sz;
    size_t vbytes = n * (vs ? vs : 1);
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    expect e = {0, 0};
    if (!in->sz) e.invalid = 1;
    if ((unsigned)order > PP_DESCENDING) e.invalid = 1;
    if (pairs && vs != 1 && vs != 2 && vs != 4 && vs != 8) e.invalid = 1;

    unsigned char *keys = (unsigned char *)xmalloc(bytes + 8), *vals = (unsigned char *)xmalloc(vbytes + 8);
    if (in->sz) gen_elems(in, in->type, n, 0, keys);
    else memset(keys, 3, bytes);
    /* values: the original indices, little-endian (any bytes for a bad value_size) */
    for (size_t i = 0; i < vbytes; i++)
        vals[i] = (unsigned char)(vs && i % vs < 8 ? (uint64_t)(i / vs) >> (8 * (i % vs)) : i);

    char *pk, *pv = NULL;
    if (pairs && in->pm == 6) {
        char *big = buf_new(&B, in, bytes + vbytes + 64);
        int values_first = (in->ovl >> 12) & 1;
        pk = values_first ? big + pick_offset(in, vbytes + 64, 8, 1) : big;
        pv = values_first ? big : big + pick_offset(in, bytes + 64, 8, 2);
        pv = misalign_if_overlapping(in, pv, pk, vbytes, bytes, big, big + B.bytes[0]);
        if (!overlap(pk, bytes, pv, vbytes)) {
            buf_set(&B, pk, keys, bytes);
            buf_set(&B, pv, vals, vbytes);
        }
    } else {
        pk = in->pm == 4 ? NULL : buf_new(&B, in, bytes);
        if (pk) buf_set(&B, pk, keys, bytes);
        if (pairs) {
            pv = in->pm == 5 ? NULL : buf_new(&B, in, vbytes);
            if (pv) buf_set(&B, pv, vals, vbytes);
        }
    }
    if (n && !pk) e.invalid = 1;
    if (pairs && n && !pv) e.invalid = 1;
    if (pairs && vs && overlap(pk, bytes, pv, n * vs)) e.invalid = 1;

    may_write(&B, pk, bytes);
    if (pairs) may_write(&B, pv, n * vs);
    pp_status st = pairs ? pp_sort_pairs(ctx, in->type, pk, pv, vs, n, order) : pp_sort(ctx, in->type, pk, n, order);
    int ok = judge(in, ctx, &e, st, fn);
    buf_check(&B, ok, fn);
    if (ok) {
        unsigned char *got = (unsigned char *)xmalloc(bytes + vbytes + 8);
        ref_sort_pairs(in->type, keys, pairs ? vals : NULL, vs, n, order);
        buf_read(&B, got, pk, bytes);
        expect_bits(in->type, got, keys, n, pairs ? "pp_sort_pairs keys" : "pp_sort keys");
        if (pairs) {
            buf_read(&B, got, pv, n * vs);
            for (size_t i = 0; i < n * vs; i++)
                CHECK(got[i] == vals[i], "pp_sort_pairs (%s, n=%zu, value_size=%zu): values differ at element %zu",
                      pp_type_name(in->type), n, vs, i / vs);
        }
        free(got);
    }
    free(keys);
    free(vals);
    buf_free(&B);
}

/* ---- the rest of the API ------------------------------------------------------------------------------------------------------- */
static void fuzz_misc(const input *in)
{
    pp_context *ctx = g_ctx[in->ctx_i];
    int a = (int8_t)in->s1[0], b = (int8_t)in->s1[1];
    CHECK(pp_status_string((pp_status)a) != NULL, "pp_status_string");
    CHECK(pp_type_name((pp_type)a) != NULL && pp_op_name((pp_op)a) != NULL, "names");
    CHECK(pp_backend_name((pp_backend)a) != NULL && pp_primitive_name((pp_primitive)a) != NULL &&
              pp_algorithm_name((pp_algorithm)a) != NULL,
          "names");
    size_t ts = pp_type_size((pp_type)a);
    CHECK((a >= 0 && a < PP_TYPE_COUNT) ? ts > 0 : ts == 0, "pp_type_size(%d) = %zu", a, ts);
    pp_status bs = pp_backend_status((pp_backend)a);
    CHECK((a >= 0 && a <= PP_BACKEND_OPENCL) ? bs != PP_ERROR_INVALID_ARGUMENT : bs == PP_ERROR_INVALID_ARGUMENT,
          "pp_backend_status(%d)", a);

    /* algorithm choice */
    pp_status st = pp_set_algorithm(ctx, (pp_primitive)a, (pp_algorithm)b);
    if (a < 0 || a >= PP_PRIM_COUNT || b < 0 || b >= PP_ALGO_COUNT) {
        CHECK(st == PP_ERROR_INVALID_ARGUMENT, "pp_set_algorithm(%d, %d) returned %s", a, b, pp_status_string(st));
        CHECK(*pp_last_error(ctx), "pp_set_algorithm: no message");
    } else {
        CHECK(st == PP_SUCCESS || st == PP_ERROR_UNSUPPORTED, "pp_set_algorithm(%d, %d)", a, b);
        if (st == PP_SUCCESS) CHECK(pp_get_algorithm(ctx, (pp_primitive)a) == (pp_algorithm)b, "pp_get_algorithm");
        CHECK(pp_set_algorithm(ctx, (pp_primitive)a, PP_ALGO_AUTO) == PP_SUCCESS, "reset");
    }

    /* memory: copies with overlap */
    size_t total = 1 + in->n;
    void *p = (void *)&p;
    CHECK(pp_malloc(ctx, &p, 0) == PP_SUCCESS && p == NULL, "pp_malloc(0)");
    buffers B = {ctx, 0, {0}, {0}, {0}, 0, {0}, {0}};
    char *m = buf_new(&B, in, total);
    size_t len = in->ovl % total, d = in->s2[0] % total, s = in->s2[1] % total;
    if (d + len > total) len = total - d;
    if (s + len > total) len = total - s;
    int bad = len && d < s + len && s < d + len;
    may_write(&B, m + d, len);
    st = pp_copy(ctx, (in->pm == 4 && len) ? NULL : m + d, m + s, len);
    if (in->pm == 4 && len) bad = 1;
    CHECK(bad ? st == PP_ERROR_INVALID_ARGUMENT : st == PP_SUCCESS, "pp_copy(%zu, %zu, %zu) returned %s", d, s, len,
          pp_status_string(st));
    if (st != PP_SUCCESS) CHECK(*pp_last_error(ctx), "pp_copy: no message");
    buf_check(&B, st == PP_SUCCESS, "pp_copy");
    if (st == PP_SUCCESS && len) {
        unsigned char *h = (unsigned char *)xmalloc(len);
        buf_read(&B, h, m + d, len);
        CHECK(memcmp(h, B.snap[0] + s, len) == 0, "pp_copy copied wrongly");
        free(h);
    }
    buf_free(&B);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    input in;
    decode(data, size, &in);
    switch (in.sel) {
    case 0: fuzz_reduce_scan(&in, 0); break;
    case 1: fuzz_reduce_scan(&in, 1); break;
    case 2: fuzz_histogram(&in, 0); break;
    case 3: fuzz_histogram(&in, 1); break;
    case 4: fuzz_select(&in, SEL_FLAGGED); break;
    case 5: fuzz_select(&in, SEL_IF); break;
    case 6: fuzz_select(&in, SEL_UNIQUE); break;
    case 7: fuzz_select(&in, SEL_PARTITION); break;
    case 8: fuzz_sort(&in, 0); break;
    case 9: fuzz_sort(&in, 1); break;
    default: fuzz_misc(&in); break;
    }
    return 0;
}
