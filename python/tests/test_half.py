"""The half types (numpy.float16 = PP_F16; bfloat16 = PP_BF16, through
ml_dtypes where it is installed) against exact references computed here.

Every finite f16 is an integer number of units 2^-24, every finite bf16 of
units 2^-133: a sum is exact as a Python int in those units, and round_units
rounds it once to the format (to nearest, ties to even; a magnitude that
rounds to 2^(emax+1) is the infinity, which is IEEE's overflow rule). The
special values follow include/parprim.h: a NaN, or both infinities, give the
quiet NaN; else an infinity gives that infinity; an exact zero is -0.0 only
when every input is -0.0 (an empty sum: +0.0).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import parprim
from conftest import BACKENDS, context
from parprim._selfcheck import FakeCAI, FakeDL

try:
    import ml_dtypes

    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # the bfloat16 cases skip, saying why
    ml_dtypes = BF16 = None

F16 = np.dtype(np.float16)
# (dtype, units exponent k, significand bits p, emax, quiet NaN bits) of each half type
FORMATS = {"float16": (24, 11, 15, 0x7E00), "bfloat16": (133, 8, 127, 0x7FC0)}
HALVES = [pytest.param(F16, id="float16"),
          pytest.param(BF16, id="bfloat16",
                       marks=pytest.mark.skipif(BF16 is None, reason="bfloat16 needs ml_dtypes (not installed)"))]
SIZES = (0, 1, 2, 3, 31, 33, 1025, 4099)


def every_half(test):
    """Runs test(backend, dt, ...) on every backend present and half type."""
    return pytest.mark.parametrize("dt", HALVES)(pytest.mark.parametrize("backend", BACKENDS)(test))


def sbits(x):
    """The bits of a half scalar."""
    return int(np.array([x]).view(np.uint16)[0])


def hbits(a):
    return np.ascontiguousarray(a).view(np.uint16)


def from_bits(b, dt):
    return np.asarray(b, np.uint16).view(dt)


def units(x, dt):
    """The exact value of a finite half x in units 2^-k (a Python int)."""
    k = FORMATS[dt.name][0]
    m, e = math.frexp(float(x))
    return int(math.ldexp(m, 53)) * 2 ** (e - 53 + k) if e - 53 + k >= 0 else int(math.ldexp(m, 53)) >> (53 - e - k)


def round_units(s, dt):
    """The bits of s units (an exact int), rounded once to dt."""
    k, p, emax, _ = FORMATS[dt.name]
    mag = abs(s)
    q = max(0, mag.bit_length() - p)  # the quantum's exponent (subnormals: 0, one unit)
    r, rem = mag >> q, mag & ((1 << q) - 1)
    if q and (2 * rem > 1 << q or (2 * rem == 1 << q and r & 1)):
        r += 1
    v = r << q
    val = math.inf if v >= 1 << (emax + 1 + k) else math.ldexp(v, -k)
    return sbits(np.array([-val if s < 0 else val]).astype(dt)[0])


def ref_prefix_bits(a, dt):
    """The bits of every inclusive prefix sum of a, each rounded once."""
    nan_bits = FORMATS[dt.name][3]
    out = np.empty(a.size, np.uint16)
    s, nan, pinf, ninf, all_negzero = 0, False, False, False, True
    for i, x in enumerate(a.astype(np.float64)):
        if math.isnan(x):
            nan = True
        elif math.isinf(x):
            pinf, ninf = pinf or x > 0, ninf or x < 0
        else:
            s += units(x, dt)
        all_negzero = all_negzero and x == 0 and math.copysign(1, x) < 0
        if nan or (pinf and ninf):
            out[i] = nan_bits
        elif pinf or ninf:
            out[i] = sbits(np.array([math.inf if pinf else -math.inf]).astype(dt)[0])
        elif s == 0:
            out[i] = 0x8000 if all_negzero else 0
        else:
            out[i] = round_units(s, dt)
    return out


def ref_sum_bits(a, dt):
    return int(ref_prefix_bits(a, dt)[-1]) if a.size else 0


def half_data(rng, dt, n, spread=12):
    """n random halves: mixed signs, exponents over 2^(+-spread), a third
    of them small integers (sums with ties and cancellation)."""
    x = rng.standard_normal(n) * np.exp2(rng.integers(-spread, spread, n))
    x[::3] = rng.integers(-8, 9, x[::3].size)
    a = x.astype(dt)
    if n and not np.any(a.astype(np.float64)):
        a[0] = 1
    return a


# ---- sums: reduce and scan ---------------------------------------------------


@every_half
def test_sum_exact(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = half_data(rng, dt, n)
        got = ctx.reduce(a)
        assert got.dtype == dt, f"reduce of {dt} returned {got.dtype}"
        assert sbits(got) == ref_sum_bits(a, dt), f"n={n}: {got} != exact sum"
        assert ctx.reduce(a, exact=True) == got and ctx.reduce(a, dtype=dt) == got
        s = ctx.scan(a)
        assert s.dtype == dt and s.size == n
        ref = ref_prefix_bits(a, dt)
        np.testing.assert_array_equal(hbits(s), ref, err_msg=f"inclusive scan n={n}")
        e = ctx.scan(a, exclusive=True)
        np.testing.assert_array_equal(hbits(e), np.concatenate(([0], ref[:-1]))[:n], err_msg=f"exclusive n={n}")


@every_half
def test_sum_special(backend, dt):
    """Ties, overflow, NaN, infinities and the sign of zero."""
    ctx = context(backend)
    big = float(np.finfo(np.float16).max) if dt == F16 else float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    ulp = big - float(np.nextafter(np.float16(big), np.float16(0))) if dt == F16 else 2.0 ** 120
    cases = [
        [2048, 1], [2048, 1, 1], [2048, 3], [256, 1], [256, 1, 1], [1, 2.0**-11], [1, 2.0**-8],  # ties to even
        [big, ulp / 2], [big, ulp / 2 - ulp / 4], [-big, -ulp / 2], [big, big, -big],  # overflow, and not
        [1, np.nan, 2], [np.inf, 1], [-np.inf, 5], [np.inf, -np.inf], [np.inf, np.nan],
        [-0.0], [-0.0, -0.0], [-0.0, 0.0], [1, -1], [-1, 1, -0.0], [],
    ]
    for c in cases:
        a = np.array(c, np.float64).astype(dt)
        got = ctx.reduce(a)
        assert sbits(got) == ref_sum_bits(a, dt), f"sum of {c}: {got}"
        np.testing.assert_array_equal(hbits(ctx.scan(a)), ref_prefix_bits(a, dt), err_msg=f"scan of {c}")


def test_sum_beats_rounding_each_step():
    """The exact sum where float16 arithmetic loses it: 4096 ones and halves."""
    a = np.array([2048.0] + [0.5] * 4096, np.float16)  # each 2048 + 0.5 rounds back to 2048 in float16
    assert parprim.reduce(a) == np.float16(4096) and np.add.reduce(a, dtype=np.float64) == 4096.0


# ---- dtype= and NumPy's result types ------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_dtype_rules(backend):
    ctx = context(backend)
    a = np.arange(10, dtype=np.float16)
    assert type(ctx.reduce(a)) is np.float16 and ctx.reduce(a) == 45 and np.sum(a).dtype == np.float16
    assert ctx.scan(a).dtype == np.cumsum(a).dtype == np.float16
    for op in ("min", "max"):
        assert type(ctx.reduce(a, op)) is np.float16
    # half to float32 / float64 (pp_reduce_to, pp_scan_to: the widened values folded in the wider type), as
    # NumPy's dtype= gives; never narrower
    got = ctx.reduce(a, dtype=np.float32)
    assert type(got) is np.float32 and got == np.sum(a, dtype=np.float32) == 45
    np.testing.assert_array_equal(ctx.scan(a, dtype=np.float64), np.cumsum(a, dtype=np.float64))
    assert ctx.scan(a, dtype=np.float64).dtype == np.float64
    with pytest.raises(parprim.Error):
        ctx.reduce(a.astype(np.float32), dtype=np.float16)
    with pytest.raises(parprim.Error, match="f16"):
        ctx.reduce(a, dtype=np.int32)


# ---- min and max -------------------------------------------------------------


def ref_minmax_bits(a, dt, op):
    f = a.astype(np.float64)
    if np.isnan(f).any():
        return FORMATS[dt.name][3]
    if a.size == 0:
        return sbits(np.array([np.inf if op == "min" else -np.inf]).astype(dt)[0])
    v = f.min() if op == "min" else f.max()
    if v == 0:  # -0.0 below +0.0
        neg = np.signbit(f[f == 0])
        v = -0.0 if (neg.any() if op == "min" else neg.all()) else 0.0
    return sbits(np.array([v]).astype(dt)[0])


@every_half
def test_min_max(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = half_data(rng, dt, n)
        if n > 2:
            a[rng.integers(n)] = -0.0
            a[rng.integers(n)] = 0.0
        for op in ("min", "max"):
            got = ctx.reduce(a, op)
            assert sbits(got) == ref_minmax_bits(a, dt, op), f"{op} n={n}"
    for c in ([0.0, -0.0], [-0.0, 0.0], [1, np.nan, -np.inf], [np.inf, -np.inf]):
        a = np.array(c).astype(dt)
        for op in ("min", "max"):
            assert sbits(ctx.reduce(a, op)) == ref_minmax_bits(a, dt, op), f"{op} of {c}"


# ---- sort --------------------------------------------------------------------


def ref_sort_bits(a, descending):
    """Stable sort of the bits by value (-0.0 before +0.0), NaNs last in input
    order: NumPy's order, exactly."""
    b = hbits(a).astype(np.int64)
    key = np.where(b & 0x8000, 0x7FFF - (b & 0x7FFF), b | 0x8000)
    if descending:
        key = -key
    key = np.where(np.isnan(a.astype(np.float32)), 1 << 20, key)
    return b[np.argsort(key, kind="stable")].astype(np.uint16)


@every_half
def test_sort(backend, dt, rng):
    ctx = context(backend)
    for n in SIZES:
        a = half_data(rng, dt, n, spread=4)
        if n > 7:
            a[:7] = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.0, -np.nan]).astype(dt)
        try:
            got = ctx.sort(a)
        except parprim.Unsupported as e:  # a backend without half sorts says so (include/parprim.h)
            assert backend != "cpu" and ("f16" in str(e) or "bf16" in str(e)), str(e)
            continue
        assert got.dtype == dt
        np.testing.assert_array_equal(hbits(got), ref_sort_bits(a, False), err_msg=f"sort n={n}")
        if dt == F16:  # NumPy's own order: NaNs last (it ranks -0.0 and +0.0 equal)
            np.testing.assert_array_equal(got.astype(np.float64), np.sort(a).astype(np.float64))
        np.testing.assert_array_equal(hbits(ctx.sort(a, descending=True)), ref_sort_bits(a, True),
                                      err_msg=f"descending n={n}")


# ---- what the C library does not take yet -----------------------------------


@every_half
def test_unsupported_calls_raise(backend, dt):
    """Calls the C library refuses for a half type raise its error, with its
    message naming the type: nothing falls back to another type."""
    ctx = context(backend)
    a = np.arange(8).astype(dt)
    keys = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    name = "f16" if dt == F16 else "bf16"
    for call in (lambda: ctx.reduce(a, "prod"), lambda: ctx.scan(a, "prod"),
                 lambda: ctx.segmented_reduce(a, [0, 3, 8], "prod"), lambda: ctx.segmented_scan(a, [0, 3, 8], "prod"),
                 lambda: ctx.reduce_by_key(keys, a, "max")):
        with pytest.raises(parprim.Unsupported, match=name):
            call()


@every_half
def test_half_keys_runs(backend, dt, rng):
    """Half keys in unique (counts, inverse), unique_consecutive and
    reduce_by_key: NumPy's answers (float16), the values' (bfloat16)."""
    ctx = context(backend)
    a = np.array([1, 1, 2, -0.0, 0.0, 3, 3, 3, 1, np.inf, np.inf]).astype(dt)
    vals, counts = ctx.unique_consecutive(a, return_counts=True)
    assert list(vals.astype(np.float64)) == [1, 2, 0, 3, 1, np.inf] and list(counts) == [2, 1, 2, 3, 1, 2]
    assert sbits(vals[2]) == sbits(np.array([-0.0]).astype(dt)[0])  # a run's first key
    u, inv, cnt = ctx.unique(a, return_inverse=True, return_counts=True)
    ref = np.unique(a.astype(np.float64), return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.astype(np.float64), ref[0])
    np.testing.assert_array_equal(np.asarray(inv).ravel(), np.asarray(ref[1]).ravel())
    np.testing.assert_array_equal(cnt, ref[2])
    keys = half_data(rng, dt, 500, spread=2)
    keys.sort()
    v = rng.integers(0, 100, 500).astype(np.int64)
    k_out, v_out = ctx.reduce_by_key(keys, v)
    starts = np.flatnonzero(np.r_[True, keys[1:].astype(np.float64) != keys[:-1].astype(np.float64)])
    np.testing.assert_array_equal(hbits(k_out), hbits(keys[starts]))
    np.testing.assert_array_equal(v_out, np.add.reduceat(v, starts))


@every_half
def test_sum_by_key(backend, dt, rng):
    """reduce_by_key of half values with "sum": each run's exact sum rounded
    once."""
    ctx = context(backend)
    keys = np.repeat(np.arange(40), rng.integers(1, 30, 40))
    a = half_data(rng, dt, keys.size)
    k_out, got = ctx.reduce_by_key(keys, a)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = np.r_[starts[1:], keys.size]
    np.testing.assert_array_equal(k_out, keys[starts])
    np.testing.assert_array_equal(hbits(got), [ref_sum_bits(a[b:e], dt) for b, e in zip(starts, ends)])


@every_half
def test_scan_initial_sum(backend, dt, rng):
    """scan(initial=) with "sum": the exact sums of initial and each prefix,
    rounded once."""
    ctx = context(backend)
    a = half_data(rng, dt, 300)
    init = np.array([1.5]).astype(dt)
    got = ctx.scan(a, initial=1.5)
    want = ref_prefix_bits(np.concatenate((init, a)), dt)[1:]
    np.testing.assert_array_equal(hbits(got), want)


@every_half
def test_segmented_sums(backend, dt, rng):
    """Segmented sums and scans: each segment's exact sums rounded once."""
    ctx = context(backend)
    a = half_data(rng, dt, 1000)
    offsets = np.array([0, 0, 7, 400, 401, 1000])
    got = ctx.segmented_reduce(a, offsets, "sum")
    want = [ref_sum_bits(a[b:e], dt) for b, e in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(hbits(got), want)
    scan = ctx.segmented_scan(a, offsets, "sum")
    parts = [ref_prefix_bits(a[b:e], dt) for b, e in zip(offsets[:-1], offsets[1:]) if e > b]
    np.testing.assert_array_equal(hbits(scan), np.concatenate(parts))


# ---- other array kinds ---------------------------------------------------------


def test_device_path_f16(rng):
    """float16 through the CUDA Array Interface and DLPack (the GPU-array path,
    run on a cpu context over host memory)."""
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        a = half_data(rng, F16, 1001)
        for wrap in (FakeCAI, FakeDL):
            got = ctx.reduce(wrap(a))
            assert got.dtype == F16 and sbits(got) == ref_sum_bits(a, F16)
            s = np.asarray(ctx.scan(wrap(a)))
            assert s.dtype == F16
            np.testing.assert_array_equal(hbits(s), ref_prefix_bits(a, F16))
    finally:
        ctx.close()


@pytest.mark.skipif(BF16 is None, reason="bfloat16 needs ml_dtypes (not installed)")
def test_bf16_seventy_thousand_ones():
    """70000 bf16 ones: 70144, the bf16 nearest to 70000 (not 256)."""
    got = parprim.reduce(np.ones(70000, BF16))
    assert got.dtype == BF16 and float(got) == 70144.0


def test_torch_half():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    for tdt, k in ((torch.float16, F16), (torch.bfloat16, BF16)):
        if k is None:
            continue
        t = torch.arange(100, dtype=tdt)
        want = float(np.float32(4950.0).astype(k))  # 4950 rounded once: 4952 (f16, a tie to even), 4960 (bf16)
        assert float(parprim.reduce(t)) == want
        s = parprim.scan(t)
        assert isinstance(s, torch.Tensor) and s.dtype == tdt and float(s[-1]) == want
