#!/usr/bin/env python3
"""The default float sum of the Python package (parprim.reduce): time and
relative error of the candidates against np.sum on one backend, for
bench/studies/python-sums.md. Candidates: "fast" (exact=False, the
context's algorithm), "exact" (PP_ALGO_EXACT), "f64acc" (float32 summed in
float64 through pp_reduce_to, rounded to float32). Data: "uniform" [0, 1),
"wide" (normal values times 2^-20 .. 2^20). Times are the minimum over
--reps interleaved calls (a shared machine: interleaving spreads its load
over the candidates alike).

    build/py-venv/bin/python bench/py_sums.py --backend cpu --log2n 24,26
"""
import argparse
import math
import time

import numpy as np

import parprim


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="cpu")
    p.add_argument("--log2n", default="24,26")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--data", default="uniform,wide")
    args = p.parse_args()
    rng = np.random.default_rng(1)
    ctx = parprim.Context(args.backend)
    print(f"backend {ctx.backend}: {ctx.device_name}")
    print("| type | n | data | fast ms | exact ms | f64acc ms | np.sum ms | exact/fast | f64acc/fast "
          "| rel.err fast | exact | f64acc | np.sum |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lg in (int(x) for x in args.log2n.split(",")):
        n = 2**lg
        for data in args.data.split(","):
            for dt in (np.float32, np.float64):
                if data == "uniform":
                    a = rng.random(n).astype(dt)
                else:
                    a = (rng.standard_normal(n) * np.exp2(rng.integers(-20, 21, n))).astype(dt)
                cands = {"fast": lambda: ctx.reduce(a, exact=False), "exact": lambda: ctx.reduce(a, exact=True),
                         "np": lambda: np.sum(a)}
                if dt == np.float32:
                    cands["f64acc"] = lambda: np.float32(ctx.reduce(a, dtype=np.float64))
                res = {k: f() for k, f in cands.items()}
                best = {k: math.inf for k in cands}
                for _ in range(args.reps):
                    for k, f in cands.items():
                        t0 = time.perf_counter()
                        f()
                        best[k] = min(best[k], time.perf_counter() - t0)
                ref = math.fsum(a.astype(np.float64).tolist())
                err = {k: abs(float(v) - ref) / abs(ref) for k, v in res.items()}
                ms = {k: f"{v * 1e3:.2f}" for k, v in best.items()}
                wa = f"{best['f64acc'] / best['fast']:.3f}" if "f64acc" in best else "-"
                we = f"{err['f64acc']:.1e}" if "f64acc" in err else "-"
                print(f"| {np.dtype(dt).name} | 2^{lg} | {data} | {ms['fast']} | {ms['exact']} | {ms.get('f64acc', '-')} "
                      f"| {ms['np']} | {best['exact'] / best['fast']:.3f} | {wa} | {err['fast']:.1e} | "
                      f"{err['exact']:.1e} | {we} | {err['np']:.1e} |", flush=True)
    ctx.close()


if __name__ == "__main__":
    main()
