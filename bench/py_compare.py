#!/usr/bin/env python3
"""parprim from Python against NumPy (cpu) or CuPy (cuda), same run.

    python bench/py_compare.py --backend cpu  [--n 2^24] [--types u32,f32]
    python bench/py_compare.py --backend cuda [--n 2^28]
    python bench/py_compare.py --types u32,f32,u64,f64 --ops sort   # the sorts alone
    python bench/py_compare.py --small [--types u32,f32,f64]   # per-call times at n = 10 .. 10^4 (cpu)

Each row times one operation on the same input array with parprim (a
Context of the backend; NumPy arrays on cpu, CuPy arrays on cuda) and with
the library it competes with, after checking that both give the same
result (exactly, or for float sums within the rounding of two summation
orders). Times are the median of --repeat runs after one warm-up; on cuda
each run ends with a device synchronize. Throughput is input elements per
second. --json FILE writes every row.

Rows (the same meaning on both sides; NumPy's defaults noted where they
differ):
  sum           reduce(a)          np.sum(a)  (both in NumPy's result type:
                                   u32 to u64; f32 sums: parprim accumulates
                                   in f64, NumPy pairwise in f32);
                                   parprim returns the value on the host, CuPy
                                   a device array: on cuda a second row times
                                   CuPy's sum with .item() (the value on the host)
  cumsum        scan(a, dtype=a.dtype)  np.cumsum(a, dtype=a.dtype)  (the
                                   input type on both sides)
  histogram     histogram_even(a, 1024, lo, hi)  np.histogram(a, 1024, (lo, hi))
                (C semantics: [lo, hi); right_closed=True matches NumPy's
                last bin, a row of its own)
  mask select   select_flagged(a, m)  a[m]     (m: about half true)
  sort stable   sort(a)            np.sort(a, kind="stable")
  sort default  sort(a)            np.sort(a)  (NumPy: introsort/SIMD, unstable)
  unique        unique(a)          np.unique(a); with return_counts a row of its own
  argsort       argsort(a)         np.argsort(a, kind="stable")
  segmented sum 64          segmented_reduce(a, every 64)   np.add.reduceat (cpu only)
  segmented sort 1K         segmented_sort(a, every 1024)   np.sort(a.reshape(-1, 1024), axis=1)
  segmented sort power-law  segmented_sort(a, power-law)    a[np.lexsort((a, segment ids))]
  cumsum initial            scan(a, initial=1)              np.cumsum(a) + 1 (cpu only: the same one pass
                                   for NumPy would need initial= in np.cumsum, which it lacks)
  searchsorted              searchsorted(s, q)   np.searchsorted(s, q)  (s: a sorted; q: n/16
                                   of a's elements, random order)
  merge halves              merge(s1, s2)        np.sort(np.concatenate((s1, s2)), kind="stable")
                                   (s1, s2: each half of a, sorted; NumPy has no merge, its
                                   stable sort finds the two runs)
  top_k 1000                top_k(a, 1000)       np.sort(np.partition(a, n - 1000)[n - 1000:])[::-1]
                                   (values compared; with indices: np.argpartition, then the k
                                   sorted, a row of its own)

--small (cpu): per-call times in microseconds of the module functions
(parprim.sum ... on the default context, with NumPy arrays, as a user calls
them) beside NumPy's at n = 10, 100, 1000, 10^4: sum (parprim.reduce /
np.sum), max, cumsum (parprim.scan / np.cumsum, both in NumPy's result
type), sort (np.sort's default kind), argsort (kind="stable"), unique and
searchsorted (10 queries of a's type); the best of 5 timings of a loop of
calls, after checking the results are the same. Default types u32,f32,f64.

NumPy picks its sort's instruction set when it is imported. On AMD Zen 4
its AVX-512 sort is several times slower than its AVX2 one (the
memory-destination compress stores it uses are microcoded there); run
with NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" to compare
against the AVX2 sort as well (bench/studies/cpu-sort.md has both).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

import parprim

TYPES = {"u32": np.uint32, "f32": np.float32, "i32": np.int32, "u64": np.uint64, "f64": np.float64}


def parse_n(s):
    return 2 ** int(s[2:]) if s.startswith("2^") else int(s)


class Side:
    """What differs between cpu/NumPy and cuda/CuPy: the array module, the
    transfer to the host for checks, and the wait for the device."""

    def __init__(self, backend):
        self.backend = backend
        if backend == "cuda":
            import cupy

            self.xp = cupy
            self.host = cupy.asnumpy
            self.sync = cupy.cuda.Device().synchronize
        else:
            self.xp = np
            self.host = np.asarray
            self.sync = lambda: None


def timed(side, fn, repeat):
    fn()  # warm-up: kernels compiled or loaded, memory pools filled
    side.sync()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        side.sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def data(side, t, n, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(t).kind == "f":
        h = rng.random(n, dtype=np.float32).astype(t)
        lo, hi = 0.0, 1.0
    else:
        h = rng.integers(0, 1 << 24, n, dtype=t)
        lo, hi = 0, 1 << 24
    return side.xp.asarray(h), lo, hi


def rows(side, ctx, a, lo, hi):
    xp = side.xp
    m = a < (hi + lo) / 2 if a.dtype.kind == "f" else a < (hi + lo) // 2
    out = xp.empty_like(a)

    def eq(x, y):
        return np.array_equal(side.host(x), side.host(y))

    def close(x, y):
        x, y = float(x), float(y)
        return abs(x - y) <= 1e-4 * max(1.0, abs(y))  # two summation orders of f32

    fsum = close if a.dtype.kind == "f" else (lambda x, y: int(x) == int(y))
    fsum_all = ((lambda x, y: np.allclose(side.host(x), side.host(y), rtol=1e-4)) if a.dtype.kind == "f" else eq)
    n = a.shape[0]
    # segment layouts: every 64, every 1024 elements (n a multiple of 1024),
    # and power-law lengths (2^(20 u)); the power-law rows' segment ids
    rng = np.random.default_rng(11)
    off64 = np.arange(0, n + 1, 64, dtype=np.uint64)
    off1k = np.arange(0, n + 1, 1024, dtype=np.uint64)
    lens = np.exp2(rng.random(n // 16 + 2) * 20).astype(np.int64)
    ends = np.minimum(np.cumsum(lens), n)
    ends = ends[: int(np.searchsorted(ends, n)) + 1]
    offpl_h = np.concatenate(([0], ends)).astype(np.uint64)
    offpl = xp.asarray(offpl_h)
    off64, off1k = (off64, off1k) if xp is np else (xp.asarray(off64), xp.asarray(off1k))
    segpl = xp.asarray(np.repeat(np.arange(len(offpl_h) - 1, dtype=np.uint32), np.diff(offpl_h).astype(np.int64)))
    # searchsorted, merge and top_k: a sorted copy, queries, sorted halves
    srt = xp.sort(a)
    q = a[rng.permutation(n)[: max(1, n // 16)] if xp is np else xp.asarray(rng.permutation(n)[: max(1, n // 16)])]
    h1, h2 = xp.sort(a[: n // 2]), xp.sort(a[n // 2:])
    k = min(1000, n)

    def top_idx(x):  # the k largest's indices, largest first (ties in any order)
        i = xp.argpartition(x, n - k)[n - k:]
        return i[xp.argsort(x[i], kind="stable")[::-1]] if xp is np else i[xp.argsort(x[i])[::-1]]
    return [
        ("sum", lambda: ctx.reduce(a), lambda: xp.sum(a), fsum),
        ("sum, value to host" if xp is not np else None, lambda: ctx.reduce(a),
         lambda: xp.sum(a).item(), fsum),
        ("cumsum", lambda: ctx.scan(a, out=out, dtype=a.dtype), lambda: xp.cumsum(a, dtype=a.dtype),
         (lambda x, y: np.allclose(side.host(x), side.host(y), rtol=1e-3)) if a.dtype.kind == "f" else eq),
        ("histogram 1024", lambda: ctx.histogram_even(a, 1024, lo, hi), lambda: xp.histogram(a, 1024, (lo, hi))[0],
         eq),
        ("histogram 1024 right_closed", lambda: ctx.histogram_even(a, 1024, lo, hi, right_closed=True),
         lambda: xp.histogram(a, 1024, (lo, hi))[0], eq),
        ("mask select", lambda: ctx.select_flagged(a, m), lambda: a[m], eq),
        ("sort (stable)", lambda: ctx.sort(a), lambda: xp.sort(a, kind="stable") if xp is np else xp.sort(a), eq),
        ("sort (NumPy default)" if xp is np else None, lambda: ctx.sort(a), lambda: xp.sort(a), eq),
        ("unique", lambda: ctx.unique(a), lambda: xp.unique(a), eq),
        ("unique counts", lambda: ctx.unique(a, return_counts=True), lambda: xp.unique(a, return_counts=True),
         lambda x, y: eq(x[0], y[0]) and eq(x[1], y[1])),
        ("argsort", lambda: ctx.argsort(a), lambda: xp.argsort(a, kind="stable") if xp is np else xp.argsort(a),
         eq),
        ("segmented sum 64" if xp is np else None, lambda: ctx.segmented_reduce(a, off64),
         lambda: np.add.reduceat(a, off64[:-1].astype(np.int64), dtype=a.dtype), fsum_all),
        ("segmented sort 1K (sort axis=1)", lambda: ctx.segmented_sort(a, off1k),
         lambda: xp.sort(a.reshape(-1, 1024), axis=1, kind="stable").reshape(-1) if xp is np
         else xp.sort(a.reshape(-1, 1024), axis=1).reshape(-1), eq),
        ("segmented sort power-law (lexsort)", lambda: ctx.segmented_sort(a, offpl),
         lambda: a[xp.lexsort(xp.stack((a, segpl)))], eq),
        ("cumsum initial" if xp is np else None, lambda: ctx.scan(a, out=out, initial=1),
         lambda: np.cumsum(a, dtype=a.dtype) + a.dtype.type(1),
         (lambda x, y: np.allclose(side.host(x), side.host(y), rtol=1e-3)) if a.dtype.kind == "f" else eq),
        ("searchsorted n/16 queries", lambda: ctx.searchsorted(srt, q), lambda: xp.searchsorted(srt, q), eq),
        ("merge halves (stable sort of both)", lambda: ctx.merge(h1, h2),
         lambda: xp.sort(xp.concatenate((h1, h2)), kind="stable") if xp is np
         else xp.sort(xp.concatenate((h1, h2))), eq),
        ("top_k 1000 (partition + sort)", lambda: ctx.top_k(a, k)[0],
         lambda: xp.sort(xp.partition(a, n - k)[n - k:])[::-1], eq),
        ("top_k 1000 with indices (argpartition)", lambda: ctx.top_k(a, k),
         lambda: top_idx(a), lambda x, y: eq(x, a[y])),  # x: our values (main keeps a tuple's first)
    ]


SMALL_N = (10, 100, 1000, 10_000)


def small_rows(a, q):
    """The --small rows: (name, parprim call, NumPy call, same result?)."""
    srt = np.sort(a)
    eq = np.array_equal
    feq = (lambda x, y: np.allclose(x, y, rtol=1e-5)) if a.dtype.kind == "f" else eq
    return [
        ("sum", lambda: parprim.reduce(a), lambda: np.sum(a), feq),
        ("max", lambda: parprim.reduce(a, "max"), lambda: np.max(a), eq),
        ("cumsum", lambda: parprim.scan(a), lambda: np.cumsum(a), feq),
        ("sort", lambda: parprim.sort(a), lambda: np.sort(a), eq),
        ("argsort", lambda: parprim.argsort(a), lambda: np.argsort(a, kind="stable"), eq),
        ("unique", lambda: parprim.unique(a), lambda: np.unique(a), eq),
        ("searchsorted", lambda: parprim.searchsorted(srt, q), lambda: np.searchsorted(srt, q), eq),
    ]


def per_call_us(fn, n):
    """The best of 5 timings of a loop of calls, in microseconds per call."""
    k = max(20, 200_000 // (n + 100))
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        best = min(best, time.perf_counter() - t0)
    return best / k * 1e6


def small_main(args):
    types = args.types if args.types_given else "u32,f32,f64"
    other = "NumPy " + np.__version__
    ctx = parprim.default_context()
    print(f"parprim {parprim.__version__} module functions on {ctx.backend} ({ctx.device_name}) against {other}; "
          "microseconds per call, best of 5 loops")
    print("| type | operation | " + " | ".join(f"n={n} parprim | NumPy" for n in SMALL_N) + " |")
    print("| --- | --- |" + " ---: | ---: |" * len(SMALL_N))
    ok, out = True, []
    for tn in types.split(","):
        rng = np.random.default_rng(7)
        table = {}
        for n in SMALL_N:
            a, _, _ = data(Side("cpu"), TYPES[tn], n, 7)
            q = a[rng.integers(0, n, 10)]
            for name, ours, theirs, same in small_rows(a, q):
                if args.ops and not name.startswith(tuple(args.ops.split(","))):
                    continue
                good = bool(same(ours(), theirs()))
                ok &= good
                t0, t1 = per_call_us(ours, n), per_call_us(theirs, n)
                table.setdefault(name, []).append(f"{t0:.2f}{'' if good else ' DIFFER'} | {t1:.2f}")
                out.append({"type": tn, "op": name, "n": n, "parprim_us": t0, "numpy_us": t1, "same_result": good})
        for name, cells in table.items():
            print(f"| {tn} | {name} | " + " | ".join(cells) + " |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": ctx.backend, "device": ctx.device_name, "small": True, "rows": out}, f, indent=1)
    return 0 if ok else 1


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--n", default=None, help="elements (2^k allowed); default 2^24 on cpu, 2^28 on cuda")
    p.add_argument("--types", default=None, help="default u32,f32 (--small: u32,f32,f64)")
    p.add_argument("--ops", default=None, help="rows whose operation starts with one of these (comma separated)")
    p.add_argument("--repeat", type=int, default=None, help="default 10 on cpu, 20 on cuda")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--json", default=None)
    p.add_argument("--small", action="store_true", help="per-call times at n = 10 .. 10^4 (cpu, module functions)")
    args = p.parse_args(argv)
    args.types_given = args.types is not None
    args.types = args.types or "u32,f32"
    if args.small:
        if args.backend != "cpu":
            p.error("--small runs on the cpu backend")
        return small_main(args)
    n = parse_n(args.n) if args.n else (1 << 28 if args.backend == "cuda" else 1 << 24)
    repeat = args.repeat or (20 if args.backend == "cuda" else 10)
    side = Side(args.backend)
    ctx = parprim.Context(args.backend, threads=args.threads) if args.backend == "cpu" else parprim.Context("cuda")
    other = "NumPy " + np.__version__ if side.xp is np else "CuPy " + side.xp.__version__
    print(f"parprim {parprim.__version__} on {args.backend} ({ctx.device_name}, {ctx.threads} threads) "
          f"against {other}; n = {n}, median of {repeat}")
    print(f"| type | operation | parprim ms | {other.split()[0]} ms | speedup | parprim Gelem/s |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    out = []
    ok = True
    for tn in args.types.split(","):
        a, lo, hi = data(side, TYPES[tn], n, 7)
        for name, ours, theirs, same in rows(side, ctx, a, lo, hi):
            if name is None or (args.ops and not name.startswith(tuple(args.ops.split(",")))):
                continue
            r0, r1 = ours(), theirs()
            if isinstance(r0, tuple) and not isinstance(r1, tuple):
                r0 = r0[0]
            good = bool(same(r0, r1))
            ok &= good
            del r0, r1
            t0 = timed(side, ours, repeat)
            t1 = timed(side, theirs, repeat)
            row = {"type": tn, "op": name, "n": n, "parprim_s": t0, "other_s": t1, "other": other,
                   "speedup": t1 / t0, "same_result": good}
            out.append(row)
            print(f"| {tn} | {name} | {t0 * 1e3:.3f} | {t1 * 1e3:.3f} | {t1 / t0:.2f} | {n / t0 / 1e9:.2f} |"
                  + ("" if good else " RESULTS DIFFER"), flush=True)
        del a
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "device": ctx.device_name, "threads": ctx.threads, "n": n,
                       "repeat": repeat, "rows": out}, f, indent=1)
    ctx.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
