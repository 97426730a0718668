"""Search, merge and top-k of parprim.Context (searchsorted, merge,
merge_pairs, top_k): a base class of Context, written against the same "run"
objects (_runs.py) as the other primitives.

The C calls order keys as pp_sort does (-0.0 before +0.0, every NaN after
+inf); searchsorted adapts that to NumPy's order, where -0.0 == +0.0 (see
_zero_side). Element types are promoted as NumPy promotes them (_common).
"""

from __future__ import annotations

import numpy as np

from . import _parprim as _c
from ._arrays import CODE, I64, as_ndarray, device_view, index, is_device_array, library, torch_dtype
from ._axis import one_axis, top_k_rows
from ._keyed import _order
from ._parprim import InvalidArgument, _NotDirect

_SIDES = ("left", "right")


def _np_dtype(x):
    """The NumPy dtype of an array: a GPU array's as its interface
    (__cuda_array_interface__, __dlpack__) gives it, others np.asarray's."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, np.dtype):
        return dt
    if is_device_array(x):
        return device_view(x).dtype
    return np.asarray(x).dtype


def _shape(v):
    """The shape of v: an array of any kind, or a number (())."""
    if not is_device_array(v):
        return np.shape(v)
    shape = getattr(v, "shape", None)
    return tuple(shape) if shape is not None else (device_view(v).n,)


def _astype(x, dt):
    """x as dtype dt, converted by its own library (x itself where it has it)."""
    if _np_dtype(x) == dt:
        return x
    if library(x) == "torch":
        return x.to(torch_dtype(dt))
    return x.astype(dt)


def _parprim_type(dt, what):
    if dt not in CODE:
        raise TypeError(f"parprim: {what} compare as {dt} (NumPy's promotion), which is not a parprim element type")
    return dt


def _exact_in(small, big):
    """Whether every value of dtype small is a value of dtype big."""
    if small.kind == "f" or big.kind != "f":
        return True  # float32 in float64; integers in the wider integer type NumPy promotes to
    return small.itemsize * 8 - (small.kind == "i") <= np.finfo(big).nmant + 1


def _lossless(v, dt):
    """Whether every element of the NumPy array v is a value of dtype dt."""
    if v.dtype.kind not in "iufb":
        return False
    with np.errstate(all="ignore"):
        if dt.kind == "u" and v.dtype.kind in "if" and bool((v < 0).any()):
            return False
        if dt.kind == "i" and v.dtype.kind == "u" and bool((v > np.iinfo(dt).max).any()):
            return False
        back = v.astype(dt).astype(v.dtype)
    return bool(np.array_equal(back, v, equal_nan=v.dtype.kind == "f"))


def _common(a_dt, v, v_dt):
    """The dtype NumPy compares a (dtype a_dt) and v in: Python numbers
    promote weakly (NumPy 2; an int beyond a_dt's range as its own array
    would), arrays by their dtypes. TypeError where there is none."""
    try:
        if type(v) in (int, float, bool):
            if type(v) is int and a_dt.kind in "iu":
                info = np.iinfo(a_dt)
                if not info.min <= v <= info.max:
                    return np.result_type(a_dt, v_dt)
            return np.result_type(a_dt, v)
        return np.result_type(a_dt, v_dt)
    except TypeError as e:
        raise TypeError(f"parprim: no common element type for {a_dt} and {v_dt}: {e}") from None


def _promote(a, v, what):
    """(a, v) in one parprim element type, as NumPy compares them: host
    arrays and numbers are NumPy arrays (v converted alone where its values
    are a's type's, so a is not copied: the comparisons are the same), GPU
    arrays are converted by their library. a, v: arrays of one kind (v a
    number too)."""
    if is_device_array(a):
        if not is_device_array(v):
            v = _device_like(a, v)
        a_dt, v_dt = _np_dtype(a), _np_dtype(v)
        common = _parprim_type(_common(a_dt, v, v_dt), what)
        return _astype(a, common), _astype(v, common)
    a = as_ndarray(a, what.split(" ")[0])
    vv = as_ndarray(v, "v")
    common = _common(a.dtype, v, vv.dtype)
    if common == a.dtype or (_exact_in(a.dtype, common) and a.dtype in CODE and _lossless(vv, a.dtype)):
        return a, vv.astype(a.dtype, copy=False)
    common = _parprim_type(common, what)
    return a.astype(common, copy=False), vv.astype(common, copy=False)


def _device_like(a, v):
    """A number (or host values) v as a GPU array of a's library and device."""
    lib = library(a)
    if lib == "cupy":
        import cupy

        return cupy.asarray(v)
    if lib == "torch":
        import torch

        return torch.as_tensor(v, device=a.device)
    raise InvalidArgument(f"parprim: v must be a GPU array of a's library ({lib}) here")


def _zero_side(v, side, descending):
    """The queries with every zero of the sign that makes the C call's search
    NumPy's: pp_sort's order puts -0.0 before +0.0, NumPy's has them equal.
    The zeros of a sorted a are one block (any mix of signs); a search for
    -0.0 (ascending, left) stops before it, for +0.0 (right) after it, and
    for a nonzero query every zero compares alike. Descending reverses the
    signs. v: floats of a's library."""
    neg = (side == "left") != bool(descending)
    lib = library(v)
    if lib == "numpy":
        z = v == 0
        if not z.any():
            return v
        return np.where(z, v.dtype.type(-0.0 if neg else 0.0), v)
    if lib == "torch":
        import torch

        return torch.where(v == 0, torch.tensor(-0.0 if neg else 0.0, dtype=v.dtype, device=v.device), v)
    if lib == "cupy":
        import cupy

        return cupy.where(v == 0, v.dtype.type(-0.0 if neg else 0.0), v)
    raise InvalidArgument(f"parprim: searchsorted of float queries takes NumPy, CuPy or PyTorch arrays, not {lib} "
                          "(their zeros are given a sign first)")


class SearchMethods:
    """searchsorted, merge, merge_pairs and top_k (a base of Context)."""

    def searchsorted(self, a, v, side="left", sorter=None, descending=False, nan_last=True):
        """np.searchsorted(a, v, side, sorter): for each query in v, the index
        at which inserting it keeps a sorted (pp_lower_bound for side="left":
        the number of elements of a below the query; pp_upper_bound for
        "right": below or equal).

        a: sorted ascending (as np.sort or sort() leave it; any shape is
        taken flat, its elements in C order), or a[sorter] sorted where
        sorter (integer indices, np.argsort's) is given. Sortedness is not
        checked: on unsorted data the indices are unspecified (each in [0,
        len(a)]). v: a number, or an array of any shape. Returns int64
        indices of v's shape (a NumPy int64 scalar for a number), as NumPy.
        Floats as NumPy compares them: -0.0 == +0.0 (the C call orders -0.0
        first; the queries' zeros are given the sign that makes its answer
        NumPy's, so a may hold zeros of both signs in any order), NaN above
        +inf, all NaNs equal. a and v of different dtypes are compared in
        NumPy's common dtype (np.result_type; Python numbers weakly, as
        NumPy 2): v is converted, and a only where v's values are not all
        a's type's (as NumPy, a copy of a); TypeError where the common
        dtype is not a parprim type.

        descending=True (not in NumPy): a is sorted descending, as
        sort(descending=True, nan_last=nan_last) leaves it; "left" counts
        the elements above the query, "right" those above or equal (-0.0 ==
        +0.0 here too). GPU arrays: v of a's library, or a number.
        """
        if side not in _SIDES:
            raise InvalidArgument(f"parprim: side {side!r} is not 'left' or 'right'")
        order = _order(descending, nan_last)
        if (self._host and sorter is None and type(a) is np.ndarray and type(v) is np.ndarray and v.ndim == 1 and
                a.dtype == v.dtype and a.dtype.kind in "iuf"):
            try:  # the direct call (python/src/direct.c): a and v of one dtype (float queries without zeros)
                return self._c.search_new(a, v, side == "right", order)
            except _NotDirect:
                pass
        primary = a  # results in its library (a PyTorch CPU tensor gives tensors)
        if sorter is not None:
            a = _take(a, sorter)
        shape = tuple(_shape(v))
        a, v = _promote(a, v, "a and v")
        if _np_dtype(v).kind == "f":
            v = _zero_side(v, side, descending)
        with self._run(primary) as r:
            x = r.input(a)
            q = r.input(v, "v")
            y = r.output(I64, q.n)
            self._c.search(x.h, q.h, y.h, side == "right", order, q.n, x.code, x.n)
            res = r.result(y)
        if len(shape) != 1:
            res = res.reshape(shape)
            if isinstance(res, np.ndarray) and not shape:
                return res[()]
        return res

    def merge(self, a, b, descending=False, nan_last=True):
        """The stable merge of two sorted arrays (pp_merge): the elements of a
        and b in order, each in its own input order, and of two equal
        elements a's first; np.sort(np.concatenate((a, b)), kind="stable")
        in one linear pass.

        a and b: sorted as sort(descending=descending, nan_last=nan_last)
        leaves them (floats: -0.0 before +0.0, NaNs last ascending; not
        checked: on unsorted inputs the order of the result is unspecified,
        its elements are still a's and b's). Arrays of NumPy's common dtype
        (np.result_type) are merged where their dtypes differ (a converted
        copy of the one that needs it). Returns a new array of len(a) +
        len(b) elements; key bits are moved unchanged.
        """
        order = _order(descending, nan_last)
        primary = a
        a, b = _promote(a, b, "a and b")
        with self._run(primary) as r:
            x = r.input(a)
            y = r.input(b, "b")
            out = r.output(x.dtype, x.n + y.n)
            self._c.merge(x.h, y.h, out.h, None, None, None, 0, order, y.n, x.code, x.n)
            return r.result(out)

    def merge_pairs(self, a_keys, a_values, b_keys, b_values, descending=False, nan_last=True):
        """merge() of a_keys and b_keys, each key's value moving with it
        (pp_merge_pairs): returns (keys, values), new arrays of len(a_keys) +
        len(b_keys). values: arrays of their keys' lengths, of one dtype
        whose items are 1, 2, 4 or 8 bytes (values of two numeric dtypes
        are converted to NumPy's common one). Stable: of equal keys, a's
        first, each side in its input order."""
        order = _order(descending, nan_last)
        primary = a_keys
        a_keys, b_keys = _promote(a_keys, b_keys, "a_keys and b_keys")
        if _np_dtype(a_values) != _np_dtype(b_values):
            a_values, b_values = _promote(a_values, b_values, "a_values and b_values")
        with self._run(primary) as r:
            ka = r.input(a_keys, "a_keys")
            kb = r.input(b_keys, "b_keys")
            va = r.values(a_values, ka.n, "a_values")
            vb = r.values(b_values, kb.n, "b_values")
            n = ka.n + kb.n
            ko = r.output(ka.dtype, n, what="keys")
            vo = r.output(va.dtype, n, what="values")
            self._c.merge(ka.h, kb.h, ko.h, va.h, vb.h, vo.h, va.dtype.itemsize, order, kb.n, ka.code, ka.n)
            return r.result(ko), r.result(vo)

    def top_k(self, a, k, largest=True, nan_last=False, axis=-1):
        """The k largest (largest=True) or smallest elements of a, sorted, and
        their positions (pp_top_k): (values, indices) as torch.topk(a, k,
        largest=largest, sorted=True) gives them, values of a's dtype and
        int64 indices, arrays of a's library.

        The first k of the stable sort of a: equal elements by index,
        lowest first (torch.topk leaves the order of ties unspecified and
        can give other indices for them). Floats in parprim's sort order:
        +0.0 above -0.0 (torch has them equal, so they are ties there); NaN
        above +inf, as torch has it: largest=True gives NaNs first,
        largest=False last. nan_last=True with largest=True puts NaNs last
        (they are taken only when fewer than k other elements exist).
        k > len(a) is clamped to len(a) (the C call's rule; torch raises);
        k = 0 gives empty arrays; a negative k is InvalidArgument.

        axis: -1 (the default: along the last axis, as torch.topk's dim=-1),
        another int (negative ones count from the end; out of range:
        numpy.exceptions.AxisError) or None (a's elements in C order, taken
        flat). Along an axis of an N-D a: the first k of each row of the
        axis's elements (moved last) sorted with their positions by
        pp_segmented_sort_pairs (the same order and ties as pp_top_k);
        values and indices have a's shape with min(k, a.shape[axis]) along
        the axis (views in a's axis order). A 0-d a is one element.
        """
        k = index(k, "k")
        if k < 0:
            raise InvalidArgument(f"parprim: k = {k} is negative")
        ax = one_axis(a, axis, flat_0d=True)
        if ax is not None:
            return top_k_rows(self, a, k, ax, largest, nan_last)
        order = _order(largest, nan_last)
        with self._run(a) as r:
            x = r.input(a)
            kk = min(k, x.n)
            y = r.output(x.dtype, kk, what="values")
            i = r.output(I64, kk, what="indices")
            self._c.top_k(x.h, y.h, i.h, k, order, x.code, x.n)
            return r.result(y), r.result(i)


def _take(a, sorter):
    """a[sorter], flat, in a's library (searchsorted's sorter)."""
    if is_device_array(a):
        return a.reshape(-1)[sorter]
    a = as_ndarray(a)
    s = as_ndarray(sorter, "sorter")
    if s.dtype.kind not in "iu":
        raise InvalidArgument(f"parprim: sorter has dtype {s.dtype}; it must hold integer indices")
    if s.size != a.size:
        raise InvalidArgument(f"parprim: sorter has {s.size} elements, a has {a.size}")
    try:
        return a.reshape(-1).take(s.reshape(-1))
    except IndexError as e:
        raise InvalidArgument(f"parprim: sorter: {e}") from None
