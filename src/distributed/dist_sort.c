/* pp_dist_sort and pp_dist_sort_pairs: a perfectly balanced, stable sort of
 * the concatenation of the ranks' parts.
 *
 *  1. agreement on (type, order, value_size) carrying every n_local;
 *  2. local pp_sort (pp_sort_pairs) of the part;
 *  3. agreement carrying each part's smallest and largest key;
 *  4. exact splitters: rank j's output starts at global position B_j (the
 *     n_local of the ranks below it). The key v_j of that position is found
 *     by a 1024-way search over the 64-bit order key (pp_dist_sort_key),
 *     all p - 1 boundaries at once: each round every rank counts its keys
 *     <= each of 1023 candidates per boundary in its sorted part (binary
 *     search on the host where the keys are host memory, else one
 *     pp_upper_bound on the device) and one all-reduce sums the counts
 *     (at most 7 rounds; 4 for 32-bit keys, fewer for narrow
 *     ranges). Then ties: with L_j keys below v_j over all ranks, rank s
 *     sends its keys below v_j and the first B_j - L_j - (keys equal to v_j
 *     on ranks below s) of its keys equal to v_j to ranks < j: ties split by
 *     global input position;
 *  5. one all-to-all exchange of the counts, one of the keys (and one of
 *     the values): each rank receives exactly n_local keys, as p sorted runs
 *     in source-rank order;
 *  6. the runs merged (pp_merge, pp_merge_pairs): adjacent runs pairwise, a
 *     level at a time, ceil(log2 p) levels, between two buffers of n_local
 *     keys (the part and a working buffer), arranged so that the last level
 *     writes the part: where the level count is even the local sort of step
 *     2 writes the working buffer, which is sent, and the runs arrive in the
 *     part. A stable merge of adjacent runs keeps equal keys in (source
 *     rank, position) order: their global input order. opencl, whose
 *     handles take no offsets, sorts the received runs again instead.
 * Where the engine cannot take context memory the sorted part is
 * downloaded (step 5 stages it anyway) and step 4 reads that copy; where it
 * can (NCCL, CUDA-aware MPI), step 4 moves kilobytes per round: its
 * rounds and its final counts are pp_upper_bound calls on the device, the
 * part's first and last keys two downloaded blocks of 1024 keys.
 * docs/distributed.md has the volumes and the model. */
#include "dist_internal.h"

#include <string.h>

typedef struct sort_args {
    pp_type type;
    void *keys, *values;
    size_t vs, n;
    pp_order order;
} sort_args;

/* Host slots: 0 sorted keys (view), 1 received keys, 2 values sent, 3 values
 * received, 4 the count arrays, 5 the splitter search's candidates. Context
 * slots: 0 the working keys, 1 the search's queries and results (where the
 * keys stay in context memory), 2 the working values (where handles are
 * addresses or the engine takes context memory). */
enum { H_KEYS, H_RKEYS, H_VALS, H_RVALS, H_COUNTS, H_SEARCH };
/* Step 4's search: candidates per boundary and round. Each round cuts
 * every interval into WAYS parts, so 32-bit keys take at most 4 rounds and
 * 64-bit keys 7 (a round is one all-reduce and, where the keys stay in
 * context memory, one upload, one pp_upper_bound and one download). */
#define WAYS 1024
/* The host slot of the search: candidates, counts, query keys, results. */
#define SEARCH_BYTES(p, ks) ((size_t)((p)-1) * (WAYS - 1) * (16 + (ks)))

/* The count arrays: boundaries (p + 1), cuts (p + 1), received counts (p)
 * and the work of splitters (8 (p - 1)) or of an exchange (5 p). */
#define COUNT_WORDS(p) ((size_t)(p)*12 + 8)

static pp_status check(pp_dist *d, const char *fn, const sort_args *a, int pairs)
{
    size_t ks = pp_type_size(a->type), kb = 0, vb = 0;
    pp_status st = pp_dist_check_type(d, fn, a->type);
    if (st == PP_SUCCESS && (unsigned)a->order > PP_DESCENDING_NAN_LAST)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'order' (%d) is not a pp_order", fn,
                          (int)a->order);
    if (st == PP_SUCCESS && pairs && a->vs != 1 && a->vs != 2 && a->vs != 4 && a->vs != 8)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'value_size' (%zu) is not 1, 2, 4 or 8", fn,
                          a->vs);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, a->n, ks, &kb);
    if (st == PP_SUCCESS && pairs) st = pp_dist_check_bytes(d, fn, a->n, a->vs, &vb);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "keys", a->keys, a->n, ks);
    if (st == PP_SUCCESS && pairs) st = pp_dist_check_array(d, fn, "values", a->values, a->n, a->vs);
    if (st == PP_SUCCESS && pairs) st = pp_dist_check_overlap(d, fn, "values", a->values, vb, "keys", a->keys, kb, 0);
    return st;
}

/* The buffers of steps 4-5, taken before the first agreement so that a
 * rank out of memory fails the call everywhere before anything is sorted. */
static pp_status reserve(pp_dist *d, const char *fn, const sort_args *a, int pairs)
{
    size_t kb = a->n * pp_type_size(a->type), vb = pairs ? a->n * a->vs : 0;
    void *p;
    pp_status st = PP_SUCCESS;
    if (!d->host_direct && !d->device_to_engine && !pp_dist_host(d, fn, H_KEYS, kb)) return PP_ERROR_OUT_OF_MEMORY;
    if (!pp_dist_host(d, fn, H_COUNTS, COUNT_WORDS(d->size) * sizeof(uint64_t))) return PP_ERROR_OUT_OF_MEMORY;
    if (!pp_dist_host(d, fn, H_SEARCH, SEARCH_BYTES(d->size, pp_type_size(a->type)))) return PP_ERROR_OUT_OF_MEMORY;
    if (d->device_to_engine && !d->host_direct) { /* the search's queries and results on the device */
        size_t nq = (size_t)(d->size - 1) * (WAYS - 1), ks = pp_type_size(a->type);
        st = pp_dist_dev(d, fn, 1, (nq * ks + 7) / 8 * 8 + nq * sizeof(uint64_t), &p);
        if (st != PP_SUCCESS) return st;
    }
    if (pp_dist_addressable(d)) { /* step 6's working buffers */
        st = pp_dist_dev(d, fn, 0, kb, &p);
        if (st == PP_SUCCESS && pairs) st = pp_dist_dev(d, fn, 2, vb, &p);
        if (st != PP_SUCCESS || d->device_to_engine) return st;
    }
    if (!pp_dist_host(d, fn, H_RKEYS, kb)) return PP_ERROR_OUT_OF_MEMORY;
    if (pairs && (!pp_dist_host(d, fn, H_VALS, vb) || !pp_dist_host(d, fn, H_RVALS, vb))) return PP_ERROR_OUT_OF_MEMORY;
    return PP_SUCCESS;
}

/* The local sort of keys_in (values_in) into keys (values): in place
 * where they are the same arrays; else pp_sort_copy writes the outputs
 * (no copy of the inputs first on cpu and cuda). */
static pp_status local_sort(pp_dist *d, const char *fn, const sort_args *a, const void *keys_in,
                            const void *values_in, void *keys, void *values, int pairs)
{
    if (pairs)
        return pp_dist_pp(d, fn, pp_sort_pairs_copy(d->ctx, a->type, keys_in, values_in, keys, values, a->vs, a->n,
                                                 a->order));
    return pp_dist_pp(d, fn, pp_sort_copy(d->ctx, a->type, keys_in, keys, a->n, a->order));
}

/* The sorted part as step 4 reads it: the keys themselves where they are
 * host memory (host_direct, or the staged copy the exchange needs anyway),
 * else (the engine takes context memory) the device array, counted by
 * pp_upper_bound there, and one block of BLOCK keys downloaded where its
 * first or last key is needed: the splitter search then moves kilobytes,
 * not the whole part. (A host sample of every 1024th key, one strided
 * cudaMemcpy2D of 4-byte rows, was slower: bench/studies/distributed.md.) */
#define BLOCK 1024
#define KEY_MAX_BYTES 8
typedef struct sorted_part {
    const sort_args *a;
    const void *keys;    /* the sorted part (context memory) */
    const void *host;    /* all keys on the host, or NULL */
    size_t ks;
    size_t block;        /* the block in buf, or SIZE_MAX */
    pp_dist *d;
    pp_status st;
    unsigned char buf[BLOCK * KEY_MAX_BYTES];
} sorted_part;

/* The keys of block blk of the part (downloaded once while it is reused). */
static const void *part_block(sorted_part *s, size_t blk, size_t *len)
{
    size_t n = s->a->n, lo = blk * BLOCK;
    *len = n - lo < BLOCK ? n - lo : BLOCK;
    if (s->block != blk && s->st == PP_SUCCESS) {
        s->st = pp_dist_pp(s->d, "pp_dist_sort",
                        pp_download(s->d->ctx, s->buf, (const char *)s->keys + lo * s->ks, *len * s->ks));
        s->block = s->st == PP_SUCCESS ? blk : SIZE_MAX;
    }
    return s->buf;
}

/* cnt[j] = this rank's keys whose sort key is below lo[j], cnt[m + j]
 * those at most lo[j], j < m: binary searches of the host view, else one
 * pp_upper_bound on the device of the values with the greatest key at most
 * each bound (where no value's key is, the count is 0). slot and res: nq
 * words each, qk nq keys, for nq <= 2 m. A local failure is kept in s->st
 * (the agreement after the search reports it). */
static void final_counts(pp_dist *d, const char *fn, sorted_part *s, const uint64_t *lo, size_t m, uint64_t *cnt,
                         uint64_t *slot, uint64_t *res, unsigned char *qk)
{
    const sort_args *a = s->a;
    size_t nq = 0;
    for (size_t i = 0; i < 2 * m; i++) {
        const int below = i < m;
        const uint64_t key = lo[below ? i : i - m];
        cnt[i] = 0;
        if (s->host) {
            cnt[i] = below ? pp_dist_count_below(a->type, a->order, s->host, a->n, key)
                           : pp_dist_count_upto(a->type, a->order, s->host, a->n, key);
            continue;
        }
        if (below && key == 0) continue; /* no key is below the least */
        if (!pp_dist_key_at_most(a->type, a->order, below ? key - 1 : key, qk + nq * s->ks)) continue;
        slot[nq++] = i;
    }
    if (nq == 0 || s->st != PP_SUCCESS) return;
    void *dq = NULL;
    size_t qbytes = (nq * s->ks + 7) / 8 * 8;
    pp_dist_dev(d, fn, 1, qbytes + nq * sizeof(uint64_t), &dq); /* reserved: cannot fail */
    uint64_t *dres = (uint64_t *)(void *)((char *)dq + qbytes);
    pp_status st = pp_dist_pp(d, fn, pp_upload(d->ctx, dq, qk, nq * s->ks));
    if (st == PP_SUCCESS)
        st = pp_dist_pp(d, fn, pp_upper_bound(d->ctx, a->type, s->keys, a->n, a->order, dq, nq, dres));
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_download(d->ctx, res, dres, nq * sizeof(uint64_t)));
    if (st != PP_SUCCESS) {
        s->st = st;
        return;
    }
    for (size_t i = 0; i < nq; i++) cnt[slot[i]] = res[i];
}

/* cnt[i] = the keys over all ranks whose sort key is at most cand[i], for
 * i < nq: on the host view, binary searches and an all-reduce of the host
 * counts; else one pp_upper_bound on the device of the candidates' keys
 * and an all-reduce of its results there. A local failure is kept in s->st
 * (the agreement after the search reports it) and leaves wrong counts; an
 * engine's failure is returned. */
static pp_status count_sum(pp_dist *d, const char *fn, sorted_part *s, const uint64_t *cand, size_t nq, uint64_t *cnt,
                           unsigned char *qk)
{
    const sort_args *a = s->a;
    if (s->host) {
        for (size_t i = 0; i < nq; i++) cnt[i] = pp_dist_count_upto(a->type, a->order, s->host, a->n, cand[i]);
        return d->eng->allreduce_sum(d, fn, cnt, nq, 0);
    }
    /* every candidate is at least the least key of all ranks, a value's
     * key: each has a value */
    for (size_t i = 0; i < nq; i++)
        if (!pp_dist_key_at_most(a->type, a->order, cand[i], qk + i * s->ks) && s->st == PP_SUCCESS)
            s->st = pp_dist_fail(d, PP_ERROR_INTERNAL,
                                 "%s: a splitter candidate below every key (a bug in "
                                 "parprim_mpi: please report it)",
                                 fn);
    void *dq = NULL;
    size_t qbytes = (nq * s->ks + 7) / 8 * 8;
    pp_dist_dev(d, fn, 1, qbytes + nq * sizeof(uint64_t), &dq); /* reserved: cannot fail */
    uint64_t *dcnt = (uint64_t *)(void *)((char *)dq + qbytes);
    pp_status st = s->st;
    if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_upload(d->ctx, dq, qk, nq * s->ks));
    if (st == PP_SUCCESS)
        st = pp_dist_pp(d, fn, pp_upper_bound(d->ctx, a->type, s->keys, a->n, a->order, dq, nq, dcnt));
    if (st == PP_SUCCESS && !d->ordered) st = pp_dist_pp(d, fn, pp_synchronize(d->ctx));
    if (st != PP_SUCCESS) s->st = st; /* dcnt holds whatever it holds: the rounds stay bounded */
    st = d->eng->allreduce_sum(d, fn, dcnt, nq, 1);
    if (st != PP_SUCCESS) return st;
    st = pp_dist_pp(d, fn, pp_download(d->ctx, cnt, dcnt, nq * sizeof(uint64_t)));
    if (st != PP_SUCCESS && s->st == PP_SUCCESS) s->st = st;
    return PP_SUCCESS;
}

/* The candidates of an interval [lo, hi] (lo < hi): q = min(WAYS - 1,
 * hi - lo) keys lo + floor(i (hi - lo) / (q + 1)), i = 1 .. q, ascending,
 * all below hi (every key from lo on where the interval is narrow). */
static size_t candidates(uint64_t lo, uint64_t hi, uint64_t *c)
{
    uint64_t w = hi - lo, q = w < WAYS - 1 ? w : WAYS - 1, Q = w / (q + 1), R = w % (q + 1);
    for (uint64_t i = 1; i <= q; i++) c[i - 1] = lo + i * Q + i * R / (q + 1);
    return (size_t)q;
}

/* Step 4: cut[j] for j = 0 .. p: this rank's keys [cut[j], cut[j+1]) go to
 * rank j. b: the p + 1 boundaries B_j; s: the sorted part. v_j, the sort
 * key of global position B_j, is the least key with more than B_j keys at
 * most it over all ranks; each round counts at the candidates of every
 * open interval [lo_j, hi_j] holding v_j and keeps the part that holds it. */
static pp_status splitters(pp_dist *d, const char *fn, const sort_args *a, sorted_part *s, const uint64_t *b,
                           uint64_t kmin, uint64_t kmax, uint64_t *cut, uint64_t *work)
{
    int p = d->size;
    size_t m = (size_t)p - 1, nmax = m * (WAYS - 1);
    uint64_t N = b[p], *lo = work, *hi = work + m, *cnt = work + 2 * m, *before = work + 4 * m, *tot = work + 6 * m;
    uint64_t *cand = pp_dist_host(d, fn, H_SEARCH, SEARCH_BYTES(p, s->ks)); /* reserved: cannot fail */
    uint64_t *ccnt = cand + nmax;
    unsigned char *qk = (unsigned char *)(ccnt + nmax);
    size_t *first = (size_t *)(void *)before, *nc = (size_t *)(void *)tot; /* per boundary, during the rounds */
    for (size_t j = 0; j < m; j++) {
        lo[j] = kmin;
        hi[j] = kmax;
    }
    for (;;) { /* every rank holds the same lo and hi: the same rounds everywhere */
        size_t nq = 0;
        for (size_t j = 0; j < m; j++) {
            first[j] = nq;
            nc[j] = 0;
            if (b[j + 1] == 0 || b[j + 1] >= N || lo[j] >= hi[j]) continue;
            nc[j] = candidates(lo[j], hi[j], cand + nq);
            nq += nc[j];
        }
        if (nq == 0) break;
        /* a failed count leaves the counts wrong but the rounds bounded
         * (each interval shrinks, alike on every rank): the agreement
         * after the search reports it on every rank */
        pp_status st = count_sum(d, fn, s, cand, nq, ccnt, qk);
        if (st != PP_SUCCESS) return st;
        for (size_t j = 0; j < m; j++) {
            size_t i = 0;
            const uint64_t *c = cand + first[j], *k = ccnt + first[j];
            if (nc[j] == 0) continue;
            while (i < nc[j] && k[i] < b[j + 1] + 1) i++;
            if (i < nc[j]) hi[j] = c[i];
            if (i > 0) lo[j] = c[i - 1] + 1;
        }
    }
    /* cnt = [keys below v_j | keys equal to v_j] of this rank */
    uint64_t *lt = cnt, *eq = cnt + m;
    final_counts(d, fn, s, lo, m, cnt, cand, ccnt, qk);
    for (size_t j = 0; j < m; j++) eq[j] -= lt[j];
    pp_status st = pp_dist_agree_status(d, fn, s->st);
    if (st == PP_SUCCESS) st = d->eng->prefix_sum(d, fn, cnt, 2 * m, before, tot);
    if (st != PP_SUCCESS) return st;
    cut[0] = 0;
    cut[p] = a->n;
    for (size_t j = 0; j < m; j++) {
        uint64_t B = b[j + 1];
        if (B == 0)
            cut[j + 1] = 0;
        else if (B >= N)
            cut[j + 1] = a->n;
        else {
            uint64_t L = tot[j], eb = before[m + j], need = B - L; /* ties left of the boundary, over all ranks */
            uint64_t mine = need > eb ? need - eb : 0;
            cut[j + 1] = lt[j] + (mine < eq[j] ? mine : eq[j]);
        }
    }
    return PP_SUCCESS;
}

/* Step 5 for one array of elem bytes per element. */
static pp_status exchange(pp_dist *d, const char *fn, const void *send, void *recv, const uint64_t *cut,
                          const uint64_t *rcount_el, size_t elem, uint64_t *work)
{
    int p = d->size;
    uint64_t *sc = work, *so = work + p, *rc = work + 2 * p, *ro = work + 3 * p, off = 0;
    for (int r = 0; r < p; r++) {
        sc[r] = (cut[r + 1] - cut[r]) * elem;
        so[r] = cut[r] * elem;
        rc[r] = rcount_el[r] * elem;
        ro[r] = off;
        off += rc[r];
    }
    return d->eng->alltoallv(d, fn, send, sc, so, recv, rc, ro, d->device_to_engine);
}

/* The levels of step 6's merge tree over p runs: ceil(log2 p). */
static int merge_levels(int p)
{
    int l = 0;
    while (l < 31 && (1 << l) < p) l++;
    return l;
}

/* Step 6: the p sorted runs of k[0] (v[0]), len[r] elements each in rank
 * order, merged stably into one, adjacent runs pairwise a level at a time
 * between the buffers 0 and 1 (a lone last run copied); the result is in
 * buffer merge_levels(p) % 2. len is overwritten. */
static pp_status merge_tree(pp_dist *d, const char *fn, const sort_args *a, int pairs, void *const k[2],
                            void *const v[2], uint64_t *len)
{
    const size_t ks = pp_type_size(a->type), vs = a->vs;
    pp_status st = PP_SUCCESS;
    int runs = d->size, cur = 0;
    while (runs > 1 && st == PP_SUCCESS) {
        const char *sk = k[cur], *sv = pairs ? v[cur] : NULL;
        char *dk = k[1 - cur], *dv = pairs ? v[1 - cur] : NULL;
        uint64_t off = 0;
        int out = 0;
        for (int i = 0; i < runs && st == PP_SUCCESS; i += 2) {
            const uint64_t na = len[i], nb = i + 1 < runs ? len[i + 1] : 0, m = off + na;
            if (i + 1 == runs) {
                st = pp_dist_pp(d, fn, pp_copy(d->ctx, dk + off * ks, sk + off * ks, na * ks));
                if (st == PP_SUCCESS && pairs) st = pp_dist_pp(d, fn, pp_copy(d->ctx, dv + off * vs, sv + off * vs, na * vs));
            } else if (pairs) {
                st = pp_dist_pp(d, fn, pp_merge_pairs(d->ctx, a->type, sk + off * ks, sv + off * vs, na, sk + m * ks,
                                                      sv + m * vs, nb, vs, dk + off * ks, dv + off * vs, a->order));
            } else {
                st = pp_dist_pp(d, fn, pp_merge(d->ctx, a->type, sk + off * ks, na, sk + m * ks, nb, dk + off * ks,
                                                a->order));
            }
            len[out++] = na + nb;
            off += na + nb;
        }
        runs = out;
        cur = 1 - cur;
    }
    return st;
}

static pp_status run(pp_dist *d, const char *fn, const sort_args *a, int pairs)
{
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    int p = d->size;
    size_t ks = pp_type_size(a->type), kb = 0, vb = 0;
    pp_status st = check(d, fn, a, pairs);
    if (st == PP_SUCCESS) {
        kb = a->n * ks;
        vb = pairs ? a->n * a->vs : 0;
        if (p > 1) st = reserve(d, fn, a, pairs);
    }
    uint64_t hash = pp_dist_hash_start(fn);
    hash = pp_dist_hash(hash, &a->type, sizeof a->type);
    hash = pp_dist_hash(hash, &a->order, sizeof a->order);
    hash = pp_dist_hash(hash, &a->vs, sizeof a->vs);
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    rec.v[0] = a->n;
    st = pp_dist_agree(d, fn, st, hash, &rec, &all);
    if (st != PP_SUCCESS) return st;
    uint64_t *b = pp_dist_host(d, fn, H_COUNTS, COUNT_WORDS(p) * sizeof(uint64_t)); /* reserved: cannot fail */
    uint64_t *cut = b + p + 1, *rcount = cut + p + 1, *work = rcount + p;
    b[0] = 0;
    for (int r = 0; r < p; r++) b[r + 1] = b[r] + all[r].v[0];
    if (p == 1 || b[p] == 0) /* nothing crosses ranks */
        return pp_dist_agree_status(
            d, fn, a->n ? local_sort(d, fn, a, a->keys, a->values, a->keys, a->values, pairs) : PP_SUCCESS);

    /* 2-3: local sort into sk (sv): the working buffers where the runs are
     * to arrive in the part (step 6), else the part itself; the keys as step
     * 4 reads them: a host view where the exchange stages through the host
     * anyway (or they are host memory), else the device array (sorted_part); the
     * values staged where needed */
    const int merged = pp_dist_addressable(d), levels = merge_levels(p);
    void *wk = NULL, *wv = NULL; /* reserved: cannot fail */
    if (merged && pp_dist_dev(d, fn, 0, kb, &wk) == PP_SUCCESS && pairs) pp_dist_dev(d, fn, 2, vb, &wv);
    const int sort_to_work = d->device_to_engine && levels % 2 == 0; /* device_to_engine: merged too */
    void *sk = sort_to_work ? wk : a->keys, *sv = sort_to_work ? wv : a->values;
    void *hk = NULL, *hv = sv;
    sorted_part sp;
    memset(&sp, 0, sizeof sp);
    sp.a = a;
    sp.keys = sk;
    sp.d = d;
    sp.ks = ks;
    sp.block = SIZE_MAX;
    st = a->n ? local_sort(d, fn, a, a->keys, a->values, sk, sv, pairs) : PP_SUCCESS;
    if (!d->device_to_engine || d->host_direct) {
        if (st == PP_SUCCESS) st = pp_dist_view(d, fn, H_KEYS, sk, kb, &hk);
        sp.host = hk;
    }
    if (st == PP_SUCCESS && pairs && !d->device_to_engine) st = pp_dist_view(d, fn, H_VALS, sv, vb, &hv);
    if (st == PP_SUCCESS && d->device_to_engine && !d->host_direct && !d->ordered)
        st = pp_dist_pp(d, fn, pp_synchronize(d->ctx));
    memset(&rec, 0, sizeof rec);
    rec.v[0] = UINT64_MAX; /* an empty part: no first or last key */
    if (st == PP_SUCCESS && a->n) {
        size_t len = a->n;
        const void *blk = hk ? hk : part_block(&sp, 0, &len); /* the first key, from its block */
        if (sp.st == PP_SUCCESS) rec.v[0] = pp_dist_sort_key(a->type, a->order, blk, 0);
        if (!hk) blk = part_block(&sp, (a->n - 1) / BLOCK, &len); /* the last key */
        st = sp.st;
        if (st == PP_SUCCESS) rec.v[1] = pp_dist_sort_key(a->type, a->order, blk, len - 1);
    }
    if (st != PP_SUCCESS) rec.v[0] = rec.v[1] = 0;
    st = pp_dist_agree(d, fn, st, 0, &rec, &all);
    if (st != PP_SUCCESS) return st;
    uint64_t kmin = UINT64_MAX, kmax = 0;
    for (int r = 0; r < p; r++) {
        if (b[r + 1] == b[r]) continue; /* empty */
        if (all[r].v[0] < kmin) kmin = all[r].v[0];
        if (all[r].v[1] > kmax) kmax = all[r].v[1];
    }

    /* 4-5: splitters, counts, exchange */
    st = splitters(d, fn, a, &sp, b, kmin, kmax, cut, work);
    if (st != PP_SUCCESS) return st;
    uint64_t *sendc = work, *one = work + p; /* element counts to each rank; 1 each */
    uint64_t *offs = work + 2 * p, *rbytes = work + 3 * p, *roffs = work + 4 * p;
    for (int r = 0; r < p; r++) {
        sendc[r] = cut[r + 1] - cut[r];
        one[r] = sizeof(uint64_t);
        offs[r] = (uint64_t)r * sizeof(uint64_t);
        rbytes[r] = sizeof(uint64_t);
        roffs[r] = offs[r];
    }
    st = d->eng->alltoallv(d, fn, sendc, one, offs, rcount, rbytes, roffs, 0);
    if (st != PP_SUCCESS) return st;
    uint64_t got = 0;
    for (int r = 0; r < p; r++) got += rcount[r];
    st = got == a->n ? PP_SUCCESS
                     : pp_dist_fail(d, PP_ERROR_INTERNAL, "%s: rank %d would receive %llu keys for %zu (a bug in "
                                 "parprim_mpi: please report it)", fn, d->rank, (unsigned long long)got, a->n);
    st = pp_dist_agree_status(d, fn, st);
    if (st != PP_SUCCESS) return st;
    /* the runs arrive in rk (rv): context memory where the engine takes it
     * (the buffers not sent: the part where the level count is even, else
     * the working buffers), else host buffers, stored into context memory
     * after the exchange (where the level count is even, the part) */
    void *rk, *rv = NULL;
    /* step 6's buffers, the runs' first: the last level writes the part */
    void *mk[2] = {levels % 2 ? wk : a->keys, levels % 2 ? a->keys : wk};
    void *mv[2] = {levels % 2 ? wv : a->values, levels % 2 ? a->values : wv};
    if (d->device_to_engine) {
        rk = mk[0];
        rv = mv[0];
    } else {
        rk = pp_dist_host(d, fn, H_RKEYS, kb);
        if (pairs) rv = pp_dist_host(d, fn, H_RVALS, vb);
    }
    st = exchange(d, fn, d->device_to_engine ? sk : hk, rk, cut, rcount, ks, work);
    if (st == PP_SUCCESS && pairs) st = exchange(d, fn, hv, rv, cut, rcount, a->vs, work);
    if (st != PP_SUCCESS) return st;

    /* 6: the received runs merged into keys (and values); opencl: sorted again */
    if (merged) {
        if (!d->device_to_engine) {
            st = pp_dist_store(d, fn, mk[0], rk, kb);
            if (st == PP_SUCCESS && pairs) st = pp_dist_store(d, fn, mv[0], rv, vb);
        }
        if (st == PP_SUCCESS) st = merge_tree(d, fn, a, pairs, mk, mv, rcount);
    } else {
        st = pp_dist_store(d, fn, a->keys, rk, kb);
        if (st == PP_SUCCESS && pairs) st = pp_dist_store(d, fn, a->values, rv, vb);
        if (st == PP_SUCCESS && a->n) st = local_sort(d, fn, a, a->keys, a->values, a->keys, a->values, pairs);
    }
    return pp_dist_agree_status(d, fn, st);
}

pp_status pp_dist_sort(pp_dist *d, pp_type type, void *keys, size_t n_local, pp_order order)
{
    sort_args a = {type, keys, NULL, 0, n_local, order};
    return run(d, "pp_dist_sort", &a, 0);
}

pp_status pp_dist_sort_pairs(pp_dist *d, pp_type type, void *keys, void *values, size_t value_size, size_t n_local,
                             pp_order order)
{
    sort_args a = {type, keys, values, value_size, n_local, order};
    return run(d, "pp_dist_sort_pairs", &a, 1);
}
