"""searchsorted (np.searchsorted's results), merge, merge_pairs, top_k
(torch.topk's (values, indices), ties by index) and scan(initial=): every
backend and type against NumPy references: np.searchsorted itself, and the
stable sort in parprim's order (conftest.ref_sort_order) for merge and
top_k. A call that a backend does not have yet (PP_ERROR_UNSUPPORTED, as
include/parprim.h allows) is skipped with the reason."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parprim
from parprim._selfcheck import FakeCAI
from conftest import (BACKENDS, BITWISE, DTYPES, OPS, assert_bits, assert_same, check_scan, context, examples,
                      make_data, nan_patterns, order_key, ref_scan_exact, ref_sort_order, run)

SIZES = (0, 1, 2, 33, 1025, 10007)


def data(rng, dtype, n):
    """Keys with duplicates; floats with NaNs of several payloads, +-0.0 and
    +-inf."""
    return make_data(rng, dtype, n, "special" if dtype.kind == "f" else ("dups" if n % 2 else "random"))


def queries(rng, a, m):
    """m queries: elements of a, fresh values, and for floats the specials."""
    dt = a.dtype
    q = data(rng, dt, m)
    if a.size and m:
        pick = rng.integers(0, 2, m).astype(bool)
        q[pick] = a[rng.integers(0, a.size, int(pick.sum()))]
    if dt.kind == "f":
        sp = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf], dt), nan_patterns(dt)])
        q = np.concatenate([q, sp])
    return q


def ref_search_desc(a, v, side, nan_last):
    """searchsorted on a sorted descending (NaNs first, or last where
    nan_last), with -0.0 == +0.0: NumPy's search on parprim's order keys."""
    def key(x):
        k = order_key(np.where(x == 0, x.dtype.type(0), x) if x.dtype.kind == "f" else x)
        if nan_last and x.dtype.kind == "f":
            k[np.isnan(x)] = 0
        return ~k
    return np.searchsorted(key(a), key(v), side)


# ---- searchsorted -------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_searchsorted(backend, dtype, rng):
    ctx = context(backend)
    for n in SIZES:
        a = np.sort(data(rng, dtype, n))  # NumPy's order: zeros of both signs mixed, NaNs last
        v = queries(rng, a, n // 3 + 1)
        for side in ("left", "right"):
            got = run(ctx.searchsorted, a, v, side)
            assert got.dtype == np.int64
            assert_same(got, np.searchsorted(a, v, side), f"n={n} {side}")
            if n:
                s = run(ctx.searchsorted, a, v[0], side)  # a number: a NumPy scalar, as NumPy
                assert isinstance(s, np.int64) and s == np.searchsorted(a, v[0], side)
            for nan_last in (True, False):
                d = ctx.sort(a, descending=True, nan_last=nan_last)
                got = run(ctx.searchsorted, d, v, side, descending=True, nan_last=nan_last)
                assert_same(got, ref_search_desc(d, v, side, nan_last), f"n={n} {side} descending {nan_last}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_searchsorted_zeros_and_nans(backend):
    """a of zeros of both signs in any order, as np.sort leaves them: -0.0
    and +0.0 are one value for the search, as NumPy has them."""
    ctx = context(backend)
    for dt in (np.float32, np.float64):
        a = np.array([-1.0, 0.0, -0.0, 0.0, -0.0, 2.0, np.nan, -np.nan], dt)
        v = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -1.0, 5.0], dt)
        for side in ("left", "right"):
            assert_same(run(ctx.searchsorted, a, v, side), np.searchsorted(a, v, side), side)


@pytest.mark.parametrize("backend", BACKENDS)
def test_searchsorted_types_shapes_sorter(backend, rng):
    ctx = context(backend)
    a8 = np.array([-5, 0, 3, 3, 100], np.int8)
    a32 = np.array([1, 2, 3, 3, 7], np.int32)
    f32 = np.sort(rng.standard_normal(50).astype(np.float32))
    i64 = np.array([-2**62, 0, 2**53 + 1, 2**62], np.int64)
    cases = [(a32, 2.5), (a32, 3), (a32, [0, 3.5, 9]), (a8, 300), (a8, -300), (a8, np.array([1, 200], np.int64)),
             (f32, 0.1), (f32, np.float64(0.1)), (f32, np.array([0.1, -0.25])), (a32, np.uint64(2**63)),
             (i64, np.array([2**53, 2**53 + 2], np.uint64)), (a32, np.array([[1, 2], [3, 8]], np.int32)),
             (a32, np.zeros((0, 3), np.int32)), (a32, True)]
    for a, v in cases:
        for side in ("left", "right"):
            got = run(ctx.searchsorted, a, v, side)
            exp = np.searchsorted(a, v, side)
            assert np.shape(got) == np.shape(exp) and np.array_equal(got, exp), (a.dtype, v, side, got, exp)
    x = rng.integers(-50, 50, 200).astype(np.int16)
    srt = np.argsort(x, kind="stable")
    v = rng.integers(-60, 60, 30).astype(np.int16)
    assert_same(run(ctx.searchsorted, x, v, "right", sorter=srt), np.searchsorted(x, v, "right", sorter=srt))
    with pytest.raises(TypeError):
        ctx.searchsorted(a32, np.array([1 + 2j]))
    with pytest.raises(parprim.InvalidArgument):
        ctx.searchsorted(a32, 1, side="middle")
    with pytest.raises(parprim.InvalidArgument):
        ctx.searchsorted(a32, 1, sorter=np.arange(3))


# ---- merge --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_merge(backend, dtype, rng):
    ctx = context(backend)
    for na, nb in ((0, 0), (0, 5), (7, 0), (1, 1), (33, 1025), (10007, 4099)):
        x, y = data(rng, dtype, na), data(rng, dtype, nb)
        if na and nb:
            y[: nb // 2] = x[rng.integers(0, na, nb // 2)]  # equal keys on both sides
        for desc, nan_last in ((False, True), (True, True), (True, False)):
            a = x[ref_sort_order(x, desc, nan_last)]
            b = y[ref_sort_order(y, desc, nan_last)]
            c = np.concatenate([a, b])
            perm = ref_sort_order(c, desc, nan_last)  # stable: a's first among equals
            msg = f"na={na} nb={nb} descending={desc} nan_last={nan_last}"
            assert_bits(run(ctx.merge, a, b, desc, nan_last), c[perm], msg)
            va = np.arange(na, dtype=np.int64)
            vb = np.arange(na, na + nb, dtype=np.int64)
            k, v = run(ctx.merge_pairs, a, va, b, vb, desc, nan_last)
            assert_bits(k, c[perm], msg + " pairs")
            assert_same(v, perm.astype(np.int64), msg + " values")
    if dtype == np.float64:  # values of 2 bytes and of two dtypes (promoted)
        x, y = data(rng, dtype, 40), data(rng, dtype, 9)
        a, b = x[ref_sort_order(x)], y[ref_sort_order(y)]  # parprim's order (np.sort mixes -0.0 and +0.0)
        k, v = run(ctx.merge_pairs, a, np.arange(40, dtype=np.int16), b, np.arange(40, 49, dtype=np.uint8))
        perm = ref_sort_order(np.concatenate([a, b]))
        assert v.dtype == np.int16 and np.array_equal(v, perm)


@pytest.mark.parametrize("backend", BACKENDS)
def test_merge_arguments(backend):
    ctx = context(backend)
    a, b = np.array([1, 3, 5], np.int32), np.array([2.5, 3.0], np.float64)
    got = run(ctx.merge, a, b)
    assert got.dtype == np.float64 and np.array_equal(got, [1, 2.5, 3, 3, 5])
    with pytest.raises(parprim.InvalidArgument):
        ctx.merge_pairs(a, np.zeros(2), b, np.zeros(2))  # a_values of another length
    with pytest.raises(parprim.InvalidArgument):
        ctx.merge(np.zeros(3, np.longdouble), np.zeros(2, np.longdouble))
    with pytest.raises(TypeError):
        ctx.merge(a, np.zeros(2, np.complex64))


# ---- top_k --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_top_k(backend, dtype, rng):
    ctx = context(backend)
    for n in SIZES:
        a = data(rng, dtype, n)
        for k in sorted({0, 1, 5, n // 2, n, n + 3}):
            for largest, nan_last in ((True, False), (False, False), (True, True)):
                vals, idx = run(ctx.top_k, a, k, largest, nan_last)
                exp = ref_sort_order(a, largest, nan_last)[:k]
                msg = f"n={n} k={k} largest={largest} nan_last={nan_last}"
                assert vals.dtype == dtype and idx.dtype == np.int64
                assert_same(idx, exp.astype(np.int64), msg)
                assert_bits(vals, a[exp], msg)
    with pytest.raises(parprim.InvalidArgument):
        ctx.top_k(np.arange(4), -1)


def test_top_k_matches_topk_values():
    """The values of torch.topk(sorted=True): NaN the largest, both orders;
    ties by index."""
    ctx = context("cpu")
    a = np.array([3.0, np.nan, -1.0, 3.0, np.inf, 0.0, -0.0, -np.inf], np.float32)
    v, i = ctx.top_k(a, 4)
    assert np.array_equal(v, [np.nan, np.inf, 3.0, 3.0], equal_nan=True) and list(i) == [1, 4, 0, 3]
    v, i = ctx.top_k(a, 4, largest=False)
    assert list(v) == [-np.inf, -1.0, -0.0, 0.0] and list(i) == [7, 2, 6, 5]


# ---- scan(initial=) ------------------------------------------------------------


def _init(rng, dtype):
    return make_data(rng, dtype, 3, "random")[1]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_initial(backend, dtype, rng):
    ctx = context(backend)
    ops = [op for op in OPS if not (op in BITWISE and dtype.kind == "f")]
    for n in (0, 1, 33, 10007):
        for op in ops:
            a = make_data(rng, dtype, n, "near1" if op == "prod" and dtype.kind == "f" else "random")
            init = _init(rng, dtype)
            c = np.concatenate([np.array([init], dtype), a])
            for excl in (False, True):
                got = run(ctx.scan, a, op, excl, initial=init)
                msg = f"n={n} {op} exclusive={excl}"
                if excl:
                    check_scan(c[:-1], op, False, got, msg)  # out[0] = init, out[i] = init op a[0..i-1]
                else:
                    check_scan(c, op, False, np.concatenate([c[:1], got]), msg)
    a = make_data(rng, dtype, 1025, "random")
    exp = ref_scan_exact(np.concatenate([np.array([dtype.type(7)]), a]), "max")[1:]
    b = a.copy()
    assert run(ctx.scan, b, "max", out=b, initial=7) is b  # in place
    assert_same(b, exp, "in place")


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_initial_exact(backend, rng):
    """exact=True with initial: the exact sum of initial and the prefix,
    rounded once: the exact scan of [initial, a...] (cpu; Unsupported
    elsewhere for now)."""
    ctx = context(backend)
    for dt in (np.float32, np.float64):
        a = make_data(rng, np.dtype(dt), 5003, "special")
        a[np.isnan(a)] = 1.5
        init = dt(-3.25e5)
        c = np.concatenate([np.array([init], dt), a])
        full = run(ctx.scan, c, exact=True)
        assert_bits(run(ctx.scan, a, exact=True, initial=init), full[1:], f"{dt.__name__} inclusive")
        assert_bits(run(ctx.scan, a, exclusive=True, exact=True, initial=init), full[:-1], f"{dt.__name__} exclusive")
    with pytest.raises(parprim.InvalidArgument):
        ctx.scan(np.arange(4, dtype=np.int8), initial=1000)
    with pytest.raises(parprim.InvalidArgument):
        ctx.scan(np.arange(4, dtype=np.int32), initial=2.5)


# ---- module functions, the device path, properties ------------------------------


def test_module_functions():
    a = np.array([1, 2, 2, 4], np.int32)
    assert parprim.searchsorted(a, 2, "right") == 3
    assert list(parprim.merge(a, np.array([0, 3], np.int32))) == [0, 1, 2, 2, 3, 4]
    k, v = parprim.merge_pairs(a, np.arange(4), np.array([2], np.int32), np.array([9]))
    assert list(k) == [1, 2, 2, 2, 4] and list(v) == [0, 1, 2, 9, 3]
    vals, idx = parprim.top_k(a, 2)
    assert list(vals) == [4, 2] and list(idx) == [3, 1]
    assert list(parprim.scan(a, initial=10)) == [11, 13, 15, 19]


def test_device_path(rng):
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        host = context("cpu")
        a = np.sort(rng.integers(-100, 100, 3001).astype(np.int32))
        v = rng.integers(-120, 120, 700).astype(np.int32)
        for side in ("left", "right"):
            assert_same(np.asarray(ctx.searchsorted(FakeCAI(a), FakeCAI(v), side)), np.searchsorted(a, v, side))
        f = make_data(rng, np.dtype(np.float32), 2049, "special")
        vals, idx = run(ctx.top_k, FakeCAI(f), 100)
        hv, hi = host.top_k(f, 100)
        assert_bits(np.asarray(vals), hv)
        assert_same(np.asarray(idx), hi)
        x, y = np.sort(f[:1000]), np.sort(f[1000:])
        assert_bits(np.asarray(run(ctx.merge, FakeCAI(x), FakeCAI(y))), host.merge(x, y))
    finally:
        ctx.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_properties(backend):
    ctx = context(backend)
    vals = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan])

    @settings(max_examples=examples(backend, 60, 15))
    @given(st.lists(vals, max_size=40), st.lists(vals, max_size=10), st.sampled_from(["float32", "float64"]),
           st.integers(0, 45))
    def prop(xs, qs, dt, k):
        a = np.sort(np.array(xs, dt))
        q = np.array(qs, dt)
        for side in ("left", "right"):
            assert np.array_equal(run(ctx.searchsorted, a, q, side), np.searchsorted(a, q, side))
        vals_, idx = run(ctx.top_k, a, k, False)
        assert np.array_equal(idx, ref_sort_order(a)[:k])
        a, q = a[ref_sort_order(a)], q[ref_sort_order(q)]  # parprim's order: -0.0 before +0.0
        c = np.concatenate([a, q])
        assert_bits(run(ctx.merge, a, q), c[ref_sort_order(c)])

    prop()
