"""select_flagged, select_if, unique_consecutive, unique and partition_if: every backend,
algorithm and type, exact (bit for bit) against NumPy; stable; C's
comparisons (NaN selected only by "!=", -0.0 == +0.0)."""

import operator

import numpy as np
import pytest

from conftest import (CMPS, SIZES, BACKENDS, assert_bits, combos, context, make_data, nan_patterns)

CMP_FN = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
          "!=": operator.ne}


def _data(rng, dtype, n, i):
    kinds = ("random", "dups", "special", "equal") if np.dtype(dtype).kind == "f" else ("random", "dups", "equal")
    return make_data(rng, dtype, n, kinds[i % len(kinds)])


@pytest.mark.parametrize("backend,algo,dtype", combos("select"))
def test_select_flagged(backend, algo, dtype, rng):
    ctx = context(backend, "select", algo)
    for n in SIZES:
        for i, density in enumerate((0.0, 0.01, 0.5, 0.99, 1.0)):
            a = _data(rng, dtype, n, i)
            flags = rng.random(n) < density
            got = ctx.select_flagged(a, flags)
            assert isinstance(got, np.ndarray)
            assert_bits(got, a[flags], f"n={n} density={density}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_flagged_nonzero_bytes(backend, rng):
    """flags may be uint8: any nonzero byte selects."""
    ctx = context(backend)
    a = make_data(rng, np.int32, 1025)
    flags = rng.integers(0, 256, 1025).astype(np.uint8)
    flags[::3] = 0
    assert_bits(ctx.select_flagged(a, flags), a[flags != 0])
    assert_bits(ctx.select_flagged(a, flags != 0), a[flags != 0])


@pytest.mark.parametrize("backend,algo,dtype", combos("select"))
def test_select_if(backend, algo, dtype, rng):
    ctx = context(backend, "select", algo)
    for n in SIZES:
        for i, cmp in enumerate(CMPS):
            a = _data(rng, dtype, n, i)
            finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
            value = finite[rng.integers(finite.size)] if finite.size else a.dtype.type(1)
            for v in (value, value.item()):
                got = ctx.select_if(a, cmp, v)
                assert_bits(got, a[CMP_FN[cmp](a, value)], f"n={n} x {cmp} {v!r} ({type(v).__name__})")


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64)], ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_select_if_nan_and_zero(backend, dtype, rng):
    ctx = context(backend, "select")
    a = make_data(rng, dtype, 1025, "special")
    a[:4] = [-0.0, 0.0, np.nan, np.inf]
    for cmp in CMPS:
        got = ctx.select_if(a, cmp, np.nan)
        exp = a if cmp == "!=" else a[:0]
        assert_bits(got, exp, f"x {cmp} NaN: NaN compares unequal to everything")
        for zero in (0.0, -0.0):
            assert_bits(ctx.select_if(a, cmp, zero), a[CMP_FN[cmp](a, dtype.type(zero))], f"x {cmp} {zero}")
    assert_bits(ctx.select_if(a, "!=", a[2]), a, "NaN != NaN selects every element")


def _runs(rng, dtype, n):
    """Data made of runs of equal values (NaN and +-0.0 runs for floats)."""
    if n == 0:
        return np.zeros(0, dtype)
    vals = make_data(rng, dtype, n, "special" if np.dtype(dtype).kind == "f" else "dups")
    lengths = rng.geometric(0.4, n)
    return np.repeat(vals, lengths)[:n]


def ref_unique_consecutive(a):
    keep = np.ones(a.size, dtype=bool)
    keep[1:] = a[1:] != a[:-1]  # C's ==: NaN never equal, -0.0 == +0.0
    return a[keep]


@pytest.mark.parametrize("backend,algo,dtype", combos("select"))
def test_unique_consecutive(backend, algo, dtype, rng):
    ctx = context(backend, "select", algo)
    for n in SIZES:
        for a in (_runs(rng, dtype, n), make_data(rng, dtype, n), make_data(rng, dtype, n, "equal")):
            got = ctx.unique_consecutive(a)
            assert_bits(got, ref_unique_consecutive(a), f"n={n}")
    if np.dtype(dtype).kind == "f":
        a = np.array([-0.0, 0.0, 0.0, np.nan, np.nan, 1.0, 1.0, -0.0], dtype=dtype)
        a[4] = nan_patterns(dtype)[1]
        exp = np.array([-0.0, np.nan, np.nan, 1.0, -0.0], dtype=dtype)
        exp[2] = a[4]
        assert_bits(ctx.unique_consecutive(a), exp, "first of each run; NaN never equal; -0.0 == +0.0")


def assert_same_values(got, exp, msg=""):
    assert isinstance(got, np.ndarray), msg
    assert got.dtype == exp.dtype and got.shape == exp.shape, f"{got.dtype}{got.shape} vs {exp.dtype}{exp.shape} {msg}"
    assert np.array_equal(got, exp, equal_nan=exp.dtype.kind == "f"), f"{got[:10]} vs {exp[:10]} {msg}"


@pytest.mark.parametrize("backend,algo,dtype", combos("select"))
def test_unique_matches_numpy(backend, algo, dtype, rng):
    ctx = context(backend, "select", algo)
    for n in SIZES:
        for kind in ("random", "dups", "equal") + (("special",) if np.dtype(dtype).kind == "f" else ()):
            a = make_data(rng, dtype, n, kind)
            keep = a.copy()
            assert_same_values(ctx.unique(a), np.unique(a), f"n={n} data={kind}")
            assert_bits(a, keep, "unique changed its input")


@pytest.mark.parametrize("backend,algo,dtype", combos("select"))
def test_partition_if(backend, algo, dtype, rng):
    ctx = context(backend, "select", algo)
    for n in SIZES:
        for i, cmp in enumerate(CMPS):
            a = _data(rng, dtype, n, i + 1)
            finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
            value = finite[rng.integers(finite.size)] if finite.size else a.dtype.type(0)
            res = ctx.partition_if(a, cmp, value)
            assert isinstance(res, tuple) and len(res) == 2, f"partition_if returned {type(res)}"
            got, count = res
            m = CMP_FN[cmp](a, value)
            assert int(count) == int(m.sum()), f"count {count}, expected {m.sum()}, n={n} x {cmp} {value!r}"
            assert_bits(got, np.concatenate([a[m], a[~m]]), f"n={n} x {cmp} {value!r}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_small_results_own_their_memory(backend, rng):
    """A result of a few elements at the front of a large output buffer is
    copied out, so that it does not keep the len(a)-element buffer alive:
    select, unique, unique_consecutive, run_length_encode, reduce_by_key."""
    ctx = context(backend)
    n = 100003
    a = rng.integers(0, 3, n).astype(np.int64)
    a[rng.choice(n, 2, replace=False)] = 7 + rng.integers(0, 2**40, 2)
    flags = np.zeros(n, bool)
    flags[rng.choice(n, 2, replace=False)] = True
    s = np.sort(a)
    vals, counts = np.unique(a, return_counts=True)
    cases = {
        "select_flagged": (ctx.select_flagged(a, flags), a[flags]),
        "select_if": (ctx.select_if(a, ">", 6), a[a > 6]),
        "unique": (ctx.unique(a), vals),
        "unique counts": (ctx.unique(a, return_counts=True), (vals, counts)),
        "unique_consecutive": (ctx.unique_consecutive(s), vals),
        "run_length_encode": (ctx.run_length_encode(s), (vals, counts)),
        "reduce_by_key": (ctx.reduce_by_key(s, np.ones(n, np.int32)), (vals, counts.astype(np.int32))),
    }
    for what, (got, want) in cases.items():
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert_bits(g, w, what)
            assert g.flags.owndata and g.base is None, f"{what}: a view of a buffer of {g.base.nbytes} bytes"
    # a result of most of the buffer is the buffer's prefix (no copy)
    most = ctx.select_if(a, "<", 6)
    assert_bits(most, a[a < 6])
