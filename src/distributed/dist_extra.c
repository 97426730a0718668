/* pp_dist_argsort, pp_dist_top_k and pp_dist_rebalance: the forms of the
 * search and sort primitives that users of distributed arrays need most,
 * built on pp_dist_sort_pairs, the single-device pp_top_k and the engine's
 * all-to-all.
 *
 * argsort: an agreement carrying every n_local (each rank learns the global
 * index of its first key), a working copy of the keys (context memory,
 * allocated for the call: pp_dist_sort_pairs keeps its own slots busy
 * meanwhile) with the global indices as 8-byte values, then
 * pp_dist_sort_pairs: its perfectly balanced, stable output leaves in the
 * values exactly the positions [B_r, B_r + n_local) of the global stable
 * argsort. One rank: pp_argsort.
 * top_k: an agreement carrying every n_local (k must not exceed the global
 * length), the local pp_top_k of min(k, n_local) keys written into the
 * outputs, every rank's candidates to every rank (one all-to-all of
 * min(k, n_r) keys and indices from rank r: no padding), and on every rank
 * a p-way merge of the candidate lists on the host by (order key, rank):
 * each list is sorted with ties by index, and the ranks' global indices
 * increase with the rank, so the merge is the stable order of the
 * concatenation and its first k the single-device pp_top_k of it.
 * rebalance: an agreement carrying every n_local and out_capacity; every
 * rank then knows where each element goes (the target layout is a
 * function of the total and p), so one all-to-all moves them, in place
 * in context memory where the engine takes it, else staged through host
 * slots. */
#include "dist_internal.h"

#include <stdlib.h>
#include <string.h>

/* Host slots of top_k and rebalance (neither calls another collective of
 * parprim_mpi; slot PP_DIST_HOST_SLOTS - 1 is the agreement's): 0 what
 * this rank sends, 1 what it receives, 2 the merged result, 3 the counts. */
enum { H_SEND, H_RECV, H_MERGED, H_COUNTS };

static pp_status check_order(pp_dist *d, const char *fn, pp_order order)
{
    if ((unsigned)order > PP_DESCENDING_NAN_LAST)
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'order' (%d) is not a pp_order", fn,
                            (int)order);
    return PP_SUCCESS;
}

/* The hash of the parameters that must match: type and order, k. */
static uint64_t params_hash(const char *fn, pp_type type, pp_order order, uint64_t extra)
{
    uint64_t h = pp_dist_hash_start(fn);
    h = pp_dist_hash(h, &type, sizeof type);
    h = pp_dist_hash(h, &order, sizeof order);
    return pp_dist_hash(h, &extra, sizeof extra);
}

/* ---- argsort --------------------------------------------------------------------------- */
pp_status pp_dist_argsort(pp_dist *d, pp_type type, const void *keys, size_t n_local, pp_order order,
                          uint64_t *indices_out)
{
    static const char fn[] = "pp_dist_argsort";
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    size_t ks = pp_type_size(type), kb = 0, ib = 0;
    pp_status st = pp_dist_check_type(d, fn, type);
    if (st == PP_SUCCESS) st = check_order(d, fn, order);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, n_local, ks, &kb);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, n_local, sizeof(uint64_t), &ib);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "keys", keys, n_local, ks);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "indices_out", indices_out, n_local, sizeof(uint64_t));
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "indices_out", indices_out, ib, "keys", keys, kb, 0);
    /* the working copy of the keys and the host indices, before the
     * agreement: a rank out of memory fails the call everywhere */
    void *work = NULL;
    uint64_t *hidx = indices_out;
    if (st == PP_SUCCESS && d->size > 1 && n_local > 0) {
        st = pp_dist_pp(d, fn, pp_malloc(d->ctx, &work, kb));
        if (st != PP_SUCCESS) work = NULL;
        if (st == PP_SUCCESS && !d->host_direct && !(hidx = pp_dist_host(d, fn, 0, ib))) st = PP_ERROR_OUT_OF_MEMORY;
    }
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    rec.v[0] = n_local;
    st = pp_dist_agree(d, fn, st, params_hash(fn, type, order, 0), &rec, &all);
    if (st == PP_SUCCESS && d->size == 1) {
        st = n_local ? pp_dist_pp(d, fn, pp_argsort(d->ctx, type, keys, n_local, order, PP_U64, indices_out))
                     : PP_SUCCESS;
        return pp_dist_agree_status(d, fn, st);
    }
    if (st != PP_SUCCESS) {
        if (work) pp_free(d->ctx, work);
        return st;
    }
    uint64_t first = 0;
    for (int r = 0; r < d->rank; r++) first += all[r].v[0];
    if (n_local > 0) {
        for (size_t i = 0; i < n_local; i++) hidx[i] = first + i;
        st = pp_dist_store(d, fn, indices_out, hidx, ib);
        if (st == PP_SUCCESS) st = pp_dist_pp(d, fn, pp_copy(d->ctx, work, keys, kb));
    }
    st = pp_dist_agree_status(d, fn, st);
    if (st == PP_SUCCESS) {
        st = pp_dist_sort_pairs(d, type, work, indices_out, sizeof(uint64_t), n_local, order);
        if (st != PP_SUCCESS) { /* the inner call's message, under this call's name */
            char inner[sizeof d->msg];
            memcpy(inner, d->msg, sizeof inner);
            pp_dist_fail(d, st, "%s: %s", fn, inner);
        }
    }
    if (work) pp_free(d->ctx, work);
    return st;
}

/* ---- top_k ----------------------------------------------------------------------------- */
typedef struct cand_list {
    const uint64_t *idx;       /* min(k, n_r) global indices of rank r (where wanted), */
    const unsigned char *keys; /* then its keys */
    size_t len, pos;
} cand_list;

/* Heap of ranks by (order key of the list's head, rank): the smallest on
 * top. key[r] caches the head's order key. */
static int heap_before(const uint64_t *key, int a, int b) { return key[a] < key[b] || (key[a] == key[b] && a < b); }

static void heap_down(int *heap, int len, const uint64_t *key, int i)
{
    for (;;) {
        int c = 2 * i + 1;
        if (c >= len) return;
        if (c + 1 < len && heap_before(key, heap[c + 1], heap[c])) c++;
        if (!heap_before(key, heap[c], heap[i])) return;
        int t = heap[c];
        heap[c] = heap[i];
        heap[i] = t;
        i = c;
    }
}

/* The first k of the merge of the p lists into keys (k * ks bytes) and
 * idx (k, or NULL). heap: p ints, key: p words of scratch. */
static void merge_lists(pp_type type, pp_order order, cand_list *l, int p, size_t k, unsigned char *keys, uint64_t *idx,
                        int *heap, uint64_t *key)
{
    size_t ks = pp_type_size(type);
    int len = 0;
    for (int r = 0; r < p; r++)
        if (l[r].len) {
            key[r] = pp_dist_sort_key(type, order, l[r].keys, 0);
            heap[len++] = r;
        }
    for (int i = len / 2 - 1; i >= 0; i--) heap_down(heap, len, key, i);
    for (size_t j = 0; j < k && len > 0; j++) {
        cand_list *c = &l[heap[0]];
        memcpy(keys + j * ks, c->keys + c->pos * ks, ks);
        if (idx) idx[j] = c->idx[c->pos];
        if (++c->pos < c->len)
            key[heap[0]] = pp_dist_sort_key(type, order, c->keys, c->pos);
        else
            heap[0] = heap[--len];
        heap_down(heap, len, key, 0);
    }
}

/* The bytes of c candidates as sent: their indices (where wanted), their
 * keys, padded to 8 bytes so that every rank's indices stay aligned. */
static size_t cand_bytes(uint64_t c, size_t ks, int w)
{
    size_t b = (size_t)c * (ks + (w ? sizeof(uint64_t) : 0));
    return (b + 7) & ~(size_t)7;
}

pp_status pp_dist_top_k(pp_dist *d, pp_type type, const void *in, size_t n_local, size_t k, pp_order order,
                        void *keys_out, uint64_t *indices_out)
{
    static const char fn[] = "pp_dist_top_k";
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    int p = d->size, w = indices_out != NULL; /* indices wanted (must match on every rank) */
    size_t ks = pp_type_size(type), nb = 0, kb = 0, ib = 0;
    pp_status st = pp_dist_check_type(d, fn, type);
    if (st == PP_SUCCESS) st = check_order(d, fn, order);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, n_local, ks, &nb);
    if (st == PP_SUCCESS && k > SIZE_MAX / 32) /* so that every byte count below fits */
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'k' (%zu) is too large", fn, k);
    if (st == PP_SUCCESS) {
        kb = k * ks;
        ib = w ? k * sizeof(uint64_t) : 0;
        st = pp_dist_check_array(d, fn, "in", in, n_local, ks);
    }
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "keys_out", keys_out, k, ks);
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "indices_out", indices_out, 0, sizeof(uint64_t));
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "keys_out", keys_out, kb, "in", in, nb, 0);
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "indices_out", indices_out, ib, "in", in, nb, 0);
    if (st == PP_SUCCESS)
        st = pp_dist_check_overlap(d, fn, "indices_out", indices_out, ib, "keys_out", keys_out, kb, 0);
    uint64_t *cnt = NULL; /* per rank: candidates, send and receive bytes and offsets, head keys; the heap */
    if (st == PP_SUCCESS && !(cnt = pp_dist_host(d, fn, H_COUNTS, (size_t)p * (6 * sizeof(uint64_t) + sizeof(int)))))
        st = PP_ERROR_OUT_OF_MEMORY;
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    rec.v[0] = n_local;
    st = pp_dist_agree(d, fn, st, params_hash(fn, type, order, ((uint64_t)k << 1) | (uint64_t)w), &rec, &all);
    if (st != PP_SUCCESS) return st;
    uint64_t total = 0, first = 0, mine = n_local < k ? n_local : k;
    for (int r = 0; r < p; r++) {
        cnt[r] = all[r].v[0] < k ? all[r].v[0] : k; /* min(k, n_r) candidates of rank r */
        if (r < d->rank) first += all[r].v[0];
        total += all[r].v[0];
    }
    if (k > total) /* the same on every rank: no agreement needed */
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT,
                            "%s: argument 'k' (%zu) is larger than the global length (%llu over %d ranks)", fn, k,
                            (unsigned long long)total, p);
    if (k == 0) return PP_SUCCESS;
    uint64_t *sc = cnt + p, *so = sc + p, *rc = so + p, *ro = rc + p, *key = ro + p;
    int *heap = (int *)(key + p);
    for (int r = 0; r < p; r++) {
        sc[r] = cand_bytes(mine, ks, w);
        so[r] = 0;
        rc[r] = cand_bytes(cnt[r], ks, w);
        ro[r] = r ? ro[r - 1] + rc[r - 1] : 0;
    }

    /* the local candidates (into the outputs), then to the host: indices
     * made global, then keys */
    unsigned char *send = pp_dist_host(d, fn, H_SEND, sc[0]);
    unsigned char *recv = pp_dist_host(d, fn, H_RECV, ro[p - 1] + rc[p - 1]);
    unsigned char *merged = pp_dist_host(d, fn, H_MERGED, ib + kb);
    st = send && recv && merged ? PP_SUCCESS : PP_ERROR_OUT_OF_MEMORY;
    size_t mine_ib = w ? (size_t)mine * sizeof(uint64_t) : 0;
    if (st == PP_SUCCESS && mine > 0)
        st = pp_dist_pp(d, fn, pp_top_k(d->ctx, type, in, n_local, k, order, keys_out, indices_out));
    if (st == PP_SUCCESS && mine > 0) st = pp_dist_pp(d, fn, pp_download(d->ctx, send + mine_ib, keys_out, mine * ks));
    if (st == PP_SUCCESS && mine_ib > 0) {
        uint64_t *si = (uint64_t *)send;
        st = pp_dist_pp(d, fn, pp_download(d->ctx, si, indices_out, mine_ib));
        for (size_t i = 0; st == PP_SUCCESS && i < mine; i++) si[i] += first; /* local to global */
    }
    st = pp_dist_agree_status(d, fn, st);
    if (st == PP_SUCCESS) st = d->eng->alltoallv(d, fn, send, sc, so, recv, rc, ro, 0);
    if (st != PP_SUCCESS) return st;

    /* every rank merges the same lists: the same result everywhere */
    cand_list *lists = malloc((size_t)p * sizeof *lists);
    if (!lists)
        st = pp_dist_fail(d, PP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    else {
        for (int r = 0; r < p; r++) {
            lists[r].idx = (const uint64_t *)(recv + ro[r]);
            lists[r].keys = recv + ro[r] + (w ? cnt[r] * sizeof(uint64_t) : 0);
            lists[r].len = (size_t)cnt[r];
            lists[r].pos = 0;
        }
        merge_lists(type, order, lists, p, k, merged + ib, w ? (uint64_t *)merged : NULL, heap, key);
        free(lists);
    }
    if (st == PP_SUCCESS) st = pp_dist_store(d, fn, keys_out, merged + ib, kb);
    if (st == PP_SUCCESS && w) st = pp_dist_store(d, fn, indices_out, merged, ib);
    return pp_dist_agree_status(d, fn, st);
}

/* ---- rebalance ------------------------------------------------------------------------- */
/* The target layout: rank r holds [start(r), start(r + 1)) of the n
 * elements, floor(n / p) each and one more on the n % p lowest ranks. */
static uint64_t share_start(uint64_t n, int p, int r)
{
    uint64_t q = n / (uint64_t)p, m = n % (uint64_t)p;
    return q * (uint64_t)r + ((uint64_t)r < m ? (uint64_t)r : m);
}

/* The bytes of [a0, a1) that lie in [b0, b1), and where they start in
 * [a0, a1) (offset, in elements). */
static uint64_t overlap_of(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, uint64_t *off)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    *off = lo > a0 ? lo - a0 : 0;
    return hi > lo ? hi - lo : 0;
}

pp_status pp_dist_rebalance(pp_dist *d, size_t elem_size, const void *in, size_t n_local, void *out,
                            size_t out_capacity, size_t *n_out)
{
    static const char fn[] = "pp_dist_rebalance";
    if (!d) return pp_dist_fail(NULL, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'd' is NULL", fn);
    int p = d->size;
    size_t nb = 0, ob = 0;
    pp_status st = PP_SUCCESS;
    if (elem_size == 0) st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'elem_size' is 0", fn);
    if (st == PP_SUCCESS) st = pp_dist_check_bytes(d, fn, n_local, elem_size, &nb);
    if (st == PP_SUCCESS && out_capacity > SIZE_MAX / elem_size)
        st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out_capacity' (%zu) times 'elem_size' overflows",
                          fn, out_capacity);
    if (st == PP_SUCCESS) { /* elements move as bytes: no alignment asked */
        ob = out_capacity * elem_size;
        st = pp_dist_check_array(d, fn, "in", in, n_local, 1);
    }
    if (st == PP_SUCCESS) st = pp_dist_check_array(d, fn, "out", out, out_capacity, 1);
    if (st == PP_SUCCESS && !n_out) st = pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT, "%s: argument 'n_out' is NULL", fn);
    if (st == PP_SUCCESS) st = pp_dist_check_overlap(d, fn, "out", out, ob, "in", in, nb, 0);
    uint64_t *b = NULL; /* per rank: input starts (p + 1), send and receive bytes and offsets */
    if (st == PP_SUCCESS && !(b = pp_dist_host(d, fn, H_COUNTS, (size_t)(5 * p + 1) * sizeof(uint64_t))))
        st = PP_ERROR_OUT_OF_MEMORY;
    pp_dist_rec rec;
    const pp_dist_rec *all;
    memset(&rec, 0, sizeof rec);
    rec.v[0] = n_local;
    rec.v[1] = out_capacity;
    st = pp_dist_agree(d, fn, st, params_hash(fn, PP_U8, PP_ASCENDING, elem_size), &rec, &all);
    if (st != PP_SUCCESS) return st;
    b[0] = 0;
    for (int r = 0; r < p; r++) b[r + 1] = b[r] + all[r].v[0];
    uint64_t n = b[p];
    for (int r = 0; r < p; r++) { /* every rank sees every capacity: the same verdict everywhere */
        uint64_t share = share_start(n, p, r + 1) - share_start(n, p, r);
        if (all[r].v[1] >= share) continue;
        if (r == d->rank)
            return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT,
                                "%s: argument 'out_capacity' (%zu) is below this rank's share of %llu elements", fn,
                                out_capacity, (unsigned long long)share);
        return pp_dist_fail(d, PP_ERROR_INVALID_ARGUMENT,
                            "%s: rank %d failed (its 'out_capacity' %llu is below its share of %llu elements)", fn, r,
                            (unsigned long long)all[r].v[1], (unsigned long long)share);
    }
    uint64_t t0 = share_start(n, p, d->rank), t1 = share_start(n, p, d->rank + 1), mine = t1 - t0;
    uint64_t *sc = b + p + 1, *so = sc + p, *rc = so + p, *ro = rc + p, off;
    for (int r = 0; r < p; r++) {
        sc[r] =
            overlap_of(b[d->rank], b[d->rank + 1], share_start(n, p, r), share_start(n, p, r + 1), &off) * elem_size;
        so[r] = off * elem_size;
        rc[r] = overlap_of(t0, t1, b[r], b[r + 1], &off) * elem_size;
        ro[r] = off * elem_size;
    }
    if (p == 1) { /* nothing crosses ranks */
        st = nb ? pp_dist_pp(d, fn, pp_copy(d->ctx, out, in, nb)) : PP_SUCCESS;
    } else {
        /* staged (ranks may differ in that: the same collectives on every
         * rank): in to the host, the exchange, the result up */
        const void *send = in;
        void *recv = out, *hin = NULL;
        if (!d->device_to_engine) {
            recv = pp_dist_host(d, fn, H_RECV, (size_t)mine * elem_size);
            st = recv ? pp_dist_view(d, fn, H_SEND, in, nb, &hin) : PP_ERROR_OUT_OF_MEMORY;
            send = hin;
        }
        st = pp_dist_agree_status(d, fn, st);
        if (st == PP_SUCCESS) st = d->eng->alltoallv(d, fn, send, sc, so, recv, rc, ro, d->device_to_engine);
        if (st == PP_SUCCESS && !d->device_to_engine) st = pp_dist_store(d, fn, out, recv, (size_t)mine * elem_size);
    }
    st = pp_dist_agree_status(d, fn, st);
    if (st == PP_SUCCESS) *n_out = (size_t)mine;
    return st;
}
