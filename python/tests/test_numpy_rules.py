"""NumPy's rules in reduce and scan (result dtypes of sums and products,
dtype=, bool input), the default float sum's accuracy against np.sum, and
argmin, argmax, count_nonzero, any, all: on every backend present, against
NumPy."""

import math

import numpy as np
import pytest

import parprim
from conftest import (BACKENDS, DTYPES, INT_DTYPES, assert_same, context, make_data, nan_patterns, result_dtype,
                      run)

SIZES = (0, 1, 33, 1025, 65537)


def _same_scalar(got, exp, msg=""):
    assert isinstance(got, np.generic), f"{type(got).__name__}, not a NumPy scalar [{msg}]"
    assert_same(np.array([got]), np.array([exp]), msg)


# ---- result dtypes of sums and products -----------------------------------


def test_issue_examples():
    _same_scalar(parprim.reduce(np.full(1000, 200, np.uint8)), np.uint64(200000))
    _same_scalar(parprim.reduce(np.full(10**6, 10**4, np.int32)), np.int64(10**10))
    rng = np.random.default_rng()
    mask = rng.random(10**6) < 0.43
    _same_scalar(parprim.reduce(mask), np.sum(mask))
    _same_scalar(parprim.reduce(mask.view(np.uint8)), np.sum(mask.view(np.uint8)))
    assert parprim.count_nonzero(mask) == np.count_nonzero(mask)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sum_prod_dtypes(backend, rng):
    """Every type: sum and prod in NumPy's result type, values as NumPy's
    (integers exact; np.sum's dtype for each), cumsum and cumprod too."""
    ctx = context(backend)
    for dt in INT_DTYPES:
        for n in SIZES:
            a = make_data(rng, dt, n, "random")
            s = run(ctx.reduce, a)
            _same_scalar(s, np.sum(a), f"sum {dt} n={n}")
            p = make_data(rng, dt, n, "small")
            _same_scalar(run(ctx.reduce, p, "prod"), np.prod(p), f"prod {dt} n={n}")
            assert_same(run(ctx.scan, a), np.cumsum(a), f"cumsum {dt} n={n}")
            assert_same(run(ctx.scan, p, "prod"), np.cumprod(p), f"cumprod {dt} n={n}")
            inc = np.cumsum(a)
            exp = np.concatenate([np.zeros(1, inc.dtype), inc[:-1]]) if n else inc
            assert_same(run(ctx.scan, a, exclusive=True), exp, f"exclusive cumsum {dt} n={n}")
            for op in ("min", "max", "and", "or", "xor"):
                assert run(ctx.reduce, a, op).dtype == dt
    for dt in DTYPES:
        assert run(ctx.reduce, np.ones(3, dt)).dtype == np.sum(np.ones(3, dt)).dtype == result_dtype(dt, "sum")


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool(backend, rng):
    ctx = context(backend)
    for n in SIZES:
        a = rng.random(n) < 0.3
        _same_scalar(run(ctx.reduce, a), np.sum(a), f"sum n={n}")
        _same_scalar(run(ctx.reduce, a, "prod"), np.prod(a), f"prod n={n}")
        assert_same(run(ctx.scan, a), np.cumsum(a), f"cumsum n={n}")
        if n:
            _same_scalar(run(ctx.reduce, a, "max"), np.max(a), f"max n={n}")
            _same_scalar(run(ctx.reduce, a, "min"), np.min(a), f"min n={n}")
            _same_scalar(run(ctx.reduce, a, "xor"), np.bitwise_xor.reduce(a), f"xor n={n}")
            assert_same(run(ctx.scan, a, "max"), np.maximum.accumulate(a), f"cummax n={n}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_dtype_argument(backend, rng):
    ctx = context(backend)
    a = make_data(rng, np.int8, 10007)
    for dt in (np.int8, np.int16, np.int32, np.int64, np.float32, np.float64):
        got = run(ctx.reduce, a, dtype=dt)
        assert got.dtype == dt
        if np.dtype(dt).kind == "i":
            _same_scalar(got, np.sum(a, dtype=dt), f"dtype={dt}")
            assert_same(run(ctx.scan, a, dtype=dt), np.cumsum(a, dtype=dt), f"cumsum dtype={dt}")
        else:
            assert got == np.sum(a, dtype=np.int64)  # small integers: exact in either float type
    u = make_data(rng, np.uint16, 1000)
    _same_scalar(run(ctx.reduce, u, dtype=np.uint32), np.sum(u, dtype=np.uint32))
    f = make_data(rng, np.float32, 1000)
    w = run(ctx.reduce, f, dtype=np.float64)
    assert w.dtype == np.float64 and abs(w - math.fsum(f.astype(np.float64))) <= 1e-9 * np.abs(f).sum()
    # what the C library does not convert: narrower types, signed to unsigned, float to integer
    for src, dt in ((np.int32, np.int16), (np.int8, np.uint64), (np.float64, np.float32), (np.float32, np.int64),
                    (np.int64, np.float64)):
        with pytest.raises(parprim.InvalidArgument, match="cannot hold every value"):
            ctx.reduce(np.ones(4, src), dtype=dt)
        with pytest.raises(parprim.InvalidArgument, match="cannot hold every value"):
            ctx.scan(np.ones(4, src), dtype=dt)
    with pytest.raises(parprim.InvalidArgument, match="dtype=complex128"):
        ctx.reduce(np.ones(4, np.int32), dtype=np.complex128)
    with pytest.raises(TypeError):
        ctx.reduce(np.ones(4, np.int32), dtype="no such type")
    with pytest.raises(parprim.InvalidArgument, match="initial"):
        ctx.scan(np.ones(4, np.int8), initial=1, dtype=np.int64)
    # initial keeps the input type (pp_scan_init)
    assert_same(run(ctx.scan, np.arange(4, dtype=np.int8), initial=1), np.array([1, 2, 4, 7], np.int8))


# ---- the default float sum's accuracy -------------------------------------


def _relerr(x, ref):
    return abs(float(x) - ref) / abs(ref)


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_float_sum_accuracy(backend, rng):
    """float32 and float64: no worse than np.sum (pairwise) on 10^6 values
    of 0.1 and on random data at 10^6 .. 10^7 (relative error, or a
    rounding of the result); float32 and float64 results are NumPy scalars
    of the input type."""
    ctx = context(backend)
    a = np.full(10**6, 0.1, np.float32)
    ref = math.fsum(a.astype(np.float64))
    got = ctx.reduce(a)
    assert got.dtype == np.float32
    assert abs(float(got) - ref) <= abs(float(np.sum(a)) - ref), (got, np.sum(a), ref)
    for n, data in ((10**6, "uniform"), (10**6 + 7, "wide"), (10**7, "uniform"), (3 * 10**6 + 1, "wide")):
        if data == "uniform":
            a = rng.random(n, dtype=np.float32)
        else:
            a = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 21, n))).astype(np.float32)
        ref = float(np.sum(a, dtype=np.longdouble))  # x86-64: 64-bit mantissa, far below float32's errors
        got = ctx.reduce(a)
        assert _relerr(got, ref) <= max(_relerr(np.sum(a), ref), 2**-24), (n, data, got, np.sum(a), ref)
    f = make_data(rng, np.float64, 1000)
    assert run(ctx.reduce, f).dtype == np.float64
    # float64: pp_reduce's compensated sum. cpu (every addition
    # compensated): no worse than np.sum, or one ulp of the result. The
    # GPU backends compensate each thread's (work-item's) share and add
    # those values in a plain tree: within parprim.h's bound, (2 log2 n +
    # 8) u sum|a|, which on cancelling data can be a few ulps of the result
    # where np.sum is exact.
    for n, data in ((10**6, "tenths"), (10**6 + 7, "wide"), (3 * 10**6 + 1, "uniform")):
        if data == "tenths":
            a = np.full(n, 0.1)
        elif data == "uniform":
            a = rng.random(n)
        else:
            a = rng.standard_normal(n) * np.exp2(rng.integers(-20, 21, n))
        ref = math.fsum(a)
        got = ctx.reduce(a)
        assert got.dtype == np.float64
        if backend == "cpu":
            tol = max(_relerr(np.sum(a), ref), 2**-52)
        else:
            tol = (2 * math.log2(n) + 8) * 2**-53 * math.fsum(np.abs(a)) / abs(ref)
        assert _relerr(got, ref) <= tol, (n, data, got, np.sum(a), ref)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fast_sum_on_request(backend, rng):
    """exact=False: the context's algorithm in the input type (the fast sum,
    within the sequential-summation bound); a chosen algorithm is kept."""
    ctx = context(backend)
    a = make_data(rng, np.float32, 100003)
    ref = math.fsum(a.astype(np.float64))
    tol = 2 * (a.size + 1) * float(np.finfo(np.float32).eps) * math.fsum(np.abs(a.astype(np.float64)))
    got = ctx.reduce(a, exact=False)
    assert got.dtype == np.float32 and abs(float(got) - ref) <= tol


# ---- argmin, argmax -------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_argmin_argmax(backend, rng):
    ctx = context(backend)
    for dt in DTYPES:
        for n in SIZES[1:]:
            for kind in ("random", "dups"):
                a = make_data(rng, dt, n, kind)
                for f, npf in ((ctx.argmin, np.argmin), (ctx.argmax, np.argmax)):
                    got = run(f, a)
                    assert isinstance(got, np.integer) and got == npf(a), (dt, n, kind, f.__name__, got, npf(a))
    b = rng.random(1000) < 0.5
    assert ctx.argmax(b) == np.argmax(b) and ctx.argmin(b) == np.argmin(b)
    for dt in (np.float32, np.float64):
        a = make_data(rng, dt, 4099)
        a[[17, 3000]] = nan_patterns(dt)[[1, 0]]  # the first NaN wins, whatever its sign
        assert run(ctx.argmin, a) == np.argmin(a) == 17 and run(ctx.argmax, a) == np.argmax(a) == 17
        z = np.array([1.0, -0.0, 0.0, -0.0, 2.0, 2.0], dt)  # -0.0 == +0.0: the first zero; ties: the first
        assert run(ctx.argmin, z) == np.argmin(z) == 1 and run(ctx.argmax, z) == np.argmax(z) == 4
        z = np.array([-1.0, 0.0, -0.0], dt)
        assert run(ctx.argmax, z) == np.argmax(z) == 1
    for f in (ctx.argmin, ctx.argmax):
        with pytest.raises(ValueError, match="empty sequence"):
            f(np.zeros(0, np.int32))


# ---- count_nonzero, any, all ----------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_nonzero_any_all(backend, rng):
    ctx = context(backend)
    for n in SIZES:
        b = rng.random(n) < 0.4
        assert run(ctx.count_nonzero, b) == np.count_nonzero(b)
        for v in (b, np.ones(n, bool), np.zeros(n, bool)):
            assert run(ctx.any, v) == np.any(v) and run(ctx.all, v) == np.all(v)
            assert isinstance(run(ctx.any, v), np.bool_)
        for dt in DTYPES:
            a = make_data(rng, dt, n, "small")
            if dt.kind == "f" and n:
                a[rng.integers(0, n, max(1, n // 8))] = np.array([np.nan, -0.0, 0.0], dt)[rng.integers(0, 3)]
            got = run(ctx.count_nonzero, a)
            assert type(got) is int and got == np.count_nonzero(a), (dt, n)
            for v in (a, np.ones(n, dt), np.zeros(n, dt)):
                assert run(ctx.any, v) == np.any(v) and run(ctx.all, v) == np.all(v), (dt, n)
    f = np.array([-0.0, 0.0, np.nan], np.float32)
    assert ctx.count_nonzero(f) == 1 and ctx.any(f) and not ctx.all(f)
    assert ctx.any(np.array([-0.0])) == np.False_ and ctx.all(np.array([np.nan, 1.0])) == np.True_
