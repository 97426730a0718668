/*
 * parprim._parprim: the exception classes (and the mapping of pp_status to
 * them), the module's functions and PyInit__parprim. See binding.h.
 */
#include "binding.h"

#ifdef PP_PY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* ------------------------------------------------------------------------ */
/* Exceptions                                                               */
/* ------------------------------------------------------------------------ */
static PyObject *Error, *InvalidArgument, *Unsupported, *OutOfMemory, *BackendUnavailable,
    *BackendError, *NotDirect;


static PyObject *status_class(pp_status st)
{
    switch ((int)st) {
    case PP_ERROR_INVALID_ARGUMENT: return InvalidArgument;
    case PP_ERROR_UNSUPPORTED: return Unsupported;
    case PP_ERROR_OUT_OF_MEMORY: return OutOfMemory;
    case PP_ERROR_BACKEND_UNAVAILABLE: return BackendUnavailable;
    case PP_ERROR_BACKEND: return BackendError;
    case (int)ST_CLOSED: return InvalidArgument;
    default: return Error;
    }
}

/* Raises the exception of st with message msg; the instance carries the
 * status as .status (an int). Returns NULL. */
PyObject *ppy_raise_status(pp_status st, const char *msg)
{
    PyObject *cls = status_class(st);
    if (st == ST_CLOSED) msg = "parprim: the context is closed";
    if (!msg || !*msg) msg = pp_status_string(st);
    PyObject *exc = PyObject_CallFunction(cls, "s", msg);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong(st == ST_CLOSED ? PP_ERROR_INVALID_ARGUMENT : (long)st);
    if (code) {
        PyObject_SetAttrString(exc, "status", code);
        Py_DECREF(code);
    }
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

PyObject *ppy_invalid(const char *fmt, ...)
{
    char msg[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ppy_raise_status(PP_ERROR_INVALID_ARGUMENT, msg);
}

void ppy_copy_msg(char *dst, const char *src)
{
    size_t k = src ? strlen(src) : 0;
    if (k >= MSG_LEN) k = MSG_LEN - 1;
    if (k) memcpy(dst, src, k);
    dst[k] = 0;
}

/* Raises the private _NotDirect (see binding.h). Returns -1. */
int ppy_not_direct(const char *name, const char *why)
{
    PyErr_Format(NotDirect, "argument '%s': %s", name, why);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Module functions                                                         */
/* ------------------------------------------------------------------------ */
static PyObject *py_version(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyLong_FromUnsignedLong(pp_version());
}

static PyObject *py_backend_status(PyObject *m, PyObject *arg)
{
    (void)m;
    long b = PyLong_AsLong(arg);
    if (b == -1 && PyErr_Occurred()) return NULL;
    pp_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pp_backend_status((pp_backend)b);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(st);
}

static PyObject *py_status_string(PyObject *m, PyObject *arg)
{
    (void)m;
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(pp_status_string((pp_status)s));
}

/* pointer_device(address) -> the CUDA device an address belongs to, or -1
 * (not CUDA memory, or no CUDA in this build). */
static PyObject *py_pointer_device(PyObject *m, PyObject *arg)
{
    (void)m;
    unsigned long long a = PyLong_AsUnsignedLongLong(arg);
    if (a == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    int dev = -1;
#ifdef PP_PY_HAVE_CUDA
    struct cudaPointerAttributes attr;
    cudaError_t e;
    Py_BEGIN_ALLOW_THREADS
    e = cudaPointerGetAttributes(&attr, (const void *)(uintptr_t)a);
    Py_END_ALLOW_THREADS
    if (e == cudaSuccess && (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged))
        dev = attr.device;
    else
        cudaGetLastError();
#else
    (void)a;
#endif
    return PyLong_FromLong(dev);
}

static PyMethodDef module_methods[] = {
    {"version", py_version, METH_NOARGS, "pp_version() as MAJOR*10000 + MINOR*100 + PATCH"},
    {"backend_status", py_backend_status, METH_O, "pp_backend_status(backend) -> pp_status"},
    {"status_string", py_status_string, METH_O, "pp_status_string(status)"},
    {"_set_scalar_arrays", ppy_set_scalar_arrays, METH_O, "one-element NumPy arrays in pp_type order"},
    {"_set_allocator", (PyCFunction)(void (*)(void))ppy_set_allocator, METH_FASTCALL,
     "_set_allocator(empty, dtypes): the direct calls' np.empty and dtypes in pp_type order"},
    {"dlpack_info", ppy_dlpack_info, METH_O, "dlpack_info(capsule) -> tuple (not consumed)"},
    {"make_dlpack", (PyCFunction)(void (*)(void))ppy_make_dlpack, METH_FASTCALL,
     "make_dlpack(owner, address, n, code, bits, device_type, device_id) -> capsule"},
    {"pointer_device", py_pointer_device, METH_O, "CUDA device of an address, or -1"},
    {"time_reduce", (PyCFunction)(void (*)(void))ppy_time_reduce, METH_FASTCALL,
     "time_reduce(context, a, op, iterations[, type, n]) -> seconds per C call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_parprim", "The C binding of parprim (use the package parprim).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

/* A new exception class parprim.<name>, added to the module; its class
 * attribute status is the pp_status it stands for (None for Error). */
static PyObject *new_error(PyObject *mod, const char *name, int status, const char *doc, PyObject *b1,
                           PyObject *b2)
{
    char full[64];
    PyOS_snprintf(full, sizeof full, "parprim.%s", name);
    PyObject *bases = b2 ? PyTuple_Pack(2, b1, b2) : PyTuple_Pack(1, b1);
    if (!bases) return NULL;
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls) return NULL;
    PyObject *st = status < 0 ? Py_NewRef(Py_None) : PyLong_FromLong(status);
    if (!st || PyObject_SetAttrString(cls, "status", st)) {
        Py_XDECREF(st);
        Py_DECREF(cls);
        return NULL;
    }
    Py_DECREF(st);
    if (PyModule_AddObject(mod, name, Py_NewRef(cls))) {
        Py_DECREF(cls);
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

PyMODINIT_FUNC PyInit__parprim(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (PyType_Ready(&ppy_CtxType) < 0 || PyType_Ready(&ppy_OpType) < 0) goto fail;
    if (PyModule_AddObject(m, "Context", Py_NewRef((PyObject *)&ppy_CtxType))) goto fail;
    if (!(Error = new_error(m, "Error", -1,
                            "Base of every parprim error; carries pp_last_error's message and .status "
                            "(the pp_status value).",
                            PyExc_Exception, NULL)))
        goto fail;
    if (!(InvalidArgument = new_error(m, "InvalidArgument", PP_ERROR_INVALID_ARGUMENT,
                                      "PP_ERROR_INVALID_ARGUMENT: a bad argument (type, size, name, overlap); "
                                      "nothing was written.",
                                      Error, PyExc_ValueError)))
        goto fail;
    if (!(Unsupported = new_error(m, "Unsupported", PP_ERROR_UNSUPPORTED,
                                  "PP_ERROR_UNSUPPORTED: valid, but this backend or algorithm cannot serve it.",
                                  Error, PyExc_NotImplementedError)))
        goto fail;
    if (!(OutOfMemory = new_error(m, "OutOfMemory", PP_ERROR_OUT_OF_MEMORY,
                                  "PP_ERROR_OUT_OF_MEMORY: host or device memory ran out.", Error,
                                  PyExc_MemoryError)))
        goto fail;
    if (!(BackendUnavailable = new_error(m, "BackendUnavailable", PP_ERROR_BACKEND_UNAVAILABLE,
                                         "PP_ERROR_BACKEND_UNAVAILABLE: the backend is built in but finds no "
                                         "usable device.",
                                         Error, NULL)))
        goto fail;
    if (!(BackendError = new_error(m, "BackendError", PP_ERROR_BACKEND,
                                   "PP_ERROR_BACKEND: the backend's runtime (CUDA, OpenCL) reported an error.",
                                   Error, NULL)))
        goto fail;
    if (!(NotDirect = new_error(m, "_NotDirect", -1,
                                "Private: an argument cannot be used in place (the package copies or "
                                "reports it).",
                                PyExc_Exception, NULL)))
        goto fail;
    if (ppy_add_names(m)) goto fail;
    /* pp_order's values (the package's sort orders) and PP_SUCCESS */
    if (PyModule_AddIntConstant(m, "ASCENDING", PP_ASCENDING) ||
        PyModule_AddIntConstant(m, "DESCENDING", PP_DESCENDING) ||
        PyModule_AddIntConstant(m, "DESCENDING_NAN_LAST", PP_DESCENDING_NAN_LAST) ||
        PyModule_AddIntConstant(m, "SUCCESS", PP_SUCCESS))
        goto fail;
    if (PyModule_AddIntConstant(m, "HAVE_CUDA_RUNTIME",
#ifdef PP_PY_HAVE_CUDA
                                1
#else
                                0
#endif
                                ))
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
