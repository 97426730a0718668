"""parprim.Operator: an associative operator of the user's own, given as C
source text, for reduce, scan and the segmented and by-key forms
(include/parprim.h, "Operators of the user's own": pp_operator_create,
pp_reduce_op, pp_scan_op, pp_segmented_reduce_op .. pp_scan_by_key_op). The
C library compiles and runs it; here: the dtype and identity checks, one
compiled operator per context, the packed form, and the arrays (the runs of
_runs.py).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ._arrays import DeviceArray, as_ndarray, device_view, is_device_array
from ._parprim import InvalidArgument
from ._runs import covers


class Operator:
    """An associative operator of your own, for parprim.reduce,
    parprim.scan, segmented_reduce, segmented_scan, reduce_by_key and
    scan_by_key (op=): C source text that the C library compiles for each
    context's backend (include/parprim.h, pp_operator_create).

    Operator(source, dtype, identity, commutative=False)

    source: one text, valid C99, OpenCL C and CUDA C++ alike, that defines
    the element type and the operator with these two names:

        typedef struct { double a, b; } pp_elem;
        pp_elem pp_combine(pp_elem x, pp_elem y) { ... }

    (other types, constants and functions may come before them; no name
    starting with pp_ or PP_; no headers, no changing globals, no
    recursion). pp_combine must be associative; it need not be commutative:
    results combine the elements left to right (never commuted) on every
    backend. dtype: the NumPy dtype of one element, of sizeof(pp_elem)
    bytes and the C struct's layout: use np.dtype([...], align=True) for a
    struct (C's padding and alignment), or a plain dtype for a scalar
    pp_elem (np.float32 for `typedef float pp_elem;`). identity: one
    element (a tuple for a structured dtype, a number for a plain one, or a
    0-d array or np.void of dtype): pp_combine(identity, x) ==
    pp_combine(x, identity) == x; the result of an empty reduce and the
    first output of an exclusive scan. commutative=True: a hint that
    pp_combine(x, y) == pp_combine(y, x), which a backend may use to
    reorder.

    The text is compiled at the first call on each context (the compiled
    code is cached by the context, and on cpu on disk: see the header); a
    text that does not compile raises InvalidArgument (a ValueError) with
    the compiler's messages, an element size other than sizeof(pp_elem)
    likewise. The arrays given with op= must be C-contiguous in effect (a
    copy is made of others) and of exactly this dtype (else TypeError), or
    of its packed form. With an Operator, exact=True raises
    InvalidArgument, and so do reduce's axis= and keepdims=True, scan's
    axis= and initial=; dtype= other than the operator's raises TypeError.
    The segmented and by-key forms take offsets and keys as with a built-in
    op; an empty segment gives the identity.

    The packed form (GPU arrays, CuPy and PyTorch, cannot hold a structured
    dtype): where every scalar field of dtype (nested structs and subarray
    fields unrolled) has one numeric type T and the fields fill its bytes
    with no padding (k fields: k * T's size == dtype.itemsize; e.g. two
    float32 in [('a', 'f4'), ('b', 'f4')], T = float32, k = 2), an array of
    T whose trailing axis has length k holds one element per row, the
    fields in memory order (their order, for an align=True dtype): a torch
    (n, 2) float32 tensor, a CuPy or NumPy (n, 2) float32 array. Leading
    axes are the elements in C order. Results come back in that form, of
    the input's kind (NumPy in, NumPy out; CuPy, PyTorch and Numba arrays
    in the device memory of their library): scan, segmented_scan and
    scan_by_key an (n, k) array, segmented_reduce (nseg, k), reduce_by_key
    (keys, values) with values (runs, k), reduce a (k,) array (for GPU
    arrays left on the device, nothing read back). out= arrays in that form
    (of T, a trailing axis of k) are written and returned as given. GPU
    arrays of other libraries, returned as parprim.DeviceArray, keep one
    axis: n * k elements of T (reshape them with your library). A plain
    dtype is its own packed form (k = 1: arrays of it as they are). A dtype
    of mixed field types has no packed form (TypeError for an array of
    another dtype); its arrays are NumPy arrays of it.

    On cpu the text runs as native code of this process: only use text
    you trust.
    """

    def __init__(self, source, dtype, identity, commutative=False):
        if not isinstance(source, str):
            raise TypeError(f"parprim: Operator source must be a str, not {type(source).__name__}")
        dt = np.dtype(dtype)
        if dt.hasobject or dt.itemsize == 0 or dt.kind in "OUSMm" and dt.names is None:
            raise TypeError(f"parprim: Operator dtype {dt} is not plain data of a fixed size")
        try:
            ident = np.array(identity, dtype=dt)
        except (TypeError, ValueError) as e:
            raise TypeError(f"parprim: the identity {identity!r} is not one element of {dt}: {e}") from None
        if ident.size != 1:
            raise ValueError(f"parprim: the identity has {ident.size} elements; it is one element of {dt}")
        self._source = source
        self._dtype = dt
        self._identity = ident.reshape(())
        self._identity.flags.writeable = False
        self._commutative = bool(commutative)
        self._packing = _packing(dt)
        self._ops = weakref.WeakKeyDictionary()  # Context -> its compiled operator (_parprim.Op)
        self._lock = threading.Lock()

    @property
    def source(self):
        """The C source text."""
        return self._source

    @property
    def dtype(self):
        """The NumPy dtype of one element."""
        return self._dtype

    @property
    def identity(self):
        """The identity, one element of dtype (np.void for a structured
        dtype, else a NumPy scalar)."""
        return self._identity[()]

    @property
    def commutative(self):
        """Whether the operator was declared commutative."""
        return self._commutative

    def __repr__(self):
        return f"parprim.Operator(dtype={self._dtype}, identity={self.identity!r})"

    def _for(self, ctx):
        """The compiled operator of a context (compiled on first use)."""
        op = self._ops.get(ctx)
        if op is None:
            with self._lock:
                op = self._ops.get(ctx)
                if op is None:
                    op = ctx._c.operator_create(self._source, self._dtype.itemsize, self._identity.tobytes(),
                                                self._commutative)
                    self._ops[ctx] = op
        return op


class _Form:
    """How one call sees the arrays of op's elements: in op's dtype (k = 1),
    or in the packed form (Operator's docstring): k elements of the fields'
    base type per element, the arrays' trailing axis. dtype: the element
    type of the run's arrays; h(y): what the C call takes of one of them
    (a NumPy array viewed as op's dtype, or an address); result(): what the
    caller gets."""

    __slots__ = ("op", "packed", "dtype", "k")

    def __init__(self, op, packed):
        self.op, self.packed = op, packed
        self.dtype, self.k = (op._packing if packed else (op.dtype, 1))

    def n(self, x):
        """The number of op's elements in x (an _Op of the run)."""
        return x.n // self.k

    def h(self, x):
        return x.h.view(self.op.dtype) if self.packed and isinstance(x.h, np.ndarray) else x.h

    def output(self, r, n, out=None, what="out", **kw):
        """An output of n of op's elements: out (checked) or a new array."""
        if out is not None and self.packed:
            shape = _shape(out, what)
            if not shape or shape[-1] != self.k:
                raise InvalidArgument(f"parprim: {what} has shape {shape}; the packed form of {self.op.dtype} "
                                      f"has a trailing axis of {self.k}")
        return r.output(self.dtype, n * self.k, out, what, **kw)

    def result(self, r, y, count=None):
        """What the caller gets of output y (its first count elements):
        out= as given; a new packed array shaped (count, k) (a DeviceArray
        stays one-dimensional: it has one axis only)."""
        res = r.result(y, None if count is None else count * self.k)
        if self.packed and y.new and not isinstance(res, DeviceArray):
            res = res.reshape(-1, self.k)
        return res


def _shape(a, what):
    if is_device_array(a):
        return tuple(device_view(a, what).shape)
    return as_ndarray(a, what).shape


def _leaves(dt, offset=0):
    """The scalar fields of a structured dtype (nested ones and subarrays
    unrolled): (offset, dtype) pairs."""
    if dt.names is None:
        if dt.subdtype is None:
            return [(offset, dt)]
        base, shape = dt.subdtype
        return [leaf for i in range(int(np.prod(shape))) for leaf in _leaves(base, offset + i * base.itemsize)]
    return [leaf for name in dt.names for leaf in _leaves(dt.fields[name][0], offset + dt.fields[name][1])]


def _packing(dt):
    """(base, k) of the packed form of a structured dtype whose scalar fields
    are all of one numeric type and fill its bytes (k of them, no padding),
    else None."""
    if dt.names is None:
        return None
    leaves = _leaves(dt)
    if not leaves:
        return None
    base = leaves[0][1]
    if base.kind not in "biufc" or not base.isnative or any(b != base for _, b in leaves):
        return None
    if sorted(o for o, _ in leaves) != list(range(0, dt.itemsize, base.itemsize)):
        return None
    return base, len(leaves)


def _input(op, r, a, what="a"):
    """(x, form): a as the run's input (TypeError for another dtype): an
    array of op's dtype (any shape, its elements in C order), or of the
    packed form."""
    if is_device_array(a):
        v = device_view(a, what)
        dt, shape, size = v.dtype, tuple(v.shape), v.n
    else:
        a = as_ndarray(a, what)
        dt, shape, size = a.dtype, a.shape, a.size
    if dt == op.dtype:
        return r.values(a, size, what), _Form(op, False)
    p = op._packing
    if p is not None and dt == p[0] and shape and shape[-1] == p[1]:
        return r.values(a, size, what), _Form(op, True)
    if p is not None and dt == p[0]:
        raise InvalidArgument(f"parprim: {what} has shape {shape}; the packed form of {op.dtype} is an array "
                              f"of {p[0]} with a trailing axis of {p[1]}")
    form = f" (or {p[0]} with a trailing axis of {p[1]}, the packed form)" if p is not None else ""
    raise TypeError(f"parprim: {what} has dtype {dt}; the operator's dtype is {op.dtype}{form}")


def _check(exact, dtype, axis, what):
    if exact:
        raise InvalidArgument(f"parprim: {what}(exact=True) is for the built-in float sums, not an Operator")
    if axis is not None:
        raise InvalidArgument(f"parprim: {what}(axis=) is not supported with an Operator: axis=None only")


def _check_dtype(dtype, op, what):
    if dtype is not None and np.dtype(dtype) != op.dtype:
        raise TypeError(f"parprim: {what}(dtype={np.dtype(dtype)}): an Operator computes in its own dtype "
                        f"{op.dtype}")


def reduce(ctx, a, op, exact, dtype, axis, keepdims):
    """Context.reduce with op= an Operator: one element of op.dtype, or in
    the packed form a (k,) array of a's kind."""
    _check(exact, dtype, axis, "reduce")
    if keepdims:
        raise InvalidArgument("parprim: reduce(keepdims=True) is not supported with an Operator")
    _check_dtype(dtype, op, "reduce")
    with ctx._run(a) as r:
        x, f = _input(op, r, a)
        if f.packed:
            y = r.output(f.dtype, f.k)
            op._for(ctx).reduce(f.h(x), f.h(y), f.n(x))
            return r.result(y)
        y = r.scratch(op.dtype, 1)
        op._for(ctx).reduce(x.h, y.h, x.n)
        return r.to_host(y)[0]


def scan(ctx, a, op, exclusive, out, exact, initial, dtype, axis):
    """Context.scan with op= an Operator: an array of op.dtype (or of the
    packed form)."""
    _check(exact, dtype, axis, "scan")
    if initial is not None:
        raise InvalidArgument("parprim: scan(initial=) is not supported with an Operator: make the first "
                              "element initial . a[0]")
    _check_dtype(dtype, op, "scan")
    with ctx._run(a) as r:
        x, f = _input(op, r, a)
        n = f.n(x)
        y = f.output(r, n, out, inputs=(x,), inplace=x)
        op._for(ctx).scan(f.h(x), f.h(y), bool(exclusive), n)
        return f.result(r, y)


def segmented_reduce(ctx, a, offsets, op, exact):
    """Context.segmented_reduce with op= an Operator (pp_segmented_reduce_op)."""
    _check(exact, None, None, "segmented_reduce")
    with ctx._run(a) as r:
        x, f = _input(op, r, a)
        n = f.n(x)
        o = r.offsets(offsets, n)
        y = f.output(r, o.n - 1)
        op._for(ctx).segmented_reduce(f.h(x), o.h, f.h(y), o.n - 1, n)
        return f.result(r, y)


def segmented_scan(ctx, a, offsets, op, exclusive, out, exact):
    """Context.segmented_scan with op= an Operator (pp_segmented_scan_op)."""
    _check(exact, None, None, "segmented_scan")
    with ctx._run(a) as r:
        x, f = _input(op, r, a)
        n = f.n(x)
        o = r.offsets(offsets, n)
        y = f.output(r, n, out, inputs=(x,), inplace=x, src=x)
        if not covers(o, n):
            r.init_from(y, x)
        op._for(ctx).segmented_scan(f.h(x), f.h(y), o.h, bool(exclusive), o.n - 1, n)
        return f.result(r, y)


def _by_key(r, op, keys, values):
    k = r.input(keys, "keys")
    v, f = _input(op, r, values, "values")
    if f.n(v) != k.n:
        raise InvalidArgument(f"parprim: values has {f.n(v)} elements, keys have {k.n}")
    return k, r.unshared(k, v), f


def reduce_by_key(ctx, keys, values, op, exact):
    """Context.reduce_by_key with op= an Operator (pp_reduce_by_key_op):
    (keys, values) trimmed to the number of runs."""
    _check(exact, None, None, "reduce_by_key")
    with ctx._run(keys) as r:
        k, v, f = _by_key(r, op, keys, values)
        ko = r.output(k.dtype, k.n, what="keys_out")
        vo = f.output(r, k.n, what="values_out")
        count = op._for(ctx).reduce_by_key(k.h, f.h(v), ko.h, f.h(vo), k.code, k.n)
        return r.result(ko, count), f.result(r, vo, count)


def scan_by_key(ctx, keys, values, op, exclusive, out, exact):
    """Context.scan_by_key with op= an Operator (pp_scan_by_key_op)."""
    _check(exact, None, None, "scan_by_key")
    with ctx._run(keys) as r:
        k, v, f = _by_key(r, op, keys, values)
        y = f.output(r, k.n, out, inputs=(k, v), inplace=v, src=v)
        op._for(ctx).scan_by_key(k.h, f.h(v), f.h(y), bool(exclusive), k.code, k.n)
        return f.result(r, y)
