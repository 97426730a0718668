"""np.sort (default kind) at 2^24 for u32, f32, u64, f64: the best of R
calls (default 5), in ms; the data as bench/studies/cpu_avx2.c makes it
(uniform integers over the type's range, floats uniform in [0, 1)).
Run: python bench/studies/np_sort24.py [R]"""
import sys
import time

import numpy as np

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
n = 1 << 24
rng = np.random.default_rng(1)
data = {
    "u32": rng.integers(0, 2**32, n, dtype=np.uint32),
    "f32": rng.random(n, dtype=np.float32),
    "u64": rng.integers(0, 2**64, n, dtype=np.uint64),
    "f64": rng.random(n),
}
print("numpy", np.__version__)
for name, a in data.items():
    best = 1e30
    for _ in range(reps):
        t = time.perf_counter()
        np.sort(a)
        best = min(best, time.perf_counter() - t)
    print(f"{name} np.sort {best * 1e3:.2f} ms")
