"""parprim.Operator: an associative operator of the user's own, given as C
source text, for reduce and scan (include/parprim.h, "Operators of the
user's own": pp_operator_create, pp_reduce_op, pp_scan_op). The C library
compiles and runs it; here: the dtype and identity checks, one compiled
operator per context, and the arrays (the runs of _runs.py).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ._arrays import as_ndarray, device_view, is_device_array
from ._parprim import InvalidArgument


class Operator:
    """An associative operator of your own, for parprim.reduce and
    parprim.scan (op=): C source text that the C library compiles for each
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
    copy is made of others) and of exactly this dtype (else TypeError).
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


def _input(op, r, a):
    """a as the run's input of op's dtype (TypeError for another dtype)."""
    if is_device_array(a):
        v = device_view(a, "a")
        dt, n = v.dtype, v.n
    else:
        a = as_ndarray(a, "a")
        dt, n = a.dtype, a.size
    if dt != op.dtype:
        raise TypeError(f"parprim: a has dtype {dt}; the operator's dtype is {op.dtype}")
    return r.values(a, n, "a")


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
    """Context.reduce with op= an Operator: one element of op.dtype."""
    _check(exact, dtype, axis, "reduce")
    if keepdims:
        raise InvalidArgument("parprim: reduce(keepdims=True) is not supported with an Operator")
    _check_dtype(dtype, op, "reduce")
    with ctx._run(a) as r:
        x = _input(op, r, a)
        y = r.scratch(op.dtype, 1)
        op._for(ctx).reduce(x.h, y.h, x.n)
        return r.to_host(y)[0]


def scan(ctx, a, op, exclusive, out, exact, initial, dtype, axis):
    """Context.scan with op= an Operator: an array of op.dtype."""
    _check(exact, dtype, axis, "scan")
    if initial is not None:
        raise InvalidArgument("parprim: scan(initial=) is not supported with an Operator: make the first "
                              "element initial . a[0]")
    _check_dtype(dtype, op, "scan")
    with ctx._run(a) as r:
        x = _input(op, r, a)
        y = r.output(op.dtype, x.n, out, inputs=(x,), inplace=x)
        op._for(ctx).scan(x.h, y.h, bool(exclusive), x.n)
        return r.result(y)
