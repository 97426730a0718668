/* Lexicographic comparison of two long byte strings in parallel
 * (examples/string_compare.md), with parprim's built-in primitives only.
 * Over the common length m = min(|s|, |t|):
 *   d[i] = s[i] ^ t[i]  parprim has no elementwise operation of two arrays:
 *                       a stable merge by position (pp_merge_pairs, both
 *                       sides keyed 0, 1, ...) puts s[i] beside t[i], and
 *                       pp_reduce_by_key with PP_XOR folds each pair; its
 *                       keys_out are the positions 0 .. m-1;
 *   first i, d[i] != 0  pp_select_flagged keeps the positions whose d is
 *                       nonzero, in order: the first is the first
 *                       difference, the count says whether there is one.
 * The order then follows from the two bytes at that position (read from the
 * host's copies of the strings), or, with no difference, from the lengths
 * (a proper prefix is smaller). Checked exactly against memcmp and a
 * sequential loop on equal strings, strings differing at the first, the
 * last and a random position, proper prefixes both ways, and unrelated
 * strings. */
#include "example_common.h"

/* The device arrays of comparisons of common length up to cap. */
typedef struct cmp_bufs {
    uint64_t *keys, *mkeys, *rkeys, *sel, *count, *nsel;
    uint8_t *mvals, *rd;
} cmp_bufs;

static cmp_bufs cmp_alloc(pp_context *ctx, size_t cap)
{
    cmp_bufs b;
    uint64_t *iota = malloc((cap ? cap : 1) * 8);
    if (!iota) {
        fprintf(stderr, "string_compare: out of host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < cap; i++) iota[i] = i; /* parprim has no iota */
    b.keys = ex_alloc(ctx, cap * 8);
    b.mkeys = ex_alloc(ctx, 2 * cap * 8);
    b.rkeys = ex_alloc(ctx, 2 * cap * 8);
    b.sel = ex_alloc(ctx, cap * 8);
    b.count = ex_alloc(ctx, 8);
    b.nsel = ex_alloc(ctx, 8);
    b.mvals = ex_alloc(ctx, 2 * cap);
    b.rd = ex_alloc(ctx, 2 * cap);
    ex_ok(ctx, pp_upload(ctx, b.keys, iota, cap * 8), "pp_upload keys");
    free(iota);
    return b;
}

static void cmp_free(pp_context *ctx, cmp_bufs *b)
{
    void *all[] = {b->keys, b->mkeys, b->rkeys, b->sel, b->count, b->nsel, b->mvals, b->rd};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) ex_ok(ctx, pp_free(ctx, all[i]), "pp_free");
}

static int sign(int v) { return (v > 0) - (v < 0); }

/* The order of s and t (-1, 0, 1) and in *first the first position where
 * they differ (the common length where one is a prefix of the other). s, t:
 * context memory; hs, ht: the host's copies, read at one position. */
static int cmp_parallel(pp_context *ctx, cmp_bufs *b, const uint8_t *s, const uint8_t *hs, size_t ns, const uint8_t *t,
                        const uint8_t *ht, size_t nt, size_t *first)
{
    size_t m = ns < nt ? ns : nt;
    ex_ok(ctx, pp_merge_pairs(ctx, PP_U64, b->keys, s, m, b->keys, t, m, 1, b->mkeys, b->mvals, PP_ASCENDING),
          "pp_merge_pairs (s[i] beside t[i])");
    ex_ok(ctx, pp_reduce_by_key(ctx, PP_U64, PP_U8, PP_XOR, b->mkeys, b->mvals, 2 * m, b->rkeys, b->rd, b->count),
          "pp_reduce_by_key (s[i] ^ t[i])");
    ex_ok(ctx, pp_select_flagged(ctx, PP_U64, b->rkeys, b->rd, m, b->sel, b->nsel),
          "pp_select_flagged (positions of differences)");
    uint64_t nsel = 0, pos = 0;
    ex_ok(ctx, pp_download(ctx, &nsel, b->nsel, 8), "pp_download count");
    if (!nsel) {
        *first = m;
        return (ns > nt) - (ns < nt);
    }
    ex_ok(ctx, pp_download(ctx, &pos, b->sel, 8), "pp_download first difference");
    *first = (size_t)pos;
    return hs[pos] < ht[pos] ? -1 : 1;
}

/* The same sequentially: a loop for the position, memcmp for the order. */
static int cmp_sequential(const uint8_t *s, size_t ns, const uint8_t *t, size_t nt, size_t *first, int *by_memcmp)
{
    size_t m = ns < nt ? ns : nt, i = 0;
    while (i < m && s[i] == t[i]) i++;
    *first = i;
    int c = sign(memcmp(s, t, m));
    *by_memcmp = c ? c : (ns > nt) - (ns < nt);
    if (i < m) return s[i] < t[i] ? -1 : 1;
    return (ns > nt) - (ns < nt);
}

static int cmp_body(pp_context *ctx, const ex_args *a)
{
    size_t n = a->n, extra = 1 + n / 3;
    uint64_t r = a->seed;
    uint8_t *hs = malloc(n + 1), *ht = malloc(n + extra + 1);
    if (!hs || !ht) {
        fprintf(stderr, "string_compare: out of host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) hs[i] = (uint8_t)('a' + ex_below(&r, 4)); /* text of few letters */
    uint8_t *s = ex_alloc(ctx, n), *t = ex_alloc(ctx, n + extra);
    ex_ok(ctx, pp_upload(ctx, s, hs, n), "pp_upload s");
    cmp_bufs b = cmp_alloc(ctx, n);
    static const char *const names[] = {"equal",       "differ at a random position",
                                        "differ at 0", "differ at the last position",
                                        "t a prefix",  "s a prefix",
                                        "t unrelated"};
    int bad = 0;
    for (int c = 0; c < 7; c++) {
        size_t nt = n, k = (size_t)ex_below(&r, n);
        memcpy(ht, hs, n);
        if (c == 1 || c == 2 || c == 3) {
            size_t at = c == 1 ? k : c == 2 ? 0 : n - 1;
            if (n) ht[at] = (uint8_t)(hs[at] + 1 + ex_below(&r, 255)); /* any other byte */
        } else if (c == 4) {
            nt = k; /* a proper prefix of s (n > 0) */
        } else if (c == 5) {
            nt = n + 1 + (size_t)ex_below(&r, extra);
            for (size_t i = n; i < nt; i++) ht[i] = (uint8_t)('a' + ex_below(&r, 4));
        } else if (c == 6) {
            for (size_t i = 0; i < n; i++) ht[i] = (uint8_t)('a' + ex_below(&r, 4));
        }
        ex_ok(ctx, pp_upload(ctx, t, ht, nt), "pp_upload t");
        ex_ok(ctx, pp_synchronize(ctx), "pp_synchronize");
        size_t pf = 0, sf = 0;
        int mc = 0;
        double t0 = ex_now();
        int pc = cmp_parallel(ctx, &b, s, hs, n, t, ht, nt, &pf);
        double t1 = ex_now();
        int sc = cmp_sequential(hs, n, ht, nt, &sf, &mc);
        double t2 = ex_now();
        int ok = pc == sc && pc == mc && pf == sf;
        printf("  %-28s |s| = %zu, |t| = %zu: order %+d, first difference %zu (sequential %+d, %zu; memcmp "
               "%+d) %s; parprim %.6f s, sequential %.6f s\n",
               names[c], n, nt, pc, pf, sc, sf, mc, ok ? "ok" : "MISMATCH", t1 - t0, t2 - t1);
        bad |= !ok;
    }
    cmp_free(ctx, &b);
    ex_ok(ctx, pp_free(ctx, s), "pp_free");
    ex_ok(ctx, pp_free(ctx, t), "pp_free");
    free(hs);
    free(ht);
    return bad;
}

int main(int argc, char **argv)
{
    ex_args a = ex_parse(argc, argv, 1000000);
    if (a.n > SIZE_MAX / 32) {
        fprintf(stderr, "string_compare: --n %zu is too large\n", a.n);
        return 2;
    }
    return ex_run(&a, "string_compare", cmp_body);
}
