"""parprim: data-parallel primitives (reduce, scan, histograms, stream
compaction, radix sort; their segmented and by-key forms, argsort, unique,
run-length encoding, searchsorted, merge, top-k) on the cpu (OpenMP), cuda and opencl backends of the
C library parprim (include/parprim.h is its manual), for NumPy arrays and
CUDA arrays of CuPy, Numba, PyTorch, JAX and others.

    import numpy as np, parprim
    a = np.random.rand(10**6).astype(np.float32)
    parprim.reduce(a)                    # a NumPy float32 scalar
    parprim.scan(a, "max")               # a new array
    parprim.sort(a, out=a)               # in place
    with parprim.Context("opencl") as ctx:
        ctx.histogram_even(a, 10, 0.0, 1.0)

The module functions run on a context of the calling thread, created on
first use with backend "auto" (the environment variable PARPRIM_BACKEND,
"cpu", "cuda" or "opencl", overrides the choice); ``default_context()``
returns it. Context objects run the same functions on a backend and device
of your choice.

Arrays:

- NumPy arrays on the cpu backend are used in place (zero copy) when they
  are C-contiguous (of any shape: their elements in C order); others are
  copied once. Results are one-dimensional NumPy arrays (or out=),
  except along an axis: sort, argsort, scan, reduce and top_k take
  NumPy's axis= (np.sort's and np.argsort's default -1, np.cumsum's and
  np.sum's None: all elements in C order; top_k: the last axis, as
  torch.topk), run over rows of the axis's elements by the segmented
  primitives, and return arrays of NumPy's shapes.
- On a cuda context, CUDA arrays (``__cuda_array_interface__``: CuPy,
  Numba; or ``__dlpack__``: PyTorch, JAX) are used in place, ordered on
  their producer's stream, and results are arrays of the same library on
  the same device (CuPy in, CuPy out; torch in, torch out; a
  parprim.DeviceArray for JAX and others whose arrays cannot be written).
- A NumPy array given to a GPU context (cuda or opencl) is uploaded,
  processed on the device and the results downloaded into NumPy arrays.

Element types: int8, uint8, int16, uint16, int32, uint32, int64, uint64,
float32, float64, and the half types float16 (numpy.float16, CuPy float16,
torch.float16) and bfloat16 (ml_dtypes.bfloat16, torch.bfloat16: both need
the package ml_dtypes, which parprim imports only then) (others raise InvalidArgument before any
work); bool arrays as flags, and as data of reduce, scan, argmin, argmax,
count_nonzero, any and all (their 0/1 bytes). The half types take what the
C library takes of them (include/parprim.h): reduce with "sum", "min",
"max"; scan with "sum", "min", "max" (initial= too; with "sum" on cpu); reduce and
scan along an axis; segmented_reduce with "sum", "min", "max",
segmented_scan with "sum", "min", "max"; argmin, argmax;
histogram_even, histogram_range, histogram; select_flagged, select_if,
partition_if, unique and unique_consecutive (with their return_* flags);
half keys in reduce_by_key and scan_by_key, and their "sum" of half
values on cpu; sort, argsort, searchsorted,
merge, top_k and segmented_sort (so sorts along an axis too). Host numbers (value,
lower, upper, edges, initial) are rounded once to the half type, as NumPy
rounds a Python float against a float16 array; results keep the type,
indices and counts NumPy's (int64). The sums are exact, the exact sum
rounded once to the half type (np.sum rounds along the way); any other
call (prod, a sum with initial= or by key but on cpu, ...) raises Unsupported with the C library's message, never falling
back to another type. Sums and products follow NumPy's result types
(small integers and bool in int64/uint64); float32 sums accumulate in
float64 by default (Context.reduce). Errors raise parprim.Error subclasses
carrying the C library's message (pp_last_error).

Operators of your own: parprim.Operator(source, dtype, identity), C text
that the library compiles for each backend, is op= of reduce, scan and the
segmented and by-key forms over arrays of its dtype (a NumPy structured
dtype, or a plain one), or of its packed form (fields of one type as a
trailing axis: what GPU arrays can hold).
"""

from __future__ import annotations

from . import _parprim
from ._arrays import DeviceArray
from ._context import ALGORITHMS, BACKENDS, CMPS, OPS, PRIMITIVES, Context, _tls
from ._operator import Operator
from ._parprim import BackendError, BackendUnavailable, Error, InvalidArgument, OutOfMemory, Unsupported

_v = _parprim.version()
__version__ = f"{_v // 10000}.{_v // 100 % 100}.{_v % 100}"
del _v

__all__ = [
    "Context", "DeviceArray", "Operator", "Error", "InvalidArgument", "Unsupported", "OutOfMemory", "BackendUnavailable",
    "BackendError", "reduce", "scan", "argmin", "argmax", "count_nonzero", "any", "all", "histogram_even", "histogram_range", "select_flagged", "select_if",
    "unique", "unique_consecutive", "partition_if", "sort", "sort_pairs", "argsort", "segmented_reduce",
    "segmented_scan", "segmented_sort", "segmented_sort_pairs", "reduce_by_key", "scan_by_key",
    "run_length_encode", "searchsorted", "merge", "merge_pairs", "top_k", "set_algorithm", "get_algorithm", "info",
    "default_context", "OPS", "CMPS", "PRIMITIVES", "ALGORITHMS", "__version__",
]
__all__.insert(__all__.index("histogram_even"), "histogram")

# --------------------------------------------------------------------------
# The per-thread default context
# --------------------------------------------------------------------------

def default_context():
    """The calling thread's default context (backend "auto"), created on
    first use; the module functions run on it. Once it is closed, the
    thread's next call makes a new one."""
    try:
        return _tls.ctx
    except AttributeError:
        ctx = _tls.ctx = Context("auto")
        return ctx


def reduce(a, op="sum", exact=None, dtype=None, axis=None, keepdims=False):
    """a[0] op a[1] op ... op a[n-1]: see Context.reduce. Returns a NumPy
    scalar of NumPy's result type (np.sum's for "sum")."""
    try:
        ctx = _tls.ctx
    except AttributeError:
        ctx = default_context()
    return ctx.reduce(a, op, exact, dtype, axis, keepdims)


def scan(a, op="sum", exclusive=False, out=None, exact=False, initial=None, dtype=None, axis=None):
    """Inclusive or exclusive prefix scan: see Context.scan. exact=True:
    float sums correctly rounded; initial: the value to start from."""
    return default_context().scan(a, op, exclusive, out, exact, initial, dtype, axis)


def argmin(a):
    """np.argmin of the flattened array: see Context.argmin."""
    return default_context().argmin(a)


def argmax(a):
    """np.argmax of the flattened array: see Context.argmax."""
    return default_context().argmax(a)


def count_nonzero(a):
    """np.count_nonzero: see Context.count_nonzero."""
    return default_context().count_nonzero(a)


def any(a):  # noqa: A001 - NumPy's name
    """np.any: see Context.any."""
    return default_context().any(a)


def all(a):  # noqa: A001 - NumPy's name
    """np.all: see Context.all."""
    return default_context().all(a)


def histogram_even(a, bins, lower, upper, out=None, right_closed=False):
    """Histogram of equal bins over [lower, upper) (right_closed=True:
    np.histogram's bins): see Context.histogram_even."""
    return default_context().histogram_even(a, bins, lower, upper, out, right_closed)


def histogram(a, bins=10, range=None, weights=None):  # noqa: A002 (NumPy's name)
    """np.histogram's (counts, edges), counted by the C library: see
    Context.histogram."""
    return default_context().histogram(a, bins, range, weights)


def histogram_range(a, edges, out=None):
    """Histogram with explicit edges: see Context.histogram_range."""
    return default_context().histogram_range(a, edges, out)


def select_flagged(a, flags):
    """The elements of a whose flag is nonzero: see Context.select_flagged."""
    return default_context().select_flagged(a, flags)


def select_if(a, cmp, value):
    """The elements x of a with `x cmp value`: see Context.select_if."""
    return default_context().select_if(a, cmp, value)


def unique(a, return_index=False, return_inverse=False, return_counts=False, equal_nan=True):
    """np.unique's results: see Context.unique."""
    return default_context().unique(a, return_index, return_inverse, return_counts, equal_nan)


def unique_consecutive(a, return_inverse=False, return_counts=False):
    """torch.unique_consecutive's results: see Context.unique_consecutive."""
    return default_context().unique_consecutive(a, return_inverse, return_counts)


def partition_if(a, cmp, value):
    """(partitioned copy of a, count): see Context.partition_if."""
    return default_context().partition_if(a, cmp, value)


def sort(a, descending=False, out=None, nan_last=True, axis=-1):
    """Stable radix sort: see Context.sort."""
    return default_context().sort(a, descending, out, nan_last, axis)


def sort_pairs(keys, values, descending=False, nan_last=True):
    """Sorts keys and moves values with them: see Context.sort_pairs."""
    return default_context().sort_pairs(keys, values, descending, nan_last)


def argsort(a, descending=False, nan_last=True, axis=-1):
    """The stable sort's permutation: see Context.argsort."""
    return default_context().argsort(a, descending, nan_last, axis)


def segmented_reduce(a, offsets, op="sum", exact=False):
    """One reduce per segment: see Context.segmented_reduce."""
    return default_context().segmented_reduce(a, offsets, op, exact)


def segmented_scan(a, offsets, op="sum", exclusive=False, out=None, exact=False):
    """A scan per segment: see Context.segmented_scan."""
    return default_context().segmented_scan(a, offsets, op, exclusive, out, exact)


def segmented_sort(a, offsets, descending=False, nan_last=True, out=None):
    """Sorts each segment: see Context.segmented_sort."""
    return default_context().segmented_sort(a, offsets, descending, nan_last, out)


def segmented_sort_pairs(keys, values, offsets, descending=False, nan_last=True):
    """Sorts each segment of keys, moving values: see Context.segmented_sort_pairs."""
    return default_context().segmented_sort_pairs(keys, values, offsets, descending, nan_last)


def reduce_by_key(keys, values, op="sum", exact=False):
    """One row per run of equal keys: see Context.reduce_by_key."""
    return default_context().reduce_by_key(keys, values, op, exact)


def scan_by_key(keys, values, op="sum", exclusive=False, out=None, exact=False):
    """A scan restarting at each run of equal keys: see Context.scan_by_key."""
    return default_context().scan_by_key(keys, values, op, exclusive, out, exact)


def run_length_encode(a):
    """(values, counts) of the runs of equal neighbours: see Context.run_length_encode."""
    return default_context().run_length_encode(a)


def searchsorted(a, v, side="left", sorter=None, descending=False, nan_last=True):
    """np.searchsorted: see Context.searchsorted."""
    return default_context().searchsorted(a, v, side, sorter, descending, nan_last)


def merge(a, b, descending=False, nan_last=True):
    """The stable merge of two sorted arrays: see Context.merge."""
    return default_context().merge(a, b, descending, nan_last)


def merge_pairs(a_keys, a_values, b_keys, b_values, descending=False, nan_last=True):
    """merge of keys, moving values with them: see Context.merge_pairs."""
    return default_context().merge_pairs(a_keys, a_values, b_keys, b_values, descending, nan_last)


def top_k(a, k, largest=True, nan_last=False, axis=-1):
    """(values, indices) of the k largest or smallest, as torch.topk: see Context.top_k."""
    return default_context().top_k(a, k, largest, nan_last, axis)


def set_algorithm(primitive, algorithm):
    """Chooses an algorithm on the calling thread's default context: see
    Context.set_algorithm."""
    default_context().set_algorithm(primitive, algorithm)


def get_algorithm(primitive):
    """The algorithm chosen on the calling thread's default context: see
    Context.get_algorithm."""
    return default_context().get_algorithm(primitive)


# The module functions carry the Context methods' documentation.
for _f in (reduce, scan, argmin, argmax, count_nonzero, any, all, histogram_even, histogram_range, select_flagged, select_if, unique, unique_consecutive,
           partition_if, sort, sort_pairs, argsort, segmented_reduce, segmented_scan, segmented_sort,
           segmented_sort_pairs, reduce_by_key, scan_by_key, run_length_encode, searchsorted, merge, merge_pairs, top_k,
           set_algorithm, get_algorithm):
    _f.__doc__ = (getattr(Context, _f.__name__).__doc__.rstrip() +
                  "\n\n        Runs on the calling thread's default context (default_context()).\n")
del _f
histogram.__doc__ = (Context.histogram.__doc__.rstrip() +
                     "\n\n        Runs on the calling thread's default context (default_context()).\n")

# --------------------------------------------------------------------------
# info
# --------------------------------------------------------------------------

def info():
    """What this parprim has and finds, as a dict:

    {"version": "0.1.0",
     "backends": {name: {"built": bool, "present": bool,
                         "device": str or None, "threads": int,
                         "memory": {"total", "available", "max_alloc"} or None,
                         "algorithms": {primitive: [names]}}
                  for name in ("cpu", "cuda", "opencl")},
     "auto": the backend Context("auto") picks (None if that fails)}

    "built": compiled into this parprim; "present": a context can be made
    (pp_backend_status). For a present backend a context is created to read
    its device, threads (0 on GPUs), memory and the algorithms
    set_algorithm accepts per primitive; "error" holds the message where
    that fails. Absent backends have device and memory None, threads 0 and
    no algorithms.
    """
    backends = {}
    for code, name in enumerate(BACKENDS):
        if name == "auto":
            continue
        st = _parprim.backend_status(code)
        present = st == _parprim.SUCCESS
        entry = {"built": st != Unsupported.status, "present": present, "device": None, "threads": 0,
                 "memory": None, "algorithms": {}}
        if not present:
            entry["status"] = _parprim.status_string(st)
        else:
            try:
                with Context(name) as ctx:
                    entry["device"] = ctx.device_name
                    entry["threads"] = ctx.threads
                    entry["memory"] = ctx.memory()
                    entry["algorithms"] = {p: ctx.algorithms(p) for p in PRIMITIVES}
            except Error as e:
                entry["error"] = str(e)
        backends[name] = entry
    try:
        with Context("auto") as ctx:
            auto = ctx.backend
    except Error:
        auto = None
    return {"version": __version__, "backends": backends, "auto": auto}
