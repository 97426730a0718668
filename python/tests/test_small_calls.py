"""The short path of small calls on cpu (python/src/direct.c): plain
contiguous NumPy arrays go straight to C with the output made in the
binding; everything else takes the general path. Both must give NumPy's
answers: sizes around the binding's and the library's thresholds (the
insertion sort's 48 keys, the 4096 elements below which the GIL is kept),
inputs the short path refuses (strided, bool, float unique), a closed
context, and many threads on one context."""
import threading

import numpy as np
import pytest

import parprim

SIZES = (0, 1, 5, 47, 48, 49, 100, 1000, 4095, 4096, 4097, 10000)


@pytest.fixture
def ctx():
    c = parprim.Context("cpu")
    yield c
    c.close()


@pytest.mark.parametrize("dt", [np.uint32, np.int64, np.float32, np.float64, np.int8])
def test_small_calls_against_numpy(ctx, rng, dt):
    for n in SIZES:
        if np.dtype(dt).kind == "f":
            a = (rng.standard_normal(n) * 100).astype(dt)
        else:
            info = np.iinfo(dt)
            a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        np.testing.assert_array_equal(ctx.sort(a), np.sort(a, kind="stable"))
        np.testing.assert_array_equal(ctx.argsort(a), np.argsort(a, kind="stable"))
        if np.dtype(dt).kind != "f":
            np.testing.assert_array_equal(ctx.scan(a, dtype=a.dtype), np.cumsum(a, dtype=a.dtype))
            s = np.sort(a)
            q = a[: max(1, n // 3)] if n else a
            np.testing.assert_array_equal(ctx.searchsorted(s, q), np.searchsorted(s, q))
        flags = rng.random(n) < 0.5
        np.testing.assert_array_equal(ctx.select_flagged(a, flags), a[flags])
        vals = ctx.unique(a)
        np.testing.assert_array_equal(vals, np.unique(a))
        if n:
            lo, hi = a.min(), a.max()
            if hi > lo:
                got = ctx.histogram_even(a, 7, lo, hi)
                edges = np.linspace(float(lo), float(hi), 8)
                want = np.array([np.count_nonzero((a >= edges[i]) & (a < edges[i + 1])) for i in range(7)])
                # the C call's exact binning against float edges: equal where no sample sits on an edge
                if not np.isin(a.astype(np.float64), edges).any():
                    np.testing.assert_array_equal(got, want)


def test_refused_inputs_take_the_general_path(ctx, rng):
    a = rng.integers(0, 1000, 301, dtype=np.int32)
    strided = a[::2]
    np.testing.assert_array_equal(ctx.sort(strided), np.sort(strided))
    np.testing.assert_array_equal(ctx.scan(strided, dtype=np.int32), np.cumsum(strided, dtype=np.int32))
    b = rng.random(50) < 0.3
    np.testing.assert_array_equal(ctx.unique(b), np.unique(b))
    f = np.array([3.0, np.nan, -0.0, 0.0, 1.0, np.nan], np.float64)
    np.testing.assert_array_equal(ctx.unique(f), np.unique(f))
    # results own their memory (no view of an input or of a larger buffer)
    r = ctx.sort(a[:10])
    assert r.base is None or r.base.nbytes == r.nbytes


def test_closed_context_raises(rng):
    c = parprim.Context("cpu")
    c.close()
    a = rng.integers(0, 9, 20, dtype=np.uint32)
    for call in (lambda: c.sort(a), lambda: c.argsort(a), lambda: c.scan(a), lambda: c.unique(a)):
        with pytest.raises(parprim.Error):
            call()


def test_threads_share_one_context(ctx):
    """Small calls keep the GIL when the context's lock is free, and wait
    for it (releasing the GIL) when it is not: many threads on one context
    get their own right answers."""
    errors = []

    def work(seed):
        r = np.random.default_rng(seed)
        try:
            for _ in range(200):
                n = int(r.integers(0, 6000))
                a = r.integers(0, 1 << 30, n, dtype=np.uint32)
                if not np.array_equal(ctx.sort(a), np.sort(a)):
                    errors.append(("sort", n))
                if not np.array_equal(ctx.scan(a, dtype=np.uint32), np.cumsum(a, dtype=np.uint32)):
                    errors.append(("scan", n))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_float_searchsorted_short_and_general(ctx, rng, dt):
    """Float queries without zeros take the short path, with a zero the
    general one (which gives zeros their sign): NumPy's answers either way,
    for a holding zeros of both signs and NaNs."""
    for n in (1, 10, 100, 5000):
        a = (rng.standard_normal(n) * 10).astype(dt)
        a[rng.random(n) < 0.2] = 0.0
        a[rng.random(n) < 0.1] = -0.0
        a[rng.random(n) < 0.05] = np.nan
        s = np.sort(a)
        q = np.concatenate([(rng.standard_normal(7) * 10).astype(dt), np.array([np.nan, np.inf, -np.inf], dt)])
        for queries in (q, np.concatenate([q, np.array([0.0, -0.0], dt)])):
            for side in ("left", "right"):
                np.testing.assert_array_equal(ctx.searchsorted(s, queries, side), np.searchsorted(s, queries, side))
