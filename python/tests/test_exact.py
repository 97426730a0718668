"""exact=True on reduce and scan (PP_ALGO_EXACT): float sums correctly
rounded, against an oracle independent of the library: Python's
math.fsum (correctly rounded to float64) and, for float32 and for every
prefix, exact rational sums (fractions.Fraction) rounded by NumPy's
conversion of the exact value. Backends without the exact algorithm raise
Unsupported (checked too)."""

import math
from fractions import Fraction

import numpy as np
import pytest

import parprim
from conftest import BACKENDS, context

HAS_EXACT = [b for b in BACKENDS if "exact" in parprim.info()["backends"][b]["algorithms"]["reduce"]]


def _round(q, dtype):
    """The float of dtype nearest the rational q (ties to even): the exact
    value's binary expansion rounded once, via float64 only where that is
    exact (float64 itself), else from the correctly rounded float64 and a
    Fraction check of the neighbours."""
    if dtype == np.float64:
        return np.float64(q.numerator / q.denominator) if q else np.float64(0.0)
    # float32: the nearest float32 by comparing exact distances to the
    # neighbours of a first guess
    g = np.float32(float(q))
    best = g
    for c in (np.nextafter(g, np.float32(-np.inf)), g, np.nextafter(g, np.float32(np.inf))):
        if not np.isfinite(c):
            continue
        dc, db = abs(Fraction(float(c)) - q), abs(Fraction(float(best)) - q)
        if dc < db or (dc == db and (int(c.view(np.uint32)) & 1) == 0):
            best = c
    return best


def _data(rng, dtype, n, kind):
    if kind == "uniform":
        return rng.random(n).astype(dtype)
    if kind == "binades":  # 81 binades, mixed signs
        e = rng.integers(-40, 41, n)
        return (rng.choice([-1.0, 1.0], n) * rng.random(n) * np.exp2(e)).astype(dtype)
    # cancellation: +-big pairs around small residues
    if n == 0:
        return np.zeros(0, dtype)
    big = 2.0 ** (100 if dtype == np.float64 else 60)
    a = np.empty(n, dtype)
    a[0::2] = big
    a[1::2] = -big
    k = rng.integers(0, n, max(1, n // 10))
    a[k] = rng.random(k.size).astype(dtype)
    return a


@pytest.mark.parametrize("backend", HAS_EXACT)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["uniform", "binades", "cancel"])
def test_exact_reduce_and_scan(backend, dtype, kind, rng):
    ctx = context(backend)
    for n in (0, 1, 2, 3, 1000, 8193):
        a = _data(rng, dtype, n, kind)
        exact = sum((Fraction(float(x)) for x in a), Fraction(0))
        got = ctx.reduce(a, exact=True)
        assert got.dtype == dtype
        if n == 0:
            assert np.signbit(got) == False and got == 0  # noqa: E712
            continue
        want = _round(exact, dtype)
        assert got.tobytes() == want.tobytes(), f"n={n} {kind}: {got!r} != {want!r}"
        if dtype == np.float64:
            assert got == math.fsum(a.tolist())
        if n <= 1000:
            s = ctx.scan(a, exact=True)
            e = ctx.scan(a, exclusive=True, exact=True)
            q = Fraction(0)
            for i, x in enumerate(a):
                want_e = _round(q, dtype) if i else dtype(0.0)
                q += Fraction(float(x))
                assert s[i].tobytes() == _round(q, dtype).tobytes(), f"inclusive[{i}], n={n} {kind}"
                assert e[i].tobytes() == want_e.tobytes(), f"exclusive[{i}], n={n} {kind}"


@pytest.mark.parametrize("backend", HAS_EXACT)
def test_exact_other_types_are_the_default(backend, rng):
    ctx = context(backend)
    a = rng.integers(-1000, 1000, 5000).astype(np.int32)
    assert ctx.reduce(a, exact=True) == a.sum(dtype=np.int32)
    assert np.array_equal(ctx.scan(a, "max", exact=True), np.maximum.accumulate(a))


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b not in HAS_EXACT])
def test_exact_unsupported(backend):
    with pytest.raises(parprim.Unsupported):
        context(backend).reduce(np.ones(10, np.float32), exact=True)


def test_exact_keeps_the_contexts_algorithm():
    ctx = parprim.Context("cpu")
    ctx.set_algorithm("reduce", "sequential")
    ctx.reduce(np.ones(10, np.float64), exact=True)
    assert ctx.get_algorithm("reduce") == "sequential"
    ctx.close()
