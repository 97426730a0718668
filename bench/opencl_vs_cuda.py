#!/usr/bin/env python3
"""The opencl/cuda throughput table of two `pp bench --json` runs on the same
GPU (scripts/gpu/opencl.sh): one Markdown row per opencl row that cuda has
too (same primitive, algorithm, operator, type and n), with both medians,
their throughput ratio and the target it is held to (--target, which the
script reads from bench/targets.txt). Prints the table; exit status 1 where a
file cannot be read."""
import argparse
import json
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cuda_json")
    ap.add_argument("opencl_json")
    ap.add_argument("--target", type=float, required=True,
                    help="the opencl / cuda throughput to meet (bench/targets.txt: opencl_vs_cuda_throughput)")
    a = ap.parse_args(argv)
    try:
        with open(a.cuda_json) as f:
            cu = json.load(f)
        with open(a.opencl_json) as f:
            cl = json.load(f)
    except (OSError, ValueError) as e:
        print("opencl_vs_cuda: %s" % e, file=sys.stderr)
        return 1
    print("\nopencl on %s against cuda on %s (pp bench medians)\n" % (cl["header"]["device"], cu["header"]["device"]))
    print("| primitive | algorithm | type | n | cuda ms | opencl ms | opencl / cuda throughput | target |")
    print("|---|---|---|---|---:|---:|---:|---:|")
    key = lambda r: (r["primitive"], r.get("algorithm"), r.get("op"), r["type"], r["n"])
    cuda = {key(r): r for r in cu["rows"]}
    for r in cl["rows"]:
        c = cuda.get(key(r))
        if c and r["median_ms"] and c["median_ms"]:
            print("| %s | %s | %s | %d | %.3f | %.3f | %.2f | >= %.2f |" % (
                r["primitive"], r.get("algorithm", "auto"), r["type"], r["n"], c["median_ms"], r["median_ms"],
                c["median_ms"] / r["median_ms"], a.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
