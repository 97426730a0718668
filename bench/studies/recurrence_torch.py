"""By hand, on a GPU: the recurrence y[i] = a[i] y[i-1] + b[i] (f32, y[-1]
= 0) solved by parprim's scan of affine maps under an Operator (the
examples/recurrence.c operator, on a PyTorch tensor in the packed form)
against what PyTorch offers (examples/recurrence.md, "Against PyTorch"):

- torch's associative_scan (torch._higher_order_ops), where this PyTorch
  has it and it runs (it compiles the combine function);
- the closed form y = P cumsum(b / P), P = cumprod(a), in f64: two library
  scans, but P underflows for long sequences (a < 1): it is exact only for
  short ones, and the script reports its error;
- a Python loop over the tensor's elements on the GPU, timed on a short
  prefix (one kernel launch per element).

Each parprim and torch result is compared with a sequential loop in f64 on
the host; times are the best of 5 after a warm-up, synchronized.

    python bench/studies/recurrence_torch.py [log2 n]
"""

import sys
import time

import numpy as np
import torch

import parprim

SOURCE = """typedef struct { float a, b; } pp_elem;
pp_elem pp_combine(pp_elem f, pp_elem g)
{ pp_elem r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r; }
"""


def best(fn, reps=5):
    fn()
    torch.cuda.synchronize()
    t = 1e30
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        t = min(t, time.perf_counter() - t0)
    return t * 1e3


def reference(a, b):
    y = np.empty(len(a))
    acc = 0.0
    for i in range(len(a)):
        acc = float(a[i]) * acc + float(b[i])
        y[i] = acc
    return y


def main():
    n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 24)
    g = torch.Generator(device="cuda").manual_seed(12345)
    a = torch.rand(n, device="cuda", generator=g) * 0.5 + 0.5
    b = torch.rand(n, device="cuda", generator=g) * 2 - 1
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, n = {n}")
    maps = torch.stack([a, b], dim=1).contiguous()  # the packed form: (n, 2) f32
    maps[0, 0] = 0.0  # step 0 as the constant map (examples/recurrence.md): the b fields are y
    op = parprim.Operator(SOURCE, np.dtype([("a", "f4"), ("b", "f4")], align=True), (1.0, 0.0))
    out = torch.empty_like(maps)
    t_pp = best(lambda: parprim.scan(maps, op=op, out=out))
    y_pp = out[:, 1].double().cpu().numpy()
    m = min(n, 1 << 22)  # the host reference: a loop in Python
    ref = reference(a[:m].cpu().numpy(), b[:m].cpu().numpy())
    scale = np.abs(ref).max() + 1

    def err(y):
        return float(np.abs(y[:m] - ref).max() / scale)

    print(f"parprim scan of maps (Operator, packed (n, 2) f32 tensor): {t_pp:8.3f} ms, error {err(y_pp):.2e}"
          f" (relative to max |y|, first {m})")
    try:
        from torch._higher_order_ops.associative_scan import associative_scan

        def combine(f, g2):
            return (f[0] * g2[0], g2[0] * f[1] + g2[1])

        def run():
            return associative_scan(combine, (a, b), dim=0)

        t = best(run)
        y = run()[1].double().cpu().numpy()
        print(f"torch associative_scan:                                  {t:8.3f} ms, error {err(y):.2e}")
    except Exception as e:  # not in this PyTorch, or it cannot compile here
        print(f"torch associative_scan: not run ({type(e).__name__}: {str(e).splitlines()[0][:120]})")
    a64, b64 = a.double(), b.double()

    def closed():
        p = torch.cumprod(a64, 0)
        return p * torch.cumsum(b64 / p, 0)

    t = best(closed)
    y = closed().cpu().numpy()
    print(f"torch closed form cumprod/cumsum (f64):                  {t:8.3f} ms, error {err(y):.2e}"
          f" (P underflows: {int(torch.isinf(b64 / torch.cumprod(a64, 0)).sum())} infinities)")
    k = 2000
    ys = torch.empty(k, device="cuda")

    def loop():
        acc = torch.zeros((), device="cuda")
        for i in range(k):
            acc = a[i] * acc + b[i]
            ys[i] = acc

    t = best(loop, reps=2)
    print(f"torch Python loop on the GPU, {k} elements:               {t:8.3f} ms"
          f" ({t / k * n:.0f} ms for all n at that rate)")


if __name__ == "__main__":
    main()
