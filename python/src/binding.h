/*
 * parprim._parprim: the thin CPython binding of include/parprim.h.
 * binding.h: what the files of python/src/ share (private to the module).
 *
 * What lives in the module: contexts (pp_create .. pp_destroy), the
 * primitives, memory (pp_malloc, pp_upload, pp_download, pp_copy), algorithm
 * choice, and the mapping of pp_status to the exception classes. The Python
 * package (python/parprim/) does everything else: dtype checks with friendly
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
 * calls with every argument, which keeps the per-call cost low (python/tools/
 * overhead.py measures it; bench/studies/python.md has the figures).
 *
 * The files, one role each:
 *   module.c      the exception classes and raising them, the module's
 *                 functions, PyInit__parprim (the only exported symbol)
 *   values.c      element values (Python numbers in, NumPy scalars out) and
 *                 names (the C library's, as module tuples; op and cmp parsed)
 *   arrays.c      array arguments: buffers (formats, contiguity, alignment)
 *                 and addresses
 *   context.c     the Context type: life cycle, properties, memory, algorithms
 *   primitives.c  the Context's primitives, and time_reduce
 *   keyed.c       the Context's segmented, by-key and index primitives,
 *                 search, merge and top_k
 *   dlpack.c      DLPack capsules: reading one, making one
 *   direct.c      direct host calls: new NumPy outputs made here, for the
 *                 package's short path of plain arrays on a cpu context
 *   operator.c    operators of the user's own: the Op type (one
 *                 pp_operator of one context), reduce and scan, the
 *                 segmented and by-key forms with it
 * Functions used across files have the prefix ppy_ and are declared here;
 * everything else is static.
 */
#ifndef PP_PY_BINDING_H
#define PP_PY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <stdint.h>
#include <string.h>

#include "parprim.h"

/* The pp_types the package maps to NumPy dtypes: all twelve, in pp_type
 * order. PP_F16 is NumPy's float16 (buffer format 'e'); PP_BF16 has no
 * buffer format (ml_dtypes' bfloat16 arrays export none), so the package
 * passes bf16 arrays as their bits, uint16 buffers, with the type PP_BF16
 * given explicitly (ppy_first_array, ppy_arr_check). */
#define PPY_NTYPES 12

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
#endif

#define MSG_LEN 1024
/* Status of an operation on a context that close() has destroyed. */
#define ST_CLOSED ((pp_status)1000)

/* ------------------------------------------------------------------------ */
/* Exceptions (module.c)                                                    */
/* ------------------------------------------------------------------------ */
/* Raises the exception of st (pp_status, or ST_CLOSED) with message msg.
 * Returns NULL. */
PyObject *ppy_raise_status(pp_status st, const char *msg);
/* Raises InvalidArgument with a printf-style message. Returns NULL. */
PyObject *ppy_invalid(const char *fmt, ...);
/* Raises _NotDirect: argument `name` cannot be used in place (why). Returns -1. */
int ppy_not_direct(const char *name, const char *why);
/* Copies an error message into a buffer of MSG_LEN bytes (truncated). */
void ppy_copy_msg(char *dst, const char *src);

/* ------------------------------------------------------------------------ */
/* Element values and names (values.c)                                      */
/* ------------------------------------------------------------------------ */
PyObject *ppy_make_scalar(int t, const void *p);
int ppy_to_value(PyObject *o, int t, const char *name, void *dst);
int ppy_parse_op(PyObject *o);
int ppy_parse_cmp(PyObject *o);
int ppy_add_names(PyObject *m);
PyObject *ppy_set_scalar_arrays(PyObject *m, PyObject *seq);

/* ------------------------------------------------------------------------ */
/* Array arguments (arrays.c)                                               */
/* ------------------------------------------------------------------------ */
#define T_BOOL 100 /* a one-byte bool buffer (flags only) */
#define T_OTHER 101 /* a buffer of another element type, any item size (values of sort_pairs only) */

typedef struct {
    void *ptr;
    Py_ssize_t len;      /* elements in the buffer; -1 for a handle */
    Py_ssize_t itemsize; /* of the buffer; 0 for a handle */
    int type;            /* pp_type, T_BOOL or T_OTHER; -1 for a handle */
    int has_view;
    Py_buffer view;
} Arr;

void ppy_arr_release(Arr *a);
int ppy_format_type(const char *f, Py_ssize_t itemsize);
int ppy_arr_get(PyObject *o, int writable, int raw, const char *name, Arr *a);
int ppy_first_array(const Arr *a, PyObject *type_o, PyObject *n_o, int *type, size_t *n);
int ppy_arr_check(const Arr *a, const char *name, int want, size_t item, size_t n);

/* An array argument as read by ppy_arr_get: its name, whether it is
 * written, and whether any element type is taken (raw). */
typedef struct {
    const char *name;
    int writable, raw;
} ArgSpec;

/* Several array arguments read at once, a count argument, and a call's
 * result (keyed.c; operator.c's too) */
int ppy_get_arrays(PyObject *const *objs, const ArgSpec *spec, int k, Arr *a);
void ppy_release_arrays(Arr *a, int k);
int ppy_size_arg(PyObject *o, const char *name, size_t *out);
PyObject *ppy_call_result(pp_status st, const char *msg, int counted, uint64_t count, Arr *a, int k);

/* ------------------------------------------------------------------------ */
/* Context (context.c)                                                      */
/* ------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    pp_context *ctx;
    PyThread_type_lock lock;
    pp_backend backend;
    int device;
    void *slot; /* 16 bytes of context memory for single results on GPU backends */
    struct OpObj *ops; /* its live operators (operator.c), destroyed before the context */
} Ctx;

extern PyTypeObject ppy_CtxType;

/* Runs `body` (a statement using pp functions on self->ctx and setting st)
 * with the GIL released and the context's lock held, copying the error
 * message while the lock is held. On a closed context msg is set to ""
 * (ppy_raise_status does not read it for ST_CLOSED, but now that it is in
 * another file the compiler cannot see that). */
/* The part of LOCKED run with the context's lock held. */
#define LOCKED_BODY(self, st, msg, body)                                         \
    do {                                                                         \
        if (!(self)->ctx) {                                                      \
            st = ST_CLOSED;                                                      \
            msg[0] = 0;                                                          \
        } else {                                                                 \
            body;                                                                \
            if (st != PP_SUCCESS) ppy_copy_msg(msg, pp_last_error((self)->ctx)); \
        }                                                                        \
    } while (0)
#define LOCKED(self, st, msg, body)                                              \
    do {                                                                         \
        Py_BEGIN_ALLOW_THREADS                                                   \
        PyThread_acquire_lock((self)->lock, WAIT_LOCK);                          \
        LOCKED_BODY(self, st, msg, body);                                        \
        PyThread_release_lock((self)->lock);                                     \
        Py_END_ALLOW_THREADS                                                     \
    } while (0)

#define NARGS(k, sig)                                                                   \
    if (nargs != (k)) {                                                                 \
        PyErr_Format(PyExc_TypeError, "_parprim.Context." sig " takes %d arguments", (k)); \
        return NULL;                                                                    \
    }

/* ------------------------------------------------------------------------ */
/* Primitives of a Context (primitives.c)                                   */
/* ------------------------------------------------------------------------ */
PyObject *ppy_Ctx_reduce(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_scan(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_argext(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_histogram_even(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_histogram_range(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_select_flagged(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_select_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_unique(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_partition_if(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_sort_copy(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_sort_pairs_copy(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_time_reduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
/* Shared with keyed.c: the result slot of a single value (a count) and its
 * fetch, exact=True around one call, the order argument of the sorts. */
pp_status ppy_result_slot(Ctx *self, void *local, void **out);
pp_status ppy_result_fetch(Ctx *self, void *local, size_t bytes);
pp_status ppy_exact_begin(pp_context *ctx, pp_primitive prim, int exact, pp_algorithm *saved);
void ppy_exact_end(pp_context *ctx, pp_primitive prim, int exact, pp_algorithm saved);
int ppy_order_arg(PyObject *o, pp_order *order);

/* ------------------------------------------------------------------------ */
/* Segmented, by-key, index, search, merge, top-k primitives (keyed.c)     */
/* ------------------------------------------------------------------------ */
PyObject *ppy_Ctx_argsort(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_segmented_reduce(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_segmented_scan(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_segmented_sort(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_reduce_by_key(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_scan_by_key(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_run_length_encode(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_search(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_merge(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_top_k(Ctx *self, PyObject *const *args, Py_ssize_t nargs);

/* ------------------------------------------------------------------------ */
/* Direct host calls with new outputs (direct.c)                            */
/* ------------------------------------------------------------------------ */
PyObject *ppy_set_allocator(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_sort_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_argsort_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_scan_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_search_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_select_flagged_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_histogram_even_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ppy_Ctx_unique_new(Ctx *self, PyObject *const *args, Py_ssize_t nargs);

/* ------------------------------------------------------------------------ */
/* Operators of the user's own (operator.c)                                 */
/* ------------------------------------------------------------------------ */
extern PyTypeObject ppy_OpType;
PyObject *ppy_Ctx_operator_create(Ctx *self, PyObject *const *args, Py_ssize_t nargs);
void ppy_ops_release(Ctx *c);

/* ------------------------------------------------------------------------ */
/* DLPack (dlpack.c)                                                        */
/* ------------------------------------------------------------------------ */
PyObject *ppy_dlpack_info(PyObject *m, PyObject *cap);
PyObject *ppy_make_dlpack(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

#endif /* PP_PY_BINDING_H */
