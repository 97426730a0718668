"""NumPy's time per call for the rows of cpu_small.c (the yardstick of
bench/studies/cpu-small-arrays.md): best of 7 timeit batches.
Run: python3 bench/studies/np_small.py (NumPy installed)."""
import timeit

import numpy as np

rng = np.random.default_rng(1)
NS = [10, 100, 1000, 10000, 100000]
print("numpy", np.__version__)
for name, make in [
    ("reduce sum f32", lambda a32, a64, u: lambda: np.add.reduce(a32)),
    ("reduce max f32", lambda a32, a64, u: lambda: a32.max()),
    ("reduce min f64", lambda a32, a64, u: lambda: a64.min()),
    ("reduce sum u32", lambda a32, a64, u: lambda: np.add.reduce(u)),
    ("scan f32", lambda a32, a64, u: lambda: np.cumsum(a32)),
    ("scan u32", lambda a32, a64, u: lambda: np.cumsum(u, dtype=np.uint32)),
    ("argmax f32", lambda a32, a64, u: lambda: a32.argmax()),
    ("reduce_to u32>u64", lambda a32, a64, u: lambda: u.sum(dtype=np.uint64)),
    ("histogram f32 100", lambda a32, a64, u: lambda: np.histogram(a32, 100, (0.0, 1.0))),
    ("select_if u32", lambda a32, a64, u: lambda: u[u < (1 << 31)]),
    ("sort u32", lambda a32, a64, u: lambda: np.sort(u)),
    ("sort f32", lambda a32, a64, u: lambda: np.sort(a32)),
]:
    row = []
    for n in NS:
        a32 = rng.random(n, dtype=np.float32)
        a64 = rng.random(n)
        u = rng.integers(0, 2**32, n, dtype=np.uint32)
        f = make(a32, a64, u)
        t = timeit.Timer(f)
        reps, _ = t.autorange()
        row.append(min(t.repeat(7, reps)) / reps * 1e6)
    print(f"{name:20s}" + "".join(f" {x:9.2f}" for x in row) + "   us at n = 10 .. 1e5")
