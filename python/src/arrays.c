/*
 * parprim._parprim: array arguments (a buffer used in place, or an address
 * or handle in the context's memory; see binding.h).
 */
#include "binding.h"

/* ------------------------------------------------------------------------ */
/* Array arguments                                                          */
/* ------------------------------------------------------------------------ */
void ppy_arr_release(Arr *a)
{
    if (a->has_view) {
        PyBuffer_Release(&a->view);
        a->has_view = 0;
    }
}

/* The element type of a buffer format and item size; -1 if it is none of
 * ours, or of non-native byte order. */
int ppy_format_type(const char *f, Py_ssize_t itemsize)
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
    case 'e': case 'f': case 'd': sig = 0; uns = 0; flt = 1; break;
    case '?': return itemsize == 1 ? T_BOOL : -1;
    default: return -1;
    }
    if (flt)
        return itemsize == 2 && f[0] == 'e'   ? PP_F16
               : itemsize == 4 && f[0] == 'f' ? PP_F32
               : itemsize == 8 && f[0] == 'd' ? PP_F64
                                              : -1;
    switch (itemsize) {
    case 1: return sig ? PP_I8 : uns ? PP_U8 : -1;
    case 2: return sig ? PP_I16 : PP_U16;
    case 4: return sig ? PP_I32 : PP_U32;
    case 8: return sig ? PP_I64 : PP_U64;
    }
    return -1;
}

/* Reads an array argument (see binding.h). raw: any element
 * type is accepted (type T_OTHER unless it is one of ours). */
int ppy_arr_get(PyObject *o, int writable, int raw, const char *name, Arr *a)
{
    memset(a, 0, sizeof *a);
    a->type = -1;
    a->len = -1;
    if (PyLong_Check(o)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(o);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            ppy_invalid("parprim: argument '%s' is not a valid address", name);
            return -1;
        }
        a->ptr = (void *)(uintptr_t)v;
        return 0;
    }
    if (PyObject_GetBuffer(o, &a->view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) != 0) {
        PyErr_Clear();
        return ppy_not_direct(name, writable ? "no writable buffer" : "no buffer");
    }
    a->has_view = 1;
    Py_ssize_t isz = a->view.itemsize;
    int t = ppy_format_type(a->view.format, isz);
    if (t < 0 && raw && isz > 0) t = T_OTHER; /* any item size: the C call checks a value size */
    if (t < 0) {
        ppy_arr_release(a);
        return ppy_not_direct(name, "element type");
    }
    if (!PyBuffer_IsContiguous(&a->view, 'C')) {
        ppy_arr_release(a);
        return ppy_not_direct(name, "not C-contiguous");
    }
    const int sized = isz == 1 || isz == 2 || isz == 4 || isz == 8; /* the sizes alignment applies to */
    if (sized && ((uintptr_t)a->view.buf % (uintptr_t)isz) != 0) {
        ppy_arr_release(a);
        return ppy_not_direct(name, "misaligned");
    }
    a->ptr = a->view.buf;
    a->itemsize = isz;
    a->len = a->view.len / isz;
    a->type = t;
    return 0;
}

/* Whether a is a bf16 array passed as its bits (a uint16 buffer) for type t
 * == PP_BF16: bfloat16 has no buffer format (see PPY_NTYPES). */
static int bf16_bits(const Arr *a, int t) { return t == PP_BF16 && a->type == PP_U16; }

/* Takes type and n from the first array where they are -1. */
int ppy_first_array(const Arr *a, PyObject *type_o, PyObject *n_o, int *type, size_t *n)
{
    long t = PyLong_AsLong(type_o);
    long long k = PyLong_AsLongLong(n_o);
    if ((t == -1 || k == -1) && PyErr_Occurred()) return -1;
    if (t == -1) {
        if (a->type < 0 || a->type >= PP_TYPE_COUNT) {
            if (a->type == T_BOOL)
                ppy_invalid("parprim: bool arrays serve as flags only; convert the data to an integer type");
            else
                ppy_invalid("parprim: the element type must be given with an address");
            return -1;
        }
        t = a->type;
    } else if (a->type >= 0 && a->type != t && !bf16_bits(a, (int)t)) { /* out of range: the C call refuses it */
        ppy_invalid("parprim: the first array holds %s elements, not %s",
                a->type < PP_TYPE_COUNT ? pp_type_name((pp_type)a->type) : "other",
                pp_type_name((pp_type)t));
        return -1;
    }
    if (k == -1) {
        if (a->len < 0) {
            ppy_invalid("parprim: the length must be given with an address");
            return -1;
        }
        k = a->len;
    } else if (k < 0) {
        ppy_invalid("parprim: length %lld is negative", k);
        return -1;
    } else if (a->len >= 0 && k > a->len) {
        ppy_invalid("parprim: the first array holds %zd elements, fewer than %lld", a->len, k);
        return -1;
    }
    *type = (int)t;
    *n = (size_t)k;
    return 0;
}

/* Checks a further buffer: its element type (type, or any one-byte type
 * for want == T_BOOL, or any type of that item size for want == T_OTHER)
 * and that it holds at least n elements. Handles pass. */
int ppy_arr_check(const Arr *a, const char *name, int want, size_t item, size_t n)
{
    if (!a->has_view) return 0;
    if (want == T_BOOL) {
        if (a->itemsize != 1 || !(a->type == T_BOOL || a->type == PP_U8 || a->type == PP_I8)) {
            ppy_invalid("parprim: argument '%s' must hold bool or uint8 flags", name);
            return -1;
        }
    } else if (want == T_OTHER) {
        if ((size_t)a->itemsize != item) {
            ppy_invalid("parprim: argument '%s' has items of %zd bytes, expected %zu", name, a->itemsize, item);
            return -1;
        }
    } else if (a->type != want && !bf16_bits(a, want)) {
        ppy_invalid("parprim: argument '%s' holds %s elements, expected %s", name,
                a->type >= 0 && a->type < PP_TYPE_COUNT ? pp_type_name((pp_type)a->type) : "other",
                pp_type_name((pp_type)want));
        return -1;
    }
    if ((size_t)a->len < n) {
        ppy_invalid("parprim: argument '%s' holds %zd elements, needs %zu", name, a->len, n);
        return -1;
    }
    return 0;
}
