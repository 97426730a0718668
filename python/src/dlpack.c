/*
 * parprim._parprim: DLPack capsules: dlpack_info reads one (not consumed),
 * make_dlpack makes one over memory that an owner object keeps alive.
 */
#include "binding.h"

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
PyObject *ppy_dlpack_info(PyObject *m, PyObject *cap)
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
        if (mt->version.major != 1) return ppy_invalid("parprim: DLPack version %u is not supported", mt->version.major);
        t = &mt->dl_tensor;
        ro = (mt->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else {
        return ppy_invalid("parprim: __dlpack__() did not return a DLPack capsule (or it was consumed)");
    }
    if (t->ndim < 0) return ppy_invalid("parprim: DLPack tensor with ndim %d", (int)t->ndim);
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
PyObject *ppy_make_dlpack(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
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
