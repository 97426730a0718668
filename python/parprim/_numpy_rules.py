"""NumPy's rules for parprim.Context: the result dtypes of sums and products
(reduce and scan, through pp_reduce_to / pp_scan_to), bool input, and the
methods argmin, argmax, count_nonzero, any and all (a base class of Context,
written against the "run" objects of _runs.py).

Bool arrays hold the bytes 0 and 1 (NumPy's bools): they are read as uint8,
so that a bool sum counts in C (pp_reduce_to u8 -> i64) and min, max, and,
or, xor of bools are those of their bytes.
"""

from __future__ import annotations

import numpy as np

from ._arrays import BF16, BOOL, CODE, DTYPES, U8, U64, as_ndarray, code_of, device_view, is_device_array, library
from ._parprim import InvalidArgument

# The operators whose result type NumPy widens (np.add, np.multiply).
_WIDENING = ("sum", "prod")

# NumPy's result type of np.sum / np.prod of each pp_type (by pp_type; on
# Linux x86-64 NumPy 2: integers narrower than 64 bits in int64, unsigned
# ones in uint64; float16 in float16, and bfloat16, which NumPy itself
# lacks, in bfloat16 as ml_dtypes sums it), read from NumPy itself. The fast
# paths of reduce pass -2 and let the extension pick the same type
# (numpy_out_type in python/src/primitives.c); test_numpy_rules.py checks
# both against NumPy.
_WIDE = tuple(BF16 if dt is None else code_of(np.add.reduce(np.zeros(1, dt)).dtype) for dt in DTYPES)
_BOOL_WIDE = code_of(np.add.reduce(np.zeros(1, BOOL)).dtype)


def _out_code(code, op, dtype, is_bool, what):
    """The pp_type a reduce or scan of pp_type code (uint8 for bool input)
    returns: dtype's where given, else NumPy's for op (_WIDE)."""
    if dtype is not None:
        dt = np.dtype(dtype)  # TypeError for what is no dtype, as NumPy raises
        if dt not in CODE:
            raise InvalidArgument(f"parprim: {what} dtype={dt}: parprim accumulates in int8 ... uint64, float16, "
                                  "float32, float64 or bfloat16 only")
        # a dtype the C call cannot convert to is the C call's to refuse (pp_reduce_to, pp_scan_to: a half
        # input to its own type, float32 or float64), never a silent conversion here
        return CODE[dt]
    if op in _WIDENING:
        return _BOOL_WIDE if is_bool else _WIDE[code]
    return code


def bool_as_u8(a):
    """(a, False), or (a viewed as uint8, True) where a is a bool array (a
    NumPy array or anything np.asarray takes, a CuPy or PyTorch array)."""
    if is_device_array(a):
        if library(a) == "torch":
            import torch

            return (a.view(torch.uint8), True) if a.dtype == torch.bool else (a, False)
        if device_view(a).dtype == BOOL and hasattr(a, "view"):
            return a.view(U8), True
        return a, False
    if isinstance(a, np.ndarray) and a.dtype != BOOL:
        return a, False  # the common case, without the conversions below
    x = a if library(a) == "torch" else as_ndarray(a)
    if library(x) == "torch":
        import torch

        return (x.view(torch.uint8), True) if x.dtype == torch.bool else (a, False)
    # anything but bool goes on as it came (a host DLPack producer, for
    # instance, keeps its path through the context's run)
    return (x.view(U8), True) if x.dtype == BOOL else (a, False)


def as_bool(y):
    """A uint8 result of bool input (0/1 bytes) viewed as bool."""
    if library(y) == "torch":
        import torch

        return y.view(torch.bool)
    return y.view(BOOL)


class NumpyRuleMethods:
    """argmin, argmax, count_nonzero, any, all of parprim.Context."""

    def _argext(self, a, largest):
        x_in, _ = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            return np.intp(self._c.argext(x.h, largest, x.code, x.n))

    def argmin(self, a):
        """np.argmin(a) of the flattened array (pp_argmin): the index of
        the first minimum, as a NumPy intp. Floats: -0.0 == +0.0; where a
        holds NaN, the index of the first NaN. bool arrays: False < True.
        An empty array raises InvalidArgument (a ValueError: "attempt to get
        argmin of an empty sequence", as NumPy)."""
        return self._argext(a, False)

    def argmax(self, a):
        """np.argmax(a) of the flattened array (pp_argmax): the index of
        the first maximum (the first NaN where a holds one); see argmin."""
        return self._argext(a, True)

    def _zeros(self, r, x):
        """The number of elements of x (a numeric input of run r) equal to
        zero: pp_select_if's count with "== 0" (C's comparison: -0.0 is
        zero, NaN is not), one read of x; the selected zeros are written to
        scratch memory of x's size and dropped."""
        y = r.scratch(x.dtype, x.n)
        return self._c.select_if(x.h, y.h, "==", 0, x.code, x.n)

    def count_nonzero(self, a):
        """np.count_nonzero(a) (no axis): the number of nonzero elements, a
        Python int. bool arrays: the sum of their bytes (pp_reduce_to u8 ->
        u64, exact); numbers: n minus the count of zeros (pp_select_if "==
        0": NaN is nonzero, -0.0 is zero, as NumPy)."""
        x_in, is_bool = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            if is_bool:
                return int(self._c.reduce(x.h, "sum", x.code, x.n, False, CODE[U64]))
            return x.n - self._zeros(r, x)

    def any(self, a):
        """np.any(a) (no axis): whether any element is nonzero (NaN counts
        as true, -0.0 as false), a NumPy bool; False for an empty array.
        bool arrays: the max of their bytes; integers: their bitwise or
        (pp_reduce, one read, no output); floats: whether fewer than n
        elements are zero (see count_nonzero)."""
        x_in, is_bool = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            if is_bool:
                return np.bool_(self._c.reduce(x.h, "max", x.code, x.n, False, -1) != 0)
            if x.dtype.kind in "iu":
                return np.bool_(self._c.reduce(x.h, "or", x.code, x.n, False, -1) != 0)
            return np.bool_(self._zeros(r, x) < x.n)

    def all(self, a):
        """np.all(a) (no axis): whether every element is nonzero (NaN counts
        as true, -0.0 as false), a NumPy bool; True for an empty array.
        bool arrays: the min of their bytes (pp_reduce, one read); numbers:
        whether none is zero (see count_nonzero)."""
        x_in, is_bool = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            if is_bool:
                return np.bool_(self._c.reduce(x.h, "min", x.code, x.n, False, -1) != 0)
            return np.bool_(self._zeros(r, x) == 0)

