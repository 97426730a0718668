"""Other array kinds: results are of the input's kind. PyTorch CPU tensors
on cpu; CuPy arrays and PyTorch CUDA tensors on cuda. Skipped, with the
reason, where the library or the backend is missing."""

import importlib

import numpy as np
import pytest

import parprim

from conftest import BACKENDS, context, make_data, ref_histogram_even, ref_sort_order


def _import(name):
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - any failure to import means: skip
        pytest.skip(f"{name} is not importable here: {type(e).__name__}: {e}")


def _check_all(ctx, a_np, to_kind, to_numpy, is_kind):
    """Every primitive on to_kind(a_np): results of that kind, equal to NumPy's."""
    a = to_kind(a_np)
    r = ctx.reduce(a, "max")
    assert r == a_np.max()
    s = ctx.scan(a, "sum")
    assert is_kind(s), type(s)
    assert np.array_equal(to_numpy(s), np.cumsum(a_np, dtype=a_np.dtype))
    out = to_kind(np.zeros_like(a_np))
    ctx.scan(a, "sum", out=out, dtype=a_np.dtype)
    assert np.array_equal(to_numpy(out), np.cumsum(a_np, dtype=a_np.dtype))
    h = ctx.histogram_even(a, 7, -1000, 1000)
    assert is_kind(h), type(h)
    assert np.array_equal(to_numpy(h), ref_histogram_even(a_np, 7, -1000, 1000))
    f = to_kind(a_np % 3 == 0)
    sel = ctx.select_flagged(a, f)
    assert is_kind(sel) and np.array_equal(to_numpy(sel), a_np[a_np % 3 == 0])
    sel = ctx.select_if(a, "<", 0)
    assert is_kind(sel) and np.array_equal(to_numpy(sel), a_np[a_np < 0])
    u = ctx.unique(a)
    assert is_kind(u) and np.array_equal(to_numpy(u), np.unique(a_np))
    p, c = ctx.partition_if(a, ">", 5)
    assert is_kind(p) and int(c) == int((a_np > 5).sum())
    st = ctx.sort(a, descending=True)
    assert is_kind(st) and np.array_equal(to_numpy(st), a_np[ref_sort_order(a_np, True)])
    k, v = ctx.sort_pairs(a, to_kind(np.arange(a_np.size, dtype=np.int64)))
    assert is_kind(k) and is_kind(v)
    order = ref_sort_order(a_np)
    assert np.array_equal(to_numpy(k), a_np[order]) and np.array_equal(to_numpy(v), order)
    s_np = np.sort(a_np)
    try:  # issue 43's calls: cuda answers Unsupported for them for now
        i = ctx.searchsorted(to_kind(s_np), to_kind(a_np[:100]), "right")
        assert is_kind(i) and np.array_equal(to_numpy(i), np.searchsorted(s_np, a_np[:100], "right"))
        m = ctx.merge(to_kind(s_np), to_kind(s_np[::3].copy()))
        assert is_kind(m) and np.array_equal(to_numpy(m), np.sort(np.concatenate([s_np, s_np[::3]])))
        vals, idx = ctx.top_k(a, 10)
        top = ref_sort_order(a_np, True)[:10]
        assert is_kind(vals) and is_kind(idx) and np.array_equal(to_numpy(idx), top)
        sc = ctx.scan(a, "sum", initial=5)
        assert is_kind(sc) and np.array_equal(to_numpy(sc), np.cumsum(a_np, dtype=a_np.dtype) + a_np.dtype.type(5))
    except parprim.Unsupported:
        pass
    ctx.sort(a, out=a)
    assert np.array_equal(to_numpy(a), np.sort(a_np))


def test_torch_cpu_tensors(rng):
    torch = _import("torch")
    ctx = context("cpu")
    a_np = make_data(rng, np.int32, 10007, "dups") % 2000 - 1000
    _check_all(ctx, a_np, lambda x: torch.from_numpy(x.copy()), lambda t: t.numpy(),
               lambda t: isinstance(t, torch.Tensor))


@pytest.mark.skipif("cuda" not in BACKENDS, reason="the cuda backend is not present (no GPU or not built)")
def test_cupy_arrays(rng):
    cp = _import("cupy")
    ctx = context("cuda")
    a_np = make_data(rng, np.int32, 100003, "dups") % 2000 - 1000
    _check_all(ctx, a_np, cp.asarray, cp.asnumpy, lambda x: isinstance(x, cp.ndarray))


@pytest.mark.skipif("cuda" not in BACKENDS, reason="the cuda backend is not present (no GPU or not built)")
def test_torch_cuda_tensors(rng):
    torch = _import("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    ctx = context("cuda")
    a_np = make_data(rng, np.int32, 100003, "dups") % 2000 - 1000
    _check_all(ctx, a_np, lambda x: torch.from_numpy(x.copy()).cuda(), lambda t: t.cpu().numpy(),
               lambda t: isinstance(t, torch.Tensor) and t.is_cuda)


@pytest.mark.skipif("cuda" not in BACKENDS, reason="the cuda backend is not present (no GPU or not built)")
def test_numpy_on_cuda(rng):
    """NumPy inputs on the cuda backend: results are NumPy arrays."""
    ctx = context("cuda")
    a_np = make_data(rng, np.int32, 100003, "dups") % 2000 - 1000
    _check_all(ctx, a_np, lambda x: x.copy(), lambda x: x, lambda x: isinstance(x, np.ndarray))


@pytest.mark.skipif("cuda" not in BACKENDS, reason="the cuda backend is not present (no GPU or not built)")
def test_cuda_graph_capture_is_refused(rng):
    """A primitive on a stream under CUDA graph capture raises Unsupported
    (a replayed capture would reuse one call's tile numbers), and the
    context works as before once the capture is over."""
    cp = _import("cupy")
    import parprim

    ctx = context("cuda")
    a_np = make_data(rng, np.int32, 100003, "dups") % 2000 - 1000
    a = cp.asarray(a_np)
    cp.cuda.runtime.deviceSynchronize()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture(mode=cp.cuda.runtime.streamCaptureModeRelaxed)
        try:
            with pytest.raises(parprim.Unsupported, match="captured into a CUDA graph"):
                ctx.reduce(a, "sum")
            with pytest.raises(parprim.Unsupported, match="captured into a CUDA graph"):
                ctx.scan(a, "sum")
        finally:
            s.end_capture()
    assert int(ctx.reduce(a, "sum")) == int(a_np.sum())
    assert np.array_equal(cp.asnumpy(ctx.scan(a, "sum")), np.cumsum(a_np, dtype=a_np.dtype))
