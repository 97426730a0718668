"""argsort, unique (np.unique's results), unique_consecutive's neighbour,
run_length_encode, the segmented forms (reduce, scan, sort) and the by-key
forms (reduce_by_key, scan_by_key): every backend and type against NumPy
references written as loops over the segments and runs (np.add.reduceat's
empty segments differ from the C call's identities). A call that a backend
does not have yet (PP_ERROR_UNSUPPORTED, as include/parprim.h allows) is
skipped with the reason."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parprim
from parprim._selfcheck import FakeCAI
from conftest import (BACKENDS, BITWISE, DTYPES, OPS, assert_bits, assert_same, check_reduce,
                      check_scan, context, examples, identity, make_data, nan_patterns, ref_sort_order, run)

SIZES = (0, 1, 2, 33, 1025, 10007)


def _ops(dtype):
    return [op for op in OPS if not (op in BITWISE and dtype.kind == "f")]


def _kind(dtype, op):
    if dtype.kind == "f":
        return {"sum": "random", "prod": "near1"}.get(op, "special")
    return "odd" if op == "prod" else "random"


def make_offsets(rng, n, layout):
    """nseg + 1 uint64 offsets over n elements: "cover" (random cuts from 0
    to n, empty segments among them), "gaps" (not starting at 0 nor ending
    at n), "one" (one segment of everything), "skewed" (one huge segment
    among tiny and empty ones), "none" (nseg = 0)."""
    if layout == "none":
        return np.zeros(1, np.uint64)
    if layout == "one":
        return np.array([0, n], np.uint64)
    k = int(rng.integers(1, 40))
    cuts = np.sort(rng.integers(0, n + 1, k))
    if layout == "cover":
        off = np.concatenate([[0], cuts, [n]])
    elif layout == "gaps":
        off = cuts
    else:  # skewed
        big = np.sort(rng.integers(0, n + 1, 2))
        tiny = np.arange(big[1], min(n, big[1] + 12) + 1)
        off = np.concatenate([np.arange(0, big[0] + 1, max(1, big[0] // 8 + 1)), [big[0]], tiny])
        off = np.sort(off)
    return off.astype(np.uint64)


LAYOUTS = ("cover", "gaps", "one", "skewed", "none")


def check_in_place(fn, a, off, exp):
    """fn(b, off, out=b) on a copy b of a returns b, holding exp."""
    b = a.copy()
    assert fn(b, off, out=b) is b
    assert_bits(b, exp, "in place")


def segments(off):
    return [(int(off[s]), int(off[s + 1])) for s in range(off.size - 1)]


def runs(a):
    """(start, end) of each run of equal neighbours by C's == (NaN never
    equal, -0.0 == +0.0)."""
    if a.size == 0:
        return []
    new = np.ones(a.size, bool)
    new[1:] = a[1:] != a[:-1]
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], a.size)
    return list(zip(starts.tolist(), ends.tolist()))


def run_data(rng, dtype, n):
    """Data made of runs of equal values (NaN and +-0.0 among floats)."""
    if n == 0:
        return np.zeros(0, dtype)
    vals = make_data(rng, dtype, n, "special" if dtype.kind == "f" else "dups")
    return np.repeat(vals, rng.geometric(0.3, n))[:n]


# ---- argsort ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_argsort(backend, dtype, rng):
    ctx = context(backend)
    for n in SIZES:
        for kind in ("random", "dups") + (("special",) if dtype.kind == "f" else ()):
            a = make_data(rng, dtype, n, kind)
            keep = a.copy()
            for desc, nan_last in ((False, True), (True, True), (True, False)):
                got = run(ctx.argsort, a, descending=desc, nan_last=nan_last)
                assert isinstance(got, np.ndarray) and got.dtype == np.int64 and got.shape == (n,)
                assert_same(got, ref_sort_order(a, desc, nan_last).astype(np.int64), f"n={n} {kind} desc={desc}")
            assert_bits(a, keep, "argsort changed its input")
            if kind != "special":  # no -0.0 next to +0.0: NumPy's stable order is parprim's
                assert_same(ctx.argsort(a), np.argsort(a, kind="stable"), f"np.argsort n={n} {kind}")


# ---- unique ---------------------------------------------------------------------


def check_unique(ctx, a, equal_nan=True, msg=""):
    """Every combination of unique's flags against np.unique."""
    exp = np.unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    for flags in itertools.product((False, True), repeat=3):
        got = run(ctx.unique, a, *flags, equal_nan=equal_nan)
        want = [exp[0]] + [e for e, f in zip(exp[1:], flags) if f]
        got = got if any(flags) else (got,)
        assert len(got) == len(want), f"{len(got)} results for flags {flags} {msg}"
        # bit for bit: the zero's sign is that of a's first zero, the NaN a's first NaN (NumPy's stable path)
        assert_bits(got[0], want[0], f"values for flags {flags} {msg}")
        for g, w, what in zip(got[1:], want[1:], [n for n, f in zip(("index", "inverse", "counts"), flags) if f]):
            assert g.dtype == np.int64 and g.shape == w.shape, f"{what}: {g.dtype}{g.shape} vs {w.dtype}{w.shape} {msg}"
            assert np.array_equal(g, w), f"{what} differs {msg}: {g[:8]} vs {w[:8]}"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_unique(backend, dtype, rng):
    ctx = context(backend)
    for n in SIZES:
        for kind in ("random", "dups", "equal") + (("special",) if dtype.kind == "f" else ()):
            a = make_data(rng, dtype, n, kind)
            keep = a.copy()
            check_unique(ctx, a, msg=f"n={n} {kind}")
            if dtype.kind == "f":
                check_unique(ctx, a, equal_nan=False, msg=f"n={n} {kind} equal_nan=False")
            assert_bits(a, keep, "unique changed its input")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unique_bool(backend, rng):
    ctx = context(backend)
    for n in (0, 1, 7, 1000):
        for p in (0.0, 0.3, 1.0):
            a = rng.random(n) < p
            check_unique(ctx, a, msg=f"bool n={n} p={p}")
    a = rng.random((3, 5)) < 0.5
    check_unique(ctx, a, msg="bool 2-D")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unique_zeros_nans_and_shape(backend, rng):
    """-0.0 and +0.0 are one value, of the sign of a's first zero, whose
    index is that zero's; NaNs of every payload are one value at the end;
    2-D and 0-d inputs are taken in C order, the inverse shaped as NumPy
    shapes it; a nested list as NumPy takes it."""
    ctx = context(backend)
    for dtype in (np.float32, np.float64):
        for first in (0.0, -0.0):
            a = np.array([1.0, first, np.nan, -0.0, 2.0, np.nan, 0.0, -0.0, 1.0], dtype)
            a[5] = nan_patterns(np.dtype(dtype))[1]
            check_unique(ctx, a, msg=f"zeros and NaNs, first zero {first}")
            check_unique(ctx, a, equal_nan=False, msg=f"zeros and NaNs, first zero {first}, equal_nan=False")
            # many zeros of both signs in random order, the first one of each sign
            b = make_data(rng, dtype, 3001, "zeros")
            b[rng.integers(0, 3001, 50)] = rng.integers(-2, 3, 50)
            b[0] = first
            check_unique(ctx, b, msg=f"zeros of both signs, first {first}")
    b = make_data(rng, np.int16, 600, "dups").reshape(20, 30)
    check_unique(ctx, b, msg="2-D")
    check_unique(ctx, make_data(rng, np.float32, 600, "special").reshape(3, 20, 10), msg="3-D")
    check_unique(ctx, np.float64(2.5), msg="0-d")
    check_unique(ctx, np.zeros((0, 3), np.uint32), msg="empty 2-D")
    v, inv = ctx.unique([[3, 1], [1, 2]], return_inverse=True)
    ev, einv = np.unique([[3, 1], [1, 2]], return_inverse=True)
    assert_same(v, ev, "nested list")
    assert_same(inv, einv, "nested list inverse")


# ---- run_length_encode, unique_consecutive ------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_run_length_encode(backend, dtype, rng):
    ctx = context(backend)
    for n in SIZES:
        for a in (run_data(rng, dtype, n), make_data(rng, dtype, n), make_data(rng, dtype, n, "equal")):
            r = runs(a)
            vals, counts = run(ctx.run_length_encode, a)
            assert_bits(vals, a[[s for s, _ in r]].reshape(-1) if r else a[:0], f"values n={n}")
            assert_same(counts, np.array([e - s for s, e in r], np.int64), f"counts n={n}")
            check_unique_consecutive(ctx, a, vals, counts, f"n={n}")


def check_unique_consecutive(ctx, a, vals, counts, msg):
    """unique_consecutive with each combination of its flags against the
    runs' values and counts (and their inverse: the run of each element)."""
    inverse = np.repeat(np.arange(counts.size, dtype=np.int64), counts).reshape(np.shape(a))
    for ret_inv, ret_cnt in itertools.product((False, True), repeat=2):
        got = ctx.unique_consecutive(a, return_inverse=ret_inv, return_counts=ret_cnt)
        got = got if ret_inv or ret_cnt else (got,)
        want = [vals] + [inverse] * ret_inv + [counts] * ret_cnt
        assert len(got) == len(want), f"{len(got)} results for {ret_inv, ret_cnt} {msg}"
        assert_bits(got[0], vals, f"unique_consecutive values {msg}")
        for g, w in zip(got[1:], want[1:]):
            assert_same(g, w, f"unique_consecutive inverse={ret_inv} counts={ret_cnt} {msg}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unique_consecutive_shapes(backend, rng):
    """unique_consecutive takes a 2-D array in C order, its inverse of a's
    shape (torch.unique_consecutive's); NaNs are never equal, -0.0 == +0.0
    (the run's first kept)."""
    ctx = context(backend)
    a = run_data(rng, np.dtype(np.int32), 600).reshape(30, 20)
    r = runs(a.reshape(-1))
    check_unique_consecutive(ctx, a, a.reshape(-1)[[s for s, _ in r]],
                             np.array([e - s for s, e in r], np.int64), "2-D")
    f = np.array([np.nan, np.nan, 0.0, -0.0, 0.0, 1.0, 1.0, -0.0], np.float32)
    check_unique_consecutive(ctx, f, np.array([np.nan, np.nan, 0.0, 1.0, -0.0], np.float32),
                             np.array([1, 1, 3, 2, 1], np.int64), "NaNs and zeros")


# ---- segmented reduce, scan, sort ------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_segmented_reduce_and_scan(backend, dtype, rng):
    ctx = context(backend)
    for op in _ops(dtype):
        for n in (0, 1, 1025, 10007):
            a = make_data(rng, dtype, n, _kind(dtype, op))
            for i, layout in enumerate(LAYOUTS):
                off = make_offsets(rng, n, layout)
                excl = bool(i % 2)
                red = run(ctx.segmented_reduce, a, off, op)
                assert red.dtype == dtype and red.shape == (off.size - 1,), f"{red.dtype}{red.shape}"
                got = run(ctx.segmented_scan, a, off, op, exclusive=excl)
                inside = np.zeros(n, bool)
                for s, (lo, hi) in enumerate(segments(off)):
                    msg = f"{op} n={n} {layout} segment {s} [{lo}, {hi})"
                    check_reduce(a[lo:hi], op, red[s], msg)
                    check_scan(a[lo:hi], op, excl, got[lo:hi], f"{msg} excl={excl}")
                    inside[lo:hi] = True
                assert_bits(got[~inside], a[~inside], "elements outside every segment keep a's values")


@pytest.mark.parametrize("backend", BACKENDS)
def test_segmented_scan_in_place_and_offsets_types(backend, rng):
    """out=a scans in place; offsets of every integer type (and a list) give
    the same result; uint64 offsets are used as they are."""
    ctx = context(backend)
    a = make_data(rng, np.int32, 5000)
    off = make_offsets(rng, 5000, "gaps")
    exp = run(ctx.segmented_scan, a, off)
    for t in ("uint64", "int64", "int32", "uint16"):
        if off.max() <= np.iinfo(t).max:
            assert_bits(ctx.segmented_scan(a, off.astype(t)), exp, f"offsets {t}")
    assert_bits(ctx.segmented_scan(a, off.tolist()), exp, "offsets as a list")
    assert_bits(ctx.segmented_reduce(a, off.astype(np.int64)), ctx.segmented_reduce(a, off), "int64 offsets")
    check_in_place(ctx.segmented_scan, a, off, exp)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_segmented_sort(backend, dtype, rng):
    ctx = context(backend)
    for n in (0, 1, 1025, 10007):
        a = make_data(rng, dtype, n, "special" if dtype.kind == "f" else "dups")
        keep = a.copy()
        for i, layout in enumerate(LAYOUTS):
            off = make_offsets(rng, n, layout)
            desc, nan_last = (False, True) if i % 3 == 0 else (True, i % 3 == 1)
            got = run(ctx.segmented_sort, a, off, descending=desc, nan_last=nan_last)
            vals = np.arange(n, dtype=np.int64)
            k, v = run(ctx.segmented_sort_pairs, a, vals, off, descending=desc, nan_last=nan_last)
            exp = np.arange(n)
            for lo, hi in segments(off):
                exp[lo:hi] = lo + ref_sort_order(a[lo:hi], desc, nan_last)
            msg = f"n={n} {layout} desc={desc} nan_last={nan_last}"
            assert_bits(got, a[exp], msg)
            assert_bits(k, a[exp], "pairs keys " + msg)
            assert_same(v, exp.astype(np.int64), "pairs values (stable) " + msg)
        assert_bits(a, keep, "segmented_sort changed its input")
    b = make_data(rng, dtype, 1000)
    off = make_offsets(rng, 1000, "cover")
    check_in_place(ctx.segmented_sort, b, off, ctx.segmented_sort(b, off))


# ---- by key ---------------------------------------------------------------------


@pytest.mark.parametrize("kdtype", DTYPES, ids=str)
@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_and_scan_by_key(backend, kdtype, rng):
    ctx = context(backend)
    for vdtype in (np.dtype(np.int32), np.dtype(np.float64), np.dtype(np.uint8)):
        for op in _ops(vdtype):
            for n in (0, 1, 1025, 10007):
                keys = run_data(rng, kdtype, n)
                vals = make_data(rng, vdtype, n, _kind(vdtype, op))
                r = runs(keys)
                ko, vo = run(ctx.reduce_by_key, keys, vals, op)
                msg = f"{kdtype} keys, {vdtype} values, {op}, n={n}"
                assert_bits(ko, keys[[s for s, _ in r]].reshape(-1) if r else keys[:0], "keys " + msg)
                assert vo.dtype == vdtype and vo.shape == (len(r),), msg
                for j, (lo, hi) in enumerate(r):
                    check_reduce(vals[lo:hi], op, vo[j], f"run {j} " + msg)
                excl = op in ("sum", "max")
                got = run(ctx.scan_by_key, keys, vals, op, exclusive=excl)
                assert got.dtype == vdtype and got.shape == (n,), msg
                for lo, hi in r:
                    check_scan(vals[lo:hi], op, excl, got[lo:hi], f"scan_by_key [{lo}, {hi}) " + msg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_by_key_group_by(backend, rng):
    """The group-by the by-key forms exist for: sort_pairs, then
    reduce_by_key, equals np.unique + np.add.at; keys may be values too."""
    ctx = context(backend)
    keys = rng.integers(0, 50, 20000).astype(np.int64)
    vals = rng.integers(-1000, 1000, 20000).astype(np.int64)
    k, v = ctx.sort_pairs(keys, vals)
    uk, sums = run(ctx.reduce_by_key, k, v)
    exp_keys = np.unique(keys)
    exp = np.zeros(exp_keys.size, np.int64)
    np.add.at(exp, np.searchsorted(exp_keys, keys), vals)
    assert_same(uk, exp_keys)
    assert_same(sums, exp)
    uk2, s2 = ctx.reduce_by_key(k, k)  # the same array as keys and values
    assert_same(s2, exp_keys * np.unique(keys, return_counts=True)[1])
    out = v.copy()
    assert ctx.scan_by_key(k, out, out=out) is out


# ---- the device path (CUDA Array Interface) on a cpu context -------------------


def test_device_path(rng):
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        a = make_data(rng, np.float32, 4099, "special")
        off = make_offsets(rng, a.size, "gaps")
        host = context("cpu")
        assert_same(np.asarray(ctx.argsort(FakeCAI(a))), host.argsort(a))
        assert_bits(np.asarray(ctx.segmented_reduce(FakeCAI(a), FakeCAI(off), "max")),
                    host.segmented_reduce(a, off, "max"))
        assert_bits(np.asarray(ctx.segmented_scan(FakeCAI(a), FakeCAI(off.astype(np.int64)), "min")),
                    host.segmented_scan(a, off, "min"))
        with pytest.raises(parprim.InvalidArgument):
            ctx.segmented_reduce(FakeCAI(a), FakeCAI(off.astype(np.int32)))  # a foreign library's 32-bit offsets
        i = rng.integers(0, 100, 3000).astype(np.int32)
        assert_bits(np.asarray(ctx.unique(FakeCAI(i))), np.unique(i))
        vals, counts = run(ctx.run_length_encode, FakeCAI(i))
        assert_bits(np.asarray(vals), host.run_length_encode(i)[0])
    finally:
        ctx.close()


# ---- errors ----------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_offsets(backend):
    """Decreasing offsets, offsets past n, negative, empty or non-integer
    offsets: InvalidArgument (a ValueError), nothing written. On a GPU
    backend NumPy offsets are checked before the upload."""
    ctx = context(backend)
    a = np.arange(10, dtype=np.int32)
    out = a.copy()
    for off in ([0, 5, 3, 10], [0, 11], [0, -1, 5], [], np.array([0.0, 5.0]), np.array([True, False])):
        for fn in (lambda o: ctx.segmented_reduce(a, o), lambda o: ctx.segmented_scan(a, o, out=out),
                   lambda o: ctx.segmented_sort(a, o)):
            try:
                fn(off)
            except parprim.Unsupported:
                continue  # a backend without the call: its check is the C call's
            except parprim.InvalidArgument as e:
                assert isinstance(e, ValueError) and str(e), off
                continue
            pytest.fail(f"offsets {off!r} accepted")
    assert_bits(out, a, "a refused call wrote out")


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arguments(backend):
    ctx = context(backend)
    a = np.arange(10, dtype=np.int32)
    for bad in (np.zeros(4, np.longdouble), np.zeros(4, bool), np.zeros(4, np.complex64)):
        for fn in (ctx.argsort, ctx.unique, ctx.unique_consecutive, ctx.run_length_encode,
                   lambda x: ctx.segmented_reduce(x, [0, 4]), lambda x: ctx.segmented_scan(x, [0, 4]),
                   lambda x: ctx.reduce_by_key(x, np.ones(4, np.int32)),
                   lambda x: ctx.reduce_by_key(np.arange(4), x), lambda x: ctx.scan_by_key(np.arange(4), x)):
            if fn == ctx.unique and bad.dtype == bool:
                continue  # unique takes bool, as np.unique does (test_unique_bool)
            with pytest.raises(parprim.InvalidArgument):
                fn(bad)
    with pytest.raises(parprim.InvalidArgument):
        ctx.reduce_by_key(a, np.ones(9, np.int32))  # values of another length
    with pytest.raises(parprim.InvalidArgument):
        ctx.scan_by_key(a, np.ones(11, np.int32))
    with pytest.raises(parprim.InvalidArgument):
        ctx.segmented_reduce(a, [0, 10], op="avg")
    with pytest.raises(parprim.Unsupported):
        ctx.segmented_reduce(a.astype(np.float32), [0, 10], op="xor")
    with pytest.raises(parprim.InvalidArgument):
        ctx.segmented_scan(a, [0, 10], out=np.zeros(9, np.int32))


# ---- properties --------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_properties(backend):
    ctx = context(backend)

    @settings(max_examples=examples(backend, 60, 15))
    @given(st.lists(st.integers(-3, 3), max_size=200), st.lists(st.integers(0, 200), max_size=12),
           st.sampled_from(["int8", "uint32", "int64", "float32"]))
    def prop(xs, cuts, dt):
        a = np.array(xs).astype(dt)
        n = a.size
        off = np.sort(np.array([c for c in cuts if c <= n] + [0, n], np.uint64))
        got = ctx.segmented_reduce(a, off, "sum")
        exp = np.array([a[lo:hi].sum(dtype=a.dtype) if hi > lo else identity(a.dtype, "sum")
                        for lo, hi in segments(off)], a.dtype)
        assert np.array_equal(got, exp)
        got = ctx.segmented_scan(a, off, "max")
        for lo, hi in segments(off):
            assert np.array_equal(got[lo:hi], np.maximum.accumulate(a[lo:hi]))
        assert_same(ctx.argsort(a), np.argsort(a, kind="stable"))
        assert np.array_equal(ctx.unique(a), np.unique(a))

    prop()
