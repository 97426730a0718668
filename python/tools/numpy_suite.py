"""NumPy's own tests of sort, cumsum, sum, histogram and unique, run with
parprim behind those functions:

    python python/tools/numpy_suite.py [--backend cpu|opencl|cuda] [--quick] [-- PYTEST ARGS]

The installed NumPy ships its test modules (numpy/_core/tests,
numpy/lib/tests); this runs the tests of those five functions (SUITE, or
QUICK: the histogram and unique modules alone) with pytest, after replacing
np.sort, np.cumsum, np.sum, np.histogram and np.unique (the numpy module's
attributes, and the names a test module imported from numpy) by wrappers.
A wrapper calls parprim (a Context of --backend) where parprim covers the
arguments (COVERS: today's element types, and axis= as NumPy takes it
for sort, cumsum and sum), else the saved NumPy function. Where parprim
raises on a call it covers, NumPy is called too: its result is returned if
it has one (counted as "refused by parprim"), else parprim's error is raised
(the test sees parprim's exception). ndarray methods (a.sort(), a.sum(),
a.cumsum()) and ufunc methods (np.add.reduce) cannot be replaced: the tests
that use them run NumPy alone.

Prints pytest's report, then the calls each function sent to parprim and
to NumPy (with the reasons of the fallbacks). Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import collections
import inspect
import operator
import sys
import threading
from pathlib import Path

import numpy as np

import parprim

# (module, pytest -k expression or None): the tests of the five functions.
SUITE = [
    ("numpy/lib/tests/test_histograms.py", "TestHistogram and not Histogramdd"),
    ("numpy/lib/tests/test_arraysetops.py", None),
    ("numpy/lib/tests/test_function_base.py", "TestCumsum or sort or sum"),
    ("numpy/_core/tests/test_multiarray.py", "sort or cumsum or test_sum"),
    ("numpy/_core/tests/test_numeric.py", "sort or cumsum or sum"),
    ("numpy/_core/tests/test_ufunc.py", "test_sum or cumsum"),
]
QUICK = SUITE[:2]

# Element types parprim takes (bool: as 0/1 data of sums and unique).
NUMERIC = {np.dtype(t) for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                                 "float32", "float64")}
WITH_BOOL = NUMERIC | {np.dtype(bool)}

_state = threading.local()  # .inside: a wrapper is running parprim (its own NumPy calls go to NumPy)


class Stats:
    """Calls per function: served by parprim, fallback reasons."""

    def __init__(self):
        self.served = collections.Counter()
        self.fallback = collections.defaultdict(collections.Counter)

    def report(self):
        lines = ["calls            parprim   NumPy   (why NumPy)"]
        for name in NAMES:
            fb = self.fallback[name]
            lines.append(f"  np.{name:<12} {self.served[name]:>8} {sum(fb.values()):>7}")
            for why, k in fb.most_common(6):
                lines.append(f"      {k:>6}  {why}")
        return "\n".join(lines)


STATS = Stats()


def _array(a):
    """a as a plain ndarray when it is one, or a list/tuple/number NumPy
    makes one of; None for anything else (subclasses keep their type in
    NumPy: left to it)."""
    if type(a) is np.ndarray:
        return a
    if isinstance(a, (list, tuple, int, float, np.generic)):
        try:
            return np.asarray(a)
        except Exception:  # noqa: BLE001 - ragged lists and others: NumPy's to judge
            return None
    return None


def _axis_ok(x, axis):
    """parprim takes NumPy's axis= (an int, None, or for sum a tuple of
    ints); anything else (an array, a float) is NumPy's to refuse."""
    if axis is None:
        return True
    axes = axis if isinstance(axis, tuple) else (axis,)
    try:
        for a in axes:
            operator.index(a)
    except TypeError:
        return False
    return True


class Cover:
    """What parprim covers of one NumPy function: element types, the
    arguments that must keep one of their default values (name, values),
    whether axis is checked (_axis_ok), and the parprim call."""

    def __init__(self, types, defaults, axis, call):
        self.types, self.defaults, self.axis, self.call = types, defaults, axis, call

    def __call__(self, ctx, x, b):
        """(None, the call) where parprim covers the arguments b, else (the
        reason, None)."""
        if x.dtype not in self.types:
            return f"dtype {x.dtype}", None
        for k, values in self.defaults:
            if not any(b[k] is v for v in values):
                return f"{k}=", None
        if self.axis and not _axis_ok(x, b["axis"]):
            return f"axis={b['axis']!r} of a {x.ndim}-D array", None
        if isinstance(b.get("bins"), str):
            return "bins estimator (a string)", None
        return None, lambda: self.call(ctx, x, b)


COVERS = {
    "sort": Cover(NUMERIC, (("order", (None,)),), True, lambda ctx, x, b: ctx.sort(x, axis=b["axis"])),
    "cumsum": Cover(WITH_BOOL, (("out", (None,)),), True,
                    lambda ctx, x, b: ctx.scan(x, "sum", dtype=b["dtype"], axis=b["axis"])),
    "sum": Cover(WITH_BOOL, (("out", (None,)), ("initial", (np._NoValue,)), ("where", (np._NoValue, True))), True,
                 lambda ctx, x, b: ctx.reduce(x, "sum", dtype=b["dtype"], axis=b["axis"],
                                              keepdims=b["keepdims"] is True)),
    # weights: parprim.histogram hands them to NumPy, so they stay NumPy's here
    "histogram": Cover(NUMERIC, (("density", (None, False)), ("weights", (None,))), False,
                       lambda ctx, x, b: ctx.histogram(x, b["bins"], b["range"])),
    "unique": Cover(WITH_BOOL, (("axis", (None,)),), False,
                    lambda ctx, x, b: ctx.unique(x, bool(b["return_index"]), bool(b["return_inverse"]),
                                                 bool(b["return_counts"]), equal_nan=bool(b["equal_nan"]))),
}
NAMES = tuple(COVERS)
SAVED = {name: getattr(np, name) for name in NAMES}


def make_wrapper(name, ctx, stats=STATS):
    numpy_fn = SAVED[name]
    sig = inspect.signature(numpy_fn)
    cover = COVERS[name]

    def wrapper(*args, **kwargs):
        if getattr(_state, "inside", False):
            return numpy_fn(*args, **kwargs)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            stats.fallback[name]["arguments NumPy refuses"] += 1
            return numpy_fn(*args, **kwargs)
        bound.apply_defaults()
        b = bound.arguments
        a = next(iter(b.values()))
        x = _array(a)
        why, call = (f"a {type(a).__name__} (not an ndarray)", None) if x is None else cover(ctx, x, b)
        if call is None:
            stats.fallback[name][why] += 1
            return numpy_fn(*args, **kwargs)
        _state.inside = True
        try:
            res = call()
        except parprim.Error as e:
            _state.inside = False
            try:
                res = numpy_fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - both refuse: the test sees parprim's error
                stats.served[name] += 1
                raise e from None
            stats.fallback[name][f"refused by parprim: {type(e).__name__}: {str(e)[:90]}"] += 1
            return res
        finally:
            _state.inside = False
        stats.served[name] += 1
        return res

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = numpy_fn.__doc__
    wrapper.__signature__ = sig
    wrapper.__wrapped_numpy__ = numpy_fn
    return wrapper


class Plugin:
    """pytest plugin: the wrappers in place from the start of the session
    (before the test modules import names from numpy) to its end; every
    collected module's globals that are NumPy's functions are replaced too."""

    def __init__(self, ctx, stats=STATS):
        self.wrappers = {name: make_wrapper(name, ctx, stats) for name in NAMES}

    def _patch(self, ns, table):
        for name in NAMES:
            cur = ns.get(name) if isinstance(ns, dict) else getattr(ns, name, None)
            if cur is SAVED[name] or cur is self.wrappers[name]:
                if isinstance(ns, dict):
                    ns[name] = table[name]
                else:
                    setattr(ns, name, table[name])

    def pytest_sessionstart(self, session):
        self._patch(np, self.wrappers)

    def pytest_collection_finish(self, session):
        for mod in {getattr(item, "module", None) for item in session.items} - {None}:
            self._patch(vars(mod), self.wrappers)

    def pytest_sessionfinish(self, session, exitstatus):
        self._patch(np, SAVED)


def numpy_dir():
    return Path(np.__file__).resolve().parent


def pytest_args(selection, extra=()):
    """pytest's arguments for the (module, -k) pairs of selection: one run
    over the modules, each module's -k expression joined with its name so
    that it filters that module's tests alone."""
    root = numpy_dir().parent
    files, exprs = [], []
    for mod, k in selection:
        path = root / mod
        files.append(str(path))
        stem = Path(mod).stem
        exprs.append(f"({stem} and ({k}))" if k else stem)
    return files + ["-k", " or ".join(exprs), "-p", "no:cacheprovider", "-q", "-rfE", "--rootdir", str(root),
                    "-o", "addopts=", *extra]


def run(backend="auto", quick=False, extra=()):
    """Runs the selection; returns (pytest exit status, Stats)."""
    import pytest

    stats = Stats()
    with parprim.Context(backend) as ctx:
        rc = pytest.main(pytest_args(QUICK if quick else SUITE, extra), plugins=[Plugin(ctx, stats)])
    return int(rc), stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="auto", help="parprim backend behind the wrappers (default auto)")
    ap.add_argument("--quick", action="store_true", help="the histogram and unique modules only")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = ap.parse_args(argv)
    rc, stats = run(args.backend, args.quick, args.pytest_args)
    print(f"\nNumPy {np.__version__}, parprim {parprim.__version__}, backend {args.backend}")
    print(stats.report())
    return rc


if __name__ == "__main__":
    sys.exit(main())
