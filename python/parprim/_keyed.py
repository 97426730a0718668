"""The segmented, by-key and index primitives of parprim.Context (argsort,
unique, unique_consecutive, segmented_reduce/scan/sort, reduce_by_key,
scan_by_key, run_length_encode): a base class of Context, written against
the same "run" objects (_runs.py) as the other primitives.

Offsets (segment s is a[offsets[s]:offsets[s+1]]) are an integer array of
nseg + 1 entries in the input's library and memory; they reach the C calls
as uint64 (see the runs' offsets()).
"""

from __future__ import annotations

import numpy as np

from . import _parprim as _c
from ._arrays import CODE, I64, U64, is_float, library
from ._axis import argsort_rows, flat_direct, one_axis
from ._numpy_rules import as_bool, bool_as_u8
from . import _operator
from ._operator import Operator
from ._runs import covers, trimmed
from ._parprim import InvalidArgument, _NotDirect

_INF = float("inf")
_U64_CODE = CODE[U64]
# Whether this NumPy's np.unique gives the inverse the input's shape (NumPy 2)
# rather than a flat array (NumPy 1): parprim's unique follows the NumPy present.
_INVERSE_SHAPED = np.unique(np.zeros((1, 1)), return_inverse=True)[1].ndim == 2


def _order(descending, nan_last):
    """The pp_order of the sorts' descending and nan_last."""
    if not descending:
        return _c.ASCENDING
    return _c.DESCENDING_NAN_LAST if nan_last else _c.DESCENDING


def _xp(obj, what):
    """The array module of a result (NumPy, CuPy or PyTorch) for the
    bookkeeping of unique's and unique_consecutive's extra outputs
    (what: the output that needs it)."""
    lib = library(obj)
    if lib == "numpy":
        return np
    if lib == "cupy":
        import cupy

        return cupy
    if lib == "torch":
        import torch

        return torch
    raise InvalidArgument(f"parprim: return_{what}=True computes with NumPy, CuPy or PyTorch arrays, not {lib}")


class KeyedMethods:
    """The segmented, by-key and index primitives (a base of Context)."""

    def argsort(self, a, descending=False, nan_last=True, axis=-1):
        """The stable sort's permutation (pp_argsort): int64 indices such that
        a[indices] is sort(a, descending, nan_last); np.argsort(a,
        kind="stable") for ascending order.

        Equal keys keep their input order in every order (NaNs among
        themselves too). Floats in parprim's sort order: -0.0 before +0.0
        (NumPy keeps the two zeros in input order), NaNs last ascending;
        descending and nan_last as for sort(). Returns a new int64 array of
        a's size (the C call's uint64 indices, whose bits are the same below
        2^63). a is not changed.

        axis: as np.argsort's: -1 (the default: along the last axis), another
        int (negative ones count from the end; out of range:
        numpy.exceptions.AxisError) or None (a's elements in C order, a
        one-dimensional result); a 0-d a is one element. Along an axis of
        an N-D a: each element's position along the axis, sorted with the
        keys by pp_segmented_sort_pairs over rows of the axis's elements
        (moved last); the result has a's shape (a view in a's axis order),
        np.argsort(a, axis, kind="stable") for ascending order.
        """
        if flat_direct(self, a, axis):
            try:  # the direct call (python/src/direct.c)
                return self._c.argsort_new(a, _order(descending, nan_last))
            except _NotDirect:
                pass
        ax = one_axis(a, axis, flat_0d=True)
        if ax is not None:
            return argsort_rows(self, a, ax, descending, nan_last)
        order = _order(descending, nan_last)
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(I64, x.n)
            self._c.argsort(x.h, y.h, order, _U64_CODE, x.code, x.n)
            return r.result(y)

    def unique(self, a, return_index=False, return_inverse=False, return_counts=False, equal_nan=True):
        """np.unique(a, return_index, return_inverse, return_counts, equal_nan)
        for any shape of a (its elements in C order): the sorted unique
        values, and with the return_* flags a tuple (values, index,
        inverse, counts) of those asked for, as NumPy orders them.

        Built from the C calls: the stable sort (pp_sort_copy), pp_argsort
        where index or inverse is asked for, pp_run_length_encode of the
        sorted keys where counts, index or inverse are (else pp_unique). The
        values are C's runs of equal neighbours in sorted order: -0.0 and
        +0.0 are one value, of the sign of a's first zero (what NumPy's
        stable path, return_index=True, keeps; its other paths keep the zero
        its unstable sort puts first; found through the argsort, else where
        a has a -0.0 by pp_select_if of its zeros); NaNs are one value at the end, a's
        first NaN (equal_nan=True, NumPy >= 1.24), or each one of its own
        (equal_nan=False). index: int64, the first occurrence of each value
        in a; inverse: int64 with values[inverse] == a (a's shape where this
        NumPy gives it that shape); counts: int64. Results are arrays of a's
        library (index and inverse of GPU arrays: CuPy and PyTorch). a is
        not changed. Bool arrays: their 0/1 bytes as uint8, the values
        returned as bool (np.unique's False, True).
        """
        if (self._host and type(a) is np.ndarray and a.dtype.kind in "iu" and
                not (return_index or return_inverse or return_counts)):
            try:  # the direct call (python/src/direct.c): integers' values
                return trimmed(*self._c.unique_new(a))
            except _NotDirect:
                pass
        a8, is_bool = bool_as_u8(a)
        if is_bool:
            res = self.unique(a8, return_index, return_inverse, return_counts, equal_nan)
            return (as_bool(res[0]),) + tuple(res[1:]) if isinstance(res, tuple) else as_bool(res)
        need_perm = bool(return_index or return_inverse)
        if not (need_perm or return_counts):
            return self._unique_values(a, equal_nan)
        with self._run(a) as r:
            x = r.input(a)
            n = x.n
            y = r.output(x.dtype, n)
            c = r.output(I64, n, what="counts")
            p = None
            if need_perm:
                p = r.output(I64, n, what="index")
                self._c.argsort(x.h, p.h, _c.ASCENDING, _U64_CODE, x.code, n)
            s = r.private(x)
            self._c.sort_copy(x.h, s.h, _c.ASCENDING, x.code, n)
            k = self._c.run_length_encode(s.h, y.h, c.h, x.code, n)
            values, counts = r.result(y, k), r.result(c, k)
            perm = r.result(p) if need_perm else None
        # The results are complete (a staged run downloads them on exit): the
        # bookkeeping runs in their library.
        if equal_nan and is_float(x.dtype) and k:
            xp = _xp(values, "counts")
            m = int(xp.isnan(values).sum())  # NaNs sort last, each a run of its own (C's ==)
            if m > 1:
                values, counts = values[:k - m + 1], counts[:k - m + 1]
                counts[k - m] = m
        out = [values]
        if need_perm:
            xp = _xp(values, "index" if return_index else "inverse")
            starts = counts.cumsum(0) - counts
            index = perm[starts]
            j = _zero_at(values, x.dtype)
            if j is not None:
                # -0.0 and +0.0 are one value, sorted apart (-0.0 first, stably): its first occurrence is the
                # run's least index; values[j] is -0.0 where a has one, perm[s0] the first -0.0 in a
                s0 = int(starts[j])
                first = perm[s0:s0 + int(counts[j])].min()
                if bool(first != perm[s0]):
                    values[j] = 0.0
                index[j] = first
            if return_index:
                out.append(index)
            if return_inverse:
                shape = _shape(a, n)
                out.append(_inverse(xp.zeros_like(perm), starts[1:], perm, shape if _INVERSE_SHAPED else (n,)))
        else:
            self._zero_as_first(a, values, x.dtype)
        if return_counts:
            out.append(counts)
        return tuple(out)

    def _zero_as_first(self, a, values, dtype):
        """Makes the zero of np.unique's sorted values (-0.0 where a has one:
        parprim's sort puts it first) the sign of a's first zero, as NumPy's
        stable path keeps (pp_select_if of the zeros, where a has a -0.0).
        Results of libraries other than NumPy, CuPy and PyTorch keep -0.0."""
        if library(values) not in ("numpy", "cupy", "torch"):
            return
        j = _zero_at(values, dtype)
        if j is None:
            return
        xp = _xp(values, "values")
        if bool(xp.signbit(values[j])) and not bool(xp.signbit(self.select_if(a, "==", 0)[0])):
            values[j] = 0.0

    def _unique_values(self, a, equal_nan):
        """np.unique(a)'s values alone: the sorted copy, then pp_unique of it
        (C's ==: each NaN kept), or where equal_nan, of its non-NaN part
        (pp_select_if) with one NaN kept."""
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            s = r.private(x)
            self._c.sort_copy(x.h, s.h, _c.ASCENDING, x.code, x.n)
            m = x.n
            if equal_nan and is_float(x.dtype) and m:
                # NaNs sort last: keep the unique non-NaN values and the first NaN
                m = self._c.select_if(s.h, y.h, "<=", _INF, x.code, x.n)
                if m < x.n:
                    m += 1
            count = self._c.unique(s.h, y.h, x.code, m)
            values = r.result(y, count)
        self._zero_as_first(a, values, x.dtype)
        return values

    def unique_consecutive(self, a, return_inverse=False, return_counts=False):
        """torch.unique_consecutive(a, return_inverse, return_counts): the
        first element of each run of equal neighbours, in input order, and
        with the return_* flags a tuple (values, inverse, counts) of those
        asked for. Runs by C's ==, so NaNs are never equal (each NaN is
        kept) and -0.0 equals +0.0 (the run's first is kept). pp_unique for
        the values alone, else pp_run_length_encode. inverse: int64 of a's
        shape, the run of each element (values[inverse] == a); counts:
        int64, each run's length. Returns new arrays trimmed to the count
        (as select_flagged's). What parprim.unique(a) returned
        before it followed np.unique."""
        if not (return_inverse or return_counts):
            with self._run(a) as r:
                x = r.input(a)
                y = r.output(x.dtype, x.n)
                count = self._c.unique(x.h, y.h, x.code, x.n)
                return r.result(y, count)
        values, counts = self.run_length_encode(a)
        out = [values]
        if return_inverse:
            xp = _xp(counts, "inverse")
            n = int(counts.sum())
            ids = counts.new_zeros(n) if hasattr(counts, "new_zeros") else xp.zeros(n, counts.dtype)
            out.append(_inverse(ids, (counts.cumsum(0) - counts)[1:], None, _shape(a, n)))
        if return_counts:
            out.append(counts)
        return tuple(out)

    def segmented_reduce(self, a, offsets, op="sum", exact=False):
        """One reduce per segment (pp_segmented_reduce): out[s] = a[offsets[s]]
        op ... op a[offsets[s+1] - 1], the op's identity for an empty segment.

        offsets: an integer array of nseg + 1 entries (NumPy, or the GPU
        input's library), non-decreasing and at most len(a); segments need
        not cover a. uint64 offsets are used as they are, int64 ones as the
        same bits, others converted. Bad offsets: InvalidArgument on cpu
        and for host offsets on any backend (checked before the upload); GPU
        offsets on a GPU backend are not read back (include/parprim.h).
        op and exact: as for reduce (exact=True on a float sum: Unsupported
        where the backend has no exact segmented form; float16 and bfloat16
        take "min" and "max" only). Returns an array of nseg elements of a's
        dtype.

        op may also be a parprim.Operator (pp_segmented_reduce_op): a of
        its dtype or its packed form, as for reduce; an empty segment gives
        its identity. exact=True raises InvalidArgument.
        """
        if isinstance(op, Operator):
            return _operator.segmented_reduce(self, a, offsets, op, exact)
        with self._run(a) as r:
            x = r.input(a)
            o = r.offsets(offsets, x.n)
            y = r.output(x.dtype, o.n - 1)
            self._c.segmented_reduce(x.h, o.h, y.h, op, o.n - 1, bool(exact), x.code, x.n)
            return r.result(y)

    def segmented_scan(self, a, offsets, op="sum", exclusive=False, out=None, exact=False):
        """A scan per segment (pp_segmented_scan): it restarts at each
        segment's first element (exclusive: the op's identity there).
        offsets: as for segmented_reduce. Elements outside every segment
        keep a's values. out: an array of a's dtype and size, or a itself
        (in place); by default a new array. op, exclusive and exact: as for
        scan.

        op may also be a parprim.Operator (pp_segmented_scan_op): a (and
        out) of its dtype or its packed form, as for scan; exclusive=True
        starts each segment from its identity. exact=True raises
        InvalidArgument.
        """
        if isinstance(op, Operator):
            return _operator.segmented_scan(self, a, offsets, op, exclusive, out, exact)
        with self._run(a) as r:
            x = r.input(a)
            o = r.offsets(offsets, x.n)
            y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x, src=x)
            if not covers(o, x.n):
                r.init_from(y, x)
            self._c.segmented_scan(x.h, y.h, o.h, op, bool(exclusive), o.n - 1, bool(exact), x.code, x.n)
            return r.result(y)

    def segmented_sort(self, a, offsets, descending=False, nan_last=True, out=None):
        """Sorts each segment (pp_segmented_sort): a[offsets[s]:offsets[s+1]]
        sorted as sort() sorts (stable; descending and nan_last as there),
        elements outside every segment as in a. offsets: as for
        segmented_reduce. Returns a new array, or out (of a's dtype and
        size; out=a sorts in place).
        """
        order = _order(descending, nan_last)
        with self._run(a) as r:
            x = r.input(a)
            o = r.offsets(offsets, x.n)
            y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x, src=x)
            r.init_from(y, x)
            self._c.segmented_sort(y.h, None, o.h, 0, o.n - 1, order, x.code, x.n)
            return r.result(y)

    def segmented_sort_pairs(self, keys, values, offsets, descending=False, nan_last=True):
        """segmented_sort of keys, moving values[i] with keys[i]
        (pp_segmented_sort_pairs). values: as for sort_pairs. Returns (keys,
        values): new arrays; the inputs are not changed."""
        order = _order(descending, nan_last)
        with self._run(keys) as r:
            k = r.input(keys, "keys")
            v = r.unshared(k, r.values(values, k.n))
            o = r.offsets(offsets, k.n)
            ky = r.output(k.dtype, k.n, src=k, what="keys")
            vy = r.output(v.dtype, k.n, src=v, what="values")
            r.init_from(ky, k)
            r.init_from(vy, v)
            self._c.segmented_sort(ky.h, vy.h, o.h, v.dtype.itemsize, o.n - 1, order, k.code, k.n)
            return r.result(ky), r.result(vy)

    def _by_key(self, r, keys, values):
        k = r.input(keys, "keys")
        v = r.unshared(k, r.input(values, "values"))
        if v.n != k.n:
            raise InvalidArgument(f"parprim: values has {v.n} elements, keys have {k.n}")
        return k, v

    def reduce_by_key(self, keys, values, op="sum", exact=False):
        """One row per run of equal neighbouring keys (pp_reduce_by_key): the
        run's first key and its values folded with op, in order. Keys
        compare by C's == (each NaN a run of its own, -0.0 == +0.0); sort
        the keys first (sort_pairs) for a group-by. keys and values: arrays
        of one length, of any two parprim types; op and exact: as for
        reduce, on the values. Returns (keys, reduced), trimmed to the
        number of runs.

        op may also be a parprim.Operator (pp_reduce_by_key_op): values of
        its dtype or its packed form (the reduced values in that form),
        keys of any parprim type. exact=True raises InvalidArgument.
        """
        if isinstance(op, Operator):
            return _operator.reduce_by_key(self, keys, values, op, exact)
        with self._run(keys) as r:
            k, v = self._by_key(r, keys, values)
            ko = r.output(k.dtype, k.n, what="keys_out")
            vo = r.output(v.dtype, k.n, what="values_out")
            count = self._c.reduce_by_key(k.h, v.h, ko.h, vo.h, op, v.code, bool(exact), k.code, k.n)
            return r.result(ko, count), r.result(vo, count)

    def scan_by_key(self, keys, values, op="sum", exclusive=False, out=None, exact=False):
        """A scan of values that restarts at each run of equal neighbouring
        keys (pp_scan_by_key; runs as for reduce_by_key). op, exclusive and
        exact: as for scan. out: an array of values' dtype and size, or
        values itself (in place); by default a new array.

        op may also be a parprim.Operator (pp_scan_by_key_op): values (and
        out) of its dtype or its packed form; exclusive=True starts each run
        from its identity. exact=True raises InvalidArgument."""
        if isinstance(op, Operator):
            return _operator.scan_by_key(self, keys, values, op, exclusive, out, exact)
        with self._run(keys) as r:
            k, v = self._by_key(r, keys, values)
            y = r.output(v.dtype, k.n, out, inputs=(k, v), inplace=v, src=v)
            self._c.scan_by_key(k.h, v.h, y.h, op, bool(exclusive), v.code, bool(exact), k.code, k.n)
            return r.result(y)

    def run_length_encode(self, a):
        """The runs of equal neighbours of a (pp_run_length_encode; C's ==,
        as unique_consecutive): (values, counts), the first element of each
        run and its length (int64), trimmed to the number of runs."""
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            c = r.output(I64, x.n, what="counts")
            count = self._c.run_length_encode(x.h, y.h, c.h, x.code, x.n)
            return r.result(y, count), r.result(c, count)


def _zero_at(values, dtype):
    """Where sorted float values hold their zero (-0.0 or +0.0), or None."""
    if not is_float(dtype) or not len(values):
        return None
    zero = values == 0
    return int((zero * 1).argmax()) if bool(zero.any()) else None


def _shape(a, n):
    """a's shape as NumPy sees it (n elements, flat, for an object without one)."""
    if hasattr(a, "shape"):
        return tuple(a.shape)
    return np.shape(a) if isinstance(a, (list, tuple)) else (n,)


def _inverse(ids, starts, order, shape):
    """The run of each element, from runs over a's elements in order (a's
    order where order is None): ids, zeros of a's size in the results'
    library; starts, the first position of every run but the first. Shaped
    as shape."""
    ids[starts] = 1
    run = ids.cumsum(0)
    if order is None:
        return run.reshape(shape)
    ids[order] = run
    return ids.reshape(shape)

