"""Hypothesis property tests: random arrays of every type (with NaN, +-0.0,
+-inf, duplicates), random operators, bounds, edges and orders, against the
NumPy oracles of conftest.py. Examples per property: a few dozen on cpu,
fewer on opencl (PoCL compiles a kernel per type and operator)."""

import operator

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import parprim  # noqa: E402
from conftest import (BACKENDS, CMPS, DTYPES, FLOAT_DTYPES, INT_DTYPES, OPS, assert_bits,  # noqa: E402
                      NUMPY, assert_same, check_reduce, check_scan, context, examples, ref_histogram_even,
                      ref_histogram_range, ref_sort_order)

CMP_FN = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
          "!=": operator.ne}
MAX_N = 300


def elements(dtype, finite=False, small=False):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        if small:
            return st.integers(-4 if dtype.kind == "i" else 0, 4)
        return hnp.from_dtype(dtype)
    width = dtype.itemsize * 8
    if finite:
        return st.floats(-1e6, 1e6, width=width, allow_subnormal=False)
    return st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)


def arrays(dtype, finite=False, max_n=MAX_N):
    """Arrays of dtype; half the time drawn from a few values (duplicates)."""
    dtype = np.dtype(dtype)
    shape = st.integers(0, max_n)
    return st.one_of(
        hnp.arrays(dtype, shape, elements=elements(dtype, finite)),
        hnp.arrays(dtype, shape, elements=elements(dtype, finite, small=True))
        if dtype.kind in "iu" else
        st.tuples(hnp.arrays(dtype, 4, elements=elements(dtype, finite)), st.lists(st.integers(0, 3), max_size=max_n))
        .map(lambda t: t[0][np.array(t[1], dtype=np.intp)]),
    )


def run(backend, cpu, other, *strategies):
    """Decorates a property for backend with its example budget and runs it."""
    def deco(fn):
        settings(max_examples=examples(backend, cpu, other))(given(*strategies)(fn))()
    return deco


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_reduce_scan(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(INT_DTYPES))
        return dt, draw(st.sampled_from(OPS)), draw(arrays(dt)), draw(st.booleans())

    @run(backend, 80, 20, case())
    def prop(c):
        dt, op, a, exclusive = c
        check_reduce(a, op, ctx.reduce(a, op), f"{dt} {op}", NUMPY)
        check_scan(a, op, exclusive, ctx.scan(a, op, exclusive=exclusive), f"{dt} {op} exclusive={exclusive}", NUMPY)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_min_max_exact(backend):
    """min/max with NaN, +-0.0 and +-inf: exact, NaN propagates, -0.0 < +0.0."""
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(FLOAT_DTYPES))
        return dt, draw(st.sampled_from(["min", "max"])), draw(arrays(dt)), draw(st.booleans())

    @run(backend, 80, 20, case())
    def prop(c):
        dt, op, a, exclusive = c
        try:
            check_reduce(a, op, ctx.reduce(a, op), f"{dt} {op}", NUMPY)
            check_scan(a, op, exclusive, ctx.scan(a, op, exclusive=exclusive), f"{dt} {op} exclusive={exclusive}", NUMPY)
        except parprim.Unsupported:
            if not (backend == "opencl" and dt == np.float64):
                raise


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_sum_within_bound(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(FLOAT_DTYPES))
        return dt, draw(arrays(dt, finite=True)), draw(st.booleans())

    @run(backend, 60, 15, case())
    def prop(c):
        dt, a, exclusive = c
        try:
            check_reduce(a, "sum", ctx.reduce(a, "sum"), f"{dt}", NUMPY)
            check_scan(a, "sum", exclusive, ctx.scan(a, "sum", exclusive=exclusive), f"{dt} exclusive={exclusive}", NUMPY)
        except parprim.Unsupported:
            if not (backend == "opencl" and dt == np.float64):
                raise


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_and_pairs(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(DTYPES))
        desc = draw(st.booleans())
        nan_last = draw(st.booleans()) if desc else True
        return dt, draw(arrays(dt)), desc, nan_last

    @run(backend, 80, 25, case())
    def prop(c):
        dt, a, desc, nan_last = c
        order = ref_sort_order(a, desc, nan_last)
        where = f"{dt} descending={desc} nan_last={nan_last}"
        assert_bits(ctx.sort(a, descending=desc, nan_last=nan_last), a[order], where)
        k, v = ctx.sort_pairs(a.copy(), np.arange(a.size, dtype=np.int32), descending=desc, nan_last=nan_last)
        assert_bits(k, a[order], where + " keys")
        assert_same(v, order.astype(np.int32), where + " values (stability)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_compaction(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(DTYPES))
        a = draw(arrays(dt))
        cmp = draw(st.sampled_from(CMPS))
        value = draw(st.one_of(st.sampled_from(list(a)) if a.size else st.nothing(), elements(dt)))
        flags = draw(hnp.arrays(np.bool_, a.size))
        return dt, a, cmp, dt.type(value), flags

    @run(backend, 80, 25, case())
    def prop(c):
        dt, a, cmp, value, flags = c
        m = CMP_FN[cmp](a, value)
        assert_bits(ctx.select_if(a, cmp, value), a[m], f"{dt} x {cmp} {value!r}")
        got, count = ctx.partition_if(a, cmp, value)
        assert int(count) == int(m.sum())
        assert_bits(got, np.concatenate([a[m], a[~m]]), f"partition {dt} x {cmp} {value!r}")
        assert_bits(ctx.select_flagged(a, flags), a[flags])
        keep = np.ones(a.size, bool)
        keep[1:] = a[1:] != a[:-1]
        assert_bits(ctx.unique_consecutive(a), a[keep], f"unique_consecutive {dt}")
        u = ctx.unique(a)
        assert u.dtype == dt and np.array_equal(u, np.unique(a), equal_nan=dt.kind == "f"), f"unique {dt}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_even_integers(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(INT_DTYPES))
        ii = np.iinfo(dt)
        lo = draw(st.integers(int(ii.min), int(ii.max) - 1))
        hi = draw(st.integers(lo + 1, int(ii.max)))
        bins = draw(st.integers(1, 300))
        inside = st.integers(lo, hi)
        a = draw(hnp.arrays(dt, st.integers(0, MAX_N), elements=st.one_of(inside, hnp.from_dtype(dt))))
        return dt, a, bins, lo, hi

    @run(backend, 80, 20, case())
    def prop(c):
        dt, a, bins, lo, hi = c
        assert_same(ctx.histogram_even(a, bins, lo, hi), ref_histogram_even(a, bins, lo, hi),
                    f"{dt} bins={bins} [{lo}, {hi})")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_even_integers_right_closed(backend):
    """right_closed=True on integers: np.histogram's bins (NumPy bins in
    float64 edges), bin for bin."""
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(INT_DTYPES))
        ii = np.iinfo(dt)
        lo = draw(st.integers(int(ii.min), int(ii.max) - 1))
        hi = draw(st.one_of(st.integers(lo + 1, min(int(ii.max), lo + 1000)), st.integers(lo + 1, int(ii.max))))
        bins = draw(st.integers(1, 300))
        a = draw(hnp.arrays(dt, st.integers(0, MAX_N),
                            elements=st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi]), hnp.from_dtype(dt))))
        return dt, a, bins, lo, hi

    @run(backend, 60, 15, case())
    def prop(c):
        dt, a, bins, lo, hi = c
        try:
            exp = np.histogram(a, bins, range=(lo, hi))[0].astype(np.uint64)
        except (ValueError, OverflowError):  # NumPy cannot: nothing to match (test_histogram checks sanity there)
            return
        assert_same(ctx.histogram_even(a, bins, lo, hi, right_closed=True), exp, f"{dt} bins={bins} [{lo}, {hi}]")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_even_floats(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(FLOAT_DTYPES))
        fin = st.floats(width=dt.itemsize * 8, allow_nan=False, allow_infinity=False)
        lo, hi = sorted([draw(fin), draw(fin)])
        if not dt.type(lo) < dt.type(hi):
            hi = float(np.nextafter(dt.type(lo), dt.type(np.inf)))
            if not np.isfinite(dt.type(hi)):
                lo, hi = float(np.nextafter(dt.type(lo), dt.type(-np.inf))), lo
        bins = draw(st.integers(1, 300))
        inside = st.floats(lo, hi, width=dt.itemsize * 8)
        a = draw(hnp.arrays(dt, st.integers(0, MAX_N), elements=st.one_of(inside, elements(dt))))
        return dt, a, bins, lo, hi, draw(st.booleans())

    @run(backend, 80, 20, case())
    def prop(c):
        dt, a, bins, lo, hi, right_closed = c
        try:
            got = ctx.histogram_even(a, bins, lo, hi, right_closed=right_closed)
        except parprim.Unsupported:
            if backend == "opencl":
                return  # a device without cl_khr_fp64
            raise
        except parprim.InvalidArgument:
            if right_closed:  # where NumPy itself refuses the bins (checked below)
                with pytest.raises(ValueError):
                    np.histogram(a, bins, range=(lo, hi))
                return
            raise
        if right_closed:
            try:
                exp = np.histogram(a, bins, range=(lo, hi))[0].astype(np.uint64)
            except ValueError:  # NumPy refuses bins narrower than its edges' spacing: nothing to match
                return
            with np.errstate(all="ignore"):
                overflow = not np.isfinite(dt.type(hi) - dt.type(lo))
            if not overflow:  # np.histogram's own arithmetic overflows there
                assert_same(got, exp, f"{dt} bins={bins} [{lo!r}, {hi!r}] right closed")
        else:
            assert_same(got, ref_histogram_even(a, bins, lo, hi), f"{dt} bins={bins} [{lo!r}, {hi!r})")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_range(backend):
    ctx = context(backend)

    @st.composite
    def case(draw):
        dt = draw(st.sampled_from(DTYPES))
        edges = draw(hnp.arrays(dt, st.integers(2, 40), elements=elements(dt).filter(lambda x: not np.isnan(x)),
                                unique=True))
        edges = np.unique(edges)  # sorted; +-0.0 collapse to one
        if edges.size < 2:
            edges = np.array([0, 1], dtype=dt)
        a = draw(hnp.arrays(dt, st.integers(0, MAX_N), elements=st.one_of(st.sampled_from(list(edges)), elements(dt))))
        return dt, a, edges

    @run(backend, 80, 20, case())
    def prop(c):
        dt, a, edges = c
        try:
            got = ctx.histogram_range(a, edges)
        except parprim.Unsupported:
            if backend == "opencl" and dt.kind == "f":
                return
            raise
        assert_same(got, ref_histogram_range(a, edges), f"{dt} edges={edges}")
