"""Shared parametrization, contexts, data and NumPy oracles of the parprim tests.

The tests import the helpers of this file (``from conftest import ...``):
pytest's default import mode puts python/tests on sys.path, and scripts/
python-check runs the suite that way.

Backends are the ones ``parprim.info()`` reports present; algorithms are the
ones it lists per backend and primitive. Data are fresh random numbers on
every run: the base seed is printed in the header of the run and read from
PARPRIM_TEST_SEED where that is set, so that a failure can be replayed.
On opencl (PoCL compiles a kernel per type and operator the first time a
context needs it), the algorithms other than "auto" run a sample of the
type x operator matrix; PARPRIM_TEST_FULL=1 runs all of it everywhere.
PARPRIM_TEST_EXAMPLES=k multiplies the Hypothesis examples per property.

One file past 600 lines: pytest shares fixtures through conftest.py alone.
"""

from __future__ import annotations

import math
import os
import secrets
import zlib
from pathlib import Path

import numpy as np
import pytest

import parprim

# --------------------------------------------------------------------------
# What this machine has
# --------------------------------------------------------------------------

INFO = parprim.info()
BACKENDS = [b for b in ("cpu", "opencl", "cuda") if INFO["backends"].get(b, {}).get("present")]
PRIMITIVES = ("reduce", "scan", "histogram", "select", "sort")

INT_DTYPES = [np.dtype(t) for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")]
FLOAT_DTYPES = [np.dtype("float32"), np.dtype("float64")]
DTYPES = INT_DTYPES + FLOAT_DTYPES
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
BITWISE = ("and", "or", "xor")
CMPS = ("<", "<=", ">", ">=", "==", "!=")
SIZES = (0, 1, 2, 31, 32, 33, 1023, 1025, 65537, 100003)

FULL = os.environ.get("PARPRIM_TEST_FULL", "") not in ("", "0")
# The (type, operator) pairs a non-default algorithm runs on opencl unless
# PARPRIM_TEST_FULL is set: every type width, signed and unsigned, every op.
OPENCL_SAMPLE = {
    ("int8", "sum"), ("uint8", "max"), ("int16", "min"), ("uint16", "xor"),
    ("int32", "sum"), ("uint32", "and"), ("int64", "prod"), ("uint64", "or"),
    ("float32", "sum"), ("float32", "max"), ("float64", "min"), ("float64", "prod"),
}
OPENCL_SAMPLE_TYPES = {"int8", "uint16", "int32", "uint64", "float32", "float64"}

try:
    BASE_SEED = int(os.environ["PARPRIM_TEST_SEED"])
except (KeyError, ValueError):
    BASE_SEED = secrets.randbelow(2**32)
# pytest-xdist's workers (pytest -n) start from this environment: one seed
# for the whole run, the one its header prints.
os.environ["PARPRIM_TEST_SEED"] = str(BASE_SEED)


def algorithms(backend, prim):
    return list(INFO["backends"][backend]["algorithms"][prim])


def _id(x):
    return x.name if isinstance(x, np.dtype) else str(x)


def _sampled(backend, algo, dtype, op=None):
    """Whether a (backend, algorithm, type[, op]) case runs (see OPENCL_SAMPLE)."""
    if FULL or backend != "opencl" or algo == "auto":
        return True
    if op is None:
        return dtype.name in OPENCL_SAMPLE_TYPES
    return (dtype.name, op) in OPENCL_SAMPLE


def algo_params(prim):
    """(backend, algorithm) for every backend present and algorithm it lists."""
    return [pytest.param(b, a, id=f"{b}-{a}") for b in BACKENDS for a in algorithms(b, prim)]


def combos(prim, dtypes=DTYPES, ops=None):
    """(backend, algorithm, dtype[, op]) over every backend, algorithm, dtype
    (and op: bitwise ops only on integer types), sampled on opencl."""
    out = []
    for b in BACKENDS:
        for a in algorithms(b, prim):
            for dt in dtypes:
                if ops is None:
                    if _sampled(b, a, dt):
                        out.append(pytest.param(b, a, dt, id=f"{b}-{a}-{dt.name}"))
                    continue
                for op in ops:
                    if op in BITWISE and dt.kind == "f":
                        continue
                    if _sampled(b, a, dt, op):
                        out.append(pytest.param(b, a, dt, op, id=f"{b}-{a}-{dt.name}-{op}"))
    return out


# --------------------------------------------------------------------------
# Contexts: one per backend for the whole session
# --------------------------------------------------------------------------

_CONTEXTS = {}


def context(backend, prim=None, algo="auto"):
    """The session's context of backend, with algo chosen for prim and "auto"
    for every other primitive. opencl's "onesweep" sort runs on NVIDIA GPUs
    only (elsewhere the header documents Unsupported): skipped there."""
    if backend == "opencl" and algo == "onesweep" and "NVIDIA" not in str(INFO["backends"]["opencl"].get("device")):
        pytest.skip("opencl's onesweep sort needs an NVIDIA GPU (Unsupported on this device, as documented)")
    ctx = _CONTEXTS.get(backend)
    if ctx is None:
        ctx = _CONTEXTS[backend] = parprim.Context(backend=backend)
    for p in PRIMITIVES:
        want = algo if p == prim else "auto"
        if ctx.get_algorithm(p) != want:
            ctx.set_algorithm(p, want)
    return ctx


def pytest_sessionfinish(session, exitstatus):
    for ctx in _CONTEXTS.values():
        ctx.close()
    _CONTEXTS.clear()


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long test (sizes above 2^31 elements); deselect with -m 'not slow'")


def pytest_report_header(config):
    lines = [f"parprim {INFO.get('version')}: backends present: {', '.join(BACKENDS)}; auto: {INFO.get('auto')}",
             f"random data: PARPRIM_TEST_SEED={BASE_SEED} (set it to replay this run's data)"]
    if "opencl" in BACKENDS and not FULL:
        lines.append("opencl: non-default algorithms run a sample of types x operators (PARPRIM_TEST_FULL=1: all)")
    return lines


@pytest.fixture(autouse=True)
def _quiet_numpy():
    """The oracles compute with NaN and inf on purpose."""
    with np.errstate(all="ignore"):
        yield


@pytest.fixture
def rng(request):
    """A generator seeded from the run's base seed and the test's id."""
    return np.random.default_rng([BASE_SEED, zlib.crc32(request.node.nodeid.encode())])


def call(backend, algo, fn, a, *args, **kw):
    """fn(a, *args, **kw), or None where the header documents Unsupported for
    this case: cuda's "naive" scan above 65536 elements, cuda's private
    histograms where the bins do not fit shared memory. On opencl,
    Unsupported for floats means no cl_khr_fp64: the test is skipped."""
    try:
        return fn(a, *args, **kw)
    except parprim.Unsupported as e:
        a = np.asarray(a)
        if backend == "cuda" and algo == "naive" and a.size > 65536:
            return None
        if backend == "cuda" and algo in ("private-atomic", "private-reduce"):
            return None
        skip_if_fp64(backend, a.dtype, e)


def run(fn, *args, **kw):
    """fn(*args, **kw); Unsupported (a backend without the call yet, or an
    opencl device without cl_khr_fp64) skips the test with its message."""
    try:
        return fn(*args, **kw)
    except parprim.Unsupported as e:
        pytest.skip(f"Unsupported: {e}")


def skip_if_fp64(backend, dtype, exc, what="f64"):
    """On opencl, Unsupported for f64 (or float histograms) means the device
    lacks cl_khr_fp64, which the header allows: skip with that reason."""
    if backend == "opencl" and isinstance(exc, parprim.Unsupported) and dtype.kind == "f":
        pytest.skip(f"opencl device without cl_khr_fp64 ({what}): {exc}")
    raise exc


# --------------------------------------------------------------------------
# Hypothesis: no example database in the source tree, no deadline (PoCL
# compiles kernels on first use)
# --------------------------------------------------------------------------

try:
    from hypothesis import HealthCheck, settings
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.database import DirectoryBasedExampleDatabase

    _build = Path(__file__).resolve().parents[2] / "build"
    _db = None
    if _build.is_dir():  # Hypothesis's files (examples, constants) go there, not into the working directory
        set_hypothesis_home_dir(str(_build / "py-tests-hypothesis"))
        _db = DirectoryBasedExampleDatabase(str(_build / "py-tests-hypothesis" / "examples"))
    settings.register_profile(
        "parprim", deadline=None, database=_db, print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture])
    settings.load_profile("parprim")
except ImportError:  # pragma: no cover - the property tests skip then
    pass


EXAMPLES_SCALE = float(os.environ.get("PARPRIM_TEST_EXAMPLES", "1") or 1)


def examples(backend, cpu, other):
    """max_examples for a property test: fewer where kernels compile (opencl);
    PARPRIM_TEST_EXAMPLES scales both (e.g. 10 for a longer hunt)."""
    return max(1, round((cpu if backend == "cpu" else other) * EXAMPLES_SCALE))


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------

UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(a):
    """The bit patterns of an array (unsigned integers of the same width)."""
    a = np.asarray(a)
    return a.view(UINT_OF[a.dtype.itemsize])


def nan_patterns(dtype):
    """NaNs of both signs, quiet and signalling, with payloads."""
    if dtype == np.float32:
        pats = [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFF800001, 0x7F800ABC]
        return np.array(pats, dtype=np.uint32).view(np.float32)
    pats = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF80000DEADBEEF, 0xFFF0000000000001, 0x7FF0000000000ABC]
    return np.array(pats, dtype=np.uint64).view(np.float64)


def _not_all_zero(rng, a):
    if a.size and not a.any():
        a[rng.integers(a.size)] = 1
    return a


def make_data(rng, dtype, n, kind="random"):
    """n elements of dtype, fresh random.

    kind: "random" (integers over the whole range; floats of magnitudes 2^-10
    to 2^10, finite), "dups" (a few distinct values, many duplicates),
    "equal" (one nonzero value repeated), "odd" (integers: odd, for products
    that stay nonzero), "near1" (floats close to 1, for products), "special"
    (floats: finite values mixed with +-0.0, +-inf, the smallest subnormals
    and NaNs of several payloads), "zeros" (floats: -0.0 and +0.0 only), "negzero" (floats: -0.0
    only), "small" (integers in [-3, 3] or [0, 6]).
    """
    dtype = np.dtype(dtype)
    isint = dtype.kind in "iu"
    if kind == "random":
        if isint:
            ii = np.iinfo(dtype)
            a = rng.integers(ii.min, ii.max, size=n, dtype=dtype, endpoint=True)
        else:
            a = (rng.standard_normal(n) * np.exp2(rng.integers(-10, 11, n))).astype(dtype)
        return _not_all_zero(rng, a)
    if kind == "dups":
        vals = make_data(rng, dtype, 5, "random")
        if not isint:
            vals[0] = -vals[1]
        return vals[rng.integers(0, len(vals), n)]
    if kind == "equal":
        v = make_data(rng, dtype, 1, "random")
        return np.full(n, v[0], dtype=dtype)
    if kind == "small":
        lo = 0 if dtype.kind == "u" else -3
        return _not_all_zero(rng, rng.integers(lo, lo + 7, size=n).astype(dtype))
    if kind == "odd":
        return make_data(rng, dtype, n, "random") | dtype.type(1)
    if kind == "near1":
        return np.exp(rng.standard_normal(n) * 0.01).astype(dtype)
    if kind == "special":
        a = make_data(rng, dtype, n, "dups" if n % 2 else "random")
        tiny = np.finfo(dtype).smallest_subnormal
        specials = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, tiny, -tiny], dtype=dtype),
                                   nan_patterns(dtype)])
        if n:
            k = max(1, n // 8)
            a[rng.integers(0, n, k)] = specials[rng.integers(0, len(specials), k)]
        return a
    if kind == "zeros":
        return np.where(rng.integers(0, 2, n).astype(bool), dtype.type(-0.0), dtype.type(0.0)).astype(dtype)
    if kind == "negzero":
        return np.full(n, -0.0, dtype=dtype)
    raise ValueError(kind)


def kinds_for(dtype, op):
    """The data kinds a reduce or scan test runs for (dtype, op)."""
    if dtype.kind in "iu":
        if op == "prod":
            return ("odd", "small", "equal")
        return ("random", "dups", "equal")
    if op == "sum":
        return ("random", "dups", "equal")
    if op == "prod":
        return ("near1",)
    return ("random", "special", "zeros", "equal")  # min, max


# --------------------------------------------------------------------------
# Reduce and scan oracles
# --------------------------------------------------------------------------


def identity(dtype, op):
    dtype = np.dtype(dtype)
    isint = dtype.kind in "iu"
    if op == "sum" or op in ("or", "xor"):
        return dtype.type(0)
    if op == "prod":
        return dtype.type(1)
    if op == "min":
        return np.iinfo(dtype).max if isint else dtype.type(np.inf)
    if op == "max":
        return np.iinfo(dtype).min if isint else dtype.type(-np.inf)
    if op == "and":
        return ~dtype.type(0)
    raise ValueError(op)


_UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _minmax_scan(a, op):
    """Exact inclusive min/max scan of floats: NaN from the first NaN on,
    -0.0 below +0.0."""
    acc = _UFUNC[op].accumulate(a) if a.size else a.copy()
    zero = acc == 0
    if op == "min":
        seen = np.logical_or.accumulate((a == 0) & np.signbit(a)) if a.size else zero
        acc[zero] = np.where(seen[zero], a.dtype.type(-0.0), a.dtype.type(0.0))
    else:
        seen = np.logical_or.accumulate((a == 0) & ~np.signbit(a)) if a.size else zero
        acc[zero] = np.where(seen[zero], a.dtype.type(0.0), a.dtype.type(-0.0))
    return acc


def _where(msg):
    return f" [{msg}]" if msg else ""


def assert_same(got, exp, msg=""):
    """Exactly equal: integers and non-NaN floats bit for bit (so -0.0 is not
    +0.0); where exp is NaN, got must be a NaN (of any payload)."""
    got = np.asarray(got)
    exp = np.asarray(exp)
    assert got.dtype == exp.dtype, f"dtype {got.dtype}, expected {exp.dtype}{_where(msg)}"
    assert got.shape == exp.shape, f"shape {got.shape}, expected {exp.shape}{_where(msg)}"
    if exp.dtype.kind == "f":
        en, gn = np.isnan(exp), np.isnan(got)
        bad = (en != gn) | (~en & (bits(got) != bits(exp)))
    else:
        bad = got != exp
    if bad.any():
        i = np.flatnonzero(bad.ravel())
        j = i[0]
        raise AssertionError(
            f"{len(i)} of {exp.size} elements differ{_where(msg)}; first at {j}: got {got.ravel()[j]!r}, "
            f"expected {exp.ravel()[j]!r}")


def assert_bits(got, exp, msg=""):
    """Bit for bit equal (NaN payloads included)."""
    got = np.asarray(got)
    exp = np.asarray(exp)
    assert got.dtype == exp.dtype, f"dtype {got.dtype}, expected {exp.dtype}{_where(msg)}"
    assert got.shape == exp.shape, f"shape {got.shape}, expected {exp.shape}{_where(msg)}"
    bad = bits(got) != bits(exp)
    if bad.any():
        i = np.flatnonzero(bad)
        j = i[0]
        raise AssertionError(
            f"{len(i)} of {exp.size} elements differ{_where(msg)}; first at {j}: got {got[j]!r} "
            f"(bits {int(bits(got)[j]):#x}), expected {exp[j]!r} (bits {int(bits(exp)[j]):#x})")


def _float_sum_ref(a, exclusive):
    """Prefix sums in long double and the bound on their error: for prefix i
    (of k elements), 2 (k + 1) eps sum|x| covers sequential summation in the
    array's type and the reference's own rounding."""
    eps = float(np.finfo(a.dtype).eps)
    x = a.astype(np.longdouble)
    ref = np.cumsum(x)
    mag = np.cumsum(np.abs(x))
    k = np.arange(1, a.size + 1)
    tol = 2.0 * (k + 1) * eps * mag.astype(np.float64)
    if exclusive:
        ref = np.concatenate([[0.0], ref[:-1]]).astype(np.longdouble)
        tol = np.concatenate([[0.0], tol[:-1]])
    return ref, tol


def _float_prod_ref(a, exclusive):
    eps = float(np.finfo(a.dtype).eps)
    ref = np.cumprod(a.astype(np.longdouble))
    k = np.arange(1, a.size + 1)
    tol = 2.0 * (k + 1) * eps * np.abs(ref).astype(np.float64)
    if exclusive:
        ref = np.concatenate([[1.0], ref[:-1]]).astype(np.longdouble)
        tol = np.concatenate([[0.0], tol[:-1]])
    return ref, tol


def _assert_close(got, ref, tol, msg):
    err = np.abs(got.astype(np.longdouble) - ref).astype(np.float64)
    bad = ~(err <= tol)
    if bad.any():
        j = np.flatnonzero(bad)[0]
        raise AssertionError(f"{bad.sum()} of {got.size} elements off{_where(msg)}; first at {j}: got {got[j]!r}, "
                             f"expected {float(ref[j])!r} +- {tol[j]:.3g}")


def ref_scan_exact(a, op, exclusive=False):
    """The exact scan for integer types (wrapping) and float min/max."""
    dt = a.dtype
    if dt.kind == "f" and op in ("min", "max"):
        inc = _minmax_scan(a, op)
    elif a.size:
        inc = _UFUNC[op].accumulate(a, dtype=dt)
    else:
        inc = a.copy()
    if not exclusive:
        return inc
    return np.concatenate([np.array([identity(dt, op)], dtype=dt), inc[:-1]]) if a.size else inc


def result_dtype(dtype, op):
    """NumPy's result dtype of a sum or product of dtype (np.add.reduce's,
    which parprim follows: small integers in int64 or uint64); dtype itself
    for the other operators."""
    dtype = np.dtype(dtype)
    if op in ("sum", "prod"):
        return _UFUNC[op].reduce(np.zeros(1, dtype)).dtype
    return dtype


# The dtype argument of check_reduce and check_scan for results in NumPy's
# result type (result_dtype), as parprim.reduce and parprim.scan return them.
NUMPY = "numpy"


def _check_dtype(a, op, dtype):
    if dtype is None:
        return a.dtype
    return result_dtype(a.dtype, op) if isinstance(dtype, str) and dtype == NUMPY else np.dtype(dtype)


def check_scan(a, op, exclusive, got, msg="", dtype=None):
    """Asserts that got is the scan of a in dtype (default: a's; NUMPY:
    NumPy's result type, result_dtype): exact for integers and min/max, within the
    sequential-summation bound for float sum and prod (the sign of zero
    sums: test_reduce_scan's own tests)."""
    rt = _check_dtype(a, op, dtype)
    assert isinstance(got, np.ndarray), f"scan returned {type(got)}{_where(msg)}"
    assert got.dtype == rt and got.shape == a.shape, f"{got.dtype}{got.shape} for {a.dtype}{a.shape}{_where(msg)}"
    if a.size == 0:
        return
    a = a.astype(rt)
    if a.dtype.kind in "iu" or op in ("min", "max"):
        assert_same(got, ref_scan_exact(a, op, exclusive), msg)
        return
    if exclusive and a.size:
        assert_bits(got[:1], np.array([0.0 if op == "sum" else 1.0], dtype=a.dtype), msg + " out[0]")
    ref, tol = (_float_sum_ref if op == "sum" else _float_prod_ref)(a, exclusive)
    _assert_close(got, ref, tol, msg)


def check_reduce(a, op, got, msg="", dtype=None):
    """Asserts that got is reduce(a, op) in dtype (default: a's; NUMPY:
    NumPy's result type, result_dtype): a NumPy scalar of that dtype; exact for integers
    and min/max, within the sequential-summation bound for float sum
    (against math.fsum) and prod."""
    rt = _check_dtype(a, op, dtype)
    assert isinstance(got, np.generic), f"reduce returned {type(got).__name__}, not a NumPy scalar{_where(msg)}"
    assert got.dtype == rt, f"reduce returned {got.dtype} for {a.dtype}{_where(msg)}"
    a = a.astype(rt)
    if a.size == 0:
        assert_same(np.array([got]), np.array([identity(a.dtype, op)], dtype=a.dtype), msg + " (identity)")
        return
    if a.dtype.kind in "iu" or op in ("min", "max"):
        exp = ref_scan_exact(a, op)[-1]
        assert_same(np.array([got]), np.array([exp]), msg)
        return
    if op == "sum":
        eps = float(np.finfo(a.dtype).eps)
        x = a.astype(np.float64)
        ref = math.fsum(x)
        tol = 2.0 * (a.size + 1) * eps * math.fsum(np.abs(x))
        assert abs(float(got) - ref) <= tol, f"sum {got!r}, expected {ref!r} +- {tol:.3g}{_where(msg)}"
        if ref == 0.0 and tol == 0.0:  # only zeros: the sign rule
            exp = a.dtype.type(-0.0) if np.all(np.signbit(a)) else a.dtype.type(0.0)
            assert_bits(np.array([got]), np.array([exp]), msg + " (sign of a zero sum)")
        return
    ref, tol = _float_prod_ref(a, False)
    _assert_close(np.array([got]), ref[-1:], tol[-1:], msg)


# --------------------------------------------------------------------------
# Histogram oracles (the header's definitions)
# --------------------------------------------------------------------------


def ref_histogram_even(a, bins, lower, upper):
    """Counts as pp_histogram_even defines them: bin floor((x - lower) * bins
    / (upper - lower)), exactly for integers; for floats the documented
    double expression, clamped; samples outside [lower, upper) (compared in
    the sample type) and NaN not counted."""
    dt = a.dtype
    lo_t, hi_t = dt.type(lower), dt.type(upper)
    x = a[(a >= lo_t) & (a < hi_t)]
    if dt.kind in "iu":
        lo, hi = int(lo_t), int(hi_t)
        if dt.itemsize <= 4:
            idx = (x.astype(np.int64) - lo) * bins // (hi - lo)
        else:
            idx = _bins64(x, lo, hi, bins)
    else:
        lo, hi = float(lo_t), float(hi_t)
        xd = x.astype(np.float64)
        r = hi - lo
        if math.isinf(r):
            d = 0.5 * xd - 0.5 * lo
            r = 0.5 * hi - 0.5 * lo
        else:
            d = xd - lo
        with np.errstate(invalid="ignore", over="ignore"):
            b = d * (float(bins) / r) if r > 0 else np.full(d.shape, np.inf)
        b[np.isnan(b) | (d == 0)] = 0.0  # x == lower: bin 0 even where bins / r overflows
        idx = np.minimum(np.maximum(b, 0.0), float(bins - 1) + 0.5)
        idx = np.minimum(idx.astype(np.uint64), bins - 1).astype(np.int64)
    return np.bincount(idx, minlength=bins).astype(np.uint64)


def _bins64(x, lo, hi, bins):
    """floor((x - lo) * bins / (hi - lo)) exactly for 64-bit x: an estimate in
    long double (64-bit mantissa where available), then Python integers
    for the elements near a bin edge (and for all where long double is
    short)."""
    r = hi - lo
    d = x.astype(np.uint64) - np.uint64(lo % 2**64)  # x - lo, exact modulo 2^64
    if np.finfo(np.longdouble).nmant < 63:
        return np.array([int(v) * bins // r for v in d.tolist()], dtype=np.int64)
    est = d.astype(np.longdouble) * np.longdouble(bins) / np.longdouble(r)
    q = np.floor(est)
    frac = est - q
    idx = q.astype(np.int64)
    near = np.flatnonzero((frac < 1e-6) | (frac > 1 - 1e-6))
    idx[near] = [int(v) * bins // r for v in d[near].tolist()]
    return idx


def ref_histogram_range(a, edges):
    edges = np.asarray(edges, dtype=a.dtype)
    x = a[(a >= edges[0]) & (a < edges[-1])]
    idx = np.searchsorted(edges, x, side="right") - 1
    return np.bincount(idx, minlength=len(edges) - 1).astype(np.uint64)


# --------------------------------------------------------------------------
# Sort oracle (the header's order)
# --------------------------------------------------------------------------


def order_key(a):
    """uint64 keys whose unsigned order is parprim's: integers by value;
    floats with -0.0 below +0.0 and every NaN equal, above +inf."""
    dt = a.dtype
    w = dt.itemsize * 8
    u = bits(a).astype(np.uint64)
    if dt.kind == "u":
        return u
    sign = np.uint64(1) << np.uint64(w - 1)
    if dt.kind == "i":
        return u ^ sign
    mask = np.uint64((1 << w) - 1)
    neg = (u & sign) != 0
    key = np.where(neg, ~u & mask, u | sign)
    key[np.isnan(a)] = mask
    return key


def ref_sort_order(a, descending=False, nan_last=True):
    """The permutation of a stable sort in parprim's order: ascending with
    NaNs last; descending stable (equal keys, NaNs among them, keep input
    order), NaNs first (nan_last=False) or last (nan_last=True)."""
    k = order_key(a)
    n = a.size
    if not descending:
        return np.argsort(k, kind="stable")
    order = (n - 1 - np.argsort(k[::-1], kind="stable"))[::-1]
    if nan_last and a.dtype.kind == "f":
        nan = np.isnan(a[order])
        order = np.concatenate([order[~nan], order[nan]])
    return order
