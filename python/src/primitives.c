/*
 * parprim._parprim: the primitives of a Context (its methods reduce ..
 * sort_pairs_copy, in Ctx_methods of context.c), and time_reduce (the C cost of
 * pp_reduce, for the overhead timer python/tools/overhead.py). See binding.h.
 */
#include "binding.h"

#include <time.h>

/* ------------------------------------------------------------------------ */
/* Primitives                                                               */
/* ------------------------------------------------------------------------ */
/* Result memory for one value (reduce's out, a count): host memory on cpu,
 * a 16-byte buffer of the context on GPU backends (allocated once). Called
 * with the lock held. */
pp_status ppy_result_slot(Ctx *self, void *local, void **out)
{
    if (self->backend == PP_BACKEND_CPU) {
        *out = local;
        return PP_SUCCESS;
    }
    if (!self->slot) {
        pp_status st = pp_malloc(self->ctx, &self->slot, 16);
        if (st != PP_SUCCESS) return st;
    }
    *out = self->slot;
    return PP_SUCCESS;
}

/* Brings a result from the slot to local (GPU backends; waits). */
pp_status ppy_result_fetch(Ctx *self, void *local, size_t bytes)
{
    if (self->backend == PP_BACKEND_CPU) return PP_SUCCESS;
    return pp_download(self->ctx, local, self->slot, bytes);
}

/* reduce(a, op, type, n) -> the result as a NumPy scalar */
/* exact=True on reduce and scan: PP_ALGO_EXACT for this one call, the
 * context's own choice restored after it (all under the context's lock, so
 * other threads' calls keep their algorithm). */
pp_status ppy_exact_begin(pp_context *ctx, pp_primitive prim, int exact, pp_algorithm *saved)
{
    if (!exact) return PP_SUCCESS;
    *saved = pp_get_algorithm(ctx, prim);
    return pp_set_algorithm(ctx, prim, PP_ALGO_EXACT);
}

void ppy_exact_end(pp_context *ctx, pp_primitive prim, int exact, pp_algorithm saved)
{
    if (exact) (void)pp_set_algorithm(ctx, prim, saved);
}

/* The optional argument `exact` of reduce and scan: 0, 1, EXACT_DEFAULT
 * (None: see default_sum_type), or -1 with an exception set. Absent is 0. */
#define EXACT_DEFAULT 2
static int exact_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at)
{
    if (nargs <= at) return 0;
    return args[at] == Py_None ? EXACT_DEFAULT : PyObject_IsTrue(args[at]);
}

/* exact=None on reduce (resolved with the lock held): an f32 sum in f32
 * where the context's reduce algorithm is "auto" is summed in f64
 * (pp_reduce_to) and rounded once to f32 (wide_sum_round), so that the
 * package's default float sum is at least as accurate as np.sum's pairwise
 * sum (bench/studies/python-sums.md has the measurements behind the
 * choice); an algorithm the caller chose is kept, and every other call
 * runs as exact=False. Returns the out type of the C call. */
static int default_sum_type(pp_context *ctx, int *exact, int t, int ot, int op)
{
    if (*exact != EXACT_DEFAULT) return ot;
    *exact = 0;
    if (op == PP_SUM && t == PP_F32 && ot == PP_F32 && pp_get_algorithm(ctx, PP_PRIM_REDUCE) == PP_ALGO_AUTO)
        return PP_F64;
    return ot;
}

/* The f64 sum of an f32 reduce (default_sum_type) rounded to f32 in place. */
static void wide_sum_round(uint64_t *local)
{
    double d;
    memcpy(&d, local, sizeof d);
    const float f = (float)d;
    memcpy(local, &f, sizeof f);
}

/* NumPy's result type of op on type t (np.add.reduce's and
 * np.multiply.reduce's default on LP64 platforms: integers narrower than 64
 * bits in int64, unsigned ones in uint64); t for the other operators. The
 * Python layer's table of it (_numpy_rules.py) is read from NumPy itself,
 * and python/tests/test_numpy_rules.py checks both against NumPy. */
static int numpy_out_type(int t, int op)
{
    if (op != PP_SUM && op != PP_PROD) return t;
    switch (t) {
    case PP_I8:
    case PP_I16:
    case PP_I32:
        return PP_I64;
    case PP_U8:
    case PP_U16:
    case PP_U32:
        return PP_U64;
    default:
        return t;
    }
}

/* The optional argument `out_type` of reduce and scan (pp_reduce_to,
 * pp_scan_to): a pp_type, -1 (absent, None) for the input type t, or -2
 * for NumPy's result type of op (numpy_out_type). Returns 0, or -1 with an
 * exception set. */
static int out_type_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t at, int t, int op, int *ot)
{
    *ot = t;
    if (nargs <= at || args[at] == Py_None) return 0;
    long v = PyLong_AsLong(args[at]);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v == -2)
        *ot = numpy_out_type(t, op);
    else if (v != -1)
        *ot = (int)v; /* pp_reduce_to / pp_scan_to check it */
    return 0;
}

/* The input of reduce and argext: args a, type and n (ppy_arr_get and
 * ppy_first_array). Returns 0, or -1 with an exception set and a released. */
static int single_input(PyObject *a_o, PyObject *type_o, PyObject *n_o, Arr *a, int *t, size_t *n)
{
    if (ppy_arr_get(a_o, 0, 0, "a", a)) return -1;
    if (ppy_first_array(a, type_o, n_o, t, n)) {
        ppy_arr_release(a);
        return -1;
    }
    return 0;
}

PyObject *ppy_Ctx_reduce(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 6) {
        PyErr_SetString(PyExc_TypeError,
                        "_parprim.Context.reduce(a, op, type, n[, exact[, out_type]]) takes 4 to 6 arguments");
        return NULL;
    }
    int op = ppy_parse_op(args[1]);
    if (op < 0) return NULL;
    int exact = exact_arg(args, nargs, 4);
    if (exact < 0) return NULL;
    Arr a;
    int t, ot;
    size_t n;
    if (single_input(args[0], args[2], args[3], &a, &t, &n)) return NULL;
    if (out_type_arg(args, nargs, 5, t, op, &ot)) {
        ppy_arr_release(&a);
        return NULL;
    }
    uint64_t local[2] = {0, 0};
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        void *out;
        pp_algorithm saved = PP_ALGO_AUTO;
        const int ct = default_sum_type(self->ctx, &exact, t, ot, op);
        st = ppy_result_slot(self, local, &out);
        if (st == PP_SUCCESS) st = ppy_exact_begin(self->ctx, PP_PRIM_REDUCE, exact, &saved);
        if (st == PP_SUCCESS) {
            int wide = ct != ot;
            st = ct == t ? pp_reduce(self->ctx, (pp_type)t, (pp_op)op, a.ptr, n, out)
                         : pp_reduce_to(self->ctx, (pp_type)t, (pp_type)ct, (pp_op)op, a.ptr, n, out);
            if (wide && st == PP_ERROR_UNSUPPORTED) { /* no f64 here (opencl without cl_khr_fp64) */
                wide = 0;
                st = pp_reduce(self->ctx, (pp_type)t, (pp_op)op, a.ptr, n, out);
            }
            if (st == PP_SUCCESS) st = ppy_result_fetch(self, local, pp_type_size((pp_type)(wide ? ct : ot)));
            if (st == PP_SUCCESS && wide) wide_sum_round(local);
            ppy_exact_end(self->ctx, PP_PRIM_REDUCE, exact, saved);
        }
    });
    ppy_arr_release(&a);
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return ppy_make_scalar(ot, local);
}

/* scan(a, out, op, exclusive, type, n[, exact[, init[, out_type]]]):
 * pp_scan, pp_scan_to where out_type differs from type, or pp_scan_init
 * where init (a number of the element type) is given and not None (then
 * out_type must be type). init reaches the C call as context memory: the
 * host value on cpu, else uploaded into the context's result slot. */
PyObject *ppy_Ctx_scan(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 6 || nargs > 9) {
        PyErr_SetString(PyExc_TypeError, "_parprim.Context.scan(a, out, op, exclusive, type, n[, exact[, init[, "
                                         "out_type]]]) takes 6 to 9 arguments");
        return NULL;
    }
    int op = ppy_parse_op(args[2]);
    if (op < 0) return NULL;
    int excl = PyObject_IsTrue(args[3]);
    if (excl < 0) return NULL;
    int exact = exact_arg(args, nargs, 6);
    if (exact < 0) return NULL;
    const int has_init = nargs > 7 && args[7] != Py_None;
    Arr a, out;
    if (ppy_arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (ppy_arr_get(args[1], 1, 0, "out", &out)) {
        ppy_arr_release(&a);
        return NULL;
    }
    int t, ot;
    size_t n;
    uint64_t init[2] = {0, 0};
    PyObject *res = NULL;
    if (ppy_first_array(&a, args[4], args[5], &t, &n) == 0 && out_type_arg(args, nargs, 8, t, op, &ot) == 0 &&
        ppy_arr_check(&out, "out", ot, 0, n) == 0 && (!has_init || ppy_to_value(args[7], t, "initial", init) == 0)) {
        if (has_init && ot != t) {
            ppy_invalid("parprim: a scan with initial runs in the input type (%s), not %s: pp_scan_init has no "
                        "converting form",
                        pp_type_name((pp_type)t), pp_type_name((pp_type)ot));
            goto done;
        }
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg, {
            pp_algorithm saved = PP_ALGO_AUTO;
            void *ip = NULL;
            st = has_init ? ppy_result_slot(self, init, &ip) : PP_SUCCESS;
            if (st == PP_SUCCESS && ip && ip != (void *)init)
                st = pp_upload(self->ctx, ip, init, pp_type_size((pp_type)t));
            if (exact == EXACT_DEFAULT) exact = 0; /* scans: the context's algorithm */
            if (st == PP_SUCCESS) st = ppy_exact_begin(self->ctx, PP_PRIM_SCAN, exact, &saved);
            if (st == PP_SUCCESS) {
                const pp_scan_kind kind = excl ? PP_EXCLUSIVE : PP_INCLUSIVE;
                if (has_init)
                    st = pp_scan_init(self->ctx, (pp_type)t, (pp_op)op, kind, a.ptr, out.ptr, n, ip);
                else if (ot != t)
                    st = pp_scan_to(self->ctx, (pp_type)t, (pp_type)ot, (pp_op)op, kind, a.ptr, out.ptr, n);
                else
                    st = pp_scan(self->ctx, (pp_type)t, (pp_op)op, kind, a.ptr, out.ptr, n);
                ppy_exact_end(self->ctx, PP_PRIM_SCAN, exact, saved);
            }
        });
        if (st != PP_SUCCESS)
            ppy_raise_status(st, msg);
        else
            res = Py_NewRef(Py_None);
    }
done:
    ppy_arr_release(&a);
    ppy_arr_release(&out);
    return res;
}

/* argmin(a, largest, type, n) -> the index (an int): pp_argmin, or pp_argmax
 * where largest is true. */
PyObject *ppy_Ctx_argext(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "argext(a, largest, type, n)");
    int largest = PyObject_IsTrue(args[1]);
    if (largest < 0) return NULL;
    Arr a;
    int t;
    size_t n;
    if (single_input(args[0], args[2], args[3], &a, &t, &n)) return NULL;
    uint64_t local[2] = {0, 0};
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        void *out;
        st = ppy_result_slot(self, local, &out);
        if (st == PP_SUCCESS) st = (largest ? pp_argmax : pp_argmin)(self->ctx, (pp_type)t, a.ptr, n, (uint64_t *)out);
        if (st == PP_SUCCESS) st = ppy_result_fetch(self, local, sizeof(uint64_t));
    });
    ppy_arr_release(&a);
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyLong_FromUnsignedLongLong(local[0]);
}

/* histogram_even(a, counts, lower, upper, nbins, type, n) */
PyObject *ppy_Ctx_histogram_even(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(7, "histogram_even(a, counts, lower, upper, nbins, type, n)");
    Py_ssize_t nbins = PyLong_AsSsize_t(args[4]);
    if (nbins == -1 && PyErr_Occurred()) return NULL;
    if (nbins < 0) return ppy_invalid("parprim: bins = %zd is negative", nbins);
    Arr a, counts;
    if (ppy_arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (ppy_arr_get(args[1], 1, 0, "counts", &counts)) {
        ppy_arr_release(&a);
        return NULL;
    }
    int t;
    size_t n;
    uint64_t lo = 0, hi = 0;
    PyObject *res = NULL;
    if (ppy_first_array(&a, args[5], args[6], &t, &n) == 0 &&
        ppy_arr_check(&counts, "counts", PP_U64, 0, (size_t)nbins) == 0 &&
        ppy_to_value(args[2], t, "lower", &lo) == 0 && ppy_to_value(args[3], t, "upper", &hi) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_histogram_even(self->ctx, (pp_type)t, a.ptr, n, &lo, &hi, (size_t)nbins,
                                      (uint64_t *)counts.ptr));
        if (st != PP_SUCCESS) ppy_raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    ppy_arr_release(&a);
    ppy_arr_release(&counts);
    return res;
}

/* histogram_range(a, counts, edges, nbins, type, n); edges: a host buffer of
 * nbins + 1 values of the element type */
PyObject *ppy_Ctx_histogram_range(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "histogram_range(a, counts, edges, nbins, type, n)");
    Py_ssize_t nbins = PyLong_AsSsize_t(args[3]);
    if (nbins == -1 && PyErr_Occurred()) return NULL;
    if (nbins < 0) return ppy_invalid("parprim: the number of bins %zd is negative", nbins);
    if (PyLong_Check(args[2])) return ppy_invalid("parprim: edges must be a host array");
    Arr a, counts, edges;
    if (ppy_arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (ppy_arr_get(args[1], 1, 0, "counts", &counts)) {
        ppy_arr_release(&a);
        return NULL;
    }
    if (ppy_arr_get(args[2], 0, 0, "edges", &edges)) {
        ppy_arr_release(&a);
        ppy_arr_release(&counts);
        return NULL;
    }
    int t;
    size_t n;
    PyObject *res = NULL;
    if (ppy_first_array(&a, args[4], args[5], &t, &n) == 0 &&
        ppy_arr_check(&counts, "counts", PP_U64, 0, (size_t)nbins) == 0 &&
        ppy_arr_check(&edges, "edges", t, 0, (size_t)nbins + 1) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_histogram_range(self->ctx, (pp_type)t, a.ptr, n, edges.ptr, (size_t)nbins,
                                       (uint64_t *)counts.ptr));
        if (st != PP_SUCCESS) ppy_raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    ppy_arr_release(&a);
    ppy_arr_release(&counts);
    ppy_arr_release(&edges);
    return res;
}

/* The four compactions share their shape: in, [flags], out, count. */
enum { C_FLAGGED, C_IF, C_UNIQUE, C_PARTITION };

static PyObject *compact(Ctx *self, int which, PyObject *a_o, PyObject *flags_o, PyObject *out_o,
                         PyObject *cmp_o, PyObject *value_o, PyObject *type_o, PyObject *n_o)
{
    int cmp = 0;
    if (cmp_o && (cmp = ppy_parse_cmp(cmp_o)) < 0) return NULL;
    Arr a, flags, out;
    memset(&flags, 0, sizeof flags);
    if (ppy_arr_get(a_o, 0, 0, "a", &a)) return NULL;
    if (flags_o && ppy_arr_get(flags_o, 0, 1, "flags", &flags)) {
        ppy_arr_release(&a);
        return NULL;
    }
    if (ppy_arr_get(out_o, 1, 0, "out", &out)) {
        ppy_arr_release(&a);
        ppy_arr_release(&flags);
        return NULL;
    }
    int t;
    size_t n;
    uint64_t value = 0;
    PyObject *res = NULL;
    if (ppy_first_array(&a, type_o, n_o, &t, &n) == 0 &&
        (!flags_o || ppy_arr_check(&flags, "flags", T_BOOL, 1, n) == 0) &&
        ppy_arr_check(&out, "out", t, 0, which == C_PARTITION ? n : 0) == 0 &&
        (!value_o || ppy_to_value(value_o, t, "value", &value) == 0)) {
        if (out.has_view && which != C_PARTITION && (size_t)out.len < n) {
            /* The count is known only afterwards: out must hold n. */
            ppy_invalid("parprim: argument 'out' holds %zd elements, needs %zu", out.len, n);
        } else {
            pp_status st;
            char msg[MSG_LEN];
            uint64_t local[2] = {0, 0};
            LOCKED(self, st, msg, {
                void *cnt;
                st = ppy_result_slot(self, local, &cnt);
                if (st == PP_SUCCESS) switch (which) {
                    case C_FLAGGED:
                        st = pp_select_flagged(self->ctx, (pp_type)t, a.ptr, (const uint8_t *)flags.ptr, n,
                                               out.ptr, (uint64_t *)cnt);
                        break;
                    case C_IF:
                        st = pp_select_if(self->ctx, (pp_type)t, a.ptr, n, (pp_cmp)cmp, &value, out.ptr,
                                          (uint64_t *)cnt);
                        break;
                    case C_UNIQUE:
                        st = pp_unique(self->ctx, (pp_type)t, a.ptr, n, out.ptr, (uint64_t *)cnt);
                        break;
                    default:
                        st = pp_partition_if(self->ctx, (pp_type)t, a.ptr, n, (pp_cmp)cmp, &value, out.ptr,
                                             (uint64_t *)cnt);
                        break;
                    }
                if (st == PP_SUCCESS) st = ppy_result_fetch(self, local, sizeof(uint64_t));
            });
            if (st != PP_SUCCESS) ppy_raise_status(st, msg);
            else res = PyLong_FromUnsignedLongLong(local[0]);
        }
    }
    ppy_arr_release(&a);
    ppy_arr_release(&flags);
    ppy_arr_release(&out);
    return res;
}

/* select_flagged(a, flags, out, type, n) -> count */
PyObject *ppy_Ctx_select_flagged(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(5, "select_flagged(a, flags, out, type, n)");
    return compact(self, C_FLAGGED, args[0], args[1], args[2], NULL, NULL, args[3], args[4]);
}
/* select_if(a, out, cmp, value, type, n) -> count */
PyObject *ppy_Ctx_select_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "select_if(a, out, cmp, value, type, n)");
    return compact(self, C_IF, args[0], NULL, args[1], args[2], args[3], args[4], args[5]);
}
/* unique(a, out, type, n) -> count */
PyObject *ppy_Ctx_unique(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "unique(a, out, type, n)");
    return compact(self, C_UNIQUE, args[0], NULL, args[1], NULL, NULL, args[2], args[3]);
}
/* partition_if(a, out, cmp, value, type, n) -> count */
PyObject *ppy_Ctx_partition_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "partition_if(a, out, cmp, value, type, n)");
    return compact(self, C_PARTITION, args[0], NULL, args[1], args[2], args[3], args[4], args[5]);
}

/* The order argument of the sorts: a pp_order value, passed on as it is
 * (pp_sort_copy checks it); -1 with an exception where it is no int. */
int ppy_order_arg(PyObject *o, pp_order *order)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    *order = (pp_order)v;
    return 0;
}

/* sort_copy(keys_in, keys_out, order, type, n): pp_sort_copy (in place
 * where keys_out is keys_in) */
PyObject *ppy_Ctx_sort_copy(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(5, "sort_copy(keys_in, keys_out, order, type, n)");
    pp_order order;
    if (ppy_order_arg(args[2], &order)) return NULL;
    Arr k, ko;
    if (ppy_arr_get(args[0], 0, 0, "keys_in", &k)) return NULL;
    if (ppy_arr_get(args[1], 1, 0, "keys_out", &ko)) {
        ppy_arr_release(&k);
        return NULL;
    }
    int t;
    size_t n;
    PyObject *res = NULL;
    if (ppy_first_array(&k, args[3], args[4], &t, &n) == 0 && ppy_arr_check(&ko, "keys_out", t, 0, n) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_sort_copy(self->ctx, (pp_type)t, k.ptr, ko.ptr, n, order));
        if (st != PP_SUCCESS) ppy_raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    ppy_arr_release(&k);
    ppy_arr_release(&ko);
    return res;
}

/* sort_pairs_copy(keys_in, values_in, keys_out, values_out, value_size,
 * order, type, n): pp_sort_pairs_copy (in place where an output is its
 * input) */
PyObject *ppy_Ctx_sort_pairs_copy(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(8, "sort_pairs_copy(keys_in, values_in, keys_out, values_out, value_size, order, type, n)");
    Py_ssize_t vsize = PyLong_AsSsize_t(args[4]);
    if (vsize == -1 && PyErr_Occurred()) return NULL;
    pp_order order;
    if (ppy_order_arg(args[5], &order)) return NULL;
    static const char *const names[4] = {"keys_in", "values_in", "keys_out", "values_out"};
    Arr a[4];
    int got = 0;
    for (; got < 4; got++)
        if (ppy_arr_get(args[got], got >= 2, got % 2, names[got], &a[got])) break;
    int t;
    size_t n;
    PyObject *res = NULL;
    if (got == 4) {
        if (a[1].has_view && vsize <= 0) vsize = a[1].itemsize;
        if (ppy_first_array(&a[0], args[6], args[7], &t, &n) == 0 &&
            ppy_arr_check(&a[1], "values_in", T_OTHER, (size_t)vsize, n) == 0 &&
            ppy_arr_check(&a[2], "keys_out", t, 0, n) == 0 &&
            ppy_arr_check(&a[3], "values_out", T_OTHER, (size_t)vsize, n) == 0) {
            pp_status st;
            char msg[MSG_LEN];
            LOCKED(self, st, msg,
                   st = pp_sort_pairs_copy(self->ctx, (pp_type)t, a[0].ptr, a[1].ptr, a[2].ptr, a[3].ptr,
                                           (size_t)vsize, n, order));
            if (st != PP_SUCCESS) ppy_raise_status(st, msg);
            else res = Py_NewRef(Py_None);
        }
    }
    while (got > 0) ppy_arr_release(&a[--got]);
    return res;
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                   */
/* ------------------------------------------------------------------------ */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* time_reduce(context, a, op, iterations[, type, n]) -> seconds per
 * pp_reduce call, measured in C around a loop of calls with the GIL released
 * (the cost of the C call alone, for the binding's overhead measurement).
 * a: a buffer, or an address (device memory) with its pp_type and n. */
PyObject *ppy_time_reduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if ((nargs != 4 && nargs != 6) || !PyObject_TypeCheck(args[0], &ppy_CtxType)) {
        PyErr_SetString(PyExc_TypeError, "time_reduce(context, a, op, iterations[, type, n])");
        return NULL;
    }
    Ctx *self = (Ctx *)args[0];
    int op = ppy_parse_op(args[2]);
    if (op < 0) return NULL;
    long iters = PyLong_AsLong(args[3]);
    if (iters == -1 && PyErr_Occurred()) return NULL;
    if (iters < 1) iters = 1;
    Arr a;
    if (ppy_arr_get(args[1], 0, 0, "a", &a)) return NULL;
    if (nargs == 6 && !a.has_view) {
        a.type = (int)PyLong_AsLong(args[4]);
        a.len = (Py_ssize_t)PyLong_AsSsize_t(args[5]);
        if (PyErr_Occurred()) return NULL;
    }
    if (a.type < 0 || a.type >= PP_TYPE_COUNT || a.len < 0) {
        ppy_arr_release(&a);
        return ppy_invalid("parprim: time_reduce needs an array of a parprim element type");
    }
    uint64_t local[2];
    double t0 = 0, t1 = 0;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        void *out;
        st = ppy_result_slot(self, local, &out);
        t0 = now_s();
        for (long i = 0; st == PP_SUCCESS && i < iters; i++) {
            st = pp_reduce(self->ctx, (pp_type)a.type, (pp_op)op, a.ptr, (size_t)a.len, out);
            if (st == PP_SUCCESS) st = ppy_result_fetch(self, local, pp_type_size((pp_type)a.type));
        }
        t1 = now_s();
    });
    ppy_arr_release(&a);
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyFloat_FromDouble((t1 - t0) / (double)iters);
}
