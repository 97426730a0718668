/*
 * parprim._parprim: operators of the user's own (pp_operator_create,
 * pp_reduce_op, pp_scan_op). An Op object is one pp_operator of one
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

/* The array arguments of a call: in (and out) as buffers of the
 * operator's item size or context memory; n == -1: in's length. */
static int op_arrays(OpObj *self, PyObject *in_o, PyObject *out_o, PyObject *n_o, int out_n1, Arr *in, Arr *out,
                     size_t *n)
{
    long long k = PyLong_AsLongLong(n_o);
    if (k == -1 && PyErr_Occurred()) return -1;
    if (ppy_arr_get(in_o, 0, 1, "a", in)) return -1;
    if (ppy_arr_get(out_o, 1, 1, "out", out)) {
        ppy_arr_release(in);
        return -1;
    }
    if (k < 0 && in->len < 0) {
        ppy_invalid("parprim: the length must be given with an address");
    } else {
        *n = k < 0 ? (size_t)in->len : (size_t)k;
        if (ppy_arr_check(in, "a", T_OTHER, self->elem, *n) == 0 &&
            ppy_arr_check(out, "out", T_OTHER, self->elem, out_n1 ? 1 : *n) == 0)
            return 0;
    }
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

static PyMethodDef Op_methods[] = {
    {"reduce", (PyCFunction)(void (*)(void))Op_reduce, METH_FASTCALL, "reduce(a, out, n): pp_reduce_op"},
    {"scan", (PyCFunction)(void (*)(void))Op_scan, METH_FASTCALL, "scan(a, out, exclusive, n): pp_scan_op"},
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
