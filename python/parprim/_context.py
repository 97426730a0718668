"""parprim.Context and the three ways a call reaches the C library:

- host:   a cpu context and NumPy arrays: the arrays' own memory is passed to
          the C call (zero copy for C-contiguous arrays);
- staged: a GPU context (cuda or opencl) and NumPy arrays: each input is
          uploaded to memory of the context (pp_malloc + pp_upload), the
          primitive runs there and the results are downloaded;
- device: a cuda context and GPU arrays (CUDA Array Interface or DLPack):
          the arrays' device memory is passed to the C call, results are
          allocated with the input's own library (CuPy in, CuPy out).

The primitives are written once against a small "run" object of each mode
(input, output, scratch, copies between them, result).
"""

from __future__ import annotations

import threading

import numpy as np

from . import _parprim as _c
from ._arrays import (BOOL, CODE, U8, U64, DeviceArray, DL_CUDA, DL_CUDA_MANAGED, check_no_overlap,
                      check_values_dtype, code_of, device_view, edges_in, host_flags, host_input, host_out,
                      host_values, host_wrapper, index, is_device_array, library, make_contiguous, same_memory, torch_dtype)
from ._parprim import Error, InvalidArgument, _NotDirect

_ndarray = np.ndarray

# The per-thread default contexts of the module functions (parprim/__init__.py).
_tls = threading.local()

BACKENDS = ("auto", "cpu", "cuda", "opencl")
_BACKEND_CODE = {name: i for i, name in enumerate(BACKENDS)}
PRIMITIVES = ("reduce", "scan", "histogram", "select", "sort")
_PRIM_CODE = {name: i for i, name in enumerate(PRIMITIVES)}


def _algorithm_names():
    names = []
    while True:
        name = _c.algorithm_name(len(names))
        if name == "?":
            return tuple(names)
        names.append(name)


ALGORITHMS = _algorithm_names()
_ALGO_CODE = {name: i for i, name in enumerate(ALGORITHMS)}
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
CMPS = ("<", "<=", ">", ">=", "==", "!=")
_INF = float("inf")


def _name(value, names, what):
    """Checks a name (op, cmp) before any work; C checks it again."""
    if not (isinstance(value, str) and value in names):
        raise InvalidArgument(f"parprim: {what} {value!r} is not one of {', '.join(map(repr, names))}")
    return value


def _code(value, table, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise InvalidArgument(
            f"parprim: {what} {value!r} is not one of {', '.join(map(repr, table))}") from None


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------


class _Op:
    """An array as a call sees it: h (what the C call takes: a NumPy array
    on the host, else an address or cl_mem handle), obj (what the caller
    gets back), dtype, code (pp_type or -1), n, count (elements to
    return)."""

    __slots__ = ("h", "obj", "dtype", "code", "n", "count")

    def __init__(self, h, obj, dtype, code, n):
        self.h, self.obj, self.dtype, self.code, self.n, self.count = h, obj, dtype, code, n, None


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
        return _Op(x, x, x.dtype, code, x.size)

    def flags(self, f, n, what="flags"):
        f = host_flags(f, n, what)
        return _Op(f, f, f.dtype, -1, n)

    def values(self, v, n, what="values"):
        v = host_values(v, n, what)
        return _Op(v, v, v.dtype, -1, n)

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        """An output of n elements: out (checked) or a new array; src: an
        input whose data the output starts with (copied unless out is
        src's own memory); inplace: the input out may be (exactly)."""
        code = CODE.get(dtype, -1)
        if out is None:
            y = src.h.copy() if src is not None else np.empty(n, dtype)
            return _Op(y, y, dtype, code, n)
        y = host_out(out, dtype, n, what)
        check_no_overlap(y, [i.h for i in inputs], what, () if inplace is None else (inplace.h,))
        if src is not None and not same_memory(y, src.h):
            np.copyto(y, src.h)
        return _Op(y, out, dtype, code, n)

    def scratch(self, dtype, n):
        t = np.empty(n, dtype)
        return _Op(t, None, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        """A copy of x that the call may change."""
        t = x.h.copy()
        return _Op(t, None, x.dtype, x.code, x.n)

    def same(self, x, y):
        return same_memory(x.h, y.h)

    def copy(self, dst, src, n, dst_off=0, src_off=0):
        dst.h[dst_off:dst_off + n] = src.h[src_off:src_off + n]

    def to_host(self, x):
        return x.h

    def put(self, y, host):
        np.copyto(y.h, host)

    def rotate(self, y, k):
        """y = y[k:] + y[:k]."""
        y.h[:] = np.concatenate((y.h[k:], y.h[:k]))

    def as_f64(self, x):
        h = x.h.astype(np.float64)
        return _Op(h, None, h.dtype, CODE[h.dtype], x.n)

    def result(self, y, count=None):
        return self.wrap(y.obj if count is None else y.obj[:count])


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
        self.hooks = []

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        try:
            if etype is None:
                for y in self.downloads:
                    count = y.n if y.count is None else y.count
                    if count:
                        self.c.download(y.obj_flat, y.h, count * y.dtype.itemsize)
                for fn in self.hooks:
                    fn()
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
            self.c.upload(h, x, x.nbytes)
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

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        code = CODE.get(dtype, -1)
        if out is None:
            host = np.empty(n, dtype)
            flat = host
        else:
            flat = host_out(self._host(out, what), dtype, n, what)
            check_no_overlap(flat, [i.obj for i in inputs], what, () if inplace is None else (inplace.obj,))
            host = out
        if src is not None:
            h = src.h  # the uploaded copy is private: the call may change it
        elif inplace is not None and out is not None and same_memory(flat, inplace.obj):
            h = inplace.h
        else:
            h = self._alloc(n * dtype.itemsize)
        y = _StagedOp(h, host, dtype, code, n)
        y.obj_flat = flat
        self.downloads.append(y)
        return y

    def scratch(self, dtype, n):
        return _Op(self._alloc(n * dtype.itemsize), None, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        return x  # an uploaded copy

    def same(self, x, y):
        return x.h == y.h

    def copy(self, dst, src, n, dst_off=0, src_off=0):
        if dst_off or src_off:
            raise Error("parprim: internal: offsets in staged memory")
        if n:
            self.c.copy(dst.h, src.h, n * src.dtype.itemsize)

    def to_host(self, x):
        host = np.empty(x.n, x.dtype)
        if x.n:
            self.c.download(host, x.h, x.n * x.dtype.itemsize)
        return host

    def put(self, y, host):
        np.copyto(y.obj_flat, host)
        y.count = 0  # nothing to download

    def rotate(self, y, k):
        flat = y.obj_flat
        self.hooks.append(lambda: flat.__setitem__(slice(None), np.concatenate((flat[k:], flat[:k]))))

    def as_f64(self, x):
        h = x.obj.astype(np.float64)
        return _Op(self._upload(h), h, h.dtype, CODE[h.dtype], x.n)

    def result(self, y, count=None):
        if count is None:
            return self.wrap(y.obj)
        y.count = count
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

    def output(self, dtype, n, out=None, what="out", src=None, inputs=(), inplace=None):
        code = CODE.get(dtype, -1)
        if out is None:
            obj = self._empty(n, dtype)
            self.keep.append(obj)
            v = self._view(obj, what, writable=True)
            y = _Op(v.ptr, obj, dtype, code, n)
        else:
            v = self._view(out, what, writable=True)
            if v.dtype != dtype:
                raise InvalidArgument(f"parprim: {what} has dtype {v.dtype}, expected {dtype}")
            if v.n != n:
                raise InvalidArgument(f"parprim: {what} has {v.n} elements, expected {n}")
            y = _Op(v.ptr, out, dtype, code, n)
            nb = n * dtype.itemsize
            for i in inputs:
                ib = i.n * i.dtype.itemsize
                if nb and ib and y.h < i.h + ib and i.h < y.h + nb:
                    if inplace is i and y.h == i.h and nb == ib:
                        continue
                    raise InvalidArgument(f"parprim: argument '{what}' overlaps an input")
        if src is not None and y.h != src.h and n:
            self.c.copy(y.h, src.h, n * dtype.itemsize)
        return y

    def scratch(self, dtype, n):
        obj = self._empty(n, dtype)
        self.keep.append(obj)
        v = self._view(obj, "scratch", writable=True)
        return _Op(v.ptr, obj, dtype, CODE.get(dtype, -1), n)

    def private(self, x):
        t = self.scratch(x.dtype, x.n)
        self.copy(t, x, x.n)
        return _Op(t.h, None, x.dtype, x.code, x.n)

    def same(self, x, y):
        return x.h == y.h

    def copy(self, dst, src, n, dst_off=0, src_off=0):
        isz = src.dtype.itemsize
        if n:
            self.c.copy(dst.h + dst_off * isz, src.h + src_off * isz, n * isz)

    def to_host(self, x):
        host = np.empty(x.n, x.dtype)
        if x.n:
            self.c.download(host, x.h, x.n * x.dtype.itemsize)
        return host

    def put(self, y, host):
        if y.n:
            self.c.upload(y.h, np.ascontiguousarray(host, dtype=y.dtype), y.n * y.dtype.itemsize)

    def rotate(self, y, k):
        n = y.n
        t = self.scratch(y.dtype, n)
        self.copy(t, y, n - k, 0, k)
        self.copy(t, y, k, n - k, 0)
        self.copy(y, t, n)

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
        if getattr(obj, "ndim", 1) != 1:
            obj = obj.reshape(-1)
        return obj[:count]


# --------------------------------------------------------------------------
# Context
# --------------------------------------------------------------------------


class Context:
    """A parprim context: one backend and device, with its own scratch memory
    and algorithm choices (include/parprim.h: pp_create).

    Context(backend="auto", device=0, threads=0)

    backend: "auto" (CUDA, then an OpenCL GPU, then the cpu backend;
    the environment variable PARPRIM_BACKEND overrides the choice), "cpu",
    "cuda" or "opencl". device: the CUDA device, or the OpenCL device
    counted over all platforms (unused on cpu). threads: cpu threads, 0 for
    all cores (OMP_NUM_THREADS).

    Attributes: ``backend`` ("cpu", "cuda" or "opencl"), ``device_name``,
    ``threads`` (0 on GPU backends), ``device`` (the index given).

    The methods are the module's functions (``parprim.reduce`` and so on)
    run on this context. A context may be shared by threads: each call holds
    the context's lock while the C library works on it, with the GIL
    released. Use it as a context manager, or call close(), to free it at
    a known time.

    Raises InvalidArgument (unknown backend, negative device or threads, a
    bad PARPRIM_BACKEND), Unsupported (a backend not built into this
    parprim), BackendUnavailable (built in, but no device).
    """

    def __init__(self, backend="auto", device=0, threads=0):
        code = _code(backend, _BACKEND_CODE, "backend")
        device = index(device, "device")
        threads = index(threads, "threads")
        if device < 0 or threads < 0 or device > 2**31 - 1 or threads > 2**31 - 1:
            raise InvalidArgument(f"parprim: device = {device} and threads = {threads} must be in [0, 2^31)")
        self._c = _c.Context(code, device, threads)
        self._backend = BACKENDS[self._c.backend]
        self._device = device
        self._host = self._backend == "cpu"
        self._stream = 0  # the stream set with pp_set_stream (0: the context's own)
        self._test_device_mode = False

    # ---- properties ----------------------------------------------------------
    @property
    def backend(self):
        """The backend: "cpu", "cuda" or "opencl" (never "auto")."""
        return self._backend

    @property
    def device_name(self):
        """A description of the device, e.g. "CPU, 16 OpenMP threads"."""
        return self._c.device_name

    @property
    def threads(self):
        """Worker threads of the cpu backend; 0 on GPU backends."""
        return self._c.threads

    @property
    def device(self):
        """The device index the context was created with."""
        return self._device

    @property
    def closed(self):
        """Whether close() was called."""
        return self._c.closed

    def memory(self):
        """The device's memory in bytes as a dict {"total", "available",
        "max_alloc"} (pp_context_memory; available is 0 where the backend
        cannot tell)."""
        total, avail, max_alloc = self._c.memory()
        return {"total": total, "available": avail, "max_alloc": max_alloc}

    def close(self):
        """Destroys the context and its scratch memory (pp_destroy). Calling
        it again does nothing; any other call afterwards raises
        InvalidArgument."""
        if self._stream:
            try:
                self._c.set_stream(0)
            except Error:
                pass
            self._stream = 0
        self._c.close()
        if getattr(_tls, "ctx", None) is self:
            del _tls.ctx  # the thread's next module call makes a new default context

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self._c.closed else repr(self._c.device_name)
        return f"parprim.Context(backend={self._backend!r}, device={self._device}) [{state}]"

    # ---- streams (cuda) --------------------------------------------------------
    def _use_stream(self, stream):
        """Queues the context's work on a producer's CUDA stream (pp_set_stream,
        which first waits for the work queued on the previous one)."""
        s = int(stream) or 1  # CAI forbids 0; 1 is the legacy default stream
        if s != self._stream:
            self._c.set_stream(s)
            self._stream = s

    def _release_stream(self):
        """After a call: back to the context's own stream, unless the one set
        is a default stream (1: legacy, 2: per-thread), which never goes
        away. A user's stream is not kept: it may be destroyed later."""
        if self._stream not in (0, 1, 2):
            self._stream = 0
            self._c.set_stream(0)

    def _run(self, a):
        if self._host and not self._test_device_mode:
            return _HostRun(self, a)
        if self._test_device_mode or is_device_array(a):
            if self._backend != "cuda" and not self._test_device_mode:
                raise InvalidArgument(f"parprim: a is a GPU array ({type(a).__module__}.{type(a).__name__}); "
                                      f"this context is {self._backend}: GPU arrays need a cuda context")
            return _DeviceRun(self, a)
        return _StagedRun(self, a)

    # ---- algorithms ----------------------------------------------------------
    def set_algorithm(self, primitive, algorithm):
        """Chooses the algorithm of a primitive for later calls on this context
        (pp_set_algorithm).

        primitive: "reduce", "scan", "histogram", "select" (select_flagged,
        select_if, unique, partition_if) or "sort" (sort, sort_pairs).
        algorithm: a name as pp_algorithm_name prints it ("auto",
        "sequential", "reduce-then-scan", "decoupled-lookback", ...).
        Unknown names raise InvalidArgument; an algorithm this backend does
        not have raises Unsupported (and the choice is left as it was).
        """
        p = _code(primitive, _PRIM_CODE, "primitive")
        a = _code(algorithm, _ALGO_CODE, "algorithm")
        self._c.set_algorithm(p, a)

    def get_algorithm(self, primitive):
        """The algorithm chosen for a primitive ("auto" unless set)."""
        return ALGORITHMS[self._c.get_algorithm(_code(primitive, _PRIM_CODE, "primitive"))]

    def algorithms(self, primitive):
        """The algorithms set_algorithm accepts for a primitive on this
        context's backend, by name ("auto" first)."""
        return [ALGORITHMS[i] for i in self._c.algorithms(_code(primitive, _PRIM_CODE, "primitive"))]

    # ---- primitives ----------------------------------------------------------
    def reduce(self, a, op="sum"):
        """a[0] op a[1] op ... op a[n-1] (pp_reduce); the identity for an
        empty array.

        a: an array of int8 ... uint64, float32 or float64 (any shape: its
        elements in C order). op: "sum", "prod", "min", "max", "and", "or" or
        "xor" (the last three on integers only: Unsupported on floats).
        Returns a NumPy scalar of a's dtype. Integers wrap; min and max
        propagate NaN and order -0.0 below +0.0; float sums are reproducible,
        within the error bound of sequential summation (include/parprim.h).
        """
        if self._host and type(a) is _ndarray:
            try:
                return self._c.reduce(a, op, -1, -1)
            except _NotDirect:
                pass
        if self._host and not self._test_device_mode:
            x, code = host_input(a)
            return self._c.reduce(x, op, code, x.size)
        _name(op, OPS, "op")
        with self._run(a) as r:
            x = r.input(a)
            return self._c.reduce(x.h, op, x.code, x.n)

    def scan(self, a, op="sum", exclusive=False, out=None):
        """Prefix scan (pp_scan): inclusive out[i] = a[0] op ... op a[i];
        exclusive out[0] = identity, out[i] = a[0] op ... op a[i-1].

        op: as for reduce. out: an array of a's dtype and size (C-contiguous,
        writable) to write into, or a itself (in place); by default a new
        array. Returns the result (out when given), one-dimensional when
        parprim allocates it.
        """
        _name(op, OPS, "op")
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x)
            self._c.scan(x.h, y.h, op, bool(exclusive), x.code, x.n)
            return r.result(y)

    def histogram_even(self, a, bins, lower, upper, out=None, right_closed=False):
        """Histogram of `bins` equal bins over [lower, upper)
        (pp_histogram_even). Returns a uint64 array of bins counts (out, a
        uint64 array of bins elements, when given: overwritten, not added to).

        C semantics (right_closed=False): bin i counts lower + i*w <= x <
        lower + (i+1)*w, w = (upper - lower) / bins, evaluated exactly for
        integers and by the header's double expression for floats; samples
        outside [lower, upper) and NaN are not counted. lower and upper are
        values of a's dtype (an integer type takes integers it can hold;
        float bounds must be finite), lower < upper.

        right_closed=True matches np.histogram(a, bins, range=(lower, upper))
        bin for bin: NumPy's bin edges (np.histogram_bin_edges, in NumPy's
        dtype), and its last bin includes upper. parprim counts over those
        edges (pp_histogram_range) with one more bin [upper, next value
        above upper) whose count is added to the last bin. Integer samples
        whose edges do not fit their type, or reach 2^53 in magnitude, are
        counted as float64 values, as NumPy counts them (rounded above 2^53).
        """
        bins = index(bins, "bins")
        if bins < 1:
            raise InvalidArgument(f"parprim: bins = {bins}; it must be at least 1")
        if right_closed:
            return self._histogram_numpy(a, bins, lower, upper, out)
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(U64, bins, out, inputs=(x,))
            self._c.histogram_even(x.h, y.h, lower, upper, bins, x.code, x.n)
            return r.result(y)

    def _histogram_numpy(self, a, bins, lower, upper, out):
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(U64, bins, out, inputs=(x,))
            dt = x.dtype
            try:
                edges = np.histogram_bin_edges(np.empty(0, dt), bins, range=(lower, upper))
            except (ValueError, TypeError) as e:
                raise InvalidArgument(f"parprim: histogram_even(right_closed=True): {e}") from None
            e = None
            # NumPy bins integer samples as float64 (np.histogram casts them to
            # its edges' type): exact below 2^53, rounded above, where a sample
            # next to an edge can round onto it. Where an edge is that large,
            # count the float64 values as NumPy does.
            wide = dt.kind in "iu" and max(abs(float(edges[0])), abs(float(edges[-1]))) >= 2.0**53
            try:
                if not wide:
                    e = edges_in(dt, edges)
                if e is not None and dt.kind in "iu" and int(e[-1]) == int(np.iinfo(dt).max) and e[-1].item() == edges[-1].item():
                    e = None  # no room above upper for the extra bin
            except InvalidArgument:
                pass
            if e is None:  # integer edges beyond the type: count as float64, as NumPy does
                x = r.as_f64(x)
                e = edges.astype(np.float64)
            # NumPy's last bin includes its last edge: count x == that edge in an extra bin
            # [edge, next value up), if the samples' type has that value (no sample equals it otherwise).
            extra = e[-1].item() == edges[-1].item()
            if extra:
                top = np.nextafter(e[-1], e.dtype.type(np.inf)) if e.dtype.kind == "f" else e[-1] + e.dtype.type(1)
                e = np.append(e, np.array([top], dtype=e.dtype))
            keep = np.ones(e.size, dtype=bool)
            keep[1:] = e[1:] != e[:-1]
            u = np.ascontiguousarray(e[keep])
            first = np.flatnonzero(keep)
            full = np.zeros(e.size - 1, dtype=U64)
            if u.size > 1:  # else every bin is narrower than the type's values: all empty
                t = r.scratch(U64, u.size - 1)
                self._c.histogram_range(x.h, t.h, u, u.size - 1, x.code, x.n)
                full[first[1:] - 1] = r.to_host(t)
            counts = full[:bins]
            if extra:
                counts[-1] += full[bins]
            r.put(y, counts)
            return r.result(y)

    def histogram_range(self, a, edges, out=None):
        """Histogram with explicit edges (pp_histogram_range): bin i counts
        edges[i] <= x < edges[i+1]; samples outside [edges[0], edges[-1]) and
        NaN are not counted. Returns a uint64 array of len(edges) - 1 counts.

        edges: host numbers, strictly increasing in a's dtype (infinite float
        edges are allowed). Edges of another dtype are converted to a's so
        that each comparison keeps its meaning: each becomes the smallest
        value of a's dtype at or above it (2.5 is 3 for integer samples).
        out: a uint64 array of len(edges) - 1 elements, overwritten.
        """
        with self._run(a) as r:
            x = r.input(a)
            e = edges_in(x.dtype, edges)
            nb = e.size - 1
            if nb < 1:
                raise InvalidArgument(f"parprim: edges has {e.size} values; a histogram needs at least 2")
            y = r.output(U64, nb, out, inputs=(x,))
            self._c.histogram_range(x.h, y.h, e, nb, x.code, x.n)
            return r.result(y)

    def select_flagged(self, a, flags):
        """The elements a[i] with flags[i] != 0, in input order
        (pp_select_flagged). flags: a bool or uint8 array of a's length.
        Returns a new array of the selected elements (on cpu a view of an
        array of len(a), trimmed to the count)."""
        with self._run(a) as r:
            x = r.input(a)
            f = r.flags(flags, x.n)
            y = r.output(x.dtype, x.n)
            count = self._c.select_flagged(x.h, f.h, y.h, x.code, x.n)
            return r.result(y, count)

    def select_if(self, a, cmp, value):
        """The elements x of a with `x cmp value`, in input order
        (pp_select_if). cmp: "<", "<=", ">", ">=", "==" or "!=" (C's
        comparisons: NaN is selected only by "!=", -0.0 == +0.0). value: a
        number of a's dtype (an integer type takes integers it can hold; a
        float is rounded to float32 for float32 arrays, as NumPy does)."""
        _name(cmp, CMPS, "cmp")
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            count = self._c.select_if(x.h, y.h, cmp, value, x.code, x.n)
            return r.result(y, count)

    def unique(self, a, sort=False):
        """Unique elements.

        sort=False (pp_unique): the first element of each run of equal
        neighbours, in input order (C's ==: NaNs are never equal, so each
        NaN is kept; -0.0 equals +0.0).
        sort=True: the sorted unique values, as np.unique(a) returns them:
        one NaN for all NaNs (at the end), and one zero for -0.0 and +0.0
        (parprim keeps -0.0 where the input has one, since its sort puts
        -0.0 first; NumPy keeps whichever zero its unstable sort puts first).
        a is not changed (the sort works on a copy).
        """
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            if not sort:
                count = self._c.unique(x.h, y.h, x.code, x.n)
                return r.result(y, count)
            s = r.private(x)
            self._c.sort(s.h, False, x.code, x.n)
            m = x.n
            if x.dtype.kind == "f" and m:
                # NaNs sort last: keep the unique non-NaN values and the first NaN
                m = self._c.select_if(s.h, y.h, "<=", _INF, x.code, x.n)
                if m < x.n:
                    m += 1
            count = self._c.unique(s.h, y.h, x.code, m)
            return r.result(y, count)

    def partition_if(self, a, cmp, value):
        """Stable partition (pp_partition_if): the elements x with
        `x cmp value` first, in input order, then the others, in input order.
        cmp and value: as for select_if. Returns (array, count): the
        partitioned copy of a (len(a) elements) and the number selected (a
        Python int)."""
        _name(cmp, CMPS, "cmp")
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            count = self._c.partition_if(x.h, y.h, cmp, value, x.code, x.n)
            return r.result(y), count

    def sort(self, a, descending=False, out=None, nan_last=True):
        """Stable radix sort (pp_sort).

        Returns the sorted elements: a new array, or out (an array of a's
        dtype and size; out=a sorts a in place). a is not changed otherwise.
        Floats: -0.0 before +0.0; NaNs (any sign or payload, bits kept) sort
        above +inf, so ascending puts them last, like np.sort.
        descending=True: equal keys keep their input order (stable), and
        NaNs go last (nan_last=True, the default: where NaNs are "missing"
        values they stay out of the way) rather than first, where the C
        call's descending order (the exact reverse of ascending, as
        np.sort(a)[::-1] also has them) puts them; nan_last=False gives that
        C order. nan_last has no effect on ascending sorts and integers.
        """
        desc = bool(descending)
        with self._run(a) as r:
            x = r.input(a)
            if desc and nan_last and x.dtype.kind == "f" and x.n:
                # Non-NaNs first (stable), NaNs after in input order; then sort the non-NaN prefix.
                y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x)
                if r.same(x, y):
                    t = r.scratch(x.dtype, x.n)
                    m = self._c.partition_if(x.h, t.h, "<=", _INF, x.code, x.n)
                    self._c.sort(t.h, True, x.code, m)
                    r.copy(y, t, x.n)
                else:
                    m = self._c.partition_if(x.h, y.h, "<=", _INF, x.code, x.n)
                    self._c.sort(y.h, True, x.code, m)
            else:
                y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x, src=x)
                self._c.sort(y.h, desc, x.code, x.n)
            return r.result(y)

    def sort_pairs(self, keys, values, descending=False, nan_last=True):
        """Sorts keys as sort() does and moves values[i] with keys[i]
        (pp_sort_pairs). values: an array of keys' length whose items are 1,
        2, 4 or 8 bytes (any such dtype). Returns (keys, values): new arrays;
        the inputs are not changed. Stable in both orders; descending and
        nan_last as for sort()."""
        desc = bool(descending)
        with self._run(keys) as r:
            k = r.input(keys, "keys")
            v = r.values(values, k.n)
            ky = r.output(k.dtype, k.n, src=k, what="keys")
            vy = r.output(v.dtype, k.n, src=v, what="values")
            self._c.sort_pairs(ky.h, vy.h, v.dtype.itemsize, desc, k.code, k.n)
            if desc and nan_last and k.dtype.kind == "f" and k.n:
                # The C order has the NaN keys first: move them and their values last.
                t = r.scratch(k.dtype, k.n)
                m = self._c.partition_if(ky.h, t.h, "<=", _INF, k.code, k.n)
                if 0 < m < k.n:
                    r.copy(ky, t, k.n)
                    r.rotate(vy, k.n - m)
            return r.result(ky), r.result(vy)
