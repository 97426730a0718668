"""axis= for parprim.Context's sort, argsort, scan, reduce and top_k on N-D
arrays: NumPy's axis rules (negative axes, numpy.exceptions.AxisError,
reduce's tuples of axes and keepdims) over the C library's segmented
primitives.

The work is the C calls' (pp_segmented_sort, pp_segmented_sort_pairs,
pp_segmented_scan, pp_segmented_reduce); this module only moves the axis
(or axes) last, makes the array C-contiguous (no copy where it is so
already: the last axis of a C-contiguous array), cuts it into rows of m =
the axis's length (segment s is elements s*m .. (s+1)*m), and puts the
results back in the input's axis order. NumPy arrays, and CuPy and PyTorch
arrays (moved by their own library).
"""

from __future__ import annotations

import math

import numpy as np

from ._arrays import DTYPES, I64, U64, as_ndarray, code_of, host_wrapper, is_device_array, library, torch_dtype
from ._numpy_rules import _out_code
from ._parprim import InvalidArgument, Unsupported

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    AxisError = np.AxisError

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _ndim(a):
    """a's number of dimensions: its shape's, its CUDA Array Interface's, a
    host DLPack producer's through NumPy; 1 for a GPU DLPack producer
    without a shape (taken as its elements in order)."""
    shape = getattr(a, "shape", None)
    if shape is not None:
        return len(shape)
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return len(cai["shape"])
    if hasattr(a, "__dlpack__"):
        return 1 if is_device_array(a) else as_ndarray(a).ndim
    return np.ndim(a)


def _axis_index(axis, ndim):
    """axis as an index in [0, ndim): NumPy's errors (TypeError for a
    non-integer, AxisError out of range)."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")
    ax = axis.__index__()
    if not -ndim <= ax < ndim:
        raise AxisError(ax, ndim)
    return ax % ndim


def flat_direct(ctx, a, axis):
    """1 where a sort-like call on a may take the binding's direct call
    (python/src/direct.c): a plain NumPy array on a host context, sorted
    flat (axis None, or -1 of a 1-D array); the call itself may still
    refuse it (_NotDirect)."""
    return (ctx._host and type(a) is np.ndarray and
            (axis is None or (type(axis) is int and axis == -1 and a.ndim == 1)))


def one_axis(a, axis, flat_0d):
    """The axis of a call that takes one (sort, argsort, scan, top_k), or
    None where the call runs on a's elements in C order as before: axis
    None, or a of at most one dimension. flat_0d: a 0-d a is taken as one
    element (np.argsort, np.cumsum); else a 0-d a takes no axis (np.sort)."""
    if axis is None:
        return None
    nd = _ndim(a)
    if nd == 1 and type(axis) is int and -1 <= axis <= 0:  # the common case, quickly
        return None
    if nd == 0 and flat_0d:
        nd = 1
    ax = _axis_index(axis, nd)
    return ax if nd > 1 else None


def reduce_axes(a, axis, keepdims):
    """The axes of a reduce (np.sum's axis: None, an int or a tuple of
    ints), sorted, or None for the whole of a as one value (no keepdims)."""
    nd = _ndim(a)
    if axis is None:
        return tuple(range(nd)) if keepdims and nd else None
    axes = axis if isinstance(axis, tuple) else (axis,)
    if nd == 0:  # NumPy reduces a 0-d array over axis 0 or -1 as one element
        for ax in axes:
            if not _ax_ok_0d(ax):
                _axis_index(ax, 0)  # raises
        return None
    idx = tuple(_axis_index(ax, nd) for ax in axes)
    if len(set(idx)) != len(idx):
        raise ValueError("duplicate value in 'axis'")
    if not keepdims and len(idx) == nd:
        return None
    return tuple(sorted(idx))


def _ax_ok_0d(ax):
    return hasattr(ax, "__index__") and not isinstance(ax, bool) and ax.__index__() in (0, -1)


class Rows:
    """a with axes moved last and C-contiguous, seen as nseg rows of m
    elements: flat (1-D, a's library; a view of a where no copy is needed),
    offsets (host uint64, s*m for s = 0 .. nseg)."""

    def __init__(self, a, axes):
        if is_device_array(a):
            self.lib = library(a)
            if self.lib not in ("cupy", "torch"):
                raise InvalidArgument(f"parprim: axis= on an N-D GPU array takes CuPy and PyTorch arrays, not "
                                      f"{self.lib}")
            x = a
            self.wrap = None
        else:
            self.lib = "numpy"
            x = as_ndarray(a)
            if x.ndim == 0:
                x = x.reshape(1)
            self.wrap = host_wrapper(a)
        self.shape = tuple(x.shape)
        nd = len(self.shape)
        self.axes = axes
        self.last = tuple(range(nd - len(axes), nd))
        moved = self._moveaxis(x, axes, self.last)
        self.moved_shape = tuple(moved.shape)
        self.m = math.prod(self.shape[ax] for ax in axes)
        self.nseg = math.prod(self.moved_shape[:nd - len(axes)])
        self.flat = self._contiguous(moved).reshape(-1)
        self.offsets = self._on_device(np.arange(self.nseg + 1, dtype=U64) * np.uint64(self.m), x)
        self.dtype = _np_dtype(x) if self.lib == "torch" else np.dtype(x.dtype)

    def _on_device(self, o, x):
        """Host offsets o where the segmented calls take them: on x's device
        for CuPy and PyTorch arrays (int64: uint64's bits)."""
        if self.lib == "cupy":
            import cupy

            with cupy.cuda.Device(x.device.id):
                return cupy.asarray(o)
        if self.lib == "torch":
            import torch

            return torch.from_numpy(o.view(I64)).to(x.device)
        return o

    def _xp(self):
        if self.lib == "cupy":
            import cupy

            return cupy
        return np

    def _moveaxis(self, x, src, dst):
        if self.lib == "torch":
            return x.movedim(src, dst)
        return self._xp().moveaxis(x, src, dst)

    def _contiguous(self, x):
        if self.lib == "torch":
            return x.contiguous()
        return self._xp().ascontiguousarray(x)

    def astype(self, x, dt):
        """x converted to the NumPy dtype dt by its library."""
        if library(x) == "torch":
            return x.to(torch_dtype(dt))
        return x.astype(dt)

    def iota(self):
        """Each element's position in its row (int64, rows of m, a's library)."""
        if self.lib == "torch":
            import torch

            return torch.arange(self.m, dtype=torch.int64, device=self.flat.device).repeat(self.nseg)
        xp = self._xp()
        return xp.tile(xp.arange(self.m, dtype=I64), self.nseg)

    def back(self, y, m=None):
        """A result of rows of m (default: the rows' m) in a's axis order."""
        shape = self.moved_shape if m is None else self.moved_shape[:-1] + (m,)
        y = self._moveaxis(y.reshape(shape), self.last, self.axes)
        return self.wrap(y) if self.wrap is not None else y

    def reduced(self, y, keepdims):
        """One value per row in the shape of np.sum(a, axis, keepdims)."""
        if keepdims:
            shape = tuple(1 if i in self.axes else s for i, s in enumerate(self.shape))
        else:
            shape = self.moved_shape[:len(self.shape) - len(self.axes)]
        y = y.reshape(shape)
        return self.wrap(y) if self.wrap is not None else y

    def out_flat(self, out):
        """out's elements as the segmented call's out=, where it can write
        them directly: the axis is a's last (the rows are a's elements in C
        order) and out is C-contiguous; else None (into() copies the result
        in). out must have a's shape (InvalidArgument, before any work)."""
        if tuple(out.shape) != self.shape:
            raise InvalidArgument(f"parprim: out has shape {tuple(out.shape)}; with axis= it takes a's shape "
                                  f"{self.shape}")
        if self.axes != self.last:
            return None
        if library(out) == "torch":
            return out.reshape(-1) if out.is_contiguous() else None
        flags = getattr(out, "flags", None)
        return out.reshape(-1) if flags is not None and flags.c_contiguous else None

    def into(self, out, y):
        """Writes y (a's shape) into out, returns out."""
        if library(out) == "torch":
            import torch

            out.copy_(y if library(y) == "torch" else torch.from_numpy(np.asarray(y)))
        else:
            out[...] = y
        return out


def sort_rows(ctx, a, axis, descending, nan_last, out):
    """sort along one axis: pp_segmented_sort of the rows."""
    rows = Rows(a, (axis,))
    flat = None if out is None else rows.out_flat(out)
    y = ctx.segmented_sort(rows.flat, rows.offsets, descending, nan_last, flat)
    if flat is not None:
        return out
    res = rows.back(y)
    return res if out is None else rows.into(out, res)


def _sorted_pairs(ctx, a, axis, descending, nan_last):
    rows = Rows(a, (axis,))
    keys, idx = ctx.segmented_sort_pairs(rows.flat, rows.iota(), rows.offsets, descending, nan_last)
    return rows, keys, idx


def argsort_rows(ctx, a, axis, descending, nan_last):
    """argsort along one axis: pp_segmented_sort_pairs of the rows with each
    element's position in its row."""
    rows, _, idx = _sorted_pairs(ctx, a, axis, descending, nan_last)
    return rows.back(idx)


def top_k_rows(ctx, a, k, axis, largest, nan_last):
    """top_k along one axis: the first k of each row sorted as pp_top_k
    sorts (pp_segmented_sort_pairs with positions: the same order, ties by
    index)."""
    rows, keys, idx = _sorted_pairs(ctx, a, axis, largest, nan_last)
    kk = min(k, rows.m)
    keys = keys.reshape(rows.nseg, rows.m)[:, :kk]
    idx = idx.reshape(rows.nseg, rows.m)[:, :kk]
    return rows.back(keys, kk), rows.back(idx, kk)


def _widened(ctx, rows, x, code, oc, op):
    """x converted to out type oc where it differs from code, after the C
    library has accepted the pair (pp_reduce_to with no elements checks it:
    InvalidArgument for a narrowing dtype); integers and float32 widen
    exactly, so the segmented call in oc gives pp_reduce_to's values."""
    if oc == code:
        return x
    ctx._c.reduce(np.zeros(0, DTYPES[code]) if ctx._host else 0, op, code, 0, False, oc)
    return rows.astype(x, DTYPES[oc])


def scan_rows(ctx, a, axis, op, exclusive, out, exact, dtype, is_bool):
    """scan along one axis: pp_segmented_scan of the rows, in NumPy's result
    type (the rows converted first where it is wider than a's). Returns
    (result, its pp_type)."""
    rows = Rows(a, (axis,))
    code = code_of(rows.dtype)
    oc = _out_code(code, op, dtype, is_bool, "scan")
    flat = None if out is None else rows.out_flat(out)
    x = _widened(ctx, rows, rows.flat, code, oc, op)
    y = ctx.segmented_scan(x, rows.offsets, op, exclusive, flat, exact)
    if flat is not None:
        return out, oc
    res = rows.back(y)
    return (res if out is None else rows.into(out, res)), oc


def reduce_rows(ctx, a, axes, op, exact, dtype, is_bool, keepdims):
    """reduce along axes: pp_segmented_reduce of the rows, in NumPy's result
    type oc. exact=None: a float32 sum is summed in float64 and rounded to
    float32 (as reduce's default, where the context's reduce algorithm is
    "auto" and the backend has float64)."""
    rows = Rows(a, axes)
    code = code_of(rows.dtype)
    oc = _out_code(code, op, dtype, is_bool, "reduce")
    x = _widened(ctx, rows, rows.flat, code, oc, op)
    y = None
    if exact is None and op == "sum" and rows.dtype == _F32 and oc == code and ctx.get_algorithm("reduce") == "auto":
        try:
            y = rows.astype(ctx.segmented_reduce(rows.astype(x, _F64), rows.offsets, op, False), _F32)
        except Unsupported:  # no float64 on this device
            pass
    if y is None:
        y = ctx.segmented_reduce(x, rows.offsets, op, bool(exact))
    res = rows.reduced(y, keepdims)
    return (res[()] if rows.lib == "numpy" and res.ndim == 0 else res), oc


def _np_dtype(t):
    """The NumPy dtype of a PyTorch tensor."""
    return np.dtype(str(t.dtype).replace("torch.", ""))
