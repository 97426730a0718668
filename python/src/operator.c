/*
 * parprim._parprim: operators of the user's own (pp_operator_create,
 * pp_reduce_op, pp_scan_op, and the segmented and by-key forms
 * pp_segmented_reduce_op .. pp_scan_by_key_op). An Op object is one pp_operator of one
 * context: it holds a reference to its Ctx (so the context is not
 * destroyed under it), and the Ctx lists its live Ops so that close()
 * destroys them before pp_destroy (then the Op's calls raise "closed").
 * The list is changed and walked only with the context's lock held.
 */
#include "binding.h"

struct OpObj {
    PyObject_HEAD Ctx *owner;
    pp_operator *op; /* NULL once the context is closed */
    size_t elem;
    struct OpObj *prev, *next; /* in owner->ops */
};
typedef struct OpObj OpObj;

/* With the owner's lock held: destroys every operator of the context
 * (context.c's ctx_destroy, before pp_destroy). */
void ppy_ops_release(Ctx *c)
{
    for (OpObj *o = c->ops; o; o = o->next) {
        pp_operator_destroy(o->op);
        o->op = NULL;
    }
}

static void Op_dealloc(OpObj *self)
{
    Ctx *c = self->owner;
    if (c) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(c->lock, WAIT_LOCK);
        if (self->prev)
            self->prev->next = self->next;
        else if (c->ops == self)
            c->ops = self->next;
        if (self->next) self->next->prev = self->prev;
        pp_operator_destroy(self->op);
        PyThread_release_lock(c->lock);
        Py_END_ALLOW_THREADS Py_DECREF(c);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Runs body (setting st) on the Op's context, as LOCKED does, with
 * ST_CLOSED where close() destroyed the operator. */
#define OP_LOCKED(self, st, msg, body) \
    LOCKED((self)->owner, st, msg, {   \
        if (!(self)->op) {             \
            st = ST_CLOSED;            \
            msg[0] = 0;                \
        } else {                       \
            body;                      \
        }                              \
    })

/* n: the given count, or (-1) the first array's length in elements. */
static int op_count(const Arr *first, PyObject *n_o, size_t *n)
{
    long long k = PyLong_AsLongLong(n_o);
    if (k == -1 && PyErr_Occurred()) return -1;
    if (k < 0 && first->len < 0) {
        ppy_invalid("parprim: the length must be given with an address");
        return -1;
    }
    *n = k < 0 ? (size_t)first->len : (size_t)k;
    return 0;
}

/* The array arguments of a call: in (and out) as buffers of the
 * operator's item size or context memory; n == -1: in's length. */
static int op_arrays(OpObj *self, PyObject *in_o, PyObject *out_o, PyObject *n_o, int out_n1, Arr *in, Arr *out,
                     size_t *n)
{
    if (ppy_arr_get(in_o, 0, 1, "a", in)) return -1;
    if (ppy_arr_get(out_o, 1, 1, "out", out)) {
        ppy_arr_release(in);
        return -1;
    }
    if (op_count(in, n_o, n) == 0 && ppy_arr_check(in, "a", T_OTHER, self->elem, *n) == 0 &&
        ppy_arr_check(out, "out", T_OTHER, self->elem, out_n1 ? 1 : *n) == 0)
        return 0;
    ppy_arr_release(in);
    ppy_arr_release(out);
    return -1;
}

/* reduce(a, out, n): out[0] = a[0] . ... . a[n-1], the identity for n == 0
 * (pp_reduce_op). */
static PyObject *Op_reduce(OpObj *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(3, "Op.reduce(a, out, n)");
    Arr in, out;
    size_t n = 0;
    if (op_arrays(self, args[0], args[1], args[2], 1, &in, &out, &n)) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    OP_LOCKED(self, st, msg, st = pp_reduce_op(self->owner->ctx, self->op, in.ptr, n, out.ptr));
    ppy_arr_release(&in);
    ppy_arr_release(&out);
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* scan(a, out, exclusive, n): pp_scan_op (out may be a: in place). */
static PyObject *Op_scan(OpObj *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "Op.scan(a, out, exclusive, n)");
    int excl = PyObject_IsTrue(args[2]);
    if (excl < 0) return NULL;
    Arr in, out;
    size_t n = 0;
    if (op_arrays(self, args[0], args[1], args[3], 0, &in, &out, &n)) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    OP_LOCKED(self, st, msg,
              st = pp_scan_op(self->owner->ctx, self->op, excl ? PP_EXCLUSIVE : PP_INCLUSIVE, in.ptr, out.ptr, n));
    ppy_arr_release(&in);
    ppy_arr_release(&out);
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* The segmented and by-key forms: one call, its arguments read (the
 * arrays in a[], in the order each method takes them). */
enum { SEG_REDUCE, SEG_SCAN, REDUCE_BY_KEY, SCAN_BY_KEY };
typedef struct {
    int which, excl, key_type;
    size_t n, nseg;
} OpCall;

static pp_status op_dispatch(pp_context *ctx, const pp_operator *op, const OpCall *c, const Arr *a, uint64_t *cnt)
{
    const pp_scan_kind kind = c->excl ? PP_EXCLUSIVE : PP_INCLUSIVE;
    switch (c->which) {
    case SEG_REDUCE:
        return pp_segmented_reduce_op(ctx, op, a[0].ptr, c->n, (const uint64_t *)a[1].ptr, c->nseg, a[2].ptr);
    case SEG_SCAN:
        return pp_segmented_scan_op(ctx, op, kind, a[0].ptr, a[1].ptr, c->n, (const uint64_t *)a[2].ptr, c->nseg);
    case REDUCE_BY_KEY:
        return pp_reduce_by_key_op(ctx, (pp_type)c->key_type, op, a[0].ptr, a[1].ptr, c->n, a[2].ptr, a[3].ptr, cnt);
    default:
        return pp_scan_by_key_op(ctx, (pp_type)c->key_type, op, kind, a[0].ptr, a[1].ptr, a[2].ptr, c->n);
    }
}

/* Runs c where its arguments passed their checks (ok), then releases the k
 * arrays. Returns None, or reduce_by_key's count of runs (read from the
 * context's result slot). */
static PyObject *op_finish(OpObj *self, const OpCall *c, int ok, Arr *a, int k)
{
    if (!ok) {
        ppy_release_arrays(a, k);
        return NULL;
    }
    const int counted = c->which == REDUCE_BY_KEY;
    uint64_t local[2] = {0, 0};
    pp_status st;
    char msg[MSG_LEN];
    OP_LOCKED(self, st, msg, {
        void *cnt = NULL;
        st = counted ? ppy_result_slot(self->owner, local, &cnt) : PP_SUCCESS;
        if (st == PP_SUCCESS) st = op_dispatch(self->owner->ctx, self->op, c, a, (uint64_t *)cnt);
        if (st == PP_SUCCESS && counted) st = ppy_result_fetch(self->owner, local, sizeof(uint64_t));
    });
    return ppy_call_result(st, msg, counted, local[0], a, k);
}

/* -1 with TypeError where a method of signature sig got nargs != want */
static int op_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *sig)
{
    if (nargs == want) return 0;
    PyErr_Format(PyExc_TypeError, "_parprim.Op.%s takes %zd arguments", sig, want);
    return -1;
}

/* segmented_reduce(a, offsets, out, nseg, n) and segmented_scan(a, out,
 * offsets, exclusive, nseg, n): pp_segmented_reduce_op (out: nseg
 * elements) and pp_segmented_scan_op (out: n elements, or a itself) */
static PyObject *op_segmented(OpObj *self, PyObject *const *args, Py_ssize_t nargs, int scan)
{
    static const char *const sig[2] = {"segmented_reduce(a, offsets, out, nseg, n)",
                                       "segmented_scan(a, out, offsets, exclusive, nseg, n)"};
    if (op_nargs(nargs, 5 + scan, sig[scan])) return NULL;
    OpCall c = {.which = scan ? SEG_SCAN : SEG_REDUCE};
    if (scan && (c.excl = PyObject_IsTrue(args[3])) < 0) return NULL;
    if (ppy_size_arg(args[3 + scan], "nseg", &c.nseg)) return NULL;
    static const ArgSpec reduce_spec[3] = {{"a", 0, 1}, {"offsets", 0, 0}, {"out", 1, 1}};
    static const ArgSpec scan_spec[3] = {{"a", 0, 1}, {"out", 1, 1}, {"offsets", 0, 0}};
    Arr a[3];
    if (ppy_get_arrays(args, scan ? scan_spec : reduce_spec, 3, a)) return NULL;
    const int out = scan ? 1 : 2;
    int ok = op_count(&a[0], args[4 + scan], &c.n) == 0 && ppy_arr_check(&a[0], "a", T_OTHER, self->elem, c.n) == 0 &&
             ppy_arr_check(&a[3 - out], "offsets", PP_U64, 0, c.nseg + 1) == 0 &&
             ppy_arr_check(&a[out], "out", T_OTHER, self->elem, scan ? c.n : c.nseg) == 0;
    return op_finish(self, &c, ok, a, 3);
}

/* reduce_by_key(keys, values, keys_out, values_out, type, n) -> count and
 * scan_by_key(keys, values, out, exclusive, type, n): pp_reduce_by_key_op
 * and pp_scan_by_key_op, keys of pp_type type (-1: the keys' buffer's) */
static PyObject *op_by_key(OpObj *self, PyObject *const *args, Py_ssize_t nargs, int scan)
{
    static const char *const sig[2] = {"reduce_by_key(keys, values, keys_out, values_out, type, n)",
                                       "scan_by_key(keys, values, out, exclusive, type, n)"};
    if (op_nargs(nargs, 6, sig[scan])) return NULL;
    OpCall c = {.which = scan ? SCAN_BY_KEY : REDUCE_BY_KEY};
    if (scan && (c.excl = PyObject_IsTrue(args[3])) < 0) return NULL;
    /* the scan: keys, values, out; the reduce: keys, values, keys_out, values_out */
    const ArgSpec spec[4] = {
        {"keys", 0, 0}, {"values", 0, 1}, {scan ? "out" : "keys_out", 1, scan}, {"values_out", 1, 1}};
    const int k = 4 - scan;
    Arr a[4];
    if (ppy_get_arrays(args, spec, k, a)) return NULL;
    int ok = ppy_first_array(&a[0], args[4], args[5], &c.key_type, &c.n) == 0 &&
             ppy_arr_check(&a[1], "values", T_OTHER, self->elem, c.n) == 0 &&
             (scan ? ppy_arr_check(&a[2], "out", T_OTHER, self->elem, c.n) == 0
                   : ppy_arr_check(&a[2], "keys_out", c.key_type, 0, c.n) == 0 &&
                         ppy_arr_check(&a[3], "values_out", T_OTHER, self->elem, c.n) == 0);
    return op_finish(self, &c, ok, a, k);
}

/* The methods over op_segmented and op_by_key (scan: 0 or 1). */
#define OP_METHOD(name, helper, scan)                                           \
    static PyObject *name(OpObj *self, PyObject *const *args, Py_ssize_t nargs) \
    {                                                                           \
        return helper(self, args, nargs, scan);                                 \
    }
OP_METHOD(Op_segmented_reduce, op_segmented, 0)
OP_METHOD(Op_segmented_scan, op_segmented, 1)
OP_METHOD(Op_reduce_by_key, op_by_key, 0)
OP_METHOD(Op_scan_by_key, op_by_key, 1)

static PyMethodDef Op_methods[] = {
    {"reduce", (PyCFunction)(void (*)(void))Op_reduce, METH_FASTCALL, "reduce(a, out, n): pp_reduce_op"},
    {"scan", (PyCFunction)(void (*)(void))Op_scan, METH_FASTCALL, "scan(a, out, exclusive, n): pp_scan_op"},
    {"segmented_reduce", (PyCFunction)(void (*)(void))Op_segmented_reduce, METH_FASTCALL,
     "segmented_reduce(a, offsets, out, nseg, n): pp_segmented_reduce_op"},
    {"segmented_scan", (PyCFunction)(void (*)(void))Op_segmented_scan, METH_FASTCALL,
     "segmented_scan(a, out, offsets, exclusive, nseg, n): pp_segmented_scan_op"},
    {"reduce_by_key", (PyCFunction)(void (*)(void))Op_reduce_by_key, METH_FASTCALL,
     "reduce_by_key(keys, values, keys_out, values_out, type, n) -> count: pp_reduce_by_key_op"},
    {"scan_by_key", (PyCFunction)(void (*)(void))Op_scan_by_key, METH_FASTCALL,
     "scan_by_key(keys, values, out, exclusive, type, n): pp_scan_by_key_op"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ppy_OpType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "parprim._parprim.Op",
    .tp_basicsize = sizeof(OpObj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A pp_operator of one context (made by Context.operator_create; use parprim.Operator)",
    .tp_dealloc = (destructor)Op_dealloc,
    .tp_methods = Op_methods,
};

/* Context.operator_create(source, element_size, identity, commutative) ->
 * Op: pp_operator_create (the text compiled now; a compile error raises
 * InvalidArgument with the compiler's message). identity: a buffer of
 * element_size bytes. */
PyObject *ppy_Ctx_operator_create(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "operator_create(source, element_size, identity, commutative)");
    const char *source = PyUnicode_AsUTF8(args[0]);
    if (!source) return NULL;
    Py_ssize_t elem = PyLong_AsSsize_t(args[1]);
    if (elem == -1 && PyErr_Occurred()) return NULL;
    int comm = PyObject_IsTrue(args[3]);
    if (comm < 0) return NULL;
    Py_buffer id;
    if (PyObject_GetBuffer(args[2], &id, PyBUF_SIMPLE)) return NULL;
    if (elem < 0 || id.len != elem) {
        PyBuffer_Release(&id);
        return ppy_invalid("parprim: the identity has %zd bytes, the element %zd", id.len, elem);
    }
    OpObj *o = PyObject_New(OpObj, &ppy_OpType);
    if (!o) {
        PyBuffer_Release(&id);
        return NULL;
    }
    o->owner = NULL;
    o->op = NULL;
    o->elem = (size_t)elem;
    o->prev = o->next = NULL;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        st = pp_operator_create(self->ctx, source, (size_t)elem, id.buf, comm, &o->op);
        if (st == PP_SUCCESS) { /* listed for close() */
            o->next = self->ops;
            if (self->ops) self->ops->prev = o;
            self->ops = o;
        }
    });
    PyBuffer_Release(&id);
    if (st != PP_SUCCESS) {
        Py_DECREF(o);
        return ppy_raise_status(st, msg);
    }
    o->owner = (Ctx *)Py_NewRef((PyObject *)self);
    return (PyObject *)o;
}
