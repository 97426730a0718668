"""The three ways a call of parprim.Context reaches the C library, one "run"
class each:

- host:   a cpu context and NumPy arrays: the arrays' own memory is passed to
          the C call (zero copy for C-contiguous arrays) (_HostRun);
- staged: a GPU context (cuda or opencl) and NumPy arrays: each input is
          uploaded to memory of the context (pp_malloc + pp_upload), the
          primitive runs there and the results are downloaded (_StagedRun);
- device: a cuda context and GPU arrays (CUDA Array Interface or DLPack):
          the arrays' device memory is passed to the C call, results are
          allocated with the input's own library (CuPy in, CuPy out)
          (_DeviceRun).

The primitives (_context.py) are written once against a small "run" object
of each mode (input, output, scratch, result); a run is
a context manager that holds the call's buffers and finishes the call
(downloads, frees, stream release) on exit.
"""

from __future__ import annotations

import numpy as np

from . import _parprim as _c
from ._arrays import (BOOL, CODE, U8, U64, DeviceArray, DL_CUDA, DL_CUDA_MANAGED, bits, check_no_overlap, check_offsets,
                      check_values_dtype, code_of, device_view, host_flags, host_input, host_offsets, host_out,
                      host_values, host_wrapper, is_device_array, library, make_contiguous, same_memory,
                      torch_dtype)
from ._parprim import Error, InvalidArgument


class _Op:
    """An array as a call sees it: h (what the C call takes: a NumPy array
    on the host, else an address or cl_mem handle), obj (what the caller
    gets back), dtype, code (pp_type or -1), n, count (elements to
    return), new (obj is an output the run made, not the caller's out=)."""

    __slots__ = ("h", "obj", "dtype", "code", "n", "count", "new")

    def __init__(self, h, obj, dtype, code, n, new=False):
        self.h, self.obj, self.dtype, self.code, self.n, self.count, self.new = h, obj, dtype, code, n, None, new


# A result of count elements at the front of a new output of n is copied out
# (trimmed) where it is at most half of it and the output holds at least this
# many bytes: a compaction that keeps 2 of 10^7 elements does not keep the
# 10^7-element buffer alive; below this size the copy would cost more than
# the memory it frees.
_TRIM_BYTES = 1 << 16


def _trims(y, count):
    return y.new and count * 2 <= y.n and y.n * y.dtype.itemsize >= _TRIM_BYTES


def trimmed(y, count):
    """The first count elements of y, a new NumPy output of a direct call,
    trimmed as _HostRun.result trims (see _TRIM_BYTES)."""
    return y[:count].copy() if count * 2 <= y.size and y.nbytes >= _TRIM_BYTES else y[:count]


class _HostRun:
    """cpu context, NumPy arrays (or PyTorch CPU tensors, seen through
    NumPy): C works on the arrays' own memory."""

    def __init__(self, ctx, primary):
        self.c = ctx._c
        self.wrap = host_wrapper(primary)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def input(self, a, what="a"):
        x, code = host_input(a, what)
        return _Op(bits(x), x, x.dtype, code, x.size)

    def flags(self, f, n, what="flags"):
        f = host_flags(f, n, what)
        return _Op(f, f, f.dtype, -1, n)

    def values(self, v, n, what="values"):
        v = host_values(v, n, what)
        return _Op(bits(v), v, v.dtype, -1, n)

    def offsets(self, o, n, what="offsets"):
        """Segment offsets (nseg + 1) as uint64: obj is the host array
        (the C call checks it against n)."""
        o = host_offsets(o, what)
        return _Op(o, o, U64, CODE[U64], o.size)

    def init_from(self, y, x):
        """Makes y (an output of x's size) hold x, for a call that works in
        place on y (nothing to do where y is x's memory)."""
        if x.n and not same_memory(y.h, x.h):
            np.copyto(y.h, x.h)

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        """An output of n elements: out (checked) or a new array. inputs:
        the inputs out must not overlap, but for inplace, which it may be
        exactly; the C call checks that where it sees the caller's memory
        (here, and the device run), the staged run (which passes uploads)
        itself. src: the input that an out-of-place call (pp_sort_copy)
        reads into the output; a run that holds a private copy of it
        (staged) gives that copy as the output, so the call runs in place
        there. Here the output is new memory or out."""
        code = CODE.get(dtype, -1)
        if out is None:
            y = np.empty(n, dtype)
            return _Op(bits(y), y, dtype, code, n, new=True)
        return _Op(bits(host_out(out, dtype, n, what)), out, dtype, code, n)  # the C call checks overlaps

    def scratch(self, dtype, n):
        t = np.empty(n, dtype)
        return _Op(bits(t), None, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        """Memory of x's size and type that the call may change, for an
        out-of-place call from x (as output()'s src): x's private copy
        where the run holds one (staged), else new (uninitialized)."""
        return self.scratch(x.dtype, x.n)

    def unshared(self, x, y):
        """y, or a copy of it where it shares memory with x (the C calls
        take no overlapping inputs)."""
        if x.n and y.n and np.may_share_memory(x.h, y.h):
            return _Op(y.h.copy(), y.obj, y.dtype, y.code, y.n)
        return y

    def to_host(self, x):
        return x.h.view(x.dtype)

    def put(self, y, host):
        np.copyto(y.h.view(y.dtype), host)

    def as_f64(self, x):
        h = x.h.astype(np.float64)
        return _Op(h, None, h.dtype, CODE[h.dtype], x.n)

    def result(self, y, count=None):
        """What the caller gets of output y: all of it, or its first count
        elements (trimmed: see _TRIM_BYTES)."""
        if count is None:
            return self.wrap(y.obj)
        return self.wrap(y.obj[:count].copy() if _trims(y, count) else y.obj[:count])


def _download(run, x):
    """A NumPy copy of x, an array in a GPU context's memory (the to_host of
    the staged and device runs)."""
    host = np.empty(x.n, x.dtype)
    if x.n:
        run.c.download(bits(host), x.h, x.n * x.dtype.itemsize)
    return host


class _StagedOp(_Op):
    """A staged output: also the flat host array it is downloaded into."""

    __slots__ = ("obj_flat",)


class _StagedRun:
    """GPU context, NumPy arrays: inputs are uploaded to memory of the
    context, outputs downloaded when the call is complete (only then, so a
    failed call leaves out= as it was); every buffer is freed at the end."""

    def __init__(self, ctx, primary):
        self.c = ctx._c
        self.wrap = host_wrapper(primary)
        self.bufs = []
        self.downloads = []

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        try:
            if etype is None:
                for y in self.downloads:
                    count = y.n if y.count is None else y.count
                    if count:
                        self.c.download(bits(y.obj_flat), y.h, count * y.dtype.itemsize)
        finally:
            for h in self.bufs:
                try:
                    self.c.free(h)
                except Error:
                    if etype is None:
                        raise
        return False

    def _alloc(self, nbytes):
        h = self.c.malloc(nbytes)
        if h:
            self.bufs.append(h)
        return h

    def _upload(self, x):
        h = self._alloc(x.nbytes)
        if x.nbytes:
            self.c.upload(h, bits(x), x.nbytes)
        return h

    def _host(self, a, what):
        if is_device_array(a):
            raise InvalidArgument(f"parprim: {what} is a GPU array, but the primary input is a host array; "
                                  "pass arrays of one kind")
        return a

    def input(self, a, what="a"):
        x, code = host_input(self._host(a, what), what)
        return _Op(self._upload(x), x, x.dtype, code, x.size)

    def flags(self, f, n, what="flags"):
        f = host_flags(self._host(f, what), n, what)
        return _Op(self._upload(f), f, f.dtype, -1, n)

    def values(self, v, n, what="values"):
        v = host_values(self._host(v, what), n, what)
        return _Op(self._upload(v), v, v.dtype, -1, n)

    def offsets(self, o, n, what="offsets"):
        # The GPU backends do not check offsets (include/parprim.h); they are host data here, so check them.
        o = host_offsets(self._host(o, what), what)
        check_offsets(o, n, what)
        return _Op(self._upload(o), o, U64, CODE[U64], o.size)

    def init_from(self, y, x):
        if x.n and y.h != x.h:
            self.c.copy(y.h, x.h, x.n * x.dtype.itemsize)

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        code = CODE.get(dtype, -1)
        if out is None:
            host = np.empty(n, dtype)
            flat = host
        else:
            flat = host_out(self._host(out, what), dtype, n, what)
            # The C call sees the uploads, never the caller's arrays: their overlaps are checked here.
            check_no_overlap(flat, [i.obj for i in inputs], what, () if inplace is None else (inplace.obj,))
            host = out
        if src is not None:
            h = src.h  # the uploaded copy is private: the out-of-place call runs in place on it
        elif inplace is not None and out is not None and same_memory(flat, inplace.obj):
            h = inplace.h
        else:
            h = self._alloc(n * dtype.itemsize)
        y = _StagedOp(h, host, dtype, code, n, new=out is None)
        y.obj_flat = flat
        self.downloads.append(y)
        return y

    def scratch(self, dtype, n):
        return _Op(self._alloc(n * dtype.itemsize), None, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        return x  # an uploaded copy

    def unshared(self, x, y):
        return y  # every input is an upload of its own

    to_host = _download

    def put(self, y, host):
        np.copyto(y.obj_flat, host)
        y.count = 0  # nothing to download

    def as_f64(self, x):
        h = x.obj.astype(np.float64)
        return _Op(self._upload(h), h, h.dtype, CODE[h.dtype], x.n)

    def result(self, y, count=None):
        if count is None:
            return self.wrap(y.obj)
        y.count = count
        if _trims(y, count):
            y.obj = y.obj_flat = np.empty(count, y.dtype)  # the download goes there (on exit)
            return self.wrap(y.obj)
        return self.wrap(y.obj[:count])


class _DeviceRun:
    """cuda context, GPU arrays: the C call takes their device addresses;
    new outputs come from the input's library. The call is ordered on the
    producer's stream (see Context._use_stream)."""

    def __init__(self, ctx, primary):
        self.ctx = ctx
        self.c = ctx._c
        self.like = primary
        self.lib = library(primary)
        self.keep = []
        self.stream_set = False
        self.sync = False

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        try:
            if etype is None and self.sync:
                self.c.synchronize()  # DeviceArray results are complete when returned
        finally:
            self.ctx._release_stream()
            self.keep.clear()
        return False

    def _view(self, obj, what, writable=False):
        test = self.ctx._test_device_mode
        if not test and not is_device_array(obj):
            raise InvalidArgument(f"parprim: {what} is a host array, but the primary input is a GPU array; pass "
                                  "arrays of one kind")
        v = device_view(obj, what)
        dev_type, dev = v.device
        if not test:
            if dev_type not in (DL_CUDA, DL_CUDA_MANAGED):
                raise InvalidArgument(f"parprim: {what} is not in CUDA memory (DLPack device type {dev_type})")
            if dev >= 0 and dev != self.ctx._device:
                raise InvalidArgument(f"parprim: {what} is on cuda:{dev}, the context on cuda:{self.ctx._device}")
            if dev < 0 and v.ptr and v.n and _c.HAVE_CUDA_RUNTIME:
                raise InvalidArgument(f"parprim: {what} is not CUDA device memory")
        if not v.contiguous:
            if writable:
                raise InvalidArgument(f"parprim: {what} is not C-contiguous (out= arrays are written in place)")
            v = device_view(make_contiguous(obj, what), what)
        if writable and v.readonly:
            raise InvalidArgument(f"parprim: {what} is read-only")
        self.keep.append(v.keep)
        if not self.stream_set and v.stream is not None:
            self.ctx._use_stream(v.stream)
            self.stream_set = True
        return v

    def _empty(self, n, dtype):
        lib = self.lib
        dev = self.ctx._device
        if lib == "cupy":
            import cupy

            with cupy.cuda.Device(dev):
                return cupy.empty(n, dtype)
        if lib == "torch":
            import torch

            return torch.empty(n, dtype=torch_dtype(dtype), device=self.like.device)
        if lib == "numba":
            from numba import cuda

            with cuda.gpus[dev]:
                return cuda.device_array(n, dtype)
        self.sync = True
        return DeviceArray.empty(self.c, n, dtype, dev)

    def input(self, a, what="a"):
        v = self._view(a, what)
        if v.dtype == BOOL:
            raise InvalidArgument(f"parprim: {what} is a bool array; bool arrays serve as flags only")
        return _Op(v.ptr, v.obj, v.dtype, code_of(v.dtype, what), v.n)

    def flags(self, f, n, what="flags"):
        v = self._view(f, what)
        if v.dtype != BOOL and v.dtype != U8:
            raise InvalidArgument(f"parprim: {what} has dtype {v.dtype}; it must be bool or uint8")
        if v.n != n:
            raise InvalidArgument(f"parprim: {what} has {v.n} elements, a has {n}")
        return _Op(v.ptr, v.obj, v.dtype, -1, n)

    def values(self, val, n, what="values"):
        v = self._view(val, what)
        check_values_dtype(v.dtype, what)
        if v.n != n:
            raise InvalidArgument(f"parprim: {what} has {v.n} elements, keys have {n}")
        return _Op(v.ptr, v.obj, v.dtype, -1, n)

    def offsets(self, o, n, what="offsets"):
        """Offsets in device memory: uint64 and int64 as they are (int64's
        bits are uint64's for offsets below 2^63; a negative one reads as
        past n), other integer types converted by their library (CuPy,
        PyTorch). Not checked here: the C call does what its backend does."""
        v = self._view(o, what)
        if v.dtype.kind not in "iu":
            raise InvalidArgument(f"parprim: {what} has dtype {v.dtype}; offsets must be integers")
        if v.n == 0:
            raise InvalidArgument(f"parprim: {what} is empty; it holds nseg + 1 >= 1 entries")
        if v.dtype.itemsize != 8:
            lib = library(o)
            if lib == "cupy":
                obj = o.reshape(-1).astype(U64)
            elif lib == "torch":
                import torch

                obj = o.reshape(-1).to(torch.int64)
            else:
                raise InvalidArgument(f"parprim: {what} has dtype {v.dtype}: parprim converts CuPy and PyTorch "
                                      "offsets to 64 bits; pass uint64 or int64 offsets")
            self.keep.append(obj)
            v = self._view(obj, what)
        return _Op(v.ptr, v.obj, U64, CODE[U64], v.n)

    def init_from(self, y, x):
        if x.n and y.h != x.h:
            self.c.copy(y.h, x.h, x.n * x.dtype.itemsize)

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        code = CODE.get(dtype, -1)
        if out is None:
            obj = self._empty(n, dtype)
            self.keep.append(obj)
            v = self._view(obj, what, writable=True)
            y = _Op(v.ptr, obj, dtype, code, n, new=True)
        else:
            v = self._view(out, what, writable=True)
            if v.dtype != dtype:
                raise InvalidArgument(f"parprim: {what} has dtype {v.dtype}, expected {dtype}")
            if v.n != n:
                raise InvalidArgument(f"parprim: {what} has {v.n} elements, expected {n}")
            y = _Op(v.ptr, out, dtype, code, n)  # the C call checks overlaps
        return y

    def scratch(self, dtype, n):
        obj = self._empty(n, dtype)
        self.keep.append(obj)
        v = self._view(obj, "scratch", writable=True)
        return _Op(v.ptr, obj, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        return self.scratch(x.dtype, x.n)

    def unshared(self, x, y):
        xb, yb = x.n * x.dtype.itemsize, y.n * y.dtype.itemsize
        if xb and yb and x.h < y.h + yb and y.h < x.h + xb:
            t = self.scratch(y.dtype, y.n)
            self.c.copy(t.h, y.h, yb)
            return _Op(t.h, y.obj, y.dtype, y.code, y.n)
        return y

    to_host = _download

    def put(self, y, host):
        if y.n:
            self.c.upload(y.h, bits(np.ascontiguousarray(host, dtype=y.dtype)), y.n * y.dtype.itemsize)

    def as_f64(self, x):
        lib = library(x.obj)
        if lib == "cupy":
            obj = x.obj.reshape(-1).astype(np.float64)
        elif lib == "torch":
            import torch

            obj = x.obj.reshape(-1).to(torch.float64)
        else:
            raise InvalidArgument("parprim: these histogram bounds need the samples as float64, which parprim "
                                  f"makes for CuPy and PyTorch arrays only (not {lib})")
        self.keep.append(obj)
        v = self._view(obj, "a")
        return _Op(v.ptr, obj, v.dtype, CODE[v.dtype], x.n)

    def result(self, y, count=None):
        obj = y.obj
        if count is None:
            return obj
        if _trims(y, count):
            # a new array of the input's library, the prefix copied by the context (on the call's stream)
            t = self._empty(count, y.dtype)
            self.keep.append(t)
            v = self._view(t, "result", writable=True)
            if count:
                self.c.copy(v.ptr, y.h, count * y.dtype.itemsize)
            return t
        if getattr(obj, "ndim", 1) != 1:
            obj = obj.reshape(-1)
        return obj[:count]


def covers(o, n):
    """Whether host offsets cover the whole array (then no element of a
    segmented scan's output is left for a's values); False for device
    offsets, which are not read back."""
    h = o.obj
    return isinstance(h, np.ndarray) and int(h[0]) == 0 and int(h[-1]) == n
