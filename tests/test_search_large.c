/* The calls of issue 43 past 2^31, on every backend present (the default
 * algorithm), on one-byte keys whose answers are known in closed form (no
 * reference pass over the data beyond the check's own loop):
 *  - pp_scan_init, n = 2^31 + 2^20 + 7: in[i] = 1 but at a few hundred
 *    known positions (random bytes), u8 SUM inclusive and i8 SUM exclusive
 *    with a nonzero init, in place: out[i] = init + i (+ 1) + the sum of
 *    (in[p] - 1) over the known p before i (inclusive: up to i), mod 256;
 *  - pp_lower_bound and pp_upper_bound of 1000 random queries into n
 *    sorted keys made of 256 runs (value v in [start[v], start[v+1]), some
 *    runs empty, about half the run boundaries past 2^31), ascending and
 *    descending: the answers are run starts;
 *  - pp_top_k, k = 1000, of n keys 0x80 but at a few hundred known
 *    positions holding smaller or larger values, ascending and descending:
 *    those values sorted (ties by index), then 0x80 at the first indices
 *    not among the known positions;
 *  - pp_merge of a and b, na + nb = n, each of 256 runs of known lengths,
 *    ascending: the output's runs are the sums (the descending order and
 *    stability are test_merge's: an order only flips the comparisons, the
 *    indexing past 2^31 is the same, and a second merge of 2^31 keys costs
 *    as much as the rest of the test on PoCL; stability needs values,
 *    which would double the memory);
 *  - m = n queries (the sorted keys themselves: out[j] is the start of
 *    j's run, or of the next) and top-k with k = 2^31 + 3 (ascending):
 *    16 GiB of outputs, so these run only where the device holds them and
 *    the host has 16 GiB to spare besides (HUGE_SPARE: not on a shared
 *    machine of 24 GiB, where they would take its memory and minutes).
 * One host buffer of n bytes holds each case's data in turn (made again
 * per case by memsets, uploaded, then reused for whole downloads); one
 * device buffer of n bytes per backend holds every input and the merge's
 * output. Each group asks first (tc_need_buffers) for what it allocates
 * and is skipped with the reason where the device or the host cannot hold
 * it. PP_ERROR_OUT_OF_MEMORY after asking, and PP_ERROR_UNSUPPORTED, are
 * skips with the message; any other status, or a wrong result, fails. */
#define _POSIX_C_SOURCE 200809L
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE_N (((size_t)1 << 31) + ((size_t)1 << 20) + 7)
#define BIG_K (((size_t)1 << 31) + 3)
#define CHUNK ((size_t)64 << 20)
#define SMALL ((size_t)64 << 20) /* allowance for the small buffers and working memory */
#define NQ 1000
#define TOPK 1000
#define NSPEC 400 /* known positions, before removing repeats */
#define MID 0x80  /* top-k's common key */
/* The groups of 16 GiB of outputs ask this much host memory more, to
 * leave to others: they run on machines with room to spare (GPU hosts,
 * large servers), not on a shared one that would just hold them. */
#define HUGE_SPARE ((size_t)16 << 30)

typedef struct sl_data {
    size_t n, na, nb;
    unsigned char *h;                       /* n bytes: each case's data, then downloads */
    uint64_t start[257];                    /* search: value v's run */
    uint64_t ra[257], rb[257];              /* merge: a's and b's runs */
    uint64_t pos[NSPEC];                    /* known positions, ascending, distinct */
    unsigned char sval[NSPEC], tval[NSPEC]; /* their scan inputs and top-k keys */
    size_t nspec;
    unsigned char q[NQ];
    unsigned char init;
} sl_data;

/* ---- data ---------------------------------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 256 runs over [0, total): start[0] = 0, start[256] = total, the others
 * uniform in [lo, total], sorted; the runs of values e .. e + 9 empty. */
static void make_runs(tc_rng *r, size_t lo, size_t total, uint64_t *start, int e)
{
    start[0] = 0, start[256] = total;
    for (int v = 1; v < 256; v++) start[v] = lo + tc_below(r, total - lo + 1);
    qsort(start + 1, 255, sizeof *start, cmp_u64);
    for (int v = e; v < e + 10; v++) start[v + 1] = start[v];
}

/* h[start[v] .. start[v+1]) = v (desc: 255 - v). */
static void fill_runs(unsigned char *h, const uint64_t *start, int desc)
{
    for (int v = 0; v < 256; v++) memset(h + start[v], desc ? 255 - v : v, (size_t)(start[v + 1] - start[v]));
}

static void make_data(sl_data *D, tc_rng *r)
{
    const size_t n = D->n;
    make_runs(r, ((size_t)1 << 31) - ((size_t)1 << 20), n, D->start, 100);
    D->na = n / 2 + 12345, D->nb = n - D->na;
    make_runs(r, 0, D->na, D->ra, 40);
    make_runs(r, 0, D->nb, D->rb, 200);
    /* known positions: the ends, both sides of 2^31, and random ones */
    const uint64_t fixed[] = {0, 1, 2, ((uint64_t)1 << 31) - 1, (uint64_t)1 << 31, ((uint64_t)1 << 31) + 1, n - 1};
    size_t k = 0;
    for (; k < sizeof fixed / sizeof *fixed; k++) D->pos[k] = fixed[k];
    for (; k < NSPEC; k++) D->pos[k] = tc_below(r, n);
    qsort(D->pos, NSPEC, sizeof *D->pos, cmp_u64);
    D->nspec = 0;
    for (size_t i = 0; i < NSPEC; i++)
        if (!D->nspec || D->pos[i] != D->pos[D->nspec - 1]) D->pos[D->nspec++] = D->pos[i];
    for (size_t s = 0; s < D->nspec; s++) {
        D->sval[s] = (unsigned char)tc_next(r);
        const unsigned t = (unsigned)tc_below(r, 127); /* 0 .. 126 */
        D->tval[s] = (unsigned char)(tc_next(r) & 1 ? MID + 1 + t : t);
    }
    tc_fill_random(r, D->q, NQ);
    D->init = (unsigned char)(1 + tc_below(r, 255));
}

/* ---- checks ---------------------------------------------------------------------------------- */
/* A check of count elements from first (piece[0] is element first): the
 * first wrong one's index (*want its expected value), or SIZE_MAX. */
typedef size_t (*sl_check_fn)(void *arg, const void *piece, size_t first, size_t count, uint64_t *want);

/* Element i of piece (es bytes: 1 or 8). */
static uint64_t elem(const void *piece, size_t es, size_t i)
{
    return es == 1 ? ((const unsigned char *)piece)[i] : ((const uint64_t *)piece)[i];
}

/* Downloads dev (count elements of es bytes) into buf (cap bytes), in
 * pieces where the backend allows offsets (opencl: whole, cap must hold
 * it), and checks each piece. */
static void check_dev(pp_context *ctx, const void *dev, size_t count, size_t es, void *buf, size_t cap, sl_check_fn fn,
                      void *arg, const char *what)
{
    const int whole = pp_context_backend(ctx) == PP_BACKEND_OPENCL; /* cl_mem: no offsets into a buffer */
    const size_t per = whole ? count : cap / es;
    TC_REQUIRE(per * es <= cap && per > 0, "%s: download buffer too small", what);
    for (size_t o = 0; o < count; o += per) {
        const size_t len = count - o < per ? count - o : per;
        TC_OK(pp_download(ctx, buf, (const char *)dev + o * es, len * es));
        uint64_t want = 0;
        const size_t bad = fn(arg, buf, o, len, &want);
        if (bad != SIZE_MAX) {
            TC_FAIL("%s: element %zu is %llu, expected %llu", what, bad, (unsigned long long)elem(buf, es, bad - o),
                    (unsigned long long)want);
        }
    }
}

/* Elements b .. e of a piece whose first is element first all equal w;
 * else the first that does not. */
static size_t same_elems(const void *piece, size_t es, size_t first, size_t b, size_t e, uint64_t w)
{
    uint64_t bad = 0;
    if (es == 1) {
        const unsigned char *p = (const unsigned char *)piece, v = (unsigned char)w;
        for (size_t i = b; i < e; i++) bad |= p[i - first] ^ v;
    } else {
        const uint64_t *p = (const uint64_t *)piece;
        for (size_t i = b; i < e; i++) bad |= p[i - first] ^ w;
    }
    if (bad)
        for (size_t i = b; i < e; i++)
            if (elem(piece, es, i - first) != w) return i;
    return SIZE_MAX;
}

typedef struct scan_ref {
    const sl_data *D;
    int exclusive;
} scan_ref;

/* exclusive out[i] = d + i with d = init + the sum of (in[p] - 1) over the
 * known p < i; inclusive out[i] = that + in[i] */
static size_t check_scan(void *arg, const void *piece, size_t first, size_t count, uint64_t *want)
{
    const scan_ref *R = (const scan_ref *)arg;
    const sl_data *D = R->D;
    const unsigned char *p = (const unsigned char *)piece;
    const unsigned add = R->exclusive ? 0 : 1;
    unsigned d = D->init;
    size_t s = 0;
    for (; s < D->nspec && D->pos[s] < first; s++) d += D->sval[s] - 1u;
    for (size_t i = first, end = first + count; i < end;) {
        const size_t stop = s < D->nspec && D->pos[s] < end ? D->pos[s] : end;
        unsigned char bad = 0;
        for (size_t j = i; j < stop; j++) bad |= p[j - first] ^ (unsigned char)(d + j + add);
        if (bad)
            for (size_t j = i; j < stop; j++)
                if (p[j - first] != (unsigned char)(d + j + add)) return *want = (unsigned char)(d + j + add), j;
        if (stop == end) break;
        const unsigned char w = (unsigned char)(d + stop + (R->exclusive ? 0 : D->sval[s]));
        if (p[stop - first] != w) return *want = w, stop;
        d += D->sval[s] - 1u, s++, i = stop + 1;
    }
    return SIZE_MAX;
}

/* 256 runs of equal elements: value[v] in [start[v], start[v+1]): the
 * merge's output (value[v] = v), and the answers to m = n queries, the
 * sorted keys themselves (value[v] = v's run start, upper bound: the next
 * run's). */
typedef struct runs_ref {
    const uint64_t *start;
    uint64_t value[256];
    size_t es;
} runs_ref;

static size_t check_runs(void *arg, const void *piece, size_t first, size_t count, uint64_t *want)
{
    const runs_ref *R = (const runs_ref *)arg;
    for (int v = 0; v < 256; v++) {
        const size_t b = R->start[v] > first ? R->start[v] : first;
        const size_t e = R->start[v + 1] < first + count ? R->start[v + 1] : first + count;
        const size_t bad = b < e ? same_elems(piece, R->es, first, b, e, R->value[v]) : SIZE_MAX;
        if (bad != SIZE_MAX) return *want = R->value[v], bad;
    }
    return SIZE_MAX;
}

/* ---- top-k's answer -------------------------------------------------------------------------- */
typedef struct topk_ref {
    const sl_data *D;
    size_t nbest;             /* known keys before the 0x80s */
    unsigned char key[NSPEC]; /* their keys and indices, in order */
    uint64_t ix[NSPEC];
    size_t next_s; /* the indices of the 0x80s: next candidate and known one */
    uint64_t next_i;
} topk_ref;

static int g_desc; /* qsort's order for cmp_best */
static int cmp_best(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; /* key << 40 | index */
    const uint64_t kx = x >> 40, ky = y >> 40, ix = x & (((uint64_t)1 << 40) - 1), iy = y & (((uint64_t)1 << 40) - 1);
    if (kx != ky) return (kx < ky) != g_desc ? -1 : 1;
    return ix < iy ? -1 : ix > iy;
}

/* The known keys on order's side of 0x80, sorted, ties by index. */
static void topk_answer(topk_ref *T, const sl_data *D, int desc)
{
    uint64_t tmp[NSPEC];
    T->D = D, T->nbest = 0, T->next_s = 0, T->next_i = 0;
    for (size_t s = 0; s < D->nspec; s++)
        if ((D->tval[s] > MID) == desc) tmp[T->nbest++] = (uint64_t)D->tval[s] << 40 | D->pos[s];
    g_desc = desc;
    qsort(tmp, T->nbest, sizeof *tmp, cmp_best);
    for (size_t j = 0; j < T->nbest; j++)
        T->key[j] = (unsigned char)(tmp[j] >> 40), T->ix[j] = tmp[j] & (((uint64_t)1 << 40) - 1);
}

/* The next index of a 0x80 key (pieces come in order). */
static uint64_t next_mid(topk_ref *T)
{
    const sl_data *D = T->D;
    while (T->next_s < D->nspec && D->pos[T->next_s] == T->next_i) T->next_s++, T->next_i++;
    return T->next_i++;
}

static size_t check_topk_keys(void *arg, const void *piece, size_t first, size_t count, uint64_t *want)
{
    const topk_ref *T = (const topk_ref *)arg;
    const unsigned char *p = (const unsigned char *)piece;
    for (size_t j = first; j < first + count && j < T->nbest; j++)
        if (p[j - first] != T->key[j]) return *want = T->key[j], j;
    const size_t b = T->nbest > first ? T->nbest : first;
    const size_t bad = b < first + count ? same_elems(p, 1, first, b, first + count, MID) : SIZE_MAX;
    if (bad != SIZE_MAX) *want = MID;
    return bad;
}

static size_t check_topk_ix(void *arg, const void *piece, size_t first, size_t count, uint64_t *want)
{
    topk_ref *T = (topk_ref *)arg;
    const uint64_t *p = (const uint64_t *)piece;
    for (size_t j = first; j < first + count; j++) {
        const uint64_t w = j < T->nbest ? T->ix[j] : next_mid(T);
        if (p[j - first] != w) return *want = w, j;
    }
    return SIZE_MAX;
}

/* ---- the groups -------------------------------------------------------------------------------- */
static const char *bname(pp_context *ctx) { return pp_backend_name(pp_context_backend(ctx)); }

/* Host memory a download of bytes takes (opencl downloads whole buffers). */
static size_t dl_bytes(pp_context *ctx, size_t bytes)
{
    return pp_context_backend(ctx) == PP_BACKEND_OPENCL ? bytes : CHUNK;
}

/* pp_top_k's working memory for u8 keys (the header's figures): opencl
 * argsorts all n keys with 8-byte indices (sorted keys, index sequence,
 * permutation, and the sort's scratch for the pairs); cpu at most 16 bytes
 * per key taken and the sort of k pairs; cuda about 3 * k * 9 bytes and the
 * sort's scratch. */
static size_t topk_work(pp_context *ctx, size_t n, size_t k)
{
    switch (pp_context_backend(ctx)) {
    case PP_BACKEND_OPENCL:
        return 17 * n + TC_SCRATCH(9 * n);
    case PP_BACKEND_CPU:
        return 32 * k + SMALL;
    default:
        return 27 * k + TC_SCRATCH(9 * k) + SMALL;
    }
}

/* The largest buffer among them and the outputs: opencl's permutation
 * (8 n bytes), else indices_out. */
static size_t topk_big(pp_context *ctx, size_t n, size_t k)
{
    return 8 * (pp_context_backend(ctx) == PP_BACKEND_OPENCL ? n : k);
}

/* The device buffers every group shares: dev (n bytes), small (init,
 * queries, their answers, top-k's outputs). */
typedef struct sl_bufs {
    void *dev, *init, *q, *out, *keys, *ix;
} sl_bufs;

static void group_scan(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n;
    for (int ex = 0; ex < 2; ex++) {
        const pp_type t = ex ? PP_I8 : PP_U8;
        tc_case("%s scan_init %s sum %s in place init=%d n=%zu", bname(ctx), ex ? "i8" : "u8",
                ex ? "exclusive" : "inclusive", D->init, n);
        memset(D->h, 1, n);
        for (size_t s = 0; s < D->nspec; s++) D->h[D->pos[s]] = D->sval[s];
        if (tc_skip_status(ctx, pp_upload(ctx, B->dev, D->h, n), "upload of the scan's input")) return;
        if (tc_skip_status(ctx,
                           pp_scan_init(ctx, t, PP_SUM, ex ? PP_EXCLUSIVE : PP_INCLUSIVE, B->dev, B->dev, n, B->init),
                           "pp_scan_init"))
            return;
        scan_ref R = {D, ex};
        check_dev(ctx, B->dev, n, 1, D->h, n, check_scan, &R, "pp_scan_init");
    }
    printf("  %s: scan_init inclusive and exclusive past 2^31 done\n", bname(ctx));
}

/* m = n queries (the ascending keys in B->dev themselves): 8 n bytes of answers. */
static void search_many(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n, ob = 8 * n;
    if (!tc_need_buffers(ctx,
                         "bounds of 2^31 + 2^20 + 7 queries (8 n bytes of answers; 16 GiB of host memory left spare)",
                         ob, ob + SMALL, dl_bytes(ctx, ob) + HUGE_SPARE))
        return;
    void *out = NULL, *buf = malloc(dl_bytes(ctx, ob));
    if (!buf) {
        tc_skip(NULL, "%s m = n queries: host malloc failed after asking", bname(ctx));
        return;
    }
    if (!tc_skip_status(ctx, pp_malloc(ctx, &out, ob), "buffer of the m = n answers"))
        for (int up = 0; up < 2; up++) {
            tc_case("%s %s_bound u8 n=m=%zu", bname(ctx), up ? "upper" : "lower", n);
            const pp_status st =
                (up ? pp_upper_bound : pp_lower_bound)(ctx, PP_U8, B->dev, n, PP_ASCENDING, B->dev, n, (uint64_t *)out);
            if (tc_skip_status(ctx, st, up ? "pp_upper_bound" : "pp_lower_bound")) break;
            runs_ref R = {D->start, {0}, 8};
            for (int v = 0; v < 256; v++) R.value[v] = D->start[v + up];
            check_dev(ctx, out, n, 8, buf, dl_bytes(ctx, ob), check_runs, &R, "m = n queries");
            if (up) printf("  %s: lower and upper bound of m > 2^31 queries done\n", bname(ctx));
        }
    pp_free(ctx, out);
    free(buf);
}

static void group_search(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n;
    if (tc_skip_status(ctx, pp_upload(ctx, B->q, D->q, NQ), "upload of the queries")) return;
    for (int desc = 0; desc < 2; desc++) {
        fill_runs(D->h, D->start, desc);
        if (tc_skip_status(ctx, pp_upload(ctx, B->dev, D->h, n), "upload of the sorted keys")) return;
        for (int up = 0; up < 2; up++) {
            tc_case("%s %s_bound u8 %s n=%zu m=%d", bname(ctx), up ? "upper" : "lower",
                    desc ? "descending" : "ascending", n, NQ);
            const pp_order o = desc ? PP_DESCENDING : PP_ASCENDING;
            const pp_status st =
                (up ? pp_upper_bound : pp_lower_bound)(ctx, PP_U8, B->dev, n, o, B->q, NQ, (uint64_t *)B->out);
            if (tc_skip_status(ctx, st, up ? "pp_upper_bound" : "pp_lower_bound")) return;
            uint64_t got[NQ];
            TC_OK(pp_download(ctx, got, B->out, sizeof got));
            for (size_t j = 0; j < NQ; j++) {
                /* ascending: v's run starts the keys not before v, ends
                 * those not after; descending: w = 255 - v */
                const uint64_t w = desc ? D->start[255 - D->q[j] + up] : D->start[D->q[j] + up];
                TC_REQUIRE(got[j] == w, "query %zu (%d): got %llu, expected %llu", j, D->q[j],
                           (unsigned long long)got[j], (unsigned long long)w);
            }
        }
        if (!desc) search_many(ctx, D, B);
    }
    printf("  %s: lower and upper bound into n > 2^31 keys done\n", bname(ctx));
}

/* k = 2^31 + 3 of the keys in B->dev, ascending. */
static void topk_many(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n, k = BIG_K;
    if (!tc_need_buffers(ctx, "top_k with k = 2^31 + 3 (9 k bytes of outputs; 16 GiB of host memory left spare)",
                         topk_big(ctx, n, k), 9 * k + topk_work(ctx, n, k), dl_bytes(ctx, 8 * k) + HUGE_SPARE))
        return;
    void *keys = NULL, *ix = NULL, *buf = malloc(dl_bytes(ctx, 8 * k));
    if (!buf) {
        tc_skip(NULL, "%s top_k k > 2^31: host malloc failed after asking", bname(ctx));
        return;
    }
    pp_status st = pp_malloc(ctx, &keys, k);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &ix, 8 * k);
    tc_case("%s top_k u8 ascending n=%zu k=%zu", bname(ctx), n, k);
    if (!tc_skip_status(ctx, st, "buffers of top_k k > 2^31") &&
        !tc_skip_status(ctx, pp_top_k(ctx, PP_U8, B->dev, n, k, PP_ASCENDING, keys, (uint64_t *)ix), "pp_top_k")) {
        topk_ref T;
        topk_answer(&T, D, 0);
        check_dev(ctx, keys, k, 1, D->h, n, check_topk_keys, &T, "top_k keys, k > 2^31");
        check_dev(ctx, ix, k, 8, buf, dl_bytes(ctx, 8 * k), check_topk_ix, &T, "top_k indices, k > 2^31");
        printf("  %s: top_k with k > 2^31 done\n", bname(ctx));
    }
    pp_free(ctx, ix);
    pp_free(ctx, keys);
    free(buf);
}

static void group_topk(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n;
    memset(D->h, MID, n);
    for (size_t s = 0; s < D->nspec; s++) D->h[D->pos[s]] = D->tval[s];
    if (tc_skip_status(ctx, pp_upload(ctx, B->dev, D->h, n), "upload of top_k's keys")) return;
    if (tc_need_buffers(ctx, "top_k of 2^31 + 2^20 + 7 keys, k = 1000", topk_big(ctx, n, TOPK), topk_work(ctx, n, TOPK),
                        0)) {
        for (int desc = 0; desc < 2; desc++) {
            tc_case("%s top_k u8 %s n=%zu k=%d", bname(ctx), desc ? "descending" : "ascending", n, TOPK);
            const pp_order o = desc ? PP_DESCENDING : PP_ASCENDING;
            if (tc_skip_status(ctx, pp_top_k(ctx, PP_U8, B->dev, n, TOPK, o, B->keys, (uint64_t *)B->ix), "pp_top_k"))
                break;
            static uint64_t ix[TOPK];
            unsigned char keys[TOPK];
            topk_ref T;
            topk_answer(&T, D, desc);
            check_dev(ctx, B->keys, TOPK, 1, keys, sizeof keys, check_topk_keys, &T, "top_k keys");
            check_dev(ctx, B->ix, TOPK, 8, ix, sizeof ix, check_topk_ix, &T, "top_k indices");
            if (desc) printf("  %s: top_k of n > 2^31 keys done\n", bname(ctx));
        }
    }
    topk_many(ctx, D, B);
}

/* a and b uploaded to their own buffers; the merge written to B->dev. */
static void group_merge(pp_context *ctx, sl_data *D, const sl_bufs *B)
{
    const size_t n = D->n, na = D->na, nb = D->nb;
    if (!tc_need_buffers(ctx, "merge of 2^30 + 2^30 + 2^20 + 7 keys", na, na + nb + SMALL, 0)) return;
    void *a = NULL, *b = NULL;
    pp_status st = pp_malloc(ctx, &a, na);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &b, nb);
    if (!tc_skip_status(ctx, st, "buffers of the merge")) {
        tc_case("%s merge u8 ascending na=%zu nb=%zu", bname(ctx), na, nb);
        fill_runs(D->h, D->ra, 0);
        st = pp_upload(ctx, a, D->h, na);
        fill_runs(D->h, D->rb, 0);
        if (st == PP_SUCCESS) st = pp_upload(ctx, b, D->h, nb);
        if (!tc_skip_status(ctx, st, "upload of the merge's inputs") &&
            !tc_skip_status(ctx, pp_merge(ctx, PP_U8, a, na, b, nb, B->dev, PP_ASCENDING), "pp_merge")) {
            uint64_t start[257];
            runs_ref R = {start, {0}, 1};
            for (int v = 0; v < 257; v++) start[v] = D->ra[v] + D->rb[v];
            for (int v = 0; v < 256; v++) R.value[v] = (uint64_t)v;
            check_dev(ctx, B->dev, n, 1, D->h, n, check_runs, &R, "pp_merge");
            printf("  %s: merge of na + nb > 2^31 keys done\n", bname(ctx));
        }
    }
    pp_free(ctx, b);
    pp_free(ctx, a);
}

static void run_backend(pp_context *ctx, sl_data *D)
{
    const size_t n = D->n;
    if (!tc_need_buffers(ctx, "the 2^31 + 2^20 + 7-byte buffer of every case", n, n + SMALL, 0)) return;
    sl_bufs B;
    memset(&B, 0, sizeof B);
    pp_status st = pp_malloc(ctx, &B.dev, n);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &B.init, 1);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &B.q, NQ);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &B.out, 8 * NQ);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &B.keys, TOPK);
    if (st == PP_SUCCESS) st = pp_malloc(ctx, &B.ix, 8 * TOPK);
    if (st == PP_SUCCESS) st = pp_upload(ctx, B.init, &D->init, 1);
    if (!tc_skip_status(ctx, st, "the shared buffers")) {
        group_scan(ctx, D, &B);
        group_search(ctx, D, &B);
        group_topk(ctx, D, &B);
        group_merge(ctx, D, &B);
    }
    pp_free(ctx, B.ix);
    pp_free(ctx, B.keys);
    pp_free(ctx, B.out);
    pp_free(ctx, B.q);
    pp_free(ctx, B.init);
    pp_free(ctx, B.dev);
}

static void test_search_large(void **state)
{
    (void)state;
    pp_context *const *ctxs;
    const size_t nctx = tc_contexts(&ctxs);
    tc_rng r = tc_rng_for("search_large");
    static sl_data D;
    memset(&D, 0, sizeof D);
    D.n = LARGE_N;
    tc_case("setup: the layouts of 2^31 + 2^20 + 7 bytes");
    make_data(&D, &r);
    if (!tc_need_buffers(NULL, "the host buffer of 2^31 + 2^20 + 7 bytes", 0, 0, D.n)) return;
    D.h = (unsigned char *)malloc(D.n);
    if (!D.h) {
        tc_skip(NULL, "malloc of %zu bytes of host memory for the data failed", D.n);
        return;
    }
    for (size_t i = 0; i < nctx; i++) {
        pp_context *ctx = tc_context_all_cores(ctxs[i]);
        run_backend(ctx, &D);
        if (ctx != ctxs[i]) pp_destroy(ctx);
    }
    free(D.h);
}

int main(void)
{
    tc_init("test_search_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_search_large)};
    int rc = cmocka_run_group_tests_name("search_large", tests, NULL, NULL);
    tc_finish();
    return rc;
}
