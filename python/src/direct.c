/*
 * parprim._parprim: direct host calls, the short path of the package's
 * module functions for plain arrays on a cpu context. Each method takes
 * its inputs (buffers of a pp_type: C-contiguous, aligned, native byte
 * order), allocates its output as a new NumPy array (np.empty, handed over
 * once by _set_allocator) and returns it, in one call from Python: no
 * output made in Python, no run object, no second argument check. Anything
 * it does not take (another context, an address, a bool or foreign dtype,
 * a strided array, a value out of the type, flags of another size) raises
 * _NotDirect before any work, and the package takes its general path,
 * which gives the same result, or the error, as before.
 *
 * Calls on up to DIRECT_SMALL_N elements keep the GIL where the context's
 * lock is free at once (their C call runs inline on the calling thread and
 * is short: releasing and taking back the GIL would be a good part of it);
 * larger ones, or a lock held by another thread, release the GIL as every
 * other call does (LOCKED). See binding.h.
 */
#include "binding.h"

#include <stdlib.h>

/* np.empty and the NumPy dtypes of the pp_types, in pp_type order (None for
 * bf16: its arrays have no buffer, so they never come here). */
static PyObject *empty_fn, *dtypes[PPY_NTYPES];

/* _set_allocator(empty, dtypes) */
PyObject *ppy_set_allocator(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs != 2 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != PPY_NTYPES) {
        PyErr_SetString(PyExc_TypeError, "_set_allocator(empty, dtypes): a callable and a tuple of 12 dtypes");
        return NULL;
    }
    Py_XSETREF(empty_fn, Py_NewRef(args[0]));
    for (int i = 0; i < PPY_NTYPES; i++) Py_XSETREF(dtypes[i], Py_NewRef(PyTuple_GET_ITEM(args[1], i)));
    Py_RETURN_NONE;
}

/* Elements up to which a direct call keeps the GIL (see above). */
#define DIRECT_SMALL_N 4096

/* LOCKED, but with the GIL kept for small calls whose lock is free. */
#define DIRECT_RUN(self, n, st, msg, body)                                               \
    do {                                                                                 \
        if ((n) <= DIRECT_SMALL_N && PyThread_acquire_lock((self)->lock, NOWAIT_LOCK)) { \
            LOCKED_BODY(self, st, msg, body);                                            \
            PyThread_release_lock((self)->lock);                                         \
        } else {                                                                         \
            LOCKED(self, st, msg, body);                                                 \
        }                                                                                \
    } while (0)

/* A direct input: a buffer of a pp_type on a cpu context, else _NotDirect.
 * Returns 0, or -1 with an exception set (nothing held). */
static int direct_input(Ctx *self, PyObject *o, const char *name, Arr *a)
{
    memset(a, 0, sizeof *a);
    if (self->backend != PP_BACKEND_CPU || !empty_fn) return ppy_not_direct(name, "not a cpu context");
    if (PyLong_Check(o)) return ppy_not_direct(name, "an address");
    if (ppy_arr_get(o, 0, 0, name, a)) return -1;
    if (a->type < 0 || a->type >= PPY_NTYPES || dtypes[a->type] == Py_None) {
        ppy_arr_release(a);
        return ppy_not_direct(name, "element type");
    }
    return 0;
}

/* A new NumPy array of n elements of type t, and its memory. */
static PyObject *new_array(int t, size_t n, void **ptr)
{
    PyObject *len = PyLong_FromSize_t(n);
    if (!len) return NULL;
    PyObject *args[2] = {len, dtypes[t]};
    PyObject *y = PyObject_Vectorcall(empty_fn, args, 2, NULL);
    Py_DECREF(len);
    if (!y) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(y, &v, PyBUF_SIMPLE) != 0) {
        Py_DECREF(y);
        return NULL;
    }
    *ptr = v.buf;
    PyBuffer_Release(&v); /* y keeps its memory */
    return y;
}

/* new_array, releasing the inputs a and b (b may be NULL) where it fails. */
static PyObject *new_output(int t, size_t n, void **ptr, Arr *a, Arr *b)
{
    PyObject *y = new_array(t, n, ptr);
    if (!y) {
        ppy_arr_release(a);
        if (b) ppy_arr_release(b);
    }
    return y;
}

/* The end of every direct call: y (or (y, count)) where st is success, else
 * the status raised and y dropped. a and b are released. */
static PyObject *finish_new(PyObject *y, pp_status st, const char *msg, Arr *a, Arr *b, int counted, uint64_t count)
{
    ppy_arr_release(a);
    if (b) ppy_arr_release(b);
    if (st != PP_SUCCESS) {
        Py_DECREF(y);
        return ppy_raise_status(st, msg);
    }
    if (!counted) return y;
    PyObject *res = Py_BuildValue("(NK)", y, (unsigned long long)count);
    return res;
}

/* sort_new(a, order) -> pp_sort_copy of a into a new array;
 * argsort_new(a, order) -> pp_argsort's uint64 indices in a new int64 array */
static PyObject *sort_like(Ctx *self, PyObject *const *args, Py_ssize_t nargs, int arg)
{
    NARGS(2, "sort_new(a, order)");
    pp_order order;
    if (ppy_order_arg(args[1], &order)) return NULL;
    Arr a;
    if (direct_input(self, args[0], "a", &a)) return NULL;
    const size_t n = (size_t)a.len;
    void *out;
    PyObject *y = new_output(arg ? PP_I64 : a.type, n, &out, &a, NULL);
    if (!y) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, n, st, msg,
               st = arg ? pp_argsort(self->ctx, (pp_type)a.type, a.ptr, n, order, PP_U64, out)
                        : pp_sort_copy(self->ctx, (pp_type)a.type, a.ptr, out, n, order));
    return finish_new(y, st, msg, &a, NULL, 0, 0);
}

PyObject *ppy_Ctx_sort_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    return sort_like(self, args, nargs, 0);
}

PyObject *ppy_Ctx_argsort_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    return sort_like(self, args, nargs, 1);
}

/* scan_new(a, op, exclusive, exact, out_type) -> a new array: pp_scan, or
 * pp_scan_to where out_type (a pp_type) is not a's */
PyObject *ppy_Ctx_scan_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(5, "scan_new(a, op, exclusive, exact, out_type)");
    const int op = ppy_parse_op(args[1]);
    if (op < 0) return NULL;
    const int excl = PyObject_IsTrue(args[2]), exact = PyObject_IsTrue(args[3]);
    if (excl < 0 || exact < 0) return NULL;
    const long ot = PyLong_AsLong(args[4]);
    if (ot == -1 && PyErr_Occurred()) return NULL;
    if (ot < 0 || ot >= PPY_NTYPES || dtypes[ot] == Py_None)
        return ppy_invalid("parprim: scan_new: out_type %ld is no pp_type of a NumPy dtype", ot);
    Arr a;
    if (direct_input(self, args[0], "a", &a)) return NULL;
    const size_t n = (size_t)a.len;
    void *out;
    PyObject *y = new_output((int)ot, n, &out, &a, NULL);
    if (!y) return NULL;
    const pp_scan_kind kind = excl ? PP_EXCLUSIVE : PP_INCLUSIVE;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, n, st, msg, {
        pp_algorithm saved = PP_ALGO_AUTO;
        st = ppy_exact_begin(self->ctx, PP_PRIM_SCAN, exact, &saved);
        if (st == PP_SUCCESS) {
            st = ot == a.type ? pp_scan(self->ctx, (pp_type)a.type, (pp_op)op, kind, a.ptr, out, n)
                              : pp_scan_to(self->ctx, (pp_type)a.type, (pp_type)ot, (pp_op)op, kind, a.ptr, out, n);
            ppy_exact_end(self->ctx, PP_PRIM_SCAN, exact, saved);
        }
    });
    return finish_new(y, st, msg, &a, NULL, 0, 0);
}

/* 1 where a holds a float zero of either sign: NumPy's searchsorted has
 * -0.0 == +0.0, the C call orders -0.0 first, so the package gives such
 * queries the sign that makes the answers NumPy's (_search.py, _zero_side)
 * on its general path. Integers: 0. */
static int has_zero(const Arr *a)
{
    const size_t m = (size_t)a->len;
    if (a->type == PP_F32) {
        const float *x = (const float *)a->ptr;
        for (size_t i = 0; i < m; i++)
            if (x[i] == 0.0f) return 1;
    } else if (a->type == PP_F64) {
        const double *x = (const double *)a->ptr;
        for (size_t i = 0; i < m; i++)
            if (x[i] == 0.0) return 1;
    } else if (a->type == PP_F16) {
        const uint16_t *x = (const uint16_t *)a->ptr;
        for (size_t i = 0; i < m; i++)
            if ((x[i] & 0x7FFF) == 0) return 1;
    }
    return 0;
}

/* search_new(sorted, queries, right, order) -> pp_lower_bound (or
 * pp_upper_bound where right) of queries, a's type, in a new int64 array */
PyObject *ppy_Ctx_search_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "search_new(sorted, queries, right, order)");
    const int right = PyObject_IsTrue(args[2]);
    if (right < 0) return NULL;
    pp_order order;
    if (ppy_order_arg(args[3], &order)) return NULL;
    Arr a, q;
    if (direct_input(self, args[0], "sorted", &a)) return NULL;
    if (direct_input(self, args[1], "queries", &q)) {
        ppy_arr_release(&a);
        return NULL;
    }
    if (q.type != a.type || has_zero(&q)) {
        ppy_arr_release(&a);
        ppy_arr_release(&q);
        ppy_not_direct("queries",
                       q.type != a.type ? "another type than sorted" : "a float zero (its sign is set first)");
        return NULL;
    }
    const size_t n = (size_t)a.len, m = (size_t)q.len;
    void *out;
    PyObject *y = new_output(PP_I64, m, &out, &a, &q);
    if (!y) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, m, st, msg,
               st = (right ? pp_upper_bound : pp_lower_bound)(self->ctx, (pp_type)a.type, a.ptr, n, order, q.ptr, m,
                                                              (uint64_t *)out));
    return finish_new(y, st, msg, &a, &q, 0, 0);
}

/* select_flagged_new(a, flags) -> (new array of len(a), count):
 * pp_select_flagged; flags: bool or uint8, len(a) of them */
PyObject *ppy_Ctx_select_flagged_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(2, "select_flagged_new(a, flags)");
    Arr a, f;
    if (direct_input(self, args[0], "a", &a)) return NULL;
    if (PyLong_Check(args[1]) || ppy_arr_get(args[1], 0, 1, "flags", &f)) {
        ppy_arr_release(&a);
        if (!PyErr_Occurred()) ppy_not_direct("flags", "an address");
        return NULL;
    }
    if (!(f.type == T_BOOL || f.type == PP_U8) || f.len != a.len) {
        ppy_arr_release(&a);
        ppy_arr_release(&f);
        ppy_not_direct("flags", "not bool or uint8 flags of a's length");
        return NULL;
    }
    const size_t n = (size_t)a.len;
    void *out;
    PyObject *y = new_output(a.type, n, &out, &a, &f);
    if (!y) return NULL;
    uint64_t count = 0;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, n, st, msg,
               st = pp_select_flagged(self->ctx, (pp_type)a.type, a.ptr, (const uint8_t *)f.ptr, n, out, &count));
    return finish_new(y, st, msg, &a, &f, 1, count);
}

/* histogram_even_new(a, lower, upper, nbins) -> new uint64 array of nbins
 * counts (pp_histogram_even); bounds that are no values of a's type, and
 * nbins < 1, are _NotDirect (the package's general path takes them) */
PyObject *ppy_Ctx_histogram_even_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "histogram_even_new(a, lower, upper, nbins)");
    const Py_ssize_t nbins = PyLong_AsSsize_t(args[3]);
    if (nbins == -1 && PyErr_Occurred()) return NULL;
    if (nbins < 1) {
        ppy_not_direct("bins", "not positive");
        return NULL;
    }
    Arr a;
    if (direct_input(self, args[0], "a", &a)) return NULL;
    uint64_t lo = 0, hi = 0;
    if (ppy_to_value(args[1], a.type, "lower", &lo) || ppy_to_value(args[2], a.type, "upper", &hi)) {
        PyErr_Clear();
        ppy_arr_release(&a);
        ppy_not_direct("lower", "bounds that are no values of a's type");
        return NULL;
    }
    const size_t n = (size_t)a.len;
    void *out;
    PyObject *y = new_output(PP_U64, (size_t)nbins, &out, &a, NULL);
    if (!y) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, n, st, msg,
               st = pp_histogram_even(self->ctx, (pp_type)a.type, a.ptr, n, &lo, &hi, (size_t)nbins, (uint64_t *)out));
    return finish_new(y, st, msg, &a, NULL, 0, 0);
}

/* unique_new(a) -> (new array of len(a), count): np.unique's values of an
 * integer array: pp_sort_copy into scratch memory, then pp_unique of it.
 * Float arrays are _NotDirect (NaNs and the sign of zero are the package's
 * bookkeeping). */
PyObject *ppy_Ctx_unique_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(1, "unique_new(a)");
    Arr a;
    if (direct_input(self, args[0], "a", &a)) return NULL;
    if (a.type == PP_F16 || a.type == PP_F32 || a.type == PP_F64) {
        ppy_arr_release(&a);
        ppy_not_direct("a", "floats");
        return NULL;
    }
    const size_t n = (size_t)a.len;
    void *out, *s = malloc(n ? n * (size_t)a.itemsize : 1);
    if (!s) {
        ppy_arr_release(&a);
        return PyErr_NoMemory();
    }
    PyObject *y = new_array(a.type, n, &out);
    if (!y) {
        free(s);
        ppy_arr_release(&a);
        return NULL;
    }
    uint64_t count = 0;
    pp_status st;
    char msg[MSG_LEN];
    DIRECT_RUN(self, n, st, msg, {
        st = pp_sort_copy(self->ctx, (pp_type)a.type, a.ptr, s, n, PP_ASCENDING);
        if (st == PP_SUCCESS) st = pp_unique(self->ctx, (pp_type)a.type, s, n, out, &count);
    });
    free(s);
    return finish_new(y, st, msg, &a, NULL, 1, count);
}
