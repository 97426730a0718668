/*
 * parprim._parprim: element values (a Python number as a value of a pp_type,
 * a result as a NumPy scalar) and names (the C library's names of types,
 * operators, comparisons, backends, primitives and algorithms, as tuples of
 * the module; op and cmp arguments parsed by them). See binding.h.
 */
#include "binding.h"

#include <math.h>

/* A one-element NumPy array of each pp_type and its data (set by the package
 * at import, so that this module needs no NumPy headers): a single result
 * is copied into it and returned as arr[0], a NumPy scalar of that type,
 * bits unchanged (40 ns, where calling numpy.float32(x) takes 150-200 ns).
 * Copy and read happen under the GIL, so threads never see each other's
 * value. NULL: results are Python numbers (bf16 until the package has
 * ml_dtypes' bfloat16: a Python float, the value exactly). */
static PyObject *scalar_arrays[PPY_NTYPES];
static Py_buffer scalar_views[PPY_NTYPES];

/* ------------------------------------------------------------------------ */
/* Element values                                                           */
/* ------------------------------------------------------------------------ */
static int type_is_half(int t) { return t == PP_F16 || t == PP_BF16; }
static int type_is_float(int t) { return t == PP_F32 || t == PP_F64 || type_is_half(t); }

/* The value of a half (f16 or bf16) given by its bits, exactly. */
static double half_to_double(int t, uint16_t h)
{
    if (t == PP_BF16) {
        const uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    const int e = h >> 10 & 0x1F, m = h & 0x3FF;
    const double v = e == 0x1F ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h >> 15 ? -v : v;
}

/* d rounded once to the half format t (to nearest, ties to even; a NaN as
 * the quiet NaN), as its bits: never through f32, which would round twice. */
static uint16_t double_to_half(int t, double d)
{
    const int mant = t == PP_BF16 ? 7 : 10, bias = t == PP_BF16 ? 127 : 15;
    const uint16_t sign = signbit(d) ? 0x8000 : 0, inf = (uint16_t)((2 * bias + 1) << mant);
    if (isnan(d)) return (uint16_t)(inf | 1u << (mant - 1));
    const double a = fabs(d);
    if (a == 0) return sign;
    if (isinf(a)) return (uint16_t)(sign | inf);
    int e = a < ldexp(1, 1 - bias) ? 1 - bias : ilogb(a); /* subnormals share the least exponent */
    double m = rint(ldexp(a, mant - e));                  /* the significand in units of the last place */
    if (m >= ldexp(1, mant + 1)) {                        /* rounded up to the next binade */
        m /= 2;
        e++;
    }
    if (e > bias) return (uint16_t)(sign | inf);
    const unsigned field = m >= ldexp(1, mant) ? (unsigned)(e + bias) : 0;
    return (uint16_t)(sign | field << mant | ((unsigned)m & ((1u << mant) - 1)));
}

static int type_is_signed(int t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }

/* A value of type t (at p) as a NumPy scalar of that type. */
PyObject *ppy_make_scalar(int t, const void *p)
{
    if (t >= 0 && t < PPY_NTYPES && scalar_arrays[t]) {
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
    case PP_F16:
    case PP_BF16: v = PyFloat_FromDouble(half_to_double(t, *(const uint16_t *)p)); break;
    default: return ppy_invalid("parprim: element type %d out of range", t);
    }
    return v;
}

/* Converts a Python number to one value of type t at dst (8 bytes). Integer
 * types take integers (or floats with an integral value) that the type
 * holds exactly; float types take any real number (rounded to f32 for
 * f32, as NumPy compares a float32 array with a Python float; to f16 or
 * bf16 for the half types, once). */
int ppy_to_value(PyObject *o, int t, const char *name, void *dst)
{
    if (type_is_float(t)) {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            ppy_invalid("parprim: argument '%s' must be a real number, not %.100s", name, Py_TYPE(o)->tp_name);
            return -1;
        }
        if (type_is_half(t)) {
            const uint16_t h = double_to_half(t, d);
            memcpy(dst, &h, sizeof h);
        } else if (t == PP_F32) {
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
            ppy_invalid("parprim: argument '%s' must be an integer, not %.100s", name, Py_TYPE(o)->tp_name);
            return -1;
        }
        if (!isfinite(d) || d != floor(d)) {
            ppy_invalid("parprim: argument '%s' = %g is not a value of the integer element type %s", name, d,
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
        ppy_invalid("parprim: argument '%s' = %s does not fit the element type %s", name,
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
/* pp_cmp has no name function in the C API: its names are written here,
 * once (the package reads them as _parprim.CMP_NAMES). */
static const char *const CMP_NAMES[PP_NE + 1] = {"<", "<=", ">", ">=", "==", "!="};

static const char *cmp_name(int cmp) { return cmp >= 0 && cmp <= PP_NE ? CMP_NAMES[cmp] : "?"; }
static const char *op_name(int op) { return pp_op_name((pp_op)op); }
/* The package's types (PPY_NTYPES: all of them). */
static const char *type_name(int t) { return t < PPY_NTYPES ? pp_type_name((pp_type)t) : "?"; }
static const char *backend_name(int b) { return pp_backend_name((pp_backend)b); }
static const char *primitive_name(int p) { return pp_primitive_name((pp_primitive)p); }
static const char *algorithm_name(int a) { return pp_algorithm_name((pp_algorithm)a); }

/* The value of a name: its index among name(0), name(1), ... (the names
 * end where name gives "?"), or -1 with InvalidArgument raised. */
static int parse_name(PyObject *o, const char *what, const char *(*name)(int))
{
    if (!PyUnicode_Check(o)) {
        ppy_invalid("parprim: %s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; strcmp(name(i), "?") != 0; i++) {
        if (PyUnicode_CompareWithASCIIString(o, name(i)) == 0) return i;
        len += (size_t)PyOS_snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "", name(i));
        if (len >= sizeof list) len = sizeof list - 1;
    }
    PyObject *m = PyUnicode_FromFormat("parprim: %s %R is not one of %s", what, o, list);
    if (!m) return -1;
    ppy_raise_status(PP_ERROR_INVALID_ARGUMENT, PyUnicode_AsUTF8(m));
    Py_DECREF(m);
    return -1;
}

int ppy_parse_op(PyObject *o) { return parse_name(o, "op", op_name); }
int ppy_parse_cmp(PyObject *o) { return parse_name(o, "cmp", cmp_name); }

/* The tuple (name(0), name(1), ...) up to the first "?". */
static PyObject *name_tuple(const char *(*name)(int))
{
    int count = 0;
    while (strcmp(name(count), "?") != 0) count++;
    PyObject *t = PyTuple_New(count);
    for (int i = 0; t && i < count; i++) {
        PyObject *s = PyUnicode_FromString(name(i));
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* The module's name tuples, index = the C enum's value: TYPE_NAMES ("i8",
 * ...), OP_NAMES, CMP_NAMES, BACKEND_NAMES, PRIMITIVE_NAMES and
 * ALGORITHM_NAMES, read from the C library's name functions. */
int ppy_add_names(PyObject *m)
{
    static const struct {
        const char *attr;
        const char *(*name)(int);
    } kinds[] = {{"TYPE_NAMES", type_name},           {"OP_NAMES", op_name},
                 {"CMP_NAMES", cmp_name},             {"BACKEND_NAMES", backend_name},
                 {"PRIMITIVE_NAMES", primitive_name}, {"ALGORITHM_NAMES", algorithm_name}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        PyObject *t = name_tuple(kinds[i].name);
        if (!t || PyModule_AddObject(m, kinds[i].attr, t)) {
            Py_XDECREF(t);
            return -1;
        }
    }
    return 0;
}

/* _set_scalar_arrays(seq): twelve entries in pp_type order (see
 * ppy_make_scalar), each a one-element writable NumPy array of the type,
 * None (results as Python numbers), or a pair (array, a uint16 view of its
 * memory) for bf16, whose arrays have no buffer format. */
PyObject *ppy_set_scalar_arrays(PyObject *m, PyObject *seq)
{
    (void)m;
    PyObject *f = PySequence_Fast(seq, "a sequence of 12 arrays");
    if (!f) return NULL;
    if (PySequence_Fast_GET_SIZE(f) != PPY_NTYPES) {
        Py_DECREF(f);
        PyErr_SetString(PyExc_ValueError, "expected 12 one-element arrays (or None) in pp_type order");
        return NULL;
    }
    for (int i = 0; i < PPY_NTYPES; i++) {
        PyObject *a = PySequence_Fast_GET_ITEM(f, i), *bits = a;
        if (a == Py_None) {
            if (scalar_arrays[i]) PyBuffer_Release(&scalar_views[i]);
            Py_CLEAR(scalar_arrays[i]);
            continue;
        }
        if (i == PP_BF16 && PyTuple_Check(a) && PyTuple_GET_SIZE(a) == 2) {
            bits = PyTuple_GET_ITEM(a, 1);
            a = PyTuple_GET_ITEM(a, 0);
        }
        Py_buffer v;
        if (PyObject_GetBuffer(bits, &v, PyBUF_RECORDS) != 0) {
            Py_DECREF(f);
            return NULL;
        }
        const int want = bits == a ? i : PP_U16;
        if (ppy_format_type(v.format, v.itemsize) != want || v.len != v.itemsize) {
            PyBuffer_Release(&v);
            Py_DECREF(f);
            PyErr_Format(PyExc_ValueError, "array %d is not one element of %s", i, pp_type_name((pp_type)i));
            return NULL;
        }
        if (scalar_arrays[i]) PyBuffer_Release(&scalar_views[i]);
        scalar_views[i] = v; /* holds a reference to bits, which shares a's memory */
        Py_XSETREF(scalar_arrays[i], Py_NewRef(a));
    }
    Py_DECREF(f);
    Py_RETURN_NONE;
}
