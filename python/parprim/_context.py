"""parprim.Context: one backend and device, and the methods (the primitives,
algorithms, memory) that run on it. (Over 600 lines: one method per
primitive, each with the docstring python/API.md is generated from; the
work is in the modules they call.)

A call reaches the C library in one of three ways, chosen per call by
Context._run: host, staged or device (see _runs.py, which holds the "run"
object of each). The primitives are written once against that small
interface (input, output, scratch, result).
"""

from __future__ import annotations

import threading

import numpy as np

from . import _parprim as _c
from ._arrays import CODE as _CODE
from ._arrays import DTYPES as _DTYPES
from ._arrays import U8, U64, bits, host_input, index, is_device_array
from ._numpy_rules import NumpyRuleMethods, _out_code, as_bool, bool_as_u8
from ._parprim import Error, InvalidArgument, _NotDirect
from ._histogram import count_bins, edges_in, even_edges_beyond, numpy_edges, numpy_weighted
from ._keyed import KeyedMethods, _order
from ._axis import flat_direct, one_axis, reduce_axes, reduce_rows, scan_rows, sort_rows
from ._search import SearchMethods
from ._runs import _DeviceRun, _HostRun, _StagedRun, trimmed
from . import _operator
from ._operator import Operator

_ndarray = np.ndarray
_U8_CODE = _CODE[U8]

# The per-thread default contexts of the module functions (parprim/__init__.py).
_tls = threading.local()

# The names of the C library's values (index = the enum's value), read from
# its name functions by the extension at import.
BACKENDS = _c.BACKEND_NAMES
_BACKEND_CODE = {name: i for i, name in enumerate(BACKENDS)}
PRIMITIVES = _c.PRIMITIVE_NAMES
_PRIM_CODE = {name: i for i, name in enumerate(PRIMITIVES)}
ALGORITHMS = _c.ALGORITHM_NAMES
_ALGO_CODE = {name: i for i, name in enumerate(ALGORITHMS)}
OPS = _c.OP_NAMES
CMPS = _c.CMP_NAMES


def _code(value, table, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise InvalidArgument(
            f"parprim: {what} {value!r} is not one of {', '.join(map(repr, table))}") from None


class Context(KeyedMethods, SearchMethods, NumpyRuleMethods):
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
        if not (-2**31 <= device < 2**31 and -2**31 <= threads < 2**31):  # C ints (pp_create checks the signs)
            raise InvalidArgument(f"parprim: device = {device} and threads = {threads} must be C ints")
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

        primitive: "reduce" (reduce, segmented_reduce, reduce_by_key),
        "scan" (scan, segmented_scan, scan_by_key), "histogram", "select"
        (select_flagged, select_if, unique_consecutive, partition_if,
        run_length_encode) or "sort" (sort, sort_pairs, argsort, the
        segmented sorts, unique, searchsorted, merge, merge_pairs, top_k).
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
    def reduce(self, a, op="sum", exact=None, dtype=None, axis=None, keepdims=False):
        """a[0] op a[1] op ... op a[n-1] (pp_reduce, pp_reduce_to); the
        identity for an empty array.

        a: an array of bool, int8 ... uint64, float16, float32, float64 or
        bfloat16 (any shape: its elements in C order). op: "sum", "prod", "min", "max", "and",
        "or" or "xor" (the last three on integers and bool only: Unsupported
        on floats). Returns a NumPy scalar of NumPy's result type: "sum" and
        "prod" as np.sum and np.prod (bool and integers narrower than 64
        bits in int64, unsigned ones in uint64: no wrap in the narrow type;
        64-bit integers wrap; floats in their own type); the other
        operators in a's dtype (bool for bool input). min and max propagate
        NaN and order -0.0 below +0.0.

        float16, bfloat16: "sum", "min", "max" in a's type; the sum is the
        exact sum rounded once, whatever exact= says (python/README.md, Half
        types); other operators raise Unsupported; dtype=float32 or float64
        folds the values widened to that type.

        dtype: the type to accumulate and return in, as NumPy's dtype=:
        a's own dtype (then the C call of that type: integers wrap in it), or
        a wider type that holds every value of a's (include/parprim.h,
        pp_reduce_to: integers to wider integers of a kind that holds them,
        float32 or float64 from 8- and 16-bit integers, float16 and bfloat16,
        float64 from 32-bit integers and from float32). Other dtypes (narrower ones, signed to
        unsigned) raise InvalidArgument (a ValueError): the C library does
        not convert down; an unknown dtype raises TypeError.

        exact: None (the default): a float32 sum is summed in float64
        (pp_reduce_to) and rounded once to float32, at least as accurate as
        np.sum's pairwise sum (bench/studies/python-sums.md), where the
        context's reduce algorithm is "auto" (and the device has float64);
        everything else as exact=False. float64 sums run pp_reduce's default
        sum, which is compensated (include/parprim.h: error at most about
        (2 log2(n) + 8) * 2^-53 * sum|a|; on cpu, where every addition
        is compensated, no worse than np.sum in every row of
        python-sums.md; the GPU backends add their threads' compensated
        values in a plain tree, which on cancelling data can leave a few
        ulps where np.sum is exact; at the speed of an integer sum of the
        same bytes); the exact one costs 1.5-7x on the cpu backend. exact=False:
        the context's algorithm in a's own type (with "auto", pp_reduce's
        compensated sum; a named algorithm sums as it is named:
        reproducible, within the error bound of sequential summation).
        exact=True: PP_ALGO_EXACT for this call: a float32 or float64 sum is
        the correctly rounded value of the exact sum, bitwise the same on
        every backend, device and thread count (docs/exact.md); Unsupported
        where the backend has none, and for a float sum into another dtype;
        other types and operators are exact already.

        axis: None (the default: all of a, np.sum's default), an int or a
        tuple of ints (negative ones count from the end; out of range:
        numpy.exceptions.AxisError; repeated: ValueError), as np.sum's
        axis: one value per position of the other axes
        (pp_segmented_reduce over rows of the axes' elements, moved last;
        in NumPy's result dtype, the rows converted to it first where it is
        wider than a's; exact=None as above). keepdims=True: the reduced
        axes kept with length 1. Returns an array of a's library (a NumPy
        scalar where every axis is reduced without keepdims). An empty row
        gives op's identity (NumPy raises for min and max).

        op may also be a parprim.Operator (an operator of your own:
        pp_reduce_op): a of its dtype exactly (else TypeError), any shape
        (its elements in C order); returns one element of its dtype (np.void
        for a structured dtype), the identity for an empty a. exact=True,
        axis=, keepdims=True raise InvalidArgument; dtype= other than the
        operator's raises TypeError.
        """
        if isinstance(op, Operator):
            return _operator.reduce(self, a, op, exact, dtype, axis, keepdims)
        if axis is not None or keepdims:
            axes = reduce_axes(a, axis, keepdims)
            if axes is not None:
                x_in, is_bool = bool_as_u8(a)
                res, oc = reduce_rows(self, x_in, axes, op, exact, dtype, is_bool, keepdims)
                return as_bool(res) if is_bool and oc == _U8_CODE else res
        if dtype is None and self._host and type(a) is _ndarray and a.dtype.kind != "b":
            try:  # -2: NumPy's result type, chosen in C
                return self._c.reduce(a, op, -1, -1, exact, -2)
            except _NotDirect:
                pass
        if dtype is None and not self._host and type(a).__module__ == "cupy" and not self._test_device_mode:
            r = self._cupy_reduce(a, op, exact)
            if r is not None:
                return r
        x_in, is_bool = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            res = self._c.reduce(x.h, op, x.code, x.n, exact, _out_code(x.code, op, dtype, is_bool, "reduce"))
        return np.bool_(res) if is_bool and res.dtype == U8 else res

    def _cupy_reduce(self, a, op, exact):
        """reduce's fast path for a CuPy array on a cuda context: what the
        general path reads through __cuda_array_interface__ (a dict CuPy
        builds anew at each access), taken from the attributes CuPy keeps:
        the address, dtype, size, contiguity, device and the current stream
        (the stream the interface would name). None where the general path
        must decide (a strided array, another device, a foreign dtype,
        another backend)."""
        if self._backend != "cuda" or not a.flags.c_contiguous:
            return None
        mem = a.data
        code = _CODE.get(a.dtype)
        if code is None or mem.device_id != self._device:
            return None
        import cupy  # imported already: a is a CuPy array

        self._use_stream(cupy.cuda.get_current_stream().ptr)
        try:
            return self._c.reduce(mem.ptr, op, code, a.size, exact, -2)
        finally:
            self._release_stream()

    def scan(self, a, op="sum", exclusive=False, out=None, exact=False, initial=None, dtype=None, axis=None):
        """Prefix scan (pp_scan, pp_scan_to): inclusive out[i] = a[0] op ...
        op a[i]; exclusive out[0] = identity, out[i] = a[0] op ... op a[i-1].

        op: as for reduce. The result's dtype is NumPy's (np.cumsum,
        np.cumprod): "sum" and "prod" of bool and of integers narrower than
        64 bits in int64 (uint64 for unsigned ones), others in a's dtype
        (bool for bool input; float16 and bfloat16 in their type: "sum",
        each prefix the exact sum rounded once, as reduce's, "min" and "max",
        with initial= too; other operators raise Unsupported); dtype: as reduce's dtype= (a's dtype, or a
        wider one that holds its values: float32 or float64 for the half types). out: an array of the result's
        dtype and a's size (C-contiguous, writable) to write into, or a
        itself (in place, where the result's dtype is a's); by default a new
        array. Returns the result (out when given), one-dimensional when
        parprim allocates it.

        initial: a number of a's dtype to start from (pp_scan_init), in place
        of the identity: inclusive out[i] = initial op a[0] op ... op a[i],
        exclusive out[0] = initial (np.cumsum(np.concatenate(([initial], a)))
        without its last or first element). An integer type takes integers
        it can hold; a float is rounded to float32 for float32 arrays, to
        float16 or bfloat16 (once) for those. With initial the scan runs in a's dtype (pp_scan_init has no converting
        form: dtype=, or bool input for "sum" and "prod", raise
        InvalidArgument).

        exact=True: PP_ALGO_EXACT for this call: every output of a float32
        or float64 sum is the correctly rounded exact prefix sum (exclusive:
        out[0] = +0.0, or initial), bitwise the same on every backend (see
        reduce); with initial, initial takes part in the exact sum.
        Unsupported where the backend has no exact scan (with initial: cpu
        only, for now).

        axis: None (the default, np.cumsum's: a's elements in C order, a
        one-dimensional result) or an int (negative ones count from the
        end; out of range: numpy.exceptions.AxisError): a scan along that
        axis for each position of the others, as np.cumsum(a, axis)
        (pp_segmented_scan over rows of the axis's elements, moved last;
        the result has a's shape, a view in a's axis order; out= then of
        a's shape, written by the C call along the last axis where out is
        C-contiguous, else copied into). A 0-d a is one element. initial=
        takes axis None or one-dimensional a only (InvalidArgument).

        op may also be a parprim.Operator (pp_scan_op): a of its dtype
        exactly (else TypeError); the result has its dtype (out= of that
        dtype and a's size, or a itself: in place); exclusive=True starts
        from its identity. exact=True, initial=, axis= raise
        InvalidArgument; dtype= other than the operator's raises TypeError.
        """
        if isinstance(op, Operator):
            return _operator.scan(self, a, op, exclusive, out, exact, initial, dtype, axis)
        if axis is not None:
            ax = one_axis(a, axis, flat_0d=True)
            if ax is not None:
                if initial is not None:
                    raise InvalidArgument("parprim: scan(initial=) runs on the whole array: axis=None, or a "
                                          "one-dimensional array")
                x_in, is_bool = bool_as_u8(a)
                res, oc = scan_rows(self, x_in, ax, op, exclusive, out, exact, dtype, is_bool)
                return as_bool(res) if is_bool and oc == _U8_CODE else res
        if self._host and type(a) is _ndarray and out is None and initial is None and dtype is None:
            code = _CODE.get(a.dtype)
            if code is not None:
                try:  # the direct call (python/src/direct.c) in NumPy's result type
                    return self._c.scan_new(a, op, exclusive, exact, _out_code(code, op, None, False, "scan"))
                except _NotDirect:
                    pass
        x_in, is_bool = bool_as_u8(a)
        with self._run(a) as r:
            x = r.input(x_in)
            if initial is not None and dtype is None and not is_bool:
                oc = x.code
            else:
                oc = _out_code(x.code, op, dtype, is_bool, "scan")
            dt = _DTYPES[oc]
            y = r.output(dt, x.n, out, inputs=(x,), inplace=x if dt == x.dtype else None)
            self._c.scan(x.h, y.h, op, bool(exclusive), x.code, x.n, exact, initial, oc)
            res = r.result(y)
        return as_bool(res) if is_bool and dt == U8 else res

    def histogram_even(self, a, bins, lower, upper, out=None, right_closed=False):
        """Histogram of `bins` equal bins over [lower, upper)
        (pp_histogram_even). Returns a uint64 array of bins counts (out, a
        uint64 array of bins elements, when given: overwritten, not added to).

        C semantics (right_closed=False): bin i counts lower + i*w <= x <
        lower + (i+1)*w, w = (upper - lower) / bins, evaluated exactly for
        integers and by the header's double expression for floats; samples
        outside [lower, upper) and NaN are not counted. lower and upper are
        values of a's dtype (an integer type takes integers it can hold;
        float bounds must be finite; float16 and bfloat16 round them once,
        and bin as float32 over the same values), lower < upper. For integer types of up
        to 32 bits, integer bounds beyond the type are taken too (uint8
        samples over [0, 256) in 256 bins: one value a bin), counted over
        the same bins' edges (pp_histogram_range).

        right_closed=True matches np.histogram(a, bins, range=(lower, upper))
        bin for bin: NumPy's bin edges (np.histogram_bin_edges, in NumPy's
        dtype), and its last bin includes upper: parprim counts over those
        edges (pp_histogram_range, as parprim.histogram does; near-equal
        edges are binned at the speed of the C semantics). Integer edges
        above the type are above every sample; integer samples whose edges
        reach 2^53 in magnitude are counted as float64 values, as NumPy
        counts them (rounded above 2^53). parprim.histogram is NumPy's whole
        call (edges returned, range=None, edge arrays).
        """
        bins = index(bins, "bins")
        if bins < 0:  # an array of bins counts is made first (pp_histogram_even refuses 0)
            raise InvalidArgument(f"parprim: bins = {bins} is negative")
        if right_closed:
            return self._histogram_numpy(a, bins, lower, upper, out)
        if self._host and out is None and type(a) is _ndarray:
            try:  # the direct call (python/src/direct.c): bounds of a's type
                return self._c.histogram_even_new(a, lower, upper, bins)
            except _NotDirect:
                pass
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(U64, bins, out, inputs=(x,))
            e = even_edges_beyond(x.dtype, lower, upper, bins)
            if e is not None:  # bounds beyond an integer type (uint8 over [0, 256)): the same bins as edges
                r.put(y, count_bins(self._c, r, x, e, closed_last=False))
            else:
                self._c.histogram_even(x.h, y.h, lower, upper, bins, x.code, x.n)
            return r.result(y)

    def _histogram_numpy(self, a, bins, lower, upper, out):
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(U64, bins, out, inputs=(x,))
            try:
                edges = np.histogram_bin_edges(np.empty(0, x.dtype), bins, range=(lower, upper))
            except (ValueError, TypeError) as e:
                raise InvalidArgument(f"parprim: histogram_even(right_closed=True): {e}") from None
            r.put(y, count_bins(self._c, r, x, edges, closed_last=True))
            return r.result(y)

    def histogram(self, a, bins=10, range=None, weights=None):  # noqa: A002 (NumPy's name)
        """np.histogram(a, bins, range, weights=weights): (counts, edges),
        the same counts (int64, in a's library for GPU arrays) and
        the same edges (a NumPy array, np.histogram_bin_edges's: computed in
        a's float type, float64 for integers), NumPy's errors included
        (ValueError for a range that is not finite, or autodetected over
        NaN; bins not increasing or not positive). a is flattened.

        bins: an integer (equal bins over range, or over [a.min(), a.max()]
        when range is None, widened by 0.5 each way when those are equal;
        the last bin includes its right edge) or the edges (non-decreasing,
        infinite and out-of-type edges allowed: bin i counts edges[i] <= x <
        edges[i+1], the last bin also x == edges[-1]). Samples outside the
        edges and NaN are not counted. String estimators ("auto", ...) are
        not supported (InvalidArgument).

        Unweighted: one pp_histogram_range count over NumPy's edges in a's
        dtype (near-equal edges are binned at the speed of
        pp_histogram_even), plus one pass for a.min()/a.max() when range is
        None (as NumPy), and one more where the last edge is +inf for float
        samples (to count +inf samples). NumPy's equal-bins rule (an index
        estimate corrected once against the edges) gives each sample its
        bin over the edges; parprim's count is exact over the same edges.

        weights (a's shape): counted by NumPy itself (np.histogram on the
        host, its sums in its order, bit for bit), not by the C library.
        """
        if weights is not None:
            return numpy_weighted(a, bins, range, weights)
        with self._run(a) as r:
            x = r.input(a)
            edges = numpy_edges(x, a, bins, range)
            counts = count_bins(self._c, r, x, edges, closed_last=True).view(np.int64)
            if is_device_array(a):  # counts in a's library, as cupy.histogram gives them
                y = r.output(counts.dtype, counts.size, inputs=(x,))
                r.put(y, counts)
                return r.result(y), edges
            return counts, edges

    def histogram_range(self, a, edges, out=None):
        """Histogram with explicit edges (pp_histogram_range): bin i counts
        edges[i] <= x < edges[i+1]; samples outside [edges[0], edges[-1]) and
        NaN are not counted. Returns a uint64 array of len(edges) - 1 counts.

        edges: host numbers, strictly increasing in a's dtype (infinite
        edges are allowed). Edges of another dtype are converted to a's so
        that each comparison keeps its meaning: each becomes the smallest
        value of a's dtype at or above it (2.5 is 3 for integer samples;
        -inf is the type's minimum). Edges above an integer type (+inf
        included) are above every sample: histogram_range(np.arange(10),
        [0, 1, 3, 6, np.inf]) is [1, 2, 3, 4], as np.histogram.
        out: a uint64 array of len(edges) - 1 elements, overwritten.
        """
        with self._run(a) as r:
            x = r.input(a)
            e, beyond = edges_in(x.dtype, edges, beyond=True)
            nb = max(e.size + beyond - 1, 0)  # pp_histogram_range refuses 0 bins
            y = r.output(U64, nb, out, inputs=(x,))
            if beyond and nb:  # integer edges above the type: counted from the edges as given
                e = np.asarray(edges).reshape(-1)
                if np.any(e[1:] <= e[:-1]):
                    raise InvalidArgument("parprim: edges must increase strictly")
                r.put(y, count_bins(self._c, r, x, e, closed_last=False))
            else:
                self._c.histogram_range(x.h, y.h, bits(e), nb, x.code, x.n)
            return r.result(y)

    def select_flagged(self, a, flags):
        """The elements a[i] with flags[i] != 0, in input order
        (pp_select_flagged). flags: a bool or uint8 array of a's length.
        Returns a new array of the selected elements (trimmed to the count:
        a copy where the count is at most half of a large input, else a
        view of the len(a) output buffer)."""
        if self._host and type(a) is _ndarray and type(flags) is _ndarray:
            try:  # the direct call (python/src/direct.c)
                return trimmed(*self._c.select_flagged_new(a, flags))
            except _NotDirect:
                pass
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
        float is rounded to float32 for float32 arrays, as NumPy does, and
        once to float16 or bfloat16 for those, as NumPy compares a float16
        array with a Python float). The elements are returned with their
        bits (NaN payloads, the sign of zero) unchanged."""
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            count = self._c.select_if(x.h, y.h, cmp, value, x.code, x.n)
            return r.result(y, count)

    def partition_if(self, a, cmp, value):
        """Stable partition (pp_partition_if): the elements x with
        `x cmp value` first, in input order, then the others, in input order.
        cmp and value: as for select_if. Returns (array, count): the
        partitioned copy of a (len(a) elements) and the number selected (a
        Python int)."""
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n)
            count = self._c.partition_if(x.h, y.h, cmp, value, x.code, x.n)
            return r.result(y), count

    def sort(self, a, descending=False, out=None, nan_last=True, axis=-1):
        """Stable radix sort (pp_sort_copy: the sort reads a and writes the
        result, with no copy of a first; only cuda's study algorithms copy a
        into the result and sort it there).

        Returns the sorted elements: a new array, or out (an array of a's
        dtype and size; out=a sorts a in place). a is not changed otherwise.
        Floats: -0.0 before +0.0; NaNs (any sign or payload, bits kept) sort
        above +inf, so ascending puts them last, like np.sort.
        descending=True: equal keys keep their input order (stable), and
        NaNs go last (nan_last=True, the default, the C order
        PP_DESCENDING_NAN_LAST: where NaNs are "missing" values they stay
        out of the way) rather than first, where PP_DESCENDING (the exact
        reverse of ascending, as np.sort(a)[::-1] also has them) puts them;
        nan_last=False gives that order. nan_last has no effect on ascending
        sorts and integers. float16 and bfloat16 sort in the same order (the
        bits moved unchanged) on every backend, except along an axis of an
        N-D array (pp_segmented_sort: Unsupported).

        axis: as np.sort's: -1 (the default: each row along the last axis),
        another int (negative ones count from the end; out of range, or
        any int for a 0-d a: numpy.exceptions.AxisError), or None (a's
        elements in C order, sorted into a one-dimensional result). Along
        an axis of an N-D a: pp_segmented_sort over rows of that axis's
        elements, moved last; the result has a's shape (a view in a's axis
        order). out= then has a's shape: along the last axis a C-contiguous
        out is the C call's output (out=a: in place), else the result is
        copied into it.
        """
        if out is None and flat_direct(self, a, axis):
            try:  # the direct call (python/src/direct.c)
                return self._c.sort_new(a, _order(descending, nan_last))
            except _NotDirect:
                pass
        ax = one_axis(a, axis, flat_0d=False)
        if ax is not None:
            return sort_rows(self, a, ax, descending, nan_last, out)
        order = _order(descending, nan_last)
        with self._run(a) as r:
            x = r.input(a)
            y = r.output(x.dtype, x.n, out, inputs=(x,), inplace=x, src=x)
            self._c.sort_copy(x.h, y.h, order, x.code, x.n)
            return r.result(y)

    def sort_pairs(self, keys, values, descending=False, nan_last=True):
        """Sorts keys as sort() does and moves values[i] with keys[i]
        (pp_sort_pairs_copy: the sort writes the new arrays). values: an
        array of keys' length whose items are 1, 2, 4 or 8 bytes (any such
        dtype). Returns (keys, values): new arrays; the inputs are not
        changed. Stable in both orders; descending and nan_last as for
        sort()."""
        order = _order(descending, nan_last)
        with self._run(keys) as r:
            k = r.input(keys, "keys")
            v = r.unshared(k, r.values(values, k.n))
            ky = r.output(k.dtype, k.n, src=k, what="keys")
            vy = r.output(v.dtype, k.n, src=v, what="values")
            self._c.sort_pairs_copy(k.h, v.h, ky.h, vy.h, v.dtype.itemsize, order, k.code, k.n)
            return r.result(ky), r.result(vy)
