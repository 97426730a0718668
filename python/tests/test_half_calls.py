"""The half types (float16, bfloat16) in the calls the C library runs as
the f32 call on the same values (include/parprim.h, Half precision): min
and max scans (initial= too) and their segmented and axis= forms, argmin
and argmax, the histograms, compaction and unique, on every backend present.

NumPy is the oracle: float16 is NumPy's own type; bfloat16 references are
computed on the float32 values (every half value is exactly one), with host
scalars rounded once to bfloat16 as NumPy rounds a Python float to
float16. Results are compared bit for bit where the bits are defined (NaN:
the quiet NaN of min and max; compaction moves the bits unchanged).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import parprim
from conftest import context, ref_histogram_even
from test_half import F16, FORMATS, every_half, half_data, hbits, ref_minmax_bits

F32 = np.dtype(np.float32)
SIZES = (0, 1, 2, 7, 33, 1025)
CMPS = ("<", "<=", ">", ">=", "==", "!=")


def specials(rng, dt, n):
    """half_data with zeros of both signs, NaNs and infinities mixed in."""
    a = half_data(rng, dt, n, spread=4)
    if n > 8:
        pos = rng.choice(n, 6, replace=False)
        a[pos] = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, -0.0]).astype(dt)
    return a


def half(v, dt):
    """A host number rounded once to dt (a NumPy scalar of dt)."""
    return np.array([v], np.float64).astype(dt)[0]


def mm(x, y, op):
    """x op y (min or max) of Python floats as include/parprim.h orders them:
    any NaN gives NaN, -0.0 below +0.0."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y == 0:
        neg = (math.copysign(1, x) < 0) + (math.copysign(1, y) < 0)
        return -0.0 if (neg > 0 if op == "min" else neg == 2) else 0.0
    return min(x, y) if op == "min" else max(x, y)


def to_bits(vals, dt):
    """The bits of Python floats rounded to dt, NaN as the quiet NaN."""
    out = np.array(vals, np.float64).astype(dt)
    b = hbits(out).copy()
    b[np.isnan(np.array(vals, np.float64))] = FORMATS[dt.name][3]
    return b


def ref_scan_bits(a, dt, op, exclusive=False, initial=None):
    acc = (math.inf if op == "min" else -math.inf) if initial is None else float(half(initial, dt))
    out = []
    for x in a.astype(np.float64).tolist():
        if exclusive:
            out.append(acc)
        acc = mm(acc, x, op)
        if not exclusive:
            out.append(acc)
    return to_bits(out, dt)


# ---- min and max scans --------------------------------------------------------


@every_half
def test_scan_min_max(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = specials(rng, dt, n)
        clean = a[~np.isnan(a.astype(F32))]  # NaN-free: NumPy's accumulate as a second oracle
        for op in ("min", "max"):
            for exclusive in (False, True):
                got = ctx.scan(a, op, exclusive=exclusive)
                assert got.dtype == dt and got.size == n
                np.testing.assert_array_equal(hbits(got), ref_scan_bits(a, dt, op, exclusive),
                                              err_msg=f"{op} exclusive={exclusive} n={n}")
                for init in (0.1, -0.0, 3):
                    got = ctx.scan(a, op, exclusive=exclusive, initial=init)
                    assert got.dtype == dt
                    np.testing.assert_array_equal(hbits(got), ref_scan_bits(a, dt, op, exclusive, init),
                                                  err_msg=f"{op} exclusive={exclusive} initial={init} n={n}")
            if dt == F16:
                acc = np.minimum if op == "min" else np.maximum
                np.testing.assert_array_equal(ctx.scan(clean, op), acc.accumulate(clean))


@every_half
def test_segmented_min_max(backend, dt, rng):
    """segmented_reduce and segmented_scan (empty segments: +inf, -inf),
    and reduce / scan along an axis, which run on them."""
    ctx = context(backend)
    for n in SIZES[1:]:  # (n = 0: test_segmented_empty_input)
        a = specials(rng, dt, n)
        offsets = np.concatenate(([0], np.sort(rng.integers(0, n + 1, 5)), [n])).astype(np.int64)
        for op in ("min", "max"):
            got = ctx.segmented_reduce(a, offsets, op)
            assert got.dtype == dt and got.size == offsets.size - 1
            want = [ref_minmax_bits(a[s:e], dt, op) for s, e in zip(offsets[:-1], offsets[1:])]
            np.testing.assert_array_equal(hbits(got), np.array(want, np.uint16), err_msg=f"reduce {op} n={n}")
            for exclusive in (False, True):
                got = ctx.segmented_scan(a, offsets, op, exclusive=exclusive)
                assert got.dtype == dt
                want = np.concatenate([ref_scan_bits(a[s:e], dt, op, exclusive)
                                       for s, e in zip(offsets[:-1], offsets[1:])])
                np.testing.assert_array_equal(hbits(got), want, err_msg=f"scan {op} exclusive={exclusive} n={n}")
    a = specials(rng, dt, 6 * 35).reshape(6, 35)
    for op in ("min", "max"):
        got = ctx.reduce(a, op, axis=1)
        assert got.dtype == dt and got.shape == (6,)
        np.testing.assert_array_equal(hbits(got), [ref_minmax_bits(row, dt, op) for row in a])
        got = ctx.scan(a, op, axis=0)
        assert got.dtype == dt and got.shape == a.shape
        np.testing.assert_array_equal(hbits(got).T, [ref_scan_bits(col, dt, op) for col in a.T])
        if dt == F16:
            clean = np.where(np.isnan(a), np.float16(1), a)
            np.testing.assert_array_equal(ctx.reduce(clean, op, axis=1), getattr(np, op)(clean, axis=1))


@every_half
def test_segmented_scan_not_covering(backend, dt, rng):
    """Segments that do not cover a: elements outside every segment keep
    a's values (a new result, and in place)."""
    ctx = context(backend)
    a = half_data(rng, dt, 40)
    offsets = np.array([3, 10, 10, 25])
    inside = np.concatenate((ref_scan_bits(a[3:10], dt, "max"), ref_scan_bits(a[10:25], dt, "max")))
    inplace = a.copy()
    ctx.segmented_scan(inplace, offsets, "max", out=inplace)
    for got in (inplace, ctx.segmented_scan(a, offsets, "max")):
        b = hbits(got)
        np.testing.assert_array_equal(b[3:25], inside)
        np.testing.assert_array_equal(b[:3], hbits(a)[:3])  # outside every segment: untouched
        np.testing.assert_array_equal(b[25:], hbits(a)[25:])


@every_half
def test_segmented_empty_input(backend, dt):
    """An empty a with empty segments: each the identity (+inf, -inf)."""
    ctx = context(backend)
    a = np.empty(0, dt)
    for op in ("min", "max"):
        got = ctx.segmented_reduce(a, np.zeros(7, np.int64), op)
        np.testing.assert_array_equal(hbits(got), [ref_minmax_bits(a, dt, op)] * 6)
        assert ctx.segmented_scan(a, np.zeros(3, np.int64), op).size == 0


# ---- argmin and argmax ----------------------------------------------------------


@every_half
def test_argmin_argmax(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES[1:]:
        for with_nan in (False, True):
            a = specials(rng, dt, n) if with_nan else half_data(rng, dt, n, spread=2)
            v = a if dt == F16 else a.astype(F32)  # NumPy's: the first extreme (-0.0 == +0.0), the first NaN
            for name in ("argmin", "argmax"):
                got = getattr(ctx, name)(a)
                assert type(got) is np.intp, type(got)
                assert got == getattr(np, name)(v), f"{name} n={n}"
    for name in ("argmin", "argmax"):
        a = np.array([0.0, -0.0, 1.0, -0.0]).astype(dt)
        assert getattr(ctx, name)(a) == (0 if name == "argmin" else 2)
        with pytest.raises(ValueError, match="empty"):
            getattr(ctx, name)(np.empty(0, dt))


# ---- histograms ---------------------------------------------------------------


@every_half
def test_histogram_even_and_range(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = specials(rng, dt, n)
        for bins, lo, hi in ((7, -3.0, 5.3), (16, 0.1, 2.2), (1, -1, 1)):
            got = ctx.histogram_even(a, bins, lo, hi)
            assert got.dtype == np.uint64
            # the f32 expression over the same values, the bounds rounded to dt first
            want = ref_histogram_even(a.astype(F32), bins, F32.type(half(lo, dt)), F32.type(half(hi, dt)))
            np.testing.assert_array_equal(got, want, err_msg=f"even bins={bins} [{lo}, {hi}) n={n}")
            got = ctx.histogram_even(a, bins, lo, hi, right_closed=True)
            edges = np.histogram_bin_edges(np.empty(0, dt), bins, range=(lo, hi))
            # exact over NumPy's edges (in dt, or float64 where ml_dtypes promotes the range so): float64 values
            want = np.histogram(a.astype(np.float64), edges.astype(np.float64))[0]
            np.testing.assert_array_equal(got, want, err_msg=f"right_closed bins={bins} n={n}")
            if dt == F16:
                np.testing.assert_array_equal(got, np.histogram(a, bins, range=(lo, hi))[0])
        for edges in ([-4, -0.1, 0, 0.3, 1, 9.5], [-np.inf, -1.0, 0.1, np.inf], [0.5, 0.75]):
            got = ctx.histogram_range(a, edges)
            assert got.dtype == np.uint64
            # edges[i] <= x < edges[i+1], compared exactly (float64): the edges as given, not rounded
            x = a.astype(np.float64)
            x = x[(x >= edges[0]) & (x < edges[-1])]
            want = np.bincount(np.searchsorted(edges, x, side="right") - 1, minlength=len(edges) - 1)
            np.testing.assert_array_equal(got, want, err_msg=f"range {edges} n={n}")


@every_half
def test_histogram_numpy(backend, dt, rng):
    """parprim.histogram: np.histogram's edges (in dt) and counts (int64)."""
    ctx = context(backend)
    for n in SIZES:
        a = half_data(rng, dt, n, spread=3)
        nan = a.copy()
        if n:
            nan[rng.integers(n)] = np.nan
        for x, bins, rng_ in ((a, 10, None), (a, 33, (-2.5, 4.1)), (nan, 5, (-1, 1)), (a, [-3, -0.1, 0.2, 8], None),
                              (nan, [-np.inf, 0.0, 1.5, np.inf], None)):
            counts, edges = ctx.histogram(x, bins, range=rng_)
            assert counts.dtype == np.int64
            want_edges = np.histogram_bin_edges(x, bins, range=rng_)
            assert edges.dtype == want_edges.dtype
            np.testing.assert_array_equal(hbits(edges) if edges.dtype.itemsize == 2 else edges,
                                          hbits(want_edges) if want_edges.dtype.itemsize == 2 else want_edges)
            if dt == F16:
                want = np.histogram(x, bins, range=rng_)[0]
            else:  # over the same edges, exactly: float64 values
                want = np.histogram(x.astype(np.float64), want_edges.astype(np.float64))[0]
            np.testing.assert_array_equal(counts, want, err_msg=f"bins={bins} range={rng_} n={n}")


# ---- compaction and unique ------------------------------------------------------


@every_half
def test_select_partition(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = specials(rng, dt, n)
        flags = rng.random(n) < 0.4
        got = ctx.select_flagged(a, flags)
        assert got.dtype == dt
        np.testing.assert_array_equal(hbits(got), hbits(a[flags]), err_msg=f"select_flagged n={n}")
        for cmp in CMPS:
            for value in (0.1, -0.0, 1, np.inf):
                v = half(value, dt)  # NumPy compares a float16 array with a Python float in float16
                m = eval(f"a.astype(np.float32) {cmp} np.float32(v)")  # noqa: S307 (C's comparison on exact values)
                if dt == F16:
                    np.testing.assert_array_equal(m, eval(f"a {cmp} value"))  # noqa: S307
                got = ctx.select_if(a, cmp, value)
                assert got.dtype == dt
                np.testing.assert_array_equal(hbits(got), hbits(a[m]), err_msg=f"select_if {cmp} {value} n={n}")
                part, count = ctx.partition_if(a, cmp, value)
                assert part.dtype == dt and count == int(m.sum())
                np.testing.assert_array_equal(hbits(part), hbits(np.concatenate((a[m], a[~m]))),
                                              err_msg=f"partition_if {cmp} {value} n={n}")


@every_half
def test_unique(backend, dt, rng):
    """unique: np.unique's values (one NaN last; -0.0 and +0.0 one value, of
    the sign of a's first zero), or every NaN with equal_nan=False;
    unique_consecutive: the first of each run of C's == (NaNs never equal)."""
    ctx = context(backend)
    for n in SIZES:
        a = specials(rng, dt, n)
        a[::2] = np.round(a[::2].astype(F32)).astype(dt)  # repeats
        x = a.astype(F32)
        got = ctx.unique(a)
        assert got.dtype == dt
        want = np.unique(x)  # float32 values, exactly: one NaN last
        np.testing.assert_array_equal(got.astype(F32), want, err_msg=f"unique n={n}")
        if dt == F16:
            np.testing.assert_array_equal(got, np.unique(a))
        zeros = a[x == 0]
        if zeros.size:
            assert np.signbit(got.astype(F32)[got.astype(F32) == 0][0]) == np.signbit(zeros[0].astype(F32))
        got = ctx.unique(a, equal_nan=False)
        np.testing.assert_array_equal(got.astype(F32), np.unique(x, equal_nan=False), err_msg=f"equal_nan n={n}")
        keep = np.ones(n, bool)
        keep[1:] = x[1:] != x[:-1]
        got = ctx.unique_consecutive(a)
        assert got.dtype == dt
        np.testing.assert_array_equal(hbits(got), hbits(a[keep]), err_msg=f"unique_consecutive n={n}")


# ---- other array kinds ------------------------------------------------------------


def test_device_path_f16(rng):
    """float16 through the CUDA Array Interface (the GPU-array path, run on
    a cpu context over host memory)."""
    from parprim._selfcheck import FakeCAI

    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        a = specials(rng, F16, 301)
        assert ctx.argmax(FakeCAI(a)) == np.argmax(a)
        np.testing.assert_array_equal(hbits(np.asarray(ctx.scan(FakeCAI(a), "min"))), ref_scan_bits(a, F16, "min"))
        np.testing.assert_array_equal(hbits(np.asarray(ctx.select_if(FakeCAI(a), ">", 0.5))), hbits(a[a > 0.5]))
        np.testing.assert_array_equal(np.asarray(ctx.histogram(FakeCAI(a), 9, range=(-4, 4))[0]),
                                      np.histogram(a, 9, range=(-4, 4))[0])
    finally:
        ctx.close()

