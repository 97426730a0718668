"""The binding's per-call overhead: python python/tools/overhead.py [--n 1024] [--backend cuda]

Times parprim.reduce on a small array (the module function, the Context
method, and the raw extension call) against the same C call (pp_reduce)
timed by a C loop inside the extension with the GIL released
(_parprim.time_reduce): on a cpu context (NumPy array) with all threads and
with one thread, or on a cuda context (a CuPy array in device memory; each
call returns the scalar to the host, as the C loop does). Overhead =
Python-level time - C time. Each figure is the best of several repeats (the
least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np

import parprim
from parprim import _parprim


def _best(fn, number, repeat):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def measure(n=1024, dtype="float32", threads=0, number=20000, repeat=7):
    """Seconds per call: {"c", "raw", "method", "module", "numpy"}."""
    a = (np.random.default_rng(1).random(n) * 100).astype(dtype)
    ctx = parprim.Context("cpu", threads=threads)
    try:
        raw = ctx._c
        res = {}
        res["c"] = min(_parprim.time_reduce(raw, a, "sum", number) for _ in range(repeat))
        res["raw"] = _best(lambda: raw.reduce(a, "sum", -1, -1), number, repeat)
        res["method"] = _best(lambda: ctx.reduce(a), number, repeat)
        if threads == 0:
            # the module function runs on the thread's default context: timed
            # where that is cpu (auto picks a GPU where there is one; set
            # PARPRIM_BACKEND=cpu to time it there)
            if parprim.default_context().backend == "cpu":
                res["module"] = _best(lambda: parprim.reduce(a), number, repeat)
        res["numpy"] = _best(lambda: a.sum(), number, repeat)
        res["threads"] = ctx.threads
    finally:
        ctx.close()
    return res


def measure_cuda(n=1024, dtype="float32", number=5000, repeat=7):
    """Seconds per call on a cuda context, a CuPy array: {"c", "raw", "method", "cupy"}."""
    import cupy as cp

    from parprim._arrays import CODE

    a = cp.asarray((np.random.default_rng(1).random(n) * 100).astype(dtype))
    ctx = parprim.Context("cuda")
    try:
        raw = ctx._c
        code = CODE[np.dtype(dtype)]
        ptr = int(a.data.ptr)
        ctx.reduce(a)  # warm: kernels loaded, scratch allocated
        res = {"c": min(_parprim.time_reduce(raw, ptr, "sum", number, code, n) for _ in range(repeat))}
        res["raw"] = _best(lambda: raw.reduce(ptr, "sum", code, n), number, repeat)
        res["method"] = _best(lambda: ctx.reduce(a), number, repeat)
        res["cupy"] = _best(lambda: float(a.sum()), number, repeat)
    finally:
        ctx.close()
    return res


def _profile(backend, n, dtype, calls=20000):
    import cProfile
    import pstats

    a = (np.random.default_rng(1).random(n) * 100).astype(dtype)
    if backend == "cuda":
        import cupy as cp

        a = cp.asarray(a)
    ctx = parprim.Context(backend)
    try:
        ctx.reduce(a)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            ctx.reduce(a)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
    finally:
        ctx.close()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--number", type=int, default=20000)
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--profile", action="store_true", help="cProfile of Context.reduce calls: where the overhead goes")
    args = p.parse_args(argv)
    if args.profile:
        _profile(args.backend, args.n, args.dtype)
        return
    if args.backend == "cuda":
        r = measure_cuda(args.n, args.dtype, min(args.number, 5000))
        c = r["c"]
        print(f"parprim {parprim.__version__}: reduce of {args.n} {args.dtype} elements on cuda (a CuPy array)")
        print(f"  C call (pp_reduce + result to host, C loop) {c * 1e6:7.3f} us")
        for key, label in (("raw", "_parprim.Context.reduce (extension)"), ("method", "Context.reduce")):
            print(f"  {label:42s} {r[key] * 1e6:7.3f} us   overhead {(r[key] - c) * 1e6:6.3f} us")
        print(f"  float(cupy a.sum()) for comparison          {r['cupy'] * 1e6:7.3f} us")
        return
    print(f"parprim {parprim.__version__}: reduce of {args.n} {args.dtype} elements, best of 7 x {args.number} calls")
    for threads in (0, 1):
        r = measure(args.n, args.dtype, threads, args.number)
        c = r["c"]
        print(f"cpu context, {r['threads']} thread(s):")
        print(f"  C call (pp_reduce, C loop, GIL released)   {c * 1e6:7.3f} us")
        for key, label in (("raw", "_parprim.Context.reduce (extension)"), ("method", "Context.reduce"),
                           ("module", "parprim.reduce (module function)")):
            if key in r:
                print(f"  {label:42s} {r[key] * 1e6:7.3f} us   overhead {(r[key] - c) * 1e6:6.3f} us")
        print(f"  numpy a.sum() for comparison               {r['numpy'] * 1e6:7.3f} us")


if __name__ == "__main__":
    main()
