"""axis= of sort, argsort, scan, reduce and top_k on N-D arrays against
NumPy (np.sort, np.argsort(kind="stable"), np.cumsum, np.sum, np.max, ...),
on every backend present: awkward shapes (length-1 and empty axes, 0-d),
negative axes, tuples of axes and keepdims, non-contiguous inputs, NumPy's
result dtypes and errors (AxisError), out=, and the command line's --axis."""

import subprocess
import sys

import numpy as np
import pytest

import parprim
from conftest import BACKENDS, context

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    AxisError = np.AxisError

SHAPES = [(3, 4, 5), (1, 7), (7, 1), (0, 3), (3, 0), (2, 3, 0, 2), (6,), (2, 1, 33, 3)]


def _data(rng, dtype, shape):
    """Fresh random data with repeats (stability shows), never all zero; no
    zeros in float data (parprim orders -0.0 before +0.0, NumPy keeps them in
    input order)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = rng.standard_normal(shape).round(1).astype(dt)
        a[a == 0] = 0.5
        if a.size > 4:
            a.reshape(-1)[rng.integers(a.size, size=2)] = np.nan
        return a
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dt)
    a = rng.integers(max(info.min, -9), min(info.max, 9), size=shape, endpoint=True).astype(dt)
    if a.size:
        a.reshape(-1)[0] = info.max  # sums of small integers leave their type in NumPy
    return a


def _axes(nd):
    return [None] + [ax for ax in range(-nd, nd)]


def _views(a):
    """a, a transposed and a strided view of it (non-contiguous inputs)."""
    yield a
    if a.ndim > 1:
        yield a.T
        yield a[..., ::2]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float32, np.float64])
def test_sort_argsort(backend, dtype, rng):
    ctx = context(backend)
    for shape in SHAPES:
        for a in _views(_data(rng, dtype, shape)):
            for ax in _axes(a.ndim):
                got = ctx.sort(a, axis=ax)
                assert got.shape == np.sort(a, axis=ax).shape
                np.testing.assert_array_equal(got, np.sort(a, axis=ax), err_msg=f"{shape} axis={ax}")
                np.testing.assert_array_equal(ctx.argsort(a, axis=ax), np.argsort(a, axis=ax, kind="stable"),
                                              err_msg=f"argsort {shape} axis={ax}")
    a = _data(rng, dtype, (4, 6))
    np.testing.assert_array_equal(ctx.sort(a), np.sort(a))  # the default axis is the last
    np.testing.assert_array_equal(ctx.argsort(a), np.argsort(a, kind="stable"))
    if a.dtype.kind != "f":
        np.testing.assert_array_equal(ctx.sort(a, descending=True, axis=0), np.sort(a, axis=0)[::-1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float32,
                                   np.float64])
def test_scan_reduce(backend, dtype, rng):
    ctx = context(backend)
    exactly = np.dtype(dtype).kind != "f"
    check = np.testing.assert_array_equal if exactly else (
        lambda g, e, err_msg="": np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-4, err_msg=err_msg))
    for shape in SHAPES:
        for a in _views(np.nan_to_num(_data(rng, dtype, shape), nan=1.5)):
            for ax in _axes(a.ndim):
                got, want = ctx.scan(a, axis=ax), np.cumsum(a, axis=ax)
                assert got.dtype == want.dtype and got.shape == want.shape, (shape, ax)
                check(got, want, err_msg=f"cumsum {shape} axis={ax}")
                got, want = ctx.reduce(a, axis=ax), np.sum(a, axis=ax)
                assert np.asarray(got).dtype == want.dtype and np.shape(got) == want.shape, (shape, ax)
                check(got, want, err_msg=f"sum {shape} axis={ax}")
                got = ctx.reduce(a, axis=ax, keepdims=True)
                assert np.shape(got) == np.sum(a, axis=ax, keepdims=True).shape
                if a.size and (ax is None or a.shape[ax]):
                    for op, f in (("max", np.max), ("min", np.min)):
                        got, want = ctx.reduce(a, op, axis=ax), f(a, axis=ax)
                        assert np.asarray(got).dtype == want.dtype
                        np.testing.assert_array_equal(got, want, err_msg=f"{op} {shape} axis={ax}")
    a = np.nan_to_num(_data(rng, dtype, (3, 4, 5)), nan=1.5)
    for axes in ((0, 2), (-1, 0), (1,), (), (0, 1, 2)):
        for kd in (False, True):
            got, want = ctx.reduce(a, axis=axes, keepdims=kd), np.sum(a, axis=axes, keepdims=kd)
            assert np.asarray(got).dtype == want.dtype and np.shape(got) == want.shape, (axes, kd)
            check(got, want, err_msg=f"sum axis={axes} keepdims={kd}")
    want = np.cumsum(a, axis=1)
    got = ctx.scan(a, "sum", True, axis=1)  # exclusive: the identity, then the inclusive scan shifted
    check(got[:, 1:], want[:, :-1])
    assert not got[:, 0].any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int16, np.uint32, np.float32, np.float64])
def test_top_k(backend, dtype, rng):
    ctx = context(backend)
    for shape in SHAPES:
        a = _data(rng, dtype, shape)
        if a.dtype.kind == "f":
            a = np.nan_to_num(a, nan=0.25)
        for ax in _axes(a.ndim)[1:]:
            for k in (0, 1, 3, 100):
                for largest in (True, False):
                    key = -a.astype(np.float64) if largest else a  # ties by index: the stable order
                    idx = np.argsort(key, axis=ax, kind="stable")
                    idx = np.take(idx, np.arange(min(k, idx.shape[ax])), axis=ax)
                    v, i = ctx.top_k(a, k, largest, axis=ax)
                    np.testing.assert_array_equal(i, idx, err_msg=f"{shape} axis={ax} k={k}")
                    np.testing.assert_array_equal(v, np.take_along_axis(a, idx, axis=ax))
    v, i = ctx.top_k(a, 2, axis=None)  # flat, as before
    np.testing.assert_array_equal(v, np.sort(a, axis=None)[::-1][:2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_and_zero_d(backend, rng):
    ctx = context(backend)
    a = _data(rng, np.int32, (5, 6))
    out = np.empty_like(a)
    assert ctx.sort(a, out=out, axis=0) is out
    np.testing.assert_array_equal(out, np.sort(a, axis=0))
    out = np.empty(a.shape, np.int64)
    assert ctx.scan(a, out=out, axis=1) is out
    np.testing.assert_array_equal(out, np.cumsum(a, axis=1))
    b = a.copy()
    assert ctx.sort(b, out=b) is b  # in place along the last axis (the segmented sort writes b)
    np.testing.assert_array_equal(b, np.sort(a))
    b = a.astype(np.float64)
    assert ctx.scan(b, "max", out=b, axis=-1) is b
    np.testing.assert_array_equal(b, np.maximum.accumulate(a, axis=-1))
    out = np.zeros((6, 5), np.int32).T  # not C-contiguous: written from the result
    assert ctx.sort(a, out=out, axis=1) is out
    np.testing.assert_array_equal(out, np.sort(a, axis=1))
    z = np.array(7, np.int8)
    np.testing.assert_array_equal(ctx.sort(z, axis=None), np.sort(z, axis=None))
    np.testing.assert_array_equal(ctx.argsort(z), np.argsort(z))
    for ax in (None, 0, -1):
        np.testing.assert_array_equal(ctx.scan(z, axis=ax), np.cumsum(z, axis=ax))
        got, want = ctx.reduce(z, axis=ax), np.sum(z, axis=ax)
        assert got == want and np.asarray(got).dtype == want.dtype
    assert ctx.reduce(a.tolist(), axis=1).tolist() == np.sum(a, axis=1).tolist()  # lists too


def test_errors():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for call in (lambda: parprim.sort(a, axis=3), lambda: parprim.argsort(a, axis=-4),
                 lambda: parprim.scan(a, axis=3), lambda: parprim.reduce(a, axis=(0, 5)),
                 lambda: parprim.top_k(a, 2, axis=3), lambda: parprim.sort(np.float32(1.0)),
                 lambda: parprim.reduce(np.array(1), axis=1), lambda: parprim.sort(a[0, 0], axis=1)):
        with pytest.raises(AxisError):
            call()
    with pytest.raises(ValueError, match="duplicate"):
        parprim.reduce(a, axis=(1, -2))
    with pytest.raises(TypeError):
        parprim.scan(a, axis=1.0)
    with pytest.raises(parprim.InvalidArgument):
        parprim.scan(a, axis=1, initial=1.0)  # the segmented scan has no initial value
    with pytest.raises(parprim.InvalidArgument):
        parprim.reduce(a.astype(np.int64), axis=0, dtype=np.int16)  # no narrowing sums
    with pytest.raises(parprim.InvalidArgument):
        parprim.sort(a, out=np.empty(24, np.float32), axis=1)  # out= of a's shape along an axis


def test_gpu_arrays_of_other_libraries():
    """The GPU-array path (a fake CUDA Array Interface on a cpu context in
    test device mode): N-D arrays of libraries other than CuPy and PyTorch
    take no axis (InvalidArgument), and are taken flat with axis=None."""
    from parprim._selfcheck import FakeCAI

    a = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::-1].copy()
    with parprim.Context("cpu") as ctx:
        ctx._test_device_mode = True
        with pytest.raises(parprim.InvalidArgument, match="CuPy and PyTorch"):
            ctx.sort(FakeCAI(a))
        np.testing.assert_array_equal(np.asarray(ctx.sort(FakeCAI(a), axis=None)), np.sort(a, axis=None))
        assert ctx.reduce(FakeCAI(a)) == a.sum()


def test_cli(tmp_path, rng):
    a = _data(rng, np.int16, (4, 5, 3))
    np.save(tmp_path / "a.npy", a)

    def cli(*args):
        out = tmp_path / "out.npy"
        p = subprocess.run([sys.executable, "-m", "parprim", *args, str(tmp_path / "a.npy"), "-q", "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return np.load(out)

    np.testing.assert_array_equal(cli("sort"), np.sort(a))  # the package's default: the last axis
    np.testing.assert_array_equal(cli("sort", "--axis", "none"), np.sort(a, axis=None))
    np.testing.assert_array_equal(cli("argsort", "--axis", "-2"), np.argsort(a, axis=-2, kind="stable"))
    np.testing.assert_array_equal(cli("reduce"), np.sum(a))  # the package's default: every element
    np.testing.assert_array_equal(cli("reduce", "--axis", "1"), np.sum(a, axis=1))
    np.testing.assert_array_equal(cli("scan", "--axis", "2"), np.cumsum(a, axis=2))
    p = subprocess.run([sys.executable, "-m", "parprim", "sort", "--axis", "3", str(tmp_path / "a.npy")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "axis 3 is out of bounds" in p.stderr and "Traceback" not in p.stderr
