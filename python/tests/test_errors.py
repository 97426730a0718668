"""Every error path: the exception class the contract names (InvalidArgument
is also a ValueError, Unsupported a NotImplementedError, ...), a message, and
nothing written (include/parprim.h: a call that fails its checks writes
nothing)."""

import numpy as np
import pytest

import parprim
from conftest import BACKENDS, INFO, PRIMITIVES, assert_bits, assert_same, context, make_data

BAD_DTYPES = ["longdouble", "complex64", "complex128", "object", "U3", "datetime64[s]"]


def raises(exc, fn, *args, **kw):
    """Calls fn, which must raise exc with a message; returns the exception."""
    with pytest.raises(exc) as info:
        fn(*args, **kw)
    assert str(info.value).strip(), f"{exc.__name__} without a message"
    assert isinstance(info.value, parprim.Error), f"{type(info.value)} is not a parprim.Error"
    return info.value


def test_exception_hierarchy():
    assert issubclass(parprim.Error, Exception)
    assert issubclass(parprim.InvalidArgument, parprim.Error) and issubclass(parprim.InvalidArgument, ValueError)
    assert issubclass(parprim.Unsupported, parprim.Error) and issubclass(parprim.Unsupported, NotImplementedError)
    assert issubclass(parprim.OutOfMemory, parprim.Error) and issubclass(parprim.OutOfMemory, MemoryError)
    assert issubclass(parprim.BackendUnavailable, parprim.Error)
    assert issubclass(parprim.BackendError, parprim.Error)


# ---- element types ---------------------------------------------------------


@pytest.mark.parametrize("dtype", BAD_DTYPES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_wrong_dtype(backend, dtype):
    ctx = context(backend)
    a = np.zeros(8, dtype=dtype)
    raises(parprim.InvalidArgument, ctx.reduce, a)
    raises(parprim.InvalidArgument, ctx.scan, a)
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 4, 0, 1)
    raises(parprim.InvalidArgument, ctx.histogram_range, a, np.array([0, 1, 2], dtype=dtype))
    raises(parprim.InvalidArgument, ctx.select_flagged, a, np.ones(8, bool))
    raises(parprim.InvalidArgument, ctx.select_if, a, "<", a[0])
    raises(parprim.InvalidArgument, ctx.unique, a)
    raises(parprim.InvalidArgument, ctx.unique_consecutive, a)
    raises(parprim.InvalidArgument, ctx.argsort, a)
    raises(parprim.InvalidArgument, ctx.segmented_reduce, a, [0, 8])
    raises(parprim.InvalidArgument, ctx.segmented_scan, a, [0, 8])
    raises(parprim.InvalidArgument, ctx.partition_if, a, "<", a[0])
    raises(parprim.InvalidArgument, ctx.sort, a)
    raises(parprim.InvalidArgument, ctx.sort_pairs, a, np.arange(8))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_copy_overlap(backend):
    """The out-of-place sort's arrays: out= overlapping the input (not
    exactly it) is refused by the binding; overlapping arrays given to the
    C call (the low-level context) come back as InvalidArgument naming the
    C call and the argument; nothing is written."""
    ctx = context(backend)
    a = np.arange(100, dtype=np.int32)[::-1].copy()
    keep = a.copy()
    raises(parprim.InvalidArgument, ctx.sort, a[:99], out=a[1:])
    assert_bits(a, keep, "input after a refused out=")
    if backend != "cpu":
        return  # the low-level calls below take host memory on cpu only
    buf = np.arange(64, dtype=np.int32)[::-1].copy()
    keep = buf.copy()
    e = raises(parprim.InvalidArgument, ctx._c.sort_copy, buf[:32], buf[16:48], False, -1, -1)
    assert "pp_sort_copy" in str(e) and "keys_out" in str(e), str(e)
    e = raises(parprim.InvalidArgument, ctx._c.sort_pairs_copy, buf[:16], buf[16:32], buf[32:48], buf[:16], 4,
               False, -1, -1)
    assert "pp_sort_pairs_copy" in str(e) and "values_out" in str(e), str(e)
    assert_bits(buf, keep, "arrays after refused calls")
    raises(parprim.InvalidArgument, ctx._c.sort_copy, buf[:32], buf[32:48], False, -1, -1)  # keys_out too short
    raises(parprim.InvalidArgument, ctx._c.sort_copy, buf[:32], np.zeros(32, np.float32), False, -1, -1)
    assert_bits(buf, keep, "arrays after refused calls")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_pairs_bad_values(backend):
    ctx = context(backend)
    keys = np.arange(8, dtype=np.int32)
    raises(parprim.InvalidArgument, ctx.sort_pairs, keys, np.zeros(8, np.complex128))  # 16-byte values
    raises(parprim.InvalidArgument, ctx.sort_pairs, keys, np.zeros(8, object))
    raises(parprim.InvalidArgument, ctx.sort_pairs, keys, np.arange(7))
    raises(parprim.InvalidArgument, ctx.sort_pairs, keys, np.arange(9))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bitwise_on_floats_is_unsupported(backend):
    ctx = context(backend)
    for dtype in (np.float32, np.float64):
        a = np.ones(8, dtype=dtype)
        for op in ("and", "or", "xor"):
            e = raises(parprim.Unsupported, ctx.reduce, a, op)
            assert isinstance(e, NotImplementedError)
            raises(parprim.Unsupported, ctx.scan, a, op)
            raises(parprim.Unsupported, ctx.scan, a, op, exclusive=True)
            raises(parprim.Unsupported, ctx.reduce, a[:0], op)


# ---- strings: operators, comparisons, algorithms, backends ----------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_op(backend):
    ctx = context(backend)
    a = np.arange(10, dtype=np.int32)
    for op in ("add", "avg", "", "sum ", "minimum", "&"):
        e = raises(parprim.InvalidArgument, ctx.reduce, a, op)
        assert isinstance(e, ValueError)
        raises(parprim.InvalidArgument, ctx.scan, a, op)
        raises(parprim.InvalidArgument, ctx.scan, a[:0], op)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_cmp(backend):
    ctx = context(backend)
    a = np.arange(10, dtype=np.int32)
    for cmp in ("=<", "<>", "lt", "", "=", "===", "!"):
        raises(parprim.InvalidArgument, ctx.select_if, a, cmp, 3)
        raises(parprim.InvalidArgument, ctx.partition_if, a, cmp, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_not_of_the_type(backend):
    """A comparison value or a bound the element type cannot hold (C reads
    them as values of that type) is InvalidArgument, not a silent wrap or
    rounding."""
    ctx = context(backend)
    u8 = np.arange(10, dtype=np.uint8)
    i32 = np.arange(-5, 5, dtype=np.int32)
    for a, v in ((u8, 256), (u8, -1), (i32, 2**31), (i32, 2.5), (i32, float("nan")),
                 (np.arange(3, dtype=np.uint64), 2**64), (np.arange(3, dtype=np.int64), -(2**63) - 1)):
        raises(parprim.InvalidArgument, ctx.select_if, a, "<", v)
        raises(parprim.InvalidArgument, ctx.partition_if, a, ">=", v)
    raises(parprim.InvalidArgument, ctx.histogram_even, i32, 2, 0.5, 3)
    raises(parprim.InvalidArgument, ctx.histogram_even, np.arange(3, dtype=np.int64), 2, 0, 2**63)
    assert_same(ctx.histogram_even(i32, 2, 0, 2**31), np.array([5, 0], np.uint64))  # beyond int32: taken
    raises(parprim.InvalidArgument, ctx.histogram_even, i32, 2.0, 0, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_algorithm(backend):
    ctx = parprim.Context(backend=backend)
    try:
        for prim in PRIMITIVES:
            raises(parprim.InvalidArgument, ctx.set_algorithm, prim, "quicksort")
            raises(parprim.InvalidArgument, ctx.set_algorithm, prim, "")
            assert ctx.get_algorithm(prim) == "auto"
            listed = set(INFO["backends"][backend]["algorithms"][prim])
            # names of the enum that this backend does not serve for prim
            for name in ("onesweep", "decoupled-lookback", "blelloch", "naive", "private-reduce", "ballot"):
                if name not in listed:
                    raises(parprim.Unsupported, ctx.set_algorithm, prim, name)
                    assert ctx.get_algorithm(prim) == "auto", "a failed set_algorithm changed the choice"
        for bad in ("sorting", "", "Reduce"):
            raises(parprim.InvalidArgument, ctx.set_algorithm, bad, "auto")
            raises(parprim.InvalidArgument, ctx.get_algorithm, bad)
    finally:
        ctx.close()


def test_unknown_backend():
    for name in ("metal", "gpu", "opencl2", "cpu,cuda"):
        raises(parprim.InvalidArgument, parprim.Context, backend=name)


@pytest.mark.parametrize("name", ["cuda", "opencl"])
def test_backend_not_built_or_absent(name):
    """pp_create: Unsupported for a backend not built in, BackendUnavailable
    where it is built but finds no device."""
    b = INFO["backends"][name]
    if b["present"]:
        pytest.skip(f"{name} is present here")
    exc = parprim.Unsupported if not b["built"] else parprim.BackendUnavailable
    raises(exc, parprim.Context, backend=name)


def test_bad_context_options():
    raises(parprim.InvalidArgument, parprim.Context, backend="cpu", threads=-1)
    raises(parprim.InvalidArgument, parprim.Context, backend="cpu", device=-1)
    if "opencl" in BACKENDS:
        e = raises(parprim.Error, parprim.Context, backend="opencl", device=999)
        assert isinstance(e, (parprim.InvalidArgument, parprim.BackendUnavailable)), type(e)


def test_bad_parprim_backend_variable(monkeypatch):
    monkeypatch.setenv("PARPRIM_BACKEND", "tpu")
    raises(parprim.InvalidArgument, parprim.Context)
    with parprim.Context(backend="cpu") as ctx:  # an explicit backend ignores the variable
        assert ctx.backend == "cpu"


# ---- lengths, out= ---------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_mismatched_lengths(backend):
    ctx = context(backend)
    a = np.arange(100, dtype=np.int32)
    raises(parprim.InvalidArgument, ctx.select_flagged, a, np.ones(99, bool))
    raises(parprim.InvalidArgument, ctx.select_flagged, a, np.ones(101, bool))
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=np.zeros(99, np.int32))
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=np.zeros(101, np.int32))
    raises(parprim.InvalidArgument, ctx.sort, a, out=np.zeros(99, np.int32))
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 10, 0, 100, out=np.zeros(9, np.uint64))
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 10, 0, 100, out=np.zeros(11, np.uint64))
    raises(parprim.InvalidArgument, ctx.histogram_range, a, [0, 10, 20], out=np.zeros(3, np.uint64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_wrong_dtype(backend):
    ctx = context(backend)
    a = np.arange(100, dtype=np.int32)
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=np.zeros(100, np.int32))  # the result is int64
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=np.zeros(100, np.uint32))
    raises(parprim.InvalidArgument, ctx.scan, a, "max", out=np.zeros(100, np.int64))
    raises(parprim.InvalidArgument, ctx.sort, a, out=np.zeros(100, np.float32))
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 10, 0, 100, out=np.zeros(10, np.int64))
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 10, 0, 100, out=np.zeros(10, np.float64))
    raises(parprim.InvalidArgument, ctx.histogram_range, a, [0, 10, 20], out=np.zeros(2, np.uint32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_not_contiguous(backend):
    ctx = context(backend)
    a = np.arange(100, dtype=np.int32)
    big = np.zeros(200, np.int32)
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=big[::2])
    raises(parprim.InvalidArgument, ctx.sort, a, out=big[::2])
    assert not big.any(), "a failed call wrote into out="
    counts = np.zeros(20, np.uint64)
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 10, 0, 100, out=counts[::2])
    raises(parprim.InvalidArgument, ctx.histogram_range, a, [0, 10, 20], out=counts[:4:2])
    assert not counts.any(), "a failed call wrote into out="


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_read_only(backend):
    ctx = context(backend)
    a = np.arange(100, dtype=np.int32)[::-1].copy()
    out = np.zeros(100, np.int32)
    out.flags.writeable = False
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=out)
    a.flags.writeable = False
    raises(parprim.InvalidArgument, ctx.sort, a, out=a)
    raises(parprim.InvalidArgument, ctx.scan, a, "sum", out=a)
    assert a[0] == 99, "a failed call changed a read-only array"


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlap(backend):
    """Any overlap of in and out other than in == out is InvalidArgument
    (scan), counts must not overlap samples (histograms)."""
    ctx = context(backend)
    buf = np.arange(101, dtype=np.int64)
    keep = buf.copy()
    raises(parprim.InvalidArgument, ctx.scan, buf[:100], "sum", out=buf[1:])
    raises(parprim.InvalidArgument, ctx.scan, buf[1:], "sum", out=buf[:100])
    assert_bits(buf, keep, "a failed scan wrote")
    u = np.arange(100, dtype=np.uint64)
    keep = u.copy()
    raises(parprim.InvalidArgument, ctx.histogram_even, u[:60], 10, 0, 100, out=u[50:60])
    raises(parprim.InvalidArgument, ctx.histogram_range, u[:60], np.arange(0, 11, dtype=np.uint64), out=u[55:65])
    assert_bits(u, keep, "a failed histogram wrote")


# ---- histogram bounds, bins, edges ----------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_even_bad_bounds(backend):
    ctx = context(backend)
    out = np.full(4, 5, np.uint64)
    for dtype in (np.int32, np.uint8, np.int64, np.float32, np.float64):
        a = np.arange(10).astype(dtype)
        raises(parprim.InvalidArgument, ctx.histogram_even, a, 4, 5, 5, out=out)
        raises(parprim.InvalidArgument, ctx.histogram_even, a, 4, 6, 5, out=out)
        raises(parprim.InvalidArgument, ctx.histogram_even, a, 0, 0, 5)
        raises(parprim.InvalidArgument, ctx.histogram_even, a, -1, 0, 5)
        if np.dtype(dtype).kind == "f":
            for lo, hi in ((-0.0, 0.0), (np.nan, 1.0), (0.0, np.nan), (np.nan, np.nan), (-np.inf, 1.0),
                           (0.0, np.inf), (-np.inf, np.inf)):
                raises(parprim.InvalidArgument, ctx.histogram_even, a, 4, lo, hi, out=out)
    a = np.arange(10, dtype=np.uint8)
    # bounds beyond the integer type are taken (uint8 over [0, 256)); beyond a 64-bit type they are not
    assert_same(ctx.histogram_even(a, 4, 0, 300), np.array([10, 0, 0, 0], np.uint64))
    assert_same(ctx.histogram_even(a, 4, -1, 200), np.array([10, 0, 0, 0], np.uint64))
    raises(parprim.InvalidArgument, ctx.histogram_even, a.astype(np.uint64), 4, 0, 2**64)
    assert (out == 5).all(), "a failed histogram wrote into out="


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_range_bad_edges(backend):
    ctx = context(backend)
    out = np.full(3, 5, np.uint64)
    i = np.arange(10, dtype=np.int32)
    f = np.arange(10, dtype=np.float64)
    for a, edges in ((i, [0, 5, 5, 9]), (i, [0, 6, 5, 9]), (i, [9, 5, 3, 0]), (f, [-1.0, -0.0, 0.0, 1.0]),
                     (f, [0.0, np.nan, 2.0, 3.0]), (f, [np.nan, 1.0, 2.0, 3.0]), (f, [0.0, 1.0, 2.0, np.nan])):
        raises(parprim.InvalidArgument, ctx.histogram_range, a, np.array(edges, dtype=a.dtype), out=out)
    assert (out == 5).all(), "a failed histogram wrote into out="
    raises(parprim.InvalidArgument, ctx.histogram_range, i, np.array([3], dtype=np.int32))  # no bin
    raises(parprim.InvalidArgument, ctx.histogram_range, i, np.array([], dtype=np.int32))
    # infinite edges are fine
    got = ctx.histogram_range(f, np.array([-np.inf, 2.0, np.inf]))
    assert list(got) == [2, 8]


# ---- failures write nothing; closed contexts -------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_failed_call_writes_nothing(backend, rng):
    ctx = context(backend)
    a = make_data(rng, np.int32, 1000)
    out = np.full(1000, 3, np.int32)
    raises(parprim.InvalidArgument, ctx.scan, a, "bogus", out=out)
    assert (out == 3).all()
    keep = a.copy()
    raises(parprim.InvalidArgument, ctx.scan, a, "bogus", out=a)
    assert_bits(a, keep)
    f = make_data(rng, np.float32, 1000)
    keep = f.copy()
    raises(parprim.Unsupported, ctx.scan, f, "xor", out=f)
    assert_bits(f, keep)


def test_closed_context():
    ctx = parprim.Context(backend="cpu")
    ctx.close()
    ctx.close()  # twice is fine
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(parprim.Error):
        ctx.reduce(a)
    with pytest.raises(parprim.Error):
        ctx.sort(a)
    with parprim.Context(backend="cpu") as c2:
        assert c2.reduce(a) == 45
    with pytest.raises(parprim.Error):
        c2.scan(a)


@pytest.mark.skipif("opencl" not in BACKENDS, reason="no OpenCL device present")
def test_out_of_memory_beyond_max_alloc():
    """opencl: an array above CL_DEVICE_MAX_MEM_ALLOC_SIZE is OutOfMemory (a
    MemoryError). The array is np.empty: its pages are never touched."""
    mem = INFO["backends"]["opencl"]["memory"]
    try:
        limit = int(mem["max_alloc"])
    except (KeyError, TypeError):
        pytest.skip(f"info() gives no max_alloc for opencl: {mem!r}")
    a = np.empty(limit + 1, dtype=np.int8)
    ctx = context("opencl")
    e = raises(parprim.OutOfMemory, ctx.reduce, a)
    assert isinstance(e, MemoryError)
    assert ctx.reduce(np.arange(10, dtype=np.int8)) == 45, "the context is usable after OutOfMemory"
