/*
 * parprim._parprim: the segmented, by-key and index primitives of a Context
 * (argsort .. run_length_encode, in Ctx_methods of context.c), and search,
 * merge and top_k. See binding.h; the Python layer (parprim/_keyed.py,
 * parprim/_search.py) allocates the outputs and converts offsets to uint64.
 *
 * Offsets are nseg + 1 uint64 (a host buffer of uint64, or an address);
 * indices and counts are 8-byte outputs of any 8-byte type (the package
 * passes int64 arrays: the bits of a uint64 below 2^63).
 */
#include "binding.h"

/* Reads k array arguments; on failure releases those read and returns -1
 * (exception set). Also operator.c's. */
int ppy_get_arrays(PyObject *const *objs, const ArgSpec *spec, int k, Arr *a)
{
    for (int i = 0; i < k; i++) {
        if (ppy_arr_get(objs[i], spec[i].writable, spec[i].raw, spec[i].name, &a[i]) == 0) continue;
        while (i > 0) ppy_arr_release(&a[--i]);
        return -1;
    }
    return 0;
}

void ppy_release_arrays(Arr *a, int k)
{
    for (int i = 0; i < k; i++) ppy_arr_release(&a[i]);
}

/* A non-negative Py_ssize_t argument (a count) as size_t. */
int ppy_size_arg(PyObject *o, const char *name, size_t *out)
{
    Py_ssize_t v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0) {
        ppy_invalid("parprim: %s = %zd is negative", name, v);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

/* The element type of a second input (values of the by-key forms): the
 * given pp_type, else its buffer's. */
static int second_type(const Arr *v, PyObject *type_o, const char *name, int *type)
{
    long t = PyLong_AsLong(type_o);
    if (t == -1 && PyErr_Occurred()) return -1;
    if (t == -1) {
        if (v->type < 0 || v->type >= PP_TYPE_COUNT) {
            ppy_invalid("parprim: argument '%s' needs a parprim element type", name);
            return -1;
        }
        t = v->type;
    }
    *type = (int)t;
    return ppy_arr_check(v, name, (int)t, 0, 0);
}

/* One call of this file, its arguments read: the arrays in a[], in the
 * order each method takes them. */
enum {
    K_ARGSORT,
    K_SEG_REDUCE,
    K_SEG_SCAN,
    K_SEG_SORT,
    K_REDUCE_BY_KEY,
    K_SCAN_BY_KEY,
    K_RLE,
    K_SEARCH,
    K_MERGE,
    K_TOP_K
};
typedef struct {
    int which, t, vt, op, excl, exact, pairs, right;
    long index_type;
    pp_order order;
    size_t n, nseg, vsize, m, k; /* m: queries (search), b's keys (merge); k: top_k's */
    const Arr *a;
    uint64_t *cnt;
} Call;

static pp_status dispatch(pp_context *ctx, const Call *c)
{
    const Arr *a = c->a;
    const pp_scan_kind kind = c->excl ? PP_EXCLUSIVE : PP_INCLUSIVE;
    switch (c->which) {
    case K_ARGSORT:
        return pp_argsort(ctx, (pp_type)c->t, a[0].ptr, c->n, c->order, (pp_type)c->index_type, a[1].ptr);
    case K_SEG_REDUCE:
        return pp_segmented_reduce(ctx, (pp_type)c->t, (pp_op)c->op, a[0].ptr, c->n, (const uint64_t *)a[1].ptr,
                                   c->nseg, a[2].ptr);
    case K_SEG_SCAN:
        return pp_segmented_scan(ctx, (pp_type)c->t, (pp_op)c->op, kind, a[0].ptr, a[1].ptr, c->n,
                                 (const uint64_t *)a[2].ptr, c->nseg);
    case K_SEG_SORT:
        if (c->pairs)
            return pp_segmented_sort_pairs(ctx, (pp_type)c->t, a[0].ptr, a[1].ptr, c->vsize, c->n,
                                           (const uint64_t *)a[2].ptr, c->nseg, c->order);
        return pp_segmented_sort(ctx, (pp_type)c->t, a[0].ptr, c->n, (const uint64_t *)a[2].ptr, c->nseg, c->order);
    case K_REDUCE_BY_KEY:
        return pp_reduce_by_key(ctx, (pp_type)c->t, (pp_type)c->vt, (pp_op)c->op, a[0].ptr, a[1].ptr, c->n, a[2].ptr,
                                a[3].ptr, c->cnt);
    case K_SCAN_BY_KEY:
        return pp_scan_by_key(ctx, (pp_type)c->t, (pp_type)c->vt, (pp_op)c->op, kind, a[0].ptr, a[1].ptr, a[2].ptr,
                              c->n);
    case K_RLE:
        return pp_run_length_encode(ctx, (pp_type)c->t, a[0].ptr, c->n, a[1].ptr, (uint64_t *)a[2].ptr, c->cnt);
    case K_SEARCH:
        return (c->right ? pp_upper_bound : pp_lower_bound)(ctx, (pp_type)c->t, a[0].ptr, c->n, c->order, a[1].ptr,
                                                            c->m, (uint64_t *)a[2].ptr);
    case K_MERGE:
        if (c->pairs)
            return pp_merge_pairs(ctx, (pp_type)c->t, a[0].ptr, a[3].ptr, c->n, a[1].ptr, a[4].ptr, c->m, c->vsize,
                                  a[2].ptr, a[5].ptr, c->order);
        return pp_merge(ctx, (pp_type)c->t, a[0].ptr, c->n, a[1].ptr, c->m, a[2].ptr, c->order);
    default:
        return pp_top_k(ctx, (pp_type)c->t, a[0].ptr, c->n, c->k, c->order, a[1].ptr,
                        c->pairs ? (uint64_t *)a[2].ptr : NULL);
    }
}

/* Runs c (where its arguments passed their checks: ok) with the context's
 * lock held, under PP_ALGO_EXACT where c->exact asks (on the reduce's or the
 * scan's choice, as the header says), then releases the k arrays. Returns
 * None, or the count of the calls that write one. */
static PyObject *finish(Ctx *self, Call *c, int ok, Arr *a, int k)
{
    if (!ok) {
        ppy_release_arrays(a, k);
        return NULL;
    }
    const int counted = c->which == K_REDUCE_BY_KEY || c->which == K_RLE;
    const pp_primitive prim = c->which == K_SEG_SCAN || c->which == K_SCAN_BY_KEY ? PP_PRIM_SCAN : PP_PRIM_REDUCE;
    uint64_t local[2] = {0, 0};
    pp_status st;
    char msg[MSG_LEN];
    c->a = a;
    LOCKED(self, st, msg, {
        pp_algorithm saved = PP_ALGO_AUTO;
        void *cnt = NULL;
        st = counted ? ppy_result_slot(self, local, &cnt) : PP_SUCCESS;
        c->cnt = (uint64_t *)cnt;
        if (st == PP_SUCCESS) st = ppy_exact_begin(self->ctx, prim, c->exact, &saved);
        if (st == PP_SUCCESS) {
            st = dispatch(self->ctx, c);
            ppy_exact_end(self->ctx, prim, c->exact, saved);
        }
        if (st == PP_SUCCESS && counted) st = ppy_result_fetch(self, local, sizeof(uint64_t));
    });
    return ppy_call_result(st, msg, counted, local[0], a, k);
}

/* The end of a call run with st (message msg): its exception, or the count
 * it wrote (counted), else None; the k arrays released. Also operator.c's. */
PyObject *ppy_call_result(pp_status st, const char *msg, int counted, uint64_t count, Arr *a, int k)
{
    PyObject *res = NULL;
    if (st != PP_SUCCESS)
        ppy_raise_status(st, msg);
    else
        res = counted ? PyLong_FromUnsignedLongLong(count) : Py_NewRef(Py_None);
    ppy_release_arrays(a, k);
    return res;
}

/* argsort(keys, indices, order, index_type, type, n): pp_argsort */
PyObject *ppy_Ctx_argsort(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "argsort(keys, indices, order, index_type, type, n)");
    Call c = {.which = K_ARGSORT};
    if (ppy_order_arg(args[2], &c.order)) return NULL;
    c.index_type = PyLong_AsLong(args[3]);
    if (c.index_type == -1 && PyErr_Occurred()) return NULL;
    static const ArgSpec spec[2] = {{"keys", 0, 0}, {"indices", 1, 1}};
    Arr a[2];
    if (ppy_get_arrays(args, spec, 2, a)) return NULL;
    size_t isz = c.index_type == PP_U32 ? 4 : 8; /* the C call refuses other index types */
    int ok = ppy_first_array(&a[0], args[4], args[5], &c.t, &c.n) == 0 &&
             ppy_arr_check(&a[1], "indices", T_OTHER, isz, c.n) == 0;
    return finish(self, &c, ok, a, 2);
}

/* segmented_reduce(a, offsets, out, op, nseg, exact, type, n) and
 * segmented_scan(a, out, offsets, op, exclusive, nseg, exact, type, n) */
static PyObject *segmented(Ctx *self, PyObject *const *args, int scan)
{
    Call c = {.which = scan ? K_SEG_SCAN : K_SEG_REDUCE};
    const int at = scan; /* the scan has exclusive after op */
    if ((c.op = ppy_parse_op(args[3])) < 0) return NULL;
    if (scan && (c.excl = PyObject_IsTrue(args[4])) < 0) return NULL;
    if (ppy_size_arg(args[4 + at], "nseg", &c.nseg)) return NULL;
    if ((c.exact = PyObject_IsTrue(args[5 + at])) < 0) return NULL;
    static const ArgSpec reduce_spec[3] = {{"a", 0, 0}, {"offsets", 0, 0}, {"out", 1, 0}};
    static const ArgSpec scan_spec[3] = {{"a", 0, 0}, {"out", 1, 0}, {"offsets", 0, 0}};
    Arr a[3];
    if (ppy_get_arrays(args, scan ? scan_spec : reduce_spec, 3, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[6 + at], args[7 + at], &c.t, &c.n) == 0 &&
             ppy_arr_check(&a[scan ? 2 : 1], "offsets", PP_U64, 0, c.nseg + 1) == 0 &&
             ppy_arr_check(&a[scan ? 1 : 2], "out", c.t, 0, scan ? c.n : c.nseg) == 0;
    return finish(self, &c, ok, a, 3);
}

PyObject *ppy_Ctx_segmented_reduce(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(8, "segmented_reduce(a, offsets, out, op, nseg, exact, type, n)");
    return segmented(self, args, 0);
}

PyObject *ppy_Ctx_segmented_scan(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(9, "segmented_scan(a, out, offsets, op, exclusive, nseg, exact, type, n)");
    return segmented(self, args, 1);
}

/* segmented_sort(keys, values, offsets, value_size, nseg, order, type, n):
 * pp_segmented_sort in place, or pp_segmented_sort_pairs where values is
 * not None */
PyObject *ppy_Ctx_segmented_sort(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(8, "segmented_sort(keys, values, offsets, value_size, nseg, order, "
             "type, n)");
    Call c = {.which = K_SEG_SORT, .pairs = args[1] != Py_None};
    Py_ssize_t vsize = PyLong_AsSsize_t(args[3]);
    if (vsize == -1 && PyErr_Occurred()) return NULL;
    if (ppy_size_arg(args[4], "nseg", &c.nseg)) return NULL;
    if (ppy_order_arg(args[5], &c.order)) return NULL;
    static const ArgSpec spec[3] = {{"keys", 1, 0}, {"values", 1, 1}, {"offsets", 0, 0}};
    PyObject *objs[3] = {args[0], c.pairs ? args[1] : args[0], args[2]};
    Arr a[3];
    if (ppy_get_arrays(objs, spec, 3, a)) return NULL;
    if (c.pairs && a[1].has_view && vsize <= 0) vsize = a[1].itemsize;
    c.vsize = (size_t)vsize;
    int ok = ppy_first_array(&a[0], args[6], args[7], &c.t, &c.n) == 0 &&
             (!c.pairs || ppy_arr_check(&a[1], "values", T_OTHER, c.vsize, c.n) == 0) &&
             ppy_arr_check(&a[2], "offsets", PP_U64, 0, c.nseg + 1) == 0;
    return finish(self, &c, ok, a, 3);
}

/* reduce_by_key(keys, values, keys_out, values_out, op, value_type, exact,
 * type, n) -> count and scan_by_key(keys, values, out, op, exclusive,
 * value_type, exact, type, n) */
static PyObject *by_key(Ctx *self, PyObject *const *args, int scan)
{
    Call c = {.which = scan ? K_SCAN_BY_KEY : K_REDUCE_BY_KEY};
    const int at = scan ? 3 : 4; /* where op is */
    if ((c.op = ppy_parse_op(args[at])) < 0) return NULL;
    if (scan && (c.excl = PyObject_IsTrue(args[4])) < 0) return NULL;
    if ((c.exact = PyObject_IsTrue(args[6])) < 0) return NULL;
    static const ArgSpec spec[4] = {{"keys", 0, 0}, {"values", 0, 0}, {"keys_out", 1, 0}, {"values_out", 1, 0}};
    static const ArgSpec scan_spec[3] = {{"keys", 0, 0}, {"values", 0, 0}, {"out", 1, 0}};
    const int k = scan ? 3 : 4;
    Arr a[4];
    if (ppy_get_arrays(args, scan ? scan_spec : spec, k, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[7], args[8], &c.t, &c.n) == 0 &&
             second_type(&a[1], args[5], "values", &c.vt) == 0 && ppy_arr_check(&a[1], "values", c.vt, 0, c.n) == 0 &&
             (scan ? ppy_arr_check(&a[2], "out", c.vt, 0, c.n) == 0
                   : ppy_arr_check(&a[2], "keys_out", c.t, 0, c.n) == 0 &&
                         ppy_arr_check(&a[3], "values_out", c.vt, 0, c.n) == 0);
    return finish(self, &c, ok, a, k);
}

PyObject *ppy_Ctx_reduce_by_key(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(9, "reduce_by_key(keys, values, keys_out, values_out, op, value_type, "
             "exact, type, n)");
    return by_key(self, args, 0);
}

PyObject *ppy_Ctx_scan_by_key(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(9, "scan_by_key(keys, values, out, op, exclusive, value_type, exact, "
             "type, n)");
    return by_key(self, args, 1);
}

/* run_length_encode(a, values_out, counts_out, type, n) -> count */
PyObject *ppy_Ctx_run_length_encode(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(5, "run_length_encode(a, values_out, counts_out, type, n)");
    Call c = {.which = K_RLE};
    static const ArgSpec spec[3] = {{"a", 0, 0}, {"values_out", 1, 0}, {"counts_out", 1, 1}};
    Arr a[3];
    if (ppy_get_arrays(args, spec, 3, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[3], args[4], &c.t, &c.n) == 0 &&
             ppy_arr_check(&a[1], "values_out", c.t, 0, c.n) == 0 &&
             ppy_arr_check(&a[2], "counts_out", T_OTHER, sizeof(uint64_t), c.n) == 0;
    return finish(self, &c, ok, a, 3);
}

/* search(sorted, queries, out, right, order, m, type, n): pp_lower_bound, or
 * pp_upper_bound where right is true; out: m 8-byte integers */
PyObject *ppy_Ctx_search(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(8, "search(sorted, queries, out, right, order, m, type, n)");
    Call c = {.which = K_SEARCH};
    if ((c.right = PyObject_IsTrue(args[3])) < 0) return NULL;
    if (ppy_order_arg(args[4], &c.order)) return NULL;
    if (ppy_size_arg(args[5], "m", &c.m)) return NULL;
    static const ArgSpec spec[3] = {{"sorted", 0, 0}, {"queries", 0, 0}, {"out", 1, 1}};
    Arr a[3];
    if (ppy_get_arrays(args, spec, 3, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[6], args[7], &c.t, &c.n) == 0 &&
             ppy_arr_check(&a[1], "queries", c.t, 0, c.m) == 0 &&
             ppy_arr_check(&a[2], "out", T_OTHER, sizeof(uint64_t), c.m) == 0;
    return finish(self, &c, ok, a, 3);
}

/* merge(a, b, out, a_values, b_values, values_out, value_size, order, nb,
 * type, na): pp_merge, or pp_merge_pairs where a_values is not None */
PyObject *ppy_Ctx_merge(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(11, "merge(a, b, out, a_values, b_values, values_out, value_size, order, nb, type, na)");
    Call c = {.which = K_MERGE, .pairs = args[3] != Py_None};
    Py_ssize_t vsize = PyLong_AsSsize_t(args[6]);
    if (vsize == -1 && PyErr_Occurred()) return NULL;
    if (ppy_order_arg(args[7], &c.order)) return NULL;
    if (ppy_size_arg(args[8], "nb", &c.m)) return NULL;
    static const ArgSpec spec[6] = {{"a", 0, 0},        {"b", 0, 0},        {"out", 1, 0},
                                    {"a_values", 0, 1}, {"b_values", 0, 1}, {"values_out", 1, 1}};
    const int k = c.pairs ? 6 : 3;
    Arr a[6];
    if (ppy_get_arrays(args, spec, k, a)) return NULL;
    if (c.pairs && a[3].has_view && vsize <= 0) vsize = a[3].itemsize;
    c.vsize = (size_t)vsize;
    int ok = ppy_first_array(&a[0], args[9], args[10], &c.t, &c.n) == 0 &&
             ppy_arr_check(&a[1], "b", c.t, 0, c.m) == 0 && ppy_arr_check(&a[2], "out", c.t, 0, c.n + c.m) == 0 &&
             (!c.pairs || (ppy_arr_check(&a[3], "a_values", T_OTHER, c.vsize, c.n) == 0 &&
                           ppy_arr_check(&a[4], "b_values", T_OTHER, c.vsize, c.m) == 0 &&
                           ppy_arr_check(&a[5], "values_out", T_OTHER, c.vsize, c.n + c.m) == 0));
    return finish(self, &c, ok, a, k);
}

/* top_k(a, keys_out, indices_out, k, order, type, n): pp_top_k; indices_out
 * None: no indices (NULL); outputs of min(k, n) elements */
PyObject *ppy_Ctx_top_k(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(7, "top_k(a, keys_out, indices_out, k, order, type, n)");
    Call c = {.which = K_TOP_K, .pairs = args[2] != Py_None};
    if (ppy_size_arg(args[3], "k", &c.k)) return NULL;
    if (ppy_order_arg(args[4], &c.order)) return NULL;
    static const ArgSpec spec[3] = {{"a", 0, 0}, {"keys_out", 1, 0}, {"indices_out", 1, 1}};
    const int k = c.pairs ? 3 : 2;
    Arr a[3];
    if (ppy_get_arrays(args, spec, k, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[5], args[6], &c.t, &c.n) == 0;
    const size_t kk = c.k < c.n ? c.k : c.n;
    ok = ok && ppy_arr_check(&a[1], "keys_out", c.t, 0, kk) == 0 &&
         (!c.pairs || ppy_arr_check(&a[2], "indices_out", T_OTHER, sizeof(uint64_t), kk) == 0);
    return finish(self, &c, ok, a, k);
}
