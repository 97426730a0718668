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
from ._arrays import CODE, I64, U64, library
from ._parprim import InvalidArgument

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
    bookkeeping of unique's extra outputs."""
    lib = library(obj)
    if lib == "numpy":
        return np
    if lib == "cupy":
        import cupy

        return cupy
    if lib == "torch":
        import torch

        return torch
    raise InvalidArgument(f"parprim: unique({what}=True) computes with NumPy, CuPy or PyTorch arrays, not {lib}")


class KeyedMethods:
    """The segmented, by-key and index primitives (a base of Context)."""

    def argsort(self, a, descending=False, nan_last=True):
        """The stable sort's permutation (pp_argsort): int64 indices such that
        a[indices] is sort(a, descending, nan_last); np.argsort(a,
        kind="stable") for ascending order.

        Equal keys keep their input order in every order (NaNs among
        themselves too). Floats in parprim's sort order: -0.0 before +0.0
        (NumPy keeps the two zeros in input order), NaNs last ascending;
        descending and nan_last as for sort(). Returns a new int64 array of
        a's size (the C call's uint64 indices, whose bits are the same below
        2^63). a is not changed.
        """
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
        +0.0 are one value (parprim keeps -0.0 where the input has one; NumPy
        keeps whichever zero its sort puts first); NaNs are one value at the
        end (equal_nan=True, NumPy >= 1.24) or each one of its own
        (equal_nan=False). index: int64, the first occurrence of each value
        in a; inverse: int64 with values[inverse] == a (a's shape where this
        NumPy gives it that shape); counts: int64. Results are arrays of a's
        library (index and inverse of GPU arrays: CuPy and PyTorch). a is
        not changed.
        """
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
        if equal_nan and x.dtype.kind == "f" and k:
            xp = _xp(values, "counts")
            m = int(xp.isnan(values).sum())  # NaNs sort last, each a run of its own (C's ==)
            if m > 1:
                values, counts = values[:k - m + 1], counts[:k - m + 1]
                counts[k - m] = m
        out = [values]
        if need_perm:
            xp = _xp(values, "index" if return_index else "inverse")
            starts = counts.cumsum(0) - counts
            if return_index:
                index = perm[starts]
                zero = values == 0
                if x.dtype.kind == "f" and bool(zero.any()):
                    # -0.0 and +0.0 sort apart but are one value: its first occurrence is the run's least index
                    j = int((zero * 1).argmax())
                    s0 = int(starts[j])
                    index[j] = perm[s0:s0 + int(counts[j])].min()
                out.append(index)
            if return_inverse:
                ids = xp.zeros_like(perm)
                ids[starts[1:]] = 1
                inverse = xp.empty_like(perm)
                inverse[perm] = ids.cumsum(0)
                shape = tuple(getattr(a, "shape", (n,)))
                if _INVERSE_SHAPED and len(shape) != 1:
                    inverse = inverse.reshape(shape)
                out.append(inverse)
        if return_counts:
            out.append(counts)
        return tuple(out)

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
            if equal_nan and x.dtype.kind == "f" and m:
                # NaNs sort last: keep the unique non-NaN values and the first NaN
                m = self._c.select_if(s.h, y.h, "<=", _INF, x.code, x.n)
                if m < x.n:
                    m += 1
            count = self._c.unique(s.h, y.h, x.code, m)
            return r.result(y, count)

    def unique_consecutive(self, a):
        """The first element of each run of equal neighbours, in input order
        (pp_unique; torch.unique_consecutive's values): C's ==, so NaNs are
        never equal (each NaN is kept) and -0.0 equals +0.0. Returns a new
        array (on cpu a view of an array of len(a), trimmed to the count).
        What parprim.unique(a) returned before it followed np.unique."""
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            count = self._c.unique(x.h, y.h, x.code, x.n)
            return r.result(y, count)

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
        where the backend has no exact segmented form). Returns an array of
        nseg elements of a's dtype.
        """
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
        """
        with self._run(a) as r:
            x = r.input(a)
            o = r.offsets(offsets, x.n)
            y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x, src=x)
            if not _covers(o, x.n):
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
        """
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
        values itself (in place); by default a new array."""
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


def _covers(o, n):
    """Whether host offsets cover the whole array (then no element of a
    segmented scan's output is left for a's values); False for device
    offsets, which are not read back."""
    h = o.obj
    return isinstance(h, np.ndarray) and int(h[0]) == 0 and int(h[-1]) == n
