/* The distributed suite, part two: compaction (select_flagged, select_if,
 * unique with runs that cross rank boundaries, partition_if) and sort
 * (keys alone and with values of 1, 2, 4 and 8 bytes, every order: values
 * are global input indices, so the gathered result checks stability too). */
#include "test_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sel_names[4] = {"select_flagged", "select_if", "unique", "partition_if"};
static const char *const order_names[3] = {"ascending", "descending", "descending, NaN last"};

/* The global index of this rank's first element (exclusive scan of n). */
static uint64_t input_offset(size_t n)
{
    unsigned long long mine = n, before = 0;
    MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank ? before : 0;
}

static pp_status run_sel(dt_env *e, int kind, pp_type t, const void *din, const uint8_t *dflags, size_t n,
                         pp_cmp cmp, const void *value, void *dout, pp_dist_counts *c)
{
    switch (kind) {
    case 0: return pp_dist_select_flagged(e->d, t, din, dflags, n, dout, c);
    case 1: return pp_dist_select_if(e->d, t, din, n, cmp, value, dout, c);
    case 2: return pp_dist_unique(e->d, t, din, n, dout, c);
    default: return pp_dist_partition_if(e->d, t, din, n, cmp, value, dout, c);
    }
}

static void select_case(dt_env *e, int kind, pp_type t, int layout)
{
    size_t sz = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "sel %d %d %d", kind, (int)t, layout);
    tc_rng r = dt_rng(name), ra = dt_rng_all(name);
    size_t n = dt_layout_n(layout, layout % 2 ? 50 : 20000, &r);
    pp_cmp cmp = (pp_cmp)tc_below(&ra, 6);
    unsigned char value[8], *in = malloc(n * sz + 1), *out = malloc(n * sz + 1);
    uint8_t *flags = malloc(n + 1);
    dt_fill_keys(&ra, t, value, 1);
    dt_fill_keys(&r, t, in, n);
    if (kind == 2 && tc_below(&ra, 2)) /* two values: runs cross the rank boundaries */
        for (size_t i = 0; i < n; i++) tc_set_int(t, in, i, tc_below(&r, 8) == 0);
    for (size_t i = 0; i < n; i++) flags[i] = tc_below(&r, 3) ? 0 : (uint8_t)(1 + tc_below(&r, 255));
    dt_case("%s %s %s, cmp %d, %s, n_local %zu on rank %d", pp_backend_name(e->backend), pp_type_name(t),
            sel_names[kind], (int)cmp, dt_layout_name(layout), n, e->rank);
    void *din = dt_upload(e, in, n * sz), *dout = dt_upload(e, NULL, n * sz), *dflags = dt_upload(e, flags, n);
    pp_dist_counts c;
    memset(&c, 0xff, sizeof c);
    if (dt_ok(e, run_sel(e, kind, t, din, dflags, n, cmp, value, dout, &c), sel_names[kind]))
        dt_download(e, out, dout, n * sz);
    else
        memset(&c, 0, sizeof c);
    DT_CHECK(c.local <= n, "%s: local count %llu above n_local %zu", sel_names[kind], (unsigned long long)c.local, n);
    if (c.local > n) c.local = 0;
    DT_CHECK(c.input_offset == input_offset(n), "input_offset %llu", (unsigned long long)c.input_offset);
    size_t counts[64];
    void *all_in, *all_flags, *all_sel, *all_rest, *all_c;
    size_t total = dt_gather(in, n * sz, &all_in, NULL) / sz;
    dt_gather(flags, n, &all_flags, NULL);
    dt_gather(out, (size_t)c.local * sz, &all_sel, counts);
    dt_gather(out + c.local * sz, kind == 3 ? (n - (size_t)c.local) * sz : 0, &all_rest, NULL);
    dt_gather(&c, sizeof c, &all_c, NULL);
    if (e->rank == 0) {
        void *ref = malloc(total * sz + 1);
        uint64_t want = 0;
        switch (kind) {
        case 0: want = ref_select_flagged(t, all_in, all_flags, total, ref); break;
        case 1: want = ref_select_if(t, all_in, total, cmp, value, ref); break;
        case 2: want = ref_unique(t, all_in, total, ref); break;
        default: want = ref_partition_if(t, all_in, total, cmp, value, ref); break;
        }
        const pp_dist_counts *cs = all_c;
        uint64_t off = 0;
        for (int k = 0; k < e->size; k++) {
            DT_CHECK(cs[k].offset == off && cs[k].total == want && cs[k].local * sz == counts[k],
                     "counts of rank %d: local %llu offset %llu total %llu, expected offset %llu total %llu", k,
                     (unsigned long long)cs[k].local, (unsigned long long)cs[k].offset,
                     (unsigned long long)cs[k].total, (unsigned long long)off, (unsigned long long)want);
            off += cs[k].local;
        }
        if (off == want) {
            dt_bits(t, all_sel, ref, want, "selected (gathered)");
            if (kind == 3) dt_bits(t, all_rest, (char *)ref + want * sz, total - want, "rest (gathered)");
        }
        free(ref);
    }
    free(all_in);
    free(all_flags);
    free(all_sel);
    free(all_rest);
    free(all_c);
    dt_free(e, din);
    dt_free(e, dout);
    dt_free(e, dflags);
    free(in);
    free(out);
    free(flags);
}

void compaction(dt_env *e)
{
    if (e->size > 64) return; /* counts[] below */
    for (int kind = 0; kind < 4; kind++)
        for (int ti = 0; ti < TC_NTYPES; ti++)
            for (int layout = 0; layout < DT_LAYOUTS; layout++) select_case(e, kind, (pp_type)ti, layout);
}

/* Key distributions that stress the splitters and the exchange: every key
 * equal, two distinct values, the whole array sorted already, sorted the
 * other way, and (8-byte keys) three distinct top bytes over random bits. */
enum { KEYS_RANDOM, KEYS_EQUAL, KEYS_TWO, KEYS_SORTED, KEYS_REVERSE, KEYS_TOP3, KEYS_KINDS };
static const char *const keys_names[KEYS_KINDS] = {"random", "all equal", "two values", "sorted", "reverse-sorted",
                                                   "3 top bytes"};

static void fill_keys(tc_rng *r, pp_type t, int kind, uint64_t off, uint64_t total, unsigned char *keys, size_t n)
{
    const size_t ks = pp_type_size(t);
    dt_fill_keys(r, t, keys, n);
    for (size_t i = 0; i < n && kind != KEYS_RANDOM; i++) {
        uint64_t g = off + i, v = 0;
        switch (kind) {
        case KEYS_EQUAL: v = 7; break;
        case KEYS_TWO: v = tc_below(r, 2) ? 5 : 9; break;
        case KEYS_SORTED: v = g; break;
        case KEYS_REVERSE: v = total - g; break;
        default: /* 3 top bytes: keep the random bits below them */
            if (ks == 8) {
                uint64_t k;
                memcpy(&k, keys + i * ks, 8);
                k = (k & 0x00ffffffffffffffull) | ((uint64_t)(0x10 + 0x30 * tc_below(r, 3)) << 56);
                memcpy(keys + i * ks, &k, 8);
            }
            continue;
        }
        dt_set_num(t, keys, i, (double)v);
    }
}

static void sort_case_of(dt_env *e, pp_type t, pp_order order, size_t vs, int layout, int kind)
{
    size_t ks = pp_type_size(t);
    char name[96];
    snprintf(name, sizeof name, "sort %d %d %zu %d %d", (int)t, (int)order, vs, layout, kind);
    tc_rng r = dt_rng(name);
    size_t n = dt_layout_n(layout, kind ? 3000 : layout % 3 == 0 ? 40000 : 300, &r);
    dt_case("%s %s sort%s (value_size %zu), %s, %s, %s keys, n_local %zu on rank %d", pp_backend_name(e->backend),
            pp_type_name(t), vs ? "_pairs" : "", vs, order_names[order], dt_layout_name(layout), keys_names[kind], n,
            e->rank);
    unsigned char *keys = malloc(n * ks + 1), *vals = malloc(n * 8 + 1);
    uint64_t off = input_offset(n);
    unsigned long long mine = n, all_n = 0;
    MPI_Allreduce(&mine, &all_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    fill_keys(&r, t, kind, off, all_n, keys, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = off + i;
        memcpy(vals + i * vs, &v, vs); /* little-endian: the low bytes */
    }
    void *dk = dt_upload(e, keys, n * ks), *dv = vs ? dt_upload(e, vals, n * vs) : NULL;
    pp_status st = vs ? pp_dist_sort_pairs(e->d, t, dk, dv, vs, n, order) : pp_dist_sort(e->d, t, dk, n, order);
    unsigned char *ok = malloc(n * ks + 1), *ov = malloc(n * 8 + 1);
    if (dt_ok(e, st, vs ? "pp_dist_sort_pairs" : "pp_dist_sort")) {
        dt_download(e, ok, dk, n * ks);
        if (vs) dt_download(e, ov, dv, n * vs);
    }
    void *all_k, *all_v, *got_k, *got_v;
    size_t total = dt_gather(keys, n * ks, &all_k, NULL) / ks;
    dt_gather(vals, n * vs, &all_v, NULL);
    dt_gather(ok, n * ks, &got_k, NULL);
    dt_gather(ov, n * vs, &got_v, NULL);
    if (e->rank == 0) {
        ref_sort_pairs(t, all_k, vs ? all_v : NULL, vs, total, order);
        dt_bits(t, got_k, all_k, total, "keys (gathered)");
        static const pp_type vt[9] = {PP_U8, PP_U8, PP_U16, PP_U8, PP_U32, PP_U8, PP_U8, PP_U8, PP_U64};
        if (vs) dt_bits(vt[vs], got_v, all_v, total, "values (gathered): stability");
    }
    free(all_k);
    free(all_v);
    free(got_k);
    free(got_v);
    dt_free(e, dk);
    dt_free(e, dv);
    free(keys);
    free(vals);
    free(ok);
    free(ov);
}

static void sort_case(dt_env *e, pp_type t, pp_order order, size_t vs, int layout)
{
    sort_case_of(e, t, order, vs, layout, KEYS_RANDOM);
}

/* Every type, ascending and descending over every layout; the descending
 * cases of even layouts (among them the random sizes) in
 * PP_DESCENDING_NAN_LAST, the others in PP_DESCENDING: all three orders
 * for the cost of two (on integer keys the two descending orders agree). */
void sorting(dt_env *e)
{
    static const size_t value_sizes[5] = {0, 1, 2, 4, 8};
    for (int ti = 0; ti < TC_NTYPES; ti++)
        for (int desc = 0; desc < 2; desc++)
            for (int layout = 0; layout < DT_LAYOUTS; layout++) {
                pp_order order = !desc ? PP_ASCENDING : layout % 2 ? PP_DESCENDING : PP_DESCENDING_NAN_LAST;
                sort_case(e, (pp_type)ti, order, value_sizes[(ti + desc + layout) % 5], layout);
            }
    /* the skewed distributions, pairs with 8-byte values (stability), on
     * u32, u64, i64 and f64 keys, ascending and descending, two layouts */
    static const pp_type skew_types[4] = {PP_U32, PP_U64, PP_I64, PP_F64};
    for (int kind = KEYS_EQUAL; kind < KEYS_KINDS; kind++)
        for (int ti = 0; ti < 4; ti++) {
            if (kind == KEYS_TOP3 && pp_type_size(skew_types[ti]) != 8) continue;
            const int layout = (kind + ti) % 2 ? 0 : 4; /* random sizes, equal */
            sort_case_of(e, skew_types[ti], (kind + ti) % 3 ? PP_ASCENDING : PP_DESCENDING, 8, layout, kind);
        }
}
