"""histogram_even and histogram_range: every backend, algorithm and type,
exact counts against the header's definitions (integers binned exactly,
floats by the documented double expression; samples outside [lower, upper)
and NaN uncounted), and right_closed=True against np.histogram."""

import math

import numpy as np
import pytest

import parprim
from conftest import (FLOAT_DTYPES, INT_DTYPES, SIZES, BACKENDS, algo_params, assert_same, combos, context,
                      make_data, ref_histogram_even, ref_histogram_range, skip_if_fp64, call)

BINS = (1, 7, 256, 4099)


def _bounds(rng, dtype, bins):
    """(name, lower, upper) cases for dtype, as Python numbers of that type."""
    dt = np.dtype(dtype)
    out = []
    if dt.kind in "iu":
        ii = np.iinfo(dt)
        v = sorted(int(x) for x in make_data(rng, dt, 2, "random"))
        if v[0] == v[1]:
            v[1] = v[0] + 1 if v[0] < ii.max else v[0] - 1
            v.sort()
        out.append(("random range", v[0], v[1]))
        out.append(("whole type", int(ii.min), int(ii.max)))
        lo = int(rng.integers(max(int(ii.min), -100), min(int(ii.max), 100) - 10))
        out.append(("3 values a bin", lo, min(int(ii.max), lo + 3 * bins)))
        out.append(("fewer values than bins", lo, lo + 5))
        return out
    a, b = sorted(float(x) for x in rng.standard_normal(2) * 100)
    out.append(("random range", float(dt.type(a)), float(dt.type(b))))
    out.append(("[0, 1)", 0.0, 1.0))
    out.append(("[-0.0, 3)", -0.0, 3.0))
    big = float(np.finfo(dt).max) * 0.9
    out.append(("range overflowing the type", float(dt.type(-big)), float(dt.type(big))))
    out.append(("one ulp", 1.0, float(np.nextafter(dt.type(1.0), dt.type(2.0)))))
    return out


def _hist_data(rng, dtype, n, lower, upper, bins):
    """Samples around [lower, upper): some below and above, some exactly on
    lower, upper and inner bin edges, NaN and -0.0 for floats."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        ii = np.iinfo(dt)
        span = upper - lower
        lo2 = max(int(ii.min), lower - span // 4 - 1)
        hi2 = min(int(ii.max), upper + span // 4 + 1)
        a = rng.integers(lo2, hi2, size=n, dtype=dt, endpoint=True)
        specials = [lower, upper, upper - 1, lower + span // 2, lower + span // max(bins, 1)]
        specials = [dt.type(min(max(s, int(ii.min)), int(ii.max))) for s in specials]
    else:
        t = rng.uniform(-0.1, 1.1, n)
        with np.errstate(over="ignore"):
            a = (lower * (1 - t) + upper * t).astype(dt)
        w = (upper - lower) / bins if math.isfinite(upper - lower) else 0.5 * upper / bins - 0.5 * lower / bins
        specials = [lower, upper, -0.0, 0.0, np.nan, np.inf, -np.inf]
        specials += [lower + k * w for k in (1, bins // 2, bins - 1) if k > 0]
        with np.errstate(over="ignore"):
            specials = [dt.type(s) for s in specials]
    if n:
        k = max(1, n // 10)
        a[rng.integers(0, n, k)] = np.array(specials, dtype=dt)[rng.integers(0, len(specials), k)]
    return a


@pytest.mark.parametrize("backend,algo,dtype", combos("histogram"))
def test_histogram_even(backend, algo, dtype, rng):
    ctx = context(backend, "histogram", algo)
    for bins in BINS:
        for name, lower, upper in _bounds(rng, dtype, bins):
            for n in SIZES:
                a = _hist_data(rng, dtype, n, lower, upper, bins)
                got = call(backend, algo, ctx.histogram_even, a, bins, lower, upper)
                if got is None:
                    continue
                where = f"bins={bins} {name} [{lower!r}, {upper!r}) n={n}"
                assert isinstance(got, np.ndarray), where
                assert_same(got, ref_histogram_even(a, bins, lower, upper), where)


@pytest.mark.parametrize("backend,algo", algo_params("histogram"))
def test_histogram_even_many_bins(backend, algo, rng):
    """More bins than a work-group's local memory holds (opencl's private
    algorithms fall back to global atomics), and bins with one sample each."""
    ctx = context(backend, "histogram", algo)
    for dtype in (np.dtype(np.int32), np.dtype(np.float32)):
        for bins in (100003, 1 << 20):
            a = _hist_data(rng, dtype, 65537, 0, 100003, bins)
            got = call(backend, algo, ctx.histogram_even, a, bins, 0, 100003)
            if got is None:
                continue
            assert_same(got, ref_histogram_even(a, bins, 0, 100003), f"{dtype} bins={bins}")


@pytest.mark.parametrize("backend,algo,dtype", combos("histogram", dtypes=INT_DTYPES + FLOAT_DTYPES))
def test_histogram_even_right_closed_matches_numpy(backend, algo, dtype, rng):
    ctx = context(backend, "histogram", algo)
    dt = np.dtype(dtype)
    for bins in (1, 7, 100):
        if dt.kind in "iu":
            lo = 0 if dt.kind == "u" else -50
            ranges = [(lo, lo + 100), (lo + 3, lo + 10)]
        else:
            ranges = [(0.0, 1.0), (-2.5, 7.25), (float(dt.type(0.1)), float(dt.type(0.7)))]
        for lower, upper in ranges:
            for n in (0, 1, 33, 1025, 65537):
                a = _hist_data(rng, dt, n, lower, upper, bins)
                if dt.kind == "f":
                    a = a[~np.isnan(a)]
                exp = np.histogram(a, bins, range=(lower, upper))[0].astype(np.uint64)
                got = call(backend, algo, ctx.histogram_even, a, bins, lower, upper, right_closed=True)
                if got is None:
                    continue
                assert_same(got, exp, f"bins={bins} range=({lower}, {upper}) n={a.size}")


def _edges(rng, dtype, bins):
    """bins + 1 strictly increasing edges (fewer bins where the type has
    fewer values: 8-bit types hold 256)."""
    dt = np.dtype(dtype)
    if dt.kind in "iu" and dt.itemsize <= 2:
        info = np.iinfo(dt)
        span = int(info.max) - int(info.min) + 1
        k = min(bins, span - 1) + 1
        return np.sort(rng.choice(span, size=k, replace=False) + int(info.min)).astype(dt)
    while True:
        if dt.kind in "iu":
            e = np.unique(make_data(rng, dt, bins + 1, "random"))
        else:
            e = np.unique(make_data(rng, dt, bins + 1, "random"))
            if bins > 2 and rng.integers(2):
                e[0], e[-1] = -np.inf, np.inf
        if e.size == bins + 1:
            return e


@pytest.mark.parametrize("backend,algo,dtype", combos("histogram"))
def test_histogram_range(backend, algo, dtype, rng):
    ctx = context(backend, "histogram", algo)
    dt = np.dtype(dtype)
    for bins in (1, 2, 7, 300):
        e = _edges(rng, dt, bins)
        for n in SIZES:
            a = make_data(rng, dt, n, "special" if dt.kind == "f" else "random")
            if n:
                k = max(1, n // 4)
                a[rng.integers(0, n, k)] = e[rng.integers(0, e.size, k)]  # samples on the edges
            got = call(backend, algo, ctx.histogram_range, a, e)
            if got is None:
                continue
            assert_same(got, ref_histogram_range(a, e), f"bins={bins} n={n} edges={e[:4]}...")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_range_python_sequence_edges(backend):
    ctx = context(backend)
    a = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=np.int32)
    got = ctx.histogram_range(a, [0, 2, 5, 10])
    assert_same(got, np.array([2, 3, 5], dtype=np.uint64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_documented_examples(backend):
    """Small cases written out by hand from the header."""
    ctx = context(backend)
    a = np.array([0.0, 0.5, 1.0, 1.5, 2.0, -0.0, np.nan, 2.5, -1e-300], dtype=np.float64)
    try:
        got = ctx.histogram_even(a, 2, 0.0, 2.0)
    except parprim.Unsupported as e:
        skip_if_fp64(backend, a.dtype, e)
    # [0, 1): 0.0, 0.5, -0.0; [1, 2): 1.0, 1.5; 2.0 and 2.5 above, NaN and -1e-300 out
    assert_same(got, np.array([3, 2], dtype=np.uint64))
    assert_same(ctx.histogram_even(a, 2, 0.0, 2.0, right_closed=True), np.array([3, 3], dtype=np.uint64))
    u = np.array([0xFFFFFFF0, 5, 0, 0xFFFFFFFF], dtype=np.uint32)
    assert_same(ctx.histogram_even(u, 1, 0, 0xFFFFFFFF), np.array([3], dtype=np.uint64))
    i = np.array([-16, -1, 0, 7], dtype=np.int32)
    assert_same(ctx.histogram_even(i, 4, -16, 8), np.array([1, 0, 2, 1], dtype=np.uint64))  # width 6
    i64 = np.array([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], dtype=np.int64)
    got = ctx.histogram_even(i64, 3, int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max))
    assert_same(got, ref_histogram_even(i64, 3, int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)))
    assert got.sum() == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_right_closed_64_bit_integers_like_numpy(backend, rng):
    """right_closed=True on int64/uint64 beyond 2^53, where NumPy bins the
    samples as float64 (2^53 + 1 becomes 2^53): still bin for bin."""
    ctx = context(backend)
    cases = [
        (np.int64, np.array([2**53 + 1, 2**53 - 1, 5], np.int64), (1, 4), 0, 2**53 + 1),
        (np.int64, np.array([-9007199254741015], np.int64), (1,), -9007199254741018, -9007199254741015),
        (np.int64, None, (1, 3, 100), 0, 2**63 - 1),
        (np.int64, None, (1, 3, 100), -(2**63), 2**63 - 1),
        (np.uint64, None, (1, 3, 100), 2**40, 2**62 + 12345),
    ]
    for dt, a, binss, lo, hi in cases:
        if a is None:
            a = np.concatenate([rng.integers(lo, hi, 1000, dtype=dt, endpoint=True), np.array([lo, hi], dtype=dt)])
        for bins in binss:
            exp = np.histogram(a, bins, range=(lo, hi))[0].astype(np.uint64)
            got = ctx.histogram_even(a, bins, lo, hi, right_closed=True)
            assert_same(got, exp, f"{np.dtype(dt)} bins={bins} range=({lo}, {hi}) samples={a[:3]}...")


@pytest.mark.parametrize("backend", BACKENDS)
def test_right_closed_where_numpy_overflows(backend, rng):
    """uint64 ranges that np.histogram itself cannot take (OverflowError):
    parprim counts every sample of [lower, upper] once, or raises a
    parprim.Error; nothing else escapes."""
    ctx = context(backend)
    for lo, hi in ((0, 2**64 - 1), (2**63, 2**64 - 1), (0, 2**63 + 5)):
        a = np.concatenate([rng.integers(lo, hi, 1000, dtype=np.uint64, endpoint=True),
                            np.array([lo, hi], dtype=np.uint64)])
        for bins in (1, 3, 100):
            try:
                got = ctx.histogram_even(a, bins, lo, hi, right_closed=True)
            except parprim.Error:
                continue
            assert got.dtype == np.uint64 and got.shape == (bins,)
            assert int(got.sum()) == a.size, f"bins={bins} range=({lo}, {hi}): {int(got.sum())} of {a.size} counted"


# ---- parprim.histogram: np.histogram's counts and edges ------------------------------------------

HIST_DTYPES = (np.float32, np.float64, np.int8, np.uint8, np.int32, np.int64, np.uint64)


def _same_histogram(got, exp, msg):
    (gc, ge), (ec, ee) = got, exp
    assert isinstance(gc, np.ndarray) and gc.dtype == ec.dtype, f"{msg}: counts dtype {gc.dtype}, NumPy {ec.dtype}"
    assert np.array_equal(gc, ec), f"{msg}: counts differ at {np.flatnonzero(gc != ec)[:8]}: {gc} vs NumPy {ec}"
    assert ge.dtype == ee.dtype and ge.tobytes() == ee.tobytes(), f"{msg}: edges differ: {ge} vs NumPy {ee}"


def _numpy_like_samples(rng, dt, n):
    """Random samples with repeats, NumPy-edge values and, for floats, +-inf."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        a = (rng.standard_normal(n) * 10).astype(dt)
        if n > 4:
            a[rng.integers(0, n, 3)] = np.round(a[:3], 1)
    else:
        ii = np.iinfo(dt)
        lo, hi = (int(ii.min), int(ii.max)) if dt.itemsize == 1 else (-1000 if ii.min else 0, 1000)
        a = rng.integers(lo, hi, n, dtype=dt, endpoint=True)
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_like_numpy(backend, rng):
    """Counts and edges of np.histogram, bit for bit: every type, awkward
    sizes, bins as an integer (range given and None) and as edges."""
    ctx = context(backend)
    for dt in HIST_DTYPES:
        for n in (0, 1, 33, 1025, 65537):
            a = _numpy_like_samples(rng, dt, n)
            fl = np.dtype(dt).kind == "f"
            lo, hi = sorted(rng.uniform(-15, 15, 2)) if fl or np.dtype(dt).kind == "i" else sorted(rng.uniform(0, 900, 2))
            cases = [dict(bins=b) for b in (1, 7, 100)] + [dict(bins=b, range=(lo, hi)) for b in (3, 100, 1000)]
            cases += [dict(bins=np.sort(rng.uniform(lo, hi, 6))), dict(bins=[lo, lo, hi]), dict(bins=[-np.inf, lo, np.inf])]
            if fl:
                cases.append(dict(bins=7, range=(np.float32(lo), np.float32(hi))))
            else:
                cases.append(dict(bins=5, range=(int(lo), int(hi) + 1)))
            for kw in cases:
                msg = f"{backend} {np.dtype(dt)} n={n} {kw}"
                _same_histogram(ctx.histogram(a, **kw), np.histogram(a, **kw), msg)


def test_histogram_issue_example():
    """f32 samples 0.29, 0.57, 0.58 in 100 bins over [0, 1): NumPy's bins 29,
    57, 58 (its edges are float32), where histogram_even's C expression
    gives 28, 56, 57."""
    a = np.array([0.29, 0.57, 0.58], dtype=np.float32)
    counts, edges = parprim.histogram(a, 100, range=(0, 1))
    assert list(np.flatnonzero(counts)) == [29, 57, 58]
    _same_histogram((counts, edges), np.histogram(a, 100, range=(0, 1)), "issue example")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_integer_edges_beyond_the_type(backend, rng):
    """uint8 over [0, 256) in 256 bins, edges of +-inf and beyond the type:
    as np.histogram (and histogram_range, half-open, agrees below the top)."""
    ctx = context(backend)
    u8 = np.concatenate([rng.integers(0, 256, 70000, dtype=np.uint8), np.array([0, 255], np.uint8)])
    for kw in (dict(bins=256, range=(0, 256)), dict(bins=256), dict(bins=[0, 100, 255]), dict(bins=[0, 255, 300]),
               dict(bins=[-5, 3, 1e9]), dict(bins=[300, 400])):
        _same_histogram(ctx.histogram(u8, **kw), np.histogram(u8, **kw), f"{backend} uint8 {kw}")
    ar = np.arange(10)
    assert list(ctx.histogram(ar, [0, 1, 3, 6, np.inf])[0]) == [1, 2, 3, 4]
    assert_same(ctx.histogram_range(ar, [0, 1, 3, 6, np.inf]), np.array([1, 2, 3, 4], np.uint64))
    assert_same(ctx.histogram_range(ar, [-np.inf, 2, 2.0**70]), np.array([2, 8], np.uint64))
    i8 = rng.integers(-128, 128, 5000, dtype=np.int8)
    assert_same(ctx.histogram_range(i8, [-np.inf, 0, 127, np.inf]),
                np.array([np.sum(i8 < 0), np.sum((i8 >= 0) & (i8 < 127)), np.sum(i8 == 127)], np.uint64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_floats_on_edges_inf_nan(backend, rng):
    """Samples on the edges, outside them, +-inf and NaN; NaN with range=None
    raises NumPy's ValueError."""
    ctx = context(backend)
    for dt in (np.float32, np.float64):
        edges = np.histogram_bin_edges(np.empty(0, dt), 50, range=(-1, 1))
        a = np.concatenate([edges, rng.uniform(-2, 2, 3000).astype(dt), np.array([np.inf, -np.inf, np.nan], dt)])
        with np.errstate(invalid="ignore"):
            for kw in (dict(bins=50, range=(-1, 1)), dict(bins=edges), dict(bins=[-np.inf, 0, np.inf]),
                       dict(bins=[0, 1, np.inf]), dict(bins=[-np.inf, -1])):
                _same_histogram(ctx.histogram(a, **kw), np.histogram(a, **kw), f"{backend} {np.dtype(dt)} {kw}")
            with pytest.raises(ValueError, match=r"autodetected range of \[nan, nan\] is not finite"):
                ctx.histogram(a, 10)
        with pytest.raises(ValueError, match="autodetected range"):
            ctx.histogram(np.array([1, np.inf], dt))
        _same_histogram(ctx.histogram(np.full(5, 3, dt)), np.histogram(np.full(5, 3, dt)), "equal min and max")


def test_histogram_errors_and_weights(rng):
    """NumPy's errors; weights give np.histogram's (NumPy counts them)."""
    a = rng.standard_normal(1000)
    for kw in (dict(bins=0), dict(bins=10, range=(0, np.inf)), dict(bins=10, range=(1, 0)), dict(bins=[0, 2, 1])):
        with pytest.raises(ValueError):
            np.histogram(a, **kw)
        with pytest.raises(ValueError):
            parprim.histogram(a, **kw)
    w = rng.uniform(0, 1, 1000).astype(np.float32)
    for kw in (dict(bins=10), dict(bins=7, range=(-1, 1)), dict(bins=[-1, 0, 5])):
        _same_histogram(parprim.histogram(a, weights=w, **kw), np.histogram(a, weights=w, **kw), f"weights {kw}")
    _same_histogram(parprim.histogram(np.full(5, 7, np.int32), 3, weights=np.arange(5)),
                    np.histogram(np.full(5, 7, np.int32), 3, weights=np.arange(5)), "int weights")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_even_bounds_beyond_the_type(backend, rng):
    """histogram_even (C semantics) over integer bounds beyond a type of up to
    32 bits: uint8 over [0, 256) in 256 bins is one value a bin; against
    floor((x - lower) * bins / (upper - lower)) over [lower, upper)."""
    ctx = context(backend)
    for dt, lo, hi, bins in ((np.uint8, 0, 256, 256), (np.uint8, 0, 256, 7), (np.int8, -200, 200, 4),
                             (np.int8, -128, 1000, 1000), (np.uint16, 5, 70000, 300), (np.int32, -2**40, 2**40, 9)):
        ii = np.iinfo(dt)
        a = np.concatenate([rng.integers(ii.min, ii.max, 20000, dtype=dt, endpoint=True),
                            np.array([ii.min, ii.max], dt)])
        x = a.astype(np.int64)
        x = x[(x >= lo) & (x < hi)]
        exp = np.bincount((x - lo) * bins // (hi - lo) if hi - lo < 2**31 else
                          np.array([(int(v) - lo) * bins // (hi - lo) for v in x], dtype=np.int64),
                          minlength=bins).astype(np.uint64)
        assert_same(ctx.histogram_even(a, bins, lo, hi), exp, f"{backend} {np.dtype(dt)} [{lo}, {hi}) bins={bins}")
