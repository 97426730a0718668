/*
 * parprim._parprim: the thin CPython binding of include/parprim.h.
 *
 * What lives here: contexts (pp_create .. pp_destroy), the primitives, memory
 * (pp_malloc, pp_upload, pp_download, pp_copy), algorithm choice, and the
 * mapping of pp_status to the exception classes. The Python package
 * (python/parprim/) does everything else: dtype checks with friendly
 * messages, output allocation, NumPy/CuPy/DLPack arrays, staging of NumPy
 * arrays through GPU memory, NumPy-compatible conveniences.
 *
 * Array arguments of the primitives are either
 *   - an object with the buffer protocol (a NumPy array, a memoryview): host
 *     memory, used in place. It must be C-contiguous, aligned to its item
 *     size and of native byte order; its element type comes from its format;
 *     otherwise the call raises _NotDirect (a private exception: the Python
 *     layer then copies the array once or reports a clear error), or
 *   - an int: an address or handle in the context's memory (a device pointer
 *     on cuda, a cl_mem on opencl), whose element type and length the caller
 *     passes (type, n).
 * type == -1 and n == -1 take both from the first array's buffer.
 *
 * Every library call runs with the GIL released (Py_BEGIN_ALLOW_THREADS),
 * under a per-context lock: the library allows one thread at a time per
 * context, and a Python Context object may be shared by threads. The lock is
 * only ever taken with the GIL released, so the two never deadlock. The
 * error message (pp_last_error) is copied while the lock is held.
 *
 * Arguments are positional only (METH_FASTCALL): the Python layer always
 * calls with every argument, which keeps the per-call cost near 0.1 us.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "parprim.h"

#ifdef PP_PY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
#endif

/* ------------------------------------------------------------------------ */
/* Exceptions                                                               */
/* ------------------------------------------------------------------------ */
static PyObject *Error, *InvalidArgument, *Unsupported, *OutOfMemory, *BackendUnavailable,
    *BackendError, *NotDirect;

/* A one-element NumPy array of each pp_type and its data (set by the package
 * at import, so that this module needs no NumPy headers): a single result
 * is copied into it and returned as arr[0], a NumPy scalar of that type,
 * bits unchanged (40 ns, where calling numpy.float32(x) takes 150-200 ns).
 * Copy and read happen under the GIL, so threads never see each other's
 * value. NULL: results are Python numbers. */
static PyObject *scalar_arrays[PP_TYPE_COUNT];
static Py_buffer scalar_views[PP_TYPE_COUNT];

#define MSG_LEN 1024
/* Status of an operation on a context that close() has destroyed. */
#define ST_CLOSED ((pp_status)1000)

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
static PyObject *raise_status(pp_status st, const char *msg)
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

static PyObject *invalid(const char *fmt, ...)
{
    char msg[MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return raise_status(PP_ERROR_INVALID_ARGUMENT, msg);
}

static void copy_msg(char *dst, const char *src)
{
    size_t k = src ? strlen(src) : 0;
    if (k >= MSG_LEN) k = MSG_LEN - 1;
    if (k) memcpy(dst, src, k);
    dst[k] = 0;
}

/* ------------------------------------------------------------------------ */
/* Element values                                                           */
/* ------------------------------------------------------------------------ */
static int type_is_float(int t) { return t == PP_F32 || t == PP_F64; }
static int type_is_signed(int t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }

/* A value of type t (at p) as a NumPy scalar of that type. */
static PyObject *make_scalar(int t, const void *p)
{
    if (t >= 0 && t < PP_TYPE_COUNT && scalar_arrays[t]) {
        memcpy(scalar_views[t].buf, p, pp_type_size((pp_type)t));
        return PySequence_GetItem(scalar_arrays[t], 0);
    }
    PyObject *v;
    switch (t) {
    case PP_I8: v = PyLong_FromLong(*(const int8_t *)p); break;
    case PP_U8: v = PyLong_FromLong(*(const uint8_t *)p); break;
    case PP_I16: v = PyLong_FromLong(*(const int16_t *)p); break;
    case PP_U16: v = PyLong_FromLong(*(const uint16_t *)p); break;
    case PP_I32: v = PyLong_FromLong(*(const int32_t *)p); break;
    case PP_U32: v = PyLong_FromUnsignedLong(*(const uint32_t *)p); break;
    case PP_I64: v = PyLong_FromLongLong(*(const int64_t *)p); break;
    case PP_U64: v = PyLong_FromUnsignedLongLong(*(const uint64_t *)p); break;
    case PP_F32: v = PyFloat_FromDouble(*(const float *)p); break;
    case PP_F64: v = PyFloat_FromDouble(*(const double *)p); break;
    default: return invalid("parprim: element type %d out of range", t);
    }
    return v;
}

/* Converts a Python number to one value of type t at dst (8 bytes). Integer
 * types take integers (or floats with an integral value) that the type
 * holds exactly; float types take any real number (rounded to f32 for
 * f32, as NumPy compares a float32 array with a Python float). */
static int to_value(PyObject *o, int t, const char *name, void *dst)
{
    if (type_is_float(t)) {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            invalid("parprim: argument '%s' must be a real number, not %.100s", name, Py_TYPE(o)->tp_name);
            return -1;
        }
        if (t == PP_F32) {
            float f = (float)d;
            memcpy(dst, &f, sizeof f);
        } else {
            memcpy(dst, &d, sizeof d);
        }
        return 0;
    }
    PyObject *i = PyNumber_Index(o);
    if (!i) {
        PyErr_Clear();
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            invalid("parprim: argument '%s' must be an integer, not %.100s", name, Py_TYPE(o)->tp_name);
            return -1;
        }
        if (!isfinite(d) || d != floor(d)) {
            invalid("parprim: argument '%s' = %g is not a value of the integer element type %s", name, d,
                    pp_type_name((pp_type)t));
            return -1;
        }
        i = PyLong_FromDouble(d);
        if (!i) return -1;
    }
    int bad = 0;
    if (type_is_signed(t)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            bad = 1;
        } else if (t == PP_I8) {
            bad = v < INT8_MIN || v > INT8_MAX;
            int8_t x = (int8_t)v;
            memcpy(dst, &x, 1);
        } else if (t == PP_I16) {
            bad = v < INT16_MIN || v > INT16_MAX;
            int16_t x = (int16_t)v;
            memcpy(dst, &x, 2);
        } else if (t == PP_I32) {
            bad = v < INT32_MIN || v > INT32_MAX;
            int32_t x = (int32_t)v;
            memcpy(dst, &x, 4);
        } else {
            int64_t x = (int64_t)v;
            memcpy(dst, &x, 8);
        }
    } else {
        unsigned long long v = PyLong_AsUnsignedLongLong(i);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            bad = 1;
        } else if (t == PP_U8) {
            bad = v > UINT8_MAX;
            uint8_t x = (uint8_t)v;
            memcpy(dst, &x, 1);
        } else if (t == PP_U16) {
            bad = v > UINT16_MAX;
            uint16_t x = (uint16_t)v;
            memcpy(dst, &x, 2);
        } else if (t == PP_U32) {
            bad = v > UINT32_MAX;
            uint32_t x = (uint32_t)v;
            memcpy(dst, &x, 4);
        } else {
            uint64_t x = (uint64_t)v;
            memcpy(dst, &x, 8);
        }
    }
    if (bad) {
        PyObject *r = PyObject_Repr(i);
        invalid("parprim: argument '%s' = %s does not fit the element type %s", name,
                r ? PyUnicode_AsUTF8(r) : "?", pp_type_name((pp_type)t));
        Py_XDECREF(r);
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */
/* ------------------------------------------------------------------------ */
static int parse_name(PyObject *o, const char *what, const char *const *names, int count)
{
    if (!PyUnicode_Check(o)) {
        invalid("parprim: %s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (PyUnicode_CompareWithASCIIString(o, names[i]) == 0) return i;
    char list[128] = "";
    for (int i = 0; i < count; i++) {
        strcat(list, i ? ", '" : "'");
        strcat(list, names[i]);
        strcat(list, "'");
    }
    PyObject *m = PyUnicode_FromFormat("parprim: %s %R is not one of %s", what, o, list);
    if (!m) return -1;
    raise_status(PP_ERROR_INVALID_ARGUMENT, PyUnicode_AsUTF8(m));
    Py_DECREF(m);
    return -1;
}

static const char *const OP_NAMES[PP_OP_COUNT] = {"sum", "prod", "min", "max", "and", "or", "xor"};
static const char *const CMP_NAMES[6] = {"<", "<=", ">", ">=", "==", "!="};

static int parse_op(PyObject *o) { return parse_name(o, "op", OP_NAMES, PP_OP_COUNT); }
static int parse_cmp(PyObject *o) { return parse_name(o, "cmp", CMP_NAMES, 6); }

/* ------------------------------------------------------------------------ */
/* Array arguments                                                          */
/* ------------------------------------------------------------------------ */
#define T_BOOL 100 /* a one-byte bool buffer (flags only) */
#define T_OTHER 101 /* a buffer of some other element type (values of sort_pairs only) */

typedef struct {
    void *ptr;
    Py_ssize_t len;      /* elements in the buffer; -1 for a handle */
    Py_ssize_t itemsize; /* of the buffer; 0 for a handle */
    int type;            /* pp_type, T_BOOL or T_OTHER; -1 for a handle */
    int has_view;
    Py_buffer view;
} Arr;

static void arr_release(Arr *a)
{
    if (a->has_view) {
        PyBuffer_Release(&a->view);
        a->has_view = 0;
    }
}

/* The element type of a buffer format and item size; -1 if it is none of
 * ours, or of non-native byte order. */
static int format_type(const char *f, Py_ssize_t itemsize)
{
    if (!f) return itemsize == 1 ? PP_U8 : -1; /* "B" is implied */
    if (*f == '@' || *f == '=') f++;
#if PY_LITTLE_ENDIAN
    else if (*f == '<') f++;
#else
    else if (*f == '>' || *f == '!') f++;
#endif
    if (!f[0] || f[1]) return -1;
    int sig, uns, flt = 0;
    switch (f[0]) {
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': sig = 1; uns = 0; break;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': sig = 0; uns = 1; break;
    case 'f': case 'd': sig = 0; uns = 0; flt = 1; break;
    case '?': return itemsize == 1 ? T_BOOL : -1;
    default: return -1;
    }
    if (flt) return itemsize == 4 && f[0] == 'f' ? PP_F32 : itemsize == 8 && f[0] == 'd' ? PP_F64 : -1;
    switch (itemsize) {
    case 1: return sig ? PP_I8 : uns ? PP_U8 : -1;
    case 2: return sig ? PP_I16 : PP_U16;
    case 4: return sig ? PP_I32 : PP_U32;
    case 8: return sig ? PP_I64 : PP_U64;
    }
    return -1;
}

static int not_direct(const char *name, const char *why)
{
    PyErr_Format(NotDirect, "argument '%s': %s", name, why);
    return -1;
}

/* Reads an array argument (see the top of this file). raw: any element
 * type is accepted (type T_OTHER unless it is one of ours). */
static int arr_get(PyObject *o, int writable, int raw, const char *name, Arr *a)
{
    memset(a, 0, sizeof *a);
    a->type = -1;
    a->len = -1;
    if (PyLong_Check(o)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(o);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            invalid("parprim: argument '%s' is not a valid address", name);
            return -1;
        }
        a->ptr = (void *)(uintptr_t)v;
        return 0;
    }
    if (PyObject_GetBuffer(o, &a->view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        return not_direct(name, writable ? "no writable buffer" : "no buffer");
    }
    a->has_view = 1;
    Py_ssize_t isz = a->view.itemsize;
    int t = format_type(a->view.format, isz);
    if (t < 0 && raw && (isz == 1 || isz == 2 || isz == 4 || isz == 8)) t = T_OTHER;
    if (t < 0) {
        arr_release(a);
        return not_direct(name, "element type");
    }
    if (!PyBuffer_IsContiguous(&a->view, 'C')) {
        arr_release(a);
        return not_direct(name, "not C-contiguous");
    }
    if (((uintptr_t)a->view.buf % (uintptr_t)isz) != 0) {
        arr_release(a);
        return not_direct(name, "misaligned");
    }
    a->ptr = a->view.buf;
    a->itemsize = isz;
    a->len = a->view.len / isz;
    a->type = t;
    return 0;
}

/* Takes type and n from the first array where they are -1. */
static int first_array(const Arr *a, PyObject *type_o, PyObject *n_o, int *type, size_t *n)
{
    long t = PyLong_AsLong(type_o);
    long long k = PyLong_AsLongLong(n_o);
    if ((t == -1 || k == -1) && PyErr_Occurred()) return -1;
    if (t == -1) {
        if (a->type < 0 || a->type >= PP_TYPE_COUNT) {
            if (a->type == T_BOOL)
                invalid("parprim: bool arrays serve as flags only; convert the data to an integer type");
            else
                invalid("parprim: the element type must be given with an address");
            return -1;
        }
        t = a->type;
    } else if (t < 0 || t >= PP_TYPE_COUNT) {
        invalid("parprim: element type %ld out of range", t);
        return -1;
    } else if (a->type >= 0 && a->type != t) {
        invalid("parprim: the first array holds %s elements, not %s",
                a->type < PP_TYPE_COUNT ? pp_type_name((pp_type)a->type) : "other",
                pp_type_name((pp_type)t));
        return -1;
    }
    if (k == -1) {
        if (a->len < 0) {
            invalid("parprim: the length must be given with an address");
            return -1;
        }
        k = a->len;
    } else if (k < 0) {
        invalid("parprim: length %lld is negative", k);
        return -1;
    } else if (a->len >= 0 && k > a->len) {
        invalid("parprim: the first array holds %zd elements, fewer than %lld", a->len, k);
        return -1;
    }
    *type = (int)t;
    *n = (size_t)k;
    return 0;
}

/* Checks a further buffer: its element type (type, or any one-byte type
 * for want == T_BOOL, or any type of that item size for want == T_OTHER)
 * and that it holds at least n elements. Handles pass. */
static int arr_check(const Arr *a, const char *name, int want, size_t item, size_t n)
{
    if (!a->has_view) return 0;
    if (want == T_BOOL) {
        if (a->itemsize != 1 || !(a->type == T_BOOL || a->type == PP_U8 || a->type == PP_I8)) {
            invalid("parprim: argument '%s' must hold bool or uint8 flags", name);
            return -1;
        }
    } else if (want == T_OTHER) {
        if ((size_t)a->itemsize != item) {
            invalid("parprim: argument '%s' has items of %zd bytes, expected %zu", name, a->itemsize, item);
            return -1;
        }
    } else if (a->type != want) {
        invalid("parprim: argument '%s' holds %s elements, expected %s", name,
                a->type >= 0 && a->type < PP_TYPE_COUNT ? pp_type_name((pp_type)a->type) : "other",
                pp_type_name((pp_type)want));
        return -1;
    }
    if ((size_t)a->len < n) {
        invalid("parprim: argument '%s' holds %zd elements, needs %zu", name, a->len, n);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Context                                                                  */
/* ------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    pp_context *ctx;
    PyThread_type_lock lock;
    pp_backend backend;
    int device;
    void *slot; /* 16 bytes of context memory for single results on GPU backends */
} Ctx;

static PyTypeObject CtxType;

/* Runs `body` (a statement using pp functions on self->ctx and setting st)
 * with the GIL released and the context's lock held, copying the error
 * message while the lock is held. */
#define LOCKED(self, st, msg, body)                                              \
    do {                                                                         \
        Py_BEGIN_ALLOW_THREADS                                                   \
        PyThread_acquire_lock((self)->lock, WAIT_LOCK);                          \
        if (!(self)->ctx) {                                                      \
            st = ST_CLOSED;                                                      \
        } else {                                                                 \
            body;                                                                \
            if (st != PP_SUCCESS) copy_msg(msg, pp_last_error((self)->ctx));     \
        }                                                                        \
        PyThread_release_lock((self)->lock);                                     \
        Py_END_ALLOW_THREADS                                                     \
    } while (0)

/* Result memory for one value (reduce's out, a count): host memory on cpu,
 * a 16-byte buffer of the context on GPU backends (allocated once). Called
 * with the lock held. */
static pp_status result_slot(Ctx *self, void *local, void **out)
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
static pp_status result_fetch(Ctx *self, void *local, size_t bytes)
{
    if (self->backend == PP_BACKEND_CPU) return PP_SUCCESS;
    return pp_download(self->ctx, local, self->slot, bytes);
}

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
    if (st != PP_SUCCESS) copy_msg(msg, pp_last_error(NULL));
    Py_END_ALLOW_THREADS
    if (st != PP_SUCCESS) {
        raise_status(st, msg);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
    return PyLong_FromLong(threads);
}
static PyObject *Ctx_get_device_name(Ctx *self, void *c)
{
    (void)c;
    char name[MSG_LEN]; /* copied while the context surely lives */
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        copy_msg(name, pp_context_device_name(self->ctx));
        st = PP_SUCCESS;
    });
    if (st != PP_SUCCESS) return raise_status(st, msg);
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

#define NARGS(k, sig)                                                                   \
    if (nargs != (k)) {                                                                 \
        PyErr_Format(PyExc_TypeError, "_parprim.Context." sig " takes %d arguments", (k)); \
        return NULL;                                                                    \
    }

/* reduce(a, op, type, n) -> the result as a NumPy scalar */
static PyObject *Ctx_reduce(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "reduce(a, op, type, n)");
    int op = parse_op(args[1]);
    if (op < 0) return NULL;
    Arr a;
    if (arr_get(args[0], 0, 0, "a", &a)) return NULL;
    int t;
    size_t n;
    if (first_array(&a, args[2], args[3], &t, &n)) {
        arr_release(&a);
        return NULL;
    }
    uint64_t local[2] = {0, 0};
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        void *out;
        st = result_slot(self, local, &out);
        if (st == PP_SUCCESS) st = pp_reduce(self->ctx, (pp_type)t, (pp_op)op, a.ptr, n, out);
        if (st == PP_SUCCESS) st = result_fetch(self, local, pp_type_size((pp_type)t));
    });
    arr_release(&a);
    if (st != PP_SUCCESS) return raise_status(st, msg);
    return make_scalar(t, local);
}

/* scan(a, out, op, exclusive, type, n) */
static PyObject *Ctx_scan(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "scan(a, out, op, exclusive, type, n)");
    int op = parse_op(args[2]);
    if (op < 0) return NULL;
    int excl = PyObject_IsTrue(args[3]);
    if (excl < 0) return NULL;
    Arr a, out;
    if (arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (arr_get(args[1], 1, 0, "out", &out)) {
        arr_release(&a);
        return NULL;
    }
    int t;
    size_t n;
    PyObject *res = NULL;
    if (first_array(&a, args[4], args[5], &t, &n) == 0 && arr_check(&out, "out", t, 0, n) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg, st = pp_scan(self->ctx, (pp_type)t, (pp_op)op,
                                           excl ? PP_EXCLUSIVE : PP_INCLUSIVE, a.ptr, out.ptr, n));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&a);
    arr_release(&out);
    return res;
}

/* histogram_even(a, counts, lower, upper, nbins, type, n) */
static PyObject *Ctx_histogram_even(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(7, "histogram_even(a, counts, lower, upper, nbins, type, n)");
    Py_ssize_t nbins = PyLong_AsSsize_t(args[4]);
    if (nbins == -1 && PyErr_Occurred()) return NULL;
    if (nbins < 0) return invalid("parprim: bins = %zd is negative", nbins);
    Arr a, counts;
    if (arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (arr_get(args[1], 1, 0, "counts", &counts)) {
        arr_release(&a);
        return NULL;
    }
    int t;
    size_t n;
    uint64_t lo = 0, hi = 0;
    PyObject *res = NULL;
    if (first_array(&a, args[5], args[6], &t, &n) == 0 &&
        arr_check(&counts, "counts", PP_U64, 0, (size_t)nbins) == 0 &&
        to_value(args[2], t, "lower", &lo) == 0 && to_value(args[3], t, "upper", &hi) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_histogram_even(self->ctx, (pp_type)t, a.ptr, n, &lo, &hi, (size_t)nbins,
                                      (uint64_t *)counts.ptr));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&a);
    arr_release(&counts);
    return res;
}

/* histogram_range(a, counts, edges, nbins, type, n); edges: a host buffer of
 * nbins + 1 values of the element type */
static PyObject *Ctx_histogram_range(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "histogram_range(a, counts, edges, nbins, type, n)");
    Py_ssize_t nbins = PyLong_AsSsize_t(args[3]);
    if (nbins == -1 && PyErr_Occurred()) return NULL;
    if (nbins < 0) return invalid("parprim: the number of bins %zd is negative", nbins);
    if (PyLong_Check(args[2])) return invalid("parprim: edges must be a host array");
    Arr a, counts, edges;
    if (arr_get(args[0], 0, 0, "a", &a)) return NULL;
    if (arr_get(args[1], 1, 0, "counts", &counts)) {
        arr_release(&a);
        return NULL;
    }
    if (arr_get(args[2], 0, 0, "edges", &edges)) {
        arr_release(&a);
        arr_release(&counts);
        return NULL;
    }
    int t;
    size_t n;
    PyObject *res = NULL;
    if (first_array(&a, args[4], args[5], &t, &n) == 0 &&
        arr_check(&counts, "counts", PP_U64, 0, (size_t)nbins) == 0 &&
        arr_check(&edges, "edges", t, 0, (size_t)nbins + 1) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_histogram_range(self->ctx, (pp_type)t, a.ptr, n, edges.ptr, (size_t)nbins,
                                       (uint64_t *)counts.ptr));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&a);
    arr_release(&counts);
    arr_release(&edges);
    return res;
}

/* The four compactions share their shape: in, [flags], out, count. */
enum { C_FLAGGED, C_IF, C_UNIQUE, C_PARTITION };

static PyObject *compact(Ctx *self, int which, PyObject *a_o, PyObject *flags_o, PyObject *out_o,
                         PyObject *cmp_o, PyObject *value_o, PyObject *type_o, PyObject *n_o)
{
    int cmp = 0;
    if (cmp_o && (cmp = parse_cmp(cmp_o)) < 0) return NULL;
    Arr a, flags, out;
    memset(&flags, 0, sizeof flags);
    if (arr_get(a_o, 0, 0, "a", &a)) return NULL;
    if (flags_o && arr_get(flags_o, 0, 1, "flags", &flags)) {
        arr_release(&a);
        return NULL;
    }
    if (arr_get(out_o, 1, 0, "out", &out)) {
        arr_release(&a);
        arr_release(&flags);
        return NULL;
    }
    int t;
    size_t n;
    uint64_t value = 0;
    PyObject *res = NULL;
    if (first_array(&a, type_o, n_o, &t, &n) == 0 &&
        (!flags_o || arr_check(&flags, "flags", T_BOOL, 1, n) == 0) &&
        arr_check(&out, "out", t, 0, which == C_PARTITION ? n : 0) == 0 &&
        (!value_o || to_value(value_o, t, "value", &value) == 0)) {
        if (out.has_view && which != C_PARTITION && (size_t)out.len < n) {
            /* The count is known only afterwards: out must hold n. */
            invalid("parprim: argument 'out' holds %zd elements, needs %zu", out.len, n);
        } else {
            pp_status st;
            char msg[MSG_LEN];
            uint64_t local[2] = {0, 0};
            LOCKED(self, st, msg, {
                void *cnt;
                st = result_slot(self, local, &cnt);
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
                if (st == PP_SUCCESS) st = result_fetch(self, local, sizeof(uint64_t));
            });
            if (st != PP_SUCCESS) raise_status(st, msg);
            else res = PyLong_FromUnsignedLongLong(local[0]);
        }
    }
    arr_release(&a);
    arr_release(&flags);
    arr_release(&out);
    return res;
}

/* select_flagged(a, flags, out, type, n) -> count */
static PyObject *Ctx_select_flagged(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(5, "select_flagged(a, flags, out, type, n)");
    return compact(self, C_FLAGGED, args[0], args[1], args[2], NULL, NULL, args[3], args[4]);
}
/* select_if(a, out, cmp, value, type, n) -> count */
static PyObject *Ctx_select_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "select_if(a, out, cmp, value, type, n)");
    return compact(self, C_IF, args[0], NULL, args[1], args[2], args[3], args[4], args[5]);
}
/* unique(a, out, type, n) -> count */
static PyObject *Ctx_unique(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "unique(a, out, type, n)");
    return compact(self, C_UNIQUE, args[0], NULL, args[1], NULL, NULL, args[2], args[3]);
}
/* partition_if(a, out, cmp, value, type, n) -> count */
static PyObject *Ctx_partition_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "partition_if(a, out, cmp, value, type, n)");
    return compact(self, C_PARTITION, args[0], NULL, args[1], args[2], args[3], args[4], args[5]);
}

/* sort(keys, descending, type, n): in place */
static PyObject *Ctx_sort(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(4, "sort(keys, descending, type, n)");
    int desc = PyObject_IsTrue(args[1]);
    if (desc < 0) return NULL;
    Arr k;
    if (arr_get(args[0], 1, 0, "keys", &k)) return NULL;
    int t;
    size_t n;
    PyObject *res = NULL;
    if (first_array(&k, args[2], args[3], &t, &n) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg, st = pp_sort(self->ctx, (pp_type)t, k.ptr, n, desc ? PP_DESCENDING : PP_ASCENDING));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&k);
    return res;
}

/* sort_pairs(keys, values, value_size, descending, type, n): in place */
static PyObject *Ctx_sort_pairs(Ctx *self, PyObject *const *args, Py_ssize_t nargs)
{
    NARGS(6, "sort_pairs(keys, values, value_size, descending, type, n)");
    Py_ssize_t vsize = PyLong_AsSsize_t(args[2]);
    if (vsize == -1 && PyErr_Occurred()) return NULL;
    int desc = PyObject_IsTrue(args[3]);
    if (desc < 0) return NULL;
    Arr k, v;
    if (arr_get(args[0], 1, 0, "keys", &k)) return NULL;
    if (arr_get(args[1], 1, 1, "values", &v)) {
        arr_release(&k);
        return NULL;
    }
    int t;
    size_t n;
    PyObject *res = NULL;
    if (v.has_view && vsize <= 0) vsize = v.itemsize;
    if (first_array(&k, args[4], args[5], &t, &n) == 0 && arr_check(&v, "values", T_OTHER, (size_t)vsize, n) == 0) {
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = pp_sort_pairs(self->ctx, (pp_type)t, k.ptr, v.ptr, (size_t)vsize, n,
                                  desc ? PP_DESCENDING : PP_ASCENDING));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&k);
    arr_release(&v);
    return res;
}

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
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    if (arr_get(args[0], kind == 1, 1, "dst", &d)) return NULL;
    if (arr_get(args[1], 0, 1, "src", &s)) {
        arr_release(&d);
        return NULL;
    }
    PyObject *res = NULL;
    Arr *buf = kind == 0 ? &s : kind == 1 ? &d : NULL;
    if (buf && !buf->has_view) {
        invalid("parprim: upload/download need a host buffer");
    } else if (kind == 2 && (d.has_view || s.has_view)) {
        invalid("parprim: copy takes two addresses of context memory");
    } else if (buf && nb >= 0 && nb > buf->view.len) {
        invalid("parprim: %lld bytes do not fit the host buffer of %zd bytes", nb, buf->view.len);
    } else {
        size_t bytes = nb >= 0 ? (size_t)nb : buf ? (size_t)buf->view.len : 0;
        pp_status st;
        char msg[MSG_LEN];
        LOCKED(self, st, msg,
               st = kind == 0 ? pp_upload(self->ctx, d.ptr, s.ptr, bytes)
                    : kind == 1 ? pp_download(self->ctx, d.ptr, s.ptr, bytes)
                                : pp_copy(self->ctx, d.ptr, s.ptr, bytes));
        if (st != PP_SUCCESS) raise_status(st, msg);
        else res = Py_NewRef(Py_None);
    }
    arr_release(&d);
    arr_release(&s);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    if (st != PP_SUCCESS) return raise_status(st, msg);
    Py_RETURN_NONE;
}

/* get_algorithm(primitive) -> int */
static PyObject *Ctx_get_algorithm(Ctx *self, PyObject *arg)
{
    long p = PyLong_AsLong(arg);
    if (p == -1 && PyErr_Occurred()) return NULL;
    if (p < 0 || p >= PP_PRIM_COUNT) return invalid("parprim: primitive %ld out of range", p);
    int algo = 0;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        algo = (int)pp_get_algorithm(self->ctx, (pp_primitive)p);
        st = PP_SUCCESS;
    });
    if (st != PP_SUCCESS) return raise_status(st, msg);
    return PyLong_FromLong(algo);
}

/* algorithms(primitive) -> [int]: every algorithm pp_set_algorithm accepts
 * for it (the choice is left as it was). */
static PyObject *Ctx_algorithms(Ctx *self, PyObject *arg)
{
    long p = PyLong_AsLong(arg);
    if (p == -1 && PyErr_Occurred()) return NULL;
    if (p < 0 || p >= PP_PRIM_COUNT) return invalid("parprim: primitive %ld out of range", p);
    int ok[PP_ALGO_COUNT];
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        pp_algorithm keep = pp_get_algorithm(self->ctx, (pp_primitive)p);
        for (int a = 0; a < PP_ALGO_COUNT; a++)
            ok[a] = pp_set_algorithm(self->ctx, (pp_primitive)p, (pp_algorithm)a) == PP_SUCCESS;
        st = pp_set_algorithm(self->ctx, (pp_primitive)p, keep);
    });
    if (st != PP_SUCCESS) return raise_status(st, msg);
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
    {"reduce", (PyCFunction)(void (*)(void))Ctx_reduce, METH_FASTCALL, "reduce(a, op, type, n) -> scalar"},
    {"scan", (PyCFunction)(void (*)(void))Ctx_scan, METH_FASTCALL, "scan(a, out, op, exclusive, type, n)"},
    {"histogram_even", (PyCFunction)(void (*)(void))Ctx_histogram_even, METH_FASTCALL,
     "histogram_even(a, counts, lower, upper, nbins, type, n)"},
    {"histogram_range", (PyCFunction)(void (*)(void))Ctx_histogram_range, METH_FASTCALL,
     "histogram_range(a, counts, edges, nbins, type, n)"},
    {"select_flagged", (PyCFunction)(void (*)(void))Ctx_select_flagged, METH_FASTCALL,
     "select_flagged(a, flags, out, type, n) -> count"},
    {"select_if", (PyCFunction)(void (*)(void))Ctx_select_if, METH_FASTCALL,
     "select_if(a, out, cmp, value, type, n) -> count"},
    {"unique", (PyCFunction)(void (*)(void))Ctx_unique, METH_FASTCALL, "unique(a, out, type, n) -> count"},
    {"partition_if", (PyCFunction)(void (*)(void))Ctx_partition_if, METH_FASTCALL,
     "partition_if(a, out, cmp, value, type, n) -> count"},
    {"sort", (PyCFunction)(void (*)(void))Ctx_sort, METH_FASTCALL, "sort(keys, descending, type, n)"},
    {"sort_pairs", (PyCFunction)(void (*)(void))Ctx_sort_pairs, METH_FASTCALL,
     "sort_pairs(keys, values, value_size, descending, type, n)"},
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

static PyTypeObject CtxType = {
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

/* ------------------------------------------------------------------------ */
/* DLPack (https://dmlc.github.io/dlpack/latest/c_api.html), ABI 0.8 and 1.x */
/* ------------------------------------------------------------------------ */
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#define DLPACK_FLAG_BITMASK_READ_ONLY (1ULL << 0)

/* dlpack_info(capsule) -> (address, device_type, device_id, code, bits,
 * lanes, shape, strides or None, read_only). The capsule is not consumed:
 * its producer frees the tensor when the capsule is collected, so the
 * caller keeps the capsule alive while it uses the address. */
static PyObject *py_dlpack_info(PyObject *m, PyObject *cap)
{
    (void)m;
    const DLTensor *t = NULL;
    int ro = 0;
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *mt = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
        if (!mt) return NULL;
        t = &mt->dl_tensor;
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *mt = (DLManagedTensorVersioned *)PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (!mt) return NULL;
        if (mt->version.major != 1) return invalid("parprim: DLPack version %u is not supported", mt->version.major);
        t = &mt->dl_tensor;
        ro = (mt->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else {
        return invalid("parprim: __dlpack__() did not return a DLPack capsule (or it was consumed)");
    }
    if (t->ndim < 0) return invalid("parprim: DLPack tensor with ndim %d", (int)t->ndim);
    PyObject *shape = PyTuple_New(t->ndim);
    if (!shape) return NULL;
    PyObject *strides = Py_None;
    Py_INCREF(Py_None);
    for (int i = 0; i < t->ndim; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->shape[i]));
    if (t->strides && t->ndim) {
        Py_DECREF(Py_None);
        strides = PyTuple_New(t->ndim);
        if (!strides) {
            Py_DECREF(shape);
            return NULL;
        }
        for (int i = 0; i < t->ndim; i++) PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    uintptr_t addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    return Py_BuildValue("(KiiiiiNNi)", (unsigned long long)addr, (int)t->device.device_type,
                         (int)t->device.device_id, (int)t->dtype.code, (int)t->dtype.bits, (int)t->dtype.lanes,
                         shape, strides, ro);
}

/* A one-dimensional DLPack tensor over memory that an owner object keeps
 * alive (parprim.DeviceArray): the managed tensor holds a reference to the
 * owner, dropped by the deleter. */
typedef struct {
    DLManagedTensor mt;
    int64_t shape[1];
    PyObject *owner;
} PpDLTensor;

static void pp_dl_deleter(DLManagedTensor *self)
{
    PpDLTensor *t = (PpDLTensor *)self;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(t->owner);
    PyGILState_Release(g);
    PyMem_RawFree(t);
}

static void pp_dl_capsule_destructor(PyObject *cap)
{
    /* Not consumed (still named "dltensor"): free it here. */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *mt = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
        if (mt && mt->deleter) mt->deleter(mt);
    }
    PyErr_Clear();
}

/* make_dlpack(owner, address, n, code, bits, device_type, device_id) -> capsule */
static PyObject *py_make_dlpack(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "make_dlpack(owner, address, n, code, bits, device_type, device_id)");
        return NULL;
    }
    unsigned long long addr = PyLong_AsUnsignedLongLong(args[1]);
    long long n = PyLong_AsLongLong(args[2]);
    long code = PyLong_AsLong(args[3]), bits = PyLong_AsLong(args[4]);
    long dt = PyLong_AsLong(args[5]), di = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    PpDLTensor *t = (PpDLTensor *)PyMem_RawCalloc(1, sizeof *t);
    if (!t) return PyErr_NoMemory();
    t->shape[0] = n;
    t->owner = Py_NewRef(args[0]);
    t->mt.dl_tensor.data = (void *)(uintptr_t)addr;
    t->mt.dl_tensor.device.device_type = (int32_t)dt;
    t->mt.dl_tensor.device.device_id = (int32_t)di;
    t->mt.dl_tensor.ndim = 1;
    t->mt.dl_tensor.dtype.code = (uint8_t)code;
    t->mt.dl_tensor.dtype.bits = (uint8_t)bits;
    t->mt.dl_tensor.dtype.lanes = 1;
    t->mt.dl_tensor.shape = t->shape;
    t->mt.dl_tensor.strides = NULL;
    t->mt.dl_tensor.byte_offset = 0;
    t->mt.manager_ctx = t;
    t->mt.deleter = pp_dl_deleter;
    PyObject *cap = PyCapsule_New(&t->mt, "dltensor", pp_dl_capsule_destructor);
    if (!cap) {
        Py_DECREF(t->owner);
        PyMem_RawFree(t);
    }
    return cap;
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

static PyObject *py_algorithm_name(PyObject *m, PyObject *arg)
{
    (void)m;
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(pp_algorithm_name((pp_algorithm)a));
}

static PyObject *py_primitive_name(PyObject *m, PyObject *arg)
{
    (void)m;
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(pp_primitive_name((pp_primitive)a));
}

/* _set_scalar_arrays(seq): ten one-element, writable NumPy arrays of the
 * pp_types in order (see make_scalar). */
static PyObject *py_set_scalar_arrays(PyObject *m, PyObject *seq)
{
    (void)m;
    PyObject *f = PySequence_Fast(seq, "a sequence of 10 arrays");
    if (!f) return NULL;
    if (PySequence_Fast_GET_SIZE(f) != PP_TYPE_COUNT) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "expected 10 one-element arrays in pp_type order");
        return NULL;
    }
    for (int i = 0; i < PP_TYPE_COUNT; i++) {
        PyObject *a = PySequence_Fast_GET_ITEM(f, i);
        Py_buffer v;
        if (PyObject_GetBuffer(a, &v, PyBUF_RECORDS) != 0) {
            Py_DECREF(f);
            return NULL;
        }
        if (format_type(v.format, v.itemsize) != i || v.len != v.itemsize) {
            PyBuffer_Release(&v);
            Py_DECREF(f);
            PyErr_Format(PyExc_ValueError, "array %d is not one element of %s", i, pp_type_name((pp_type)i));
            return NULL;
        }
        if (scalar_arrays[i]) PyBuffer_Release(&scalar_views[i]);
        scalar_views[i] = v; /* holds a reference to a */
        Py_XSETREF(scalar_arrays[i], Py_NewRef(a));
    }
    Py_DECREF(f);
    Py_RETURN_NONE;
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
static PyObject *py_time_reduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if ((nargs != 4 && nargs != 6) || !PyObject_TypeCheck(args[0], &CtxType)) {
        PyErr_SetString(PyExc_TypeError, "time_reduce(context, a, op, iterations[, type, n])");
        return NULL;
    }
    Ctx *self = (Ctx *)args[0];
    int op = parse_op(args[2]);
    if (op < 0) return NULL;
    long iters = PyLong_AsLong(args[3]);
    if (iters == -1 && PyErr_Occurred()) return NULL;
    if (iters < 1) iters = 1;
    Arr a;
    if (arr_get(args[1], 0, 0, "a", &a)) return NULL;
    if (nargs == 6 && !a.has_view) {
        a.type = (int)PyLong_AsLong(args[4]);
        a.len = (Py_ssize_t)PyLong_AsSsize_t(args[5]);
        if (PyErr_Occurred()) return NULL;
    }
    if (a.type < 0 || a.type >= PP_TYPE_COUNT || a.len < 0) {
        arr_release(&a);
        return invalid("parprim: time_reduce needs an array of a parprim element type");
    }
    uint64_t local[2];
    double t0 = 0, t1 = 0;
    pp_status st;
    char msg[MSG_LEN];
    LOCKED(self, st, msg, {
        void *out;
        st = result_slot(self, local, &out);
        t0 = now_s();
        for (long i = 0; st == PP_SUCCESS && i < iters; i++) {
            st = pp_reduce(self->ctx, (pp_type)a.type, (pp_op)op, a.ptr, (size_t)a.len, out);
            if (st == PP_SUCCESS) st = result_fetch(self, local, pp_type_size((pp_type)a.type));
        }
        t1 = now_s();
    });
    arr_release(&a);
    if (st != PP_SUCCESS) return raise_status(st, msg);
    return PyFloat_FromDouble((t1 - t0) / (double)iters);
}

static PyMethodDef module_methods[] = {
    {"version", py_version, METH_NOARGS, "pp_version() as MAJOR*10000 + MINOR*100 + PATCH"},
    {"backend_status", py_backend_status, METH_O, "pp_backend_status(backend) -> pp_status"},
    {"status_string", py_status_string, METH_O, "pp_status_string(status)"},
    {"algorithm_name", py_algorithm_name, METH_O, "pp_algorithm_name(algorithm)"},
    {"primitive_name", py_primitive_name, METH_O, "pp_primitive_name(primitive)"},
    {"_set_scalar_arrays", py_set_scalar_arrays, METH_O, "one-element NumPy arrays in pp_type order"},
    {"dlpack_info", py_dlpack_info, METH_O, "dlpack_info(capsule) -> tuple (not consumed)"},
    {"make_dlpack", (PyCFunction)(void (*)(void))py_make_dlpack, METH_FASTCALL,
     "make_dlpack(owner, address, n, code, bits, device_type, device_id) -> capsule"},
    {"pointer_device", py_pointer_device, METH_O, "CUDA device of an address, or -1"},
    {"time_reduce", (PyCFunction)(void (*)(void))py_time_reduce, METH_FASTCALL,
     "time_reduce(context, a, op, iterations[, type, n]) -> seconds per C call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_parprim", "The C binding of parprim (use the package parprim).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

static PyObject *new_error(PyObject *mod, const char *name, const char *doc, PyObject *b1, PyObject *b2)
{
    char full[64];
    PyOS_snprintf(full, sizeof full, "parprim.%s", name);
    PyObject *bases = b2 ? PyTuple_Pack(2, b1, b2) : PyTuple_Pack(1, b1);
    if (!bases) return NULL;
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls) return NULL;
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
    if (PyType_Ready(&CtxType) < 0) goto fail;
    if (PyModule_AddObject(m, "Context", Py_NewRef((PyObject *)&CtxType))) goto fail;
    if (!(Error = new_error(m, "Error",
                            "Base of every parprim error; carries pp_last_error's message and .status "
                            "(the pp_status value).",
                            PyExc_Exception, NULL)))
        goto fail;
    if (!(InvalidArgument = new_error(m, "InvalidArgument",
                                      "PP_ERROR_INVALID_ARGUMENT: a bad argument (type, size, name, overlap); "
                                      "nothing was written.",
                                      Error, PyExc_ValueError)))
        goto fail;
    if (!(Unsupported = new_error(m, "Unsupported",
                                  "PP_ERROR_UNSUPPORTED: valid, but this backend or algorithm cannot serve it.",
                                  Error, PyExc_NotImplementedError)))
        goto fail;
    if (!(OutOfMemory = new_error(m, "OutOfMemory", "PP_ERROR_OUT_OF_MEMORY: host or device memory ran out.",
                                  Error, PyExc_MemoryError)))
        goto fail;
    if (!(BackendUnavailable = new_error(m, "BackendUnavailable",
                                         "PP_ERROR_BACKEND_UNAVAILABLE: the backend is built in but finds no "
                                         "usable device.",
                                         Error, NULL)))
        goto fail;
    if (!(BackendError = new_error(m, "BackendError",
                                   "PP_ERROR_BACKEND: the backend's runtime (CUDA, OpenCL) reported an error.",
                                   Error, NULL)))
        goto fail;
    if (!(NotDirect = new_error(m, "_NotDirect",
                                "Private: an argument cannot be used in place (the package copies or "
                                "reports it).",
                                PyExc_Exception, NULL)))
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
