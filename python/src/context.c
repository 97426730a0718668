/*
 * parprim._parprim: the Context type (a pp_context, its lock and result
 * slot): creation and destruction, properties, memory, algorithm choice,
 * and its method table. The primitives are in primitives.c.
 */
#include "binding.h"

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */
static int Ctx_init(Ctx *self, PyObject *args, PyObject *kwds)
{
    static char *kw[] = {"backend", "device", "threads", NULL};
    int backend = 0, device = 0, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|iii", kw, &backend, &device, &threads)) return -1;
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "parprim: context already initialized");
        return -1;
    }
    if (!self->lock) {
        self->lock = PyThread_allocate_lock();
        if (!self->lock) {
            PyErr_NoMemory();
            return -1;
        }
    }
    pp_options o = PP_OPTIONS_INIT;
    o.backend = (pp_backend)backend;
    o.device = device;
    o.threads = threads;
    pp_context *ctx = NULL;
    pp_status st;
    char msg[MSG_LEN];
    Py_BEGIN_ALLOW_THREADS
    st = pp_create(&ctx, &o);
    if (st != PP_SUCCESS) ppy_copy_msg(msg, pp_last_error(NULL));
    Py_END_ALLOW_THREADS
    if (st != PP_SUCCESS) {
        ppy_raise_status(st, msg);
        return -1;
    }
    self->ctx = ctx;
    self->backend = pp_context_backend(ctx);
    self->device = device;
    return 0;
}

static void ctx_destroy(Ctx *self)
{
    if (self->slot) pp_free(self->ctx, self->slot);
    self->slot = NULL;
    ppy_ops_release(self);
    pp_destroy(self->ctx);
    self->ctx = NULL;
}

static void Ctx_dealloc(Ctx *self)
{
    if (self->ctx) {
        Py_BEGIN_ALLOW_THREADS
        ctx_destroy(self);
        Py_END_ALLOW_THREADS
    }
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Ctx_close(Ctx *self, PyObject *unused)
{
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    if (self->ctx) ctx_destroy(self);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *Ctx_get_backend(Ctx *self, void *c)
{
    (void)c;
    return PyLong_FromLong(self->backend);
}
static PyObject *Ctx_get_device(Ctx *self, void *c)
{
    (void)c;
    return PyLong_FromLong(self->device);
}
static PyObject *Ctx_get_closed(Ctx *self, void *c)
{
    (void)c;
    return PyBool_FromLong(self->ctx == NULL);
}
static PyObject *Ctx_get_threads(Ctx *self, void *c)
{
    (void)c;
    int threads = 0;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        threads = pp_context_threads(self->ctx);
        st = PP_SUCCESS;
    });
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyLong_FromLong(threads);
}
static PyObject *Ctx_get_device_name(Ctx *self, void *c)
{
    (void)c;
    char name[MSG_LEN]; /* copied while the context surely lives */
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        ppy_copy_msg(name, pp_context_device_name(self->ctx));
        st = PP_SUCCESS;
    });
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyUnicode_FromString(name);
}

static PyGetSetDef Ctx_getset[] = {
    {"backend", (getter)Ctx_get_backend, NULL, "the backend (a pp_backend value)", NULL},
    {"device", (getter)Ctx_get_device, NULL, "the device index given at creation", NULL},
    {"closed", (getter)Ctx_get_closed, NULL, "whether close() was called", NULL},
    {"threads", (getter)Ctx_get_threads, NULL, "pp_context_threads", NULL},
    {"device_name", (getter)Ctx_get_device_name, NULL, "pp_context_device_name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- memory ---------------------------------------------------------------- */
/* malloc(nbytes) -> int (an address or cl_mem handle; 0 for nbytes == 0) */
static PyObject *Ctx_malloc(Ctx *self, PyObject *arg)
{
    unsigned long long bytes = PyLong_AsUnsignedLongLong(arg);
    if (bytes == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    void *p = NULL;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_malloc(self->ctx, &p, (size_t)bytes));
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)p);
}

/* free(handle) */
static PyObject *Ctx_free(Ctx *self, PyObject *arg)
{
    unsigned long long h = PyLong_AsUnsignedLongLong(arg);
    if (h == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_free(self->ctx, (void *)(uintptr_t)h));
    if (st == ST_CLOSED) Py_RETURN_NONE; /* freed with the context */
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* upload(dst_handle, src_buffer, nbytes), download(dst_buffer, src_handle,
 * nbytes), copy(dst_handle, src_handle, nbytes); nbytes == -1: the buffer's
 * size. */
static PyObject *transfer(Ctx *self, PyObject *const *args, Py_ssize_t nargs, int kind)
{
    NARGS(3, "upload/download/copy(dst, src, nbytes)");
    long long nb = PyLong_AsLongLong(args[2]);
    if (nb == -1 && PyErr_Occurred()) return NULL;
    Arr d, s;
    if (ppy_arr_get(args[0], kind == 1, 1, "dst", &d)) return NULL;
    if (ppy_arr_get(args[1], 0, 1, "src", &s)) {
        ppy_arr_release(&d);
        return NULL;
    }
    PyObject *res = NULL;
    Arr *buf = kind == 0 ? &s : kind == 1 ? &d : NULL;
    if (buf && !buf->has_view) {
        ppy_invalid("parprim: upload/download need a host buffer");
    } else if (kind == 2 && (d.has_view || s.has_view)) {
        ppy_invalid("parprim: copy takes two addresses of context memory");
    } else if (buf && nb >= 0 && nb > buf->view.len) {
        ppy_invalid("parprim: %lld bytes do not fit the host buffer of %zd bytes", nb, buf->view.len);
    } else {
        size_t bytes = nb >= 0 ? (size_t)nb : buf ? (size_t)buf->view.len : 0;
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = kind == 0 ? pp_upload(self->ctx, d.ptr, s.ptr, bytes)
                    : kind == 1 ? pp_download(self->ctx, d.ptr, s.ptr, bytes)
                                : pp_copy(self->ctx, d.ptr, s.ptr, bytes));
        if (st != PP_SUCCESS) ppy_raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    ppy_arr_release(&d);
    ppy_arr_release(&s);
    return res;
}
static PyObject *Ctx_upload(Ctx *self, PyObject *const *args, Py_ssize_t nargs) { return transfer(self, args, nargs, 0); }
static PyObject *Ctx_download(Ctx *self, PyObject *const *args, Py_ssize_t nargs) { return transfer(self, args, nargs, 1); }
static PyObject *Ctx_copy(Ctx *self, PyObject *const *args, Py_ssize_t nargs) { return transfer(self, args, nargs, 2); }

static PyObject *Ctx_synchronize(Ctx *self, PyObject *unused)
{
    (void)unused;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_synchronize(self->ctx));
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* set_stream(handle): 0 restores the context's own stream */
static PyObject *Ctx_set_stream(Ctx *self, PyObject *arg)
{
    unsigned long long h = PyLong_AsUnsignedLongLong(arg);
    if (h == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_set_stream(self->ctx, (void *)(uintptr_t)h));
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* memory() -> (total, available, max_alloc) */
static PyObject *Ctx_memory(Ctx *self, PyObject *unused)
{
    (void)unused;
    pp_memory_info mi;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_context_memory(self->ctx, &mi));
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return Py_BuildValue("(KKK)", (unsigned long long)mi.total_bytes, (unsigned long long)mi.available_bytes,
                         (unsigned long long)mi.max_alloc_bytes);
}

/* set_algorithm(primitive, algorithm), both ints */
static PyObject *Ctx_set_algorithm(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(2, "set_algorithm(primitive, algorithm)");
    long p = PyLong_AsLong(args[0]), a = PyLong_AsLong(args[1]);
    if ((p == -1 || a == -1) && PyErr_Occurred()) return NULL;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, st = pp_set_algorithm(self->ctx, (pp_primitive)p, (pp_algorithm)a));
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    Py_RETURN_NONE;
}

/* get_algorithm(primitive) -> int */
static PyObject *Ctx_get_algorithm(Ctx *self, PyObject *arg)
{
    long p = PyLong_AsLong(arg);
    if (p == -1 && PyErr_Occurred()) return NULL;
    if (p < 0 || p >= PP_PRIM_COUNT) return ppy_invalid("parprim: primitive %ld out of range", p);
    int algo = 0;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        algo = (int)pp_get_algorithm(self->ctx, (pp_primitive)p);
        st = PP_SUCCESS;
    });
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    return PyLong_FromLong(algo);
}

/* algorithms(primitive) -> [int]: every algorithm pp_set_algorithm accepts
 * for it (the choice is left as it was). */
static PyObject *Ctx_algorithms(Ctx *self, PyObject *arg)
{
    long p = PyLong_AsLong(arg);
    if (p == -1 && PyErr_Occurred()) return NULL;
    if (p < 0 || p >= PP_PRIM_COUNT) return ppy_invalid("parprim: primitive %ld out of range", p);
    int ok[PP_ALGO_COUNT];
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        pp_algorithm keep = pp_get_algorithm(self->ctx, (pp_primitive)p);
        for (int a = 0; a < PP_ALGO_COUNT; a++)
            ok[a] = pp_set_algorithm(self->ctx, (pp_primitive)p, (pp_algorithm)a) == PP_SUCCESS;
        st = pp_set_algorithm(self->ctx, (pp_primitive)p, keep);
    });
    if (st != PP_SUCCESS) return ppy_raise_status(st, msg);
    PyObject *list = PyList_New(0);
    for (int a = 0; list && a < PP_ALGO_COUNT; a++) {
        if (!ok[a]) continue;
        PyObject *v = PyLong_FromLong(a);
        if (!v || PyList_Append(list, v)) {
            Py_XDECREF(v);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(v);
    }
    return list;
}

static PyMethodDef Ctx_methods[] = {
    {"close", (PyCFunction)Ctx_close, METH_NOARGS, "Destroys the context (pp_destroy); later calls raise."},
    {"reduce", (PyCFunction)(void (*)(void))ppy_Ctx_reduce, METH_FASTCALL,
     "reduce(a, op, type, n[, exact[, out_type]]) -> scalar"},
    {"scan", (PyCFunction)(void (*)(void))ppy_Ctx_scan, METH_FASTCALL,
     "scan(a, out, op, exclusive, type, n[, exact[, init[, out_type]]])"},
    {"argext", (PyCFunction)(void (*)(void))ppy_Ctx_argext, METH_FASTCALL, "argext(a, largest, type, n) -> index"},
    {"histogram_even", (PyCFunction)(void (*)(void))ppy_Ctx_histogram_even, METH_FASTCALL,
     "histogram_even(a, counts, lower, upper, nbins, type, n)"},
    {"histogram_range", (PyCFunction)(void (*)(void))ppy_Ctx_histogram_range, METH_FASTCALL,
     "histogram_range(a, counts, edges, nbins, type, n)"},
    {"select_flagged", (PyCFunction)(void (*)(void))ppy_Ctx_select_flagged, METH_FASTCALL,
     "select_flagged(a, flags, out, type, n) -> count"},
    {"select_if", (PyCFunction)(void (*)(void))ppy_Ctx_select_if, METH_FASTCALL,
     "select_if(a, out, cmp, value, type, n) -> count"},
    {"unique", (PyCFunction)(void (*)(void))ppy_Ctx_unique, METH_FASTCALL, "unique(a, out, type, n) -> count"},
    {"partition_if", (PyCFunction)(void (*)(void))ppy_Ctx_partition_if, METH_FASTCALL,
     "partition_if(a, out, cmp, value, type, n) -> count"},
    {"sort_copy", (PyCFunction)(void (*)(void))ppy_Ctx_sort_copy, METH_FASTCALL,
     "sort_copy(keys_in, keys_out, order, type, n); order: a pp_order value"},
    {"sort_pairs_copy", (PyCFunction)(void (*)(void))ppy_Ctx_sort_pairs_copy, METH_FASTCALL,
     "sort_pairs_copy(keys_in, values_in, keys_out, values_out, value_size, order, type, n)"},
    {"argsort", (PyCFunction)(void (*)(void))ppy_Ctx_argsort, METH_FASTCALL,
     "argsort(keys, indices, order, index_type, type, n)"},
    {"segmented_reduce", (PyCFunction)(void (*)(void))ppy_Ctx_segmented_reduce, METH_FASTCALL,
     "segmented_reduce(a, offsets, out, op, nseg, exact, type, n)"},
    {"segmented_scan", (PyCFunction)(void (*)(void))ppy_Ctx_segmented_scan, METH_FASTCALL,
     "segmented_scan(a, out, offsets, op, exclusive, nseg, exact, type, n)"},
    {"segmented_sort", (PyCFunction)(void (*)(void))ppy_Ctx_segmented_sort, METH_FASTCALL,
     "segmented_sort(keys, values or None, offsets, value_size, nseg, order, type, n)"},
    {"reduce_by_key", (PyCFunction)(void (*)(void))ppy_Ctx_reduce_by_key, METH_FASTCALL,
     "reduce_by_key(keys, values, keys_out, values_out, op, value_type, exact, type, n) -> count"},
    {"scan_by_key", (PyCFunction)(void (*)(void))ppy_Ctx_scan_by_key, METH_FASTCALL,
     "scan_by_key(keys, values, out, op, exclusive, value_type, exact, type, n)"},
    {"run_length_encode", (PyCFunction)(void (*)(void))ppy_Ctx_run_length_encode, METH_FASTCALL,
     "run_length_encode(a, values_out, counts_out, type, n) -> count"},
    {"search", (PyCFunction)(void (*)(void))ppy_Ctx_search, METH_FASTCALL,
     "search(sorted, queries, out, right, order, m, type, n)"},
    {"merge", (PyCFunction)(void (*)(void))ppy_Ctx_merge, METH_FASTCALL,
     "merge(a, b, out, a_values or None, b_values, values_out, value_size, order, nb, type, na)"},
    {"top_k", (PyCFunction)(void (*)(void))ppy_Ctx_top_k, METH_FASTCALL,
     "top_k(a, keys_out, indices_out or None, k, order, type, n)"},
    {"sort_new", (PyCFunction)(void (*)(void))ppy_Ctx_sort_new, METH_FASTCALL, "sort_new(a, order) -> new array (direct.c)"},
    {"argsort_new", (PyCFunction)(void (*)(void))ppy_Ctx_argsort_new, METH_FASTCALL, "argsort_new(a, order) -> new int64 array"},
    {"scan_new", (PyCFunction)(void (*)(void))ppy_Ctx_scan_new, METH_FASTCALL, "scan_new(a, op, exclusive, exact, out_type) -> new array"},
    {"search_new", (PyCFunction)(void (*)(void))ppy_Ctx_search_new, METH_FASTCALL, "search_new(sorted, queries, right, order) -> new int64 array"},
    {"select_flagged_new", (PyCFunction)(void (*)(void))ppy_Ctx_select_flagged_new, METH_FASTCALL, "select_flagged_new(a, flags) -> (array, count)"},
    {"histogram_even_new", (PyCFunction)(void (*)(void))ppy_Ctx_histogram_even_new, METH_FASTCALL, "histogram_even_new(a, lower, upper, nbins) -> counts"},
    {"unique_new", (PyCFunction)(void (*)(void))ppy_Ctx_unique_new, METH_FASTCALL, "unique_new(a) -> (array, count)"},
    {"operator_create", (PyCFunction)(void (*)(void))ppy_Ctx_operator_create, METH_FASTCALL,
     "operator_create(source, element_size, identity, commutative) -> Op (operator.c)"},
    {"malloc", (PyCFunction)Ctx_malloc, METH_O, "malloc(nbytes) -> handle"},
    {"free", (PyCFunction)Ctx_free, METH_O, "free(handle)"},
    {"upload", (PyCFunction)(void (*)(void))Ctx_upload, METH_FASTCALL, "upload(dst, src_buffer, nbytes)"},
    {"download", (PyCFunction)(void (*)(void))Ctx_download, METH_FASTCALL, "download(dst_buffer, src, nbytes)"},
    {"copy", (PyCFunction)(void (*)(void))Ctx_copy, METH_FASTCALL, "copy(dst, src, nbytes)"},
    {"synchronize", (PyCFunction)Ctx_synchronize, METH_NOARGS, "pp_synchronize"},
    {"set_stream", (PyCFunction)Ctx_set_stream, METH_O, "set_stream(handle); 0: the context's own"},
    {"memory", (PyCFunction)Ctx_memory, METH_NOARGS, "memory() -> (total, available, max_alloc)"},
    {"set_algorithm", (PyCFunction)(void (*)(void))Ctx_set_algorithm, METH_FASTCALL,
     "set_algorithm(primitive, algorithm)"},
    {"get_algorithm", (PyCFunction)Ctx_get_algorithm, METH_O, "get_algorithm(primitive) -> algorithm"},
    {"algorithms", (PyCFunction)Ctx_algorithms, METH_O, "algorithms(primitive) -> [algorithm]"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject ppy_CtxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "parprim._parprim.Context",
    .tp_basicsize = sizeof(Ctx),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(backend=0, device=0, threads=0): a pp_context (low level; use parprim.Context)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Ctx_init,
    .tp_dealloc = (destructor)Ctx_dealloc,
    .tp_methods = Ctx_methods,
    .tp_getset = Ctx_getset,
};
