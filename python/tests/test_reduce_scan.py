"""reduce and scan: every backend, algorithm, type and operator, awkward
sizes, against NumPy (results in NumPy's result type: small integer sums
and products in int64/uint64; in the input type with dtype=, where integers
wrap: NumPy in the same dtype; float sums
within the sequential-summation bound; min/max exact, NaN and -0.0 < +0.0 as
include/parprim.h documents)."""

import numpy as np
import pytest

import parprim
from conftest import (FLOAT_DTYPES, INT_DTYPES, NUMPY, OPS, SIZES, BACKENDS, assert_bits, assert_same, check_reduce,
                      check_scan, combos, context, kinds_for, make_data, nan_patterns, call, algo_params)


@pytest.mark.parametrize("backend,algo,dtype,op", combos("reduce", ops=OPS))
def test_reduce(backend, algo, dtype, op, rng):
    ctx = context(backend, "reduce", algo)
    for n in SIZES:
        for kind in kinds_for(dtype, op):
            a = make_data(rng, dtype, n, kind)
            got = call(backend, algo, ctx.reduce, a, op)
            check_reduce(a, op, got, f"n={n} data={kind}", NUMPY)


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("backend,algo,dtype,op", combos("scan", ops=OPS))
def test_scan(backend, algo, dtype, op, exclusive, rng):
    ctx = context(backend, "scan", algo)
    for n in SIZES:
        for kind in kinds_for(dtype, op):
            a = make_data(rng, dtype, n, kind)
            keep = a.copy()
            got = call(backend, algo, ctx.scan, a, op, exclusive=exclusive)
            if got is None:
                continue
            check_scan(a, op, exclusive, got, f"n={n} data={kind}", NUMPY)
            assert_bits(a, keep, "scan without out= changed its input")


def test_reduce_default_op_is_sum(rng):
    a = make_data(rng, np.int32, 1000)
    assert_same(np.array([parprim.reduce(a)]), np.array([np.sum(a)]))
    assert_same(parprim.scan(a), np.cumsum(a))


# ---- the sign of zero sums, NaN and inf (the header's Arithmetic rules) -----

ZERO_SIZES = (1, 2, 33, 1025, 65537)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("backend,algo", algo_params("reduce"))
def test_reduce_sum_sign_of_zero(backend, algo, dtype, rng):
    ctx = context(backend, "reduce", algo)
    z = dtype.type(0.0)
    nz = dtype.type(-0.0)
    got = call(backend, algo, ctx.reduce, np.zeros(0, dtype), "sum")
    assert_bits(np.array([got]), np.array([z]), "n == 0: the identity +0.0")
    for n in ZERO_SIZES:
        a = np.full(n, -0.0, dtype=dtype)
        assert_bits(np.array([ctx.reduce(a, "sum")]), np.array([nz]), f"all -0.0, n={n}")
        a[rng.integers(n)] = 0.0
        assert_bits(np.array([ctx.reduce(a, "sum")]), np.array([z]), f"-0.0 with one +0.0, n={n}")
        a = make_data(rng, dtype, n, "zeros")
        exp = nz if np.all(np.signbit(a)) else z
        assert_bits(np.array([ctx.reduce(a, "sum")]), np.array([exp]), f"mixed zeros, n={n}")


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("backend,algo", algo_params("scan"))
def test_scan_sum_sign_of_zero(backend, algo, dtype, exclusive, rng):
    ctx = context(backend, "scan", algo)
    for n in ZERO_SIZES:
        a = np.full(n, -0.0, dtype=dtype)
        k = int(rng.integers(n))
        a[k] = 0.0
        # inclusive prefix i: -0.0 while every element so far is -0.0
        inc = np.where(np.arange(n) < k, dtype.type(-0.0), dtype.type(0.0)).astype(dtype)
        exp = np.concatenate([np.array([0.0], dtype), inc[:-1]]) if exclusive else inc
        got = call(backend, algo, ctx.scan, a, "sum", exclusive=exclusive)
        if got is None:
            continue
        assert_bits(got, exp, f"n={n}, the one +0.0 at {k}")
        a = np.full(n, -0.0, dtype=dtype)
        inc = a.copy()
        exp = np.concatenate([np.array([0.0], dtype), inc[:-1]]) if exclusive else inc
        assert_bits(ctx.scan(a, "sum", exclusive=exclusive), exp, f"all -0.0, n={n}")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("backend,algo", algo_params("reduce"))
def test_reduce_nan_and_inf(backend, algo, dtype, rng):
    ctx = context(backend, "reduce", algo)
    for n in (1, 33, 1025, 100003):
        for nan in nan_patterns(dtype):
            a = make_data(rng, dtype, n)
            a[rng.integers(n)] = nan
            for op in ("sum", "prod", "min", "max"):
                got = call(backend, algo, ctx.reduce, a, op)
                assert np.isnan(got), f"{op} of data with a NaN is {got!r}, n={n}"
        a = make_data(rng, dtype, n)
        a[rng.integers(n)] = np.inf
        assert ctx.reduce(a, "sum") == np.inf
        assert ctx.reduce(a, "max") == np.inf
        if n > 1:
            i, j = rng.choice(n, 2, replace=False)
            a[i], a[j] = np.inf, -np.inf
            assert np.isnan(ctx.reduce(a, "sum")), "inf + -inf"
            assert ctx.reduce(a, "min") == -np.inf


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("backend,algo", algo_params("scan"))
def test_scan_nan_from_first_nan_on(backend, algo, dtype, exclusive, rng):
    ctx = context(backend, "scan", algo)
    for n in (2, 33, 1025, 65537):
        a = make_data(rng, dtype, n)
        k = int(rng.integers(n - 1))
        a[k] = nan_patterns(dtype)[k % 5]
        if k + 1 < n and rng.integers(2):
            a[rng.integers(k + 1, n)] = np.nan
        first = k + 1 if exclusive else k
        for op in ("sum", "min", "max"):
            got = call(backend, algo, ctx.scan, a, op, exclusive=exclusive)
            if got is None:
                continue
            isnan = np.isnan(got)
            assert not isnan[:first].any(), f"{op}: NaN before the first NaN (at {k}), n={n}"
            assert isnan[first:].all(), f"{op}: not NaN from the first NaN (at {k}) on, n={n}"
            check_scan(a[:k], op, exclusive, got[:k], f"{op} before the NaN, n={n}")


# ---- determinism -----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_cpu_float_results_independent_of_threads(dtype, rng):
    """cpu: float reduce and scan results depend only on the input."""
    a = make_data(rng, dtype, 300007)
    b = make_data(rng, dtype, 300007, "near1")
    results = []
    for threads in (1, 2, 3):
        with parprim.Context(backend="cpu", threads=threads) as ctx:
            assert ctx.threads == threads
            for algo in ctx_algorithms("cpu", "scan"):
                ctx.set_algorithm("scan", algo)
                results.append((f"threads={threads} scan {algo}", ctx.scan(a, "sum"),
                                ctx.scan(a, "sum", exclusive=True)))
            results.append((f"threads={threads} reduce", np.array([ctx.reduce(a, "sum")]),
                            np.array([ctx.reduce(b, "prod")])))
    by_kind = {}
    for name, x, y in results:
        key = name.split(" ", 1)[1]
        if key in by_kind:
            assert_bits(x, by_kind[key][1], f"{name} vs {by_kind[key][0]}")
            assert_bits(y, by_kind[key][2], f"{name} vs {by_kind[key][0]}")
        else:
            by_kind[key] = (name, x, y)


def ctx_algorithms(backend, prim):
    return list(parprim.info()["backends"][backend]["algorithms"][prim])


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "cuda"])
def test_float_results_reproducible(backend, rng):
    """Float reduce and scan are reproducible run to run (cuda's default
    decoupled look-back scan is not, by the header, so cuda is left out)."""
    ctx = context(backend)
    a = make_data(rng, np.float32, 100003)
    r1, s1 = ctx.reduce(a, "sum"), ctx.scan(a, "sum")
    r2, s2 = ctx.reduce(a, "sum"), ctx.scan(a, "sum")
    assert_bits(np.array([r1]), np.array([r2]))
    assert_bits(s1, s2)


# ---- the integer types' extremes -------------------------------------------


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_wrap_at_extremes(backend, dtype):
    ctx = context(backend)
    ii = np.iinfo(dtype)
    a = np.array([ii.max, 1, ii.max, ii.min, ii.min, 3], dtype=dtype)
    for op in ("sum", "prod", "min", "max", "and", "or", "xor"):
        check_reduce(a, op, ctx.reduce(a, op), op, NUMPY)
        check_scan(a, op, False, ctx.scan(a, op), op, NUMPY)
        check_scan(a, op, True, ctx.scan(a, op, exclusive=True), op, NUMPY)
        # in the input type (dtype=): the C call of that type, which wraps
        check_reduce(a, op, ctx.reduce(a, op, dtype=dtype), op, dtype)
        check_scan(a, op, False, ctx.scan(a, op, dtype=dtype), op, dtype)
        check_scan(a, op, True, ctx.scan(a, op, exclusive=True, dtype=dtype), op, dtype)
