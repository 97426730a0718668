"""A quick self-check of an install against NumPy (not the test suite):

    python -m parprim._selfcheck [backend ...] [--full] [--seed=N]

backend: cpu, cuda, opencl (default: every backend present). On each
backend, in groups: reduce and scan; histogram_even and histogram_range;
select_flagged, select_if, partition_if, unique (np.unique with each
return_* flag) and unique_consecutive (with its flags); sort and
sort_pairs (stability, descending, in place, strided); the exceptions of
bad input, and set_algorithm (an algorithm the backend lists is accepted,
another one is Unsupported). On cpu also the GPU-array code path (CUDA
Array Interface and DLPack), driven through host memory, which is context
memory on the cpu backend; then the module functions. A few types and
sizes of fresh random data (--full: every type; --seed=N replays a run's
data: the first line prints its seed).

Prints one line per group, runs every check even after a failure, lists all
the failures at the end and exits with status 1 if any check failed (0 when
all passed).
"""

from __future__ import annotations

import os
import sys
import time
import traceback

import numpy as np

import parprim
from parprim import _parprim
from parprim._arrays import BF16, DL_CPU, F16, TYPE_NAMES, DeviceArray

# The element types, as the package reads them from the C library; the half
# types, which take a few calls only (include/parprim.h), are checked by the
# test suite (python/tests/test_half.py), not here.
_FULL = [t for i, t in enumerate(TYPE_NAMES) if i not in (F16, BF16)]
INTS = [t for t in _FULL if np.dtype(t).kind in "iu"]
FLOATS = [t for t in _FULL if np.dtype(t).kind == "f"]
UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
         "or": np.bitwise_or, "xor": np.bitwise_xor}


def data(rng, dtype, n, special=False):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        ii = np.iinfo(dt)
        return rng.integers(ii.min, ii.max, size=n, dtype=dt, endpoint=True)
    a = (rng.standard_normal(n) * 100).astype(dt)
    if special and n >= 8:
        a[rng.integers(0, n, n // 8)] = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf], dt)[
            rng.integers(0, 6, n // 8)]
    return a


# The failures of the current run, in order (main() empties it).
FAILURES = []


def fail(what):
    FAILURES.append(what)
    print(f"    FAILED: {what}")


def check(ok, what):
    """Records a failure where ok is false; returns ok."""
    if not ok:
        fail(what)
    return bool(ok)


def same(got, exp, what):
    """Whether got and exp have one dtype, shape and values (NaN equal to
    NaN, -0.0 to +0.0); a failure is recorded otherwise."""
    got, exp = np.asarray(got), np.asarray(exp)
    ok = got.dtype == exp.dtype and got.shape == exp.shape
    if ok:
        if exp.dtype.kind == "f":
            ok = bool(np.all((got == exp) | (np.isnan(got) & np.isnan(exp))))
        else:
            ok = bool(np.all(got == exp))
    return check(ok, f"{what}: got {got.dtype}{got.shape} {got.reshape(-1)[:8]}, expected "
                     f"{exp.dtype}{exp.shape} {exp.reshape(-1)[:8]}")


def raises(exc, fn, *args, **kw):
    """Whether fn(*args, **kw) raises exc, a parprim.Error with a message; a
    failure is recorded otherwise."""
    name = getattr(fn, "__name__", fn)
    try:
        fn(*args, **kw)
    except exc as e:
        return check(isinstance(e, parprim.Error) and str(e), f"{name}: {type(e).__name__} {e!r}")
    except Exception as e:  # noqa: BLE001
        return check(False, f"{name}{args[:1]}: raised {type(e).__name__}: {e}, expected {exc.__name__}")
    return check(False, f"{name}: no {exc.__name__}")


def group(name, fn, *args):
    """Runs one group of checks: an exception it raises is a failure that
    ends this group only."""
    before = len(FAILURES)
    t0 = time.perf_counter()
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        where = traceback.extract_tb(e.__traceback__)[-1]
        fail(f"{name}: stopped by {type(e).__name__}: {e} ({os.path.basename(where.filename)}:{where.lineno})")
    bad = len(FAILURES) - before
    print(f"  {name}: {'ok' if not bad else f'{bad} failed'} ({time.perf_counter() - t0:.1f} s)")


def order_key(a):
    """uint64 keys whose order is parprim's: integers by value; floats with
    -0.0 below +0.0 and every NaN equal, above +inf."""
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    if a.dtype.kind == "i":
        return a.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    u = a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    w = a.dtype.itemsize * 8
    sign = np.uint64(1) << np.uint64(w - 1)
    mask = np.uint64((1 << w) - 1)
    key = np.where((u & sign) != 0, ~u & mask, u | sign)
    key[np.isnan(a)] = mask
    return key


def sort_ref(a, descending=False, nan_last=True):
    """parprim's stable order, by a stable argsort of order keys."""
    key = order_key(a)
    if not descending:
        return a[np.argsort(key, kind="stable")]
    order = np.argsort(~key, kind="stable")
    if nan_last and a.dtype.kind == "f":
        nan = np.isnan(a[order])
        order = np.concatenate([order[~nan], order[nan]])
    return a[order]


def check_backend(ctx, rng, full):
    """Every group of checks on one backend."""
    b = ctx.backend
    types = INTS + FLOATS if full else ["int8", "uint16", "int32", "uint64", "float32", "float64"]
    group(f"{b}: reduce, scan", check_reduce_scan, ctx, rng, types)
    group(f"{b}: histograms", check_histograms, ctx, rng, types)
    group(f"{b}: select_flagged, select_if, partition_if, unique_consecutive, unique", check_compaction, ctx, rng,
          types)
    group(f"{b}: sort, sort_pairs", check_sorts, ctx, rng, types)
    group(f"{b}: exceptions, set_algorithm", check_exceptions, ctx)


def check_reduce_scan(ctx, rng, types):
    b = ctx.backend
    for n in (0, 1, 1000, 100003):
        for t in types:
            a = data(rng, t, n)
            for op in ("sum", "min", "max", "xor", "prod"):
                if op == "xor" and t in FLOATS:
                    continue
                if op == "prod" and n > 1000:
                    continue
                got = ctx.reduce(a, op, dtype=a.dtype)  # in the input's type (NumPy's would widen sums)
                if not check(isinstance(got, np.generic) and got.dtype == a.dtype,
                             f"{b} reduce {t} {op}: {type(got).__name__} {got!r}"):
                    continue
                if t in INTS or op in ("min", "max"):
                    exp = UFUNC[op].reduce(a, dtype=a.dtype) if n else got
                    if n:
                        same(np.array([got]), np.array([exp]), f"{b} reduce {t} {op} n={n}")
                elif op == "sum":
                    ref = float(np.sum(a, dtype=np.float64))
                    tol = 4 * (n + 1) * np.finfo(a.dtype).eps * float(np.sum(np.abs(a), dtype=np.float64))
                    check(abs(float(got) - ref) <= tol, f"{b} reduce {t} sum n={n}: {got}, expected {ref}")
            if t in INTS:
                for excl in (False, True):
                    got = ctx.scan(a, "sum", exclusive=excl, dtype=a.dtype)
                    inc = np.cumsum(a, dtype=a.dtype)
                    exp = np.concatenate([np.zeros(1, a.dtype), inc[:-1]]) if excl and n else inc
                    same(got, exp, f"{b} scan {t} excl={excl} n={n}")
            else:
                same(ctx.scan(a, "max"), np.maximum.accumulate(a) if n else a, f"{b} scan max {t}")


def check_histograms(ctx, rng, types):
    b = ctx.backend
    for t in types:
        a = data(rng, t, 50001, special=True)
        if t in INTS:
            lo, hi = (-100, 100) if t.startswith("i") else (0, 200)
        else:
            lo, hi = -2.5, 7.25
        try:
            got = ctx.histogram_even(a, 7, lo, hi, right_closed=True)
        except parprim.Unsupported as e:  # opencl float histograms need cl_khr_fp64
            print(f"  {b}: {t} histogram unsupported: {e}")
            continue
        aa = a[~np.isnan(a)] if t in FLOATS else a
        same(got, np.histogram(aa, 7, range=(lo, hi))[0].astype(np.uint64), f"{b} histogram right_closed {t}")
        got = ctx.histogram_even(a, 7, lo, hi)
        x = a[(a >= a.dtype.type(lo)) & (a < a.dtype.type(hi))]
        if t in INTS:
            idx = (x.astype(object) - lo) * 7 // (hi - lo)
            exp = np.bincount(idx.astype(np.int64), minlength=7).astype(np.uint64)
        else:
            idx = np.minimum(((x.astype(np.float64) - lo) * (7 / (hi - lo))).astype(np.uint64), 6)
            exp = np.bincount(idx.astype(np.int64), minlength=7).astype(np.uint64)
        same(got, exp, f"{b} histogram_even {t}")
        edges = np.array([lo, lo + 1, (lo + hi) // 2, hi - 3, hi], dtype=a.dtype)
        got = ctx.histogram_range(a, edges)
        xs = a[(a >= edges[0]) & (a < edges[-1])]
        exp = np.bincount(np.searchsorted(edges, xs, side="right") - 1, minlength=4).astype(np.uint64)
        same(got, exp, f"{b} histogram_range {t}")
    # right_closed with narrow integer bins (duplicate edges) and a float range for ints
    a = data(rng, "int16", 10007) % 20
    same(ctx.histogram_even(a, 100, 3, 10, right_closed=True), np.histogram(a, 100, range=(3, 10))[0].astype(np.uint64),
         f"{b} histogram right_closed narrow bins")
    a = data(rng, "uint8", 10007)
    same(ctx.histogram_even(a, 5, 0, 255, right_closed=True), np.histogram(a, 5, range=(0, 255))[0].astype(np.uint64),
         f"{b} histogram right_closed up to the type's max")


def check_compaction(ctx, rng, types):
    b = ctx.backend
    for t in types:
        a = data(rng, t, 20011, special=True)
        flags = rng.random(a.size) < 0.3
        same(ctx.select_flagged(a, flags), a[flags], f"{b} select_flagged {t}")
        same(ctx.select_flagged(a, flags.astype(np.uint8) * 7), a[flags], f"{b} select_flagged u8 {t}")
        v = a[5] if not (t in FLOATS and np.isnan(a[5])) else a.dtype.type(1)
        for cmp, fn in (("<", np.less), ("<=", np.less_equal), (">", np.greater), (">=", np.greater_equal),
                        ("==", np.equal), ("!=", np.not_equal)):
            m = fn(a, v)
            same(ctx.select_if(a, cmp, v), a[m], f"{b} select_if {t} {cmp}")
            p, cnt = ctx.partition_if(a, cmp, v)
            check(isinstance(cnt, int) and cnt == m.sum(), f"{b} partition_if {t} {cmp}: count {cnt!r}, "
                                                           f"expected {m.sum()}")
            same(p, np.concatenate([a[m], a[~m]]), f"{b} partition_if {t} {cmp}")
        r = np.repeat(a[:3000], rng.integers(1, 4, 3000))
        keep = np.ones(r.size, bool)
        keep[1:] = r[1:] != r[:-1]
        same(ctx.unique_consecutive(r), r[keep], f"{b} unique_consecutive {t}")
        counts = np.diff(np.append(np.flatnonzero(keep), r.size))
        v, inv, cnt = ctx.unique_consecutive(r, return_inverse=True, return_counts=True)
        same(v, r[keep], f"{b} unique_consecutive(return_inverse, return_counts) values {t}")
        same(inv, np.repeat(np.arange(counts.size), counts), f"{b} unique_consecutive inverse {t}")
        same(cnt, counts, f"{b} unique_consecutive counts {t}")
        same(ctx.unique(r), np.unique(r), f"{b} unique {t}")
        r2 = r[:2400].reshape(40, 60)
        exp = np.unique(r2, return_index=True, return_inverse=True, return_counts=True)
        for what, got, e in zip(("values", "index", "inverse", "counts"),
                                ctx.unique(r2, return_index=True, return_inverse=True, return_counts=True), exp):
            same(got, e, f"{b} unique 2-D (all return_* flags) {what} {t}")


def check_sorts(ctx, rng, types):
    b = ctx.backend
    for t in types:
        a = data(rng, t, 30011, special=True)
        keep = a.copy()
        same(ctx.sort(a), np.sort(a), f"{b} sort {t}")
        for desc, nl in ((True, True), (True, False)):
            got = ctx.sort(a, descending=desc, nan_last=nl)
            exp = sort_ref(a, desc, nl)
            check(np.array_equal(got.view(f"u{a.dtype.itemsize}"), exp.view(f"u{a.dtype.itemsize}")) or
                  np.array_equal(got, exp, equal_nan=t in FLOATS), f"{b} sort desc {t} nan_last={nl}")
        same(a, keep, f"{b} sort changed its input")
        vals = np.arange(a.size, dtype=np.int64)
        k, v = ctx.sort_pairs(a, vals, descending=True)
        same(k, sort_ref(a, True), f"{b} sort_pairs keys {t}")
        same(a[v], k, f"{b} sort_pairs values {t}")
        # stability: equal keys keep increasing indices
        key = order_key(k)
        eq = key[1:] == key[:-1]
        check(np.all(v[1:][eq] > v[:-1][eq]), f"{b} sort_pairs not stable {t}")
        b2 = a.copy()
        r = ctx.sort(b2, out=b2, descending=True)
        check(np.shares_memory(r, b2), f"{b} sort(out=a) did not return a {t}")
        same(b2, sort_ref(a, True), f"{b} sort in place desc {t}")
        s = a[::3]
        same(ctx.sort(s), np.sort(s), f"{b} sort strided {t}")
        o = np.empty_like(a)
        check(ctx.scan(a, "max", out=o) is o, f"{b} scan(out=o) did not return o {t}")


def check_exceptions(ctx):
    b = ctx.backend
    a = np.arange(100, dtype=np.int32)
    for bad in (np.zeros(4, np.longdouble), np.zeros(4, np.complex64), np.array(["x"]), np.zeros(4, object)):
        raises(parprim.InvalidArgument, ctx.reduce, bad)
        raises(parprim.InvalidArgument, ctx.sort, bad)
        raises(parprim.InvalidArgument, ctx.scan, bad)
    raises(parprim.InvalidArgument, ctx.sort, np.zeros(4, bool))  # sums and scans count bools
    raises(parprim.InvalidArgument, ctx.reduce, a, "avg")
    raises(parprim.Unsupported, ctx.reduce, a.astype(np.float32), "xor")
    raises(parprim.InvalidArgument, ctx.select_if, a, "=<", 3)
    raises(parprim.InvalidArgument, ctx.select_if, a.astype(np.uint8), "<", 300)
    raises(parprim.InvalidArgument, ctx.select_if, a, "<", 2.5)
    raises(parprim.InvalidArgument, ctx.scan, a, out=np.zeros(99, np.int32))
    raises(parprim.InvalidArgument, ctx.scan, a, out=np.zeros(100, np.int16))  # the sum is int64
    raises(parprim.InvalidArgument, ctx.scan, a, out=np.zeros(200, np.int32)[::2])
    raises(parprim.InvalidArgument, ctx.scan, a[:50], out=a[1:51])
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 0, 0, 10)
    raises(parprim.InvalidArgument, ctx.histogram_even, a, 4, 10, 0)
    raises(parprim.InvalidArgument, ctx.histogram_even, a.astype(np.float32), 4, 0, np.inf)
    raises(parprim.InvalidArgument, ctx.histogram_range, a, [0, 5, 5, 9])
    raises(parprim.InvalidArgument, ctx.select_flagged, a, np.ones(99, bool))
    raises(parprim.InvalidArgument, ctx.select_flagged, a, np.ones(100, np.int32))
    raises(parprim.InvalidArgument, ctx.sort_pairs, a, np.zeros(100, np.complex128))
    raises(parprim.InvalidArgument, ctx.set_algorithm, "scan", "quicksort")
    raises(parprim.InvalidArgument, ctx.set_algorithm, "sorting", "auto")
    # Each algorithm the backend lists for a primitive is accepted; every other known name is Unsupported.
    for prim in _parprim.PRIMITIVE_NAMES:
        listed = ctx.algorithms(prim)
        check("auto" in listed, f"{b} algorithms({prim!r}) lacks 'auto': {listed}")
        for algo in _parprim.ALGORITHM_NAMES:
            if algo in listed:
                ctx.set_algorithm(prim, algo)
                check(ctx.get_algorithm(prim) == algo, f"{b} set_algorithm({prim!r}, {algo!r}) not kept")
            else:
                raises(parprim.Unsupported, ctx.set_algorithm, prim, algo)
        ctx.set_algorithm(prim, "auto")


class FakeCAI:
    """A CUDA Array Interface over a NumPy array's memory: on a cpu context
    in test device mode (host memory is context memory there) it takes the
    path of GPU arrays (also python/tests/test_keyed.py's)."""

    def __init__(self, arr):
        self.arr = arr

    @property
    def __cuda_array_interface__(self):
        a = self.arr
        return {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, not a.flags.writeable),
                "strides": None if a.flags.c_contiguous else a.strides, "version": 3, "stream": 1}


class FakeDL:
    """NumPy's own __dlpack__ (device CPU) behind an object of no known
    library: its results come back as DeviceArray."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, stream=None):
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def check_device_path(rng):
    """The GPU-array path (CAI and DLPack parsing, outputs through the input's
    library, copies with offsets, streams) on a cpu context, where host
    memory is context memory: a fake CAI array over NumPy memory, and
    NumPy's own __dlpack__ (device CPU)."""
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        group("device-array path (CAI, DLPack)", check_device_arrays, ctx, rng)
    finally:
        ctx.close()
    group("DeviceArray's DLPack export", check_dlpack_export)


def check_device_arrays(ctx, rng):
    for wrap in (FakeCAI, FakeDL):
        for t in ("int32", "float64", "uint8"):
            a = data(rng, t, 10007, special=True)
            x = wrap(a)
            got = ctx.reduce(x, "max")
            check(got == np.max(a) or np.isnan(np.max(a)), f"device reduce max {t}: {got}, expected {np.max(a)}")
            r = ctx.scan(x, "max")
            if not check(isinstance(r, DeviceArray), f"device scan {t}: a {type(r).__name__}, not a DeviceArray"):
                continue
            same(r.get(), np.maximum.accumulate(a), f"device scan {wrap.__name__} {t}")
            same(np.asarray(ctx.sort(x)), np.sort(a), f"device sort {wrap.__name__} {t}")
            same(ctx.sort(x, descending=True).get(), sort_ref(a, True), f"device sort desc {t}")
            flags = rng.random(a.size) < 0.5
            same(ctx.select_flagged(x, wrap(flags)).get(), a[flags], f"device select_flagged {t}")
            same(ctx.select_if(x, ">", a[0]).get(), a[a > a[0]], f"device select_if {t}")
            same(ctx.unique(x).get(), np.unique(a), f"device unique {t}")
            k, v = ctx.sort_pairs(x, wrap(np.arange(a.size, dtype=np.int64)), descending=True)
            same(k.get(), sort_ref(a, True), f"device sort_pairs keys {t}")
            same(a[v.get()], k.get(), f"device sort_pairs values {t}")
            same(ctx.histogram_even(x, 5, 0, 100, right_closed=True).get(),
                 np.histogram(a[~np.isnan(a)] if t == "float64" else a, 5, range=(0, 100))[0].astype(np.uint64),
                 f"device histogram right_closed {t}")
            # in place on the producer's memory
            b = a.copy()
            ctx.sort(wrap(b), out=wrap(b))
            same(b, np.sort(a), f"device sort in place {t}")
            b = a.copy()
            ctx.sort(wrap(b), out=wrap(b), descending=True)
            same(b, sort_ref(a, True), f"device sort in place desc {t}")
            o = np.zeros_like(a)
            ctx.scan(wrap(a), "min", out=wrap(o))
            same(o, np.minimum.accumulate(a), f"device scan out= {t}")
            raises(parprim.InvalidArgument, ctx.scan, wrap(a), "min", out=wrap(np.zeros(3, a.dtype)))
            raises(parprim.InvalidArgument, ctx.scan, wrap(a[:100]), "min", out=wrap(a[1:101]))
    raises(parprim.InvalidArgument, ctx.reduce, FakeCAI(np.zeros(3, np.complex64)))
    # a strided CAI array of an unknown library cannot be copied by parprim
    raises(parprim.InvalidArgument, ctx.reduce, FakeCAI(np.arange(10)[::2]))


def check_dlpack_export():
    """DeviceArray's DLPack export, read back by dlpack_info."""
    c = parprim.Context("cpu")
    d = DeviceArray.empty(c._c, 5, np.float32, 0)
    c._c.upload(d.ptr, np.arange(5, dtype=np.float32), 20)
    cap = _parprim.make_dlpack(d, d.ptr, 5, 2, 32, DL_CPU, 0)
    info = _parprim.dlpack_info(cap)
    check(info[0] == d.ptr and info[1] == DL_CPU and info[3:6] == (2, 32, 1) and info[6] == (5,),
          f"dlpack_info of a DeviceArray's capsule: {info}")
    del cap, d
    c.close()


def check_module_functions():
    """The module functions (the per-thread default context), contexts of
    unknown backends and closed contexts."""
    a = np.arange(10, dtype=np.int64)
    check(parprim.reduce(a) == 45, f"parprim.reduce(arange(10)) = {parprim.reduce(a)}")
    check(parprim.get_algorithm("scan") == "auto", "parprim.get_algorithm('scan') is not 'auto'")
    raises(parprim.InvalidArgument, parprim.Context, "metal")
    closed = parprim.Context("cpu")
    closed.close()
    raises(parprim.Error, closed.reduce, a)


def main(argv=None):
    """Runs the checks (argv: as the command line's); returns the exit
    status: 0 when every check passed, 1 otherwise."""
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
    seeds = [x.partition("=")[2] for x in argv if x.startswith("--seed=")]
    names = [x for x in argv if not x.startswith("-")]
    info = parprim.info()
    if not names:
        names = [b for b, i in info["backends"].items() if i["present"]]
    seed = int(seeds[-1]) if seeds else int(np.random.SeedSequence().entropy % 2**63)
    rng = np.random.default_rng(seed)
    FAILURES.clear()
    print(f"parprim {info['version']} selfcheck: backends {names} (auto: {info['auto']}), --seed={seed}")
    for name in names:
        t0 = time.perf_counter()
        try:
            ctx = parprim.Context(name)
        except parprim.Error as e:
            fail(f"{name}: no context: {type(e).__name__}: {e}")
            continue
        with ctx:
            print(f"{name}: {ctx.device_name}")
            check_backend(ctx, rng, full)
        print(f"  {name}: {time.perf_counter() - t0:.1f} s")
    if "cpu" in names:
        check_device_path(rng)
    group("module functions", check_module_functions)
    if FAILURES:
        print(f"selfcheck FAILED: {len(FAILURES)} check(s) (--seed={seed}):")
        for f in FAILURES:
            print(f"  {f}")
        return 1
    print("selfcheck passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
