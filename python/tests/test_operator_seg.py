"""parprim.Operator as op= of segmented_reduce, segmented_scan,
reduce_by_key and scan_by_key (pp_segmented_reduce_op .. pp_scan_by_key_op),
on every backend, against a sequential fold in Python with the same combine
(affine maps, not commutative; a (first, last) pair whose results show the
order) over random offsets with empty segments and uncovered elements, and
a uint32 sum against the built-in forms; the packed form (an array of the
fields' base type, trailing axis k) with NumPy arrays and the GPU-array path
(FakeCAI on a cpu context)."""

import numpy as np
import pytest

import parprim
from parprim._selfcheck import FakeCAI
from conftest import BACKENDS, context, run
from test_operator import AFFINE, AFFINE_F64, CASES, SUM_U32, as_tuples, fold, make

SIZES = (0, 1, 2, 33, 1025, 4099)
AFFINE_F32 = parprim.Operator(AFFINE.replace("{T}", "float"),
                              np.dtype([("a", "f4"), ("b", "f4")], align=True), (1.0, 0.0))


def offsets_for(rng, n):
    """nseg + 1 non-decreasing offsets in [0, n]: empty segments, and (at
    random) elements before the first and after the last segment."""
    nseg = int(rng.integers(0, min(n, 40) + 2))
    o = np.sort(rng.integers(0, n + 1, nseg + 1))
    if rng.random() < 0.5 and o.size:
        o[0], o[-1] = 0, n
    return o.astype(rng.choice([np.int64, np.uint64, np.int32]))


def keys_for(rng, n):
    """int32 keys in runs of random lengths (few distinct values, so that
    runs of one key recur apart)."""
    return np.repeat(rng.integers(0, 3, n), rng.integers(1, 6, n))[:n].astype(np.int32)


def runs(keys):
    n = len(keys)
    starts = [0] + [i for i in range(1, n) if keys[i] != keys[i - 1]] if n else []
    return list(zip(starts, starts[1:] + [n]))


def seg_scan_ref(combine, ident, items, bounds, exclusive, outside):
    out = list(outside)
    for s, e in bounds:
        if e == s:
            continue
        inc = fold(combine, ident, items[s:e])
        out[s:e] = ([ident] + inc[:-1]) if exclusive else inc
    return out


@pytest.mark.parametrize("op, combine", CASES, ids=["affine_f64", "affine_u32", "first_last"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_against_fold(backend, op, combine, rng):
    """Every form, inclusive and exclusive, over fresh data and offsets."""
    ctx, ident = context(backend), tuple(op.identity.item())
    for n in SIZES:
        a = make(op, rng, n)
        items, off = as_tuples(a), offsets_for(rng, n)
        bounds = list(zip(off[:-1].tolist(), off[1:].tolist()))
        got = run(ctx.segmented_reduce, a, off, op)
        assert got.dtype == op.dtype and got.size == len(bounds)
        assert as_tuples(got) == [fold(combine, ident, items[s:e])[-1] if e > s else ident for s, e in bounds], n
        for exclusive in (False, True):
            want = seg_scan_ref(combine, ident, items, bounds, exclusive, items)
            assert as_tuples(ctx.segmented_scan(a, off, op, exclusive=exclusive)) == want, (n, exclusive)
        keys = keys_for(rng, n)
        kb = runs(keys)
        ko, vo = ctx.reduce_by_key(keys, a, op)
        assert ko.tolist() == [keys[s] for s, _ in kb], n
        assert as_tuples(vo) == [fold(combine, ident, items[s:e])[-1] for s, e in kb], n
        for exclusive in (False, True):
            want = seg_scan_ref(combine, ident, items, kb, exclusive, items)
            assert as_tuples(ctx.scan_by_key(keys, a, op, exclusive=exclusive)) == want, (n, exclusive)


@pytest.mark.parametrize("backend", BACKENDS)
def test_u32_sum_as_builtin(backend, rng):
    ctx = context(backend)
    for n in SIZES:
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        off = offsets_for(rng, n)
        np.testing.assert_array_equal(ctx.segmented_reduce(a, off, SUM_U32), ctx.segmented_reduce(a, off, "sum"))
        np.testing.assert_array_equal(ctx.segmented_scan(a, off, SUM_U32, exclusive=True),
                                      ctx.segmented_scan(a, off, "sum", exclusive=True))
        keys = keys_for(rng, n).astype(np.float64)
        for got, want in zip(ctx.reduce_by_key(keys, a, SUM_U32), ctx.reduce_by_key(keys, a, "sum")):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ctx.scan_by_key(keys, a, SUM_U32), ctx.scan_by_key(keys, a, "sum"))
    # out=, in place, and the module functions
    a = rng.integers(0, 2**32, 1000, dtype=np.uint32)
    off = np.array([0, 10, 10, 600, 1000])
    want = parprim.segmented_scan(a, off, "sum")
    b = a.copy()
    assert ctx.segmented_scan(b, off, SUM_U32, out=b) is b
    np.testing.assert_array_equal(b, want)
    out = np.empty_like(a)
    keys = keys_for(rng, 1000)
    assert parprim.scan_by_key(keys, a, SUM_U32, out=out) is out
    np.testing.assert_array_equal(out, parprim.scan_by_key(keys, a, "sum"))


def as_packed(a):
    return a.view(a.dtype[0]).reshape(-1, len(a.dtype.names))


@pytest.mark.parametrize("backend", BACKENDS)
def test_packed_numpy(backend, rng):
    ctx = context(backend)
    op = AFFINE_F32
    for n in (0, 1, 1025):
        s = make(AFFINE_F64, rng, n).astype(op.dtype)  # +-1 and small integers: exact in f32 in any order
        p = as_packed(s)
        assert p.shape == (n, 2) and p.dtype == np.float32
        r = run(ctx.reduce, p, op)
        assert r.shape == (2,) and r.dtype == np.float32 and tuple(r) == tuple(ctx.reduce(s, op).item())
        for exclusive in (False, True):
            got = ctx.scan(p, op, exclusive=exclusive)
            assert got.shape == (n, 2) and got.dtype == np.float32
            np.testing.assert_array_equal(got, as_packed(ctx.scan(s, op, exclusive=exclusive)))
        off = offsets_for(rng, n)
        got = ctx.segmented_reduce(p, off, op)
        assert got.shape == (off.size - 1, 2)
        np.testing.assert_array_equal(got, as_packed(ctx.segmented_reduce(s, off, op)))
        np.testing.assert_array_equal(ctx.segmented_scan(p, off, op, exclusive=True),
                                      as_packed(ctx.segmented_scan(s, off, op, exclusive=True)))
        keys = keys_for(rng, n)
        ko, vo = ctx.reduce_by_key(keys, p, op)
        ks, vs = ctx.reduce_by_key(keys, s, op)
        np.testing.assert_array_equal(ko, ks)
        assert vo.shape == (ks.size, 2)
        np.testing.assert_array_equal(vo, as_packed(vs))
        np.testing.assert_array_equal(ctx.scan_by_key(keys, p, op), as_packed(ctx.scan_by_key(keys, s, op)))
    # out= in the packed form (returned as given), in place, leading axes flattened in C order
    out = np.empty_like(p)
    assert ctx.scan(p, op, out=out) is out
    np.testing.assert_array_equal(out, as_packed(ctx.scan(s, op)))
    q = p.copy()
    assert ctx.segmented_scan(q, [0, 500, n], op, out=q) is q
    np.testing.assert_array_equal(q, as_packed(ctx.segmented_scan(s, [0, 500, n], op)))
    np.testing.assert_array_equal(ctx.scan(p[:1024].reshape(32, 32, 2), op), as_packed(ctx.scan(s[:1024], op)))
    # a plain dtype is its own packed form: unchanged
    assert ctx.segmented_reduce(np.arange(6, dtype=np.uint32), [0, 6], SUM_U32).tolist() == [15]


def test_packed_errors():
    ctx = context("cpu")
    p = np.ones((10, 2), np.float32)
    with pytest.raises(ValueError, match="trailing axis of 2"):
        ctx.scan(np.ones((10, 3), np.float32), AFFINE_F32)
    with pytest.raises(ValueError, match="trailing axis of 2"):
        ctx.scan(p, AFFINE_F32, out=np.empty(20, np.float32))
    with pytest.raises(TypeError, match="packed form"):
        ctx.scan(p.astype(np.float64), AFFINE_F32)
    first_last = CASES[2][0]  # int and double fields: no packed form
    assert first_last._packing is None
    with pytest.raises(TypeError, match="dtype float64"):
        ctx.segmented_reduce(np.ones((10, 2)), [0, 10], first_last)
    with pytest.raises(ValueError, match="exact"):
        ctx.segmented_reduce(p, [0, 10], AFFINE_F32, exact=True)
    with pytest.raises(ValueError, match="exact"):
        ctx.scan_by_key(np.zeros(10, np.int32), p, AFFINE_F32, exact=True)
    with pytest.raises(ValueError, match="values has 10 elements, keys have 9"):
        ctx.reduce_by_key(np.zeros(9, np.int32), p, AFFINE_F32)
    with pytest.raises(ValueError, match="offsets"):
        ctx.segmented_reduce(p, [0, 11], AFFINE_F32)


def test_packed_device_path(rng):
    """The GPU-array path with the packed form: results as the input's
    library allocates them (here DeviceArray: one axis, n * k elements)."""
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    host = context("cpu")
    op = AFFINE_F32
    try:
        for n in (0, 1025):
            s = make(AFFINE_F64, rng, n).astype(op.dtype)
            p = as_packed(s)
            assert np.asarray(ctx.reduce(FakeCAI(p), op)).tolist() == list(host.reduce(s, op).item())
            np.testing.assert_array_equal(np.asarray(ctx.scan(FakeCAI(p), op, exclusive=True)).reshape(n, 2),
                                          as_packed(host.scan(s, op, exclusive=True)))
            off = offsets_for(rng, n).astype(np.uint64)
            np.testing.assert_array_equal(np.asarray(ctx.segmented_reduce(FakeCAI(p), FakeCAI(off), op)).reshape(-1, 2),
                                          as_packed(host.segmented_reduce(s, off, op)))
            np.testing.assert_array_equal(np.asarray(ctx.segmented_scan(FakeCAI(p), FakeCAI(off), op)).reshape(n, 2),
                                          as_packed(host.segmented_scan(s, off, op)))
            keys = keys_for(rng, n)
            ko, vo = ctx.reduce_by_key(FakeCAI(keys), FakeCAI(p), op)
            ks, vs = host.reduce_by_key(keys, s, op)
            np.testing.assert_array_equal(np.asarray(ko), ks)
            np.testing.assert_array_equal(np.asarray(vo).reshape(-1, 2), as_packed(vs))
            np.testing.assert_array_equal(np.asarray(ctx.scan_by_key(FakeCAI(keys), FakeCAI(p), op)).reshape(n, 2),
                                          as_packed(host.scan_by_key(keys, s, op)))
        out = np.empty_like(p)
        ctx.scan(FakeCAI(p), op, out=FakeCAI(out))
        np.testing.assert_array_equal(out, as_packed(host.scan(s, op)))
        # a structured array cannot be a GPU array: the interface's typestr is raw bytes
        with pytest.raises(TypeError, match="packed form"):
            ctx.scan(FakeCAI(s), op)
        a = rng.integers(0, 2**32, 100, dtype=np.uint32)
        assert np.asarray(ctx.segmented_reduce(FakeCAI(a), FakeCAI(np.array([0, 40, 100], np.uint64)),
                                               SUM_U32)).tolist() == [a[:40].sum(dtype=np.uint32),
                                                                      a[40:].sum(dtype=np.uint32)]
    finally:
        ctx.close()
