"""A quick self-check of the binding against NumPy (not the test suite):
python -m parprim._selfcheck [backend ...]   (default: every backend present)

Every function on each backend, a few types and sizes, the exceptions; on
cpu also the GPU-array code path (CUDA Array Interface and DLPack), driven
through host memory, which is context memory on the cpu backend. Prints one
line per check group and exits 1 on the first failure.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import parprim
from parprim import _parprim
from parprim._arrays import DL_CPU, TYPE_NAMES, DeviceArray

# The element types, as the package reads them from the C library.
INTS = [t for t in TYPE_NAMES if np.dtype(t).kind in "iu"]
FLOATS = [t for t in TYPE_NAMES if np.dtype(t).kind == "f"]
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


def same(got, exp, what):
    got, exp = np.asarray(got), np.asarray(exp)
    ok = got.dtype == exp.dtype and got.shape == exp.shape
    if ok:
        if exp.dtype.kind == "f":
            ok = bool(np.all((got == exp) | (np.isnan(got) & np.isnan(exp))))
        else:
            ok = bool(np.all(got == exp))
    if not ok:
        raise AssertionError(f"{what}: got {got.dtype}{got.shape} {got[:8]}, expected {exp.dtype}{exp.shape} "
                             f"{exp[:8]}")


def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        assert isinstance(e, parprim.Error) and str(e), f"{type(e)} {e}"
        return e
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{fn.__name__}{args[:1]}: raised {type(e).__name__}: {e}, expected {exc.__name__}")
    raise AssertionError(f"{getattr(fn, '__name__', fn)}: no {exc.__name__}")


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
    b = ctx.backend
    types = INTS + FLOATS if full else ["int8", "uint16", "int32", "uint64", "float32", "float64"]
    for n in (0, 1, 1000, 100003):
        for t in types:
            a = data(rng, t, n)
            for op in ("sum", "min", "max", "xor", "prod"):
                if op == "xor" and t in FLOATS:
                    continue
                if op == "prod" and n > 1000:
                    continue
                got = ctx.reduce(a, op)
                assert isinstance(got, np.generic) and got.dtype == a.dtype, (type(got), got)
                if t in INTS or op in ("min", "max"):
                    exp = UFUNC[op].reduce(a, dtype=a.dtype) if n else got
                    if n:
                        same(np.array([got]), np.array([exp]), f"{b} reduce {t} {op} n={n}")
                elif op == "sum":
                    ref = float(np.sum(a, dtype=np.float64))
                    tol = 4 * (n + 1) * np.finfo(a.dtype).eps * float(np.sum(np.abs(a), dtype=np.float64))
                    assert abs(float(got) - ref) <= tol, (b, t, n, got, ref)
            if t in INTS:
                for excl in (False, True):
                    got = ctx.scan(a, "sum", exclusive=excl)
                    inc = np.cumsum(a, dtype=a.dtype)
                    exp = np.concatenate([np.zeros(1, a.dtype), inc[:-1]]) if excl and n else inc
                    same(got, exp, f"{b} scan {t} excl={excl} n={n}")
            else:
                same(ctx.scan(a, "max"), np.maximum.accumulate(a) if n else a, f"{b} scan max {t}")
    print(f"  {b}: reduce, scan ok")

    # histograms
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
    print(f"  {b}: histograms ok")

    # compaction
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
            assert isinstance(cnt, int) and cnt == m.sum(), (cnt, m.sum())
            same(p, np.concatenate([a[m], a[~m]]), f"{b} partition_if {t} {cmp}")
        r = np.repeat(a[:3000], rng.integers(1, 4, 3000))
        keep = np.ones(r.size, bool)
        keep[1:] = r[1:] != r[:-1]
        same(ctx.unique_consecutive(r), r[keep], f"{b} unique_consecutive {t}")
        same(ctx.unique(r), np.unique(r), f"{b} unique {t}")
    print(f"  {b}: select_flagged, select_if, partition_if, unique_consecutive, unique ok")

    # sort
    for t in types:
        a = data(rng, t, 30011, special=True)
        keep = a.copy()
        same(ctx.sort(a), np.sort(a), f"{b} sort {t}")
        for desc, nl in ((True, True), (True, False)):
            got = ctx.sort(a, descending=desc, nan_last=nl)
            exp = sort_ref(a, desc, nl)
            assert np.array_equal(got.view(f"u{a.dtype.itemsize}"), exp.view(f"u{a.dtype.itemsize}")) or \
                np.array_equal(got, exp, equal_nan=t in FLOATS), f"{b} sort desc {t} nan_last={nl}"
        same(a, keep, f"{b} sort changed its input")
        vals = np.arange(a.size, dtype=np.int64)
        k, v = ctx.sort_pairs(a, vals, descending=True)
        same(k, sort_ref(a, True), f"{b} sort_pairs keys {t}")
        same(a[v], k, f"{b} sort_pairs values {t}")
        # stability: equal keys keep increasing indices
        key = order_key(k)
        eq = key[1:] == key[:-1]
        assert np.all(v[1:][eq] > v[:-1][eq]), f"{b} sort_pairs not stable {t}"
        b2 = a.copy()
        r = ctx.sort(b2, out=b2, descending=True)
        assert np.shares_memory(r, b2)
        same(b2, sort_ref(a, True), f"{b} sort in place desc {t}")
        s = a[::3]
        same(ctx.sort(s), np.sort(s), f"{b} sort strided {t}")
        o = np.empty_like(a)
        assert ctx.scan(a, "max", out=o) is o
    print(f"  {b}: sort, sort_pairs ok")

    # exceptions
    a = np.arange(100, dtype=np.int32)
    for bad in (np.zeros(4, np.float16), np.zeros(4, np.complex64), np.zeros(4, bool), np.array(["x"]),
                np.zeros(4, object)):
        raises(parprim.InvalidArgument, ctx.reduce, bad)
        raises(parprim.InvalidArgument, ctx.sort, bad)
        raises(parprim.InvalidArgument, ctx.scan, bad)
    raises(parprim.InvalidArgument, ctx.reduce, a, "avg")
    raises(parprim.Unsupported, ctx.reduce, a.astype(np.float32), "xor")
    raises(parprim.InvalidArgument, ctx.select_if, a, "=<", 3)
    raises(parprim.InvalidArgument, ctx.select_if, a.astype(np.uint8), "<", 300)
    raises(parprim.InvalidArgument, ctx.select_if, a, "<", 2.5)
    raises(parprim.InvalidArgument, ctx.scan, a, out=np.zeros(99, np.int32))
    raises(parprim.InvalidArgument, ctx.scan, a, out=np.zeros(100, np.int64))
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
    raises(parprim.Unsupported, ctx.set_algorithm, "sort", "onesweep")
    print(f"  {b}: exceptions ok")


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


def check_device_path(rng):
    """The GPU-array path (CAI and DLPack parsing, outputs through the input's
    library, copies with offsets, streams) on a cpu context, where host
    memory is context memory: a fake CAI array over NumPy memory, and
    NumPy's own __dlpack__ (device CPU)."""

    class FakeDL:
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, stream=None):
            return self.arr.__dlpack__()

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    def host(x):
        return np.asarray(x.arr if hasattr(x, "arr") else x)

    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        for wrap in (FakeCAI, FakeDL):
            for t in ("int32", "float64", "uint8"):
                a = data(rng, t, 10007, special=True)
                x = wrap(a)
                assert ctx.reduce(x, "max") == np.max(a) or np.isnan(np.max(a))
                r = ctx.scan(x, "max")
                assert isinstance(r, DeviceArray), type(r)
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
        raises(parprim.InvalidArgument, ctx.reduce, FakeCAI(np.zeros(3, np.float16)))
        # a strided CAI array of an unknown library cannot be copied by parprim
        raises(parprim.InvalidArgument, ctx.reduce, FakeCAI(np.arange(10)[::2]))
    finally:
        ctx.close()
    # DeviceArray's DLPack export, read back by NumPy (as a CPU tensor) and by dlpack_info
    c = parprim.Context("cpu")
    d = DeviceArray.empty(c._c, 5, np.float32, 0)
    c._c.upload(d.ptr, np.arange(5, dtype=np.float32), 20)
    cap = _parprim.make_dlpack(d, d.ptr, 5, 2, 32, DL_CPU, 0)
    info = _parprim.dlpack_info(cap)
    assert info[0] == d.ptr and info[1] == DL_CPU and info[3:6] == (2, 32, 1) and info[6] == (5,), info
    del cap, d
    c.close()
    print("  device-array path (CAI, DLPack, DeviceArray) ok")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
    names = [x for x in argv if not x.startswith("-")]
    info = parprim.info()
    if not names:
        names = [b for b, i in info["backends"].items() if i["present"]]
    rng = np.random.default_rng(12345)
    print(f"parprim {info['version']} selfcheck: backends {names} (auto: {info['auto']})")
    for name in names:
        t0 = time.perf_counter()
        with parprim.Context(name) as ctx:
            print(f"{name}: {ctx.device_name}")
            check_backend(ctx, rng, full)
        print(f"  {name}: {time.perf_counter() - t0:.1f} s")
    if "cpu" in names:
        check_device_path(rng)
    # module functions: the per-thread default context
    a = np.arange(10, dtype=np.int64)
    assert parprim.reduce(a) == 45 and parprim.get_algorithm("scan") == "auto"
    raises(parprim.InvalidArgument, parprim.Context, "metal")
    closed = parprim.Context("cpu")
    closed.close()
    raises(parprim.Error, closed.reduce, a)
    print("selfcheck passed")


if __name__ == "__main__":
    main()
